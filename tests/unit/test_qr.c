// Tiled owner-computes Householder QR, Q application, Q formation and least squares.
// Oracles: LAPACK-style residuals ||A - QR||_F / (||A||_F n eps) and ||Q^T Q - I||_F / (n eps)
// computed densely by the test, Q^T A = R, the normal equations of the least-squares solution,
// and task / remote-read counts enumerated from the tile maps.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "nt_core.h"
#include "numatile.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"

static void value(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    uint64_t seed = *(const uint64_t *)arg;
    nt_rng g = {seed ^ ((uint64_t)r * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)c << 32)};
    nt_rng_next(&g);
    *(double *)elem = 2.0 * nt_rng_unit(&g) - 1.0;
}

static nt_matrix_t *make(const nt_topo_t *t, int64_t m, int64_t n, int64_t nb, const char *spec,
                         uint64_t seed)
{
    nt_matrix_shape_t sh = {m, n, nb, nb, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE, 0, &A),
                 NT_OK, "%s: %s", spec, nt_last_error());
    cr_assert_eq(nt_matrix_fill(A, value, &seed), NT_OK);
    return A;
}

static int own(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return nt_matrix_tile_domain(A, i, j);
}

// Tasks and remote tile reads of the tile QR, enumerated from the map: GEQRT(k) on A(k,k);
// UNMQR(k,j) reads V(k,k), T(k,k); TSQRT(i,k) on A(i,k) reads and writes R(k,k); TSMQR(i,j,k)
// on A(i,j) reads V(i,k), T(i,k) and reads and writes A(k,j). T tiles sit with their A tile.
static void expected_counts(const nt_matrix_t *A, int64_t *tasks, int64_t *remote)
{
    *tasks = *remote = 0;
    int64_t kt = A->mt < A->nt ? A->mt : A->nt;
    for (int64_t k = 0; k < kt; k++) {
        (*tasks)++;
        for (int64_t j = k + 1; j < A->nt; j++) {
            (*tasks)++;
            *remote += 2 * (own(A, k, k) != own(A, k, j));
        }
        for (int64_t i = k + 1; i < A->mt; i++) {
            (*tasks)++;
            *remote += own(A, k, k) != own(A, i, k);
            for (int64_t j = k + 1; j < A->nt; j++) {
                (*tasks)++;
                *remote += 2 * (own(A, i, k) != own(A, i, j)) + (own(A, k, j) != own(A, i, j));
            }
        }
    }
}

// Factor, form Q (m x m), check both residuals and Q^T A = R; returns nothing, asserts.
static void check_qr(const nt_topo_t *t, int64_t m, int64_t n, int64_t nb, const char *spec,
                     const char *qspec, nt_kernel_sched sched, int64_t ib)
{
    nt_matrix_t *A = make(t, m, n, nb, spec, (uint64_t)(m * 1000 + n));
    nt_matrix_t *Q = make(t, m, m, nb, qspec, 5);
    nt_matrix_t *B = make(t, m, n, nb, qspec, (uint64_t)(m * 1000 + n));
    double *a0 = kt_dense(A);
    nt_kernel_opts_t o = {.sched = sched, .ib = ib};
    nt_kernel_stats_t s = {0};
    nt_qr_t *qr = NULL;
    cr_assert_eq(nt_qr_factor(A, &o, &qr, &s), NT_OK, "%s", nt_last_error());
    int64_t tasks, remote;
    expected_counts(A, &tasks, &remote);
    cr_assert_eq(s.tasks, tasks);
    cr_assert_eq(s.remote_reads, remote, "%s: remote reads %lld, expected %lld", spec,
                 (long long)s.remote_reads, (long long)remote);
    if (sched == NT_KERNEL_OWNER) {
        cr_assert_eq(s.owner_fraction, 1.0, "owner fraction %g", s.owner_fraction);
        for (int d = 0; d < s.ndomains; d++)
            cr_assert_eq(s.tasks_run[d], s.tasks_owned[d]);
    }
    cr_assert_eq(nt_qr_form_q(qr, Q, &o, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_qr_apply_q(qr, true, B, &o, &s), NT_OK, "%s", nt_last_error());
    if (sched == NT_KERNEL_OWNER)
        cr_assert_eq(s.owner_fraction, 1.0);
    double *q = kt_dense(Q);
    // ||A - Q R||_F with R the upper triangle of the factored A.
    double res = 0, an = 0, rn = 0, qtr = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = a0[i + j * m];
            an += d * d;
            for (int64_t l = 0; l <= j && l < m; l++)
                d -= q[i + l * m] * kt_get(A, l, j);
            res += d * d;
            double r = i <= j ? kt_get(A, i, j) : 0.0;
            rn += r * r;
            qtr += pow(kt_get(B, i, j) - r, 2);
        }
    double orth = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            double d = -(double)(i == j);
            for (int64_t l = 0; l < m; l++)
                d += q[l + i * m] * q[l + j * m];
            orth += d * d;
        }
    double N = (double)(m > n ? m : n);
    double r1 = sqrt(res) / (sqrt(an) * N * DBL_EPSILON);
    double r2 = sqrt(orth) / ((double)m * DBL_EPSILON);
    double r3 = sqrt(qtr) / (sqrt(rn) * N * DBL_EPSILON);
    cr_assert_lt(r1, 10.0, "%lldx%lld nb %lld %s: ||A-QR|| residual %g", (long long)m,
                 (long long)n, (long long)nb, spec, r1);
    cr_assert_lt(r2, 10.0, "%lldx%lld nb %lld %s: ||Q^TQ-I|| residual %g", (long long)m,
                 (long long)n, (long long)nb, spec, r2);
    cr_assert_lt(r3, 10.0, "%lldx%lld nb %lld %s: ||Q^T A - R|| residual %g", (long long)m,
                 (long long)n, (long long)nb, spec, r3);
    nt_kernel_stats_free(&s);
    nt_qr_destroy(qr);
    free(a0);
    free(q);
    nt_matrix_destroy(A);
    nt_matrix_destroy(Q);
    nt_matrix_destroy(B);
}

