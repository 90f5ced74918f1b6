// Tiled Householder QR (PLASMA's tile algorithm) owner-computes: GEQRT on the diagonal tile,
// UNMQR on the tiles to its right, TSQRT on the tiles below, TSMQR on the trailing pairs; each
// task runs on the domain of the tile it writes (TSMQR: the lower tile of its pair). The T
// factors of every tile live on that tile's domain. Q is applied (or formed) by replaying the
// reflectors on another matrix with the same row tiling; least squares adds a tiled back
// substitution with R. The graphs use the public task API (numatile/task.h) only: the T tiles
// and the R part of each diagonal tile are data handles of the graphs. The element type is A's
// (s, d, c, z; untyped 8-byte = double), kept in the handle: T tiles and workspaces are sized
// by it, and the matrices Q is applied to must have it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_kern_common.h"
#include "lib/kernels/tile/nt_kernels.h"
#include "nt_graph_sink.h"
#include "numatile/mem.h"
#include "numatile/task.h"
#include "numa/nt_numa.h"

struct nt_qr {
    nt_matrix_t *A;
    int64_t ib;       // inner block (rows of every T tile, its leading dimension)
    int64_t kt;       // panel steps: min(mt, nt)
    nt_dtype t;       // element type of A, and of every matrix Q is applied to
    void **T;         // mt * nt (row-major): T of tile (i,k), i >= k, k < kt; NULL elsewhere
    int ndomains;
    char **slab;      // per domain: the T tiles of that domain
    size_t *slab_bytes;
};

enum { K_GEQRT, K_UNMQR, K_TSQRT, K_TSMQR, K_QUNMQR, K_QTSMQR, K_INIT, K_TRSM, K_LSGEMM };

// Priorities: the panel first, then the updates of the next panel column (lookahead).
enum { P_PANEL = 3, P_NEXT = 2, P_REST = 0 };

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

// Inner block of step k's GEQRT (and the UNMQRs replaying it), and of its TSQRTs / TSMQRs.
static int64_t ib_geqrt(const nt_qr_t *qr, int64_t k)
{
    return min64(qr->ib, min64(nt_matrix_tile_rows(qr->A, k), nt_matrix_tile_cols(qr->A, k)));
}

static int64_t ib_ts(const nt_qr_t *qr, int64_t k)
{
    return min64(qr->ib, nt_matrix_tile_cols(qr->A, k));
}

typedef struct qr_ctx {
    const nt_qr_t *qr;
    nt_matrix_t *B; // apply / form / solve target
    bool trans;
    int64_t lwork;
} qr_ctx;

#define TILE(M, i, j) nt_matrix_tile((M), (i), (j)), nt_matrix_tile_ld((M), (i), (j))

// The argument of a task: its kernel and tile indices.
typedef struct qr_arg {
    const qr_ctx *c;
    int kind;
    int64_t i, j, k;
} qr_arg;

