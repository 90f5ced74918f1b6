// Periodic plans (block-cyclic maps, ScaLAPACK layouts on both sides). Oracles: a naive
// per-element owner computation (for every element of the submatrix: the source tile and
// domain that hold it, found by division, and the relabelled target domain) against the
// segments nt_plan_foreach_segment() generates and against the plan's counts; the same plan
// built with stored segments (a second, independent construction) for every count; and, for
// executions, the pattern of every source element found at its target position.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "nt_core.h"
#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_lines.h"
#include "lib/redist/periodic/nt_periodic.h"
#include "numa/nt_numa.h"

#ifdef __SANITIZE_ADDRESS__
#define NPLANS 500
#define NEXEC 60
#else
#define NPLANS 3000
#define NEXEC 300
#endif

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// A random block-cyclic ScaLAPACK matrix: tile sizes 1..64 (small ones often), grid 1..4 x
// 1..4, sometimes super-blocks.
static nt_matrix_t *random_bc(nt_rng *g, const nt_topo_t *t, int64_t m, int64_t n, size_t es,
                              unsigned flags)
{
    int p = (int)rnd(g, 1, 4), q = (int)rnd(g, 1, 4);
    int64_t mb = rnd(g, 0, 2) ? rnd(g, 1, 8) : rnd(g, 1, 64);
    int64_t nb = rnd(g, 0, 2) ? rnd(g, 1, 8) : rnd(g, 1, 64);
    char spec[64];
    if (rnd(g, 0, 3) == 0)
        snprintf(spec, sizeof spec, "bc2d:%dx%d:%dx%d", p, q, (int)rnd(g, 1, 3),
                 (int)rnd(g, 1, 3));
    else
        snprintf(spec, sizeof spec, "bc2d:%dx%d", p, q);
    nt_matrix_shape_t sh = {m, n, mb, nb, es};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, 0, NT_LAYOUT_SCALAPACK, flags, &A), NT_OK,
                 "%s: %s", spec, nt_last_error());
    return A;
}

static nt_sub_t random_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T)
{
    nt_sub_t s;
    int64_t mr = S->m < T->m ? S->m : T->m, mc = S->n < T->n ? S->n : T->n;
    s.rows = rnd(g, 0, 3) ? rnd(g, 1, mr) : mr;
    s.cols = rnd(g, 0, 3) ? rnd(g, 1, mc) : mc;
    s.src_row = rnd(g, 0, S->m - s.rows);
    s.src_col = rnd(g, 0, S->n - s.cols);
    s.dst_row = rnd(g, 0, T->m - s.rows);
    s.dst_col = rnd(g, 0, T->n - s.cols);
    return s;
}

typedef struct walk {
    const nt_matrix_t *S, *T;
    const nt_sub_t *s;
    const int *sigma;
    unsigned char *cover;
    int64_t *pair, *segpair;
    int D;
    int64_t n;
} walk;

// Every element of a generated segment against the per-element owners.
static int check_segment(const nt_segment_t *g, void *arg)
{
    walk *w = arg;
    const nt_matrix_t *S = w->S, *T = w->T;
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    cr_assert(g->rows >= 1 && g->cols >= 1);
    cr_assert(g->src_row + g->rows <= nt_matrix_tile_rows(S, si));
    cr_assert(g->dst_col + g->cols <= nt_matrix_tile_cols(T, tj));
    for (int32_t v = 0; v < g->cols; v++)
        for (int32_t u = 0; u < g->rows; u++) {
            int64_t x = ti * T->mb + g->dst_row + u - w->s->dst_row;
            int64_t y = tj * T->nb + g->dst_col + v - w->s->dst_col;
            cr_assert(x >= 0 && x < w->s->rows && y >= 0 && y < w->s->cols);
            int64_t sr = w->s->src_row + x, sc = w->s->src_col + y;
            cr_assert_eq(sr, si * S->mb + g->src_row + u);
            cr_assert_eq(sc, sj * S->nb + g->src_col + v);
            int sd = nt_matrix_tile_domain(S, sr / S->mb, sc / S->nb);
            int td = w->sigma[T->owner[ti * T->nt + tj]];
            cr_assert_eq(g->src_dom, sd, "source domain of element (%lld,%lld)",
                         (long long)x, (long long)y);
            cr_assert_eq(g->dst_dom, td);
            w->cover[x * w->s->cols + y]++;
            w->pair[sd * w->D + td] += (int64_t)S->elem_size;
        }
    w->segpair[g->src_dom * w->D + g->dst_dom]++;
    w->n++;
    return 0;
}

