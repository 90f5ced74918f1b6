// Task graphs over tiles and their owner-computes execution (see nt_taskgraph.h and
// docs/kernels.md for why the owner mode uses per-domain ready queues instead of OpenMP's task
// scheduler).
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_kern_common.h"
#include "nt_taskgraph.h"

struct nt_tg {
    int64_t nhandles;
    int ndomains;
    int64_t ntask, cap;
    nt_tg_task_t *task;
    nt_tg_access_t *acc; // cap * NT_TG_MAXDEP
    int *nacc;
    int64_t *npred;
    int64_t *stamp;      // last task that recorded this task as predecessor (dedupe)
    int64_t nedge, ecap;
    int64_t *epred, *esucc;
    int64_t *last_writer; // per handle, -1 if none
    int64_t *rhead;       // per handle: readers since the last write (pool list)
    int64_t rn, rcap;
    int64_t *rnext, *rtask;
    int64_t remote_reads, remote_read_bytes, remote_writes, remote_write_bytes;
    int64_t *owned; // per domain
    nt_status oom;  // sticky allocation failure of nt_tg_count_read (cannot fail) or add
};

static bool grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    int64_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    size_t bytes;
    if (!nt_mul_size((size_t)nc, elem, &bytes))
        return false;
    void *q = realloc(*p, bytes);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

nt_status nt_tg_create(int64_t nhandles, int ndomains, nt_tg_t **out)
{
    if (nhandles < 0 || ndomains < 1 || !out)
        return nt_fail(NT_EINVAL, "task graph: bad sizes");
    nt_tg_t *g = calloc(1, sizeof *g);
    size_t hb;
    if (!g || !nt_mul_size((size_t)(nhandles > 0 ? nhandles : 1), sizeof(int64_t), &hb)) {
        free(g);
        return nt_fail(NT_ENOMEM, "task graph: out of memory");
    }
    g->nhandles = nhandles;
    g->ndomains = ndomains;
    g->last_writer = malloc(hb);
    g->rhead = malloc(hb);
    g->owned = calloc((size_t)ndomains, sizeof *g->owned);
    if (!g->last_writer || !g->rhead || !g->owned) {
        nt_tg_destroy(g);
        return nt_fail(NT_ENOMEM, "task graph: out of memory");
    }
    for (int64_t h = 0; h < nhandles; h++)
        g->last_writer[h] = g->rhead[h] = -1;
    *out = g;
    return NT_OK;
}

void nt_tg_destroy(nt_tg_t *g)
{
    if (!g)
        return;
    free(g->task);
    free(g->acc);
    free(g->nacc);
    free(g->npred);
    free(g->stamp);
    free(g->epred);
    free(g->esucc);
    free(g->last_writer);
    free(g->rhead);
    free(g->rnext);
    free(g->rtask);
    free(g->owned);
    free(g);
}

int64_t nt_tg_ntasks(const nt_tg_t *g)
{
    return g->ntask;
}

static bool add_edge(nt_tg_t *g, int64_t from, int64_t to)
{
    if (from < 0 || g->stamp[from] == to)
        return true;
    g->stamp[from] = to;
    int64_t c1 = g->ecap, c2 = g->ecap;
    if (!grow((void **)&g->epred, &c1, g->nedge + 1, sizeof(int64_t)) ||
        !grow((void **)&g->esucc, &c2, g->nedge + 1, sizeof(int64_t)))
        return false;
    g->ecap = c1 < c2 ? c1 : c2;
    g->epred[g->nedge] = from;
    g->esucc[g->nedge] = to;
    g->nedge++;
    g->npred[to]++;
    return true;
}

