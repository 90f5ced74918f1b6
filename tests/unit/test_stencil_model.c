// Stencil cost model and Part&Redistrib heuristic: hand cases, a naive recount oracle,
// the heuristic's guarantee on random instances, and exhaustive search on tiny instances.
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/stencil_model.h"
#include "perm_util.h"

#ifdef __SANITIZE_ADDRESS__
#define SWEEP_SCALE 8
#else
#define SWEEP_SCALE 1
#endif

// ---------------------------------------------------------------------------------------------
// Local instance generators (independent of the library's generators).

// Random balanced and skewed distributions come from numatile/dist.h (copied out so the test
// owns a plain array).
static int *dist_balanced(int64_t n, int p, uint64_t seed)
{
    nt_dist1d_t *d = NULL;
    cr_assert_eq(nt_dist1d_balanced(n, p, seed, &d), NT_OK, "%s", nt_last_error());
    int *out = malloc((size_t)n * sizeof *out);
    memcpy(out, d->owner, (size_t)n * sizeof *out);
    nt_dist1d_destroy(d);
    return out;
}

static int *dist_skewed(int p, int64_t dd, double alpha, uint64_t seed)
{
    nt_dist1d_t *d = NULL;
    cr_assert_eq(nt_dist1d_skewed(p, dd, alpha, seed, &d), NT_OK, "%s", nt_last_error());
    int *out = malloc((size_t)(p * dd) * sizeof *out);
    memcpy(out, d->owner, (size_t)(p * dd) * sizeof *out);
    nt_dist1d_destroy(d);
    return out;
}

// Independent uniform domain per item (unbalanced, can leave domains empty).
static void gen_uniform(nt_rng *r, int64_t n, int p, int *d)
{
    for (int64_t x = 0; x < n; x++)
        d[x] = (int)nt_rng_below(r, (uint64_t)p);
}

// Random permutation of 0..p-1.
static void gen_perm(nt_rng *r, int p, int *s)
{
    for (int i = 0; i < p; i++)
        s[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = (int)nt_rng_below(r, (uint64_t)i + 1);
        int t = s[i];
        s[i] = s[j];
        s[j] = t;
    }
}

// ---------------------------------------------------------------------------------------------
// Naive oracle: follow Algorithm 3 literally. Every item x needs x-1 and x+1; a neighbour held
// by another domain is a message (neighbour item, receiving domain), deduplicated so a value
// is sent once to a domain that needs it twice. Counts are then read off the message set.

typedef struct naive_cost {
    int64_t nij[16 * 16];
    int64_t halo_volume, halo_steps, max_load, redist_volume, redist_steps;
} naive_cost;

static void naive_eval(int64_t n, int p, const int *ini, const int *part, const int *sigma,
                       naive_cost *nc)
{
    memset(nc, 0, sizeof *nc);
    bool *msg = calloc((size_t)(n * p), sizeof *msg); // msg[y*p + j]: item y sent to comp j
    for (int64_t x = 0; x < n; x++) {
        int64_t nb[2] = {(x - 1 + n) % n, (x + 1) % n};
        for (int t = 0; t < 2; t++)
            if (part[nb[t]] != part[x])
                msg[nb[t] * p + part[x]] = true;
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            for (int64_t y = 0; y < n; y++)
                if (part[y] == i && msg[y * p + j])
                    nc->nij[i * p + j]++;
    free(msg);
    for (int i = 0; i < p; i++) {
        int64_t s = 0, r = 0, l = 0;
        for (int j = 0; j < p; j++) {
            s += nc->nij[i * p + j];
            r += nc->nij[j * p + i];
        }
        for (int64_t x = 0; x < n; x++)
            l += part[x] == i;
        nc->halo_volume += s;
        if (s > nc->halo_steps)
            nc->halo_steps = s;
        if (r > nc->halo_steps)
            nc->halo_steps = r;
        if (l > nc->max_load)
            nc->max_load = l;
    }
    // Redistribution: per domain, count items leaving and items arriving.
    for (int d = 0; d < p; d++) {
        int64_t s = 0, r = 0;
        for (int64_t x = 0; x < n; x++) {
            int dst = sigma ? sigma[part[x]] : part[x];
            s += ini[x] == d && dst != d;
            r += dst == d && ini[x] != d;
            if (d == 0)
                nc->redist_volume += ini[x] != dst;
        }
        if (s > nc->redist_steps)
            nc->redist_steps = s;
        if (r > nc->redist_steps)
            nc->redist_steps = r;
    }
}

// T_total of a naive count, written from the paper's formulas.
static double naive_total(const naive_cost *nc, const nt_stencil_params_t *pa, bool steps)
{
    double calc = pa->tau_calc * (double)nc->max_load;
    if (steps)
        return pa->tau_comm * (double)nc->redist_steps +
               (double)pa->iters * (pa->tau_comm * (double)nc->halo_steps + calc);
    return pa->tau_comm * (double)nc->redist_volume +
           (double)pa->iters * (pa->tau_comm * (double)nc->halo_volume + calc);
}

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1.0 + fabs(a) + fabs(b));
}

// ---------------------------------------------------------------------------------------------
// Hand cases.

