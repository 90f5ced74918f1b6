/**
 * \file numatile/kernels.h
 * \brief Owner-computes kernels on placed tiled matrices: tiled GEMM (BLIS), tiled Householder
 *        QR (libFLAME's tile kernels), a least-squares solve, and a 1D circular stencil.
 *
 * Every kernel builds its task graph first (pure data, no matrix memory touched), then runs
 * it on a team of threads bound to the domains of the topology: a task runs on a thread of
 * the domain that owns the tile it writes (see docs/kernels.md for the mechanism). Each run
 * can report how many tasks each domain ran, the fraction run by the owning domain, and the
 * tiles read across domains.
 *
 * Element types: GEMM and QR run in the element type of their matrices (::nt_dtype, set with
 * nt_matrix_set_dtype()): float (s), double (d), complex float (c) or complex double (z). An
 * untyped matrix of 8-byte elements is double (matrices made before types existed); any other
 * untyped matrix is refused. All operands of one call have the same type (NT_EINVAL naming the
 * operand otherwise). For complex types "transpose" is the conjugate transpose (Q^H); GEMM's
 * alpha and beta are real for every type; the stats' flops count real operations (a complex
 * multiply-add is 8 of them, 4x the real count). The flat references nt_gemm_flat() and
 * nt_qr_flat() and the stencil are double only.
 *
 * Matrices are allocated, on a physical or virtual topology, in either layout of
 * numatile/matrix.h. All operands of one call share one topology. Arguments are validated
 * before anything is computed; a call that fails on invalid input leaves every operand
 * untouched. BLIS and libFLAME run single-threaded inside the tasks.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: the kernels may run in several threads at once on distinct output matrices; the
 * BLAS threading they switch off around tile calls is guarded by a lock.
 */
#ifndef NUMATILE_KERNELS_H
#define NUMATILE_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief How tasks are mapped to threads. */
typedef enum nt_kernel_sched {
    /** Owner-computes: one team bound per domain; each domain's threads take only the ready
        tasks that domain owns (per-domain ready queues, panel tasks first). */
    NT_KERNEL_OWNER = 0,
    /** Baseline: the same task graph as plain OpenMP tasks with depend clauses on the same
        bound team; any thread may run any task (OpenMP has no task placement). */
    NT_KERNEL_OMP = 1
} nt_kernel_sched;

/** \brief Options of a kernel run. Zero-initialise (or pass NULL) for the defaults. */
typedef struct nt_kernel_opts {
    /** Threads per domain; 0 = the smallest cpu count of the domains that have cpus. */
    int threads_per_domain;
    /** Task mapping; default ::NT_KERNEL_OWNER. */
    nt_kernel_sched sched;
    /** QR inner block size (columns per Householder panel inside a tile); 0 = default
        (min(nb, 32)); otherwise 1..nb. */
    int64_t ib;
    /** GEMM only (the other kernels ignore it): before the tasks run, give every domain a
        private read-only copy of each A and B tile that lives on another domain and that its
        C tiles read -- one copy per (domain, tile), allocated on the domain and written by a
        thread bound to it (by the nearest domain with cpus for a domain without) -- and let
        the tasks read the copies; they are freed before nt_gemm() returns. Trades a copy per
        (domain, remote tile) and that much extra memory for repeated remote reads. false (the
        default) reads every tile where it is. */
    bool cache_inputs;
} nt_kernel_opts_t;

/**
 * \brief What a kernel run did. Pass a zero-initialised struct; the library allocates the
 *        per-domain arrays, release them with nt_kernel_stats_free(). Counts accumulate over
 *        the calls that share one struct (seconds and flops add up too).
 */
