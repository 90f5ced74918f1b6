// In-place execution (nt_plan_execute with opts.inplace) on virtual topologies. Oracle: the
// source is filled with a pattern of its global coordinates; after execution every target
// element must hold the pattern of its coordinates (nt_matrix_check_pattern, a naive
// per-element check), the source must have no memory, and every page of the target must be on
// its domain's node. Failures (allocation at every point, a copy fault at every copy) must
// leave the source intact and the target untouched, or roll forward to a complete target.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "nt_core.h"
#include "lib/redist/nt_inplace.h"
#include "numa/nt_numa.h"
#include "tool_run.h"

#ifdef __SANITIZE_ADDRESS__
#define NCASES 60
#else
#define NCASES 300
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
    nt_mem_test_fail_after(-1);
    nt_inplace_test_copy_fault_after(-1);
    for (int d = 1; d <= 8; d++)
        nt_topo_destroy(topos[d]);
}

TestSuite(inplace, .init = setup, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// A DIST spec for D domains; *nd = D for the kinds that need the count.
static void spec_for(nt_rng *g, int D, char *buf, size_t len, int *nd)
{
    int p = (int)rnd(g, 1, D), q = (int)rnd(g, 1, D / p);
    *nd = 0;
    switch (rnd(g, 0, 5)) {
    case 0: snprintf(buf, len, "bc2d:%dx%d", p, q); break;
    case 1: snprintf(buf, len, "bc2d:%dx%d:2x1", p, q); break;
    case 2: snprintf(buf, len, "random:%d", (int)rnd(g, 0, 99)); *nd = D; break;
    case 3: snprintf(buf, len, "balanced:%d", (int)rnd(g, 0, 99)); *nd = D; break;
    case 4:
        if (D >= 2) {
            p = (int)rnd(g, 1, D);
            snprintf(buf, len, "skewed:%dx%d:%d", p, D / p, (int)rnd(g, 0, 99));
            break;
        }
        // fall through
    default: snprintf(buf, len, "chunk:%d:%d", D, (int)rnd(g, 0, 99)); break;
    }
}

static nt_matrix_t *make_spec(const nt_topo_t *t, int64_t m, int64_t n, int64_t mb, int64_t nb,
                              const char *spec, int nd, unsigned flags)
{
    nt_matrix_shape_t sh = {m, n, mb, nb, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, nd, NT_LAYOUT_TILE, flags, &A), NT_OK,
                 "%s: %s", spec, nt_last_error());
    return A;
}

