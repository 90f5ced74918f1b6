// nt_calibrate(): measure the numbers of a machine profile with threads bound to the domains,
// the way the executor and the kernels use them (copy threads of the target domain, one
// single-threaded BLAS call per task), each after an untimed warm-up. The pair bandwidths and
// the tile kernels are measured in rounds and keep their best round; the other numbers are
// medians of repetitions, so one descheduled run on a shared machine does not set them.
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nt_core.h"
#include "lib/redist/nt_exec.h"
#include "lib/kernels/tile/nt_kernels.h"
#include "lib/kernels/tile/nt_tile_registry.h"
#include "numatile/dist.h"
#include "numatile/kernels.h"
#include "numatile/mem.h"
#include "numatile/plan.h"
#include "numatile/profile.h"
#include "numatile/version.h"

typedef struct cal {
    const nt_topo_t *topo;
    int D, reps;
    size_t bytes;
    char **src, **dst; // per domain, bytes each
    double *t;         // reps timings
} cal;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// Run with the calling thread bound to domain d, restoring its affinity afterwards.
typedef struct bound {
    cpu_set_t saved;
    bool have;
} bound;

static nt_status bind_to(const nt_topo_t *topo, int d, bound *b)
{
    b->have = sched_getaffinity(0, sizeof b->saved, &b->saved) == 0;
    return nt_bind_domain(topo, d);
}

static void unbind(bound *b)
{
    if (b->have)
        sched_setaffinity(0, sizeof b->saved, &b->saved);
}

// One timed parallel copy of c->bytes: src on domain i -> dst on domain j by the copy threads of
// j, each its contiguous share, between barriers. Seconds, or -1 if binding failed.
static double timed_copy(const cal *c, const char *a, char *b, int j, int threads)
{
    double t0 = 0, t1 = 0;
    int failed = 0;
    size_t bytes = c->bytes;
#pragma omp parallel num_threads(threads)
    {
        bound bd;
        if (bind_to(c->topo, j, &bd) != NT_OK) {
#pragma omp atomic write
            failed = 1;
        }
        size_t k = (size_t)omp_get_thread_num(), n = (size_t)omp_get_num_threads();
        size_t lo = bytes / n * k, hi = k + 1 == n ? bytes : bytes / n * (k + 1);
#pragma omp barrier
#pragma omp master
        t0 = nt_now();
#pragma omp barrier
        memcpy(b + lo, a + lo, hi - lo);
#pragma omp barrier
#pragma omp master
        t1 = nt_now();
        unbind(&bd);
    }
    return failed ? -1 : t1 - t0;
}

// The largest of n rates: what the pair does when nothing else runs (STREAM's "best rate"). On a
// shared host a slow spell lasts seconds and only ever lowers a rate; a median of repetitions
// taken back to back, or of rounds that the spell covers in majority, kept it (a guest's node
// read at 0.8 GB/s against 1.1 for its twin).
static double best(const double *x, int n)
{
    double b = x[0];
    for (int k = 1; k < n; k++)
        b = x[k] > b ? x[k] : b;
    return b;
}

// The smallest of n times: the same for a time (a slow spell only ever lengthens it).
static double least(const double *x, int n)
{
    double b = x[0];
    for (int k = 1; k < n; k++)
        b = x[k] < b ? x[k] : b;
    return b;
}

// Every pair once per round, so that a slow spell falls on the pairs of a few rounds instead of
// on all the repetitions of one pair; c->t holds D * D * reps rates.
static nt_status measure_copy(cal *c, nt_profile_t *p)
{
    int D = c->D;
    for (int r = -1; r < c->reps; r++)
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++) {
                int thr = nt_team_default_threads(c->topo, j);
                double s = timed_copy(c, c->src[i], c->dst[j], j, thr);
                if (s < 0)
                    return nt_fail(NT_ESYS, "nt_calibrate: cannot bind threads to domain %d", j);
                if (r >= 0)
                    c->t[(i * D + j) * c->reps + r] =
                        (double)c->bytes / (s > 1e-9 ? s : 1e-9) / 1e9;
            }
    for (int ij = 0; ij < D * D; ij++)
        p->copy_gbs[ij] = best(c->t + ij * c->reps, c->reps);
    return NT_OK;
}

