// Internals of the Part&Redistrib heuristic for the 1D stencil, shared by part_redistrib.c (the
// driver and the public entry points), part_redistrib_eval.c (labelling and scoring of a
// candidate, ring runs) and one file per candidate family: part_redistrib_blocks.c,
// part_redistrib_shifted.c, part_redistrib_merged.c, part_redistrib_local.c. Not installed.
#ifndef NUMATILE_PART_REDISTRIB_INT_H
#define NUMATILE_PART_REDISTRIB_INT_H

#include <stdbool.h>

#include "nt_core.h"
#include "numatile/match.h"
#include "numatile/stencil_model.h"

// The heuristic's workspace: the instance, the candidate being built and the best ones kept.
typedef struct pr_ws {
    int64_t n;
    int p;
    const int *ini;
    const nt_stencil_params_t *params;
    nt_stencil_model_t model;
    nt_stencil_strategy_t target;    // family eligible for "best"; PART_REDISTRIB = all
    int64_t *counts;                 // p*p count matrix for the matchings
    int *part, *sigma;               // the candidate being built
    int *best_part, *best_sigma;     // the best eligible candidate
    int *base_part, *base_sigma;     // the best block or rotated candidate (start of shifting)
    int *seed_part, *seed_sigma;     // the best candidate of any family (start of local search)
    int *tmp;                        // p scratch
    bool have_best, have_base, have_seed;
    nt_stencil_candidate_t best;
    double base_total, seed_total;
    nt_stencil_choice_t *choice;     // every candidate, or NULL
} pr_ws;

// Position y on the ring of n items: y mod n in [0, n).
static inline int64_t pr_wrap(int64_t y, int64_t n)
{
    int64_t r = y % n;
    return r < 0 ? r + n : r;
}

// Block of item x in the block partition of n items on p components.
static inline int pr_block_of(int64_t x, int64_t n, int p)
{
    // x < n and p <= INT_MAX, so x * p fits unless n is near 2^63 / p: divide in 128 bits.
    return (int)(((nt_u128)x * (nt_u128)p) / (nt_u128)n);
}

// Optimal labelling of part for an objective (exact matchings of match.h), into sigma.
nt_status nt_pr_label(pr_ws *w, const int *part, nt_match_objective obj, int *sigma);

// The labelling objective that minimises the model's redistribution cost.
nt_match_objective nt_pr_model_objective(nt_stencil_model_t model);

// Score w->part under w->sigma as a candidate of family s (param: its parameter), record it,
// and keep it if it is the best eligible candidate, the best block-like one (start of shifting)
// or the best of all (start of the local search).
nt_status nt_pr_consider(pr_ws *w, nt_stencil_strategy_t s, int64_t param);

// Arcs of a partition on the ring: maximal runs of one component, as starts in [x0, x0 + n).
typedef struct pr_arcs {
    int64_t m;       // number of arcs
    int64_t *start;  // m + 1 entries; start[m] = start[0] + n
    int *comp;       // m entries
    int64_t min_len;
} pr_arcs;

// The arcs of part (m = 0 and nothing allocated when one component holds the whole ring);
// free with nt_pr_arcs_free.
nt_status nt_pr_arcs_of(const int *part, int64_t n, pr_arcs *a);
void nt_pr_arcs_free(pr_arcs *a);

// The candidate families, each scoring its members with nt_pr_consider.
// part_redistrib_blocks.c: the initial distribution; blocks labelled canonically, for volume
// and for steps; rotated blocks; blocks on fewer components.
nt_status nt_pr_gen_owner(pr_ws *w);
nt_status nt_pr_gen_blocks(pr_ws *w);
nt_status nt_pr_gen_rotated(pr_ws *w);
nt_status nt_pr_gen_fewer(pr_ws *w);
// part_redistrib_shifted.c: the best block-like candidate with its boundaries moved.
nt_status nt_pr_gen_shifted(pr_ws *w);
// part_redistrib_merged.c: the runs of the initial distribution, short ones merged.
nt_status nt_pr_gen_merged(pr_ws *w);
// part_redistrib_local.c: local search from the best candidate so far.
nt_status nt_pr_gen_local(pr_ws *w);

#endif
