/**
 * \file numatile/matrix.h
 * \brief Tiled matrices placed on the domains of a topology.
 *
 * An M x N matrix of elements of any size, optionally typed (::nt_dtype: float, double, complex
 * float, complex double, which the tile kernels compute on; nt_matrix_set_dtype()), is cut in MB x
 * NB tiles (the last tile row and tile column may be partial); a tile map (numatile/dist.h) gives
 * the domain of every tile. Two layouts:
 * - ::NT_LAYOUT_TILE: every tile contiguous, column-major inside (leading dimension = the
 *   tile's row count), allocated on its domain. Tiles of at least one page start on a page
 *   boundary and own whole pages (so they can be migrated with move_pages); smaller tiles are
 *   packed, cache-line aligned, in one buffer per domain.
 * - ::NT_LAYOUT_SCALAPACK: every domain holds one local matrix, column-major as LAPACK, on that
 *   domain. The tiles of each domain must form a Cartesian product of tile rows x tile columns
 *   (true for every 2D block-cyclic map, relabelled or not); the local matrix is that product in
 *   global order, so tile (i,j) of domain d sits at local tile row = rank of i among d's tile
 *   rows. Tiles then share the domain's leading dimension. Each local matrix is allocated
 *   64 KiB to 1 MiB longer than it holds (a different tail per domain, zeroed, never addressed),
 *   so that local matrices of power-of-two sizes are not a power of two apart: copies walking
 *   the same column of several of them then meet different cache sets and memory banks.
 * - ::NT_LAYOUT_LAPACK: one global column-major array (first element, leading dimension lda
 *   >= m); tile (i,j) is its sub-block at element (i*mb, j*nb), with leading dimension lda, owned
 *   by a domain through any tile map. nt_matrix_create() allocates it with lda = m, each page on
 *   the node of the domain owning most of its bytes; nt_matrix_wrap_lapack() (numatile/wrap.h)
 *   wraps an application's array. lld[] then holds lda for every domain, so nt_matrix_tile_ld()
 *   is the same as for ::NT_LAYOUT_SCALAPACK.
 *
 * The descriptor is visible (as PLASMA's plasma_desc_t) so tile kernels can use the inline
 * accessors below; treat every field as read-only. A matrix may be created without memory
 * (::NT_MATRIX_NOALLOC), for planning only, also on a synthetic topology or with no topology.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: functions on distinct matrices may run in several threads at once. On one matrix,
 * the read-only ones (queries, nt_matrix_compare(), nt_matrix_check_pattern(), placement
 * reports) may run concurrently; those that change it (alloc, fill, set_owner, destroy) need
 * the matrix to themselves.
 */
#ifndef NUMATILE_MATRIX_H
#define NUMATILE_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Storage layout of a tiled matrix. */
typedef enum nt_layout {
    NT_LAYOUT_TILE = 0,     /**< each tile contiguous, column-major inside */
    NT_LAYOUT_SCALAPACK = 1, /**< each domain's local matrix column-major (LAPACK) */
    NT_LAYOUT_LAPACK = 2     /**< one global column-major array, tiles are its sub-blocks */
} nt_layout;

/**
 * \brief Element type of a tiled matrix. The type fixes the element size (nt_dtype_size());
 *        the tile kernels pick their precision from it. Complex elements are stored as C11's
 *        float _Complex / double _Complex (and Fortran's COMPLEX): real part, then imaginary.
 */
typedef enum nt_dtype {
    /** Untyped (what nt_matrix_create() makes): raw elements of nt_matrix_shape_t::elem_size
        bytes, for placement and moves. The kernels take an untyped matrix of 8-byte elements
        as double. */
    NT_DTYPE_NONE = 0,
    NT_DTYPE_S = 1, /**< float, 4 bytes */
    NT_DTYPE_D = 2, /**< double, 8 bytes */
    NT_DTYPE_C = 3, /**< complex float, 8 bytes */
    NT_DTYPE_Z = 4  /**< complex double, 16 bytes */
} nt_dtype;

