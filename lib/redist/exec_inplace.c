// The in-place strategy of the executor table (nt_strategy.h), which takes every execution
// with opts->inplace: the target reuses the source's memory through per-domain pools
// (nt_pool.h), with a peak of extra memory known and checked against the caller's budget
// before anything is touched.
//
// Blocks. A source block is a tile of at least a page that the source owns, or a domain's slab
// of small tiles; a target block likewise (a domain's small target tiles share one slab block).
// Whole tiles that keep their domain and shape are adopted as in exec_segments.c (no copy, no
// block).
// A source block is free once every segment reading it has been copied.
//
// Order (simulate): target blocks are queued per domain in source-major order (by the first
// source tile they read, so the readers of a source block come together). The greedy then
// repeats: (1) every domain whose pool fits the head of its queue takes it from the pool;
// (2) else each domain may take a fresh block from the kernel while its fresh bytes stay
// within two of its largest target blocks (parallelism: blocks of several domains fill at
// once); (3) else, if blocks of the current wave freed source blocks, the wave ends and those
// blocks enter the pools; (4) else the head whose completion frees the most (sum over its
// segments of source block bytes / segments left in that block) takes a fresh block. Memory
// freed inside a wave is only reused by later waves, so waves can run their copies in
// parallel. Blocks are never returned to the kernel before the end, so the peak of extra
// memory on a domain is exactly the fresh bytes taken there; it is known before the first
// copy and compared with the budget. The simulation runs the real pool on the real addresses
// of the source blocks (it never touches them), so the execution follows it exactly.
//
// Nothing lost: checks, tables, the order and every fresh block come before the first copy;
// a failure there releases everything and leaves src and dst as they were. Copies cannot fail
// (the test hook makes one fail): in a wave before the first one that writes a recycled block
// the source is still intact, so the run aborts and releases everything; from that wave on it
// rolls forward, copying the failed segments again, and completes the target.
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_exec.h"
#include "nt_inplace.h"
#include "lib/matrix/nt_matrix.h"
#include "nt_plan.h"
#include "nt_strategy.h"
#include "lib/matrix/nt_pool.h"
#include "numatile/mem.h"

// Small segments are batched into copy tasks of about this many bytes (as exec_segments.c does).
#define TASK_GRAIN ((int64_t)128 << 10)

static _Atomic int64_t fault_after = -1;
static _Atomic int fault_fired = 0;

void nt_inplace_test_copy_fault_after(int64_t k)
{
    atomic_store(&fault_fired, 0);
    atomic_store(&fault_after, k);
}

bool nt_inplace_test_copy_fault_fired(void)
{
    return atomic_load(&fault_fired) != 0;
}

// True once, when the armed copy fault fires; it disarms itself.
static bool copy_fault(void)
{
    int64_t v = atomic_load(&fault_after);
    while (v >= 0) {
        if (atomic_compare_exchange_weak(&fault_after, &v, v - 1)) {
            if (v == 0)
                atomic_store(&fault_fired, 1);
            return v == 0;
        }
    }
    return false;
}

typedef struct ip_ctx {
    nt_team_t *t; // the job's
    nt_plan_view_t v;
    nt_matrix_t *src, *dst;
    int D;
    unsigned char *skip_seg, *skip_tile; // adopted segments and target tiles
    size_t *tslab;                       // target slab bytes per domain
    // Source blocks: the block of each source tile (-1: adopted or not the source's own).
    int64_t nsb, *sblk, *sb_left;
    char **sb_addr;
    size_t *sb_len;
    int *sb_dom;
    // Target blocks: the block of each target tile (-1: adopted); the tile of a big block
    // (-1 for a slab); segments of block b: tb_seg[tb_first[b] .. tb_first[b+1]).
    int64_t ntb, *tblk, *tb_tile, *tb_first, *tb_seg;
    size_t *tb_len;
    int *tb_dom;
    char **tb_addr;
    unsigned char *tb_fresh;
    // The order: blocks order[wave_first[w] .. wave_first[w+1]) fill in wave w.
    int64_t *order, *wave_first, nwaves, first_recycle;
    nt_pool_t *pool; // after the simulation: recycled runs no target block uses
    int64_t *peak, *lb, lb_total, recycled;
    // Copy lists of wave w, executing domain d: wlist[wfirst[w*D + d] .. wfirst[w*D + d + 1]).
    int64_t *wfirst, *wlist;
    unsigned char *failed;
    _Atomic int fault;
    bool aborted;
    int max_in_flight;
    int64_t adopted;
} ip_ctx;

static void ctx_free(ip_ctx *c)
{
    void *arrays[] = {c->skip_seg, c->skip_tile, c->tslab, c->sblk, c->sb_left, c->sb_addr,
                      c->sb_len, c->sb_dom, c->tblk, c->tb_tile, c->tb_first, c->tb_seg,
                      c->tb_len, c->tb_dom, c->tb_addr, c->tb_fresh, c->order, c->wave_first,
                      c->peak, c->lb, c->wfirst, c->wlist, c->failed};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        free(arrays[k]);
    nt_pool_destroy(c->pool, false);
}