// One thread of domain j reads a quarter of domain i's buffer (doubles summed, so the loads
// cannot be dropped): the cost of reading a tile that lives elsewhere. In rounds, as the copies.
static nt_status measure_read(cal *c, nt_profile_t *p)
{
    int D = c->D;
    size_t n = c->bytes / 4 / sizeof(double);
    volatile double sink = 0;
    for (int r = -1; r < c->reps; r++)
        for (int j = 0; j < D; j++) {
            bound bd;
            if (bind_to(c->topo, j, &bd) != NT_OK) {
                unbind(&bd);
                return nt_fail(NT_ESYS, "nt_calibrate: cannot bind to domain %d", j);
            }
            for (int i = 0; i < D; i++) {
                // Successive reads of a buffer take its quarters in turn, so the caches hold
                // none of the quarter read (three others and the other buffers came between).
                const double *x = (const double *)c->src[i] + (size_t)(((r + 1) * D + j) % 4) * n;
                double t0 = nt_now(), s = 0;
                for (size_t k = 0; k < n; k++)
                    s += x[k];
                double dt = nt_now() - t0;
                sink += s;
                if (r >= 0)
                    c->t[(i * D + j) * c->reps + r] =
                        (double)(n * sizeof(double)) / (dt > 1e-9 ? dt : 1e-9) / 1e9;
            }
            unbind(&bd);
        }
    (void)sink;
    for (int ij = 0; ij < D * D; ij++)
        p->read_gbs[ij] = best(c->t + ij * c->reps, c->reps);
    return NT_OK;
}

// Every domain copies its own buffer at once, with its copy threads: the memory system's
// aggregate rate, which caps a redistribution in which all domains copy together.
static nt_status measure_concurrent(cal *c, nt_profile_t *p)
{
    int total = 0, *dom_of = NULL, *rank = NULL, *cnt = calloc((size_t)c->D, sizeof(int));
    for (int d = 0; d < c->D && cnt; d++)
        total += cnt[d] = nt_team_default_threads(c->topo, d);
    dom_of = malloc((size_t)total * sizeof(int));
    rank = malloc((size_t)total * sizeof(int));
    if (!cnt || !dom_of || !rank) {
        free(cnt);
        free(dom_of);
        free(rank);
        return nt_fail(NT_ENOMEM, "nt_calibrate: out of memory");
    }
    for (int d = 0, t = 0; d < c->D; d++)
        for (int k = 0; k < cnt[d]; k++, t++) {
            dom_of[t] = d;
            rank[t] = k;
        }
    int failed = 0;
    for (int r = -1; r < c->reps && !failed; r++) {
        double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(total)
        {
            int me = omp_get_thread_num(), d = dom_of[me];
            bound bd;
            if (bind_to(c->topo, d, &bd) != NT_OK) {
#pragma omp atomic write
                failed = 1;
            }
            size_t n = (size_t)cnt[d], k = (size_t)rank[me], bytes = c->bytes;
            size_t lo = bytes / n * k, hi = k + 1 == n ? bytes : bytes / n * (k + 1);
#pragma omp barrier
#pragma omp master
            t0 = nt_now();
#pragma omp barrier
            memcpy(c->dst[d] + lo, c->src[d] + lo, hi - lo);
#pragma omp barrier
#pragma omp master
            t1 = nt_now();
            unbind(&bd);
        }
        if (r >= 0)
            c->t[r] = (double)c->bytes * c->D / (t1 - t0 > 1e-9 ? t1 - t0 : 1e-9) / 1e9;
    }
    free(cnt);
    free(dom_of);
    free(rank);
    if (failed)
        return nt_fail(NT_ESYS, "nt_calibrate: cannot bind threads for the concurrent copy");
    p->concurrent_gbs = median(c->t, c->reps);
    return NT_OK;
}

