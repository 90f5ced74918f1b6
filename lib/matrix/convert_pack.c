// Packing a LAPACK array's columns to leading dimension m in place, and back (the first pass
// of the in-place conversions, convert_inplace.c), with no workspace.
//
// Packing moves column c from c*lda down to c*m. Its destination overlaps only the sources of
// columns c' <= c (c'*lda < (c+1)*m), so columns moved in increasing order never overwrite an
// unread one. In parallel, the threads take the columns round-robin, each in increasing order,
// and publish how far they got; a thread moves column c once every column up to the last one
// whose source its destination overlaps is done. Early columns, whose destinations overlap the
// previous column's source (c*(lda-m) < m), thus go one at a time (each a memmove, as it
// overlaps its own source); once the columns have drifted k columns apart, k move at once.
// Every byte is read and written once; the waiting is per column (a load of the other threads'
// progress), with no barrier and no copy through a buffer. The smallest column not yet moved
// never waits (everything below it is done), so the threads cannot deadlock; the team's real
// size is used, in case the runtime gives fewer threads than asked.
//
// Unpacking is the mirror: column c from c*m up to c*lda, in decreasing order; column c's
// destination overlaps the sources of columns c < c' <= (c*lda + m - 1)/m.
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "nt_convert.h"
#include "nt_copy.h"
#include "nt_core.h"

// The most threads a packing pass runs (their progress counters live on the stack).
#define PACK_THREADS 64

// One thread's progress, alone on its cache line.
typedef struct pack_progress {
    _Atomic int64_t next; // the next column this thread moves (all its earlier ones are done)
    char pad[64 - sizeof(int64_t)];
} pack_progress;

// Non-negative remainder.
static inline int64_t pmod(int64_t x, int64_t t)
{
    int64_t r = x % t;
    return r < 0 ? r + t : r;
}

// Wait, politely under oversubscription, until ready(arg) holds.
static void wait_until(bool (*ready)(const void *), const void *arg)
{
    for (int spins = 0; !ready(arg); spins++)
        if (spins > 64)
            sched_yield();
}

typedef struct pack_wait {
    const pack_progress *pr;
    int64_t t, h;  // team size; every column up to h (packing) or from h on (unpacking)
    int64_t first; // the first column thread 0 moves (the others follow round-robin)
    int64_t c;     // the column about to move
} pack_wait;

// Packing: every thread's columns up to w->h are done. Thread u moves the columns
// first + u, first + u + t, ... in increasing order.
static bool packed_upto(const void *arg)
{
    const pack_wait *w = arg;
    for (int64_t u = 0; u < w->t; u++) {
        int64_t last = w->h - pmod(w->h - (w->first + u), w->t); // u's last column <= h
        if (last >= w->first && atomic_load_explicit(&w->pr[u].next, memory_order_acquire) <=
                                    last)
            return false;
    }
    return true;
}

// Unpacking: every thread's columns in (c, h] are done. Thread u moves the columns
// first - u, first - u - t, ... in decreasing order.
static bool unpacked_from(const void *arg)
{
    const pack_wait *w = arg;
    for (int64_t u = 0; u < w->t; u++) {
        int64_t low = w->c + 1 + pmod(w->first - u - (w->c + 1), w->t); // u's first > c
        if (low <= w->h && low <= w->first - u &&
            atomic_load_explicit(&w->pr[u].next, memory_order_acquire) >= low)
            return false;
    }
    return true;
}

// Move one column of col bytes; overlapping its own source it takes memmove.
static void move_column(char *dst, const char *src, size_t col, unsigned flags)
{
    if ((dst < src ? (size_t)(src - dst) : (size_t)(dst - src)) < col)
        memmove(dst, src, col);
    else
        nt_copy_2d_ex(dst, 1, src, 1, (int64_t)col, 1, 1, flags | NT_COPY_NOFENCE,
                      NT_COPY_AUTO);
}

void nt_convert_pack(char *a, const nt_cgeom *c, int threads, unsigned flags, bool up)
{
    pack_progress pr[PACK_THREADS];
    size_t col = (size_t)c->m * c->es;
    int want = threads < PACK_THREADS ? threads : PACK_THREADS;
    want = nt_convert_threads(want, c->bytes);
#pragma omp parallel num_threads(want) if (want > 1)
    {
        int64_t t = omp_get_num_threads(), u = omp_get_thread_num();
        // Column 0 never moves: packing runs columns 1..n-1 up, unpacking n-1..1 down.
        int64_t first = up ? c->n - 1 : 1, step = up ? -t : t;
        atomic_store(&pr[u].next, first + (up ? -u : u));
#pragma omp barrier
        pack_wait w = {.pr = pr, .t = t, .first = first};
        for (int64_t k = first + (up ? -u : u); up ? k >= 1 : k < c->n; k += step) {
            w.c = k;
            if (up) {
                w.h = (k * c->lda + c->m - 1) / c->m;
                wait_until(unpacked_from, &w);
                move_column(a + (size_t)(k * c->lda) * c->es, a + (size_t)k * col, col, flags);
            } else {
                w.h = ((k + 1) * c->m - 1) / c->lda;
                w.h = w.h < k - 1 ? w.h : k - 1;
                wait_until(packed_upto, &w);
                move_column(a + (size_t)k * col, a + (size_t)(k * c->lda) * c->es, col, flags);
            }
            atomic_store_explicit(&pr[u].next, k + step, memory_order_release);
        }
        nt_copy_fence(); // streaming stores visible before the next pass reads them
    }
}
