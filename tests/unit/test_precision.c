// Tile kernels in every precision (float, double, complex float, complex double) on the BLAS of
// the build (BLIS + libFLAME or OpenBLAS), and the matrix element types that select them.
// Oracles, per type t with unit roundoff eps_t (FLT_EPSILON for s, c; DBL_EPSILON for d, z):
// - GEMM: a naive triple loop in long double complex arithmetic (exact enough to be the truth
//   for every type); ||C - C_ref||_F / ((|alpha| ||A||_F ||B||_F + |beta| ||C0||_F) k eps_t)
//   must stay under GEMM_TOL.
// - QR (GEQRT + UNMQR, TSQRT + TSMQR): Q formed by applying the kernels' Q to the identity;
//   ||A - QR||_F / (||A||_F n eps_t) and ||Q^H Q - I||_F / (n eps_t) under QR_TOL, and
//   ||Q^H A - R||_F / (||A||_F n eps_t) under QR_TOL for the transposed application.
// The tolerances are stated in units of each type's own eps, so float and double are held to
// the same relative standard; LAPACK's own testers use a threshold of 30 on these ratios.
// Random inputs are uniform in [-1, 1], complex ones with non-zero imaginary parts.
#include <criterion/criterion.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile.h"
#include "lib/kernels/nt_kern_common.h"
#include "lib/kernels/tile/nt_kernels.h"
#include "tool_run.h"

#define GEMM_TOL 10.0
#define QR_TOL 30.0

typedef long double _Complex lc;

static const nt_dtype types[] = {NT_DTYPE_S, NT_DTYPE_D, NT_DTYPE_C, NT_DTYPE_Z};

static bool cplx(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z;
}

static long double eps_of(nt_dtype t)
{
    return t == NT_DTYPE_S || t == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON;
}

static lc conj_l(lc x)
{
    return __builtin_conjl(x);
}

// Element idx of a buffer of type t, widened.
static lc get(nt_dtype t, const void *p, int64_t idx)
{
    switch (t) {
    case NT_DTYPE_S:
        return ((const float *)p)[idx];
    case NT_DTYPE_D:
        return ((const double *)p)[idx];
    case NT_DTYPE_C:
        return ((const float _Complex *)p)[idx];
    default:
        return ((const double _Complex *)p)[idx];
    }
}

static void put(nt_dtype t, void *p, int64_t idx, lc v)
{
    switch (t) {
    case NT_DTYPE_S:
        ((float *)p)[idx] = (float)__real__ v;
        break;
    case NT_DTYPE_D:
        ((double *)p)[idx] = (double)__real__ v;
        break;
    case NT_DTYPE_C:
        ((float _Complex *)p)[idx] = (float _Complex)v;
        break;
    default:
        ((double _Complex *)p)[idx] = (double _Complex)v;
    }
}

static void *buf(nt_dtype t, int64_t n)
{
    void *p = calloc((size_t)(n > 0 ? n : 1), nt_dtype_size(t));
    cr_assert_not_null(p);
    return p;
}

// Uniform in [-1, 1]; complex: both parts, the imaginary one never exactly zero.
static void fill_rand(nt_dtype t, void *p, int64_t n, nt_rng *r)
{
    for (int64_t i = 0; i < n; i++) {
        long double re = 2.0L * nt_rng_unit(r) - 1.0L;
        long double im = cplx(t) ? 0.05L + 0.95L * nt_rng_unit(r) : 0.0L;
        if (cplx(t) && nt_rng_below(r, 2))
            im = -im;
        lc v = re;
        __imag__ v = im;
        put(t, p, i, v);
    }
}

static bool has_imag(nt_dtype t, const void *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (__imag__ get(t, p, i) != 0.0L)
            return true;
    return false;
}

// Frobenius norm of a rows x cols block with leading dimension ld.
static long double fro(nt_dtype t, const void *p, int64_t ld, int64_t rows, int64_t cols)
{
    long double s = 0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            lc v = get(t, p, i + j * ld);
            s += __real__ v * __real__ v + __imag__ v * __imag__ v;
        }
    return sqrtl(s);
}

static long double abs_l(lc v)
{
    return sqrtl(__real__ v * __real__ v + __imag__ v * __imag__ v);
}