// First touch: fresh pages of domain d (mapped, not touched) written by a thread bound to d.
static nt_status measure_fault(cal *c, nt_profile_t *p)
{
    size_t bytes = c->bytes / 2;
    for (int d = 0; d < c->D; d++) {
        bound bd;
        nt_status st = bind_to(c->topo, d, &bd);
        for (int r = -1; r < c->reps && st == NT_OK; r++) {
            void *buf;
            st = nt_mem_alloc(c->topo, d, bytes, NT_MEM_NOTOUCH, &buf);
            if (st)
                break;
            double t0 = nt_now();
            memset(buf, 1, bytes);
            double dt = nt_now() - t0;
            nt_mem_free(buf, bytes);
            if (r >= 0)
                c->t[r] = (double)bytes / (dt > 1e-9 ? dt : 1e-9) / 1e9;
        }
        unbind(&bd);
        if (st)
            return st;
        p->fault_gbs[d] = median(c->t, c->reps);
    }
    return NT_OK;
}

// Page migration of a touched buffer between the nodes of the first and last domains, back
// and forth (on one node move_pages finds the pages in place: that is what a move costs there).
static nt_status measure_migrate(cal *c, nt_profile_t *p)
{
    nt_domain_info_t a, b;
    nt_status st;
    if ((st = nt_topo_domain(c->topo, 0, &a)) || (st = nt_topo_domain(c->topo, c->D - 1, &b)))
        return st;
    size_t bytes = c->bytes / 4;
    for (int r = -1; r < c->reps; r++) {
        nt_migrate_report_t rep;
        double t0 = nt_now();
        st = nt_mem_migrate(c->src[0], bytes, r % 2 ? a.node : b.node, &rep);
        double dt = nt_now() - t0;
        if (st)
            return st;
        if (r >= 0)
            c->t[r] = (double)bytes / (dt > 1e-9 ? dt : 1e-9) / 1e9;
    }
    // Put the buffer back on domain 0's node for the measurements that follow.
    nt_migrate_report_t rep;
    if ((st = nt_mem_migrate(c->src[0], bytes, a.node, &rep)))
        return st;
    p->migrate_gbs = median(c->t, c->reps);
    return NT_OK;
}

// ---- tile kernels -------------------------------------------------------------------------------

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Shortest span worth timing on the thread CPU clock: ten of its ticks, at least 0.1 ms. The
// clock advances by a scheduler tick on some kernels (in the QEMU guest a GEMM tile of 32 read
// 0 s), by nanoseconds on others; measured once, as the largest of three increments.
static double cpu_min_span(void)
{
    static _Thread_local double span;
    if (span > 0)
        return span;
    double tick = 0;
    for (int k = 0; k < 3; k++) {
        double t0 = thread_cpu(), t1;
        while ((t1 = thread_cpu()) == t0)
            ;
        tick = fmax(tick, t1 - t0);
    }
    span = fmax(1e-4, 10 * tick);
    return span;
}

