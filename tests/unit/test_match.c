// Relabelling: every objective against exhaustive search over all injective labellings
// (P <= 8) on random and adversarial instances, the steps = bottleneck claim, forbidden and
// infeasible masks, and the assignment / bottleneck solvers against independent certificates
// for larger P.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

// ---------------------------------------------------------------------------------------------
// Instances and the brute-force oracle (written from the definitions, not from the library).

typedef struct inst {
    int pi, pt, pd;
    int64_t *n;             // pi x pt
    int64_t *dist;          // pd x pd or NULL
    unsigned char *allowed; // pd x pt or NULL
} inst;

typedef struct oracle_cost {
    int64_t volume, steps, dist_volume;
} oracle_cost;

// Costs of sigma straight from the definitions: build q item-class by item-class, then the
// sent / received totals of every domain.
static oracle_cost oracle_eval(const inst *I, const int *sigma)
{
    int pd = I->pd;
    int64_t *q = calloc((size_t)pd * pd, sizeof *q);
    for (int i = 0; i < I->pi; i++)
        for (int j = 0; j < I->pt; j++)
            q[i * pd + sigma[j]] += I->n[i * I->pt + j];
    oracle_cost c = {0, 0, 0};
    for (int a = 0; a < pd; a++) {
        int64_t s = 0, r = 0;
        for (int b = 0; b < pd; b++) {
            if (a == b)
                continue;
            s += q[a * pd + b];
            r += q[b * pd + a];
            c.volume += q[a * pd + b];
            if (I->dist)
                c.dist_volume += q[a * pd + b] * I->dist[a * pd + b];
        }
        if (s > c.steps)
            c.steps = s;
        if (r > c.steps)
            c.steps = r;
    }
    free(q);
    return c;
}

// The claimed identity: steps = max over domains of the padded edge weight.
static int64_t edge_bottleneck(const inst *I, const int *sigma)
{
    int64_t best = 0;
    int *host = malloc((size_t)I->pd * sizeof *host);
    for (int k = 0; k < I->pd; k++)
        host[k] = -1;
    for (int j = 0; j < I->pt; j++)
        host[sigma[j]] = j;
    for (int k = 0; k < I->pd; k++) {
        int64_t r = 0, c = 0, nkj = 0;
        if (k < I->pi)
            for (int j = 0; j < I->pt; j++)
                r += I->n[k * I->pt + j];
        if (host[k] >= 0) {
            for (int i = 0; i < I->pi; i++)
                c += I->n[i * I->pt + host[k]];
            if (k < I->pi)
                nkj = I->n[k * I->pt + host[k]];
        }
        int64_t w = (r > c ? r : c) - nkj;
        if (w > best)
            best = w;
    }
    free(host);
    return best;
}

typedef struct best {
    bool feasible;
    int64_t vol, steps, lex_steps, lex_vol, dist;
} best;

static bool sigma_allowed(const inst *I, const int *sigma)
{
    if (!I->allowed)
        return true;
    for (int j = 0; j < I->pt; j++)
        if (!I->allowed[sigma[j] * I->pt + j])
            return false;
    return true;
}

// Enumerate every injective sigma (components -> domains) by DFS.
static void enumerate(const inst *I, int j, int *sigma, bool *used, best *b)
{
    if (j == I->pt) {
        if (!sigma_allowed(I, sigma))
            return;
        oracle_cost c = oracle_eval(I, sigma);
        cr_assert_eq(c.steps, edge_bottleneck(I, sigma), "steps != padded bottleneck");
        if (!b->feasible) {
            b->feasible = true;
            b->vol = c.volume;
            b->steps = c.steps;
            b->lex_steps = c.steps;
            b->lex_vol = c.volume;
            b->dist = c.dist_volume;
            return;
        }
        if (c.volume < b->vol)
            b->vol = c.volume;
        if (c.steps < b->steps)
            b->steps = c.steps;
        if (c.steps < b->lex_steps || (c.steps == b->lex_steps && c.volume < b->lex_vol)) {
            b->lex_steps = c.steps;
            b->lex_vol = c.volume;
        }
        if (c.dist_volume < b->dist)
            b->dist = c.dist_volume;
        return;
    }
    for (int k = 0; k < I->pd; k++) {
        if (used[k])
            continue;
        used[k] = true;
        sigma[j] = k;
        enumerate(I, j + 1, sigma, used, b);
        used[k] = false;
    }
}

