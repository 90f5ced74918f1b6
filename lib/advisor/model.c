// The time model of numatile/advise.h: a redistribution priced from its bytes per domain pair,
// a kernel by list-scheduling its task graph (per-domain tile-kernel times, per-domain threads,
// the runtime's priorities). The arithmetic is spelled out in the header; the tests check it
// against hand-computed cases and hand-made graphs.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "lib/matrix/nt_matrix.h"
#include "nt_model.h"
#include "lib/kernels/nt_graph_sink.h"
#include "lib/kernels/nt_task_heap.h"
#include "numatile/advise.h"
#include "numatile/sched.h"

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

// Time of the one-port phases of the off-diagonal copies (q has a zero diagonal).
static nt_status steps_time(const nt_profile_t *p, const int64_t *q, double *secs,
                            int64_t *phases)
{
    int D = p->ndomains;
    nt_schedule_t *s;
    nt_status st = nt_sched_build(q, D, &s);
    if (st)
        return st;
    double t = 0;
    for (int k = 0; k < s->nphases; k++) {
        double slow = 0, bytes = 0;
        for (int64_t x = s->first[k]; x < s->first[k + 1]; x++) {
            slow = dmax(slow, (double)s->count[k] / (p->copy_gbs[s->src[x] * D + s->dst[x]] * 1e9));
            bytes += (double)s->count[k];
        }
        t += dmax(slow, bytes / (p->concurrent_gbs * 1e9)) + p->task_seconds;
    }
    *secs = t;
    *phases = s->nphases;
    nt_sched_destroy(s);
    return NT_OK;
}

nt_status nt_model_redist_bytes(const nt_profile_t *p, const int64_t *copy,
                                const int64_t *fresh, nt_redist_pred_t *out)
{
    if (!p || !copy || !fresh || !out)
        return nt_fail(NT_EINVAL, "nt_model_redist_bytes: NULL argument");
    nt_status st = nt_profile_check(p, NULL);
    if (st)
        return st;
    int D = p->ndomains;
    size_t DD = (size_t)D * (size_t)D;
    for (size_t x = 0; x < DD; x++)
        if (copy[x] < 0)
            return nt_fail(NT_EINVAL, "nt_model_redist_bytes: copy_bytes[%zu][%zu] < 0",
                           x / (size_t)D, x % (size_t)D);
    for (int d = 0; d < D; d++)
        if (fresh[d] < 0)
            return nt_fail(NT_EINVAL, "nt_model_redist_bytes: fresh_bytes[%d] < 0", d);
    int64_t *q = calloc(DD, sizeof *q);
    if (!q)
        return nt_fail(NT_ENOMEM, "nt_model_redist_bytes: out of memory");
    nt_redist_pred_t r = {0};
    double slowest = 0, local = 0, total = 0;
    for (int j = 0; j < D; j++) {
        double tj = 0;
        for (int i = 0; i < D; i++) {
            int64_t b = copy[i * D + j];
            tj += (double)b / (p->copy_gbs[i * D + j] * 1e9);
            total += (double)b;
            r.bytes_copied += b;
            if (i != j)
                q[i * D + j] = b;
        }
        slowest = dmax(slowest, tj);
        local = dmax(local, (double)copy[j * D + j] / (p->copy_gbs[j * D + j] * 1e9));
        r.bytes_fresh += fresh[j];
        r.alloc_seconds = dmax(r.alloc_seconds, (double)fresh[j] / (p->fault_gbs[j] * 1e9));
    }
    r.free_seconds = dmax(slowest, total / (p->concurrent_gbs * 1e9)) + p->exec_seconds;
    st = steps_time(p, q, &r.steps_seconds, &r.phases);
    r.steps_seconds += local + p->exec_seconds;
    free(q);
    if (st)
        return st;
    *out = r;
    return NT_OK;
}

