// Tile kernels (GEMM, GEQRT / UNMQR / TSQRT / TSMQR on the BLAS of the build: BLIS + libFLAME or
// OpenBLAS) on plain buffers.
// Oracles: a naive triple loop (exact on integer-valued data), and the LAPACK residuals
// ||A - QR||_F / (||A||_F n eps) and ||Q^T Q - I||_F / (n eps) with Q formed by applying the
// kernels to the identity.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "lib/kernels/tile/nt_kernels.h"
#include "numatile/version.h"

static double *mat(int64_t rows, int64_t cols)
{
    double *p = calloc((size_t)(rows * cols > 0 ? rows * cols : 1), sizeof *p);
    cr_assert_not_null(p);
    return p;
}

static void fill_rand(double *a, int64_t n, nt_rng *r)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = 2.0 * nt_rng_unit(r) - 1.0;
}

static void fill_int(double *a, int64_t n, nt_rng *r)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = (double)((int64_t)nt_rng_below(r, 19) - 9);
}

// op(X)(i,j) of a column-major matrix with leading dimension ld.
static double at(const double *x, int64_t ld, bool t, int64_t i, int64_t j)
{
    return t ? x[j + i * ld] : x[i + j * ld];
}

Test(kernels, gemm_matches_naive_loop_exactly_on_integers)
{
    nt_rng r = {11};
    int64_t dims[][3] = {{1, 1, 1}, {7, 5, 3}, {16, 9, 33}, {40, 41, 17}, {3, 64, 1}};
    for (size_t s = 0; s < sizeof dims / sizeof *dims; s++)
        for (int tr = 0; tr < 4; tr++) {
            bool ta = tr & 1, tb = tr & 2;
            int64_t m = dims[s][0], n = dims[s][1], k = dims[s][2];
            int64_t lda = (ta ? k : m) + 2, ldb = (tb ? n : k) + 1, ldc = m + 3;
            double *A = mat(lda, ta ? m : k), *B = mat(ldb, tb ? k : n), *C = mat(ldc, n);
            double *C0 = mat(ldc, n);
            fill_int(A, lda * (ta ? m : k), &r);
            fill_int(B, ldb * (tb ? k : n), &r);
            fill_int(C, ldc * n, &r);
            memcpy(C0, C, (size_t)(ldc * n) * sizeof *C);
            cr_assert_eq(nt_kern_gemm(ta, tb, m, n, k, 2.0, A, lda, B, ldb, -3.0, C, ldc), NT_OK,
                         "%s", nt_last_error());
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < ldc; i++) {
                    double want = C0[i + j * ldc];
                    if (i < m) {
                        double acc = 0;
                        for (int64_t l = 0; l < k; l++)
                            acc += at(A, lda, ta, i, l) * at(B, ldb, tb, l, j);
                        want = 2.0 * acc - 3.0 * want;
                    }
                    cr_assert_eq(C[i + j * ldc], want, "case %zu trans %d at (%lld,%lld)", s, tr,
                                 (long long)i, (long long)j);
                }
            free(A);
            free(B);
            free(C);
            free(C0);
        }
}

Test(kernels, gemm_threads_and_degenerate_cases)
{
    nt_rng r = {5};
    int64_t m = 70, n = 50, k = 30;
    double *A = mat(m, k), *B = mat(k, n), *C1 = mat(m, n), *C2 = mat(m, n);
    fill_int(A, m * k, &r);
    fill_int(B, k * n, &r);
    cr_assert_eq(nt_kern_gemm(false, false, m, n, k, 1.0, A, m, B, k, 0.0, C1, m), NT_OK);
    cr_assert_eq(nt_kern_gemm_threads(2, false, false, m, n, k, 1.0, A, m, B, k, 0.0, C2, m),
                 NT_OK);
    cr_assert_eq(memcmp(C1, C2, (size_t)(m * n) * sizeof *C1), 0);
    // k = 0 scales C by beta; beta = 0 overwrites even NaN.
    C1[0] = NAN;
    cr_assert_eq(nt_kern_gemm(false, false, m, n, 0, 1.0, NULL, m, NULL, 1, 0.0, C1, m), NT_OK);
    cr_assert_eq(C1[0], 0.0);
    cr_assert_eq(nt_kern_gemm(false, false, 0, 0, 0, 1.0, NULL, 1, NULL, 1, 0.0, NULL, 1), NT_OK);
    free(A);
    free(B);
    free(C1);
    free(C2);
}

