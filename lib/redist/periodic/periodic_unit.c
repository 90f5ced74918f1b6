// Unit programs (see nt_periodic.h): copies of patterns whose runs are all one element long
// (CYCLIC(1) on one side, nb 1 -> 3 say), target line by target line, for the executor's
// global order (all targets of a column) and target order (one target's column).
//
// Copied element by element, every target line is read before it is written (ordinary
// stores), so such a copy moves 3 bytes per byte and stays under 2/3 of the copy bound. Here
// each 64-byte target line is assembled in a register and streamed: its 8 elements come from
// a few windows of 16 consecutive source elements, one two-register permute each, merged by
// lane masks. Which windows, permutes and masks a line needs depends only on the position of
// its first element in the target's pattern (modulo lcm(8, dt)), so they are tabled once per
// execution as one recipe per position; a column then costs, per line, its recipe's loads and
// permutes and one streaming store. Elements outside whole lines (column ends) and lines
// whose windows would read past a source column are copied one by one.
//
// Where every recipe fits three slots (two permute windows and one single) and a cycle has
// at most four lines, the targets of a column advance in step, cycle by cycle, so that the
// source windows they share are still in the first-level cache; otherwise target by target.
//
// Measured (nb 1 -> 3, 2x2 -> 4x1, copy / same-run bound, bench/micro/periodic_lines.c, with
// and without unit programs alternated, 7 repetitions): N = 4096 0.70 and 0.70 against 0.52
// and 0.57, N = 8192 0.76 and 0.87 against 0.58 and 0.60 (target by target instead of in
// step: 0.62-0.80 against 0.45-0.61 in four runs). A scratch loop moving the same bytes
// between the same arrays with no permutes reached 0.75-0.96: the rest is the permutes' and
// windows' work. Lines walked through the recipe tables, without the unpacked and unrolled
// cycles, ran slower than element by element.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "lib/matrix/nt_lines.h"
#include "nt_periodic.h"

// A window: 16 consecutive elements of source grid row a from `off` (relative to the line's
// base), idx[lane] the element of the window for each lane of `mask`; one lane only: `single`
// (a masked broadcast instead of two loads and a permute).
typedef struct uwin {
    int64_t idx[8];
    int64_t off;
    int a;
    unsigned mask;
    bool single;
} uwin;

struct nt_unit {
    int S, P;           // source and target grid rows
    psrc ps;            // where each target's elements come from
    int64_t per, adv;   // target elements per cycle of recipes (lcm(8, dt)), source ones
    int *first, *nwin;  // per (b, position rho < per): its windows win[first .. first + nwin)
    int64_t *rend;      // per (b, rho): its windows read below base + rend
    uwin *win;
    bool *reads;        // per source grid row: some window reads it
    // Every recipe as two permute windows and one single (masks 0 where absent), when all
    // fit: the line loop then has no branch and no table walk (see unit_lockstep()).
    uwin *slot;         // per (b, rho): slot[3 * k .. 3 * k + 2]
};

// At most this many windows per line; a pattern needing more is copied element by element.
#define UNIT_MAXWIN 4
// Cycles of at most this many target elements (the recipes are tabled per position).
#define UNIT_MAXPER 1024
// Cycles of at most this many lines (per / 8) have their slots unpacked (unit_lockstep()).
#define UNIT_MAXL 4
// Programs for at most this many target grid rows (per-column state on the stack).
#define UNIT_MAXP 16

void nt_unit_free(nt_unit *u)
{
    if (!u)
        return;
    nt_psrc_free(&u->ps);
    free(u->first);
    free(u->nwin);
    free(u->rend);
    free(u->win);
    free(u->reads);
    free(u->slot);
    free(u);
}

