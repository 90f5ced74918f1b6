// LAPACK <-> tile layout in the same memory (numatile/convert.h), with a workspace bounded by
// the caller's budget.
//
// LAPACK -> tile runs two passes; tile -> LAPACK runs them backwards, in reverse order.
//
// 1. Packing (only when lda > m): column c moves from c*lda to c*m. Destinations lie below
//    their sources, so columns moved in increasing order never overwrite an unread one. A run
//    of columns [c0, c1) may be copied at once, by all threads, when its destinations end
//    before the first unread source (c1*m <= c0*lda): the run then grows with c0. Where it is
//    too short, the run goes through the workspace (read whole, then written), and with no
//    room for one column, one column is moved with memmove. Packing back moves columns in
//    decreasing order, upwards, under the mirror condition.
//
// 2. Permuting tile columns: once packed, the panel of tile column j (m x nj, leading
//    dimension m) occupies exactly the m*nj elements its tiles take in the tile layout
//    (numatile/convert.h), so every panel is an independent permutation of its own memory:
//    panels run in parallel, one thread each. The permutation moves whole units of
//    g = gcd(m, mb) elements: a panel column is mtf pieces of mb rows and one of mr = m mod mb
//    rows, tile pieces are mb or mr rows long, and g divides m, mb and mr, so every unit
//    starts and ends on a piece boundary on both sides. When mb divides m a unit is a whole
//    column piece of a tile (the permutation is the transpose of an mt x nj matrix of pieces);
//    otherwise units are shorter, down to one element. The permutation is followed cycle by
//    cycle ("pull": each position receives its unit from where that unit lies, the cycle's
//    first unit waiting in a carry buffer), a bitmap of the panel's units marking those
//    placed: every unit is read once and written once, the least traffic any in-place
//    permutation has, with a workspace of one bit per unit and one unit per thread (the
//    least budget, nt_convert_min_budget()). A written unit is not read again in the pass, so
//    in arrays larger than the caches units of 256 bytes or more are written with streaming
//    stores, as the out-of-place copy writes its target. Each pass thus costs one read and
//    one write of the array, as the out-of-place copy does.
//
// Nothing lost: checks and every allocation (the packing buffer, the bitmaps and carries) come
// before the first byte moves; the passes themselves cannot fail.
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt_convert.h"
#include "nt_copy.h"
#include "nt_core.h"

// ---- workspace: counted, with failure injection ------------------------------------------

static _Atomic int64_t fail_after = -1;
static _Atomic size_t held_bytes, peak_bytes;

void nt_convert_test_fail_alloc_after(int64_t k)
{
    atomic_store(&fail_after, k);
}

size_t nt_convert_test_peak_bytes(void)
{
    return atomic_load(&peak_bytes);
}

void nt_convert_test_reset_peak(void)
{
    atomic_store(&peak_bytes, atomic_load(&held_bytes));
}

// True when the armed failure fires for this allocation (then it disarms itself).
static bool injected(void)
{
    int64_t v = atomic_load(&fail_after);
    while (v >= 0)
        if (atomic_compare_exchange_weak(&fail_after, &v, v - 1))
            return v == 0;
    return false;
}

static void *ws_alloc(size_t bytes, const char *who, const char *what)
{
    bool inj = injected();
    void *p = inj ? NULL : malloc(bytes);
    if (!p) {
        nt_fail(NT_ENOMEM, "%s: no memory for the %s (%zu bytes)%s", who, what, bytes,
                inj ? ": injected failure (test hook)" : "");
        return NULL;
    }
    size_t now = atomic_fetch_add(&held_bytes, bytes) + bytes;
    size_t pk = atomic_load(&peak_bytes);
    while (now > pk && !atomic_compare_exchange_weak(&peak_bytes, &pk, now))
        ;
    return p;
}

static void ws_free(void *p, size_t bytes)
{
    if (p) {
        free(p);
        atomic_fetch_sub(&held_bytes, bytes);
    }
}

// Units of at least this many bytes are written with streaming stores in arrays too large for
// the caches: a written unit is not read again in the pass, so its lines need not be read first.
#define STREAM_UNIT ((size_t)256)

// ---- pass 2: the permutation of one tile column -----------------------------------------

// One panel: its columns nj, the geometry's rows, and the unit of g elements.
typedef struct cv_panel {
    int64_t m, mb, nj, mtf, mr, g, units;
} cv_panel;

// The tile-layout unit that LAPACK (packed) unit s goes to.
static int64_t to_tile_unit(const cv_panel *p, int64_t s)
{
    int64_t e = s * p->g, c = e / p->m, r = e - c * p->m;
    int64_t i = r / p->mb, rr = r - i * p->mb, mi = i < p->mtf ? p->mb : p->mr;
    return (i * p->mb * p->nj + c * mi + rr) / p->g;
}