// op(X)(i,j): X^T for real types, X^H for complex ones, when t is set.
static lc op_at(nt_dtype ty, const void *x, int64_t ld, bool t, int64_t i, int64_t j)
{
    return t ? conj_l(get(ty, x, j + i * ld)) : get(ty, x, i + j * ld);
}

// --- GEMM ---------------------------------------------------------------------------------------

// ||C - C_ref||_F / ((|alpha| ||A|| ||B|| + |beta| ||C0||) max(k,1) eps) after one kernel call.
static long double gemm_ratio(nt_dtype t, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                              double alpha, double beta, nt_rng *r, bool corrupt)
{
    int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int64_t lda = ar + 2, ldb = br + 1, ldc = m + 3;
    void *A = buf(t, lda * ac), *B = buf(t, ldb * bc), *C = buf(t, ldc * n),
         *C0 = buf(t, ldc * n);
    fill_rand(t, A, lda * ac, r);
    fill_rand(t, B, ldb * bc, r);
    fill_rand(t, C, ldc * n, r);
    if (cplx(t))
        cr_assert(has_imag(t, A, lda * ac) && has_imag(t, B, ldb * bc));
    memcpy(C0, C, (size_t)(ldc * n) * nt_dtype_size(t));
    cr_assert_eq(nt_kern_gemm_typed(t, 1, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc),
                 NT_OK, "%s", nt_last_error());
    if (corrupt) // the oracle must see a single wrong element of relative size 1e4 k eps
        put(t, C, 0, get(t, C, 0) + 1e4L * eps_of(t) * (1.0L + abs_l(get(t, C, 0))) * k);
    long double err = 0;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < m; i++) {
            lc s = 0;
            for (int64_t l = 0; l < k; l++)
                s += op_at(t, A, lda, ta, i, l) * op_at(t, B, ldb, tb, l, j);
            lc want = alpha * s + beta * get(t, C0, i + j * ldc);
            lc d = get(t, C, i + j * ldc) - want;
            err += __real__ d * __real__ d + __imag__ d * __imag__ d;
        }
        // Rows below m (the leading-dimension padding) are never written.
        for (int64_t i = m; i < ldc; i++)
            cr_assert(get(t, C, i + j * ldc) == get(t, C0, i + j * ldc));
    }
    long double scale = (fabsl((long double)alpha) * fro(t, A, lda, ar, ac) *
                             fro(t, B, ldb, br, bc) +
                         fabsl((long double)beta) * fro(t, C0, ldc, m, n)) *
                        (long double)(k > 1 ? k : 1) * eps_of(t);
    free(A);
    free(B);
    free(C);
    free(C0);
    return sqrtl(err) / scale;
}

Test(precision, gemm_every_type_and_transpose_matches_naive_loop)
{
    nt_rng r = {2026};
    int64_t dims[][3] = {{1, 1, 1}, {7, 5, 3}, {16, 9, 33}, {24, 17, 40}};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t s = 0; s < sizeof dims / sizeof *dims; s++)
            for (int tr = 0; tr < 4; tr++) {
                nt_dtype t = types[ti];
                long double q = gemm_ratio(t, tr & 1, tr & 2, dims[s][0], dims[s][1],
                                           dims[s][2], 1.5, -0.75, &r, false);
                cr_log_info("gemm %s %dx%dx%d trans %d: %.3Lg", nt_dtype_name(t),
                            (int)dims[s][0], (int)dims[s][1], (int)dims[s][2], tr, q);
                cr_assert(q < GEMM_TOL, "gemm %s %dx%dx%d trans %d: ratio %Lg >= %g",
                          nt_dtype_name(t), (int)dims[s][0], (int)dims[s][1], (int)dims[s][2],
                          tr, q, GEMM_TOL);
            }
}

Test(precision, gemm_oracle_sees_one_wrong_element)
{
    nt_rng r = {5};
    for (size_t ti = 0; ti < 4; ti++) {
        long double q = gemm_ratio(types[ti], false, true, 12, 10, 8, 1.0, 1.0, &r, true);
        cr_log_info("gemm %s corrupted: %.3Lg", nt_dtype_name(types[ti]), q);
        cr_assert(q >= GEMM_TOL, "%s: a corrupted C passes (ratio %Lg)",
                  nt_dtype_name(types[ti]), q);
    }
}

