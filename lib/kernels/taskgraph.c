// The public task graph (numatile/task.h): building it (dependencies inferred from the tile and
// handle accesses, in program order), and its owner-computes execution. See docs/kernels.md
// for why the owner mode uses per-domain ready queues instead of OpenMP's task scheduler.
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_kern_common.h"
#include "nt_graph_sink.h"
#include "nt_task_heap.h"
#include "numatile/task.h"

// Accesses are packed as handle << 2 | mode.
#define ACC_HANDLE(x) ((x) >> 2)
#define ACC_MODE(x) ((int)((x) & 3))

// Argument copies are aligned for any type.
#define ARG_ALIGN ((int64_t)alignof(max_align_t))

typedef struct task_rec {
    nt_task_fn fn;
    void *arg;      // borrowed pointer when argoff < 0
    int64_t argoff; // offset of the graph's copy in args, or -1
    int64_t acc0;   // first access in acc
    int nacc;
    int domain;
    int prio;
} task_rec;

typedef struct mat_rec {
    const nt_matrix_t *A;
    int64_t base; // handle of tile (0,0); tile (i,j) is base + i * nt + j
} mat_rec;

struct nt_task_graph {
    const nt_topo_t *topo;
    int ndomains;
    // Handles: matrix tiles (registered on first use) and user data, one id space.
    int64_t nhandles, hcap;
    int *hdom;            // domain of the data behind each handle
    int64_t *hbytes;      // its size
    int64_t *last_writer; // per handle, -1 if none
    int64_t *rhead;       // per handle: readers since the last write (pool list), -1 if none
    int64_t ndata, dcap;
    int64_t *data; // user handle -> handle
    int64_t nmats, mcap;
    mat_rec *mats;
    // Tasks, their accesses and argument copies.
    int64_t ntask, tcap;
    task_rec *task;
    int64_t *npred;
    int64_t *stamp; // last task that recorded this task as predecessor (dedupe)
    int64_t nacc, acap;
    int64_t *acc;
    int64_t nargs, argcap;
    char *args;
    // Edges (predecessor, successor) and the reader lists.
    int64_t nedge, ecap;
    int64_t *epred, *esucc;
    int64_t rn, rcap;
    int64_t *rnext, *rtask;
    // Counts for the statistics, per run.
    int64_t remote_reads, remote_read_bytes, remote_writes, remote_write_bytes;
    int64_t *owned; // per domain
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

// Room for `more` handles (several arrays, one capacity).
static bool grow_handles(nt_task_graph_t *g, int64_t more)
{
    int64_t need = g->nhandles + more, c[4] = {g->hcap, g->hcap, g->hcap, g->hcap};
    bool ok = grow((void **)&g->hdom, &c[0], need, sizeof *g->hdom) &&
              grow((void **)&g->hbytes, &c[1], need, sizeof *g->hbytes) &&
              grow((void **)&g->last_writer, &c[2], need, sizeof *g->last_writer) &&
              grow((void **)&g->rhead, &c[3], need, sizeof *g->rhead);
    if (ok && need > g->hcap)
        g->hcap = c[0];
    return ok;
}

static bool grow_tasks(nt_task_graph_t *g)
{
    int64_t need = g->ntask + 1, c[3] = {g->tcap, g->tcap, g->tcap};
    bool ok = grow((void **)&g->task, &c[0], need, sizeof *g->task) &&
              grow((void **)&g->npred, &c[1], need, sizeof *g->npred) &&
              grow((void **)&g->stamp, &c[2], need, sizeof *g->stamp);
    if (ok && need > g->tcap)
        g->tcap = c[0];
    return ok;
}

nt_status nt_task_graph_create(const nt_topo_t *topo, nt_task_graph_t **out)
{
    if (!topo || !out)
        return nt_fail(NT_EINVAL, "task graph: %s is NULL", !topo ? "topo" : "out");
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "task graph: a synthetic topology cannot run tasks");
    nt_task_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return nt_fail(NT_ENOMEM, "task graph: out of memory");
    g->topo = topo;
    g->ndomains = nt_topo_ndomains(topo);
    if (!(g->owned = calloc((size_t)g->ndomains, sizeof *g->owned))) {
        free(g);
        return nt_fail(NT_ENOMEM, "task graph: out of memory");
    }
    *out = g;
    return NT_OK;
}

