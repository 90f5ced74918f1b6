// The executor table (lib/redist/nt_strategy.h): which strategy nt_plan_execute() gives each
// geometry, checked against what the plan and the statistics report (a periodic plan,
// in-place waves and peaks), and, for every strategy, that a failure in its preparation or in
// the target's allocation leaves the target exactly as it was and the source intact.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "nt_core.h"
#include "lib/redist/nt_strategy.h"
#include "numa/nt_numa.h"

static nt_topo_t *topo;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 4};
    cr_assert_eq(nt_topo_load(&o, &topo), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_exec_test_fail_prepare(0);
    nt_mem_test_fail_after(-1);
    nt_topo_destroy(topo);
}

TestSuite(exec_table, .init = setup, .fini = teardown);

enum { TILE = NT_LAYOUT_TILE, SCA = NT_LAYOUT_SCALAPACK };

// One execution: layouts and maps of both sides, the plan's and the execution's options, a
// target that has memory already, and the strategy the table must choose.
typedef struct geom {
    const char *what;
    int sl, tl;
    const char *from, *to;
    bool explicit_segments, inplace, placed;
    const char *want;
} geom;

static const geom geoms[] = {
    {"tile 2x2 -> 4x1", TILE, TILE, "bc2d:2x2", "bc2d:4x1", false, false, false, "segments"},
    {"tile, placed target", TILE, TILE, "bc2d:2x2", "bc2d:4x1", false, false, true, "segments"},
    {"scalapack -> tile", SCA, TILE, "bc2d:2x2", "bc2d:1x4", false, false, false, "segments"},
    {"scalapack 2x2 -> 1x4", SCA, SCA, "bc2d:2x2", "bc2d:1x4", false, false, false, "periodic"},
    {"scalapack, placed target", SCA, SCA, "bc2d:2x2", "bc2d:1x4", false, false, true,
     "periodic"},
    {"scalapack, explicit segments", SCA, SCA, "bc2d:2x2", "bc2d:1x4", true, false, false,
     "segments"},
    {"tile in place", TILE, TILE, "bc2d:2x2", "bc2d:4x1", false, true, false, "inplace"},
    {"tile in place, random", TILE, TILE, "random:3", "bc2d:2x2", false, true, false,
     "inplace"},
};

#define M 300
#define N 260

// What the target was before an execution that must fail.
typedef struct saved {
    bool allocated;
    const nt_topo_t *topo;
    int *owner;
} saved;

static saved save(const nt_matrix_t *T)
{
    size_t n = (size_t)(T->mt * T->nt) * sizeof(int);
    saved s = {T->allocated, T->topo, malloc(n)};
    cr_assert_not_null(s.owner);
    memcpy(s.owner, T->owner, n);
    return s;
}

