// The periodic strategy of the executor table (lib/redist/nt_strategy.h), which takes every
// periodic plan: block-cyclic maps and ScaLAPACK layouts on both sides.
//
// Nothing is listed per segment: both dimensions become lists of runs of local indices
// (periodic_runs.c), and a copy walks local columns and copies each column's runs
// (periodic_copy.c). Memory and set-up time are O(tile rows + tile columns).
//
// Three orders of work (nt_exec_order), each a set of tasks split by bytes:
// - TARGET: a task is (target component, source grid column, range of target columns); each
//   target column is filled top to bottom from every source, on the target domain. With
//   on_source or one-port steps there is one task list per (source, target) pair instead, on
//   the source domain or poured column by column into the pair's phases of the schedule.
// - SOURCE: a task is (source domain, range of its columns); each source column is read top
//   to bottom into every target, on the source domain.
// - GLOBAL: a task is a range of the submatrix's columns; each column is copied in one pass
//   over all its sources and targets, tasks dealt to every domain (for virtual domains, which
//   share one node). Large moves whose runs average 4 elements or more (16 without AVX-512)
//   write each target column through a line writer (nt_lines.h), so that whole target lines
//   are streamed (see lines_init()), or, runs of whole halves of a line or less on average,
//   through pair programs (periodic_pairs.c); other runs of 12 elements or less on average,
//   of any length from 2 (AVX-512), through mask programs (periodic_masks.c, masks_init());
//   runs of one element (CYCLIC(1)) go through unit programs (periodic_unit.c), also in
//   TARGET order when one task takes all the sources of a target column. The writers' masked
//   loop reads a column ahead, and mask programs do where sources are read in pieces.
// Nothing can fail after the target is allocated, so "nothing lost" only needs the allocation
// (and every table) first.
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "lib/redist/nt_exec.h"
#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_lines.h"
#include "lib/matrix/nt_matrix.h"
#include "nt_periodic.h"
#include "lib/redist/nt_plan.h"
#include "lib/redist/nt_strategy.h"

// Test hooks (nt_periodic.h). Line writers: -1 by run length, 0 never, 1 whenever possible, 2
// the same without AVX-512, 4 the same without halves; unit programs: -1 when the move
// streams, 0 never, 1 whenever possible; pair programs: -1 for short runs, 0 never, 1 whenever
// possible; mask programs and reads ahead: -1 by the rules of masks_init() and ahead_init(), 0
// never, 1 whenever possible. And the counts of executions that wrote through line writers,
// of those that wrote whole halves, and of those that used unit, pair and mask programs and
// reads ahead.
static _Atomic int lines_mode = -1, unit_mode = -1, pairs_mode = -1, ahead_mode = -1,
                   masks_mode = -1;
static _Atomic int64_t lines_used, halves_used, unit_used, pairs_used, ahead_used, masks_used;

int64_t nt_exec_test_lines(int mode)
{
    atomic_store(&lines_mode, mode);
    return atomic_exchange(&lines_used, 0);
}

int64_t nt_exec_test_halves(void)
{
    return atomic_exchange(&halves_used, 0);
}

int64_t nt_exec_test_pairs(int mode)
{
    atomic_store(&pairs_mode, mode);
    return atomic_exchange(&pairs_used, 0);
}

int64_t nt_exec_test_masks(int mode)
{
    atomic_store(&masks_mode, mode);
    return atomic_exchange(&masks_used, 0);
}

int64_t nt_exec_test_ahead(int mode)
{
    atomic_store(&ahead_mode, mode);
    return atomic_exchange(&ahead_used, 0);
}

int64_t nt_exec_test_unit(int mode)
{
    atomic_store(&unit_mode, mode);
    return atomic_exchange(&unit_used, 0);
}

// Target bytes a task copies, about (whole columns).
#define PERIODIC_GRAIN ((int64_t)512 << 10)

