/**
 * \file numatile/task.h
 * \brief Task graphs on tiles: run your own kernels owner-computes on placed matrices.
 *
 * Submit tasks in sequential program order, each with a function, an argument and the tiles
 * (or data handles of your own) it reads and writes. The graph infers the dependencies as
 * OpenMP `depend` clauses would: a task that reads a tile waits for the last task that wrote
 * it; a task that writes a tile waits for the last writer and for every reader since
 * (read-after-write, write-after-read, write-after-write). Two tasks that only read a tile are
 * not ordered. Building the graph touches no matrix memory.
 *
 * nt_task_graph_run() then runs every task once, after its predecessors, on a team of threads
 * bound to the domains of the topology: by default a task runs on a thread of the domain that
 * owns the tile it writes (owner-computes), or of the domain given at submission. A domain
 * without cpus has its tasks run by the nearest domain that has some. Ready tasks of a domain
 * run highest priority first, then in submission order. The run reports, in an
 * ::nt_kernel_stats_t, how many tasks each domain owned and ran, the fraction run on their
 * own domain, and the tiles read and written across domains. The tiled kernels of
 * numatile/kernels.h (GEMM, QR, stencil) are built on this interface.
 *
 * Errors follow numatile/error.h. A task function returns ::NT_OK or an error: the first
 * error wins, the tasks not started yet are skipped (their functions are not called), and
 * nt_task_graph_run() returns that error.
 *
 * Threads: a graph is used by one thread at a time (submit, run, destroy); distinct graphs may
 * be built and run in several threads at once. Task functions run concurrently on the team's
 * threads and must not start another run themselves (a nested team gets one thread: the run
 * fails with ::NT_ESYS).
 *
 * A minimal owner-computes update of every tile of a placed matrix A:
 * \code
 * static nt_status scale(const nt_task_info_t *info, void *arg)
 * {
 *     const struct job *j = arg; // a copy made at submission
 *     ... work on tile (j->i, j->k) of j->A ...
 *     return NT_OK;
 * }
 * nt_task_graph_t *g;
 * nt_task_graph_create(topo, &g);
 * for (int64_t i = 0; i < A->mt; i++)
 *     for (int64_t k = 0; k < A->nt; k++) {
 *         struct job j = {A, i, k};
 *         nt_task_access_t acc = nt_task_tile(NT_TASK_READWRITE, A, i, k);
 *         nt_task_submit(g, scale, &j, sizeof j, 1, &acc, NT_TASK_AUTO_DOMAIN, 0);
 *     }
 * nt_task_graph_run(g, NULL, NULL);
 * nt_task_graph_destroy(g);
 * \endcode
 * docs/examples/owner_stencil2d.c is a complete program.
 */
#ifndef NUMATILE_TASK_H
#define NUMATILE_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Opaque task graph, bound to one topology. */
typedef struct nt_task_graph nt_task_graph_t;

/** \brief How a task accesses a tile or data handle. */
typedef enum nt_task_mode {
    NT_TASK_READ = 1,     /**< reads it: waits for the last writer */
    NT_TASK_WRITE = 2,    /**< writes it: waits for the last writer and the readers since */
    NT_TASK_READWRITE = 3 /**< reads and writes it (ordered as a write) */
} nt_task_mode;

/** \brief nt_task_submit() domain argument: run the task on the domain of the first tile or
 *         handle it writes (of the first it reads when it writes none). */
#define NT_TASK_AUTO_DOMAIN (-1)

/** \brief Most accesses one task may declare. */
#define NT_TASK_MAX_ACCESSES 65536

/** \brief Most bytes of argument nt_task_submit() copies into the graph for one task. */
#define NT_TASK_MAX_ARG_BYTES 1024

/**
 * \brief One access of a task: tile (row, col) of a matrix, or a data handle of the graph
 *        (matrix NULL). Build it with nt_task_tile() or nt_task_data().
 */
typedef struct nt_task_access {
    nt_task_mode mode;          /**< how the task uses it */
    const nt_matrix_t *matrix;  /**< the tile's matrix, or NULL for a data handle */
    int64_t row;                /**< tile row, 0..matrix->mt-1 (ignored for a handle) */
    int64_t col;                /**< tile column, 0..matrix->nt-1 (ignored for a handle) */
    int64_t handle;             /**< data handle from nt_task_data_register() (matrix NULL) */
} nt_task_access_t;

