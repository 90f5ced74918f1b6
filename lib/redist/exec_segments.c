// The stored-segment strategy of the executor table (nt_strategy.h): a plan's explicit
// segments, copied by OpenMP tasks, whole tiles adopted or migrated instead where they can be.
//
// Threads: OpenMP tasks run on any thread of the team of the thread that created them, so one
// team over all domains could not keep a copy on its domain. Instead the executor opens an
// outer team with one thread per domain; thread d binds itself to domain d and opens a nested
// team (threads_per_domain threads, each binding itself to domain d as well); one thread of
// that nested team creates the copy tasks of domain d, which only that team executes. Every
// thread restores its previous cpu affinity when it leaves. Nesting needs
// max-active-levels >= 2: it is raised for the call and restored afterwards.
//
// Order of work (nothing is lost): every scratch array first (prepare); then the whole target
// is allocated (each tile or local matrix on its domain) except the tiles it adopts (alloc);
// if anything fails there, the envelope (execute.c) releases everything taken and src and dst
// are as before. Only then are tiles adopted, pages migrated and segments copied (run), and
// none of these can fail (binding failures only make tasks run off their domain, which the
// statistics report).
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_bands.h"
#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_copy_op.h"
#include "nt_core.h"
#include "nt_exec.h"
#include "lib/matrix/nt_matrix.h"
#include "nt_plan.h"
#include "nt_strategy.h"
#include "numatile/mem.h"

// Small units of work (a segment, or a band of them in source order) are batched into copy
// tasks of about this many bytes.
#define TASK_GRAIN ((int64_t)128 << 10)
// Units of more than twice this many bytes are split into column shares of about this size.
#define TASK_SPLIT ((int64_t)1 << 20)

typedef struct exec_ctx {
    nt_team_t *t;            // the machine, bound threads, per-thread accounting (the job's)
    int64_t copy_segs, copy_bytes; // segments copied (not adopted) and their bytes
    const nt_matrix_t *src;
    nt_matrix_t *dst;
    const nt_segment_t *seg;
    int max_in_flight;
    // Source bands (nt_bands.h) in source order: what their copies read.
    nt_bands band;
    // Copy kernel flags (NT_COPY_STREAM for large executions) and strategy (AUTO).
    unsigned copy_flags;
    nt_copy_kind copy_kind;
    // A plan with an operation (nt_plan_create_op()): its kernel, and where the submatrix
    // starts in the target (segments know their place in the submatrix from it). NULL: copy.
    const nt_copy_op *op;
    nt_copy_op op_kernel;
    int64_t sub_row, sub_col;
    // Work: phase ph, domain d -> list[first[ph*D + d] .. first[ph*D + d + 1]).
    int nphases;
    int64_t *first;
    int64_t *list;
    // Move mode: tiles migrated by domain d: mig[mfirst[d] .. mfirst[d+1]) (target tiles).
    int64_t *mfirst;
    int64_t *mig;
    // Statistics (atomics through omp atomic); the pair counts are the job's.
    int64_t *pair_tiles, *pair_bytes;
    int64_t pages_migrated, pages_failed;
    // Set up by prepare(): segments adopted instead of copied and their target tiles,
    // the phase of every segment, a cursor per domain into mig.
    unsigned char *skip_seg, *skip_tile;
    int *phase;
    int64_t *mcur;
    // Adopted tiles: all, and those that changed domain.
    int64_t adopted, adopted_moved;
} exec_ctx;