// What nt_plan_execute() adopts instead of copying (lib/redist/exec_segments.c, adoptable()):
// a segment that alone makes its target tile, is a whole tile of at least a page, and keeps its
// domain.
typedef struct walk {
    const nt_matrix_t *src;
    nt_segment_t prev; // a copy: the plan may hand out segments from a buffer it reuses
    bool have_prev, prev_alone_pending;
    int D;
    int64_t *copy, *fresh;
} walk;

static void account(walk *w, const nt_segment_t *g, bool alone)
{
    int64_t b = (int64_t)g->rows * g->cols * (int64_t)w->src->elem_size;
    int64_t si = g->src_tile / w->src->nt, sj = g->src_tile % w->src->nt;
    if (alone && g->whole && g->src_dom == g->dst_dom && nt_tile_is_big(w->src, si, sj))
        return;
    w->copy[g->src_dom * w->D + g->dst_dom] += b;
    w->fresh[g->dst_dom] += b;
}

// Segments come grouped by target tile: a segment is alone when its neighbours have other
// target tiles, which is known once the next one is seen.
static int visit(const nt_segment_t *g, void *arg)
{
    walk *w = arg;
    if (w->have_prev)
        account(w, &w->prev, w->prev_alone_pending && w->prev.dst_tile != g->dst_tile);
    w->prev_alone_pending = !w->have_prev || w->prev.dst_tile != g->dst_tile;
    w->prev = *g;
    w->have_prev = true;
    return 0;
}

nt_status nt_model_redist(const nt_profile_t *p, const nt_plan_t *plan, const nt_matrix_t *src,
                          nt_redist_pred_t *out)
{
    if (!p || !plan || !src || !out)
        return nt_fail(NT_EINVAL, "nt_model_redist: NULL argument");
    nt_plan_info_t info;
    nt_status st = nt_plan_info(plan, &info);
    if (st)
        return st;
    if (info.ndomains != p->ndomains)
        return nt_fail(NT_EINVAL, "nt_model_redist: the plan has %d domains, the profile %d",
                       info.ndomains, p->ndomains);
    if (info.periodic)
        return nt_fail(NT_ENOTSUP, "nt_model_redist: periodic plan (build it with "
                                   "explicit_segments)");
    size_t D = (size_t)p->ndomains;
    walk w = {.src = src, .D = p->ndomains, .copy = calloc(D * D, sizeof(int64_t)),
              .fresh = calloc(D, sizeof(int64_t))};
    if (!w.copy || !w.fresh)
        st = nt_fail(NT_ENOMEM, "nt_model_redist: out of memory");
    if (!st)
        st = nt_plan_foreach_segment(plan, visit, &w);
    if (!st && w.have_prev)
        account(&w, &w.prev, w.prev_alone_pending);
    if (!st)
        st = nt_model_redist_bytes(p, w.copy, w.fresh, out);
    free(w.copy);
    free(w.fresh);
    return st;
}

// ---- the schedule ------------------------------------------------------------------------------

static nt_status sim_check(const nt_sim_task_t *task, int64_t n, int ndomains, int threads,
                           const double *makespan)
{
    if ((!task && n > 0) || !makespan || n < 0 || ndomains < 1 || threads < 1)
        return nt_fail(NT_EINVAL, "nt_model_schedule: bad argument");
    for (int64_t x = 0; x < n; x++) {
        const nt_sim_task_t *t = &task[x];
        if (t->domain < 0 || t->domain >= ndomains || !(t->seconds >= 0) || t->npred < 0 ||
            t->npred > NT_SIM_MAXPRED)
            return nt_fail(NT_EINVAL, "nt_model_schedule: task %lld is malformed", (long long)x);
        for (int k = 0; k < t->npred; k++)
            if (t->pred[k] < 0 || t->pred[k] >= x)
                return nt_fail(NT_EINVAL, "nt_model_schedule: task %lld has predecessor %lld",
                               (long long)x, (long long)t->pred[k]);
    }
    return NT_OK;
}

// Ready queue of one domain: the runtime's heap and order (lib/kernels/nt_task_heap.h).
typedef struct simq {
    int64_t n;
    nt_heap_item_t *heap;
} simq;

