// Copy kernels (see nt_copy.h). Measured on the AMD Zen 4 VM of docs/benchmarks.md with
// bench/micro/copy_kernels.c:
//  - glibc's memcpy here never streams below 240 MB (x86_non_temporal_threshold), so a large
//    copy reads every destination line before writing it (read for ownership): 3 memory
//    transfers per byte instead of 2. Streaming stores save that third transfer when the
//    destination is not read again soon, hence NT_COPY_STREAM for large redistributions:
//    contiguous copies take 0.69-0.77 of memcpy's time, strided columns of 512 B to 6 KiB
//    0.6-1.0 of a contiguous memcpy (1.3-2x faster than memcpy column by column).
//  - A column of a few dozen bytes costs a memcpy call (PLT, size dispatch) about as much as
//    its bytes; such columns are copied inline with fixed-size moves: in cache, 64-byte columns
//    take 0.8x and 36x36 pieces of 100-row tiles 0.5x the time of one memcpy per column (in
//    memory both are bound by the memory the same way).
#include <stdatomic.h>
#include <string.h>

#include "nt_copy.h"
#include "nt_lines.h"

#if defined(__SSE2__)
#include <immintrin.h>
#define HAVE_STREAM 1
#else
#define HAVE_STREAM 0
#endif

// Columns of at most this many bytes are copied inline (above it memcpy's call is amortised).
#define SHORT_COL 256
#define LINE 64

static _Atomic int64_t stream_above = -1;

int64_t nt_copy_stream_bytes(void)
{
    int64_t v = atomic_load(&stream_above);
    return v >= 0 ? v : NT_COPY_STREAM_BYTES;
}

void nt_copy_test_stream_above(int64_t bytes)
{
    atomic_store(&stream_above, bytes < 0 ? -1 : bytes);
}

int nt_copy_has_stream(void)
{
    return HAVE_STREAM;
}

// n bytes, n <= SHORT_COL in practice (any n works): fixed-size moves that the compiler turns
// into single loads and stores, the last one overlapping the previous when n is not a multiple.
static inline void copy_small(char *d, const char *s, size_t n)
{
    if (n >= 16) {
        size_t k = 0;
        for (; k + 16 < n; k += 16) {
#if HAVE_STREAM
            _mm_storeu_si128((__m128i *)(void *)(d + k),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + k)));
#else
            uint64_t a[2];
            memcpy(a, s + k, 16);
            memcpy(d + k, a, 16);
#endif
        }
        char t[16];
        memcpy(t, s + n - 16, 16);
        memcpy(d + n - 16, t, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        // 1..3 bytes: first, middle and last (they coincide for n = 1 or 2).
        char a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

// One element per column (a gather/scatter with strides): the element size is fixed in each
// loop so every element is one move, no size dispatch inside the loop.
static void copy_rows1(char *d, size_t ldd, const char *s, size_t lds, int64_t cols, size_t es)
{
    switch (es) {
    case 4:
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)j * ldd, s + (size_t)j * lds, 4);
        return;
    case 8:
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)j * ldd, s + (size_t)j * lds, 8);
        return;
    case 16:
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)j * ldd, s + (size_t)j * lds, 16);
        return;
    default:
        for (int64_t j = 0; j < cols; j++)
            copy_small(d + (size_t)j * ldd, s + (size_t)j * lds, es);
    }
}

// Short columns (n bytes each, strides in bytes), inline.
static void copy_blocked(char *d, size_t ldd, const char *s, size_t lds, int64_t cols,
                         size_t n, size_t es)
{
    if (n == es) {
        copy_rows1(d, ldd, s, lds, cols, es);
        return;
    }
    for (int64_t j = 0; j < cols; j++)
        copy_small(d + (size_t)j * ldd, s + (size_t)j * lds, n);
}