/**
 * \brief Access to tile (row, col) of a matrix.
 * @param[in] mode   ::NT_TASK_READ, ::NT_TASK_WRITE or ::NT_TASK_READWRITE.
 * @param[in] matrix the matrix (borrowed; checked by nt_task_submit()).
 * @param[in] row    tile row.
 * @param[in] col    tile column.
 * @return the access (nothing is checked here).
 */
static inline nt_task_access_t nt_task_tile(nt_task_mode mode, const nt_matrix_t *matrix,
                                            int64_t row, int64_t col)
{
    nt_task_access_t a = {mode, matrix, row, col, 0};
    return a;
}

/**
 * \brief Access to a data handle of the graph (memory of your own, see
 *        nt_task_data_register()).
 * @param[in] mode   ::NT_TASK_READ, ::NT_TASK_WRITE or ::NT_TASK_READWRITE.
 * @param[in] handle a handle of the graph the task is submitted to.
 * @return the access (nothing is checked here).
 */
static inline nt_task_access_t nt_task_data(nt_task_mode mode, int64_t handle)
{
    nt_task_access_t a = {mode, NULL, 0, 0, handle};
    return a;
}

/** \brief What a running task knows about where and how it runs. */
typedef struct nt_task_info {
    int64_t task;           /**< its number: 0, 1, ... in submission order */
    int64_t repetition;     /**< 0..repeat-1 (see nt_task_run_opts_t::repeat) */
    int domain;             /**< domain the task was placed on */
    int run_domain;         /**< domain of the thread running it (domain itself, or the
                                 nearest domain with cpus when domain has none; any domain
                                 under ::NT_KERNEL_OMP) */
    bool on_owner;          /**< run_domain == domain, and (when domains do not share cpus)
                                 the thread is on a cpu of that domain right now */
    int thread;             /**< team thread number, 0..team size-1 */
    void *workspace;        /**< this thread's scratch (nt_task_run_opts_t::workspace_bytes,
                                 allocated by the bound thread; NULL when 0 bytes) */
    size_t workspace_bytes; /**< its size */
} nt_task_info_t;

/**
 * \brief A task's work.
 * @param[in] info where it runs (valid during the call).
 * @param[in] arg  the argument given at submission: the graph's copy of it, or the pointer
 *                 itself when its size was 0.
 * @return ::NT_OK, or an error code: the first error stops the graph (later tasks are
 *         skipped) and is returned by nt_task_graph_run(), with nt_last_error()'s message of
 *         the failing thread when the function set one.
 */
typedef nt_status (*nt_task_fn)(const nt_task_info_t *info, void *arg);

/** \brief Options of nt_task_graph_run(). Zero-initialise (or pass NULL) for the defaults. */
typedef struct nt_task_run_opts {
    /** Threads per domain with cpus, 0..1024; 0 = the smallest cpu count of those domains
        (nt_kernel_default_threads()). */
    int threads_per_domain;
    /** Task mapping: ::NT_KERNEL_OWNER (default) or the ::NT_KERNEL_OMP baseline. */
    nt_kernel_sched sched;
    /** Scratch bytes for every team thread, allocated on its domain (0 = none). */
    size_t workspace_bytes;
    /** Run the whole graph this many times in a row, each time after the previous one has
        finished entirely (as if separated by a barrier); 0 means 1. For iterative methods:
        build one iteration, read nt_task_info_t::repetition in the tasks. */
    int64_t repeat;
} nt_task_run_opts_t;

/**
 * \brief New empty task graph on a topology.
 * @param[in]  topo a physical or virtual topology (borrowed: must outlive the graph).
 * @param[out] out  the graph, to free with nt_task_graph_destroy(); untouched on failure.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  topo or out is NULL.
 * @retval NT_ENOTSUP synthetic topology (it has no cpus to run tasks).
 * @retval NT_ENOMEM  out of memory.
 */
nt_status nt_task_graph_create(const nt_topo_t *topo, nt_task_graph_t **out);

/**
 * \brief Free a graph and its copies of the task arguments (not the matrices, not the data
 *        behind the handles).
 * @param[in] g a graph, or NULL (then nothing happens).
 */
