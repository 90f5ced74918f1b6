// Task graphs over tiles: taskgraph.c shares them with the kernels gemm.c, qr.c and stencil.c.
//
// A kernel adds its tasks in sequential program order, each with the tiles ("handles") it
// reads and writes. Edges follow the rule of OpenMP depend clauses: a read waits for the last
// writer of the handle, a write waits for the last writer and every reader since. Building the
// graph touches no matrix memory; running it executes every task once, after its predecessors,
// owner-computes on a team bound to the domains.
#ifndef NUMATILE_TASKGRAPH_INTERNAL_H
#define NUMATILE_TASKGRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

enum { NT_TG_READ = 1, NT_TG_WRITE = 2, NT_TG_RW = 3 };

// Accesses that order tasks: at most this many per task. Reads of data no task writes (GEMM's
// A and B) need no ordering and are only counted (nt_tg_count_read()).
enum { NT_TG_MAXDEP = 4 };

typedef struct nt_tg_access {
    int64_t handle; // 0..nhandles-1
    int mode;       // NT_TG_READ, NT_TG_WRITE or NT_TG_RW
    int domain;     // domain of the tile behind the handle
    int64_t bytes;  // its size, for the remote-traffic counts
} nt_tg_access_t;

typedef struct nt_tg_task {
    int kind;       // kernel-specific
    int owner;      // domain that runs it
    int prio;       // larger first among ready tasks of a domain
    int64_t a[4];   // kernel-specific indices
} nt_tg_task_t;

typedef struct nt_tg nt_tg_t;

// Execute one task on the calling thread; work is this thread's scratch (work_bytes from
// nt_tg_run()). Returns NT_OK or an error; the first error stops the rest of the graph.
typedef nt_status (*nt_tg_fn)(void *ctx, const nt_tg_task_t *task, void *work);

nt_status nt_tg_create(int64_t nhandles, int ndomains, nt_tg_t **out);
void nt_tg_destroy(nt_tg_t *g);

// Append a task (owner in 0..ndomains-1) with its ordering accesses (nacc <= NT_TG_MAXDEP).
nt_status nt_tg_add(nt_tg_t *g, const nt_tg_task_t *task, int nacc, const nt_tg_access_t *acc);

// Count an unordered read of a tile on `domain` by the task added last.
void nt_tg_count_read(nt_tg_t *g, int domain, int64_t bytes);

int64_t nt_tg_ntasks(const nt_tg_t *g);

// Domain whose threads run the tasks of each domain d (d itself, or the nearest domain with
// cpus): exec[d] for d in 0..ndomains-1. Fails when no domain has cpus or out of memory.
nt_status nt_tg_exec_domains(const nt_topo_t *topo, int *exec);

// Run every task. The team has tpd threads per domain with cpus, bound to their domain; a
// domain without cpus has its tasks run by the nearest domain that has some. stats (may be
// NULL) accumulates the counts; flops are the caller's. Fails before any task runs when the
// team cannot be started or bound.
nt_status nt_tg_run(nt_tg_t *g, const nt_topo_t *topo, int tpd, nt_kernel_sched sched, nt_tg_fn fn,
                    void *ctx, size_t work_bytes, nt_kernel_stats_t *stats);

#endif