typedef struct sim {
    const nt_sim_task_t *task;
    int64_t n;
    int D;
    int64_t *soff, *succ; // successors of task x: succ[soff[x] .. soff[x+1])
    int64_t *remain;      // per task: predecessors not finished
    nt_heap_item_t *qmem; // the queues' items, each domain's queue room for all its tasks
    nt_heap_item_t *ev;   // running tasks, keyed by their finish negated (earliest first)
    simq *q;
    int *idle; // per domain: threads without a task
} sim;

static void sim_free(sim *s)
{
    free(s->soff);
    free(s->succ);
    free(s->remain);
    free(s->qmem);
    free(s->ev);
    free(s->q);
    free(s->idle);
}

static nt_status sim_alloc(sim *s)
{
    size_t N = (size_t)s->n + 1, D = (size_t)s->D;
    s->soff = calloc(N + 1, sizeof *s->soff);
    s->succ = calloc(N * NT_SIM_MAXPRED, sizeof *s->succ);
    s->remain = calloc(N, sizeof *s->remain);
    s->qmem = calloc(N, sizeof *s->qmem);
    s->ev = calloc(N, sizeof *s->ev);
    s->q = calloc(D, sizeof *s->q);
    s->idle = calloc(D, sizeof *s->idle);
    if (s->soff && s->succ && s->remain && s->qmem && s->ev && s->q && s->idle)
        return NT_OK;
    sim_free(s);
    return nt_fail(NT_ENOMEM, "nt_model_schedule: out of memory");
}

// The successor lists from the predecessor lists (counts, prefix sums, fill), and each
// domain's queue placed in qmem with room for its tasks.
static void sim_build(sim *s, int threads)
{
    const nt_sim_task_t *task = s->task;
    for (int64_t x = 0; x < s->n; x++)
        for (int k = 0; k < task[x].npred; k++)
            s->soff[task[x].pred[k] + 1]++;
    for (int64_t x = 0; x < s->n; x++)
        s->soff[x + 1] += s->soff[x];
    // Filling advances soff[p] to the end of p's list, which is where p + 1's begins.
    for (int64_t x = 0; x < s->n; x++)
        for (int k = 0; k < task[x].npred; k++)
            s->succ[s->soff[task[x].pred[k]]++] = x;
    for (int64_t x = s->n; x > 0; x--)
        s->soff[x] = s->soff[x - 1];
    s->soff[0] = 0;
    for (int64_t x = 0; x < s->n; x++)
        s->idle[task[x].domain]++; // here the count of the domain's tasks
    int64_t at = 0;
    for (int d = 0; d < s->D; d++) {
        s->q[d].heap = s->qmem + at;
        at += s->idle[d];
        s->idle[d] = threads;
    }
}

static void sim_ready(sim *s, int64_t x)
{
    simq *q = &s->q[s->task[x].domain];
    nt_heap_push(q->heap, &q->n, (nt_heap_item_t){s->task[x].prio, x});
}

// Every idle thread takes its domain's best ready task; then time jumps to the next finish,
// and every task finishing then releases its successors before anyone picks again. Returns
// how many tasks ran; *now is when the last finished.
static int64_t sim_run(sim *s, double *now)
{
    int64_t nev = 0, done = 0;
    for (int64_t x = 0; x < s->n; x++)
        if (!(s->remain[x] = s->task[x].npred))
            sim_ready(s, x);
    for (*now = 0;;) {
        for (int d = 0; d < s->D; d++)
            for (; s->idle[d] > 0 && s->q[d].n > 0; s->idle[d]--) {
                int64_t x = nt_heap_pop(s->q[d].heap, &s->q[d].n).id;
                nt_heap_push(s->ev, &nev, (nt_heap_item_t){-(*now + s->task[x].seconds), x});
            }
        if (nev == 0)
            return done;
        *now = -s->ev[0].key;
        while (nev > 0 && -s->ev[0].key == *now) {
            int64_t x = nt_heap_pop(s->ev, &nev).id;
            s->idle[s->task[x].domain]++;
            done++;
            for (int64_t e = s->soff[x]; e < s->soff[x + 1]; e++)
                if (--s->remain[s->succ[e]] == 0)
                    sim_ready(s, s->succ[e]);
        }
    }
}