static nt_status qr_task(const nt_task_info_t *info, void *arg)
{
    const qr_arg *t = arg;
    const qr_ctx *c = t->c;
    const nt_qr_t *qr = c->qr;
    nt_matrix_t *A = qr->A, *B = c->B;
    int64_t ib = qr->ib, lw = c->lwork;
    int64_t i = t->i, j = t->j, k = t->k;
    void *Tk, *work = info->workspace;
    nt_dtype ty = qr->t;
    switch (t->kind) {
    case K_GEQRT:
        return nt_kern_geqrt_typed(ty, nt_matrix_tile_rows(A, k), nt_matrix_tile_cols(A, k),
                                   ib_geqrt(qr, k), TILE(A, k, k), qr->T[k * A->nt + k], ib,
                                   work, lw);
    case K_UNMQR:
        return nt_kern_unmqr_typed(ty, true, nt_matrix_tile_rows(A, k),
                                   nt_matrix_tile_cols(A, j),
                                   min64(nt_matrix_tile_rows(A, k), nt_matrix_tile_cols(A, k)),
                                   ib_geqrt(qr, k), TILE(A, k, k), qr->T[k * A->nt + k], ib,
                                   TILE(A, k, j), work, lw);
    case K_TSQRT:
        return nt_kern_tsqrt_typed(ty, nt_matrix_tile_rows(A, i), nt_matrix_tile_cols(A, k),
                                   ib_ts(qr, k), TILE(A, k, k), TILE(A, i, k),
                                   qr->T[i * A->nt + k], ib, work, lw);
    case K_TSMQR:
        return nt_kern_tsmqr_typed(ty, true, nt_matrix_tile_rows(A, i),
                                   nt_matrix_tile_cols(A, j), nt_matrix_tile_cols(A, k),
                                   ib_ts(qr, k), TILE(A, i, k), qr->T[i * A->nt + k], ib,
                                   TILE(A, k, j), TILE(A, i, j), work, lw);
    case K_QUNMQR:
        return nt_kern_unmqr_typed(ty, c->trans, nt_matrix_tile_rows(A, k),
                                   nt_matrix_tile_cols(B, j),
                                   min64(nt_matrix_tile_rows(A, k), nt_matrix_tile_cols(A, k)),
                                   ib_geqrt(qr, k), TILE(A, k, k), qr->T[k * A->nt + k], ib,
                                   TILE(B, k, j), work, lw);
    case K_QTSMQR:
        Tk = qr->T[i * A->nt + k];
        return nt_kern_tsmqr_typed(ty, c->trans, nt_matrix_tile_rows(A, i),
                                   nt_matrix_tile_cols(B, j), nt_matrix_tile_cols(A, k),
                                   ib_ts(qr, k), TILE(A, i, k), Tk, ib, TILE(B, k, j),
                                   TILE(B, i, j), work, lw);
    case K_INIT:
        // Tile (i,j) of [I; 0]: ones where the global row equals the global column.
        nt_kern_set_identity(ty, nt_matrix_tile_rows(B, i), nt_matrix_tile_cols(B, j),
                             j * B->nb - i * B->mb, TILE(B, i, j));
        return NT_OK;
    case K_TRSM:
        return nt_kern_trsm_upper_typed(ty, nt_matrix_tile_cols(A, k), nt_matrix_tile_cols(B, j),
                                        TILE(A, k, k), TILE(B, k, j));
    case K_LSGEMM:
        return nt_kern_gemm_typed(ty, 1, false, false, nt_matrix_tile_rows(B, i),
                                  nt_matrix_tile_cols(B, j), nt_matrix_tile_cols(A, k), -1.0,
                                  TILE(A, i, k), TILE(B, k, j), 1.0, TILE(B, i, j));
    default:
        return nt_fail(NT_EINVAL, "qr: unknown task kind %d", t->kind);
    }
}

static void qr_free_t(nt_qr_t *qr)
{
    if (qr->slab)
        for (int d = 0; d < qr->ndomains; d++)
            nt_mem_free(qr->slab[d], qr->slab_bytes[d]);
    free(qr->slab);
    free(qr->slab_bytes);
    free(qr->T);
}

void nt_qr_destroy(nt_qr_t *qr)
{
    if (!qr)
        return;
    qr_free_t(qr);
    free(qr);
}

int64_t nt_qr_ib(const nt_qr_t *qr)
{
    return qr ? qr->ib : 0;
}

// T tiles (ib x nb elements each), one slab per domain holding the tiles of that domain.
static nt_status qr_alloc_t(nt_qr_t *qr)
{
    nt_matrix_t *A = qr->A;
    int D = qr->ndomains;
    size_t tile_bytes, ntiles = (size_t)(A->mt * A->nt);
    if (!nt_mul_size((size_t)qr->ib, (size_t)A->nb, &tile_bytes) ||
        !nt_mul_size(tile_bytes, A->elem_size, &tile_bytes))
        return nt_fail(NT_ERANGE, "qr: T tile size overflows");
    qr->T = calloc(ntiles, sizeof *qr->T);
    qr->slab = calloc((size_t)D, sizeof *qr->slab);
    qr->slab_bytes = calloc((size_t)D, sizeof *qr->slab_bytes);
    if (!qr->T || !qr->slab || !qr->slab_bytes)
        return nt_fail(NT_ENOMEM, "qr: out of memory");
    for (int64_t k = 0; k < qr->kt; k++)
        for (int64_t i = k; i < A->mt; i++) {
            size_t *b = &qr->slab_bytes[nt_matrix_tile_domain(A, i, k)];
            if (!nt_add_size(*b, tile_bytes, b))
                return nt_fail(NT_ERANGE, "qr: T storage overflows");
        }
    nt_status room = nt_mem_room_sizes(A->topo, qr->slab_bytes, D, "qr: T tiles");
    if (room != NT_OK) {
        memset(qr->slab_bytes, 0, (size_t)D * sizeof *qr->slab_bytes); // no slab exists
        return room;
    }
    for (int d = 0; d < D; d++)
        if (qr->slab_bytes[d]) {
            void *p;
            nt_status st = nt_mem_alloc(A->topo, d, qr->slab_bytes[d], 0, &p);
            if (st) {
                // Keep the byte counts of the slabs that exist only.
                for (int e = d; e < D; e++)
                    qr->slab_bytes[e] = 0;
                return st;
            }
            qr->slab[d] = p;
        }
    size_t *used = calloc((size_t)D, sizeof *used);
    if (!used)
        return nt_fail(NT_ENOMEM, "qr: out of memory");
    for (int64_t k = 0; k < qr->kt; k++)
        for (int64_t i = k; i < A->mt; i++) {
            int d = nt_matrix_tile_domain(A, i, k);
            qr->T[i * A->nt + k] = qr->slab[d] + used[d];
            used[d] += tile_bytes;
        }
    free(used);
    return NT_OK;
}

