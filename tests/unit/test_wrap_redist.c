// The LAPACK layout and wrapped memory as source, target and kernel operand.
// Oracles: the per-element pattern (nt_matrix_check_pattern) and the caller's array read by
// hand for redistributions LAPACK <-> TILE <-> SCALAPACK; for GEMM, a naive triple loop on
// integer-valued data (exact) and the same GEMM on a numatile-owned copy; for QR, the owned
// copy's factor and the residual ||A^T A - R^T R|| / (||A||^2 n eps).
#include <criterion/criterion.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile.h"
#include "numatile/wrap.h"
#include "tool_run.h"

static nt_topo_t *topo4;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 4};
    cr_assert_eq(nt_topo_load(&o, &topo4), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_topo_destroy(topo4);
}

TestSuite(wrap_redist, .init = setup, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

static nt_tilemap_t *map_of(const char *spec, int64_t m, int64_t n, int64_t mb, int64_t nb)
{
    nt_tilemap_t *map = NULL;
    int nd = strncmp(spec, "random", 6) ? 0 : 4;
    cr_assert_eq(nt_tilemap_from_spec(spec, (m + mb - 1) / mb, (n + nb - 1) / nb, nd, &map),
                 NT_OK, "%s", nt_last_error());
    return map;
}

static const char *const specs[] = {"bc2d:2x2", "bc2d:4x1", "bc2d:1x4", "random:3",
                                    "bc2d:2x2:2x1"};

// A redistribution src -> dst of submatrix s, executed and checked against the pattern.
static void run_and_check(nt_matrix_t *S, nt_matrix_t *T, const nt_sub_t *s, uint64_t seed)
{
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create(S, T, s, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_exec_opts_t o = {0};
    nt_exec_stats_t st = {0};
    cr_assert_eq(nt_plan_execute(p, S, T, &o, &st), NT_OK, "%s", nt_last_error());
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, seed, s->dst_row, s->dst_col, s->rows, s->cols,
                                         s->src_row - s->dst_row, s->src_col - s->dst_col, &bad),
                 NT_OK);
    cr_assert_eq(bad, 0, "%lld elements differ", (long long)bad);
    nt_exec_stats_free(&st);
    nt_plan_destroy(p);
}

