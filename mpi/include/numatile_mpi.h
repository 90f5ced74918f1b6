/**
 * \file numatile_mpi.h
 * \brief libnumatile_mpi: numatile's block-cyclic redistribution across MPI ranks, and a
 *        ScaLAPACK pdgemr2d-compatible entry.
 *
 * A separate library, so that libnumatile itself never includes mpi.h. It links libnumatile
 * (for the closed-form communication sets of numatile/plan.h, nt_cyclic_intersect()), Open MPI
 * and, for the BLACS contexts of nt_pgemr2d(), Debian's libscalapack-openmpi.
 *
 * The distributed domains are the ranks of a communicator: each rank holds only its own local
 * part of a block-cyclic matrix (ScaLAPACK layout: a column-major local array with a leading
 * dimension). A process grid is described by ::nt_mpi_grid_t; its rank table ranks[] maps grid
 * cells (labels) to ranks, so a relabelling of the target (a permutation of its labels, as
 * numatile/match.h computes at rank level) is applied by permuting that table before the call.
 *
 * Execution: for every pair of ranks the elements that cross are packed once, in one
 * contiguous buffer, straight from the local arrays (the pieces come from the closed-form
 * runs, never one record per element), and unpacked by OpenMP threads on the receiving rank;
 * pieces that stay on a rank are copied directly. Ranks on one node (MPI_Comm_split_type
 * SHARED) pack straight into the receiver's segment of an MPI-3 shared window
 * (MPI_Win_allocate_shared), which saves the transport's copy; between nodes, and for every
 * pair when the environment variable NT_MPI_NO_SHM is set to a value other than 0 at the
 * first call on a communicator, one nonblocking point-to-point message per pair
 * (MPI_Isend / MPI_Irecv). The window, the pack and receive buffers and a private duplicate of
 * the communicator are kept between calls (attributes of the communicator and of
 * MPI_COMM_SELF: freed with the communicator and at MPI_Finalize), so the first call on a
 * communicator is collective in one more way (MPI_Comm_dup) and later calls fault no pages in.
 *
 * Transactional: the target is not written before every rank has received everything; an
 * agreement (MPI_Allreduce of the statuses) ends the exchange, so every rank returns the same
 * status and, on failure, the same message (the lowest failing rank's), with the target
 * unchanged. The source is never written.
 *
 * Errors follow numatile/error.h (::nt_status); messages of this library are read with
 * nt_mpi_last_error(). Failure injection for tests: when the environment variable
 * NT_MPI_FAIL_RANK holds a rank number of the communicator, that rank reports ::NT_ESYS after
 * the exchange (every rank then returns it, nothing written).
 *
 * Threads: the calls are collective over their communicator; call them from one thread per
 * rank (MPI_THREAD_FUNNELED is enough). The OpenMP threads only copy memory.
 */
#ifndef NUMATILE_MPI_H
#define NUMATILE_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <numatile/error.h>
#include <numatile/matrix.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief A 2D block-cyclic matrix over a process grid, as every rank sees it (ScaLAPACK's
 *         descriptor, with the rank of every grid cell instead of a BLACS context). */
typedef struct nt_mpi_grid {
    int64_t m;        /**< global rows, >= 0 */
    int64_t n;        /**< global columns, >= 0 */
    int64_t mb;       /**< rows per block, >= 1 */
    int64_t nb;       /**< columns per block, >= 1 */
    int rsrc;         /**< process row of the first block row, 0..nprow-1 */
    int csrc;         /**< process column of the first block column, 0..npcol-1 */
    int nprow;        /**< process rows, >= 1 */
    int npcol;        /**< process columns, >= 1 */
    const int *ranks; /**< nprow*npcol distinct ranks of the communicator, row-major:
                           ranks[prow*npcol + pcol]; NULL = prow*npcol + pcol */
} nt_mpi_grid_t;

/** \brief Options of nt_mpi_redist(). Zero-initialise for the defaults. */
typedef struct nt_mpi_opts {
    int threads; /**< OpenMP threads packing and unpacking on each rank; 0 = OpenMP's
                      default (OMP_NUM_THREADS) */
    int steps;   /**< nonzero: one-port phases (numatile/sched.h, the schedule of the byte
                      matrix between ranks): in each phase every rank sends to at most one rank
                      and receives from at most one; every message point-to-point (no shared
                      window). Must be the same on every rank. */
} nt_mpi_opts_t;