nt_status nt_model_schedule(const nt_sim_task_t *task, int64_t n, int ndomains, int threads,
                            double *makespan)
{
    nt_status st = sim_check(task, n, ndomains, threads, makespan);
    if (st)
        return st;
    sim s = {.task = task, .n = n, .D = ndomains};
    if ((st = sim_alloc(&s)) != NT_OK)
        return st;
    sim_build(&s, threads);
    double now;
    int64_t done = sim_run(&s, &now);
    if (done != n)
        st = nt_fail(NT_EINVAL, "nt_model_schedule: %lld of %lld tasks never became ready",
                     (long long)(n - done), (long long)n);
    else
        *makespan = now;
    sim_free(&s);
    return st;
}

// ---- kernels ------------------------------------------------------------------------------------

// The graph the kernel's own builder submits (lib/kernels/nt_graph_sink.h), recorded and
// priced: dependencies inferred from the accesses as nt_task_submit() infers them, a task's
// time from its tile-kernel calls and the remote tile reads each call stands for.

// A handle: a matrix tile, or a data handle (M NULL unless it is part of tile (i,j) of M).
typedef struct khandle {
    int domain;
    int64_t last;    // the task that last wrote it, or -1
    int nrd;         // readers since that write; the first NT_SIM_MAXPRED of them in rd (a
                     // write after more would have too many predecessors anyway)
    int64_t rd[NT_SIM_MAXPRED];
    const nt_matrix_t *M;
    int64_t i, j;
} khandle;

enum { KMODEL_MATS = 4 };

typedef struct kmodel {
    const nt_profile_t *p;
    double nb3;        // the profile's nb^3: tile times scale by m x n x k / nb3
    double *busy;      // per domain
    nt_sim_task_t *tasks;
    double *fin;       // per task: its finish with unlimited threads (critical path)
    int64_t tcap;
    khandle *h;
    int64_t nh, hcap;
    int64_t *hid, hidcap; // the handles of the task being submitted
    const nt_matrix_t *mat[KMODEL_MATS]; // matrices seen, their tiles from handle base[k] on
    int64_t base[KMODEL_MATS];
    int nmat;
    nt_kernel_pred_t r;
} kmodel;

static bool kgrow(void **a, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    int64_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *b = realloc(*a, (size_t)c * elem);
    if (!b)
        return false;
    *a = b;
    *cap = c;
    return true;
}

static bool grow_handles(kmodel *m, int64_t more)
{
    return kgrow((void **)&m->h, &m->hcap, m->nh + more, sizeof *m->h);
}

static nt_status kdata(nt_graph_sink_t *s, int domain, int64_t bytes,
                       const nt_task_access_t *part_of, int64_t *handle)
{
    (void)bytes;
    kmodel *m = s->ctx;
    if (!grow_handles(m, 1))
        return nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
    m->h[m->nh] = (khandle){.domain = domain, .last = -1};
    if (part_of)
        m->h[m->nh] = (khandle){.domain = domain, .last = -1, .M = part_of->matrix,
                                .i = part_of->row, .j = part_of->col};
    *handle = m->nh++;
    return NT_OK;
}

// The handle of an access; a matrix's tiles become handles at its first access.
static int64_t khandle_of(kmodel *m, const nt_task_access_t *a, nt_status *st)
{
    const nt_matrix_t *M = a->matrix;
    if (!M)
        return a->handle;
    for (int k = 0; k < m->nmat; k++)
        if (m->mat[k] == M)
            return m->base[k] + a->row * M->nt + a->col;
    if (m->nmat == KMODEL_MATS || !grow_handles(m, M->mt * M->nt)) {
        *st = nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
        return -1;
    }
    m->mat[m->nmat] = M;
    m->base[m->nmat++] = m->nh;
    for (int64_t i = 0; i < M->mt; i++)
        for (int64_t j = 0; j < M->nt; j++)
            m->h[m->nh++] = (khandle){.domain = nt_matrix_tile_domain(M, i, j), .last = -1,
                                      .M = M, .i = i, .j = j};
    return m->base[m->nmat - 1] + a->row * M->nt + a->col;
}

