/**
 * \file numatile/pool.h
 * \brief Memory pools: matrices that reuse memory already faulted in.
 *
 * Allocating a matrix costs page faults: on the machines numatile targets the first touch of
 * fresh memory runs at 1.4-1.9 GB/s, ten times slower than a parallel copy, so a
 * redistribution into a new matrix can spend more time allocating than copying. A pool keeps
 * the memory of destroyed matrices (page-aligned runs per domain, bound to the domain's node
 * and already faulted in) and hands it to the next matrix of that domain: an application that
 * redistributes repeatedly (each iteration into a new matrix, the old one destroyed) then pays
 * no page fault after the first round. Runs are carved from the smallest free run that fits
 * and neighbouring runs merge, so matrices of other tile sizes and layouts reuse them too.
 *
 * Use: nt_mempool_create(), then nt_matrix_set_pool() on matrices created without memory
 * (::NT_MATRIX_NOALLOC) before nt_matrix_alloc() or nt_plan_execute() gives them memory;
 * nt_matrix_destroy() returns their memory to the pool. Memory taken from a pool is zeroed
 * (a matrix starts at zero) with streaming stores, not page faults; when nt_plan_execute()
 * allocates a new target, memory under the submatrix it writes is not zeroed first (nothing
 * can fail between the allocation and the copies that overwrite it).
 *
 * Errors follow numatile/error.h.
 *
 * Threads: a pool serves one thread at a time (matrices that share a pool are allocated and
 * destroyed by one thread at a time).
 */
#ifndef NUMATILE_POOL_H
#define NUMATILE_POOL_H

#include <stddef.h>

#include "numatile/error.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Opaque memory pool over the domains of one topology. */
typedef struct nt_mempool nt_mempool_t;

/**
 * \brief An empty pool for the domains of topo.
 * @param[in]  topo a physical or virtual topology (borrowed: it must outlive the pool).
 * @param[out] out  the pool, to free with nt_mempool_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument. @retval NT_ENOTSUP a synthetic
 *         topology (it has no memory). @retval NT_ENOMEM allocation failed.
 */
nt_status nt_mempool_create(const nt_topo_t *topo, nt_mempool_t **out);

/**
 * \brief Free a pool and return all the memory it holds to the system. Matrices attached to
 *        it must be destroyed first.
 * @param[in] pool a pool, or NULL (then nothing happens).
 */
void nt_mempool_destroy(nt_mempool_t *pool);

/**
 * \brief Bytes a pool holds for one domain (free memory, ready for the next matrix).
 * @param[in]  pool   a pool.
 * @param[in]  domain a domain of the pool's topology.
 * @param[out] bytes  the bytes held (whole pages).
 * @retval NT_OK success. @retval NT_EINVAL NULL argument or domain out of range.
 */
nt_status nt_mempool_bytes(const nt_mempool_t *pool, int domain, size_t *bytes);

/**
 * \brief Attach a matrix to a pool: its memory will come from the pool first (the kernel
 *        when the pool has no fitting run) and return to it when the matrix is destroyed.
 * @param[in,out] A    a matrix without memory (::NT_MATRIX_NOALLOC, or released).
 * @param[in]     pool a pool on A's topology (A without topology takes the pool's), or NULL to
 *                     detach.
 * @retval NT_OK success. @retval NT_EINVAL A NULL, A with memory, or a pool of another
 *         topology.
 */
nt_status nt_matrix_set_pool(nt_matrix_t *A, nt_mempool_t *pool);

#ifdef __cplusplus
}
#endif
#endif
