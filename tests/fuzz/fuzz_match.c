// libFuzzer harness, differential: the matching solvers (nt_match_solve for every objective,
// nt_match_assignment, nt_match_bottleneck). The input chooses p_ini, p_tar, p_dom, a count
// matrix, optionally distances and a mask of allowed pairs. For p_dom <= 7 each optimum must
// equal a brute force over every injective labelling, with costs computed here from the
// definitions of numatile/match.h; for 8 <= p_dom <= 12 it must equal a second solver, a
// dynamic programme over subsets of domains. Every labelling returned must be injective,
// respect the mask, and have the costs nt_cost_eval() gives.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PMAX 12

typedef struct prob {
    int pi, pt, pd;
    int64_t n[PMAX * PMAX];    // pi x pt counts
    int64_t dist[PMAX * PMAX]; // pd x pd
    unsigned char ok[PMAX * PMAX]; // pd x pt mask
    bool has_dist, has_mask;
    int64_t R[PMAX], C[PMAX];  // row sums (0 beyond pi), column sums
} prob;

// The four costs of a labelling, from the definitions.
typedef struct costs {
    int64_t volume, steps, distv;
} costs;

static int64_t cnt(const prob *p, int i, int j) { return i < p->pi ? p->n[i * p->pt + j] : 0; }

// Cost of placing component j on domain k, per objective (additive or bottleneck terms).
static int64_t vol_term(const prob *p, int k, int j) { return p->C[j] - cnt(p, k, j); }
static int64_t steps_term(const prob *p, int k, int j)
{
    return (p->R[k] > p->C[j] ? p->R[k] : p->C[j]) - cnt(p, k, j);
}
static int64_t dist_term(const prob *p, int k, int j)
{
    int64_t s = 0;
    for (int i = 0; i < p->pi; i++)
        s += i != k ? cnt(p, i, j) * p->dist[i * p->pd + k] : 0;
    return s;
}

static costs eval(const prob *p, const int *sig)
{
    costs c = {0, 0, 0};
    bool holds[PMAX] = {false};
    for (int j = 0; j < p->pt; j++) {
        c.volume += vol_term(p, sig[j], j);
        int64_t w = steps_term(p, sig[j], j);
        c.steps = w > c.steps ? w : c.steps;
        c.distv += p->has_dist ? dist_term(p, sig[j], j) : 0;
        holds[sig[j]] = true;
    }
    for (int k = 0; k < p->pd; k++) // a domain without a component sends all it has
        if (!holds[k])
            c.steps = p->R[k] > c.steps ? p->R[k] : c.steps;
    return c;
}

typedef struct optima {
    int64_t volume, steps, lex_steps, lex_volume, distv;
    bool feasible;
} optima;

static void brute(const prob *p, int *sig, int j, unsigned used, optima *o)
{
    if (j == p->pt) {
        costs c = eval(p, sig);
        o->feasible = true;
        o->volume = c.volume < o->volume ? c.volume : o->volume;
        o->steps = c.steps < o->steps ? c.steps : o->steps;
        o->distv = c.distv < o->distv ? c.distv : o->distv;
        if (c.steps < o->lex_steps || (c.steps == o->lex_steps && c.volume < o->lex_volume)) {
            o->lex_steps = c.steps;
            o->lex_volume = c.volume;
        }
        return;
    }
    for (int k = 0; k < p->pd; k++)
        if (!(used & (1u << k)) && (!p->has_mask || p->ok[k * p->pt + j])) {
            sig[j] = k;
            brute(p, sig, j + 1, used | (1u << k), o);
        }
}