// Surcharge of domain d reading handle h where it lives (0 for an unpriced data handle).
static double remote(kmodel *m, int d, const khandle *h)
{
    if (!h->M)
        return 0;
    int o = nt_matrix_tile_domain(h->M, h->i, h->j);
    if (o == d)
        return 0;
    int D = m->p->ndomains;
    double b = (double)(nt_matrix_tile_rows(h->M, h->i) * nt_matrix_tile_cols(h->M, h->j)) * 8.0;
    m->r.remote_reads++;
    double s = b / 1e9 * (1.0 / m->p->read_gbs[o * D + d] - 1.0 / m->p->read_gbs[d * D + d]);
    s = s > 0 ? s : 0;
    m->r.remote_seconds += s;
    return s;
}

// Seconds of task t: per call, its tile kernel scaled by its sizes plus the remote reads of
// the accesses it stands for. hid: the handles of t's accesses.
static double ktime(kmodel *m, const nt_graph_task_t *t, const int64_t *hid)
{
    double sum = 0;
    for (int c = 0, a = 0; c < t->ncalls; c++) {
        const nt_tk_call_t *k = &t->call[c];
        double x = m->p->tile_seconds[k->kernel][t->domain] *
                   ((double)k->m * (double)k->n * (double)k->k / m->nb3);
        for (int e = 0; e < k->nacc && a < t->naccess; e++, a++)
            if (t->access[a].mode & NT_TASK_READ)
                x += remote(m, t->domain, &m->h[hid[a]]);
        sum += x;
    }
    return sum;
}

static void add_pred(nt_sim_task_t *x, int64_t w, int64_t self, bool *over)
{
    if (w < 0 || w == self)
        return;
    for (int y = 0; y < x->npred; y++)
        if (x->pred[y] == w)
            return;
    if (x->npred == NT_SIM_MAXPRED)
        *over = true;
    else
        x->pred[x->npred++] = w;
}

// The predecessors of task id (the last writers of its handles, and for a write the readers
// since), then id published as writer or reader.
static nt_status kdeps(kmodel *m, int64_t id, const nt_graph_task_t *t, const int64_t *hid)
{
    nt_sim_task_t *x = &m->tasks[id];
    bool over = false;
    for (int a = 0; a < t->naccess; a++) {
        khandle *h = &m->h[hid[a]];
        add_pred(x, h->last, id, &over);
        if (!(t->access[a].mode & NT_TASK_WRITE))
            continue;
        over |= h->nrd > NT_SIM_MAXPRED;
        for (int r = 0; r < h->nrd && r < NT_SIM_MAXPRED; r++)
            add_pred(x, h->rd[r], id, &over);
    }
    if (over)
        return nt_fail(NT_ENOTSUP, "nt_model_kernel: task %lld has more than %d predecessors",
                       (long long)id, NT_SIM_MAXPRED);
    for (int a = 0; a < t->naccess; a++) {
        khandle *h = &m->h[hid[a]];
        if (t->access[a].mode & NT_TASK_WRITE) {
            h->last = id;
            h->nrd = 0;
        } else if (h->nrd <= NT_SIM_MAXPRED) { // counting stops past the limit
            if (h->nrd < NT_SIM_MAXPRED)
                h->rd[h->nrd] = id;
            h->nrd++;
        }
    }
    return NT_OK;
}