// LAPACK (wrapped) -> TILE or SCALAPACK (fresh) -> LAPACK (owned, fresh) -> LAPACK (wrapped,
// the caller's second array as a target with memory): each step per element, the last one
// read in the caller's array by hand, padding rows untouched.
Test(wrap_redist, lapack_tile_scalapack_round_trips)
{
    nt_rng g = {7};
    for (int it = 0; it < 60; it++) {
        size_t es = (size_t)(rnd(&g, 0, 1) ? 8 : rnd(&g, 1, 16));
        int64_t m = rnd(&g, 1, 70), n = rnd(&g, 1, 70), lda = m + rnd(&g, 0, 5);
        int64_t mb = rnd(&g, 1, 16), nb = rnd(&g, 1, 16), mb2 = rnd(&g, 1, 16);
        const char *s1 = specs[rnd(&g, 0, 4)], *s2 = specs[rnd(&g, 0, 2)];
        nt_matrix_shape_t sh = {m, n, mb, nb, es}, sh2 = {m, n, mb2, rnd(&g, 1, 16), es};
        uint64_t seed = nt_rng_next(&g);
        unsigned char *a = malloc((size_t)(lda * n) * es), *b = malloc((size_t)(lda * n) * es);
        memset(b, 0x5A, (size_t)(lda * n) * es);
        for (int64_t c = 0; c < n; c++)
            for (int64_t r = 0; r < m; r++)
                nt_matrix_pattern_value(seed, r, c, a + (size_t)(r + c * lda) * es, es);
        nt_tilemap_t *m1 = map_of(s1, m, n, mb, nb), *m2 = map_of(s2, m, n, sh2.mb, sh2.nb);
        nt_matrix_t *A = NULL, *T = NULL, *L = NULL, *B = NULL;
        cr_assert_eq(nt_matrix_wrap_lapack(topo4, &sh, m1, a, lda, &A), NT_OK);
        nt_layout mid = rnd(&g, 0, 1) ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
        cr_assert_eq(nt_matrix_create(topo4, &sh2, m2, mid, NT_MATRIX_NOALLOC, &T), NT_OK);
        nt_sub_t whole = {m, n, 0, 0, 0, 0};
        run_and_check(A, T, &whole, seed);
        cr_assert_eq(nt_matrix_create(topo4, &sh, m1, NT_LAYOUT_LAPACK, NT_MATRIX_NOALLOC, &L),
                     NT_OK);
        // A submatrix with displacements on the way back.
        nt_sub_t s = {rnd(&g, 0, m), rnd(&g, 0, n), 0, 0, 0, 0};
        s.src_row = s.dst_row = rnd(&g, 0, m - s.rows);
        s.src_col = s.dst_col = rnd(&g, 0, n - s.cols);
        run_and_check(T, L, &s, seed);
        cr_assert_eq(L->layout, NT_LAYOUT_LAPACK);
        cr_assert_eq(nt_matrix_wrap_lapack(topo4, &sh, m1, b, lda, &B), NT_OK);
        run_and_check(T, B, &whole, seed);
        for (int64_t c = 0; c < n; c++)
            for (int64_t r = 0; r < lda; r++) {
                const unsigned char *x = b + (size_t)(r + c * lda) * es;
                if (r < m)
                    cr_assert_eq(memcmp(x, a + (size_t)(r + c * lda) * es, es), 0);
                else
                    cr_assert_eq(x[0], 0x5A, "padding row written");
            }
        nt_matrix_destroy(A);
        nt_matrix_destroy(T);
        nt_matrix_destroy(L);
        nt_matrix_destroy(B);
        nt_tilemap_destroy(m1);
        nt_tilemap_destroy(m2);
        free(a);
        free(b);
    }
}

// The in-place executor refuses the LAPACK layout and wrapped sources; move mode into a
// wrapped target is refused (it has memory).
Test(wrap_redist, refusals)
{
    nt_matrix_shape_t sh = {64, 64, 32, 32, 8};
    nt_tilemap_t *map = map_of("bc2d:2x2", 64, 64, 32, 32);
    double *a = calloc(64 * 64, sizeof *a);
    void *tiles[4];
    for (int t = 0; t < 4; t++)
        tiles[t] = a + 1024 * t;
    nt_matrix_t *W = NULL, *T = NULL;
    cr_assert_eq(nt_matrix_wrap_tiles(topo4, &sh, map, tiles, NULL, &W), NT_OK);
    cr_assert_eq(nt_matrix_create(topo4, &sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create(W, T, NULL, NULL, &p), NT_OK);
    nt_exec_opts_t o = {.inplace = true};
    cr_assert_eq(nt_plan_execute(p, W, T, &o, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "wrapped"), "%s", nt_last_error());
    nt_exec_opts_t mv = {.mode = NT_EXEC_MOVE};
    cr_assert_eq(nt_plan_execute(p, W, T, &mv, NULL), NT_OK, "%s", nt_last_error());
    // The wrapped tiles were copied, not handed over: the caller's memory is still its own.
    cr_assert(nt_matrix_tile(T, 0, 0) != tiles[0]);
    cr_assert_eq(nt_matrix_tile(W, 0, 0), tiles[0]);
    nt_plan_destroy(p);
    nt_matrix_destroy(T);
    nt_matrix_destroy(W);
    free(a);
    nt_tilemap_destroy(map);
}

static void int_value(int64_t r, int64_t c, void *e, size_t es, void *arg)
{
    (void)es;
    nt_rng g = {*(uint64_t *)arg ^ ((uint64_t)r << 20) ^ (uint64_t)c};
    nt_rng_next(&g);
    *(double *)e = (double)((int64_t)nt_rng_below(&g, 15) - 7);
}

// An array of n columns of lda doubles (padding rows too), small integers.
static double *lapack_array(int64_t n, int64_t lda, uint64_t seed)
{
    double *a = malloc((size_t)(lda * n) * sizeof *a);
    for (int64_t c = 0; c < n; c++)
        for (int64_t r = 0; r < lda; r++)
            int_value(r, c, &a[r + c * lda], 8, &seed);
    return a;
}

static nt_matrix_t *wrap(double *a, int64_t m, int64_t n, int64_t lda, int64_t nb,
                         const char *spec, nt_tilemap_t **map)
{
    nt_matrix_shape_t sh = {m, n, nb, nb, 8};
    *map = map_of(spec, m, n, nb, nb);
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_wrap_lapack(topo4, &sh, *map, a, lda, &A), NT_OK, "%s",
                 nt_last_error());
    return A;
}