// Block partition 0000 1111 on a ring of 8: component 0 sends item 3 (right neighbour 4) and
// item 0 (left neighbour 7) to component 1, and component 1 sends items 4 and 7 back.
Test(stencil_model, hand_two_blocks)
{
    int part[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    int64_t nij[4], load[2];
    cr_assert_eq(nt_stencil_halo(8, 2, part, nij, load), NT_OK);
    cr_expect_eq(nij[0], 0);
    cr_expect_eq(nij[1], 2);
    cr_expect_eq(nij[2], 2);
    cr_expect_eq(nij[3], 0);
    cr_expect_eq(load[0], 4);
    cr_expect_eq(load[1], 4);
}

// part = 0 1 0 2 2 1 on a ring of 6, worked item by item (left, right neighbour components):
// x0 (c0): 1,1 -> N01+1 (once);  x1 (c1): 0,0 -> N10+1;  x2 (c0): 1,2 -> N01+1, N02+1;
// x3 (c2): 0,2 -> N20+1;         x4 (c2): 2,1 -> N21+1;  x5 (c1): 2,0 -> N12+1, N10+1.
// N01=2 N02=1 N10=2 N12=1 N20=1 N21=1: halo volume 8; s = (3,3,2), r = (3,3,2): steps 3.
// ini = 0 0 1 1 2 2, identity labelling: x1 0->1, x2 1->0, x3 1->2, x5 2->1 move: volume 4;
// domain 1 sends x2,x3 and receives x1,x5: steps 2. With K=3, tau_comm=2, tau_calc=0.5:
// T_iter vol = 2*8 + 0.5*2 = 17, steps = 2*3 + 1 = 7; totals 2*4 + 3*17 = 59, 2*2 + 3*7 = 25.
// With sigma = (1,2,0) the target is 1 2 1 0 0 2: x0,x1,x3,x4 move (volume 4); domain 0
// sends x0,x1 and receives x3,x4: steps 2.
Test(stencil_model, hand_three_components)
{
    int part[6] = {0, 1, 0, 2, 2, 1}, ini[6] = {0, 0, 1, 1, 2, 2};
    int64_t nij[9], want[9] = {0, 2, 1, 2, 0, 1, 1, 1, 0};
    cr_assert_eq(nt_stencil_halo(6, 3, part, nij, NULL), NT_OK);
    for (int k = 0; k < 9; k++)
        cr_expect_eq(nij[k], want[k], "N[%d][%d] = %lld, want %lld", k / 3, k % 3,
                     (long long)nij[k], (long long)want[k]);
    nt_stencil_params_t pa = {.iters = 3, .tau_comm = 2.0, .tau_calc = 0.5};
    nt_stencil_cost_t c;
    cr_assert_eq(nt_stencil_evaluate(6, 3, ini, part, NULL, &pa, &c), NT_OK);
    cr_expect_eq(c.halo_volume, 8);
    cr_expect_eq(c.halo_steps, 3);
    cr_expect_eq(c.max_load, 2);
    cr_expect_eq(c.redist_volume, 4);
    cr_expect_eq(c.redist_steps, 2);
    cr_expect(close_to(c.iter_volume, 17.0));
    cr_expect(close_to(c.iter_steps, 7.0));
    cr_expect(close_to(c.total_volume, 59.0));
    cr_expect(close_to(c.total_steps, 25.0));
    cr_expect(close_to(nt_stencil_total(&c, NT_STENCIL_MODEL_VOLUME), 59.0));
    cr_expect(close_to(nt_stencil_total(&c, NT_STENCIL_MODEL_STEPS), 25.0));
    int sigma[3] = {1, 2, 0};
    cr_assert_eq(nt_stencil_evaluate(6, 3, ini, part, sigma, &pa, &c), NT_OK);
    cr_expect_eq(c.redist_volume, 4);
    cr_expect_eq(c.redist_steps, 2);
    cr_expect_eq(c.halo_volume, 8); // the labelling does not change the halo
}

// Degenerate rings. n = 2: both neighbours of an item are the same item, sent once.
// A lone item of component 1 between items of component 0 is sent once (N10 = 1), while its two
// neighbours each send one item to it (N01 = 2): s = (2,1), r = (1,2), steps 2.
// n = p = 1: no halo, no redistribution, T = K * tau_calc.
Test(stencil_model, hand_degenerate)
{
    int two[2] = {0, 1};
    int64_t nij[4];
    cr_assert_eq(nt_stencil_halo(2, 2, two, nij, NULL), NT_OK);
    cr_expect_eq(nij[1], 1);
    cr_expect_eq(nij[2], 1);

    int lone[5] = {0, 0, 1, 0, 0};
    nt_stencil_params_t pa = {.iters = 2, .tau_comm = 1.0, .tau_calc = 1.0};
    nt_stencil_cost_t c;
    cr_assert_eq(nt_stencil_evaluate(5, 2, lone, lone, NULL, &pa, &c), NT_OK);
    cr_expect_eq(c.halo_volume, 3);
    cr_expect_eq(c.halo_steps, 2);
    cr_expect_eq(c.max_load, 4);
    cr_expect_eq(c.redist_volume, 0);
    cr_expect(close_to(c.total_volume, 2.0 * (3.0 + 4.0)));

    int one[1] = {0};
    cr_assert_eq(nt_stencil_evaluate(1, 1, one, one, NULL, &pa, &c), NT_OK);
    cr_expect_eq(c.halo_volume, 0);
    cr_expect_eq(c.halo_steps, 0);
    cr_expect(close_to(c.total_steps, 2.0));
}

// The canonical block partition with b >= 2 items per block and p >= 3: each block sends its
// first item left and its last item right, so halo volume 2p and 2 steps (Herrmann §5.2).
Test(stencil_model, block_partition_halo)
{
    for (int p = 3; p <= 8; p++)
        for (int64_t b = 2; b <= 5; b++) {
            int64_t n = p * b;
            int *part = malloc((size_t)n * sizeof *part);
            for (int64_t x = 0; x < n; x++)
                part[x] = (int)(x * p / n);
            nt_stencil_params_t pa = {.iters = 1, .tau_comm = 1.0, .tau_calc = 1.0};
            nt_stencil_cost_t c;
            cr_assert_eq(nt_stencil_evaluate(n, p, part, part, NULL, &pa, &c), NT_OK);
            cr_expect_eq(c.halo_volume, 2 * p);
            cr_expect_eq(c.halo_steps, 2);
            cr_expect_eq(c.max_load, b);
            free(part);
        }
}

// ---------------------------------------------------------------------------------------------
// The model against the naive recount on random instances.

Test(stencil_model, model_matches_naive_recount)
{
    nt_rng r = {.state = 0x5eed0001};
    int iters = 3000 / SWEEP_SCALE;
    for (int it = 0; it < iters; it++) {
        int p = 1 + (int)nt_rng_below(&r, 8);
        int64_t n = p + (int64_t)nt_rng_below(&r, 40);
        int *ini = malloc((size_t)n * sizeof *ini), *part = malloc((size_t)n * sizeof *part);
        int sigma[8];
        gen_uniform(&r, n, p, ini);
        // Mix structured and random targets so runs of every length occur.
        switch (it % 3) {
        case 0: gen_uniform(&r, n, p, part); break;
        case 1:
            for (int64_t x = 0; x < n; x++)
                part[x] = (int)(x * p / n);
            break;
        default:
            for (int64_t x = 0; x < n; x++)
                part[x] = x > 0 && nt_rng_below(&r, 4) ? part[x - 1]
                                                       : (int)nt_rng_below(&r, (uint64_t)p);
        }
        gen_perm(&r, p, sigma);
        nt_stencil_params_t pa = {.iters = (int64_t)nt_rng_below(&r, 10),
                                  .tau_comm = 0.5 + nt_rng_unit(&r) * 10,
                                  .tau_calc = nt_rng_unit(&r) * 3};
        const int *sg = it % 4 == 0 ? NULL : sigma;
        naive_cost nc;
        naive_eval(n, p, ini, part, sg, &nc);
        nt_stencil_cost_t c;
        int64_t nij[64];
        cr_assert_eq(nt_stencil_evaluate(n, p, ini, part, sg, &pa, &c), NT_OK);
        cr_assert_eq(nt_stencil_halo(n, p, part, nij, NULL), NT_OK);
        for (int k = 0; k < p * p; k++)
            cr_assert_eq(nij[k], nc.nij[k], "instance %d: N[%d][%d]", it, k / p, k % p);
        cr_assert_eq(c.halo_volume, nc.halo_volume, "instance %d", it);
        cr_assert_eq(c.halo_steps, nc.halo_steps, "instance %d", it);
        cr_assert_eq(c.max_load, nc.max_load, "instance %d", it);
        cr_assert_eq(c.redist_volume, nc.redist_volume, "instance %d", it);
        cr_assert_eq(c.redist_steps, nc.redist_steps, "instance %d", it);
        cr_assert(close_to(c.total_volume, naive_total(&nc, &pa, false)), "instance %d", it);
        cr_assert(close_to(c.total_steps, naive_total(&nc, &pa, true)), "instance %d", it);
        free(ini);
        free(part);
    }
}

// ---------------------------------------------------------------------------------------------
// Invalid input.

Test(stencil_model, invalid_input)
{
    int ini[4] = {0, 1, 0, 1}, part[4] = {0, 0, 1, 1}, bad[4] = {0, 2, 0, 1};
    int neg[4] = {0, -1, 0, 1}, dup[2] = {1, 1}, part_out[4], sigma_out[2];
    int64_t nij[4];
    nt_stencil_params_t pa = {.iters = 1, .tau_comm = 1, .tau_calc = 1};
    nt_stencil_cost_t c, untouched;
    memset(&c, 0x5a, sizeof c);
    untouched = c;

    cr_expect_eq(nt_stencil_evaluate(1, 2, ini, part, NULL, &pa, &c), NT_EINVAL); // n < p
    cr_expect_eq(nt_stencil_evaluate(4, 0, ini, part, NULL, &pa, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, NULL, part, NULL, &pa, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, NULL, NULL, &pa, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, NULL, NULL, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, NULL, &pa, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, bad, part, NULL, &pa, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, neg, NULL, &pa, &c), NT_EINVAL);
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, dup, &pa, &c), NT_EINVAL);
    cr_expect(strstr(nt_last_error(), "sigma") != NULL, "message: %s", nt_last_error());
    nt_stencil_params_t negk = pa, negt = pa, nant = pa;
    negk.iters = -1;
    negt.tau_comm = -0.5;
    nant.tau_calc = NAN;
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, NULL, &negk, &c), NT_EINVAL);
    cr_expect(strstr(nt_last_error(), "iters") != NULL, "message: %s", nt_last_error());
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, NULL, &negt, &c), NT_EINVAL);
    cr_expect(strstr(nt_last_error(), "tau_comm") != NULL, "message: %s", nt_last_error());
    cr_expect_eq(nt_stencil_evaluate(4, 2, ini, part, NULL, &nant, &c), NT_EINVAL);
    cr_expect(memcmp(&c, &untouched, sizeof c) == 0, "cost written on failure");

    cr_expect_eq(nt_stencil_halo(4, 2, bad, nij, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_halo(4, 2, part, NULL, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_halo(1, 2, part, nij, NULL), NT_EINVAL);

    cr_expect_eq(nt_stencil_part_redistrib(1, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, bad, &pa, NT_STENCIL_MODEL_VOLUME, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, NULL, &pa, NT_STENCIL_MODEL_VOLUME, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, ini, &negk, NT_STENCIL_MODEL_VOLUME, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, ini, &negt, NT_STENCIL_MODEL_STEPS, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, ini, &pa, (nt_stencil_model_t)7, part_out,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, NULL,
                                           sigma_out, NULL), NT_EINVAL);
    cr_expect_eq(nt_stencil_part_redistrib(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, part_out,
                                           NULL, NULL), NT_EINVAL);
    nt_stencil_strategy_t list[2] = {NT_STENCIL_OWNER, NT_STENCIL_NSTRATEGIES};
    nt_stencil_cost_t costs[2];
    cr_expect_eq(nt_stencil_compare(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, list, 2, costs),
                 NT_EINVAL);
    cr_expect_eq(nt_stencil_compare(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, list, 0, costs),
                 NT_EINVAL);
    cr_expect_eq(nt_stencil_compare(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, NULL, 1, costs),
                 NT_EINVAL);
    cr_expect_eq(nt_stencil_compare(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, list, 1, NULL),
                 NT_EINVAL);
    cr_expect_eq(nt_stencil_strategy_apply(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           (nt_stencil_strategy_t)99, part_out, sigma_out, &c),
                 NT_EINVAL);
    cr_expect_eq(nt_stencil_strategy_apply(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_NSTRATEGIES, part_out, sigma_out, &c),
                 NT_EINVAL);
    cr_expect_str_eq(nt_stencil_strategy_name(NT_STENCIL_NSTRATEGIES), "unknown");
}

// ---------------------------------------------------------------------------------------------
// Oracles for the heuristic.

// Least T_total of a partition over all p! labellings, from the count matrix with Herrmann's
// formulas (volume = sum_c |c| - n[sigma c][c]; domain sigma c sends R - n and receives
// |c| - n), and the halo from the naive recount.
static double brute_best_labelling(int64_t n, int p, const int *ini, const int *part,
                                   const nt_stencil_params_t *pa, bool steps)
{
    naive_cost nc;
    naive_eval(n, p, ini, part, NULL, &nc);
    int64_t cnt[8][8] = {{0}}, rows[8] = {0}, cols[8] = {0};
    for (int64_t x = 0; x < n; x++) {
        cnt[ini[x]][part[x]]++;
        rows[ini[x]]++;
        cols[part[x]]++;
    }
    double iter = pa->tau_comm * (double)(steps ? nc.halo_steps : nc.halo_volume) +
                  pa->tau_calc * (double)nc.max_load;
    int sg[8];
    for (int c = 0; c < p; c++)
        sg[c] = c;
    double best = INFINITY;
    do {
        int64_t vol = 0, stp = 0;
        for (int c = 0; c < p; c++) {
            int64_t keep = cnt[sg[c]][c];
            vol += cols[c] - keep;
            if (rows[sg[c]] - keep > stp)
                stp = rows[sg[c]] - keep;
            if (cols[c] - keep > stp)
                stp = cols[c] - keep;
        }
        double t = pa->tau_comm * (double)(steps ? stp : vol) + (double)pa->iters * iter;
        if (t < best)
            best = t;
    } while (next_perm(sg, p));
    return best;
}

static int *block_partition(int64_t n, int p)
{
    int *b = malloc((size_t)n * sizeof *b);
    for (int64_t x = 0; x < n; x++)
        b[x] = (int)(x * p / n);
    return b;
}

// An instance of the random sweeps: balanced (n not always a multiple of p), skewed alpha, or
// independent uniform (unbalanced).
static int *random_instance(nt_rng *r, int kind, int p, int64_t dd, int64_t *n_out)
{
    int64_t n = p * dd;
    int *ini;
    if (kind == 0) {
        n += (int64_t)nt_rng_below(r, (uint64_t)p);
        ini = dist_balanced(n, p, nt_rng_next(r));
    } else if (kind == 1) {
        ini = dist_skewed(p, dd, nt_rng_unit(r), nt_rng_next(r));
    } else {
        ini = malloc((size_t)n * sizeof *ini);
        gen_uniform(r, n, p, ini);
    }
    *n_out = n;
    return ini;
}

static void check_perm(const int *sigma, int p)
{
    int seen[64] = {0};
    for (int c = 0; c < p; c++) {
        cr_assert(sigma[c] >= 0 && sigma[c] < p, "sigma[%d] = %d", c, sigma[c]);
        cr_assert_eq(seen[sigma[c]]++, 0, "sigma repeats domain %d", sigma[c]);
    }
}

// ---------------------------------------------------------------------------------------------
// The heuristic's guarantee on thousands of random instances (p <= 7 so that the best
// labelling of the block partition is found by brute force, independently of match.h).

Test(stencil_model, heuristic_guarantee_random)
{
    nt_rng r = {.state = 0x5eed0002};
    int instances = 3000 / SWEEP_SCALE;
    int wins[NT_STENCIL_NSTRATEGIES] = {0};
    for (int it = 0; it < instances; it++) {
        int p = 2 + (int)nt_rng_below(&r, 6);
        int64_t dd = 1 + (int64_t)nt_rng_below(&r, 10), n;
        int *ini = random_instance(&r, it % 3, p, dd, &n);
        nt_stencil_params_t pa = {.iters = (int64_t)nt_rng_below(&r, 10),
                                  .tau_comm = (it / 3) % 2 ? 10.0 : 1.0, .tau_calc = 1.0};
        bool steps = (it / 6) % 2;
        nt_stencil_model_t model = steps ? NT_STENCIL_MODEL_STEPS : NT_STENCIL_MODEL_VOLUME;
        int *part = malloc((size_t)n * sizeof *part), sigma[8];
        nt_stencil_choice_t ch;
        cr_assert_eq(nt_stencil_part_redistrib(n, p, ini, &pa, model, part, sigma, &ch), NT_OK,
                     "%s", nt_last_error());
        check_perm(sigma, p);
        for (int64_t x = 0; x < n; x++)
            cr_assert(part[x] >= 0 && part[x] < p);

        // The reported cost is the cost of what was returned (naive recount).
        naive_cost nc;
        naive_eval(n, p, ini, part, sigma, &nc);
        double got = naive_total(&nc, &pa, steps);
        cr_assert(close_to(got, nt_stencil_total(&ch.best.cost, model)), "instance %d", it);

        // It is the least of the candidates it reports; the local search, last, starts from
        // the best of the others and only improves.
        cr_assert(ch.ncandidates >= 5 && ch.ncandidates <= NT_STENCIL_MAX_CANDIDATES);
        double others = INFINITY;
        for (size_t c = 0; c < ch.ncandidates; c++) {
            double t = nt_stencil_total(&ch.candidates[c].cost, model);
            cr_assert(got <= t + 1e-9);
            if (c + 1 < ch.ncandidates && t < others)
                others = t;
        }
        cr_assert_eq(ch.candidates[ch.ncandidates - 1].strategy, NT_STENCIL_LOCAL);
        cr_assert(nt_stencil_total(&ch.candidates[ch.ncandidates - 1].cost, model) <=
                  others + 1e-9, "instance %d: local search worse than its start", it);

        // Never worse than owner-computes and the best-labelled block partition.
        naive_eval(n, p, ini, ini, NULL, &nc);
        double owner = naive_total(&nc, &pa, steps);
        int *blk = block_partition(n, p);
        double block = brute_best_labelling(n, p, ini, blk, &pa, steps);
        cr_assert(got <= owner + 1e-9, "instance %d: %g > owner %g", it, got, owner);
        cr_assert(got <= block + 1e-9, "instance %d: %g > best block %g", it, got, block);

        // The chosen partition is labelled optimally for the model.
        double best_lab = brute_best_labelling(n, p, ini, part, &pa, steps);
        cr_assert(close_to(got, best_lab), "instance %d (%s): %g, best labelling %g", it,
                  nt_stencil_strategy_name(ch.best.strategy), got, best_lab);
        wins[ch.best.strategy]++;
        free(blk);
        free(part);
        free(ini);
    }
    fprintf(stderr, "stencil_model: %d random instances (p 2..7), winners:", instances);
    for (int s = 0; s < NT_STENCIL_PART_REDISTRIB; s++)
        fprintf(stderr, " %s %d", nt_stencil_strategy_name(s), wins[s]);
    fprintf(stderr, "\n");
}

// Herrmann's experiment sizes (p = 16): every K in 0..9, both tau ratios, both models, on
// random balanced and skewed instances; owner and block candidates recomputed independently.
Test(stencil_model, heuristic_guarantee_p16_sweep)
{
    nt_rng r = {.state = 0x5eed0003};
    int instances = 24 / (SWEEP_SCALE > 1 ? 4 : 1);
    const int p = 16;
    for (int it = 0; it < instances; it++) {
        int64_t dd = 1 + (int64_t)nt_rng_below(&r, 16), n;
        int *ini = random_instance(&r, it % 3, p, dd, &n);
        int *blk = block_partition(n, p);
        int *part = malloc((size_t)n * sizeof *part), sigma[16];
        for (int k = 0; k < 10; k++)
            for (int ratio = 0; ratio < 2; ratio++)
                for (int m = 0; m < 2; m++) {
                    nt_stencil_params_t pa = {.iters = k, .tau_comm = ratio ? 10.0 : 1.0,
                                              .tau_calc = 1.0};
                    nt_stencil_model_t model = m ? NT_STENCIL_MODEL_STEPS
                                                 : NT_STENCIL_MODEL_VOLUME;
                    nt_stencil_choice_t ch;
                    cr_assert_eq(nt_stencil_part_redistrib(n, p, ini, &pa, model, part, sigma,
                                                           &ch), NT_OK);
                    check_perm(sigma, p);
                    naive_cost nc;
                    naive_eval(n, p, ini, part, sigma, &nc);
                    double got = naive_total(&nc, &pa, m);
                    naive_eval(n, p, ini, ini, NULL, &nc);
                    cr_assert(got <= naive_total(&nc, &pa, m) + 1e-9);
                    // Block candidates: every labelling the heuristic reports for the block
                    // partition, re-evaluated naively, is no better than its choice.
                    for (size_t c = 1; c < 4; c++) {
                        cr_assert(ch.candidates[c].strategy == (nt_stencil_strategy_t)c,
                                  "candidate %zu is %s", c,
                                  nt_stencil_strategy_name(ch.candidates[c].strategy));
                        cr_assert(got <= nt_stencil_total(&ch.candidates[c].cost, model) + 1e-9);
                    }
                    if (k == 0)
                        cr_assert(close_to(got, 0.0), "K = 0: staying put costs nothing");
                }
        free(blk);
        free(part);
        free(ini);
    }
}

// Tiny instances (n <= 8, p <= 3): exhaustive search over every target distribution, i.e.
// every partition with every labelling (p^n of them). The heuristic can never beat the optimum
// (asserted); its gap is reported, against the optimum and against the best balanced target.
Test(stencil_model, heuristic_vs_exhaustive_tiny)
{
    nt_rng r = {.state = 0x5eed0004};
    int instances = 400 / SWEEP_SCALE, optimal = 0;
    double gap_sum = 0, gap_max = 0, bal_better = 0, bal_gap_sum = 0, bal_gap_max = 0;
    for (int it = 0; it < instances; it++) {
        int p = 1 + (int)nt_rng_below(&r, 3);
        int64_t n = p + (int64_t)nt_rng_below(&r, (uint64_t)(9 - p));
        int ini[8], part[8], sigma[3], tar[8];
        if (it % 2)
            gen_uniform(&r, n, p, ini);
        else {
            int *b = dist_balanced(n, p, nt_rng_next(&r));
            memcpy(ini, b, (size_t)n * sizeof *ini);
            free(b);
        }
        nt_stencil_params_t pa = {.iters = (int64_t)nt_rng_below(&r, 10),
                                  .tau_comm = (it / 2) % 2 ? 10.0 : 1.0, .tau_calc = 1.0};
        bool steps = (it / 4) % 2;
        nt_stencil_model_t model = steps ? NT_STENCIL_MODEL_STEPS : NT_STENCIL_MODEL_VOLUME;
        cr_assert_eq(nt_stencil_part_redistrib(n, p, ini, &pa, model, part, sigma, NULL), NT_OK);
        naive_cost nc;
        naive_eval(n, p, ini, part, sigma, &nc);
        double got = naive_total(&nc, &pa, steps);

        double opt = INFINITY, opt_bal = INFINITY;
        int64_t total = 1;
        for (int64_t x = 0; x < n; x++)
            total *= p;
        for (int64_t code = 0; code < total; code++) {
            int64_t c = code, load[3] = {0};
            for (int64_t x = 0; x < n; x++) {
                tar[x] = (int)(c % p);
                c /= p;
                load[tar[x]]++;
            }
            naive_eval(n, p, ini, tar, NULL, &nc);
            double t = naive_total(&nc, &pa, steps);
            bool balanced = true;
            for (int d = 0; d < p; d++)
                balanced &= load[d] == n / p || load[d] == (n + p - 1) / p;
            if (t < opt)
                opt = t;
            if (balanced && t < opt_bal)
                opt_bal = t;
        }
        cr_assert(got >= opt - 1e-9, "instance %d: heuristic %g below the optimum %g", it, got,
                  opt);
        double gap = opt > 0 ? (got - opt) / opt : (got > 0 ? 1.0 : 0.0);
        optimal += got <= opt + 1e-9;
        gap_sum += gap;
        if (gap > gap_max)
            gap_max = gap;
        bal_better += got < opt_bal - 1e-9;
        double bal_gap = opt_bal > 0 ? (got - opt_bal) / opt_bal : 0.0;
        bal_gap_sum += bal_gap;
        if (bal_gap > bal_gap_max)
            bal_gap_max = bal_gap;
    }
    fprintf(stderr,
            "stencil_model: exhaustive n<=8 p<=3, %d instances: heuristic optimal on %d, "
            "mean gap %.2f%%, max gap %.2f%%; against the best balanced target: mean %+.2f%%, "
            "max %+.2f%%, strictly better on %.0f\n",
            instances, optimal, 100.0 * gap_sum / instances, 100.0 * gap_max,
            100.0 * bal_gap_sum / instances, 100.0 * bal_gap_max, bal_better);
}

// ---------------------------------------------------------------------------------------------
// Strategies and the comparison helper.

// ini is the block partition turned by 3 items (n = 40, p = 4, blocks of 10): a rotation that
// costs nothing to reach and has the block halo, so T_total = K * (2p tau_comm + 10 tau_calc)
// in the volume model and K * (2 tau_comm + 10 tau_calc) in the steps model; the rotated
// family (offsets 1..9) contains it exactly.
Test(stencil_model, rotated_block_found)
{
    int64_t n = 40;
    int p = 4, ini[40], part[40], sigma[4];
    for (int64_t x = 0; x < n; x++)
        ini[x] = (int)(((x - 3 + n) % n) * p / n);
    // Relabel the domains so the identity labelling of the plain block does not fit.
    for (int64_t x = 0; x < n; x++)
        ini[x] = (ini[x] + 1) % p;
    nt_stencil_params_t pa = {.iters = 5, .tau_comm = 3.0, .tau_calc = 1.0};
    nt_stencil_cost_t c;
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_BLOCK_ROTATED, part, sigma, &c), NT_OK);
    cr_expect_eq(c.redist_volume, 0);
    cr_expect(close_to(c.total_volume, 5.0 * (8 * 3.0 + 10.0)));
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_STEPS,
                                           NT_STENCIL_PART_REDISTRIB, part, sigma, &c), NT_OK);
    cr_expect(close_to(c.total_steps, 5.0 * (2 * 3.0 + 10.0)));
}

