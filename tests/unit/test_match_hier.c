// Hierarchical relabelling (nt_match_hier_solve) against exhaustive search written from the
// definitions: over all rank permutations of the target rank-groups (rank level), over every
// injective placement of a group on its rank's domains (domain level), and over all p_dom!
// labellings for small machines; SkewedSet and ChunkSet maps over 4 ranks counted tile by tile;
// bad input.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/match.h"
#include "perm_util.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

enum { MAXD = 16, MAXR = 6 };

// Test-local generator (xorshift64*), independent of the library's.
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (rng_state * 2685821657736338717ULL) % n;
}

typedef struct hinst {
    int pi, pt, pd, nr;
    int64_t n[MAXD * MAXD]; // pi x pt
    int64_t dist[MAXD * MAXD];
    bool has_dist;
    int rank_of[MAXD];
} hinst;

typedef struct ocost {
    int64_t inter, intra, inter_steps, volume, dist_volume;
} ocost;

// Costs of sigma from the definitions: every class (i, j) of items either stays, moves inside a
// rank or crosses ranks; rank sends and receives counted across ranks only.
static ocost o_eval(const hinst *h, const int *sigma)
{
    ocost c = {0};
    int64_t sent[MAXD] = {0}, recv[MAXD] = {0};
    for (int i = 0; i < h->pi; i++)
        for (int j = 0; j < h->pt; j++) {
            int64_t w = h->n[i * h->pt + j];
            int k = sigma[j];
            if (k == i)
                continue;
            c.volume += w;
            if (h->has_dist)
                c.dist_volume += w * h->dist[i * h->pd + k];
            if (h->rank_of[i] != h->rank_of[k]) {
                c.inter += w;
                sent[h->rank_of[i]] += w;
                recv[h->rank_of[k]] += w;
            } else {
                c.intra += w;
            }
        }
    for (int r = 0; r < h->nr; r++) {
        if (sent[r] > c.inter_steps)
            c.inter_steps = sent[r];
        if (recv[r] > c.inter_steps)
            c.inter_steps = recv[r];
    }
    return c;
}

static nt_match_hier_problem_t problem(const hinst *h)
{
    return (nt_match_hier_problem_t){.p_ini = h->pi, .p_tar = h->pt, .p_dom = h->pd,
                                     .counts = h->n, .dist = h->has_dist ? h->dist : NULL,
                                     .nranks = h->nr, .rank_of = h->rank_of};
}

static int rank_size(const hinst *h, int r)
{
    int s = 0;
    for (int k = 0; k < h->pd; k++)
        s += h->rank_of[k] == r;
    return s;
}

static int group_size(const hinst *h, int g)
{
    int s = 0;
    for (int j = 0; j < h->pt; j++)
        s += h->rank_of[j] == g;
    return s;
}

// Rank-level optimum over all permutations pi of the groups (group g -> rank pi[g]) that fit:
// the inter-rank volume and steps depend only on pi, so any sigma that follows pi measures them.
typedef struct rank_best {
    int64_t vol, steps, lex_steps, lex_vol;
} rank_best;

static void sigma_following(const hinst *h, const int *pi, int *sigma)
{
    int used[MAXD] = {0};
    for (int j = 0; j < h->pt; j++) {
        int r = pi[h->rank_of[j]], k = 0;
        while (h->rank_of[k] != r || used[k])
            k++;
        used[k] = 1;
        sigma[j] = k;
    }
}

static rank_best brute_ranks(const hinst *h)
{
    rank_best b = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    int pi[MAXR];
    for (int r = 0; r < h->nr; r++)
        pi[r] = r;
    do {
        bool fits = true;
        for (int g = 0; g < h->nr; g++)
            fits &= group_size(h, g) <= rank_size(h, pi[g]);
        if (!fits)
            continue;
        int sigma[MAXD];
        sigma_following(h, pi, sigma);
        ocost c = o_eval(h, sigma);
        if (c.inter < b.vol)
            b.vol = c.inter;
        if (c.inter_steps < b.steps)
            b.steps = c.inter_steps;
        if (c.inter_steps < b.lex_steps ||
            (c.inter_steps == b.lex_steps && c.inter < b.lex_vol)) {
            b.lex_steps = c.inter_steps;
            b.lex_vol = c.inter;
        }
    } while (next_perm(pi, h->nr));
    return b;
}

