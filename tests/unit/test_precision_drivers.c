// The tiled drivers nt_gemm and nt_qr_* in every precision (float, double, complex float,
// complex double), selected by the matrices' element type, on several tile maps with ragged
// edge tiles. Oracles, per type t with unit roundoff eps_t (FLT_EPSILON for s, c; DBL_EPSILON
// for d, z), computed here in long double complex arithmetic from the inputs:
// - GEMM: ||C - C_ref||_F / ((|alpha| ||A|| ||B|| + |beta| ||C0||) k eps_t) < TOL;
// - QR: ||A - QR||_F / (||A||_F N eps_t), ||Q^H Q - I||_F / (m eps_t) (Q formed by
//   nt_qr_form_q), ||Q^H A - R||_F / (||A||_F N eps_t) (nt_qr_apply_q with trans), and
//   ||Q (Q^H B) - B||_F / (||B||_F N eps_t) (apply_q both ways), all < TOL, N = max(m, n);
// - least squares: ||A^H (A X - B)|| / (||A|| (||A|| ||X|| + ||B||) m eps_t) < TOL per column.
// TOL = 10 for every type: each is held to the same multiple of its own eps. Complex inputs
// have non-zero imaginary parts. Mixed types are refused (NT_EINVAL naming the operand) with
// every operand left as it was.
#include <criterion/criterion.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile.h"
#include "tool_run.h"

#define TOL 10.0

typedef long double _Complex lc;

static bool cplx(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z;
}

static long double eps_of(nt_dtype t)
{
    return t == NT_DTYPE_S || t == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON;
}

static lc get(const nt_matrix_t *A, int64_t r, int64_t c)
{
    const void *p = nt_matrix_elem(A, r, c);
    switch (nt_matrix_dtype(A)) {
    case NT_DTYPE_S: return *(const float *)p;
    case NT_DTYPE_C: return *(const float _Complex *)p;
    case NT_DTYPE_Z: return *(const double _Complex *)p;
    default: return *(const double *)p;
    }
}

static void put(nt_matrix_t *A, int64_t r, int64_t c, lc v)
{
    void *p = nt_matrix_elem(A, r, c);
    switch (nt_matrix_dtype(A)) {
    case NT_DTYPE_S: *(float *)p = (float)__real__ v; break;
    case NT_DTYPE_C: *(float _Complex *)p = (float _Complex)v; break;
    case NT_DTYPE_Z: *(double _Complex *)p = (double _Complex)v; break;
    default: *(double *)p = (double)__real__ v;
    }
}

static long double sq(lc v)
{
    return __real__ v * __real__ v + __imag__ v * __imag__ v;
}

// A typed m x n matrix in nb x nb tiles on spec (2 virtual domains), uniform values in [-1, 1]
// from seed; complex ones with an imaginary part of magnitude >= 0.05.
static nt_matrix_t *make(const nt_topo_t *topo, nt_dtype t, int64_t m, int64_t n, int64_t nb,
                         const char *spec, uint64_t seed)
{
    nt_matrix_shape_t sh = {m, n, nb, nb, nt_dtype_size(t)};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, spec, nt_topo_ndomains(topo), NT_LAYOUT_TILE,
                                       0, &A), NT_OK, "%s: %s", spec, nt_last_error());
    cr_assert_eq(nt_matrix_set_dtype(A, t), NT_OK, "%s", nt_last_error());
    nt_rng r = {seed * 0x9e3779b97f4a7c15ULL + 1};
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            lc v = 2.0L * nt_rng_unit(&r) - 1.0L;
            if (cplx(t))
                __imag__ v = (0.05L + 0.95L * nt_rng_unit(&r)) * (nt_rng_below(&r, 2) ? 1 : -1);
            put(A, i, j, v);
        }
    return A;
}

// Dense long double complex copy, column-major with leading dimension A->m.
static lc *dense(const nt_matrix_t *A)
{
    lc *d = malloc((size_t)(A->m * A->n) * sizeof *d);
    cr_assert_not_null(d);
    for (int64_t j = 0; j < A->n; j++)
        for (int64_t i = 0; i < A->m; i++)
            d[i + j * A->m] = get(A, i, j);
    return d;
}