static nt_status ksubmit(nt_graph_sink_t *s, const nt_graph_task_t *t)
{
    kmodel *m = s->ctx;
    int64_t id = m->r.tasks, c1 = m->tcap, *hid;
    nt_status st = NT_OK;
    if (!kgrow((void **)&m->tasks, &c1, id + 1, sizeof *m->tasks) ||
        !kgrow((void **)&m->fin, &m->tcap, id + 1, sizeof *m->fin) ||
        !kgrow((void **)&m->hid, &m->hidcap, t->naccess, sizeof *m->hid))
        return nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
    hid = m->hid;
    for (int a = 0; a < t->naccess; a++)
        if ((hid[a] = khandle_of(m, &t->access[a], &st)) < 0)
            return st;
    nt_sim_task_t *x = &m->tasks[id];
    *x = (nt_sim_task_t){.domain = t->domain, .prio = t->prio,
                         .kernel = t->ncalls ? t->call[0].kernel : -1};
    x->seconds = ktime(m, t, hid) + m->p->task_seconds;
    if ((st = kdeps(m, id, t, hid)) != NT_OK)
        return st;
    double start = 0;
    for (int y = 0; y < x->npred; y++)
        start = dmax(start, m->fin[x->pred[y]]);
    m->fin[id] = start + x->seconds;
    m->busy[t->domain] += x->seconds;
    m->r.path_seconds = dmax(m->r.path_seconds, m->fin[id]);
    m->r.tasks++;
    return NT_OK;
}

// Tasks of the graph of `kernel` on A (an upper bound for QR's, which has fewer when mt != nt).
static double ntasks(nt_advise_kernel kernel, const nt_matrix_t *A)
{
    double mt = (double)A->mt, nt = (double)A->nt;
    return kernel == NT_ADVISE_GEMM ? mt * nt : (mt < nt ? mt : nt) * mt * nt + 1;
}

static nt_status kcheck(const nt_profile_t *p, nt_advise_kernel kernel, const nt_matrix_t *A)
{
    nt_status st = nt_profile_check(p, NULL);
    if (st)
        return st;
    if (A->ndomains > p->ndomains)
        return nt_fail(NT_EINVAL, "nt_model_kernel: the matrix has %d domains, the profile %d",
                       A->ndomains, p->ndomains);
    if (kernel != NT_ADVISE_GEMM && kernel != NT_ADVISE_QR)
        return nt_fail(NT_EINVAL, "nt_model_kernel: unknown kernel %d", (int)kernel);
    if (kernel == NT_ADVISE_GEMM && A->m != A->n)
        return nt_fail(NT_EINVAL, "nt_model_kernel: GEMM needs a square matrix (m = %lld, "
                                  "n = %lld)", (long long)A->m, (long long)A->n);
    if (A->mb != A->nb)
        return nt_fail(NT_EINVAL, "nt_model_kernel: square tiles needed (mb = %lld, nb = %lld)",
                       (long long)A->mb, (long long)A->nb);
    if (ntasks(kernel, A) > (double)((int64_t)1 << 40) / (double)sizeof(nt_sim_task_t))
        return nt_fail(NT_ERANGE, "nt_model_kernel: %lld x %lld tiles make too many tasks",
                       (long long)A->mt, (long long)A->nt);
    return NT_OK;
}

static void kfree(kmodel *m)
{
    free(m->busy);
    free(m->tasks);
    free(m->fin);
    free(m->h);
    free(m->hid);
}

// Run the kernel's graph builder into the model m: GEMM's operands A, B and C are three
// matrices placed like A (the copies differ only in identity; no memory is read).
static nt_status kbuild(kmodel *m, nt_advise_kernel kernel, const nt_matrix_t *A)
{
    nt_status st = kcheck(m->p, kernel, A);
    if (st)
        return st;
    m->nb3 = (double)m->p->nb * (double)m->p->nb * (double)m->p->nb;
    if (!(m->busy = calloc((size_t)m->p->ndomains, sizeof(double))))
        return nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
    nt_graph_sink_t sink = {kdata, ksubmit, m};
    nt_matrix_t a = *A, b = *A, c = *A;
    if (kernel == NT_ADVISE_GEMM)
        return nt_gemm_build(&sink, 1.0, 0.0, &a, &b, &c);
    return nt_qr_factor_build(&sink, &a, m->p->ib < A->nb ? m->p->ib : A->nb);
}