// Domain level inside rank r: what the components placed there cost, moved inside the rank
// (use_dist = false) or distance-weighted from every source (use_dist = true).
static int64_t rank_part_cost(const hinst *h, const int *sigma, int r, bool use_dist)
{
    int64_t s = 0;
    for (int j = 0; j < h->pt; j++) {
        int k = sigma[j];
        if (h->rank_of[k] != r)
            continue;
        for (int i = 0; i < h->pi; i++)
            if (i != k && (use_dist || h->rank_of[i] == r))
                s += h->n[i * h->pt + j] * (use_dist ? h->dist[i * h->pd + k] : 1);
    }
    return s;
}

// Least rank_part_cost over every injective placement of the components that sigma puts on
// rank r onto r's domains (the other components stay where sigma puts them).
static int64_t brute_in_rank(const hinst *h, const int *sigma, int r, bool use_dist)
{
    int doms[MAXD], parts[MAXD], m = 0, t = 0;
    for (int k = 0; k < h->pd; k++)
        if (h->rank_of[k] == r)
            doms[m++] = k;
    for (int j = 0; j < h->pt; j++)
        if (h->rank_of[sigma[j]] == r)
            parts[t++] = j;
    int perm[MAXD], trial[MAXD];
    for (int x = 0; x < m; x++)
        perm[x] = x;
    memcpy(trial, sigma, (size_t)h->pt * sizeof *trial);
    int64_t best = INT64_MAX;
    do {
        for (int x = 0; x < t; x++)
            trial[parts[x]] = doms[perm[x]];
        int64_t c = rank_part_cost(h, trial, r, use_dist);
        if (c < best)
            best = c;
    } while (next_perm(perm, m));
    return best;
}

// Check one solve: sigma injective, follows group_rank, inter costs at the rank optimum of the
// objective, each rank's placement optimal, reported costs equal to the oracle's.
// With split groups (only VOLUME and CANONICAL at rank level), b->vol bounds the inter volume
// from above: whole groups are one of the labellings split groups choose from.
static void check_solve(const hinst *h, nt_match_objective ro, nt_match_objective dob,
                        const rank_best *b, bool split)
{
    nt_match_hier_problem_t pr = problem(h);
    pr.split_groups = split;
    int sigma[MAXD], gr[MAXR];
    nt_match_hier_cost_t c;
    nt_status st = nt_match_hier_solve(&pr, ro, dob, sigma, gr, &c);
    cr_assert_eq(st, NT_OK, "solve %d/%d: %s", ro, dob, nt_last_error());
    bool used[MAXD] = {false}, rused[MAXR] = {false};
    for (int j = 0; j < h->pt; j++) {
        cr_assert(sigma[j] >= 0 && sigma[j] < h->pd && !used[sigma[j]], "sigma not injective");
        used[sigma[j]] = true;
        cr_assert(split || h->rank_of[sigma[j]] == gr[h->rank_of[j]],
                  "component %d not on the rank of its group", j);
    }
    for (int g = 0; g < h->nr; g++) {
        cr_assert(split ? gr[g] == -1 : gr[g] >= 0 && gr[g] < h->nr && !rused[gr[g]],
                  "group_rank[%d] = %d", g, gr[g]);
        rused[split ? 0 : gr[g]] = true;
    }
    ocost o = o_eval(h, sigma);
    cr_assert_eq(c.inter_volume, o.inter);
    cr_assert_eq(c.intra_volume, o.intra);
    cr_assert_eq(c.inter_steps, o.inter_steps);
    cr_assert_eq(c.total.volume, o.volume);
    cr_assert_eq(c.total.dist_volume, o.dist_volume);
    if (split && ro == NT_MATCH_VOLUME)
        cr_assert_leq(o.inter, b->vol, "split inter volume %lld > whole groups' %lld",
                      (long long)o.inter, (long long)b->vol);
    else if (ro == NT_MATCH_VOLUME)
        cr_assert_eq(o.inter, b->vol, "inter volume %lld, optimum %lld", (long long)o.inter,
                     (long long)b->vol);
    else if (ro == NT_MATCH_STEPS)
        cr_assert_eq(o.inter_steps, b->steps);
    else if (ro == NT_MATCH_LEX)
        cr_assert(o.inter_steps == b->lex_steps && o.inter == b->lex_vol,
                  "lex (%lld, %lld), optimum (%lld, %lld)", (long long)o.inter_steps,
                  (long long)o.inter, (long long)b->lex_steps, (long long)b->lex_vol);
    else
        for (int j = 0; j < h->pt; j++)
            cr_assert_eq(h->rank_of[sigma[j]], h->rank_of[j], "canonical rank level moved "
                         "component %d to another rank", j);
    if (dob == NT_MATCH_CANONICAL)
        return;
    bool use_dist = dob == NT_MATCH_DISTANCE;
    for (int r = 0; r < h->nr; r++)
        cr_assert_eq(rank_part_cost(h, sigma, r, use_dist), brute_in_rank(h, sigma, r, use_dist),
                     "rank %d: domain level not optimal (objective %d)", r, dob);
}

