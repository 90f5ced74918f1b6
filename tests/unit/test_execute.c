// Executing plans on virtual topologies of 1..8 domains. Oracle: the source is filled with a
// pattern of its global coordinates; after execution every target element of the submatrix
// must hold the pattern of the source element it comes from (nt_matrix_check_pattern), every
// other target element zero, and every page of the target on its domain's node.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "nt_core.h"
#include "numa/nt_numa.h"

#ifdef __SANITIZE_ADDRESS__
#define NCASES 80
#else
#define NCASES 400
#endif

static nt_topo_t *topos[9];

static void setup(void)
{
    for (int d = 1; d <= 8; d++) {
        nt_topo_opts_t o = {.domains = d};
        cr_assert_eq(nt_topo_load(&o, &topos[d]), NT_OK, "%s", nt_last_error());
    }
}

static void teardown(void)
{
    for (int d = 1; d <= 8; d++)
        nt_topo_destroy(topos[d]);
}

TestSuite(execute, .init = setup, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

static const char *spec_for(nt_rng *g, int D, char *buf, size_t len, int *nd)
{
    int p = (int)rnd(g, 1, D), q = (int)rnd(g, 1, D / p);
    *nd = 0;
    switch (rnd(g, 0, 3)) {
    case 0: snprintf(buf, len, "bc2d:%dx%d", p, q); break;
    case 1: snprintf(buf, len, "bc2d:%dx%d:2x1", p, q); break;
    case 2: snprintf(buf, len, "random:%d", (int)rnd(g, 0, 99)); *nd = D; break;
    default: snprintf(buf, len, "chunk:%d:%d", D, (int)rnd(g, 0, 99)); break;
    }
    return buf;
}

static nt_matrix_t *make(nt_rng *g, const nt_topo_t *t, int D, int64_t m, int64_t n,
                         size_t es, unsigned flags, int64_t mb, int64_t nb)
{
    nt_matrix_shape_t sh = {m, n, mb, nb, es};
    char spec[64];
    int nd;
    spec_for(g, D, spec, sizeof spec, &nd);
    nt_layout lay = rnd(g, 0, 2) == 0 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
    nt_matrix_t *A = NULL;
    nt_status st = nt_matrix_create_spec(t, &sh, spec, nd, lay, flags, &A);
    if (st == NT_EINVAL && lay == NT_LAYOUT_SCALAPACK)
        st = nt_matrix_create_spec(t, &sh, spec, nd, NT_LAYOUT_TILE, flags, &A);
    cr_assert_eq(st, NT_OK, "%s: %s", spec, nt_last_error());
    return A;
}

// Everything the oracle says about one executed redistribution.
static void check_result(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                         uint64_t seed, const nt_plan_t *p)
{
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, seed, s->dst_row, s->dst_col, s->rows, s->cols,
                                         s->src_row - s->dst_row, s->src_col - s->dst_col, &bad),
                 NT_OK);
    cr_assert_eq(bad, 0, "%lld target elements differ from the source", (long long)bad);
    // The source is intact.
    cr_assert_eq(nt_matrix_check_pattern(S, seed, 0, 0, S->m, S->n, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "%lld source elements changed", (long long)bad);
    // Outside the submatrix the fresh target is zero.
    int64_t nonzero = 0;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t r = 0; r < T->m; r++) {
            if (r >= s->dst_row && r < s->dst_row + s->rows && c >= s->dst_col &&
                c < s->dst_col + s->cols)
                continue;
            const unsigned char *e = nt_matrix_elem(T, r, c);
            for (size_t b = 0; b < T->elem_size; b++)
                nonzero += e[b] != 0;
        }
    cr_assert_eq(nonzero, 0);
    const int *own = nt_plan_dst_owner(p);
    cr_assert_eq(memcmp(own, T->owner, (size_t)(T->mt * T->nt) * sizeof *own), 0,
                 "target map is not the plan's relabelled map");
    nt_placement_report_t rep;
    cr_assert_eq(nt_matrix_check_placement(T, &rep), NT_OK, "%s", nt_last_error());
    cr_assert_eq(rep.on_domain, rep.pages);
}