static nt_status resolve_ib(const nt_kernel_opts_t *opts, int64_t nb, int64_t *ib)
{
    int64_t want = opts ? opts->ib : 0;
    if (want == 0)
        want = min64(nb, 32);
    if (want < 1 || want > nb)
        return nt_fail(NT_EINVAL, "qr: opts.ib = %lld must be in 1..nb = %lld", (long long)want,
                       (long long)nb);
    *ib = want;
    return NT_OK;
}

// Real flops per operation counted: a complex multiply-add is 4 real multiplies and 4 adds.
static double cplx_factor(const nt_qr_t *qr)
{
    return qr->t == NT_DTYPE_C || qr->t == NT_DTYPE_Z ? 4.0 : 1.0;
}

static double qr_flops(double m, double n)
{
    return m >= n ? 2.0 * n * n * (m - n / 3.0) : 2.0 * m * m * (n - m / 3.0);
}

// Bytes of T tile (i,k) as used.
static int64_t t_bytes(const nt_qr_t *qr, int64_t k)
{
    return qr->ib * nt_matrix_tile_cols(qr->A, k) * (int64_t)qr->A->elem_size;
}

// A graph of a factorisation: its T tiles, and for factoring, the upper triangle (R part) of
// each diagonal tile kept apart from its strictly lower part (V) so TSQRTs need not wait for the
// UNMQRs reading V. Tasks go to the sink with their kernel, tile indices and domain: a task
// graph of ours, or the sink of a dry run (g NULL).
typedef struct qr_graph {
    nt_task_graph_t *g;
    nt_graph_sink_t sink;
    const qr_ctx *c;
    int64_t *hT; // mt * nt: data handle of T tile (i,k), i >= k, k < kt
    int64_t *hR; // kt: data handle of R(k), or NULL
    nt_status st;
} qr_graph;

// Register the handles with `dry`, or with a new task graph when dry is NULL.
static nt_status graph_open(qr_graph *q, const qr_ctx *c, bool with_r, nt_graph_sink_t *dry)
{
    const nt_qr_t *qr = c->qr;
    const nt_matrix_t *A = qr->A;
    *q = (qr_graph){.c = c};
    q->hT = malloc((size_t)(A->mt * A->nt) * sizeof *q->hT);
    q->hR = with_r ? malloc((size_t)(qr->kt + 1) * sizeof *q->hR) : NULL;
    if (!q->hT || (with_r && !q->hR))
        return q->st = nt_fail(NT_ENOMEM, "qr: out of memory");
    if (dry)
        q->sink = *dry;
    else if ((q->st = nt_task_graph_create(A->topo, &q->g)) == NT_OK)
        q->sink = nt_graph_sink_runtime(q->g);
    else
        return q->st;
    nt_graph_sink_t *s = &q->sink;
    for (int64_t k = 0; k < qr->kt && q->st == NT_OK; k++) {
        int dkk = nt_matrix_tile_domain(A, k, k);
        nt_task_access_t tile = nt_task_tile(NT_TASK_READWRITE, A, k, k);
        if (with_r)
            q->st = s->data(s, dkk, nt_kern_tile_bytes(A, k, k), &tile, &q->hR[k]);
        for (int64_t i = k; i < A->mt && q->st == NT_OK; i++)
            q->st = s->data(s, nt_matrix_tile_domain(A, i, k), t_bytes(qr, k), NULL,
                            &q->hT[i * A->nt + k]);
    }
    return q->st;
}

