// Tiled owner-computes GEMM on placed matrices.
// Oracles: a naive triple loop on integer-valued data (exact), the randomised O(n^2) check
// C t = beta C0 t + alpha A (B t) with an element-wise rounding bound, and tile-by-tile owner
// counts recomputed from the tile maps.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numa/nt_numa.h"
#include "kernel_test_util.h"
#include "nt_core.h"
#include "numatile.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"

typedef struct fill_arg {
    uint64_t seed;
    bool integer;
} fill_arg;

static void value(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    const fill_arg *f = arg;
    nt_rng g = {f->seed ^ ((uint64_t)r * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)c << 32)};
    nt_rng_next(&g);
    *(double *)elem = f->integer ? (double)((int64_t)nt_rng_below(&g, 15) - 7)
                                 : 2.0 * nt_rng_unit(&g) - 1.0;
}

static nt_matrix_t *make(const nt_topo_t *t, int64_t m, int64_t n, int64_t mb, int64_t nb,
                         const char *spec, uint64_t seed, bool integer, nt_layout layout)
{
    nt_matrix_shape_t sh = {m, n, mb, nb, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), layout, 0, &A), NT_OK,
                 "%s: %s", spec, nt_last_error());
    fill_arg f = {seed, integer};
    cr_assert_eq(nt_matrix_fill(A, value, &f), NT_OK);
    return A;
}

// Remote tile reads of a GEMM recomputed from the maps: per C tile, the A and B tiles it reads
// that live on another domain.
static int64_t expected_remote(const nt_matrix_t *A, const nt_matrix_t *B, const nt_matrix_t *C)
{
    int64_t n = 0;
    for (int64_t i = 0; i < C->mt; i++)
        for (int64_t j = 0; j < C->nt; j++)
            for (int64_t l = 0; l < A->nt; l++) {
                int d = nt_matrix_tile_domain(C, i, j);
                n += nt_matrix_tile_domain(A, i, l) != d;
                n += nt_matrix_tile_domain(B, l, j) != d;
            }
    return n;
}

static void check_exact(const nt_topo_t *t, int64_t m, int64_t n, int64_t k, int64_t mb,
                        int64_t kb, int64_t nb, const char *sa, const char *sb, const char *sc,
                        nt_kernel_sched sched)
{
    nt_matrix_t *A = make(t, m, k, mb, kb, sa, 1, true, NT_LAYOUT_TILE);
    nt_matrix_t *B = make(t, k, n, kb, nb, sb, 2, true, NT_LAYOUT_TILE);
    nt_matrix_t *C = make(t, m, n, mb, nb, sc, 3, true, NT_LAYOUT_TILE);
    double *a = kt_dense(A), *b = kt_dense(B), *c0 = kt_dense(C);
    nt_kernel_opts_t o = {.sched = sched};
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_gemm(2.0, A, B, -1.0, C, &o, &s), NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double acc = 0;
            for (int64_t l = 0; l < k; l++)
                acc += a[i + l * m] * b[l + j * k];
            cr_assert_eq(kt_get(C, i, j), 2.0 * acc - c0[i + j * m],
                         "%lldx%lldx%lld %s/%s/%s at (%lld,%lld)", (long long)m, (long long)n,
                         (long long)k, sa, sb, sc, (long long)i, (long long)j);
        }
    cr_assert_eq(s.tasks, C->mt * C->nt);
    if (sched == NT_KERNEL_OWNER)
        cr_assert_eq(s.owner_fraction, 1.0, "owner fraction %g", s.owner_fraction);
    cr_assert_eq(s.remote_reads, expected_remote(A, B, C));
    int64_t sum_owned = 0, sum_run = 0;
    for (int d = 0; d < s.ndomains; d++) {
        int64_t own = 0;
        for (int64_t x = 0; x < C->mt * C->nt; x++)
            own += C->owner[x] == d;
        cr_assert_eq(s.tasks_owned[d], own);
        if (sched == NT_KERNEL_OWNER)
            cr_assert_eq(s.tasks_run[d], own);
        sum_owned += s.tasks_owned[d];
        sum_run += s.tasks_run[d];
    }
    cr_assert_eq(sum_owned, s.tasks);
    cr_assert_eq(sum_run, s.tasks);
    nt_kernel_stats_free(&s);
    free(a);
    free(b);
    free(c0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
}

