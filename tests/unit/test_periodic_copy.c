// The column copies of periodic_copy.c: line writers (streamed whole target lines), their
// packed runs, writing by halves of lines and reading one column ahead, each forced through
// the executor's test hooks and checked element by element against the source.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

TestSuite(periodic_copy, .init = exec_setup, .fini = exec_teardown);

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
Test(periodic_copy, line_writers_arrive_element_by_element)
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
Test(periodic_copy, packed_runs_keep_every_field_or_refuse)
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

// Line writers by whole halves (nt_lines_put4_avx512): rows, row blocks and row offsets of
// multiples of 4 on both sides, so that every run and every column start is whole halves of
// lines; every other case moves one offset off the grid of 4 (ordinary writers). Each
// execution is checked element by element, nothing written outside; where the cpu has
// AVX-512, every case of the first kind wrote by halves.
Test(periodic_copy, halves_of_lines_arrive_element_by_element)
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
    // Without AVX-512 the writers take runs of NT_LINES_RUN elements on average (lines_init()):
    // the 64-row blocks' runs are that long, the 8- and 6-row blocks' are not.
    int64_t lines = nt_exec_test_lines(-1);
    if (nt_lines_avx512() || smb >= 64)
        cr_assert_eq(lines, 1, "%lld -> %lld: no line writers", (long long)smb, (long long)tmb);
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
Test(periodic_copy, reads_ahead_where_they_pay)
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
