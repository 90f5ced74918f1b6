// Part&Redistrib: labelling and scoring of one candidate, and the ring runs (arcs) that the
// shifted and merged families start from.
#include <stdlib.h>
#include <string.h>

#include "partition/nt_partition.h"
#include "part_redistrib_int.h"

nt_status nt_pr_label(pr_ws *w, const int *part, nt_match_objective obj, int *sigma)
{
    if (obj == NT_MATCH_CANONICAL) {
        for (int c = 0; c < w->p; c++)
            sigma[c] = c;
        return NT_OK;
    }
    nt_status st = nt_counts_compute(w->n, w->ini, w->p, part, w->p, NULL, w->counts, NULL);
    if (st != NT_OK)
        return st;
    nt_match_problem_t prob = {.p_ini = w->p, .p_tar = w->p, .counts = w->counts};
    return nt_match_solve(&prob, obj, sigma, NULL);
}

// The labelling that minimises the model's redistribution cost. For steps, LEX also breaks
// ties by volume, which costs nothing under the steps model and moves less data.
nt_match_objective nt_pr_model_objective(nt_stencil_model_t model)
{
    return model == NT_STENCIL_MODEL_STEPS ? NT_MATCH_LEX : NT_MATCH_VOLUME;
}

nt_status nt_pr_consider(pr_ws *w, nt_stencil_strategy_t s, int64_t param)
{
    nt_stencil_candidate_t cand = {.strategy = s, .param = param};
    nt_status st = nt_stencil_evaluate(w->n, w->p, w->ini, w->part, w->sigma, w->params,
                                       &cand.cost);
    if (st != NT_OK)
        return st;
    double t = nt_stencil_total(&cand.cost, w->model);
    if (w->choice && w->choice->ncandidates < NT_STENCIL_MAX_CANDIDATES)
        w->choice->candidates[w->choice->ncandidates++] = cand;
    bool eligible = w->target == NT_STENCIL_PART_REDISTRIB || w->target == s;
    if (eligible && (!w->have_best || t < nt_stencil_total(&w->best.cost, w->model))) {
        w->have_best = true;
        w->best = cand;
        memcpy(w->best_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->best_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    bool blockish = s == NT_STENCIL_BLOCK_CANONICAL || s == NT_STENCIL_BLOCK_VOLUME ||
                    s == NT_STENCIL_BLOCK_STEPS || s == NT_STENCIL_BLOCK_ROTATED;
    if (blockish && (!w->have_base || t < w->base_total)) {
        w->have_base = true;
        w->base_total = t;
        memcpy(w->base_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->base_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    if (!w->have_seed || t < w->seed_total) {
        w->have_seed = true;
        w->seed_total = t;
        memcpy(w->seed_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->seed_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    return NT_OK;
}

nt_status nt_pr_arcs_of(const int *part, int64_t n, pr_arcs *a)
{
    int64_t x0 = -1;
    for (int64_t x = 0; x < n && x0 < 0; x++)
        if (part[x] != part[x == 0 ? n - 1 : x - 1])
            x0 = x;
    a->m = 0;
    a->start = NULL;
    a->comp = NULL;
    if (x0 < 0)
        return NT_OK; // one component on the whole ring: nothing to shift
    int64_t m = 0;
    for (int64_t x = 0; x < n; x++)
        m += part[x] != part[x == 0 ? n - 1 : x - 1];
    a->start = malloc((size_t)(m + 1) * sizeof *a->start);
    a->comp = malloc((size_t)m * sizeof *a->comp);
    if (!a->start || !a->comp) {
        nt_pr_arcs_free(a);
        return nt_fail(NT_ENOMEM, "no memory for %lld arcs", (long long)m);
    }
    int64_t k = 0;
    for (int64_t y = x0; y < x0 + n; y++) {
        int64_t x = y % n;
        if (part[x] != part[x == 0 ? n - 1 : x - 1]) {
            a->start[k] = y;
            a->comp[k] = part[x];
            k++;
        }
    }
    a->m = m;
    a->start[m] = x0 + n;
    a->min_len = n;
    for (k = 0; k < m; k++)
        if (a->start[k + 1] - a->start[k] < a->min_len)
            a->min_len = a->start[k + 1] - a->start[k];
    return NT_OK;
}

void nt_pr_arcs_free(pr_arcs *a)
{
    free(a->start);
    free(a->comp);
    a->start = NULL;
    a->comp = NULL;
}