// One task (see run_task() for its kinds): columns u0..u1 of a column list, run on domain
// `dom` in phase `phase`, copying `bytes`.
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
    nt_team_t *t; // the job's
    const nt_plan_view_t *v;
    const nt_matrix_t *src;
    nt_matrix_t *dst;
    // Where the columns of every local matrix are, read-only while the copies run (see
    // tables_fill()): one load per column pointer. Reaching them through the matrices and the
    // plan view (four dependent loads whose lines the streamed columns keep evicting) cost
    // 5-7% of a copy (nb 64 -> 100, N = 8192, alternated in one process).
    const char **sbase; // source grid (a, c), index a * gs_q + c: local base (NULL: none)
    char **dbase;       // target component (b, e), index b * gt_q + e: its domain's local base
    int64_t *sstep, *dstep; // bytes per local column, as sbase and dbase
    const int64_t *slld;    // the source's leading dimensions (elements), as sbase
    int gs_p, gs_q, gt_p, gt_q; // the grids (geo->gs, geo->gt), copied by prepare()
    size_t es;              // element size, likewise
    runs rr, rc;     // rows by (source row, target row), columns by (source col, target col)
    runs mr;         // rows by target row, all sources merged in target order
    runs ms, cs;     // source order: rows and columns by source, in source order
    runs ga, gc;     // global order: all rows, all columns, in submatrix order
    nt_exec_order order; // TARGET, SOURCE or GLOBAL (see exec_order())
    // Per copy thread, in cache lines of its own (two threads writing one line every column
    // would pass it back and forth): the source column of every source grid row (sstride
    // entries a thread), the target column of every target grid row (dstride entries).
    const char **scol;
    char **dcol;
    size_t sstride, dstride;
    pphases ps;      // nphases = 1 and no pair phases under FREE
    bool stream;     // long runs with non-temporal stores (a move far larger than the caches)
    // Global order under streaming with 8-byte elements: per copy thread one line writer per
    // target grid row, which writes its column of each submatrix column (see lines_init()).
    nt_lines *lines;
    lrun *lruns;       // the global-order rows list, as the writers read it
    bool lines_avx512; // their AVX-512 loop
    bool lines_quad;   // every run whole halves of lines (see lines_init())
    bool ahead;        // ask for the next column's source lines as they go (see ahead_init())
    nt_pairs *pairs;   // ... and short: whole lines as pairs of halves (periodic_pairs.c)
    nt_masks *masks;   // short runs not whole halves: lines of masked loads (periodic_masks.c)
    int64_t *lfirst; // per target grid row: its first local row in a column
    // Runs of one element (CYCLIC(1)): whole target lines assembled from source windows and
    // streamed (periodic_unit.c; see unit_init()).
    nt_unit *unit;   // global order: one program for all targets
    nt_unit **tunit; // target order, all sources: per target grid row, its list's program
    ptask *task;
    int64_t ntask;
    int64_t *tfirst; // tasks of phase t, domain d: task[tfirst[t*D + d] .. tfirst[t*D + d + 1])
} pctx;

// This thread's slot in the per-thread tables.
static size_t thread_slot(const pctx *x, int dom)
{
    int tid = omp_get_thread_num();
    return (size_t)dom * (size_t)x->t->tpd_max + (size_t)(tid < x->t->tpd_max ? tid : 0);
}

// Column `col` of source domain (a, c)'s local matrix (NULL when that domain holds nothing).
static const char *src_column(const pctx *x, int a, int c, int64_t col)
{
    int i = a * x->gs_q + c;
    return x->sbase[i] ? x->sbase[i] + col * x->sstep[i] : NULL;
}

// Column `col` of target component (b, e)'s local matrix (NULL when it has no domain or tile).
static char *dst_column(const pctx *x, int b, int e, int64_t col)
{
    int j = b * x->gt_q + e;
    return x->dbase[j] ? x->dbase[j] + col * x->dstep[j] : NULL;
}

// A task's per-thread column tables and the rows list it copies down every column.
typedef struct colctx {
    const ptask *tk;
    const char **scol;
    char **dcol;
    nt_lines *w; // global order with line writers: this thread's, one per target grid row
    const prun *rows;
    const plist *pat;
} colctx;

typedef void (*column_fn)(pctx *x, colctx *cc, const prun *cr, int64_t y);

// Column y of column run cr, by order: TARGET fills the task's target column from its sources
// (all, or one), SOURCE reads the task's source column into every target, GLOBAL both.
static void target_column(pctx *x, colctx *cc, const prun *cr, int64_t y)
{
    const ptask *tk = cc->tk;
    int e = tk->j % x->gt_q, b = tk->j / x->gt_q;
    int a0 = tk->a < 0 ? 0 : tk->a, a1 = tk->a < 0 ? x->gs_p : tk->a + 1;
    cc->dcol[b] = dst_column(x, b, e, cr->tl + y);
    for (int a = a0; a < a1; a++)
        cc->scol[a] = src_column(x, a, tk->c, cr->sl + y);
    if (tk->a < 0 && x->tunit && x->tunit[b]) {
        // b's program has no element of another target: their dcol entries are not read.
        nt_unit_column(x->tunit[b], cc->dcol, cc->scol, x->slld + tk->c, x->gs_q);
        return;
    }
    nt_copy_column(cc->dcol, cc->scol, cc->rows, cc->pat, x->es, x->stream);
}

static void source_column(pctx *x, colctx *cc, const prun *cr, int64_t y)
{
    cc->scol[cc->tk->a] = src_column(x, cc->tk->a, cc->tk->c, cr->sl + y);
    for (int b = 0; b < x->gt_p; b++)
        cc->dcol[b] = dst_column(x, b, cr->b, cr->tl + y);
    nt_copy_column(cc->dcol, cc->scol, cc->rows, cc->pat, x->es, x->stream);
}