static void graph_close(qr_graph *q)
{
    nt_task_graph_destroy(q->g);
    free(q->hT);
    free(q->hR);
}

static nt_task_access_t acc_t(const qr_graph *q, nt_task_mode mode, int64_t i, int64_t k)
{
    return nt_task_data(mode, q->hT[i * q->c->qr->A->nt + k]);
}

// The tile-kernel call of a task of this kind (sizes as the model scales them); false for the
// kinds that call none of the registry's kernels.
static bool call_of(const qr_graph *q, int kind, int64_t i, int64_t j, int64_t k,
                    nt_tk_call_t *call)
{
    const nt_matrix_t *A = q->c->qr->A, *B = q->c->B ? q->c->B : A;
    int64_t ck = nt_matrix_tile_cols(A, k);
    switch (kind) {
    case K_GEQRT: *call = (nt_tk_call_t){NT_TK_GEQRT, nt_matrix_tile_rows(A, k), ck, ck, 0}; break;
    case K_TSQRT: *call = (nt_tk_call_t){NT_TK_TSQRT, nt_matrix_tile_rows(A, i), ck, ck, 0}; break;
    case K_UNMQR:
    case K_QUNMQR:
        *call = (nt_tk_call_t){NT_TK_UNMQR, nt_matrix_tile_rows(A, k),
                               nt_matrix_tile_cols(kind == K_UNMQR ? A : B, j), ck, 0};
        break;
    case K_TSMQR:
    case K_QTSMQR:
        *call = (nt_tk_call_t){NT_TK_TSMQR, nt_matrix_tile_rows(A, i),
                               nt_matrix_tile_cols(kind == K_TSMQR ? A : B, j), ck, 0};
        break;
    case K_LSGEMM:
        *call = (nt_tk_call_t){NT_TK_GEMM, nt_matrix_tile_rows(B, i), nt_matrix_tile_cols(B, j),
                               ck, 0};
        break;
    default: return false;
    }
    return true;
}

// Append a task (after a failure, nothing: the first error stays in q->st).
static void add(qr_graph *q, int kind, int64_t i, int64_t j, int64_t k, int domain, int prio,
                int nacc, const nt_task_access_t *acc)
{
    if (q->st != NT_OK)
        return;
    qr_arg a = {q->c, kind, i, j, k};
    nt_tk_call_t call;
    int ncalls = call_of(q, kind, i, j, k, &call);
    call.nacc = nacc;
    q->st = q->sink.submit(&q->sink, &(nt_graph_task_t){qr_task, &a, sizeof a, nacc, acc, domain,
                                                       prio, ncalls, &call});
}

// Step k's panel row: GEQRT on the diagonal tile, UNMQR on the tiles to its right.
static void add_geqrt_row(qr_graph *q, int64_t k)
{
    const nt_matrix_t *A = q->c->qr->A;
    nt_task_access_t acc[3] = {nt_task_tile(NT_TASK_READWRITE, A, k, k),
                               nt_task_data(NT_TASK_WRITE, q->hR[k]),
                               acc_t(q, NT_TASK_WRITE, k, k)};
    add(q, K_GEQRT, k, k, k, nt_matrix_tile_domain(A, k, k), P_PANEL, 3, acc);
    for (int64_t j = k + 1; j < A->nt; j++) {
        nt_task_access_t a2[3] = {nt_task_tile(NT_TASK_READ, A, k, k),
                                  acc_t(q, NT_TASK_READ, k, k),
                                  nt_task_tile(NT_TASK_READWRITE, A, k, j)};
        add(q, K_UNMQR, k, j, k, nt_matrix_tile_domain(A, k, j), j == k + 1 ? P_NEXT : P_REST,
            3, a2);
    }
}

// Step k's row i below the panel: TSQRT of tile (i,k) against R, TSMQR on the trailing pairs.
static void add_ts_row(qr_graph *q, int64_t k, int64_t i)
{
    const nt_matrix_t *A = q->c->qr->A;
    nt_task_access_t a3[3] = {nt_task_data(NT_TASK_READWRITE, q->hR[k]),
                              nt_task_tile(NT_TASK_READWRITE, A, i, k),
                              acc_t(q, NT_TASK_WRITE, i, k)};
    add(q, K_TSQRT, i, k, k, nt_matrix_tile_domain(A, i, k), P_PANEL, 3, a3);
    for (int64_t j = k + 1; j < A->nt; j++) {
        nt_task_access_t a4[4] = {nt_task_tile(NT_TASK_READ, A, i, k),
                                  acc_t(q, NT_TASK_READ, i, k),
                                  nt_task_tile(NT_TASK_READWRITE, A, k, j),
                                  nt_task_tile(NT_TASK_READWRITE, A, i, j)};
        add(q, K_TSMQR, i, j, k, nt_matrix_tile_domain(A, i, j), j == k + 1 ? P_NEXT : P_REST,
            4, a4);
    }
}