// A block distribution of 64 items on 4 domains whose boundaries were moved (domain runs
// [2,17), [17,34), [34,49), [49,66) mod 64: loads 15, 17, 15, 17). With tau_calc = 0.1 the
// imbalance is cheap: the best block rotation (by 1, or by 2) still moves 2 items (T = 2 +
// 3 * (8 + 1.6) = 30.8), while moving each boundary by at most 1 item from rotation 1 moves
// nothing (T = 3 * (8 + 1.7) = 29.1). The plain block partition moves items 0, 1, 16, 32, 33
// and 48.
Test(stencil_model, shifted_boundaries_follow_data)
{
    int64_t n = 64;
    int p = 4, ini[64], part[64], sigma[4];
    int64_t cuts[5] = {2, 17, 34, 49, 66};
    for (int k = 0; k < 4; k++)
        for (int64_t y = cuts[k]; y < cuts[k + 1]; y++)
            ini[y % n] = k;
    nt_stencil_params_t pa = {.iters = 3, .tau_comm = 1.0, .tau_calc = 0.1};
    nt_stencil_cost_t c, blk, rot;
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_SHIFTED, part, sigma, &c), NT_OK);
    cr_expect_eq(c.redist_volume, 0);
    cr_expect_eq(c.halo_volume, 8);
    cr_expect(close_to(c.total_volume, 29.1));
    for (int64_t x = 0; x < n; x++)
        cr_expect_eq(sigma[part[x]], ini[x], "item %lld", (long long)x);
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_BLOCK_ROTATED, NULL, NULL, &rot), NT_OK);
    cr_expect_eq(rot.redist_volume, 2);
    cr_expect(close_to(rot.total_volume, 30.8));
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_BLOCK_VOLUME, NULL, NULL, &blk), NT_OK);
    cr_expect_eq(blk.redist_volume, 6);
}