// Copy columns [c0, c1) of one segment with the copy kernel (lib/matrix/copy.c), which picks
// one copy for contiguous blocks, inline moves for short columns, and streaming stores when the
// execution is too large for the caches to keep its target (c->copy_flags; the task fences).
// With an operation: the target block's columns [c0, c1) from the source's columns (N) or
// rows (T, C) [c0, c1), through the op kernel (lib/matrix/copy_op.c).
static void op_segment(const exec_ctx *c, const nt_segment_t *g, int64_t c0, int64_t c1)
{
    const nt_matrix_t *S = c->src, *T = c->dst;
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    size_t es = S->elem_size;
    int64_t lds = nt_matrix_tile_ld(S, si, sj), ldt = nt_matrix_tile_ld(T, ti, tj);
    int64_t sr = g->src_row + (c->op->trans ? c0 : 0), sc = g->src_col + (c->op->trans ? 0 : c0);
    const char *a = (const char *)nt_matrix_tile(S, si, sj) +
                    ((size_t)sc * (size_t)lds + (size_t)sr) * es;
    char *b = (char *)nt_matrix_tile(T, ti, tj) +
              ((size_t)(g->dst_col + c0) * (size_t)ldt + (size_t)g->dst_row) * es;
    int64_t x0 = ti * T->mb + g->dst_row - c->sub_row, y0 = tj * T->nb + g->dst_col - c->sub_col;
    nt_copy_op_2d(c->op, b, ldt, a, lds, g->rows, c1 - c0, x0, y0 + c0,
                  c->copy_flags | NT_COPY_NOFENCE);
}

static void copy_segment(const exec_ctx *c, const nt_segment_t *g, int64_t c0, int64_t c1)
{
    if (c->op) {
        op_segment(c, g, c0, c1);
        return;
    }
    const nt_matrix_t *S = c->src, *T = c->dst;
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    size_t es = S->elem_size;
    int64_t lds = nt_matrix_tile_ld(S, si, sj), ldt = nt_matrix_tile_ld(T, ti, tj);
    const char *a = (const char *)nt_matrix_tile(S, si, sj) +
                    ((size_t)(g->src_col + c0) * (size_t)lds + (size_t)g->src_row) * es;
    char *b = (char *)nt_matrix_tile(T, ti, tj) +
              ((size_t)(g->dst_col + c0) * (size_t)ldt + (size_t)g->dst_row) * es;
    nt_copy_2d_ex(b, ldt, a, lds, g->rows, c1 - c0, es, c->copy_flags | NT_COPY_NOFENCE,
                  c->copy_kind);
}

static int64_t seg_bytes(const exec_ctx *c, const nt_segment_t *g)
{
    return (int64_t)g->rows * g->cols * (int64_t)c->src->elem_size;
}

enum { TASK_BATCH, TASK_SEG };

// One task: TASK_BATCH copies the units list[lo..hi) (small ones batched, or one whole large
// one); TASK_SEG columns [c0, c1) of the unit list[lo..hi) (a share of a unit too large for one
// thread). A unit is one segment or a band of them (nt_band_end). It counts exactly the bytes
// it copied: the copy bound gives each thread the bytes that thread copied. One fence at the
// end orders its streaming stores.
static void run_task(exec_ctx *c, int d, int kind, int64_t lo, int64_t hi, int64_t c0,
                     int64_t c1)
{
    int64_t b = 0;
    if (kind == TASK_SEG && hi - lo > 1) {
        b = nt_band_copy(&c->band, lo, hi, c0, c1);
    } else if (kind == TASK_SEG) {
        const nt_segment_t *g = &c->seg[c->list[lo]];
        copy_segment(c, g, c0, c1);
        b = (int64_t)g->rows * (c1 - c0) * (int64_t)c->src->elem_size;
    } else {
        for (int64_t k = lo, e; k < hi; k = e) {
            const nt_segment_t *g = &c->seg[c->list[k]];
            e = nt_band_end(&c->band, k, hi);
            if (e - k > 1) {
                b += nt_band_copy(&c->band, k, e, 0, g->cols);
            } else {
                copy_segment(c, g, 0, g->cols);
                b += seg_bytes(c, g);
            }
        }
    }
    if (c->copy_flags & NT_COPY_STREAM)
        nt_copy_fence();
    nt_team_task_done(c->t, d, b);
}

// Start one task (deferred while fewer than max_in_flight are queued; beyond that the creating
// thread runs it at once, an undeferred task, so the queue never grows past the bound).
static void spawn(exec_ctx *c, int d, int kind, int64_t k, int64_t k1, int64_t c0, int64_t c1,
                  _Atomic int64_t *in_flight)
{
    bool defer = atomic_load(in_flight) < c->max_in_flight;
    if (defer)
        atomic_fetch_add(in_flight, 1);
#pragma omp task firstprivate(kind, k, k1, c0, c1, defer) if (defer)
    {
        run_task(c, d, kind, k, k1, c0, c1);
        if (defer)
            atomic_fetch_sub(in_flight, 1);
    }
}