static long double fro(const lc *x, int64_t n)
{
    long double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += sq(x[i]);
    return sqrtl(s);
}

static bool has_imag(const nt_matrix_t *A)
{
    for (int64_t j = 0; j < A->n; j++)
        for (int64_t i = 0; i < A->m; i++)
            if (__imag__ get(A, i, j) != 0.0L)
                return true;
    return false;
}

static nt_topo_t *topo2(void)
{
    nt_topo_opts_t o = {.domains = 2};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    return t;
}

static const nt_dtype types[] = {NT_DTYPE_S, NT_DTYPE_D, NT_DTYPE_C, NT_DTYPE_Z};
static const char *maps[] = {"bc2d:2x1", "random:7", "bc2d:1x2:2x1"};

// --- GEMM ---------------------------------------------------------------------------------------

// C = alpha A B + beta C through nt_gemm; returns the residual ratio (and checks the flops and
// owner-computes on the way).
static long double gemm_case(const nt_topo_t *topo, nt_dtype t, int64_t m, int64_t n, int64_t k,
                             int64_t nb, const char *spec, bool cache, lc *out_ref,
                             nt_matrix_t **out_c)
{
    nt_matrix_t *A = make(topo, t, m, k, nb, spec, 1), *B = make(topo, t, k, n, nb, spec, 2);
    nt_matrix_t *C = make(topo, t, m, n, nb, "random:3", 3);
    if (cplx(t))
        cr_assert(has_imag(A) && has_imag(B) && has_imag(C));
    lc *a = dense(A), *b = dense(B), *c0 = dense(C);
    const double alpha = 1.5, beta = -0.5;
    nt_kernel_opts_t o = {.cache_inputs = cache};
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_gemm(alpha, A, B, beta, C, &o, &s), NT_OK, "%s %s: %s", nt_dtype_name(t),
                 spec, nt_last_error());
    cr_assert_eq(s.owner_fraction, 1.0);
    cr_assert_float_eq(s.flops, (cplx(t) ? 4.0 : 1.0) * 2.0 * (double)(m * n * k), 1e-6);
    long double err = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            lc ref = beta * c0[i + j * m];
            for (int64_t l = 0; l < k; l++)
                ref += alpha * a[i + l * m] * b[l + j * k];
            if (out_ref)
                out_ref[i + j * m] = ref;
            err += sq(get(C, i, j) - ref);
        }
    long double ratio = sqrtl(err) / ((alpha * fro(a, m * k) * fro(b, k * n) +
                                       -beta * fro(c0, m * n)) * (long double)k * eps_of(t));
    nt_kernel_stats_free(&s);
    free(a);
    free(b);
    free(c0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    if (out_c)
        *out_c = C;
    else
        nt_matrix_destroy(C);
    return ratio;
}

Test(precision_drivers, gemm_every_type_map_and_cache)
{
    nt_topo_t *topo = topo2();
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t mi = 0; mi < 3; mi++)
            for (int cache = 0; cache < 2; cache++) {
                // 70 = 4 x 16 + 6, 45 = 2 x 16 + 13, 53 = 3 x 16 + 5: ragged everywhere.
                long double r = gemm_case(topo, types[ti], 70, 45, 53, 16, maps[mi], cache,
                                          NULL, NULL);
                cr_assert_lt(r, TOL, "gemm %s on %s, cache %d: ratio %Lg",
                             nt_dtype_name(types[ti]), maps[mi], cache, r);
            }
    nt_topo_destroy(topo);
}