// Runs merged: ini is the block partition of 4 domains with every 5th item of a block moved to
// the next domain (lone items). Merging runs of length 1 restores blocks of 16 +- 3 items:
// the merged family reaches a partition with the block halo (2 items per boundary).
Test(stencil_model, merged_runs_absorb_lone_items)
{
    int64_t n = 64;
    int p = 4, ini[64], part[64], sigma[4];
    for (int64_t x = 0; x < n; x++)
        ini[x] = (int)(x / 16) + (x % 16 == 7 ? 1 : 0);
    for (int64_t x = 0; x < n; x++)
        ini[x] %= p;
    nt_stencil_params_t pa = {.iters = 4, .tau_comm = 10.0, .tau_calc = 1.0};
    nt_stencil_cost_t c;
    cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_MERGED, part, sigma, &c), NT_OK);
    cr_expect_eq(c.halo_volume, 8);
    cr_expect_eq(c.redist_volume, 4); // the 4 lone items go home
    cr_expect_eq(c.max_load, 16);
}

// Expensive halos: ini = 1 0 0 1 on 2 domains, K = 7, tau_comm = 10, tau_calc = 1 (volume).
// Owner: two runs of 2 items, each sends both ends: halo 4, T = 7 * (4*10 + 2) = 294.
// Block (0 0 1 1), either labelling moves 2 items: T = 2*10 + 7 * (4*10 + 2) = 314.
// One component holding everything, placed on either domain, moves 2 items and has no halo:
// T = 2*10 + 7 * 4 = 48, the optimum (found by exhaustive search over the 16 targets).
Test(stencil_model, fewer_components_when_halo_dominates)
{
    int ini[4] = {1, 0, 0, 1}, part[4], sigma[2];
    nt_stencil_params_t pa = {.iters = 7, .tau_comm = 10.0, .tau_calc = 1.0};
    nt_stencil_cost_t c;
    cr_assert_eq(nt_stencil_strategy_apply(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_OWNER, part, sigma, &c), NT_OK);
    cr_expect(close_to(c.total_volume, 294.0));
    cr_assert_eq(nt_stencil_strategy_apply(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_BLOCK_VOLUME, part, sigma, &c), NT_OK);
    cr_expect(close_to(c.total_volume, 314.0));
    cr_assert_eq(nt_stencil_strategy_apply(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_BLOCK_FEWER, part, sigma, &c), NT_OK);
    cr_expect(close_to(c.total_volume, 48.0));
    nt_stencil_choice_t ch;
    cr_assert_eq(nt_stencil_part_redistrib(4, 2, ini, &pa, NT_STENCIL_MODEL_VOLUME, part, sigma,
                                           &ch), NT_OK);
    cr_expect(close_to(ch.best.cost.total_volume, 48.0));
    cr_expect_eq(ch.best.strategy, NT_STENCIL_BLOCK_FEWER);
    cr_expect_eq(ch.best.param, 1);
    for (int x = 1; x < 4; x++)
        cr_expect_eq(part[x], part[0]);
}

