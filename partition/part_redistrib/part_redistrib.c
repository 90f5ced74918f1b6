// Part&Redistrib heuristic for the 1D stencil: evaluate families of candidate partitions, label
// each optimally for the model with the exact matchings of match.h, keep the cheapest. This file
// runs the families (part_redistrib_*.c) and holds the public entry points.
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "partition/nt_partition.h"
#include "part_redistrib_int.h"

const char *nt_stencil_strategy_name(nt_stencil_strategy_t s)
{
    switch (s) {
    case NT_STENCIL_OWNER: return "owner";
    case NT_STENCIL_BLOCK_CANONICAL: return "block-canonical";
    case NT_STENCIL_BLOCK_VOLUME: return "block-volume";
    case NT_STENCIL_BLOCK_STEPS: return "block-steps";
    case NT_STENCIL_BLOCK_ROTATED: return "block-rotated";
    case NT_STENCIL_SHIFTED: return "shifted";
    case NT_STENCIL_MERGED: return "merged";
    case NT_STENCIL_BLOCK_FEWER: return "block-fewer";
    case NT_STENCIL_LOCAL: return "local-search";
    case NT_STENCIL_PART_REDISTRIB: return "part-redistrib";
    default: return "unknown";
    }
}

static nt_status check_inputs(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                              nt_stencil_model_t model)
{
    if (p < 1)
        return nt_fail(NT_EINVAL, "p = %d: need at least one domain", p);
    if (n < p)
        return nt_fail(NT_EINVAL, "n = %lld items is fewer than p = %d domains", (long long)n, p);
    if (!ini)
        return nt_fail(NT_EINVAL, "ini is NULL");
    for (int64_t x = 0; x < n; x++)
        if (ini[x] < 0 || ini[x] >= p)
            return nt_fail(NT_EINVAL, "ini[%lld] = %d is out of range [0, %d)", (long long)x,
                           ini[x], p);
    nt_status st = nt_stencil_check_params(params);
    if (st != NT_OK)
        return st;
    if (model != NT_STENCIL_MODEL_VOLUME && model != NT_STENCIL_MODEL_STEPS)
        return nt_fail(NT_EINVAL, "model = %d is not a stencil model", (int)model);
    return NT_OK;
}

// The workspace's arrays (w->n, w->p set).
static nt_status ws_alloc(pr_ws *w)
{
    int64_t n = w->n;
    int p = w->p;
    size_t pp, pp_bytes, n_bytes, p_bytes;
    if (!nt_mul_size((size_t)p, (size_t)p, &pp) || !nt_mul_size(pp, sizeof(int64_t), &pp_bytes) ||
        !nt_mul_size((size_t)n, sizeof(int), &n_bytes) ||
        !nt_mul_size((size_t)p, sizeof(int), &p_bytes))
        return nt_fail(NT_ERANGE, "n = %lld, p = %d: workspace size overflows", (long long)n, p);
    w->counts = malloc(pp_bytes);
    w->part = malloc(n_bytes);
    w->best_part = malloc(n_bytes);
    w->base_part = malloc(n_bytes);
    w->sigma = malloc(p_bytes);
    w->best_sigma = malloc(p_bytes);
    w->base_sigma = malloc(p_bytes);
    w->seed_part = malloc(n_bytes);
    w->seed_sigma = malloc(p_bytes);
    w->tmp = malloc(p_bytes);
    if (!w->counts || !w->part || !w->best_part || !w->base_part || !w->sigma ||
        !w->best_sigma || !w->base_sigma || !w->seed_part || !w->seed_sigma || !w->tmp)
        return nt_fail(NT_ENOMEM, "no memory for the workspace (n = %lld, p = %d)",
                       (long long)n, p);
    return NT_OK;
}

// A family with no member on this instance (no rotation when blocks hold one item, no boundary
// to shift, a single run to merge, p = 1 for fewer components) returns its starting point.
static nt_status starting_point(pr_ws *w)
{
    nt_stencil_strategy_t target = w->target;
    nt_status st = NT_OK;
    if (target == NT_STENCIL_SHIFTED) {
        memcpy(w->part, w->base_part, (size_t)w->n * sizeof *w->part);
        memcpy(w->sigma, w->base_sigma, (size_t)w->p * sizeof *w->sigma);
    } else {
        for (int64_t x = 0; x < w->n; x++)
            w->part[x] = target == NT_STENCIL_MERGED ? w->ini[x] : pr_block_of(x, w->n, w->p);
        st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
    }
    if (st == NT_OK)
        st = nt_pr_consider(w, target, target == NT_STENCIL_MERGED ? 1 : 0);
    return st;
}

// Run the families the target needs; results in w->best*, candidates in w->choice.
static nt_status run(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                     nt_stencil_model_t model, nt_stencil_strategy_t target,
                     nt_stencil_choice_t *choice, pr_ws *w)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->p = p;
    w->ini = ini;
    w->params = params;
    w->model = model;
    w->target = target;
    w->choice = choice;
    if (choice)
        choice->ncandidates = 0;
    nt_status st = ws_alloc(w);
    if (st != NT_OK)
        return st;
    // The local search starts from the best of every other family, so it needs them all.
    bool all = target == NT_STENCIL_PART_REDISTRIB || target == NT_STENCIL_LOCAL;
    bool shift = all || target == NT_STENCIL_SHIFTED;
    bool rot = shift || target == NT_STENCIL_BLOCK_ROTATED;
    bool blocks = rot || target == NT_STENCIL_BLOCK_CANONICAL ||
                  target == NT_STENCIL_BLOCK_VOLUME || target == NT_STENCIL_BLOCK_STEPS;
    if (all || target == NT_STENCIL_OWNER)
        st = nt_pr_gen_owner(w);
    if (st == NT_OK && blocks)
        st = nt_pr_gen_blocks(w);
    if (st == NT_OK && rot)
        st = nt_pr_gen_rotated(w);
    if (st == NT_OK && shift)
        st = nt_pr_gen_shifted(w);
    if (st == NT_OK && (all || target == NT_STENCIL_MERGED))
        st = nt_pr_gen_merged(w);
    if (st == NT_OK && (all || target == NT_STENCIL_BLOCK_FEWER))
        st = nt_pr_gen_fewer(w);
    if (st == NT_OK && all)
        st = nt_pr_gen_local(w);
    if (st == NT_OK && !w->have_best)
        st = starting_point(w);
    return st;
}