// Random instance: ranks of the given sizes (consecutive, or shuffled domains), a count matrix
// with zeros, some skew, sometimes heavy weights; distances 0 on the diagonal, small inside a
// rank, large across.
static void random_hinst(hinst *h, int nr, const int *sizes, bool shuffle)
{
    memset(h, 0, sizeof *h);
    h->nr = nr;
    for (int r = 0; r < nr; r++)
        for (int x = 0; x < sizes[r]; x++)
            h->rank_of[h->pd++] = r;
    if (shuffle)
        for (int k = h->pd - 1; k > 0; k--) {
            int z = (int)rnd((uint64_t)k + 1), t = h->rank_of[k];
            h->rank_of[k] = h->rank_of[z];
            h->rank_of[z] = t;
        }
    h->pi = rnd(3) ? h->pd : 1 + (int)rnd((uint64_t)h->pd);
    h->pt = rnd(3) ? h->pd : 1 + (int)rnd((uint64_t)h->pd);
    int64_t big = rnd(4) ? 6 : 1000000000;
    for (int x = 0; x < h->pi * h->pt; x++)
        h->n[x] = rnd(3) ? (int64_t)rnd((uint64_t)big) : 0;
    h->has_dist = true;
    for (int a = 0; a < h->pd; a++)
        for (int b = 0; b < h->pd; b++)
            h->dist[a * h->pd + b] = a == b ? 0
                                     : h->rank_of[a] == h->rank_of[b] ? 10 + (int64_t)rnd(11)
                                                                      : 100 + (int64_t)rnd(50);
}

static const nt_match_objective rank_objs[] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME,
                                               NT_MATCH_STEPS, NT_MATCH_LEX};
static const nt_match_objective dom_objs[] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME,
                                              NT_MATCH_DISTANCE};

static void check_all_objectives(const hinst *h)
{
    rank_best b = brute_ranks(h);
    for (int a = 0; a < 4; a++)
        for (int d = 0; d < 3; d++) {
            check_solve(h, rank_objs[a], dom_objs[d], &b, false);
            if (a < 2)
                check_solve(h, rank_objs[a], dom_objs[d], &b, true);
        }
}

Test(match_hier, four_ranks_vs_24_permutations)
{
    for (int t = 0; t < 200 / SCALE; t++) {
        int sizes[4];
        bool equal = t % 2 == 0;
        for (int r = 0; r < 4; r++)
            sizes[r] = equal ? 1 + t / 2 % 4 : 1 + (int)rnd(4);
        hinst h;
        random_hinst(&h, 4, sizes, t % 3 == 0);
        check_all_objectives(&h);
    }
}

Test(match_hier, other_rank_counts)
{
    for (int t = 0; t < 120 / SCALE; t++) {
        int nr = 1 + (int)rnd(MAXR), sizes[MAXR], pd = 0;
        for (int r = 0; r < nr; r++) {
            sizes[r] = 1 + (int)rnd(3);
            if (pd + sizes[r] > MAXD)
                sizes[r] = 1;
            pd += sizes[r];
        }
        hinst h;
        random_hinst(&h, nr, sizes, t % 2 == 0);
        check_all_objectives(&h);
    }
}