Test(precision, gemm_alpha_zero_scales_c_by_beta_exactly)
{
    nt_rng r = {9};
    for (size_t ti = 0; ti < 4; ti++) {
        nt_dtype t = types[ti];
        void *C = buf(t, 6 * 4), *C0 = buf(t, 6 * 4), *A = buf(t, 36), *B = buf(t, 36);
        fill_rand(t, C, 24, &r);
        memcpy(C0, C, 24 * nt_dtype_size(t));
        cr_assert_eq(nt_kern_gemm_typed(t, 1, false, false, 6, 4, 6, 0.0, A, 6, B, 6, 0.5, C, 6),
                     NT_OK, "%s", nt_last_error());
        for (int i = 0; i < 24; i++)
            cr_assert(get(t, C, i) == 0.5L * get(t, C0, i), "%s: element %d",
                      nt_dtype_name(t), i);
        cr_assert_eq(nt_kern_gemm_typed(t, 1, false, false, 6, 4, 0, 1.0, A, 6, B, 6, 0.0, C, 6),
                     NT_OK);
        for (int i = 0; i < 24; i++)
            cr_assert(get(t, C, i) == 0.0L);
        free(C);
        free(C0);
        free(A);
        free(B);
    }
}

// --- QR -----------------------------------------------------------------------------------------

typedef struct qr_ratios {
    long double resid, orth, apply;
} qr_ratios;

// From Q (rows x rows) and R (rows x n, zero below the diagonal) and A0: the three ratios.
static qr_ratios qr_check(nt_dtype t, const void *A0, const void *Q, const void *R,
                          const void *QhA, int64_t rows, int64_t n)
{
    long double e2 = 0, o2 = 0, a2 = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < rows; i++) {
            lc s = 0;
            for (int64_t l = 0; l < rows; l++)
                s += get(t, Q, i + l * rows) * get(t, R, l + j * rows);
            lc d = get(t, A0, i + j * rows) - s;
            e2 += __real__ d * __real__ d + __imag__ d * __imag__ d;
            lc dr = get(t, QhA, i + j * rows) - get(t, R, i + j * rows);
            a2 += __real__ dr * __real__ dr + __imag__ dr * __imag__ dr;
        }
    for (int64_t j = 0; j < rows; j++)
        for (int64_t i = 0; i < rows; i++) {
            lc s = i == j ? -1.0L : 0.0L;
            for (int64_t l = 0; l < rows; l++)
                s += conj_l(get(t, Q, l + i * rows)) * get(t, Q, l + j * rows);
            o2 += __real__ s * __real__ s + __imag__ s * __imag__ s;
        }
    long double na = fro(t, A0, rows, rows, n), nn = (long double)(n > rows ? n : rows);
    return (qr_ratios){sqrtl(e2) / (na * nn * eps_of(t)), sqrtl(o2) / (nn * eps_of(t)),
                       sqrtl(a2) / (na * nn * eps_of(t))};
}

static void assert_ratios(qr_ratios q, const char *what, nt_dtype t, int64_t m, int64_t n,
                          int64_t ib)
{
    cr_log_info("%s %s m=%d n=%d ib=%d: %.3Lg %.3Lg %.3Lg", what, nt_dtype_name(t), (int)m, (int)n,
                (int)ib, q.resid, q.orth, q.apply);
    cr_assert(q.resid < QR_TOL && q.orth < QR_TOL && q.apply < QR_TOL,
              "%s %s m=%d n=%d ib=%d: ||A-QR|| %Lg, ||Q^HQ-I|| %Lg, ||Q^HA-R|| %Lg (tol %g)",
              what, nt_dtype_name(t), (int)m, (int)n, (int)ib, q.resid, q.orth, q.apply,
              QR_TOL);
}

