/**
 * \file numatile/stencil_model.h
 * \brief Cost model of a redistribution followed by K iterations of a 3-point circular 1D
 *        stencil (Herrmann et al. 2016, §5.1), and a Part&Redistrib heuristic.
 *
 * Items 0..n-1 sit on a ring; item x needs items x-1 and x+1 (mod n) at every iteration.
 * A *distribution* maps items to domains 0..p-1, a *partition* maps items to components
 * 0..p-1 (components may be empty), and a *labelling* sigma (a permutation of 0..p-1) places
 * component c on domain sigma[c]: the target distribution is sigma o partition.
 *
 * Halo counts. N_ij is the number of items of component i that have their left or right
 * neighbour in component j (i != j): Herrmann's formal definition
 * |{x : P(x) = i and (P(x-1) = j or P(x+1) = j)}|. An item whose two neighbours both lie in
 * the same other component j counts once in N_ij: its value is sent once to the domain of j,
 * which uses it for both neighbours. An item whose neighbours lie in two different other
 * components counts once in each. N_ii is not used (reported as 0). With one component or
 * n = 1 there is no halo at all.
 *
 * With l_i = |component i|, L = max_i l_i, s_i = sum_{j != i} N_ij and r_i = sum_{j != i} N_ji:
 * - volume model: T_iter = tau_comm * sum_i s_i + tau_calc * L;
 * - steps model (one-port): T_iter = tau_comm * max_i max(s_i, r_i) + tau_calc * L;
 * - redistribution from ini to sigma o partition: RedistVol = items whose domain changes,
 *   RedistSteps = max over domains of max(items sent, items received);
 * - T_total = Redist * tau_comm + K * T_iter, with Redist and T_iter of the same model.
 * Owner-computes is the partition ini itself under the identity labelling (no redistribution).
 *
 * Finding the partition and labelling of least T_total is strongly NP-complete (Herrmann 2016,
 * Theorems 3 and 4, by reduction from 3-Partition). nt_stencil_part_redistrib() is a heuristic:
 * it evaluates a family of candidates and returns the cheapest; every candidate partition is
 * labelled optimally for the chosen model (a labelling does not change T_iter, and the
 * min-volume / min-steps matchings minimise RedistVol / RedistSteps exactly).
 *
 * Everything here is pure computation: no threads, no NUMA calls, no output. Errors follow
 * numatile/error.h; out-parameters are untouched on failure.
 *
 * Threads: every function may be called from several threads at once (pure computations).
 */
#ifndef NUMATILE_STENCIL_MODEL_H
#define NUMATILE_STENCIL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Communication model: which redistribution cost and which T_iter are minimised. */
typedef enum nt_stencil_model {
    NT_STENCIL_MODEL_VOLUME = 0, /**< serialised communications: RedistVol, sum of halos */
    NT_STENCIL_MODEL_STEPS = 1   /**< one-port parallel steps: RedistSteps, max halo degree */
} nt_stencil_model_t;

/** \brief Machine and run parameters of the model. */
typedef struct nt_stencil_params {
    int64_t iters;   /**< K, number of stencil iterations, >= 0 */
    double tau_comm; /**< time of one item communication, finite and >= 0 */
    double tau_calc; /**< time of one item update, finite and >= 0 */
} nt_stencil_params_t;

/** \brief Predicted costs of one (partition, labelling) pair, in both models. */
typedef struct nt_stencil_cost {
    int64_t redist_volume; /**< items whose domain changes (RedistVol) */
    int64_t redist_steps;  /**< max over domains of max(sent, received) (RedistSteps) */
    int64_t halo_volume;   /**< sum_i sum_{j != i} N_ij: items sent per iteration */
    int64_t halo_steps;    /**< max_i max(s_i, r_i): one-port steps per iteration */
    int64_t max_load;      /**< max_i l_i: items updated by the busiest domain */
    double iter_volume;    /**< T_iter, volume model */
    double iter_steps;     /**< T_iter, steps model */
    double total_volume;   /**< T_total, volume model */
    double total_steps;    /**< T_total, steps model */
} nt_stencil_cost_t;

/**
 * \brief Halo matrix N_ij and loads l_i of a partition.
 * @param[in]  n     number of items, n >= p.
 * @param[in]  p     number of components, p >= 1.
 * @param[in]  part  n component ids, each in [0, p).
 * @param[out] nij   p*p entries, row-major: nij[i*p + j] = N_ij; the diagonal is 0.
 * @param[out] load  p entries: load[i] = l_i; may be NULL.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  part or nij NULL, p < 1, n < p, or a component id out of range.
 * @retval NT_ERANGE  p*p overflows.
 */