Test(gemm, exact_integer_cases_every_dist_kind_1_to_8_domains)
{
    for (int D = 1; D <= 8; D++) {
        nt_topo_t *t = kt_topo(D);
        char bc1[48], rnd[48], bal[48], skw[48], chk[48], bnd[48], bc2[48];
        snprintf(bc1, sizeof bc1, "bc1d:%d", D);
        snprintf(rnd, sizeof rnd, "random:%d", 40 + D);
        snprintf(bal, sizeof bal, "balanced:%d", D);
        snprintf(skw, sizeof skw, "skewed:1x%d:%d", D, D);
        snprintf(chk, sizeof chk, "chunk:%d:%d", D, 9 * D);
        snprintf(bnd, sizeof bnd, "band:2:%dx1", D);
        snprintf(bc2, sizeof bc2, "bc2d:%dx%d:2x1", D % 2 == 0 ? 2 : 1, D % 2 == 0 ? D / 2 : D);
        const char *specs[] = {bc1, rnd, bal, skw, chk, bnd, bc2};
        int ns = sizeof specs / sizeof *specs;
        // Square with partial tiles, rectangular, tiny tiles; the three operands on different
        // maps.
        check_exact(t, 37, 37, 37, 8, 8, 8, specs[D % ns], specs[(D + 1) % ns],
                    specs[(D + 2) % ns], NT_KERNEL_OWNER);
        check_exact(t, 45, 19, 30, 7, 11, 5, specs[(D + 3) % ns], specs[(D + 4) % ns],
                    specs[(D + 5) % ns], NT_KERNEL_OWNER);
        if (D == 1 || D == 4 || D == 8)
            for (int s = 0; s < ns; s++)
                check_exact(t, 24, 20, 16, 6, 5, 4, specs[s], specs[(s + 3) % ns], specs[s],
                            NT_KERNEL_OWNER);
        nt_topo_destroy(t);
    }
}

Test(gemm, omp_task_baseline_gives_the_same_result)
{
    nt_topo_t *t = kt_topo(3);
    check_exact(t, 40, 33, 29, 8, 6, 7, "random:1", "bc1d:3", "balanced:2", NT_KERNEL_OMP);
    nt_topo_destroy(t);
}

