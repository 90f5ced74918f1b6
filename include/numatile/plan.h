/**
 * \file numatile/plan.h
 * \brief Redistribution plans between two tiled matrices, and their execution.
 *
 * A plan moves a submatrix (with displacements) from a source matrix to a target matrix that
 * may differ in tile size, distribution and layout (Cao et al. 2022). It is pure data: the
 * list of segments (each the intersection of one source tile with one target tile), bytes per
 * domain pair, the predicted volume and one-port steps, and optionally a relabelling of the
 * target's tile map onto the domains (numatile/match.h). Plans never touch matrix memory and
 * cost O(segments). Every target tile is built from at most nine kinds of segments (NW, N, NE,
 * W, I, E, SW, S, SE); the category of a target tile (Cao's Fig. 3, 0..8) is
 * 3 x (min(row pieces, 3) - 1) + (min(column pieces, 3) - 1).
 *
 * For block-cyclic maps on both sides the bytes per domain pair come from closed-form
 * communication sets (Guo et al.: intersections of strided index sets, here extended to
 * CYCLIC(r) and to different domain counts; see nt_cyclic_intersect()).
 *
 * Periodic plans: when both matrices have the ScaLAPACK layout and block-cyclic maps, the plan
 * stores no segment list (with CYCLIC(1) there would be one per element): it keeps the two
 * grids, the submatrix and the target owners, computes its counts in closed form, and the
 * executor walks the local matrices by runs rebuilt from the block-cyclic formulas. Plan time
 * and memory are then O(tile rows + tile columns + target tiles) instead of O(segments);
 * nt_plan_foreach_segment() still lists every segment on demand.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: nt_plan_create() may run in several threads at once, also on shared matrices (it
 * only reads them). A plan belongs to one thread at a time (nt_plan_schedule() fills a cache);
 * nt_plan_execute() of distinct plans on distinct matrices may run concurrently, also from
 * inside an OpenMP parallel region of the caller (tested in tests/unit/test_concurrency.c).
 */
#ifndef NUMATILE_PLAN_H
#define NUMATILE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/match.h"
#include "numatile/matrix.h"
#include "numatile/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Position of a segment inside its target tile (compass, row-major 0..8). */
typedef enum nt_seg_part {
    NT_SEG_NW = 0, NT_SEG_N = 1, NT_SEG_NE = 2,
    NT_SEG_W = 3,  NT_SEG_I = 4, NT_SEG_E = 5,
    NT_SEG_SW = 6, NT_SEG_S = 7, NT_SEG_SE = 8
} nt_seg_part;

/**
 * \brief One segment: a rows x cols block copied from a source tile to a target tile.
 *        Offsets are in elements inside the tiles. Segments are grouped by target tile.
 */
typedef struct nt_segment {
    int64_t src_tile;  /**< source tile index i*nt + j (row-major) */
    int64_t dst_tile;  /**< target tile index */
    int32_t src_row;   /**< first row inside the source tile */
    int32_t src_col;   /**< first column inside the source tile */
    int32_t dst_row;   /**< first row inside the target tile */
    int32_t dst_col;   /**< first column inside the target tile */
    int32_t rows;      /**< rows, >= 1 */
    int32_t cols;      /**< columns, >= 1 */
    int32_t src_dom;   /**< domain of the source tile */
    int32_t dst_dom;   /**< domain of the target tile (after relabelling) */
    uint8_t part;      /**< ::nt_seg_part inside the target tile */
    uint8_t category;  /**< Cao category 0..8 of the target tile */
    uint8_t whole;     /**< 1 when the segment is a whole source tile and a whole target tile
                            of the same shape (fast path: the tile can move as a unit) */
} nt_segment_t;

/** \brief Plan options. Zero-initialise (no relabelling, no schedule). */
typedef struct nt_plan_opts {
    /** Relabel the target map onto the domains before moving: CANONICAL = keep the target map
        as it is; VOLUME, STEPS, LEX, DISTANCE as in numatile/match.h, weighted in bytes. */
    nt_match_objective relabel;
    /** Also build the one-port step schedule (nt_plan_schedule()). */
    bool schedule;
    /** Store one segment per piece even where a periodic plan would do (block-cyclic maps and
        ScaLAPACK layouts on both sides), for callers that read nt_plan_segments(). */
    bool explicit_segments;
} nt_plan_opts_t;

