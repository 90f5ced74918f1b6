// Mask programs (periodic_masks.c: target lines from masked source loads) by hand on guarded
// source columns and through the executor.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

TestSuite(periodic_masks, .init = exec_setup, .fini = exec_teardown);

// Mask programs read only the lanes their lines take: row patterns of 1-3 source and 1-4
// target grid rows, blocks of 1-12 rows on each side (most of them off the grid of 4), source
// rows from offsets 0, 1 and 3, 24-300 rows (columns end at every point of a cycle), each
// source column ending where an inaccessible page begins, target columns starting at every
// lane of a line, with and without reading ahead. Every target element against the
// per-element owner formula.
Test(periodic_masks, mask_programs_read_only_their_lanes)
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
Test(periodic_masks, mask_programs_arrive_element_by_element)
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
