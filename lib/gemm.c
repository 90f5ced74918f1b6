// Tiled GEMM, owner-computes: one task per C tile, run on C tile's domain, looping over the k
// tiles with the BLIS kernel (beta applied at the first product only). A and B are only read,
// so the tasks are independent; their tile reads are counted, not ordered.
#include "nt_core.h"
#include "nt_kernels.h"
#include "nt_taskgraph.h"

typedef struct gemm_ctx {
    double alpha, beta;
    const nt_matrix_t *A, *B;
    nt_matrix_t *C;
} gemm_ctx;

static nt_status gemm_task(void *arg, const nt_tg_task_t *t, void *work)
{
    (void)work;
    const gemm_ctx *c = arg;
    int64_t i = t->a[0], j = t->a[1];
    int64_t m = nt_matrix_tile_rows(c->C, i), n = nt_matrix_tile_cols(c->C, j);
    for (int64_t l = 0; l < c->A->nt; l++) {
        nt_status st = nt_kern_gemm(false, false, m, n, nt_matrix_tile_cols(c->A, l), c->alpha,
                                    nt_kern_tile(c->A, i, l), nt_matrix_tile_ld(c->A, i, l),
                                    nt_kern_tile(c->B, l, j), nt_matrix_tile_ld(c->B, l, j),
                                    l == 0 ? c->beta : 1.0, nt_kern_tile(c->C, i, j),
                                    nt_matrix_tile_ld(c->C, i, j));
        if (st)
            return st;
    }
    return NT_OK;
}

nt_status nt_gemm(double alpha, const nt_matrix_t *A, const nt_matrix_t *B, double beta,
                  nt_matrix_t *C, const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats)
{
    nt_status st;
    if ((st = nt_kern_check_matrix("gemm: C", C, NULL)) != NT_OK ||
        (st = nt_kern_check_matrix("gemm: A", A, C->topo)) != NT_OK ||
        (st = nt_kern_check_matrix("gemm: B", B, C->topo)) != NT_OK)
        return st;
    if (A->m != C->m || B->n != C->n || A->n != B->m)
        return nt_fail(NT_EINVAL, "gemm: sizes do not conform: A %lldx%lld, B %lldx%lld, "
                       "C %lldx%lld", (long long)A->m, (long long)A->n, (long long)B->m,
                       (long long)B->n, (long long)C->m, (long long)C->n);
    if (A->mb != C->mb || B->nb != C->nb || A->nb != B->mb)
        return nt_fail(NT_EINVAL, "gemm: tile sizes do not conform: A %lldx%lld, B %lldx%lld, "
                       "C %lldx%lld (need A.mb = C.mb, A.nb = B.mb, B.nb = C.nb)",
                       (long long)A->mb, (long long)A->nb, (long long)B->mb, (long long)B->nb,
                       (long long)C->mb, (long long)C->nb);
    int tpd;
    nt_kernel_sched sched;
    if ((st = nt_kernel_opts_resolve(opts, C->topo, &tpd, &sched)) != NT_OK)
        return st;
    for (int k = 0; k < 2; k++) {
        bool shared = nt_kern_tiles_overlap(k ? B : A, C, &st);
        if (st)
            return st;
        if (shared)
            return nt_fail(NT_EINVAL, "gemm: C shares memory with %s", k ? "B" : "A");
    }

    int D = nt_topo_ndomains(C->topo);
    nt_tg_t *g;
    if ((st = nt_tg_create(C->mt * C->nt, D, &g)) != NT_OK)
        return st;
    for (int64_t i = 0; i < C->mt && st == NT_OK; i++)
        for (int64_t j = 0; j < C->nt && st == NT_OK; j++) {
            int own = nt_matrix_tile_domain(C, i, j);
            nt_tg_task_t t = {.kind = 0, .owner = own, .a = {i, j}};
            nt_tg_access_t acc = {i * C->nt + j, NT_TG_RW, own, nt_kern_tile_bytes(C, i, j)};
            if ((st = nt_tg_add(g, &t, 1, &acc)) != NT_OK)
                break;
            for (int64_t l = 0; l < A->nt; l++) {
                nt_tg_count_read(g, nt_matrix_tile_domain(A, i, l), nt_kern_tile_bytes(A, i, l));
                nt_tg_count_read(g, nt_matrix_tile_domain(B, l, j), nt_kern_tile_bytes(B, l, j));
            }
        }
    if (st == NT_OK) {
        gemm_ctx c = {alpha, beta, A, B, C};
        st = nt_tg_run(g, C->topo, tpd, sched, gemm_task, &c, 0, stats);
        if (st == NT_OK && stats)
            stats->flops += 2.0 * (double)C->m * (double)C->n * (double)A->n;
    }
    nt_tg_destroy(g);
    return st;
}

nt_status nt_gemm_flat(int nthreads, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc)
{
    return nt_kern_gemm_threads(nthreads, false, false, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                ldc);
}