/** \brief Opaque plan. */
typedef struct nt_plan nt_plan_t;

/** \brief Summary of a plan (see nt_plan_info()). */
typedef struct nt_plan_info {
    int ndomains;          /**< domain space of the plan (the machine's domains, or the largest
                                label count of the two maps without a topology) */
    int64_t tiles;         /**< target tiles touched by the submatrix */
    int64_t segments;      /**< segments */
    int64_t elements;      /**< elements of the submatrix */
    int64_t bytes;         /**< bytes of the submatrix */
    int64_t bytes_moved;   /**< bytes whose source and target domains differ */
    int64_t bytes_local;   /**< bytes that stay on their domain */
    int64_t volume_tiles;  /**< target tiles receiving at least one byte from another domain */
    int64_t steps;         /**< one-port bound max_d max(sent_d, received_d), in segments
                                (= tiles when the geometries agree) */
    int64_t steps_bytes;   /**< the same bound in bytes */
    int64_t dist_volume;   /**< bytes moved x hwloc distance (0 without a topology) */
    int64_t category_tiles[9]; /**< target tiles per Cao category */
    int64_t part_segments[9];  /**< segments per ::nt_seg_part */
    bool fast_path;        /**< every segment is whole: tiles move or stay as units */
    bool closed_form;      /**< bytes per domain pair came from the closed-form sets */
    bool periodic;         /**< no stored segment list: block-cyclic ScaLAPACK layouts on both
                                sides (see the file comment); nt_plan_segments() is NULL */
    int64_t memory_bytes;  /**< memory the plan holds (tables, segments, schedule) */
    double seconds;        /**< time spent in nt_plan_create() */
} nt_plan_info_t;

/**
 * \brief Plan moving a submatrix from src to dst.
 * @param[in]  src  source matrix (memory not needed).
 * @param[in]  dst  target matrix (memory not needed); same element size as src. With a
 *                  relabelling, dst's map is read as a partition whose components are placed
 *                  by the plan (component count <= the domain count).
 * @param[in]  sub  the submatrix, or NULL for the whole matrix (src and dst of equal size).
 * @param[in]  opts options, or NULL for the defaults.
 * @param[out] out  the plan, to free with nt_plan_destroy(); untouched on failure.
 * @retval NT_OK     success (an empty submatrix gives a plan with no segments).
 * @retval NT_EINVAL NULL argument, element sizes differ, submatrix out of bounds or negative,
 *                   the matrices on different topologies, relabelling impossible (more
 *                   components than domains), DISTANCE without a topology.
 * @retval NT_ERANGE a count overflows.
 * @retval NT_ENOSPACE the plan's tables (segments, target tiles) need more memory than the
 *                   machine has free; checked before they are allocated (nt_mem_room()).
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_plan_create(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                         const nt_plan_opts_t *opts, nt_plan_t **out);

/** \brief A block-cyclic matrix given by its sizes and grid alone, without a tile table, for
 *         nt_plan_create_grids(). */
typedef struct nt_grid_matrix {
    int64_t m;        /**< rows of elements, >= 1 */
    int64_t n;        /**< columns of elements, >= 1 */
    int64_t mb;       /**< rows per tile, 1..INT32_MAX */
    int64_t nb;       /**< columns per tile, 1..INT32_MAX */
    size_t elem_size; /**< bytes per element, >= 1 (equal on both sides) */
    nt_bcgrid_t grid; /**< tile (i,j) on domain ((i/smb) mod p) * q + ((j/snb) mod q); p, q,
                           smb, snb >= 1, p * q <= INT_MAX (the map of `bc2d:PxQ:SMBxSNB`) */
} nt_grid_matrix_t;