// Degenerate instances: one domain; one item per domain; a single run (nothing to merge, no
// boundary to shift): every strategy still answers, with a valid labelling.
Test(stencil_model, strategies_on_degenerate_instances)
{
    int one[5] = {0, 0, 0, 0, 0}, each[4] = {2, 0, 3, 1}, part[6], sigma[4];
    nt_stencil_params_t pa = {.iters = 2, .tau_comm = 1.0, .tau_calc = 1.0};
    nt_stencil_cost_t c;
    for (int s = 0; s < NT_STENCIL_NSTRATEGIES; s++) {
        cr_assert_eq(nt_stencil_strategy_apply(5, 1, one, &pa, NT_STENCIL_MODEL_VOLUME,
                                               (nt_stencil_strategy_t)s, part, sigma, &c),
                     NT_OK, "%s: %s", nt_stencil_strategy_name(s), nt_last_error());
        cr_expect(close_to(c.total_volume, 2.0 * 5.0));
        cr_assert_eq(nt_stencil_strategy_apply(4, 4, each, &pa, NT_STENCIL_MODEL_STEPS,
                                               (nt_stencil_strategy_t)s, part, sigma, &c),
                     NT_OK, "%s: %s", nt_stencil_strategy_name(s), nt_last_error());
        check_perm(sigma, 4);
        naive_cost nc;
        naive_eval(4, 4, each, part, sigma, &nc);
        cr_expect(close_to(c.total_steps, naive_total(&nc, &pa, true)));
    }
    int single[6] = {1, 1, 1, 1, 1, 1};
    cr_assert_eq(nt_stencil_strategy_apply(6, 2, single, &pa, NT_STENCIL_MODEL_VOLUME,
                                           NT_STENCIL_MERGED, part, sigma, &c), NT_OK);
    cr_expect_eq(c.redist_volume, 0);
}

