// Plans from grids alone (nt_plan_create_grids, lib/redist/plan_grids.c). Oracle: the plan
// nt_plan_create() makes of matrices built from the same DIST specs (tile tables, TILE layout
// with stored segments or ScaLAPACK layout), compared field by field, pair by pair, tile owner by
// tile owner and segment by segment; `numatile plan` of an element-cyclic matrix far larger than
// any tile table could be.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "nt_core.h"
#include "tool_run.h"

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// A random block-cyclic side: its spec text and the same grid as a descriptor.
static void random_side(nt_rng *g, int64_t m, int64_t n, size_t es, int maxd, char *spec,
                        size_t cap, nt_grid_matrix_t *gm)
{
    int p = (int)rnd(g, 1, 4), q = (int)rnd(g, 1, 4);
    while (p * q > maxd)
        p > 1 ? p-- : q--;
    int64_t smb = rnd(g, 1, 3), snb = rnd(g, 1, 3);
    snprintf(spec, cap, "bc2d:%dx%d:%lldx%lld", p, q, (long long)smb, (long long)snb);
    int64_t mb = nt_rng_below(g, 3) == 0 ? 1 : rnd(g, 1, 40);
    *gm = (nt_grid_matrix_t){m, n, mb, nt_rng_below(g, 3) == 0 ? 1 : rnd(g, 1, 40), es,
                             {p, q, smb, snb}};
}

typedef struct seglist {
    nt_segment_t *v;
    int64_t n, cap;
} seglist;

static int collect(const nt_segment_t *g, void *arg)
{
    seglist *l = arg;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    l->v[l->n++] = *g;
    return 0;
}

// Everything a caller can read of the two plans agrees (but the memory and time they took and
// whether segments are stored).
static void same_plans(nt_plan_t *a, nt_plan_t *b, int64_t dst_tiles, int k)
{
    nt_plan_info_t x, y;
    nt_plan_info(a, &x);
    nt_plan_info(b, &y);
    cr_assert(x.periodic, "case %d: a grid plan is periodic", k);
    x.periodic = y.periodic;
    x.memory_bytes = y.memory_bytes;
    x.seconds = y.seconds;
    cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "case %d: plan summaries differ (tiles %lld/%lld, "
                 "segments %lld/%lld, moved %lld/%lld, steps %lld/%lld)", k, (long long)x.tiles,
                 (long long)y.tiles, (long long)x.segments, (long long)y.segments,
                 (long long)x.bytes_moved, (long long)y.bytes_moved, (long long)x.steps,
                 (long long)y.steps);
    int na, nb;
    const int *sa = nt_plan_sigma(a, &na), *sb = nt_plan_sigma(b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(sa, sb, (size_t)na * sizeof *sa), 0, "case %d: sigma differs", k);
    size_t DD = (size_t)x.ndomains * (size_t)x.ndomains;
    cr_assert_eq(memcmp(nt_plan_pair_bytes(a), nt_plan_pair_bytes(b), DD * sizeof(int64_t)), 0);
    cr_assert_eq(memcmp(nt_plan_pair_segments(a), nt_plan_pair_segments(b),
                        DD * sizeof(int64_t)), 0);
    const int *oa = nt_plan_dst_owner(a), *ob = nt_plan_dst_owner(b);
    cr_assert(oa && ob);
    cr_assert_eq(memcmp(oa, ob, (size_t)dst_tiles * sizeof *oa), 0, "case %d: owners", k);
    seglist la = {0}, lb = {0};
    cr_assert_eq(nt_plan_foreach_segment(a, collect, &la), NT_OK);
    cr_assert_eq(nt_plan_foreach_segment(b, collect, &lb), NT_OK);
    cr_assert_eq(la.n, lb.n);
    cr_assert(la.n == 0 || memcmp(la.v, lb.v, (size_t)la.n * sizeof *la.v) == 0,
              "case %d: segments differ", k);
    free(la.v);
    free(lb.v);
}