// GEQRT of a random m x n tile (lda = m + 1), Q formed by UNMQR on the identity, Q^H A0 by
// UNMQR(trans) on a copy of A0.
static qr_ratios geqrt_case(nt_dtype t, int64_t m, int64_t n, int64_t ib, nt_rng *r)
{
    int64_t lda = m + 1, k = m < n ? m : n, es = (int64_t)nt_dtype_size(t);
    void *A = buf(t, lda * n), *A0 = buf(t, m * n), *T = buf(t, ib * k);
    void *W = buf(t, nt_kern_qr_lwork(ib, m > n ? m : n));
    void *Q = buf(t, m * m), *R = buf(t, m * n), *QhA = buf(t, m * n);
    fill_rand(t, A, lda * n, r);
    for (int64_t j = 0; j < n; j++)
        memcpy((char *)A0 + j * m * es, (char *)A + j * lda * es, (size_t)(m * es));
    memcpy(QhA, A0, (size_t)(m * n * es));
    cr_assert_eq(nt_kern_geqrt_typed(t, m, n, ib, A, lda, T, ib, W, nt_kern_qr_lwork(ib, n)),
                 NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j && i < m; i++)
            put(t, R, i + j * m, get(t, A, i + j * lda));
    nt_kern_set_identity(t, m, m, 0, Q, m);
    cr_assert_eq(nt_kern_unmqr_typed(t, false, m, m, k, ib, A, lda, T, ib, Q, m, W,
                                     nt_kern_qr_lwork(ib, m)),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_kern_unmqr_typed(t, true, m, n, k, ib, A, lda, T, ib, QhA, m, W,
                                     nt_kern_qr_lwork(ib, n)),
                 NT_OK, "%s", nt_last_error());
    qr_ratios q = qr_check(t, A0, Q, R, QhA, m, n);
    free(A);
    free(A0);
    free(T);
    free(W);
    free(Q);
    free(R);
    free(QhA);
    return q;
}

Test(precision, geqrt_unmqr_residuals_every_type)
{
    nt_rng r = {31};
    int64_t cases[][3] = {{8, 8, 8}, {8, 8, 3}, {12, 5, 2}, {5, 9, 4}, {1, 1, 1}, {20, 20, 7}};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            qr_ratios q = geqrt_case(types[ti], cases[c][0], cases[c][1], cases[c][2], &r);
            assert_ratios(q, "geqrt/unmqr", types[ti], cases[c][0], cases[c][1], cases[c][2]);
        }
}

// TSQRT of [R1; A2] with R1 n x n upper triangular (lda1 = n + 2) and A2 m x n (lda2 = m + 1);
// Q ((n+m) square) formed by TSMQR on the identity split as [C1; C2], Q^H [R1; A2] by
// TSMQR(trans).
static qr_ratios tsqrt_case(nt_dtype t, int64_t m, int64_t n, int64_t ib, nt_rng *r)
{
    int64_t l1 = n + 2, l2 = m + 1, rows = n + m;
    void *R1 = buf(t, l1 * n), *A2 = buf(t, l2 * n), *T = buf(t, ib * n);
    void *W = buf(t, nt_kern_qr_lwork(ib, rows > n ? rows : n));
    void *A0 = buf(t, rows * n), *Q = buf(t, rows * rows), *R = buf(t, rows * n);
    void *QhA = buf(t, rows * n);
    fill_rand(t, R1, l1 * n, r);
    fill_rand(t, A2, l2 * n, r);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = j + 1; i < n; i++)
            put(t, R1, i + j * l1, 0); // upper triangular
        for (int64_t i = 0; i < rows; i++)
            put(t, A0, i + j * rows, i < n ? get(t, R1, i + j * l1) : get(t, A2, i - n + j * l2));
    }
    cr_assert_eq(nt_kern_tsqrt_typed(t, m, n, ib, R1, l1, A2, l2, T, ib, W,
                                     nt_kern_qr_lwork(ib, n)),
                 NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j; i++)
            put(t, R, i + j * rows, get(t, R1, i + j * l1));
    // The identity as C1 = its first n rows and C2 = the other m, with their own ld.
    void *C1 = buf(t, n * rows), *C2 = buf(t, m * rows);
    nt_kern_set_identity(t, n, rows, 0, C1, n);
    nt_kern_set_identity(t, m, rows, -n, C2, m);
    cr_assert_eq(nt_kern_tsmqr_typed(t, false, m, rows, n, ib, A2, l2, T, ib, C1, n, C2, m, W,
                                     nt_kern_qr_lwork(ib, rows)),
                 NT_OK, "%s", nt_last_error());
    void *D1 = buf(t, n * n), *D2 = buf(t, m * n);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < n; i++)
            put(t, D1, i + j * n, get(t, A0, i + j * rows));
        for (int64_t i = 0; i < m; i++)
            put(t, D2, i + j * m, get(t, A0, n + i + j * rows));
    }
    cr_assert_eq(nt_kern_tsmqr_typed(t, true, m, n, n, ib, A2, l2, T, ib, D1, n, D2, m, W,
                                     nt_kern_qr_lwork(ib, n)),
                 NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < rows; j++)
        for (int64_t i = 0; i < rows; i++)
            put(t, Q, i + j * rows, i < n ? get(t, C1, i + j * n) : get(t, C2, i - n + j * m));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < rows; i++)
            put(t, QhA, i + j * rows, i < n ? get(t, D1, i + j * n) : get(t, D2, i - n + j * m));
    qr_ratios q = qr_check(t, A0, Q, R, QhA, rows, n);
    void *all[] = {R1, A2, T, W, A0, Q, R, QhA, C1, C2, D1, D2};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
    return q;
}