static void assert_pattern(const nt_matrix_t *A, uint64_t seed, const char *what)
{
    int64_t bad = -1;
    cr_assert_eq(nt_matrix_check_pattern(A, seed, 0, 0, A->m, A->n, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "%s: %lld elements wrong", what, (long long)bad);
}

// A completed in-place run: target right and placed, source without memory, peak coherent.
static void assert_done(const nt_matrix_t *S, const nt_matrix_t *T, uint64_t seed,
                        const nt_exec_stats_t *es, const char *what)
{
    cr_assert(T->allocated, "%s", what);
    cr_assert_not(S->allocated, "%s: the source keeps memory", what);
    cr_assert_null(S->tile);
    assert_pattern(T, seed, what);
    nt_placement_report_t rep;
    cr_assert_eq(nt_matrix_check_placement(T, &rep), NT_OK);
    cr_assert_eq(rep.on_domain, rep.pages, "%s: %lld of %lld pages on their domain", what,
                 (long long)rep.on_domain, (long long)rep.pages);
    if (!es)
        return;
    int64_t sum = 0;
    for (int d = 0; d < es->ndomains; d++) {
        cr_assert_geq(es->peak_extra_bytes[d], es->peak_lower_bound_bytes[d], "%s: domain %d",
                      what, d);
        sum += es->peak_extra_bytes[d];
    }
    cr_assert_geq(sum, es->peak_lower_bound_total, "%s", what);
}

static nt_status run(nt_plan_t *p, nt_matrix_t *S, nt_matrix_t *T, int64_t budget,
                     nt_exec_stats_t *es)
{
    nt_exec_opts_t o = {.inplace = true, .budget_bytes = budget};
    return nt_plan_execute(p, S, T, &o, es);
}

// Random geometries: sizes, tile sizes below and above a page (slabs and own mappings), every
// kind of map, with and without relabelling.
Test(inplace, random_geometries_against_the_oracle)
{
    nt_rng g = {2024};
    int64_t recycled = 0, kept = 0;
    for (int it = 0; it < NCASES; it++) {
        int D = (int)rnd(&g, 1, 4);
        int64_t m = rnd(&g, 1, 300), n = rnd(&g, 1, 300);
        char s1[64], s2[64], what[256];
        int n1, n2;
        spec_for(&g, D, s1, sizeof s1, &n1);
        spec_for(&g, D, s2, sizeof s2, &n2);
        int64_t mb = rnd(&g, 1, 120), nb = rnd(&g, 1, 120);
        // A third of the cases keep the tile size (tiles can then be kept whole).
        int64_t mb2 = rnd(&g, 0, 2) ? rnd(&g, 1, 120) : mb;
        int64_t nb2 = rnd(&g, 0, 2) ? rnd(&g, 1, 120) : nb;
        nt_matrix_t *S = make_spec(topos[D], m, n, mb, nb, s1, n1, 0);
        nt_matrix_t *T = make_spec(topos[D], m, n, mb2, nb2, s2, n2, NT_MATRIX_NOALLOC);
        snprintf(what, sizeof what, "case %d: %lldx%lld, %lldx%lld@%s -> %lldx%lld@%s, D=%d", it,
                 (long long)m, (long long)n, (long long)mb, (long long)nb, s1, (long long)mb2,
                 (long long)nb2, s2, D);
        uint64_t seed = (uint64_t)it + 1;
        nt_matrix_fill_pattern(S, seed);
        nt_plan_opts_t po = {.relabel = rnd(&g, 0, 2) ? NT_MATCH_CANONICAL : NT_MATCH_VOLUME};
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, &po, &p), NT_OK, "%s", nt_last_error());
        nt_exec_stats_t es = {0};
        cr_assert_eq(run(p, S, T, 0, &es), NT_OK, "%s: %s", what, nt_last_error());
        assert_done(S, T, seed, &es, what);
        recycled += es.bytes_recycled;
        kept += es.tiles_kept;
        nt_exec_stats_free(&es);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
    }
    cr_assert_gt(recycled, 0, "no case recycled a block");
    cr_assert_gt(kept, 0, "no case kept a tile");
}

// The target's map before a failed run, to check it is untouched.
static int *owners(const nt_matrix_t *T)
{
    size_t n = (size_t)(T->mt * T->nt);
    int *o = malloc(n * sizeof *o);
    memcpy(o, T->owner, n * sizeof *o);
    return o;
}

static void assert_untouched(const nt_matrix_t *S, const nt_matrix_t *T, const int *map0,
                             uint64_t seed, const char *what)
{
    cr_assert(S->allocated, "%s", what);
    assert_pattern(S, seed, what);
    cr_assert_not(T->allocated, "%s", what);
    cr_assert_null(T->tile, "%s", what);
    cr_assert_eq(memcmp(map0, T->owner, (size_t)(T->mt * T->nt) * sizeof *map0), 0, "%s", what);
}

// The geometries of the failure tests: a relabelling with slabs, a nb change with adopted
// tiles, a general map change.
static const struct {
    int64_t m, n, mb, nb, mb2, nb2;
    const char *s1, *s2;
} fail_cases[] = {
    {300, 260, 64, 64, 32, 32, "bc2d:2x2", "bc2d:4x1"},
    {256, 256, 64, 64, 64, 64, "balanced:3", "balanced:4"},
    {200, 333, 48, 80, 70, 70, "random:5", "chunk:4:2"},
    {100, 100, 10, 10, 30, 30, "bc2d:2x2", "random:1"},
};