// One random case: both sides' specs, a submatrix sometimes, an objective; the grid plan
// against the matrices' plan in the layout drawn.
static void one_case(nt_rng *g, const nt_topo_t *t, int k)
{
    int64_t m = rnd(g, 1, 200), n = rnd(g, 1, 200);
    size_t es = (size_t)(1u << nt_rng_below(g, 4));
    char spec[2][64];
    nt_grid_matrix_t gm[2];
    for (int s = 0; s < 2; s++)
        random_side(g, m, n, es, nt_topo_ndomains(t), spec[s], sizeof spec[s], &gm[s]);
    nt_layout lay = nt_rng_below(g, 2) ? NT_LAYOUT_TILE : NT_LAYOUT_SCALAPACK;
    nt_matrix_t *S, *T;
    nt_matrix_shape_t a = {m, n, gm[0].mb, gm[0].nb, es}, b = {m, n, gm[1].mb, gm[1].nb, es};
    cr_assert_eq(nt_matrix_create_spec(t, &a, spec[0], 0, lay, NT_MATRIX_NOALLOC, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &b, spec[1], 0, lay, NT_MATRIX_NOALLOC, &T), NT_OK,
                 "%s", nt_last_error());
    nt_sub_t sub = {rnd(g, 0, m), rnd(g, 0, n), 0, 0, 0, 0};
    sub.src_row = rnd(g, 0, m - sub.rows);
    sub.src_col = rnd(g, 0, n - sub.cols);
    sub.dst_row = rnd(g, 0, m - sub.rows);
    sub.dst_col = rnd(g, 0, n - sub.cols);
    bool use_sub = nt_rng_below(g, 3) == 0;
    nt_plan_opts_t po = {.relabel = (nt_match_objective)nt_rng_below(g, 5),
                         .schedule = nt_rng_below(g, 4) == 0};
    nt_plan_t *pg, *pm;
    nt_status sg = nt_plan_create_grids(t, &gm[0], &gm[1], use_sub ? &sub : NULL, &po, &pg);
    nt_status sm = nt_plan_create(S, T, use_sub ? &sub : NULL, &po, &pm);
    cr_assert_eq(sg, sm, "case %d: %s -> %s: status %d vs %d (%s)", k, spec[0], spec[1], sg, sm,
                 nt_last_error());
    if (sg == NT_OK) {
        same_plans(pg, pm, T->mt * T->nt, k);
        nt_exec_opts_t eo = {0};
        cr_assert_eq(nt_plan_execute(pg, S, T, &eo, NULL), NT_EINVAL, "a grid plan executes");
        nt_plan_destroy(pg);
        nt_plan_destroy(pm);
    }
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

Test(plan_grids, equals_the_matrices_plan)
{
    nt_topo_t *t;
    nt_topo_opts_t o = {.domains = 16};
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    nt_rng g = {0x5eed1234u};
    for (int k = 0; k < 1500; k++)
        one_case(&g, t, k);
    nt_topo_destroy(t);
}

// Without a topology the domain space is the larger grid, as nt_plan_create()'s.
Test(plan_grids, without_topology)
{
    nt_grid_matrix_t a = {100, 90, 7, 5, 8, {2, 3, 1, 1}}, b = {100, 90, 4, 9, 8, {4, 2, 2, 1}};
    nt_plan_t *p;
    nt_plan_opts_t po = {.relabel = NT_MATCH_VOLUME};
    cr_assert_eq(nt_plan_create_grids(NULL, &a, &b, NULL, &po, &p), NT_OK, "%s",
                 nt_last_error());
    nt_plan_info_t i;
    nt_plan_info(p, &i);
    cr_assert_eq(i.ndomains, 8);
    cr_assert_eq(i.bytes, 100 * 90 * 8);
    cr_assert_eq(i.bytes_moved + i.bytes_local, i.bytes);
    nt_plan_destroy(p);
}

// Labels beyond the machine: refused with the first such tile (row-major), as the matrices'
// plan would name it; unused labels (a grid wider than the matrix) are accepted.
Test(plan_grids, labels_beyond_the_machine)
{
    nt_topo_t *t;
    nt_topo_opts_t o = {.domains = 3};
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    nt_grid_matrix_t a = {20, 20, 1, 1, 8, {2, 2, 1, 1}}, b = {20, 20, 1, 1, 8, {1, 3, 1, 1}};
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create_grids(t, &a, &b, NULL, NULL, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "source tile 21 on domain 3"), "%s", nt_last_error());
    // 2 x 2 grid on a 1 x 20 matrix: labels 2 and 3 hold nothing.
    a = (nt_grid_matrix_t){1, 20, 1, 1, 8, {2, 2, 1, 1}};
    b.m = 1;
    cr_assert_eq(nt_plan_create_grids(t, &a, &b, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_plan_destroy(p);
    nt_topo_destroy(t);
}

Test(plan_grids, bad_input_names_the_field)
{
    nt_grid_matrix_t ok = {10, 10, 2, 2, 8, {1, 2, 1, 1}};
    struct {
        nt_grid_matrix_t g;
        const char *name;
    } bad[] = {
        {{0, 10, 2, 2, 8, {1, 2, 1, 1}}, "src->m"},
        {{10, -1, 2, 2, 8, {1, 2, 1, 1}}, "src->n"},
        {{10, 10, 0, 2, 8, {1, 2, 1, 1}}, "src->mb"},
        {{10, 10, 2, (int64_t)INT32_MAX + 1, 8, {1, 2, 1, 1}}, "src->nb"},
        {{10, 10, 2, 2, 0, {1, 2, 1, 1}}, "src->elem_size"},
        {{10, 10, 2, 2, 8, {0, 2, 1, 1}}, "src->grid.p"},
        {{10, 10, 2, 2, 8, {1, 0, 1, 1}}, "src->grid.q"},
        {{10, 10, 2, 2, 8, {65536, 65536, 1, 1}}, "src->grid.p * grid.q"},
        {{10, 10, 2, 2, 8, {1, 2, 0, 1}}, "src->grid.smb"},
        {{10, 10, 2, 2, 8, {1, 2, 1, -3}}, "src->grid.snb"},
    };
    nt_plan_t *p = NULL;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        cr_assert_eq(nt_plan_create_grids(NULL, &bad[k].g, &ok, NULL, NULL, &p), NT_EINVAL);
        cr_assert(strstr(nt_last_error(), bad[k].name), "case %zu: %s", k, nt_last_error());
    }
    cr_assert_eq(nt_plan_create_grids(NULL, &ok, &bad[0].g, NULL, NULL, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "dst->m"), "%s", nt_last_error());
    cr_assert_eq(nt_plan_create_grids(NULL, NULL, &ok, NULL, NULL, &p), NT_EINVAL);
    cr_assert_eq(nt_plan_create_grids(NULL, &ok, &ok, NULL, NULL, NULL), NT_EINVAL);
    nt_plan_opts_t po = {.explicit_segments = true};
    cr_assert_eq(nt_plan_create_grids(NULL, &ok, &ok, NULL, &po, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "explicit_segments"));
    nt_grid_matrix_t other = ok;
    other.elem_size = 4;
    cr_assert_eq(nt_plan_create_grids(NULL, &ok, &other, NULL, NULL, &p), NT_EINVAL);
    cr_assert_null(p, "out untouched on failure");
}

Test(plan_grids, spec_grid)
{
    nt_bcgrid_t g;
    cr_assert_eq(nt_tilemap_spec_grid("bc2d:3x4:2x5", &g), NT_OK);
    cr_assert(g.p == 3 && g.q == 4 && g.smb == 2 && g.snb == 5);
    cr_assert_eq(nt_tilemap_spec_grid("bc2d:3x4", &g), NT_OK);
    cr_assert(g.p == 3 && g.q == 4 && g.smb == 1 && g.snb == 1);
    cr_assert_eq(nt_tilemap_spec_grid("bc1d:6", &g), NT_OK);
    cr_assert(g.p == 1 && g.q == 6 && g.smb == 1 && g.snb == 1);
    cr_assert_eq(nt_tilemap_spec_grid("random:3", &g), NT_OK);
    cr_assert_eq(g.p, 0);
    cr_assert_eq(nt_tilemap_spec_grid("file:/nonexistent", &g), NT_OK);
    cr_assert_eq(g.p, 0);
    cr_assert_eq(nt_tilemap_spec_grid("bc2d:4x", &g), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "at 7"), "%s", nt_last_error());
    cr_assert_eq(nt_tilemap_spec_grid("bc2d:65536x65536", &g), NT_ERANGE);
    cr_assert_eq(nt_tilemap_spec_grid("bc1d:2:3", &g), NT_EINVAL);
    cr_assert_eq(nt_tilemap_spec_grid(NULL, &g), NT_EINVAL);
}