/** \brief What one rank did in nt_mpi_redist() (this rank's numbers only). */
typedef struct nt_mpi_stats {
    int64_t bytes_sent;     /**< bytes this rank sent to other ranks */
    int64_t bytes_received; /**< bytes this rank received from other ranks */
    int64_t bytes_local;    /**< bytes copied within this rank */
    int64_t messages_sent;  /**< messages sent (one per destination rank, more only for
                                 messages above 1 GiB) */
    int64_t pieces;         /**< contiguous pieces this rank packed or copied */
    double seconds_plan;    /**< checking arguments and computing the pieces */
    double seconds_exchange; /**< packing, sending, receiving */
    double seconds_unpack;  /**< unpacking and the local copy, after the agreement */
    double seconds;         /**< the whole call */
} nt_mpi_stats_t;

/**
 * \brief Copy the rows x cols submatrix of A at (ia, ja) into B at (ib, jb), both distributed
 *        block-cyclically over ranks of comm (pdgemr2d's semantics, 0-based indices, any
 *        element size). Collective over comm: every rank calls it with the same sizes and
 *        grids; a rank may belong to either grid, both, or neither.
 * @param[in]  comm      the communicator of every rank involved (not MPI_COMM_NULL).
 * @param[in]  rows      submatrix rows, >= 0.
 * @param[in]  cols      submatrix columns, >= 0.
 * @param[in]  elem_size bytes per element, >= 1.
 * @param[in]  a         this rank's local part of A (column-major, leading dimension lda);
 *                       read only; may be NULL when the rank holds none of A.
 * @param[in]  lda       its leading dimension, >= max(1, local rows) (ignored outside A).
 * @param[in]  ia, ja    top-left corner of the submatrix in A, >= 0, inside A.
 * @param[in]  ga        A's grid (not NULL).
 * @param[out] b         this rank's local part of B; written only on success, and only the
 *                       elements of the submatrix; may be NULL when the rank holds none of B.
 * @param[in]  ldb       its leading dimension, >= max(1, local rows) (ignored outside B).
 * @param[in]  ib, jb    top-left corner in B, >= 0, inside B.
 * @param[in]  gb        B's grid (not NULL).
 * @param[in]  opts      options or NULL.
 * @param[out] stats     this rank's statistics, or NULL.
 * @retval NT_OK success on every rank. @retval NT_EINVAL a bad argument on some rank (the
 *         message names it and the rank). @retval NT_ERANGE a size overflows.
 * @retval NT_ENOMEM a buffer could not be allocated on some rank. @retval NT_ESYS an MPI call
 *         failed (or an injected failure). Every rank returns the same status; on failure B
 *         is unchanged everywhere.
 */
nt_status nt_mpi_redist(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                        const void *a, int64_t lda, int64_t ia, int64_t ja,
                        const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib, int64_t jb,
                        const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                        nt_mpi_stats_t *stats);

/**
 * \brief ScaLAPACK's p?gemr2d for any element size: copy the m x n submatrix of A at
 *        (ia, ja) into B at (ib, jb) (1-based), the matrices described by 9-integer
 *        descriptors (DTYPE = 1, CTXT, M, N, MB, NB, RSRC, CSRC, LLD) on BLACS grids that may
 *        differ, with a BLACS context ictxt containing every process of both grids. Called by
 *        every process of ictxt; a process outside a grid passes that descriptor with
 *        CTXT = -1 (its other entries are not read). The grids' shapes and rank maps are
 *        learnt from their members (an all-gather over ictxt's processes). The BLACS process
 *        numbers are ranks of MPI_COMM_WORLD (Debian's MPI BLACS).
 * @param[in]  elem_size bytes per element (8 for pdgemr2d).
 * @param[in]  m, n      submatrix sizes, >= 0 (0: nothing to do, still collective).
 * @param[in]  a         local part of A (may be NULL outside A's grid).
 * @param[in]  ia, ja    1-based corner in A.
 * @param[in]  desca     A's descriptor (not NULL).
 * @param[out] b         local part of B (may be NULL outside B's grid).
 * @param[in]  ib, jb    1-based corner in B.
 * @param[in]  descb     B's descriptor (not NULL).
 * @param[in]  ictxt     a BLACS context containing both grids' processes.
 * @param[out] stats     this rank's statistics, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL bad descriptor (DTYPE, sizes, RSRC/CSRC, LLD,
 *         members that disagree), submatrix outside a matrix, calling process outside ictxt.
 * @retval other as nt_mpi_redist(). The same status on every process of ictxt.
 */
nt_status nt_pgemr2d(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                     const int *desca, void *b, int ib, int jb, const int *descb, int ictxt,
                     nt_mpi_stats_t *stats);