// Allocation failure at every allocation of the run: NT_ENOMEM, the source intact, the target
// without memory and with its map; then the same plan succeeds.
Test(inplace, allocation_failure_at_every_point)
{
    for (size_t c = 0; c < sizeof fail_cases / sizeof *fail_cases; c++) {
        nt_matrix_t *S = make_spec(topos[4], fail_cases[c].m, fail_cases[c].n, fail_cases[c].mb,
                                   fail_cases[c].nb, fail_cases[c].s1, 4, 0);
        nt_matrix_t *T = make_spec(topos[4], fail_cases[c].m, fail_cases[c].n,
                                   fail_cases[c].mb2, fail_cases[c].nb2, fail_cases[c].s2, 4,
                                   NT_MATRIX_NOALLOC);
        nt_matrix_fill_pattern(S, 9);
        int *map0 = owners(T);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_LEX}, &p),
                     NT_OK);
        int64_t k = 0;
        for (;; k++) {
            nt_mem_test_fail_after(k);
            nt_status st = run(p, S, T, 0, NULL);
            nt_mem_test_fail_after(-1);
            if (st == NT_OK)
                break;
            cr_assert_eq(st, NT_ENOMEM, "case %zu, k %lld: %s", c, (long long)k,
                         nt_last_error());
            assert_untouched(S, T, map0, 9, "allocation failure");
        }
        cr_assert_gt(k, 0, "case %zu allocated nothing fresh", c);
        assert_done(S, T, 9, NULL, "after the failures");
        free(map0);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
    }
}

// A copy fault at every k-th copy: before the first recycled block the run aborts with the
// source intact; from it on, the run rolls forward to a complete target. Both happen when
// blocks are recycled (not in the last case: small source tiles share one slab per domain,
// free only at the end).
Test(inplace, copy_fault_at_every_copy)
{
    for (size_t c = 0; c < sizeof fail_cases / sizeof *fail_cases; c++) {
        int aborted = 0, rolled = 0;
        int64_t recycled = 0;
        for (int64_t k = 0;; k++) {
            nt_matrix_t *S = make_spec(topos[4], fail_cases[c].m, fail_cases[c].n,
                                       fail_cases[c].mb, fail_cases[c].nb, fail_cases[c].s1, 4, 0);
            nt_matrix_t *T = make_spec(topos[4], fail_cases[c].m, fail_cases[c].n,
                                       fail_cases[c].mb2, fail_cases[c].nb2, fail_cases[c].s2, 4,
                                       NT_MATRIX_NOALLOC);
            nt_matrix_fill_pattern(S, 11);
            int *map0 = owners(T);
            nt_plan_t *p;
            cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
            nt_inplace_test_copy_fault_after(k);
            nt_exec_stats_t es = {0};
            nt_status st = run(p, S, T, 0, &es);
            recycled = es.bytes_recycled;
            nt_exec_stats_free(&es);
            bool fired = nt_inplace_test_copy_fault_fired();
            nt_inplace_test_copy_fault_after(-1);
            char what[96];
            snprintf(what, sizeof what, "case %zu, fault at copy %lld", c, (long long)k);
            if (st != NT_OK) {
                cr_assert(fired, "%s: %s", what, nt_last_error());
                cr_assert_eq(st, NT_ESYS, "%s", what);
                assert_untouched(S, T, map0, 11, what);
                aborted++;
            } else {
                assert_done(S, T, 11, NULL, what);
                rolled += fired;
            }
            free(map0);
            nt_plan_destroy(p);
            nt_matrix_destroy(T);
            nt_matrix_destroy(S);
            if (st == NT_OK && !fired)
                break; // k is past the last copy
        }
        cr_assert_gt(aborted, 0, "case %zu never aborted", c);
        cr_assert_eq(recycled > 0, c < 3, "case %zu recycled %lld bytes", c, (long long)recycled);
        cr_assert_eq(rolled > 0, recycled > 0, "case %zu rolled forward %d times", c, rolled);
    }
}

