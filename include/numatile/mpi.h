/**
 * \file mpi.h
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
 * numatile/match.h computes at rank level) is applied by permuting that table before the call:
 * nt_mpi_relabel() chooses it (only where the caller lets numatile choose where the target
 * lives; never under pdgemr2d's semantics, where the caller fixes the target grid). The NUMA
 * domains of every rank, with global ids and an inter-rank distance level, are a
 * ::nt_mpi_topo_t (nt_mpi_topo_create()); given to nt_mpi_redist() they bind the threads that
 * write the target to the local domains.
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
 * When the call's bytes that go through a node's memory cannot stay in its caches (32 MiB or
 * more) and elements are 8 bytes, messages and target columns are written in whole 64-byte
 * lines with streaming stores (a target line is then not read before it is written), except
 * short pieces at a fixed spacing (blocks under 64 elements), copied by strided loops; the
 * environment variable NT_MPI_LINES set to 1 or 0 forces the lines on (those pieces too) or
 * off (tests, measurements).
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
#include <numatile/match.h>
#include <numatile/matrix.h>
#include <numatile/topo.h>

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

/** \brief Domains across the ranks of a communicator (nt_mpi_topo_create()); opaque. */
typedef struct nt_mpi_topo nt_mpi_topo_t;

/** \brief Options of nt_mpi_redist(). Zero-initialise for the defaults. */
typedef struct nt_mpi_opts {
    int threads; /**< OpenMP threads packing and unpacking on each rank; 0 = OpenMP's
                      default (OMP_NUM_THREADS) */
    int steps;   /**< nonzero: one-port phases (numatile/sched.h, the schedule of the byte
                      matrix between ranks): in each phase every rank sends to at most one rank
                      and receives from at most one; every message point-to-point (no shared
                      window). Must be the same on every rank. */
    int alltoallv; /**< nonzero (and steps zero): every message packed into one send buffer
                      and exchanged by one MPI_Alltoallv over the communicator (no shared
                      window, no point-to-point); a rank's message to one rank must stay below
                      2 GiB (MPI's int counts), else NT_ERANGE. Must be the same on every
                      rank. */
    const nt_mpi_topo_t *topo; /**< NULL, or this rank's distributed topology on a physical
                      or virtual (not synthetic) local topology: the received pieces and the
                      local copy are then written by one thread bound to each local domain,
                      domain d writing the local columns nt_mpi_topo_columns() gives it (its
                      share of the target's pages, when the caller touched them so first) */
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
 *         is unchanged everywhere, except after an MPI call failed inside the exchange of a
 *         call that receives messages straight into B through datatypes (point to point
 *         between ranks of one node without the shared window, NT_MPI_DATATYPES): B may then
 *         hold part of the result.
 */
nt_status nt_mpi_redist(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                        const void *a, int64_t lda, int64_t ia, int64_t ja,
                        const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib, int64_t jb,
                        const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                        nt_mpi_stats_t *stats);

/**
 * \brief ScaLAPACK's p?gemr2d for any element size: copy the m x n submatrix of A at
 *        (ia, ja) into B at (ib, jb) (1-based), the matrices described by 9-integer
 *        descriptors (DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD) on BLACS grids that may
 *        differ in shape and in members, with a BLACS context ictxt containing every process
 *        of both grids. The semantics are pdgemr2d's (ScaLAPACK's REDIST/SRC/pdgemr.c):
 *        m = 0 or n = 0 returns at once, without any check or communication (as pdgemr2d,
 *        not collective then); otherwise every process of ictxt calls it. A process outside a
 *        grid passes that descriptor with CTXT = -1 (or a context it is not part of), and
 *        neither that descriptor's other entries nor its corner (ia, ja or ib, jb) nor its
 *        local array are read: only the grids' members' values count. DTYPE is never read.
 *        LLD must be >= the process's local rows (0 is accepted on a process holding no row
 *        of the matrix). The grids' shapes and rank maps are learnt from their members (an
 *        all-gather over ictxt's processes). The BLACS process numbers are ranks of
 *        MPI_COMM_WORLD (Debian's MPI BLACS).
 * @param[in]  elem_size bytes per element (8 for pdgemr2d).
 * @param[in]  m, n      submatrix sizes, >= 0 (0: nothing to do, returns at once).
 * @param[in]  a         local part of A (may be NULL outside A's grid).
 * @param[in]  ia, ja    1-based corner in A (read on A's members only).
 * @param[in]  desca     A's descriptor (not NULL).
 * @param[out] b         local part of B (may be NULL outside B's grid).
 * @param[in]  ib, jb    1-based corner in B (read on B's members only).
 * @param[in]  descb     B's descriptor (not NULL).
 * @param[in]  ictxt     a BLACS context containing both grids' processes.
 * @param[out] stats     this rank's statistics (zero when nothing moved), or NULL.
 * @retval NT_OK success. @retval NT_EINVAL m or n negative, a NULL descriptor, a bad field
 *         of a member's descriptor (M, N < 0; MB, NB < 1; RSRC, CSRC outside the grid; LLD
 *         below the local rows), the submatrix outside a matrix, members of one grid that
 *         disagree, a grid without a member in ictxt, the calling process outside ictxt: the
 *         message names the field and the process (its number in ictxt and its BLACS
 *         number). @retval other as nt_mpi_redist(). The same status on every process of
 *         ictxt (except for a NULL descriptor or a caller outside ictxt, refused locally).
 */
nt_status nt_pgemr2d(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                     const int *desca, void *b, int ib, int jb, const int *descb, int ictxt,
                     nt_mpi_stats_t *stats);

/**
 * \brief pdgemr2d's interface (doubles) on nt_pgemr2d(): same arguments and semantics as
 *        ScaLAPACK's Cpdgemr2d, plus a status.
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

/* ------------------------------------------------------------------------------------------ */
/* Distributed domains                                                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Build the domains of every rank of comm: each rank loads its own topology with
 *        nt_topo_load(opts) (physical or virtual domains, as on one machine; ranks may pass
 *        different opts, e.g. different domain counts), and every rank learns every rank's
 *        domain count and distance matrix (an all-gather). Global domain ids are rank-major:
 *        rank r's local domain l is first(r) + l (nt_mpi_topo_global()). The global distance
 *        matrix has each rank's own matrix on its diagonal block and inter_distance in every
 *        entry between domains of different ranks (one inter-rank level: nothing is measured).
 *        Collective over comm.
 * @param[in]  comm           the communicator (not MPI_COMM_NULL); the topology keeps its size
 *                            and this rank's number, not the communicator.
 * @param[in]  opts           this rank's nt_topo_load() options, or NULL (one domain per NUMA
 *                            node).
 * @param[in]  inter_distance the distance between domains of different ranks; 0 = the default,
 *                            twice the largest distance inside any rank (so 40 between ranks of
 *                            the usual 10/20 matrices); otherwise at least that largest
 *                            distance. Must be the same on every rank.
 * @param[out] out            the topology, to free with nt_mpi_topo_destroy(); untouched on
 *                            failure.
 * @retval NT_OK success. @retval NT_EINVAL comm is MPI_COMM_NULL, out NULL, inter_distance
 *         below the largest intra-rank distance or not the same on every rank, or nt_topo_load()
 *         refused a rank's opts (the message names the rank). @retval NT_ERANGE the global
 *         domain count overflows an int, or nt_topo_load() refused a size.
 * @retval NT_ENOMEM, NT_ESYS allocation, hwloc or MPI failure. Every rank returns the same
 *         status.
 */
nt_status nt_mpi_topo_create(MPI_Comm comm, const nt_topo_opts_t *opts, uint32_t inter_distance,
                             nt_mpi_topo_t **out);

/**
 * \brief Free a distributed topology (and its local topology). Not collective; NULL is allowed.
 * @param[in] topo the topology or NULL.
 */
void nt_mpi_topo_destroy(nt_mpi_topo_t *topo);

/**
 * \brief Number of ranks the topology spans (the communicator's size).
 * @param[in] topo the topology (not NULL).
 * @return the count, or -1 when topo is NULL.
 */
int nt_mpi_topo_nranks(const nt_mpi_topo_t *topo);

/**
 * \brief Number of global domains (the sum of every rank's domains).
 * @param[in] topo the topology (not NULL).
 * @return the count, or -1 when topo is NULL.
 */
int nt_mpi_topo_ndomains(const nt_mpi_topo_t *topo);

/**
 * \brief The domains of one rank: global ids first .. first + count - 1.
 * @param[in]  topo  the topology (not NULL).
 * @param[in]  rank  0..nranks-1.
 * @param[out] first its first global id, or NULL.
 * @param[out] count its number of domains, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL topo NULL or rank out of range.
 */
nt_status nt_mpi_topo_rank_domains(const nt_mpi_topo_t *topo, int rank, int *first, int *count);

/**
 * \brief Global id -> (rank, local domain).
 * @param[in]  topo   the topology (not NULL).
 * @param[in]  global 0..ndomains-1.
 * @param[out] rank   its rank, or NULL.
 * @param[out] local  its local domain on that rank, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL topo NULL or global out of range.
 */
nt_status nt_mpi_topo_domain(const nt_mpi_topo_t *topo, int global, int *rank, int *local);

/**
 * \brief (rank, local domain) -> global id.
 * @param[in]  topo   the topology (not NULL).
 * @param[in]  rank   0..nranks-1.
 * @param[in]  local  0..(that rank's domains)-1.
 * @param[out] global the id.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, rank or local out of range.
 */
nt_status nt_mpi_topo_global(const nt_mpi_topo_t *topo, int rank, int local, int *global);

/**
 * \brief The global distance matrix, row-major ndomains x ndomains, owned by the topology.
 * @param[in] topo the topology (not NULL).
 * @return the matrix, or NULL when topo is NULL.
 */
const uint32_t *nt_mpi_topo_distances(const nt_mpi_topo_t *topo);

/**
 * \brief The distance between domains of different ranks (given, or the default).
 * @param[in] topo the topology (not NULL).
 * @return the distance, 0 when topo is NULL.
 */
uint32_t nt_mpi_topo_inter_distance(const nt_mpi_topo_t *topo);

/**
 * \brief This rank's own topology (for nt_bind_domain(), nt_team_run(), ...), owned by topo.
 * @param[in] topo the topology (not NULL).
 * @return the local topology, or NULL when topo is NULL.
 */
const nt_topo_t *nt_mpi_topo_local(const nt_mpi_topo_t *topo);

/**
 * \brief The local columns of a local array that a local domain owns under opts.topo: the
 *        ncols columns cut into this rank's domain count of contiguous, nearly equal ranges,
 *        domain d getting [ncols * d / D, ncols * (d + 1) / D). A caller first-touching its
 *        local array from threads bound so puts each range's pages on its domain.
 * @param[in]  topo   the topology (not NULL).
 * @param[in]  ncols  local columns, >= 0.
 * @param[in]  domain local domain, 0..D-1.
 * @param[out] c0     first column (not NULL).
 * @param[out] c1     one past the last column (not NULL).
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, ncols < 0, domain out of range.
 */
nt_status nt_mpi_topo_columns(const nt_mpi_topo_t *topo, int64_t ncols, int domain,
                              int64_t *c0, int64_t *c1);

/* ------------------------------------------------------------------------------------------ */
/* Relabelling at rank level                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief The bytes that nt_mpi_redist() with these arguments sends from every rank to every
 *        rank (the diagonal: what stays on a rank). Pure computation from the closed-form
 *        communication sets, the same on every rank; not collective.
 * @param[in]  nranks    ranks of the communicator, >= 1 (every rank of both grids below it).
 * @param[in]  rows, cols, elem_size, ia, ja, ga, ib, jb, gb  as nt_mpi_redist().
 * @param[out] bytes     nranks x nranks row-major: bytes[s * nranks + k] from rank s to rank k.
 *                       Untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL a bad argument (as nt_mpi_redist()), nranks < 1,
 *         bytes NULL. @retval NT_ERANGE a count overflows. @retval NT_ENOMEM scratch.
 */
nt_status nt_mpi_rank_bytes(int nranks, int64_t rows, int64_t cols, size_t elem_size,
                            int64_t ia, int64_t ja, const nt_mpi_grid_t *ga, int64_t ib,
                            int64_t jb, const nt_mpi_grid_t *gb, int64_t *bytes);

/** \brief Ranks above which nt_mpi_relabel() solves NT_MATCH_VOLUME on the sparse count
 *         matrix instead of the dense nranks x nranks one. */
#define NT_MPI_RELABEL_SPARSE 1024

/** \brief Bytes of a redistribution between ranks and within them (nt_mpi_relabel()). */
typedef struct nt_mpi_relabel_cost {
    int64_t inter_bytes; /**< bytes that cross from one rank to another */
    int64_t intra_bytes; /**< bytes that stay on their rank (copied locally) */
    int64_t inter_steps; /**< one-port bound: max over ranks of max(bytes it sends to other
                              ranks, bytes it receives from them) */
} nt_mpi_relabel_cost_t;

/**
 * \brief Choose where the target lives: a permutation of the ranks that the caller's target
 *        grid gb would use, chosen at rank level by nt_match_hier_solve() (one domain per rank,
 *        the count matrix nt_mpi_rank_bytes()) under obj, returned as the relabelled rank table
 *        of gb. The target grid with that table holds the same matrix in the same block-cyclic
 *        layout, on other ranks: use it when the caller chooses where the result lives
 *        (numatile redist --mpi --match); it does not apply to pdgemr2d's semantics, where the
 *        caller fixes the target grid. Pure computation, the same result on every rank (call
 *        it on every rank with the same arguments); not collective.
 * @param[in]  nranks   ranks of the communicator, >= 1; the permutation is over 0..nranks-1,
 *                      so the relabelled grid may use ranks that gb did not.
 * @param[in]  rows, cols, elem_size, ia, ja, ga, ib, jb, gb  as nt_mpi_redist().
 * @param[in]  obj      NT_MATCH_CANONICAL (gb's own table), NT_MATCH_VOLUME (least
 *                      inter-rank bytes), NT_MATCH_STEPS (least one-port bound between ranks)
 *                      or NT_MATCH_LEX (least bound, then least inter-rank bytes); exact over
 *                      the nranks! permutations. NT_MATCH_VOLUME on more than
 *                      ::NT_MPI_RELABEL_SPARSE ranks solves the sparse count matrix
 *                      (nt_sparse_counts_bc(), nt_match_sparse_volume(); O(nranks + entries)
 *                      memory, no nranks x nranks table, no ::NT_MATCH_MAX_P cap): the same
 *                      least volume, possibly another permutation among the optimal ones.
 * @param[out] ranks    gb->nprow * gb->npcol entries: the relabelled table (row-major, as
 *                      nt_mpi_grid_t::ranks). Untouched on failure.
 * @param[out] perm     nranks entries: rank k of gb's table becomes perm[k]; or NULL.
 * @param[out] canonical the costs with gb as given, or NULL.
 * @param[out] chosen   the costs with the relabelled table, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL as nt_mpi_rank_bytes(), ranks NULL, obj not
 *         listed. @retval NT_ERANGE a count overflows, nranks above ::NT_MATCH_MAX_P (except
 *         NT_MATCH_VOLUME above ::NT_MPI_RELABEL_SPARSE ranks), more sparse entries than
 *         ::NT_SPARSE_MAX_NNZ.
 * @retval NT_ENOMEM scratch.
 */
nt_status nt_mpi_relabel(int nranks, int64_t rows, int64_t cols, size_t elem_size, int64_t ia,
                         int64_t ja, const nt_mpi_grid_t *ga, int64_t ib, int64_t jb,
                         const nt_mpi_grid_t *gb, nt_match_objective obj, int *ranks, int *perm,
                         nt_mpi_relabel_cost_t *canonical, nt_mpi_relabel_cost_t *chosen);

/** \brief One tile a rank holds of an ::nt_mpi_layout_t: its first element and leading
 *         dimension (in elements). */
typedef struct nt_mpi_tile {
    void *ptr;  /**< the tile's element (0,0), column-major inside the tile */
    int64_t ld; /**< leading dimension, >= the tile's rows (>= 1) */
} nt_mpi_tile_t;

/**
 * \brief A matrix distributed over the ranks of a communicator by any tile map, with any
 *        (irregular) row and column splits. Every rank describes the same matrix (sizes,
 *        splits, owners); tiles[] is the calling rank's own memory. A tile layout (each tile
 *        contiguous, ld = its rows) and a local-array layout (tiles inside one column-major
 *        local array, ld = the array's) are both lists of tiles. A matrix on a
 *        sub-communicator of the call's communicator names its owners by their ranks in the
 *        call's communicator (MPI_Group_translate_ranks()).
 */
typedef struct nt_mpi_layout {
    int64_t m;                /**< global rows, >= 0 */
    int64_t n;                /**< global columns, >= 0 */
    int64_t mt;               /**< tile rows, >= 1 */
    int64_t nt;               /**< tile columns, >= 1 */
    const int64_t *row_split; /**< mt + 1 offsets, row_split[0] = 0 < ... <= row_split[mt] = m
                                   (non-decreasing; empty tile rows allowed only when m = 0):
                                   tile row i holds rows row_split[i] .. row_split[i+1]-1; or
                                   NULL: tile rows of mb rows, the last fewer (mt = ceil(m/mb)) */
    const int64_t *col_split; /**< the same for the columns (nt + 1 offsets), or NULL: nb */
    int64_t mb;               /**< rows per tile when row_split is NULL, >= 1 */
    int64_t nb;               /**< columns per tile when col_split is NULL, >= 1 */
    const int *owner;         /**< mt * nt ranks of the communicator, row-major:
                                   owner[i * nt + j] holds tile (i, j); or NULL: the owners
                                   are cyclic's */
    const nt_mpi_tile_t *tiles; /**< the calling rank's tiles, one per tile it owns, in
                                   row-major order of the tile grid; NULL when it owns none */
    const int64_t *mine;      /**< optional index of the calling rank's tiles: nmine tile
                                   numbers (i * nt + j), increasing, every tile owner[] gives
                                   this rank and no other; mine[k] is the tile of tiles[k].
                                   Given, planning reads only these tiles and the owner
                                   entries its pieces meet: O(own tiles + pieces) instead of
                                   O(mt * nt). NULL: owner[] is scanned. Not NULL (any
                                   address) with nmine = 0 for a rank that owns none. */
    int64_t nmine;            /**< entries of mine[] (0 when mine is NULL) */
    const nt_mpi_grid_t *cyclic; /**< read when owner is NULL: owners by formula, tile (i, j)
                                   to the rank of grid cell ((i + rsrc) % nprow, (j + csrc) %
                                   npcol) (ranks[cell], or the cell when ranks is NULL), so no
                                   rank stores mt * nt owners. Only nprow, npcol, rsrc, csrc
                                   and ranks are read (the tiles stay the layout's: any splits).
                                   NULL when owner is given. */
} nt_mpi_layout_t;

/** \brief One redistribution of several done in one exchange (nt_mpi_layout_redist()). */
typedef struct nt_mpi_transfer {
    const nt_mpi_layout_t *a; /**< the source (read only) */
    const nt_mpi_layout_t *b; /**< the target: only the elements of the submatrix are written
                                   (its tiles' memory is written through tiles[].ptr) */
    int64_t rows;             /**< submatrix rows, >= 0 */
    int64_t cols;             /**< submatrix columns, >= 0 */
    int64_t ia;               /**< its first row in the source (0-based) */
    int64_t ja;               /**< its first column in the source (0-based) */
    int64_t ib;               /**< its first row in the target (0-based) */
    int64_t jb;               /**< its first column in the target (0-based) */
    size_t elem_size;         /**< bytes per element, >= 1 (both matrices) */
} nt_mpi_transfer_t;

/**
 * \brief Redistribute count submatrices between matrices of any tile maps in one exchange:
 *        every rank sends each other rank one message holding its pieces of all the transfers
 *        (point-to-point, messages above 1 GiB in parts), copies what stays on it directly,
 *        and writes the targets only once every rank has received everything (an agreement
 *        ends the exchange; on failure no target is written anywhere). Collective over comm:
 *        every rank calls it with the same transfers (its own tiles[] and mine[]). Planning
 *        costs this rank O(tiles of the maps it scans + its pieces): a layout without mine[]
 *        has its owners (table or cyclic formula) read once; one with mine[] has only its own
 *        tiles checked and walked, and each owner a piece meets checked when read, so with
 *        mine[] on both sides planning costs O(own tiles + pieces) however many tiles the
 *        matrices have. The
 *        pieces are found by binary search in the splits. When some rank gives mine[], one
 *        more all-reduce checks that the ranks' own tiles add up to every tile of each
 *        matrix. The targets must not overlap the sources' memory.
 * @param[in]  comm   the communicator whose ranks the owners name (not MPI_COMM_NULL).
 * @param[in]  count  transfers, >= 0 (0: nothing to do, still collective).
 * @param[in]  xfer   count transfers (not NULL when count > 0); the same on every rank but
 *                    their tiles[].
 * @param[in]  opts   NULL or options: only threads is read (pack and unpack threads; 0 = as
 *                    nt_mpi_redist() chooses).
 * @param[out] stats  this rank's statistics, or NULL.
 * @retval NT_OK success on every rank. @retval NT_EINVAL a bad description on some rank (the
 *         message names the transfer, the field and the rank), among them a bad mine[]: nmine
 *         > 0 with mine NULL, an entry outside the tiles, not increasing, or naming a tile
 *         the owners give another rank; or own tiles (mine[] or the scan) that do not add up
 *         to mt * nt over the ranks (an index misses a tile, or the owner tables differ); a
 *         cyclic grid out of range, or a ranks[] entry read that is not a rank.
 *         @retval NT_ERANGE a size overflows. @retval NT_ENOMEM a buffer could not be allocated on some rank.
 * @retval NT_ESYS an MPI call failed (or an injected failure, NT_MPI_FAIL_RANK). Every rank
 *         returns the same status.
 */
nt_status nt_mpi_layout_redist(MPI_Comm comm, int count, const nt_mpi_transfer_t *xfer,
                               const nt_mpi_opts_t *opts, nt_mpi_stats_t *stats);

/**
 * \brief The ::nt_mpi_layout_t of a block-cyclic matrix (ScaLAPACK's layout), for transfers
 *        between it and matrices of any tile map: one tile per block, owned as the grid says
 *        (by formula: no owner table), this rank's tiles inside its local array. Costs
 *        O(this rank's tiles + nprow * npcol), however many tiles the matrix has.
 * @param[in]  g      the grid (as nt_mpi_redist()'s), m and n >= 0.
 * @param[in]  me     the calling rank (in the communicator the grid's ranks name).
 * @param[in]  local  this rank's local array (column-major), or NULL when it holds no block.
 * @param[in]  lld    its leading dimension, >= its local rows (>= 1).
 * @param[in]  elem_size bytes per element, >= 1.
 * @param[out] out    the layout: owner NULL, cyclic a copy of the grid (its ranks[] too),
 *                    tiles[] and mine[] this rank's tiles (so planning walks only them),
 *                    all allocated: free them with nt_mpi_layout_free(). Untouched on
 *                    failure.
 * @retval NT_OK success. @retval NT_EINVAL a bad grid, me in two cells of g->ranks, local
 *         NULL where this rank holds blocks, lld too small, out NULL. @retval NT_ERANGE too
 *         many tiles. @retval NT_ENOMEM.
 */
nt_status nt_mpi_layout_from_grid(const nt_mpi_grid_t *g, int me, void *local, int64_t lld,
                                  size_t elem_size, nt_mpi_layout_t *out);

/**
 * \brief Free what nt_mpi_layout_from_grid() allocated in a layout (not the local array).
 * @param[in,out] L a layout from nt_mpi_layout_from_grid(), or NULL.
 */
void nt_mpi_layout_free(nt_mpi_layout_t *L);

/**
 * \brief One relabelling of the target ranks over all the transfers (COSTA's
 *        transform_multiple): the permutation of the ranks that keeps the most bytes on their
 *        rank (NT_MATCH_VOLUME) or gives the fewest one-port steps (NT_MATCH_STEPS, LEX),
 *        exactly, on the rank x rank byte matrix summed over the transfers. Apply it by giving
 *        every target tile to rank perm[owner] (a cyclic layout: ranks[c] to
 *        perm[ranks[c]]; and its memory there) before
 *        nt_mpi_layout_redist(). Collective over comm (each rank counts its own bytes; one
 *        all-gather); the same perm on every rank.
 * @param[in]  comm, count, xfer as nt_mpi_layout_redist() (tiles[] not read; mine[] read
 *                    and checked as there).
 * @param[in]  obj    NT_MATCH_CANONICAL (perm = identity), NT_MATCH_VOLUME, NT_MATCH_STEPS or
 *                    NT_MATCH_LEX.
 * @param[out] perm   ranks of comm entries: target rank k becomes perm[k]. Untouched on
 *                    failure.
 * @param[out] moved  bytes between ranks before (moved[0]) and after (moved[1]) the
 *                    relabelling, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL as nt_mpi_layout_redist(), perm NULL, obj not
 *         listed. @retval NT_ERANGE more ranks than ::NT_MATCH_MAX_P. @retval NT_ENOMEM, NT_ESYS
 *         as nt_mpi_layout_redist(). The same status on every rank.
 */
nt_status nt_mpi_layout_relabel(MPI_Comm comm, int count, const nt_mpi_transfer_t *xfer,
                                nt_match_objective obj, int *perm, int64_t moved[2]);

/**
 * \brief Message of the last failure of this library on the calling thread.
 * @return a thread-local string, "" if nothing failed yet.
 */
const char *nt_mpi_last_error(void);

/* ------------------------------------------------------------------------------------------ */
/* Triangular copies and transposition (ScaLAPACK's p?trmr2d, PBLAS's p?tran)                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief ScaLAPACK's p?trmr2d for any element size: nt_pgemr2d() restricted to the upper or
 *        lower trapezoid of the m x n submatrix; B's other elements are not written. As in
 *        ScaLAPACK, the trapezoid's diagonal ends at the submatrix's bottom-right corner:
 *        element (i, j) of the submatrix (0-based) is copied when, for uplo 'U',
 *        i - j <= max(m - n, 0) (i - j < max(m - n, 0) with diag 'U'), and for uplo 'L',
 *        j - i <= max(n - m, 0) (< with diag 'U'); for a square submatrix the upper triangle
 *        is i <= j. Collective over ictxt's processes, with nt_pgemr2d()'s arguments,
 *        descriptors and grids (the same exchange, the same transaction: B unchanged on
 *        failure).
 * @param[in]  uplo      'U' or 'L' (either case): which trapezoid.
 * @param[in]  diag      'N': the diagonal is copied; 'U' (unit): it is not.
 * @param[in]  elem_size bytes per element (8 for pdtrmr2d).
 * @param[in]  m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, stats  as nt_pgemr2d().
 * @retval NT_OK success. @retval NT_EINVAL uplo or diag not listed, or as nt_pgemr2d().
 * @retval other as nt_pgemr2d(). The same status on every process of ictxt.
 */
nt_status nt_ptrmr2d(char uplo, char diag, size_t elem_size, int m, int n, const void *a,
                     int ia, int ja, const int *desca, void *b, int ib, int jb,
                     const int *descb, int ictxt, nt_mpi_stats_t *stats);

/**
 * \brief PBLAS's p?tran, p?tranu and p?tranc: sub(C) = beta*sub(C) + alpha*op(sub(A)) with
 *        sub(C) = C(ic:ic+m-1, jc:jc+n-1) and, for op 'T' or 'C', sub(A) = A(ia:ia+n-1,
 *        ja:ja+m-1) (n x m) transposed, conjugated too for 'C' on complex types; op 'N' is
 *        p?geadd's sub(C) = beta*sub(C) + alpha*A(ia:ia+m-1, ja:ja+n-1). Both matrices are
 *        distributed on one BLACS context (desca's CTXT, equal to descc's), in any block
 *        sizes and sources; 1-based corners; called by every process of the context. beta = 0
 *        never reads C (NaN or garbage there is not propagated); alpha = 0 never reads A;
 *        alpha = 0 with beta = 1, m = 0 or n = 0 return at once without communication. The
 *        exchange is nt_pgemr2d()'s (one packed message per pair of processes), so the call
 *        is transactional in the same way: on failure C is unchanged everywhere.
 * @param[in]  trans 'T' (p?tran, p?tranu), 'C' (p?tranc; as 'T' for real types) or 'N'.
 * @param[in]  type  's', 'd', 'c' or 'z' (either case): float, double, float complex,
 *                   double complex (pairs of float or double, real part first).
 * @param[in]  m, n  sub(C)'s rows and columns, >= 0.
 * @param[in]  alpha pointer to one scalar of the type (not NULL).
 * @param[in]  a     local part of A (read only).
 * @param[in]  ia, ja 1-based corner of sub(A) in A.
 * @param[in]  desca A's 9-integer descriptor (not NULL).
 * @param[in]  beta  pointer to one scalar of the type (not NULL).
 * @param[in,out] c  local part of C; only sub(C)'s elements are written.
 * @param[in]  ic, jc 1-based corner of sub(C) in C.
 * @param[in]  descc C's descriptor (not NULL), on desca's context.
 * @param[out] stats this process's statistics, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL trans or type not listed, NULL scalar or
 *         descriptor, contexts that differ, m or n < 0, or a descriptor or submatrix
 *         nt_pgemr2d() refuses. @retval other as nt_pgemr2d(). The same status on every
 *         process of the context.
 */
nt_status nt_ptran(char trans, char type, int m, int n, const void *alpha, const void *a,
                   int ia, int ja, const int *desca, const void *beta, void *c, int ic, int jc,
                   const int *descc, nt_mpi_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