Test(execute, random_cases_match_the_oracle)
{
    nt_rng g = {31337};
    for (int it = 0; it < NCASES; it++) {
        int D = (int)rnd(&g, 1, 8);
        const nt_topo_t *t = topos[D];
        size_t es = (size_t)(rnd(&g, 0, 1) ? 8 : rnd(&g, 1, 12));
        int64_t ms = rnd(&g, 1, 90), ns = rnd(&g, 1, 90), mt = rnd(&g, 1, 90),
                nt = rnd(&g, 1, 90);
        // Mostly small tiles, sometimes page-sized ones (adoptable and movable).
        bool big = rnd(&g, 0, 2) == 0;
        if (big && rnd(&g, 0, 1)) {
            mt = ms;
            nt = ns;
        }
        int64_t mbs = big ? 32 : rnd(&g, 1, 20), nbs = big ? 16 : rnd(&g, 1, 20);
        int64_t mbt = big && rnd(&g, 0, 1) ? mbs : rnd(&g, 1, 20);
        int64_t nbt = big && mbt == mbs ? nbs : rnd(&g, 1, 20);
        if (big)
            es = 8;
        nt_matrix_t *S = make(&g, t, D, ms, ns, es, 0, mbs, nbs);
        nt_matrix_t *T = make(&g, t, D, mt, nt, es, NT_MATRIX_NOALLOC, mbt, nbt);
        uint64_t seed = nt_rng_next(&g);
        cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
        nt_sub_t s;
        bool whole = big && ms == mt && ns == nt && rnd(&g, 0, 1);
        if (whole) {
            s = (nt_sub_t){ms, ns, 0, 0, 0, 0};
        } else {
            s.rows = rnd(&g, 0, ms < mt ? ms : mt);
            s.cols = rnd(&g, 0, ns < nt ? ns : nt);
            s.src_row = rnd(&g, 0, ms - s.rows);
            s.src_col = rnd(&g, 0, ns - s.cols);
            s.dst_row = rnd(&g, 0, mt - s.rows);
            s.dst_col = rnd(&g, 0, nt - s.cols);
        }
        nt_plan_opts_t po = {.relabel = (nt_match_objective)rnd(&g, 0, 4)};
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, &po, &p), NT_OK, "%s", nt_last_error());
        nt_exec_opts_t eo = {.mode = rnd(&g, 0, 1) ? NT_EXEC_MOVE : NT_EXEC_COPY,
                             .schedule = rnd(&g, 0, 1) ? NT_SCHED_STEPS : NT_SCHED_FREE,
                             .threads_per_domain = (int)rnd(&g, 0, 2),
                             .max_in_flight = (int)rnd(&g, 0, 4),
                             .on_source = rnd(&g, 0, 3) == 0,
                             .no_keep = rnd(&g, 0, 3) == 0,
                             .order = (nt_exec_order)rnd(&g, 0, 3)};
        nt_exec_stats_t st;
        cr_assert_eq(nt_plan_execute(p, S, T, &eo, &st), NT_OK, "%s", nt_last_error());
        check_result(S, T, &s, seed, p);
        nt_plan_info_t I;
        nt_plan_info(p, &I);
        // Accounting: copied + adopted bytes = the submatrix; tasks ran on their domain.
        int64_t pair_sum = 0, diag = 0;
        for (int i = 0; i < st.ndomains; i++)
            for (int j = 0; j < st.ndomains; j++) {
                pair_sum += st.pair_bytes[i * st.ndomains + j];
                if (i == j)
                    diag += st.pair_bytes[i * st.ndomains + j];
            }
        cr_assert_eq(pair_sum - diag, I.bytes_moved, "moved bytes %lld, plan %lld",
                     (long long)(pair_sum - diag), (long long)I.bytes_moved);
        cr_assert_eq(st.bytes_moved, I.bytes_moved);
        cr_assert_eq(st.tasks_on_domain, st.tasks, "%lld of %lld tasks on their domain",
                     (long long)st.tasks_on_domain, (long long)st.tasks);
        cr_assert_eq(st.bytes_node_changed, 0, "one NUMA node: no byte changes node");
        nt_exec_stats_free(&st);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