nt_status nt_tg_add(nt_tg_t *g, const nt_tg_task_t *task, int nacc, const nt_tg_access_t *acc)
{
    if (g->oom)
        return g->oom;
    if (nacc < 0 || nacc > NT_TG_MAXDEP || task->owner < 0 || task->owner >= g->ndomains)
        return nt_fail(NT_EINVAL, "task graph: bad task");
    int64_t t = g->ntask;
    if (t == g->cap) {
        int64_t c = g->cap, c0 = g->cap;
        bool ok = grow((void **)&g->task, &c, t + 1, sizeof *g->task);
        int64_t c1 = c0, c2 = c0, c3 = c0, c4 = c0;
        ok = ok && grow((void **)&g->acc, &c1, t + 1, NT_TG_MAXDEP * sizeof *g->acc);
        ok = ok && grow((void **)&g->nacc, &c2, t + 1, sizeof *g->nacc);
        ok = ok && grow((void **)&g->npred, &c3, t + 1, sizeof *g->npred);
        ok = ok && grow((void **)&g->stamp, &c4, t + 1, sizeof *g->stamp);
        if (!ok)
            return g->oom = nt_fail(NT_ENOMEM, "task graph: out of memory");
        g->cap = c;
    }
    for (int k = 0; k < nacc; k++)
        if (acc[k].handle < 0 || acc[k].handle >= g->nhandles || acc[k].mode < NT_TG_READ ||
            acc[k].mode > NT_TG_RW)
            return nt_fail(NT_EINVAL, "task graph: bad access");
    g->task[t] = *task;
    g->nacc[t] = nacc;
    g->npred[t] = 0;
    g->stamp[t] = -1;
    for (int k = 0; k < nacc; k++) {
        const nt_tg_access_t *x = &acc[k];
        g->acc[t * NT_TG_MAXDEP + k] = *x;
        if (!add_edge(g, g->last_writer[x->handle], t))
            return g->oom = nt_fail(NT_ENOMEM, "task graph: out of memory");
        if (x->mode & NT_TG_WRITE) {
            for (int64_t r = g->rhead[x->handle]; r >= 0; r = g->rnext[r])
                if (!add_edge(g, g->rtask[r], t))
                    return g->oom = nt_fail(NT_ENOMEM, "task graph: out of memory");
            g->rhead[x->handle] = -1;
        }
        if (x->domain != task->owner) {
            if (x->mode & NT_TG_READ) {
                g->remote_reads++;
                g->remote_read_bytes += x->bytes;
            }
            if (x->mode & NT_TG_WRITE) {
                g->remote_writes++;
                g->remote_write_bytes += x->bytes;
            }
        }
    }
    // Second pass: publish this task as writer / reader only after all its predecessors are
    // known (a task reading and writing different handles must not depend on itself).
    for (int k = 0; k < nacc; k++) {
        const nt_tg_access_t *x = &acc[k];
        if (x->mode & NT_TG_WRITE) {
            g->last_writer[x->handle] = t;
            g->rhead[x->handle] = -1;
        } else {
            int64_t c1 = g->rcap, c2 = g->rcap;
            if (!grow((void **)&g->rnext, &c1, g->rn + 1, sizeof(int64_t)) ||
                !grow((void **)&g->rtask, &c2, g->rn + 1, sizeof(int64_t)))
                return g->oom = nt_fail(NT_ENOMEM, "task graph: out of memory");
            g->rcap = c1 < c2 ? c1 : c2;
            g->rtask[g->rn] = t;
            g->rnext[g->rn] = g->rhead[x->handle];
            g->rhead[x->handle] = g->rn++;
        }
    }
    g->owned[task->owner]++;
    g->ntask++;
    return NT_OK;
}

void nt_tg_count_read(nt_tg_t *g, int domain, int64_t bytes)
{
    if (g->ntask > 0 && domain != g->task[g->ntask - 1].owner) {
        g->remote_reads++;
        g->remote_read_bytes += bytes;
    }
}

/* ---- execution -------------------------------------------------------------------------- */

// A binary max-heap of ready tasks of one domain, ordered by (prio, -id).
typedef struct readyq {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int64_t n;
    int64_t *heap;
} readyq;

