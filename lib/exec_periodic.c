// Execution of a periodic plan: block-cyclic maps and ScaLAPACK layouts on both sides.
//
// Nothing is listed per segment. Along each dimension the submatrix is cut into pieces (as the
// planner does) and each piece becomes a run of local indices: global index g of CYCLIC(r)
// over p processes sits at local index (g / (r p)) r + g mod r of its process. Runs of one
// (source grid coordinate, target grid coordinate) pair that continue each other on both sides
// are merged, so a pair's rows are a short list whose length is bounded by the number of
// blocks, never by the product of rows and columns. A copy is then: for each local column of
// the target and each source grid row, the rows runs of that pair. Memory and set-up time are
// O(tile rows + tile columns); the copy itself touches every byte once.
//
// Tasks: a task is (target component, source grid column, a range of target columns) and loops
// over the source grid rows inside each column, so the target column stays in cache while
// every source writes its part of it. It runs on the target domain. With on_source, or with
// one-port steps, there is one task list per (source, target) pair instead: on the source
// domain, or poured column by column into the pair's phases of the plan's schedule. Nothing
// can fail after the target is allocated, so "nothing lost" only needs the allocation first.
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAM 1
#endif

#include "nt_core.h"
#include "nt_exec.h"
#include "nt_matrix.h"
#include "nt_plan.h"

// Target bytes a task copies, about (whole columns).
#define PERIODIC_GRAIN ((int64_t)512 << 10)

// Local indices [sl, sl + len) of the source map to [tl, tl + len) of the target; u = number
// of indices in the list before this run (the position of the run in its list).
typedef struct prun {
    int64_t sl, tl, len, u;
    int64_t x; // position in the submatrix (global order)
    int a, b;  // source and target grid coordinates (merged lists mix them)
} prun;

// A list of runs as a pattern of npat runs repeated reps times, each repetition shifted by
// (ds, dt) local indices, then the first rem runs once more: short runs of a block-cyclic pair
// repeat with the period of the two distributions, so the copy loop reads a few runs per
// column instead of one per element.
typedef struct plist {
    int64_t npat, reps, rem, ds, dt;
    bool unit; // every run is one element long (CYCLIC(1) on one side, small blocks on both)
} plist;

// Runs of one dimension by (source coordinate a, target coordinate b): list k = a * nb + b is
// r[first[k] .. first[k] + cnt[k]), holds total[k] indices and repeats as pat[k].
typedef struct runs {
    prun *r;
    int64_t *first, *cnt, *total;
    plist *pat;
    int na, nb;
} runs;

static void runs_free(runs *R)
{
    free(R->r);
    free(R->first);
    free(R->cnt);
    free(R->total);
    free(R->pat);
}

// Longest pattern period tried; lists without a shorter one are copied run by run.
#define MAX_PERIOD 64

// The smallest period P (in runs) of a list: run k + P is run k shifted by one fixed (ds, dt).
static plist find_pattern(const prun *r, int64_t n)
{
    for (int64_t P = 1; P <= MAX_PERIOD && P < n; P++) {
        int64_t ds = r[P].sl - r[0].sl, dt = r[P].tl - r[0].tl, k = 0;
        while (k + P < n && r[k + P].len == r[k].len && r[k + P].a == r[k].a &&
               r[k + P].b == r[k].b &&
               r[k + P].sl - r[k].sl == ds && r[k + P].tl - r[k].tl == dt)
            k++;
        if (k + P == n)
            return (plist){P, n / P, n % P, ds, dt, false};
    }
    return (plist){n, 1, 0, 0, 0, false};
}

// find_pattern(), and whether every run is a single element.
static plist list_pattern(const prun *r, int64_t n)
{
    plist L = find_pattern(r, n);
    L.unit = true;
    for (int64_t k = 0; k < n && L.unit; k++)
        L.unit = r[k].len == 1;
    return L;
}

static int64_t local_index(int64_t g, int64_t r, int p)
{
    return g / (r * p) * r + g % r;
}

// Append a piece to list k, merging it with the list's last run when both sides continue it.
static void runs_add(runs *R, int k, int64_t x, int64_t sl, int64_t tl, int64_t len)
{
    prun *last = R->cnt[k] ? &R->r[R->first[k] + R->cnt[k] - 1] : NULL;
    if (last && last->sl + last->len == sl && last->tl + last->len == tl)
        last->len += len;
    else
        R->r[R->first[k] + R->cnt[k]++] =
            (prun){sl, tl, len, R->total[k], x, k / R->nb, k % R->nb};
    R->total[k] += len;
}

