/**
 * \file numatile/match.h
 * \brief Optimal relabelling: place the components of a target partition on the domains so that
 *        a redistribution from a given initial distribution is as cheap as possible.
 *
 * Input: the count matrix n (numatile/dist.h; n[i * p_tar + j] = weight of the items on
 * initial domain i in target component j). Component sizes C_j (column sums) and domain loads
 * R_i (row sums) are derived from it, since every item has both a domain and a component.
 *
 * Domains and rectangular cases: the source uses domains 0..p_ini-1, the machine has
 * p_dom >= max(p_ini, p_tar) domains (p_dom = 0 in the problem means max(p_ini, p_tar)), and
 * rows p_ini..p_dom-1 are empty. A labelling sigma places component j on domain sigma[j],
 * injectively. With p_tar < p_dom some domains receive no component: their initial items all
 * leave and they receive nothing. With p_ini > p_tar the same holds for the source domains left
 * without a component; with p_ini < p_tar the components placed on domains >= p_ini receive all
 * of their items.
 *
 * Objectives (all exact; the solvers pad the problem to p_dom x p_dom with empty components,
 * which changes no cost):
 * - CANONICAL: sigma[j] = j, for comparison.
 * - VOLUME: minimum volume sum_j (C_j - n[sigma_j][j]) (Hungarian / shortest augmenting paths
 *   with potentials, O(p_dom^3), exact int64 arithmetic).
 * - STEPS: minimum RedistSteps = max over domains k of max(sent_k, received_k). For a domain k
 *   holding component j, max(sent, received) = max(R_k, C_j) - n[k][j] =: w(k,j); for a domain
 *   holding no component it is R_k = w(k, empty). Hence RedistSteps equals the bottleneck
 *   (largest edge weight) of the padded perfect matching, in square and rectangular cases
 *   alike, and the bottleneck matching is exactly step-optimal (binary search over the
 *   distinct weights with Hopcroft-Karp, O(p^2.5 log p)). Among step-optimal labellings an
 *   arbitrary one is returned.
 * - LEX: minimum steps first, then minimum volume among the step-optimal labellings (the
 *   min-cost matching restricted to the edges with w <= the optimum; beyond the papers).
 * - DISTANCE: minimum distance-weighted volume sum_j sum_{i != sigma_j} n[i][j] *
 *   dist[i][sigma_j] (a min-cost matching with edge cost c(k,j) = sum_{i != k} n[i][j] *
 *   dist[i][k], O(p_ini * p_tar * p_dom) to build).
 *
 * Forbidden pairs: an optional mask allowed[k * p_tar + j] (k = domain in 0..p_dom-1,
 * j = component) restricts where each component may go; every objective optimises over the
 * labellings that respect it, and a mask that admits no injective labelling gives NT_EINVAL.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: every function may be called from several threads at once (inputs read-only,
 * results in the caller's memory).
 */
#ifndef NUMATILE_MATCH_H
#define NUMATILE_MATCH_H

#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"

/**
 * \brief Most domains (p_dom) a matching takes: its scratch is p_dom^2 int64 (2 GiB at the cap)
 *        and its time p_dom^3, so larger problems are refused at once (::NT_ERANGE).
 */
#define NT_MATCH_MAX_P 16384