// The recipe of line position rho of target b, its windows from win[*nw]: lanes grouped by
// source, each group cut greedily into windows of 16 elements from its smallest uncovered one.
// false: more than UNIT_MAXWIN.
static bool unit_recipe(nt_unit *u, int b, int64_t rho, int64_t *nw)
{
    size_t k = (size_t)b * (size_t)u->per + (size_t)rho;
    int la[8];
    int64_t ls[8];
    for (int i = 0; i < 8; i++)
        psrc_at(&u->ps, b, rho + i, &la[i], &ls[i]);
    unsigned left = 0xFF;
    int n = 0;
    while (left) {
        if (n == UNIT_MAXWIN)
            return false;
        int a = -1;
        int64_t lo = 0;
        for (int i = 0; i < 8; i++)
            if (left >> i & 1 && (a < 0 || (la[i] == a && ls[i] < lo))) {
                if (a < 0)
                    a = la[i];
                lo = ls[i];
            }
        uwin *w = &u->win[*nw + n];
        memset(w, 0, sizeof *w);
        w->a = a;
        w->off = lo;
        for (int i = 0; i < 8; i++)
            if (left >> i & 1 && la[i] == a && ls[i] - lo < 16) {
                w->idx[i] = ls[i] - lo;
                w->mask |= 1u << i;
                left &= ~(1u << i);
            }
        w->single = (w->mask & (w->mask - 1)) == 0;
        int64_t end = lo + (w->single ? 1 : 16);
        u->rend[k] = end > u->rend[k] ? end : u->rend[k];
        u->reads[a] = true;
        n++;
    }
    u->first[k] = (int)*nw;
    u->nwin[k] = n;
    *nw += n;
    return true;
}

// The three-slot form of every recipe (u->slot): two permute windows and one single; none
// when a recipe has more than two permute windows or more than one single. An absent slot
// repeats the first permute window with mask 0, so its loads stay inside the recipe's reach
// (a single there would load 16 elements where rend counts one). A recipe has a permute
// window: a single fills one lane and there are at most UNIT_MAXWIN < 8 windows.
static void unit_slots(nt_unit *u)
{
    size_t recs = (size_t)u->P * (size_t)u->per;
    uwin *sl = malloc(3 * recs * sizeof *sl);
    if (!sl)
        return; // the generic loop does without
    for (size_t k = 0; k < recs; k++) {
        if (u->nwin[k] == 0) // a target without elements
            continue;
        const uwin *w = u->win + u->first[k];
        int np = 0, ns = 0;
        uwin *o = sl + 3 * k;
        for (int i = 0; i < u->nwin[k]; i++) {
            if (w[i].single && ns < 1)
                o[2] = w[i], ns++;
            else if (!w[i].single && np < 2)
                o[np++] = w[i];
            else {
                free(sl);
                return;
            }
        }
        if (np < 2)
            o[1] = o[0], o[1].mask = 0;
        if (ns < 1)
            o[2] = o[0], o[2].mask = 0;
    }
    u->slot = sl;
}