static int64_t seg_bytes(const ip_ctx *c, const nt_segment_t *g)
{
    return (int64_t)g->rows * g->cols * (int64_t)c->src->elem_size;
}

static nt_status check_options(const nt_exec_opts_t *o)
{
    if (o->mode != NT_EXEC_COPY)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place copies (move mode keeps the "
                       "source's tiles where they are)");
    if (o->schedule != NT_SCHED_FREE)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place runs its own order of waves; "
                       "the STEPS schedule is not supported");
    if (o->threads_per_domain < 0 || o->max_in_flight < 0 || o->budget_bytes < 0)
        return nt_fail(NT_EINVAL, "nt_plan_execute: bad options (threads_per_domain %d, "
                       "max_in_flight %d, budget_bytes %lld)", o->threads_per_domain,
                       o->max_in_flight, (long long)o->budget_bytes);
    return NT_OK;
}

static nt_status check_inplace(const nt_plan_t *plan, const nt_matrix_t *src,
                               const nt_matrix_t *dst, const nt_exec_opts_t *o)
{
    if (!plan || !src || !dst)
        return nt_fail(NT_EINVAL, "nt_plan_execute: %s is NULL",
                       !plan ? "plan" : !src ? "src" : "dst");
    if (src == dst || !nt_plan_matches(plan, src, dst))
        return nt_fail(NT_EINVAL, "nt_plan_execute: %s", src == dst
                       ? "src and dst are the same matrix" : "the plan was built for other "
                       "matrices");
    nt_status st = check_options(o);
    if (st)
        return st;
    if (!src->allocated)
        return nt_fail(NT_EINVAL, "nt_plan_execute: the source has no memory");
    if (dst->allocated)
        return nt_fail(NT_EINVAL, "nt_plan_execute: in place needs a target without memory "
                       "(created with NT_MATRIX_NOALLOC)");
    if (src->layout != NT_LAYOUT_TILE || dst->layout != NT_LAYOUT_TILE)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place needs the TILE layout on both "
                       "sides (the %s is %s)", src->layout != NT_LAYOUT_TILE ? "source" : "target",
                       (src->layout != NT_LAYOUT_TILE ? src : dst)->layout == NT_LAYOUT_LAPACK
                           ? "LAPACK" : "SCALAPACK");
    // Its target would take over the source's memory, which is the caller's.
    if (src->mem->borrowed)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place cannot take over a wrapped "
                       "source's memory (it is the caller's: nt_matrix_wrap_tiles)");
    if (dst->topo && dst->topo != src->topo)
        return nt_fail(NT_EINVAL, "nt_plan_execute: source and target on different topologies");
    if (nt_topo_get_kind(src->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: a synthetic topology has no memory");
    nt_plan_info_t info;
    nt_plan_info(plan, &info);
    if (src->m != dst->m || src->n != dst->n || info.elements != src->m * src->n)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place moves the whole matrix (equal "
                       "sizes, no submatrix): the plan moves %lld of %lld x %lld elements",
                       (long long)info.elements, (long long)src->m, (long long)src->n);
    return NT_OK;
}

// Segment x alone makes its target tile, is a whole big source tile the source owns, and
// stays on its domain: the target adopts it (as exec_segments.c does in copy mode).
static bool adoptable(const ip_ctx *c, int64_t x)
{
    const nt_plan_view_t *v = &c->v;
    const nt_segment_t *g = &v->seg[x];
    bool alone = (x == 0 || v->seg[x - 1].dst_tile != g->dst_tile) &&
                 (x + 1 == v->nseg || v->seg[x + 1].dst_tile != g->dst_tile);
    int64_t si = g->src_tile / c->src->nt, sj = g->src_tile % c->src->nt;
    return alone && g->whole && g->src_dom == g->dst_dom && nt_tile_is_big(c->src, si, sj) &&
           c->src->mem->owned[g->src_tile];
}

// Per-tile, per-segment and per-domain tables (blocks are sized once they are counted).
static nt_status alloc_tables(ip_ctx *c)
{
    size_t D = (size_t)c->D, nseg = c->v.nseg > 0 ? (size_t)c->v.nseg : 1;
    size_t ns = (size_t)(c->src->mt * c->src->nt), nd = (size_t)(c->dst->mt * c->dst->nt);
    c->skip_seg = calloc(nseg, 1);
    c->failed = calloc(nseg, 1);
    c->skip_tile = calloc(nd, 1);
    c->tslab = calloc(D, sizeof *c->tslab);
    c->sblk = malloc(ns * sizeof *c->sblk);
    c->tblk = malloc(nd * sizeof *c->tblk);
    c->peak = calloc(D, sizeof *c->peak);
    c->lb = calloc(D, sizeof *c->lb);
    if (!c->skip_seg || !c->failed || !c->skip_tile || !c->tslab || !c->sblk || !c->tblk ||
        !c->peak || !c->lb)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int64_t x = 0; x < c->v.nseg; x++)
        if (adoptable(c, x)) {
            c->skip_seg[x] = 1;
            c->skip_tile[c->v.seg[x].dst_tile] = 1;
            c->adopted++;
        }
    return nt_matrix_slab_sizes(c->dst, c->tslab);
}