#ifdef __cplusplus
extern "C" {
#endif

/** \brief What a relabelling minimises. */
typedef enum nt_match_objective {
    NT_MATCH_CANONICAL = 0, /**< identity sigma[j] = j (no optimisation) */
    NT_MATCH_VOLUME = 1,    /**< RedistVol */
    NT_MATCH_STEPS = 2,     /**< RedistSteps (one-port bound) */
    NT_MATCH_LEX = 3,       /**< RedistSteps, then RedistVol among the step-optimal */
    NT_MATCH_DISTANCE = 4   /**< distance-weighted volume (needs dist) */
} nt_match_objective;

/** \brief A relabelling problem. Zero-initialise, then set the fields. Pointers are borrowed. */
typedef struct nt_match_problem {
    int p_ini;                    /**< source domains (rows of counts), >= 1 */
    int p_tar;                    /**< target components (columns of counts), >= 1 */
    int p_dom;                    /**< machine domains, 0 = max(p_ini, p_tar), else >= both */
    const int64_t *counts;        /**< p_ini x p_tar count matrix, entries >= 0 */
    const int64_t *dist;          /**< p_dom x p_dom distances (>= 0), or NULL; needed by
                                       NT_MATCH_DISTANCE, otherwise used only to report
                                       nt_cost_t::dist_volume */
    const unsigned char *allowed; /**< p_dom x p_tar mask (non-zero = component j may go to
                                       domain k, at allowed[k * p_tar + j]), or NULL = all */
} nt_match_problem_t;

/**
 * \brief Solve a relabelling problem.
 * @param[in]  prob  the problem (not NULL).
 * @param[in]  obj   the objective.
 * @param[out] sigma p_tar entries: the domain of each component, distinct, in 0..p_dom-1.
 *                   Untouched on failure.
 * @param[out] cost  costs of sigma (volume, local, steps, dist_volume; see nt_cost_t), or NULL.
 *                   Untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL NULL pointers, bad sizes, a negative count, DISTANCE without dist, an
 *                   unknown objective, CANONICAL with a mask forbidding the identity, or a mask
 *                   admitting no injective labelling ("no feasible labelling: ...").
 * @retval NT_ERANGE a cost overflows int64, or p_dom is more than ::NT_MATCH_MAX_P.
 * @retval NT_ENOMEM scratch allocation failed (O(p_dom^2) int64).
 */
nt_status nt_match_solve(const nt_match_problem_t *prob, nt_match_objective obj, int *sigma,
                         nt_cost_t *cost);

/**
 * \brief Name of an objective ("canonical", "volume", "steps", "lex", "distance").
 * @param[in] obj any value.
 * @return a static string; "unknown" for values outside the enum.
 */
const char *nt_match_objective_name(nt_match_objective obj);

/**
 * \brief Parse an objective name as nt_match_objective_name() prints it (also "none" for
 *        canonical).
 * @param[in]  name the name (not NULL).
 * @param[out] out  the objective; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL unknown name or NULL pointer.
 */
nt_status nt_match_objective_parse(const char *name, nt_match_objective *out);

/**
 * \brief Minimum-cost perfect matching of a square cost matrix (the solver behind VOLUME,
 *        LEX and DISTANCE, public for other uses). Shortest augmenting paths with potentials,
 *        O(p^3) time, O(p) scratch beyond the matrix, exact int64 arithmetic.
 * @param[in]  cost  p x p row-major costs; row = domain, column = component; an entry equal to
 *                   INT64_MAX marks a forbidden pair. Finite entries must lie in
 *                   [-2^58 / p, 2^58 / p] so that no potential overflows.
 * @param[in]  p     size, >= 1.
 * @param[out] col_to_row p entries: the row matched to each column. Untouched on failure.
 * @param[out] total the cost of the matching, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL pointers, p < 1, or no perfect matching avoids the forbidden pairs.
 * @retval NT_ERANGE a finite entry outside the range above.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_assignment(const int64_t *cost, int p, int *col_to_row, int64_t *total);

/**
 * \brief Bottleneck perfect matching of a square weight matrix: minimise the largest weight
 *        used. Binary search over the distinct weights, Hopcroft-Karp feasibility test.
 * @param[in]  weight p x p row-major weights; INT64_MAX marks a forbidden pair.
 * @param[in]  p      size, >= 1.
 * @param[out] col_to_row p entries: the row matched to each column. Untouched on failure.
 * @param[out] bottleneck the largest weight used, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointers, p < 1, or no perfect matching avoids
 *         the forbidden pairs. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_bottleneck(const int64_t *weight, int p, int *col_to_row,
                              int64_t *bottleneck);

#ifdef __cplusplus
}
#endif
#endif