Test(precision, tsqrt_tsmqr_residuals_every_type)
{
    nt_rng r = {77};
    int64_t cases[][3] = {{8, 8, 8}, {8, 8, 3}, {5, 8, 2}, {12, 6, 4}, {1, 1, 1}, {16, 16, 5}};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            qr_ratios q = tsqrt_case(types[ti], cases[c][0], cases[c][1], cases[c][2], &r);
            assert_ratios(q, "tsqrt/tsmqr", types[ti], cases[c][0], cases[c][1], cases[c][2]);
        }
}

// The transpose of a complex Q is not its inverse: applying Q^T (no conjugate) where Q^H is due
// must fail the residual check, so "trans" really means the conjugate transpose for c and z.
Test(precision, complex_trans_is_conjugate_transpose)
{
    nt_rng r = {3};
    for (int z = 0; z < 2; z++) {
        nt_dtype t = z ? NT_DTYPE_Z : NT_DTYPE_C;
        int64_t m = 6, n = 6, ib = 2;
        void *A = buf(t, m * n), *T = buf(t, ib * n), *W = buf(t, ib * n), *C = buf(t, m * n);
        fill_rand(t, A, m * n, &r);
        cr_assert_eq(nt_kern_geqrt_typed(t, m, n, ib, A, m, T, ib, W, ib * n), NT_OK);
        nt_kern_set_identity(t, m, n, 0, C, m);
        // Q^H Q = I: apply Q, then Q^H.
        cr_assert_eq(nt_kern_unmqr_typed(t, false, m, n, n, ib, A, m, T, ib, C, m, W, ib * n),
                     NT_OK);
        cr_assert_eq(nt_kern_unmqr_typed(t, true, m, n, n, ib, A, m, T, ib, C, m, W, ib * n),
                     NT_OK);
        long double dev = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                dev += abs_l(get(t, C, i + j * m) - (i == j ? 1.0L : 0.0L));
        cr_assert(dev < QR_TOL * n * eps_of(t), "%s: Q^H Q deviates by %Lg", nt_dtype_name(t),
                  dev);
        // And Q^T Q (the plain transpose, done by hand with conjugated Q) is not I.
        void *Q = buf(t, m * n);
        nt_kern_set_identity(t, m, n, 0, Q, m);
        cr_assert_eq(nt_kern_unmqr_typed(t, false, m, n, n, ib, A, m, T, ib, Q, m, W, ib * n),
                     NT_OK);
        long double off = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                lc s = i == j ? -1.0L : 0.0L;
                for (int64_t l = 0; l < m; l++)
                    s += get(t, Q, l + i * m) * get(t, Q, l + j * m);
                off += abs_l(s);
            }
        cr_assert(off > 0.1L, "%s: Q^T Q = I, the test data are not complex enough",
                  nt_dtype_name(t));
        free(A);
        free(T);
        free(W);
        free(C);
        free(Q);
    }
}

// --- Arguments ----------------------------------------------------------------------------------

Test(precision, kernels_refuse_untyped_and_unknown_types)
{
    double a[4] = {0}, w[4] = {0}, tt[4] = {0};
    nt_dtype bad[] = {NT_DTYPE_NONE, (nt_dtype)9, (nt_dtype)-1};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(nt_kern_gemm_typed(bad[i], 1, false, false, 1, 1, 1, 1.0, a, 1, a, 1, 0.0,
                                        a, 1),
                     NT_EINVAL);
        cr_assert(strstr(nt_last_error(), "element type"), "%s", nt_last_error());
        cr_assert_eq(nt_kern_geqrt_typed(bad[i], 2, 2, 1, a, 2, tt, 1, w, 2), NT_EINVAL);
        cr_assert_eq(nt_kern_unmqr_typed(bad[i], true, 2, 2, 2, 1, a, 2, tt, 1, a, 2, w, 2),
                     NT_EINVAL);
        cr_assert_eq(nt_kern_tsqrt_typed(bad[i], 2, 2, 1, a, 2, a, 2, tt, 1, w, 2), NT_EINVAL);
        cr_assert_eq(nt_kern_tsmqr_typed(bad[i], true, 2, 2, 2, 1, a, 2, tt, 1, a, 2, a, 2, w,
                                         2),
                     NT_EINVAL);
        cr_assert_eq(nt_kern_trsm_upper_typed(bad[i], 1, 1, a, 1, a, 1), NT_EINVAL);
    }
    // The usual checks still come first for a good type: no call into the library.
    cr_assert_eq(nt_kern_geqrt_typed(NT_DTYPE_C, 2, 2, 1, a, 1, tt, 1, w, 2), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "lda"), "%s", nt_last_error());
}

