// 1D 3-point circular stencil on domains, owner-computes. Every domain stores its items
// (ascending global order) in two buffers of its own (current and next iteration) and a halo:
// the distinct neighbours of its items that live on other domains. One iteration is
//   1. pull the halo from the owners' current buffers (the only cross-domain reads, counted);
//   2. barrier; update every local item into the next buffer; barrier; swap.
// Double buffering makes each iteration a pure function of the previous one, so the result is
// the sequential loop's, bit for bit, whatever the map and the thread count.
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_taskgraph.h"
#include "numatile/kernels.h"
#include "numatile/mem.h"

double nt_stencil_update(double left, double self, double right, int64_t work)
{
    double v = (left + self + right) * (1.0 / 3.0);
    // Tunable cost: `work` dependent multiply-adds per item (tau_calc), contracting towards
    // the item's own value so the values stay bounded.
    for (int64_t r = 0; r < work; r++)
        v = v * 0.9999999 + 1e-7 * self;
    return v;
}

typedef struct dom_data {
    int64_t n;         // items of this domain
    int64_t *item;     // their global indices, ascending
    int64_t *src;      // 2 per item: left, right source; >= 0 local index, < 0: halo -1-h
    int64_t nhalo;
    int64_t *halo_item;  // global index of each halo entry
    int *halo_dom;       // its domain
    int64_t *halo_local; // its index in that domain's buffers
    double *buf[2];      // current / next, on the domain
    double *halo;        // on the domain
    size_t bytes;        // bytes of each of buf[0], buf[1], halo (one mapping each)
    size_t halo_bytes;
} dom_data;

typedef struct st_ctx {
    const nt_topo_t *topo;
    int D, tpd, nthreads;
    dom_data *dd;
    int *exec_dom;
    const int *tdom;
    int64_t iters, work;
    bool check_cpu;
    _Atomic int setup_failed;
    _Atomic int64_t owner_updates;
    nt_status err;
    char msg[256];
} st_ctx;

