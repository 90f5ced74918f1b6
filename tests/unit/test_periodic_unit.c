// Unit programs (periodic_unit.c: whole target lines assembled from source windows) through
// the executor and by hand on guarded source columns.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

TestSuite(periodic_unit, .init = exec_setup, .fini = exec_teardown);

// Rows x = 0 .. m - 1 of a column, source row os + x in CYCLIC(smb) over S grid rows, target
// row x in CYCLIC(tmb) over P: the runs of one element in global order and their pattern, as
// periodic_runs.c would list them; false when two elements of one pair continue each other on
// both sides (not a unit pattern) or no period of at most MAX_PERIOD runs is found.
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

// Unit programs (periodic_unit.c: whole target lines assembled from source windows), forced
// without streaming, in global and target order: CYCLIC(1) rows on the source side, on the
// target side, or both, against random row blocks and grids, random submatrices (so that
// columns start at every lane of a line and windows end near the sources' last rows), fresh
// and allocated targets, 1-2 threads per domain. Every element against the source, nothing
// written outside the submatrix; where the cpu has AVX-512, most cases (all but patterns
// needing more than four windows per line) use them, and nb 1 -> 3 and 1 -> 24 on 2x2 -> 4x1
// always do (1 -> 24 repeats every 96 runs, more than a pattern of runs may have: its period
// comes from the grids).
Test(periodic_unit, unit_programs_arrive_element_by_element)
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

// Unit programs never read past a source column's leading dimension: unit row patterns
// (CYCLIC(1) on a side, 1-4 grid rows each, blocks up to 16 on the other side, source offsets
// 0 and 1, 8-150 rows), each source column ending where an inaccessible page begins, its
// leading dimension every third entry of a table with larger decoys between, the target
// columns at every lane of a line. Every target element against the per-element owner
// formula; a window past a column's end faults (a single-lane window in a permute slot did).
Test(periodic_unit, unit_windows_stay_inside_source_columns)
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