Test(precision, tile_helpers_every_type)
{
    for (size_t ti = 0; ti < 4; ti++) {
        nt_dtype t = types[ti];
        void *A = buf(t, 5 * 4);
        nt_kern_set_identity(t, 4, 4, -1, A, 5); // ones at x - y = -1: the superdiagonal
        for (int64_t y = 0; y < 4; y++)
            for (int64_t x = 0; x < 5; x++) {
                lc v = get(t, A, x + y * 5);
                lc want = x < 4 && x - y == -1 ? 1.0L : 0.0L;
                cr_assert(v == want, "%s (%d,%d)", nt_dtype_name(t), (int)x, (int)y);
            }
        cr_assert_eq(nt_kern_first_zero_diag(t, 4, A, 5), 0);
        nt_kern_set_identity(t, 4, 4, 0, A, 5);
        cr_assert_eq(nt_kern_first_zero_diag(t, 4, A, 5), -1);
        lc v = 0;
        if (cplx(t))
            __imag__ v = 1.0L; // a purely imaginary diagonal element is not zero
        put(t, A, 2 + 2 * 5, v);
        cr_assert_eq(nt_kern_first_zero_diag(t, 4, A, 5), cplx(t) ? -1 : 2);
        free(A);
    }
}

// --- Matrix element types -----------------------------------------------------------------------

Test(precision, dtype_sizes_and_names)
{
    cr_assert_eq(nt_dtype_size(NT_DTYPE_S), sizeof(float));
    cr_assert_eq(nt_dtype_size(NT_DTYPE_D), sizeof(double));
    cr_assert_eq(nt_dtype_size(NT_DTYPE_C), sizeof(float _Complex));
    cr_assert_eq(nt_dtype_size(NT_DTYPE_Z), sizeof(double _Complex));
    cr_assert_eq(nt_dtype_size(NT_DTYPE_NONE), 0);
    cr_assert_eq(nt_dtype_size((nt_dtype)5), 0);
    cr_assert_str_eq(nt_dtype_name(NT_DTYPE_S), "s");
    cr_assert_str_eq(nt_dtype_name(NT_DTYPE_Z), "z");
    cr_assert_str_eq(nt_dtype_name(NT_DTYPE_NONE), "none");
    cr_assert_str_eq(nt_dtype_name((nt_dtype)-3), "?");
}

static nt_matrix_t *plain(size_t elem)
{
    nt_matrix_shape_t sh = {.m = 10, .n = 10, .mb = 4, .nb = 4, .elem_size = elem};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc2d:2x1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A),
                 NT_OK, "%s", nt_last_error());
    return A;
}

Test(precision, matrix_dtype_set_get_and_validation)
{
    nt_matrix_t *A = plain(8);
    cr_assert_eq(nt_matrix_dtype(A), NT_DTYPE_NONE);
    cr_assert_eq(nt_matrix_dtype(NULL), NT_DTYPE_NONE);
    cr_assert_eq(nt_kern_dtype(A), NT_DTYPE_D, "an untyped 8-byte matrix computes as double");
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_C), NT_OK);
    cr_assert_eq(nt_matrix_dtype(A), NT_DTYPE_C);
    cr_assert_eq(nt_kern_dtype(A), NT_DTYPE_C);
    // Mismatch: refused, named, A unchanged.
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_Z), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "elem_size") && strstr(nt_last_error(), "16"), "%s",
              nt_last_error());
    cr_assert_eq(nt_matrix_dtype(A), NT_DTYPE_C);
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_S), NT_EINVAL);
    cr_assert_eq(nt_matrix_set_dtype(A, (nt_dtype)7), NT_EINVAL);
    cr_assert_eq(nt_matrix_dtype(A), NT_DTYPE_C);
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_D), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_NONE), NT_OK);
    cr_assert_eq(nt_matrix_dtype(A), NT_DTYPE_NONE);
    cr_assert_eq(nt_matrix_set_dtype(NULL, NT_DTYPE_D), NT_EINVAL);
    nt_matrix_destroy(A);

    nt_matrix_t *F = plain(4), *Z = plain(16), *U = plain(3);
    cr_assert_eq(nt_kern_dtype(F), NT_DTYPE_NONE, "untyped 4-byte elements are not float");
    cr_assert_eq(nt_matrix_set_dtype(F, NT_DTYPE_S), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(Z, NT_DTYPE_Z), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(U, NT_DTYPE_S), NT_EINVAL);
    cr_assert_eq(F->elem_size, 4);
    cr_assert_eq(Z->elem_size, 16);
    nt_matrix_destroy(F);
    nt_matrix_destroy(Z);
    nt_matrix_destroy(U);
}

