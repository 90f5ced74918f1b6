// Mask programs (see nt_periodic.h): global-order copies of patterns whose runs are short and
// not whole halves of lines (a submatrix off the grid of 4, block sizes not multiples of 4),
// line by line.
//
// Through a line writer each run costs a call's worth of branches (fill the pending line with
// a masked expanding load, stream it, whole lines, keep the rest), and with runs of a few
// elements that is most of the work: nb 8 -> 12 on bench scalapack's submatrix moved 9.3 GB/s on
// one core against 21.6 for the whole matrix (where pair programs take it). Here each target
// line is at most MASK_MAXK masked loads, one per group of its lanes that lie in one source
// column at a fixed distance (a masked load reads only its lanes, so loads never reach past the
// elements a line takes); which loads a line needs depends only on its position in the
// target's period and on where the target column starts within a line, so one cycle of lines
// (lcm(8, dt) elements of each target) is tabled per start, unpacked into pointers per column,
// and the targets advance in step, cycle by cycle, so that the source lines they share are
// read from the first-level cache. The period comes from the grids, not from the list's
// pattern of runs: a submatrix or a matrix that starts or ends inside a block cuts its first or
// last run, and then no pattern of runs repeats, though every element still does.
//
// Measured in the executor (2x2 -> 4x1, N = 8192, copy / same-run bound, without and with,
// alternated; exec_periodic.c, masks_init()): nb 6 -> 9 0.29 -> 0.83 and 10 -> 6 0.29 -> 0.79
// on the whole matrix, 8 -> 12 on bench scalapack's submatrix 0.59 -> 0.68.
#include <stdlib.h>

#include "nt_core.h"
#include "lib/matrix/nt_lines.h"
#include "nt_periodic.h"

// Lines per cycle, target grid rows, loads per line.
#define MASK_MAXL 16
#define MASK_MAXP 16
#define MASK_MAXK 4

// One load of a line: the lanes of `mask` from source grid row a, lane 0 at local row sl of
// the column (repetition 0; before the first row when the first lanes are not loaded).
typedef struct mload {
    int64_t sl;
    int a;
    unsigned mask;
} mload;

struct nt_masks {
    int P, L, K;      // target grid rows, lines per cycle, loads per line (the most any needs)
    psrc ps;          // where each target's elements come from
    int64_t per, adv; // target elements per cycle (lcm(8, dt)), source elements per cycle
    // Per target b and head h (its elements before the first line boundary of its column,
    // 0..7): the cycle's lines from element h on, prog[((b * 8 + h) * L + l) * K + k].
    mload *prog;
};

void nt_masks_free(nt_masks *h)
{
    if (!h)
        return;
    nt_psrc_free(&h->ps);
    free(h->prog);
    free(h);
}

// The loads of target b's line whose first element is `first` (from the column's first), into
// q (zeroed by the caller); false when it needs more than MASK_MAXK. *k: how many it needs.
static bool line_loads(const psrc *ps, int b, int64_t first, mload *q, int *k)
{
    int n = 0;
    for (int j = 0; j < 8; j++) {
        int a;
        int64_t sl;
        psrc_at(ps, b, first + j, &a, &sl);
        int f = 0;
        while (f < n && (q[f].a != a || q[f].sl != sl - j))
            f++;
        if (f == n) {
            if (n == MASK_MAXK)
                return false;
            q[n++] = (mload){sl - j, a, 0};
        }
        q[f].mask |= 1u << j;
    }
    *k = n;
    return true;
}

nt_status nt_masks_build(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                      nt_masks **out)
{
    *out = NULL;
    if (!nt_lines_avx512() || dt <= 0 || ds <= 0 || dt > 8 * MASK_MAXL || P > MASK_MAXP)
        return NT_OK;
    int64_t per = dt / nt_gcd64(dt, 8) * 8;
    if (per / 8 > MASK_MAXL)
        return NT_OK;
    nt_masks *h = calloc(1, sizeof *h);
    if (!h)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    *h = (nt_masks){.P = P, .L = (int)(per / 8), .per = per, .adv = per / dt * ds};
    bool ok;
    nt_status st = nt_psrc_periodic(r, n, S, P, dt, ds, 0, &h->ps, &ok);
    size_t cells = (size_t)P * 8 * (size_t)h->L;
    mload(*all)[MASK_MAXK] = NULL;
    if (st == NT_OK && ok && !(all = calloc(cells, sizeof *all)))
        st = nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    // Every line of every target and head, as many loads as it needs; K the most any needs.
    int K = 1;
    for (size_t c = 0; st == NT_OK && ok && c < cells; c++) {
        int b = (int)(c / (8 * (size_t)h->L)), hd = (int)(c / (size_t)h->L % 8);
        int l = (int)(c % (size_t)h->L), k = 0;
        if (h->ps.n[b] == 0)
            continue;
        ok = line_loads(&h->ps, b, hd + 8 * l, all[c], &k);
        K = k > K ? k : K;
    }
    if (st == NT_OK && ok && !(h->prog = malloc(cells * (size_t)K * sizeof *h->prog)))
        st = nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    if (st != NT_OK || !ok) {
        free(all);
        nt_masks_free(h);
        return st;
    }
    h->K = K;
    for (size_t c = 0; c < cells; c++)
        for (int k = 0; k < K; k++)
            h->prog[c * (size_t)K + (size_t)k] = all[c][k];
    free(all);
    *out = h;
    return NT_OK;
}

