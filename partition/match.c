// Relabelling dispatch: validates a problem, pads it to a square p_dom x p_dom matrix (empty
// components cost nothing), builds the objective's weights and calls the exact solver.
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

static const char *const names[] = {"canonical", "volume", "steps", "lex", "distance"};

const char *nt_match_objective_name(nt_match_objective obj)
{
    return (unsigned)obj < sizeof names / sizeof *names ? names[obj] : "unknown";
}

nt_status nt_match_objective_parse(const char *name, nt_match_objective *out)
{
    if (!name || !out)
        return nt_fail(NT_EINVAL, "objective: name or out is NULL");
    for (unsigned k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (nt_match_objective)k;
            return NT_OK;
        }
    if (strcmp(name, "none") == 0) {
        *out = NT_MATCH_CANONICAL;
        return NT_OK;
    }
    return nt_fail(NT_EINVAL, "objective '%s' is not one of none, canonical, volume, steps, lex, "
                   "distance", name);
}

// Problem view with the padded size and the derived sums.
typedef struct view {
    int pi, pt, pd;
    const int64_t *n;
    const unsigned char *allowed;
    int64_t total;
    int64_t *rsum; // pd domain loads (0 beyond pi)
    int64_t *csum; // pt component sizes
} view;

static int is_allowed(const view *v, int k, int j)
{
    return j >= v->pt || !v->allowed || v->allowed[(int64_t)k * v->pt + j];
}

static int64_t count_at(const view *v, int k, int j)
{
    return (k < v->pi && j < v->pt) ? v->n[(int64_t)k * v->pt + j] : 0;
}

// Steps weight of domain k holding (padded) component j: max(sent, received).
static int64_t steps_weight(const view *v, int k, int j)
{
    int64_t c = j < v->pt ? v->csum[j] : 0;
    int64_t r = v->rsum[k];
    return (r > c ? r : c) - count_at(v, k, j);
}

// Is there an injective placement respecting the mask? Names a stranded component if not.
static nt_status check_mask(const view *v)
{
    nt_bigraph g;
    nt_hk hk;
    nt_status st = nt_bigraph_init(&g, v->pd);
    if (st != NT_OK)
        return st;
    if ((st = nt_hk_init(&hk, v->pd)) != NT_OK) {
        nt_bigraph_free(&g);
        return st;
    }
    int64_t e = 0;
    for (int k = 0; k < v->pd; k++) {
        g.start[k] = e;
        for (int j = 0; j < v->pd; j++)
            if (is_allowed(v, k, j))
                g.adj[e++] = j;
    }
    g.start[v->pd] = e;
    if (nt_hk_maximum(&hk, &g) < v->pd) {
        int j = 0;
        while (j < v->pt && hk.col_match[j] >= 0)
            j++;
        st = nt_fail(NT_EINVAL, "no feasible labelling: the allowed pairs leave component %d "
                     "without a domain of its own", j < v->pt ? j : 0);
    }
    nt_hk_free(&hk);
    nt_bigraph_free(&g);
    return st;
}

static nt_status validate(const nt_match_problem_t *prob, nt_match_objective obj, int *sigma,
                          view *v)
{
    if (!prob || !sigma)
        return nt_fail(NT_EINVAL, "match: prob or sigma is NULL");
    if ((unsigned)obj > NT_MATCH_DISTANCE)
        return nt_fail(NT_EINVAL, "match: unknown objective %d", (int)obj);
    v->pi = prob->p_ini;
    v->pt = prob->p_tar;
    v->pd = prob->p_dom ? prob->p_dom : (prob->p_ini > prob->p_tar ? prob->p_ini : prob->p_tar);
    v->n = prob->counts;
    v->allowed = prob->allowed;
    nt_status st = nt_shape_check("match", v->pi, v->pt, v->pd);
    if (st != NT_OK)
        return st;
    if (!v->n)
        return nt_fail(NT_EINVAL, "match: counts is NULL");
    if (obj == NT_MATCH_DISTANCE && !prob->dist)
        return nt_fail(NT_EINVAL, "match: the distance objective needs dist");
    // A fixed cap on p_dom^2 scratch and p_dom^3 time (match.h); partition/ cannot ask the
    // machine for its free memory, and at the cap time binds before memory does.
    if (v->pd > NT_MATCH_MAX_P)
        return nt_fail(NT_ERANGE, "match: p_dom %d is more than the limit of %d (the matching "
                       "needs p_dom^2 memory and p_dom^3 time)", v->pd, NT_MATCH_MAX_P);
    if ((st = nt_counts_total(v->n, v->pi, v->pt, &v->total)) != NT_OK)
        return st;
    if (prob->dist)
        for (int64_t x = 0; x < (int64_t)v->pd * v->pd; x++)
            if (prob->dist[x] < 0)
                return nt_fail(NT_EINVAL, "match: dist[%lld][%lld] = %lld is negative",
                               (long long)(x / v->pd), (long long)(x % v->pd),
                               (long long)prob->dist[x]);
    return NT_OK;
}

// Volume weights are negated counts: their total must stay within the solver's range.
static nt_status volume_limit(const view *v)
{
    if (v->total > nt_assign_cost_limit(v->pd))
        return nt_fail(NT_ERANGE, "match: total weight %lld exceeds 2^58 / p_dom",
                       (long long)v->total);
    return NT_OK;
}