// The periodic plan's segments cover every element once with the right owners; its counts are
// the oracle's and those of the same plan built with stored segments.
static void check_periodic(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                           const nt_plan_opts_t *po, int D)
{
    nt_plan_t *p, *q;
    cr_assert_eq(nt_plan_create(S, T, s, po, &p), NT_OK, "%s", nt_last_error());
    nt_plan_opts_t eo = *po;
    eo.explicit_segments = true;
    cr_assert_eq(nt_plan_create(S, T, s, &eo, &q), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I, J;
    nt_plan_info(p, &I);
    nt_plan_info(q, &J);
    cr_assert(I.periodic && !J.periodic);
    cr_assert_null(nt_plan_segments(p));
    walk w = {S, T, s, nt_plan_sigma(p, NULL), calloc((size_t)(s->rows * s->cols) + 1, 1),
              calloc((size_t)(D * D), sizeof(int64_t)), calloc((size_t)(D * D), sizeof(int64_t)),
              D, 0};
    cr_assert_eq(nt_plan_foreach_segment(p, check_segment, &w), NT_OK);
    for (int64_t e = 0; e < s->rows * s->cols; e++)
        cr_assert_eq(w.cover[e], 1, "element %lld covered %d times", (long long)e, w.cover[e]);
    cr_assert_eq(w.n, I.segments);
    cr_assert_eq(memcmp(w.pair, nt_plan_pair_bytes(p), (size_t)(D * D) * sizeof(int64_t)), 0);
    cr_assert_eq(memcmp(w.segpair, nt_plan_pair_segments(p), (size_t)(D * D) * sizeof(int64_t)),
                 0, "segments per pair");
    // Everything counted equals the stored plan's (same sigma: same objective, same counts).
    cr_assert_eq(memcmp(nt_plan_sigma(p, NULL), nt_plan_sigma(q, NULL),
                        (size_t)T->ndomains * sizeof(int)), 0);
    cr_assert_eq(I.segments, J.segments);
    cr_assert_eq(I.tiles, J.tiles);
    cr_assert_eq(I.volume_tiles, J.volume_tiles, "volume tiles %lld vs %lld",
                 (long long)I.volume_tiles, (long long)J.volume_tiles);
    cr_assert_eq(I.steps, J.steps);
    cr_assert_eq(I.steps_bytes, J.steps_bytes);
    cr_assert_eq(I.fast_path, J.fast_path);
    cr_assert_eq(memcmp(I.category_tiles, J.category_tiles, sizeof I.category_tiles), 0);
    cr_assert_eq(memcmp(I.part_segments, J.part_segments, sizeof I.part_segments), 0);
    cr_assert(I.memory_bytes < J.memory_bytes || I.segments == 0);
    free(w.cover);
    free(w.pair);
    free(w.segpair);
    nt_plan_destroy(p);
    nt_plan_destroy(q);
}

Test(periodic, plans_match_the_per_element_oracle)
{
    nt_rng g = {20261124};
    for (int k = 0; k < NPLANS; k++) {
        int64_t m = rnd(&g, 1, 90), n = rnd(&g, 1, 90);
        nt_matrix_t *S = random_bc(&g, NULL, m, n, (size_t)rnd(&g, 1, 16), NT_MATRIX_NOALLOC);
        int64_t mt = rnd(&g, 0, 1) ? m : rnd(&g, 1, 90), ntc = rnd(&g, 0, 1) ? n : rnd(&g, 1, 90);
        nt_matrix_t *T = random_bc(&g, NULL, mt, ntc, S->elem_size, NT_MATRIX_NOALLOC);
        nt_sub_t s = random_sub(&g, S, T);
        int D = S->ndomains > T->ndomains ? S->ndomains : T->ndomains;
        nt_plan_opts_t po = {.relabel = T->ndomains <= D ? (nt_match_objective)rnd(&g, 0, 3)
                                                         : NT_MATCH_CANONICAL};
        check_periodic(S, T, &s, &po, D);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

static nt_topo_t *topo4;

static void exec_setup(void)
{
    nt_topo_opts_t o = {.domains = 16};
    cr_assert_eq(nt_topo_load(&o, &topo4), NT_OK, "%s", nt_last_error());
}

static void exec_teardown(void)
{
    nt_topo_destroy(topo4);
}

// Target elements outside the submatrix that are not zero (a fresh target starts at zero).
static int64_t nonzero_outside(const nt_matrix_t *T, const nt_sub_t *s)
{
    int64_t nz = 0;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t r = 0; r < T->m; r++) {
            if (r >= s->dst_row && r < s->dst_row + s->rows && c >= s->dst_col &&
                c < s->dst_col + s->cols)
                continue;
            const unsigned char *e = nt_matrix_elem(T, r, c);
            for (size_t b = 0; b < T->elem_size; b++)
                nz += e[b] != 0;
        }
    return nz;
}

// Execute one random periodic redistribution and check every element; `preplaced`: the target
// has memory before (then without relabelling).
static void exec_case(nt_rng *g, bool preplaced)
{
    int64_t m = rnd(g, 1, 120), n = rnd(g, 1, 120);
    size_t es = rnd(g, 0, 2) ? 8 : (size_t)rnd(g, 1, 12);
    nt_matrix_t *S = random_bc(g, topo4, m, n, es, 0);
    nt_matrix_t *T = random_bc(g, topo4, rnd(g, 1, 120), rnd(g, 1, 120), es,
                               preplaced ? 0 : NT_MATRIX_NOALLOC);
    uint64_t seed = nt_rng_next(g);
    cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
    nt_sub_t s = random_sub(g, S, T);
    nt_plan_opts_t po = {.relabel = preplaced ? NT_MATCH_CANONICAL
                                              : (nt_match_objective)rnd(g, 0, 3)};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, &s, &po, &p), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I;
    nt_plan_info(p, &I);
    cr_assert(I.periodic);
    nt_exec_opts_t eo = {.schedule = rnd(g, 0, 1) ? NT_SCHED_STEPS : NT_SCHED_FREE,
                         .threads_per_domain = (int)rnd(g, 0, 2),
                         .on_source = rnd(g, 0, 3) == 0, .measure_bound = rnd(g, 0, 3) == 0,
                         .order = (nt_exec_order)rnd(g, 0, 3)};
    nt_exec_stats_t st;
    // Some small executions take the streaming path of large ones.
    bool stream = rnd(g, 0, 2) == 0;
    if (stream)
        nt_copy_test_stream_above(0);
    nt_status est = nt_plan_execute(p, S, T, &eo, &st);
    if (stream)
        nt_copy_test_stream_above(-1);
    cr_assert_eq(est, NT_OK, "%s", nt_last_error());
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, seed, s.dst_row, s.dst_col, s.rows, s.cols,
                                         s.src_row - s.dst_row, s.src_col - s.dst_col, &bad),
                 NT_OK);
    cr_assert_eq(bad, 0, "%lld target elements differ from the source", (long long)bad);
    cr_assert_eq(nt_matrix_check_pattern(S, seed, 0, 0, S->m, S->n, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "the source changed");
    cr_assert_eq(nonzero_outside(T, &s), 0, "target written outside the submatrix");
    cr_assert_eq(st.bytes_copied, I.bytes);
    cr_assert_eq(st.bytes_moved, I.bytes_moved);
    cr_assert_eq(st.tasks_on_domain, st.tasks);
    nt_exec_stats_free(&st);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

TestSuite(periodic_exec, .init = exec_setup, .fini = exec_teardown);

Test(periodic_exec, random_geometries_arrive_element_by_element)
{
    nt_rng g = {77};
    for (int k = 0; k < NEXEC; k++)
        exec_case(&g, k % 3 == 0);
}

// Case k's target against the source pattern (seed) element by element, and zero outside the
// submatrix (lines shared with elements outside it were not overwritten); then S, T and p go.
static void check_and_free(nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *p, const nt_sub_t *s,
                           uint64_t seed, int k)
{
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, seed, s->dst_row, s->dst_col, s->rows, s->cols,
                                         s->src_row - s->dst_row, s->src_col - s->dst_col,
                                         &bad), NT_OK);
    cr_assert_eq(bad, 0, "case %d: %lld target elements differ from the source", k,
                 (long long)bad);
    cr_assert_eq(nonzero_outside(T, s), 0, "case %d: target written outside", k);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// bench scalapack's grids: S m x n doubles on bc2d:2x2 with blocks smb x snb (allocated), T on
// bc2d:4x1 with blocks tmb x tnb (fresh: no memory), both ScaLAPACK layout on 4 domains.
static void bench_grids(int64_t m, int64_t n, int64_t smb, int64_t snb, int64_t tmb, int64_t tnb,
                        nt_matrix_t **S, nt_matrix_t **T)
{
    nt_matrix_shape_t a = {m, n, smb, snb, 8}, b = {m, n, tmb, tnb, 8};
    cr_assert_eq(nt_matrix_create_spec(topo4, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK, 0, S),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(topo4, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, T),
                 NT_OK, "%s", nt_last_error());
}