/**
 * \brief Plan between two block-cyclic matrices given by their grids alone: the statistics,
 *        relabelling and pair tables of nt_plan_create() on matrices with these maps, in
 *        O(tile rows + tile columns + domains^2) time and memory (no per-tile table, no
 *        segment list: the plan is periodic, nt_plan_info_t::periodic is true, whatever the
 *        layouts the matrices will have, which change none of the statistics).
 *
 * Such a plan describes a redistribution; it cannot execute one (nt_plan_execute() refuses it
 * as built for other matrices). nt_plan_foreach_segment(), nt_plan_dst_owner() (a table built on
 * first call, O(target tiles)) and nt_plan_schedule() work on it.
 * @param[in]  topo the machine (its domain count and distances), or NULL: then the domain space
 *                  is the larger of the two grids' p * q.
 * @param[in]  src  source matrix.
 * @param[in]  dst  target matrix; same elem_size as src.
 * @param[in]  sub  the submatrix, or NULL for the whole matrix (equal sizes).
 * @param[in]  opts options as nt_plan_create()'s, or NULL; explicit_segments is refused.
 * @param[out] out  the plan, to free with nt_plan_destroy(); untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL NULL argument, a size, tile or grid field out of range (the message names
 *                   it), explicit_segments set, a grid using more domains than topo has (with
 *                   the canonical labelling), and the errors of nt_plan_create().
 * @retval NT_ERANGE a count overflows. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_plan_create_grids(const nt_topo_t *topo, const nt_grid_matrix_t *src,
                               const nt_grid_matrix_t *dst, const nt_sub_t *sub,
                               const nt_plan_opts_t *opts, nt_plan_t **out);
/** \brief The operation a plan applies to the source (see nt_plan_create_op()). */
typedef enum nt_op {
    NT_OP_N = 0, /**< op(A) = A */
    NT_OP_T = 1, /**< op(A) = A^T */
    NT_OP_C = 2  /**< op(A) = A^H (conjugate transpose; A^T for real types) */
} nt_op;

/** \brief Which part of the submatrix a plan writes (ScaLAPACK's p?trmr2d UPLO). */
typedef enum nt_uplo {
    NT_UPLO_ALL = 0,   /**< the whole submatrix (p?gemr2d, p?tran) */
    NT_UPLO_UPPER = 1, /**< 'U': the upper trapezoid (see ::nt_plan_op_t) */
    NT_UPLO_LOWER = 2  /**< 'L': the lower trapezoid */
} nt_uplo;

/** \brief Whether a trapezoid includes its diagonal (ScaLAPACK's p?trmr2d DIAG). */
typedef enum nt_diag {
    NT_DIAG_NONUNIT = 0, /**< 'N': the diagonal is written */
    NT_DIAG_UNIT = 1     /**< 'U': the diagonal is left alone (neither read nor written) */
} nt_diag;

/**
 * \brief B = beta*B + alpha*op(A) on the submatrix, restricted to a trapezoid.
 *
 * The submatrix (::nt_sub_t) is m x n = rows x cols in B (the target), at (dst_row, dst_col);
 * the source block at (src_row, src_col) is m x n for ::NT_OP_N and n x m for ::NT_OP_T and
 * ::NT_OP_C: element (x, y) of the submatrix (0 <= x < m, 0 <= y < n) is
 * B(dst_row + x, dst_col + y) = beta * B(dst_row + x, dst_col + y) + alpha * a, with
 * a = A(src_row + x, src_col + y) for N, A(src_row + y, src_col + x) for T and its conjugate
 * for C. With beta = 0, B is never read (NaN or Inf in B do not propagate); with alpha = 0, A is
 * not read.
 *
 * Trapezoids follow ScaLAPACK's p?trmr2d exactly, in the submatrix's coordinates (those of B):
 * UPPER writes (x, y) when x - y <= max(m - n, 0) (DIAG N) or x - y < max(m - n, 0) (DIAG U);
 * LOWER when y - x <= max(n - m, 0) (N) or y - x < max(n - m, 0) (U). For a square or wide
 * (tall) submatrix these are the usual triangle x <= y (x >= y) and its trapezoid; a tall upper
 * (wide lower) one is aligned on the bottom-right corner, as p?trmr2d does. Elements outside the
 * trapezoid are not touched (not scaled by beta either).
 *
 * Scalars are complex (re, im); for the real types (::NT_DTYPE_S, ::NT_DTYPE_D) the imaginary
 * parts must be 0. Start from #NT_PLAN_OP_INIT (the plain copy: N, alpha = 1, beta = 0, all).
 */