nt_status nt_stencil_halo(int64_t n, int p, const int *part, int64_t *nij, int64_t *load);

/**
 * \brief Predicted costs of redistributing ini to sigma o part and running the stencil.
 * @param[in]  n      number of items, n >= p.
 * @param[in]  p      number of domains and of components, p >= 1.
 * @param[in]  ini    n domain ids in [0, p): the initial distribution.
 * @param[in]  part   n component ids in [0, p): the target partition.
 * @param[in]  sigma  p domain ids forming a permutation (component c goes to sigma[c]), or
 *                    NULL for the identity.
 * @param[in]  params K >= 0, tau_comm and tau_calc finite and >= 0.
 * @param[out] cost   the costs in both models.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  a NULL pointer (other than sigma), p < 1, n < p, an id out of range,
 *                    sigma not a permutation, K < 0, or a tau negative or not finite.
 * @retval NT_ENOMEM  the O(p) workspace could not be allocated.
 */
nt_status nt_stencil_evaluate(int64_t n, int p, const int *ini, const int *part,
                              const int *sigma, const nt_stencil_params_t *params,
                              nt_stencil_cost_t *cost);

/**
 * \brief T_total of a cost under a model.
 * @param[in] cost  an evaluated cost (not NULL).
 * @param[in] model the communication model.
 * @return cost->total_steps under ::NT_STENCIL_MODEL_STEPS, cost->total_volume otherwise.
 */
double nt_stencil_total(const nt_stencil_cost_t *cost, nt_stencil_model_t model);

/** \brief Candidate families, and the strategies of Herrmann's Fig. 5/6. */
typedef enum nt_stencil_strategy {
    NT_STENCIL_OWNER = 0,        /**< owner-computes: partition = ini, identity labelling */
    NT_STENCIL_BLOCK_CANONICAL,  /**< block partition x -> floor(x*p/n), identity labelling
                                      (Herrmann's D_can) */
    NT_STENCIL_BLOCK_VOLUME,     /**< block partition, min-volume labelling (D_vol) */
    NT_STENCIL_BLOCK_STEPS,      /**< block partition, min-steps labelling (D_steps) */
    NT_STENCIL_BLOCK_ROTATED,    /**< block partition rotated by param items, labelled for the
                                      model; same T_iter as the block partition */
    NT_STENCIL_SHIFTED,          /**< block boundaries moved by at most param items each to keep
                                      more items in place, alternated with relabelling */
    NT_STENCIL_MERGED,           /**< ini with its runs shorter than param absorbed into a
                                      neighbouring run, labelled for the model */
    NT_STENCIL_BLOCK_FEWER,      /**< block partition on param < p components (x ->
                                      floor(x*param/n)), labelled for the model: fewer halos
                                      and more load, for expensive communication */
    NT_STENCIL_LOCAL,            /**< local search from the best other candidate: items at a
                                      run boundary move to a neighbouring component (or to the
                                      component placed on their initial domain) while the
                                      predicted T_total drops, labelling fixed; then the
                                      labelling is re-optimised. param = moves made */
    NT_STENCIL_PART_REDISTRIB,   /**< the heuristic: least T_total over all the above */
    NT_STENCIL_NSTRATEGIES       /**< number of strategies (not a strategy) */
} nt_stencil_strategy_t;

/** \brief Most candidates nt_stencil_part_redistrib() considers (and reports). */
#define NT_STENCIL_MAX_CANDIDATES 64

/** \brief One candidate considered by the heuristic. */
typedef struct nt_stencil_candidate {
    nt_stencil_strategy_t strategy; /**< its family (never NT_STENCIL_PART_REDISTRIB) */
    int64_t param;                  /**< rotation offset, shift window, run threshold, number
                                         of components or local moves; 0 for the owner and
                                         block strategies */
    nt_stencil_cost_t cost;         /**< its predicted costs in both models */
} nt_stencil_candidate_t;

/** \brief What nt_stencil_part_redistrib() chose and everything it compared. */
typedef struct nt_stencil_choice {
    nt_stencil_candidate_t best;  /**< the chosen candidate (least T_total under the model;
                                       ties go to the earliest candidate, owner first) */
    size_t ncandidates;           /**< entries used in candidates[] */
    nt_stencil_candidate_t candidates[NT_STENCIL_MAX_CANDIDATES]; /**< in evaluation order */
} nt_stencil_choice_t;

/**
 * \brief Short name of a strategy.
 * @param[in] s any value.
 * @return "owner", "block-canonical", ...; "unknown" outside the enum. A static string.
 */