typedef struct nt_kernel_stats {
    int ndomains;               /**< domains of the topology (length of the arrays) */
    int64_t tasks;              /**< tasks run */
    int64_t owner_tasks;        /**< tasks run by a thread bound to (and, when domains do not
                                     share cpus, running on a cpu of) the owning domain */
    double owner_fraction;      /**< owner_tasks / tasks (1 when there were no tasks) */
    int64_t remote_reads;       /**< tiles read by a task from a domain other than its own;
                                     GEMM with nt_kernel_opts_t::cache_inputs: tiles copied
                                     into another domain's cache (once per domain and tile) */
    int64_t remote_read_bytes;  /**< bytes of those tiles */
    int64_t remote_writes;      /**< tiles written by a task on another domain's tile */
    int64_t remote_write_bytes; /**< bytes of those tiles */
    int64_t *tasks_owned;       /**< per domain: tasks that domain owns */
    int64_t *tasks_run;         /**< per domain: tasks run by threads of that domain */
    double flops;               /**< floating-point operations of the algorithm */
    double seconds;             /**< wall time of the task graph runs, the GEMM cache's copy
                                     phase included */
    double cache_seconds;       /**< part of seconds spent filling the GEMM input caches
                                     (nt_kernel_opts_t::cache_inputs; 0 without) */
} nt_kernel_stats_t;

/**
 * \brief Release the per-domain arrays of a stats struct and zero it (the struct itself
 *        belongs to the caller).
 * @param[in,out] stats the struct, or NULL (then nothing happens).
 */
void nt_kernel_stats_free(nt_kernel_stats_t *stats);

/**
 * \brief Default team of the kernels on a topology (what nt_kernel_opts_t::threads_per_domain
 *        = 0 means): every domain that has cpus gets as many threads as the smallest cpu count
 *        among those domains.
 * @param[in]  topo               a loaded topology, or NULL (then the result is 0). A synthetic
 *                                topology gets the numbers of the machine it describes, though
 *                                the kernels do not run on it.
 * @param[out] threads_per_domain the smallest cpu count of a domain with cpus (0 when no domain
 *                                has cpus), or NULL.
 * @return the team size: domains with cpus x threads per domain; 0 when no domain has cpus.
 */
int nt_kernel_default_threads(const nt_topo_t *topo, int *threads_per_domain);

/**
 * \brief Tiled GEMM: C = alpha A B + beta C, one task per C tile, run on C's domain; A and B
 *        tiles are read where they are, or from per-domain copies with
 *        nt_kernel_opts_t::cache_inputs (the same result, bit for bit).
 *        Runs in C's element type (s, d, c, z; untyped 8-byte = d); A and B must have it.
 * @param[in]     alpha  real scalar (for every type).
 * @param[in]     A      m x k matrix, A->mb = C->mb, A->nb = B->mb, C's type.
 * @param[in]     B      k x n matrix, B->nb = C->nb, C's type.
 * @param[in]     beta   scalar (0 overwrites C, NaNs included).
 * @param[in,out] C      m x n matrix, distinct from A and B (no shared tiles).
 * @param[in]     opts   options, or NULL for the defaults.
 * @param[in,out] stats  accumulates the run's statistics, or NULL.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  NULL operand, no memory, C untyped with an element size other than 8, A
 *                    or B of another type than C (the message names the operand), sizes or
 *                    tile sizes do not conform, C shares a tile with A or B, operands on
 *                    different topologies, bad options.
 * @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOSPACE the input cache does not fit the domains' nodes (checked before it is
 *                    allocated; C untouched).
 * @retval NT_ENOMEM  out of memory, the input cache included (C untouched, nothing leaked).
 * @retval NT_ERANGE  the input cache's size overflows (C untouched).
 * @retval NT_ESYS    the team could not be started or bound, or a cache page could not be
 *                    placed (C untouched).
 */
nt_status nt_gemm(double alpha, const nt_matrix_t *A, const nt_matrix_t *B, double beta,
                  nt_matrix_t *C, const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats);

/** \brief Opaque tile-QR factorisation: the block reflectors T of every tile, on the domain of
 *         the tile they belong to. Borrows the factored matrix. */
typedef struct nt_qr nt_qr_t;