typedef struct nt_plan_op {
    nt_op op;         /**< N, T or C */
    double alpha_re;  /**< alpha, real part */
    double alpha_im;  /**< alpha, imaginary part (0 for real types) */
    double beta_re;   /**< beta, real part */
    double beta_im;   /**< beta, imaginary part (0 for real types) */
    nt_uplo uplo;     /**< the whole submatrix, or its upper or lower trapezoid */
    nt_diag diag;     /**< with a trapezoid: whether its diagonal is written */
} nt_plan_op_t;

/** \brief Initialiser of an ::nt_plan_op_t that is the plain copy (B = A). */
#define NT_PLAN_OP_INIT {NT_OP_N, 1.0, 0.0, 0.0, 0.0, NT_UPLO_ALL, NT_DIAG_NONUNIT}

/**
 * \brief Plan B = beta*B + alpha*op(A) from src (A) to dst (B): nt_plan_create() with an
 *        operation (transpose, conjugate, scale, trapezoid; see ::nt_plan_op_t).
 *
 * The plain copy (op N, alpha = 1, beta = 0, UPLO ALL) gives exactly the plan of
 * nt_plan_create(). Any other operation gives a plan of stored segments (never periodic:
 * nt_plan_info_t::periodic is false, also for block-cyclic ScaLAPACK layouts, whose CYCLIC(1)
 * maps then store one segment per element) whose segments are never whole (nothing is adopted
 * or migrated); with T or C, a segment's source block at (src_row, src_col) of its source tile
 * is cols x rows, and the bytes per pair are summed over the segments (closed_form false).
 * Executing it (nt_plan_execute()) copies into a target that has memory (beta then reads it) or
 * into a fresh one (which is zero); in place and move mode are refused (::NT_ENOTSUP).
 * @param[in]  src  the source A (memory not needed).
 * @param[in]  dst  the target B (memory not needed); same element size as src.
 * @param[in]  sub  the submatrix (m x n in B, see ::nt_plan_op_t), or NULL for all of B (then
 *                  src is B's size for N, its transpose's for T and C).
 * @param[in]  opts options, or NULL for the defaults (as nt_plan_create()).
 * @param[in]  op   the operation, or NULL for the plain copy.
 * @param[out] out  the plan, to free with nt_plan_destroy(); untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL as nt_plan_create(), and: op, uplo or diag not one of their values;
 *         alpha other than 1, beta other than 0 or op C on a complex type, on matrices without
 *         an element type (nt_matrix_set_dtype(); untyped matrices can be transposed, not
 *         computed on); src and dst of different types; an imaginary part on a real type. The
 *         message names the field.
 * @retval NT_ERANGE, NT_ENOSPACE, NT_ENOMEM as nt_plan_create().
 */
nt_status nt_plan_create_op(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                            const nt_plan_opts_t *opts, const nt_plan_op_t *op,
                            nt_plan_t **out);

/**
 * \brief Free a plan and everything it owns (segments, pair matrices, sigma, schedule).
 * @param[in] plan a plan, or NULL (then nothing happens). Pointers obtained from it become
 *                 invalid.
 */
void nt_plan_destroy(nt_plan_t *plan);

/**
 * \brief Summary of a plan.
 * @param[in]  plan a plan (not NULL).
 * @param[out] info filled.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument.
 */
nt_status nt_plan_info(const nt_plan_t *plan, nt_plan_info_t *info);

/**
 * \brief The segments of a plan.
 * @param[in] plan a plan, or NULL.
 * @return nt_plan_info().segments entries owned by the plan (valid until nt_plan_destroy()),
 *         or NULL when plan is NULL, the plan has no segments, or the plan is periodic (then
 *         use nt_plan_foreach_segment()).
 */
const nt_segment_t *nt_plan_segments(const nt_plan_t *plan);

/**
 * \brief Caller's function for nt_plan_foreach_segment().
 * @param[in] g   one segment (valid during the call only).
 * @param[in] arg the caller's pointer.
 * @return 0 to go on, anything else to stop.
 */
