// The list-scheduling simulation behind nt_model_kernel() (lib/model.c), exposed to the unit
// tests so that small hand-made graphs can be checked. Internal; not installed.
#ifndef NUMATILE_MODEL_INTERNAL_H
#define NUMATILE_MODEL_INTERNAL_H

#include <stdint.h>

#include "numatile/error.h"

enum { NT_SIM_MAXPRED = 4 };

// One task: the domain whose threads run it, its ready-queue priority (higher first, then lower
// id, as lib/kernels/taskgraph.c orders them), its duration, and its predecessors (ids lower than its
// own, no repeats).
typedef struct nt_sim_task {
    int domain;
    int prio;
    double seconds;
    int npred;
    int64_t pred[NT_SIM_MAXPRED];
} nt_sim_task_t;

// Simulate the owner-computes run of nt_task_graph_run(): `threads` threads per domain, each
// idle thread takes its domain's best ready task; a task is ready when its predecessors have
// finished. *makespan = when the last task finishes (0 for no tasks).
// NT_EINVAL: bad domain, threads < 1, a negative duration, a predecessor not before its task.
nt_status nt_model_schedule(const nt_sim_task_t *task, int64_t n, int ndomains, int threads,
                            double *makespan);

#endif