Test(gemm, randomised_check_against_bound)
{
    nt_topo_t *t = kt_topo(4);
    struct {
        int64_t m, n, k, mb, kb, nb;
        double alpha, beta;
    } cases[] = {{96, 96, 96, 32, 32, 32, 1.5, 0.5}, {100, 60, 130, 24, 40, 17, -1, 0},
                 {1, 70, 5, 1, 3, 64, 0.25, 2}, {64, 1, 64, 64, 64, 1, 1, 1}};
    for (size_t s = 0; s < sizeof cases / sizeof *cases; s++) {
        nt_matrix_t *A = make(t, cases[s].m, cases[s].k, cases[s].mb, cases[s].kb, "random:3",
                              10 + s, false, NT_LAYOUT_TILE);
        nt_matrix_t *B = make(t, cases[s].k, cases[s].n, cases[s].kb, cases[s].nb, "bc2d:2x2",
                              20 + s, false, NT_LAYOUT_TILE);
        nt_matrix_t *C = make(t, cases[s].m, cases[s].n, cases[s].mb, cases[s].nb, "skewed:2x2:4",
                              30 + s, false, NT_LAYOUT_TILE);
        int64_t m = A->m, n = B->n, k = A->n;
        double *c0 = kt_dense(C), *tv = malloc((size_t)n * sizeof *tv), *bt = calloc((size_t)k, 8);
        nt_rng r = {77 + s};
        for (int64_t j = 0; j < n; j++)
            tv[j] = 2.0 * nt_rng_unit(&r) - 1.0;
        nt_kernel_stats_t st = {0};
        cr_assert_eq(nt_gemm(cases[s].alpha, A, B, cases[s].beta, C, NULL, &st), NT_OK, "%s",
                     nt_last_error());
        cr_assert_eq(st.owner_fraction, 1.0);
        cr_assert_float_eq(st.flops, 2.0 * (double)(m * n * k), 0.5);
        double *abt = calloc((size_t)k, 8);
        for (int64_t l = 0; l < k; l++)
            for (int64_t j = 0; j < n; j++) {
                bt[l] += kt_get(B, l, j) * tv[j];
                abt[l] += fabs(kt_get(B, l, j) * tv[j]);
            }
        for (int64_t i = 0; i < m; i++) {
            double lhs = 0, rhs = 0, bound = 0;
            for (int64_t j = 0; j < n; j++) {
                lhs += kt_get(C, i, j) * tv[j];
                rhs += cases[s].beta * c0[i + j * m] * tv[j];
                bound += fabs(cases[s].beta * c0[i + j * m] * tv[j]) +
                         fabs(kt_get(C, i, j) * tv[j]);
            }
            for (int64_t l = 0; l < k; l++) {
                rhs += cases[s].alpha * kt_get(A, i, l) * bt[l];
                bound += fabs(cases[s].alpha * kt_get(A, i, l)) * abt[l];
            }
            double tol = 4.0 * (double)(k + n + 2) * DBL_EPSILON * bound;
            cr_assert_leq(fabs(lhs - rhs), tol, "case %zu row %lld: %g vs %g", s, (long long)i,
                          lhs, rhs);
        }
        nt_kernel_stats_free(&st);
        free(c0);
        free(tv);
        free(bt);
        free(abt);
        nt_matrix_destroy(A);
        nt_matrix_destroy(B);
        nt_matrix_destroy(C);
    }
    nt_topo_destroy(t);
}

Test(gemm, scalapack_layout_operands)
{
    nt_topo_t *t = kt_topo(4);
    nt_matrix_t *A = make(t, 30, 22, 6, 5, "bc2d:2x2", 1, true, NT_LAYOUT_SCALAPACK);
    nt_matrix_t *B = make(t, 22, 27, 5, 9, "bc1d:4", 2, true, NT_LAYOUT_SCALAPACK);
    nt_matrix_t *C = make(t, 30, 27, 6, 9, "random:5", 3, true, NT_LAYOUT_TILE);
    double *a = kt_dense(A), *b = kt_dense(B);
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_gemm(1.0, A, B, 0.0, C, NULL, &s), NT_OK, "%s", nt_last_error());
    for (int64_t j = 0; j < 27; j++)
        for (int64_t i = 0; i < 30; i++) {
            double acc = 0;
            for (int64_t l = 0; l < 22; l++)
                acc += a[i + l * 30] * b[l + j * 22];
            cr_assert_eq(kt_get(C, i, j), acc);
        }
    cr_assert_eq(s.owner_fraction, 1.0);
    nt_kernel_stats_free(&s);
    free(a);
    free(b);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_topo_destroy(t);
}