typedef int (*nt_segment_fn)(const nt_segment_t *g, void *arg);

/**
 * \brief Call fn for every segment of a plan, stored or periodic, in the order of
 *        nt_plan_segments() (grouped by target tile, row-major inside a tile). For a periodic
 *        plan the segments are generated on the fly from the plan alone (the matrices need not
 *        exist any more); the cost is O(segments) time and O(tile rows + tile columns) memory.
 * @param[in] plan a plan (not NULL).
 * @param[in] fn   the function (not NULL).
 * @param[in] arg  passed to fn.
 * @retval NT_OK every segment visited, or fn asked to stop.
 * @retval NT_EINVAL NULL argument. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_plan_foreach_segment(const nt_plan_t *plan, nt_segment_fn fn, void *arg);

/**
 * \brief Bytes per domain pair: a ndomains x ndomains row-major matrix, entry [s*D + d] =
 *        bytes going from domain s to domain d (the diagonal stays). Owned by the plan.
 * @param[in] plan a plan, or NULL.
 * @return the matrix (valid until nt_plan_destroy()), or NULL when plan is NULL.
 */
const int64_t *nt_plan_pair_bytes(const nt_plan_t *plan);

/**
 * \brief Segments per domain pair, same shape as nt_plan_pair_bytes().
 * @param[in] plan a plan, or NULL.
 * @return the matrix, owned by the plan (valid until nt_plan_destroy()), or NULL when plan
 *         is NULL.
 */
const int64_t *nt_plan_pair_segments(const nt_plan_t *plan);

/**
 * \brief The relabelling: sigma[c] = domain of target component c, for the dst map's
 *        ndomains components (identity without relabelling). Owned by the plan.
 * @param[in]  plan a plan, or NULL.
 * @param[out] n    number of entries (may be NULL); untouched when plan is NULL.
 * @return sigma, owned by the plan (valid until nt_plan_destroy()), or NULL when plan is NULL.
 */
const int *nt_plan_sigma(const nt_plan_t *plan, int *n);

/**
 * \brief Domain of every target tile after relabelling (mt*nt of dst, row-major).
 *        A periodic plan builds this table on the first call (it is not needed to plan).
 * @param[in] plan a plan, or NULL.
 * @return the owners, owned by the plan (valid until nt_plan_destroy()), or NULL when plan is
 *         NULL or the table of a periodic plan cannot be allocated (nt_last_error() says so).
 */
const int *nt_plan_dst_owner(const nt_plan_t *plan);

/**
 * \brief The one-port step schedule over the bytes per domain pair (numatile/sched.h), built
 *        on first use. Owned by the plan.
 * @param[in]  plan  a plan.
 * @param[out] sched the schedule.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument. @retval NT_ENOMEM, NT_ERANGE from
 *         nt_sched_build().
 */
nt_status nt_plan_schedule(nt_plan_t *plan, const nt_schedule_t **sched);

/* ------------------------------------------------------------------------------------------ */
/* Closed-form communication sets (Guo et al., extended to CYCLIC(r))                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief A strided run set: the blocks [start + k*stride, start + k*stride + len) for
 *        k = 0..count-1 (0-based). With len = 1 it is Guo's per-dimension triple (origin,
 *        stride, count).
 */
typedef struct nt_run {
    int64_t start;  /**< first index */
    int64_t stride; /**< distance between blocks (>= 1; any value when count = 1) */
    int64_t count;  /**< number of blocks, >= 1 */
    int64_t len;    /**< block length, >= 1 */
} nt_run_t;

/** \brief One dimension of a CYCLIC(r) distribution over p processes, seen from a
 *         submatrix that starts at global index off: global index g belongs to process
 *         (g / r) mod p. BLOCK on p processes is CYCLIC(ceil(n/p)). */
typedef struct nt_cyclic {
    int64_t r;   /**< block size, >= 1 */
    int p;       /**< processes, >= 1 */
    int64_t off; /**< global index of the submatrix's first element, >= 0 */
} nt_cyclic_t;

