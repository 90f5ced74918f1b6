// Relabelling at scale: the sparse minimum-volume solver against the dense Hungarian solver
// (nt_match_solve) on thousands of random sparse and dense instances, against exhaustive search
// on tiny ones; the sparse costs against a per-entry oracle; the sparse builders against dense
// counts made element by element or tile by tile from the definitions.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"
#include "perm_util.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

// A dense p_ini x p_tar matrix as compressed rows, zero entries dropped (or kept, to test that
// stored zeros change nothing).
static nt_sparse_counts_t to_sparse(const int64_t *n, int pi, int pt, bool keep_zeros)
{
    nt_sparse_counts_t s = {pi, pt, 0, NULL, NULL, NULL};
    s.start = calloc((size_t)pi + 1, sizeof *s.start);
    s.col = malloc((size_t)pi * pt * sizeof *s.col + 1);
    s.count = malloc((size_t)pi * pt * sizeof *s.count + 1);
    for (int i = 0; i < pi; i++) {
        // Columns in reverse order: the solver must not rely on sorted rows.
        for (int j = pt - 1; j >= 0; j--)
            if (n[i * pt + j] || keep_zeros) {
                s.col[s.nnz] = j;
                s.count[s.nnz++] = n[i * pt + j];
            }
        s.start[i + 1] = s.nnz;
    }
    return s;
}

// Volume, local and steps of sigma, from the definitions on the dense matrix.
static nt_cost_t oracle_cost(const int64_t *n, int pi, int pt, int pd, const int *sigma)
{
    int64_t *sent = calloc((size_t)pd, sizeof *sent), *recv = calloc((size_t)pd, sizeof *recv);
    nt_cost_t c = {0, 0, 0, 0};
    for (int i = 0; i < pi; i++)
        for (int j = 0; j < pt; j++) {
            int64_t w = n[i * pt + j];
            if (sigma[j] == i) {
                c.local += w;
            } else {
                c.volume += w;
                sent[i] += w;
                recv[sigma[j]] += w;
            }
        }
    for (int k = 0; k < pd; k++) {
        c.steps = sent[k] > c.steps ? sent[k] : c.steps;
        c.steps = recv[k] > c.steps ? recv[k] : c.steps;
    }
    free(sent);
    free(recv);
    return c;
}

static void assert_injective(const int *sigma, int pt, int pd, const char *what)
{
    char *seen = calloc((size_t)pd, 1);
    for (int j = 0; j < pt; j++) {
        cr_assert(sigma[j] >= 0 && sigma[j] < pd, "%s: sigma[%d] = %d", what, j, sigma[j]);
        cr_assert(!seen[sigma[j]]++, "%s: domain %d twice", what, sigma[j]);
    }
    free(seen);
}

// Solve n sparse and dense; equal volumes, and the sparse costs equal the oracle's.
static int64_t check_both(const int64_t *n, int pi, int pt, int pd, bool keep_zeros,
                          const char *what)
{
    nt_sparse_counts_t s = to_sparse(n, pi, pt, keep_zeros);
    int *sg = malloc((size_t)pt * sizeof *sg), *dg = malloc((size_t)pt * sizeof *dg);
    nt_cost_t sc, dc;
    nt_status st = nt_match_sparse_volume(&s, pd, sg, &sc);
    cr_assert_eq(st, NT_OK, "%s: sparse: %s", what, nt_last_error());
    nt_match_problem_t prob = {.p_ini = pi, .p_tar = pt, .p_dom = pd, .counts = n};
    st = nt_match_solve(&prob, NT_MATCH_VOLUME, dg, &dc);
    cr_assert_eq(st, NT_OK, "%s: dense: %s", what, nt_last_error());
    int d = pd ? pd : (pi > pt ? pi : pt);
    assert_injective(sg, pt, d, what);
    nt_cost_t oc = oracle_cost(n, pi, pt, d, sg);
    cr_assert_eq(sc.volume, oc.volume, "%s: reported volume %lld, oracle %lld", what,
                 (long long)sc.volume, (long long)oc.volume);
    cr_assert_eq(sc.local, oc.local, "%s: local", what);
    cr_assert_eq(sc.steps, oc.steps, "%s: steps %lld, oracle %lld", what, (long long)sc.steps,
                 (long long)oc.steps);
    cr_assert_eq(sc.volume, dc.volume, "%s: sparse volume %lld, dense optimum %lld", what,
                 (long long)sc.volume, (long long)dc.volume);
    free(sg);
    free(dg);
    free(s.start);
    free(s.col);
    free(s.count);
    return sc.volume;
}

