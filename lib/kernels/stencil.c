// 1D 3-point circular stencil on domains, owner-computes. Every domain stores its items
// (ascending global order) in two buffers of its own (current and next iteration) and a halo:
// the distinct neighbours of its items that live on other domains. One iteration is a task graph
// of the public task API (numatile/task.h), run `iters` times in a row (each run after the
// previous one, the buffers swapping roles by parity): per domain and chunk r of its tpd chunks,
//   1. a halo task pulls chunk r of the halo from the owners' current buffers (the only
//      cross-domain reads, counted);
//   2. an update task computes chunk r of the items into the next buffer, after the halo chunks
//      those items read.
// Double buffering makes each iteration a pure function of the previous one, so the result is
// the sequential loop's, bit for bit, whatever the map and the thread count.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/kernels.h"
#include "numatile/mem.h"
#include "numatile/task.h"

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
    int D, tpd;
    dom_data *dd;
    int64_t iters, work;
    _Atomic int64_t owner_updates;
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

// The argument of a task: items (or halo entries) [lo, hi) of domain d.
typedef struct st_arg {
    st_ctx *c;
    int d;
    int64_t lo, hi;
} st_arg;

// Halo pull from the owners' current buffers.
static nt_status halo_task(const nt_task_info_t *info, void *arg)
{
    const st_arg *a = arg;
    int cur = (int)(info->repetition & 1);
    dom_data *x = &a->c->dd[a->d];
    for (int64_t h = a->lo; h < a->hi; h++)
        x->halo[h] = a->c->dd[x->halo_dom[h]].buf[cur][x->halo_local[h]];
    return NT_OK;
}

static nt_status update_task(const nt_task_info_t *info, void *arg)
{
    const st_arg *a = arg;
    int cur = (int)(info->repetition & 1);
    dom_data *x = &a->c->dd[a->d];
    const double *in = x->buf[cur];
    double *out = x->buf[1 - cur];
    for (int64_t k = a->lo; k < a->hi; k++) {
        int64_t l = x->src[2 * k], r = x->src[2 * k + 1];
        double lv = l >= 0 ? in[l] : x->halo[-1 - l];
        double rv = r >= 0 ? in[r] : x->halo[-1 - r];
        out[k] = nt_stencil_update(lv, in[k], rv, a->c->work);
    }
    if (info->on_owner)
        atomic_fetch_add(&a->c->owner_updates, a->hi - a->lo);
    return NT_OK;
}

// The handles of one domain: its current buffer, and per chunk its halo part and next part.
typedef struct st_handles {
    int64_t *cur;       // per domain
    int64_t *halo, *nxt; // per domain and chunk (d * tpd + r)
    int64_t *hchunk;    // scratch: chunk of each halo entry of the domain being added
    int *seen;          // scratch: stamp per chunk, then per domain
} st_handles;

static nt_status add_handles(st_ctx *c, nt_task_graph_t *g, st_handles *h)
{
    nt_status st = NT_OK;
    for (int d = 0; d < c->D && st == NT_OK; d++) {
        dom_data *x = &c->dd[d];
        st = nt_task_data_register(g, d, (int64_t)x->bytes, &h->cur[d]);
        for (int r = 0; r < c->tpd && st == NT_OK; r++) {
            int64_t lo, hi, hlo, hhi;
            chunk(x->n, r, c->tpd, &lo, &hi);
            chunk(x->nhalo, r, c->tpd, &hlo, &hhi);
            int64_t *hp = &h->halo[(size_t)d * (size_t)c->tpd + (size_t)r];
            int64_t *np = &h->nxt[(size_t)d * (size_t)c->tpd + (size_t)r];
            if ((st = nt_task_data_register(g, d, (hhi - hlo) * 8, hp)) == NT_OK)
                st = nt_task_data_register(g, d, (hi - lo) * 8, np);
        }
    }
    return st;
}