static best brute(const inst *I)
{
    best b = {false, 0, 0, 0, 0, 0};
    int sigma[16];
    bool used[16] = {false};
    enumerate(I, 0, sigma, used, &b);
    return b;
}

// Solve with every objective and compare with the oracle. Returns the number of solves.
static int check_all(const inst *I, const char *what)
{
    best b = brute(I);
    nt_match_problem_t pr = {I->pi, I->pt, I->pd, I->n, I->dist, I->allowed};
    int solves = 0;
    for (int o = NT_MATCH_CANONICAL; o <= NT_MATCH_DISTANCE; o++) {
        if (o == NT_MATCH_DISTANCE && !I->dist)
            continue;
        int sigma[16];
        for (int j = 0; j < 16; j++)
            sigma[j] = -7;
        nt_cost_t c = {-1, -1, -1, -1};
        nt_status st = nt_match_solve(&pr, (nt_match_objective)o, sigma, &c);
        solves++;
        if (o == NT_MATCH_CANONICAL) {
            bool ok = I->pt <= I->pd;
            if (I->allowed)
                for (int j = 0; j < I->pt; j++)
                    ok = ok && I->allowed[j * I->pt + j];
            ok = ok && b.feasible;
            if (!ok) {
                cr_assert_eq(st, NT_EINVAL, "%s: canonical should fail", what);
                continue;
            }
            cr_assert_eq(st, NT_OK, "%s: canonical: %s", what, nt_last_error());
            for (int j = 0; j < I->pt; j++)
                cr_assert_eq(sigma[j], j);
        } else if (!b.feasible) {
            cr_assert_eq(st, NT_EINVAL, "%s obj %d: infeasible mask accepted", what, o);
            cr_assert(strstr(nt_last_error(), "no feasible labelling") != NULL, "%s",
                      nt_last_error());
            cr_assert_eq(sigma[0], -7, "sigma written on failure");
            continue;
        }
        cr_assert_eq(st, NT_OK, "%s obj %d: %s", what, o, nt_last_error());
        bool used[16] = {false};
        for (int j = 0; j < I->pt; j++) {
            cr_assert(sigma[j] >= 0 && sigma[j] < I->pd, "%s: sigma out of range", what);
            cr_assert(!used[sigma[j]], "%s: sigma not injective", what);
            used[sigma[j]] = true;
        }
        cr_assert(sigma_allowed(I, sigma), "%s obj %d: a forbidden pair was used", what, o);
        oracle_cost oc = oracle_eval(I, sigma);
        cr_assert_eq(c.volume, oc.volume, "%s obj %d: reported volume", what, o);
        cr_assert_eq(c.steps, oc.steps, "%s obj %d: reported steps", what, o);
        cr_assert_eq(c.dist_volume, oc.dist_volume, "%s obj %d: reported dist volume", what, o);
        int64_t tot = 0;
        for (int x = 0; x < I->pi * I->pt; x++)
            tot += I->n[x];
        cr_assert_eq(c.volume + c.local, tot, "%s: volume + local != total", what);
        switch (o) {
        case NT_MATCH_VOLUME:
            cr_assert_eq(oc.volume, b.vol, "%s: volume %lld, optimum %lld", what,
                         (long long)oc.volume, (long long)b.vol);
            break;
        case NT_MATCH_STEPS:
            cr_assert_eq(oc.steps, b.steps, "%s: steps %lld, optimum %lld", what,
                         (long long)oc.steps, (long long)b.steps);
            break;
        case NT_MATCH_LEX:
            cr_assert(oc.steps == b.lex_steps && oc.volume == b.lex_vol,
                      "%s: lex (%lld,%lld), optimum (%lld,%lld)", what, (long long)oc.steps,
                      (long long)oc.volume, (long long)b.lex_steps, (long long)b.lex_vol);
            break;
        case NT_MATCH_DISTANCE:
            cr_assert_eq(oc.dist_volume, b.dist, "%s: dist volume %lld, optimum %lld", what,
                         (long long)oc.dist_volume, (long long)b.dist);
            break;
        default:
            break;
        }
    }
    return solves;
}