static void global_column(pctx *x, colctx *cc, const prun *cr, int64_t y)
{
    for (int a = 0; a < x->gs_p; a++)
        cc->scol[a] = src_column(x, a, cr->a, cr->sl + y);
    for (int b = 0; b < x->gt_p; b++)
        cc->dcol[b] = dst_column(x, b, cr->b, cr->tl + y);
    if (x->unit) {
        nt_unit_column(x->unit, cc->dcol, cc->scol, x->slld + cr->a, x->gs_q);
        return;
    }
    if (x->masks) {
        nt_masks_column(x->masks, cc->dcol, cc->scol, x->ahead ? x->sstep + cr->a : NULL,
                     x->gs_q);
        return;
    }
    if (x->lines) {
        int P = x->gt_p;
        nt_lines *w = cc->w;
        uintptr_t odd = 0;
        for (int b = 0; b < P; b++)
            if (cc->dcol[b] && x->lfirst[b] >= 0)
                odd |= (uintptr_t)cc->dcol[b] & 31;
        if (x->pairs && odd == 0) {
            nt_pairs_column(x->pairs, cc->dcol, cc->scol);
            return;
        }
        for (int b = 0; b < P; b++)
            if (cc->dcol[b] && x->lfirst[b] >= 0)
                nt_lines_start(&w[b], (uint64_t *)(void *)cc->dcol[b] + x->lfirst[b]);
        nt_copy_column_lines(w, cc->scol, x->lruns, cc->pat, x->lines_avx512,
                          x->lines_quad && odd == 0, x->ahead ? x->sstep + cr->a : NULL,
                          x->gs_q);
        for (int b = 0; b < P; b++)
            nt_lines_flush(&w[b]);
        return;
    }
    nt_copy_column(cc->dcol, cc->scol, cc->rows, cc->pat, x->es, x->stream);
}

// Run one task: every column of positions u0..u1 of column list k of C, then account for it.
static void run_columns(pctx *x, const ptask *tk, const runs *C, size_t k, colctx *cc,
                        column_fn fn)
{
    size_t slot = thread_slot(x, tk->dom);
    cc->tk = tk;
    cc->scol = x->scol + slot * x->sstride;
    cc->dcol = x->dcol + slot * x->dstride;
    cc->w = x->lines ? x->lines + slot * (size_t)x->gt_p : NULL;
    for (int64_t r = nt_run_at(C, k, tk->u0); r < C->first[k] + C->cnt[k]; r++) {
        const prun *cr = &C->r[r];
        int64_t lo = tk->u0 > cr->u ? tk->u0 - cr->u : 0;
        int64_t hi = tk->u1 < cr->u + cr->len ? tk->u1 - cr->u : cr->len;
        for (int64_t y = lo; y < hi; y++)
            fn(x, cc, cr, y);
        if (cr->u + cr->len >= tk->u1)
            break;
    }
    if (x->stream || x->unit || x->tunit)
        nt_stream_fence();
    nt_team_task_done(x->t, tk->dom, tk->bytes);
}

// A task by its kind: j >= 0 target order (component j, source grid column c, source grid row
// a or all, columns of list (c, j's grid column)); j == -1 source order (source domain (a, c),
// columns of its merged list); j == -2 global order (columns of the whole submatrix).
static void run_task(pctx *x, const ptask *tk)
{
    const nt_plan_geo_t *g = x->v->geo;
    colctx cc = {0};
    if (tk->j == -2) {
        cc.rows = x->ga.r;
        cc.pat = &x->ga.pat[0];
        run_columns(x, tk, &x->gc, 0, &cc, global_column);
    } else if (tk->j == -1) {
        cc.rows = &x->ms.r[x->ms.first[tk->a]];
        cc.pat = &x->ms.pat[tk->a];
        run_columns(x, tk, &x->cs, (size_t)tk->c, &cc, source_column);
    } else {
        // All sources: the merged list of target row b; one source: its own list.
        size_t b = (size_t)(tk->j / g->gt.q), e = (size_t)(tk->j % g->gt.q);
        const runs *R = tk->a < 0 ? &x->mr : &x->rr;
        size_t kr = tk->a < 0 ? b : (size_t)tk->a * (size_t)g->gt.p + b;
        cc.rows = &R->r[R->first[kr]];
        cc.pat = &R->pat[kr];
        run_columns(x, tk, &x->rc, (size_t)tk->c * (size_t)g->gt.q + e, &cc, target_column);
    }
}

// The one-port phases of every pair from the plan's schedule (phase 0: local copies).
static nt_status build_phases(pctx *x, nt_plan_t *plan)
{
    const nt_schedule_t *sc;
    nt_status st = nt_plan_schedule(plan, &sc);
    if (st)
        return st;
    size_t DD = (size_t)x->t->D * (size_t)x->t->D;
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
        P->pfirst[(size_t)sc->src[e] * (size_t)x->t->D + (size_t)sc->dst[e] + 1]++;
    for (size_t k = 0; k < DD; k++)
        P->pfirst[k + 1] += P->pfirst[k];
    for (int t = 0; t < sc->nphases; t++)
        for (int64_t e = sc->first[t]; e < sc->first[t + 1]; e++) {
            size_t k = (size_t)sc->src[e] * (size_t)x->t->D + (size_t)sc->dst[e];
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
        for (int n = 0; n < x->t->D && x->t->tpd[d] == 0; n++)
            d = (d + 1) % x->t->D;
        x->task[k].dom = (int)d;
        d = (d + 1) % x->t->D;
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
                st = add_tasks(x, cap, (ptask){-1, c, a, pick_domain(x->t, i, i), 0, 0, 0, 0},
                               0, ncol, percol);
        }
    return st;
}