/**
 * \brief pdgemr2d's interface (doubles) on nt_pgemr2d(): same arguments as ScaLAPACK's
 *        Cpdgemr2d, plus a status.
 * @param[in]  m, n   submatrix sizes, >= 0.
 * @param[in]  a      local part of A.
 * @param[in]  ia, ja 1-based corner in A.
 * @param[in]  desca  A's descriptor.
 * @param[out] b      local part of B.
 * @param[in]  ib, jb 1-based corner in B.
 * @param[in]  descb  B's descriptor.
 * @param[in]  ictxt  a BLACS context containing both grids' processes.
 * @retval NT_OK success. @retval other as nt_pgemr2d().
 */
nt_status nt_pdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca,
                      double *b, int ib, int jb, const int *descb, int ictxt);

/**
 * \brief Import a ScaLAPACK descriptor: the grid of desc, with the rank table of its BLACS
 *        grid, for nt_mpi_redist() on MPI_COMM_WORLD (BLACS process numbers are its ranks).
 *        A relabelling of the target is then a permutation of ranks[] (see the file's
 *        introduction). Collective over the processes of ictxt; processes outside desc's grid
 *        pass it with CTXT = -1.
 * @param[in]  desc      the 9-integer descriptor (not NULL).
 * @param[in]  ictxt     a BLACS context containing every process of desc's grid.
 * @param[out] grid      the grid; grid->ranks points to ranks.
 * @param[out] ranks     caller's array of ranks_cap entries, filled row-major.
 * @param[in]  ranks_cap its capacity, at least the grid's process count.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, bad or inconsistent descriptors,
 *         no process in the grid, caller outside ictxt. @retval NT_ERANGE ranks_cap too
 *         small. @retval NT_ENOMEM, NT_ESYS allocation or MPI failure. The same status on
 *         every process of ictxt.
 */
nt_status nt_mpi_grid_from_desc(const int *desc, int ictxt, nt_mpi_grid_t *grid, int *ranks,
                                int ranks_cap);

/**
 * \brief Export a grid as this rank's 9-integer descriptor (DTYPE 1).
 * @param[in]  grid the grid (not NULL).
 * @param[in]  ctxt the BLACS context of the grid (-1 for a rank outside it).
 * @param[in]  lld  this rank's leading dimension, >= 1.
 * @param[out] desc 9 integers.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument. @retval NT_ERANGE a size outside
 *         a descriptor's 32-bit integers.
 */
nt_status nt_mpi_desc_from_grid(const nt_mpi_grid_t *grid, int ctxt, int64_t lld, int *desc);

/**
 * \brief Export one domain of a numatile matrix as a ScaLAPACK local matrix, without copying:
 *        for A in ::NT_LAYOUT_SCALAPACK with the map bc2d:nprowxnpcol (tile (i,j) on domain
 *        (i mod nprow)*npcol + j mod npcol; its tiles are the blocks), the descriptor of the
 *        process at grid cell (domain / npcol, domain mod npcol) (RSRC = CSRC = 0) and the
 *        address of its local matrix inside A.
 * @param[in]  A      the matrix (not NULL), with memory.
 * @param[in]  nprow, npcol the process grid (a matrix of few tiles fits several grids, so the
 *                    caller says which), nprow*npcol <= A->ndomains.
 * @param[in]  domain 0..nprow*npcol-1.
 * @param[in]  ctxt   the BLACS context to put in the descriptor.
 * @param[out] desc   9 integers.
 * @param[out] local  the local matrix (owned by A, valid while A lives), NULL when the domain
 *                    holds no element (its LLD is then max(1, its local rows)).
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, no memory, another layout, a grid
 *         larger than A's domains, domain out of range. @retval NT_ENOTSUP A's map is not
 *         that grid's. @retval NT_ERANGE sizes beyond 32-bit descriptors.
 */
nt_status nt_mpi_matrix_desc(const nt_matrix_t *A, int nprow, int npcol, int domain, int ctxt,
                             int *desc, void **local);

/**
 * \brief Local rows (or columns) of a block-cyclic dimension held by process coordinate
 *        iproc: ScaLAPACK's NUMROC.
 * @param[in] n     global extent, >= 0.
 * @param[in] nb    block size, >= 1.
 * @param[in] iproc the process coordinate, 0..nprocs-1.
 * @param[in] isrc  process holding the first block, 0..nprocs-1.
 * @param[in] nprocs processes in that dimension, >= 1.
 * @return the count, or -1 for an invalid argument.
 */
int64_t nt_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);

/**
 * \brief Message of the last failure of this library on the calling thread.
 * @return a thread-local string, "" if nothing failed yet.
 */
const char *nt_mpi_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