/**
 * \brief Bytes of one element of a type.
 * @param[in] t an element type.
 * @return 4, 8, 8 or 16 for ::NT_DTYPE_S, ::NT_DTYPE_D, ::NT_DTYPE_C, ::NT_DTYPE_Z; 0 for
 *         ::NT_DTYPE_NONE and for values outside the enum.
 */
size_t nt_dtype_size(nt_dtype t);

/**
 * \brief LAPACK's one-letter name of a type.
 * @param[in] t an element type.
 * @return "s", "d", "c" or "z"; "none" for ::NT_DTYPE_NONE; "?" for values outside the enum.
 *         A static string.
 */
const char *nt_dtype_name(nt_dtype t);

/** \brief Flags for nt_matrix_create(). */
enum nt_matrix_flags {
    /** Descriptor only: no memory is allocated (planning; allowed without a topology or on a
        synthetic one). nt_plan_execute() can allocate it later. */
    NT_MATRIX_NOALLOC = 1u << 0
};

/** \brief Sizes of a tiled matrix. */
typedef struct nt_matrix_shape {
    int64_t m;        /**< rows of elements, >= 1 */
    int64_t n;        /**< columns of elements, >= 1 */
    int64_t mb;       /**< rows per tile, 1..INT32_MAX */
    int64_t nb;       /**< columns per tile, 1..INT32_MAX */
    size_t elem_size; /**< bytes per element, >= 1 (nt_dtype_size() of the type the matrix
                           will get from nt_matrix_set_dtype()) */
} nt_matrix_shape_t;

/**
 * \brief Block-cyclic parameters of a tile map, detected at creation:
 *        tile (i,j) -> ((i/smb) mod p) * q + ((j/snb) mod q). p = 0 when the map is not of
 *        that form. When several parameter sets describe the same map, any one is kept (they
 *        give the same tiles to every domain).
 */
typedef struct nt_bcgrid {
    int p;       /**< process rows (0: not block-cyclic) */
    int q;       /**< process columns */
    int64_t smb; /**< super-block rows, in tiles */
    int64_t snb; /**< super-block columns, in tiles */
} nt_bcgrid_t;

/**
 * \brief The block-cyclic parameters of a DIST spec, read without building its map.
 * @param[in]  spec a DIST (nt_tilemap_from_spec()'s grammar).
 * @param[out] grid for `bc2d:PxQ[:SMBxSNB]` its P, Q, SMB, SNB (1 when not given), for `bc1d:P`
 *                  1, P, 1, 1; all zero (p = 0) for a spec of another kind, which is not read.
 * @retval NT_OK success (a spec of another kind included).
 * @retval NT_EINVAL spec or grid NULL, a malformed bc2d or bc1d spec (the message gives the
 *                   position and the reason, as nt_tilemap_from_spec()'s).
 * @retval NT_ERANGE a number overflows, or P * Q is more than INT_MAX.
 */
nt_status nt_tilemap_spec_grid(const char *spec, nt_bcgrid_t *grid);