/**
 * \brief Indices x in 0..n-1 (submatrix coordinates) held by process ks of s and by process
 *        kt of t, as a list of strided run sets, in closed form: the intersection is periodic
 *        with period lcm(r_s p_s, r_t p_t); its runs in one period are found by merging the
 *        two block lists of that period, and each run repeats with that period (a last,
 *        truncated repetition becomes its own entry). Runs that together form one arithmetic
 *        progression are merged into a single entry (so CYCLIC(1) gives Guo's triples).
 *        Cost O(period / (r_s p_s) + period / (r_t p_t)), independent of n.
 * @param[in]  n      submatrix extent, >= 0.
 * @param[in]  s, t   source and target distributions (not NULL).
 * @param[in]  ks, kt processes, 0..p-1 of each.
 * @param[out] runs   caller's array of cap entries (may be NULL when cap = 0).
 * @param[in]  cap    capacity of runs.
 * @param[out] nruns  number of entries needed (entries beyond cap are not written).
 * @param[out] total  number of indices in the intersection (may be NULL).
 * @retval NT_OK success. @retval NT_EINVAL bad argument. @retval NT_ERANGE the period
 *         overflows int64. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_cyclic_intersect(int64_t n, const nt_cyclic_t *s, int ks, const nt_cyclic_t *t,
                              int kt, nt_run_t *runs, int64_t cap, int64_t *nruns,
                              int64_t *total);

/**
 * \brief Closed-form communication set between two block-cyclic matrices (Guo's 5-tuple,
 *        generalised): the elements of the submatrix that source domain src_dom holds and
 *        target domain (component) dst_dom receives are exactly rows x cols, each given as
 *        strided run sets in submatrix coordinates (see nt_cyclic_intersect()).
 * @param[in]  src, dst   matrices whose maps are block-cyclic (nt_matrix_t::grid.p > 0);
 *                        memory not needed.
 * @param[in]  sub        the submatrix, or NULL for the whole matrices (equal sizes).
 * @param[in]  src_dom    source domain, 0..src->ndomains-1.
 * @param[in]  dst_dom    target component, 0..dst->ndomains-1 (before any relabelling).
 * @param[out] rows       caller's array of rows_cap entries (may be NULL when rows_cap = 0).
 * @param[in]  rows_cap   its capacity.
 * @param[out] nrows      entries needed for the rows.
 * @param[out] cols       caller's array of cols_cap entries.
 * @param[in]  cols_cap   its capacity.
 * @param[out] ncols      entries needed for the columns. A domain outside a grid holds
 *                        nothing: nrows = ncols = 0.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, domain out of range, submatrix out
 *         of bounds. @retval NT_ENOTSUP a map that is not block-cyclic.
 * @retval NT_ERANGE, NT_ENOMEM as nt_cyclic_intersect().
 */
nt_status nt_plan_commset(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                          int src_dom, int dst_dom, nt_run_t *rows, int64_t rows_cap,
                          int64_t *nrows, nt_run_t *cols, int64_t cols_cap, int64_t *ncols);

/* ------------------------------------------------------------------------------------------ */
/* Execution                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** \brief How tiles reach their target domain. */
typedef enum nt_exec_mode {
    NT_EXEC_COPY = 0, /**< copy segments into target memory allocated on the target domains */
    NT_EXEC_MOVE = 1  /**< whole page-aligned tiles of unchanged geometry keep their address
                           and have their pages migrated (move_pages); other segments copied */
} nt_exec_mode;

/** \brief Task schedule. */
typedef enum nt_exec_schedule {
    NT_SCHED_FREE = 0, /**< all copy tasks at once, with a bound on the tasks in flight */
    NT_SCHED_STEPS = 1 /**< one-port phases (numatile/sched.h), a barrier after each */
} nt_exec_schedule;

/** \brief Copy order. For a periodic plan (nt_plan_info_t::periodic) as below; for a plan of
 *         stored segments TARGET keeps the plan's order on the target domains, SOURCE and
 *         GLOBAL copy source tile by source tile on the source domains, and AUTO does the
 *         latter when every domain is on one NUMA node and the pieces average 128 KiB or
 *         more. One-port steps always use TARGET. */