// Run a built graph with the kernels' per-thread workspace.
static nt_status run_graph(qr_graph *q, int tpd, nt_kernel_sched sched, nt_kernel_stats_t *stats)
{
    if (q->st != NT_OK)
        return q->st;
    nt_task_run_opts_t ro = {.threads_per_domain = tpd, .sched = sched,
                             .workspace_bytes = (size_t)q->c->lwork * q->c->qr->A->elem_size};
    // libFLAME's LAPACK layer calls BLAS through BLIS's process-wide thread setting.
    nt_blas_serial_begin();
    nt_status st = nt_task_graph_run(q->g, &ro, stats);
    nt_blas_serial_end();
    return st;
}

// The tasks of the factorisation, step by step.
static void factor_tasks(qr_graph *q)
{
    const nt_qr_t *qr = q->c->qr;
    for (int64_t k = 0; k < qr->kt; k++) {
        add_geqrt_row(q, k);
        for (int64_t i = k + 1; i < qr->A->mt; i++)
            add_ts_row(q, k, i);
    }
}

// Build and run the factorisation graph of qr->A with its T tiles in place.
static nt_status factor_graph(nt_qr_t *qr, int tpd, nt_kernel_sched sched,
                              nt_kernel_stats_t *stats)
{
    nt_matrix_t *A = qr->A;
    qr_ctx c = {qr, NULL, true, nt_kern_qr_lwork(qr->ib, A->nb)};
    qr_graph q;
    if (graph_open(&q, &c, true, NULL) == NT_OK)
        factor_tasks(&q);
    nt_status st = run_graph(&q, tpd, sched, stats);
    if (st == NT_OK && stats)
        stats->flops += cplx_factor(qr) * qr_flops((double)A->m, (double)A->n);
    graph_close(&q);
    return st;
}

nt_status nt_qr_factor_build(nt_graph_sink_t *s, nt_matrix_t *A, int64_t ib)
{
    nt_qr_t qr = {.A = A, .ib = ib, .kt = min64(A->mt, A->nt), .t = nt_kern_dtype(A)};
    qr_ctx c = {&qr, NULL, true, nt_kern_qr_lwork(ib, A->nb)};
    qr_graph q;
    if (graph_open(&q, &c, true, s) == NT_OK)
        factor_tasks(&q);
    graph_close(&q);
    return q.st;
}

nt_status nt_qr_factor(nt_matrix_t *A, const nt_kernel_opts_t *opts, nt_qr_t **out,
                       nt_kernel_stats_t *stats)
{
    nt_status st;
    if ((st = nt_kern_check_matrix_typed("qr: A", A, NULL, NT_DTYPE_NONE)) != NT_OK)
        return st;
    if (!out)
        return nt_fail(NT_EINVAL, "qr: out is NULL");
    if (A->mb != A->nb)
        return nt_fail(NT_EINVAL, "qr: tiles must be square, A has %lldx%lld tiles",
                       (long long)A->mb, (long long)A->nb);
    int tpd;
    nt_kernel_sched sched;
    int64_t ib = 1;
    if ((st = nt_kernel_opts_resolve(opts, A->topo, &tpd, &sched)) != NT_OK ||
        (st = resolve_ib(opts, A->nb, &ib)) != NT_OK)
        return st;
    nt_qr_t *qr = calloc(1, sizeof *qr);
    if (!qr)
        return nt_fail(NT_ENOMEM, "qr: out of memory");
    qr->A = A;
    qr->t = nt_kern_dtype(A);
    qr->ib = ib;
    qr->kt = min64(A->mt, A->nt);
    qr->ndomains = nt_topo_ndomains(A->topo);
    if ((st = qr_alloc_t(qr)) != NT_OK || (st = factor_graph(qr, tpd, sched, stats)) != NT_OK) {
        nt_qr_destroy(qr);
        return st;
    }
    *out = qr;
    return NT_OK;
}