typedef struct run_ctx {
    nt_tg_t *g;
    const nt_topo_t *topo;
    int tpd, nthreads;
    nt_kernel_sched sched;
    nt_tg_fn fn;
    void *ctx;
    size_t work_bytes;
    const int *dom;      // team thread -> domain (tid / tpd)
    int *exec_dom;       // owner domain -> domain whose threads run its tasks
    readyq *q;           // per domain
    _Atomic int64_t *remain;
    int64_t *soff, *succ; // CSR successors
    _Atomic int64_t done;
    _Atomic int finished;
    _Atomic int error;   // first error code (0 = none)
    _Atomic int64_t owner_tasks;
    _Atomic int64_t *run_by; // per domain
    bool check_cpu;
    char msg[256];
    pthread_mutex_t msg_lock;
} run_ctx;

static bool higher(const nt_tg_t *g, int64_t a, int64_t b)
{
    int pa = g->task[a].prio, pb = g->task[b].prio;
    return pa != pb ? pa > pb : a < b;
}

static void q_push(run_ctx *c, int d, int64_t t)
{
    readyq *q = &c->q[d];
    pthread_mutex_lock(&q->lock);
    int64_t i = q->n++;
    while (i > 0 && higher(c->g, t, q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = t;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

// Pop the best ready task of domain d; -1 when the graph is finished.
static int64_t q_pop(run_ctx *c, int d)
{
    readyq *q = &c->q[d];
    pthread_mutex_lock(&q->lock);
    while (q->n == 0 && !atomic_load(&c->finished))
        pthread_cond_wait(&q->cv, &q->lock);
    if (q->n == 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    int64_t top = q->heap[0], last = q->heap[--q->n], i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, best = i;
        int64_t bt = last;
        if (l < q->n && higher(c->g, q->heap[l], bt)) {
            best = l;
            bt = q->heap[l];
        }
        if (l + 1 < q->n && higher(c->g, q->heap[l + 1], bt))
            best = l + 1;
        if (best == i)
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    if (q->n > 0)
        q->heap[i] = last;
    pthread_mutex_unlock(&q->lock);
    return top;
}

static void record_error(run_ctx *c, nt_status st)
{
    int expect = 0;
    if (atomic_compare_exchange_strong(&c->error, &expect, (int)st)) {
        pthread_mutex_lock(&c->msg_lock);
        strncpy(c->msg, nt_last_error(), sizeof c->msg - 1);
        pthread_mutex_unlock(&c->msg_lock);
    }
}

// Run task t on a thread of domain d (the body is skipped once an error happened, so that the
// graph still drains) and count where it ran.
static void execute(run_ctx *c, int64_t t, int d, void *work)
{
    const nt_tg_task_t *task = &c->g->task[t];
    if (atomic_load(&c->error) == 0) {
        nt_status st = c->fn(c->ctx, task, work);
        if (st != NT_OK)
            record_error(c, st);
    }
    bool owner = d == task->owner;
    if (owner && c->check_cpu) {
        int cd = -1, cpu = sched_getcpu();
        owner = cpu >= 0 && nt_topo_cpu_domain(c->topo, cpu, &cd) == NT_OK && cd == d;
    }
    if (owner)
        atomic_fetch_add(&c->owner_tasks, 1);
    atomic_fetch_add(&c->run_by[d], 1);
}

static void release_successors(run_ctx *c, int64_t t)
{
    for (int64_t e = c->soff[t]; e < c->soff[t + 1]; e++) {
        int64_t s = c->succ[e];
        if (atomic_fetch_sub(&c->remain[s], 1) == 1)
            q_push(c, c->exec_dom[c->g->task[s].owner], s);
    }
    if (atomic_fetch_add(&c->done, 1) + 1 == c->g->ntask) {
        atomic_store(&c->finished, 1);
        for (int d = 0; d < c->g->ndomains; d++) {
            pthread_mutex_lock(&c->q[d].lock);
            pthread_cond_broadcast(&c->q[d].cv);
            pthread_mutex_unlock(&c->q[d].lock);
        }
    }
}

static void owner_worker(run_ctx *c, int d, void *work)
{
    int64_t t;
    while ((t = q_pop(c, d)) >= 0) {
        execute(c, t, d, work);
        release_successors(c, t);
    }
}

// Baseline: the same graph as OpenMP tasks with depend clauses; libgomp picks the thread.
static void omp_tasks(run_ctx *c, void **works)
{
    nt_tg_t *g = c->g;
    char *tok = calloc((size_t)(g->nhandles > 0 ? g->nhandles : 1), 1);
    char *wdum = calloc((size_t)g->ntask * NT_TG_MAXDEP + 1, 1);
    static char rdum; // only ever read: in-dependences on it order nothing
    if (!tok || !wdum) {
        record_error(c, nt_fail(NT_ENOMEM, "task graph: out of memory"));
        free(tok);
        free(wdum);
        return;
    }
    for (int64_t t = 0; t < g->ntask; t++) {
        char *r[NT_TG_MAXDEP], *w[NT_TG_MAXDEP];
        for (int k = 0; k < NT_TG_MAXDEP; k++) {
            r[k] = &rdum;
            w[k] = &wdum[t * NT_TG_MAXDEP + k];
            if (k < g->nacc[t]) {
                const nt_tg_access_t *x = &g->acc[t * NT_TG_MAXDEP + k];
                if (x->mode & NT_TG_WRITE)
                    w[k] = &tok[x->handle];
                else
                    r[k] = &tok[x->handle];
            }
        }
#pragma omp task firstprivate(t) depend(in : r[0][0], r[1][0], r[2][0], r[3][0])             \
    depend(inout : w[0][0], w[1][0], w[2][0], w[3][0])
        {
            int tid = omp_get_thread_num();
            execute(c, t, c->dom[tid], works[tid]);
        }
    }
#pragma omp taskwait
    free(tok);
    free(wdum);
}

static void team(run_ctx *c)
{
    void **works = calloc((size_t)c->nthreads, sizeof *works);
    _Atomic int setup_failed = 0;
    if (!works) {
        record_error(c, nt_fail(NT_ENOMEM, "task graph: out of memory"));
        return;
    }
#pragma omp parallel num_threads(c->nthreads)
    {
        int tid = omp_get_thread_num();
        cpu_set_t saved;
        bool restore = false;
        nt_status st = NT_OK;
        if (omp_get_num_threads() != c->nthreads) {
            st = nt_fail(NT_ESYS, "kernels: OpenMP gave %d threads of the %d asked (nested "
                         "parallel region or OMP_THREAD_LIMIT?)", omp_get_num_threads(),
                         c->nthreads);
        } else {
            restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
            st = nt_bind_domain(c->topo, c->dom[tid]);
            // Scratch allocated by the bound thread, so its pages are local.
            if (st == NT_OK && c->work_bytes &&
                !(works[tid] = malloc(c->work_bytes)))
                st = nt_fail(NT_ENOMEM, "kernels: no memory for a thread's workspace");
        }
        if (st != NT_OK) {
            atomic_store(&setup_failed, 1);
            record_error(c, st);
        }
        // Nothing runs until every thread is bound and has its workspace.
#pragma omp barrier
        if (!atomic_load(&setup_failed)) {
            if (c->sched == NT_KERNEL_OWNER) {
                owner_worker(c, c->dom[tid], works[tid]);
            } else {
                // The creator is an explicit task: libgomp frees an explicit task's
                // dependence hash when it ends, but leaks the one of an implicit task.
#pragma omp single
#pragma omp task
                omp_tasks(c, works);
            }
        }
        free(works[tid]);
        if (restore)
            sched_setaffinity(0, sizeof saved, &saved);
    }
    free(works);
}

// has_cpu[d] for every domain; returns how many have cpus.
static int mark_cpu_domains(const nt_topo_t *topo, bool *has_cpu)
{
    int nd = 0;
    for (int d = 0; d < nt_topo_ndomains(topo); d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        has_cpu[d] = info.ncpus > 0;
        nd += has_cpu[d];
    }
    return nd;
}

// Domain whose threads run the tasks of domain d: d itself, or the nearest domain with cpus.
static int nearest_cpu_domain(const nt_topo_t *topo, int d, const bool *has_cpu)
{
    if (has_cpu[d])
        return d;
    int D = nt_topo_ndomains(topo), best = -1;
    const uint32_t *dist = nt_topo_distances(topo);
    for (int e = 0; e < D; e++)
        if (has_cpu[e] && (best < 0 || dist[d * D + e] < dist[d * D + best]))
            best = e;
    return best;
}

nt_status nt_tg_exec_domains(const nt_topo_t *topo, int *exec)
{
    int D = nt_topo_ndomains(topo);
    bool *has_cpu = calloc((size_t)D, sizeof *has_cpu);
    if (!has_cpu)
        return nt_fail(NT_ENOMEM, "kernels: out of memory");
    int nd = mark_cpu_domains(topo, has_cpu);
    for (int d = 0; d < D && nd > 0; d++)
        exec[d] = nearest_cpu_domain(topo, d, has_cpu);
    free(has_cpu);
    return nd > 0 ? NT_OK : nt_fail(NT_ENOTSUP, "kernels: no domain has cpus");
}

// The team: tpd threads per domain with cpus (dom: team thread -> domain, allocated here), and
// the domain whose threads run each domain's tasks.
static nt_status team_layout(run_ctx *c, bool *has_cpu, int **dom)
{
    int D = c->g->ndomains, nd = mark_cpu_domains(c->topo, has_cpu);
    size_t nthreads;
    if (nd == 0 || !nt_mul_size((size_t)nd, (size_t)c->tpd, &nthreads) || nthreads > 65536)
        return nt_fail(NT_EINVAL, "kernels: %d domains with cpus x %d threads is not a team", nd,
                       c->tpd);
    c->nthreads = (int)nthreads;
    if (!(*dom = malloc(nthreads * sizeof **dom)))
        return nt_fail(NT_ENOMEM, "kernels: out of memory");
    for (int d = 0, k = 0; d < D; d++)
        if (has_cpu[d])
            for (int r = 0; r < c->tpd; r++)
                (*dom)[k++] = d;
    c->dom = *dom;
    for (int d = 0; d < D; d++)
        c->exec_dom[d] = nearest_cpu_domain(c->topo, d, has_cpu);
    return NT_OK;
}

// Successor lists (CSR, fill is scratch), initial dependency counts, and the tasks each
// executing domain will run (qcap).
static void build_successors(run_ctx *c, int64_t *fill, int64_t *qcap)
{
    const nt_tg_t *g = c->g;
    for (int64_t e = 0; e < g->nedge; e++)
        c->soff[g->epred[e] + 1]++;
    for (int64_t t = 0; t < g->ntask; t++)
        c->soff[t + 1] += c->soff[t];
    for (int64_t e = 0; e < g->nedge; e++) {
        int64_t p = g->epred[e];
        c->succ[c->soff[p] + fill[p]++] = g->esucc[e];
    }
    for (int64_t t = 0; t < g->ntask; t++) {
        atomic_init(&c->remain[t], g->npred[t]);
        qcap[c->exec_dom[g->task[t].owner]]++;
    }
}

// One ready queue per domain, sized for its tasks; returns how many were set up (fewer than
// the domains when out of memory).
static int queues_init(run_ctx *c, const int64_t *qcap)
{
    int n = 0;
    for (; n < c->g->ndomains; n++) {
        c->q[n].heap = malloc((size_t)(qcap[n] + 1) * sizeof(int64_t));
        if (!c->q[n].heap)
            break;
        pthread_mutex_init(&c->q[n].lock, NULL);
        pthread_cond_init(&c->q[n].cv, NULL);
    }
    return n;
}

static void queues_destroy(run_ctx *c, int n)
{
    for (int d = 0; d < n; d++) {
        free(c->q[d].heap);
        pthread_mutex_destroy(&c->q[d].lock);
        pthread_cond_destroy(&c->q[d].cv);
    }
}

static void add_stats(run_ctx *c, nt_kernel_stats_t *stats, double seconds)
{
    const nt_tg_t *g = c->g;
    stats->tasks += g->ntask;
    stats->owner_tasks += atomic_load(&c->owner_tasks);
    stats->owner_fraction = stats->tasks ? (double)stats->owner_tasks / (double)stats->tasks : 1.0;
    stats->remote_reads += g->remote_reads;
    stats->remote_read_bytes += g->remote_read_bytes;
    stats->remote_writes += g->remote_writes;
    stats->remote_write_bytes += g->remote_write_bytes;
    for (int d = 0; d < g->ndomains; d++) {
        stats->tasks_owned[d] += g->owned[d];
        stats->tasks_run[d] += atomic_load(&c->run_by[d]);
    }
    stats->seconds += seconds;
}

// Queue the tasks without predecessors, run the team, and add its counts to stats (may be
// NULL); the first task error is the result.
static nt_status run_team(run_ctx *c, nt_kernel_stats_t *stats)
{
    const nt_tg_t *g = c->g;
    for (int64_t t = 0; t < g->ntask; t++)
        if (g->npred[t] == 0)
            q_push(c, c->exec_dom[g->task[t].owner], t);
    atomic_store(&c->finished, g->ntask == 0);
    double t0 = nt_now();
    team(c);
    double t1 = nt_now();
    int err = atomic_load(&c->error);
    if (err)
        return nt_fail((nt_status)err, "%s", c->msg);
    if (stats)
        add_stats(c, stats, t1 - t0);
    return NT_OK;
}

nt_status nt_tg_run(nt_tg_t *g, const nt_topo_t *topo, int tpd, nt_kernel_sched sched, nt_tg_fn fn,
                    void *ctx, size_t work_bytes, nt_kernel_stats_t *stats)
{
    if (g->oom)
        return g->oom;
    int D = nt_topo_ndomains(topo);
    if (D != g->ndomains)
        return nt_fail(NT_EINVAL, "task graph: built for %d domains, topology has %d",
                       g->ndomains, D);
    nt_status st = nt_kernel_stats_prepare(stats, D);
    if (st)
        return st;
    run_ctx c = {.g = g, .topo = topo, .tpd = tpd, .sched = sched, .fn = fn, .ctx = ctx,
                 .work_bytes = work_bytes};
    c.check_cpu = !nt_topo_oversubscribed(topo);
    pthread_mutex_init(&c.msg_lock, NULL);
    bool *has_cpu = calloc((size_t)D, sizeof *has_cpu);
    int *dom = NULL;
    c.exec_dom = calloc((size_t)D, sizeof *c.exec_dom);
    c.q = calloc((size_t)D, sizeof *c.q);
    c.run_by = calloc((size_t)D, sizeof *c.run_by);
    c.remain = malloc((size_t)(g->ntask + 1) * sizeof *c.remain);
    c.soff = calloc((size_t)g->ntask + 2, sizeof *c.soff);
    c.succ = malloc((size_t)(g->nedge + 1) * sizeof *c.succ);
    int64_t *fill = calloc((size_t)g->ntask + 1, sizeof *fill);
    int64_t *qcap = calloc((size_t)D, sizeof *qcap); // tasks per executing domain
    if (!has_cpu || !c.exec_dom || !c.q || !c.run_by || !c.remain || !c.soff || !c.succ ||
        !fill || !qcap) {
        st = nt_fail(NT_ENOMEM, "kernels: out of memory");
        goto out;
    }
    if ((st = team_layout(&c, has_cpu, &dom)) != NT_OK)
        goto out;
    build_successors(&c, fill, qcap);
    int nq = queues_init(&c, qcap);
    st = nq < D ? nt_fail(NT_ENOMEM, "kernels: out of memory") : run_team(&c, stats);
    queues_destroy(&c, nq);
out:
    pthread_mutex_destroy(&c.msg_lock);
    free(has_cpu);
    free(dom);
    free(c.exec_dom);
    free(c.q);
    free(c.run_by);
    free((void *)c.remain);
    free(c.soff);
    free(c.succ);
    free(fill);
    free(qcap);
    return st;
}
