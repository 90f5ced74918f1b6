// nt_plan_execute(): the executor table and the envelope every strategy runs in.
//
// The strategies (nt_strategy.h) are tried in the order of the table; the first that accepts
// the execution runs it. The envelope does, for all of them: the checks (the strategy's own),
// a descriptor without topology taking the source's, the team, the target's relabelling (a
// fresh target takes the plan's map) and its memory, the copies, the copy bound, and the
// statistics. Nothing lost: on a failure at any step the target gets its map and topology
// back, the strategy frees what it took, and src and dst are as they were.
#include <stdatomic.h>
#include <stdlib.h>

#include "lib/matrix/nt_matrix.h"
#include "nt_core.h"
#include "nt_exec.h"
#include "nt_plan.h"
#include "nt_strategy.h"
#include "numatile/mem.h"

// The table, in the order the strategies are tried; the last accepts everything. To add a
// strategy: its file, its declaration here and its line in the table.
extern const nt_strategy_t nt_strategy_inplace;  // exec_inplace.c
extern const nt_strategy_t nt_strategy_periodic; // periodic/exec_periodic.c
extern const nt_strategy_t nt_strategy_segments; // exec_segments.c

static const nt_strategy_t *const strategies[] = {
    &nt_strategy_inplace,  // opts->inplace: the target reuses the source's memory
    &nt_strategy_periodic, // periodic plans: block-cyclic ScaLAPACK layouts, no segment list
    &nt_strategy_segments, // the plan's stored segments
};

const nt_strategy_t *nt_exec_strategy(const nt_plan_t *plan, const nt_exec_opts_t *opts)
{
    size_t n = sizeof strategies / sizeof strategies[0];
    for (size_t k = 0; k + 1 < n; k++)
        if (strategies[k]->accepts(plan, opts))
            return strategies[k];
    return strategies[n - 1];
}

static _Atomic int fail_prepare = 0;

void nt_exec_test_fail_prepare(int n)
{
    atomic_store(&fail_prepare, n > 0 ? n : 0);
}

// True when an armed prepare failure fires (then one fewer is left).
static bool prepare_fault(void)
{
    int n = atomic_load(&fail_prepare);
    while (n > 0)
        if (atomic_compare_exchange_weak(&fail_prepare, &n, n - 1))
            return true;
    return false;
}

void nt_exec_stats_free(nt_exec_stats_t *s)
{
    if (!s)
        return;
    free(s->pair_tiles);
    free(s->pair_bytes);
    free(s->peak_extra_bytes);
    free(s->peak_lower_bound_bytes);
    s->pair_tiles = s->pair_bytes = NULL;
    s->peak_extra_bytes = s->peak_lower_bound_bytes = NULL;
}

// The most copy threads per domain nt_plan_execute takes (the kernels' bound too).
enum { NT_EXEC_MAX_THREADS = 1024 };