static void free_domains(st_ctx *c)
{
    if (!c->dd)
        return;
    for (int d = 0; d < c->D; d++) {
        dom_data *x = &c->dd[d];
        free(x->item);
        free(x->src);
        free(x->halo_item);
        free(x->halo_dom);
        free(x->halo_local);
        if (x->bytes) {
            nt_mem_free(x->buf[0], x->bytes);
            nt_mem_free(x->buf[1], x->bytes);
        }
        if (x->halo_bytes)
            nt_mem_free(x->halo, x->halo_bytes);
    }
    free(c->dd);
    c->dd = NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

// Every domain's items in ascending order (item, n) with room for their sources and halo, and
// each item's index within its domain (local).
static nt_status list_items(st_ctx *c, const nt_dist1d_t *map, int64_t *local)
{
    for (int64_t x = 0; x < map->n; x++)
        local[x] = c->dd[map->owner[x]].n++;
    nt_status st = NT_OK;
    for (int d = 0; d < c->D && st == NT_OK; d++) {
        dom_data *x = &c->dd[d];
        x->item = malloc((size_t)(x->n + 1) * sizeof *x->item);
        x->src = malloc((size_t)(2 * x->n + 1) * sizeof *x->src);
        x->halo_item = malloc((size_t)(2 * x->n + 1) * sizeof *x->halo_item);
        if (!x->item || !x->src || !x->halo_item)
            st = nt_fail(NT_ENOMEM, "stencil: out of memory");
        x->n = 0;
    }
    for (int64_t g = 0; g < map->n && st == NT_OK; g++) {
        dom_data *x = &c->dd[map->owner[g]];
        x->item[x->n++] = g;
    }
    return st;
}

// Domain d's halo: the distinct neighbours of its items that live on other domains, sorted,
// with the domain of each and its index there.
static nt_status build_halo(st_ctx *c, int d, const nt_dist1d_t *map, const int64_t *local)
{
    dom_data *x = &c->dd[d];
    int64_t n = map->n, h = 0;
    for (int64_t k = 0; k < x->n; k++)
        for (int s = 0; s < 2; s++) {
            int64_t nb = (x->item[k] + (s ? 1 : n - 1)) % n;
            if (map->owner[nb] != d)
                x->halo_item[h++] = nb;
        }
    qsort(x->halo_item, (size_t)h, sizeof *x->halo_item, cmp_i64);
    int64_t u = 0;
    for (int64_t k = 0; k < h; k++)
        if (u == 0 || x->halo_item[u - 1] != x->halo_item[k])
            x->halo_item[u++] = x->halo_item[k];
    x->nhalo = u;
    x->halo_dom = malloc((size_t)(u + 1) * sizeof *x->halo_dom);
    x->halo_local = malloc((size_t)(u + 1) * sizeof *x->halo_local);
    if (!x->halo_dom || !x->halo_local)
        return nt_fail(NT_ENOMEM, "stencil: out of memory");
    for (int64_t k = 0; k < u; k++) {
        x->halo_dom[k] = map->owner[x->halo_item[k]];
        x->halo_local[k] = local[x->halo_item[k]];
    }
    return NT_OK;
}

// Each item's left and right source: its index in the domain (>= 0) or a halo entry (-1 - h).
static void link_sources(dom_data *x, int d, const nt_dist1d_t *map, const int64_t *local)
{
    int64_t n = map->n;
    for (int64_t k = 0; k < x->n; k++)
        for (int s = 0; s < 2; s++) {
            int64_t nb = (x->item[k] + (s ? 1 : n - 1)) % n;
            if (map->owner[nb] == d) {
                x->src[2 * k + s] = local[nb];
            } else {
                int64_t *p = bsearch(&nb, x->halo_item, (size_t)x->nhalo, sizeof nb, cmp_i64);
                x->src[2 * k + s] = -1 - (p - x->halo_item);
            }
        }
}

// Domain d's two buffers (the current one filled with its items' values) and its halo, on d.
static nt_status alloc_buffers(st_ctx *c, int d, const double *values)
{
    dom_data *x = &c->dd[d];
    nt_status st;
    if (x->n > 0) {
        x->bytes = (size_t)x->n * sizeof(double);
        void *b0 = NULL, *b1 = NULL;
        st = nt_mem_alloc(c->topo, d, x->bytes, 0, &b0);
        if (st == NT_OK && (st = nt_mem_alloc(c->topo, d, x->bytes, 0, &b1)) != NT_OK)
            nt_mem_free(b0, x->bytes);
        if (st != NT_OK) {
            x->bytes = 0;
            return st;
        }
        x->buf[0] = b0;
        x->buf[1] = b1;
        for (int64_t k = 0; k < x->n; k++)
            x->buf[0][k] = values[x->item[k]];
    }
    if (x->nhalo > 0) {
        x->halo_bytes = (size_t)x->nhalo * sizeof(double);
        void *hb = NULL;
        if ((st = nt_mem_alloc(c->topo, d, x->halo_bytes, 0, &hb)) != NT_OK) {
            x->halo_bytes = 0;
            return st;
        }
        x->halo = hb;
    }
    return NT_OK;
}

// Build every domain's item list, halo and source indices, and allocate its buffers on it.
static nt_status build(st_ctx *c, const nt_dist1d_t *map, const double *values)
{
    int64_t *local = malloc((size_t)map->n * sizeof *local); // global -> index within its domain
    c->dd = calloc((size_t)c->D, sizeof *c->dd);
    if (!local || !c->dd) {
        free(local);
        return nt_fail(NT_ENOMEM, "stencil: out of memory");
    }
    nt_status st = list_items(c, map, local);
    for (int d = 0; d < c->D && st == NT_OK; d++)
        if ((st = build_halo(c, d, map, local)) == NT_OK) {
            link_sources(&c->dd[d], d, map, local);
            st = alloc_buffers(c, d, values);
        }
    free(local);
    return st;
}

// Chunk [lo, hi) of n items for rank r of t threads.
static void chunk(int64_t n, int r, int t, int64_t *lo, int64_t *hi)
{
    *lo = n * r / t;
    *hi = n * (r + 1) / t;
}

static void worker(st_ctx *c, int e, int rank)
{
    int64_t owner_done = 0;
    for (int64_t it = 0; it < c->iters; it++) {
        int cur = (int)(it & 1);
        // 1. Halo pull from the owners' current buffers.
        for (int d = 0; d < c->D; d++) {
            if (c->exec_dom[d] != e)
                continue;
            dom_data *x = &c->dd[d];
            int64_t lo, hi;
            chunk(x->nhalo, rank, c->tpd, &lo, &hi);
            for (int64_t h = lo; h < hi; h++)
                x->halo[h] = c->dd[x->halo_dom[h]].buf[cur][x->halo_local[h]];
        }
#pragma omp barrier
        // 2. Update the local items.
        bool mine_checked = true;
        if (c->check_cpu) {
            int cd = -1, cpu = sched_getcpu();
            mine_checked = cpu >= 0 && nt_topo_cpu_domain(c->topo, cpu, &cd) == NT_OK && cd == e;
        }
        for (int d = 0; d < c->D; d++) {
            if (c->exec_dom[d] != e)
                continue;
            dom_data *x = &c->dd[d];
            const double *in = x->buf[cur];
            double *out = x->buf[1 - cur];
            int64_t lo, hi;
            chunk(x->n, rank, c->tpd, &lo, &hi);
            for (int64_t k = lo; k < hi; k++) {
                int64_t l = x->src[2 * k], r = x->src[2 * k + 1];
                double lv = l >= 0 ? in[l] : x->halo[-1 - l];
                double rv = r >= 0 ? in[r] : x->halo[-1 - r];
                out[k] = nt_stencil_update(lv, in[k], rv, c->work);
            }
            if (d == e && mine_checked)
                owner_done += hi - lo;
        }
#pragma omp barrier
    }
    atomic_fetch_add(&c->owner_updates, owner_done);
}

static nt_status check_args(const nt_topo_t *topo, const nt_dist1d_t *map, const double *values,
                            const nt_stencil_opts_t *opts)
{
    if (!topo || !map || !values || !opts)
        return nt_fail(NT_EINVAL, "stencil: %s is NULL",
                       !topo ? "topo" : !map ? "map" : !values ? "values" : "opts");
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "stencil: a synthetic topology cannot run kernels");
    if (opts->iters < 0 || opts->work < 0 || opts->threads_per_domain < 0 ||
        opts->threads_per_domain > 1024)
        return nt_fail(NT_EINVAL, "stencil: iters = %lld, work = %lld must be >= 0, "
                       "threads_per_domain = %d in 0..1024", (long long)opts->iters,
                       (long long)opts->work, opts->threads_per_domain);
    int D = nt_topo_ndomains(topo);
    if (map->n < 1 || !map->owner || map->ndomains < 1 || map->ndomains > D)
        return nt_fail(NT_EINVAL, "stencil: map has %lld items on %d domains, the topology %d",
                       (long long)map->n, map->ndomains, D);
    for (int64_t x = 0; x < map->n; x++)
        if (map->owner[x] < 0 || map->owner[x] >= map->ndomains)
            return nt_fail(NT_EINVAL, "stencil: item %lld on domain %d, outside 0..%d",
                           (long long)x, map->owner[x], map->ndomains - 1);
    return NT_OK;
}