// Same geometry and map: the target adopts every page-sized tile (nothing copied); move mode
// keeps every tile's address.
Test(execute, fast_path_keeps_and_moves_whole_tiles)
{
    const nt_topo_t *t = topos[4];
    nt_matrix_shape_t sh = {256, 192, 64, 64, 8};
    for (int mode = 0; mode < 2; mode++) {
        nt_matrix_t *S, *T;
        cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE, 0, &S), NT_OK);
        cr_assert_eq(nt_matrix_create_spec(t, &sh, mode ? "bc2d:1x4" : "bc2d:2x2", 0,
                                           NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T), NT_OK);
        nt_matrix_fill_pattern(S, 7);
        char **before = malloc((size_t)(S->mt * S->nt) * sizeof *before);
        memcpy(before, S->tile, (size_t)(S->mt * S->nt) * sizeof *before);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
        nt_plan_info_t I;
        nt_plan_info(p, &I);
        cr_assert(I.fast_path);
        nt_exec_stats_t st;
        nt_exec_opts_t eo = {.mode = mode ? NT_EXEC_MOVE : NT_EXEC_COPY};
        cr_assert_eq(nt_plan_execute(p, S, T, &eo, &st), NT_OK, "%s", nt_last_error());
        check_result(S, T, &(nt_sub_t){256, 192, 0, 0, 0, 0}, 7, p);
        cr_assert_eq(st.bytes_copied, 0);
        cr_assert_eq(st.tiles_kept + st.tiles_migrated, S->mt * S->nt);
        if (mode)
            cr_assert_gt(st.tiles_migrated, 0);
        else
            cr_assert_eq(st.tiles_migrated, 0);
        for (int64_t x = 0; x < S->mt * S->nt; x++)
            cr_assert_eq(T->tile[x], before[x], "tile %lld changed address", (long long)x);
        // The source stays readable while the target lives; destroying it first is safe.
        nt_matrix_destroy(S);
        int64_t bad;
        nt_matrix_check_pattern(T, 7, 0, 0, 256, 192, 0, 0, &bad);
        cr_assert_eq(bad, 0);
        nt_exec_stats_free(&st);
        free(before);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
    }
}

// A target that already has memory is written in place; a relabelling plan or move mode into
// it is refused before anything moves.
Test(execute, in_place_target)
{
    const nt_topo_t *t = topos[3];
    nt_matrix_shape_t a = {50, 60, 7, 9, 8}, b = {50, 60, 10, 4, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t, &a, "random:2", 3, NT_LAYOUT_TILE, 0, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &b, "bc1d:3", 0, NT_LAYOUT_SCALAPACK, 0, &T), NT_OK);
    nt_matrix_fill_pattern(S, 3);
    nt_matrix_fill_pattern(T, 4);
    nt_sub_t s = {20, 30, 5, 6, 11, 12};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, &s, &(nt_plan_opts_t){.relabel = NT_MATCH_VOLUME}, &p),
                 NT_OK);
    int n;
    const int *sig = nt_plan_sigma(p, &n);
    bool identity = sig[0] == 0 && sig[1] == 1 && sig[2] == 2;
    if (!identity) {
        cr_assert_eq(nt_plan_execute(p, S, T, NULL, NULL), NT_EINVAL);
        int64_t bad;
        nt_matrix_check_pattern(T, 4, 0, 0, 50, 60, 0, 0, &bad);
        cr_assert_eq(bad, 0, "refused execution modified the target");
    }
    nt_plan_destroy(p);
    cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK);
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.mode = NT_EXEC_MOVE}, NULL),
                 NT_EINVAL);
    cr_assert_eq(nt_plan_execute(p, T, S, NULL, NULL), NT_EINVAL, "plan of other matrices");
    cr_assert_eq(nt_plan_execute(p, S, S, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.threads_per_domain = -1}, NULL),
                 NT_EINVAL);
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.schedule = NT_SCHED_STEPS}, NULL),
                 NT_OK, "%s", nt_last_error());
    int64_t bad;
    nt_matrix_check_pattern(T, 3, s.dst_row, s.dst_col, s.rows, s.cols, s.src_row - s.dst_row,
                            s.src_col - s.dst_col, &bad);
    cr_assert_eq(bad, 0);
    // Outside the submatrix the old content survives.
    nt_matrix_check_pattern(T, 4, 0, 0, 11, 60, 0, 0, &bad);
    cr_assert_eq(bad, 0);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// Allocation failure at every point of the target's allocation: the execution returns