/** \brief A tiled matrix. Read-only for callers; create with nt_matrix_create(). */
typedef struct nt_matrix {
    int64_t m;               /**< rows, in elements */
    int64_t n;               /**< columns, in elements */
    int64_t mb;              /**< rows of a tile (the last tile row may have fewer) */
    int64_t nb;              /**< columns of a tile (the last tile column may have fewer) */
    int64_t mt;              /**< tile rows: ceil(m/mb) */
    int64_t nt;              /**< tile columns: ceil(n/nb) */
    size_t elem_size;        /**< bytes per element */
    nt_dtype dtype;          /**< element type (::NT_DTYPE_NONE: untyped) */
    nt_layout layout;        /**< storage layout */
    int ndomains;            /**< label range of owner[] (the map's ndomains) */
    const nt_topo_t *topo;   /**< borrowed topology (may be NULL without memory) */
    int *owner;              /**< mt*nt domains, row-major: owner[i*nt + j] */
    nt_bcgrid_t grid;        /**< block-cyclic parameters of owner[], p = 0 if none */
    bool allocated;          /**< true when tile[] points to memory */
    char **tile;             /**< mt*nt tile addresses (row-major), NULL when not allocated */
    int64_t *lld;            /**< SCALAPACK: leading dimension of each domain's local matrix
                                  (ndomains entries); LAPACK: lda in every entry; NULL for
                                  TILE */
    struct nt_matrix_mem *mem; /**< internal: buffers and their ownership */
    /** Per-tile leading dimensions (mt*nt, row-major), set only for a TILE-layout matrix
        wrapped over tiles whose leading dimension is not their row count
        (nt_matrix_wrap_tiles()); NULL otherwise. Appended last: the struct is only ever
        allocated by the library, so code built against older headers keeps its offsets. */
    int64_t *tile_ld;
} nt_matrix_t;

/**
 * \brief Rows of tile row i.
 * @param[in] A a matrix (not NULL).
 * @param[in] i tile row, 0..mt-1 (not checked).
 * @return mb, or fewer for the last tile row.
 */
static inline int64_t nt_matrix_tile_rows(const nt_matrix_t *A, int64_t i)
{
    return i < A->mt - 1 ? A->mb : A->m - (A->mt - 1) * A->mb;
}

/**
 * \brief Columns of tile column j.
 * @param[in] A a matrix (not NULL).
 * @param[in] j tile column, 0..nt-1 (not checked).
 * @return nb, or fewer for the last tile column.
 */
static inline int64_t nt_matrix_tile_cols(const nt_matrix_t *A, int64_t j)
{
    return j < A->nt - 1 ? A->nb : A->n - (A->nt - 1) * A->nb;
}

/**
 * \brief Domain of tile (i,j).
 * @param[in] A a matrix (not NULL).
 * @param[in] i tile row, 0..mt-1 (not checked).
 * @param[in] j tile column, 0..nt-1 (not checked).
 * @return owner[i*nt + j], in 0..ndomains-1.
 */
static inline int nt_matrix_tile_domain(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return A->owner[i * A->nt + j];
}

/**
 * \brief Address of tile (i,j)'s first element.
 * @param[in] A a matrix (not NULL).
 * @param[in] i tile row, 0..mt-1 (not checked).
 * @param[in] j tile column, 0..nt-1 (not checked).
 * @return the address, owned by the matrix; NULL when the matrix has no memory.
 */
static inline void *nt_matrix_tile(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return A->tile ? (void *)A->tile[i * A->nt + j] : NULL;
}

/**
 * \brief Leading dimension (in elements) of tile (i,j).
 * @param[in] A a matrix (not NULL).
 * @param[in] i tile row, 0..mt-1 (not checked).
 * @param[in] j tile column, 0..nt-1 (not checked).
 * @return tile_ld[i*nt + j] when the matrix has per-tile leading dimensions (wrapped tiles);
 *         else the tile's rows for ::NT_LAYOUT_TILE, the local matrix's leading dimension of
 *         the tile's domain for ::NT_LAYOUT_SCALAPACK, lda for ::NT_LAYOUT_LAPACK.
 */
static inline int64_t nt_matrix_tile_ld(const nt_matrix_t *A, int64_t i, int64_t j)
{
    if (A->tile_ld)
        return A->tile_ld[i * A->nt + j];
    return A->layout == NT_LAYOUT_TILE ? nt_matrix_tile_rows(A, i)
                                       : A->lld[A->owner[i * A->nt + j]];
}