// The oracle is not blind: one element off by 100 eps_t of the scale pushes the ratio over.
Test(precision_drivers, gemm_oracle_sees_one_wrong_element)
{
    nt_topo_t *topo = topo2();
    for (size_t ti = 0; ti < 4; ti++) {
        nt_dtype t = types[ti];
        int64_t m = 40, n = 40, k = 40;
        lc *ref = malloc((size_t)(m * n) * sizeof *ref);
        nt_matrix_t *C = NULL;
        long double r = gemm_case(topo, t, m, n, k, 16, "bc2d:2x1", false, ref, &C);
        cr_assert_lt(r, TOL);
        long double err = 0, scale = fro(ref, m * n);
        put(C, 7, 9, get(C, 7, 9) + 100.0L * TOL * (long double)k * eps_of(t) * scale);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                err += sq(get(C, i, j) - ref[i + j * m]);
        // The bound's scale (alpha ||A|| ||B|| + |beta| ||C0||) is >= ||ref||.
        cr_assert_gt(sqrtl(err) / (scale * (long double)k * eps_of(t)), TOL);
        free(ref);
        nt_matrix_destroy(C);
    }
    nt_topo_destroy(topo);
}

// --- QR -----------------------------------------------------------------------------------------

static void qr_case(const nt_topo_t *topo, nt_dtype t, int64_t m, int64_t n, int64_t nb,
                    int64_t ib, const char *spec, const char *qspec)
{
    const char *tn = nt_dtype_name(t);
    long double eps = eps_of(t), N = (long double)(m > n ? m : n);
    nt_matrix_t *A = make(topo, t, m, n, nb, spec, 11);
    nt_matrix_t *Q = make(topo, t, m, m, nb, qspec, 12);
    nt_matrix_t *W = make(topo, t, m, n, nb, qspec, 11); // = A's values, placed like Q
    nt_matrix_t *B = make(topo, t, m, 3, nb, qspec, 13);
    if (cplx(t))
        cr_assert(has_imag(A));
    lc *a = dense(A), *b0 = dense(B);
    nt_kernel_opts_t o = {.ib = ib};
    nt_kernel_stats_t s = {0};
    nt_qr_t *qr = NULL;
    cr_assert_eq(nt_qr_factor(A, &o, &qr, &s), NT_OK, "%s: %s", tn, nt_last_error());
    cr_assert_eq(nt_qr_form_q(qr, Q, &o, &s), NT_OK, "%s: %s", tn, nt_last_error());
    cr_assert_eq(nt_qr_apply_q(qr, true, W, &o, &s), NT_OK, "%s: %s", tn, nt_last_error());
    cr_assert_eq(nt_qr_apply_q(qr, true, B, &o, &s), NT_OK, "%s: %s", tn, nt_last_error());
    cr_assert_eq(nt_qr_apply_q(qr, false, B, &o, &s), NT_OK, "%s: %s", tn, nt_last_error());
    cr_assert_eq(s.owner_fraction, 1.0);
    lc *q = dense(Q);
    long double res = 0, qtr = 0, orth = 0, back = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            lc d = a[i + j * m];
            for (int64_t l = 0; l <= j && l < m; l++)
                d -= q[i + l * m] * get(A, l, j);
            res += sq(d);
            qtr += sq(get(W, i, j) - (i <= j ? get(A, i, j) : 0.0L));
        }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            lc d = -(long double)(i == j);
            for (int64_t l = 0; l < m; l++)
                d += __builtin_conjl(q[l + i * m]) * q[l + j * m];
            orth += sq(d);
        }
    for (int64_t j = 0; j < 3; j++)
        for (int64_t i = 0; i < m; i++)
            back += sq(get(B, i, j) - b0[i + j * m]);
    long double an = fro(a, m * n);
    long double r1 = sqrtl(res) / (an * N * eps), r2 = sqrtl(orth) / ((long double)m * eps);
    long double r3 = sqrtl(qtr) / (an * N * eps), r4 = sqrtl(back) / (fro(b0, m * 3) * N * eps);
    cr_assert(r1 < TOL && r2 < TOL && r3 < TOL && r4 < TOL,
              "qr %s %lldx%lld nb %lld ib %lld on %s: ||A-QR|| %Lg, ||Q^HQ-I|| %Lg, "
              "||Q^HA-R|| %Lg, ||Q Q^H B - B|| %Lg", tn, (long long)m, (long long)n,
              (long long)nb, (long long)ib, spec, r1, r2, r3, r4);
    nt_kernel_stats_free(&s);
    nt_qr_destroy(qr);
    free(a);
    free(b0);
    free(q);
    nt_matrix_destroy(A);
    nt_matrix_destroy(Q);
    nt_matrix_destroy(W);
    nt_matrix_destroy(B);
}