Test(gemm, invalid_input_is_rejected_before_anything_is_computed)
{
    nt_topo_t *t = kt_topo(2);
    nt_matrix_t *A = make(t, 20, 12, 5, 4, "bc1d:2", 1, true, NT_LAYOUT_TILE);
    nt_matrix_t *B = make(t, 12, 16, 4, 8, "bc1d:2", 2, true, NT_LAYOUT_TILE);
    nt_matrix_t *C = make(t, 20, 16, 5, 8, "bc1d:2", 3, true, NT_LAYOUT_TILE);
    nt_matrix_t *Bt = make(t, 12, 16, 3, 8, "bc1d:2", 2, true, NT_LAYOUT_TILE);
    nt_matrix_t *Cs = make(t, 20, 15, 5, 8, "bc1d:2", 3, true, NT_LAYOUT_TILE);
    double *c0 = kt_dense(C);
    cr_assert_eq(nt_gemm(1, NULL, B, 0, C, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_gemm(1, A, B, 0, NULL, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_gemm(1, A, Bt, 0, C, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "tile sizes"), "%s", nt_last_error());
    cr_assert_eq(nt_gemm(1, A, B, 0, Cs, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_gemm(1, C, B, 0, C, NULL, NULL), NT_EINVAL);
    nt_kernel_opts_t bad = {.threads_per_domain = -1};
    cr_assert_eq(nt_gemm(1, A, B, 0, C, &bad, NULL), NT_EINVAL);
    bad = (nt_kernel_opts_t){.sched = (nt_kernel_sched)7};
    cr_assert_eq(nt_gemm(1, A, B, 0, C, &bad, NULL), NT_EINVAL);
    // No memory, wrong element size, another topology.
    nt_matrix_shape_t sh = {20, 16, 5, 8, 8};
    nt_matrix_t *N = NULL, *F = NULL, *O = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc1d:2", 2, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &N), NT_OK);
    cr_assert_eq(nt_gemm(1, A, B, 0, N, NULL, NULL), NT_EINVAL);
    sh.elem_size = 4;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc1d:2", 2, NT_LAYOUT_TILE, 0, &F), NT_OK);
    cr_assert_eq(nt_gemm(1, A, B, 0, F, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "element size"), "%s", nt_last_error());
    nt_topo_t *t2 = kt_topo(2);
    sh.elem_size = 8;
    cr_assert_eq(nt_matrix_create_spec(t2, &sh, "bc1d:2", 2, NT_LAYOUT_TILE, 0, &O), NT_OK);
    cr_assert_eq(nt_gemm(1, A, B, 0, O, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "topology"), "%s", nt_last_error());
    nt_matrix_t *Ao = make(t2, 20, 12, 5, 4, "bc1d:2", 1, true, NT_LAYOUT_TILE);
    cr_assert_eq(nt_gemm(1, Ao, B, 0, C, NULL, NULL), NT_EINVAL);
    for (int64_t j = 0; j < 16; j++)
        for (int64_t i = 0; i < 20; i++)
            cr_assert_eq(kt_get(C, i, j), c0[i + j * 20]);
    cr_assert_eq(nt_gemm(1, A, B, 0, C, NULL, NULL), NT_OK);
    free(c0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_matrix_destroy(Bt);
    nt_matrix_destroy(Cs);
    nt_matrix_destroy(N);
    nt_matrix_destroy(F);
    nt_matrix_destroy(O);
    nt_matrix_destroy(Ao);
    nt_topo_destroy(t2);
    nt_topo_destroy(t);
}

/* ---- per-domain input cache (nt_kernel_opts_t.cache_inputs) ------------------------------ */

// What the cache must copy, recomputed by brute force: the distinct (domain, operand, tile)
// triples with the tile on another domain than a C tile of that domain reading it, their bytes,
// and how many domains get at least one copy (one slab each).
static void expected_cache(const nt_matrix_t *A, const nt_matrix_t *B, const nt_matrix_t *C,
                           int64_t *tiles, int64_t *bytes, int *slabs)
{
    int D = nt_topo_ndomains(C->topo);
    int64_t na = A->mt * A->nt, nbt = B->mt * B->nt;
    char *seen = calloc((size_t)(D * (na + nbt)), 1);
    int64_t *per = calloc((size_t)D, sizeof *per);
    cr_assert(seen && per);
    *tiles = *bytes = 0;
    for (int64_t i = 0; i < C->mt; i++)
        for (int64_t j = 0; j < C->nt; j++) {
            int d = nt_matrix_tile_domain(C, i, j);
            for (int64_t l = 0; l < A->nt; l++) {
                char *sa = &seen[d * (na + nbt) + i * A->nt + l];
                if (nt_matrix_tile_domain(A, i, l) != d && !*sa) {
                    *sa = 1;
                    per[d]++;
                    *bytes += nt_matrix_tile_rows(A, i) * nt_matrix_tile_cols(A, l) * 8;
                }
                char *sb = &seen[d * (na + nbt) + na + l * B->nt + j];
                if (nt_matrix_tile_domain(B, l, j) != d && !*sb) {
                    *sb = 1;
                    per[d]++;
                    *bytes += nt_matrix_tile_rows(B, l) * nt_matrix_tile_cols(B, j) * 8;
                }
            }
        }
    *slabs = 0;
    for (int d = 0; d < D; d++) {
        *tiles += per[d];
        *slabs += per[d] > 0;
    }
    free(seen);
    free(per);
}

typedef struct cache_case {
    int64_t m, n, k, mb, kb, nb;
    const char *sa, *sb, *sc;
    bool integer;
    nt_layout layout; // of A and B
    nt_kernel_sched sched;
    int tpd;
} cache_case;

// The cached and the uncached run from the same C: equal bit for bit (exact on integers as
// well), the cached run's remote reads are the brute-force copy count.
static void check_cache(const nt_topo_t *t, const cache_case *x, double alpha, double beta)
{
    nt_matrix_t *A = make(t, x->m, x->k, x->mb, x->kb, x->sa, 11, x->integer, x->layout);
    nt_matrix_t *B = make(t, x->k, x->n, x->kb, x->nb, x->sb, 12, x->integer, x->layout);
    nt_matrix_t *C1 = make(t, x->m, x->n, x->mb, x->nb, x->sc, 13, x->integer, NT_LAYOUT_TILE);
    nt_matrix_t *C2 = make(t, x->m, x->n, x->mb, x->nb, x->sc, 13, x->integer, NT_LAYOUT_TILE);
    double *a = kt_dense(A), *b = kt_dense(B), *c0 = kt_dense(C1);
    nt_kernel_opts_t o = {.sched = x->sched, .threads_per_domain = x->tpd};
    nt_kernel_stats_t s1 = {0}, s2 = {0};
    cr_assert_eq(nt_gemm(alpha, A, B, beta, C1, &o, &s1), NT_OK, "%s", nt_last_error());
    o.cache_inputs = true;
    cr_assert_eq(nt_gemm(alpha, A, B, beta, C2, &o, &s2), NT_OK, "%s", nt_last_error());
    const char *what = x->integer ? "integer" : "random";
    for (int64_t j = 0; j < x->n; j++)
        for (int64_t i = 0; i < x->m; i++) {
            double v1 = kt_get(C1, i, j), v2 = kt_get(C2, i, j);
            cr_assert(memcmp(&v1, &v2, sizeof v1) == 0, "%s %s/%s/%s (%lld,%lld): %a vs %a",
                      what, x->sa, x->sb, x->sc, (long long)i, (long long)j, v1, v2);
            if (x->integer) {
                double acc = 0;
                for (int64_t l = 0; l < x->k; l++)
                    acc += a[i + l * x->m] * b[l + j * x->k];
                cr_assert_eq(v2, alpha * acc + beta * c0[i + j * x->m]);
            }
        }
    // The operands are untouched by the copies.
    double *a2 = kt_dense(A), *b2 = kt_dense(B);
    cr_assert(memcmp(a, a2, (size_t)(x->m * x->k) * 8) == 0);
    cr_assert(memcmp(b, b2, (size_t)(x->k * x->n) * 8) == 0);
    int64_t tiles, bytes;
    int slabs;
    expected_cache(A, B, C1, &tiles, &bytes, &slabs);
    cr_assert_eq(s1.remote_reads, expected_remote(A, B, C1));
    cr_assert_eq(s2.remote_reads, tiles, "%s/%s/%s: %lld copies, expected %lld", x->sa, x->sb,
                 x->sc, (long long)s2.remote_reads, (long long)tiles);
    cr_assert_eq(s2.remote_read_bytes, bytes);
    cr_assert_leq(s2.remote_reads, s1.remote_reads);
    cr_assert_eq(s1.cache_seconds, 0.0);
    cr_assert_geq(s2.cache_seconds, 0.0);
    cr_assert_leq(s2.cache_seconds, s2.seconds);
    if (tiles == 0)
        cr_assert_eq(s2.cache_seconds, 0.0);
    cr_assert_eq(s2.tasks, C2->mt * C2->nt);
    cr_assert_eq(s2.flops, s1.flops);
    cr_assert_eq(s2.remote_writes, 0);
    if (x->sched == NT_KERNEL_OWNER)
        cr_assert_eq(s2.owner_fraction, 1.0);
    for (int d = 0; d < s2.ndomains; d++)
        cr_assert_eq(s2.tasks_owned[d], s1.tasks_owned[d]);
    nt_kernel_stats_free(&s1);
    nt_kernel_stats_free(&s2);
    free(a);
    free(b);
    free(a2);
    free(b2);
    free(c0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C1);
    nt_matrix_destroy(C2);
}

Test(gemm, cache_gives_the_uncached_result_bit_for_bit_and_counts_copies)
{
    const int doms[] = {1, 2, 3, 4, 8};
    for (size_t q = 0; q < sizeof doms / sizeof *doms; q++) {
        int D = doms[q];
        nt_topo_t *t = kt_topo(D);
        char rnd[32], bc1[32], skw[32], chk[32];
        snprintf(rnd, sizeof rnd, "random:%d", 7 + D);
        snprintf(bc1, sizeof bc1, "bc1d:%d", D);
        snprintf(skw, sizeof skw, "skewed:1x%d:%d", D, D);
        snprintf(chk, sizeof chk, "chunk:%d:%d", D, 5 * D);
        cache_case cs[] = {
            // Exact integers, partial tiles, three different maps.
            {37, 37, 37, 8, 8, 8, rnd, bc1, skw, true, NT_LAYOUT_TILE, NT_KERNEL_OWNER, 0},
            {45, 19, 30, 7, 11, 5, chk, rnd, bc1, true, NT_LAYOUT_TILE, NT_KERNEL_OWNER, 0},
            // Random values, compared bitwise with the uncached run only.
            {64, 72, 80, 16, 9, 12, bc1, skw, rnd, false, NT_LAYOUT_TILE, NT_KERNEL_OWNER, 0},
            // ScaLAPACK-layout A and B (tile ld != tile rows; the copies are packed).
            {30, 27, 22, 6, 5, 9, bc1, bc1, rnd, false, NT_LAYOUT_SCALAPACK, NT_KERNEL_OWNER, 0},
            // The OpenMP-task baseline and two threads per domain read the same caches.
            {33, 40, 29, 7, 6, 8, rnd, rnd, chk, false, NT_LAYOUT_TILE, NT_KERNEL_OMP, 0},
            {40, 40, 40, 8, 8, 8, bc1, chk, rnd, false, NT_LAYOUT_TILE, NT_KERNEL_OWNER, 2},
        };
        for (size_t k = 0; k < sizeof cs / sizeof *cs; k++)
            check_cache(t, &cs[k], k % 2 ? -1.5 : 2.0, k % 3 ? 0.5 : 0.0);
        nt_topo_destroy(t);
    }
}

Test(gemm, cache_counts_a_tile_once_per_domain)
{
    // 1 x 4 C tiles all on domain 0, A (one tile row) entirely on domain 1: every C tile reads
    // the same 3 A tiles, so the uncached run counts 4 x 3 remote A reads, the cached one 3.
    nt_topo_t *t = kt_topo(2);
    nt_matrix_shape_t sa = {8, 24, 8, 8, 8}, sb = {24, 32, 8, 8, 8}, sc = {8, 32, 8, 8, 8};
    int oa[3] = {1, 1, 1}, ob[12] = {0}, oc[4] = {0};
    nt_tilemap_t ma = {1, 3, 2, oa}, mb = {3, 4, 2, ob}, mc = {1, 4, 2, oc};
    nt_matrix_t *A = NULL, *B = NULL, *C = NULL;
    cr_assert_eq(nt_matrix_create(t, &sa, &ma, NT_LAYOUT_TILE, 0, &A), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_matrix_create(t, &sb, &mb, NT_LAYOUT_TILE, 0, &B), NT_OK);
    cr_assert_eq(nt_matrix_create(t, &sc, &mc, NT_LAYOUT_TILE, 0, &C), NT_OK);
    fill_arg f = {5, true};
    cr_assert_eq(nt_matrix_fill(A, value, &f), NT_OK);
    cr_assert_eq(nt_matrix_fill(B, value, &f), NT_OK);
    nt_kernel_stats_t s1 = {0}, s2 = {0};
    nt_kernel_opts_t o = {.cache_inputs = true};
    cr_assert_eq(nt_gemm(1, A, B, 0, C, NULL, &s1), NT_OK);
    cr_assert_eq(nt_gemm(1, A, B, 0, C, &o, &s2), NT_OK);
    cr_assert_eq(s1.remote_reads, 12);
    cr_assert_eq(s2.remote_reads, 3);
    cr_assert_eq(s2.remote_read_bytes, 3 * 8 * 8 * 8);
    nt_kernel_stats_free(&s1);
    nt_kernel_stats_free(&s2);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_topo_destroy(t);
}

// Virtual size of the process in pages (the cache slabs are mappings of their own).
static long vm_pages(void)
{
    long size = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &size) != 1)
            size = -1;
        fclose(f);
    }
    return size;
}

Test(gemm, cache_allocation_failure_leaves_c_untouched_and_leaks_nothing)
{
    nt_topo_t *t = kt_topo(4);
    nt_matrix_t *A = make(t, 256, 256, 64, 64, "random:3", 1, false, NT_LAYOUT_TILE);
    nt_matrix_t *B = make(t, 256, 256, 64, 64, "bc2d:2x2", 2, false, NT_LAYOUT_TILE);
    nt_matrix_t *C = make(t, 256, 256, 64, 64, "random:4", 3, false, NT_LAYOUT_TILE);
    nt_matrix_t *R = make(t, 256, 256, 64, 64, "random:4", 3, false, NT_LAYOUT_TILE);
    double *c0 = kt_dense(C);
    nt_kernel_opts_t o = {.cache_inputs = true};
    int64_t tiles, bytes;
    int slabs;
    expected_cache(A, B, C, &tiles, &bytes, &slabs);
    cr_assert_geq(slabs, 2, "the case should need several slabs");
    // Warm up (threads, allocator arenas) so that a leaked slab shows in the virtual size.
    cr_assert_eq(nt_gemm(1.0, A, B, 0.5, R, &o, NULL), NT_OK, "%s", nt_last_error());
    long before = vm_pages();
    int rounds = 0;
    for (int rep = 0; rep < 8; rep++)
        for (int k = 0; k < slabs; k++) {
            nt_mem_test_fail_after(k);
            nt_kernel_stats_t s = {0};
            nt_status st = nt_gemm(1.0, A, B, 0.5, C, &o, &s);
            nt_mem_test_fail_after(-1);
            cr_assert_eq(st, NT_ENOMEM, "failure after %d slabs: %d", k, (int)st);
            cr_assert(strstr(nt_last_error(), "injected"), "%s", nt_last_error());
            cr_assert_eq(s.tasks, 0);
            cr_assert_null(s.tasks_owned);
            rounds++;
        }
    long after = vm_pages();
    for (int64_t j = 0; j < C->n; j++)
        for (int64_t i = 0; i < C->m; i++)
            cr_assert_eq(kt_get(C, i, j), c0[i + j * C->m], "C changed at (%lld,%lld)",
                         (long long)i, (long long)j);
#ifndef __SANITIZE_ADDRESS__
    // ASan's allocator grows the mapping on its own (quarantine); LeakSanitizer covers malloc
    // there. A slab holds at least one 32 KiB tile, so leaking in the 8 rounds that fail at
    // the second slab alone would add 256 KiB.
    cr_assert_lt((after - before) * sysconf(_SC_PAGESIZE), 8L * 32768,
                 "virtual size grew by %ld pages in %d failed runs", after - before, rounds);
#else
    (void)before;
    (void)after;
#endif
    // With exactly `slabs` allocations allowed the run succeeds and matches the reference.
    nt_mem_test_fail_after(slabs);
    cr_assert_eq(nt_gemm(1.0, A, B, 0.5, C, &o, NULL), NT_OK, "%s", nt_last_error());
    nt_mem_test_fail_after(-1);
    for (int64_t j = 0; j < C->n; j++)
        for (int64_t i = 0; i < C->m; i++) {
            double v = kt_get(C, i, j), r = kt_get(R, i, j);
            cr_assert(memcmp(&v, &r, sizeof v) == 0);
        }
    free(c0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_matrix_destroy(R);
    nt_topo_destroy(t);
}