/**
 * \brief Tiled Householder QR in place (PLASMA's GEQRT / UNMQR / TSQRT / TSMQR): A is
 *        overwritten by R (upper triangle) and the Householder vectors; the T factors go to
 *        the new handle. TSMQR, which updates two tiles, runs on the domain of the lower one.
 *        Runs in A's element type (s, d, c, z; untyped 8-byte = d), which the factorisation
 *        keeps: the matrices later given to it must have that type.
 * @param[in,out] A     m x n matrix (any m, n), square tiles (mb = nb). Must outlive *out and
 *                      keep its type.
 * @param[in]     opts  options, or NULL.
 * @param[out]    out   the factorisation, to free with nt_qr_destroy(); untouched on failure.
 * @param[in,out] stats accumulates statistics, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL argument, no memory, untyped with an element size other than 8,
 *                   mb != nb, ib out of range.
 * @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOSPACE the T tiles do not fit the domains' nodes (checked before allocating).
 * @retval NT_ENOMEM, NT_ESYS allocation or team start failed (A untouched).
 */
nt_status nt_qr_factor(nt_matrix_t *A, const nt_kernel_opts_t *opts, nt_qr_t **out,
                       nt_kernel_stats_t *stats);

/**
 * \brief Free a factorisation: its T factors, not the factored matrix.
 * @param[in] qr a factorisation from nt_qr_factor(), or NULL (then nothing happens).
 */
void nt_qr_destroy(nt_qr_t *qr);

/**
 * \brief B = Q^T B (trans; Q^H for complex types) or B = Q B with the Q of a factorisation
 *        (Q is m x m).
 * @param[in]     qr    a factorisation of an m x n matrix.
 * @param[in]     trans true for Q^T (Q^H).
 * @param[in,out] B     m x p matrix of the factored matrix's type, with its row tiling
 *                      (B->mb = A->mb), any column tiling, same topology.
 * @param[in]     opts  options, or NULL.
 * @param[in,out] stats accumulates statistics, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL bad argument, B of another type than the factored matrix (B untouched).
 * @retval NT_ENOMEM, NT_ESYS as above.
 */
nt_status nt_qr_apply_q(const nt_qr_t *qr, bool trans, nt_matrix_t *B,
                        const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats);

/**
 * \brief Form the first Q->n columns of Q explicitly: Q = Q_full [I; 0].
 * @param[in]     qr    a factorisation of an m x n matrix.
 * @param[in,out] Q     m x q matrix (q <= m) of the factored matrix's type, with its row
 *                      tiling; its content is overwritten.
 * @param[in]     opts  options, or NULL.
 * @param[in,out] stats accumulates statistics, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL bad argument, Q of another type than the factored matrix (Q untouched).
 * @retval NT_ENOMEM, NT_ESYS as above.
 */
nt_status nt_qr_form_q(const nt_qr_t *qr, nt_matrix_t *Q, const nt_kernel_opts_t *opts,
                       nt_kernel_stats_t *stats);

/**
 * \brief Least squares: minimise ||A X - B||_F for the factored m x n A (m >= n, full rank).
 *        B becomes Q^T B (Q^H B for complex types); its first n rows then hold X (by tiled
 *        back substitution with R), and the norms of its remaining rows' columns are the
 *        residual norms.
 * @param[in]     qr    a factorisation of an m x n matrix with m >= n.
 * @param[in,out] B     m x p right-hand sides of the factored matrix's type, with its row
 *                      tiling.
 * @param[in]     opts  options, or NULL.
 * @param[in,out] stats accumulates statistics, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL bad argument, B of another type than the factored matrix, m < n, or R
 *                   has a zero on its diagonal (real and imaginary parts; B untouched: the
 *                   diagonal is checked first).
 * @retval NT_ENOMEM, NT_ESYS as above.
 */
nt_status nt_qr_solve_ls(const nt_qr_t *qr, nt_matrix_t *B, const nt_kernel_opts_t *opts,
                         nt_kernel_stats_t *stats);

/**
 * \brief Inner block size of a factorisation.
 * @param[in] qr a factorisation, or NULL.
 * @return the inner block size ib (1..nb), or 0 when qr is NULL.
 */
int64_t nt_qr_ib(const nt_qr_t *qr);