// A random p_ini x p_tar matrix: density in (0, 1], values from a small range (many ties) or a
// large one.
static int64_t *random_counts(nt_rng *r, int pi, int pt)
{
    int64_t *n = calloc((size_t)pi * pt, sizeof *n);
    double dens = 0.02 + 0.98 * nt_rng_unit(r) * nt_rng_unit(r);
    uint64_t range = nt_rng_below(r, 2) ? 4 : 1000000;
    for (int x = 0; x < pi * pt; x++)
        if (nt_rng_unit(r) < dens)
            n[x] = (int64_t)nt_rng_below(r, range) + 1;
    return n;
}

Test(match_sparse, random_against_dense)
{
    nt_rng r = {20261202};
    for (int it = 0; it < 3000 / SCALE; it++) {
        int pmax = it % 3 == 0 ? 64 : 16;
        int pi = 1 + (int)nt_rng_below(&r, (uint64_t)pmax);
        int pt = nt_rng_below(&r, 3) ? pi : 1 + (int)nt_rng_below(&r, (uint64_t)pmax);
        int mx = pi > pt ? pi : pt;
        int pd = nt_rng_below(&r, 4) ? 0 : mx + (int)nt_rng_below(&r, 4);
        int64_t *n = random_counts(&r, pi, pt);
        char what[96];
        snprintf(what, sizeof what, "instance %d (%dx%d on %d)", it, pi, pt, pd);
        check_both(n, pi, pt, pd, it % 5 == 0, what);
        free(n);
    }
}

// Permutation-like instances with a little noise: long alternating paths and many ties, the
// hard case for an augmenting-path solver that starts greedily.
Test(match_sparse, shifted_chains_against_dense)
{
    nt_rng r = {77};
    for (int it = 0; it < 400 / SCALE; it++) {
        int p = 2 + (int)nt_rng_below(&r, 63);
        int64_t *n = calloc((size_t)p * p, sizeof *n);
        for (int i = 0; i < p; i++) {
            n[i * p + i] = 2;
            n[i * p + (i + 1) % p] = 2 + (int64_t)nt_rng_below(&r, 2);
            if (nt_rng_below(&r, 4) == 0)
                n[i * p + (int)nt_rng_below(&r, (uint64_t)p)] += 1;
        }
        char what[64];
        snprintf(what, sizeof what, "chain %d (P = %d)", it, p);
        check_both(n, p, p, 0, false, what);
        free(n);
    }
}

// Least volume over every injective labelling, written from the definition.
static int64_t brute_volume(const int64_t *n, int pi, int pt, int pd)
{
    int perm[8];
    for (int k = 0; k < pd; k++)
        perm[k] = k;
    int64_t best = INT64_MAX;
    do {
        int64_t v = 0;
        for (int i = 0; i < pi; i++)
            for (int j = 0; j < pt; j++)
                if (perm[j] != i)
                    v += n[i * pt + j];
        best = v < best ? v : best;
    } while (next_perm(perm, pd));
    return best;
}

Test(match_sparse, tiny_against_brute_force)
{
    nt_rng r = {5};
    for (int it = 0; it < 2000 / SCALE; it++) {
        int pi = 1 + (int)nt_rng_below(&r, 6), pt = 1 + (int)nt_rng_below(&r, 6);
        int pd = (pi > pt ? pi : pt) + (int)nt_rng_below(&r, 2);
        int64_t *n = random_counts(&r, pi, pt);
        char what[64];
        snprintf(what, sizeof what, "tiny %d (%dx%d on %d)", it, pi, pt, pd);
        int64_t v = check_both(n, pi, pt, pd, false, what);
        cr_assert_eq(v, brute_volume(n, pi, pt, pd), "%s: not the brute-force optimum", what);
        free(n);
    }
}

Test(match_sparse, empty_and_zero_rows)
{
    int64_t n[6] = {0, 0, 0, 0, 0, 0};
    check_both(n, 2, 3, 0, false, "all zero");
    check_both(n, 2, 3, 5, true, "stored zeros");
    int64_t m[6] = {0, 0, 0, 0, 7, 0};
    check_both(m, 3, 2, 0, false, "one entry");
}