// Tasks of one (source, target) pair's ncol columns of rb bytes: in phase 0, or poured into
// the pair's one-port phases in order, each taking whole columns until it holds its share.
static nt_status pair_tasks(pctx *x, int64_t *cap, ptask t, int i, int d, int64_t ncol,
                            int64_t rb)
{
    size_t k = (size_t)i * (size_t)x->t->D + (size_t)d;
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
            ptask t = {j, c, -1, pick_domain(x->t, d, c), 0, 0, 0, 0};
            st = add_tasks(x, cap, t, 0, ncol, all);
            continue;
        }
        // One task list per source: on the source domain, or in the pair's phases.
        for (int a = 0; a < g->gs.p && st == NT_OK; a++) {
            int64_t rb = x->rr.total[a * g->gt.p + b] * es;
            int i = a * g->gs.q + c;
            int dom = on_source ? pick_domain(x->t, i, d) : pick_domain(x->t, d, i);
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
    size_t c = (size_t)ph * (size_t)x->t->D + (size_t)d;
    int64_t lo = x->tfirst[c], hi = x->tfirst[c + 1];
    if (lo == hi)
        return;
#pragma omp parallel num_threads(nt_team_threads(x->t, d))
    {
        cpu_set_t saved;
        bool bound = nt_team_bind(x->t, d, &saved);
#pragma omp single
        for (int64_t k = lo; k < hi; k++) {
#pragma omp task firstprivate(k)
            run_task(x, &x->task[k]);
        }
        nt_team_unbind(bound, &saved);
    }
}

// Every phase; the envelope began the team.
static double run_all(pctx *x)
{
    double t0 = nt_now();
#pragma omp parallel num_threads(x->t->outer)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int ph = 0; ph < x->ps.nphases; ph++) {
            for (int d = tid; d < x->t->D; d += nth) {
                cpu_set_t saved;
                bool bound = nt_team_bind(x->t, d, &saved);
                run_domain(x, ph, d);
                nt_team_unbind(bound, &saved);
            }
#pragma omp barrier
        }
    }
    return nt_now() - t0;
}

// True when source order writes whole target lines only, all streamed: the move streams,
// there are runs, every row run is NT_STREAM_RUN bytes or more and starts and ends on a target
// line, and the columns of every target local matrix start on one (local matrices are
// page-aligned). The target's leading dimensions are read by its own labels (dst->ndomains of
// them): a fresh target takes the plan's relabelled map only later, and relabelling permutes
// which domain holds which local matrix, not their shapes.
static bool runs_whole_lines(const pctx *x)
{
    const nt_plan_geo_t *g = x->v->geo;
    int64_t es = (int64_t)g->es, nruns = 0;
    size_t nk = (size_t)x->rr.na * (size_t)x->rr.nb;
    if (!x->stream)
        return false;
    for (int d = 0; d < x->dst->ndomains; d++)
        if (x->dst->lld[d] * es % 64 != 0)
            return false;
    for (size_t l = 0; l < nk; l++)
        for (int64_t k = x->rr.first[l]; k < x->rr.first[l] + x->rr.cnt[l]; k++, nruns++) {
            const prun *r = &x->rr.r[k];
            if (r->len * es < NT_STREAM_RUN || r->tl * es % 64 != 0 || r->len * es % 64 != 0)
                return false;
        }
    return nruns > 0;
}

// The copy order (nt_exec_order). One-port phases keep the per-pair target order. Without a
// choice, when every domain is on one NUMA node (virtual domains), where a copy runs cannot
// change what memory it touches:
// - runs of whole, streamed target lines (runs_whole_lines): source order, every source column
//   read once into two or more target streams (2x2 -> 4x1, copy / same-run bound, source and
//   global order alternated in one process: nb 512 -> 256 0.94-0.97 against 0.90-0.92 at
//   N = 4096 and 8192; same grid nb 64 -> 64 0.92-0.94 against 0.86-0.92);
// - else global order, one pass over each column on both sides, which measured fastest here
//   (N = 4096, CPU seconds global / source / target order: nb 64 -> 100 0.014 / 0.025 /
//   0.028, 8 -> 12 0.015 / 0.022 / 0.068, 1 -> 3 0.022 / 0.030 / 0.043; copy / bound 0.75-0.95
//   against 0.35-0.44 in source order): there target lines are shared by runs of different
//   sources, which source order writes at different times with ordinary stores.
// Otherwise the side the caller asked for.
static nt_exec_order exec_order(const pctx *x, const nt_exec_opts_t *o)
{
    if (o->schedule != NT_SCHED_FREE)
        return NT_ORDER_TARGET;
    if (o->order != NT_ORDER_AUTO)
        return o->order;
    bool one_node = true;
    for (int d = 1; d < x->t->D; d++)
        one_node = one_node && x->t->node[d] == x->t->node[0];
    if (one_node)
        return runs_whole_lines(x) ? NT_ORDER_SOURCE : NT_ORDER_GLOBAL;
    return o->on_source ? NT_ORDER_SOURCE : NT_ORDER_TARGET;
}