// A budget below the order's peak is refused at once, naming the domain, the bytes and the
// budget; the same budget as the peak passes.
Test(inplace, budget)
{
    nt_matrix_t *S = make_spec(topos[4], 512, 512, 128, 128, "bc2d:2x2", 4, 0);
    nt_matrix_t *T = make_spec(topos[4], 512, 512, 64, 64, "bc2d:4x1", 4, NT_MATRIX_NOALLOC);
    nt_matrix_fill_pattern(S, 5);
    int *map0 = owners(T);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
    // The peak of the order, from a run on copies of the matrices.
    nt_matrix_t *S2 = make_spec(topos[4], 512, 512, 128, 128, "bc2d:2x2", 4, 0);
    nt_matrix_t *T2 = make_spec(topos[4], 512, 512, 64, 64, "bc2d:4x1", 4, NT_MATRIX_NOALLOC);
    nt_plan_t *p2;
    cr_assert_eq(nt_plan_create(S2, T2, NULL, NULL, &p2), NT_OK);
    nt_exec_stats_t es = {0};
    cr_assert_eq(run(p2, S2, T2, 0, &es), NT_OK);
    int64_t peak = 0;
    for (int d = 0; d < 4; d++)
        peak = es.peak_extra_bytes[d] > peak ? es.peak_extra_bytes[d] : peak;
    cr_assert_gt(peak, 0);
    nt_exec_stats_free(&es);
    cr_assert_eq(run(p, S, T, peak - 1, NULL), NT_ENOSPACE);
    char want[128];
    snprintf(want, sizeof want, "the budget is %lld bytes per domain", (long long)(peak - 1));
    cr_assert(strstr(nt_last_error(), want) && strstr(nt_last_error(), "extra bytes on domain"),
              "%s", nt_last_error());
    assert_untouched(S, T, map0, 5, "budget refused");
    cr_assert_eq(run(p, S, T, -1, NULL), NT_EINVAL);
    cr_assert_eq(run(p, S, T, peak, &es), NT_OK, "%s", nt_last_error());
    for (int d = 0; d < 4; d++)
        cr_assert_leq(es.peak_extra_bytes[d], peak);
    assert_done(S, T, 5, &es, "within the budget");
    nt_exec_stats_free(&es);
    free(map0);
    nt_plan_destroy(p);
    nt_plan_destroy(p2);
    nt_matrix_destroy(T);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T2);
    nt_matrix_destroy(S2);
}

// What in place does not do is refused with NT_ENOTSUP / NT_EINVAL, nothing touched.
Test(inplace, refusals)
{
    nt_matrix_shape_t sh = {256, 256, 64, 64, 8};
    nt_matrix_t *S, *T, *L;
    cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE, 0, &S),
                 NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &L), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, "bc2d:4x1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_matrix_fill_pattern(S, 2);
    nt_plan_t *pl, *ps, *pt;
    nt_sub_t sub = {100, 100, 0, 0, 10, 10};
    cr_assert_eq(nt_plan_create(S, L, NULL, NULL, &pl), NT_OK);
    cr_assert_eq(nt_plan_create(S, T, &sub, NULL, &ps), NT_OK);
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &pt), NT_OK);
    cr_assert_eq(run(pl, S, L, 0, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "TILE layout"), "%s", nt_last_error());
    cr_assert_eq(run(ps, S, T, 0, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "whole matrix"), "%s", nt_last_error());
    nt_exec_opts_t mv = {.inplace = true, .mode = NT_EXEC_MOVE};
    cr_assert_eq(nt_plan_execute(pt, S, T, &mv, NULL), NT_ENOTSUP);
    nt_exec_opts_t steps = {.inplace = true, .schedule = NT_SCHED_STEPS};
    cr_assert_eq(nt_plan_execute(pt, S, T, &steps, NULL), NT_ENOTSUP);
    cr_assert_eq(run(pt, S, S, 0, NULL), NT_EINVAL);
    assert_pattern(S, 2, "after the refusals");
    cr_assert_not(T->allocated);
    // A target with memory already is refused too.
    cr_assert_eq(nt_plan_execute(pt, S, T, NULL, NULL), NT_OK);
    cr_assert_eq(run(pt, S, T, 0, NULL), NT_EINVAL);
    nt_plan_destroy(pl);
    nt_plan_destroy(ps);
    nt_plan_destroy(pt);
    nt_matrix_destroy(T);
    nt_matrix_destroy(L);
    nt_matrix_destroy(S);
}

static nt_matrix_t *make_map(const nt_topo_t *t, int64_t m, int64_t mb, const int *owner,
                             unsigned flags)
{
    int64_t mt = (m + mb - 1) / mb;
    nt_tilemap_t *map;
    cr_assert_eq(nt_tilemap_create(mt, mt, 4, &map), NT_OK);
    memcpy(map->owner, owner, (size_t)(mt * mt) * sizeof *owner);
    nt_matrix_shape_t sh = {m, m, mb, mb, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, flags, &A), NT_OK, "%s",
                 nt_last_error());
    nt_tilemap_destroy(map);
    return A;
}