// S filled with the pattern of seed, s planned from S to T and executed in global order with
// 0-2 threads per domain (the forced-path tests set their hooks before); returns the plan.
static nt_plan_t *global_exec(nt_rng *g, nt_matrix_t *S, nt_matrix_t *T, const nt_sub_t *s,
                              uint64_t seed)
{
    cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, s, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_exec_opts_t eo = {.order = NT_ORDER_GLOBAL, .threads_per_domain = (int)rnd(g, 0, 2)};
    cr_assert_eq(nt_plan_execute(p, S, T, &eo, NULL), NT_OK, "%s", nt_last_error());
    return p;
}

// One random execution in global order under streaming (line writers as the mode of
// nt_exec_test_lines() allows), checked element by element; elem_cyclic: CYCLIC(1) rows on
// the source side, whose runs are single elements.
static void lines_case(nt_rng *g, int k, bool elem_cyclic)
{
    int64_t m = rnd(g, 1, 200), n = rnd(g, 1, 60);
    nt_matrix_t *S;
    if (elem_cyclic) {
        char spec[32];
        snprintf(spec, sizeof spec, "bc2d:%dx%d", (int)rnd(g, 1, 4), (int)rnd(g, 1, 4));
        nt_matrix_shape_t sh = {m, n, 1, rnd(g, 1, 8), 8};
        cr_assert_eq(nt_matrix_create_spec(topo4, &sh, spec, 0, NT_LAYOUT_SCALAPACK, 0, &S),
                     NT_OK, "%s", nt_last_error());
    } else {
        S = random_bc(g, topo4, m, n, 8, 0);
    }
    nt_matrix_t *T = random_bc(g, topo4, rnd(g, 1, 200), rnd(g, 1, 60), 8,
                               rnd(g, 0, 1) ? 0 : NT_MATRIX_NOALLOC);
    uint64_t seed = nt_rng_next(g);
    nt_sub_t s = random_sub(g, S, T);
    check_and_free(S, T, global_exec(g, S, T, &s, seed), &s, seed, k);
}

// Global order through line writers (streamed whole target lines, nt_lines.h), forced for
// every run length (element-cyclic lists too), with and without AVX-512: every element against
// the source, nothing written outside the submatrix.
Test(periodic_exec, line_writers_arrive_element_by_element)
{
    nt_rng g = {4242};
    int64_t used = 0, cases = NEXEC * 4, cyclic = NEXEC;
    nt_copy_test_stream_above(0);
    for (int64_t k = 0; k < cases + cyclic; k++) {
        // Half of the cases with the AVX-512 loop where the cpu has it, half without.
        used += nt_exec_test_lines(k % 2 ? 1 : 2);
        lines_case(&g, (int)k, k >= cases);
    }
    nt_copy_test_stream_above(-1);
    used += nt_exec_test_lines(-1);
    cr_assert_eq(used, cases + cyclic, "%lld of %lld executions used line writers",
                 (long long)used, (long long)(cases + cyclic));
}

// The line writers' packed runs (nt_lrun_pack): every field as in the run, and a run that does not
// fit (longer than 2^31 - 1 elements, or grid rows outside 0..65535) refuses the whole list, so
// that the executor copies such columns without writers instead of truncating.
Test(periodic, packed_runs_keep_every_field_or_refuse)
{
    prun r[3] = {{.sl = (int64_t)1 << 40, .tl = 7, .len = INT32_MAX, .a = 65535, .b = 3},
                 {.sl = 0, .tl = 0, .len = 1, .a = 0, .b = 65535},
                 {.sl = 5, .tl = 9, .len = 64, .a = 2, .b = 1}};
    lrun q[3];
    cr_assert(nt_lrun_pack(r, 3, q));
    for (int k = 0; k < 3; k++)
        cr_assert(q[k].sl == r[k].sl && q[k].len == r[k].len && q[k].a == r[k].a &&
                      q[k].b == r[k].b,
                  "run %d", k);
    // Each bad run between two good ones: every run is checked, not only the first.
    prun bad[5] = {{.len = (int64_t)INT32_MAX + 1}, {.len = 1, .a = 65536}, {.len = 1, .b = 65536},
                   {.len = 1, .a = -1}, {.len = 1, .b = -1}};
    for (int k = 0; k < 5; k++) {
        prun list[3] = {r[2], bad[k], r[2]};
        cr_assert(!nt_lrun_pack(list, 3, q), "bad run %d accepted", k);
    }
}

// A ScaLAPACK matrix of doubles on a random grid with row blocks of mb and column blocks of
// 1..nbmax.
static nt_matrix_t *rows_bc(nt_rng *g, int64_t m, int64_t n, int64_t mb, int nbmax,
                            unsigned flags)
{
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:%dx%d", (int)rnd(g, 1, 4), (int)rnd(g, 1, 4));
    nt_matrix_shape_t sh = {m, n, mb, rnd(g, 1, nbmax), 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(topo4, &sh, spec, 0, NT_LAYOUT_SCALAPACK, flags, &A),
                 NT_OK, "%s: %s", spec, nt_last_error());
    return A;
}

// Unit programs (periodic_unit.c: whole target lines assembled from source windows), forced
// without streaming, in global and target order: CYCLIC(1) rows on the source side, on the
// target side, or both, against random row blocks and grids, random submatrices (so that
// columns start at every lane of a line and windows end near the sources' last rows), fresh
// and allocated targets, 1-2 threads per domain. Every element against the source, nothing
// written outside the submatrix; where the cpu has AVX-512, most cases (all but patterns
// needing more than four windows per line) use them, and nb 1 -> 3 and 1 -> 24 on 2x2 -> 4x1
// always do (1 -> 24 repeats every 96 runs, more than a pattern of runs may have: its period
// comes from the grids).
Test(periodic_exec, unit_programs_arrive_element_by_element)
{
    nt_rng g = {1357};
    int64_t used = 0, cases = NEXEC * 2;
    for (int64_t k = 0; k < cases + 2; k++) {
        int side = (int)(k % 3); // 0: source CYCLIC(1), 1: target, 2: both
        nt_matrix_t *S, *T;
        nt_sub_t s;
        if (k >= cases) { // the bench's geometry and 1 -> 24, every row and column
            bench_grids(300, 40, 1, 1, k > cases ? 24 : 3, 3, &S, &T);
            s = (nt_sub_t){300, 40, 0, 0, 0, 0};
        } else {
            int64_t smb = side == 1 ? rnd(&g, 1, 12) : 1, tmb = side == 0 ? rnd(&g, 1, 12) : 1;
            S = rows_bc(&g, rnd(&g, 1, 300), rnd(&g, 1, 40), smb, 8, 0);
            T = rows_bc(&g, rnd(&g, 1, 300), rnd(&g, 1, 40), tmb, 8,
                        rnd(&g, 0, 1) ? 0 : NT_MATRIX_NOALLOC);
            s = random_sub(&g, S, T);
        }
        uint64_t seed = nt_rng_next(&g);
        cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK, "%s", nt_last_error());
        nt_exec_test_lines(0);
        nt_exec_test_unit(1);
        // Global order, or target order with all sources in one task (one program per target);
        // the two fixed geometries in global order (one program for all targets).
        nt_exec_opts_t eo = {.order = k % 2 && k < cases ? NT_ORDER_TARGET : NT_ORDER_GLOBAL,
                             .threads_per_domain = (int)rnd(&g, 0, 2)};
        cr_assert_eq(nt_plan_execute(p, S, T, &eo, NULL), NT_OK, "%s", nt_last_error());
        int64_t u = nt_exec_test_unit(-1);
        nt_exec_test_lines(-1);
        used += u;
        if (k >= cases && nt_lines_avx512())
            cr_assert_eq(u, 1, "nb 1 -> %d on 2x2 -> 4x1 without a unit program",
                         k > cases ? 24 : 3);
        check_and_free(S, T, p, &s, seed, (int)k);
    }
    if (nt_lines_avx512())
        cr_assert_gt(used, cases / 2, "%lld of %lld executions used unit programs",
                     (long long)used, (long long)cases);
}