static void fill(double *x, size_t n, uint64_t seed)
{
    for (size_t k = 0; k < n; k++) {
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        x[k] = (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 - 0.5;
    }
}

// Each kernel on tiles of every domain by one thread bound there, in rounds (every domain and
// kernel once per round; a kernel's sample repeats the call until the clock can read it), each
// time the best round's: a slow spell of the host covers a few rounds, and one of them stood
// in for a domain's whole median (GEMM tiles of two virtual domains of one node measured 78
// and 103 us, then built a heterogeneous partition from the difference). The tiles' values
// change from call to call (factored tiles are factored again); the work of a call does not.
// The kernels run in their order, so UNMQR and TSMQR find the reflectors and T of the GEQRT
// and TSQRT just before them.
static nt_status measure_tiles(cal *c, nt_profile_t *p)
{
    int D = c->D, rounds = 3 * c->reps;
    int64_t nb = p->nb, ib = p->ib, lw = nt_kern_qr_lwork(ib, nb);
    size_t tile = (size_t)(nb * nb) * sizeof(double);
    size_t bytes = 3 * tile + (size_t)(ib * nb + lw) * sizeof(double);
    double **buf = calloc((size_t)D, sizeof *buf);
    double *t = malloc((size_t)(D * NT_TK_COUNT * rounds) * sizeof *t);
    nt_status st = buf && t ? NT_OK : nt_fail(NT_ENOMEM, "nt_calibrate: out of memory");
    for (int d = 0; d < D && !st; d++)
        if (!(st = nt_mem_alloc(c->topo, d, bytes, 0, (void **)&buf[d])))
            fill(buf[d], (size_t)(3 * nb * nb), (uint64_t)d + 1);
    // The calling thread's CPU time, not the wall clock: on a shared machine a call of a few
    // ms is often preempted, which would put other jobs' time into the profile (a GEQRT of 128
    // measured 2.6 ms on the wall clock at load 2 and 13-22 ms at load 10).
    double span = cpu_min_span();
    for (int r = -1; r < rounds && !st; r++)
        for (int d = 0; d < D && !st; d++) {
            nt_tk_tiles_t tl = {nb, ib, lw, buf[d], buf[d] + nb * nb, buf[d] + 2 * nb * nb,
                                buf[d] + 3 * nb * nb, buf[d] + 3 * nb * nb + ib * nb};
            bound bd;
            st = bind_to(c->topo, d, &bd);
            for (int k = 0; k < NT_TK_COUNT && !st; k++) {
                double t0 = thread_cpu(), el = 0;
                int calls = 0;
                do {
                    st = nt_tile_kernel_info(k)->calibrate(&tl);
                    calls++;
                    el = thread_cpu() - t0;
                } while (!st && el < span);
                if (r >= 0)
                    t[(k * D + d) * rounds + r] = el / calls;
            }
            unbind(&bd);
        }
    for (int kd = 0; kd < NT_TK_COUNT * D && !st; kd++)
        p->tile_seconds[kd / D][kd % D] = least(t + kd * rounds, rounds);
    for (int d = 0; buf && d < D; d++)
        nt_mem_free(buf[d], bytes);
    free(buf);
    free(t);
    return st;
}

// Overhead of a task: empty tasks spawned by one thread and run by the whole team.
static void measure_tasks(cal *c, nt_profile_t *p)
{
    int n = 20000, team = p->threads_per_domain * c->D;
    for (int r = -1; r < c->reps; r++) {
        double t0 = nt_now();
#pragma omp parallel num_threads(team)
#pragma omp single
        for (int k = 0; k < n; k++) {
#pragma omp task
            {
                __asm__ volatile("" ::: "memory");
            }
        }
        double dt = nt_now() - t0;
        if (r >= 0)
            c->t[r] = dt / n;
    }
    p->task_seconds = median(c->t, c->reps);
}

// A one-tile matrix (16 x 16 doubles, under a page: always copied) on domain d, with memory
// unless noalloc.
static nt_status tiny(const nt_topo_t *topo, int d, bool noalloc, nt_matrix_t **out)
{
    nt_tilemap_t *map;
    nt_status st = nt_tilemap_create(1, 1, nt_topo_ndomains(topo), &map);
    if (st)
        return st;
    map->owner[0] = d;
    nt_matrix_shape_t sh = {16, 16, 16, 16, sizeof(double)};
    st = nt_matrix_create(topo, &sh, map, NT_LAYOUT_TILE, noalloc ? NT_MATRIX_NOALLOC : 0, out);
    nt_tilemap_destroy(map);
    return st;
}

// The fixed costs around the work: an execution moving one small tile from the first to the
// last domain (its timed parts, as nt_exec_stats_t reports them), and a GEMM of one small tile.
static nt_status measure_fixed(cal *c, nt_profile_t *p)
{
    nt_status st = NT_OK;
    double *tk = calloc((size_t)c->reps, sizeof *tk);
    if (!tk)
        return nt_fail(NT_ENOMEM, "nt_calibrate: out of memory");
    for (int r = -1; r < c->reps && !st; r++) {
        nt_matrix_t *S = NULL, *T = NULL, *B = NULL, *C = NULL;
        nt_plan_t *plan = NULL;
        nt_exec_stats_t es = {0};
        nt_kernel_stats_t ks = {0};
        nt_kernel_opts_t ko = {.threads_per_domain = p->threads_per_domain};
        if (!(st = tiny(c->topo, 0, false, &S)) && !(st = tiny(c->topo, c->D - 1, true, &T)) &&
            !(st = nt_plan_create(S, T, NULL, NULL, &plan)))
            st = nt_plan_execute(plan, S, T, NULL, &es);
        if (!st && !(st = tiny(c->topo, 0, false, &B)) && !(st = tiny(c->topo, 0, false, &C)))
            st = nt_gemm(1.0, B, B, 0.0, C, &ko, &ks);
        if (!st && r >= 0) {
            c->t[r] = es.alloc_seconds + es.seconds;
            tk[r] = ks.seconds;
        }
        nt_kernel_stats_free(&ks);
        nt_exec_stats_free(&es);
        nt_plan_destroy(plan);
        nt_matrix_destroy(C);
        nt_matrix_destroy(B);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
    }
    if (!st) {
        p->exec_seconds = median(c->t, c->reps);
        p->kernel_run_seconds = median(tk, c->reps);
    }
    free(tk);
    return st;
}

// The stencil's update (nt_stencil_update()) in CPU time, over an array as nt_stencil_run()
// does (independent items, so the processor overlaps them), with no extra work and with 32
// rounds: the cost of an item and of a round.
static void measure_stencil(cal *c, nt_profile_t *p)
{
    enum { N = 1 << 15, ROUNDS = 32 };
    double *x = malloc((N + 2) * sizeof *x), *y = malloc(N * sizeof *y);
    double *t1 = malloc((size_t)c->reps * sizeof *t1);
    if (!x || !y || !t1) { // leave the fields at 0: the model then prices the stencil at 0
        free(x);
        free(y);
        free(t1);
        return;
    }
    for (int k = 0; k < N + 2; k++)
        x[k] = 1.0 / (k + 1);
    for (int r = -1; r < c->reps; r++) {
        double a = thread_cpu();
        for (int k = 0; k < N; k++)
            y[k] = nt_stencil_update(x[k], x[k + 1], x[k + 2], 0);
        double b = thread_cpu();
        for (int k = 0; k < N; k++)
            y[k] += nt_stencil_update(x[k], x[k + 1], x[k + 2], ROUNDS);
        double e = thread_cpu();
        volatile double sink = y[N / 2];
        (void)sink;
        if (r >= 0) {
            c->t[r] = (b - a) / N;
            t1[r] = ((e - b) - (b - a)) / N / ROUNDS;
        }
    }
    p->stencil_item_seconds = median(c->t, c->reps);
    double round = median(t1, c->reps);
    p->stencil_round_seconds = round > 0 ? round : 0;
    free(x);
    free(y);
    free(t1);
}

static void describe(cal *c, nt_profile_t *p)
{
    snprintf(p->kind, sizeof p->kind, "%s", nt_topo_kind_name(nt_topo_get_kind(c->topo)));
    p->nodes = nt_topo_nphysical(c->topo);
    if (gethostname(p->host, sizeof p->host) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    p->host[sizeof p->host - 1] = 0;
    snprintf(p->version, sizeof p->version, "%s", nt_version());
    snprintf(p->blas, sizeof p->blas, "%s", nt_blas_name());
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static nt_status check_opts(const nt_topo_t *topo, const nt_calibrate_opts_t *o)
{
    if (o->nb < 0 || o->nb > 4096)
        return nt_fail(NT_EINVAL, "nt_calibrate: nb = %lld not in 1..4096 (0 = default)",
                       (long long)o->nb);
    int64_t nb = o->nb ? o->nb : 256;
    if (o->ib < 0 || o->ib > nb)
        return nt_fail(NT_EINVAL, "nt_calibrate: ib = %lld not in 1..nb (0 = default)",
                       (long long)o->ib);
    if (o->threads_per_domain < 0 || o->threads_per_domain > 1024)
        return nt_fail(NT_EINVAL, "nt_calibrate: threads_per_domain = %d not in 0..1024",
                       o->threads_per_domain);
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_calibrate: a synthetic topology cannot be measured");
    for (int d = 0; d < nt_topo_ndomains(topo); d++)
        if (nt_team_default_threads(topo, d) == 0)
            return nt_fail(NT_ENOTSUP, "nt_calibrate: domain %d has no cpus", d);
    return NT_OK;
}

static void free_cal(cal *c)
{
    for (int d = 0; d < c->D; d++) {
        if (c->src)
            nt_mem_free(c->src[d], c->bytes);
        if (c->dst)
            nt_mem_free(c->dst[d], c->bytes);
    }
    free(c->src);
    free(c->dst);
    free(c->t);
}

// The whole request before the first allocation: two copy buffers on every domain and every
// pair's rounds (D^2 x reps times), so that 4096 domains are refused at once instead of after
// gigabytes.
static nt_status room_check(const cal *c)
{
    uint64_t *per = calloc((size_t)c->D, sizeof *per);
    if (!per)
        return nt_fail(NT_ENOMEM, "nt_calibrate: out of memory");
    for (int d = 0; d < c->D; d++)
        per[d] = 2 * (uint64_t)c->bytes;
    uint64_t tables = (uint64_t)c->D * (uint64_t)c->D * (uint64_t)c->reps * sizeof(double) +
                      2 * (uint64_t)c->D * sizeof(double *);
    nt_status st = nt_mem_room(c->topo, per, tables, "nt_calibrate");
    free(per);
    return st;
}

nt_status nt_calibrate(const nt_topo_t *topo, const nt_calibrate_opts_t *opts,
                       nt_profile_t **out)
{
    if (!topo || !out)
        return nt_fail(NT_EINVAL, "nt_calibrate: NULL argument");
    nt_calibrate_opts_t o = opts ? *opts : (nt_calibrate_opts_t){0};
    nt_status st = check_opts(topo, &o);
    if (st)
        return st;
    int tpd = o.threads_per_domain;
    if (!tpd)
        nt_kernel_default_threads(topo, &tpd);
    nt_profile_t *p;
    if ((st = nt_profile_create(nt_topo_ndomains(topo), &p)))
        return st;
    p->threads_per_domain = tpd > 0 ? tpd : 1;
    p->nb = o.nb ? o.nb : 256;
    p->ib = o.ib ? o.ib : (p->nb < 32 ? p->nb : 32);
    cal c = {.topo = topo, .D = p->ndomains, .reps = o.quick ? 3 : 5,
             .bytes = (size_t)(o.quick ? 16 : 64) << 20};
    st = room_check(&c);
    c.src = st ? NULL : calloc((size_t)c.D, sizeof *c.src);
    c.dst = st ? NULL : calloc((size_t)c.D, sizeof *c.dst);
    c.t = st ? NULL : calloc((size_t)c.D * (size_t)c.D * (size_t)c.reps, sizeof *c.t);
    if (!st && (!c.src || !c.dst || !c.t))
        st = nt_fail(NT_ENOMEM, "nt_calibrate: out of memory");
    for (int d = 0; d < c.D && !st; d++)
        if (!(st = nt_mem_alloc(topo, d, c.bytes, 0, (void **)&c.src[d])))
            st = nt_mem_alloc(topo, d, c.bytes, 0, (void **)&c.dst[d]);
    if (!st)
        st = measure_copy(&c, p);
    if (!st)
        st = measure_read(&c, p);
    if (!st)
        st = measure_concurrent(&c, p);
    if (!st)
        st = measure_fault(&c, p);
    if (!st)
        st = measure_migrate(&c, p);
    if (!st) {
        nt_blas_serial_begin();
        st = measure_tiles(&c, p);
        nt_blas_serial_end();
    }
    if (!st)
        st = measure_fixed(&c, p);
    if (!st) {
        measure_stencil(&c, p);
        measure_tasks(&c, p);
        describe(&c, p);
        st = nt_profile_check(p, topo);
    }
    free_cal(&c);
    if (st) {
        nt_profile_destroy(p);
        return st;
    }
    *out = p;
    return NT_OK;
}