// Source blocks: every big tile the source owns and does not hand over whole, then one block
// per domain slab. The source tiles adopted are those of the adopted segments.
static nt_status source_blocks(ip_ctx *c)
{
    const nt_matrix_t *S = c->src;
    int64_t ns = S->mt * S->nt, n = 0;
    for (int64_t t = 0; t < ns; t++)
        c->sblk[t] = -2; // not yet decided
    for (int64_t x = 0; x < c->v.nseg; x++)
        if (c->skip_seg[x])
            c->sblk[c->v.seg[x].src_tile] = -1;
    for (int64_t t = 0; t < ns; t++)
        if (c->sblk[t] == -2)
            c->sblk[t] = nt_tile_is_big(S, t / S->nt, t % S->nt)
                             ? (S->mem->owned[t] ? n++ : -1)
                             : -3 - S->owner[t]; // slab of its domain, numbered below
    int64_t nbig = n;
    for (int d = 0; d < S->ndomains; d++) // slabs only on used labels, all below D
        n += S->mem->slab[d] != NULL;
    c->nsb = n;
    size_t m = (size_t)(n > 0 ? n : 1);
    c->sb_addr = malloc(m * sizeof *c->sb_addr);
    c->sb_len = malloc(m * sizeof *c->sb_len);
    c->sb_dom = malloc(m * sizeof *c->sb_dom);
    c->sb_left = calloc(m, sizeof *c->sb_left);
    if (!c->sb_addr || !c->sb_len || !c->sb_dom || !c->sb_left)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    int64_t *slab_id = c->lb; // scratch: the block of each domain's slab (lb is filled later)
    for (int64_t d = 0, k = nbig; d < S->ndomains; d++)
        if (S->mem->slab[d]) {
            slab_id[d] = k;
            c->sb_addr[k] = S->mem->slab[d];
            nt_pool_round(S->mem->slab_bytes[d], &c->sb_len[k]);
            c->sb_dom[k++] = (int)d;
        }
    for (int64_t t = 0; t < ns; t++) {
        if (c->sblk[t] <= -3) {
            c->sblk[t] = slab_id[-3 - c->sblk[t]];
        } else if (c->sblk[t] >= 0) {
            c->sb_addr[c->sblk[t]] = S->tile[t];
            nt_pool_round(nt_tile_bytes(S, t / S->nt, t % S->nt), &c->sb_len[c->sblk[t]]);
            c->sb_dom[c->sblk[t]] = S->owner[t];
        }
    }
    memset(c->lb, 0, (size_t)c->D * sizeof *c->lb);
    return NT_OK;
}

// Target blocks: every big tile not adopted, then one slab per domain with small tiles.
static nt_status target_blocks(ip_ctx *c)
{
    const nt_matrix_t *T = c->dst;
    int64_t nd = T->mt * T->nt, n = 0;
    int64_t *slab_id = c->peak; // scratch: the block of each domain's slab (peak is zeroed)
    for (int64_t t = 0; t < nd; t++)
        c->tblk[t] = c->skip_tile[t] ? -1 : nt_tile_is_big(T, t / T->nt, t % T->nt) ? n++ : -2;
    for (int d = 0; d < c->D; d++)
        slab_id[d] = c->tslab[d] ? n++ : -1;
    c->ntb = n;
    size_t m = (size_t)(n > 0 ? n : 1);
    c->tb_tile = malloc(m * sizeof *c->tb_tile);
    c->tb_len = malloc(m * sizeof *c->tb_len);
    c->tb_dom = malloc(m * sizeof *c->tb_dom);
    c->tb_addr = calloc(m, sizeof *c->tb_addr);
    c->tb_fresh = calloc(m, 1);
    c->tb_first = calloc(m + 1, sizeof *c->tb_first);
    c->tb_seg = malloc((size_t)(c->v.nseg > 0 ? c->v.nseg : 1) * sizeof *c->tb_seg);
    c->order = malloc(m * sizeof *c->order);
    c->wave_first = malloc((m + 1) * sizeof *c->wave_first);
    if (!c->tb_tile || !c->tb_len || !c->tb_dom || !c->tb_addr || !c->tb_fresh ||
        !c->tb_first || !c->tb_seg || !c->order || !c->wave_first)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int d = 0; d < c->D; d++)
        if (slab_id[d] >= 0) {
            c->tb_tile[slab_id[d]] = -1;
            nt_pool_round(c->tslab[d], &c->tb_len[slab_id[d]]);
            c->tb_dom[slab_id[d]] = d;
        }
    for (int64_t t = 0; t < nd; t++) {
        if (c->tblk[t] == -2)
            c->tblk[t] = slab_id[T->owner[t]];
        else if (c->tblk[t] >= 0) {
            c->tb_tile[c->tblk[t]] = t;
            nt_pool_round(nt_tile_bytes(T, t / T->nt, t % T->nt), &c->tb_len[c->tblk[t]]);
            c->tb_dom[c->tblk[t]] = T->owner[t];
        }
    }
    memset(c->peak, 0, (size_t)c->D * sizeof *c->peak);
    return NT_OK;
}