// The owned TILE copy of a matrix (same map), through a redistribution.
static nt_matrix_t *owned_copy(nt_matrix_t *W)
{
    nt_matrix_shape_t sh = {W->m, W->n, W->mb, W->nb, 8};
    nt_tilemap_t map = {.mt = W->mt, .nt = W->nt, .ndomains = W->ndomains, .owner = W->owner};
    nt_matrix_t *C = NULL;
    cr_assert_eq(nt_matrix_create(topo4, &sh, &map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &C),
                 NT_OK);
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create(W, C, NULL, NULL, &p), NT_OK);
    cr_assert_eq(nt_plan_execute(p, W, C, NULL, NULL), NT_OK, "%s", nt_last_error());
    nt_plan_destroy(p);
    return C;
}

Test(wrap_redist, gemm_on_wrapped_lapack_equals_owned_copy)
{
    int64_t m = 70, n = 50, k = 60, nb = 16;
    int64_t lda = m + 3, ldb = k + 1, ldc = m + 5;
    double *a = lapack_array(k, lda, 1), *b = lapack_array(n, ldb, 2);
    double *c = lapack_array(n, ldc, 3), *c0 = malloc((size_t)(ldc * n) * sizeof *c0);
    memcpy(c0, c, (size_t)(ldc * n) * sizeof *c0);
    nt_tilemap_t *ma, *mbm, *mc;
    nt_matrix_t *A = wrap(a, m, k, lda, nb, "bc2d:2x2", &ma);
    nt_matrix_t *B = wrap(b, k, n, ldb, nb, "random:5", &mbm);
    nt_matrix_t *C = wrap(c, m, n, ldc, nb, "bc2d:4x1", &mc);
    nt_matrix_t *A2 = owned_copy(A), *B2 = owned_copy(B), *C2 = owned_copy(C);
    cr_assert_eq(nt_gemm(2.0, A, B, -1.0, C, NULL, NULL), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_gemm(2.0, A2, B2, -1.0, C2, NULL, NULL), NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < ldc; i++) {
            if (i >= m) {
                cr_assert_eq(c[i + j * ldc], c0[i + j * ldc], "padding row changed");
                continue;
            }
            double acc = 0;
            for (int64_t l = 0; l < k; l++)
                acc += a[i + l * lda] * b[l + j * ldb];
            cr_assert_eq(c[i + j * ldc], 2.0 * acc - c0[i + j * ldc], "(%lld,%lld)",
                         (long long)i, (long long)j);
            cr_assert_eq(c[i + j * ldc], *(double *)nt_matrix_elem(C2, i, j));
        }
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_matrix_destroy(A2);
    nt_matrix_destroy(B2);
    nt_matrix_destroy(C2);
    nt_tilemap_destroy(ma);
    nt_tilemap_destroy(mbm);
    nt_tilemap_destroy(mc);
    free(a);
    free(b);
    free(c);
    free(c0);
}

