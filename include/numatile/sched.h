/**
 * \file numatile/sched.h
 * \brief One-port step schedules: split the transfers between domains into phases in which
 *        every domain sends to at most one domain and receives from at most one domain.
 *
 * A transfer matrix q (p x p, q[i * p + k] = units moving from domain i to domain k; the
 * diagonal stays put and is ignored) is the edge multiset of a bipartite multigraph whose
 * maximum degree is RedistSteps = max_i max(s_i, r_i). By König's theorem its edges split into
 * exactly RedistSteps matchings. The schedule groups equal matchings: phase t moves count[t]
 * units along each of its (src, dst) pairs, senders distinct and receivers distinct; the
 * phases add up to exactly the off-diagonal of q and the counts sum to RedistSteps. It is built
 * by padding q with dummy units (at most 2p - 1 dummy cells, north-west corner rule) to a
 * regular bipartite multigraph and peeling perfect matchings with multiplicities
 * (Birkhoff-von Neumann style): each peel empties at least one cell, so there are at most
 * (non-zero off-diagonal entries of q) + 2p - 1 <= p^2 + p phases whatever the volume. Time:
 * O(p^2) to set up, then per phase O(p) plus augmenting-path repairs over the non-empty cells
 * (a few milliseconds for p = 64 dense, about 0.4 s for p = 256 dense, whose output alone has
 * about 10^7 pairs).
 *
 * Errors follow numatile/error.h.
 *
 * Threads: every function may be called from several threads at once on distinct schedules.
 */
#ifndef NUMATILE_SCHED_H
#define NUMATILE_SCHED_H

#include <stdint.h>

#include "numatile/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A one-port schedule, created by nt_sched_build(), read-only for callers.
 *
 * Phase t has count[t] units per pair and the pairs first[t] .. first[t+1]-1 of src/dst.
 */
typedef struct nt_schedule {
    int p;            /**< domains */
    int nphases;      /**< number of phases, >= 0 */
    int64_t steps;    /**< sum of count[] = RedistSteps of the matrix */
    int64_t npairs;   /**< total pairs over all phases = first[nphases] */
    int64_t *count;   /**< nphases units per pair, each >= 1 */
    int64_t *first;   /**< nphases + 1 offsets into src and dst */
    int *src;         /**< npairs sending domains */
    int *dst;         /**< npairs receiving domains (src[x] != dst[x]) */
} nt_schedule_t;

/**
 * \brief Build the one-port schedule of a transfer matrix.
 * @param[in]  q   p x p row-major transfer matrix, entries >= 0 (diagonal ignored); the row
 *                 and column sums must fit in int64.
 * @param[in]  p   domains, >= 1.
 * @param[out] out the schedule, to free with nt_sched_destroy(); untouched on failure.
 * @retval NT_OK     success (a matrix without off-diagonal transfers gives 0 phases).
 * @retval NT_EINVAL NULL pointer, p < 1, or a negative entry (named in the message).
 * @retval NT_ERANGE a row or column sum overflows.
 * @retval NT_ENOMEM allocation failed (O(p^2) memory).
 */
nt_status nt_sched_build(const int64_t *q, int p, nt_schedule_t **out);

/**
 * \brief Free a schedule and its arrays.
 * @param[in] s a schedule from nt_sched_build(), or NULL (then nothing happens).
 */
void nt_sched_destroy(nt_schedule_t *s);

/**
 * \brief Check a schedule against a transfer matrix: distinct senders and receivers per phase,
 *        no self-pair, positive counts, per-pair totals equal to the off-diagonal of q, and the
 *        number of steps equal to max_i max(s_i, r_i).
 * @param[in] s the schedule (not NULL).
 * @param[in] q p x p transfer matrix, p = s->p.
 * @retval NT_OK the schedule is valid and of exact length.
 * @retval NT_EINVAL it is not; the message says where.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_sched_verify(const nt_schedule_t *s, const int64_t *q);

#ifdef __cplusplus
}
#endif
#endif