void nt_task_graph_destroy(nt_task_graph_t *g)
{
    if (!g)
        return;
    free(g->hdom);
    free(g->hbytes);
    free(g->last_writer);
    free(g->rhead);
    free(g->data);
    free(g->mats);
    free(g->task);
    free(g->npred);
    free(g->stamp);
    free(g->acc);
    free(g->args);
    free(g->epred);
    free(g->esucc);
    free(g->rnext);
    free(g->rtask);
    free(g->owned);
    free(g);
}

int64_t nt_task_graph_ntasks(const nt_task_graph_t *g)
{
    return g ? g->ntask : 0;
}

nt_status nt_task_data_register(nt_task_graph_t *g, int domain, int64_t bytes, int64_t *handle)
{
    if (!g || !handle)
        return nt_fail(NT_EINVAL, "task data: %s is NULL", !g ? "graph" : "handle");
    if (domain < 0 || domain >= g->ndomains || bytes < 0)
        return nt_fail(NT_EINVAL, "task data: domain %d must be in 0..%d and bytes %lld >= 0",
                       domain, g->ndomains - 1, (long long)bytes);
    if (!grow_handles(g, 1) || !grow((void **)&g->data, &g->dcap, g->ndata + 1, sizeof *g->data))
        return nt_fail(NT_ENOMEM, "task data: out of memory");
    int64_t h = g->nhandles++;
    g->hdom[h] = domain;
    g->hbytes[h] = bytes;
    g->last_writer[h] = g->rhead[h] = -1;
    g->data[g->ndata] = h;
    *handle = g->ndata++;
    return NT_OK;
}

// The registered matrix A, or -1.
static int64_t find_matrix(const nt_task_graph_t *g, const nt_matrix_t *A)
{
    for (int64_t m = g->nmats - 1; m >= 0; m--)
        if (g->mats[m].A == A)
            return m;
    return -1;
}

// Register A's tiles as handles (first use of A in this graph).
static nt_status add_matrix(nt_task_graph_t *g, const nt_matrix_t *A, int k)
{
    if (A->topo != g->topo)
        return nt_fail(NT_EINVAL, "task: access %d: the matrix is on another topology than "
                       "the graph", k);
    if (!A->allocated || !A->tile || !A->owner)
        return nt_fail(NT_EINVAL, "task: access %d: the matrix has no memory", k);
    size_t tiles;
    if (A->mt < 1 || A->nt < 1 || !nt_mul_size((size_t)A->mt, (size_t)A->nt, &tiles) ||
        tiles > (size_t)INT64_MAX / 8)
        return nt_fail(NT_EINVAL, "task: access %d: the matrix has %lldx%lld tiles", k,
                       (long long)A->mt, (long long)A->nt);
    for (size_t t = 0; t < tiles; t++)
        if (A->owner[t] < 0 || A->owner[t] >= g->ndomains)
            return nt_fail(NT_EINVAL, "task: access %d: a tile of the matrix is on domain %d, "
                           "outside the graph's 0..%d", k, A->owner[t], g->ndomains - 1);
    if (!grow_handles(g, (int64_t)tiles) ||
        !grow((void **)&g->mats, &g->mcap, g->nmats + 1, sizeof *g->mats))
        return nt_fail(NT_ENOMEM, "task: out of memory");
    int64_t base = g->nhandles;
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            int64_t h = base + i * A->nt + j;
            g->hdom[h] = nt_matrix_tile_domain(A, i, j);
            g->hbytes[h] = nt_matrix_tile_rows(A, i) * nt_matrix_tile_cols(A, j) *
                           (int64_t)A->elem_size;
            g->last_writer[h] = g->rhead[h] = -1;
        }
    g->nhandles += (int64_t)tiles;
    g->mats[g->nmats++] = (mat_rec){A, base};
    return NT_OK;
}

