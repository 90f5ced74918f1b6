// In-place execution (nt_plan_execute with opts.inplace) on virtual topologies. Oracle: the
// source is filled with a pattern of its global coordinates; after execution every target
// element must hold the pattern of its coordinates (nt_matrix_check_pattern, a naive
// per-element check), the source must have no memory, and every page of the target must be on
// its domain's node. Failures (allocation at every point, a copy fault at every copy) must
// leave the source intact and the target untouched, or roll forward to a complete target.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "nt_core.h"
#include "../../lib/nt_inplace.h"
#include "../../numa/nt_numa.h"

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
        int64_t mb2 = rnd(&g, 0, 2) ? rnd(&g, 1, 120) : mb, nb2 = rnd(&g, 0, 2) ? rnd(&g, 1, 120) : nb;
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