// The LAPACK (packed) unit that tile-layout unit t comes from.
static int64_t to_lapack_unit(const cv_panel *p, int64_t t)
{
    int64_t e = t * p->g, full = p->mtf * p->mb * p->nj, i, mi;
    if (e < full) {
        i = e / (p->mb * p->nj);
        mi = p->mb;
    } else {
        i = p->mtf;
        mi = p->mr;
    }
    int64_t off = e - i * p->mb * p->nj, c = off / mi, rr = off - c * mi;
    return (c * p->m + i * p->mb + rr) / p->g;
}

static inline bool bit_test(const uint64_t *b, int64_t k)
{
    return (b[k >> 6] >> (k & 63)) & 1u;
}

static inline void bit_set(uint64_t *b, int64_t k)
{
    b[k >> 6] |= (uint64_t)1 << (k & 63);
}

// Permute one panel in place: afterwards unit u holds what unit from(u) held, with from =
// to_lapack_unit (LAPACK -> tile) or to_tile_unit (back). Cycle by cycle, pulling: the first
// unit of a cycle waits in carry while each position takes the unit it is owed.
static inline void unit_copy(char *dst, const char *src, size_t ub, bool stream)
{
    if (stream)
        nt_copy_2d_ex(dst, 1, src, 1, (int64_t)ub, 1, 1, NT_COPY_STREAM | NT_COPY_NOFENCE,
                      NT_COPY_NT);
    else
        memcpy(dst, src, ub);
}

static void permute_panel(char *base, const cv_panel *p, bool to_tile, uint64_t *bits,
                          char *carry, size_t ub, bool stream)
{
    int64_t (*from)(const cv_panel *, int64_t) = to_tile ? to_lapack_unit : to_tile_unit;
    memset(bits, 0, (size_t)((p->units + 63) / 64) * sizeof *bits);
    for (int64_t s = 0; s < p->units; s++) {
        if (bit_test(bits, s))
            continue;
        int64_t cur = s, nxt = from(p, s);
        bit_set(bits, s);
        if (nxt == s)
            continue;
        memcpy(carry, base + (size_t)s * ub, ub);
        while (nxt != s) {
            unit_copy(base + (size_t)cur * ub, base + (size_t)nxt * ub, ub, stream);
            cur = nxt;
            bit_set(bits, cur);
            nxt = from(p, cur);
        }
        unit_copy(base + (size_t)cur * ub, carry, ub, stream);
    }
    if (stream)
        nt_copy_fence();
}

// Bytes of the bitmap of the widest panel's units.
static size_t bitmap_bytes(const nt_cgeom *c, int64_t g)
{
    int64_t units = c->m / g * c->nb;
    return (size_t)((units + 63) / 64) * sizeof(uint64_t);
}

// Bytes one thread needs to permute any panel: its bitmap, then a carry unit (rounded up to
// 8 bytes so that the next thread's bitmap stays aligned). No overflow: the unit is at most
// a column of the array.
static size_t perm_need(const nt_cgeom *c, int64_t g)
{
    return bitmap_bytes(c, g) + (((size_t)g * c->es + 7) & ~(size_t)7);
}

// Whether pass 2 moves anything: one tile row or one column per tile is already in place.
static bool perm_needed(const nt_cgeom *c)
{
    return c->mt > 1 && c->nb > 1;
}

// Permute every panel, in parallel (threads take panels in turn); ws holds each thread's
// bitmap and carry, need bytes apart.
static void permute_all(char *a, const nt_cgeom *c, bool to_tile, char *ws, size_t need,
                        int threads)
{
    int64_t g = nt_gcd64(c->m, c->mb);
    size_t ub = (size_t)g * c->es, bitbytes = bitmap_bytes(c, g);
    bool stream = ub >= STREAM_UNIT && (int64_t)c->bytes >= nt_copy_stream_bytes();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        char *mine = ws + (size_t)omp_get_thread_num() * need;
#pragma omp for schedule(dynamic, 1)
        for (int64_t j = 0; j < c->nt; j++) {
            int64_t nj = nt_cgeom_cols(c, j);
            cv_panel p = {.m = c->m, .mb = c->mb, .nj = nj, .mtf = c->mtf, .mr = c->mr,
                          .g = g, .units = c->m / g * nj};
            if (nj > 1)
                permute_panel(a + (size_t)(j * c->nb * c->m) * c->es, &p, to_tile,
                              (uint64_t *)(void *)mine, mine + bitbytes, ub, stream);
        }
    }
}

// ---- pass 1: packing columns to leading dimension m, and back ----------------------------

// The most workspace packing uses: larger runs through it gain nothing measurable.
#define PACK_MAX ((size_t)32 << 20)
// A run copied directly is taken even when shorter than the workspace's from this size on:
// it moves each byte once (the workspace twice) and is long enough to pay for a parallel region.
#define DIRECT_MIN ((size_t)256 << 10)