// Square cost/weight matrix of the objective (obj != CANONICAL), forbidden pairs marked.
static nt_status build(const view *v, const int64_t *dist, nt_match_objective obj, int64_t *m)
{
    int pd = v->pd;
    const int64_t lim = nt_assign_cost_limit(pd);
    nt_status st;
    if (obj == NT_MATCH_VOLUME && (st = volume_limit(v)) != NT_OK)
        return st;
    if (obj == NT_MATCH_DISTANCE) {
        int64_t maxd = 0, bound;
        for (int64_t x = 0; x < (int64_t)pd * pd; x++)
            if (dist[x] > maxd)
                maxd = dist[x];
        if (!nt_mul_i64(v->total, maxd, &bound) || bound > lim)
            return nt_fail(NT_ERANGE, "match: total weight x largest distance exceeds 2^58 / "
                           "p_dom");
        // c[k][j] = sum_{i != k} n[i][j] * dist[i][k]: the cost of bringing component j to k.
        memset(m, 0, (size_t)pd * (size_t)pd * sizeof *m);
        for (int k = 0; k < pd; k++) {
            int64_t *row = m + (int64_t)k * pd;
            for (int i = 0; i < v->pi; i++) {
                int64_t d = dist[(int64_t)i * pd + k];
                if (i == k || d == 0)
                    continue;
                const int64_t *ni = v->n + (int64_t)i * v->pt;
                for (int j = 0; j < v->pt; j++)
                    row[j] += ni[j] * d;
            }
        }
    }
    for (int k = 0; k < pd; k++) {
        int64_t *row = m + (int64_t)k * pd;
        for (int j = 0; j < pd; j++) {
            if (!is_allowed(v, k, j)) {
                row[j] = NT_FORBIDDEN;
                continue;
            }
            if (obj == NT_MATCH_VOLUME)
                row[j] = -count_at(v, k, j); // minimising moved = maximising kept
            else if (obj == NT_MATCH_STEPS || obj == NT_MATCH_LEX)
                row[j] = steps_weight(v, k, j);
        }
    }
    return NT_OK;
}

static nt_status canonical(const view *v, int *res)
{
    for (int j = 0; j < v->pt; j++) {
        if (!is_allowed(v, j, j))
            return nt_fail(NT_EINVAL, "match: the canonical labelling puts component %d on "
                           "domain %d, which the mask forbids", j, j);
        res[j] = j;
    }
    return NT_OK;
}

// Fewest steps first (m holds the steps weights); then the least volume using only the edges
// within that optimum.
static nt_status lex(const view *v, int64_t *m, int *res)
{
    int pd = v->pd;
    int64_t best;
    nt_status st = nt_match_bottleneck(m, pd, res, &best);
    if (st != NT_OK)
        return st;
    for (int k = 0; k < pd; k++)
        for (int j = 0; j < pd; j++) {
            int64_t *x = m + (int64_t)k * pd + j;
            if (*x != NT_FORBIDDEN)
                *x = *x <= best ? -count_at(v, k, j) : NT_FORBIDDEN;
        }
    if ((st = volume_limit(v)) != NT_OK)
        return st;
    return nt_match_assignment(m, pd, res, NULL);
}

// Every objective but canonical: the square matrix of its weights, then its exact solver.
static nt_status weighted(const view *v, const int64_t *dist, nt_match_objective obj, int *res)
{
    int pd = v->pd;
    int64_t *m = malloc((size_t)pd * (size_t)pd * sizeof *m);
    if (!m)
        return nt_fail(NT_ENOMEM, "match: cannot allocate a %d x %d matrix", pd, pd);
    nt_status st = build(v, dist, obj, m);
    if (st == NT_OK) {
        if (obj == NT_MATCH_STEPS)
            st = nt_match_bottleneck(m, pd, res, NULL);
        else if (obj == NT_MATCH_LEX)
            st = lex(v, m, res);
        else
            st = nt_match_assignment(m, pd, res, NULL);
    }
    free(m);
    return st;
}

// The labelling of the objective into res (pd entries).
static nt_status label(const view *v, const int64_t *dist, nt_match_objective obj, int *res)
{
    if (obj == NT_MATCH_CANONICAL)
        return canonical(v, res);
    if (obj == NT_MATCH_VOLUME && !v->allowed && v->pi == v->pd && v->pt == v->pd) {
        // Square and unrestricted: maximise the kept weight on the counts themselves.
        nt_status st = volume_limit(v);
        return st ? st : nt_assign_max(v->n, v->pd, res, NULL);
    }
    return weighted(v, dist, obj, res);
}

nt_status nt_match_solve(const nt_match_problem_t *prob, nt_match_objective obj, int *sigma,
                         nt_cost_t *cost)
{
    view v;
    nt_status st = validate(prob, obj, sigma, &v);
    if (st != NT_OK)
        return st;
    int pd = v.pd;
    v.rsum = calloc((size_t)pd, sizeof *v.rsum);
    v.csum = calloc((size_t)v.pt, sizeof *v.csum);
    int *res = malloc((size_t)pd * sizeof *res);
    if (!v.rsum || !v.csum || !res) {
        st = nt_fail(NT_ENOMEM, "match: cannot allocate scratch for p_dom = %d", pd);
        goto done;
    }
    for (int i = 0; i < v.pi; i++)
        for (int j = 0; j < v.pt; j++) {
            v.rsum[i] += v.n[(int64_t)i * v.pt + j];
            v.csum[j] += v.n[(int64_t)i * v.pt + j];
        }
    if (v.allowed && (st = check_mask(&v)) != NT_OK)
        goto done;
    if ((st = label(&v, prob->dist, obj, res)) != NT_OK)
        goto done;
    nt_cost_t c;
    if (cost && (st = nt_cost_eval(v.n, v.pi, v.pt, pd, res, prob->dist, &c)) != NT_OK)
        goto done;
    memcpy(sigma, res, (size_t)v.pt * sizeof *sigma);
    if (cost)
        *cost = c;
done:
    free(v.rsum);
    free(v.csum);
    free(res);
    return st;
}