nt_status nt_unit_build(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                     nt_unit **out)
{
    *out = NULL;
    // Cycles of at most UNIT_MAXPER elements, so that the tables stay small.
    if (!nt_lines_avx512() || dt <= 0 || ds <= 0 || dt > UNIT_MAXPER || P > UNIT_MAXP)
        return NT_OK;
    nt_unit *u = calloc(1, sizeof *u);
    if (!u)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    u->S = S;
    u->P = P;
    bool ok;
    // lcm(8, dt): gcd(8, dt) is dt's largest power-of-two divisor up to 8.
    int64_t low = dt & -dt;
    u->per = 8 / (low < 8 ? low : 8) * dt;
    u->adv = u->per / dt * ds;
    nt_status st = u->per <= UNIT_MAXPER ? nt_psrc_periodic(r, n, S, P, dt, ds, 1, &u->ps, &ok)
                                         : NT_OK;
    if (st != NT_OK || u->per > UNIT_MAXPER || !ok) {
        nt_unit_free(u);
        return st;
    }
    size_t recs = (size_t)P * (size_t)u->per;
    u->first = calloc(recs, sizeof *u->first);
    u->nwin = calloc(recs, sizeof *u->nwin);
    u->rend = calloc(recs, sizeof *u->rend);
    u->win = malloc(recs * UNIT_MAXWIN * sizeof *u->win);
    u->reads = calloc((size_t)S, sizeof *u->reads);
    if (!u->first || !u->nwin || !u->rend || !u->win || !u->reads) {
        nt_unit_free(u);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    int64_t nw = 0;
    for (int b = 0; b < P && ok; b++)
        for (int64_t rho = 0; rho < u->per && ok && u->ps.n[b] > 0; rho++)
            ok = unit_recipe(u, b, rho, &nw);
    if (!ok) {
        nt_unit_free(u);
        return NT_OK;
    }
    unit_slots(u);
    *out = u;
    return NT_OK;
}

#if NT_LINES_AVX512
// One line from its three slots (see unit_slots()): p[k] is slot k's first element.
__attribute__((target("avx512f"))) static inline __m512d
unit_line(const double *const *p, const __m512i *ix, __mmask8 mb, __mmask8 ms)
{
    __m512d v = _mm512_permutex2var_pd(_mm512_loadu_pd(p[0]), ix[0],
                                       _mm512_loadu_pd(p[0] + 8));
    __m512d q = _mm512_permutex2var_pd(_mm512_loadu_pd(p[1]), ix[1],
                                       _mm512_loadu_pd(p[1] + 8));
    v = _mm512_mask_blend_pd(mb, v, q);
    return _mm512_mask_broadcastsd_pd(v, ms, _mm_load_sd(p[2]));
}

// A cycle of L = per / 8 lines of one target unpacked (pointers, permutes, masks: no table
// walk per line), for the cycle from its element rel (on a line).
typedef struct ucyc {
    const double *p[3 * UNIT_MAXL]; // slot k of line l: p[3 * l + k]
    __m512i ix[2 * UNIT_MAXL];
    __mmask8 mb[UNIT_MAXL], ms[UNIT_MAXL];
    int64_t base, need; // the cycle's base; it reads below base + need
} ucyc;

__attribute__((target("avx512f"), always_inline)) static inline void
unit_unpack(const nt_unit *u, int b, const uint64_t *const *src, int64_t rel, const int L,
            ucyc *c)
{
    int64_t rho = rel % u->per, adv = u->adv;
    const uwin *sl = u->slot + 3 * (size_t)b * (size_t)u->per;
    const int64_t *rend = u->rend + (size_t)b * (size_t)u->per;
    c->base = rel / u->per * adv;
    c->need = 0;
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        int64_t r = rho + 8 * l, extra = r >= u->per ? adv : 0;
        r -= r >= u->per ? u->per : 0;
        const uwin *w = sl + 3 * r;
        for (int k = 0; k < 3; k++)
            c->p[3 * l + k] =
                (const double *)(const void *)src[w[k].a] + c->base + extra + w[k].off;
        c->ix[2 * l] = _mm512_loadu_si512((const void *)w[0].idx);
        c->ix[2 * l + 1] = _mm512_loadu_si512((const void *)w[1].idx);
        c->mb[l] = (__mmask8)w[1].mask;
        c->ms[l] = (__mmask8)w[2].mask;
        c->need = extra + rend[r] > c->need ? extra + rend[r] : c->need;
    }
}

// How many whole cycles target b can take from rel: its elements, and windows below lim.
static int64_t unit_ncycles(const nt_unit *u, int b, int64_t rel, const ucyc *c, int64_t lim,
                            int L)
{
    int64_t n = (u->ps.n[b] - rel) / (8 * L);
    if (c->base + c->need > lim)
        return 0;
    int64_t k = (lim - c->base - c->need) / u->adv + 1;
    return n < k ? n : k;
}

// One cycle of an unpacked target, its sources shifted by off, its first line at element rel.
__attribute__((target("avx512f"), always_inline)) static inline void
unit_cycle(const ucyc *c, uint64_t *d, int64_t rel, int64_t off, const int L)
{
#pragma GCC unroll 4
    for (int l = 0; l < L; l++) {
        const double *q[3] = {c->p[3 * l] + off, c->p[3 * l + 1] + off, c->p[3 * l + 2] + off};
        _mm512_stream_pd((double *)(void *)(d + rel + 8 * l),
                         unit_line(q, c->ix + 2 * l, c->mb[l], c->ms[l]));
    }
}

// Whole cycles of every target of one column, all targets in step (cycle m of each in turn,
// so that the source windows they share are read from the first-level cache), as many as
// every target can take; rel[b] moves past them. Instantiated with constant L, so that the
// cycle unrolls (the table-walking loop alone ran slower than element by element).
__attribute__((target("avx512f"), always_inline)) static inline void
unit_lockstep_L(const nt_unit *u, uint64_t *const *d, const uint64_t *const *src, int64_t lim,
                int64_t *rel, const int L)
{
    ucyc c[UNIT_MAXP];
    int64_t M = INT64_MAX;
    for (int b = 0; b < u->P; b++)
        if (d[b]) {
            unit_unpack(u, b, src, rel[b], L, &c[b]);
            int64_t k = unit_ncycles(u, b, rel[b], &c[b], lim, L);
            M = k < M ? k : M;
        }
    if (M == INT64_MAX || M <= 0)
        return;
    for (int64_t m = 0, off = 0; m < M; m++, off += u->adv)
        for (int b = 0; b < u->P; b++)
            if (d[b])
                unit_cycle(&c[b], d[b], rel[b] + 8 * L * m, off, L);
    for (int b = 0; b < u->P; b++)
        if (d[b])
            rel[b] += 8 * L * M;
}

