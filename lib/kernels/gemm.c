// Tiled GEMM, owner-computes: one task per C tile, run on C tile's domain, looping over the k
// tiles with the BLIS kernel (beta applied at the first product only). A and B are only read,
// so the tasks are independent; their tile reads are counted, not ordered. The element type is
// C's (s, d, c, z; an untyped 8-byte C is double), A and B must share it.
//
// With opts.cache_inputs, every domain first gets a private copy of each remote A and B tile
// its C tiles read (one copy per (domain, tile), in one slab per domain allocated up front), and
// the tasks read the copies. The copies are written by a preliminary task graph, one task per
// copy on the domain of the copy, and freed at the end. Both graphs use the public task API
// (numatile/task.h) only.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_kern_common.h"
#include "lib/kernels/tile/nt_kernels.h"
#include "nt_graph_sink.h"
#include "numatile/mem.h"
#include "numatile/task.h"
#include "numatile/topo.h"
#include "numa/nt_numa.h"

// One cached tile: key identifies (operand, tile) -- i * A->nt + l for A(i,l), then
// A->mt * A->nt + l * B->nt + j for B(l,j) -- so that a domain's copies, built in key order,
// can be binary-searched.
typedef struct gemm_copy {
    int64_t key;
    const nt_matrix_t *from; // A or B
    int64_t fi, fj;          // the tile of it
    const char *src;
    int64_t src_ld, rows, cols;
    char *dst; // ld = rows
} gemm_copy;

typedef struct gemm_cache {
    int ndomains;
    size_t es;              // element size of the operands
    int64_t ncopies, bytes; // copies and their data bytes (the remote traffic)
    gemm_copy *copy;        // grouped by domain, key order within a domain
    int64_t *first;         // copies of domain d: first[d] .. first[d+1]-1
    char **slab;            // per domain, from nt_mem_alloc
    size_t *slab_bytes;
} gemm_cache;

typedef struct gemm_ctx {
    double alpha, beta;
    nt_dtype t; // the operands' element type
    const nt_matrix_t *A, *B;
    nt_matrix_t *C;
    const gemm_cache *cache; // NULL: read A and B where they are
} gemm_ctx;