Test(wrap_redist, qr_on_wrapped_lapack_equals_owned_copy)
{
    int64_t m = 90, n = 60, nb = 16, lda = m + 7;
    double *a = lapack_array(n, lda, 4), *a0 = malloc((size_t)(lda * n) * sizeof *a0);
    for (int64_t x = 0; x < lda * n; x++)
        a[x] += 0.25 * (double)(x % 7); // full rank with overwhelming probability
    memcpy(a0, a, (size_t)(lda * n) * sizeof *a0);
    nt_tilemap_t *map;
    nt_matrix_t *A = wrap(a, m, n, lda, nb, "bc2d:2x2", &map);
    nt_matrix_t *A2 = owned_copy(A);
    nt_qr_t *q1 = NULL, *q2 = NULL;
    cr_assert_eq(nt_qr_factor(A, NULL, &q1, NULL), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_qr_factor(A2, NULL, &q2, NULL), NT_OK, "%s", nt_last_error());
    double norm = 0, worst = 0, diff = 0;
    for (int64_t x = 0; x < m * n; x++)
        norm += a0[x % m + x / m * lda] * a0[x % m + x / m * lda];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = fabs(a[i + j * lda] - *(double *)nt_matrix_elem(A2, i, j));
            diff = d > diff ? d : diff;
        }
    // A^T A = R^T R, R the upper triangle left in the caller's array.
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double ata = 0, rtr = 0;
            for (int64_t l = 0; l < m; l++)
                ata += a0[l + i * lda] * a0[l + j * lda];
            for (int64_t l = 0; l <= (i < j ? i : j); l++)
                rtr += a[l + i * lda] * a[l + j * lda];
            double e = fabs(ata - rtr);
            worst = e > worst ? e : worst;
        }
    double resid = worst / (norm * (double)n * DBL_EPSILON);
    cr_assert_lt(resid, 10.0, "||A^T A - R^T R|| / (||A||^2 n eps) = %g", resid);
    cr_assert_lt(diff, 1e-12 * sqrt(norm), "wrapped and owned factors differ by %g", diff);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = m; i < lda; i++)
            cr_assert_eq(a[i + j * lda], a0[i + j * lda], "padding row changed");
    nt_qr_destroy(q1);
    nt_qr_destroy(q2);
    nt_matrix_destroy(A);
    nt_matrix_destroy(A2);
    nt_tilemap_destroy(map);
    free(a);
    free(a0);
}

// The tool's lapack layout: the conversions both ways and to ScaLAPACK verify, a misspelt
// layout is a usage error naming the choices, in place refuses it.
Test(wrap_redist, tool_lapack_layout)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *ways[][2] = {{"lapack", "tile"}, {"tile", "lapack"}, {"lapack", "scalapack"},
                             {"scalapack", "lapack"}, {"lapack", "lapack"}};
    for (int k = 0; k < 5; k++) {
        json_t *j = tool_json((const char *[]){"redist", "--m", "300", "--n", "200", "--from",
                                               "64x32@bc2d:2x2", "--to", "48x40@bc2d:4x1",
                                               "--from-layout", ways[k][0], "--to-layout",
                                               ways[k][1], "--verify", "--json", NULL});
        cr_assert(json_is_true(json_object_get(j, "verify")), "%s -> %s", ways[k][0],
                  ways[k][1]);
        json_decref(j);
    }
    tool_result r = tool_run((const char *[]){"redist", "--m", "64", "--n", "64", "--from",
                                              "32@bc2d:2x1", "--to", "32@bc2d:1x2",
                                              "--from-layout", "lapak", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "tile|scalapack|lapack"), "%s", r.err);
    tool_result_free(&r);
    r = tool_run((const char *[]){"redist", "--m", "64", "--n", "64", "--from", "32@bc2d:2x1",
                                  "--to", "32@bc2d:1x2", "--to-layout", "lapack", "--inplace",
                                  NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--to-layout lapack"), "%s", r.err);
    tool_result_free(&r);
}