// The segments of every target block (counting sort) and the segments left in every source
// block.
static void block_segments(ip_ctx *c)
{
    const nt_segment_t *seg = c->v.seg;
    for (int64_t x = 0; x < c->v.nseg; x++)
        if (!c->skip_seg[x]) {
            c->tb_first[c->tblk[seg[x].dst_tile] + 1]++;
            int64_t s = c->sblk[seg[x].src_tile];
            if (s >= 0)
                c->sb_left[s]++;
        }
    for (int64_t b = 0; b < c->ntb; b++)
        c->tb_first[b + 1] += c->tb_first[b];
    int64_t *cur = c->order; // scratch, refilled by the simulation
    memcpy(cur, c->tb_first, (size_t)c->ntb * sizeof *cur);
    for (int64_t x = 0; x < c->v.nseg; x++)
        if (!c->skip_seg[x])
            c->tb_seg[cur[c->tblk[seg[x].dst_tile]]++] = x;
}

// Lower bounds of the peak, for any order. Per domain: its target bytes to fill less the
// source bytes its pool can ever receive. In total: before the first recycled block exists,
// some source block must be complete, so all target blocks reading it were fresh: the least
// of those sums over source blocks (everything when no block can be recycled).
static nt_status lower_bounds(ip_ctx *c)
{
    int64_t *readers = calloc((size_t)(c->nsb > 0 ? c->nsb : 1), sizeof *readers);
    int64_t *last = malloc((size_t)(c->nsb > 0 ? c->nsb : 1) * sizeof *last);
    if (!readers || !last) {
        free(readers);
        free(last);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    int64_t all = 0;
    for (int64_t s = 0; s < c->nsb; s++)
        last[s] = -1;
    for (int64_t b = 0; b < c->ntb; b++) {
        c->lb[c->tb_dom[b]] += (int64_t)c->tb_len[b];
        all += (int64_t)c->tb_len[b];
        for (int64_t y = c->tb_first[b]; y < c->tb_first[b + 1]; y++) {
            int64_t s = c->sblk[c->v.seg[c->tb_seg[y]].src_tile];
            if (s >= 0 && last[s] != b) {
                last[s] = b;
                readers[s] += (int64_t)c->tb_len[b];
            }
        }
    }
    int64_t first = all, sum = 0;
    for (int64_t s = 0; s < c->nsb; s++) {
        c->lb[c->sb_dom[s]] -= (int64_t)c->sb_len[s];
        first = readers[s] < first ? readers[s] : first;
    }
    for (int d = 0; d < c->D; d++) {
        c->lb[d] = c->lb[d] > 0 ? c->lb[d] : 0;
        sum += c->lb[d];
    }
    c->lb_total = sum > first ? sum : first;
    free(readers);
    free(last);
    return NT_OK;
}

// ---- the order: a simulation of the pools on the real addresses ------------------------------

// Fresh bytes a domain may take for parallelism before the greedy waits for recycled blocks
// (more makes larger waves, which amortise their barrier): 1/ALLOW_SHARE of its target bytes,
// but at most two of its largest blocks or ALLOW_BYTES, whichever is more, and at least one
// block. A relabelling of big tiles then needs at most two tiles per domain.
#define ALLOW_SHARE 16
#define ALLOW_BYTES ((int64_t)1 << 20)

typedef struct sim {
    int64_t *queue, *qfirst, *qpos; // target blocks of domain d: queue[qfirst[d] .. qfirst[d+1])
    int64_t *pend, npend;           // source blocks freed in the current wave
    int64_t *allow;                 // per domain, see ALLOW_BYTES
    int64_t pos;                    // blocks placed: order[0 .. pos)
} sim;

typedef struct qkey {
    int dom;
    int64_t key, b;
} qkey;

static int qkey_cmp(const void *pa, const void *pb)
{
    const qkey *a = pa, *b = pb;
    if (a->dom != b->dom)
        return a->dom < b->dom ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static void sim_free(sim *s)
{
    free(s->queue);
    free(s->qfirst);
    free(s->qpos);
    free(s->pend);
    free(s->allow);
}

// Queues in source-major order (key: the first source tile a block reads), allowances, and
// the source blocks no segment reads (none for a whole-matrix plan) in the pools at once.
static nt_status sim_init(ip_ctx *c, sim *s, int64_t budget)
{
    size_t D = (size_t)c->D, m = (size_t)(c->ntb > 0 ? c->ntb : 1);
    *s = (sim){.queue = malloc(m * sizeof *s->queue), .qfirst = calloc(D + 1, sizeof(int64_t)),
               .qpos = calloc(D, sizeof(int64_t)), .allow = calloc(D, sizeof(int64_t)),
               .pend = malloc((size_t)(c->nsb > 0 ? c->nsb : 1) * sizeof(int64_t))};
    qkey *k = malloc(m * sizeof *k);
    int64_t *tbytes = calloc(D, sizeof *tbytes);
    nt_status st = nt_pool_create(c->D, &c->pool);
    if (st == NT_OK && (!s->queue || !s->qfirst || !s->qpos || !s->allow || !s->pend || !k ||
                        !tbytes))
        st = nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int64_t b = 0; st == NT_OK && b < c->ntb; b++) {
        int64_t key = INT64_MAX;
        for (int64_t y = c->tb_first[b]; y < c->tb_first[b + 1]; y++)
            if (c->v.seg[c->tb_seg[y]].src_tile < key)
                key = c->v.seg[c->tb_seg[y]].src_tile;
        k[b] = (qkey){c->tb_dom[b], key, b};
        s->qfirst[c->tb_dom[b] + 1]++;
        tbytes[c->tb_dom[b]] += (int64_t)c->tb_len[b];
        if ((int64_t)c->tb_len[b] > s->allow[c->tb_dom[b]])
            s->allow[c->tb_dom[b]] = (int64_t)c->tb_len[b];
    }
    if (st == NT_OK) {
        qsort(k, (size_t)c->ntb, sizeof *k, qkey_cmp);
        for (int64_t b = 0; b < c->ntb; b++)
            s->queue[b] = k[b].b;
        for (size_t d = 0; d < D; d++) {
            s->qfirst[d + 1] += s->qfirst[d];
            s->qpos[d] = s->qfirst[d];
            int64_t big = s->allow[d], want = tbytes[d] / ALLOW_SHARE;
            int64_t cap = 2 * big > ALLOW_BYTES ? 2 * big : ALLOW_BYTES;
            want = want < cap ? want : cap;
            s->allow[d] = want > big ? want : big;
            if (budget > 0 && s->allow[d] > budget)
                s->allow[d] = budget;
        }
    }
    for (int64_t b = 0; st == NT_OK && b < c->nsb; b++)
        if (c->sb_left[b] == 0)
            st = nt_pool_give(c->pool, c->sb_dom[b], c->sb_addr[b], c->sb_len[b]);
    free(k);
    free(tbytes);
    return st;
}

// Block b fills next, in recycled memory at addr or (addr NULL) in a fresh block; the source
// blocks it completes are freed at the end of the wave.
static void place(ip_ctx *c, sim *s, int64_t b, char *addr)
{
    int d = c->tb_dom[b];
    c->order[s->pos++] = b;
    s->qpos[d]++;
    c->tb_addr[b] = addr;
    c->tb_fresh[b] = addr == NULL;
    if (addr) {
        c->recycled += (int64_t)c->tb_len[b];
        if (c->first_recycle < 0)
            c->first_recycle = c->nwaves;
    } else {
        c->peak[d] += (int64_t)c->tb_len[b];
    }
    for (int64_t y = c->tb_first[b]; y < c->tb_first[b + 1]; y++) {
        int64_t sb = c->sblk[c->v.seg[c->tb_seg[y]].src_tile];
        if (sb >= 0 && --c->sb_left[sb] == 0)
            s->pend[s->npend++] = sb;
    }
}

static int64_t head(const sim *s, int d)
{
    return s->qpos[d] < s->qfirst[d + 1] ? s->queue[s->qpos[d]] : -1;
}

// (1) Heads the pools can serve, round after round; true when any was.
static bool serve_from_pools(ip_ctx *c, sim *s)
{
    bool any = false, again = true;
    while (again) {
        again = false;
        for (int d = 0; d < c->D; d++) {
            int64_t b = head(s, d);
            if (b >= 0 && nt_pool_fits(c->pool, d, c->tb_len[b])) {
                place(c, s, b, nt_pool_take(c->pool, d, c->tb_len[b]));
                any = again = true;
            }
        }
    }
    return any;
}

// (2) One fresh head per domain within its allowance; true when any.
static bool fresh_within_allowance(ip_ctx *c, sim *s)
{
    bool any = false;
    for (int d = 0; d < c->D; d++) {
        int64_t b = head(s, d);
        if (b >= 0 && c->peak[d] + (int64_t)c->tb_len[b] <= s->allow[d]) {
            place(c, s, b, NULL);
            any = true;
        }
    }
    return any;
}

// (3) The wave ends: what it freed enters the pools.
static nt_status end_wave(ip_ctx *c, sim *s)
{
    for (int64_t k = 0; k < s->npend; k++) {
        int64_t sb = s->pend[k];
        nt_status st = nt_pool_give(c->pool, c->sb_dom[sb], c->sb_addr[sb], c->sb_len[sb]);
        if (st)
            return st;
    }
    s->npend = 0;
    if (s->pos > c->wave_first[c->nwaves])
        c->wave_first[++c->nwaves] = s->pos;
    return NT_OK;
}

// (4) The head whose completion frees the most takes a fresh block; heads of domains the
// block would take over the budget only when no other is left.
static void forced_fresh(ip_ctx *c, sim *s, int64_t budget)
{
    int64_t best = -1;
    double best_score = -1;
    for (int d = 0; d < c->D; d++) {
        int64_t b = head(s, d);
        if (b < 0)
            continue;
        bool over = budget > 0 && c->peak[d] + (int64_t)c->tb_len[b] > budget;
        double score = 0;
        for (int64_t y = c->tb_first[b]; y < c->tb_first[b + 1]; y++) {
            int64_t sb = c->sblk[c->v.seg[c->tb_seg[y]].src_tile];
            if (sb >= 0)
                score += (double)c->sb_len[sb] / (double)c->sb_left[sb];
        }
        // Over the budget ranks below every head within it (scores are finite and >= 0).
        score = over ? -1.0 / (1.0 + score) : score;
        if (best < 0 || score > best_score) {
            best_score = score;
            best = b;
        }
    }
    place(c, s, best, NULL);
}

static nt_status simulate(ip_ctx *c, int64_t budget)
{
    sim s;
    nt_status st = sim_init(c, &s, budget);
    c->nwaves = 0;
    c->wave_first[0] = 0;
    c->first_recycle = -1;
    while (st == NT_OK && s.pos < c->ntb) {
        if (serve_from_pools(c, &s) || fresh_within_allowance(c, &s))
            continue;
        if (s.npend > 0)
            st = end_wave(c, &s);
        else
            forced_fresh(c, &s, budget);
    }
    // The last wave's frees join the leftovers, returned to the kernel after success.
    if (st == NT_OK)
        st = end_wave(c, &s);
    if (c->first_recycle < 0)
        c->first_recycle = c->nwaves;
    sim_free(&s);
    return st;
}

// ---- execution ----------------------------------------------------------------------------------

// Domain whose threads fill block b: its own, else any domain with cpus.
static int exec_domain(const ip_ctx *c, int d)
{
    if (c->t->tpd[d] > 0)
        return d;
    for (int e = 0; e < c->D; e++)
        if (c->t->tpd[e] > 0)
            return e;
    return d;
}

// Copy lists by (wave, executing domain), by counting sort: pass 0 counts, pass 1 fills.
static nt_status build_work_lists(ip_ctx *c)
{
    size_t D = (size_t)c->D, cells = (size_t)c->nwaves * D;
    c->wfirst = calloc(cells + 1, sizeof *c->wfirst);
    c->wlist = malloc((size_t)(c->v.nseg > 0 ? c->v.nseg : 1) * sizeof *c->wlist);
    int64_t *cur = calloc(cells > 0 ? cells : 1, sizeof *cur);
    if (!c->wfirst || !c->wlist || !cur) {
        free(cur);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t w = 0; w < c->nwaves; w++)
            for (int64_t k = c->wave_first[w]; k < c->wave_first[w + 1]; k++) {
                int64_t b = c->order[k], n = c->tb_first[b + 1] - c->tb_first[b];
                size_t cell = (size_t)w * D + (size_t)exec_domain(c, c->tb_dom[b]);
                if (pass == 0) {
                    c->wfirst[cell + 1] += n;
                    continue;
                }
                memcpy(&c->wlist[c->wfirst[cell] + cur[cell]], &c->tb_seg[c->tb_first[b]],
                       (size_t)n * sizeof *c->wlist);
                cur[cell] += n;
            }
        for (size_t k = 0; pass == 0 && k < cells; k++)
            c->wfirst[k + 1] += c->wfirst[k];
    }
    free(cur);
    return NT_OK;
}