// The copy threads' column tables, the tables of where each local matrix's columns are (filled
// by tables_fill() once the target has its memory), and the merged lists the chosen task order
// reads.
static nt_status lists_alloc(pctx *x)
{
    size_t n = (size_t)x->t->D * (size_t)x->t->tpd_max, line = 64 / sizeof(char *);
    x->sstride = ((size_t)x->gs_p + line - 1) / line * line;
    x->dstride = ((size_t)x->gt_p + line - 1) / line * line;
    x->scol = aligned_alloc(64, n * x->sstride * sizeof *x->scol);
    x->dcol = aligned_alloc(64, n * x->dstride * sizeof *x->dcol);
    size_t ns = (size_t)x->gs_p * (size_t)x->gs_q, nd = (size_t)x->gt_p * (size_t)x->gt_q;
    x->sbase = malloc(ns * sizeof *x->sbase);
    x->sstep = malloc(ns * sizeof *x->sstep);
    x->dbase = malloc(nd * sizeof *x->dbase);
    x->dstep = malloc(nd * sizeof *x->dstep);
    if (!x->scol || !x->dcol || !x->sbase || !x->sstep || !x->dbase || !x->dstep)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    if (x->order == NT_ORDER_TARGET)
        return nt_merge_runs(&x->rr, BY_TARGET, &x->mr);
    bool src = x->order == NT_ORDER_SOURCE;
    nt_status st = nt_merge_runs(&x->rr, src ? BY_SOURCE : BY_NONE, src ? &x->ms : &x->ga);
    if (st == NT_OK)
        st = nt_merge_runs(&x->rc, src ? BY_SOURCE : BY_NONE, src ? &x->cs : &x->gc);
    return st;
}

// Pair programs (periodic_pairs.c) where every run is whole halves (lines_quad) and runs
// average a line or less: there the writers' work per run outweighs the copy. Alternated in
// one process (N = 8192 unless said, 2x2 -> 4x1, copy / bound): nb 8 -> 12 0.91-0.92 against
// 0.85-0.87 at N = 4096, on one core 0.73-0.76 against 0.57-0.62 (8192: 0.78-0.79 against
// 0.75); in a fast spell 4 -> 12 0.75 against 0.58, 12 -> 8 0.76 against 0.26, 12 -> 16
// (runs of 8 on average) 0.71 against 0.34, 16 -> 12 (also 8) 0.77 both. Longer runs stay
// with the writers (24 -> 16 0.74 against 0.87, 32 -> 48 0.83 against 0.89). The writers
// remain for columns that do not start on a half.
static nt_status pairs_init(pctx *x)
{
    int mode = atomic_load(&pairs_mode);
    // A line or less on average; 9, so that the runs cut at a column's ends do not tip
    // patterns of exactly a line (12 -> 16 over 8192 rows: 1023 runs) over.
    if (!x->lines_quad || mode == 0 || (mode < 0 && x->ga.total[0] >= 9 * x->ga.first[1]))
        return NT_OK;
    nt_status st = nt_pairs_build(x->ga.r, &x->ga.pat[0], x->gs_p, x->gt_p, &x->pairs);
    if (st == NT_OK && x->pairs)
        atomic_fetch_add(&pairs_used, 1);
    return st;
}

// The rows' period of the grids (lcm of the two row periods): each target grid row takes *dt
// rows of it and each source grid row *ds; false when *dt would exceed max_dt.
static bool grid_period(const pctx *x, int64_t max_dt, int64_t *dt, int64_t *ds)
{
    const nt_plan_geo_t *g = x->v->geo;
    int64_t ps = g->gs.smb * g->smb * g->gs.p, pt = g->gt.smb * g->tmb * g->gt.p;
    if (ps <= 0 || pt <= 0)
        return false;
    int64_t q = ps / nt_gcd64(ps, pt); // the period is q * pt rows
    if (q > max_dt * (int64_t)g->gt.p / pt)
        return false;
    *dt = q * pt / g->gt.p;
    *ds = q * pt / g->gs.p;
    return true;
}

// The period of a list for unit programs: its pattern's when one was found (a short column
// repeats with a period its grids need not have), else the grids'.
static bool list_period(const pctx *x, const plist *L, int64_t *dt, int64_t *ds)
{
    if (L->npat <= MAX_PERIOD && L->dt > 0 && L->ds > 0) {
        *dt = L->dt;
        *ds = L->ds;
        return true;
    }
    return grid_period(x, 1024, dt, ds);
}