nt_status nt_model_graph(const nt_profile_t *p, nt_advise_kernel kernel, const nt_matrix_t *A,
                         nt_sim_task_t **tasks, int64_t *n)
{
    if (!p || !A || !tasks || !n)
        return nt_fail(NT_EINVAL, "nt_model_graph: NULL argument");
    kmodel m = {.p = p};
    nt_status st = kbuild(&m, kernel, A);
    if (st == NT_OK) {
        *tasks = m.tasks;
        *n = m.r.tasks;
        m.tasks = NULL;
    }
    kfree(&m);
    return st;
}

nt_status nt_model_kernel(const nt_profile_t *p, nt_advise_kernel kernel, const nt_matrix_t *A,
                          nt_kernel_pred_t *out)
{
    if (!p || !A || !out)
        return nt_fail(NT_EINVAL, "nt_model_kernel: NULL argument");
    kmodel m = {.p = p};
    nt_status st = kbuild(&m, kernel, A);
    if (st == NT_OK) {
        for (int d = 0; d < p->ndomains; d++)
            m.r.work_seconds = dmax(m.r.work_seconds, m.busy[d] / p->threads_per_domain);
        st = nt_model_schedule(m.tasks, m.r.tasks, p->ndomains, p->threads_per_domain,
                               &m.r.seconds);
    }
    if (st == NT_OK) {
        m.r.seconds += p->kernel_run_seconds;
        *out = m.r;
    }
    kfree(&m);
    return st;
}

// ---- stencil ------------------------------------------------------------------------------------

nt_status nt_model_stencil(const nt_profile_t *p, const nt_dist1d_t *map, int64_t work,
                           int64_t iters, nt_stencil_pred_t *out)
{
    if (!p || !map || !out)
        return nt_fail(NT_EINVAL, "nt_model_stencil: NULL argument");
    nt_status st = nt_profile_check(p, NULL);
    if (st)
        return st;
    if (work < 0 || iters < 0)
        return nt_fail(NT_EINVAL, "nt_model_stencil: %s < 0", work < 0 ? "work" : "iters");
    if (map->ndomains > p->ndomains || map->n < 1)
        return nt_fail(NT_EINVAL, "nt_model_stencil: the map has %d domains, the profile %d",
                       map->ndomains, p->ndomains);
    int D = p->ndomains;
    double *busy = calloc((size_t)D, sizeof *busy);
    int64_t *items = calloc((size_t)D, sizeof *items);
    if (!busy || !items) {
        free(busy);
        free(items);
        return nt_fail(NT_ENOMEM, "nt_model_stencil: out of memory");
    }
    nt_stencil_pred_t r = {0};
    double upd = p->stencil_item_seconds + (double)work * p->stencil_round_seconds;
    int64_t n = map->n;
    for (int64_t x = 0; x < n; x++) {
        int d = map->owner[x];
        items[d]++;
        busy[d] += upd / p->threads_per_domain;
        // Item x is read by the domains of its neighbours; once per other domain.
        int l = map->owner[(x + n - 1) % n], rt = map->owner[(x + 1) % n];
        for (int k = 0; k < 2 && n > 1; k++) {
            int e = k ? rt : l;
            if (e == d || (k && e == l))
                continue;
            double s = 8e-9 * (1.0 / p->read_gbs[d * D + e] - 1.0 / p->read_gbs[e * D + e]);
            busy[e] += s > 0 ? s : 0;
            r.halo_items++;
        }
    }
    for (int d = 0; d < D; d++) {
        r.iter_seconds = dmax(r.iter_seconds, busy[d]);
        r.max_items = items[d] > r.max_items ? items[d] : r.max_items;
    }
    r.iter_seconds += p->task_seconds;
    r.seconds = (double)iters * r.iter_seconds + p->kernel_run_seconds;
    free(busy);
    free(items);
    *out = r;
    return NT_OK;
}
