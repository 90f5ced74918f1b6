/**
 * \file numatile/convert.h
 * \brief Converting a LAPACK (column-major) array to numatile's tile layout and back, in the
 *        same memory with a bounded workspace, or into another buffer.
 *
 * A LAPACK array of m x n elements of elem_size bytes, column-major with leading dimension
 * lda >= m (element (r,c) at offset c*lda + r), is cut in MB x NB tiles (the last tile row
 * and tile column may be partial). In the **tile layout** every tile is contiguous and
 * column-major inside, with the tile's row count as leading dimension (as ::NT_LAYOUT_TILE),
 * and the tiles follow each other column of tiles after column of tiles, packed from the
 * start of the buffer: tile (i,j), of mi rows and nj columns, starts at element offset
 *
 *     j*NB*m + i*MB*nj
 *
 * so tile column j occupies the m*nj elements [j*NB*m, (j*NB + nj)*m), exactly where the
 * columns of its panel lie once the array is packed to lda = m, and element (r,c) is element
 * (r mod MB, c mod NB) of tile (r/MB, c/NB). The tile layout uses m*n elements; with
 * lda > m the rest of the array's (n-1)*lda + m elements is left unspecified by the
 * conversion, as are the rows m..lda-1 of each column after the conversion back (only the
 * m x n elements are kept). nt_convert_tile_offset() gives the offsets, for tile pointers
 * into the converted buffer.
 *
 * Errors follow numatile/error.h. Nothing is lost: a conversion that fails (bad argument,
 * allocation) returns before touching the array, which is then as it was.
 *
 * Threads: the conversions run OpenMP threads of their own; several conversions of distinct
 * arrays may run at once from several threads.
 */
#ifndef NUMATILE_CONVERT_H
#define NUMATILE_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Geometry of a conversion: the LAPACK array and the tiles it is cut in. */
typedef struct nt_convert_geom {
    int64_t m;        /**< rows, >= 1 */
    int64_t n;        /**< columns, >= 1 */
    int64_t lda;      /**< leading dimension of the LAPACK array, in elements, >= m */
    int64_t mb;       /**< rows per tile, >= 1 (a value above m gives one tile row) */
    int64_t nb;       /**< columns per tile, >= 1 (a value above n gives one tile column) */
    size_t elem_size; /**< bytes per element, >= 1 */
} nt_convert_geom_t;

/** \brief Options of an in-place conversion. */
typedef struct nt_convert_opts {
    /** Bytes of workspace the conversion may allocate, at least nt_convert_min_budget();
        0 = the default: 1% of the array's bytes, or that least budget when it is larger. */
    size_t budget_bytes;
    /** OpenMP threads, >= 0; 0 = omp_get_max_threads(). Fewer run when the budget or the
        tile columns do not give each one its share. */
    int threads;
} nt_convert_opts_t;

/** \brief What an in-place conversion did. */
typedef struct nt_convert_stats {
    size_t budget_bytes;    /**< the budget in force (the default resolved) */
    size_t workspace_bytes; /**< the most workspace allocated at once (<= budget_bytes) */
    int threads;            /**< threads that permuted tile columns (0 when no tile column
                                 needs it: one tile row, or one column per tile) */
    int passes;             /**< passes over the array: packing the columns (when lda > m)
                                 and permuting the tile columns (when needed): 0, 1 or 2 */
    double seconds;         /**< wall time of the conversion, allocation included */
} nt_convert_stats_t;

/**
 * \brief Element offset of tile (i,j) in the tile layout (see the top of this file).
 * @param[in]  g      the geometry (lda is not used).
 * @param[in]  i      tile row, 0..ceil(m/mb)-1.
 * @param[in]  j      tile column, 0..ceil(n/nb)-1.
 * @param[out] offset elements from the buffer's start to the tile's first element (multiply
 *                    by elem_size for bytes); the tile's leading dimension is its row count.
 *                    Untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL g or offset NULL, a size below its minimum, i or j out of range.
 * @retval NT_ERANGE the array's size in bytes overflows.
 */
nt_status nt_convert_tile_offset(const nt_convert_geom_t *g, int64_t i, int64_t j,
                                 int64_t *offset);