// Bad input: the right status, a message naming the argument, the output untouched.
static void expect_bad(const nt_sparse_counts_t *n, int pd, nt_status want, const char *name)
{
    int sigma[4] = {-7, -7, -7, -7};
    nt_cost_t c = {-1, -1, -1, -1};
    nt_status st = nt_match_sparse_volume(n, pd, sigma, &c);
    cr_assert_eq(st, want, "%s: status %d", name, st);
    cr_assert(strstr(nt_last_error(), name) != NULL, "message '%s' does not name %s",
              nt_last_error(), name);
    cr_assert(sigma[0] == -7 && c.volume == -1, "%s: output touched", name);
}

Test(match_sparse, bad_input_named)
{
    int64_t start[3] = {0, 2, 3}, count[3] = {5, 1, 2};
    int col[3] = {0, 1, 1};
    nt_sparse_counts_t ok = {2, 2, 3, start, col, count};
    int sigma[2];
    cr_assert_eq(nt_match_sparse_volume(&ok, 0, sigma, NULL), NT_OK);
    cr_assert_eq(nt_match_sparse_volume(NULL, 0, sigma, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "NULL"));
    cr_assert_eq(nt_match_sparse_volume(&ok, 0, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "sigma"));
    nt_sparse_counts_t n = ok;
    expect_bad(&n, 1, NT_EINVAL, "p_dom");
    int bad_col[3] = {0, 2, 1};
    n.col = bad_col;
    expect_bad(&n, 0, NT_EINVAL, "col[1]");
    int dup[3] = {1, 1, 0};
    n.col = dup;
    expect_bad(&n, 0, NT_EINVAL, "twice");
    n = ok;
    int64_t neg[3] = {5, -1, 2};
    n.count = neg;
    expect_bad(&n, 0, NT_EINVAL, "count[1]");
    n = ok;
    int64_t bad_start[3] = {0, 3, 2};
    n.start = bad_start;
    n.nnz = 2;
    expect_bad(&n, 0, NT_EINVAL, "start[2]");
    n = ok;
    n.nnz = 4;
    expect_bad(&n, 0, NT_EINVAL, "nnz");
    n = ok;
    int64_t huge[3] = {INT64_MAX / 2, INT64_MAX / 2, 2};
    n.count = huge;
    expect_bad(&n, 0, NT_ERANGE, "2^60");
    n = ok;
    n.p_tar = 0;
    expect_bad(&n, 0, NT_EINVAL, "p_tar");
    // The cost of a labelling checks sigma.
    nt_cost_t c;
    int twice[2] = {1, 1};
    cr_assert_eq(nt_sparse_cost(&ok, 0, twice, &c), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "injective"));
}

Test(match_sparse, bad_layouts_named)
{
    nt_sparse_counts_t out = {0};
    nt_bc_layout_t s = {{2, 0, 2, 0}, {2, 0, 2, 0}, NULL}, t = s;
    cr_assert_eq(nt_sparse_counts_bc(8, 8, &s, 4, &t, 4, &out), NT_OK);
    nt_sparse_counts_free(&out);
    nt_sparse_counts_free(&out); // twice is fine
    cr_assert_eq(nt_sparse_counts_bc(8, 8, &s, 3, &t, 4, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "src"), "%s", nt_last_error());
    t.rows.block = 0;
    cr_assert_eq(nt_sparse_counts_bc(8, 8, &s, 4, &t, 4, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "dst rows"), "%s", nt_last_error());
    t = s;
    t.cols.src = 2;
    cr_assert_eq(nt_sparse_counts_bc(8, 8, &s, 4, &t, 4, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "dst cols"), "%s", nt_last_error());
    int labels[4] = {0, 1, 1, 3};
    t = s;
    t.labels = labels;
    cr_assert_eq(nt_sparse_counts_bc(8, 8, &s, 4, &t, 4, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "labels[2]"), "%s", nt_last_error());
    cr_assert_eq(nt_sparse_counts_bc(-1, 8, &s, 4, &s, 4, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "rows"), "%s", nt_last_error());
    cr_assert_eq(nt_sparse_counts_bc(INT64_MAX, 8, &s, 4, &s, 4, &out), NT_ERANGE);
    // Element-cyclic over a huge extent: too many pieces, refused before any allocation.
    nt_bc_layout_t e = {{1, 0, 2, 0}, {1, 0, 2, 0}, NULL}, f = {{1, 0, 3, 0}, {1, 0, 3, 0},
                                                                NULL};
    cr_assert_eq(nt_sparse_counts_bc((int64_t)1 << 40, 1, &e, 4, &f, 9, &out), NT_OK,
                 "periodic: %s", nt_last_error());
    nt_sparse_counts_free(&out);
    nt_bc_layout_t g = {{1, 0, 1 << 14, 0}, {1, 0, 1, 0}, NULL};
    nt_bc_layout_t h = {{1, 0, (1 << 14) - 1, 0}, {1, 0, 1, 0}, NULL};
    cr_assert_eq(nt_sparse_counts_bc((int64_t)1 << 40, 1, &g, 1 << 14, &h, 1 << 14, &out),
                 NT_ERANGE);
    cr_assert(strstr(nt_last_error(), "pieces"), "%s", nt_last_error());
    cr_assert(out.start == NULL, "out untouched");
    cr_assert_eq(nt_sparse_counts_tilemaps(NULL, NULL, NULL, &out), NT_EINVAL);
}