// Local index of global index g in CYCLIC(r) over p processes.
static int64_t cyc_local(int64_t g, int64_t r, int p)
{
    return g / (r * p) * r + g % r;
}

// Rows x = 0 .. m - 1 of a column, source row os + x in CYCLIC(smb) over S grid rows, target
// row x in CYCLIC(tmb) over P: the runs of one element in global order and their pattern, as
// periodic_runs.c would list them; false when two elements of one pair continue each other on
// both sides (not a unit pattern) or no period of at most MAX_PERIOD runs is found.
// n source columns, each in a page followed by an inaccessible one (base[a]), so that reading
// past a column's end faults; guard_column() puts column a's len elements (1000 a + e) right
// before the inaccessible page.
enum { GUARD_PG = 4096 };
static void guard_map(char **base, int n)
{
    for (int a = 0; a < n; a++) {
        base[a] = mmap(NULL, 2 * GUARD_PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        cr_assert_neq(base[a], MAP_FAILED);
        cr_assert_eq(mprotect(base[a] + GUARD_PG, GUARD_PG, PROT_NONE), 0);
    }
}

static void guard_unmap(char **base, int n)
{
    for (int a = 0; a < n; a++)
        munmap(base[a], 2 * GUARD_PG);
}

static const char *guard_column(char *base, int a, int64_t len)
{
    double *c = (double *)(void *)(base + GUARD_PG) - len;
    for (int64_t e = 0; e < len; e++)
        c[e] = 1000.0 * a + (double)e;
    return (const char *)c;
}

// The shortest pattern of at most MAX_PERIOD runs that list r of n runs repeats (false: none).
static bool find_pattern(const prun *r, int n, bool unit, plist *L)
{
    for (int k = 1; k <= MAX_PERIOD && k < n; k++) {
        int64_t ds = r[k].sl - r[0].sl, dt = r[k].tl - r[0].tl;
        int e = 0;
        while (e + k < n && r[e + k].a == r[e].a && r[e + k].b == r[e].b &&
               r[e + k].len == r[e].len && r[e + k].sl - r[e].sl == ds &&
               r[e + k].tl - r[e].tl == dt)
            e++;
        if (e + k == n) {
            *L = (plist){k, n / k, n % k, ds, dt, unit};
            return true;
        }
    }
    return false;
}

// After a program wrote m rows (source rows from os, target rows from 0; grid rows S and P,
// blocks smb and tmb) into the target columns dcol from guard_column() sources: every target
// element against the per-element owner formula.
static void check_rows(char *const *dcol, int S, int smb, int P, int tmb, int os, int m,
                       int shift)
{
    nt_copy_fence();
    for (int x = 0; x < m; x++) {
        int64_t g = os + x;
        double want = 1000.0 * (double)(g / smb % S) + (double)cyc_local(g, smb, S);
        double got = ((double *)(void *)dcol[x / tmb % P])[cyc_local(x, tmb, P)];
        cr_assert_eq(got, want, "S %d smb %d P %d tmb %d os %d m %d shift %d row %d", S, smb,
                     P, tmb, os, m, shift, x);
    }
}

static int64_t lcm(int64_t a, int64_t b)
{
    return a / nt_gcd64(a, b) * b;
}

static bool unit_rows(int S, int smb, int P, int tmb, int os, int m, prun *r, plist *L)
{
    int64_t last[4][4];
    for (int a = 0; a < S; a++)
        for (int b = 0; b < P; b++)
            last[a][b] = -1;
    for (int x = 0; x < m; x++) {
        int64_t gs = os + x;
        int a = (int)(gs / smb % S), b = (int)(x / tmb % P);
        r[x] = (prun){cyc_local(gs, smb, S), cyc_local(x, tmb, P), 1, x, x, a, b};
        if (last[a][b] >= 0 && r[last[a][b]].sl + 1 == r[x].sl && r[last[a][b]].tl + 1 == r[x].tl)
            return false;
        last[a][b] = x;
    }
    return find_pattern(r, m, true, L);
}

// Unit programs never read past a source column's leading dimension: unit row patterns
// (CYCLIC(1) on a side, 1-4 grid rows each, blocks up to 16 on the other side, source offsets
// 0 and 1, 8-150 rows), each source column ending where an inaccessible page begins, its
// leading dimension every third entry of a table with larger decoys between, the target
// columns at every lane of a line. Every target element against the per-element owner
// formula; a window past a column's end faults (a single-lane window in a permute slot did).
Test(periodic_exec, unit_windows_stay_inside_source_columns)
{
    if (!nt_lines_avx512())
        cr_skip_test("no AVX-512: no unit programs");
    enum { MAXM = 150 };
    static const int blocks[] = {1, 2, 3, 5, 12, 16};
    char *base[4];
    guard_map(base, 4);
    double *tbuf = aligned_alloc(64, 4 * 256 * sizeof *tbuf);
    cr_assert_not_null(tbuf);
    static prun r[MAXM];
    int programs = 0, nb13 = 0;
    for (int S = 1; S <= 4; S++)
        for (int P = 1; P <= 4; P++)
            for (size_t i = 0; i < 2 * sizeof blocks / sizeof blocks[0]; i++)
                for (int os = 0; os < 2; os++)
                    for (int m = 8; m <= MAXM; m++) {
                        // One side CYCLIC(1), the other the block of i.
                        int nbk = blocks[i % 6], smb = i < 6 ? 1 : nbk, tmb = i < 6 ? nbk : 1;
                        plist L;
                        nt_unit *u = NULL;
                        if (!unit_rows(S, smb, P, tmb, os, m, r, &L))
                            continue;
                        int64_t T = lcm(smb * S, tmb * P);
                        cr_assert_eq(nt_unit_build(r, m, S, P, T / P, T / S, &u), NT_OK);
                        if (!u)
                            continue;
                        programs++;
                        nb13 += S == 2 && smb == 1 && P == 4 && tmb == 3;
                        // Source a: its column is its local rows, right before the PROT_NONE page.
                        int64_t slen[4] = {0};
                        const char *scol[4];
                        for (int g = 0; g < os + m; g++)
                            slen[g / smb % S]++;
                        for (int a = 0; a < S; a++)
                            scol[a] = guard_column(base[a], a, slen[a]);
                        // The leading dimensions as the executor passes them, every third
                        // entry of a table (its source grid's stride), decoys in between.
                        int64_t lld[4 * 3];
                        for (int e = 0; e < 4 * 3; e++)
                            lld[e] = e % 3 ? INT64_MAX / 4 : slen[e / 3];
                        for (int shift = 0; shift < 8; shift++) {
                            char *dcol[4];
                            for (int b = 0; b < P; b++)
                                dcol[b] = (char *)(tbuf + 256 * b + (shift + b) % 8);
                            nt_unit_column(u, dcol, scol, lld, 3);
                            check_rows(dcol, S, smb, P, tmb, os, m, shift);
                        }
                        nt_unit_free(u);
                    }
    free(tbuf);
    guard_unmap(base, 4);
    cr_assert_gt(programs, 100, "only %d unit programs built", programs);
    cr_assert_gt(nb13, 0, "no program for nb 1 -> 3 on 2 -> 4 grid rows");
}

// The rows list of m rows in global order from S source grid rows of blocks smb (from source
// row os) and P target grid rows of blocks tmb (from row 0), runs merged, as a pattern (false:
// none found).
static bool block_rows(int S, int smb, int P, int tmb, int os, int m, prun *r, int *nr,
                       plist *L)
{
    int n = 0;
    for (int x = 0; x < m; x++) {
        int a = (os + x) / smb % S, b = x / tmb % P;
        int64_t sl = cyc_local(os + x, smb, S), tl = cyc_local(x, tmb, P);
        if (n > 0 && r[n - 1].a == a && r[n - 1].b == b && r[n - 1].sl + r[n - 1].len == sl &&
            r[n - 1].tl + r[n - 1].len == tl)
            r[n - 1].len++;
        else
            r[n++] = (prun){sl, tl, 1, x, x, a, b};
    }
    *nr = n;
    return find_pattern(r, n, false, L);
}

// Pair programs read only the halves their lines take: whole-half row patterns (1-3 source and
// 1-4 target grid rows, blocks of 4-24 rows, 32-400 rows in steps of 4, so that columns end
// at every point of a cycle), each source column ending where an inaccessible page begins,
// target columns starting on a line, on a half, and one element off (copied element by
// element). Every target element against the per-element owner formula.
Test(periodic, pair_programs_read_only_their_halves)
{
    if (!nt_lines_avx512())
        cr_skip_test("no AVX-512: no pair programs");
    enum { MAXM = 400 };
    char *base[3];
    guard_map(base, 3);
    double *tbuf = aligned_alloc(64, 4 * 512 * sizeof *tbuf);
    cr_assert_not_null(tbuf);
    static prun r[MAXM];
    int programs = 0;
    for (int S = 1; S <= 3; S++)
        for (int P = 1; P <= 4; P++)
            for (int smb = 4; smb <= 24; smb += 4)
                for (int tmb = 4; tmb <= 24; tmb += 4)
                    for (int m = 32; m <= MAXM; m += 4) {
                        int nr;
                        plist L;
                        nt_pairs *h = NULL;
                        if (!block_rows(S, smb, P, tmb, 0, m, r, &nr, &L))
                            continue;
                        cr_assert_eq(nt_pairs_build(r, &L, S, P, &h), NT_OK);
                        if (!h)
                            continue;
                        programs++;
                        // Source a: its local rows, right before the PROT_NONE page.
                        int64_t slen[3] = {0};
                        const char *scol[3];
                        for (int x = 0; x < m; x++)
                            slen[x / smb % S]++;
                        for (int a = 0; a < S; a++)
                            scol[a] = guard_column(base[a], a, slen[a]);
                        for (int shift = 0; shift < 3; shift++) {
                            char *dcol[4];
                            for (int b = 0; b < P; b++)
                                dcol[b] = (char *)(tbuf + 512 * b + (shift == 2 ? 1 : 4 * shift));
                            nt_pairs_column(h, dcol, scol);
                            check_rows(dcol, S, smb, P, tmb, 0, m, shift);
                        }
                        nt_pairs_free(h);
                    }
    free(tbuf);
    guard_unmap(base, 3);
    cr_assert_gt(programs, 100, "only %d pair programs built", programs);
}

// Mask programs read only the lanes their lines take: row patterns of 1-3 source and 1-4
// target grid rows, blocks of 1-12 rows on each side (most of them off the grid of 4), source
// rows from offsets 0, 1 and 3, 24-300 rows (columns end at every point of a cycle), each
// source column ending where an inaccessible page begins, target columns starting at every
// lane of a line, with and without reading ahead. Every target element against the
// per-element owner formula.
Test(periodic, mask_programs_read_only_their_lanes)
{
    if (!nt_lines_avx512())
        cr_skip_test("no AVX-512: no mask programs");
    enum { MAXM = 300 };
    static const int blocks[] = {1, 3, 4, 5, 7, 8, 12};
    const int nblk = (int)(sizeof blocks / sizeof blocks[0]);
    char *base[3];
    guard_map(base, 3);
    double *tbuf = aligned_alloc(64, 4 * 512 * sizeof *tbuf);
    cr_assert_not_null(tbuf);
    static prun r[MAXM];
    int programs = 0, wide = 0;
    int64_t far[3 * 2] = {1 << 20, 0, 1 << 21, 0, 1 << 22, 0}; // every other entry (stride 2)
    for (int S = 1; S <= 3; S++)
        for (int P = 1; P <= 4; P++)
            for (int i = 0; i < nblk * nblk; i++)
                for (int os = 0; os <= 3; os += 1 + (os > 0))
                    for (int m = 24; m <= MAXM; m += 7) {
                        int smb = blocks[i / nblk], tmb = blocks[i % nblk], nr;
                        plist L;
                        nt_masks *h = NULL;
                        // The period of the grids (a pattern of runs is not needed).
                        block_rows(S, smb, P, tmb, os, m, r, &nr, &L);
                        int64_t T = lcm(smb * S, tmb * P);
                        cr_assert_eq(nt_masks_build(r, nr, S, P, T / P, T / S, &h), NT_OK);
                        if (!h)
                            continue;
                        programs++;
                        // Source a: its local rows up to the last one taken, right before the
                        // PROT_NONE page.
                        int64_t slen[3] = {0};
                        const char *scol[3];
                        for (int g = 0; g < os + m; g++)
                            slen[g / smb % S]++;
                        for (int a = 0; a < S; a++)
                            scol[a] = guard_column(base[a], a, slen[a]);
                        for (int shift = 0; shift < 8; shift++) {
                            char *dcol[4];
                            for (int b = 0; b < P; b++)
                                dcol[b] = (char *)(tbuf + 512 * b + (shift + b) % 8);
                            nt_masks_column(h, dcol, scol, shift % 2 ? far : NULL, 2);
                            check_rows(dcol, S, smb, P, tmb, os, m, shift);
                        }
                        wide += smb % 4 != 0 && tmb % 4 != 0 && S > 1;
                        nt_masks_free(h);
                    }
    free(tbuf);
    guard_unmap(base, 3);
    cr_assert_gt(programs, 1000, "only %d mask programs built", programs);
    cr_assert_gt(wide, 100, "only %d programs off the grid of 4 from several sources", wide);
}

// Mask programs forced: random grids with row blocks of 1-12 on each side, random submatrices
// of most rows (columns start at every lane and end at every point of a cycle), fresh and
// allocated targets, 0-2 threads per domain; every element against the source, nothing
// written outside; cases until NEXEC / 2 of them used mask programs (not every geometry
// fits: cycles of at most 16 lines, lines of at most 4 loads). By default: the bench's
// submatrix of nb 8 -> 12 (runs of 4.8 on average, off the grid of halves) takes them; that of
// 24 -> 36 (runs of 14.4, a program would fit) and 8 -> 12 on the whole matrix (whole halves)
// do not.
Test(periodic_exec, mask_programs_arrive_element_by_element)
{
    nt_rng g = {1357};
    int64_t used = 0;
    nt_copy_test_stream_above(0);
    int k = 0, limit = nt_lines_avx512() ? 20 * NEXEC : NEXEC; // without: the fallback
    for (; k < limit && used < NEXEC / 2; k++) {
        // Columns of a few periods (programs need one that repeats).
        nt_matrix_t *S = rows_bc(&g, rnd(&g, 300, 1500), rnd(&g, 1, 8), rnd(&g, 1, 12), 4, 0);
        nt_matrix_t *T = rows_bc(&g, rnd(&g, 300, 1500), rnd(&g, 1, 8), rnd(&g, 1, 12), 4,
                                 rnd(&g, 0, 1) ? 0 : NT_MATRIX_NOALLOC);
        int64_t mr = S->m < T->m ? S->m : T->m, mc = S->n < T->n ? S->n : T->n;
        nt_sub_t s = {mr - rnd(&g, 0, 40), rnd(&g, 1, mc), 0, 0, 0, 0};
        s.src_row = rnd(&g, 0, S->m - s.rows);
        s.dst_row = rnd(&g, 0, T->m - s.rows);
        s.src_col = rnd(&g, 0, S->n - s.cols);
        s.dst_col = rnd(&g, 0, T->n - s.cols);
        uint64_t seed = nt_rng_next(&g);
        nt_exec_test_lines(1);
        nt_exec_test_masks(1);
        nt_plan_t *p = global_exec(&g, S, T, &s, seed);
        used += nt_exec_test_masks(-1);
        check_and_free(S, T, p, &s, seed, k);
    }
    nt_exec_test_lines(-1);
    int64_t n = 960, u[3];
    nt_sub_t bench = {n / 2 + 13, 30, n / 8 + 5, 3, n / 4 - 1, 2}, whole = {n, 37, 0, 0, 0, 0};
    const int64_t smb[3] = {8, 24, 8}, tmb[3] = {12, 36, 12};
    for (int c = 0; c < 3; c++) {
        nt_matrix_t *S, *T;
        bench_grids(n, 37, smb[c], smb[c], tmb[c], tmb[c], &S, &T);
        cr_assert_eq(nt_matrix_fill_pattern(S, 17), NT_OK);
        nt_sub_t s = c == 2 ? whole : bench;
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.order = NT_ORDER_GLOBAL}, NULL),
                     NT_OK, "%s", nt_last_error());
        u[c] = nt_exec_test_masks(-1);
        check_and_free(S, T, p, &s, 17, -1 - c);
    }
    nt_copy_test_stream_above(-1);
    if (nt_lines_avx512()) {
        cr_assert_geq(used, NEXEC / 2, "only %lld of %d random cases used mask programs",
                      (long long)used, k);
        cr_assert_eq(u[0], 1, "8 -> 12 on the submatrix: no mask programs");
    }
    cr_assert_eq(u[1] + u[2], 0, "mask programs for long runs (%lld) or whole halves (%lld)",
                 (long long)u[1], (long long)u[2]);
}