static void inst_free(inst *I)
{
    free(I->n);
    free(I->dist);
    free(I->allowed);
}

enum shape { SQUARE, FEWER_COMPONENTS, FEWER_SOURCES, BOTH_SMALLER };

// A random instance of the given kind. kind: 0 random items, 1 all ties, 2 empty components,
// 3 one domain holds everything, 4 heavy weights, 5 sparse, 6 near-permutation (one clear
// optimum), 7 shifted identity (Herrmann's skewed pattern).
static inst make_inst(nt_rng *r, int pmax, int kind, enum shape sh, bool with_dist,
                      int mask_kind)
{
    inst I;
    int p = 1 + (int)nt_rng_below(r, (uint64_t)pmax);
    I.pd = p;
    I.pi = p;
    I.pt = p;
    if ((sh == FEWER_COMPONENTS || sh == BOTH_SMALLER) && p > 1)
        I.pt = 1 + (int)nt_rng_below(r, (uint64_t)p);
    if ((sh == FEWER_SOURCES || sh == BOTH_SMALLER) && p > 1)
        I.pi = 1 + (int)nt_rng_below(r, (uint64_t)p);
    I.n = calloc((size_t)I.pi * I.pt, sizeof *I.n);
    int64_t items = (int64_t)nt_rng_below(r, 4 * (uint64_t)p + 1);
    for (int64_t x = 0; x < items; x++) {
        int i = (int)nt_rng_below(r, (uint64_t)I.pi), j = (int)nt_rng_below(r, (uint64_t)I.pt);
        int64_t w = 1;
        if (kind == 4)
            w = 1 + (int64_t)nt_rng_below(r, 1000000000);
        else if (kind == 3)
            i = 0;
        else if (kind == 2)
            j = (int)nt_rng_below(r, (uint64_t)(I.pt + 1) / 2); // upper half stays empty
        else if (kind == 5 && nt_rng_below(r, 3))
            continue;
        else if (kind == 6 && nt_rng_below(r, 4))
            i = j % I.pi;
        else if (kind == 7 && nt_rng_below(r, 2))
            i = (j + 1) % I.pi;
        I.n[i * I.pt + j] += w;
    }
    if (kind == 1)
        for (int x = 0; x < I.pi * I.pt; x++)
            I.n[x] = 3;
    I.dist = NULL;
    if (with_dist) {
        I.dist = malloc((size_t)p * p * sizeof *I.dist);
        for (int x = 0; x < p * p; x++)
            I.dist[x] = (int64_t)nt_rng_below(r, 40);
    }
    I.allowed = NULL;
    if (mask_kind) {
        I.allowed = malloc((size_t)I.pd * I.pt);
        // mask_kind 1: dense (mostly feasible); 2: sparse (often infeasible).
        uint64_t keep = mask_kind == 1 ? 4 : 2;
        for (int x = 0; x < I.pd * I.pt; x++)
            I.allowed[x] = nt_rng_below(r, 5) < keep;
    }
    return I;
}

Test(match, exhaustive_random_and_adversarial)
{
    nt_rng r = {20240501};
    int solves = 0, instances = 0;
    const enum shape shapes[] = {SQUARE, FEWER_COMPONENTS, FEWER_SOURCES, BOTH_SMALLER};
    for (int t = 0; t < 3200 / SCALE; t++) {
        int kind = t % 8;
        enum shape sh = shapes[(t / 8) % 4];
        int pmax = (t % 10 == 0) ? 8 : (t % 4 == 1) ? 7 : 6;
        bool with_dist = (t / 32) % 2 == 0;
        int mask = (t / 64) % 3;
        inst I = make_inst(&r, pmax, kind, sh, with_dist, mask);
        char what[96];
        snprintf(what, sizeof what, "instance %d (kind %d, %dx%d on %d, mask %d)", t, kind,
                 I.pi, I.pt, I.pd, mask);
        solves += check_all(&I, what);
        instances++;
        inst_free(&I);
    }
    cr_log_info("match exhaustive: %d instances, %d solves", instances, solves);
}