typedef enum nt_exec_order {
    NT_ORDER_AUTO = 0,   /**< when every domain is on one NUMA node (virtual domains): SOURCE
                              if every row run streams whole target lines (2 KiB or more,
                              starting and ending on a line), else GLOBAL; otherwise SOURCE
                              with on_source, else TARGET */
    NT_ORDER_TARGET = 1, /**< each target column filled top to bottom from every source, on the
                              target domain (the source side with on_source) */
    NT_ORDER_SOURCE = 2, /**< each source column read top to bottom into every target, on the
                              source domain */
    NT_ORDER_GLOBAL = 3  /**< each column of the submatrix in one pass over all its sources and
                              targets, tasks spread over every domain: every line read and
                              written once, but no domain locality */
} nt_exec_order;

/** \brief Execution options. Zero-initialise for the defaults. */
typedef struct nt_exec_opts {
    nt_exec_mode mode;          /**< copy (default) or move */
    nt_exec_schedule schedule;  /**< free (default) or steps */
    int threads_per_domain;     /**< copy threads per domain, 0..1024 (more: NT_EINVAL);
                                     0 = the domain's cpu count, capped at 4 (domains that
                                     share cpus get 1) */
    int max_in_flight;          /**< FREE: bound on copy tasks queued per domain; 0 = 64 */
    bool on_source;             /**< run a segment's copy on the source domain's threads */
    bool no_keep;               /**< copy even the tiles whose domain and shape do not change
                                     (default: the target adopts them without copying) */
    bool measure_bound;         /**< also time the same-run copy bound */
    nt_exec_order order;        /**< copy order of periodic plans (default AUTO); one-port
                                     steps always use TARGET */
    bool inplace;               /**< in place: the target reuses the source's memory (see
                                     nt_plan_execute()); the source ends without memory */
    int64_t budget_bytes;       /**< in place: extra bytes allowed on each domain beyond the
                                     source's own memory; 0 = no limit, < 0 invalid */
} nt_exec_opts_t;

/** \brief What an execution did. Per-pair matrices are ndomains x ndomains, row = source. */
typedef struct nt_exec_stats {
    int ndomains;               /**< D */
    int64_t *pair_tiles;        /**< segments copied or tiles migrated, per pair (D*D) */
    int64_t *pair_bytes;        /**< bytes per pair (D*D) */
    int64_t tiles_kept;         /**< tiles adopted without copying (same domain and shape) */
    int64_t tiles_migrated;     /**< tiles moved with move_pages */
    int64_t pages_migrated;     /**< pages that changed node */
    int64_t pages_failed;       /**< pages move_pages left where they were */
    int64_t bytes_copied;       /**< bytes copied by tasks */
    int64_t bytes_moved;        /**< bytes whose domain changed (copied or migrated) */
    int64_t bytes_node_changed; /**< bytes whose physical node changed */
    int64_t tasks;              /**< copy tasks run */
    int64_t tasks_on_domain;    /**< tasks that ran on a cpu of their intended domain */
    union {
        double alloc_seconds;   /**< allocating the target (page faults included) */
        double seconds_alloc;   /**< old name of alloc_seconds, kept one release (NEWS.md) */
    };
    union {
        double fault_seconds;   /**< the part of alloc_seconds spent in the first touch (page
                                     faults) of memory taken fresh from the kernel */
        double seconds_fault;   /**< old name of fault_seconds, kept one release (NEWS.md) */
    };
    int64_t bytes_alloc_fresh;  /**< target bytes taken fresh from the kernel */
    int64_t bytes_alloc_pooled; /**< target bytes taken from its pool (numatile/pool.h),
                                     already faulted in */
    double seconds;             /**< copying and migrating (the timed part) */
    double bandwidth_gbs;       /**< (bytes_copied + pages_migrated x page size) / seconds / 1e9:
                                     physical work only (adopted tiles move nothing) */
    double bound_seconds;       /**< same-run copy bound: time of a contiguous parallel copy
                                     of the same bytes by the same threads, with the library's
                                     fastest kernel, from buffers holding data (not zeros,
                                     which stream faster); 0 unless measured */
    double bound_gbs;           /**< its bandwidth (0 unless measured) */
    int64_t *peak_extra_bytes;  /**< in place: per domain (D entries), the most memory held at
                                     once beyond the source's own (blocks taken from the kernel;
                                     recycled blocks are free); NULL otherwise */
    int64_t *peak_lower_bound_bytes; /**< in place: per domain (D entries), what any order
                                     needs: the target's bytes to copy on the domain minus the
                                     source's recyclable bytes there, at least 0; NULL
                                     otherwise */
    int64_t peak_lower_bound_total; /**< in place: lower bound of the sum over domains: the
                                     sum above, and at least the least, over source blocks, of
                                     the target bytes reading one (before a first recycled
                                     block exists, the blocks reading it were all fresh) */
    int64_t bytes_recycled;     /**< in place: target bytes placed in recycled source blocks */
    int64_t waves;              /**< in place: waves of copies (blocks freed by a wave serve
                                     the next ones) */
} nt_exec_stats_t;