// A random submatrix of S and T whose rows (at least 4 * min4) and row offsets are multiples
// of 4 (quad), or the same with 1-2 rows fewer (not quad).
static nt_sub_t half_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T, int64_t min4,
                         bool quad)
{
    int64_t mr = S->m < T->m ? S->m : T->m, mc = S->n < T->n ? S->n : T->n;
    nt_sub_t s = {4 * rnd(g, min4, mr / 4), rnd(g, 1, mc), 0, 0, 0, 0};
    s.src_row = 4 * rnd(g, 0, (S->m - s.rows) / 4);
    s.dst_row = 4 * rnd(g, 0, (T->m - s.rows) / 4);
    s.src_col = rnd(g, 0, S->n - s.cols);
    s.dst_col = rnd(g, 0, T->n - s.cols);
    if (!quad && s.rows > 1)
        s.rows -= rnd(g, 1, 3) % s.rows;
    return s;
}

// Line writers by whole halves (nt_lines_put4_avx512): rows, row blocks and row offsets of
// multiples of 4 on both sides, so that every run and every column start is whole halves of
// lines; every other case moves one offset off the grid of 4 (ordinary writers). Each
// execution is checked element by element, nothing written outside; where the cpu has
// AVX-512, every case of the first kind wrote by halves.
Test(periodic_exec, halves_of_lines_arrive_element_by_element)
{
    nt_rng g = {2468};
    int64_t quads = 0, halves = 0;
    nt_copy_test_stream_above(0);
    nt_exec_test_halves();
    nt_exec_test_pairs(0); // the writers themselves (pair programs would take short runs)
    for (int k = 0; k < NEXEC; k++) {
        bool quad = k % 2 == 0;
        // Rows and row blocks of multiples of 4.
        nt_matrix_t *S = rows_bc(&g, 4 * rnd(&g, 1, 50), rnd(&g, 1, 40), 4 * rnd(&g, 1, 16), 16, 0);
        nt_matrix_t *T = rows_bc(&g, 4 * rnd(&g, 1, 50), rnd(&g, 1, 40), 4 * rnd(&g, 1, 16), 16,
                                 rnd(&g, 0, 1) ? 0 : NT_MATRIX_NOALLOC);
        nt_sub_t s = half_sub(&g, S, T, 1, quad);
        uint64_t seed = nt_rng_next(&g);
        cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK, "%s", nt_last_error());
        nt_exec_test_lines(1);
        cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.order = NT_ORDER_GLOBAL}, NULL),
                     NT_OK, "%s", nt_last_error());
        nt_exec_test_lines(-1);
        int64_t used = nt_exec_test_halves();
        halves += used;
        quads += quad;
        cr_assert(quad || used == 0, "case %d: halves for runs that are not", k);
        check_and_free(S, T, p, &s, seed, k);
    }
    nt_copy_test_stream_above(-1);
    nt_exec_test_pairs(-1);
    if (nt_lines_avx512())
        cr_assert_eq(halves, quads, "%lld of %lld whole-half cases wrote by halves",
                     (long long)halves, (long long)quads);
}