// The runs of one dimension (rows when `rows`), from its pieces.
static nt_status runs_build(const nt_plan_geo_t *g, const nt_dim_t *d, bool rows, runs *R)
{
    int na = rows ? g->gs.p : g->gs.q, nb = rows ? g->gt.p : g->gt.q;
    int64_t rs = rows ? g->gs.smb * g->smb : g->gs.snb * g->snb;
    int64_t rt = rows ? g->gt.smb * g->tmb : g->gt.snb * g->tnb;
    int64_t os = rows ? g->sub.src_row : g->sub.src_col;
    int64_t ot = rows ? g->sub.dst_row : g->sub.dst_col;
    size_t nk = (size_t)na * (size_t)nb;
    *R = (runs){.na = na, .nb = nb};
    R->r = malloc((size_t)(d->np > 0 ? d->np : 1) * sizeof *R->r);
    R->first = calloc(nk + 1, sizeof *R->first);
    R->cnt = calloc(nk, sizeof *R->cnt);
    R->total = calloc(nk, sizeof *R->total);
    if (!R->r || !R->first || !R->cnt || !R->total)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int64_t x = 0; x < d->np; x++) {
        const nt_piece_t *p = &d->p[x];
        int a = rows ? nt_piece_src_row(g, p) : nt_piece_src_col(g, p);
        int b = rows ? nt_piece_dst_row(g, p) : nt_piece_dst_col(g, p);
        R->first[(size_t)a * (size_t)nb + (size_t)b + 1]++;
    }
    for (size_t k = 0; k < nk; k++)
        R->first[k + 1] += R->first[k];
    for (int64_t x = 0; x < d->np; x++) {
        const nt_piece_t *p = &d->p[x];
        int a = rows ? nt_piece_src_row(g, p) : nt_piece_src_col(g, p);
        int b = rows ? nt_piece_dst_row(g, p) : nt_piece_dst_col(g, p);
        runs_add(R, a * nb + b, p->x, local_index(os + p->x, rs, na),
                 local_index(ot + p->x, rt, nb), p->len);
    }
    R->pat = malloc(nk * sizeof *R->pat);
    if (!R->pat)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (size_t k = 0; k < nk; k++)
        R->pat[k] = list_pattern(&R->r[R->first[k]], R->cnt[k]);
    return NT_OK;
}

static int cmp_tl(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->tl > b->tl) - (a->tl < b->tl);
}

static int cmp_sl(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->sl > b->sl) - (a->sl < b->sl);
}

static int cmp_x(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->x > b->x) - (a->x < b->x);
}

// How merge_runs() groups the lists.
typedef enum merge_by { BY_TARGET, BY_SOURCE, BY_NONE } merge_by;

// The lists of R merged: by target (one list per target coordinate b, every source's runs in
// target order: a target column is written top to bottom in one pass), by source (one list
// per source coordinate a, in source order: a source column is read top to bottom), or all in
// one list in global order (every column on both sides in one pass). Positions u are
// recounted in the merged order.
static nt_status merge_runs(const runs *R, merge_by by, runs *M)
{
    size_t na = (size_t)R->na, nb = (size_t)R->nb;
    size_t ng = by == BY_SOURCE ? na : by == BY_TARGET ? nb : 1;
    int64_t all = R->first[na * nb];
    *M = (runs){.na = (int)(by == BY_SOURCE ? na : 1), .nb = (int)(by == BY_TARGET ? nb : 1)};
    M->r = malloc((size_t)(all > 0 ? all : 1) * sizeof *M->r);
    M->first = calloc(ng + 1, sizeof *M->first);
    M->cnt = calloc(ng, sizeof *M->cnt);
    M->total = calloc(ng, sizeof *M->total);
    M->pat = malloc(ng * sizeof *M->pat);
    if (!M->r || !M->first || !M->cnt || !M->total || !M->pat)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    int64_t at = 0;
    for (size_t g = 0; g < ng; g++) {
        M->first[g] = at;
        for (size_t k = 0; k < na * nb; k++) {
            bool in = by == BY_NONE || (by == BY_SOURCE ? k / nb == g : k % nb == g);
            if (!in)
                continue;
            memcpy(&M->r[at], &R->r[R->first[k]], (size_t)R->cnt[k] * sizeof *M->r);
            at += R->cnt[k];
        }
        M->cnt[g] = at - M->first[g];
        prun *v = &M->r[M->first[g]];
        qsort(v, (size_t)M->cnt[g], sizeof *v,
              by == BY_SOURCE ? cmp_sl : by == BY_TARGET ? cmp_tl : cmp_x);
        for (int64_t x = 0; x < M->cnt[g]; x++) {
            v[x].u = M->total[g];
            M->total[g] += v[x].len;
        }
        M->pat[g] = list_pattern(v, M->cnt[g]);
    }
    M->first[ng] = at;
    return NT_OK;
}

// One task: target component j, source grid column c, source grid row a (-1: all), target
// columns u0..u1 of the column list (c, j's grid column), run on domain `dom`.
typedef struct ptask {
    int j, c, a, dom, phase;
    int64_t u0, u1, bytes;
} ptask;

// One-port phases of each domain pair (STEPS): pair k = i * D + d takes the phases
// ph[pfirst[k] .. pfirst[k + 1]) in order, cap[.] bytes in each.
typedef struct pphases {
    int nphases;
    int64_t *pfirst, *ph, *cap;
} pphases;