// Small machines: every one of the p_dom! labellings. Among those that keep each target
// rank-group on one rank of its own (all of them with split groups), the solve's inter volume
// is the least, and among those that put every component on the rank the solve chose, its
// intra volume (or distance-weighted volume) is the least too.
Test(match_hier, all_full_permutations_small)
{
    static const int shapes[][4] = {{2, 3, 0, 0}, {3, 2, 0, 0}, {2, 2, 2, 0}, {4, 1, 2, 0},
                                    {3, 3, 1, 0}, {2, 2, 1, 2}, {1, 1, 1, 1}};
    for (int t = 0; t < 70 / SCALE; t++) {
        const int *sh = shapes[t % 7];
        int nr = 0, sizes[4];
        while (nr < 4 && sh[nr])
            sizes[nr] = sh[nr], nr++;
        hinst h;
        random_hinst(&h, nr, sizes, t % 2 == 1);
        nt_match_hier_problem_t pr = problem(&h);
        for (int x = 0; x < 6; x++) {
            int dob = x % 3, sigma[MAXD], gr[MAXR];
            pr.split_groups = x >= 3;
            nt_match_hier_cost_t c;
            cr_assert_eq(nt_match_hier_solve(&pr, NT_MATCH_VOLUME, dom_objs[dob], sigma, gr, &c),
                         NT_OK, "%s", nt_last_error());
            int perm[MAXD];
            for (int k = 0; k < h.pd; k++)
                perm[k] = k;
            int64_t best_inter = INT64_MAX, best_dom = INT64_MAX;
            do {
                // Group g's components all on one rank, distinct groups on distinct ranks.
                int at[MAXR], owner[MAXR];
                bool ok = true, same = true;
                for (int r = 0; r < nr; r++)
                    at[r] = owner[r] = -1;
                for (int j = 0; j < h.pt; j++) {
                    int g = h.rank_of[j], r = h.rank_of[perm[j]];
                    ok &= (at[g] < 0 || at[g] == r) && (owner[r] < 0 || owner[r] == g);
                    at[g] = r;
                    owner[r] = g;
                    same &= r == h.rank_of[sigma[j]];
                }
                if (!ok && !pr.split_groups)
                    continue;
                ocost o = o_eval(&h, perm);
                if (o.inter < best_inter)
                    best_inter = o.inter;
                int64_t dv = dom_objs[dob] == NT_MATCH_DISTANCE ? o.dist_volume : o.intra;
                if (same && dv < best_dom)
                    best_dom = dv;
            } while (next_perm(perm, h.pd));
            cr_assert_eq(c.inter_volume, best_inter, "inter %lld, optimum over all %d! "
                         "labellings %lld (split %d)", (long long)c.inter_volume, h.pd,
                         (long long)best_inter, pr.split_groups);
            if (dom_objs[dob] == NT_MATCH_VOLUME)
                cr_assert_eq(c.intra_volume, best_dom);
            else if (dom_objs[dob] == NT_MATCH_DISTANCE)
                cr_assert_eq(c.total.dist_volume, best_dom);
        }
        pr.split_groups = 0;
        // Canonical at both levels is the identity.
        int sigma[MAXD];
        cr_assert_eq(nt_match_hier_solve(&pr, NT_MATCH_CANONICAL, NT_MATCH_CANONICAL, sigma,
                                         NULL, NULL), NT_OK);
        for (int j = 0; j < h.pt; j++)
            cr_assert_eq(sigma[j], j);
    }
}

// ---------------------------------------------------------------------------------------------
// SkewedSet and ChunkSet over 4 ranks of D domains (domain g on rank g / D), target bc2d:PxQ
// over the same 4D domains. The oracle counts tile by tile (sizes in bytes of the tiles of an
// M x M double matrix cut in 64 x 64 tiles, the last row and column partial).

typedef struct maps {
    nt_tilemap_t *src, *dst;
    int64_t *bytes; // per tile
    int pd, per;
} maps;

