// Execution teams: what every strategy of the executor table (nt_strategy.h: stored segments
// in exec_segments.c, periodic plans in periodic/exec_periodic.c, in place in exec_inplace.c)
// shares to run copies on threads bound to a domain, count them and time the same-run copy
// bound. Implemented in exec_team.c; the envelope (execute.c) sets a team up for each run.
#ifndef NUMATILE_EXEC_INTERNAL_H
#define NUMATILE_EXEC_INTERNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "numatile/plan.h"
#include "numatile/topo.h"

// The machine as the executors see it, and the per-thread accounting of one execution.
typedef struct nt_team {
    const nt_topo_t *topo;
    int D;
    int maxcpu;
    unsigned char *cpu_ok;  // D x maxcpu: cpu c belongs to domain d
    int *tpd;               // copy threads per domain (0: the domain has no cpu)
    int tpd_max;
    int *node;              // NUMA node of each domain
    int64_t *thread_bytes;  // D x tpd_max bytes copied per thread (for the bound)
    int outer;              // threads of the outer team: one per domain, but no more than the
                            // machine's cpus (each thread then serves several domains in turn)
    int64_t tasks, tasks_on_domain;
    int saved_levels;       // max-active-levels before nt_team_begin()
} nt_team_t;

// Copy threads of domain d when the caller gives no count: its cpus up to 4, 1 when domains
// share cpus, 0 for a domain without cpus (or an invalid d).
int nt_team_default_threads(const nt_topo_t *topo, int d);

// Cpus, threads per domain (opts->threads_per_domain, or nt_team_default_threads()), nodes, and
// the per-thread counters. Free with nt_team_free().
nt_status nt_team_init(nt_team_t *t, const nt_topo_t *topo, int D, const nt_exec_opts_t *o);
void nt_team_free(nt_team_t *t);

// Bind the calling thread to domain d, remembering its affinity; false when not bound.
bool nt_team_bind(const nt_team_t *t, int d, cpu_set_t *saved);
void nt_team_unbind(bool bound, const cpu_set_t *saved);

// Threads of domain d's nested team (at least 1).
static inline int nt_team_threads(const nt_team_t *t, int d)
{
    return t->tpd[d] > 0 ? t->tpd[d] : 1;
}

// Count one finished copy task of domain d that copied `bytes` (called by the thread that ran
// it, inside domain d's nested team).
void nt_team_task_done(nt_team_t *t, int d, int64_t bytes);

// Nested teams need max-active-levels >= 2: raise it for the execution, restore it after.
void nt_team_begin(nt_team_t *t);
void nt_team_end(nt_team_t *t);

// Same-run copy bound: every thread memcpys the byte count it copied, between two buffers on
// its own domain, in the same team structure. Seconds, 0 on failure.
double nt_team_measure_bound(nt_team_t *t);

#endif