/**
 * \brief Address of element (r,c).
 * @param[in] A a matrix with memory (not NULL).
 * @param[in] r global row, 0..m-1 (not checked).
 * @param[in] c global column, 0..n-1 (not checked).
 * @return the element's address (elem_size bytes), owned by the matrix.
 */
static inline void *nt_matrix_elem(const nt_matrix_t *A, int64_t r, int64_t c)
{
    int64_t i = r / A->mb, j = c / A->nb;
    return A->tile[i * A->nt + j] +
           ((size_t)((c - j * A->nb) * nt_matrix_tile_ld(A, i, j) + (r - i * A->mb))) *
               A->elem_size;
}

/**
 * \brief Create a tiled matrix from a tile map.
 * @param[in]  topo   the topology; may be NULL with ::NT_MATRIX_NOALLOC. Borrowed: it must
 *                    outlive the matrix. Memory needs a physical or virtual topology.
 * @param[in]  shape  sizes (see ::nt_matrix_shape_t for the constraints).
 * @param[in]  map    tile map with mt = ceil(m/mb) and nt = ceil(n/nb) (copied; the caller
 *                    keeps it); every owner below the topology's domain count.
 * @param[in]  layout ::NT_LAYOUT_TILE, ::NT_LAYOUT_SCALAPACK when each domain's tiles form
 *                    a Cartesian product of tile rows and tile columns, or ::NT_LAYOUT_LAPACK
 *                    (one array, lda = m; its pages are placed by majority of bytes, see
 *                    nt_matrix_place() in numatile/wrap.h; a memory pool is not used for it).
 * @param[in]  flags  0 or ::NT_MATRIX_NOALLOC.
 * @param[out] out    the matrix, to free with nt_matrix_destroy(); untouched on failure.
 *                    With memory, every element is zero and every tile is on its domain.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  NULL argument, bad sizes, a map of another grid, an owner outside the
 *                    topology, a layout the map does not allow, an unknown flag.
 * @retval NT_ERANGE  a size overflows.
 * @retval NT_ENOTSUP memory asked on a synthetic topology.
 * @retval NT_ENOSPACE the tiles (on their owners' nodes) or the descriptor's tables need more
 *                    memory than the machine has free: checked before anything is allocated.
 * @retval NT_ENOMEM  allocation failed (nothing is kept).
 * @retval NT_ESYS    binding the memory failed.
 */
nt_status nt_matrix_create(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                           const nt_tilemap_t *map, nt_layout layout, unsigned flags,
                           nt_matrix_t **out);

/**
 * \brief Bytes creating a matrix of this shape takes, to size a request before anything is
 *        allocated (nt_mem_room()).
 *
 * Counts the per-tile tables (the tile map's owners, the descriptor's owners, tile pointers and
 * ownership flags) and, with memory, the elements, each tile of a page or more rounded up to
 * whole pages (it gets its own mapping). An estimate from above for ::NT_LAYOUT_TILE; the
 * ScaLAPACK layout takes no more. Nothing is allocated; safe from several threads.
 * @param[in] shape       the sizes (see ::nt_matrix_shape_t).
 * @param[in] with_memory count the elements too (false: the descriptor of ::NT_MATRIX_NOALLOC).
 * @return the bytes; UINT64_MAX when they overflow, shape is NULL or a size is below 1.
 */
uint64_t nt_matrix_bytes(const nt_matrix_shape_t *shape, bool with_memory);

/**
 * \brief Create a tiled matrix from a DIST spec (nt_tilemap_from_spec()).
 * @param[in]  topo     as for nt_matrix_create().
 * @param[in]  shape    sizes.
 * @param[in]  spec     DIST spec, e.g. "bc2d:2x2" or "random:7".
 * @param[in]  ndomains domain count for the spec (0 = as the spec says; random and balanced
 *                      need it; with 0 and a topology, the topology's domain count is used for
 *                      those two).
 * @param[in]  layout   as for nt_matrix_create().
 * @param[in]  flags    as for nt_matrix_create().
 * @param[out] out      the matrix; untouched on failure.
 * @retval NT_OK success. @retval other the codes of nt_tilemap_from_spec() and
 *         nt_matrix_create().
 */