Test(kernels, gemm_rejects_bad_arguments_without_touching_c)
{
    double A[16] = {1}, B[16] = {1}, C[16] = {7};
    cr_assert_eq(nt_kern_gemm(false, false, 4, 4, 4, 1, A, 3, B, 4, 0, C, 4), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "lda"), "%s", nt_last_error());
    cr_assert_eq(nt_kern_gemm(false, false, 4, 4, 4, 1, A, 4, B, 4, 0, C, 2), NT_EINVAL);
    cr_assert_eq(nt_kern_gemm(true, false, 4, 4, 2, 1, A, 1, B, 4, 0, C, 4), NT_EINVAL);
    cr_assert_eq(nt_kern_gemm(false, false, -1, 4, 4, 1, A, 4, B, 4, 0, C, 4), NT_EINVAL);
    cr_assert_eq(nt_kern_gemm(false, false, 4, 4, 4, 1, NULL, 4, B, 4, 0, C, 4), NT_EINVAL);
    cr_assert_eq(nt_kern_gemm(false, false, 4, 4, 4, 1, A, 4, B, 4, 0, NULL, 4), NT_EINVAL);
    cr_assert_eq(nt_kern_gemm_threads(0, false, false, 4, 4, 4, 1, A, 4, B, 4, 0, C, 4),
                 NT_EINVAL);
    cr_assert_eq(C[0], 7.0);
}

static double fro(const double *a, int64_t rows, int64_t cols, int64_t ld)
{
    double s = 0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            s += a[i + j * ld] * a[i + j * ld];
    return sqrt(s);
}

// ||Q^T Q - I||_F / (n eps) for an n x n column-major Q.
static double orth_residual(const double *Q, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double d = 0;
            for (int64_t l = 0; l < n; l++)
                d += Q[l + i * n] * Q[l + j * n];
            d -= i == j;
            s += d * d;
        }
    return sqrt(s) / ((double)n * DBL_EPSILON);
}

// ||A - Q R||_F / (||A||_F n eps), A and Q m x m-ish: A is m x n, Q m x m, R m x n (upper).
static double fact_residual(const double *A, const double *Q, const double *R, int64_t m,
                            int64_t n)
{
    double s = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = A[i + j * m];
            for (int64_t l = 0; l <= (j < m - 1 ? j : m - 1); l++)
                d -= Q[i + l * m] * R[l + j * m];
            s += d * d;
        }
    double an = fro(A, m, n, m);
    return sqrt(s) / ((an > 0 ? an : 1) * (double)(n > m ? n : m) * DBL_EPSILON);
}

Test(kernels, geqrt_and_unmqr_give_small_residuals)
{
    nt_rng r = {21};
    int64_t shapes[][3] = {{8, 8, 4}, {40, 40, 8}, {50, 30, 16}, {30, 50, 7}, {1, 5, 1},
                           {33, 1, 1}, {64, 64, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t m = shapes[s][0], n = shapes[s][1], ib = shapes[s][2], k = m < n ? m : n;
        double *A = mat(m, n), *A0 = mat(m, n), *T = mat(ib, k), *Q = mat(m, m), *R = mat(m, n);
        int64_t lw = nt_kern_qr_lwork(ib, m > n ? m : n);
        double *W = mat(lw, 1);
        fill_rand(A, m * n, &r);
        memcpy(A0, A, (size_t)(m * n) * sizeof *A);
        cr_assert_eq(nt_kern_geqrt(m, n, ib, A, m, T, ib, W, lw), NT_OK, "%s", nt_last_error());
        // Q = Q I; R = upper triangle of the factored A.
        for (int64_t i = 0; i < m; i++)
            Q[i + i * m] = 1.0;
        cr_assert_eq(nt_kern_unmqr(false, m, m, k, ib, A, m, T, ib, Q, m, W, lw), NT_OK, "%s",
                     nt_last_error());
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i <= j && i < m; i++)
                R[i + j * m] = A[i + j * m];
        double fr = fact_residual(A0, Q, R, m, n), orr = orth_residual(Q, m);
        cr_assert_lt(fr, 10.0, "shape %zu: ||A-QR|| residual %g", s, fr);
        cr_assert_lt(orr, 10.0, "shape %zu: ||Q^TQ-I|| residual %g", s, orr);
        // Q^T A0 must reproduce R (zeros below the diagonal).
        cr_assert_eq(nt_kern_unmqr(true, m, n, k, ib, A, m, T, ib, A0, m, W, lw), NT_OK);
        double d = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                d += pow(A0[i + j * m] - R[i + j * m], 2);
        cr_assert_lt(sqrt(d) / (fro(R, m, n, m) * (double)m * DBL_EPSILON), 10.0);
        free(A);
        free(A0);
        free(T);
        free(Q);
        free(R);
        free(W);
    }
}

