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

// What nt_plan_execute() adopts instead of copying (lib/execute.c, adoptable()): a segment that
// alone makes its target tile, is a whole tile of at least a page, and keeps its domain.
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

// Ready queue of one domain: a binary max-heap on (prio, -id), as lib/kernels/taskgraph.c's.
typedef struct simq {
    int64_t n, *heap;
} simq;

static bool sim_higher(const nt_sim_task_t *t, int64_t a, int64_t b)
{
    return t[a].prio != t[b].prio ? t[a].prio > t[b].prio : a < b;
}

static void simq_push(simq *q, const nt_sim_task_t *t, int64_t x)
{
    int64_t i = q->n++;
    while (i > 0 && sim_higher(t, x, q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = x;
}

static int64_t simq_pop(simq *q, const nt_sim_task_t *t)
{
    int64_t top = q->heap[0], last = q->heap[--q->n], i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, best = i, bt = last;
        if (l < q->n && sim_higher(t, q->heap[l], bt))
            bt = q->heap[best = l];
        if (l + 1 < q->n && sim_higher(t, q->heap[l + 1], bt))
            best = l + 1;
        if (best == i)
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    if (q->n > 0)
        q->heap[i] = last;
    return top;
}

// Running tasks: a min-heap on (finish, id).
typedef struct simev {
    double t;
    int64_t id;
} simev;

static bool ev_before(simev a, simev b)
{
    return a.t != b.t ? a.t < b.t : a.id < b.id;
}

static void ev_push(simev *h, int64_t *n, simev e)
{
    int64_t i = (*n)++;
    while (i > 0 && ev_before(e, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static simev ev_pop(simev *h, int64_t *n)
{
    simev top = h[0], last = h[--*n];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, best = i;
        simev bt = last;
        if (l < *n && ev_before(h[l], bt))
            bt = h[best = l];
        if (l + 1 < *n && ev_before(h[l + 1], bt))
            best = l + 1;
        if (best == i)
            break;
        h[i] = h[best];
        i = best;
    }
    if (*n > 0)
        h[i] = last;
    return top;
}

nt_status nt_model_schedule(const nt_sim_task_t *task, int64_t n, int ndomains, int threads,
                            double *makespan)
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
    size_t N = (size_t)n + 1, D = (size_t)ndomains;
    int64_t *soff = calloc(N + 1, sizeof *soff), *succ = calloc(N * NT_SIM_MAXPRED, sizeof *succ);
    int64_t *remain = calloc(N, sizeof *remain), *heaps = calloc(N, sizeof *heaps);
    int64_t *size = calloc(D + 1, sizeof *size);
    simq *q = calloc(D, sizeof *q);
    int *idle = calloc(D, sizeof *idle);
    simev *ev = calloc(N, sizeof *ev);
    nt_status st = NT_OK;
    if (!soff || !succ || !remain || !heaps || !size || !q || !idle || !ev) {
        st = nt_fail(NT_ENOMEM, "nt_model_schedule: out of memory");
        goto out;
    }
    // Successors in CSR form; each domain's queue gets room for all its tasks.
    for (int64_t x = 0; x < n; x++) {
        remain[x] = task[x].npred;
        size[task[x].domain + 1]++;
        for (int k = 0; k < task[x].npred; k++)
            soff[task[x].pred[k] + 2]++;
    }
    for (size_t x = 2; x <= N; x++)
        soff[x] += soff[x - 1];
    for (int64_t x = 0; x < n; x++)
        for (int k = 0; k < task[x].npred; k++)
            succ[soff[task[x].pred[k] + 1]++] = x;
    for (size_t d = 0; d < D; d++) {
        size[d + 1] += size[d];
        q[d].heap = heaps + size[d];
        idle[d] = threads;
    }
    for (int64_t x = 0; x < n; x++)
        if (!remain[x])
            simq_push(&q[task[x].domain], task, x);
    // Every idle thread takes its domain's best ready task; then time jumps to the next finish,
    // and every task finishing then releases its successors before anyone picks again.
    double now = 0;
    int64_t nev = 0, done = 0;
    for (;;) {
        for (size_t d = 0; d < D; d++)
            for (; idle[d] > 0 && q[d].n > 0; idle[d]--) {
                int64_t x = simq_pop(&q[d], task);
                ev_push(ev, &nev, (simev){now + task[x].seconds, x});
            }
        if (nev == 0)
            break;
        now = ev[0].t;
        while (nev > 0 && ev[0].t == now) {
            int64_t x = ev_pop(ev, &nev).id;
            idle[task[x].domain]++;
            done++;
            for (int64_t e = soff[x]; e < soff[x + 1]; e++)
                if (--remain[succ[e]] == 0)
                    simq_push(&q[task[succ[e]].domain], task, succ[e]);
        }
    }
    if (done != n)
        st = nt_fail(NT_EINVAL, "nt_model_schedule: %lld of %lld tasks never became ready",
                     (long long)(n - done), (long long)n);
    else
        *makespan = now;
out:
    free(soff);
    free(succ);
    free(remain);
    free(heaps);
    free(size);
    free(q);
    free(idle);
    free(ev);
    return st;
}

// ---- kernels ------------------------------------------------------------------------------------

typedef struct kmodel {
    const nt_profile_t *p;
    const nt_matrix_t *A;
    double nb3;           // the profile's nb^3: tile times scale by rows x cols x inner / nb3
    double *busy;         // per domain
    nt_sim_task_t *tasks; // the graph, in submission order
    double *fin;          // per task: its finish with unlimited threads (critical path)
    int64_t *last;        // per handle: the task that last wrote it, or -1
    nt_kernel_pred_t r;
} kmodel;

// Surcharge of domain d reading tile (i,j) where it lives.
static double remote(kmodel *m, int d, int64_t i, int64_t j)
{
    const nt_matrix_t *A = m->A;
    int o = nt_matrix_tile_domain(A, i, j);
    if (o == d)
        return 0;
    int D = m->p->ndomains;
    double b = (double)(nt_matrix_tile_rows(A, i) * nt_matrix_tile_cols(A, j)) * 8.0;
    m->r.remote_reads++;
    double s = b / 1e9 * (1.0 / m->p->read_gbs[o * D + d] - 1.0 / m->p->read_gbs[d * D + d]);
    s = s > 0 ? s : 0;
    m->r.remote_seconds += s;
    return s;
}

static double ktime(const kmodel *m, int k, int d, int64_t rows, int64_t cols, int64_t inner)
{
    return m->p->tile_seconds[k][d] * ((double)rows * (double)cols * (double)inner / m->nb3);
}

// Submit a task of duration t on domain d with priority prio, after the last writers of the
// handles h[0..nh) (up to 3); it then is the last writer of the first nw of them.
static void task(kmodel *m, int d, int prio, double t, int nh, int nw, const int64_t *h)
{
    int64_t id = m->r.tasks++;
    nt_sim_task_t *x = &m->tasks[id];
    *x = (nt_sim_task_t){.domain = d, .prio = prio, .seconds = t + m->p->task_seconds};
    double start = 0;
    for (int k = 0; k < nh; k++) {
        int64_t w = m->last[h[k]];
        bool seen = w < 0;
        for (int y = 0; y < x->npred && !seen; y++)
            seen = x->pred[y] == w;
        if (!seen) {
            x->pred[x->npred++] = w;
            start = dmax(start, m->fin[w]);
        }
    }
    for (int k = 0; k < nw; k++)
        m->last[h[k]] = id;
    m->fin[id] = start + x->seconds;
    m->busy[d] += x->seconds;
    m->r.path_seconds = dmax(m->r.path_seconds, m->fin[id]);
}

// One task per C tile with its whole k loop, all independent, submitted row by row (lib/gemm.c).
static void model_gemm(kmodel *m)
{
    const nt_matrix_t *A = m->A;
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            int d = nt_matrix_tile_domain(A, i, j);
            double t = 0;
            for (int64_t l = 0; l < A->nt; l++)
                t += ktime(m, NT_TK_GEMM, d, nt_matrix_tile_rows(A, i), nt_matrix_tile_cols(A, j),
                           nt_matrix_tile_cols(A, l)) +
                     remote(m, d, i, l) + remote(m, d, l, j);
            task(m, d, 0, t, 0, 0, NULL);
        }
}

// Priorities of lib/qr.c: the panel first, then the tasks of the next column, then the rest.
enum { P_PANEL = 3, P_NEXT = 2, P_REST = 0 };

// The flat-tree tile QR of lib/qr.c, in its submission order: per step k, GEQRT(k,k); UNMQR(k,j)
// reading (k,k); TSQRT(i,k) chained on R(k); TSMQR(i,j) reading (i,k), updating (k,j) and (i,j).
// Each on the domain of the tile it writes (TSMQR: the lower one). Handles: tile (i,j) is
// i*nt+j, R(k) is mt*nt+k (kept apart from tile (k,k), as lib/qr.c does). Only read-after-write
// orders this graph: nothing read in step k is written later.
static void model_qr(kmodel *m)
{
    const nt_matrix_t *A = m->A;
    int64_t NT = A->nt, kt = A->mt < A->nt ? A->mt : A->nt, R0 = A->mt * NT;
    for (int64_t k = 0; k < kt; k++) {
        int64_t rk_rows = nt_matrix_tile_rows(A, k), ck = nt_matrix_tile_cols(A, k);
        int dkk = nt_matrix_tile_domain(A, k, k);
        task(m, dkk, P_PANEL, ktime(m, NT_TK_GEQRT, dkk, rk_rows, ck, ck), 2, 2,
             (int64_t[]){k * NT + k, R0 + k});
        for (int64_t j = k + 1; j < NT; j++) {
            int d = nt_matrix_tile_domain(A, k, j);
            double t = ktime(m, NT_TK_UNMQR, d, rk_rows, nt_matrix_tile_cols(A, j), ck) +
                       remote(m, d, k, k);
            task(m, d, j == k + 1 ? P_NEXT : P_REST, t, 2, 1, (int64_t[]){k * NT + j, k * NT + k});
        }
        for (int64_t i = k + 1; i < A->mt; i++) {
            int64_t ri = nt_matrix_tile_rows(A, i);
            int dik = nt_matrix_tile_domain(A, i, k);
            double t = ktime(m, NT_TK_TSQRT, dik, ri, ck, ck) + remote(m, dik, k, k);
            task(m, dik, P_PANEL, t, 2, 2, (int64_t[]){i * NT + k, R0 + k});
            for (int64_t j = k + 1; j < NT; j++) {
                int d = nt_matrix_tile_domain(A, i, j);
                double u = ktime(m, NT_TK_TSMQR, d, ri, nt_matrix_tile_cols(A, j), ck) +
                           remote(m, d, i, k) + remote(m, d, k, j);
                task(m, d, j == k + 1 ? P_NEXT : P_REST, u, 3, 2,
                     (int64_t[]){k * NT + j, i * NT + j, i * NT + k});
            }
        }
    }
}

// Tasks of the graph of `kernel` on A (an upper bound for QR's, which has fewer when mt != nt).
static double ntasks(nt_advise_kernel kernel, const nt_matrix_t *A)
{
    double mt = (double)A->mt, nt = (double)A->nt;
    return kernel == NT_ADVISE_GEMM ? mt * nt : (mt < nt ? mt : nt) * mt * nt + 1;
}

nt_status nt_model_kernel(const nt_profile_t *p, nt_advise_kernel kernel, const nt_matrix_t *A,
                          nt_kernel_pred_t *out)
{
    if (!p || !A || !out)
        return nt_fail(NT_EINVAL, "nt_model_kernel: NULL argument");
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
    int64_t cap = (int64_t)ntasks(kernel, A), handles = A->mt * A->nt + A->nt;
    kmodel m = {.p = p, .A = A, .nb3 = (double)p->nb * (double)p->nb * (double)p->nb,
                .busy = calloc((size_t)p->ndomains, sizeof(double)),
                .tasks = malloc((size_t)cap * sizeof(nt_sim_task_t)),
                .fin = malloc((size_t)cap * sizeof(double)),
                .last = malloc((size_t)handles * sizeof(int64_t))};
    if (!m.busy || !m.tasks || !m.fin || !m.last) {
        st = nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
        goto out;
    }
    for (int64_t h = 0; h < handles; h++)
        m.last[h] = -1;
    if (kernel == NT_ADVISE_GEMM)
        model_gemm(&m);
    else
        model_qr(&m);
    for (int d = 0; d < p->ndomains; d++)
        m.r.work_seconds = dmax(m.r.work_seconds, m.busy[d] / p->threads_per_domain);
    st = nt_model_schedule(m.tasks, m.r.tasks, p->ndomains, p->threads_per_domain,
                           &m.r.seconds);
    if (st == NT_OK) {
        m.r.seconds += p->kernel_run_seconds;
        *out = m.r;
    }
out:
    free(m.busy);
    free(m.tasks);
    free(m.fin);
    free(m.last);
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