__attribute__((target("avx512f"))) static void
unit_lockstep(const nt_unit *u, uint64_t *const *d, const uint64_t *const *src, int64_t lim,
              int64_t *rel)
{
    switch (u->per / 8) {
    case 1:
        unit_lockstep_L(u, d, src, lim, rel, 1);
        break;
    case 2:
        unit_lockstep_L(u, d, src, lim, rel, 2);
        break;
    case 3:
        unit_lockstep_L(u, d, src, lim, rel, 3);
        break;
    case 4:
        unit_lockstep_L(u, d, src, lim, rel, 4);
        break;
    default:
        break;
    }
}

// Lines of target b from its element rel (on a line), each from its recipe's windows, as far
// as the windows stay below lim (the smallest leading dimension of the sources read); returns
// the first element not written.
__attribute__((target("avx512f"))) static int64_t
unit_lines(const nt_unit *u, int b, uint64_t *d, const uint64_t *const *src, int64_t rel,
           int64_t end, int64_t lim)
{
    int64_t rho = rel % u->per, base = rel / u->per * u->adv;
    const int *first = u->first + (size_t)b * (size_t)u->per;
    const int *nwin = u->nwin + (size_t)b * (size_t)u->per;
    const int64_t *rend = u->rend + (size_t)b * (size_t)u->per;
    for (; rel + 8 <= end && base + rend[rho] <= lim; rel += 8) {
        const uwin *w = u->win + first[rho], *we = w + nwin[rho];
        __m512d v = _mm512_setzero_pd();
        for (; w < we; w++) {
            const double *s = (const double *)(const void *)src[w->a] + base + w->off;
            if (w->single) {
                v = _mm512_mask_broadcastsd_pd(v, (__mmask8)w->mask, _mm_load_sd(s));
            } else {
                __m512i ix = _mm512_loadu_si512((const void *)w->idx);
                __m512d q =
                    _mm512_permutex2var_pd(_mm512_loadu_pd(s), ix, _mm512_loadu_pd(s + 8));
                v = _mm512_mask_blend_pd((__mmask8)w->mask, v, q);
            }
        }
        _mm512_stream_pd((double *)(void *)(d + rel), v);
        if ((rho += 8) >= u->per) {
            rho -= u->per;
            base += u->adv;
        }
    }
    return rel;
}
#endif

void nt_unit_column(const nt_unit *u, char *const *dcol, const char *const *scol,
                 const int64_t *lld, int stride)
{
    const uint64_t *const *src = (const uint64_t *const *)(const void *)scol;
    // d[b][rel] is target element rel of b in this column; rel[b] the first one not written.
    uint64_t *d[UNIT_MAXP];
    int64_t rel[UNIT_MAXP];
    for (int b = 0; b < u->P; b++) {
        d[b] = u->ps.n[b] > 0 && dcol[b] ? (uint64_t *)(void *)dcol[b] + u->ps.c[b] : NULL;
        if (!d[b])
            continue;
        int64_t head = (int64_t)((64 - ((uintptr_t)d[b] & 63)) & 63) / 8;
        rel[b] = head < u->ps.n[b] ? head : u->ps.n[b];
        nt_psrc_elements(&u->ps, b, d[b], src, 0, rel[b]);
    }
#if NT_LINES_AVX512
    // Windows stay inside every source column read.
    int64_t lim = INT64_MAX;
    for (int a = 0; a < u->S; a++)
        if (u->reads[a] && lld[a * stride] < lim)
            lim = lld[a * stride];
    if (u->slot)
        unit_lockstep(u, d, src, lim, rel);
    for (int b = 0; b < u->P; b++)
        if (d[b])
            rel[b] = unit_lines(u, b, d[b], src, rel[b], u->ps.n[b], lim);
#else
    (void)lld;
    (void)stride;
#endif
    for (int b = 0; b < u->P; b++)
        if (d[b])
            nt_psrc_elements(&u->ps, b, d[b], src, rel[b], u->ps.n[b]);
}
