// The copy loops of libnumatile_mpi's walks: pieces of a column copied forward, for walk.c
// (the copy) and block_op.h (the operations' plain runs).
#ifndef NUMATILE_MPI_COPY_H
#define NUMATILE_MPI_COPY_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <string.h>

// n bytes (n >= 64) forward in 64-byte steps of unaligned 16-byte moves, the last step ending
// at the last byte. glibc 2.36's memcpy runs at 6-7 GB/s for 1-2 KiB when the destination is
// 0-64 bytes ahead of the source modulo 4 KiB, as pieces of page-aligned columns often are
// (10-16 GB/s at other offsets); this loop copies 14-17 GB/s at every offset
// (bench/micro/memcpy_pieces.c measures both).
static inline void nt_mpi_copy_forward(char *d, const char *s, size_t n)
{
#if defined(__SSE2__)
    size_t i = 0;
    for (;; i += 64) {
        if (i + 64 > n)
            i = n - 64;
        __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_storeu_si128((__m128i *)(void *)(d + i), x0);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 16), x1);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 32), x2);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 48), x3);
        if (i + 64 >= n)
            break;
    }
#else
    memcpy(d, s, n);
#endif
}

// Copy len elements; 8-byte elements (doubles) get a loop the compiler can vectorise, which
// matters for the one-element pieces of element-cyclic layouts.
static inline void nt_mpi_copy_elems(char *d, const char *s, int64_t len, size_t es)
{
    size_t n = (size_t)len * es;
    if (es == 8 && len < 8) {
        for (int64_t i = 0; i < len; i++)
            memcpy(d + 8 * i, s + 8 * i, 8);
    } else if (n >= 64) {
        nt_mpi_copy_forward(d, s, n);
    } else {
        memcpy(d, s, n);
    }
}

#endif