Test(precision_drivers, qr_factor_form_apply_every_type_and_map)
{
    nt_topo_t *topo = topo2();
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t mi = 0; mi < 3; mi++) {
            // Tall with ragged edges (75 = 4 x 16 + 11, 50 = 3 x 16 + 2), ib not dividing nb.
            qr_case(topo, types[ti], 75, 50, 16, 5, maps[mi], maps[(mi + 1) % 3]);
            // Wide (fewer tile rows than columns).
            qr_case(topo, types[ti], 40, 70, 16, 16, maps[mi], "random:4");
        }
    nt_topo_destroy(topo);
}

Test(precision_drivers, solve_ls_every_type)
{
    nt_topo_t *topo = topo2();
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t mi = 0; mi < 3; mi++) {
            nt_dtype t = types[ti];
            int64_t m = 67, n = 37, p = 3, nb = 12;
            nt_matrix_t *A = make(topo, t, m, n, nb, maps[mi], 21);
            nt_matrix_t *B = make(topo, t, m, p, nb, maps[(mi + 2) % 3], 22);
            lc *a = dense(A), *b = dense(B);
            nt_qr_t *qr = NULL;
            nt_kernel_stats_t s = {0};
            cr_assert_eq(nt_qr_factor(A, NULL, &qr, &s), NT_OK, "%s", nt_last_error());
            cr_assert_eq(nt_qr_solve_ls(qr, B, NULL, &s), NT_OK, "%s", nt_last_error());
            cr_assert_eq(s.owner_fraction, 1.0);
            long double an = fro(a, m * n);
            for (int64_t c = 0; c < p; c++) {
                long double xn = 0, bn = 0, worst = 0;
                lc r[67];
                for (int64_t i = 0; i < m; i++) {
                    r[i] = b[i + c * m];
                    bn += sq(r[i]);
                    for (int64_t l = 0; l < n; l++)
                        r[i] -= a[i + l * m] * get(B, l, c);
                }
                for (int64_t l = 0; l < n; l++)
                    xn += sq(get(B, l, c));
                for (int64_t l = 0; l < n; l++) {
                    lc g = 0;
                    for (int64_t i = 0; i < m; i++)
                        g += __builtin_conjl(a[i + l * m]) * r[i];
                    long double ratio = sqrtl(sq(g)) / (an * (an * sqrtl(xn) + sqrtl(bn)) *
                                                        (long double)m * eps_of(t));
                    worst = ratio > worst ? ratio : worst;
                }
                cr_assert_lt(worst, TOL, "solve_ls %s on %s, column %lld: A^H r ratio %Lg",
                             nt_dtype_name(t), maps[mi], (long long)c, worst);
            }
            nt_kernel_stats_free(&s);
            nt_qr_destroy(qr);
            free(a);
            free(b);
            nt_matrix_destroy(A);
            nt_matrix_destroy(B);
        }
    nt_topo_destroy(topo);
}

// --- Mixed types --------------------------------------------------------------------------------

static bool same(const nt_matrix_t *A, const lc *d)
{
    for (int64_t j = 0; j < A->n; j++)
        for (int64_t i = 0; i < A->m; i++)
            if (get(A, i, j) != d[i + j * A->m])
                return false;
    return true;
}