// nt_stencil_compare agrees with nt_stencil_strategy_apply strategy by strategy, and the
// partition each strategy returns has the cost it reports.
Test(stencil_model, compare_matches_apply)
{
    nt_rng r = {.state = 0x5eed0005};
    nt_stencil_strategy_t all[NT_STENCIL_NSTRATEGIES];
    for (int s = 0; s < NT_STENCIL_NSTRATEGIES; s++)
        all[s] = (nt_stencil_strategy_t)s;
    for (int it = 0; it < 40; it++) {
        int p = 2 + (int)nt_rng_below(&r, 7);
        int64_t n;
        int *ini = random_instance(&r, it % 3, p, 1 + (int64_t)nt_rng_below(&r, 12), &n);
        nt_stencil_params_t pa = {.iters = (int64_t)nt_rng_below(&r, 10),
                                  .tau_comm = it % 2 ? 10.0 : 1.0, .tau_calc = 1.0};
        bool steps = (it / 2) % 2;
        nt_stencil_model_t model = steps ? NT_STENCIL_MODEL_STEPS : NT_STENCIL_MODEL_VOLUME;
        nt_stencil_cost_t costs[NT_STENCIL_NSTRATEGIES];
        cr_assert_eq(nt_stencil_compare(n, p, ini, &pa, model, all, NT_STENCIL_NSTRATEGIES,
                                        costs), NT_OK, "%s", nt_last_error());
        int *part = malloc((size_t)n * sizeof *part), sigma[8];
        for (int s = 0; s < NT_STENCIL_NSTRATEGIES; s++) {
            nt_stencil_cost_t c;
            cr_assert_eq(nt_stencil_strategy_apply(n, p, ini, &pa, model, all[s], part, sigma,
                                                   &c), NT_OK);
            cr_assert(close_to(nt_stencil_total(&c, model), nt_stencil_total(&costs[s], model)),
                      "%s", nt_stencil_strategy_name(all[s]));
            naive_cost nc;
            naive_eval(n, p, ini, part, sigma, &nc);
            cr_assert(close_to(nt_stencil_total(&c, model), naive_total(&nc, &pa, steps)));
            cr_assert(nt_stencil_total(&costs[NT_STENCIL_PART_REDISTRIB], model) <=
                      nt_stencil_total(&c, model) + 1e-9);
        }
        free(part);
        free(ini);
    }
}