nt_status nt_matrix_create_spec(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                const char *spec, int ndomains, nt_layout layout,
                                unsigned flags, nt_matrix_t **out);

/**
 * \brief Give a matrix an element type (or take it away with ::NT_DTYPE_NONE). Matrices are
 *        created untyped; to make a typed one, create it with shape.elem_size =
 *        nt_dtype_size(t) and set the type right after. Only the descriptor changes (the bytes
 *        are not converted), so this may be called with or without memory.
 * @param[in,out] A a matrix (needs the matrix to itself, as the other changing calls).
 * @param[in]     t ::NT_DTYPE_NONE, ::NT_DTYPE_S, ::NT_DTYPE_D, ::NT_DTYPE_C or ::NT_DTYPE_Z.
 * @retval NT_OK     success.
 * @retval NT_EINVAL A NULL, t not an ::nt_dtype, or A's element size differs from
 *                   nt_dtype_size(t) (A is unchanged).
 */
nt_status nt_matrix_set_dtype(nt_matrix_t *A, nt_dtype t);

/**
 * \brief Element type of a matrix.
 * @param[in] A a matrix, or NULL.
 * @return the type set by nt_matrix_set_dtype(); ::NT_DTYPE_NONE when untyped or A is NULL.
 */
nt_dtype nt_matrix_dtype(const nt_matrix_t *A);

/**
 * \brief Free a matrix and the memory it owns (tiles it adopted included; the borrowed
 *        topology is not freed).
 * @param[in] A a matrix, or NULL (then nothing happens).
 */
void nt_matrix_destroy(nt_matrix_t *A);

/**
 * \brief Allocate the memory of a matrix created with ::NT_MATRIX_NOALLOC (each tile or local
 *        matrix on its domain, zero-filled). On failure everything taken is released and the
 *        matrix is unchanged.
 * @param[in,out] A a matrix without memory.
 * @retval NT_OK success. @retval NT_EINVAL A NULL, already allocated, or no topology.
 * @retval NT_ENOTSUP synthetic topology. @retval NT_ENOSPACE a domain's node has not enough
 *         free memory (checked before allocating). @retval NT_ENOMEM, NT_ESYS allocation
 *         failed.
 */
nt_status nt_matrix_alloc(nt_matrix_t *A);

/**
 * \brief Caller's value function for nt_matrix_fill().
 * @param[in]  r, c global element coordinates (0-based).
 * @param[out] elem where to write the element's elem_size bytes.
 * @param[in]  elem_size bytes per element.
 * @param[in]  arg the caller's pointer.
 */
typedef void (*nt_matrix_value_fn)(int64_t r, int64_t c, void *elem, size_t elem_size,
                                   void *arg);

/**
 * \brief Write every element of A from a function of its global coordinates.
 * @param[in,out] A  a matrix with memory.
 * @param[in]     fn value function (not NULL).
 * @param[in]     arg passed to fn.
 * @retval NT_OK success. @retval NT_EINVAL A or fn NULL, or A without memory.
 */
nt_status nt_matrix_fill(nt_matrix_t *A, nt_matrix_value_fn fn, void *arg);

/**
 * \brief Deterministic pattern value of element (r,c): elem_size bytes drawn from splitmix64
 *        of (seed, r, c). Same on every machine; with 8 or more bytes per element, distinct
 *        coordinates give distinct values with overwhelming probability.
 * @param[in]  seed      pattern seed.
 * @param[in]  r, c      global coordinates.
 * @param[out] elem      elem_size bytes.
 * @param[in]  elem_size bytes per element.
 */
void nt_matrix_pattern_value(uint64_t seed, int64_t r, int64_t c, void *elem, size_t elem_size);