Test(kernels, tsqrt_and_tsmqr_give_small_residuals)
{
    nt_rng r = {33};
    int64_t shapes[][3] = {{8, 8, 4}, {40, 40, 8}, {17, 40, 40}, {40, 17, 5}, {1, 3, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t m = shapes[s][0], n = shapes[s][1], ib = shapes[s][2], M = n + m;
        // Stacked [R0; A2], M x n, stored as separate tiles with padded leading dimensions.
        int64_t ld1 = n + 1, ld2 = m + 2;
        double *R = mat(ld1, n), *A2 = mat(ld2, n), *T = mat(ib, n), *S = mat(M, n);
        int64_t lw = nt_kern_qr_lwork(ib, M);
        double *W = mat(lw, 1);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i <= j; i++)
                R[i + j * ld1] = 2.0 * nt_rng_unit(&r) - 1.0;
        fill_rand(A2, ld2 * n, &r);
        for (int64_t j = 0; j < n; j++) {
            for (int64_t i = 0; i < n; i++)
                S[i + j * M] = R[i + j * ld1];
            for (int64_t i = 0; i < m; i++)
                S[n + i + j * M] = A2[i + j * ld2];
        }
        cr_assert_eq(nt_kern_tsqrt(m, n, ib, R, ld1, A2, ld2, T, ib, W, lw), NT_OK, "%s",
                     nt_last_error());
        // Q (M x M) = Q [I_n 0; 0 I_m], the top n rows in C1 and the bottom m rows in C2.
        double *C1 = mat(n, M), *C2 = mat(m, M), *Q = mat(M, M), *RR = mat(M, n);
        for (int64_t i = 0; i < M; i++) {
            if (i < n)
                C1[i + i * n] = 1.0;
            else
                C2[(i - n) + i * m] = 1.0;
        }
        cr_assert_eq(nt_kern_tsmqr(false, m, M, n, ib, A2, ld2, T, ib, C1, n, C2, m, W, lw),
                     NT_OK, "%s", nt_last_error());
        for (int64_t j = 0; j < M; j++) {
            for (int64_t i = 0; i < n; i++)
                Q[i + j * M] = C1[i + j * n];
            for (int64_t i = 0; i < m; i++)
                Q[n + i + j * M] = C2[i + j * m];
        }
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i <= j; i++)
                RR[i + j * M] = R[i + j * ld1];
        double fr = fact_residual(S, Q, RR, M, n), orr = orth_residual(Q, M);
        cr_assert_lt(fr, 10.0, "shape %zu: residual %g", s, fr);
        cr_assert_lt(orr, 10.0, "shape %zu: orthogonality %g", s, orr);
        free(R);
        free(A2);
        free(T);
        free(S);
        free(W);
        free(C1);
        free(C2);
        free(Q);
        free(RR);
    }
}