/**
 * \brief The least workspace budget an in-place conversion of this geometry accepts: one
 *        thread's bitmap of the tile column's moving units and one unit (a unit is
 *        gcd(m, mb) elements: every tile column piece is made of whole units).
 * @param[in]  g     the geometry.
 * @param[out] bytes the least budget; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL g or bytes NULL, a size below its minimum.
 * @retval NT_ERANGE a size overflows.
 */
nt_status nt_convert_min_budget(const nt_convert_geom_t *g, size_t *bytes);

/**
 * \brief Convert a LAPACK array to the tile layout in the same memory.
 *
 * Columns are first packed to leading dimension m (when lda > m), then each tile column's
 * m x NB panel is permuted into its tiles by following the permutation's cycles, in units of
 * gcd(m, mb) elements, one thread per tile column. Every byte of workspace is allocated
 * before the array is touched.
 * @param[in,out] a  the array: (n-1)*lda + m elements of g->elem_size bytes (any alignment).
 *                   On success it holds the tile layout; on failure it is unchanged.
 * @param[in]     g  the geometry.
 * @param[in]     o  options, or NULL for the defaults.
 * @param[out]    st what the conversion did, or NULL; untouched on failure.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  a or g NULL, a size below its minimum, lda < m, threads < 0, a budget
 *                    below nt_convert_min_budget() (the message says how much it needs).
 * @retval NT_ERANGE  the array's size in bytes overflows.
 * @retval NT_ENOMEM  the workspace could not be allocated (the array is unchanged).
 */
nt_status nt_convert_lapack_to_tile(void *a, const nt_convert_geom_t *g,
                                    const nt_convert_opts_t *o, nt_convert_stats_t *st);

/**
 * \brief Convert an array in the tile layout back to a LAPACK array in the same memory (the
 *        inverse of nt_convert_lapack_to_tile(), with the same algorithm run backwards).
 * @param[in,out] a  the array, as for nt_convert_lapack_to_tile(): (n-1)*lda + m elements,
 *                   the first m*n in the tile layout. On success element (r,c) is at
 *                   c*lda + r; on failure the array is unchanged.
 * @param[in]     g  the geometry.
 * @param[in]     o  options, or NULL for the defaults.
 * @param[out]    st what the conversion did, or NULL; untouched on failure.
 * @retval NT_OK success. @retval other as nt_convert_lapack_to_tile().
 */
nt_status nt_convert_tile_to_lapack(void *a, const nt_convert_geom_t *g,
                                    const nt_convert_opts_t *o, nt_convert_stats_t *st);

/**
 * \brief Copy a LAPACK array into another buffer in the tile layout (the out-of-place
 *        conversion), tiles copied in parallel, large copies with streaming stores.
 * @param[in]  a       the LAPACK array ((n-1)*lda + m elements).
 * @param[out] t       the tile buffer (m*n elements), not overlapping a.
 * @param[in]  g       the geometry.
 * @param[in]  threads OpenMP threads, >= 0; 0 = omp_get_max_threads().
 * @retval NT_OK success. @retval NT_EINVAL a, t or g NULL, a bad size, lda < m,
 *         threads < 0, buffers that overlap. @retval NT_ERANGE a size overflows.
 */
nt_status nt_convert_lapack_to_tile_copy(const void *a, void *t, const nt_convert_geom_t *g,
                                         int threads);

/**
 * \brief Copy an array in the tile layout into a LAPACK array in another buffer (rows m..lda-1
 *        of the target are not written).
 * @param[in]  t       the tile buffer (m*n elements).
 * @param[out] a       the LAPACK array ((n-1)*lda + m elements), not overlapping t.
 * @param[in]  g       the geometry.
 * @param[in]  threads OpenMP threads, >= 0; 0 = omp_get_max_threads().
 * @retval NT_OK success. @retval other as nt_convert_lapack_to_tile_copy().
 */
nt_status nt_convert_tile_to_lapack_copy(const void *t, void *a, const nt_convert_geom_t *g,
                                         int threads);

#ifdef __cplusplus
}
#endif
#endif