// A block of `cols` columns of `col` bytes each, split into column shares of about TASK_SPLIT
// bytes when it is more than twice that (a whole column is the smallest share). True when split.
static bool spawn_shares(exec_ctx *c, int d, int kind, int64_t k, int64_t k1, int64_t cols,
                         int64_t col, _Atomic int64_t *in_flight)
{
    if (cols < 2 || col * cols <= 2 * TASK_SPLIT)
        return false;
    int64_t per = TASK_SPLIT / col > 0 ? TASK_SPLIT / col : 1;
    for (int64_t c0 = 0; c0 < cols; c0 += per)
        spawn(c, d, kind, k, k1, c0, c0 + per < cols ? c0 + per : cols, in_flight);
    return true;
}

// Bytes of one column of the unit list[k..e) (its segments all have the same columns).
static int64_t unit_col_bytes(const exec_ctx *c, int64_t k, int64_t e)
{
    int64_t rows = 0;
    for (; k < e; k++)
        rows += c->seg[c->list[k]].rows;
    return rows * (int64_t)c->src->elem_size;
}

// Whether the unit list[k..e) is one the tasks split (more than 2 x TASK_SPLIT bytes).
static bool big_unit(const exec_ctx *c, int64_t k, int64_t e)
{
    int64_t cols = c->seg[c->list[k]].cols;
    return cols >= 2 && unit_col_bytes(c, k, e) * cols > 2 * TASK_SPLIT;
}

// End of the batch that starts at k: units until about TASK_GRAIN bytes (Cao's batching:
// task overhead stays small against the copies), never a large unit (split instead).
static int64_t batch_end(const exec_ctx *c, int64_t k, int64_t hi)
{
    int64_t k1 = k, bytes = 0;
    while (k1 < hi) {
        int64_t e = nt_band_end(&c->band, k1, hi);
        if (k1 > k && (bytes >= TASK_GRAIN || big_unit(c, k1, e)))
            break;
        bytes += unit_col_bytes(c, k1, e) * c->seg[c->list[k1]].cols;
        k1 = e;
    }
    return k1;
}

// Domain d's nested team runs the tasks of one phase, balanced by bytes: small units are
// batched (batch_end()), and a unit of more than 2 x TASK_SPLIT bytes is split into column
// shares that the team's threads copy in parallel.
static void run_domain_phase(exec_ctx *c, int d, int ph)
{
    int64_t lo = c->first[(size_t)ph * (size_t)c->t->D + (size_t)d];
    int64_t hi = c->first[(size_t)ph * (size_t)c->t->D + (size_t)d + 1];
    if (lo == hi)
        return;
    _Atomic int64_t in_flight = 0;
#pragma omp parallel num_threads(c->t->tpd[d] > 0 ? c->t->tpd[d] : 1)
    {
        cpu_set_t saved;
        bool bound = nt_team_bind(c->t, d, &saved);
#pragma omp single
        for (int64_t k = lo; k < hi;) {
            int64_t e = nt_band_end(&c->band, k, hi);
            if (spawn_shares(c, d, TASK_SEG, k, e, c->seg[c->list[k]].cols,
                             unit_col_bytes(c, k, e), &in_flight)) {
                k = e;
                continue;
            }
            int64_t k1 = batch_end(c, k, hi);
            spawn(c, d, TASK_BATCH, k, k1, 0, 0, &in_flight);
            k = k1;
        }
        // The single's implicit barrier waits for every task of the team.
        nt_team_unbind(bound, &saved);
    }
}

// Copy strategy of the whole execution: streaming stores once it copies more than the caches
// hold (NT_COPY_STREAM_BYTES; measured here, a streamed contiguous copy is 1.3-1.45x faster
// than memcpy's cached stores, a strided one 1.3-2x faster, see lib/matrix/copy.c).
static void choose_copy(exec_ctx *c)
{
    c->copy_kind = NT_COPY_AUTO;
    c->copy_flags = c->copy_bytes >= nt_copy_stream_bytes() ? NT_COPY_STREAM : 0;
}