// The team: tpd threads on every domain with cpus (tdom: team thread -> domain, allocated
// here), and the domain whose threads update each domain's items (exec_dom).
static nt_status stencil_team(st_ctx *c, int threads_per_domain, int **tdom)
{
    int fewest;
    int total = nt_kernel_default_threads(c->topo, &fewest);
    if (total == 0)
        return nt_fail(NT_ENOTSUP, "stencil: no domain has cpus");
    int nd = total / fewest; // domains with cpus
    c->tpd = threads_per_domain ? threads_per_domain : fewest;
    c->nthreads = nd * c->tpd;
    nt_status st = nt_tg_exec_domains(c->topo, c->exec_dom);
    if (st)
        return st;
    if (!(*tdom = malloc((size_t)c->nthreads * sizeof **tdom)))
        return nt_fail(NT_ENOMEM, "stencil: out of memory");
    for (int d = 0, k = 0; d < c->D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(c->topo, d, &info);
        for (int r = 0; info.ncpus > 0 && r < c->tpd; r++)
            (*tdom)[k++] = d;
    }
    c->tdom = *tdom;
    return NT_OK;
}

// Every team thread binds itself to its domain; the iterations start only when all of them
// are bound, and not at all when one failed. Returns the wall time in *seconds.
static nt_status run_team(st_ctx *c, double *seconds)
{
    double t0 = nt_now();
#pragma omp parallel num_threads(c->nthreads)
    {
        int tid = omp_get_thread_num();
        cpu_set_t saved;
        bool restore = false;
        nt_status ts = NT_OK;
        if (omp_get_num_threads() != c->nthreads) {
            ts = nt_fail(NT_ESYS, "stencil: OpenMP gave %d threads of the %d asked (nested "
                         "parallel region or OMP_THREAD_LIMIT?)", omp_get_num_threads(),
                         c->nthreads);
        } else {
            restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
            ts = nt_bind_domain(c->topo, c->tdom[tid]);
        }
        if (ts != NT_OK) {
#pragma omp critical(nt_stencil_error)
            if (!atomic_load(&c->setup_failed)) {
                c->err = ts;
                strncpy(c->msg, nt_last_error(), sizeof c->msg - 1);
            }
            atomic_store(&c->setup_failed, 1);
        }
#pragma omp barrier
        if (!atomic_load(&c->setup_failed))
            worker(c, c->tdom[tid], tid % c->tpd);
        if (restore)
            sched_setaffinity(0, sizeof saved, &saved);
    }
    *seconds = nt_now() - t0;
    if (atomic_load(&c->setup_failed))
        return nt_fail(c->err, "%s", c->msg);
    return NT_OK;
}