// Second solver: components 0..pt-1 placed in order, state = the set of domains used so far.
// sum: add the terms, else take their maximum (the domains left without a component count
// with R_k). cap >= 0: only labellings whose steps stay within cap.
static int64_t dp_solve(const prob *p, int64_t (*term)(const prob *, int, int), bool sum,
                        int64_t cap, int64_t *memo)
{
    size_t states = (size_t)1 << p->pd;
    for (size_t m = 0; m < states; m++)
        memo[m] = INT64_MAX;
    memo[0] = 0;
    int64_t best = INT64_MAX;
    for (size_t m = 0; m < states; m++) {
        if (memo[m] == INT64_MAX)
            continue;
        int j = __builtin_popcount((unsigned)m);
        if (j == p->pt) {
            int64_t idle = 0;
            for (int k = 0; k < p->pd; k++)
                if (!(m & ((size_t)1 << k)) && p->R[k] > idle)
                    idle = p->R[k];
            if (cap >= 0 && idle > cap)
                continue;
            int64_t v = sum ? memo[m] : (idle > memo[m] ? idle : memo[m]);
            best = v < best ? v : best;
            continue;
        }
        for (int k = 0; k < p->pd; k++) {
            if ((m & ((size_t)1 << k)) || (p->has_mask && !p->ok[k * p->pt + j]))
                continue;
            if (cap >= 0 && steps_term(p, k, j) > cap)
                continue;
            int64_t w = term(p, k, j);
            int64_t v = sum ? memo[m] + w : (w > memo[m] ? w : memo[m]);
            size_t m2 = m | ((size_t)1 << k);
            memo[m2] = v < memo[m2] ? v : memo[m2];
        }
    }
    return best;
}

static optima dp_optima(const prob *p)
{
    int64_t *memo = malloc(((size_t)1 << p->pd) * sizeof *memo);
    if (!memo)
        abort();
    optima o;
    o.volume = dp_solve(p, vol_term, true, -1, memo);
    o.feasible = o.volume != INT64_MAX;
    o.steps = dp_solve(p, steps_term, false, -1, memo);
    o.lex_steps = o.steps;
    o.lex_volume = o.feasible ? dp_solve(p, vol_term, true, o.steps, memo) : INT64_MAX;
    o.distv = p->has_dist ? dp_solve(p, dist_term, true, -1, memo) : INT64_MAX;
    free(memo);
    return o;
}

static optima optima_of(const prob *p)
{
    if (p->pd > 7)
        return dp_optima(p);
    optima o = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, false};
    int sig[PMAX];
    brute(p, sig, 0, 0, &o);
    return o;
}

static void make_problem(fuzz_in *in, prob *p)
{
    memset(p, 0, sizeof *p);
    p->pd = (int)fuzz_range(in, 1, PMAX);
    p->pi = (int)fuzz_range(in, 1, p->pd);
    p->pt = (int)fuzz_range(in, 1, p->pd);
    uint8_t flags = fuzz_byte(in);
    int64_t maxc = flags & 4 ? 3 : (int64_t)1 << 20; // small counts: many ties
    for (int x = 0; x < p->pi * p->pt; x++)
        p->n[x] = fuzz_range(in, 0, maxc);
    p->has_dist = flags & 1;
    for (int x = 0; p->has_dist && x < p->pd * p->pd; x++)
        p->dist[x] = fuzz_range(in, 0, 255);
    p->has_mask = flags & 2;
    for (int x = 0; p->has_mask && x < p->pd * p->pt; x++)
        p->ok[x] = fuzz_range(in, 0, 3) != 0; // three in four pairs allowed
    for (int i = 0; i < p->pi; i++)
        for (int j = 0; j < p->pt; j++) {
            p->R[i] += p->n[i * p->pt + j];
            p->C[j] += p->n[i * p->pt + j];
        }
}

static void check_labelling(const prob *p, const nt_match_problem_t *mp, const int *sig,
                            const nt_cost_t *got, nt_match_objective obj)
{
    unsigned used = 0;
    for (int j = 0; j < p->pt; j++) {
        FUZZ_CHECK(sig[j] >= 0 && sig[j] < p->pd && !(used & (1u << sig[j])) &&
                       (!p->has_mask || p->ok[sig[j] * p->pt + j]),
                   "%s: sigma[%d] = %d", nt_match_objective_name(obj), j, sig[j]);
        used |= 1u << sig[j];
    }
    costs c = eval(p, sig);
    nt_cost_t ev;
    FUZZ_CHECK(nt_cost_eval(mp->counts, p->pi, p->pt, p->pd, sig, mp->dist, &ev) == NT_OK,
               "nt_cost_eval failed");
    FUZZ_CHECK(got->volume == c.volume && got->steps == c.steps && ev.volume == c.volume &&
                   ev.steps == c.steps && (!p->has_dist || (got->dist_volume == c.distv &&
                                                            ev.dist_volume == c.distv)),
               "%s: costs (%lld, %lld, %lld), nt_cost_eval (%lld, %lld, %lld), definition "
               "(%lld, %lld, %lld)",
               nt_match_objective_name(obj), (long long)got->volume, (long long)got->steps,
               (long long)got->dist_volume, (long long)ev.volume, (long long)ev.steps,
               (long long)ev.dist_volume, (long long)c.volume, (long long)c.steps,
               (long long)c.distv);
}