// The handle of access k, registering its matrix on first use; -1 with the error in *st.
static int64_t resolve(nt_task_graph_t *g, const nt_task_access_t *x, int k, nt_status *st)
{
    if (x->mode != NT_TASK_READ && x->mode != NT_TASK_WRITE && x->mode != NT_TASK_READWRITE) {
        *st = nt_fail(NT_EINVAL, "task: access %d: mode %d is not NT_TASK_READ, NT_TASK_WRITE "
                      "or NT_TASK_READWRITE", k, (int)x->mode);
        return -1;
    }
    if (!x->matrix) {
        if (x->handle < 0 || x->handle >= g->ndata) {
            *st = nt_fail(NT_EINVAL, "task: access %d: handle %lld is not one of this graph's "
                          "%lld", k, (long long)x->handle, (long long)g->ndata);
            return -1;
        }
        return g->data[x->handle];
    }
    const nt_matrix_t *A = x->matrix;
    int64_t m = find_matrix(g, A);
    if (m < 0) {
        if ((*st = add_matrix(g, A, k)) != NT_OK)
            return -1;
        m = g->nmats - 1;
    }
    if (x->row < 0 || x->row >= A->mt || x->col < 0 || x->col >= A->nt) {
        *st = nt_fail(NT_EINVAL, "task: access %d: tile (%lld,%lld) outside the matrix's "
                      "%lldx%lld tiles", k, (long long)x->row, (long long)x->col,
                      (long long)A->mt, (long long)A->nt);
        return -1;
    }
    return g->mats[m].base + x->row * A->nt + x->col;
}

static bool add_edge(nt_task_graph_t *g, int64_t from, int64_t to)
{
    if (from < 0 || from == to || g->stamp[from] == to)
        return true;
    int64_t c1 = g->ecap, c2 = g->ecap;
    if (!grow((void **)&g->epred, &c1, g->nedge + 1, sizeof(int64_t)) ||
        !grow((void **)&g->esucc, &c2, g->nedge + 1, sizeof(int64_t)))
        return false;
    g->ecap = c1 < c2 ? c1 : c2;
    g->stamp[from] = to;
    g->epred[g->nedge] = from;
    g->esucc[g->nedge] = to;
    g->nedge++;
    g->npred[to]++;
    return true;
}