// Mask programs (periodic_masks.c) for short runs that are not whole halves: there a writer's
// branches per run outweigh the copy, and below 4 elements a run (where the writers are not
// used) plain copies read every target line first. The rows repeat every lcm of the two grids'
// row periods, of which each target grid row takes dt and each source grid row ds (programs
// take periods of at most 128 rows a target). 2x2 -> 4x1, N = 8192, copy / bound without and
// with, alternated process by process (7 repetitions): whole matrices nb 6 -> 9 (runs of 3.6
// on average) 0.29 -> 0.83, 10 -> 6 0.29 -> 0.79; bench scalapack's submatrix, runs of
// 1 / (1 / smb + 1 / tmb) on average: 6 -> 9 (3.6) 0.51 -> 0.61, 8 -> 12 (4.8) 0.59 -> 0.68,
// 16 -> 24 (9.6) 0.73 -> 0.76, but 24 -> 36 (14.4) 0.75 -> 0.64 and 32 -> 48 (19.2) 0.78 ->
// 0.71, hence runs of at most 12 on average.
#define NT_MASKS_RUN 12
static nt_status masks_init(pctx *x)
{
    const nt_plan_geo_t *g = x->v->geo;
    int mode = atomic_load(&masks_mode);
    // Global order of 8-byte elements under streaming, not whole halves (pair programs or the
    // writers' halves), not runs of one (unit programs); by default not when a test forces the
    // writers, which keep their runs then.
    if (x->order != NT_ORDER_GLOBAL || !x->stream || g->es != 8 || !nt_lines_avx512() ||
        x->lines_quad || x->ga.first[1] == 0 || x->ga.pat[0].unit || mode == 0 ||
        (mode < 0 && (x->ga.total[0] > NT_MASKS_RUN * x->ga.first[1] ||
                      atomic_load(&lines_mode) > 0)))
        return NT_OK;
    int64_t dt, ds;
    if (!grid_period(x, 128, &dt, &ds))
        return NT_OK;
    nt_status st = nt_masks_build(x->ga.r, x->ga.cnt[0], x->gs_p, x->gt_p, dt, ds, &x->masks);
    if (st == NT_OK && x->masks)
        atomic_fetch_add(&masks_used, 1);
    return st;
}

// Whether some source's columns are read in pieces: its rows of the submatrix do not fill its
// local column, so the next column's rows do not follow this column's in memory.
static bool source_gapped(const pctx *x)
{
    for (int a = 0; a < x->gs_p; a++) {
        int64_t rows = 0;
        for (int b = 0; b < x->gt_p; b++)
            rows += x->rr.total[a * x->gt_p + b];
        for (int c = 0; c < x->gs_q && rows > 0; c++)
            if (rows < x->src->lld[a * x->gs_q + c])
                return true;
    }
    return false;
}

// Reads ahead: each run (the writers' masked loop) or each line (mask programs) first asks
// for the same source rows of the next column (a column's time ahead). The writers' masked loop
// otherwise waits on memory run after run: interleaved short runs of two sources and four
// targets, off the grid of halves, are not followed by the hardware prefetchers (2x2 -> 4x1,
// N = 4096, whole matrices, copy / bound without and with, 9 repetitions: nb 7 -> 64 0.36 ->
// 0.67, 10 -> 128 0.29 -> 0.72, 13 -> 100 0.48 -> 0.80, 50 -> 13 0.37 -> 0.84, 256 -> 13 0.40
// -> 0.86, 5 -> 100 0.27 -> 0.42; longer runs gain less or nothing: 128 -> 50 0.81 -> 0.90,
// 200 -> 50 0.82 -> 0.92, 64 -> 50 0.89 -> 0.90, 100 -> 50 0.88 -> 0.89, 50 -> 256 0.90 ->
// 0.94), and where sources are read in pieces a core waits at every piece (a plain streamed
// copy of 16 KiB pieces 16 KiB apart, one core: 17.7 GB/s against 29.9 contiguous, 24.4 asking
// one piece ahead; the bench's submatrix, nb 64 -> 100, N = 8192: 0.62 -> 0.73-0.74, in a fast
// spell of the host 0.41-0.42 -> 0.58-0.61, one core 11.9 -> 17.0 GB/s). Mask programs already
// ask two cycles ahead within a column, so they read the next column only where sources come
// in pieces (the bench's submatrix, nb 8 -> 12: 0.61 -> 0.68; whole matrices lose: 6 -> 9 0.85
// -> 0.76). The writers' whole halves do not read ahead (64 -> 100 whole, forced: 0.92 ->
// 0.80; half the rows on a block boundary 0.77 -> 0.73).
static void ahead_init(pctx *x)
{
    int mode = atomic_load(&ahead_mode);
    bool writers = !x->masks && x->lines && x->lines_avx512 && !x->lines_quad;
    x->ahead = mode != 0 && (writers || (x->masks && (mode > 0 || source_gapped(x))));
    if (x->ahead)
        atomic_fetch_add(&ahead_used, 1);
}