// The tile to read for key on domain d: its copy in d's cache if there is one, else src.
static const void *tile_for(const gemm_cache *k, int d, int64_t key, const void *src,
                            int64_t *ld)
{
    if (!k)
        return src;
    int64_t lo = k->first[d], hi = k->first[d + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (k->copy[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < k->first[d + 1] && k->copy[lo].key == key) {
        *ld = k->copy[lo].rows;
        return k->copy[lo].dst;
    }
    return src;
}

// The argument of a task: C tile (i,j).
typedef struct gemm_arg {
    const gemm_ctx *c;
    int64_t i, j;
} gemm_arg;

static nt_status gemm_task(const nt_task_info_t *info, void *arg)
{
    const gemm_arg *ga = arg;
    const gemm_ctx *c = ga->c;
    int64_t i = ga->i, j = ga->j, boff = c->A->mt * c->A->nt;
    int64_t m = nt_matrix_tile_rows(c->C, i), n = nt_matrix_tile_cols(c->C, j);
    for (int64_t l = 0; l < c->A->nt; l++) {
        int64_t lda = nt_matrix_tile_ld(c->A, i, l), ldb = nt_matrix_tile_ld(c->B, l, j);
        const void *a = tile_for(c->cache, info->domain, i * c->A->nt + l,
                                 nt_matrix_tile(c->A, i, l), &lda);
        const void *b = tile_for(c->cache, info->domain, boff + l * c->B->nt + j,
                                 nt_matrix_tile(c->B, l, j), &ldb);
        nt_status st = nt_kern_gemm_typed(c->t, 1, false, false, m, n,
                                          nt_matrix_tile_cols(c->A, l), c->alpha, a, lda, b, ldb,
                                          l == 0 ? c->beta : 1.0, nt_matrix_tile(c->C, i, j),
                                          nt_matrix_tile_ld(c->C, i, j));
        if (st)
            return st;
    }
    return NT_OK;
}

static void cache_free(gemm_cache *k)
{
    if (!k)
        return;
    for (int d = 0; k->slab && d < k->ndomains; d++)
        nt_mem_free(k->slab[d], k->slab_bytes[d]);
    free(k->copy);
    free(k->first);
    free(k->slab);
    free(k->slab_bytes);
    free(k);
}

// Copies are 64-byte aligned inside a slab.
static int64_t round64(int64_t b)
{
    return (b + 63) / 64 * 64;
}

// Walk the copies domain d needs, in key order: A(i,l) for the tile rows i of d's C tiles,
// B(l,j) for their tile columns j, when the tile lives on another domain. With out == NULL
// only count them.
static int64_t list_copies(const nt_matrix_t *A, const nt_matrix_t *B, int d,
                           const bool *row, const bool *col, gemm_copy *out)
{
    int64_t n = 0, boff = A->mt * A->nt;
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t l = 0; row[i] && l < A->nt; l++)
            if (nt_matrix_tile_domain(A, i, l) != d) {
                if (out)
                    out[n] = (gemm_copy){i * A->nt + l, A, i, l, nt_matrix_tile(A, i, l),
                                         nt_matrix_tile_ld(A, i, l), nt_matrix_tile_rows(A, i),
                                         nt_matrix_tile_cols(A, l), NULL};
                n++;
            }
    for (int64_t l = 0; l < B->mt; l++)
        for (int64_t j = 0; j < B->nt; j++)
            if (col[j] && nt_matrix_tile_domain(B, l, j) != d) {
                if (out)
                    out[n] = (gemm_copy){boff + l * B->nt + j, B, l, j, nt_matrix_tile(B, l, j),
                                         nt_matrix_tile_ld(B, l, j), nt_matrix_tile_rows(B, l),
                                         nt_matrix_tile_cols(B, j), NULL};
                n++;
            }
    return n;
}

static nt_status cache_fill(gemm_cache *k, const nt_matrix_t *A, const nt_matrix_t *B,
                            const nt_matrix_t *C)
{
    int D = k->ndomains;
    size_t rbytes, cbytes;
    if (!nt_mul_size((size_t)D, (size_t)C->mt, &rbytes) ||
        !nt_mul_size((size_t)D, (size_t)C->nt, &cbytes))
        return nt_fail(NT_ERANGE, "gemm: cache index size overflows");
    // row[d * mt + i] / col[d * nt + j]: domain d owns a C tile in tile row i / column j.
    bool *row = calloc(rbytes ? rbytes : 1, 1), *col = calloc(cbytes ? cbytes : 1, 1);
    k->first = calloc((size_t)D + 1, sizeof *k->first);
    k->slab = calloc((size_t)D, sizeof *k->slab);
    k->slab_bytes = calloc((size_t)D, sizeof *k->slab_bytes);
    nt_status st = NT_OK;
    if (!row || !col || !k->first || !k->slab || !k->slab_bytes) {
        st = nt_fail(NT_ENOMEM, "gemm: out of memory for the input cache");
        goto out;
    }
    for (int64_t i = 0; i < C->mt; i++)
        for (int64_t j = 0; j < C->nt; j++) {
            int d = nt_matrix_tile_domain(C, i, j);
            row[(size_t)d * (size_t)C->mt + (size_t)i] = true;
            col[(size_t)d * (size_t)C->nt + (size_t)j] = true;
        }
    for (int d = 0; d < D; d++)
        k->first[d + 1] = k->first[d] + list_copies(A, B, d, row + (size_t)d * (size_t)C->mt,
                                                    col + (size_t)d * (size_t)C->nt, NULL);
    k->ncopies = k->first[D];
    if (!(k->copy = calloc((size_t)(k->ncopies ? k->ncopies : 1), sizeof *k->copy))) {
        st = nt_fail(NT_ENOMEM, "gemm: out of memory for the input cache");
        goto out;
    }
    for (int d = 0; d < D; d++) {
        list_copies(A, B, d, row + (size_t)d * (size_t)C->mt, col + (size_t)d * (size_t)C->nt,
                    k->copy + k->first[d]);
        int64_t sb = 0;
        for (int64_t x = k->first[d]; x < k->first[d + 1]; x++) {
            // A tile is at most a whole operand, whose size the matrix has already checked.
            int64_t b = k->copy[x].rows * k->copy[x].cols * (int64_t)k->es;
            k->bytes += b;
            sb += round64(b);
        }
        k->slab_bytes[d] = (size_t)sb;
    }
    // Every slab is allocated before anything is copied or computed, so that a failure leaves
    // C untouched. The pages are first touched by the copying threads, bound to the domain.
    if ((st = nt_mem_room_sizes(C->topo, k->slab_bytes, D, "gemm: input cache")) != NT_OK) {
        memset(k->slab_bytes, 0, (size_t)D * sizeof *k->slab_bytes); // no slab exists
        goto out;
    }
    for (int d = 0; d < D; d++) {
        if (!k->slab_bytes[d])
            continue;
        void *p;
        if ((st = nt_mem_alloc(C->topo, d, k->slab_bytes[d], NT_MEM_NOTOUCH, &p)) != NT_OK) {
            for (int e = d; e < D; e++)
                k->slab_bytes[e] = 0; // only the slabs that exist are freed
            goto out;
        }
        k->slab[d] = p;
        int64_t off = 0;
        for (int64_t x = k->first[d]; x < k->first[d + 1]; x++) {
            k->copy[x].dst = k->slab[d] + off;
            off += round64(k->copy[x].rows * k->copy[x].cols * (int64_t)k->es);
        }
    }
out:
    free(row);
    free(col);
    return st;
}

// Task: one copy, run on the domain that gets it (its first touch).
static nt_status cache_copy(const nt_task_info_t *info, void *arg)
{
    (void)info;
    const gemm_copy *c = arg;
    size_t es = c->from->elem_size;
    for (int64_t col = 0; col < c->cols; col++)
        memcpy(c->dst + (size_t)(col * c->rows) * es, c->src + (size_t)(col * c->src_ld) * es,
               (size_t)c->rows * es);
    return NT_OK;
}

// The copy graph: each copy reads its source tile and writes its data handle on its domain.
static nt_status cache_graph(const gemm_cache *k, const nt_topo_t *topo, int tpd)
{
    nt_task_graph_t *g = NULL;
    nt_status st = nt_task_graph_create(topo, &g);
    for (int d = 0; d < k->ndomains && st == NT_OK; d++)
        for (int64_t x = k->first[d]; x < k->first[d + 1] && st == NT_OK; x++) {
            const gemm_copy *c = &k->copy[x];
            int64_t h;
            if ((st = nt_task_data_register(g, d, c->rows * c->cols * (int64_t)k->es, &h)) != NT_OK)
                break;
            nt_task_access_t acc[2] = {nt_task_data(NT_TASK_WRITE, h),
                                       nt_task_tile(NT_TASK_READ, c->from, c->fi, c->fj)};
            st = nt_task_submit(g, cache_copy, c, 0, 2, acc, NT_TASK_AUTO_DOMAIN, 0);
        }
    // Bound threads write the copies, also under the OpenMP baseline (the cache is a
    // placement, not part of the scheduling compared).
    nt_task_run_opts_t ro = {.threads_per_domain = tpd, .sched = NT_KERNEL_OWNER};
    if (st == NT_OK)
        st = nt_task_graph_run(g, &ro, NULL);
    nt_task_graph_destroy(g);
    return st;
}

// Build, allocate and fill the per-domain caches; *out stays NULL on failure.
static nt_status cache_create(const nt_matrix_t *A, const nt_matrix_t *B, const nt_matrix_t *C,
                              int tpd, gemm_cache **out, double *seconds)
{
    gemm_cache *k = calloc(1, sizeof *k);
    if (!k)
        return nt_fail(NT_ENOMEM, "gemm: out of memory for the input cache");
    k->ndomains = nt_topo_ndomains(C->topo);
    k->es = C->elem_size;
    nt_status st = cache_fill(k, A, B, C);
    if (st == NT_OK && k->ncopies > 0) {
        double t0 = nt_now();
        st = cache_graph(k, C->topo, tpd);
        *seconds = nt_now() - t0;
    }
    if (st) {
        cache_free(k);
        return st;
    }
    *out = k;
    return NT_OK;
}

// The graph: one task per C tile, on C's domain, reading A's tile row and B's tile column
// (with the cache, only their tiles on that domain: the others are read from the copies,
// counted as the cache's remote reads). Its calls: one GEMM per k tile, the first also standing
// for the C access. acc has room for 2 A->nt + 1 accesses, call for A->nt calls.
static nt_status gemm_graph(nt_graph_sink_t *s, const gemm_ctx *c, nt_task_access_t *acc,
                            nt_tk_call_t *call)
{
    const nt_matrix_t *A = c->A, *B = c->B, *C = c->C;
    nt_status st = NT_OK;
    for (int64_t i = 0; i < C->mt && st == NT_OK; i++)
        for (int64_t j = 0; j < C->nt && st == NT_OK; j++) {
            int own = nt_matrix_tile_domain(C, i, j), n = 0;
            acc[n++] = nt_task_tile(NT_TASK_READWRITE, C, i, j);
            for (int64_t l = 0; l < A->nt; l++) {
                int before = l ? n : 0;
                if (!c->cache || nt_matrix_tile_domain(A, i, l) == own)
                    acc[n++] = nt_task_tile(NT_TASK_READ, A, i, l);
                if (!c->cache || nt_matrix_tile_domain(B, l, j) == own)
                    acc[n++] = nt_task_tile(NT_TASK_READ, B, l, j);
                call[l] = (nt_tk_call_t){NT_TK_GEMM, nt_matrix_tile_rows(C, i),
                                         nt_matrix_tile_cols(C, j), nt_matrix_tile_cols(A, l),
                                         n - before};
            }
            gemm_arg ga = {c, i, j};
            st = s->submit(s, &(nt_graph_task_t){gemm_task, &ga, sizeof ga, n, acc, own, 0,
                                                 (int)A->nt, call});
        }
    return st;
}

nt_status nt_gemm_build(nt_graph_sink_t *s, double alpha, double beta, const nt_matrix_t *A,
                        const nt_matrix_t *B, const nt_matrix_t *C)
{
    gemm_ctx c = {alpha, beta, nt_kern_dtype(C), A, B, (nt_matrix_t *)C, NULL};
    nt_task_access_t *acc = malloc((size_t)(2 * A->nt + 1) * sizeof *acc);
    nt_tk_call_t *call = malloc((size_t)A->nt * sizeof *call);
    nt_status st = acc && call ? gemm_graph(s, &c, acc, call)
                               : nt_fail(NT_ENOMEM, "gemm: out of memory");
    free(acc);
    free(call);
    return st;
}

nt_status nt_gemm(double alpha, const nt_matrix_t *A, const nt_matrix_t *B, double beta,
                  nt_matrix_t *C, const nt_kernel_opts_t *opts, nt_kernel_stats_t *stats)
{
    nt_status st;
    // C's type (an untyped 8-byte C is double) is the call's; A and B must have it too.
    if ((st = nt_kern_check_matrix_typed("gemm: C", C, NULL, NT_DTYPE_NONE)) != NT_OK ||
        (st = nt_kern_check_matrix_typed("gemm: A", A, C->topo, nt_kern_dtype(C))) != NT_OK ||
        (st = nt_kern_check_matrix_typed("gemm: B", B, C->topo, nt_kern_dtype(C))) != NT_OK)
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
    bool cached = opts && opts->cache_inputs;

    if (2 * A->nt + 1 > NT_TASK_MAX_ACCESSES)
        return nt_fail(NT_EINVAL, "gemm: %lld tile columns of A, at most %d", (long long)A->nt,
                       (NT_TASK_MAX_ACCESSES - 1) / 2);
    nt_task_access_t *acc = malloc((size_t)(2 * A->nt + 1) * sizeof *acc);
    nt_tk_call_t *call = malloc((size_t)A->nt * sizeof *call);
    if (!acc || !call) {
        free(acc);
        free(call);
        return nt_fail(NT_ENOMEM, "gemm: out of memory");
    }
    gemm_cache *cache = NULL;
    double copy_seconds = 0;
    nt_task_graph_t *g = NULL;
    // The cache is filled before the graph is built: the tasks read from it only what it has.
    if (cached)
        st = cache_create(A, B, C, tpd, &cache, &copy_seconds);
    nt_dtype t = nt_kern_dtype(C);
    gemm_ctx c = {alpha, beta, t, A, B, C, cache};
    if (st == NT_OK && (st = nt_task_graph_create(C->topo, &g)) == NT_OK) {
        nt_graph_sink_t sink = nt_graph_sink_runtime(g);
        st = gemm_graph(&sink, &c, acc, call);
    }
    if (st == NT_OK) {
        nt_task_run_opts_t ro = {.threads_per_domain = tpd, .sched = sched};
        st = nt_task_graph_run(g, &ro, stats);
        if (st == NT_OK && stats) {
            // A complex multiply-add is 4 real multiplies and 4 real adds.
            double cx = t == NT_DTYPE_C || t == NT_DTYPE_Z ? 4.0 : 1.0;
            stats->flops += cx * 2.0 * (double)C->m * (double)C->n * (double)A->n;
            if (cache) {
                stats->remote_reads += cache->ncopies;
                stats->remote_read_bytes += cache->bytes;
                stats->cache_seconds += copy_seconds;
                stats->seconds += copy_seconds;
            }
        }
    }
    nt_task_graph_destroy(g);
    cache_free(cache);
    free(acc);
    free(call);
    return st;
}

nt_status nt_gemm_flat(int nthreads, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc)
{
    return nt_kern_gemm_threads(nthreads, false, false, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                ldc);
}