// Copy segment x column by column, or in one go when both sides are contiguous (the copy of
// exec_segments.c's copy_segment); false when the test hook makes it fail (nothing copied).
static bool copy_segment(const ip_ctx *c, int64_t x)
{
    if (copy_fault())
        return false;
    const nt_segment_t *g = &c->v.seg[x];
    const nt_matrix_t *S = c->src, *T = c->dst;
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    size_t es = S->elem_size;
    int64_t lds = nt_matrix_tile_ld(S, si, sj), ldt = nt_matrix_tile_ld(T, ti, tj);
    const char *a = (const char *)nt_matrix_tile(S, si, sj) +
                    ((size_t)g->src_col * (size_t)lds + (size_t)g->src_row) * es;
    char *b = (char *)nt_matrix_tile(T, ti, tj) +
              ((size_t)g->dst_col * (size_t)ldt + (size_t)g->dst_row) * es;
    size_t col = (size_t)g->rows * es;
    if (g->rows == lds && g->rows == ldt) {
        memcpy(b, a, col * (size_t)g->cols);
        return true;
    }
    for (int32_t k = 0; k < g->cols; k++)
        memcpy(b + (size_t)k * (size_t)ldt * es, a + (size_t)k * (size_t)lds * es, col);
    return true;
}

static void run_task(ip_ctx *c, int d, int64_t lo, int64_t hi)
{
    int64_t bytes = 0;
    for (int64_t k = lo; k < hi; k++) {
        int64_t x = c->wlist[k];
        if (copy_segment(c, x)) {
            bytes += seg_bytes(c, &c->v.seg[x]);
        } else {
            c->failed[x] = 1;
            atomic_store(&c->fault, 1);
        }
    }
    nt_team_task_done(c->t, d, bytes);
}