#if HAVE_STREAM
// n bytes with streaming stores for the destination's whole 64-byte lines; the partial lines at
// both ends take ordinary stores (a streamed partial line costs a full line write anyway).
static void stream_1d(char *d, const char *s, size_t n)
{
    size_t head = (LINE - ((uintptr_t)d & (LINE - 1))) & (LINE - 1);
    if (n < head + LINE) {
        memcpy(d, s, n);
        return;
    }
    copy_small(d, s, head);
    d += head;
    s += head;
    n -= head;
    size_t lines = n / LINE, tail = n - lines * LINE;
#if NT_LINES_AVX512
    if (nt_lines_avx512()) {
        nt_lines_stream_avx512(d, s, lines);
        copy_small(d + lines * LINE, s + lines * LINE, tail);
        return;
    }
#endif
    for (size_t k = 0; k < lines; k++, d += LINE, s += LINE)
        nt_lines_stream(d, s);
    copy_small(d, s, tail);
}
#endif

void nt_copy_fence(void)
{
#if HAVE_STREAM
    _mm_sfence();
#endif
}

// Streaming stores column by column (n bytes each), then a fence unless the caller fences.
// Returns 0 when the cpu has no streaming path (nothing copied then).
static int copy_stream(char *d, size_t ldd, const char *s, size_t lds, int64_t cols, size_t n,
                       unsigned flags)
{
#if HAVE_STREAM
    for (int64_t j = 0; j < cols; j++)
        stream_1d(d + (size_t)j * ldd, s + (size_t)j * lds, n);
    // Streaming stores are weakly ordered: make them visible before the caller signals done.
    if (!(flags & NT_COPY_NOFENCE))
        _mm_sfence();
    return 1;
#else
    (void)d, (void)ldd, (void)s, (void)lds, (void)cols, (void)n, (void)flags;
    return 0;
#endif
}

static void copy_columns(char *d, size_t ldd, const char *s, size_t lds, int64_t cols, size_t n)
{
    for (int64_t j = 0; j < cols; j++)
        memcpy(d + (size_t)j * ldd, s + (size_t)j * lds, n);
}

// NT_COPY_AUTO's strategy for columns of n bytes, total bytes in all.
static nt_copy_kind choose(size_t n, size_t total, unsigned flags)
{
    if ((flags & NT_COPY_STREAM) && total >= NT_COPY_STREAM_MIN && n >= NT_COPY_STREAM_COL)
        return NT_COPY_NT;
    return n <= SHORT_COL ? NT_COPY_BLOCKED : NT_COPY_COLUMNS;
}

nt_copy_kind nt_copy_kind_of(int64_t rows, int64_t cols, size_t elem_size, unsigned flags)
{
    if (rows <= 0 || cols <= 0)
        return NT_COPY_BLOCKED;
    size_t n = (size_t)rows * elem_size;
    return choose(n, n * (size_t)cols, flags);
}

void nt_copy_2d_ex(void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                   int64_t cols, size_t elem_size, unsigned flags, nt_copy_kind kind)
{
    if (rows <= 0 || cols <= 0 || elem_size == 0)
        return;
    char *d = dst;
    const char *s = src;
    size_t n = (size_t)rows * elem_size;
    size_t bd = (size_t)ldd * elem_size, bs = (size_t)lds * elem_size;
    // Both sides contiguous: the block is one column of n * cols bytes.
    if (cols == 1 || (ldd == rows && lds == rows)) {
        n *= (size_t)cols;
        cols = 1;
    }
    if (kind == NT_COPY_AUTO)
        kind = choose(n, n * (size_t)cols, flags);
    switch (kind) {
    case NT_COPY_NT:
        if (copy_stream(d, bd, s, bs, cols, n, flags))
            return;
        copy_columns(d, bd, s, bs, cols, n);
        return;
    case NT_COPY_BLOCKED:
        copy_blocked(d, bd, s, bs, cols, n, cols == 1 ? n : elem_size);
        return;
    default:
        copy_columns(d, bd, s, bs, cols, n);
    }
}

void nt_copy_2d(void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                int64_t cols, size_t elem_size)
{
    nt_copy_2d_ex(dst, ldd, src, lds, rows, cols, elem_size, 0, NT_COPY_AUTO);
}