// One execution of nb smb -> tmb, 2x2 -> 4x1, n x 37 doubles (fresh target) of the submatrix
// s, streaming forced and the automatic choices, through line writers; returns whether it
// read ahead and checks every element.
static int64_t ahead_case(int64_t n, int64_t smb, int64_t tmb, nt_sub_t s)
{
    nt_matrix_t *S, *T;
    bench_grids(n, 37, smb, smb, tmb, tmb, &S, &T);
    cr_assert_eq(nt_matrix_fill_pattern(S, 13), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_exec_test_ahead(-1);
    nt_exec_test_lines(-1);
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.order = NT_ORDER_GLOBAL}, NULL),
                 NT_OK, "%s", nt_last_error());
    int64_t used = nt_exec_test_ahead(-1);
    cr_assert_eq(nt_exec_test_lines(-1), 1, "%lld -> %lld: no line writers", (long long)smb,
                 (long long)tmb);
    check_and_free(S, T, p, &s, 13, -1);
    return used;
}

// Reading one column ahead (lines_ahead() in periodic_copy.c, mask programs): forced on the
// random geometries of line_writers_arrive_element_by_element, every element against the
// source and nothing written outside (the requests reach past the local matrices: they must
// not fault). By default: wherever the writers' masked loop runs (64 -> 100 on the bench's
// submatrix, off every block boundary; 64 -> 50 on the whole matrix), not with whole halves
// (64 -> 100 on half the rows at block boundaries), and mask programs only where sources come
// in pieces (8 -> 12 on the bench's submatrix, not 6 -> 9 on the whole matrix).
Test(periodic_exec, reads_ahead_where_they_pay)
{
    nt_rng g = {8642};
    int64_t used = 0;
    nt_copy_test_stream_above(0);
    for (int k = 0; k < NEXEC; k++) {
        nt_exec_test_lines(1);
        nt_exec_test_ahead(1);
        lines_case(&g, k, false);
        used += nt_exec_test_ahead(-1);
    }
    nt_exec_test_lines(-1);
    int64_t n = 960;
    nt_sub_t bench = {n / 2 + 13, 30, n / 8 + 5, 3, n / 4 - 1, 2}, all = {n, 37, 0, 0, 0, 0};
    int64_t piece = ahead_case(n, 64, 100, bench), whole = ahead_case(n, 64, 50, all);
    int64_t halves = ahead_case(n, 64, 100, (nt_sub_t){n / 2, 37, n / 4, 0, n / 4, 0});
    int64_t mpiece = ahead_case(n, 8, 12, bench), mwhole = ahead_case(n, 6, 9, all);
    nt_copy_test_stream_above(-1);
    cr_assert_eq(halves, 0, "read ahead for whole halves");
    cr_assert_eq(mwhole, 0, "mask programs read ahead on a whole matrix");
    if (nt_lines_avx512()) {
        cr_assert_gt(used, 0, "no random case read ahead");
        cr_assert_eq(piece + whole, 2, "the masked loop did not read ahead (submatrix %lld, "
                     "whole %lld)", (long long)piece, (long long)whole);
        cr_assert_eq(mpiece, 1, "mask programs on the submatrix did not read ahead");
    }
}