/**
 * \brief Flat reference GEMM: C = alpha A B + beta C on plain column-major arrays with
 *        nthreads BLIS threads (the baseline of the tiled GEMM benchmark). Double only.
 * @param[in] nthreads >= 1.
 * @param[in] m, n, k  sizes, >= 0: C is m x n, A is m x k, B is k x n.
 * @param[in] alpha    scale of A B.
 * @param[in] A        m x k column-major (read only; not NULL when m, k > 0).
 * @param[in] lda, ldb, ldc leading dimensions, >= max(1, rows).
 * @param[in] B        k x n column-major (read only; not NULL when k, n > 0).
 * @param[in] beta     scale of C on entry (0: C is not read).
 * @param[in,out] C    m x n column-major, overwritten by the result (not NULL when m, n > 0).
 * @retval NT_OK success. @retval NT_EINVAL bad argument (nothing touched).
 */
nt_status nt_gemm_flat(int nthreads, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc);

/**
 * \brief Flat reference QR: libFLAME's FLA_QR_UT on a plain column-major array with nthreads
 *        BLIS threads (the baseline of the tiled QR benchmark). A is overwritten. Double
 *        only.
 * @param[in] nthreads >= 1.
 * @param[in] m, n     sizes, >= 1.
 * @param[in,out] A    the matrix. @param[in] lda >= m.
 * @retval NT_OK success. @retval NT_EINVAL bad argument. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

/* ------------------------------------------------------------------------------------------ */
/* 1D stencil                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** \brief Options of nt_stencil_run(). */
typedef struct nt_stencil_opts {
    int64_t iters;              /**< K iterations, >= 0 */
    int64_t work;               /**< update cost per item: extra arithmetic rounds, >= 0 */
    int threads_per_domain;     /**< 0 = default as for the kernels */
} nt_stencil_opts_t;

/** \brief What a stencil run did. */
typedef struct nt_stencil_stats {
    int64_t iters;          /**< iterations run */
    int64_t items;          /**< items */
    int64_t halo_items;     /**< item reads from another domain, summed over iterations */
    int64_t halo_bytes;     /**< their bytes */
    int64_t owner_updates;  /**< item updates run by a thread of the item's domain */
    int64_t updates;        /**< item updates in total */
    double owner_fraction;  /**< owner_updates / updates (1 when none) */
    double seconds;         /**< wall time */
} nt_stencil_stats_t;

/**
 * \brief One update of the 3-point circular stencil with the per-item cost of nt_stencil_run():
 *        the value of item x after an iteration from its left, own and right values. Exposed
 *        so that callers and tests can compute a sequential reference.
 * @param[in] left  value of item x-1 (mod n) before the iteration.
 * @param[in] self  value of item x before the iteration.
 * @param[in] right value of item x+1 (mod n) before the iteration.
 * @param[in] work  extra dependent multiply-adds per update, >= 0 (the tunable compute cost).
 * @return the new value of item x; the same bits on every call with the same arguments.
 */
double nt_stencil_update(double left, double self, double right, int64_t work);

/**
 * \brief Run K iterations of the 3-point circular stencil
 *        x_i <- f(x_{i-1}, x_i, x_{i+1}) (indices mod n, f = nt_stencil_update()) on items
 *        placed on domains by a 1D map: each domain keeps its items in a buffer of its own
 *        and updates them; neighbours on other domains are read through a halo exchanged
 *        every iteration. Double buffering makes the result equal, bit for bit, to the
 *        sequential loop.
 * @param[in]     topo   a physical or virtual topology with at least map->ndomains domains.
 * @param[in]     map    item -> domain (n >= 1 items).
 * @param[in,out] values n values in global item order; replaced by the result.
 * @param[in]     opts   iterations, cost, threads (not NULL).
 * @param[out]    stats  filled on success, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL argument, a map owner outside the topology, iters or work < 0.
 * @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOMEM, NT_ESYS allocation or team start failed (values untouched).
 */
nt_status nt_stencil_run(const nt_topo_t *topo, const nt_dist1d_t *map, double *values,
                         const nt_stencil_opts_t *opts, nt_stencil_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