typedef struct pctx {
    nt_team_t t;
    const nt_plan_view_t *v;
    const nt_matrix_t *src;
    nt_matrix_t *dst;
    runs rr, rc;     // rows by (source row, target row), columns by (source col, target col)
    runs mr;         // rows by target row, all sources merged in target order
    runs ms, cs;     // source order: rows and columns by source, in source order
    runs ga, gc;     // global order: all rows, all columns, in submatrix order
    nt_exec_order order; // TARGET, SOURCE or GLOBAL (see exec_order())
    const char **scol; // per copy thread: the source column of every source grid row
    char **dcol;       // per copy thread: the target column of every target grid row
    pphases ps;      // nphases = 1 and no pair phases under FREE
    bool stream;     // long runs with non-temporal stores (a move far larger than the caches)
    ptask *task;
    int64_t ntask;
    int64_t *tfirst; // tasks of phase t, domain d: task[tfirst[t*D + d] .. tfirst[t*D + d + 1])
} pctx;

// Runs of at least this many bytes are written with non-temporal stores when the whole move
// is large (see prepare()): a cached store first reads the line it writes, so a copy far
// larger than the caches moves 3 bytes per byte instead of 2. Shorter runs stay cached: mixing
// streamed and cached stores in one target column measured slower (nb 64 -> 100 with 512-byte
// streamed runs: 0.030 s against 0.014 s cached).
#define STREAM_RUN 2048
#define STREAM_TOTAL ((int64_t)32 << 20)

// Copy n bytes with non-temporal stores (16-byte aligned body, cached head and tail).
static void stream_copy(char *d, const char *s, size_t n)
{
#ifdef HAVE_STREAM
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; d += 64, s += 64, n -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_stream_si128((__m128i *)(void *)d, a);
        _mm_stream_si128((__m128i *)(void *)(d + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + 48), e);
    }
#endif
    memcpy(d, s, n);
}

// Make the task's non-temporal stores visible before the task ends.
static void stream_fence(void)
{
#ifdef HAVE_STREAM
    _mm_sfence();
#endif
}