static void migrate_domain(exec_ctx *c, int d)
{
    for (int64_t k = c->mfirst[d]; k < c->mfirst[d + 1]; k++) {
        int64_t t = c->mig[k];
        int64_t i = t / c->dst->nt, j = t % c->dst->nt;
        nt_migrate_report_t rep;
        if (nt_mem_migrate(nt_matrix_tile(c->dst, i, j), nt_tile_bytes(c->dst, i, j),
                           c->t->node[d], &rep) != NT_OK) {
            size_t pg = nt_mem_page_size();
#pragma omp atomic
            c->pages_failed += (int64_t)((nt_tile_bytes(c->dst, i, j) + pg - 1) / pg);
            continue;
        }
#pragma omp atomic
        c->pages_migrated += rep.moved;
#pragma omp atomic
        c->pages_failed += rep.failed;
    }
}

// All phases: outer team of one thread per domain, a barrier after each phase.
static void run_all(exec_ctx *c)
{
#pragma omp parallel num_threads(c->t->outer)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int d = tid; d < c->t->D; d += nth) {
            cpu_set_t saved;
            bool bound = nt_team_bind(c->t, d, &saved);
            migrate_domain(c, d);
            nt_team_unbind(bound, &saved);
        }
        for (int ph = 0; ph < c->nphases; ph++) {
            for (int d = tid; d < c->t->D; d += nth) {
                cpu_set_t saved;
                bool bound = nt_team_bind(c->t, d, &saved);
                run_domain_phase(c, d, ph);
                nt_team_unbind(bound, &saved);
            }
#pragma omp barrier
        }
    }
}

static void ctx_free(exec_ctx *c)
{
    free(c->first);
    free(c->list);
    free(c->mfirst);
    free(c->mig);
    free(c->skip_seg);
    free(c->skip_tile);
    free(c->phase);
    free(c->mcur);
}

// Domain whose threads copy segment g: the chosen side, else the other, else any with cpus.
static int exec_domain(const exec_ctx *c, const nt_segment_t *g, bool on_source)
{
    int a = on_source ? g->src_dom : g->dst_dom, b = on_source ? g->dst_dom : g->src_dom;
    if (c->t->tpd[a] > 0)
        return a;
    if (c->t->tpd[b] > 0)
        return b;
    for (int d = 0; d < c->t->D; d++)
        if (c->t->tpd[d] > 0)
            return d;
    return a;
}

// Phase of each copied segment: FREE -> 0; STEPS -> local copies in phase 0, then for each
// pair the segments are poured into the pair's phases in order until each phase holds its
// share (count bytes) of the schedule.
static nt_status assign_phases(exec_ctx *c, nt_plan_t *plan, const nt_exec_opts_t *o,
                               const unsigned char *skip_seg, int *phase)
{
    int64_t nseg;
    nt_plan_info_t info;
    nt_plan_info(plan, &info);
    nseg = info.segments;
    if (o->schedule == NT_SCHED_FREE) {
        c->nphases = 1;
        for (int64_t x = 0; x < nseg; x++)
            phase[x] = 0;
        return NT_OK;
    }
    const nt_schedule_t *sc;
    nt_status st = nt_plan_schedule(plan, &sc);
    if (st)
        return st;
    int D = c->t->D;
    c->nphases = sc->nphases + 1;
    // For each pair, its phases in order and the bytes each phase takes.
    size_t DD = (size_t)D * (size_t)D;
    int64_t *pstart = calloc(DD + 1, sizeof *pstart);
    int64_t *pfill = calloc(DD, sizeof *pfill);
    int64_t *pcur = calloc(DD, sizeof *pcur);
    int64_t *pph = malloc(((size_t)sc->npairs + 1) * sizeof *pph);
    int64_t *pcap = malloc(((size_t)sc->npairs + 1) * sizeof *pcap);
    if (!pstart || !pfill || !pcur || !pph || !pcap) {
        st = nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
        goto out;
    }
    for (int64_t e = 0; e < sc->npairs; e++)
        pstart[(size_t)sc->src[e] * (size_t)D + (size_t)sc->dst[e] + 1]++;
    for (size_t k = 0; k < DD; k++)
        pstart[k + 1] += pstart[k];
    for (int t = 0; t < sc->nphases; t++)
        for (int64_t e = sc->first[t]; e < sc->first[t + 1]; e++) {
            size_t k = (size_t)sc->src[e] * (size_t)D + (size_t)sc->dst[e];
            int64_t at = pstart[k] + pcur[k]++;
            pph[at] = t + 1;
            pcap[at] = sc->count[t];
        }
    memset(pcur, 0, DD * sizeof *pcur);
    for (int64_t x = 0; x < nseg; x++) {
        const nt_segment_t *g = &c->seg[x];
        if (skip_seg[x] || g->src_dom == g->dst_dom) {
            phase[x] = 0;
            continue;
        }
        size_t k = (size_t)g->src_dom * (size_t)D + (size_t)g->dst_dom;
        int64_t n = pstart[k + 1] - pstart[k];
        // Move to the next phase of the pair once this one has its share.
        while (pcur[k] < n - 1 && pfill[k] >= pcap[pstart[k] + pcur[k]]) {
            pcur[k]++;
            pfill[k] = 0;
        }
        phase[x] = n > 0 ? (int)pph[pstart[k] + pcur[k]] : 1;
        pfill[k] += (int64_t)g->rows * g->cols * (int64_t)c->src->elem_size;
    }
out:
    free(pstart);
    free(pfill);
    free(pcur);
    free(pph);
    free(pcap);
    return st;
}