// One target's column: d its first element, rel the first not written, n its count; for the
// cycle from rel, line l's loads at p[l * K + k] with lanes m[l * K + k], and where to ask
// for the next column's line of its first load (ahead: see nt_copy_column_lines()).
typedef struct mcur {
    uint64_t *d;
    int64_t rel, n;
    uintptr_t p[MASK_MAXL * MASK_MAXK];
    uintptr_t next[MASK_MAXL];
    unsigned char m[MASK_MAXL * MASK_MAXK];
} mcur;

#if NT_LINES_AVX512
// Cycle m of one target: L lines of K loads, the cycle's elements and source bytes per and
// adv8 (copied out of the program: the streaming stores could alias it).
__attribute__((target("avx512f"), always_inline)) static inline void
mask_cycle(const mcur *c, int64_t m, int L, int K, int64_t per, int64_t adv8, bool ahead)
{
    uintptr_t off = (uintptr_t)(m * adv8);
    uint64_t *d = c->d + c->rel + m * per;
    for (int l = 0; l < L; l++) {
        if (ahead)
            __builtin_prefetch((const void *)(c->next[l] + off));
        // The hardware prefetchers do not follow these loads (the targets in step jump over
        // the sources): ask two cycles ahead, or every load waits on memory (nb 8 -> 12 on
        // one core, memory-resident columns: 5.6 GB/s without, 13.6-18.5 with).
        for (int k = 0; k < K; k++)
            __builtin_prefetch((const void *)(c->p[l * K + k] + off + 2 * (uintptr_t)adv8));
        // Zeroing loads joined by ORs (their lanes are disjoint): loads merging into one
        // register would wait for each other.
        __m512i line = _mm512_maskz_loadu_epi64((__mmask8)c->m[l * K],
                                                (const void *)(c->p[l * K] + off));
        for (int k = 1; k < K; k++)
            line = _mm512_or_si512(
                line, _mm512_maskz_loadu_epi64((__mmask8)c->m[l * K + k],
                                               (const void *)(c->p[l * K + k] + off)));
        _mm512_stream_si512((void *)(d + 8 * l), line);
    }
}

// Whole cycles of every target: `common` of them in step, then each target's own; K a constant
// in each instantiation, so that the loads of a line unroll.
__attribute__((target("avx512f"), always_inline)) static inline void
mask_cycles_k(const nt_masks *h, mcur *c, int64_t common, int K, bool ahead)
{
    const int P = h->P, L = h->L;
    const int64_t per = h->per, adv8 = h->adv * 8;
    for (int64_t m = 0; m < common; m++)
        for (int b = 0; b < P; b++)
            if (c[b].d)
                mask_cycle(&c[b], m, L, K, per, adv8, ahead);
    for (int b = 0; b < P; b++) {
        if (!c[b].d)
            continue;
        int64_t mine = (c[b].n - c[b].rel) / per;
        for (int64_t m = common; m < mine; m++)
            mask_cycle(&c[b], m, L, K, per, adv8, ahead);
        c[b].rel += mine * per;
    }
}

__attribute__((target("avx512f"))) static void mask_cycles(const nt_masks *h, mcur *c,
                                                           int64_t common, bool ahead)
{
    switch (h->K) {
    case 1:
        mask_cycles_k(h, c, common, 1, ahead);
        break;
    case 2:
        mask_cycles_k(h, c, common, 2, ahead);
        break;
    case 3:
        mask_cycles_k(h, c, common, 3, ahead);
        break;
    default:
        mask_cycles_k(h, c, common, MASK_MAXK, ahead);
        break;
    }
}
#endif

void nt_masks_column(const nt_masks *h, char *const *dcol, const char *const *scol,
                  const int64_t *ahead, int stride)
{
    const uint64_t *const *src = (const uint64_t *const *)(const void *)scol;
    const int L = h->L, K = h->K;
    mcur c[MASK_MAXP];
    int64_t common = INT64_MAX; // cycles every target takes in step
    for (int b = 0; b < h->P; b++) {
        c[b].d = h->ps.n[b] > 0 && dcol[b] ? (uint64_t *)(void *)dcol[b] + h->ps.c[b] : NULL;
        if (!c[b].d)
            continue;
        // Elements before the first line boundary one by one; then whole cycles of lines.
        int64_t n = h->ps.n[b], head = (int64_t)((64 - ((uintptr_t)c[b].d & 63)) & 63) / 8;
        head = head > n ? n : head;
        nt_psrc_elements(&h->ps, b, c[b].d, src, 0, head);
        int64_t cycles = (n - head) / h->per;
        if (cycles == 0) {
            nt_psrc_elements(&h->ps, b, c[b].d, src, head, n);
            c[b].d = NULL;
            continue;
        }
        c[b].rel = head;
        c[b].n = n;
        // Integers: a load's lane 0 may lie before the column (that lane is not loaded).
        const mload *q = h->prog + ((size_t)b * 8 + (size_t)head) * (size_t)L * (size_t)K;
        for (int e = 0; e < L * K; e++) {
            c[b].p[e] = (uintptr_t)src[q[e].a] + (uintptr_t)(q[e].sl * 8);
            c[b].m[e] = (unsigned char)q[e].mask;
        }
        // A line's first load holds its lane 0, so its lane 0 is in the column: ask there.
        for (int l = 0; ahead && l < L; l++)
            c[b].next[l] = c[b].p[l * K] + (uintptr_t)ahead[(size_t)q[l * K].a * (size_t)stride];
        common = cycles < common ? cycles : common;
    }
    if (common == INT64_MAX)
        return;
#if NT_LINES_AVX512
    mask_cycles(h, c, common, ahead != NULL);
#endif
    // The rest of each target, less than a cycle, one by one.
    for (int b = 0; b < h->P; b++)
        if (c[b].d)
            nt_psrc_elements(&h->ps, b, c[b].d, src, c[b].rel, c[b].n);
}
