// LAPACK <-> tile layout in the same memory (numatile/convert.h), with a workspace bounded by
// the caller's budget.
//
// LAPACK -> tile runs two passes; tile -> LAPACK runs them backwards, in reverse order.
//
// 1. Packing (only when lda > m): column c moves from c*lda to c*m, columns in increasing
//    order so that none overwrites an unread one, threads pipelined column by column with no
//    workspace (convert_pack.c); unpacking moves them back in decreasing order.
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
// Nothing lost: checks and the one allocation (the bitmaps and carries) come before the first
// byte moves; the passes themselves cannot fail.
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
            // The unit after next is known now: fetch it while this one is copied (the
            // cycle's addresses jump, so the hardware prefetchers cannot guess them).
            int64_t after = from(p, nxt);
            for (size_t o = 0; o < ub; o += 64)
                __builtin_prefetch(base + (size_t)after * ub + o);
            unit_copy(base + (size_t)cur * ub, base + (size_t)nxt * ub, ub, stream);
            cur = nxt;
            bit_set(bits, cur);
            nxt = after;
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

// ---- the conversions ---------------------------------------------------------------------

// What one conversion will do and hold, decided before anything is allocated.
typedef struct cv_plan {
    nt_cgeom c;
    size_t budget, need; // need: one permuting thread's workspace (0: none)
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
    char *ws = NULL;
    if (perm_bytes && !(ws = ws_alloc(perm_bytes, who, "permutation bitmaps")))
        return NT_ENOMEM;
    // Streaming stores when the array cannot stay in the caches (the copy kernels' rule).
    unsigned flags = (int64_t)c->bytes >= nt_copy_stream_bytes() ? NT_COPY_STREAM : 0;
    bool packs = c->lda > c->m;
    if (to_tile && packs)
        nt_convert_pack(a, c, pl.threads, flags, false);
    if (pl.pthreads)
        permute_all(a, c, to_tile, ws, pl.need, pl.pthreads);
    if (!to_tile && packs)
        nt_convert_pack(a, c, pl.threads, flags, true);
    ws_free(ws, perm_bytes);
    if (st)
        *st = (nt_convert_stats_t){.budget_bytes = pl.budget,
                                   .workspace_bytes = perm_bytes,
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