// The per-domain, per-segment and per-tile scratch.
static nt_status ctx_alloc(exec_ctx *c, const nt_plan_view_t *v)
{
    size_t D = (size_t)c->t->D, nseg = v->nseg > 0 ? (size_t)v->nseg : 1;
    c->mfirst = calloc(D + 1, sizeof *c->mfirst);
    c->mcur = calloc(D, sizeof *c->mcur);
    c->skip_tile = calloc((size_t)(c->dst->mt * c->dst->nt), 1);
    c->skip_seg = calloc(nseg, 1);
    c->phase = malloc(nseg * sizeof *c->phase);
    if (!c->mfirst || !c->mcur || !c->skip_tile || !c->skip_seg || !c->phase)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    return NT_OK;
}

// Segment x alone makes its target tile and is a whole page-aligned source tile this source
// owns; in copy mode it must also stay on its domain. To migrate, it must be a whole mapping:
// a piece of one (from a pool, or recycled in place) may share a huge page with a neighbour,
// which move_pages would move with it; such a tile is copied instead.
static bool adoptable(const exec_ctx *c, const nt_plan_view_t *v, int64_t x, nt_exec_mode mode)
{
    const nt_segment_t *g = &v->seg[x];
    bool alone = (x == 0 || v->seg[x - 1].dst_tile != g->dst_tile) &&
                 (x + 1 == v->nseg || v->seg[x + 1].dst_tile != g->dst_tile);
    int64_t si = g->src_tile / c->src->nt, sj = g->src_tile % c->src->nt;
    unsigned char own = c->src->mem->owned[g->src_tile];
    if (!alone || !g->whole || !nt_tile_is_big(c->src, si, sj) || !own)
        return false;
    return g->src_dom == g->dst_dom || (mode == NT_EXEC_MOVE && own == NT_TILE_MAPPING);
}

// Tiles the target adopts instead of copying: kept when their domain does not change (copy
// mode, unless no_keep) or migrated (move mode). Marks them, and sizes and allocates the list
// of migrations of each target domain (mig[mfirst[d] .. mfirst[d+1])).
static nt_status select_adopted(exec_ctx *c, const nt_plan_view_t *v, const nt_exec_opts_t *o,
                                bool fresh)
{
    int64_t nmig = 0;
    if (fresh && c->src->layout == NT_LAYOUT_TILE && c->dst->layout == NT_LAYOUT_TILE &&
        (o->mode == NT_EXEC_MOVE || !o->no_keep)) {
        for (int64_t x = 0; x < v->nseg; x++) {
            const nt_segment_t *g = &v->seg[x];
            if (!adoptable(c, v, x, o->mode))
                continue;
            c->skip_tile[g->dst_tile] = 1;
            c->skip_seg[x] = 1;
            c->adopted++;
            if (c->t->node[g->src_dom] != c->t->node[g->dst_dom]) {
                nmig++;
                c->mfirst[g->dst_dom + 1]++;
            }
        }
    }
    for (int d = 0; d < c->t->D; d++)
        c->mfirst[d + 1] += c->mfirst[d];
    c->mig = malloc((size_t)(nmig > 0 ? nmig : 1) * sizeof *c->mig);
    if (!c->mig)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    return NT_OK;
}