// Tile-by-tile inter-rank bytes and rank-level steps of sigma.
static void tile_inter(const maps *m, const int *sigma, int64_t *inter, int64_t *steps)
{
    int64_t sent[4] = {0}, recv[4] = {0}, v = 0, s = 0;
    for (int64_t t = 0; t < m->src->mt * m->src->nt; t++) {
        int a = m->src->owner[t] / m->per, b = sigma[m->dst->owner[t]] / m->per;
        if (a != b) {
            v += m->bytes[t];
            sent[a] += m->bytes[t];
            recv[b] += m->bytes[t];
        }
    }
    for (int r = 0; r < 4; r++)
        s = sent[r] > s ? sent[r] : s, s = recv[r] > s ? recv[r] : s;
    *inter = v;
    *steps = s;
}

static void check_maps(const maps *m, const char *what)
{
    int pd = m->pd, rank_of[MAXD];
    cr_assert_eq(nt_match_hier_ranks(pd, 4, rank_of), NT_OK);
    int64_t *counts = malloc((size_t)pd * pd * sizeof *counts);
    cr_assert_eq(nt_counts_tilemaps(m->src, m->dst, m->bytes, NULL, counts), NT_OK);
    nt_match_hier_problem_t pr = {.p_ini = pd, .p_tar = pd, .p_dom = pd, .counts = counts,
                                  .nranks = 4, .rank_of = rank_of};
    // Brute force over the 24 rank permutations, tile by tile.
    int pi[4] = {0, 1, 2, 3}, sigma[MAXD], id[MAXD];
    int64_t best_vol = INT64_MAX, lex_s = INT64_MAX, lex_v = INT64_MAX, can_v, can_s;
    do {
        for (int j = 0; j < pd; j++)
            sigma[j] = pi[j / m->per] * m->per + j % m->per;
        int64_t v, s;
        tile_inter(m, sigma, &v, &s);
        best_vol = v < best_vol ? v : best_vol;
        if (s < lex_s || (s == lex_s && v < lex_v))
            lex_s = s, lex_v = v;
    } while (next_perm(pi, 4));
    for (int j = 0; j < pd; j++)
        id[j] = j;
    tile_inter(m, id, &can_v, &can_s);
    int64_t got[4], got_steps[4];
    for (int o = 0; o < 4; o++) {
        nt_match_hier_cost_t c;
        cr_assert_eq(nt_match_hier_solve(&pr, rank_objs[o], NT_MATCH_VOLUME, sigma, NULL, &c),
                     NT_OK, "%s", nt_last_error());
        tile_inter(m, sigma, &got[o], &got_steps[o]);
        cr_assert_eq(c.inter_volume, got[o], "%s: reported inter %lld, tiles say %lld", what,
                     (long long)c.inter_volume, (long long)got[o]);
    }
    cr_assert_eq(got[0], can_v);
    cr_assert_eq(got[1], best_vol, "%s: volume inter %lld, brute force %lld", what,
                 (long long)got[1], (long long)best_vol);
    cr_assert(got_steps[3] == lex_s && got[3] == lex_v, "%s: lex (%lld, %lld), brute force "
              "(%lld, %lld)", what, (long long)got_steps[3], (long long)got[3],
              (long long)lex_s, (long long)lex_v);
    // Volume crosses no more than canonical and no more than lex. Lex minimises rank-level
    // steps first, so it never takes more steps than canonical, and crosses no more bytes
    // whenever canonical is among the step-optimal labellings; otherwise its bytes may exceed
    // canonical's (1 of the 144 instances here, docs/guide.md).
    cr_assert_leq(got[1], can_v);
    cr_assert_leq(got[1], got[3]);
    cr_assert_leq(got_steps[3], can_s);
    if (can_s == lex_s)
        cr_assert_leq(got[3], can_v, "%s: lex %lld > canonical %lld with equal steps", what,
                      (long long)got[3], (long long)can_v);
    // Split groups: no more than whole groups, nor than the flat (one-level) volume matching,
    // which is one of the labellings it chooses from.
    pr.split_groups = 1;
    nt_match_hier_cost_t c;
    cr_assert_eq(nt_match_hier_solve(&pr, NT_MATCH_VOLUME, NT_MATCH_VOLUME, sigma, NULL, &c),
                 NT_OK, "%s", nt_last_error());
    int64_t split_v, flat_v, unused;
    tile_inter(m, sigma, &split_v, &unused);
    cr_assert_eq(c.inter_volume, split_v);
    nt_match_problem_t fp = {.p_ini = pd, .p_tar = pd, .p_dom = pd, .counts = counts};
    cr_assert_eq(nt_match_solve(&fp, NT_MATCH_VOLUME, sigma, NULL), NT_OK);
    tile_inter(m, sigma, &flat_v, &unused);
    cr_assert_leq(split_v, got[1], "%s: split %lld > whole groups %lld", what,
                  (long long)split_v, (long long)got[1]);
    cr_assert_leq(split_v, flat_v, "%s: split %lld > flat %lld", what, (long long)split_v,
                  (long long)flat_v);
    if (getenv("NT_HIER_LOG"))
        cr_log_info("%s: inter bytes canonical %lld volume %lld lex %lld steps %lld (brute force "
                    "volume %lld, lex %lld) split %lld flat %lld; rank steps canonical %lld "
                    "lex %lld", what, (long long)can_v, (long long)got[1], (long long)got[3],
                    (long long)got[2], (long long)best_vol, (long long)lex_v,
                    (long long)split_v, (long long)flat_v, (long long)can_s,
                    (long long)got_steps[3]);
    free(counts);
}

