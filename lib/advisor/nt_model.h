// The list-scheduling simulation behind nt_model_kernel() (lib/advisor/model.c) and the graph it
// prices, exposed to the unit tests so that small hand-made graphs can be checked and the
// priced graph compared with the runtime's. Internal; not installed.
#ifndef NUMATILE_MODEL_INTERNAL_H
#define NUMATILE_MODEL_INTERNAL_H

#include <stdint.h>

#include "numatile/advise.h"
#include "numatile/error.h"

enum { NT_SIM_MAXPRED = 4 };

// One task: the domain whose threads run it, its ready-queue priority (the runtime's order,
// lib/kernels/nt_task_heap.h), its duration, and its predecessors (ids lower than its own, no
// repeats); kernel: the NT_TK_* id of its first tile-kernel call, -1 if none (not used by the
// schedule).
typedef struct nt_sim_task {
    int domain;
    int prio;
    double seconds;
    int npred;
    int64_t pred[NT_SIM_MAXPRED];
    int kernel;
} nt_sim_task_t;

// Simulate the owner-computes run of nt_task_graph_run(): `threads` threads per domain, each
// idle thread takes its domain's best ready task; a task is ready when its predecessors have
// finished. *makespan = when the last task finishes (0 for no tasks).
// NT_EINVAL: bad domain, threads < 1, a negative duration, a predecessor not before its task.
nt_status nt_model_schedule(const nt_sim_task_t *task, int64_t n, int ndomains, int threads,
                            double *makespan);

// The graph nt_model_kernel() prices for `kernel` on A: the tasks the kernel's own builder
// submits, in order, with their priced seconds (*tasks to free with free()). Errors as
// nt_model_kernel().
nt_status nt_model_graph(const nt_profile_t *p, nt_advise_kernel kernel, const nt_matrix_t *A,
                         nt_sim_task_t **tasks, int64_t *n);

#endif