// Count matrices made like a block-cyclic change's: n[(a,b)][(c,d)] = r[a][c] * s[b][d] with small
// factors (values few, ties everywhere, row maxima shared by many columns), the source and target
// grids of different shapes, sometimes more domains than either side; the warm starts (level 0
// on either side, the auction) then leave the searches long plateaus of equal values.
// The counts of a block-cyclic change from its two dimensions' factors: rows (a, b) of a p x q
// grid, columns (c, d) of a p2 x q2 one, count rf[a][c] * sf[b][d] (calloc'd, the caller frees).
static int64_t *product(const int64_t *rf, const int64_t *sf, int p, int q, int p2, int q2)
{
    int pt = p2 * q2;
    int64_t *n = calloc((size_t)p * q * pt, sizeof *n);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < q; b++)
            for (int c = 0; c < p2; c++)
                for (int d = 0; d < q2; d++)
                    n[(a * q + b) * pt + c * q2 + d] = rf[a * p2 + c] * sf[b * q2 + d];
    return n;
}

Test(match_sparse, products_with_ties_against_dense)
{
    nt_rng r = {38};
    for (int it = 0; it < 600 / SCALE; it++) {
        int p = 1 + (int)nt_rng_below(&r, 8), q = 1 + (int)nt_rng_below(&r, 8);
        int p2 = 1 + (int)nt_rng_below(&r, 8), q2 = 1 + (int)nt_rng_below(&r, 8);
        int pi = p * q, pt = p2 * q2, mx = pi > pt ? pi : pt;
        int pd = nt_rng_below(&r, 4) ? 0 : mx + (int)nt_rng_below(&r, 5);
        uint64_t vals = 1 + nt_rng_below(&r, 4);
        int64_t *rf = calloc((size_t)p * p2, sizeof *rf), *sf = calloc((size_t)q * q2, sizeof *sf);
        for (int x = 0; x < p * p2; x++)
            rf[x] = nt_rng_below(&r, 3) ? (int64_t)nt_rng_below(&r, vals + 1) : 0;
        for (int x = 0; x < q * q2; x++)
            sf[x] = nt_rng_below(&r, 3) ? (int64_t)nt_rng_below(&r, vals + 1) : 0;
        int64_t *n = product(rf, sf, p, q, p2, q2);
        char what[96];
        snprintf(what, sizeof what, "product %d (%dx%d -> %dx%d on %d)", it, p, q, p2, q2, pd);
        check_both(n, pi, pt, pd, it % 7 == 0, what);
        free(n);
        free(rf);
        free(sf);
    }
}