Test(qr, residuals_square_rectangular_partial_tiles_1_to_8_domains)
{
    for (int D = 1; D <= 8; D++) {
        nt_topo_t *t = kt_topo(D);
        char bc1[48], rnd[48], skw[48], chk[48], bnd[48], bal[48];
        snprintf(bc1, sizeof bc1, "bc1d:%d", D);
        snprintf(rnd, sizeof rnd, "random:%d", D);
        snprintf(skw, sizeof skw, "skewed:%dx1:%d", D, D + 1);
        snprintf(chk, sizeof chk, "chunk:%d:%d", D, 3 * D);
        snprintf(bnd, sizeof bnd, "band:2:1x%d", D);
        snprintf(bal, sizeof bal, "balanced:%d", D);
        const char *specs[] = {bc1, rnd, skw, chk, bnd, bal};
        int ns = sizeof specs / sizeof *specs;
        check_qr(t, 37, 37, 8, specs[D % ns], specs[(D + 1) % ns], NT_KERNEL_OWNER, 0);
        check_qr(t, 50, 23, 7, specs[(D + 2) % ns], specs[(D + 3) % ns], NT_KERNEL_OWNER, 3);
        check_qr(t, 23, 41, 6, specs[(D + 4) % ns], specs[(D + 5) % ns], NT_KERNEL_OWNER, 6);
        nt_topo_destroy(t);
    }
}

Test(qr, single_tile_row_column_and_every_dist_kind)
{
    nt_topo_t *t = kt_topo(4);
    const char *specs[] = {"bc2d:2x2", "bc1d:4", "random:9", "balanced:9", "skewed:2x2:1",
                           "chunk:4:2", "band:1:2x2", "bc2d:2x2:2x3"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++)
        check_qr(t, 30, 30, 8, specs[s], specs[(s + 1) % 8], NT_KERNEL_OWNER, 4);
    check_qr(t, 5, 5, 8, "random:1", "random:2", NT_KERNEL_OWNER, 0);
    check_qr(t, 6, 40, 8, "random:1", "random:2", NT_KERNEL_OWNER, 2);
    check_qr(t, 40, 6, 8, "random:1", "random:2", NT_KERNEL_OWNER, 1);
    check_qr(t, 1, 1, 1, "bc1d:4", "bc1d:4", NT_KERNEL_OWNER, 1);
    nt_topo_destroy(t);
}

Test(qr, omp_task_baseline_gives_the_same_accuracy)
{
    nt_topo_t *t = kt_topo(3);
    check_qr(t, 44, 36, 8, "random:4", "bc1d:3", NT_KERNEL_OMP, 4);
    nt_topo_destroy(t);
}