const char *nt_stencil_strategy_name(nt_stencil_strategy_t s);

/**
 * \brief Part&Redistrib heuristic: a partition and a labelling of small predicted T_total.
 *
 * Candidates, in this order: owner-computes; the block partition under the identity,
 * min-volume and min-steps labellings; the block partition rotated by up to 15 offsets spread
 * over one block; block boundaries shifted within windows of 1, B/8, B/4 and B/2 items
 * (B = ceil(n/p); capped so that no block empties) starting from the best block candidate; ini
 * with runs shorter than 2, 3, 4, 6, 8, ... (at most 12 thresholds up to max(2, B); a threshold
 * that merges nothing more than the previous one is skipped) merged; block partitions on
 * q = 1, 2, 3, 4, 6, 8, ... < p components (at most 12); last, a local search from the best of
 * all these (always the final entry of choice->candidates). All but the
 * first four are labelled optimally for the model (min-volume matching for the volume model,
 * fewest steps then least volume for the steps model). The result is never worse under the
 * model than owner-computes and than the block partition under its best labelling.
 * Time O(C (n + M(p)) + L (p + 1)) for C <= 64 candidates, M(p) the cost of one matching and
 * L <= max(64, 2^24 / (p + 8)) local-search move evaluations; memory O(n + p^2).
 * @param[in]  n      number of items, n >= p.
 * @param[in]  p      number of domains, p >= 1.
 * @param[in]  ini    n domain ids in [0, p): the initial distribution.
 * @param[in]  params K >= 0, tau_comm and tau_calc finite and >= 0.
 * @param[in]  model  the model whose T_total is minimised.
 * @param[out] part   n entries: the chosen partition.
 * @param[out] sigma  p entries: its labelling (component c goes to domain sigma[c]).
 * @param[out] choice the chosen candidate and every candidate's costs; may be NULL.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  a NULL pointer (other than choice), p < 1, n < p, an id out of range,
 *                    an unknown model, K < 0, or a tau negative or not finite.
 * @retval NT_ENOMEM  a workspace could not be allocated.
 * @retval NT_ERANGE  a size overflows.
 */
nt_status nt_stencil_part_redistrib(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    int *part, int *sigma, nt_stencil_choice_t *choice);

/**
 * \brief The partition and labelling one strategy produces for an instance.
 *
 * For the owner and the three block strategies this is their fixed candidate; for the rotated,
 * shifted, merged and fewer-components families it is the family's cheapest member under the
 * model; for the local search it is the search started from the best other candidate; for
 * NT_STENCIL_PART_REDISTRIB it is the heuristic's choice. A family without a member on the
 * instance (no rotation when blocks hold one item, no boundary to shift, a single run to merge,
 * p = 1 for fewer components) returns its starting point: the block partition, the best block
 * candidate, ini itself, the block partition, each labelled for the model, with param 0 (1 for
 * merged).
 * @param[in]  n, p, ini, params, model  as for nt_stencil_part_redistrib().
 * @param[in]  strategy a strategy other than NT_STENCIL_NSTRATEGIES.
 * @param[out] part   n entries, or NULL if not wanted.
 * @param[out] sigma  p entries, or NULL if not wanted.
 * @param[out] cost   the strategy's predicted costs, or NULL if not wanted.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  as for nt_stencil_part_redistrib(), or an unknown strategy.
 * @retval NT_ENOMEM  a workspace could not be allocated.
 * @retval NT_ERANGE  a size overflows.
 */
nt_status nt_stencil_strategy_apply(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    nt_stencil_strategy_t strategy, int *part, int *sigma,
                                    nt_stencil_cost_t *cost);

/**
 * \brief Costs of a list of strategies on one instance, for experiment loops (Herrmann Fig.
 *        5/6: owner, block-canonical, block-volume, block-steps, and the heuristic).
 * @param[in]  n, p, ini, params, model  as for nt_stencil_part_redistrib().
 * @param[in]  strategies count strategies (each valid, repeats allowed).
 * @param[in]  count      number of strategies, >= 1.
 * @param[out] costs      count entries: costs[k] for strategies[k].
 * @retval NT_OK      success.
 * @retval NT_EINVAL  as for nt_stencil_strategy_apply(), strategies or costs NULL, count 0.
 * @retval NT_ENOMEM  a workspace could not be allocated.
 * @retval NT_ERANGE  a size overflows.
 */
nt_status nt_stencil_compare(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                             nt_stencil_model_t model, const nt_stencil_strategy_t *strategies,
                             size_t count, nt_stencil_cost_t *costs);

#ifdef __cplusplus
}
#endif
#endif