Test(kernels, qr_kernels_reject_bad_arguments)
{
    double A[64] = {3}, T[64], W[64];
    cr_assert_eq(nt_kern_geqrt(8, 8, 0, A, 8, T, 8, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_geqrt(8, 8, 9, A, 8, T, 9, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_geqrt(8, 8, 4, A, 7, T, 4, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_geqrt(8, 8, 4, A, 8, T, 3, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_geqrt(8, 8, 4, A, 8, T, 4, W, 31), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "lwork"), "%s", nt_last_error());
    cr_assert_eq(nt_kern_geqrt(8, 8, 4, NULL, 8, T, 4, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_unmqr(true, 4, 4, 5, 4, A, 4, T, 4, A, 4, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_unmqr(true, 4, 4, 4, 4, A, 4, T, 4, A, 3, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_tsqrt(4, 4, 2, A, 3, A, 4, T, 2, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_tsqrt(4, -1, 2, A, 4, A, 4, T, 2, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_tsmqr(true, 4, 4, 4, 2, A, 4, T, 2, A, 3, A, 4, W, 64), NT_EINVAL);
    cr_assert_eq(nt_kern_tsmqr(true, 4, 4, 4, 2, A, 4, NULL, 2, A, 4, A, 4, W, 64), NT_EINVAL);
    cr_assert_eq(A[0], 3.0);
}

Test(kernels, flat_qr_matches_tiled_kernel_r)
{
    // R of a full-rank A is unique up to the signs of its rows, so compare magnitudes.
    nt_rng r = {8};
    int64_t m = 60, n = 45;
    double *A = mat(m, n), *B = mat(m, n), *T = mat(8, n), *W = mat(8 * n, 1);
    fill_rand(A, m * n, &r);
    memcpy(B, A, (size_t)(m * n) * sizeof *A);
    cr_assert_eq(nt_kern_qr_flat(2, m, n, A, m), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_kern_geqrt(m, n, 8, B, m, T, 8, W, 8 * n), NT_OK);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j; i++)
            cr_assert_float_eq(fabs(A[i + j * m]), fabs(B[i + j * m]), 1e-12 * (double)m,
                               "R(%lld,%lld)", (long long)i, (long long)j);
    cr_assert_eq(nt_kern_qr_flat(1, m, n, A, m - 1), NT_EINVAL);
    free(A);
    free(B);
    free(T);
    free(W);
}

Test(kernels, blas_name_names_the_library_and_its_kernels)
{
    const char *s = nt_blas_name();
    cr_assert_not_null(s);
    cr_assert(!strncmp(s, "blis ", 5) || !strncmp(s, "openblas ", 9), "%s", s);
    cr_assert(strchr(s, '(') && s[strlen(s) - 1] == ')', "%s", s);
    cr_assert_eq(nt_blas_name(), s);
}

// One call of each tile kernel family (flat = false) or of the two flat calls (flat = true);
// true when all succeed. No assertion inside: it also runs on OpenMP worker threads.
static bool call_kernels(bool flat)
{
    nt_rng r = {12};
    int64_t n = 48, ib = 8;
    double *A = mat(n, n), *B = mat(n, n), *C = mat(n, n), *T = mat(ib, n), *W = mat(ib * n, 1);
    fill_rand(A, n * n, &r);
    fill_rand(B, n * n, &r);
    bool ok;
    if (flat)
        ok = nt_kern_gemm_threads(2, false, false, n, n, n, 1.0, A, n, B, n, 1.0, C, n) == NT_OK &&
             nt_kern_qr_flat(2, n, n, B, n) == NT_OK;
    else
        ok = nt_kern_gemm(false, true, n, n, n, 1.0, A, n, B, n, 0.0, C, n) == NT_OK &&
             nt_kern_geqrt(n, n, ib, A, n, T, ib, W, ib * n) == NT_OK &&
             nt_kern_unmqr(true, n, n, n, ib, A, n, T, ib, B, n, W, ib * n) == NT_OK &&
             nt_kern_trsm_upper(n, n, A, n, C, n) == NT_OK;
    free(A);
    free(B);
    free(C);
    free(T);
    free(W);
    return ok;
}

// OpenBLAS's OpenMP build takes each call's thread count from the caller's OpenMP nthreads-var;
// the backend changes it for one call only. Neither build may leave it changed, outside a
// parallel region or inside one (where the tile kernels run).
Test(kernels, kernels_leave_the_callers_openmp_thread_count_alone)
{
    omp_set_num_threads(3);
    cr_assert(call_kernels(false) && call_kernels(true), "%s", nt_last_error());
    cr_assert_eq(omp_get_max_threads(), 3);
    int got[2] = {0, 0};
    bool ok[2] = {false, false};
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        omp_set_num_threads(5);
        ok[t] = call_kernels(false);
        got[t] = omp_get_max_threads();
    }
    cr_assert(ok[0] && ok[1]);
    cr_assert_eq(got[0], 5);
    cr_assert_eq(got[1], 5);
#pragma omp parallel num_threads(1)
    {
        ok[0] = call_kernels(false) && call_kernels(true);
        got[0] = omp_get_max_threads();
    }
    cr_assert(ok[0]);
    cr_assert_eq(got[0], 3);
    cr_assert_eq(omp_get_max_threads(), 3);
}