// Everything that can fail, checked and allocated before the graph changes: the handles of
// the accesses (into acc, packed), the task's domain, room for its edges, readers and argument.
static nt_status prepare(nt_task_graph_t *g, nt_task_fn fn, const void *arg, size_t arg_size,
                         int naccess, const nt_task_access_t *access, int *domain)
{
    if (!fn)
        return nt_fail(NT_EINVAL, "task: fn is NULL");
    if (arg_size > NT_TASK_MAX_ARG_BYTES || (arg_size > 0 && !arg))
        return nt_fail(NT_EINVAL, "task: arg_size = %zu must be in 0..%d, with arg not NULL "
                       "when > 0", arg_size, NT_TASK_MAX_ARG_BYTES);
    if (naccess < 0 || naccess > NT_TASK_MAX_ACCESSES || (naccess > 0 && !access))
        return nt_fail(NT_EINVAL, "task: naccess = %d must be in 0..%d, with access not NULL "
                       "when > 0", naccess, NT_TASK_MAX_ACCESSES);
    if (*domain != NT_TASK_AUTO_DOMAIN && (*domain < 0 || *domain >= g->ndomains))
        return nt_fail(NT_EINVAL, "task: domain %d must be NT_TASK_AUTO_DOMAIN or in 0..%d",
                       *domain, g->ndomains - 1);
    if (*domain == NT_TASK_AUTO_DOMAIN && naccess == 0)
        return nt_fail(NT_EINVAL, "task: no access to place it by: give a domain");
    if (!grow((void **)&g->acc, &g->acap, g->nacc + naccess, sizeof *g->acc))
        return nt_fail(NT_ENOMEM, "task: out of memory");
    int first_write = -1;
    for (int k = 0; k < naccess; k++) {
        nt_status st = NT_OK;
        int64_t h = resolve(g, &access[k], k, &st);
        if (h < 0)
            return st;
        if (first_write < 0 && (access[k].mode & NT_TASK_WRITE))
            first_write = k;
        g->acc[g->nacc + k] = h << 2 | access[k].mode;
    }
    if (*domain == NT_TASK_AUTO_DOMAIN)
        *domain = g->hdom[ACC_HANDLE(g->acc[g->nacc + (first_write >= 0 ? first_write : 0)])];
    // Edges: at most one per access to a last writer plus one per pending reader of a written
    // handle; readers: one per read access.
    int64_t edges = naccess, reads = 0;
    for (int k = 0; k < naccess; k++) {
        int64_t x = g->acc[g->nacc + k];
        if (ACC_MODE(x) & NT_TASK_WRITE) {
            for (int64_t r = g->rhead[ACC_HANDLE(x)]; r >= 0; r = g->rnext[r])
                edges++;
        } else {
            reads++;
        }
    }
    int64_t c1 = g->ecap, c2 = g->ecap, r1 = g->rcap, r2 = g->rcap;
    bool ok = grow_tasks(g) && grow((void **)&g->epred, &c1, g->nedge + edges, sizeof(int64_t)) &&
              grow((void **)&g->esucc, &c2, g->nedge + edges, sizeof(int64_t)) &&
              grow((void **)&g->rnext, &r1, g->rn + reads, sizeof(int64_t)) &&
              grow((void **)&g->rtask, &r2, g->rn + reads, sizeof(int64_t));
    g->ecap = c1 < c2 ? c1 : c2;
    g->rcap = r1 < r2 ? r1 : r2;
    int64_t aneed = g->nargs + (int64_t)arg_size + ARG_ALIGN;
    if (!ok || (arg_size && !grow((void **)&g->args, &g->argcap, aneed, 1)))
        return nt_fail(NT_ENOMEM, "task: out of memory");
    return NT_OK;
}

nt_status nt_task_submit(nt_task_graph_t *g, nt_task_fn fn, const void *arg, size_t arg_size,
                         int naccess, const nt_task_access_t *access, int domain, int priority)
{
    if (!g)
        return nt_fail(NT_EINVAL, "task: graph is NULL");
    nt_status st = prepare(g, fn, arg, arg_size, naccess, access, &domain);
    if (st)
        return st;
    // From here on nothing fails: the room was made above.
    int64_t t = g->ntask;
    task_rec *r = &g->task[t];
    *r = (task_rec){fn, (void *)arg, -1, g->nacc, naccess, domain, priority};
    if (arg_size) {
        r->argoff = (g->nargs + ARG_ALIGN - 1) / ARG_ALIGN * ARG_ALIGN;
        memcpy(g->args + r->argoff, arg, arg_size);
        g->nargs = r->argoff + (int64_t)arg_size;
    }
    g->npred[t] = 0;
    g->stamp[t] = -1;
    const int64_t *acc = g->acc + g->nacc;
    for (int k = 0; k < naccess; k++) {
        int64_t h = ACC_HANDLE(acc[k]);
        int mode = ACC_MODE(acc[k]);
        add_edge(g, g->last_writer[h], t);
        if (mode & NT_TASK_WRITE)
            for (int64_t q = g->rhead[h]; q >= 0; q = g->rnext[q])
                add_edge(g, g->rtask[q], t);
        if (g->hdom[h] != domain) {
            if (mode & NT_TASK_READ) {
                g->remote_reads++;
                g->remote_read_bytes += g->hbytes[h];
            }
            if (mode & NT_TASK_WRITE) {
                g->remote_writes++;
                g->remote_write_bytes += g->hbytes[h];
            }
        }
    }
    // Publish this task as writer / reader only once all its predecessors are known (a task
    // reading and writing different handles must not depend on itself).
    for (int k = 0; k < naccess; k++) {
        int64_t h = ACC_HANDLE(acc[k]);
        if (ACC_MODE(acc[k]) & NT_TASK_WRITE) {
            g->last_writer[h] = t;
            g->rhead[h] = -1;
        } else {
            g->rtask[g->rn] = t;
            g->rnext[g->rn] = g->rhead[h];
            g->rhead[h] = g->rn++;
        }
    }
    g->nacc += naccess;
    g->owned[domain]++;
    g->ntask++;
    return NT_OK;
}

