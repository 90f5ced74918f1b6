// Line writers: a target column written in order by short runs of 8-byte elements, turned into
// streaming stores of whole 64-byte lines. Runs of 28-64 elements (block-size changes) or of
// one (CYCLIC(1)) rarely cover a whole line by themselves, and with ordinary stores every
// target line is read before it is written (3 memory transfers per byte instead of 2). A
// writer keeps the line being filled in a 64-byte buffer and streams it once complete; whole
// lines inside a run go straight from the source. Copying through a whole-column buffer
// instead was measured slower (nb 64 -> 100: 0.40 of the bound against 0.56 with ordinary
// stores): a separate pass serialises the reads and the writes that one loop overlaps.
//
// A writer fills one contiguous target range in order: nt_lines_start() at its first element,
// nt_lines_put() (or its AVX-512 twin) for what follows, nt_lines_flush() at its end, then
// nt_copy_fence() before the copies must be visible. Partial lines (range ends) take ordinary
// stores, so ranges of two writers may share a line.
#ifndef NUMATILE_LINES_INTERNAL_H
#define NUMATILE_LINES_INTERNAL_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

typedef struct nt_lines {
    alignas(64) uint64_t line[8]; // elements lo..hi-1 of the target line at base
    uint64_t *base;               // the 64-byte aligned target line being filled
    int lo, hi;
} nt_lines;

// Stream the 64 bytes at s (any alignment) to the 64-byte aligned line d; also the streaming
// loop of the copy kernels (copy.c).
static inline void nt_lines_stream(void *d, const void *s)
{
#if defined(__SSE2__)
    const __m128i *p = (const __m128i *)s;
    __m128i *q = (__m128i *)d;
    __m128i a = _mm_loadu_si128(p), b = _mm_loadu_si128(p + 1);
    __m128i c = _mm_loadu_si128(p + 2), e = _mm_loadu_si128(p + 3);
    _mm_stream_si128(q, a);
    _mm_stream_si128(q + 1, b);
    _mm_stream_si128(q + 2, c);
    _mm_stream_si128(q + 3, e);
#else
    memcpy(d, s, 64);
#endif
}

// Start a target range at d: the writes that follow fill it in order.
static inline void nt_lines_start(nt_lines *w, uint64_t *d)
{
    w->base = (uint64_t *)(void *)((uintptr_t)d & ~(uintptr_t)63);
    w->lo = w->hi = (int)(d - w->base);
}

// End the range: its last, partial line with ordinary stores (a whole one streamed). The
// first line of a range not starting on a line boundary is written here too, or when full.
static inline void nt_lines_flush(nt_lines *w)
{
    for (int k = w->lo; k < w->hi; k++)
        w->base[k] = w->line[k];
    w->lo = w->hi = 0;
}

// The line buffer is full: stream it (ordinary stores when its start belongs to another range).
static inline void nt_lines_next(nt_lines *w)
{
    if (w->lo == 0)
        nt_lines_stream(w->base, w->line);
    else
        nt_lines_flush(w);
    w->base += 8;
    w->lo = w->hi = 0;
}