// Work lists by (phase, executing domain) of the segments to copy, by counting sort.
// Source order for stored segments: asked for (order SOURCE or GLOBAL), or chosen (free
// schedule, every domain on one node, where the executing domain cannot change the memory
// touched) when pieces are large: each source domain copies its pieces source tile by source
// tile, while the tile is in the caches, in bands (nt_bands.h). Measured (CPU time, 4096^2,
// tile layout, 2x2 -> 4x1, before bands): nb 512 -> 256 (512 KiB pieces) 0.015-0.018 s against
// 0.019-0.026 s in target order, nb 64 -> 100 0.015-0.018 against 0.016-0.020; small pieces
// lose (nb 8 -> 12: 0.062 against 0.024, the target tiles' writes scatter).
static bool explicit_source_order(const exec_ctx *c, const nt_exec_opts_t *o)
{
    if (o->schedule != NT_SCHED_FREE || o->order == NT_ORDER_TARGET)
        return false;
    if (o->order == NT_ORDER_SOURCE || o->order == NT_ORDER_GLOBAL)
        return true;
    for (int d = 1; d < c->t->D; d++)
        if (c->t->node[d] != c->t->node[0])
            return false;
    return c->copy_segs > 0 && c->copy_bytes / c->copy_segs >= TASK_GRAIN;
}

static nt_status build_work_lists(exec_ctx *c, const nt_plan_view_t *v,
                                  const nt_exec_opts_t *o)
{
    // What is copied (not adopted), for the order here and the copy strategy later.
    for (int64_t x = 0; x < v->nseg; x++)
        if (!c->skip_seg[x]) {
            c->copy_segs++;
            c->copy_bytes += seg_bytes(c, &v->seg[x]);
        }
    // Bands copy plainly (nt_bands.h): an operation keeps the target order.
    bool by_source = !c->op && explicit_source_order(c, o);
    bool on_source = o->on_source || by_source;
    choose_copy(c);
    c->band = (nt_bands){.on = by_source, .src = c->src, .dst = c->dst, .seg = v->seg,
                         .copy_flags = c->copy_flags};
    size_t D = (size_t)c->t->D, cells = (size_t)c->nphases * D;
    c->first = calloc(cells + 1, sizeof *c->first);
    c->list = malloc((size_t)(v->nseg > 0 ? v->nseg : 1) * sizeof *c->list);
    if (!c->first || !c->list)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    // Without memory for the order the plan's order does (only slower).
    int64_t *ord = by_source ? nt_bands_order(v->seg, v->nseg, c->src->mt * c->src->nt) : NULL;
    for (int64_t x = 0; x < v->nseg; x++)
        if (!c->skip_seg[x])
            c->first[(size_t)c->phase[x] * D + (size_t)exec_domain(c, &v->seg[x], on_source) +
                     1]++;
    for (size_t k = 0; k < cells; k++)
        c->first[k + 1] += c->first[k];
    int64_t *cur = calloc(cells, sizeof *cur);
    if (!cur) {
        free(ord);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int64_t y = 0; y < v->nseg; y++) {
        int64_t x = ord ? ord[y] : y;
        if (!c->skip_seg[x]) {
            size_t k = (size_t)c->phase[x] * D + (size_t)exec_domain(c, &v->seg[x], on_source);
            c->list[c->first[k] + cur[k]++] = x;
        }
    }
    free(cur);
    free(ord);
    c->band.list = c->list;
    return NT_OK;
}

// The target takes the adopted tiles of src (nothing is copied); those whose node changes are
// queued for migration. Counted per domain pair. Cannot fail.
static void adopt_tiles(exec_ctx *c, const nt_plan_view_t *v, nt_matrix_t *src)
{
    for (int64_t x = 0; x < v->nseg; x++) {
        if (!c->skip_seg[x])
            continue;
        const nt_segment_t *g = &v->seg[x];
        nt_matrix_adopt_tile(c->dst, g->dst_tile, src, g->src_tile);
        if (c->t->node[g->src_dom] != c->t->node[g->dst_dom])
            c->mig[c->mfirst[g->dst_dom] + c->mcur[g->dst_dom]++] = g->dst_tile;
        if (g->src_dom != g->dst_dom) {
            size_t pr = (size_t)g->src_dom * (size_t)c->t->D + (size_t)g->dst_dom;
            c->pair_tiles[pr]++;
            c->pair_bytes[pr] += seg_bytes(c, g);
            c->adopted_moved++;
        }
    }
}