// Copy n runs: run k reads source column src[r[k].a] and writes target column dst[r[k].b];
// every index is shifted by (so, to). Long runs with memcpy (or streamed), short ones inline.
static inline void copy_runs(char *const *dst, const char *const *src, const prun *r, int64_t n,
                             size_t es, bool stream, int64_t so, int64_t to)
{
    if (es == 8) {
        // Short runs (CYCLIC(r) with small r) inline: a call per run would cost more than
        // the copy.
        for (int64_t k = 0; k < n; k++) {
            uint64_t *dd = (uint64_t *)(void *)dst[r[k].b] + to + r[k].tl;
            const uint64_t *ss = (const uint64_t *)(const void *)src[r[k].a] + so + r[k].sl;
            int64_t len = r[k].len;
            if (len <= 16)
                for (int64_t l = 0; l < len; l++)
                    dd[l] = ss[l];
            else if (stream && len * 8 >= STREAM_RUN)
                stream_copy((char *)dd, (const char *)ss, (size_t)len * 8);
            else
                memcpy(dd, ss, (size_t)len * 8);
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        size_t b = (size_t)r[k].len * es;
        char *d = dst[r[k].b] + (size_t)(to + r[k].tl) * es;
        const char *q = src[r[k].a] + (size_t)(so + r[k].sl) * es;
        if (stream && b >= STREAM_RUN)
            stream_copy(d, q, b);
        else
            memcpy(d, q, b);
    }
}

// Copy the rows of one column: the list's pattern, repetition by repetition.
static void copy_column(char *const *dst, const char *const *src, const prun *r, const plist *L,
                        size_t es, bool stream)
{
    if (es == 8 && L->npat <= MAX_PERIOD) {
        // The pattern's addresses once per column; then element by element (CYCLIC(1)) one
        // load and one store per element, short runs inline, long ones by memcpy.
        const uint64_t *sp[MAX_PERIOD];
        uint64_t *dp[MAX_PERIOD];
        for (int64_t e = 0; e < L->npat; e++) {
            sp[e] = (const uint64_t *)(const void *)src[r[e].a] + r[e].sl;
            dp[e] = (uint64_t *)(void *)dst[r[e].b] + r[e].tl;
        }
        for (int64_t k = 0; k <= L->reps; k++) {
            int64_t n = k < L->reps ? L->npat : L->rem, so = k * L->ds, to = k * L->dt;
            if (L->unit) {
                for (int64_t e = 0; e < n; e++)
                    dp[e][to] = sp[e][so];
                continue;
            }
            for (int64_t e = 0; e < n; e++) {
                int64_t len = r[e].len;
                if (len <= 16)
                    for (int64_t l = 0; l < len; l++)
                        dp[e][to + l] = sp[e][so + l];
                else if (stream && len * 8 >= STREAM_RUN)
                    stream_copy((char *)(dp[e] + to), (const char *)(sp[e] + so), (size_t)len * 8);
                else
                    memcpy(dp[e] + to, sp[e] + so, (size_t)len * 8);
            }
        }
        return;
    }
    for (int64_t k = 0; k < L->reps; k++)
        copy_runs(dst, src, r, L->npat, es, stream, k * L->ds, k * L->dt);
    if (L->rem)
        copy_runs(dst, src, r, L->rem, es, stream, L->reps * L->ds, L->reps * L->dt);
}

// First run of list k whose columns reach past u (binary search on the prefix u).
static int64_t run_at(const runs *R, size_t k, int64_t u)
{
    int64_t lo = R->first[k], hi = R->first[k] + R->cnt[k] - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (R->r[mid].u <= u)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// This thread's slot in the per-thread tables.
static size_t thread_slot(const pctx *x, int dom)
{
    int tid = omp_get_thread_num();
    return (size_t)dom * (size_t)x->t.tpd_max + (size_t)(tid < x->t.tpd_max ? tid : 0);
}

static void run_ptask(pctx *x, const ptask *tk)
{
    const nt_plan_geo_t *g = x->v->geo;
    int qs = g->gs.q, qt = g->gt.q, b = tk->j / qt, e = tk->j % qt, d = x->v->sigma[tk->j];
    size_t es = g->es, kc = (size_t)tk->c * (size_t)qt + (size_t)e;
    const struct nt_matrix_mem *sm = x->src->mem, *dm = x->dst->mem;
    int64_t ldd = x->dst->lld[d];
    int a0 = tk->a < 0 ? 0 : tk->a, a1 = tk->a < 0 ? g->gs.p : tk->a + 1;
    // All sources: the merged list of target row b; one source: its own list.
    const runs *R = tk->a < 0 ? &x->mr : &x->rr;
    size_t kr = tk->a < 0 ? (size_t)b : (size_t)tk->a * (size_t)g->gt.p + (size_t)b;
    size_t slot = thread_slot(x, tk->dom);
    const char **scol = x->scol + slot * (size_t)g->gs.p;
    char **dcol = x->dcol + slot * (size_t)g->gt.p;
    for (int64_t k = run_at(&x->rc, kc, tk->u0); k < x->rc.first[kc] + x->rc.cnt[kc]; k++) {
        const prun *cr = &x->rc.r[k];
        int64_t lo = tk->u0 > cr->u ? tk->u0 - cr->u : 0;
        int64_t hi = tk->u1 < cr->u + cr->len ? tk->u1 - cr->u : cr->len;
        for (int64_t y = lo; y < hi; y++) {
            dcol[b] = dm->local[d] + (size_t)((cr->tl + y) * ldd) * es;
            for (int a = a0; a < a1; a++) {
                int i = a * qs + tk->c;
                scol[a] = sm->local[i] ? sm->local[i] + (size_t)((cr->sl + y) * x->src->lld[i]) *
                                                           es
                                       : NULL;
            }
            copy_column(dcol, scol, &R->r[R->first[kr]], &R->pat[kr], es, x->stream);
        }
        if (cr->u + cr->len >= tk->u1)
            break;
    }
    if (x->stream)
        stream_fence();
    nt_team_task_done(&x->t, tk->dom, tk->bytes);
}

// A source-driven task (j < 0): source domain (a, c), source columns u0..u1 of its merged
// column list; each source column is read top to bottom and its runs land in the target
// columns of every target grid row.
static void run_stask(pctx *x, const ptask *tk)
{
    const nt_plan_geo_t *g = x->v->geo;
    int qt = g->gt.q, i = tk->a * g->gs.q + tk->c;
    size_t es = g->es;
    const struct nt_matrix_mem *sm = x->src->mem, *dm = x->dst->mem;
    size_t slot = thread_slot(x, tk->dom);
    const char **scol = x->scol + slot * (size_t)g->gs.p;
    char **dcol = x->dcol + slot * (size_t)g->gt.p;
    const runs *R = &x->ms;
    for (int64_t k = run_at(&x->cs, (size_t)tk->c, tk->u0);
         k < x->cs.first[tk->c] + x->cs.cnt[tk->c]; k++) {
        const prun *cr = &x->cs.r[k];
        int64_t lo = tk->u0 > cr->u ? tk->u0 - cr->u : 0;
        int64_t hi = tk->u1 < cr->u + cr->len ? tk->u1 - cr->u : cr->len;
        for (int64_t y = lo; y < hi; y++) {
            scol[tk->a] = sm->local[i] + (size_t)((cr->sl + y) * x->src->lld[i]) * es;
            for (int b = 0; b < g->gt.p; b++) {
                int j = b * qt + cr->b, d = j < x->v->ncomp ? x->v->sigma[j] : x->t.D;
                dcol[b] = d < x->t.D && dm->local[d]
                              ? dm->local[d] + (size_t)((cr->tl + y) * x->dst->lld[d]) * es
                              : NULL;
            }
            copy_column(dcol, scol, &R->r[R->first[tk->a]], &R->pat[tk->a], es, x->stream);
        }
        if (cr->u + cr->len >= tk->u1)
            break;
    }
    if (x->stream)
        stream_fence();
    nt_team_task_done(&x->t, tk->dom, tk->bytes);
}

// The one-port phases of every pair from the plan's schedule (phase 0: local copies).
static nt_status build_phases(pctx *x, nt_plan_t *plan)
{
    const nt_schedule_t *sc;
    nt_status st = nt_plan_schedule(plan, &sc);
    if (st)
        return st;
    size_t DD = (size_t)x->t.D * (size_t)x->t.D;
    pphases *P = &x->ps;
    P->nphases = sc->nphases + 1;
    P->pfirst = calloc(DD + 1, sizeof *P->pfirst);
    P->ph = malloc(((size_t)sc->npairs + 1) * sizeof *P->ph);
    P->cap = malloc(((size_t)sc->npairs + 1) * sizeof *P->cap);
    int64_t *cur = calloc(DD, sizeof *cur);
    if (!P->pfirst || !P->ph || !P->cap || !cur) {
        free(cur);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int64_t e = 0; e < sc->npairs; e++)
        P->pfirst[(size_t)sc->src[e] * (size_t)x->t.D + (size_t)sc->dst[e] + 1]++;
    for (size_t k = 0; k < DD; k++)
        P->pfirst[k + 1] += P->pfirst[k];
    for (int t = 0; t < sc->nphases; t++)
        for (int64_t e = sc->first[t]; e < sc->first[t + 1]; e++) {
            size_t k = (size_t)sc->src[e] * (size_t)x->t.D + (size_t)sc->dst[e];
            int64_t at = P->pfirst[k] + cur[k]++;
            P->ph[at] = t + 1;
            P->cap[at] = sc->count[t];
        }
    free(cur);
    return NT_OK;
}

// The domain that runs a task: the wanted one, else the other side, else any with cpus.
static int pick_domain(const nt_team_t *t, int want, int other)
{
    if (t->tpd[want] > 0)
        return want;
    if (t->tpd[other] > 0)
        return other;
    for (int d = 0; d < t->D; d++)
        if (t->tpd[d] > 0)
            return d;
    return want;
}

// Append the tasks covering target columns u0..ncol-1 of `percol` bytes each.
static nt_status add_tasks(pctx *x, int64_t *cap, ptask proto, int64_t u0, int64_t ncol,
                           int64_t percol)
{
    int64_t step = PERIODIC_GRAIN / percol > 1 ? PERIODIC_GRAIN / percol : 1;
    for (int64_t u = u0; u < ncol; u += step) {
        if (x->ntask == *cap) {
            int64_t nc = *cap ? 2 * *cap : 256;
            ptask *n = realloc(x->task, (size_t)nc * sizeof *n);
            if (!n)
                return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
            x->task = n;
            *cap = nc;
        }
        proto.u0 = u;
        proto.u1 = u + step < ncol ? u + step : ncol;
        proto.bytes = (proto.u1 - proto.u0) * percol;
        x->task[x->ntask++] = proto;
    }
    return NT_OK;
}

// A global-order task (j == -2): submatrix columns u0..u1 of the merged column list; every
// column is copied in one pass down all its source and target columns.
static void run_gtask(pctx *x, const ptask *tk)
{
    const nt_plan_geo_t *g = x->v->geo;
    size_t es = g->es;
    const struct nt_matrix_mem *sm = x->src->mem, *dm = x->dst->mem;
    size_t slot = thread_slot(x, tk->dom);
    const char **scol = x->scol + slot * (size_t)g->gs.p;
    char **dcol = x->dcol + slot * (size_t)g->gt.p;
    for (int64_t k = run_at(&x->gc, 0, tk->u0); k < x->gc.cnt[0]; k++) {
        const prun *cr = &x->gc.r[k];
        int64_t lo = tk->u0 > cr->u ? tk->u0 - cr->u : 0;
        int64_t hi = tk->u1 < cr->u + cr->len ? tk->u1 - cr->u : cr->len;
        for (int64_t y = lo; y < hi; y++) {
            for (int a = 0; a < g->gs.p; a++) {
                int i = a * g->gs.q + cr->a;
                scol[a] = sm->local[i]
                              ? sm->local[i] + (size_t)((cr->sl + y) * x->src->lld[i]) * es
                              : NULL;
            }
            for (int b = 0; b < g->gt.p; b++) {
                int j = b * g->gt.q + cr->b, d = j < x->v->ncomp ? x->v->sigma[j] : x->t.D;
                dcol[b] = d < x->t.D && dm->local[d]
                              ? dm->local[d] + (size_t)((cr->tl + y) * x->dst->lld[d]) * es
                              : NULL;
            }
            copy_column(dcol, scol, x->ga.r, &x->ga.pat[0], es, x->stream);
        }
        if (cr->u + cr->len >= tk->u1)
            break;
    }
    if (x->stream)
        stream_fence();
    nt_team_task_done(&x->t, tk->dom, tk->bytes);
}

// Global-order tasks: the submatrix's columns split by bytes, dealt round-robin to the domains
// that have cpus.
static nt_status global_tasks(pctx *x, int64_t *cap)
{
    const nt_plan_geo_t *g = x->v->geo;
    int64_t percol = g->sub.rows * (int64_t)g->es, first = x->ntask;
    nt_status st = NT_OK;
    if (percol > 0 && g->sub.cols > 0)
        st = add_tasks(x, cap, (ptask){-2, 0, 0, 0, 0, 0, 0, 0}, 0, g->sub.cols, percol);
    for (int64_t k = first, d = 0; k < x->ntask && st == NT_OK; k++) {
        for (int n = 0; n < x->t.D && x->t.tpd[d] == 0; n++)
            d = (d + 1) % x->t.D;
        x->task[k].dom = (int)d;
        d = (d + 1) % x->t.D;
    }
    return st;
}

// Source-driven tasks: every source domain of the grid, its columns split by bytes.
static nt_status source_tasks(pctx *x, int64_t *cap)
{
    const nt_plan_geo_t *g = x->v->geo;
    nt_status st = NT_OK;
    for (int a = 0; a < g->gs.p && st == NT_OK; a++)
        for (int c = 0; c < g->gs.q && st == NT_OK; c++) {
            int64_t percol = x->ms.total[a] * (int64_t)g->es, ncol = x->cs.total[c];
            int i = a * g->gs.q + c;
            if (percol > 0 && ncol > 0)
                st = add_tasks(x, cap, (ptask){-1, c, a, pick_domain(&x->t, i, i), 0, 0, 0, 0},
                               0, ncol, percol);
        }
    return st;
}

// Tasks of one (source, target) pair's ncol columns of rb bytes: in phase 0, or poured into
// the pair's one-port phases in order, each taking whole columns until it holds its share.
static nt_status pair_tasks(pctx *x, int64_t *cap, ptask t, int i, int d, int64_t ncol,
                            int64_t rb)
{
    size_t k = (size_t)i * (size_t)x->t.D + (size_t)d;
    if (i == d || !x->ps.pfirst || x->ps.pfirst[k] == x->ps.pfirst[k + 1])
        return add_tasks(x, cap, t, 0, ncol, rb);
    int64_t u = 0;
    nt_status st = NT_OK;
    for (int64_t e = x->ps.pfirst[k]; e < x->ps.pfirst[k + 1] && u < ncol && st == NT_OK; e++) {
        int64_t n = (x->ps.cap[e] + rb - 1) / rb;
        int64_t u1 = e + 1 == x->ps.pfirst[k + 1] || u + n > ncol ? ncol : u + n;
        t.phase = (int)x->ps.ph[e];
        st = add_tasks(x, cap, t, u, u1, rb);
        u = u1;
    }
    return st;
}

// Tasks of target component j (grid row b, column e) on domain d.
static nt_status component_tasks(pctx *x, int64_t *cap, int j, bool on_source)
{
    const nt_plan_geo_t *g = x->v->geo;
    int b = j / g->gt.q, e = j % g->gt.q, d = x->v->sigma[j];
    int64_t es = (int64_t)g->es, all = 0;
    for (int a = 0; a < g->gs.p; a++)
        all += x->rr.total[a * g->gt.p + b] * es;
    nt_status st = NT_OK;
    for (int c = 0; c < g->gs.q && st == NT_OK; c++) {
        int64_t ncol = x->rc.total[c * g->gt.q + e];
        if (ncol == 0 || all == 0)
            continue;
        if (!on_source && !x->ps.pfirst) {
            // Domain c is the source of grid row 0 in this column: the fallback side.
            ptask t = {j, c, -1, pick_domain(&x->t, d, c), 0, 0, 0, 0};
            st = add_tasks(x, cap, t, 0, ncol, all);
            continue;
        }
        // One task list per source: on the source domain, or in the pair's phases.
        for (int a = 0; a < g->gs.p && st == NT_OK; a++) {
            int64_t rb = x->rr.total[a * g->gt.p + b] * es;
            int i = a * g->gs.q + c;
            int dom = on_source ? pick_domain(&x->t, i, d) : pick_domain(&x->t, d, i);
            if (rb > 0)
                st = pair_tasks(x, cap, (ptask){j, c, a, dom, 0, 0, 0, 0}, i, d, ncol, rb);
        }
    }
    return st;
}

// Every task, then sorted by executing domain (counting sort into tfirst).
static nt_status build_tasks(pctx *x, bool on_source)
{
    const nt_plan_view_t *v = x->v;
    int64_t cap = 0, ncomp = (int64_t)v->geo->gt.p * v->geo->gt.q;
    nt_status st = NT_OK;
    if (x->order == NT_ORDER_SOURCE)
        st = source_tasks(x, &cap);
    else if (x->order == NT_ORDER_GLOBAL)
        st = global_tasks(x, &cap);
    for (int j = 0; j < ncomp && j < v->ncomp && st == NT_OK && x->order == NT_ORDER_TARGET;
         j++)
        if (v->sigma[j] < v->ndomains)
            st = component_tasks(x, &cap, j, on_source);
    size_t D = (size_t)v->ndomains, cells = (size_t)x->ps.nphases * D;
    x->tfirst = calloc(cells + 1, sizeof *x->tfirst);
    ptask *sorted = malloc((size_t)(x->ntask > 0 ? x->ntask : 1) * sizeof *sorted);
    if (st == NT_OK && (!x->tfirst || !sorted))
        st = nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    if (st != NT_OK) {
        free(sorted);
        return st;
    }
    for (int64_t k = 0; k < x->ntask; k++)
        x->tfirst[(size_t)x->task[k].phase * D + (size_t)x->task[k].dom + 1]++;
    for (size_t c = 0; c < cells; c++)
        x->tfirst[c + 1] += x->tfirst[c];
    int64_t *cur = calloc(cells, sizeof *cur);
    if (!cur) {
        free(sorted);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int64_t k = 0; k < x->ntask; k++) {
        size_t c = (size_t)x->task[k].phase * D + (size_t)x->task[k].dom;
        sorted[x->tfirst[c] + cur[c]++] = x->task[k];
    }
    free(cur);
    free(x->task);
    x->task = sorted;
    return NT_OK;
}

// Domain d's nested team runs its tasks of phase ph.
static void run_domain(pctx *x, int ph, int d)
{
    size_t c = (size_t)ph * (size_t)x->t.D + (size_t)d;
    int64_t lo = x->tfirst[c], hi = x->tfirst[c + 1];
    if (lo == hi)
        return;
#pragma omp parallel num_threads(nt_team_threads(&x->t, d))
    {
        cpu_set_t saved;
        bool bound = nt_team_bind(&x->t, d, &saved);
#pragma omp single
        for (int64_t k = lo; k < hi; k++) {
#pragma omp task firstprivate(k)
            {
                if (x->task[k].j == -2)
                    run_gtask(x, &x->task[k]);
                else if (x->task[k].j < 0)
                    run_stask(x, &x->task[k]);
                else
                    run_ptask(x, &x->task[k]);
            }
        }
        nt_team_unbind(bound, &saved);
    }
}

static double run_all(pctx *x)
{
    nt_team_begin(&x->t);
    double t0 = nt_now();
#pragma omp parallel num_threads(x->t.D)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int ph = 0; ph < x->ps.nphases; ph++) {
            for (int d = tid; d < x->t.D; d += nth) {
                cpu_set_t saved;
                bool bound = nt_team_bind(&x->t, d, &saved);
                run_domain(x, ph, d);
                nt_team_unbind(bound, &saved);
            }
#pragma omp barrier
        }
    }
    double t1 = nt_now();
    nt_team_end(&x->t);
    return t1 - t0;
}