// n elements from s.
static inline void nt_lines_put(nt_lines *w, const uint64_t *s, int64_t n)
{
    if (w->hi > 0 || n < 8) {
        int take = n < 8 - w->hi ? (int)n : 8 - w->hi;
        for (int k = 0; k < take; k++)
            w->line[w->hi + k] = s[k];
        w->hi += take;
        s += take;
        n -= take;
        if (w->hi < 8)
            return;
        nt_lines_next(w);
    }
    // Whole lines straight from the source. The line pointer stays in a register: the
    // streaming stores could alias w, so w->base would be stored and reloaded every line.
    uint64_t *d = w->base;
    for (; n >= 8; n -= 8, s += 8, d += 8)
        nt_lines_stream(d, s);
    w->base = d;
    for (int k = 0; k < n; k++)
        w->line[k] = s[k];
    w->hi = (int)n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NT_LINES_AVX512 1
// `lines` whole 64-byte lines from s (any alignment) to the 64-byte aligned d, one 64-byte load
// and streaming store each: the fastest contiguous copy measured here (2 threads, 128 MiB
// each: 29.0 GB/s against 27.7 with nt_lines_stream()'s four 16-byte stores a line, 28.8 with
// rep movsb; in a fast spell of the host 51.1 against 47.1).
__attribute__((target("avx512f"))) static inline void
nt_lines_stream_avx512(void *d, const void *s, size_t lines)
{
    char *dd = d;
    const char *ss = s;
    for (size_t k = 0; k < lines; k++, dd += 64, ss += 64)
        _mm512_stream_si512((void *)dd, _mm512_loadu_si512((const void *)ss));
}

// nt_lines_put() with AVX-512 (x86-64, GCC or Clang): a line is one register; a short run
// lands in its place with one masked expanding load (no element-by-element loop), which pays
// off for runs of a few elements.
__attribute__((target("avx512f"))) static inline void
nt_lines_put_avx512(nt_lines *w, const uint64_t *s, int64_t n)
{
    int hi = w->hi, lo = w->lo;
    uint64_t *d = w->base; // in a register (see nt_lines_put)
    __m512i line = _mm512_load_si512((const void *)w->line);
    while (n > 0) {
        int take = n < 8 - hi ? (int)n : 8 - hi;
        __mmask8 m = (__mmask8)(((1u << take) - 1u) << hi);
        line = _mm512_mask_expandloadu_epi64(line, m, s);
        hi += take;
        s += take;
        n -= take;
        if (hi < 8)
            break;
        if (lo == 0)
            _mm512_stream_si512((void *)d, line);
        else
            _mm512_mask_storeu_epi64(d, (__mmask8)(0xFFu << lo), line);
        d += 8;
        lo = 0;
        hi = 0;
        size_t k = (size_t)n / 8; // whole lines straight from the source
        nt_lines_stream_avx512(d, s, k);
        d += 8 * k;
        s += 8 * k;
        n -= 8 * (int64_t)k;
    }
    _mm512_store_si512((void *)w->line, line);
    w->base = d;
    w->lo = lo;
    w->hi = hi;
}

// The same for runs of whole 32-byte halves (4 elements), the writer at a half: a line is
// two halves, each one 256-bit load, joined in a register; the pending low half waits in
// line[0..3]. Faster than the masked expanding loads where every run is whole halves (nb 8 ->
// 12: runs of 4 and 8).
__attribute__((target("avx512f"))) static inline void
nt_lines_put4_avx512(nt_lines *w, const uint64_t *s, int64_t n)
{
    uint64_t *d = w->base; // in a register (see nt_lines_put)
    if (n > 0 && w->hi == 4) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)s);
        if (w->lo == 0) {
            __m512i l = _mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(void *)w->line));
            _mm512_stream_si512((void *)d, _mm512_inserti64x4(l, h, 1));
        } else {
            _mm256_storeu_si256((__m256i *)(void *)(d + 4), h);
        }
        d += 8;
        w->lo = w->hi = 0;
        s += 4;
        n -= 4;
    }
    size_t k = n > 0 ? (size_t)n / 8 : 0; // whole lines straight from the source
    nt_lines_stream_avx512(d, s, k);
    w->base = d + 8 * k;
    s += 8 * k;
    n -= 8 * (int64_t)k;
    if (n > 0) {
        _mm256_store_si256((__m256i *)(void *)w->line,
                           _mm256_loadu_si256((const __m256i *)(const void *)s));
        w->hi = 4;
    }
}
#else
#define NT_LINES_AVX512 0
#endif

// Run AVX512_CALL when `avx512` asks for it (only true where nt_lines_avx512()) and the AVX-512
// loop is compiled, else BASE_CALL: the one place that knows whether the former exists.
#if NT_LINES_AVX512
#define NT_LINES_DISPATCH(avx512, AVX512_CALL, BASE_CALL)                                      \
    do {                                                                                       \
        if (avx512)                                                                            \
            AVX512_CALL;                                                                       \
        else                                                                                   \
            BASE_CALL;                                                                         \
    } while (0)
#else
#define NT_LINES_DISPATCH(avx512, AVX512_CALL, BASE_CALL)                                      \
    do {                                                                                       \
        (void)(avx512);                                                                        \
        BASE_CALL;                                                                             \
    } while (0)
#endif

// Whether this cpu runs nt_lines_put_avx512().
static inline bool nt_lines_avx512(void)
{
#if NT_LINES_AVX512
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

// Average run length (elements) from which writing through line writers pays off, with the
// AVX-512 loop (a run lands in the line with one masked load) and without: below, filling the
// line buffer element by element costs more than the reads it saves (measured for the core's
// executor, exec_periodic.c, and the MPI pack and unpack, mpi/walk.c).
enum { NT_LINES_RUN_AVX512 = 4, NT_LINES_RUN = 16 };

// The store fence that orders this thread's streaming stores before its later stores (for
// code outside the core, which cannot call nt_copy_fence()).
static inline void nt_lines_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#endif