// The drivers' operand checks: the double-only one refuses complex float (also 8 bytes); the
// typed one takes every type but insists that the operands agree.
Test(precision, kernel_operand_checks_follow_the_type)
{
    nt_topo_opts_t o = {.domains = 2};
    nt_topo_t *topo = NULL;
    cr_assert_eq(nt_topo_load(&o, &topo), NT_OK, "%s", nt_last_error());
    nt_matrix_shape_t sh = {.m = 8, .n = 8, .mb = 4, .nb = 4, .elem_size = 8};
    nt_matrix_t *C = NULL, *D = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:2x1", 0, NT_LAYOUT_TILE, 0, &C), NT_OK,
                 "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:2x1", 0, NT_LAYOUT_TILE, 0, &D), NT_OK);
    cr_assert_eq(nt_kern_check_matrix("A", C, NULL), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(C, NT_DTYPE_C), NT_OK);
    cr_assert_eq(nt_kern_check_matrix("A", C, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "element type c"), "%s", nt_last_error());
    cr_assert_eq(nt_kern_check_matrix_typed("A", C, topo, NT_DTYPE_NONE), NT_OK);
    cr_assert_eq(nt_kern_check_matrix_typed("A", C, topo, NT_DTYPE_C), NT_OK);
    cr_assert_eq(nt_kern_check_matrix_typed("B", D, topo, NT_DTYPE_C), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "B: element type d, the other operands are c"), "%s",
              nt_last_error());
    cr_assert_eq(nt_kern_tile_bytes(C, 0, 0), 4 * 4 * 8);
    nt_matrix_destroy(C);
    nt_matrix_destroy(D);
    nt_topo_destroy(topo);
}

// --- The CLI ------------------------------------------------------------------------------------

// --type: d runs (and says so in the JSON); a letter other than s, d, c, z is a usage error
// naming --type. (Every type running with --verify: test_precision_drivers.c.)
Test(precision, cli_type_option)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *cmds[][14] = {
        {"gemm", "--n", "16", "--nb", "8", "--dist", "bc2d:1x2", "--domains", "2", "--type"},
        {"qr", "--m", "16", "--n", "16", "--nb", "8", "--dist", "bc2d:1x2", "--domains", "2",
         "--type"}};
    const char *types_cli[] = {"q", "D", "zz"};
    for (int c = 0; c < 2; c++) {
        int na = 0;
        while (cmds[c][na])
            na++;
        const char *args[16];
        for (int i = 0; i < na; i++)
            args[i] = cmds[c][i];
        args[na] = "d";
        args[na + 1] = "--verify";
        args[na + 2] = "--json";
        args[na + 3] = NULL;
        json_t *j = tool_json(args);
        cr_assert_str_eq(json_string_value(json_object_get(j, "type")), "d");
        cr_assert(json_is_true(json_object_get(j, "verify")));
        json_decref(j);
        for (size_t t = 0; t < sizeof types_cli / sizeof *types_cli; t++) {
            args[na] = types_cli[t];
            args[na + 1] = NULL;
            tool_result r = tool_run(args);
            cr_assert_eq(r.status, 2, "%s --type %s: exit %d", cmds[c][0], types_cli[t],
                         r.status);
            cr_assert(strstr(r.err, "--type"), "%s", r.err);
            cr_assert_str_empty(r.out);
            tool_result_free(&r);
        }
    }
}