// Pair programs (periodic_pairs.c) forced: the whole-half geometries of the test above (and
// the same just off the grid of 4, which must not use them), random grids, submatrices, fresh
// and allocated targets, 0-2 threads per domain. Every element against the source, nothing
// written outside; where the cpu has AVX-512 most whole-half cases use them.
Test(periodic_exec, pair_programs_arrive_element_by_element)
{
    nt_rng g = {97531};
    int64_t quads = 0, used = 0;
    nt_copy_test_stream_above(0);
    nt_exec_test_pairs(0);
    for (int k = 0; k < NEXEC; k++) {
        bool quad = k % 4 != 0;
        // Columns long enough for the row pattern to repeat (programs need a period).
        nt_matrix_t *S = rows_bc(&g, 4 * rnd(&g, 20, 160), rnd(&g, 1, 20), 4 * rnd(&g, 1, 4), 16,
                                 0);
        nt_matrix_t *T = rows_bc(&g, 4 * rnd(&g, 20, 160), rnd(&g, 1, 20), 4 * rnd(&g, 1, 4), 16,
                                 rnd(&g, 0, 1) ? 0 : NT_MATRIX_NOALLOC);
        nt_sub_t s = half_sub(&g, S, T, (S->m < T->m ? S->m : T->m) / 8, quad);
        uint64_t seed = nt_rng_next(&g);
        nt_exec_test_lines(1);
        nt_exec_test_pairs(1);
        nt_plan_t *p = global_exec(&g, S, T, &s, seed);
        nt_exec_test_lines(-1);
        int64_t u = nt_exec_test_pairs(0);
        cr_assert(quad || u == 0, "case %d: pair programs for runs that are not whole halves", k);
        used += u;
        quads += quad;
        check_and_free(S, T, p, &s, seed, k);
    }
    nt_exec_test_pairs(-1);
    // nb 8 -> 12 on 2x2 -> 4x1 (runs of 4 and 8) takes them by default; 32 -> 48 does not.
    for (int k = 0; k < 2; k++) {
        int64_t n = 960, smb = k ? 32 : 8, tmb = k ? 48 : 12;
        nt_matrix_t *S, *T;
        bench_grids(n, 37, smb, smb, tmb, tmb, &S, &T);
        cr_assert_eq(nt_matrix_fill_pattern(S, 11), NT_OK);
        nt_sub_t s = {n, 37, 0, 0, 0, 0};
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.order = NT_ORDER_GLOBAL}, NULL),
                     NT_OK, "%s", nt_last_error());
        int64_t u = nt_exec_test_pairs(-1);
        if (nt_lines_avx512())
            cr_assert_eq(u, k ? 0 : 1, "nb %lld -> %lld: pair programs %s", (long long)smb,
                         (long long)tmb, k ? "used" : "not used");
        check_and_free(S, T, p, &s, 11, -1 - k);
    }
    nt_copy_test_stream_above(-1);
    // Patterns of more than MAX_PERIOD runs, or none repeating within the column, keep the
    // writers; about half of these random cases have a period.
    if (nt_lines_avx512())
        cr_assert_gt(3 * used, quads, "only %lld of %lld whole-half cases used pair programs",
                     (long long)used, (long long)quads);
}