static int64_t *tile_bytes(int64_t mt, int64_t nt, int64_t m, int64_t nb)
{
    int64_t *b = malloc((size_t)(mt * nt) * sizeof *b);
    for (int64_t i = 0; i < mt; i++)
        for (int64_t j = 0; j < nt; j++) {
            int64_t r = i == mt - 1 ? m - i * nb : nb, c = j == nt - 1 ? m - j * nb : nb;
            b[i * nt + j] = r * c * 8;
        }
    return b;
}

Test(match_hier, skewed_and_chunk_four_ranks)
{
    static const int grids[][2] = {{2, 2}, {2, 4}, {3, 4}, {4, 4}}; // 1 to 4 domains per rank
    static const int64_t sizes[] = {8 * 64, 16 * 64 - 20, 24 * 64 + 7};
    for (int g = 0; g < 4; g++)
        for (int z = 0; z < 3; z++)
            for (uint64_t seed = 1; seed <= (uint64_t)(4 / SCALE > 0 ? 4 / SCALE : 1); seed++)
                for (int kind = 0; kind < 3; kind++) {
                    int p = grids[g][0], q = grids[g][1];
                    int64_t nb = 64, mt = (sizes[z] + nb - 1) / nb;
                    maps m = {.pd = p * q, .per = p * q / 4};
                    cr_assert_eq(nt_tilemap_bc2d(mt, mt, p, q, 1, 1, &m.dst), NT_OK);
                    nt_skew_opts_t so = {.mode = NT_SKEW_GRID, .derange = kind == 1};
                    nt_status st = kind == 2
                        ? nt_tilemap_chunk(mt, mt, p * q, seed, &m.src)
                        : nt_tilemap_skewed_ex(mt, mt, p, q, &so, seed, &m.src);
                    cr_assert_eq(st, NT_OK);
                    m.bytes = tile_bytes(mt, mt, sizes[z], nb);
                    char what[96];
                    snprintf(what, sizeof what, "%s %dx%d mt %lld seed %llu",
                             kind == 2 ? "chunk" : kind ? "skewed:derange" : "skewed", p, q,
                             (long long)mt, (unsigned long long)seed);
                    check_maps(&m, what);
                    free(m.bytes);
                    nt_tilemap_destroy(m.src);
                    nt_tilemap_destroy(m.dst);
                }
}

// ---------------------------------------------------------------------------------------------
// Bad input: clear errors naming the argument, outputs untouched.

static void expect_fail(const nt_match_hier_problem_t *pr, nt_match_objective ro,
                        nt_match_objective dob, nt_status code, const char *needle)
{
    int sigma[4] = {-7, -7, -7, -7}, gr[2] = {-7, -7};
    nt_match_hier_cost_t c = {.inter_volume = -7};
    cr_assert_eq(nt_match_hier_solve(pr, ro, dob, sigma, gr, &c), code, "expected %d (%s)", code,
                 needle);
    cr_assert(strstr(nt_last_error(), needle), "message '%s' lacks '%s'", nt_last_error(),
              needle);
    for (int x = 0; x < 4; x++)
        cr_assert_eq(sigma[x], -7);
    cr_assert(gr[0] == -7 && gr[1] == -7 && c.inter_volume == -7, "outputs written on failure");
}