// The final values back in global order, and the statistics (stats may be NULL).
static void collect(st_ctx *c, const nt_dist1d_t *map, double *values, double seconds,
                    nt_stencil_stats_t *stats)
{
    int fin = (int)(c->iters & 1);
    int64_t halo = 0;
    for (int d = 0; d < c->D; d++) {
        dom_data *x = &c->dd[d];
        for (int64_t k = 0; k < x->n; k++)
            values[x->item[k]] = x->buf[fin][k];
        halo += x->nhalo;
    }
    if (stats) {
        int64_t upd = map->n * c->iters;
        *stats = (nt_stencil_stats_t){
            .iters = c->iters, .items = map->n, .halo_items = halo * c->iters,
            .halo_bytes = halo * c->iters * (int64_t)sizeof(double),
            .owner_updates = atomic_load(&c->owner_updates), .updates = upd,
            .seconds = seconds};
        stats->owner_fraction = upd ? (double)stats->owner_updates / (double)upd : 1.0;
    }
}

nt_status nt_stencil_run(const nt_topo_t *topo, const nt_dist1d_t *map, double *values,
                         const nt_stencil_opts_t *opts, nt_stencil_stats_t *stats)
{
    nt_status st = check_args(topo, map, values, opts);
    if (st)
        return st;
    st_ctx c = {.topo = topo, .D = nt_topo_ndomains(topo), .iters = opts->iters,
                .work = opts->work};
    c.check_cpu = !nt_topo_oversubscribed(topo);
    c.exec_dom = calloc((size_t)c.D, sizeof *c.exec_dom);
    int *tdom = NULL;
    double seconds;
    if (!c.exec_dom)
        st = nt_fail(NT_ENOMEM, "stencil: out of memory");
    else if ((st = stencil_team(&c, opts->threads_per_domain, &tdom)) == NT_OK &&
             (st = build(&c, map, values)) == NT_OK &&
             (st = run_team(&c, &seconds)) == NT_OK)
        collect(&c, map, values, seconds, stats);
    free_domains(&c);
    free(c.exec_dom);
    free(tdom);
    return st;
}