// One execution of the 1024 x 96 source into the top rows of a tm x 96 target, streaming
// forced, on 8 virtual domains: source bc2d:2x4 with mb = smb rows per block, target (fresh,
// NOALLOC) bc2d:2x1 with tmb, 8 columns per block on both sides; returns how many executions
// used line writers (global order) and checks every element.
static int64_t whole_lines_case(const nt_topo_t *t8, int64_t smb, int64_t tm, int64_t tmb,
                                nt_exec_order order, nt_match_objective relabel)
{
    nt_matrix_shape_t a = {1024, 96, smb, 8, 8}, b = {tm, 96, tmb, 8, 8};
    nt_sub_t sub = {1024, 96, 0, 0, 0, 0};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t8, &a, "bc2d:2x4", 0, NT_LAYOUT_SCALAPACK, 0, &S),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(t8, &b, "bc2d:2x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_fill_pattern(S, 11), NT_OK);
    nt_plan_opts_t po = {.relabel = relabel};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, &sub, &po, &p), NT_OK, "%s", nt_last_error());
    nt_exec_test_lines(-1);
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.order = order}, NULL), NT_OK,
                 "%s", nt_last_error());
    int64_t used = nt_exec_test_lines(-1), bad = -1;
    cr_assert_eq(nt_matrix_check_pattern(T, 11, 0, 0, 1024, 96, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "smb %lld tmb %lld: %lld target elements differ", (long long)smb,
                 (long long)tmb, (long long)bad);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    return used;
}

// On one node the automatic order is source order exactly when every run of rows streams
// whole target lines (2 KiB runs starting on lines: 512 -> 256), global order (through line
// writers) otherwise (512 -> 100, 64 -> 256, and 512 -> 256 into a target of 1028 rows whose
// local columns do not start on lines); a target with fewer domains than the machine and a
// relabelled fresh target included. Every element is checked either way.
Test(periodic_exec, whole_line_runs_copy_in_source_order)
{
    nt_topo_t *t8;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 8}, &t8), NT_OK);
    nt_copy_test_stream_above(0);
    cr_assert_eq(whole_lines_case(t8, 512, 1024, 256, NT_ORDER_AUTO, NT_MATCH_CANONICAL), 0);
    cr_assert_eq(whole_lines_case(t8, 512, 1024, 256, NT_ORDER_AUTO, NT_MATCH_VOLUME), 0);
    cr_assert_eq(whole_lines_case(t8, 512, 1024, 256, NT_ORDER_GLOBAL, NT_MATCH_CANONICAL), 1);
    cr_assert_eq(whole_lines_case(t8, 512, 1024, 100, NT_ORDER_AUTO, NT_MATCH_CANONICAL), 1);
    cr_assert_eq(whole_lines_case(t8, 64, 1024, 256, NT_ORDER_AUTO, NT_MATCH_VOLUME), 1);
    cr_assert_eq(whole_lines_case(t8, 512, 1028, 256, NT_ORDER_AUTO, NT_MATCH_CANONICAL), 1);
    nt_copy_test_stream_above(-1);
    nt_topo_destroy(t8);
}

// A target that has memory, on a 3x4 grid whose last three grid columns hold no tile (one tile
// column), 12 labels on a 16-domain machine: lex relabelling sends one of its empty components
// past the target's labels. The executor must not look that label up in the target's tables
// (a read past them, which the ASan build reports), and every element still arrives.
Test(periodic_exec, empty_components_relabelled_past_the_target)
{
    nt_topo_t *t16;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 16}, &t16), NT_OK);
    nt_matrix_shape_t a = {41, 2, 4, 2, 8}, b = {41, 2, 1, 2, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t16, &a, "bc2d:4x4", 0, NT_LAYOUT_SCALAPACK, 0, &S),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(t16, &b, "bc2d:3x4", 0, NT_LAYOUT_SCALAPACK, 0, &T),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_fill_pattern(S, 5), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_LEX}, &p),
                 NT_OK, "%s", nt_last_error());
    int nc, past = 0;
    const int *sigma = nt_plan_sigma(p, &nc);
    for (int j = 0; j < nc; j++)
        past += sigma[j] >= T->ndomains;
    cr_assert_gt(past, 0, "no component relabelled past the target's %d labels", T->ndomains);
    cr_assert_eq(nt_plan_execute(p, S, T, NULL, NULL), NT_OK, "%s", nt_last_error());
    int64_t bad = -1;
    cr_assert_eq(nt_matrix_check_pattern(T, 5, 0, 0, 41, 2, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "%lld elements differ", (long long)bad);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_topo_destroy(t16);
}

// Allocation of the target fails at every possible point: nothing changes, nothing leaks.
Test(periodic_exec, failed_allocation_changes_nothing)
{
    nt_matrix_shape_t a = {97, 83, 5, 7, 8}, b = {97, 83, 3, 2, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(topo4, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK, 0, &S),
                 NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topo4, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    cr_assert_eq(nt_matrix_fill_pattern(S, 5), NT_OK);
    nt_plan_opts_t po = {.relabel = NT_MATCH_VOLUME};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, &po, &p), NT_OK);
    int *owner0 = malloc((size_t)(T->mt * T->nt) * sizeof *owner0);
    memcpy(owner0, T->owner, (size_t)(T->mt * T->nt) * sizeof *owner0);
    int fails = 0;
    for (int64_t k = 0;; k++) {
        nt_mem_test_fail_after(k);
        nt_status st = nt_plan_execute(p, S, T, NULL, NULL);
        nt_mem_test_fail_after(-1);
        if (st == NT_OK)
            break;
        fails++;
        cr_assert_eq(st, NT_ENOMEM, "%s", nt_last_error());
        cr_assert(!T->allocated);
        cr_assert_eq(memcmp(owner0, T->owner, (size_t)(T->mt * T->nt) * sizeof *owner0), 0);
        int64_t bad;
        cr_assert_eq(nt_matrix_check_pattern(S, 5, 0, 0, S->m, S->n, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0);
    }
    cr_assert_geq(fails, 1, "the target's allocation was never reached");
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, 5, 0, 0, T->m, T->n, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0);
    free(owner0);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// The element-cyclic case of issue 12 (4096^2, CYCLIC(1) on 2x2 -> CYCLIC(3) on 4x1): 16.7
// million segments, none stored; the plan stays far below 16 MiB.
Test(periodic, element_cyclic_plan_is_small)
{
    nt_matrix_shape_t a = {4096, 4096, 1, 1, 8}, b = {4096, 4096, 3, 3, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &S), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(NULL, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I;
    nt_plan_info(p, &I);
    cr_assert(I.periodic);
    cr_assert_eq(I.segments, (int64_t)4096 * 4096);
    cr_assert_lt(I.memory_bytes, (int64_t)16 << 20, "plan holds %lld bytes",
                 (long long)I.memory_bytes);
    cr_log_info("element-cyclic 4096^2 plan: %lld bytes, %.4f s", (long long)I.memory_bytes,
                I.seconds);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}