/**
 * \brief Fill A with nt_matrix_pattern_value(seed, r, c) at every element (r,c).
 * @param[in,out] A    a matrix with memory.
 * @param[in]     seed pattern seed.
 * @retval NT_OK success. @retval NT_EINVAL A NULL or without memory.
 */
nt_status nt_matrix_fill_pattern(nt_matrix_t *A, uint64_t seed);

/** \brief A submatrix with displacements: rows x cols elements taken at (src_row, src_col) of
 *         the source and placed at (dst_row, dst_col) of the target. */
typedef struct nt_sub {
    int64_t rows;    /**< rows of the submatrix, >= 0 (0: empty) */
    int64_t cols;    /**< columns of the submatrix, >= 0 (0: empty) */
    int64_t src_row; /**< top row in the source, >= 0 */
    int64_t src_col; /**< left column in the source, >= 0 */
    int64_t dst_row; /**< top row in the target, >= 0 */
    int64_t dst_col; /**< left column in the target, >= 0 */
} nt_sub_t;

/**
 * \brief Count elements of the submatrix whose bytes differ between target and source:
 *        dst(dst_row + x, dst_col + y) vs src(src_row + x, src_col + y).
 * @param[in]  dst, src   matrices with memory and the same element size.
 * @param[in]  sub        the submatrix, or NULL for the whole matrices (same m and n).
 * @param[out] mismatches number of differing elements.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, no memory, element sizes differ,
 *         submatrix out of bounds.
 */
nt_status nt_matrix_compare(const nt_matrix_t *dst, const nt_matrix_t *src, const nt_sub_t *sub,
                            int64_t *mismatches);

/**
 * \brief Count elements of A that differ from nt_matrix_pattern_value(seed, r + dr, c + dc),
 *        over the rows x cols block at (row, col) of A. With dr = src_row - dst_row and
 *        dc = src_col - dst_col this checks a target against a pattern-filled source.
 * @param[in]  A          a matrix with memory.
 * @param[in]  seed       pattern seed.
 * @param[in]  row, col   top-left corner of the block in A.
 * @param[in]  rows, cols extent of the block (inside A).
 * @param[in]  dr, dc     coordinate shift applied before evaluating the pattern.
 * @param[out] mismatches differing elements.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, no memory, block out of bounds.
 */
nt_status nt_matrix_check_pattern(const nt_matrix_t *A, uint64_t seed, int64_t row, int64_t col,
                                  int64_t rows, int64_t cols, int64_t dr, int64_t dc,
                                  int64_t *mismatches);

/** \brief Result of nt_matrix_check_placement(). */
typedef struct nt_placement_report {
    int64_t pages;      /**< pages examined (pages of every tile, or every local matrix) */
    int64_t on_domain;  /**< pages on the node of the owning domain */
    int64_t absent;     /**< pages not populated */
    int64_t elsewhere;  /**< pages on another node, or whose status was an error */
} nt_placement_report_t;

/**
 * \brief Check, page by page (move_pages status queries through nt_mem_where()), that every
 *        page of every tile (TILE layout) or local matrix (SCALAPACK) lies on the NUMA node of
 *        the domain that owns it. For ::NT_LAYOUT_LAPACK and wrapped matrices (numatile/wrap.h),
 *        whose pages may hold elements of several owners, each page holding elements counts as
 *        on_domain when it is on the node whose domains own most of its bytes (the rule of
 *        nt_matrix_place()).
 * @param[in]  A   a matrix with memory on a physical or virtual topology.
 * @param[out] rep the counts; untouched on failure.
 * @retval NT_OK success (the report may still show misplaced pages).
 * @retval NT_EINVAL NULL argument or no memory. @retval NT_ENOMEM, NT_ESYS query failed.
 */
nt_status nt_matrix_check_placement(const nt_matrix_t *A, nt_placement_report_t *rep);

#ifdef __cplusplus
}
#endif
#endif