// Acceptance: a tile relabelling (same geometry, owners permuted, as many tiles per domain on
// both sides) needs at most two target tiles of extra memory per domain. Tiles of 256 x 256
// doubles (512 KiB) in a 4096^2 matrix (2048^2 under ASan).
Test(inplace, relabelling_peak_at_most_two_tiles_per_domain)
{
#ifdef __SANITIZE_ADDRESS__
    const int64_t m = 2048;
#else
    const int64_t m = 4096;
#endif
    const int64_t mb = 256, mt = m / mb, tile = mb * mb * 8;
    nt_tilemap_t *b1, *b2, *bc;
    cr_assert_eq(nt_tilemap_balanced(mt, mt, 4, 1, &b1), NT_OK);
    cr_assert_eq(nt_tilemap_balanced(mt, mt, 4, 2, &b2), NT_OK);
    cr_assert_eq(nt_tilemap_bc2d(mt, mt, 2, 2, 1, 1, &bc), NT_OK);
    int *sig_b1 = malloc((size_t)(mt * mt) * sizeof *sig_b1);
    int *sig_bc = malloc((size_t)(mt * mt) * sizeof *sig_bc);
    for (int64_t t = 0; t < mt * mt; t++) {
        sig_b1[t] = 3 - b1->owner[t];
        sig_bc[t] = (bc->owner[t] + 1) % 4;
    }
    const int *cases[3][2] = {{b1->owner, b2->owner}, {b1->owner, sig_b1}, {bc->owner, sig_bc}};
    for (int c = 0; c < 3; c++) {
        nt_matrix_t *S = make_map(topos[4], m, mb, cases[c][0], 0);
        nt_matrix_t *T = make_map(topos[4], m, mb, cases[c][1], NT_MATRIX_NOALLOC);
        nt_matrix_fill_pattern(S, 21);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
        nt_exec_stats_t es = {0};
        cr_assert_eq(run(p, S, T, 0, &es), NT_OK, "%s", nt_last_error());
        assert_done(S, T, 21, &es, "relabelling");
        for (int d = 0; d < 4; d++)
            cr_assert_leq(es.peak_extra_bytes[d], 2 * tile, "case %d, domain %d: %lld bytes",
                          c, d, (long long)es.peak_extra_bytes[d]);
        nt_exec_stats_free(&es);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
    }
    free(sig_b1);
    free(sig_bc);
    nt_tilemap_destroy(b1);
    nt_tilemap_destroy(b2);
    nt_tilemap_destroy(bc);
}

// Acceptance: nb 512 -> 256, 2x2 -> 4x1 grid, TILE layout: the extra memory of all domains
// together stays within 10% of the matrix (M = N = 4096; 1024 with nb 128 -> 64 under ASan).
Test(inplace, halving_nb_peak_within_ten_percent)
{
#ifdef __SANITIZE_ADDRESS__
    const int64_t m = 1024, nb = 128;
#else
    const int64_t m = 4096, nb = 512;
#endif
    nt_matrix_t *S = make_spec(topos[4], m, m, nb, nb, "bc2d:2x2", 0, 0);
    nt_matrix_t *T = make_spec(topos[4], m, m, nb / 2, nb / 2, "bc2d:4x1", 0, NT_MATRIX_NOALLOC);
    nt_matrix_fill_pattern(S, 31);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
    nt_exec_stats_t es = {0};
    cr_assert_eq(run(p, S, T, 0, &es), NT_OK, "%s", nt_last_error());
    assert_done(S, T, 31, &es, "nb halving");
    int64_t sum = 0;
    for (int d = 0; d < 4; d++)
        sum += es.peak_extra_bytes[d];
    cr_assert_leq(sum, m * m * 8 / 10, "%lld extra bytes for a %lld-byte matrix", (long long)sum,
                  (long long)(m * m * 8));
    cr_assert_eq(es.bytes_recycled + sum, m * m * 8, "every target byte is recycled or fresh");
    nt_exec_stats_free(&es);
    nt_plan_destroy(p);
    nt_matrix_destroy(T);
    nt_matrix_destroy(S);
}

