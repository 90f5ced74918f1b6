// The executor table: nt_plan_execute() (execute.c) hands an execution to the first strategy
// of its table that accepts it, and wraps every strategy in one envelope (checks, the target's
// relabelling and its undoing, the team, the copy bound, the statistics). The strategies:
// exec_inplace.c, periodic/exec_periodic.c, exec_segments.c; test_exec_table.c checks the
// choice. To add one: a file defining its nt_strategy_t, and its line in execute.c's table.
#ifndef NUMATILE_STRATEGY_INTERNAL_H
#define NUMATILE_STRATEGY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/redist/nt_exec.h"
#include "lib/redist/nt_plan.h"
#include "numatile/plan.h"

// One execution, as the envelope and its strategy share it.
typedef struct nt_exec_job {
    nt_plan_t *plan;
    nt_matrix_t *src, *dst;
    nt_exec_opts_t o;     // the caller's options (zero when NULL), checked by check()
    nt_plan_view_t v;     // the plan, read once check() passed
    bool fresh;           // dst had no memory: the envelope relabels it, alloc() fills it
    nt_team_t t;          // v.ndomains domains, ready before prepare()
    // D x D, zeroed before prepare(): what the strategy counts per domain pair (segments or
    // tiles, bytes), for the statistics, which take them.
    int64_t *pair_tiles, *pair_bytes;
    double seconds;       // of the copies, timed by run()
    void *ctx;            // the strategy's own state, taken by prepare(), freed by release()
} nt_exec_job_t;

typedef struct nt_strategy {
    const char *name;
    // True when the strategy takes the execution (plan and opts may be NULL).
    bool (*accepts)(const nt_plan_t *plan, const nt_exec_opts_t *opts);
    // The arguments (j->plan, src, dst, o), before anything is touched; may build the plan's
    // owner table (nt_exec_check() is the usual one).
    nt_status (*check)(nt_exec_job_t *j);
    // prepare() reads the target's new map: a fresh target is relabelled before it.
    bool relabel_first;
    // Everything that can fail before the target has memory; touches neither matrix.
    nt_status (*prepare)(nt_exec_job_t *j);
    // A fresh target's memory, once it has the plan's map (timed: alloc_seconds). On failure
    // the target has no memory again.
    nt_status (*alloc)(nt_exec_job_t *j);
    // The copies, sets j->seconds (the team is begun). On failure the target has no memory
    // again and the source is intact.
    nt_status (*run)(nt_exec_job_t *j);
    // After a run that succeeded, this strategy's part of the statistics: the pair counts
    // (into j->pair_tiles and j->pair_bytes), bytes_copied, tiles kept or migrated, pages and
    // the in-place fields. nt_plan_execute() derives the rest from them.
    void (*stats)(nt_exec_job_t *j, nt_exec_stats_t *s);
    // Frees j->ctx (NULL too), after success or a failure at any step.
    void (*release)(nt_exec_job_t *j);
} nt_strategy_t;

// The strategy nt_plan_execute() gives this execution: the first of the table that accepts.
const nt_strategy_t *nt_exec_strategy(const nt_plan_t *plan, const nt_exec_opts_t *opts);

// The checks of the copying strategies: arguments and options, a synthetic topology, the plan's
// owner table (built on demand for periodic plans), a placed target under its own map.
nt_status nt_exec_check(nt_exec_job_t *j);

// Failure injection for tests: the next `n` executions (n > 0) fail with NT_ENOMEM right after
// their strategy's prepare() succeeded, as if its last allocation had failed. 0 disarms.
void nt_exec_test_fail_prepare(int n);

#endif