// Copy cols columns of rows elements (leading dimensions ldd, lds; the blocks do not
// overlap) with all threads: columns split among them, rows when there are fewer columns.
static void par_copy(char *dst, int64_t ldd, const char *src, int64_t lds, int64_t rows,
                     int64_t cols, size_t es, int threads, unsigned flags)
{
    threads = nt_convert_threads(threads, (size_t)(rows * cols) * es);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int t = omp_get_thread_num(), nth = omp_get_num_threads();
        if (cols >= nth) {
            int64_t c0 = (int64_t)((nt_u128)cols * t / nth);
            int64_t c1 = (int64_t)((nt_u128)cols * (t + 1) / nth);
            nt_copy_2d_ex(dst + (size_t)(c0 * ldd) * es, ldd, src + (size_t)(c0 * lds) * es,
                          lds, rows, c1 - c0, es, flags, NT_COPY_AUTO);
        } else {
            int64_t r0 = (int64_t)((nt_u128)rows * t / nth);
            int64_t r1 = (int64_t)((nt_u128)rows * (t + 1) / nth);
            nt_copy_2d_ex(dst + (size_t)r0 * es, ldd, src + (size_t)r0 * es, lds, r1 - r0,
                          cols, es, flags, NT_COPY_AUTO);
        }
    }
}

// How a run of columns moves: directly (destinations clear of every unread source), through
// the workspace, or (no room for a column) one column by memmove.
static int64_t run_length(int64_t kd, int64_t kw, size_t col, int64_t left, int *how)
{
    int64_t k = kd;
    *how = 0;
    if (kd < 1 || (kd < kw && (size_t)kd * col < DIRECT_MIN)) {
        *how = kw >= 1 ? 1 : 2;
        k = kw >= 1 ? kw : 1;
    }
    return k < left ? k : left;
}

// Column c from c*lda to c*m, in increasing order (the top of this file).
static void pack(char *a, const nt_cgeom *c, char *buf, size_t bufbytes, int threads,
                 unsigned flags)
{
    size_t col = (size_t)c->m * c->es;
    int64_t kw = (int64_t)(bufbytes / col);
    for (int64_t c0 = 1; c0 < c->n;) {
        // floor(c0*lda/m) - c0 columns from c0 on end before c0*lda, the first unread byte
        int64_t kd = (int64_t)((nt_u128)c0 * (uint64_t)(c->lda - c->m) / (uint64_t)c->m);
        int how;
        int64_t k = run_length(kd, kw, col, c->n - c0, &how);
        char *dst = a + (size_t)c0 * col, *src = a + (size_t)(c0 * c->lda) * c->es;
        if (how == 0) {
            par_copy(dst, c->m, src, c->lda, c->m, k, c->es, threads, flags);
        } else if (how == 1) {
            par_copy(buf, c->m, src, c->lda, c->m, k, c->es, threads, 0);
            par_copy(dst, c->m * k, buf, c->m * k, c->m * k, 1, c->es, threads, flags);
        } else {
            memmove(dst, src, col);
        }
        c0 += k;
    }
}

// Column c from c*m back to c*lda, in decreasing order.
static void unpack(char *a, const nt_cgeom *c, char *buf, size_t bufbytes, int threads,
                   unsigned flags)
{
    size_t col = (size_t)c->m * c->es;
    int64_t kw = (int64_t)(bufbytes / col);
    for (int64_t c1 = c->n; c1 > 1;) {
        // columns [c1 - kd, c1) land at or above c1*m, the end of the unread columns
        int64_t kd = (int64_t)((nt_u128)c1 * (uint64_t)(c->lda - c->m) / (uint64_t)c->lda);
        int how;
        int64_t k = run_length(kd, kw, col, c1 - 1, &how), c0 = c1 - k;
        char *dst = a + (size_t)(c0 * c->lda) * c->es, *src = a + (size_t)c0 * col;
        if (how == 0) {
            par_copy(dst, c->lda, src, c->m, c->m, k, c->es, threads, flags);
        } else if (how == 1) {
            par_copy(buf, c->m * k, src, c->m * k, c->m * k, 1, c->es, threads, 0);
            par_copy(dst, c->lda, buf, c->m, c->m, k, c->es, threads, flags);
        } else {
            memmove(dst, src, col);
        }
        c1 = c0;
    }
}

// ---- the conversions ---------------------------------------------------------------------

// What one conversion will do and hold, decided before anything is allocated.
typedef struct cv_plan {
    nt_cgeom c;
    size_t budget, need, pack_bytes; // need: one permuting thread's workspace (0: none)
    int threads, pthreads;           // all threads; threads permuting panels
} cv_plan;