// Products of factors with ties, as above, but with rows of 33-400 entries: the solver keeps
// only each row's 32 best entries at first and copies the rest when a search reads past them
// (grow()), so these rows take that path; the factors' values are few (ties everywhere) or
// spread.
Test(match_sparse, long_rows_against_dense)
{
    nt_rng r = {4096};
    for (int it = 0; it < 240 / SCALE; it++) {
        int p = 2 + (int)nt_rng_below(&r, 12), q = 2 + (int)nt_rng_below(&r, 12);
        int p2 = 3 + (int)nt_rng_below(&r, 18), q2 = 3 + (int)nt_rng_below(&r, 18);
        int pi = p * q, pt = p2 * q2, mx = pi > pt ? pi : pt;
        int pd = nt_rng_below(&r, 4) ? 0 : mx + (int)nt_rng_below(&r, 5);
        uint64_t vals = it % 2 ? 2 + nt_rng_below(&r, 3) : 1000;
        int64_t *rf = calloc((size_t)p * p2, sizeof *rf), *sf = calloc((size_t)q * q2, sizeof *sf);
        for (int x = 0; x < p * p2; x++)
            rf[x] = nt_rng_below(&r, 4) ? (int64_t)nt_rng_below(&r, vals) + 1 : 0;
        for (int x = 0; x < q * q2; x++)
            sf[x] = nt_rng_below(&r, 4) ? (int64_t)nt_rng_below(&r, vals) + 1 : 0;
        int64_t *n = product(rf, sf, p, q, p2, q2);
        char what[96];
        snprintf(what, sizeof what, "long rows %d (%dx%d -> %dx%d on %d)", it, p, q, p2, q2,
                 pd);
        check_both(n, pi, pt, pd, it % 7 == 0, what);
        free(n);
        free(rf);
        free(sf);
    }
}

// Degenerate shapes: every count equal, one row or column, one column everyone prefers (level 0
// matches one row of all), the same transposed, two columns tied for everyone, a permutation
// with all other counts one less.
Test(match_sparse, degenerate_against_dense)
{
    for (int p = 1; p <= 40; p += 3) {
        int64_t *n = calloc((size_t)p * p, sizeof *n), *t = calloc((size_t)p * p, sizeof *t);
        char what[64];
        for (int x = 0; x < p * p; x++)
            n[x] = 5;
        snprintf(what, sizeof what, "all equal, P = %d", p);
        check_both(n, p, p, 0, false, what);
        check_both(n, 1, p, p, false, "one row");
        check_both(n, p, 1, 0, false, "one column");
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++) {
                n[i * p + j] = j == 0 ? 10 : j == (i + 1) % p ? 9 : (i + j) % 3 == 0 ? 4 : 0;
                t[j * p + i] = n[i * p + j];
            }
        snprintf(what, sizeof what, "one preferred column, P = %d", p);
        check_both(n, p, p, 0, false, what);
        snprintf(what, sizeof what, "one preferred row, P = %d", p);
        check_both(t, p, p, p + 2, false, what);
        // Two columns everyone prefers equally, then a shifted diagonal: the rows' level 0 matches
        // two rows and the auction stalls on the tie, the columns' level 0 matches all (the
        // transposed problem is solved).
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                n[i * p + j] = j < 2 ? 2 : j == (i + 2) % p ? 1 : 0;
        snprintf(what, sizeof what, "two preferred columns, P = %d", p);
        int64_t v2 = check_both(n, p, p, 0, false, what);
        cr_assert_eq(v2, 4 * (int64_t)p - 4, "%s: the last two rows on the tied columns", what);
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                n[i * p + j] = j == (2 * p - 1 - i + 3) % p ? 6 : 5;
        snprintf(what, sizeof what, "hidden permutation, P = %d", p);
        int64_t v = check_both(n, p, p, 0, false, what);
        cr_assert_eq(v, 5 * (int64_t)p * (p - 1), "%s: the permutation is the optimum", what);
        free(n);
        free(t);
    }
}

// Tiny instances with few values against exhaustive search, more domains than either side.
Test(match_sparse, tiny_ties_against_brute_force)
{
    nt_rng r = {3838};
    for (int it = 0; it < 1500 / SCALE; it++) {
        int pi = 1 + (int)nt_rng_below(&r, 6), pt = 1 + (int)nt_rng_below(&r, 6);
        int pd = (pi > pt ? pi : pt) + (int)nt_rng_below(&r, 2);
        int64_t *n = calloc((size_t)pi * pt, sizeof *n);
        for (int x = 0; x < pi * pt; x++)
            n[x] = (int64_t)nt_rng_below(&r, 3);
        char what[64];
        snprintf(what, sizeof what, "tiny ties %d (%dx%d on %d)", it, pi, pt, pd);
        int64_t v = check_both(n, pi, pt, pd, it % 3 == 0, what);
        cr_assert_eq(v, brute_volume(n, pi, pt, pd), "%s: not the brute-force optimum", what);
        free(n);
    }
}