// The target as saved (map, topology, memory or none; a placed target keeps its contents,
// pattern 7), the source intact (pattern 1).
static void check_untouched(const nt_matrix_t *S, const nt_matrix_t *T, const saved *s)
{
    int64_t bad;
    cr_assert_eq(T->allocated, s->allocated);
    cr_assert_eq(T->topo, s->topo);
    cr_assert_eq(memcmp(T->owner, s->owner, (size_t)(T->mt * T->nt) * sizeof(int)), 0);
    if (s->allocated) {
        cr_assert_eq(nt_matrix_check_pattern(T, 7, 0, 0, M, N, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0);
    } else {
        cr_assert_null(T->tile);
    }
    cr_assert(S->allocated);
    cr_assert_eq(nt_matrix_check_pattern(S, 1, 0, 0, M, N, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0);
}

static void make(const geom *g, nt_matrix_t **S, nt_matrix_t **T, nt_plan_t **p)
{
    nt_matrix_shape_t a = {M, N, 64, 64, 8}, b = {M, N, 48, 80, 8};
    int nd = strncmp(g->from, "random", 6) == 0 ? 4 : 0;
    cr_assert_eq(nt_matrix_create_spec(topo, &a, g->from, nd, (nt_layout)g->sl, 0, S), NT_OK,
                 "%s: %s", g->what, nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(topo, &b, g->to, 0, (nt_layout)g->tl,
                                       g->placed ? 0 : NT_MATRIX_NOALLOC, T), NT_OK,
                 "%s: %s", g->what, nt_last_error());
    nt_matrix_fill_pattern(*S, 1);
    if (g->placed)
        nt_matrix_fill_pattern(*T, 7);
    nt_plan_opts_t po = {.explicit_segments = g->explicit_segments};
    cr_assert_eq(nt_plan_create(*S, *T, NULL, &po, p), NT_OK, "%s: %s", g->what,
                 nt_last_error());
}

static void destroy(nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *p, saved *s)
{
    free(s->owner);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// The strategy the plan and the statistics say ran: in place reports waves and peaks, a
// periodic plan says so, the rest ran stored segments.
static const char *reported(const nt_plan_t *p, const nt_exec_stats_t *st)
{
    nt_plan_info_t info;
    cr_assert_eq(nt_plan_info(p, &info), NT_OK);
    if (st->peak_extra_bytes && st->peak_lower_bound_bytes && st->waves > 0)
        return "inplace";
    return info.periodic ? "periodic" : "segments";
}

// The execution that succeeds: the whole target holds the source's pattern, and the
// statistics report the strategy chosen.
static void run_ok(const geom *g, nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *p)
{
    nt_exec_opts_t o = {.inplace = g->inplace};
    nt_exec_stats_t st;
    cr_assert_eq(nt_plan_execute(p, S, T, &o, &st), NT_OK, "%s: %s", g->what, nt_last_error());
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, 1, 0, 0, M, N, 0, 0, &bad), NT_OK);
    cr_assert_eq(bad, 0, "%s: %lld wrong elements", g->what, (long long)bad);
    cr_assert_str_eq(reported(p, &st), g->want, "%s", g->what);
    // The tile sizes differ (64x64 -> 48x80): nothing is adopted, every byte is copied.
    cr_assert_eq(st.bytes_copied, (int64_t)M * N * 8, "%s", g->what);
    nt_exec_stats_free(&st);
}

Test(exec_table, chooses_as_before)
{
    for (size_t k = 0; k < sizeof geoms / sizeof geoms[0]; k++) {
        const geom *g = &geoms[k];
        nt_matrix_t *S, *T;
        nt_plan_t *p;
        make(g, &S, &T, &p);
        nt_exec_opts_t o = {.inplace = g->inplace};
        cr_assert_str_eq(nt_exec_strategy(p, &o)->name, g->want, "%s", g->what);
        saved s = save(T);
        run_ok(g, S, T, p);
        destroy(S, T, p, &s);
    }
}

// No plan, no options: the checks of the last strategy refuse it, as before.
Test(exec_table, null_arguments)
{
    cr_assert_str_eq(nt_exec_strategy(NULL, NULL)->name, "segments");
    nt_exec_opts_t o = {.inplace = true};
    cr_assert_str_eq(nt_exec_strategy(NULL, &o)->name, "inplace");
    cr_assert_eq(nt_plan_execute(NULL, NULL, NULL, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_plan_execute(NULL, NULL, NULL, &o, NULL), NT_EINVAL);
}

// In place takes a periodic plan too, and refuses it (ScaLAPACK layouts) with the target
// untouched.
Test(exec_table, inplace_refuses_periodic)
{
    const geom *g = &geoms[3];
    nt_matrix_t *S, *T;
    nt_plan_t *p;
    make(g, &S, &T, &p);
    nt_exec_opts_t o = {.inplace = true};
    cr_assert_str_eq(nt_exec_strategy(p, &o)->name, "inplace");
    saved s = save(T);
    cr_assert_eq(nt_plan_execute(p, S, T, &o, NULL), NT_ENOTSUP);
    check_untouched(S, T, &s);
    destroy(S, T, p, &s);
}

// A failure right after each strategy's prepare() (injected): NT_ENOMEM, the target as it
// was, the source intact; then the same execution succeeds.
Test(exec_table, prepare_failure_modifies_nothing)
{
    for (size_t k = 0; k < sizeof geoms / sizeof geoms[0]; k++) {
        const geom *g = &geoms[k];
        nt_matrix_t *S, *T;
        nt_plan_t *p;
        make(g, &S, &T, &p);
        saved s = save(T);
        nt_exec_opts_t o = {.inplace = g->inplace};
        nt_exec_test_fail_prepare(1);
        cr_assert_eq(nt_plan_execute(p, S, T, &o, NULL), NT_ENOMEM, "%s", g->what);
        nt_exec_test_fail_prepare(0);
        check_untouched(S, T, &s);
        run_ok(g, S, T, p);
        destroy(S, T, p, &s);
    }
}

// Allocation failure at every point of the target's memory, for every strategy that takes
// some (a fresh target): NT_ENOMEM, nothing changed; then it succeeds.
Test(exec_table, allocation_failure_modifies_nothing)
{
    for (size_t k = 0; k < sizeof geoms / sizeof geoms[0]; k++) {
        const geom *g = &geoms[k];
        if (g->placed)
            continue;
        nt_matrix_t *S, *T;
        nt_plan_t *p;
        make(g, &S, &T, &p);
        saved s = save(T);
        nt_exec_opts_t o = {.inplace = g->inplace};
        int64_t n = 0;
        for (;; n++) {
            nt_mem_test_fail_after(n);
            nt_status st = nt_plan_execute(p, S, T, &o, NULL);
            nt_mem_test_fail_after(-1);
            if (st == NT_OK)
                break;
            cr_assert_eq(st, NT_ENOMEM, "%s: %s", g->what, nt_last_error());
            check_untouched(S, T, &s);
        }
        cr_assert_gt(n, 0, "%s: the execution took no memory", g->what);
        int64_t bad;
        cr_assert_eq(nt_matrix_check_pattern(T, 1, 0, 0, M, N, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0, "%s", g->what);
        destroy(S, T, p, &s);
    }
}