// The last line of the table: every execution the others leave.
static bool seg_accepts(const nt_plan_t *plan, const nt_exec_opts_t *opts)
{
    (void)plan;
    (void)opts;
    return true;
}

// Scratch, adopted tiles, phases and work lists, before anything is touched.
static nt_status seg_prepare(nt_exec_job_t *j)
{
    exec_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    *c = (exec_ctx){.t = &j->t, .src = j->src, .dst = j->dst, .seg = j->v.seg,
                    .pair_tiles = j->pair_tiles, .pair_bytes = j->pair_bytes,
                    .max_in_flight = j->o.max_in_flight > 0 ? j->o.max_in_flight : 64};
    j->ctx = c;
    if (j->v.op) {
        const nt_sub_t *sub = &j->v.geo->sub;
        nt_copy_op_init(&c->op_kernel, j->v.op, j->v.dtype, j->src->elem_size, sub->rows,
                        sub->cols);
        c->op = &c->op_kernel;
        c->sub_row = sub->dst_row;
        c->sub_col = sub->dst_col;
    }
    nt_status st;
    if ((st = ctx_alloc(c, &j->v)) != NT_OK ||
        (st = select_adopted(c, &j->v, &j->o, j->fresh)) != NT_OK ||
        (st = assign_phases(c, j->plan, &j->o, c->skip_seg, c->phase)) != NT_OK)
        return st;
    return build_work_lists(c, &j->v, &j->o);
}

// The whole target but the tiles it adopts. Nothing fails after it, so pool memory the copies
// overwrite is not zeroed; all of it is when an operation reads the target (beta) or leaves
// part of the submatrix alone (a trapezoid): a fresh target is zero.
static nt_status seg_alloc(nt_exec_job_t *j)
{
    const exec_ctx *c = j->ctx;
    bool whole = !c->op || (c->op->beta0 && c->op->uplo == NT_UPLO_ALL);
    return nt_matrix_alloc_cover(j->dst, c->skip_tile, whole ? &j->v.geo->sub : NULL);
}

// Adopt, then migrate and copy (timed).
static nt_status seg_run(nt_exec_job_t *j)
{
    exec_ctx *c = j->ctx;
    adopt_tiles(c, &j->v, j->src);
    double t0 = nt_now();
    run_all(c);
    j->seconds = nt_now() - t0;
    return NT_OK;
}

// Every copied segment per domain pair (from the plan: every listed segment was copied; the
// adopted tiles that changed domain are counted already), and the adoptions.
static void seg_stats(nt_exec_job_t *j, nt_exec_stats_t *s)
{
    const exec_ctx *c = j->ctx;
    const nt_plan_view_t *v = &j->v;
    for (int64_t x = 0; x < v->nseg; x++)
        if (!c->skip_seg[x]) {
            size_t pr = (size_t)v->seg[x].src_dom * (size_t)c->t->D + (size_t)v->seg[x].dst_dom;
            j->pair_tiles[pr]++;
            j->pair_bytes[pr] += seg_bytes(c, &v->seg[x]);
        }
    s->bytes_copied = c->copy_bytes;
    s->tiles_kept = c->adopted - c->adopted_moved;
    s->tiles_migrated = c->adopted_moved;
    s->pages_migrated = c->pages_migrated;
    s->pages_failed = c->pages_failed;
}

static void seg_release(nt_exec_job_t *j)
{
    if (j->ctx)
        ctx_free(j->ctx);
    free(j->ctx);
}

const nt_strategy_t nt_strategy_segments = {
    .name = "segments", .accepts = seg_accepts, .check = nt_exec_check, .prepare = seg_prepare,
    .alloc = seg_alloc, .run = seg_run, .stats = seg_stats, .release = seg_release};