// Line writers for global order (see nt_lines.h): when the move streams, elements are 8 bytes
// and runs are long enough on average, the target columns of a submatrix column are written
// through one line writer each, so that whole target lines are streamed. Measured with
// bench/micro/periodic_lines.c (2x2 -> 4x1, N = 4096, copy / same-run bound, with / without
// writers): nb 64 -> 100 0.67-0.82 / 0.49-0.59, 512 -> 256 about equal (its runs are whole
// aligned lines anyway), 8 -> 12 (runs of 4 and 8) 0.68-0.71 / 0.59-0.60 with AVX-512 but
// 0.56-0.58 without, 1 -> 3 (runs of one) 0.12-0.17 / 0.46-0.48: there the writer costs more
// than the reads for ownership it saves. Needs every target's runs in one column to follow each
// other without a gap (always so for block-cyclic maps; checked). Where every run is whole
// halves of lines (4 elements from a multiple of 4: blocks, offsets and leading dimensions of
// multiples of 4), the writers join halves in a register instead of masked expanding loads
// (nt_lines_put4_avx512()): periodic_lines, alternated, 8 -> 12 0.88-0.92 against 0.79-0.87
// (N = 4096 and 8192), 64 -> 100 0.92-0.95 against 0.93-1.01 (within the spread).
static nt_status lines_init(pctx *x)
{
    const nt_plan_geo_t *g = x->v->geo;
    int mode = atomic_load(&lines_mode);
    if (x->order != NT_ORDER_GLOBAL || !x->stream || g->es != 8 || mode == 0)
        return NT_OK;
    int64_t nruns = x->ga.first[1];
    x->lines_avx512 = nt_lines_avx512() && mode != 2;
    int64_t min_run = x->lines_avx512 ? NT_LINES_RUN_AVX512 : NT_LINES_RUN;
    if (nruns == 0 || (mode < 0 && x->ga.total[0] < min_run * nruns))
        return NT_OK;
    int P = g->gt.p;
    int64_t *next = malloc((size_t)P * sizeof *next);
    x->lfirst = malloc((size_t)P * sizeof *x->lfirst);
    if (!next || !x->lfirst) {
        free(next);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int b = 0; b < P; b++)
        next[b] = x->lfirst[b] = -1;
    bool ok = true;
    for (int64_t k = 0; k < nruns && ok; k++) {
        const prun *r = &x->ga.r[k];
        ok = next[r->b] < 0 || next[r->b] == r->tl;
        if (next[r->b] < 0)
            x->lfirst[r->b] = r->tl;
        next[r->b] = r->tl + r->len;
    }
    free(next);
    if (!ok)
        return NT_OK;
    if (!(x->lruns = aligned_alloc(64, ((size_t)nruns * sizeof *x->lruns + 63) / 64 * 64)))
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    if (!nt_lrun_pack(x->ga.r, nruns, x->lruns)) {
        free(x->lruns);
        x->lruns = NULL;
        return NT_OK;
    }
    // Whole halves: runs and first rows of 4 elements, and leading dimensions of 4 (1: a label
    // without local rows), so that columns start on a half when the local matrix starts on a
    // line (global_column() checks each column all the same).
    x->lines_quad = x->lines_avx512 && mode != 4;
    for (int64_t k = 0; k < nruns && x->lines_quad; k++)
        x->lines_quad = x->ga.r[k].len % 4 == 0 && x->ga.r[k].tl % 4 == 0;
    for (int d = 0; d < x->dst->ndomains && x->lines_quad; d++)
        x->lines_quad = x->dst->lld[d] % 4 == 0 || x->dst->lld[d] == 1;
    size_t n = (size_t)x->t->D * (size_t)x->t->tpd_max * (size_t)P;
    x->lines = aligned_alloc(64, n * sizeof *x->lines);
    if (!x->lines)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    memset(x->lines, 0, n * sizeof *x->lines);
    atomic_fetch_add(&lines_used, 1);
    if (x->lines_quad)
        atomic_fetch_add(&halves_used, 1);
    return pairs_init(x);
}

// Unit programs (periodic_unit.c) where line writers were not chosen: every run one element
// long (CYCLIC(1) on a side), 8-byte elements, a streamed move (below the streaming size
// ordinary stores stay in the caches and need no whole lines). Global order: one program for
// the merged rows; target order with all sources in one task (no one-port steps, not on the
// source): one per target grid row. Target order with one source per task interleaves sources
// within a target line, so it keeps nt_copy_column(). nb 1 -> 3 at N = 4096 and 8192, global
// order: 0.70-0.87 of the bound against 0.52-0.60 element by element (see periodic_unit.c).
static nt_status unit_init(pctx *x, const nt_exec_opts_t *o)
{
    const nt_plan_geo_t *g = x->v->geo;
    int mode = atomic_load(&unit_mode);
    if (g->es != 8 || mode == 0 || (mode < 0 && !x->stream))
        return NT_OK;
    nt_status st = NT_OK;
    int64_t dt, ds;
    bool any = false;
    if (x->order == NT_ORDER_GLOBAL && !x->lines && !x->masks && x->ga.first[1] > 0) {
        if (list_period(x, &x->ga.pat[0], &dt, &ds))
            st = nt_unit_build(x->ga.r, x->ga.cnt[0], g->gs.p, g->gt.p, dt, ds, &x->unit);
        any = x->unit != NULL;
    } else if (x->order == NT_ORDER_TARGET && !o->on_source && o->schedule != NT_SCHED_STEPS) {
        if (!(x->tunit = calloc((size_t)g->gt.p, sizeof *x->tunit)))
            return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
        for (int b = 0; b < g->gt.p && st == NT_OK; b++)
            if (x->mr.cnt[b] > 0 && list_period(x, &x->mr.pat[b], &dt, &ds)) {
                st = nt_unit_build(&x->mr.r[x->mr.first[b]], x->mr.cnt[b], g->gs.p, g->gt.p, dt, ds,
                                &x->tunit[b]);
                any = any || x->tunit[b];
            }
        if (!any) {
            free(x->tunit);
            x->tunit = NULL;
        }
    }
    if (st == NT_OK && any)
        atomic_fetch_add(&unit_used, 1);
    return st;
}