/**
 * \brief Execute a plan: src's submatrix ends up in dst.
 *
 * dst must be the plan's target. Without memory (::NT_MATRIX_NOALLOC), every tile of dst is
 * allocated on its (relabelled) domain before the first copy and dst's map becomes the plan's
 * relabelled map; elements outside the submatrix are zero. Tiles of at least one page whose
 * domain and shape do not change are adopted from src instead of copied (unless no_keep):
 * src then keeps an alias of them, valid while dst lives. With memory already, dst is written
 * in place (no relabelling or move mode then). In move mode whole-tile segments between
 * page-aligned tiles keep their address: dst adopts the tile and its pages migrate to the
 * target node (src's alias stays readable).
 *
 * Copies run as OpenMP tasks on threads bound to the target domain (or the source domain):
 * one outer thread per domain, each opening its own nested team bound to its domain, whose
 * tasks only that team runs.
 *
 * Nothing lost: if any allocation fails, dst and src are unchanged and everything taken is
 * released before returning.
 *
 * In place (opts->inplace): the target reuses the source's memory, so a matrix that fills most
 * of the machine can still be redistributed. Needs the TILE layout on both sides, a target
 * without memory, the whole matrix (no submatrix, equal sizes), copy mode and the FREE
 * schedule. Every source block (a tile of at least a page, or a domain's slab of small tiles)
 * returns to its domain's pool once every piece of it is copied out; target blocks come from
 * their domain's pool first, from the kernel only when it is empty. The order of the target
 * blocks is chosen before anything is touched, greedily: blocks the pools can serve first,
 * then fresh blocks within two target blocks per domain for parallelism, then the block
 * whose completion frees the most; copies run in waves, each filling blocks whose memory
 * previous waves freed. Its peak (peak_extra_bytes) is computed exactly before the first
 * copy and compared with opts->budget_bytes. Every fresh block is allocated before the first
 * copy; after success src has no memory (its descriptor stays valid, to destroy) and every
 * leftover recycled block is returned to the kernel.
 * @param[in]     plan  a plan built for (src, dst).
 * @param[in,out] src   source with memory (written only to hand over adopted tiles).
 * @param[in,out] dst   target.
 * @param[in]     opts  options or NULL.
 * @param[out]    stats statistics, or NULL; free its arrays with nt_exec_stats_free().
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, plan of other matrices, src without
 *         memory, a relabelled plan or move mode into a dst with memory, bad options.
 * @retval NT_ENOTSUP synthetic topology; in place: a layout other than TILE, a submatrix,
 *         move mode or the STEPS schedule. @retval NT_ENOSPACE in place: the order needs
 *         more extra bytes on a domain than budget_bytes (the message names the domain, the
 *         bytes and the budget), or more than the machine has free; nothing touched.
 * @retval NT_ENOMEM, NT_ESYS allocation or binding failed (nothing modified).
 */
nt_status nt_plan_execute(nt_plan_t *plan, nt_matrix_t *src, nt_matrix_t *dst,
                          const nt_exec_opts_t *opts, nt_exec_stats_t *stats);

/**
 * \brief Free the arrays of a stats structure (the structure belongs to the caller); its
 *        array pointers are reset to NULL.
 * @param[in,out] stats the structure, or NULL (then nothing happens).
 */
void nt_exec_stats_free(nt_exec_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