Test(match_hier, bad_input)
{
    int64_t n[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7};
    int rk[4] = {0, 0, 1, 1};
    nt_match_hier_problem_t ok = {.p_ini = 4, .p_tar = 4, .p_dom = 4, .counts = n, .nranks = 2,
                                  .rank_of = rk};
    nt_match_hier_problem_t b = ok;
    expect_fail(NULL, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "prob");
    b.counts = NULL;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "counts");
    b = ok, b.rank_of = NULL;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "rank_of");
    b = ok, b.nranks = 0;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "nranks");
    b = ok, b.nranks = 5;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "nranks");
    b = ok, b.nranks = 3; // rank 2 has no domain
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "rank 2 has no domain");
    int bad_rk[4] = {0, 0, 2, 1};
    b = ok, b.rank_of = bad_rk;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "rank_of[2]");
    b = ok, b.p_ini = 0;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "p_ini");
    b = ok, b.p_dom = 3;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "p_dom");
    b = ok, b.p_dom = NT_MATCH_MAX_P + 1;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_ERANGE, "p_dom");
    int64_t neg[16];
    memcpy(neg, n, sizeof neg);
    neg[5] = -1;
    b = ok, b.counts = neg;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_EINVAL, "negative");
    expect_fail(&ok, NT_MATCH_DISTANCE, NT_MATCH_VOLUME, NT_EINVAL, "rank objective");
    expect_fail(&ok, NT_MATCH_VOLUME, NT_MATCH_STEPS, NT_EINVAL, "domain objective");
    expect_fail(&ok, NT_MATCH_VOLUME, NT_MATCH_DISTANCE, NT_EINVAL, "needs dist");
    b = ok, b.split_groups = 1;
    expect_fail(&b, NT_MATCH_LEX, NT_MATCH_VOLUME, NT_EINVAL, "split_groups");
    expect_fail(&b, NT_MATCH_STEPS, NT_MATCH_VOLUME, NT_EINVAL, "split_groups");
    int64_t d[16] = {0};
    d[3] = -2;
    b = ok, b.dist = d;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_DISTANCE, NT_EINVAL, "dist[0][3]");
    int64_t huge[16] = {0};
    huge[1] = INT64_MAX / 2;
    huge[2] = INT64_MAX / 2 + 5;
    b = ok, b.counts = huge;
    expect_fail(&b, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NT_ERANGE, "");
    cr_assert_eq(nt_match_hier_solve(&ok, NT_MATCH_VOLUME, NT_MATCH_VOLUME, NULL, NULL, NULL),
                 NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "sigma"));
    // The cost of a given labelling, and its checks.
    int sig[4] = {1, 0, 3, 2};
    nt_match_hier_cost_t c;
    cr_assert_eq(nt_match_hier_cost(&ok, sig, &c), NT_OK);
    // Crossing: rows 0-1 x columns 2-3 and rows 2-3 x columns 0-1.
    cr_assert_eq(c.inter_volume, (3 + 4 + 7 + 8) + (9 + 1 + 4 + 5));
    int dup[4] = {1, 1, 3, 2};
    cr_assert_eq(nt_match_hier_cost(&ok, dup, &c), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "injective"));
    cr_assert_eq(nt_match_hier_cost(&ok, NULL, &c), NT_EINVAL);
    cr_assert_eq(nt_match_hier_cost(&ok, sig, NULL), NT_EINVAL);
    // Equal consecutive ranks.
    int r6[6] = {9, 9, 9, 9, 9, 9};
    cr_assert_eq(nt_match_hier_ranks(6, 4, r6), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "6 domains do not split into 4"));
    cr_assert_eq(r6[0], 9);
    cr_assert_eq(nt_match_hier_ranks(6, 0, r6), NT_EINVAL);
    cr_assert_eq(nt_match_hier_ranks(0, 1, r6), NT_EINVAL);
    cr_assert_eq(nt_match_hier_ranks(6, 3, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_hier_ranks(6, 3, r6), NT_OK);
    for (int k = 0; k < 6; k++)
        cr_assert_eq(r6[k], k / 2);
}