// `numatile redist --inplace --budget`: the JSON fields, the pattern check of --verify, and
// the refusals (exit 2, naming the option or the domain and the budget).
Test(inplace, command_line)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *base[] = {"redist", "--m", "1024", "--n", "1024", "--from", "128@bc2d:2x2",
                          "--to", "64@bc2d:4x1", "--domains", "4", "--inplace"};
    const char *args[24];
    size_t n = sizeof base / sizeof *base;
    memcpy(args, base, sizeof base);
    const char *ok[] = {"--budget", "4M", "--verify", "--json", NULL};
    memcpy(args + n, ok, sizeof ok);
    json_t *j = tool_json(args);
    cr_assert(json_is_true(json_object_get(j, "verify")));
    cr_assert(json_is_true(json_object_get(j, "inplace")));
    cr_assert_eq(json_integer_value(json_object_get(j, "budget_bytes")), 4 << 20);
    json_t *peak = json_object_get(j, "peak_extra_bytes");
    json_t *lb = json_object_get(j, "peak_lower_bound_bytes");
    cr_assert(json_is_array(peak) && json_array_size(peak) == 4);
    cr_assert(json_is_array(lb) && json_array_size(lb) == 4);
    json_int_t max = 0;
    for (size_t d = 0; d < 4; d++) {
        json_int_t v = json_integer_value(json_array_get(peak, d));
        cr_assert_leq(v, 4 << 20);
        cr_assert_geq(v, json_integer_value(json_array_get(lb, d)));
        max = v > max ? v : max;
    }
    cr_assert(json_is_integer(json_object_get(j, "peak_lower_bound_total")));
    cr_assert_gt(json_integer_value(json_object_get(j, "bytes_recycled")), 0);
    json_decref(j);
    // One byte under the peak: refused before any copy, exit 2, the budget named.
    char budget[32];
    snprintf(budget, sizeof budget, "%lld", (long long)max - 1);
    const char *tight[] = {"--budget", budget, NULL};
    memcpy(args + n, tight, sizeof tight);
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "the budget is") && strstr(r.err, budget), "%s", r.err);
    tool_result_free(&r);
    const char *bad[][4] = {{"--budget", "12x", NULL}, {"--budget", "-1", NULL},
                            {"--mode", "move", NULL}, {"--to-layout", "scalapack", NULL},
                            {"--sub", "10,10,0,0,0,0", NULL}};
    const char *named[] = {"--budget", "--budget", "--mode", "--to-layout", "--sub"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        memcpy(args + n, bad[k], sizeof bad[k]);
        r = tool_run(args);
        cr_assert_eq(r.status, 2, "%s: exit %d", bad[k][0], r.status);
        cr_assert(strstr(r.err, named[k]), "%s", r.err);
        tool_result_free(&r);
    }
    r = tool_run((const char *[]){"redist", "--m", "64", "--n", "64", "--from", "8@bc1d:2",
                                  "--to", "8@bc1d:2", "--budget", "1K", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--budget: only with --inplace"), "%s", r.err);
    tool_result_free(&r);
}

// Chained in-place runs: the target of one (whose tiles and slabs are pieces of recycled
// blocks) is the source of the next; element sizes other than 8 bytes.
Test(inplace, chained_runs)
{
    const char *specs[] = {"bc2d:2x2", "random:4", "bc2d:4x1", "balanced:2", "skewed:2x2:3"};
    const int64_t tiles[] = {40, 100, 23, 64, 7};
    for (size_t es = 1; es <= 24; es += 23) {
        nt_matrix_shape_t sh = {333, 290, tiles[0], tiles[0], es};
        nt_matrix_t *A;
        cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, specs[0], 4, NT_LAYOUT_TILE, 0, &A),
                     NT_OK);
        nt_matrix_fill_pattern(A, 77);
        for (int k = 1; k < 5; k++) {
            nt_matrix_shape_t th = {333, 290, tiles[k], tiles[k] + 3, es};
            nt_matrix_t *B;
            cr_assert_eq(nt_matrix_create_spec(topos[4], &th, specs[k], 4, NT_LAYOUT_TILE,
                                               NT_MATRIX_NOALLOC, &B), NT_OK);
            nt_plan_t *p;
            cr_assert_eq(nt_plan_create(A, B, NULL, NULL, &p), NT_OK);
            nt_exec_stats_t st = {0};
            cr_assert_eq(run(p, A, B, 0, &st), NT_OK, "step %d: %s", k, nt_last_error());
            assert_done(A, B, 77, &st, specs[k]);
            nt_exec_stats_free(&st);
            nt_plan_destroy(p);
            nt_matrix_destroy(A);
            A = B;
        }
        nt_matrix_destroy(A);
    }
}