/* ---- execution -------------------------------------------------------------------------- */

// The ready tasks of one domain, keyed by priority (nt_task_heap.h: the model's order too).
typedef struct readyq {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int64_t n;
    _Atomic int64_t avail; // n, readable without the lock (for the spin before sleeping)
    nt_heap_item_t *heap;
} readyq;

typedef struct run_ctx {
    const nt_task_graph_t *g;
    int tpd, nthreads;
    nt_kernel_sched sched;
    size_t work_bytes;
    int64_t repeat;
    _Atomic int64_t rep;  // repetition under way
    const int *dom;       // team thread -> domain (tid / tpd)
    int *exec_dom;        // task domain -> domain whose threads run its tasks
    readyq *q;            // per domain
    _Atomic int64_t *remain;
    int64_t *soff, *succ; // CSR successors
    _Atomic int64_t done;
    _Atomic int finished;
    _Atomic int error;    // first error code (0 = none)
    _Atomic int64_t owner_tasks;
    _Atomic int64_t *run_by; // per domain
    bool check_cpu;
    char msg[256];
    pthread_mutex_t msg_lock;
} run_ctx;

static void q_push(run_ctx *c, int d, int64_t t)
{
    readyq *q = &c->q[d];
    pthread_mutex_lock(&q->lock);
    nt_heap_push(q->heap, &q->n, (nt_heap_item_t){c->g->task[t].prio, t});
    atomic_store(&q->avail, q->n);
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

// Spin rounds before a thread with nothing ready sleeps: fine-grained graphs (the stencil's
// iterations) hand work across threads often, and a wakeup costs far more than a short spin.
enum { SPIN_ROUNDS = 2000 };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Pop the best ready task of domain d; -1 when the graph is finished.
static int64_t q_pop(run_ctx *c, int d)
{
    readyq *q = &c->q[d];
    for (int s = 0; s < SPIN_ROUNDS && atomic_load(&q->avail) == 0 && !atomic_load(&c->finished);
         s++)
        cpu_relax();
    pthread_mutex_lock(&q->lock);
    while (q->n == 0 && !atomic_load(&c->finished))
        pthread_cond_wait(&q->cv, &q->lock);
    if (q->n == 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    int64_t top = nt_heap_pop(q->heap, &q->n).id;
    atomic_store(&q->avail, q->n);
    pthread_mutex_unlock(&q->lock);
    return top;
}

static void record_error(run_ctx *c, nt_status st, const char *msg)
{
    int expect = 0;
    if (atomic_compare_exchange_strong(&c->error, &expect, (int)st)) {
        pthread_mutex_lock(&c->msg_lock);
        strncpy(c->msg, msg, sizeof c->msg - 1);
        pthread_mutex_unlock(&c->msg_lock);
    }
}

// Run task t on team thread tid of domain d (the body is skipped once an error happened, so
// that the graph still drains) and count where it ran.
static void execute(run_ctx *c, int64_t t, int tid, int d, void *work)
{
    const task_rec *task = &c->g->task[t];
    bool owner = d == task->domain;
    if (owner && c->check_cpu) {
        int cd = -1, cpu = sched_getcpu();
        owner = cpu >= 0 && nt_topo_cpu_domain(c->g->topo, cpu, &cd) == NT_OK && cd == d;
    }
    if (atomic_load(&c->error) == 0) {
        nt_task_info_t info = {t, atomic_load(&c->rep), task->domain, d, owner, tid, work,
                               work ? c->work_bytes : 0};
        void *arg = task->argoff >= 0 ? c->g->args + task->argoff : task->arg;
        // Start from an empty message: a function that fails without setting one gets ours.
        nt_fail(NT_OK, "%s", "");
        nt_status st = task->fn(&info, arg);
        if (st != NT_OK) {
            const char *m = nt_last_error();
            char buf[160];
            if (!m[0]) {
                snprintf(buf, sizeof buf, "task %lld failed: %s", (long long)t,
                         nt_strerror(st));
                m = buf;
            }
            record_error(c, st, m);
        }
    }
    if (owner)
        atomic_fetch_add(&c->owner_tasks, 1);
    atomic_fetch_add(&c->run_by[d], 1);
}

// Queue the tasks without predecessors (at the start of every repetition).
static void push_roots(run_ctx *c)
{
    const nt_task_graph_t *g = c->g;
    for (int64_t t = 0; t < g->ntask; t++)
        if (g->npred[t] == 0)
            q_push(c, c->exec_dom[g->task[t].domain], t);
}

static void finish(run_ctx *c)
{
    atomic_store(&c->finished, 1);
    for (int d = 0; d < c->g->ndomains; d++) {
        pthread_mutex_lock(&c->q[d].lock);
        pthread_cond_broadcast(&c->q[d].cv);
        pthread_mutex_unlock(&c->q[d].lock);
    }
}

static void release_successors(run_ctx *c, int64_t t)
{
    const nt_task_graph_t *g = c->g;
    for (int64_t e = c->soff[t]; e < c->soff[t + 1]; e++) {
        int64_t s = c->succ[e];
        if (atomic_fetch_sub(&c->remain[s], 1) == 1)
            q_push(c, c->exec_dom[g->task[s].domain], s);
    }
    if (atomic_fetch_add(&c->done, 1) + 1 < g->ntask)
        return;
    // The last task of a repetition: every other task of it is done, so nobody else touches
    // the counters while this thread resets them for the next one.
    if (atomic_load(&c->rep) + 1 < c->repeat && atomic_load(&c->error) == 0) {
        for (int64_t u = 0; u < g->ntask; u++)
            atomic_store(&c->remain[u], g->npred[u]);
        atomic_store(&c->done, 0);
        atomic_fetch_add(&c->rep, 1);
        push_roots(c);
    } else {
        finish(c);
    }
}

static void owner_worker(run_ctx *c, int tid, void *work)
{
    int d = c->dom[tid];
    int64_t t;
    while ((t = q_pop(c, d)) >= 0) {
        execute(c, t, tid, d, work);
        release_successors(c, t);
    }
}

// Baseline: the same graph as OpenMP tasks with depend clauses; libgomp picks the thread.
// Reads of handles that no task writes order nothing and are left out of the clauses.
static void omp_tasks(run_ctx *c, void **works)
{
    const nt_task_graph_t *g = c->g;
    size_t nh = (size_t)(g->nhandles > 0 ? g->nhandles : 1);
    char *tok = calloc(nh, 1), *written = calloc(nh, 1);
    char **rp = malloc((size_t)(g->nacc + 1) * sizeof *rp);
    char **wp = malloc((size_t)(g->nacc + 1) * sizeof *wp);
    if (!tok || !written || !rp || !wp) {
        record_error(c, NT_ENOMEM, "task graph: out of memory");
        goto out;
    }
    for (int64_t x = 0; x < g->nacc; x++)
        if (ACC_MODE(g->acc[x]) & NT_TASK_WRITE)
            written[ACC_HANDLE(g->acc[x])] = 1;
    for (int64_t rep = 0; rep < c->repeat && atomic_load(&c->error) == 0; rep++) {
        atomic_store(&c->rep, rep);
        for (int64_t t = 0; t < g->ntask; t++) {
            const task_rec *r = &g->task[t];
            char **rt = rp + r->acc0, **wt = wp + r->acc0;
            int nr = 0, nw = 0;
            for (int k = 0; k < r->nacc; k++) {
                int64_t x = g->acc[r->acc0 + k], h = ACC_HANDLE(x);
                if (ACC_MODE(x) & NT_TASK_WRITE)
                    wt[nw++] = &tok[h];
                else if (written[h])
                    rt[nr++] = &tok[h];
            }
            (void)rt; // GCC 12 does not see the uses inside the iterator clauses
            (void)wt;
            (void)nr;
            (void)nw;
#pragma omp task firstprivate(t) depend(iterator(k = 0 : nr), in : rt[k][0])                  \
    depend(iterator(k = 0 : nw), inout : wt[k][0])
            {
                int tid = omp_get_thread_num();
                execute(c, t, tid, c->dom[tid], works[tid]);
            }
        }
#pragma omp taskwait
    }
out:
    free(tok);
    free(written);
    free(rp);
    free(wp);
}

static void team(run_ctx *c)
{
    void **works = calloc((size_t)c->nthreads, sizeof *works);
    _Atomic int setup_failed = 0;
    if (!works) {
        record_error(c, NT_ENOMEM, "task graph: out of memory");
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
            st = nt_bind_domain(c->g->topo, c->dom[tid]);
            // Scratch allocated by the bound thread, so its pages are local.
            if (st == NT_OK && c->work_bytes &&
                !(works[tid] = malloc(c->work_bytes)))
                st = nt_fail(NT_ENOMEM, "kernels: no memory for a thread's workspace");
        }
        if (st != NT_OK) {
            atomic_store(&setup_failed, 1);
            record_error(c, st, nt_last_error());
        }
        // Nothing runs until every thread is bound and has its workspace.
#pragma omp barrier
        if (!atomic_load(&setup_failed)) {
            if (c->sched == NT_KERNEL_OWNER) {
                owner_worker(c, tid, works[tid]);
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

// The team: tpd threads per domain with cpus (dom: team thread -> domain, allocated here), and
// the domain whose threads run each domain's tasks.
static nt_status team_layout(run_ctx *c, bool *has_cpu, int **dom)
{
    const nt_topo_t *topo = c->g->topo;
    int D = c->g->ndomains, nd = mark_cpu_domains(topo, has_cpu);
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
        c->exec_dom[d] = nearest_cpu_domain(topo, d, has_cpu);
    return NT_OK;
}

// Successor lists (CSR, fill is scratch), initial dependency counts, and the tasks each
// executing domain will run (qcap).
static void build_successors(run_ctx *c, int64_t *fill, int64_t *qcap)
{
    const nt_task_graph_t *g = c->g;
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
        qcap[c->exec_dom[g->task[t].domain]]++;
    }
}

// One ready queue per domain, sized for its tasks; returns how many were set up (fewer than
// the domains when out of memory).
static int queues_init(run_ctx *c, const int64_t *qcap)
{
    int n = 0;
    for (; n < c->g->ndomains; n++) {
        c->q[n].heap = malloc((size_t)(qcap[n] + 1) * sizeof *c->q[n].heap);
        if (!c->q[n].heap)
            break;
        pthread_mutex_init(&c->q[n].lock, NULL);
        pthread_cond_init(&c->q[n].cv, NULL);
        atomic_init(&c->q[n].avail, 0);
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
    const nt_task_graph_t *g = c->g;
    int64_t r = c->repeat;
    stats->tasks += g->ntask * r;
    stats->owner_tasks += atomic_load(&c->owner_tasks);
    stats->owner_fraction = stats->tasks ? (double)stats->owner_tasks / (double)stats->tasks : 1.0;
    stats->remote_reads += g->remote_reads * r;
    stats->remote_read_bytes += g->remote_read_bytes * r;
    stats->remote_writes += g->remote_writes * r;
    stats->remote_write_bytes += g->remote_write_bytes * r;
    for (int d = 0; d < g->ndomains; d++) {
        stats->tasks_owned[d] += g->owned[d] * r;
        stats->tasks_run[d] += atomic_load(&c->run_by[d]);
    }
    stats->seconds += seconds;
}

// Run the team over every repetition and add its counts to stats (may be NULL); the first
// task error is the result.
static nt_status run_team(run_ctx *c, nt_kernel_stats_t *stats)
{
    const nt_task_graph_t *g = c->g;
    push_roots(c);
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

static nt_status check_run(const nt_task_graph_t *g, const nt_task_run_opts_t *opts, int *tpd,
                           nt_kernel_sched *sched, int64_t *repeat)
{
    if (!g)
        return nt_fail(NT_EINVAL, "task graph run: graph is NULL");
    nt_task_run_opts_t o = opts ? *opts : (nt_task_run_opts_t){0};
    if (o.repeat < 0)
        return nt_fail(NT_EINVAL, "task graph run: opts.repeat = %lld must be >= 0",
                       (long long)o.repeat);
    *repeat = o.repeat ? o.repeat : 1;
    // The statistics multiply the per-run counts by the repetitions.
    int64_t big = g->ntask;
    const int64_t counts[] = {g->remote_read_bytes, g->remote_write_bytes, g->nacc};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        big = counts[k] > big ? counts[k] : big;
    if (big > 0 && *repeat > INT64_MAX / big)
        return nt_fail(NT_ERANGE, "task graph run: opts.repeat = %lld times the graph's counts "
                       "overflows", (long long)*repeat);
    nt_kernel_opts_t ko = {.threads_per_domain = o.threads_per_domain, .sched = o.sched};
    return nt_kernel_opts_resolve(&ko, g->topo, tpd, sched);
}

nt_status nt_task_graph_run(nt_task_graph_t *g, const nt_task_run_opts_t *opts,
                            nt_kernel_stats_t *stats)
{
    int tpd = 1;
    nt_kernel_sched sched = NT_KERNEL_OWNER;
    int64_t repeat = 1;
    nt_status st = check_run(g, opts, &tpd, &sched, &repeat);
    if (st)
        return st;
    int D = g->ndomains;
    if ((st = nt_kernel_stats_prepare(stats, D)) != NT_OK)
        return st;
    run_ctx c = {.g = g, .tpd = tpd, .sched = sched, .repeat = repeat,
                 .work_bytes = opts ? opts->workspace_bytes : 0};
    c.check_cpu = !nt_topo_oversubscribed(g->topo);
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

nt_status nt_task_graph_peek(const nt_task_graph_t *g, int64_t t, int *domain, int *prio,
                             int64_t *pred, int max, int *npred)
{
    if (!g || t < 0 || t >= g->ntask)
        return nt_fail(NT_EINVAL, "task graph peek: no task %lld", (long long)t);
    *domain = g->task[t].domain;
    *prio = g->task[t].prio;
    *npred = 0;
    for (int64_t e = 0; e < g->nedge; e++)
        if (g->esucc[e] == t) {
            if (*npred < max)
                pred[*npred] = g->epred[e];
            ++*npred;
        }
    return NT_OK;
}