Test(match, exhaustive_p8_square)
{
    nt_rng r = {77};
    for (int t = 0; t < 200 / SCALE; t++) {
        inst I = make_inst(&r, 1, t % 8, SQUARE, true, t % 3 == 2 ? 1 : 0);
        // make_inst draws p in 1..pmax; force 7..8 here.
        inst_free(&I);
        int p = 7 + (t % 2);
        I.pi = I.pt = I.pd = p;
        I.n = calloc((size_t)p * p, sizeof *I.n);
        for (int x = 0; x < 4 * p; x++) {
            int i = (int)nt_rng_below(&r, (uint64_t)p), j = (int)nt_rng_below(&r, (uint64_t)p);
            I.n[i * p + j] += (t % 4 == 0) ? 1 + (int64_t)nt_rng_below(&r, 50) : 1;
        }
        I.dist = malloc((size_t)p * p * sizeof *I.dist);
        for (int x = 0; x < p * p; x++)
            I.dist[x] = (int64_t)nt_rng_below(&r, 30);
        I.allowed = NULL;
        if (t % 3 == 2) {
            I.allowed = malloc((size_t)p * p);
            for (int x = 0; x < p * p; x++)
                I.allowed[x] = nt_rng_below(&r, 4) != 0;
        }
        char what[64];
        snprintf(what, sizeof what, "P8 instance %d", t);
        check_all(&I, what);
        inst_free(&I);
    }
}