static nt_status check_args(const nt_plan_t *plan, const nt_matrix_t *src,
                            const nt_matrix_t *dst, const nt_exec_opts_t *o)
{
    if (!plan || !src || !dst)
        return nt_fail(NT_EINVAL, "nt_plan_execute: %s is NULL",
                       !plan ? "plan" : !src ? "src" : "dst");
    if (src == dst)
        return nt_fail(NT_EINVAL, "nt_plan_execute: src and dst are the same matrix");
    if (!nt_plan_matches(plan, src, dst))
        return nt_fail(NT_EINVAL, "nt_plan_execute: the plan was built for other matrices");
    // Bounded like the kernels' (kern_common.c): a team of 1<<20 threads per domain is not
    // a request any machine can honour, and used to crash the thread pool.
    if (o->threads_per_domain < 0 || o->threads_per_domain > NT_EXEC_MAX_THREADS)
        return nt_fail(NT_EINVAL, "nt_plan_execute: opts.threads_per_domain = %d must be in "
                       "0..%d", o->threads_per_domain, NT_EXEC_MAX_THREADS);
    if ((o->mode != NT_EXEC_COPY && o->mode != NT_EXEC_MOVE) ||
        (o->schedule != NT_SCHED_FREE && o->schedule != NT_SCHED_STEPS) ||
        o->max_in_flight < 0 ||
        (int)o->order < NT_ORDER_AUTO || o->order > NT_ORDER_GLOBAL)
        return nt_fail(NT_EINVAL, "nt_plan_execute: bad options (mode %d, schedule %d, "
                       "max_in_flight %d, order %d)", (int)o->mode, (int)o->schedule,
                       o->max_in_flight, (int)o->order);
    if (!src->allocated)
        return nt_fail(NT_EINVAL, "nt_plan_execute: the source has no memory");
    if (dst->topo && dst->topo != src->topo)
        return nt_fail(NT_EINVAL, "nt_plan_execute: source and target on different topologies");
    if (nt_topo_get_kind(src->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: a synthetic topology has no memory");
    return NT_OK;
}

// A target that already has memory can only receive copies, and only under its own map.
static nt_status check_placed_target(const nt_matrix_t *dst, const nt_exec_opts_t *o,
                                     const nt_plan_view_t *v)
{
    if (o->mode == NT_EXEC_MOVE)
        return nt_fail(NT_EINVAL, "nt_plan_execute: move mode needs a target without "
                       "memory (created with NT_MATRIX_NOALLOC)");
    for (size_t t = 0; t < (size_t)(dst->mt * dst->nt); t++)
        if (dst->owner[t] != v->dst_owner[t])
            return nt_fail(NT_EINVAL, "nt_plan_execute: the plan relabels the target, "
                           "whose memory is already placed");
    return NT_OK;
}

nt_status nt_exec_check(nt_exec_job_t *j)
{
    nt_status st = check_args(j->plan, j->src, j->dst, &j->o);
    if (st)
        return st;
    // The target owners (built on demand for periodic plans) before anything is touched.
    if ((st = nt_plan_owner_table(j->plan)) != NT_OK)
        return st;
    nt_plan_view_t v;
    nt_plan_get_view(j->plan, &v);
    return j->dst->allocated ? check_placed_target(j->dst, &j->o, &v) : NT_OK;
}

// The per-pair counts the strategy fills, zeroed.
static nt_status pairs_alloc(nt_exec_job_t *j)
{
    size_t DD = (size_t)j->t.D * (size_t)j->t.D;
    j->pair_tiles = calloc(DD, sizeof *j->pair_tiles);
    j->pair_bytes = calloc(DD, sizeof *j->pair_bytes);
    if (!j->pair_tiles || !j->pair_bytes)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    return NT_OK;
}

// The statistics of a finished execution: the strategy's part (nt_strategy_t::stats), then
// what follows from it and from the envelope. The per-pair arrays pass to the caller.
static void fill_stats(const nt_strategy_t *S, nt_exec_job_t *j, double alloc_seconds,
                       double bound, nt_exec_stats_t *stats)
{
    nt_exec_stats_t s = {.ndomains = j->t.D, .tasks = j->t.tasks,
                         .tasks_on_domain = j->t.tasks_on_domain,
                         .alloc_seconds = alloc_seconds, .seconds = j->seconds,
                         .bound_seconds = bound};
    S->stats(j, &s);
    size_t D = (size_t)j->t.D;
    for (size_t i = 0; i < D; i++)
        for (size_t d = 0; d < D; d++) {
            int64_t b = j->pair_bytes[i * D + d];
            s.bytes_moved += i != d ? b : 0;
            s.bytes_node_changed += j->t.node[i] != j->t.node[d] ? b : 0;
        }
    // Physical work only: copied bytes and migrated pages (adoption moves nothing).
    double moved = (double)s.bytes_copied +
                   (double)s.pages_migrated * (double)nt_mem_page_size();
    s.bandwidth_gbs = s.seconds > 0 ? moved / s.seconds / 1e9 : 0;
    s.bound_gbs = bound > 0 ? (double)s.bytes_copied / bound / 1e9 : 0;
    if (j->fresh) {
        s.fault_seconds = j->dst->mem->fault_seconds;
        s.bytes_alloc_fresh = j->dst->mem->bytes_fresh;
        s.bytes_alloc_pooled = j->dst->mem->bytes_pooled;
    }
    s.pair_tiles = j->pair_tiles;
    s.pair_bytes = j->pair_bytes;
    j->pair_tiles = j->pair_bytes = NULL;
    *stats = s;
}

// Everything that can fail before the copies: the team, the pair counts, the strategy's
// preparation, the target's new map and its memory (timed into *alloc_seconds). *relabelled
// says whether the target took the plan's map (to restore from *old on failure).
static nt_status set_up(const nt_strategy_t *S, nt_exec_job_t *j, nt_owner_state_t *old,
                        bool *relabelled, double *alloc_seconds)
{
    nt_status st;
    if ((st = nt_team_init(&j->t, j->src->topo, j->v.ndomains, &j->o)) != NT_OK ||
        (st = pairs_alloc(j)) != NT_OK)
        return st;
    if (j->fresh && S->relabel_first) {
        if ((st = nt_matrix_set_owner(j->dst, j->v.dst_owner, j->t.D, old)) != NT_OK)
            return st;
        *relabelled = true;
    }
    if ((st = S->prepare(j)) != NT_OK)
        return st;
    if (prepare_fault())
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory (injected by a test)");
    double ta = nt_now();
    if (j->fresh && !*relabelled) {
        if ((st = nt_matrix_set_owner(j->dst, j->v.dst_owner, j->t.D, old)) != NT_OK)
            return st;
        *relabelled = true;
    }
    if (j->fresh && (st = S->alloc(j)) != NT_OK)
        return st;
    *alloc_seconds = nt_now() - ta;
    return NT_OK;
}

static void job_free(const nt_strategy_t *S, nt_exec_job_t *j)
{
    S->release(j);
    nt_team_free(&j->t);
    free(j->pair_tiles);
    free(j->pair_bytes);
}

// A plan with an operation (nt_plan_create_op()) runs on the stored-segment strategy only:
// in place recycles and move mode migrates tiles as they are.
static nt_status check_op(const nt_plan_t *plan, const nt_exec_opts_t *opts)
{
    if (!plan || !opts)
        return NT_OK;
    nt_plan_view_t v;
    nt_plan_get_view(plan, &v);
    if (v.op && (opts->inplace || opts->mode == NT_EXEC_MOVE))
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: %s cannot apply the plan's operation "
                       "(transpose, scale or trapezoid); use copy mode%s",
                       opts->inplace ? "in place" : "move mode (page migration)",
                       opts->inplace ? " without inplace" : "");
    return NT_OK;
}

nt_status nt_plan_execute(nt_plan_t *plan, nt_matrix_t *src, nt_matrix_t *dst,
                          const nt_exec_opts_t *opts, nt_exec_stats_t *stats)
{
    nt_status cst = check_op(plan, opts);
    if (cst)
        return cst;
    const nt_strategy_t *S = nt_exec_strategy(plan, opts);
    nt_exec_job_t j = {.plan = plan, .src = src, .dst = dst,
                       .o = opts ? *opts : (nt_exec_opts_t){0}};
    nt_status st = S->check(&j);
    if (st)
        return st;
    nt_plan_get_view(plan, &j.v);
    j.fresh = !dst->allocated;
    const nt_topo_t *dst_topo = dst->topo;
    if (!dst->topo && j.fresh)
        dst->topo = src->topo; // a descriptor made without topology takes the source's
    nt_owner_state_t old = {0};
    bool relabelled = false;
    double alloc_seconds = 0, bound = 0;
    if ((st = set_up(S, &j, &old, &relabelled, &alloc_seconds)) != NT_OK)
        goto fail;
    nt_team_begin(&j.t);
    st = S->run(&j);
    if (st == NT_OK && j.o.measure_bound)
        bound = nt_team_measure_bound(&j.t);
    nt_team_end(&j.t);
    if (st)
        goto fail;
    if (stats)
        fill_stats(S, &j, alloc_seconds, bound, stats);
    if (relabelled)
        nt_matrix_owner_discard(&old);
    job_free(S, &j);
    return NT_OK;
fail:
    if (relabelled)
        nt_matrix_owner_restore(dst, &old);
    dst->topo = dst_topo;
    job_free(S, &j);
    return st;
}