// Domain d's nested team copies its list of wave w, in tasks of about TASK_GRAIN bytes with a
// bound on the tasks in flight (as exec_segments.c's run_domain_phase).
static void run_domain_wave(ip_ctx *c, int d, int64_t w)
{
    int64_t lo = c->wfirst[(size_t)w * (size_t)c->D + (size_t)d];
    int64_t hi = c->wfirst[(size_t)w * (size_t)c->D + (size_t)d + 1];
    if (lo == hi)
        return;
    // One copy thread: the outer thread copies itself (a nested team per wave costs more than
    // the copies of a small wave).
    if (nt_team_threads(c->t, d) == 1) {
        run_task(c, d, lo, hi);
        return;
    }
    _Atomic int64_t in_flight = 0;
#pragma omp parallel num_threads(nt_team_threads(c->t, d))
    {
        cpu_set_t saved;
        bool bound = nt_team_bind(c->t, d, &saved);
#pragma omp single
        for (int64_t k = lo; k < hi;) {
            int64_t k1 = k, bytes = 0;
            while (k1 < hi && (k1 == k || bytes < TASK_GRAIN))
                bytes += seg_bytes(c, &c->v.seg[c->wlist[k1++]]);
            bool defer = atomic_load(&in_flight) < c->max_in_flight;
            if (defer)
                atomic_fetch_add(&in_flight, 1);
#pragma omp task firstprivate(k, k1, defer) shared(in_flight) if (defer)
            {
                run_task(c, d, k, k1);
                if (defer)
                    atomic_fetch_sub(&in_flight, 1);
            }
            k = k1;
        }
        nt_team_unbind(bound, &saved);
    }
}

