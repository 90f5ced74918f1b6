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

/** \brief Flags for nt_matrix_place(). */
enum nt_place_flags {
    /** Move nothing: only report where the pages are (the "before" of a placement). */
    NT_PLACE_QUERY = 1u << 0,
    /** Fail with ::NT_ESYS when a page could not be moved (it is left where it was; the pages
        moved before stay moved). Without it such pages are only counted (pages_failed). */
    NT_PLACE_STRICT = 1u << 1
};

/** \brief What nt_matrix_place() (or nt_matrix_first_touch()) found and did. */
typedef struct nt_place_report {
    int64_t bytes;            /**< element bytes of the matrix: m x n x elem_size */
    int64_t pages;            /**< pages holding them */
    int64_t pages_shared;     /**< pages holding elements of domains on different nodes (0: the
                                   map is page-granular on this memory, and every byte can be
                                   local) */
    int64_t pages_moved;      /**< pages that changed node to their target */
    int64_t pages_already;    /**< pages already on their target node */
    int64_t pages_absent;     /**< pages never touched: nothing to move (nt_matrix_first_touch()
                                   places them) */
    int64_t pages_failed;     /**< populated pages left off their target (move_pages refused, or
                                   a huge page shared with another target) */
    int first_error;          /**< errno of the first refused page, 0 if none */
    int64_t bytes_moved;      /**< pages_moved x the page size: what the kernel migrated */
    int64_t bytes_copied;     /**< bytes copied through numatile buffers: always 0, the pages
                                   move in place (their addresses do not change) */
    int64_t bytes_local;      /**< element bytes on the node of their owning domain, after */
    double local_fraction;    /**< bytes_local / bytes */
    int64_t peak_extra_bytes; /**< the most scratch memory the call held at once (page lists,
                                   the walk's tables): no copy of the array */
    double seconds;           /**< wall time of the call */
    int nnodes;               /**< entries of pages_per_node that may be non-zero */
    int64_t pages_per_node[64]; /**< after the call: pages on each node (0..63) */
} nt_place_report_t;

/**
 * \brief Move a matrix's pages to the nodes of the domains that own them, in place
 *        (move_pages(2): the addresses do not change, nothing is copied through numatile).
 *
 * Each page holding elements goes to the node whose domains own most of its bytes (domains on
 * one node add up; ties go to the lowest node). Where the map is page-granular on the memory
 * (tiles of whole pages, or column blocks of a LAPACK array whose columns fill whole pages)
 * every page then holds only local bytes; elsewhere (2-D tiles whose column pieces are smaller
 * than a page) the report's local_fraction says how much is local. Pages never touched are
 * left alone (counted absent): nt_matrix_first_touch() places those. For any matrix with
 * memory, wrapped or not; meant for wrapped ones. Scratch memory is bounded by a few bytes per
 * page in chunks of at most 1024 pages (and, for layouts other than LAPACK, 24 bytes per tile):
 * no second copy of the array.
 *
 * Transparent huge pages move whole: the kernel migrates a huge page for any address in it, so
 * one that holds elements of several nodes lands on one of them. The call advises the matrix's
 * pages against new huge pages (madvise MADV_NOHUGEPAGE, which the application's mapping
 * keeps), but huge pages already backing the array stay; the report, counted page by page after
 * the moves, says what they leave remote (pages_failed, local_fraction). For page-exact
 * placement advise the array (madvise(a, bytes, MADV_NOHUGEPAGE)) before first writing it, or
 * let nt_matrix_first_touch() do it. A page partly outside the matrix (the first and last of a
 * malloc'ed array) moves with it. Automatic NUMA balancing (kernel.numa_balancing = 1) marks
 * ranges of pages as hinting faults that move_pages reports absent and does not move (Linux
 * 6.1), and later migrates pages toward their users: turn it off where placement matters.
 * @param[in,out] A     a matrix with memory on a physical or virtual topology.
 * @param[in]     flags 0, or a combination of ::nt_place_flags.
 * @param[out]    rep   the report (may be NULL); untouched on failure.
 * @retval NT_OK      success (pages that could not move are counted, not fatal).
 * @retval NT_EINVAL  A NULL, without memory or topology, an unknown flag.
 * @retval NT_ENOTSUP a synthetic topology.
 * @retval NT_ENOMEM  out of memory for the page lists.
 * @retval NT_ESYS    move_pages failed as a whole, or (::NT_PLACE_STRICT) a page could not
 *                    move.
 */
nt_status nt_matrix_place(nt_matrix_t *A, unsigned flags, nt_place_report_t *rep);

/**
 * \brief First touch of an array not touched yet: each page is written first by a thread
 *        bound to a domain on the node that nt_matrix_place() would choose for it, so the
 *        kernel's default (local) policy puts it there without any migration.
 *
 * The touch writes each page's first element byte back with the value it holds (zero for an
 * untouched page), so the call changes no element; pages already populated stay where they
 * are (use nt_matrix_place() for those). The threads of the domains on a node share that
 * node's pages; the pages of a node without cpus are touched by a thread of the first domain
 * with cpus and then moved. The pages are first advised against transparent huge pages
 * (MADV_NOHUGEPAGE; a huge page would go whole to the node of the thread touching it first).
 * Needs the matrix to itself.
 * @param[in,out] A                  a matrix with memory on a physical or virtual topology.
 * @param[in]     threads_per_domain touching threads per domain, >= 1.
 * @param[out]    rep                the report of the nt_matrix_place() run after the touch,
 *                                   which moves what the touch could not place (pages of a
 *                                   node without cpus, or under a process memory policy other
 *                                   than local allocation; usually none); seconds covers both.
 *                                   May be NULL.
 * @retval NT_OK success. @retval NT_EINVAL A NULL, without memory or topology,
 *         threads_per_domain < 1. @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOMEM, NT_ESYS as nt_team_run() (binding a thread failed) and nt_matrix_place().
 */
nt_status nt_matrix_first_touch(nt_matrix_t *A, int threads_per_domain, nt_place_report_t *rep);

#ifdef __cplusplus
}
#endif
#endif
