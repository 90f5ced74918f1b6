/**
 * \file numatile/wrap.h
 * \brief Bring your own memory: tiled matrices over an application's arrays, and placing the
 *        application's pages on the nodes of the domains that own them.
 *
 * An application that already holds its matrix (one column-major array with a leading
 * dimension as LAPACK takes it, tile buffers of its own as PLASMA keeps them, or per-domain
 * local arrays in the ScaLAPACK layout) wraps it in an ::nt_matrix_t without copying: the
 * matrix borrows the memory, nt_matrix_destroy() never frees it, and every numatile call that
 * takes a matrix (plans and executions as source or target, the GEMM and QR kernels, the task
 * API) then reads and writes the caller's elements in place.
 *
 * What the caller keeps alive: the topology (as for nt_matrix_create()) and the wrapped memory,
 * until nt_matrix_destroy(); the arrays of pointers and leading dimensions given to the wrap
 * calls are copied and may be freed at once. While numatile runs on the matrix, the caller
 * must not free, move or write the memory from other threads.
 *
 * A wrapped matrix can be a target with memory: a plan executes into it in copy mode, under its
 * own map (nt_plan_execute() refuses move mode and a relabelled target, as for any placed
 * target). The in-place executor (nt_exec_opts_t::inplace) refuses wrapped matrices: it would
 * hand the caller's memory to another matrix.
 *
 * Errors follow numatile/error.h: bad arguments give ::NT_EINVAL with a message naming the
 * argument (nt_last_error()), and the output is untouched on failure.
 *
 * Threads: the wrap calls may run in several threads at once; nt_matrix_place() and
 * nt_matrix_first_touch() need the matrix to themselves (they change where its pages are).
 */
#ifndef NUMATILE_WRAP_H
#define NUMATILE_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Wrap a column-major array (LAPACK's A with LDA) as an ::NT_LAYOUT_LAPACK matrix:
 *        tile (i,j) is the sub-block at element (i*mb, j*nb), leading dimension lda.
 *
 * The matrix borrows a: it must hold (n-1)*lda + m elements of shape->elem_size bytes and stay
 * allocated until nt_matrix_destroy(). Element (r,c) is at a + (r + c*lda)*elem_size; rows m..lda-1
 * of each column are never read or written. A submatrix of a larger array is wrapped by
 * passing its first element and the larger array's lda.
 * @param[in]  topo  a physical or virtual topology (borrowed, as for nt_matrix_create()).
 * @param[in]  shape m, n, mb, nb, elem_size (as for nt_matrix_create()).
 * @param[in]  map   tile map with mt = ceil(m/mb), nt = ceil(n/nb) (copied).
 * @param[in]  a     the first element; aligned to the largest power of two dividing elem_size,
 *                   at most 16 (8 for doubles).
 * @param[in]  lda   leading dimension in elements, >= m.
 * @param[out] out   the matrix, to free with nt_matrix_destroy() (which leaves a alone);
 *                   untouched on failure.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  a NULL argument, lda < m, a misaligned, bad sizes, a map of another grid
 *                    or with an owner outside the topology (the message names which).
 * @retval NT_ERANGE  the array's extent overflows the address space.
 * @retval NT_ENOTSUP a synthetic topology (it has no memory).
 * @retval NT_ENOMEM  out of memory for the descriptor.
 */
nt_status nt_matrix_wrap_lapack(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                const nt_tilemap_t *map, void *a, int64_t lda,
                                nt_matrix_t **out);

/**
 * \brief Wrap tiles the caller allocated (PLASMA style) as an ::NT_LAYOUT_TILE matrix.
 *
 * Tile (i,j), of nt_matrix_tile_rows() x nt_matrix_tile_cols() elements, is column-major at
 * tiles[i*nt + j] with leading dimension ld[i*nt + j]. When every leading dimension equals its
 * tile's rows the matrix is an ordinary TILE-layout matrix; otherwise its per-tile leading
 * dimensions are kept in nt_matrix_t::tile_ld, which nt_matrix_tile_ld() reads (the struct
 * only gained that last field, so the ABI of existing fields is unchanged).
 * @param[in]  topo  a physical or virtual topology (borrowed).
 * @param[in]  shape sizes (as for nt_matrix_create()).
 * @param[in]  map   tile map of the matrix's tile grid (copied).
 * @param[in]  tiles mt*nt tile addresses, row-major (copied; the tiles are borrowed: each must
 *                   stay allocated until nt_matrix_destroy()). Each non-NULL, aligned as in
 *                   nt_matrix_wrap_lapack(); no two tiles may share an element.
 * @param[in]  ld    mt*nt leading dimensions (copied), each >= its tile's rows; NULL: every
 *                   tile's rows (contiguous tiles).
 * @param[out] out   the matrix; untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL a NULL argument or tile, a misaligned tile, ld below a tile's rows,
 *                   overlapping tiles, bad sizes or map (the message names the tile).
 * @retval NT_ERANGE a tile's extent overflows. @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOMEM out of memory.
 */
nt_status nt_matrix_wrap_tiles(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                               const nt_tilemap_t *map, void *const *tiles, const int64_t *ld,
                               nt_matrix_t **out);

/**
 * \brief Wrap per-domain local arrays in the ScaLAPACK layout as an ::NT_LAYOUT_SCALAPACK
 *        matrix.
 *
 * As nt_matrix_create() lays a SCALAPACK matrix out: domain d's tiles must form a product of
 * tile rows x tile columns (every 2D block-cyclic map does), and its local matrix holds them in
 * global order, column-major with leading dimension lld[d] (ScaLAPACK's LLD_): with lr rows and
 * lc columns of d's tiles, local[d] holds (lc-1)*lld[d] + lr elements.
 * @param[in]  topo  a physical or virtual topology (borrowed).
 * @param[in]  shape sizes.
 * @param[in]  map   tile map (copied); map->ndomains entries in local[] and lld[].
 * @param[in]  local the local arrays, one per domain label (copied; the arrays are borrowed).
 *                   NULL allowed for a domain without tiles; aligned as in
 *                   nt_matrix_wrap_lapack(); no two may share an element.
 * @param[in]  lld   leading dimensions (copied), each >= its domain's local rows (ignored for
 *                   a domain without tiles).
 * @param[out] out   the matrix; untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL a NULL argument, a domain with tiles and a NULL array, a misaligned array,
 *                   lld below the local rows, overlapping arrays, a map whose domains' tiles
 *                   do not form grids, bad sizes or map (the message names which).
 * @retval NT_ERANGE an extent overflows. @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOMEM out of memory.
 */
nt_status nt_matrix_wrap_scalapack(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                   const nt_tilemap_t *map, void *const *local,
                                   const int64_t *lld, nt_matrix_t **out);

/**
 * \brief Whether a matrix borrows its memory (made by an nt_matrix_wrap_*() call).
 * @param[in] A a matrix, or NULL.
 * @return true for a wrapped matrix; false otherwise and for NULL.
 */
bool nt_matrix_is_wrapped(const nt_matrix_t *A);

#ifdef __cplusplus
}
#endif
#endif
