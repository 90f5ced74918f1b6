// Where a kernel's graph builder puts its tasks: the task runtime (a real run) or the
// advisor's model (lib/advisor/model.c prices the very graph the kernel would run). Each task
// also names its tile-kernel calls (lib/kernels/tile/nt_tile_registry.h ids) and which of its
// accesses each call reads, which the runtime ignores and the model prices. Internal.
#ifndef NUMATILE_GRAPH_SINK_H
#define NUMATILE_GRAPH_SINK_H

#include <stdint.h>

#include "numatile/profile.h"
#include "numatile/task.h"

// One tile-kernel call of a task: kernel id (NT_TK_*), its m x n x k, and how many of the
// task's accesses (the next ones in order, after those of the calls before) it stands for.
typedef struct nt_tk_call {
    int kernel;
    int64_t m, n, k;
    int nacc;
} nt_tk_call_t;

// A task as nt_task_submit() takes it, with its calls.
typedef struct nt_graph_task {
    nt_task_fn fn;
    const void *arg;
    size_t arg_size;
    int naccess;
    const nt_task_access_t *access;
    int domain, prio;
    int ncalls;
    const nt_tk_call_t *call;
} nt_graph_task_t;

typedef struct nt_graph_sink nt_graph_sink_t;

// data: as nt_task_data_register(); part_of, if not NULL, is the matrix tile whose memory the
// handle's data is a part of (QR's R(k) in tile (k,k)): the model prices reads of the handle
// as reads of that tile, and ignores the reads of other handles (small workspaces).
// submit: as nt_task_submit().
struct nt_graph_sink {
    nt_status (*data)(nt_graph_sink_t *s, int domain, int64_t bytes,
                      const nt_task_access_t *part_of, int64_t *handle);
    nt_status (*submit)(nt_graph_sink_t *s, const nt_graph_task_t *t);
    void *ctx;
};

// A sink that builds the task graph g.
nt_graph_sink_t nt_graph_sink_runtime(nt_task_graph_t *g);

// The graph builders of the kernels, as nt_gemm() (no input cache) and nt_qr_factor() submit
// them; they read the matrices' shapes and placement only, never their memory. Task arguments
// point into the builder's frame: a sink that keeps them must copy them (the runtime does).
nt_status nt_gemm_build(nt_graph_sink_t *s, double alpha, double beta, const nt_matrix_t *A,
                        const nt_matrix_t *B, const nt_matrix_t *C);
nt_status nt_qr_factor_build(nt_graph_sink_t *s, nt_matrix_t *A, int64_t ib);

// For the tests: task t of g's domain, priority and its predecessors (up to max in pred, in
// no particular order; *npred = how many). NT_EINVAL if t is not a task of g.
nt_status nt_task_graph_peek(const nt_task_graph_t *g, int64_t t, int *domain, int *prio,
                             int64_t *pred, int max, int *npred);

#endif