Test(precision_drivers, mixed_types_refused_naming_the_operand)
{
    nt_topo_t *topo = topo2();
    nt_matrix_t *Cz = make(topo, NT_DTYPE_Z, 20, 20, 8, "bc2d:2x1", 1);
    nt_matrix_t *Az = make(topo, NT_DTYPE_Z, 20, 20, 8, "bc2d:2x1", 2);
    nt_matrix_t *Bc = make(topo, NT_DTYPE_C, 20, 20, 8, "bc2d:2x1", 3);
    // An untyped matrix of 8-byte elements means double (matrices made before types existed).
    nt_matrix_shape_t sh = {20, 20, 8, 8, 8};
    nt_matrix_t *U = NULL, *U16 = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:2x1", 2, NT_LAYOUT_TILE, 0, &U), NT_OK);
    sh.elem_size = 16;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:2x1", 2, NT_LAYOUT_TILE, 0, &U16),
                 NT_OK);
    lc *cz = dense(Cz);
    cr_assert_eq(nt_gemm(1.0, U, Az, 0.0, Cz, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "gemm: A: element type d, the other operands are z"), "%s",
              nt_last_error());
    cr_assert_eq(nt_gemm(1.0, Az, Bc, 0.0, Cz, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "gemm: B: element type c"), "%s", nt_last_error());
    cr_assert_eq(nt_gemm(1.0, Az, Az, 0.0, U16, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "gemm: C: untyped, element size 16"), "%s",
              nt_last_error());
    cr_assert(same(Cz, cz), "a refused gemm changed C");

    // QR: the factorisation's type is A's; Q, B must have it.
    nt_qr_t *qr = NULL;
    cr_assert_eq(nt_qr_factor(Bc, NULL, &qr, NULL), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_qr_apply_q(qr, true, Cz, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "qr apply: B: element type z, the other operands are c"),
              "%s", nt_last_error());
    cr_assert_eq(nt_qr_form_q(qr, U, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "qr form_q: B: element type d"), "%s", nt_last_error());
    cr_assert_eq(nt_qr_solve_ls(qr, Az, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "qr solve: B: element type z"), "%s", nt_last_error());
    cr_assert(same(Cz, cz), "a refused apply_q changed B");
    nt_qr_destroy(qr);
    qr = NULL;
    cr_assert_eq(nt_qr_factor(U16, NULL, &qr, NULL), NT_EINVAL);
    cr_assert_null(qr);
    // The untyped 8-byte matrix still runs as double.
    cr_assert_eq(nt_qr_factor(U, NULL, &qr, NULL), NT_OK, "%s", nt_last_error());
    nt_qr_destroy(qr);
    free(cz);
    nt_matrix_destroy(Cz);
    nt_matrix_destroy(Az);
    nt_matrix_destroy(Bc);
    nt_matrix_destroy(U);
    nt_matrix_destroy(U16);
    nt_topo_destroy(topo);
}

// --- The CLI ------------------------------------------------------------------------------------

// gemm and qr --type T --verify run for every type, report the type, pass the check, and qr's
// residuals (in units of T's eps) stay below 10.
Test(precision_drivers, cli_every_type_verifies)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *tn[] = {"s", "d", "c", "z"};
    for (int k = 0; k < 4; k++) {
        const char *g[] = {"gemm", "--n", "70", "--nb", "16", "--dist", "random:2", "--domains",
                           "2", "--type", tn[k], "--verify", "--json", NULL};
        json_t *j = tool_json(g);
        cr_assert_str_eq(json_string_value(json_object_get(j, "type")), tn[k]);
        cr_assert(json_is_true(json_object_get(j, "verify")), "gemm --type %s", tn[k]);
        double flops = json_number_value(json_object_get(j, "flops"));
        cr_assert_float_eq(flops, (k >= 2 ? 4.0 : 1.0) * 2.0 * 70 * 70 * 70, 1e-3);
        json_decref(j);
        const char *q[] = {"qr", "--m", "75", "--n", "50", "--nb", "16", "--dist", "bc2d:2x1",
                           "--from", "random:5", "--domains", "2", "--type", tn[k], "--verify",
                           "--json", NULL};
        j = tool_json(q);
        cr_assert_str_eq(json_string_value(json_object_get(j, "type")), tn[k]);
        cr_assert(json_is_true(json_object_get(j, "verify")), "qr --type %s", tn[k]);
        double r1 = json_number_value(json_object_get(j, "residual_qr"));
        double r2 = json_number_value(json_object_get(j, "residual_orth"));
        cr_assert(r1 > 0 && r1 < TOL && r2 > 0 && r2 < TOL, "qr --type %s: %g %g", tn[k], r1,
                  r2);
        json_decref(j);
    }
}