// NT_ENOMEM, the target is still without memory and with its map, the source is intact, and
// nothing leaks (ASan). Then the same plan succeeds.
Test(execute, allocation_failure_modifies_nothing)
{
    const nt_topo_t *t = topos[4];
    for (int lay = 0; lay < 2; lay++) {
        nt_matrix_shape_t a = {300, 260, 64, 64, 8}, b = {300, 260, 48, 80, 8};
        nt_matrix_t *S, *T;
        cr_assert_eq(nt_matrix_create_spec(t, &a, "bc2d:2x2", 0, NT_LAYOUT_TILE, 0, &S), NT_OK);
        cr_assert_eq(nt_matrix_create_spec(t, &b, "bc2d:2x2", 0, (nt_layout)lay,
                                           NT_MATRIX_NOALLOC, &T), NT_OK);
        nt_matrix_fill_pattern(S, 8);
        int *map0 = malloc((size_t)(T->mt * T->nt) * sizeof *map0);
        memcpy(map0, T->owner, (size_t)(T->mt * T->nt) * sizeof *map0);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_LEX}, &p),
                     NT_OK);
        int64_t k = 0;
        for (;; k++) {
            nt_mem_test_fail_after(k);
            nt_status st = nt_plan_execute(p, S, T, NULL, NULL);
            nt_mem_test_fail_after(-1);
            if (st == NT_OK)
                break;
            cr_assert_eq(st, NT_ENOMEM, "%s", nt_last_error());
            cr_assert_not(T->allocated);
            cr_assert_null(T->tile);
            cr_assert_eq(memcmp(map0, T->owner, (size_t)(T->mt * T->nt) * sizeof *map0), 0);
            int64_t bad;
            nt_matrix_check_pattern(S, 8, 0, 0, 300, 260, 0, 0, &bad);
            cr_assert_eq(bad, 0);
        }
        cr_assert_gt(k, 0);
        check_result(S, T, &(nt_sub_t){300, 260, 0, 0, 0, 0}, 8, p);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
        free(map0);
    }
}

Test(execute, statistics_and_bound)
{
    const nt_topo_t *t = topos[2];
    nt_matrix_shape_t a = {512, 512, 64, 64, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t, &a, "random:5", 2, NT_LAYOUT_TILE, 0, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &a, "bc2d:1x2", 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &T), NT_OK);
    nt_matrix_fill_pattern(S, 1);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
    nt_exec_stats_t st;
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.measure_bound = true,
                                                             .no_keep = true}, &st), NT_OK);
    check_result(S, T, &(nt_sub_t){512, 512, 0, 0, 0, 0}, 1, p);
    cr_assert_eq(st.bytes_copied, 512 * 512 * 8);
    cr_assert(st.tasks >= 1 && st.tasks <= 64, "64 segments in %lld tasks", (long long)st.tasks);
    cr_assert_eq(st.tasks_on_domain, st.tasks);
    cr_assert_gt(st.seconds, 0);
    cr_assert_gt(st.bandwidth_gbs, 0);
    cr_assert_gt(st.bound_gbs, 0);
    const int64_t *pb = nt_plan_pair_bytes(p);
    for (int x = 0; x < 4; x++)
        cr_assert_eq(st.pair_bytes[x], pb[x]);
    nt_exec_stats_free(&st);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// An empty submatrix moves nothing: the target is allocated, all zero, on its domains.
Test(execute, empty_submatrix)
{
    const nt_topo_t *t = topos[2];
    nt_matrix_shape_t a = {40, 30, 8, 8, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t, &a, "bc1d:2", 0, NT_LAYOUT_TILE, 0, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &a, "bc2d:2x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_matrix_fill_pattern(S, 2);
    nt_sub_t s = {0, 30, 5, 0, 7, 0};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, &s, NULL, &p), NT_OK);
    nt_exec_stats_t st;
    cr_assert_eq(nt_plan_execute(p, S, T, NULL, &st), NT_OK, "%s", nt_last_error());
    cr_assert_eq(st.tasks, 0);
    cr_assert_eq(st.bytes_copied, 0);
    check_result(S, T, &s, 2, p);
    nt_exec_stats_free(&st);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}