// Checks of a matrix that Q is applied to: A's row tiling, same topology, no shared memory.
static nt_status check_rhs(const char *what, const nt_qr_t *qr, const nt_matrix_t *B)
{
    nt_status st;
    if (!qr)
        return nt_fail(NT_EINVAL, "%s: qr is NULL", what);
    char name[64];
    snprintf(name, sizeof name, "%s: B", what);
    if ((st = nt_kern_check_matrix_typed(name, B, qr->A->topo, qr->t)) != NT_OK)
        return st;
    if (B->m != qr->A->m || B->mb != qr->A->mb)
        return nt_fail(NT_EINVAL, "%s: B has %lld rows in tiles of %lld, the factored matrix "
                       "%lld in tiles of %lld", what, (long long)B->m, (long long)B->mb,
                       (long long)qr->A->m, (long long)qr->A->mb);
    bool shared = nt_kern_tiles_overlap(qr->A, B, &st);
    if (st)
        return st;
    if (shared)
        return nt_fail(NT_EINVAL, "%s: B shares memory with the factored matrix", what);
    return NT_OK;
}

// Append the tasks that apply Q (or Q^T) to tile column j of B.
static void add_apply(qr_graph *q, bool trans, int64_t j)
{
    const nt_qr_t *qr = q->c->qr;
    const nt_matrix_t *A = qr->A, *B = q->c->B;
    for (int64_t s = 0; s < qr->kt; s++) {
        int64_t k = trans ? s : qr->kt - 1 - s;
        int dkj = nt_matrix_tile_domain(B, k, j);
        nt_task_access_t au[3] = {nt_task_tile(NT_TASK_READWRITE, B, k, j),
                                  nt_task_tile(NT_TASK_READ, A, k, k),
                                  acc_t(q, NT_TASK_READ, k, k)};
        if (trans)
            add(q, K_QUNMQR, k, j, k, dkj, P_REST, 3, au);
        for (int64_t r = 0; r < A->mt - k - 1; r++) {
            int64_t i = trans ? k + 1 + r : A->mt - 1 - r;
            nt_task_access_t a4[4] = {au[0], nt_task_tile(NT_TASK_READWRITE, B, i, j),
                                      nt_task_tile(NT_TASK_READ, A, i, k),
                                      acc_t(q, NT_TASK_READ, i, k)};
            add(q, K_QTSMQR, i, j, k, nt_matrix_tile_domain(B, i, j), P_REST, 4, a4);
        }
        if (!trans)
            add(q, K_QUNMQR, k, j, k, dkj, P_REST, 3, au);
    }
}

static double apply_flops(const nt_qr_t *qr, const nt_matrix_t *B)
{
    double m = (double)qr->A->m, k = (double)min64(qr->A->m, qr->A->n), p = (double)B->n;
    return cplx_factor(qr) * 2.0 * p * k * (2.0 * m - k);
}

// The context of the graphs on a right-hand side B, and the team options.
static nt_status rhs_ctx(const nt_qr_t *qr, nt_matrix_t *B, bool trans,
                         const nt_kernel_opts_t *opts, qr_ctx *c, int *tpd,
                         nt_kernel_sched *sched)
{
    int64_t wcols = qr->A->nb > B->nb ? qr->A->nb : B->nb;
    *c = (qr_ctx){qr, B, trans, nt_kern_qr_lwork(qr->ib, wcols)};
    return nt_kernel_opts_resolve(opts, qr->A->topo, tpd, sched);
}

// Apply Q or Q^T to B column of tiles by column of tiles; with `identity` every tile is first
// set to the identity's (K_INIT), which turns applying Q into forming it.
static nt_status apply_graph(const nt_qr_t *qr, bool trans, bool identity, nt_matrix_t *B,
                             const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats)
{
    qr_ctx c;
    int tpd;
    nt_kernel_sched sched;
    nt_status st = rhs_ctx(qr, B, trans, opts, &c, &tpd, &sched);
    if (st != NT_OK)
        return st;
    qr_graph q;
    if (graph_open(&q, &c, false, NULL) == NT_OK)
        for (int64_t j = 0; j < B->nt; j++) {
            for (int64_t i = 0; identity && i < B->mt; i++) {
                nt_task_access_t a = nt_task_tile(NT_TASK_WRITE, B, i, j);
                add(&q, K_INIT, i, j, 0, nt_matrix_tile_domain(B, i, j), P_REST, 1, &a);
            }
            add_apply(&q, trans, j);
        }
    st = run_graph(&q, tpd, sched, stats);
    if (st == NT_OK && stats)
        stats->flops += apply_flops(qr, B);
    graph_close(&q);
    return st;
}

