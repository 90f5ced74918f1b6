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
