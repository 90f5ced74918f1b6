// The periodic executor (exec_periodic.c) end to end: random geometries with every schedule,
// order and thread count, the choice of source order for whole target lines, relabelled empty
// components, failed allocations. Every execution is checked element by element against the
// source pattern, and nothing may be written outside the submatrix.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

TestSuite(periodic_exec, .init = exec_setup, .fini = exec_teardown);

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

Test(periodic_exec, random_geometries_arrive_element_by_element)
{
    nt_rng g = {77};
    for (int k = 0; k < NEXEC; k++)
        exec_case(&g, k % 3 == 0);
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
