// The time model of numatile/advise.h: a redistribution priced from its bytes per domain pair,
// a kernel from its task graph with per-domain tile-kernel times. The arithmetic is spelled out
// in the header; the tests check it against hand-computed cases.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_matrix.h"
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

// ---- kernels ------------------------------------------------------------------------------------

typedef struct kmodel {
    const nt_profile_t *p;
    const nt_matrix_t *A;
    double nb3;     // the profile's nb^3: tile times scale by rows x cols x inner / nb3
    double *busy;   // per domain
    double *ready;  // per tile: when its last writer finishes (critical path)
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

// A task of duration t on domain d that may start at `start`: returns its finish.
static double task(kmodel *m, int d, double start, double t)
{
    t += m->p->task_seconds;
    m->busy[d] += t;
    m->r.tasks++;
    return start + t;
}

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
            m->r.path_seconds = dmax(m->r.path_seconds, task(m, d, 0, t));
        }
}

// The flat-tree tile QR of lib/qr.c: per step k, GEQRT(k,k); UNMQR(k,j) reading (k,k);
// TSQRT(i,k) chained on R(k); TSMQR(i,j) reading (i,k), updating (k,j) and (i,j). Each on the
// domain of the tile it writes (TSMQR: the lower one). ready[] holds the finish of each tile's
// last writer; rk the finish of the last writer of R(k).
static void model_qr(kmodel *m)
{
    const nt_matrix_t *A = m->A;
    int64_t NT = A->nt, kt = A->mt < A->nt ? A->mt : A->nt;
    double *rd = m->ready;
    for (int64_t k = 0; k < kt; k++) {
        int64_t rk_rows = nt_matrix_tile_rows(A, k), ck = nt_matrix_tile_cols(A, k);
        int dkk = nt_matrix_tile_domain(A, k, k);
        double vk = task(m, dkk, rd[k * NT + k], ktime(m, NT_TK_GEQRT, dkk, rk_rows, ck, ck));
        rd[k * NT + k] = vk;
        double rk = vk;
        for (int64_t j = k + 1; j < NT; j++) {
            int d = nt_matrix_tile_domain(A, k, j);
            double t = ktime(m, NT_TK_UNMQR, d, rk_rows, nt_matrix_tile_cols(A, j), ck) +
                       remote(m, d, k, k);
            rd[k * NT + j] = task(m, d, dmax(vk, rd[k * NT + j]), t);
        }
        for (int64_t i = k + 1; i < A->mt; i++) {
            int64_t ri = nt_matrix_tile_rows(A, i);
            int dik = nt_matrix_tile_domain(A, i, k);
            double t = ktime(m, NT_TK_TSQRT, dik, ri, ck, ck) + remote(m, dik, k, k);
            rk = task(m, dik, dmax(rk, rd[i * NT + k]), t);
            rd[i * NT + k] = rk;
            for (int64_t j = k + 1; j < NT; j++) {
                int d = nt_matrix_tile_domain(A, i, j);
                double u = ktime(m, NT_TK_TSMQR, d, ri, nt_matrix_tile_cols(A, j), ck) +
                           remote(m, d, i, k) + remote(m, d, k, j);
                double f = task(m, d, dmax(rk, dmax(rd[k * NT + j], rd[i * NT + j])), u);
                rd[k * NT + j] = rd[i * NT + j] = f;
            }
        }
    }
    for (int64_t x = 0; x < A->mt * NT; x++)
        m->r.path_seconds = dmax(m->r.path_seconds, rd[x]);
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
    kmodel m = {.p = p, .A = A, .nb3 = (double)p->nb * (double)p->nb * (double)p->nb,
                .busy = calloc((size_t)p->ndomains, sizeof(double)),
                .ready = calloc((size_t)(A->mt * A->nt), sizeof(double))};
    if (!m.busy || !m.ready) {
        free(m.busy);
        free(m.ready);
        return nt_fail(NT_ENOMEM, "nt_model_kernel: out of memory");
    }
    if (kernel == NT_ADVISE_GEMM)
        model_gemm(&m);
    else
        model_qr(&m);
    for (int d = 0; d < p->ndomains; d++)
        m.r.work_seconds = dmax(m.r.work_seconds, m.busy[d] / p->threads_per_domain);
    m.r.seconds = dmax(m.r.work_seconds, m.r.path_seconds) + p->kernel_run_seconds;
    free(m.busy);
    free(m.ready);
    *out = m.r;
    return NT_OK;
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