static void check_objective(const prob *p, const nt_match_problem_t *mp, const optima *o,
                            nt_match_objective obj)
{
    int sig[PMAX];
    nt_cost_t cost;
    bool identity_ok = true;
    for (int j = 0; j < p->pt && p->has_mask; j++)
        identity_ok &= p->ok[j * p->pt + j] != 0;
    bool feasible = obj == NT_MATCH_CANONICAL ? identity_ok
                  : obj == NT_MATCH_DISTANCE  ? o->feasible && p->has_dist
                                              : o->feasible;
    nt_status st = nt_match_solve(mp, obj, sig, &cost);
    if (!feasible) {
        FUZZ_CHECK(st == NT_EINVAL, "%s: status %d on an infeasible problem",
                   nt_match_objective_name(obj), st);
        return;
    }
    FUZZ_CHECK(st == NT_OK, "%s: status %d on a feasible problem", nt_match_objective_name(obj),
               st);
    check_labelling(p, mp, sig, &cost, obj);
    costs c = eval(p, sig);
    int64_t got = 0, want = 0;
    switch (obj) {
    case NT_MATCH_CANONICAL:
        for (int j = 0; j < p->pt; j++)
            FUZZ_CHECK(sig[j] == j, "canonical: sigma[%d] = %d", j, sig[j]);
        return;
    case NT_MATCH_VOLUME: got = c.volume, want = o->volume; break;
    case NT_MATCH_STEPS: got = c.steps, want = o->steps; break;
    case NT_MATCH_LEX:
        FUZZ_CHECK(c.steps == o->lex_steps, "lex: steps %lld, optimum %lld", (long long)c.steps,
                   (long long)o->lex_steps);
        got = c.volume, want = o->lex_volume;
        break;
    case NT_MATCH_DISTANCE: got = c.distv, want = o->distv; break;
    }
    FUZZ_CHECK(got == want, "%s (P %d x %d on %d): %lld, optimum %lld (%s)",
               nt_match_objective_name(obj), p->pi, p->pt, p->pd, (long long)got,
               (long long)want, p->pd > 7 ? "subset DP" : "brute force");
}

// The square solvers on the padded problem (components pt..pd-1 empty).
static void check_square(const prob *p, const optima *o)
{
    int D = p->pd, rows[PMAX];
    int64_t vc[PMAX * PMAX], wc[PMAX * PMAX], total = 0, bott = 0;
    for (int k = 0; k < D; k++)
        for (int j = 0; j < D; j++) {
            bool real = j < p->pt, ok = !real || !p->has_mask || p->ok[k * p->pt + j];
            vc[k * D + j] = !ok ? INT64_MAX : real ? vol_term(p, k, j) : 0;
            wc[k * D + j] = !ok ? INT64_MAX : real ? steps_term(p, k, j) : p->R[k];
        }
    nt_status st = nt_match_assignment(vc, D, rows, &total);
    FUZZ_CHECK(o->feasible ? st == NT_OK && total == o->volume : st == NT_EINVAL,
               "nt_match_assignment: status %d, total %lld, optimum %lld", st,
               (long long)total, (long long)o->volume);
    st = nt_match_bottleneck(wc, D, rows, &bott);
    FUZZ_CHECK(o->feasible ? st == NT_OK && bott == o->steps : st == NT_EINVAL,
               "nt_match_bottleneck: status %d, bottleneck %lld, optimum %lld", st,
               (long long)bott, (long long)o->steps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    prob p;
    make_problem(&in, &p);
    nt_match_problem_t mp = {.p_ini = p.pi, .p_tar = p.pt,
                             .p_dom = p.pd == (p.pi > p.pt ? p.pi : p.pt) ? 0 : p.pd,
                             .counts = p.n, .dist = p.has_dist ? p.dist : NULL,
                             .allowed = p.has_mask ? p.ok : NULL};
    optima o = optima_of(&p);
    for (int obj = NT_MATCH_CANONICAL; obj <= NT_MATCH_DISTANCE; obj++)
        check_objective(&p, &mp, &o, (nt_match_objective)obj);
    check_square(&p, &o);
    return 0;
}