Test(qr, least_squares_satisfies_the_normal_equations)
{
    nt_topo_t *t = kt_topo(3);
    int64_t m = 61, n = 29, p = 5, nb = 8;
    nt_matrix_t *A = make(t, m, n, nb, "random:1", 7);
    nt_matrix_t *B = NULL;
    nt_matrix_shape_t sh = {m, p, nb, 3, 8};
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "balanced:5", 3, NT_LAYOUT_TILE, 0, &B), NT_OK);
    uint64_t sd = 99;
    cr_assert_eq(nt_matrix_fill(B, value, &sd), NT_OK);
    double *a = kt_dense(A), *b = kt_dense(B);
    nt_qr_t *qr = NULL;
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_qr_factor(A, NULL, &qr, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_qr_solve_ls(qr, B, NULL, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(s.owner_fraction, 1.0);
    double an = 0;
    for (int64_t x = 0; x < m * n; x++)
        an += a[x] * a[x];
    an = sqrt(an);
    for (int64_t c = 0; c < p; c++) {
        double xn = 0, bn = 0, *r = malloc((size_t)m * sizeof *r);
        for (int64_t i = 0; i < m; i++) {
            r[i] = b[i + c * m];
            bn += r[i] * r[i];
            for (int64_t l = 0; l < n; l++)
                r[i] -= a[i + l * m] * kt_get(B, l, c);
        }
        for (int64_t l = 0; l < n; l++)
            xn += kt_get(B, l, c) * kt_get(B, l, c);
        // The rows of B below n hold Q^T b's tail: its norm is the residual norm.
        double rn = 0, tail = 0;
        for (int64_t i = 0; i < m; i++)
            rn += r[i] * r[i];
        for (int64_t i = n; i < m; i++)
            tail += kt_get(B, i, c) * kt_get(B, i, c);
        cr_assert_float_eq(sqrt(rn), sqrt(tail), 1e-10 * sqrt(bn));
        for (int64_t l = 0; l < n; l++) {
            double g = 0;
            for (int64_t i = 0; i < m; i++)
                g += a[i + l * m] * r[i];
            double ratio = fabs(g) / (an * (an * sqrt(xn) + sqrt(bn)) * (double)m * DBL_EPSILON);
            cr_assert_lt(ratio, 10.0, "column %lld of A^T r: %g", (long long)l, ratio);
        }
        free(r);
    }
    nt_kernel_stats_free(&s);
    nt_qr_destroy(qr);
    free(a);
    free(b);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_topo_destroy(t);
}

Test(qr, invalid_input_is_rejected_before_anything_is_computed)
{
    nt_topo_t *t = kt_topo(2);
    nt_matrix_shape_t sh = {20, 20, 5, 4, 8};
    nt_matrix_t *R = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc1d:2", 2, NT_LAYOUT_TILE, 0, &R), NT_OK);
    nt_qr_t *qr = NULL;
    cr_assert_eq(nt_qr_factor(R, NULL, &qr, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "square"), "%s", nt_last_error());
    cr_assert_null(qr);
    nt_matrix_t *A = make(t, 20, 12, 4, "bc1d:2", 1);
    double *a0 = kt_dense(A);
    nt_kernel_opts_t o = {.ib = 5};
    cr_assert_eq(nt_qr_factor(A, &o, &qr, NULL), NT_EINVAL);
    cr_assert_eq(nt_qr_factor(A, NULL, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_qr_factor(NULL, NULL, &qr, NULL), NT_EINVAL);
    for (int64_t j = 0; j < 12; j++)
        for (int64_t i = 0; i < 20; i++)
            cr_assert_eq(kt_get(A, i, j), a0[i + j * 20]);
    cr_assert_eq(nt_qr_factor(A, NULL, &qr, NULL), NT_OK);
    // Apply / form / solve: wrong row tiling, B = A, Q wider than tall.
    nt_matrix_t *B5 = make(t, 20, 3, 5, "bc1d:2", 2);
    nt_matrix_t *Qw = make(t, 20, 24, 4, "bc1d:2", 2);
    cr_assert_eq(nt_qr_apply_q(qr, true, B5, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_qr_apply_q(qr, true, A, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_qr_form_q(qr, Qw, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_qr_apply_q(NULL, true, B5, NULL, NULL), NT_EINVAL);
    nt_qr_destroy(qr);
    // Least squares on a wide matrix, and on a rank-deficient one (B untouched).
    nt_matrix_t *W = make(t, 8, 12, 4, "bc1d:2", 3);
    nt_matrix_t *Bw = make(t, 8, 2, 4, "bc1d:2", 3);
    cr_assert_eq(nt_qr_factor(W, NULL, &qr, NULL), NT_OK);
    cr_assert_eq(nt_qr_solve_ls(qr, Bw, NULL, NULL), NT_EINVAL);
    nt_qr_destroy(qr);
    nt_matrix_t *Z = make(t, 12, 8, 4, "bc1d:2", 4);
    for (int64_t i = 0; i < 12; i++)
        *(double *)nt_matrix_elem(Z, i, 5) = 0.0;
    nt_matrix_t *Bz = make(t, 12, 2, 4, "bc1d:2", 5);
    double *bz = kt_dense(Bz);
    cr_assert_eq(nt_qr_factor(Z, NULL, &qr, NULL), NT_OK);
    cr_assert_eq(nt_qr_solve_ls(qr, Bz, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "rank"), "%s", nt_last_error());
    for (int64_t j = 0; j < 2; j++)
        for (int64_t i = 0; i < 12; i++)
            cr_assert_eq(kt_get(Bz, i, j), bz[i + j * 12]);
    nt_qr_destroy(qr);
    free(a0);
    free(bz);
    nt_matrix_destroy(R);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B5);
    nt_matrix_destroy(Qw);
    nt_matrix_destroy(W);
    nt_matrix_destroy(Bw);
    nt_matrix_destroy(Z);
    nt_matrix_destroy(Bz);
    nt_topo_destroy(t);
}

Test(qr, flat_reference_runs)
{
    int64_t m = 50, n = 40;
    double *a = malloc((size_t)(m * n) * sizeof *a);
    nt_rng r = {3};
    for (int64_t x = 0; x < m * n; x++)
        a[x] = nt_rng_unit(&r);
    cr_assert_eq(nt_qr_flat(2, m, n, a, m), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_qr_flat(0, m, n, a, m), NT_EINVAL);
    cr_assert_eq(nt_gemm_flat(1, 2, 2, 2, 1.0, a, 1, a, 2, 0.0, a, 2), NT_EINVAL);
    free(a);
}