// The column tables (see pctx), once the target has its memory: source grid cell i is source
// domain i; target component j lives on domain sigma[j] (none past the components, without a
// domain, or past the labels of a target that had memory before: a component that holds no
// tile may be relabelled there).
static void tables_fill(pctx *x)
{
    x->slld = x->src->lld;
    for (int i = 0; i < x->gs_p * x->gs_q; i++) {
        x->sbase[i] = x->src->mem->local[i];
        x->sstep[i] = x->src->lld[i] * (int64_t)x->es;
    }
    for (int j = 0; j < x->gt_p * x->gt_q; j++) {
        int d = j < x->v->ncomp ? x->v->sigma[j] : x->t->D;
        bool has = d < x->t->D && d < x->dst->ndomains;
        x->dbase[j] = has ? x->dst->mem->local[d] : NULL;
        x->dstep[j] = has ? x->dst->lld[d] * (int64_t)x->es : 0;
    }
}

// Everything the copies need, before anything is touched: runs of both dimensions, the
// order, merged lists, column tables, line writers and their packed runs, unit programs,
// phases and tasks.
static nt_status prepare(pctx *x, nt_plan_t *plan, const nt_exec_opts_t *o)
{
    const nt_plan_geo_t *g = x->v->geo;
    x->gs_p = g->gs.p;
    x->gs_q = g->gs.q;
    x->gt_p = g->gt.p;
    x->gt_q = g->gt.q;
    x->es = g->es;
    nt_dim_t dr = {0}, dc = {0};
    nt_status st = nt_plan_geo_dims(g, &dr, &dc);
    if (st == NT_OK && (st = nt_runs_build(g, &dr, true, &x->rr)) == NT_OK)
        st = nt_runs_build(g, &dc, false, &x->rc);
    nt_dim_free(&dr);
    nt_dim_free(&dc);
    if (st)
        return st;
    // Large moves stream long runs, as the explicit executor and the bound do (nt_copy.h).
    x->stream = g->sub.rows * g->sub.cols * (int64_t)g->es >= nt_copy_stream_bytes();
    x->order = exec_order(x, o);
    if ((st = lists_alloc(x)) != NT_OK || (st = lines_init(x)) != NT_OK ||
        (st = masks_init(x)) != NT_OK || (st = unit_init(x, o)) != NT_OK ||
        (o->schedule == NT_SCHED_STEPS && (st = build_phases(x, plan)) != NT_OK))
        return st;
    ahead_init(x);
    return build_tasks(x, o->on_source);
}

static void pctx_free(pctx *x)
{
    runs *all[] = {&x->rr, &x->rc, &x->mr, &x->ms, &x->cs, &x->ga, &x->gc};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        nt_runs_free(all[k]);
    free(x->scol);
    free(x->dcol);
    free(x->sbase);
    free(x->sstep);
    free(x->dbase);
    free(x->dstep);
    free(x->lines);
    free(x->lruns);
    free(x->lfirst);
    nt_unit_free(x->unit);
    nt_pairs_free(x->pairs);
    nt_masks_free(x->masks);
    for (int b = 0; x->tunit && b < x->v->geo->gt.p; b++)
        nt_unit_free(x->tunit[b]);
    free(x->tunit);
    free(x->task);
    free(x->tfirst);
    free(x->ps.pfirst);
    free(x->ps.ph);
    free(x->ps.cap);
}

static bool per_accepts(const nt_plan_t *plan, const nt_exec_opts_t *opts)
{
    (void)opts;
    if (!plan)
        return false;
    nt_plan_view_t v;
    nt_plan_get_view(plan, &v);
    return v.periodic;
}

static nt_status per_prepare(nt_exec_job_t *j)
{
    pctx *x = calloc(1, sizeof *x);
    if (!x)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    *x = (pctx){.t = &j->t, .v = &j->v, .src = j->src, .dst = j->dst, .ps = {.nphases = 1}};
    j->ctx = x;
    return prepare(x, j->plan, &j->o);
}

// A fresh target's memory, under the plan's (relabelled) map. Pool memory under the submatrix
// is not zeroed: the copies overwrite all of it and nothing can fail before they have.
static nt_status per_alloc(nt_exec_job_t *j)
{
    return nt_matrix_alloc_cover(j->dst, NULL, &j->v.geo->sub);
}

static nt_status per_run(nt_exec_job_t *j)
{
    tables_fill(j->ctx);
    j->seconds = run_all(j->ctx);
    return NT_OK;
}

// From the plan's pair tables: every byte of the submatrix is copied.
static void per_stats(nt_exec_job_t *j, nt_exec_stats_t *s)
{
    size_t DD = (size_t)j->t.D * (size_t)j->t.D;
    memcpy(j->pair_tiles, j->v.pair_segs, DD * sizeof *j->pair_tiles);
    memcpy(j->pair_bytes, j->v.pair_bytes, DD * sizeof *j->pair_bytes);
    for (size_t k = 0; k < DD; k++)
        s->bytes_copied += j->pair_bytes[k];
}

static void per_release(nt_exec_job_t *j)
{
    if (j->ctx)
        pctx_free(j->ctx);
    free(j->ctx);
}

const nt_strategy_t nt_strategy_periodic = {
    .name = "periodic", .accepts = per_accepts, .check = nt_exec_check, .prepare = per_prepare,
    .alloc = per_alloc, .run = per_run, .stats = per_stats, .release = per_release};