// The tool: an element-cyclic 100000 x 100000 plan (10^10 segments; two tile tables alone
// would take 80 GB, and it was refused) is reported from the grids, with the counts that a
// per-element reading gives: an element of a 2x2 -> 1x4 grid change stays where its source
// domain equals its target domain.
Test(plan_grids, tool_plans_element_cyclic_without_tables)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *args[] = {"plan", "--m", "100000", "--n", "100000", "--from", "1@bc2d:2x2",
                          "--to", "1@bc2d:1x4", "--json", NULL};
    json_t *j = tool_json(args);
    int64_t bytes = json_integer_value(json_object_get(j, "bytes"));
    int64_t local = json_integer_value(json_object_get(j, "bytes_local"));
    int64_t segs = json_integer_value(json_object_get(j, "segments"));
    int64_t mem = json_integer_value(json_object_get(j, "plan_memory_bytes"));
    cr_assert_eq(bytes, 100000LL * 100000 * 8);
    cr_assert_eq(segs, 100000LL * 100000);
    // Source domain 2*(r%2) + c%2, target c%4: equal for (r even, c%4 in {0,1}) and
    // (r odd, c%4 in {2,3}): half of the elements.
    cr_assert_eq(local, bytes / 2);
    cr_assert(json_is_true(json_object_get(j, "periodic")));
    cr_assert_lt(mem, 1 << 20);
    json_decref(j);
}