// The statistics' per-pair arrays, taken before anything is touched.
static nt_status stats_alloc(int D, nt_exec_stats_t *s)
{
    size_t DD = (size_t)D * (size_t)D;
    *s = (nt_exec_stats_t){.ndomains = D};
    s->pair_tiles = malloc(DD * sizeof *s->pair_tiles);
    s->pair_bytes = malloc(DD * sizeof *s->pair_bytes);
    if (!s->pair_tiles || !s->pair_bytes) {
        nt_exec_stats_free(s);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    return NT_OK;
}

// Statistics from the plan's pair tables (every byte of the submatrix is copied) into s, whose
// arrays come from stats_alloc().
static void fill_stats(pctx *x, double alloc_s, double seconds, double bound,
                       nt_exec_stats_t *s)
{
    int D = x->t.D;
    size_t DD = (size_t)D * (size_t)D;
    s->tasks = x->t.tasks;
    s->tasks_on_domain = x->t.tasks_on_domain;
    s->seconds_alloc = alloc_s;
    s->seconds = seconds;
    s->bound_seconds = bound;
    memcpy(s->pair_tiles, x->v->pair_segs, DD * sizeof *s->pair_tiles);
    memcpy(s->pair_bytes, x->v->pair_bytes, DD * sizeof *s->pair_bytes);
    for (int i = 0; i < D; i++)
        for (int d = 0; d < D; d++) {
            int64_t b = s->pair_bytes[(size_t)i * (size_t)D + (size_t)d];
            s->bytes_copied += b;
            s->bytes_moved += i != d ? b : 0;
            s->bytes_node_changed += x->t.node[i] != x->t.node[d] ? b : 0;
        }
    s->bandwidth_gbs = seconds > 0 ? (double)s->bytes_copied / seconds / 1e9 : 0;
    s->bound_gbs = bound > 0 ? (double)s->bytes_copied / bound / 1e9 : 0;
}

// The copy order (nt_exec_order). One-port phases keep the per-pair target order. Without a
// choice: when every domain is on one NUMA node (virtual domains), where a copy runs cannot
// change what memory it touches, and one pass over each column on both sides measured fastest
// here (2x2 -> 4x1, N = 4096, CPU seconds global / source / target order: nb 512 -> 256 0.011
// / 0.010 / 0.025, 64 -> 100 0.014 / 0.025 / 0.028, 8 -> 12 0.015 / 0.022 / 0.068, 1 -> 3
// 0.022 / 0.030 / 0.043): filling a target column from several sources reads part of each
// source region per pass, and the rest is read again later by another domain. Otherwise the
// side the caller asked for.
static nt_exec_order exec_order(const pctx *x, const nt_exec_opts_t *o)
{
    if (o->schedule != NT_SCHED_FREE)
        return NT_ORDER_TARGET;
    if (o->order != NT_ORDER_AUTO)
        return o->order;
    bool one_node = true;
    for (int d = 1; d < x->t.D; d++)
        one_node = one_node && x->t.node[d] == x->t.node[0];
    if (one_node)
        return NT_ORDER_GLOBAL;
    return o->on_source ? NT_ORDER_SOURCE : NT_ORDER_TARGET;
}

// The copy threads' column tables, and the merged lists the chosen task order reads.
static nt_status lists_alloc(pctx *x)
{
    size_t n = (size_t)x->t.D * (size_t)x->t.tpd_max;
    x->scol = malloc(n * (size_t)x->v->geo->gs.p * sizeof *x->scol);
    x->dcol = malloc(n * (size_t)x->v->geo->gt.p * sizeof *x->dcol);
    if (!x->scol || !x->dcol)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    if (x->order == NT_ORDER_TARGET)
        return merge_runs(&x->rr, BY_TARGET, &x->mr);
    bool src = x->order == NT_ORDER_SOURCE;
    nt_status st = merge_runs(&x->rr, src ? BY_SOURCE : BY_NONE, src ? &x->ms : &x->ga);
    if (st == NT_OK)
        st = merge_runs(&x->rc, src ? BY_SOURCE : BY_NONE, src ? &x->cs : &x->gc);
    return st;
}

// A fresh target takes the plan's (relabelled) map and its memory; on failure it is as before.
static nt_status alloc_target(nt_matrix_t *dst, const nt_plan_view_t *v)
{
    nt_owner_state_t old = {0};
    nt_status st = nt_matrix_set_owner(dst, v->dst_owner, v->ndomains, &old);
    if (st)
        return st;
    if ((st = nt_matrix_alloc(dst)) != NT_OK) {
        nt_matrix_owner_restore(dst, &old);
        return st;
    }
    nt_matrix_owner_discard(&old);
    return NT_OK;
}

// Everything the copies need, before anything is touched: runs of both dimensions, the
// order, merged lists, phases and tasks.
static nt_status prepare(pctx *x, nt_plan_t *plan, const nt_exec_opts_t *o)
{
    const nt_plan_geo_t *g = x->v->geo;
    nt_dim_t dr = {0}, dc = {0};
    nt_status st = nt_plan_geo_dims(g, &dr, &dc);
    if (st == NT_OK && (st = runs_build(g, &dr, true, &x->rr)) == NT_OK)
        st = runs_build(g, &dc, false, &x->rc);
    nt_dim_free(&dr);
    nt_dim_free(&dc);
    if (st)
        return st;
    x->order = exec_order(x, o);
    x->stream = g->sub.rows * g->sub.cols * (int64_t)g->es >= STREAM_TOTAL;
    if ((st = lists_alloc(x)) != NT_OK ||
        (o->schedule == NT_SCHED_STEPS && (st = build_phases(x, plan)) != NT_OK))
        return st;
    return build_tasks(x, o->on_source);
}

static void pctx_free(pctx *x)
{
    runs *all[] = {&x->rr, &x->rc, &x->mr, &x->ms, &x->cs, &x->ga, &x->gc};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        runs_free(all[k]);
    free(x->scol);
    free(x->dcol);
    free(x->task);
    free(x->tfirst);
    free(x->ps.pfirst);
    free(x->ps.ph);
    free(x->ps.cap);
    nt_team_free(&x->t);
}

nt_status nt_exec_periodic(nt_plan_t *plan, const nt_plan_view_t *v, nt_matrix_t *src,
                           nt_matrix_t *dst, const nt_exec_opts_t *o, nt_exec_stats_t *stats)
{
    pctx x = {.v = v, .src = src, .dst = dst, .ps = {.nphases = 1}};
    nt_exec_stats_t s = {0};
    nt_status st;
    if ((st = nt_team_init(&x.t, src->topo, v->ndomains, o)) != NT_OK ||
        (stats && (st = stats_alloc(v->ndomains, &s)) != NT_OK) ||
        (st = prepare(&x, plan, o)) != NT_OK)
        goto out;
    double ta = nt_now();
    if (!dst->allocated && (st = alloc_target(dst, v)) != NT_OK)
        goto out;
    double tb = nt_now();
    double seconds = run_all(&x);
    double bound = 0;
    if (o->measure_bound) {
        nt_team_begin(&x.t);
        bound = nt_team_measure_bound(&x.t);
        nt_team_end(&x.t);
    }
    if (stats) {
        fill_stats(&x, tb - ta, seconds, bound, &s);
        *stats = s;
        s = (nt_exec_stats_t){0};
    }
out:
    nt_exec_stats_free(&s);
    pctx_free(&x);
    return st;
}