// After wave w: a failed copy aborts the run while the source is intact (no recycled block
// written yet), else it is copied again until it succeeds (roll forward).
static void after_wave(ip_ctx *c, int64_t w)
{
    if (!atomic_load(&c->fault))
        return;
    if (w < c->first_recycle) {
        c->aborted = true;
        return;
    }
    for (int64_t k = c->wfirst[(size_t)w * (size_t)c->D];
         k < c->wfirst[(size_t)(w + 1) * (size_t)c->D]; k++) {
        int64_t x = c->wlist[k];
        while (c->failed[x] && !copy_segment(c, x))
            ;
        c->failed[x] = 0;
    }
    atomic_store(&c->fault, 0);
}

// Every wave: one outer thread per domain, each running its domain's nested team; a barrier
// after each wave, then one thread checks for failed copies. An outer thread that serves one
// domain binds once for all waves.
static void run_waves(ip_ctx *c)
{
#pragma omp parallel num_threads(c->D)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        bool once = nth == c->D;
        cpu_set_t saved1;
        bool bound1 = once && nt_team_bind(c->t, tid, &saved1);
        for (int64_t w = 0; w < c->nwaves; w++) {
            for (int d = tid; d < c->D; d += nth) {
                cpu_set_t saved;
                bool bound = !once && nt_team_bind(c->t, d, &saved);
                run_domain_wave(c, d, w);
                nt_team_unbind(bound, &saved);
            }
#pragma omp barrier
#pragma omp single
            after_wave(c, w);
            // The single's barrier publishes c->aborted to every thread.
            if (c->aborted)
                break;
        }
        nt_team_unbind(bound1, &saved1);
    }
}

// The fresh blocks, each on its domain's node, before the first copy; on failure the ones
// taken are freed again.
static nt_status reserve_fresh(ip_ctx *c)
{
    for (int64_t b = 0; b < c->ntb; b++) {
        if (!c->tb_fresh[b])
            continue;
        nt_status st = nt_mem_alloc(c->src->topo, c->tb_dom[b], c->tb_len[b],
                                    NT_MEM_HUGE_PAGES, (void **)&c->tb_addr[b]);
        if (st) {
            for (int64_t e = 0; e < b; e++)
                if (c->tb_fresh[e]) {
                    nt_mem_free(c->tb_addr[e], c->tb_len[e]);
                    c->tb_addr[e] = NULL;
                }
            return st;
        }
    }
    return NT_OK;
}

// dst's tables point at every block (fresh or recycled); dst frees them from now on.
static void place_target(ip_ctx *c)
{
    for (int64_t b = 0; b < c->ntb; b++) {
        if (c->tb_tile[b] >= 0)
            nt_matrix_place_tile(c->dst, c->tb_tile[b], c->tb_addr[b], c->tb_fresh[b]);
        else
            nt_matrix_place_slab(c->dst, c->tb_dom[b], c->tb_addr[b], c->tslab[c->tb_dom[b]]);
    }
}

// Undo place_target after an aborted copy phase: the fresh blocks are freed, the recycled
// ones (still the source's) forgotten; dst is left without memory.
static void unplace_target(ip_ctx *c)
{
    for (int64_t b = 0; b < c->ntb; b++)
        if (c->tb_fresh[b])
            nt_mem_free(c->tb_addr[b], c->tb_len[b]);
    nt_matrix_forget_memory(c->dst);
}

// Success: dst adopts the kept tiles, src forgets its memory (recycled or handed over), the
// recycled runs no target block uses go back to the kernel.
static void finish(ip_ctx *c)
{
    for (int64_t x = 0; x < c->v.nseg; x++)
        if (c->skip_seg[x])
            nt_matrix_adopt_tile(c->dst, c->v.seg[x].dst_tile, c->src, c->v.seg[x].src_tile);
    c->dst->allocated = true;
    // Its allocation counters (the statistics read them) describe this execution: in place
    // takes no memory through them.
    c->dst->mem->bytes_pooled = c->dst->mem->bytes_fresh = 0;
    c->dst->mem->fault_seconds = 0;
    nt_matrix_forget_memory(c->src);
    nt_pool_clear(c->pool, true);
}