Test(match, infeasible_masks)
{
    // Two components that may only go to domain 0: Hall's condition fails.
    int64_t n[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    unsigned char allowed[9] = {1, 1, 1, 0, 0, 1, 0, 0, 1};
    nt_match_problem_t pr = {3, 3, 0, n, NULL, allowed};
    int sigma[3] = {-1, -1, -1};
    for (int o = NT_MATCH_VOLUME; o <= NT_MATCH_LEX; o++) {
        cr_assert_eq(nt_match_solve(&pr, (nt_match_objective)o, sigma, NULL), NT_EINVAL);
        cr_assert(strstr(nt_last_error(), "no feasible labelling") != NULL, "%s",
                  nt_last_error());
        cr_assert_eq(sigma[0], -1);
    }
    // A component with no allowed domain at all.
    unsigned char none[6] = {1, 0, 1, 0, 1, 0};
    nt_match_problem_t pr2 = {3, 2, 0, n, NULL, none};
    cr_assert_eq(nt_match_solve(&pr2, NT_MATCH_VOLUME, sigma, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "component 1") != NULL, "%s", nt_last_error());
}

Test(match, argument_errors)
{
    int64_t n[4] = {1, 0, 0, 1};
    int sigma[2];
    nt_match_problem_t pr = {2, 2, 0, n, NULL, NULL};
    cr_assert_eq(nt_match_solve(NULL, NT_MATCH_VOLUME, sigma, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_solve(&pr, NT_MATCH_VOLUME, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_solve(&pr, (nt_match_objective)9, sigma, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_solve(&pr, NT_MATCH_DISTANCE, sigma, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "dist") != NULL);
    nt_match_problem_t bad = {2, 2, 1, n, NULL, NULL};
    cr_assert_eq(nt_match_solve(&bad, NT_MATCH_VOLUME, sigma, NULL), NT_EINVAL);
    int64_t neg[4] = {1, -1, 0, 1};
    nt_match_problem_t pn = {2, 2, 0, neg, NULL, NULL};
    cr_assert_eq(nt_match_solve(&pn, NT_MATCH_VOLUME, sigma, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "negative") != NULL);
    int64_t huge[4] = {INT64_MAX / 2, INT64_MAX / 2, 0, 0};
    nt_match_problem_t ph = {2, 2, 0, huge, NULL, NULL};
    cr_assert_eq(nt_match_solve(&ph, NT_MATCH_VOLUME, sigma, NULL), NT_ERANGE);
    nt_match_objective o;
    cr_assert_eq(nt_match_objective_parse("lex", &o), NT_OK);
    cr_assert_eq(o, NT_MATCH_LEX);
    cr_assert_eq(nt_match_objective_parse("none", &o), NT_OK);
    cr_assert_eq(o, NT_MATCH_CANONICAL);
    cr_assert_eq(nt_match_objective_parse("fast", &o), NT_EINVAL);
    cr_assert_str_eq(nt_match_objective_name(NT_MATCH_STEPS), "steps");
    cr_assert_str_eq(nt_match_objective_name((nt_match_objective)42), "unknown");
}

// ---------------------------------------------------------------------------------------------
// Larger P: independent certificates.

// Optimality certificate of an assignment: no negative cycle in the exchange graph (column j ->
// column k costs c[row(j)][k] - c[row(j)][j]: row(j) moves from j to k). Bellman-Ford from a
// virtual source reaching every column at distance 0.
static bool no_negative_cycle(const int64_t *c, int p, const int *col_to_row)
{
    int64_t *d = calloc((size_t)p, sizeof *d);
    bool changed = true;
    for (int it = 0; it <= p && changed; it++) {
        changed = false;
        for (int j = 0; j < p; j++) {
            int i = col_to_row[j];
            int64_t base = c[(int64_t)i * p + j];
            for (int k = 0; k < p; k++) {
                int64_t ck = c[(int64_t)i * p + k];
                if (k == j || ck == INT64_MAX)
                    continue;
                int64_t nd = d[j] + ck - base;
                if (nd < d[k]) {
                    d[k] = nd;
                    changed = true;
                }
            }
        }
    }
    free(d);
    return !changed;
}

// Classic O(p^3) Hungarian (1-based potentials, e-maxx form), written independently.
static int64_t reference_assignment(const int64_t *a, int n)
{
    const int64_t INF = INT64_MAX / 4;
    int64_t *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
    int *pm = calloc((size_t)n + 1, sizeof *pm), *way = calloc((size_t)n + 1, sizeof *way);
    int64_t *minv = malloc(((size_t)n + 1) * sizeof *minv);
    bool *used = malloc((size_t)n + 1);
    for (int i = 1; i <= n; i++) {
        pm[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INF;
            used[j] = false;
        }
        do {
            used[j0] = true;
            int i0 = pm[j0], j1 = 0;
            int64_t delta = INF;
            for (int j = 1; j <= n; j++)
                if (!used[j]) {
                    int64_t cij = a[(int64_t)(i0 - 1) * n + (j - 1)];
                    int64_t cur = (cij == INT64_MAX ? INF : cij) - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (int j = 0; j <= n; j++)
                if (used[j]) {
                    u[pm[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (pm[j0] != 0);
        do {
            int j1 = way[j0];
            pm[j0] = pm[j1];
            j0 = j1;
        } while (j0);
    }
    int64_t total = 0;
    for (int j = 1; j <= n; j++)
        total += a[(int64_t)(pm[j] - 1) * n + (j - 1)];
    free(u);
    free(v);
    free(pm);
    free(way);
    free(minv);
    free(used);
    return total;
}

static void random_redistribution_costs(nt_rng *r, int p, int per, int64_t *c)
{
    // Counts from random items (about `per` per domain), cost = -kept.
    memset(c, 0, (size_t)p * p * sizeof *c);
    for (int64_t x = 0; x < (int64_t)per * p; x++) {
        int i = (int)nt_rng_below(r, (uint64_t)p), j = (int)(x / per);
        c[(int64_t)i * p + j]--;
    }
}

Test(match, assignment_large_vs_independent)
{
    nt_rng r = {99};
    const int sizes[] = {50, 97, 128, 200};
    for (int s = 0; s < 4; s++) {
        int p = sizes[s];
        for (int t = 0; t < (s == 3 ? 2 : 4); t++) {
            int64_t *c = malloc((size_t)p * p * sizeof *c);
            if (t % 2 == 0)
                random_redistribution_costs(&r, p, 4, c);
            else
                for (int64_t x = 0; x < (int64_t)p * p; x++)
                    c[x] = (int64_t)nt_rng_below(&r, 1000000) - 500000;
            if (t == 3) // some forbidden pairs off a guaranteed diagonal
                for (int64_t x = 0; x < (int64_t)p * p; x++)
                    if (x / p != x % p && nt_rng_below(&r, 3) == 0)
                        c[x] = INT64_MAX;
            int *m = malloc((size_t)p * sizeof *m);
            int64_t total;
            cr_assert_eq(nt_match_assignment(c, p, m, &total), NT_OK, "%s", nt_last_error());
            bool *seen = calloc((size_t)p, 1);
            int64_t sum = 0;
            for (int j = 0; j < p; j++) {
                cr_assert(m[j] >= 0 && m[j] < p && !seen[m[j]]);
                seen[m[j]] = true;
                cr_assert_neq(c[(int64_t)m[j] * p + j], INT64_MAX, "forbidden pair used");
                sum += c[(int64_t)m[j] * p + j];
            }
            cr_assert_eq(sum, total);
            cr_assert_eq(total, reference_assignment(c, p), "p %d trial %d", p, t);
            cr_assert(no_negative_cycle(c, p, m), "p %d trial %d: not optimal", p, t);
            free(seen);
            free(m);
            free(c);
        }
    }
}

// Kuhn's augmenting paths: is there a perfect matching using weights <= t?
static bool kuhn_try(const int64_t *w, int p, int64_t t, int row, bool *vis, int *colm)
{
    for (int j = 0; j < p; j++) {
        int64_t x = w[(int64_t)row * p + j];
        if (x == INT64_MAX || x > t || vis[j])
            continue;
        vis[j] = true;
        if (colm[j] < 0 || kuhn_try(w, p, t, colm[j], vis, colm)) {
            colm[j] = row;
            return true;
        }
    }
    return false;
}

static bool perfect_within(const int64_t *w, int p, int64_t t)
{
    int *colm = malloc((size_t)p * sizeof *colm);
    bool *vis = malloc((size_t)p);
    for (int j = 0; j < p; j++)
        colm[j] = -1;
    bool ok = true;
    for (int i = 0; i < p && ok; i++) {
        memset(vis, 0, (size_t)p);
        ok = kuhn_try(w, p, t, i, vis, colm);
    }
    free(colm);
    free(vis);
    return ok;
}

Test(match, bottleneck_large_certificate)
{
    nt_rng r = {5};
    const int sizes[] = {40, 64, 100, 150};
    for (int s = 0; s < 4; s++) {
        int p = sizes[s];
        for (int t = 0; t < 3; t++) {
            int64_t *w = malloc((size_t)p * p * sizeof *w);
            // t = 0: narrow range (integer search); 1: wide range (sorted search); 2: forbidden.
            for (int64_t x = 0; x < (int64_t)p * p; x++)
                w[x] = t == 1 ? (int64_t)(nt_rng_next(&r) >> 4) : (int64_t)nt_rng_below(&r, 50);
            if (t == 2)
                for (int64_t x = 0; x < (int64_t)p * p; x++)
                    if (x / p != x % p && nt_rng_below(&r, 2))
                        w[x] = INT64_MAX;
            int *m = malloc((size_t)p * sizeof *m);
            int64_t b;
            cr_assert_eq(nt_match_bottleneck(w, p, m, &b), NT_OK, "%s", nt_last_error());
            int64_t used = INT64_MIN;
            bool *seen = calloc((size_t)p, 1);
            for (int j = 0; j < p; j++) {
                cr_assert(!seen[m[j]]);
                seen[m[j]] = true;
                int64_t x = w[(int64_t)m[j] * p + j];
                cr_assert_neq(x, INT64_MAX);
                if (x > used)
                    used = x;
            }
            cr_assert_eq(used, b);
            // Certificate: the largest weight below b admits no perfect matching.
            int64_t below = INT64_MIN;
            for (int64_t x = 0; x < (int64_t)p * p; x++)
                if (w[x] < b && w[x] > below)
                    below = w[x];
            if (below != INT64_MIN)
                cr_assert(!perfect_within(w, p, below), "p %d: bottleneck %lld not minimal", p,
                          (long long)b);
            free(seen);
            free(m);
            free(w);
        }
    }
}

// VOLUME and LEX on larger P: VOLUME against the independent Hungarian; LEX steps equal the
// bottleneck optimum, and its volume is the min-cost matching restricted to the edges within
// it (checked with the independent Hungarian).
Test(match, lex_large_consistent)
{
    nt_rng r = {11};
    for (int t = 0; t < 6; t++) {
        int p = 30 + 20 * t;
        int64_t *n = calloc((size_t)p * p, sizeof *n);
        for (int64_t x = 0; x < 6 * (int64_t)p; x++)
            n[nt_rng_below(&r, (uint64_t)p) * p + x / 6]++;
        nt_match_problem_t pr = {p, p, 0, n, NULL, NULL};
        int *sv = malloc((size_t)p * sizeof *sv), *ss = malloc((size_t)p * sizeof *ss);
        int *sl = malloc((size_t)p * sizeof *sl);
        nt_cost_t cv, cs, cl;
        cr_assert_eq(nt_match_solve(&pr, NT_MATCH_VOLUME, sv, &cv), NT_OK);
        cr_assert_eq(nt_match_solve(&pr, NT_MATCH_STEPS, ss, &cs), NT_OK);
        cr_assert_eq(nt_match_solve(&pr, NT_MATCH_LEX, sl, &cl), NT_OK);
        cr_assert_eq(cl.steps, cs.steps);
        cr_assert(cl.volume >= cv.volume);
        // Reference: weights w = max(R,C) - n, restricted costs -n.
        int64_t *rs = calloc((size_t)p, sizeof *rs), *cs2 = calloc((size_t)p, sizeof *cs2);
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++) {
                rs[i] += n[i * p + j];
                cs2[j] += n[i * p + j];
            }
        int64_t *c = malloc((size_t)p * p * sizeof *c), total = 0;
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++) {
                int64_t w = (rs[i] > cs2[j] ? rs[i] : cs2[j]) - n[i * p + j];
                c[i * p + j] = w <= cs.steps ? -n[i * p + j] : INT64_MAX;
                total += n[i * p + j];
            }
        cr_assert_eq(cl.volume, total + reference_assignment(c, p), "p %d", p);
        // VOLUME (solved on the counts directly) against the reference on -n.
        for (int x = 0; x < p * p; x++)
            c[x] = -n[x];
        cr_assert_eq(cv.volume, total + reference_assignment(c, p), "p %d volume", p);
        free(rs);
        free(cs2);
        free(c);
        free(n);
        free(sv);
        free(ss);
        free(sl);
    }
}

// Herrmann's observation: on the skewed distribution with alpha >= 0.5 the optimal labelling
// is the shift j -> j+1 (both objectives), moving (P-1)D + ... far less than canonical.
Test(match, skewed_finds_shift)
{
    const int p = 16, d = 20;
    nt_dist1d_t *ini, *tar;
    cr_assert_eq(nt_dist1d_skewed(p, d, 0.8, 3, &ini), NT_OK);
    cr_assert_eq(nt_dist1d_block((int64_t)p * d, p, &tar), NT_OK);
    int64_t n[16 * 16];
    cr_assert_eq(nt_counts_compute(ini->n, ini->owner, p, tar->owner, p, NULL, NULL, n), NT_OK);
    nt_match_problem_t pr = {p, p, 0, n, NULL, NULL};
    for (int o = NT_MATCH_VOLUME; o <= NT_MATCH_LEX; o++) {
        int sigma[16];
        cr_assert_eq(nt_match_solve(&pr, (nt_match_objective)o, sigma, NULL), NT_OK);
        for (int j = 0; j < p; j++)
            cr_assert_eq(sigma[j], (j + 1) % p, "objective %d component %d", o, j);
    }
    nt_dist1d_destroy(ini);
    nt_dist1d_destroy(tar);
}