static nt_status plan(const char *who, const void *a, const nt_convert_geom_t *g,
                      const nt_convert_opts_t *o, cv_plan *pl)
{
    nt_status s = nt_convert_check(g, who, &pl->c);
    if (s)
        return s;
    const nt_cgeom *c = &pl->c;
    if (!a)
        return nt_fail(NT_EINVAL, "%s: a is NULL", who);
    if (o && o->threads < 0)
        return nt_fail(NT_EINVAL, "%s: threads %d must be >= 0", who, o->threads);
    pl->threads = o && o->threads ? o->threads : omp_get_max_threads();
    pl->need = perm_needed(c) ? perm_need(c, nt_gcd64(c->m, c->mb)) : 0;
    size_t dflt = c->bytes / 100 > pl->need ? c->bytes / 100 : pl->need;
    pl->budget = o && o->budget_bytes ? o->budget_bytes : dflt;
    if (pl->budget < pl->need)
        return nt_fail(NT_EINVAL, "%s: budget_bytes %zu is below the %zu bytes this geometry "
                       "needs (nt_convert_min_budget)", who, pl->budget, pl->need);
    int64_t pt = 0;
    if (pl->need) {
        pt = (int64_t)(pl->budget / pl->need);
        pt = pt < pl->threads ? pt : pl->threads;
        pt = pt < c->nt ? pt : c->nt;
        pt = nt_convert_threads((int)pt, c->bytes);
    }
    pl->pthreads = (int)pt;
    size_t rest = pl->budget - (size_t)pt * pl->need, col = (size_t)c->m * c->es;
    size_t want = (size_t)(c->n - 1) * col < PACK_MAX ? (size_t)(c->n - 1) * col : PACK_MAX;
    pl->pack_bytes = c->lda > c->m && rest >= col ? (rest < want ? rest : want) : 0;
    return NT_OK;
}

nt_status nt_convert_min_budget(const nt_convert_geom_t *g, size_t *bytes)
{
    nt_cgeom c;
    nt_status s = nt_convert_check(g, "nt_convert_min_budget", &c);
    if (s)
        return s;
    if (!bytes)
        return nt_fail(NT_EINVAL, "nt_convert_min_budget: bytes is NULL");
    *bytes = perm_needed(&c) ? perm_need(&c, nt_gcd64(c.m, c.mb)) : 0;
    return NT_OK;
}

// Both directions: allocate everything, then the two passes in the direction's order.
static nt_status convert(const char *who, void *a, const nt_convert_geom_t *g,
                         const nt_convert_opts_t *o, nt_convert_stats_t *st, bool to_tile)
{
    double t0 = nt_now();
    cv_plan pl;
    nt_status s = plan(who, a, g, o, &pl);
    if (s)
        return s;
    const nt_cgeom *c = &pl.c;
    size_t perm_bytes = (size_t)pl.pthreads * pl.need;
    char *pbuf = NULL, *ws = NULL;
    if (pl.pack_bytes && !(pbuf = ws_alloc(pl.pack_bytes, who, "packing buffer")))
        return NT_ENOMEM;
    if (perm_bytes && !(ws = ws_alloc(perm_bytes, who, "permutation bitmaps"))) {
        ws_free(pbuf, pl.pack_bytes);
        return NT_ENOMEM;
    }
    // Streaming stores when the array cannot stay in the caches (the copy kernels' rule).
    unsigned flags = (int64_t)c->bytes >= nt_copy_stream_bytes() ? NT_COPY_STREAM : 0;
    bool packs = c->lda > c->m;
    if (to_tile && packs)
        pack(a, c, pbuf, pl.pack_bytes, pl.threads, flags);
    if (pl.pthreads)
        permute_all(a, c, to_tile, ws, pl.need, pl.pthreads);
    if (!to_tile && packs)
        unpack(a, c, pbuf, pl.pack_bytes, pl.threads, flags);
    ws_free(ws, perm_bytes);
    ws_free(pbuf, pl.pack_bytes);
    if (st)
        *st = (nt_convert_stats_t){.budget_bytes = pl.budget,
                                   .workspace_bytes = pl.pack_bytes + perm_bytes,
                                   .threads = pl.pthreads,
                                   .passes = (int)packs + (pl.pthreads > 0),
                                   .seconds = nt_now() - t0};
    return NT_OK;
}

nt_status nt_convert_lapack_to_tile(void *a, const nt_convert_geom_t *g,
                                    const nt_convert_opts_t *o, nt_convert_stats_t *st)
{
    return convert("nt_convert_lapack_to_tile", a, g, o, st, true);
}

nt_status nt_convert_tile_to_lapack(void *a, const nt_convert_geom_t *g,
                                    const nt_convert_opts_t *o, nt_convert_stats_t *st)
{
    return convert("nt_convert_tile_to_lapack", a, g, o, st, false);
}