// The order's peak against the caller's budget and the machine, before anything is touched.
static nt_status check_budget(const ip_ctx *c, int64_t budget)
{
    for (int d = 0; d < c->D; d++)
        if (budget > 0 && c->peak[d] > budget)
            return nt_fail(NT_ENOSPACE, "nt_plan_execute: in place needs %lld extra bytes on "
                           "domain %d, the budget is %lld bytes per domain (any order needs at "
                           "least %lld there)", (long long)c->peak[d], d, (long long)budget,
                           (long long)c->lb[d]);
    uint64_t *per = calloc((size_t)nt_topo_ndomains(c->src->topo), sizeof *per);
    if (!per)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int d = 0; d < c->D && d < nt_topo_ndomains(c->src->topo); d++)
        per[d] = (uint64_t)c->peak[d];
    nt_status st = nt_mem_room(c->src->topo, per, 0, "nt_plan_execute (in place)");
    free(per);
    return st;
}

// Whether the strategy takes the execution: every one with opts->inplace (it refuses, with the
// reason, what it cannot do).
static bool ip_accepts(const nt_plan_t *plan, const nt_exec_opts_t *opts)
{
    (void)plan;
    return opts && opts->inplace;
}

static nt_status ip_check(nt_exec_job_t *j)
{
    nt_status st = check_inplace(j->plan, j->src, j->dst, &j->o);
    if (st)
        return st;
    nt_plan_view_t v;
    nt_plan_get_view(j->plan, &v);
    // Periodic plans keep no segment list (they need ScaLAPACK layouts, refused above).
    if (v.periodic || !v.dst_owner)
        return nt_fail(NT_ENOTSUP, "nt_plan_execute: in place needs a plan with explicit "
                       "segments (TILE layouts); this one is periodic");
    return NT_OK;
}

// Everything that can fail before memory is taken, in order: tables, blocks, the order and
// its budget, work lists. Reads the target's new map (relabel_first).
static nt_status ip_prepare(nt_exec_job_t *j)
{
    ip_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    *c = (ip_ctx){.t = &j->t, .v = j->v, .src = j->src, .dst = j->dst, .D = j->t.D,
                  .max_in_flight = j->o.max_in_flight > 0 ? j->o.max_in_flight : 64};
    j->ctx = c;
    int64_t budget = j->o.budget_bytes;
    nt_status st;
    if ((st = alloc_tables(c)) || (st = source_blocks(c)) || (st = target_blocks(c)))
        return st;
    block_segments(c);
    if ((st = lower_bounds(c)) || (st = simulate(c, budget)) || (st = check_budget(c, budget)))
        return st;
    return build_work_lists(c);
}

// dst's tables and the fresh blocks; on failure dst's tables are released again.
static nt_status ip_alloc(nt_exec_job_t *j)
{
    ip_ctx *c = j->ctx;
    nt_status st = nt_matrix_alloc_tables(c->dst);
    if (st)
        return st;
    if ((st = reserve_fresh(c)) != NT_OK)
        nt_matrix_release(c->dst);
    return st;
}

// The waves (timed); a failed copy that aborts them leaves the target without memory.
static nt_status ip_run(nt_exec_job_t *j)
{
    ip_ctx *c = j->ctx;
    place_target(c);
    double t0 = nt_now();
    run_waves(c);
    j->seconds = nt_now() - t0;
    if (c->aborted) {
        unplace_target(c);
        return nt_fail(NT_ESYS, "nt_plan_execute: in place: a copy failed before any recycled "
                       "block was written; the source is intact, nothing was kept");
    }
    finish(c);
    return NT_OK;
}

// Every copied segment per domain pair, the kept tiles, the peaks and their bounds.
static void ip_stats(nt_exec_job_t *j, nt_exec_stats_t *s)
{
    ip_ctx *c = j->ctx;
    size_t D = (size_t)c->D;
    for (int64_t x = 0; x < c->v.nseg; x++) {
        const nt_segment_t *g = &c->v.seg[x];
        if (c->skip_seg[x])
            continue;
        int64_t b = seg_bytes(c, g);
        size_t pr = (size_t)g->src_dom * D + (size_t)g->dst_dom;
        j->pair_tiles[pr]++;
        j->pair_bytes[pr] += b;
        s->bytes_copied += b;
    }
    s->tiles_kept = c->adopted;
    s->peak_extra_bytes = c->peak;
    s->peak_lower_bound_bytes = c->lb;
    s->peak_lower_bound_total = c->lb_total;
    s->bytes_recycled = c->recycled;
    s->waves = c->nwaves;
    c->peak = c->lb = NULL;
}

static void ip_release(nt_exec_job_t *j)
{
    if (j->ctx)
        ctx_free(j->ctx);
    free(j->ctx);
}

const nt_strategy_t nt_strategy_inplace = {
    .name = "inplace", .accepts = ip_accepts, .check = ip_check, .relabel_first = true,
    .prepare = ip_prepare, .alloc = ip_alloc, .run = ip_run, .stats = ip_stats,
    .release = ip_release};