static void release(pr_ws *w)
{
    free(w->counts);
    free(w->part);
    free(w->best_part);
    free(w->base_part);
    free(w->sigma);
    free(w->best_sigma);
    free(w->base_sigma);
    free(w->seed_part);
    free(w->seed_sigma);
    free(w->tmp);
}

// Shared by the public entry points: run for a target, copy the winner out on success only.
static nt_status solve(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                       nt_stencil_model_t model, nt_stencil_strategy_t target, int *part,
                       int *sigma, nt_stencil_cost_t *cost, nt_stencil_choice_t *choice)
{
    nt_status st = check_inputs(n, p, ini, params, model);
    if (st != NT_OK)
        return st;
    if ((int)target < 0 || target >= NT_STENCIL_NSTRATEGIES)
        return nt_fail(NT_EINVAL, "strategy %d is not a stencil strategy", (int)target);
    nt_stencil_choice_t *local = NULL;
    if (choice) {
        local = malloc(sizeof *local);
        if (!local)
            return nt_fail(NT_ENOMEM, "no memory for the candidate report");
    }
    pr_ws w;
    st = run(n, p, ini, params, model, target, local, &w);
    if (st == NT_OK) {
        if (part)
            memcpy(part, w.best_part, (size_t)n * sizeof *part);
        if (sigma)
            memcpy(sigma, w.best_sigma, (size_t)p * sizeof *sigma);
        if (cost)
            *cost = w.best.cost;
        if (choice) {
            local->best = w.best;
            *choice = *local;
        }
    }
    release(&w);
    free(local);
    return st;
}

nt_status nt_stencil_part_redistrib(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    int *part, int *sigma, nt_stencil_choice_t *choice)
{
    if (!part)
        return nt_fail(NT_EINVAL, "part is NULL");
    if (!sigma)
        return nt_fail(NT_EINVAL, "sigma is NULL");
    return solve(n, p, ini, params, model, NT_STENCIL_PART_REDISTRIB, part, sigma, NULL, choice);
}

nt_status nt_stencil_strategy_apply(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    nt_stencil_strategy_t strategy, int *part, int *sigma,
                                    nt_stencil_cost_t *cost)
{
    return solve(n, p, ini, params, model, strategy, part, sigma, cost, NULL);
}

nt_status nt_stencil_compare(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                             nt_stencil_model_t model, const nt_stencil_strategy_t *strategies,
                             size_t count, nt_stencil_cost_t *costs)
{
    if (!strategies)
        return nt_fail(NT_EINVAL, "strategies is NULL");
    if (count == 0)
        return nt_fail(NT_EINVAL, "count is 0: no strategy to compare");
    if (!costs)
        return nt_fail(NT_EINVAL, "costs is NULL");
    for (size_t k = 0; k < count; k++)
        if ((int)strategies[k] < 0 || strategies[k] >= NT_STENCIL_NSTRATEGIES)
            return nt_fail(NT_EINVAL, "strategies[%zu] = %d is not a stencil strategy", k,
                           (int)strategies[k]);
    nt_status st = check_inputs(n, p, ini, params, model);
    if (st != NT_OK)
        return st;
    nt_stencil_cost_t *out = malloc(count * sizeof *out);
    if (!out)
        return nt_fail(NT_ENOMEM, "no memory for %zu costs", count);
    // One full run scores every family; a family absent from it (no member on this instance)
    // is scored by its own run, which supplies the starting point.
    nt_stencil_choice_t *ch = malloc(sizeof *ch);
    if (!ch) {
        free(out);
        return nt_fail(NT_ENOMEM, "no memory for the candidate report");
    }
    int *part = malloc((size_t)n * sizeof *part), *sigma = malloc((size_t)p * sizeof *sigma);
    if (!part || !sigma)
        st = nt_fail(NT_ENOMEM, "no memory for a partition of %lld items", (long long)n);
    if (st == NT_OK)
        st = nt_stencil_part_redistrib(n, p, ini, params, model, part, sigma, ch);
    for (size_t k = 0; k < count && st == NT_OK; k++) {
        if (strategies[k] == NT_STENCIL_PART_REDISTRIB) {
            out[k] = ch->best.cost;
            continue;
        }
        bool found = false;
        for (size_t c = 0; c < ch->ncandidates; c++) {
            const nt_stencil_candidate_t *cd = &ch->candidates[c];
            if (cd->strategy == strategies[k] &&
                (!found || nt_stencil_total(&cd->cost, model) < nt_stencil_total(&out[k], model))) {
                out[k] = cd->cost;
                found = true;
            }
        }
        if (!found)
            st = solve(n, p, ini, params, model, strategies[k], NULL, NULL, &out[k], NULL);
    }
    if (st == NT_OK)
        memcpy(costs, out, count * sizeof *out);
    free(out);
    free(ch);
    free(part);
    free(sigma);
    return st;
}