nt_status nt_qr_apply_q(const nt_qr_t *qr, bool trans, nt_matrix_t *B,
                        const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats)
{
    nt_status st;
    int tpd;
    nt_kernel_sched sched;
    if ((st = check_rhs("qr apply", qr, B)) != NT_OK ||
        (st = nt_kernel_opts_resolve(opts, qr->A->topo, &tpd, &sched)) != NT_OK)
        return st;
    return apply_graph(qr, trans, false, B, opts, stats);
}

nt_status nt_qr_form_q(const nt_qr_t *qr, nt_matrix_t *Q, const nt_kernel_opts_t *opts,
                       nt_kernel_stats_t *stats)
{
    nt_status st;
    int tpd;
    nt_kernel_sched sched;
    if ((st = check_rhs("qr form_q", qr, Q)) != NT_OK ||
        (st = nt_kernel_opts_resolve(opts, qr->A->topo, &tpd, &sched)) != NT_OK)
        return st;
    if (Q->n > Q->m)
        return nt_fail(NT_EINVAL, "qr form_q: Q has %lld columns, more than its %lld rows",
                       (long long)Q->n, (long long)Q->m);
    return apply_graph(qr, false, true, Q, opts, stats);
}

nt_status nt_qr_solve_ls(const nt_qr_t *qr, nt_matrix_t *B, const nt_kernel_opts_t *opts,
                         nt_kernel_stats_t *stats)
{
    nt_status st;
    int tpd;
    nt_kernel_sched sched;
    if ((st = check_rhs("qr solve", qr, B)) != NT_OK ||
        (st = nt_kernel_opts_resolve(opts, qr->A->topo, &tpd, &sched)) != NT_OK)
        return st;
    const nt_matrix_t *A = qr->A;
    if (A->m < A->n)
        return nt_fail(NT_EINVAL, "qr solve: least squares needs m >= n, A is %lldx%lld",
                       (long long)A->m, (long long)A->n);
    // A zero on R's diagonal would make the back substitution divide by zero: refuse before
    // B is touched.
    for (int64_t k = 0; k < A->nt; k++) {
        int64_t d = nt_kern_first_zero_diag(qr->t, nt_matrix_tile_cols(A, k),
                                            nt_matrix_tile(A, k, k), nt_matrix_tile_ld(A, k, k));
        if (d >= 0)
            return nt_fail(NT_EINVAL, "qr solve: R(%lld,%lld) = 0, A is rank deficient",
                           (long long)(k * A->nb + d), (long long)(k * A->nb + d));
    }
    qr_ctx c;
    if ((st = rhs_ctx(qr, B, true, opts, &c, &tpd, &sched)) != NT_OK)
        return st;
    qr_graph q;
    if (graph_open(&q, &c, false, NULL) == NT_OK)
        for (int64_t j = 0; j < B->nt; j++) {
            add_apply(&q, true, j);
            for (int64_t k = A->nt - 1; k >= 0; k--) {
                nt_task_access_t ak[2] = {nt_task_tile(NT_TASK_READWRITE, B, k, j),
                                          nt_task_tile(NT_TASK_READ, A, k, k)};
                add(&q, K_TRSM, k, j, k, nt_matrix_tile_domain(B, k, j), P_PANEL, 2, ak);
                for (int64_t i = 0; i < k; i++) {
                    nt_task_access_t a3[3] = {nt_task_tile(NT_TASK_READ, B, k, j),
                                              nt_task_tile(NT_TASK_READWRITE, B, i, j),
                                              nt_task_tile(NT_TASK_READ, A, i, k)};
                    add(&q, K_LSGEMM, i, j, k, nt_matrix_tile_domain(B, i, j), P_REST, 3, a3);
                }
            }
        }
    st = run_graph(&q, tpd, sched, stats);
    if (st == NT_OK && stats)
        stats->flops += apply_flops(qr, B) +
                        cplx_factor(qr) * (double)B->n * (double)A->n * (double)A->n;
    graph_close(&q);
    return st;
}

nt_status nt_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    return nt_flame_qr_flat(nthreads, m, n, A, lda);
}
