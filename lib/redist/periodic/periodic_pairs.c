// Pair programs (see nt_periodic.h): global-order copies of patterns whose runs are whole
// halves of lines (4 elements) and short (nb 8 -> 12: runs of 4 and 8), line by line.
//
// Through a line writer each run costs a call's worth of branches (join a pending half, whole
// lines, keep a half), and with runs shorter than a line that is most of the work: on one
// core nb 8 -> 12 reached 0.58-0.74 of what the core can copy. Here every target line is a
// pair of halves, each one 32-byte load from the one source run it lies in; which loads a
// line needs depends only on its position in the target's pattern, so one cycle of lines
// (lcm(8, dt) elements of each target) is unpacked into pointers per column, and the targets
// advance in step, cycle by cycle, so that the source lines they share are read from the
// first-level cache. Loads never reach past the elements a line takes.
//
// Measured in the executor, with and without alternated in one process (exec_periodic.c,
// pairs_init()): nb 8 -> 12 at N = 4096 0.91-0.92 of the bound against 0.85-0.87, on one
// core 0.73-0.76 against 0.57-0.62; 12 -> 8 in a fast spell of the host 0.76 against 0.26.
// Longer runs copy faster through the writers (24 -> 16: 0.74 against 0.87).
#include <stdlib.h>

#include "nt_core.h"
#include "lib/matrix/nt_lines.h"
#include "nt_periodic.h"

// Lines per cycle unpacked per column (the pointers live on the stack), target grid rows.
#define PAIR_MAXL 16
#define PAIR_MAXP 16

struct nt_pairs {
    int P;            // target grid rows
    psrc ps;          // where each target's elements come from
    int64_t per, adv; // target elements per cycle (lcm(8, dt)), source elements per cycle
};

void nt_pairs_free(nt_pairs *h)
{
    if (!h)
        return;
    nt_psrc_free(&h->ps);
    free(h);
}

nt_status nt_pairs_build(const prun *r, const plist *L, int S, int P, nt_pairs **out)
{
    *out = NULL;
    if (!nt_lines_avx512() || L->dt <= 0 || L->dt % 4 || L->ds <= 0 || L->npat > MAX_PERIOD ||
        P > PAIR_MAXP)
        return NT_OK;
    // lcm(8, dt) with dt a multiple of 4: dt or 2 dt.
    int64_t per = L->dt % 8 ? 2 * L->dt : L->dt;
    if (per / 8 > PAIR_MAXL)
        return NT_OK;
    nt_pairs *h = calloc(1, sizeof *h);
    if (!h)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    *h = (nt_pairs){.P = P, .per = per, .adv = per / L->dt * L->ds};
    // Runs of whole halves from rows on halves, so that no half straddles two runs.
    bool ok;
    nt_status st = nt_psrc_periodic(r, L->npat * L->reps + L->rem, S, P, L->dt, L->ds, 4, &h->ps,
                                 &ok);
    if (st != NT_OK || !ok) {
        nt_pairs_free(h);
        return st;
    }
    *out = h;
    return NT_OK;
}

// Target b's element rel (from its first in the column) in the source columns.
static inline const uint64_t *pair_src(const nt_pairs *h, const uint64_t *const *src, int b,
                                       int64_t rel)
{
    int a;
    int64_t sl;
    psrc_at(&h->ps, b, rel, &a, &sl);
    return src[a] + sl;
}

// One target's column: d its first element, rel the first not written, n its count; for the
// cycle from rel, p[2 l] and p[2 l + 1] the halves of line l.
typedef struct pcur {
    uint64_t *d;
    int64_t rel, n;
    const uint64_t *p[2 * PAIR_MAXL];
} pcur;

#if NT_LINES_AVX512
// Cycle m of one target: L lines, the cycle's elements and source shift per and adv (copied
// out of the program: the streaming stores could alias it, so its fields would be reloaded).
__attribute__((target("avx512f"), always_inline)) static inline void
pair_cycle(const pcur *c, int64_t m, int L, int64_t per, int64_t adv)
{
    int64_t off = m * adv;
    uint64_t *d = c->d + c->rel + m * per;
    for (int l = 0; l < L; l++) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(c->p[2 * l] + off));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(c->p[2 * l + 1] + off));
        _mm512_stream_si512((void *)(d + 8 * l),
                            _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
    }
}

// Whole cycles of every target: `common` of them in step, then each target's own.
__attribute__((target("avx512f"))) static void pair_cycles(const nt_pairs *h, pcur *c,
                                                           int64_t common)
{
    const int P = h->P, L = (int)(h->per / 8);
    const int64_t per = h->per, adv = h->adv;
    for (int64_t m = 0; m < common; m++)
        for (int b = 0; b < P; b++)
            if (c[b].d)
                pair_cycle(&c[b], m, L, per, adv);
    for (int b = 0; b < P; b++) {
        if (!c[b].d)
            continue;
        int64_t mine = (c[b].n - c[b].rel) / per;
        for (int64_t m = common; m < mine; m++)
            pair_cycle(&c[b], m, L, per, adv);
        c[b].rel += mine * per;
    }
}
#endif

void nt_pairs_column(const nt_pairs *h, char *const *dcol, const char *const *scol)
{
    const uint64_t *const *src = (const uint64_t *const *)(const void *)scol;
    pcur c[PAIR_MAXP];
    int64_t common = INT64_MAX; // cycles every target takes in step
    for (int b = 0; b < h->P; b++) {
        c[b].d = h->ps.n[b] > 0 && dcol[b] ? (uint64_t *)(void *)dcol[b] + h->ps.c[b] : NULL;
        if (!c[b].d)
            continue;
        // Elements before the first line boundary one by one; then whole cycles of lines. A
        // column that does not start on a half (the caller checks) goes one by one.
        int64_t n = h->ps.n[b], head = (int64_t)((64 - ((uintptr_t)c[b].d & 63)) & 63) / 8;
        head = head % 4 || head > n ? n : head;
        nt_psrc_elements(&h->ps, b, c[b].d, src, 0, head);
        if (head == n) {
            c[b].d = NULL;
            continue;
        }
        c[b].rel = head;
        c[b].n = n;
        int64_t cycles = (n - head) / h->per;
        for (int64_t k = 0; cycles > 0 && k < h->per / 4; k++)
            c[b].p[k] = pair_src(h, src, b, head + 4 * k);
        common = cycles < common ? cycles : common;
    }
    if (common == INT64_MAX)
        return;
#if NT_LINES_AVX512
    pair_cycles(h, c, common);
#endif
    // The rest of each target, less than a cycle, one by one.
    for (int b = 0; b < h->P; b++)
        if (c[b].d)
            nt_psrc_elements(&h->ps, b, c[b].d, src, c[b].rel, c[b].n);
}