void nt_task_graph_destroy(nt_task_graph_t *g);

/**
 * \brief Declare a piece of data of your own (a buffer, a scalar, a workspace) that tasks
 *        access, for dependencies and traffic counts.
 * @param[in,out] g      the graph.
 * @param[in]     domain domain where the data lives, 0..ndomains-1.
 * @param[in]     bytes  its size, >= 0 (counted as remote traffic when a task on another
 *                       domain accesses it).
 * @param[out]    handle the handle, for nt_task_data(); handles count 0, 1, ... per graph.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL argument, domain out of range, bytes < 0.
 * @retval NT_ENOMEM out of memory (the graph is unchanged).
 */
nt_status nt_task_data_register(nt_task_graph_t *g, int domain, int64_t bytes,
                                int64_t *handle);

/**
 * \brief Append a task, after those already submitted (program order).
 *
 * Every access is checked: a matrix must have memory and the graph's topology, its tile in
 * range; a handle must come from nt_task_data_register() on this graph. The same tile may
 * appear several times (ordered as its strongest mode; each access is counted in the
 * statistics). Matrices are identified by their address: they must stay alive and unchanged
 * until the graph is destroyed, and two matrices sharing memory are not ordered against each
 * other. On any failure no task is added.
 * @param[in,out] g        the graph.
 * @param[in]     fn       the task's function (not NULL).
 * @param[in]     arg      its argument: with arg_size > 0, arg_size bytes copied now (the
 *                         function gets a pointer to the copy, aligned for any type); with
 *                         arg_size 0, the pointer itself, borrowed (may be NULL).
 * @param[in]     arg_size 0..::NT_TASK_MAX_ARG_BYTES.
 * @param[in]     naccess  0..::NT_TASK_MAX_ACCESSES accesses.
 * @param[in]     access   naccess accesses (may be NULL when naccess is 0); copied.
 * @param[in]     domain   ::NT_TASK_AUTO_DOMAIN, or the domain to run on, 0..ndomains-1.
 * @param[in]     priority among ready tasks of a domain, higher runs first (any int).
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL g or fn, arg NULL with arg_size > 0, sizes out of range, a bad
 *                   access (mode, NULL or foreign matrix, matrix without memory, tile out of
 *                   range, unknown handle), domain out of range, or ::NT_TASK_AUTO_DOMAIN for
 *                   a task without accesses (the message names the access).
 * @retval NT_ENOMEM out of memory.
 */
nt_status nt_task_submit(nt_task_graph_t *g, nt_task_fn fn, const void *arg, size_t arg_size,
                         int naccess, const nt_task_access_t *access, int domain, int priority);

/**
 * \brief Number of tasks submitted.
 * @param[in] g a graph, or NULL.
 * @return the task count; 0 for NULL.
 */
int64_t nt_task_graph_ntasks(const nt_task_graph_t *g);

/**
 * \brief Run every task of the graph (opts->repeat times), owner-computes, and wait for them.
 *
 * The team is started and every thread bound to its domain (and given its workspace) before
 * the first task runs; if that fails no task runs. The graph is left as it was: it may be run
 * again, or given more tasks. The tasks' data are whatever the functions made of them; after
 * an error, the tasks that ran have had their effects.
 * @param[in,out] g     the graph.
 * @param[in]     opts  options, or NULL for the defaults.
 * @param[in,out] stats accumulates the counts (tasks, owner tasks and fraction, remote reads
 *                      and writes with their bytes, tasks owned and run per domain, seconds;
 *                      every repetition counts), or NULL. flops are left to the caller. Pass a
 *                      zero-initialised struct; release with nt_kernel_stats_free(). Updated
 *                      only on success.
 * @retval NT_OK success.
 * @retval NT_EINVAL g NULL, bad options (threads per domain, sched, repeat < 0), stats used
 *                   before with another number of domains.
 * @retval NT_ERANGE repeat times the graph's task or byte counts overflows int64_t.
 * @retval NT_ENOTSUP no domain has cpus.
 * @retval NT_ENOMEM out of memory (no task ran).
 * @retval NT_ESYS   the team could not be started or bound (no task ran).
 * @retval other     the first error a task function returned.
 */
nt_status nt_task_graph_run(nt_task_graph_t *g, const nt_task_run_opts_t *opts,
                            nt_kernel_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