// Herrmann Fig. 5/6 in the model: p = 16, 16 items per domain, 30 random balanced initial
// distributions, K = 0..9, tau_comm/tau_calc = 1 and 10. Asserted: the paper's qualitative
// claims (owner-computes loses for K > 1; the optimal labellings beat the canonical one).
// Reported: mean T_total of each strategy relative to block-canonical.
Test(stencil_model, herrmann_fig56_model)
{
    const int p = 16, trials = SWEEP_SCALE > 1 ? 6 : 30;
    const int64_t n = 16 * 16;
    nt_stencil_strategy_t list[5] = {NT_STENCIL_OWNER, NT_STENCIL_BLOCK_CANONICAL,
                                     NT_STENCIL_BLOCK_VOLUME, NT_STENCIL_BLOCK_STEPS,
                                     NT_STENCIL_PART_REDISTRIB};
    for (int m = 0; m < 2; m++)
        for (int ratio = 0; ratio < 2; ratio++) {
            nt_stencil_model_t model = m ? NT_STENCIL_MODEL_STEPS : NT_STENCIL_MODEL_VOLUME;
            fprintf(stderr, "stencil_model: fig5/6 %s model, tau ratio %d, mean T/T_can "
                    "(owner vol steps heur):", m ? "steps" : "volume", ratio ? 10 : 1);
            for (int k = 0; k < 10; k++) {
                double sum[5] = {0};
                for (int t = 0; t < trials; t++) {
                    int *ini = dist_balanced(n, p, 1000u + (unsigned)t);
                    nt_stencil_params_t pa = {.iters = k, .tau_comm = ratio ? 10.0 : 1.0,
                                              .tau_calc = 1.0};
                    nt_stencil_cost_t c[5];
                    cr_assert_eq(nt_stencil_compare(n, p, ini, &pa, model, list, 5, c), NT_OK);
                    double can = nt_stencil_total(&c[1], model);
                    for (int s = 0; s < 5; s++)
                        sum[s] += nt_stencil_total(&c[s], model) / can;
                    if (k >= 2)
                        cr_assert(nt_stencil_total(&c[4], model) <
                                  nt_stencil_total(&c[0], model), "owner wins at K = %d", k);
                    cr_assert(nt_stencil_total(&c[m ? 3 : 2], model) <=
                              nt_stencil_total(&c[1], model) + 1e-9);
                    free(ini);
                }
                fprintf(stderr, " K%d %.2f/%.2f/%.2f/%.2f", k, sum[0] / trials,
                        sum[2] / trials, sum[3] / trials, sum[4] / trials);
            }
            fprintf(stderr, "\n");
        }
}
