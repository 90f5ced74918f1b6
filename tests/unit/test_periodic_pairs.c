// Pair programs (periodic_pairs.c: target lines from whole halves of source lines) by hand on
// guarded source columns and through the executor.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

TestSuite(periodic_pairs, .init = exec_setup, .fini = exec_teardown);

// Pair programs read only the halves their lines take: whole-half row patterns (1-3 source and
// 1-4 target grid rows, blocks of 4-24 rows, 32-400 rows in steps of 4, so that columns end
// at every point of a cycle), each source column ending where an inaccessible page begins,
// target columns starting on a line, on a half, and one element off (copied element by
// element). Every target element against the per-element owner formula.
Test(periodic_pairs, pair_programs_read_only_their_halves)
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

// Pair programs (periodic_pairs.c) forced: the whole-half geometries of the test above (and
// the same just off the grid of 4, which must not use them), random grids, submatrices, fresh
// and allocated targets, 0-2 threads per domain. Every element against the source, nothing
// written outside; where the cpu has AVX-512 most whole-half cases use them.
Test(periodic_pairs, pair_programs_arrive_element_by_element)
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