// Domain d's tasks: halo chunks, then the update chunks after the halo chunks they read.
static nt_status add_domain(st_ctx *c, nt_task_graph_t *g, st_handles *h, int d,
                            nt_task_access_t *acc, int *stamp)
{
    dom_data *x = &c->dd[d];
    const int64_t *hh = h->halo + (size_t)d * (size_t)c->tpd;
    nt_status st = NT_OK;
    for (int r = 0; r < c->tpd && st == NT_OK; r++) {
        int64_t lo, hi, n = 0;
        chunk(x->nhalo, r, c->tpd, &lo, &hi);
        for (int64_t k = lo; k < hi; k++)
            h->hchunk[k] = r;
        if (lo == hi)
            continue;
        acc[n++] = nt_task_data(NT_TASK_WRITE, hh[r]);
        (*stamp)++;
        for (int64_t k = lo; k < hi; k++)
            if (h->seen[x->halo_dom[k]] != *stamp) {
                h->seen[x->halo_dom[k]] = *stamp;
                acc[n++] = nt_task_data(NT_TASK_READ, h->cur[x->halo_dom[k]]);
            }
        st_arg a = {c, d, lo, hi};
        st = nt_task_submit(g, halo_task, &a, sizeof a, (int)n, acc, d, 1);
    }
    for (int r = 0; r < c->tpd && st == NT_OK; r++) {
        int64_t lo, hi, n = 0;
        chunk(x->n, r, c->tpd, &lo, &hi);
        if (lo == hi)
            continue;
        acc[n++] = nt_task_data(NT_TASK_WRITE, h->nxt[(size_t)d * (size_t)c->tpd + (size_t)r]);
        acc[n++] = nt_task_data(NT_TASK_READ, h->cur[d]);
        (*stamp)++;
        for (int64_t k = lo; k < hi; k++)
            for (int s = 0; s < 2; s++) {
                int64_t src = x->src[2 * k + s];
                if (src < 0 && h->seen[h->hchunk[-1 - src]] != *stamp) {
                    h->seen[h->hchunk[-1 - src]] = *stamp;
                    acc[n++] = nt_task_data(NT_TASK_READ, hh[h->hchunk[-1 - src]]);
                }
            }
        st_arg a = {c, d, lo, hi};
        st = nt_task_submit(g, update_task, &a, sizeof a, (int)n, acc, d, 0);
    }
    return st;
}

// The graph of one iteration.
static nt_status build_graph(st_ctx *c, nt_task_graph_t *g)
{
    size_t per = (size_t)c->D * (size_t)c->tpd + 1;
    int64_t maxhalo = 1;
    for (int d = 0; d < c->D; d++)
        if (c->dd[d].nhalo > maxhalo)
            maxhalo = c->dd[d].nhalo;
    int nseen = c->D > c->tpd ? c->D : c->tpd, stamp = 0;
    int nacc = c->D + c->tpd + 2; // a halo task: its chunk + domains; an update: 2 + chunks
    st_handles h = {malloc(((size_t)c->D + 1) * sizeof(int64_t)), malloc(per * sizeof(int64_t)),
                    malloc(per * sizeof(int64_t)), malloc((size_t)maxhalo * sizeof(int64_t)),
                    calloc((size_t)nseen, sizeof(int))};
    nt_task_access_t *acc = malloc((size_t)nacc * sizeof *acc);
    nt_status st = NT_OK;
    if (!h.cur || !h.halo || !h.nxt || !h.hchunk || !h.seen || !acc)
        st = nt_fail(NT_ENOMEM, "stencil: out of memory");
    else if (nacc > NT_TASK_MAX_ACCESSES)
        st = nt_fail(NT_EINVAL, "stencil: %d domains and %d threads per domain are too many "
                     "for one task's accesses", c->D, c->tpd);
    else
        st = add_handles(c, g, &h);
    for (int d = 0; d < c->D && st == NT_OK; d++)
        st = add_domain(c, g, &h, d, acc, &stamp);
    free(h.cur);
    free(h.halo);
    free(h.nxt);
    free(h.hchunk);
    free(h.seen);
    free(acc);
    return st;
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

// Threads per domain: the option, or the kernels' default (the fewest cpus of a domain).
static nt_status stencil_team(st_ctx *c, int threads_per_domain)
{
    int fewest;
    if (nt_kernel_default_threads(c->topo, &fewest) == 0)
        return nt_fail(NT_ENOTSUP, "stencil: no domain has cpus");
    c->tpd = threads_per_domain ? threads_per_domain : fewest;
    return NT_OK;
}

// Build the graph of one iteration and run it iters times. Returns the wall time in *seconds.
static nt_status run_iters(st_ctx *c, int threads_per_domain, double *seconds)
{
    nt_task_graph_t *g;
    double t0 = nt_now();
    nt_status st = nt_task_graph_create(c->topo, &g);
    if (st)
        return st;
    if ((st = build_graph(c, g)) == NT_OK && c->iters > 0) {
        t0 = nt_now();
        nt_task_run_opts_t ro = {.threads_per_domain = threads_per_domain,
                                 .repeat = c->iters};
        st = nt_task_graph_run(g, &ro, NULL);
    }
    *seconds = nt_now() - t0;
    nt_task_graph_destroy(g);
    return st;
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
    double seconds;
    if ((st = stencil_team(&c, opts->threads_per_domain)) == NT_OK &&
        (st = build(&c, map, values)) == NT_OK &&
        (st = run_iters(&c, opts->threads_per_domain, &seconds)) == NT_OK)
        collect(&c, map, values, seconds, stats);
    free_domains(&c);
    return st;
}
