// Micro-benchmark behind the transposing walks of mpi/op_walk.c (pdtran's local part and its
// transposed pack): an n x n matrix of doubles (leading dimension ld, both arrays page-aligned)
// transposed by
//   tiles64x16  the earlier walk: tiles of 64 columns of the target by 16 of its rows, element
//               by element, ordinary stores;
//   pairs       8 x 8 tiles in 2 x 2 register transposes (two target lines filled at once), a
//               column of tiles running down the source, ordinary stores;
//   pairs-nt    the same with streaming stores;
//   lines-nt    8 x 8 tiles written one target line at a time (two 8-byte loads per 16-byte
//               store), streaming: mpi/op_walk.c's tile;
// then the same matrix in P x P blocks (the pieces of a redistribution whose block sizes
// differ), block row by block row (piece-outer) or 16 source columns at a time down all the
// pieces (chunked, as mpi/op_walk.c walks), beside memcpy of the same bytes. Prints GB/s (bytes
// of the matrix per second), best of `reps`. Not part of the tool: `make micro` builds it
// (build/bin/); by hand:
//   cc -O2 bench/micro/transpose.c -o build/bin/transpose
//   build/bin/transpose [n] [ld] [P] [reps]      (default 2048 2048 40 5; n, ld multiples of 8)
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static __m128i load16(const char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static void put16(char *p, __m128i v, int nt)
{
    if (nt)
        _mm_stream_si128((__m128i *)(void *)p, v);
    else
        _mm_storeu_si128((__m128i *)(void *)p, v);
}

// Element (x, k) of the source at s + 8 * x + k * ss goes to d + 8 * k + x * ds.
static void tile_pairs(char *d, int64_t ds, const char *s, int64_t ss, int nt)
{
    for (int x = 0; x < 8; x += 2)
        for (int k = 0; k < 8; k += 2) {
            __m128i c0 = load16(s + 8 * x + k * ss), c1 = load16(s + 8 * x + (k + 1) * ss);
            put16(d + 8 * k + x * ds, _mm_unpacklo_epi64(c0, c1), nt);
            put16(d + 8 * k + (x + 1) * ds, _mm_unpackhi_epi64(c0, c1), nt);
        }
}

static void tile_lines(char *d, int64_t ds, const char *s, int64_t ss, int nt)
{
    for (int x = 0; x < 8; x++)
        for (int k = 0; k < 8; k += 2) {
            const char *p = s + 8 * x + k * ss;
            __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)p);
            __m128i hi = _mm_loadl_epi64((const __m128i *)(const void *)(p + ss));
            put16(d + 8 * k + x * ds, _mm_unpacklo_epi64(lo, hi), nt);
        }
}

typedef void (*tile_fn)(char *, int64_t, const char *, int64_t, int);

// nx x nk elements (multiples of 8), a column of tiles at a time down the source.
static void walk(tile_fn f, int nt, char *d, int64_t ds, const char *s, int64_t ss, int64_t nx,
                 int64_t nk)
{
    for (int64_t k = 0; k < nk; k += 8)
        for (int64_t x = 0; x < nx; x += 8)
            f(d + 8 * k + x * ds, ds, s + 8 * x + k * ss, ss, nt);
}

// Any sizes: whole tiles through lines-nt, the edges element by element.
static void block(char *d, int64_t ds, const char *s, int64_t ss, int64_t nx, int64_t nk)
{
    int64_t fx = nx / 8 * 8, fk = nk / 8 * 8;
    walk(tile_lines, 1, d, ds, s, ss, fx, fk);
    for (int64_t x = 0; x < nx; x++)
        for (int64_t k = x < fx ? fk : 0; k < nk; k++)
            memcpy(d + 8 * k + x * ds, s + 8 * x + k * ss, 8);
}

static void tiles64x16(char *d, int64_t ds, const char *s, int64_t ss, int64_t n)
{
    for (int64_t x0 = 0; x0 < n; x0 += 64)
        for (int64_t k0 = 0; k0 < n; k0 += 16)
            for (int64_t x = x0; x < x0 + 64 && x < n; x++)
                for (int64_t k = k0; k < k0 + 16 && k < n; k++)
                    memcpy(d + 8 * k + x * ds, s + 8 * x + k * ss, 8);
}

static void pieces(char *d, int64_t ds, const char *s, int64_t ss, int64_t n, int64_t p,
                   int chunked)
{
    if (!chunked) {
        for (int64_t x = 0; x < n; x += p)
            for (int64_t k = 0; k < n; k += p)
                block(d + 8 * k + x * ds, ds, s + 8 * x + k * ss, ss, p < n - x ? p : n - x,
                      p < n - k ? p : n - k);
        return;
    }
    for (int64_t k0 = 0; k0 < n; k0 += p)
        for (int64_t k = k0; k < k0 + p && k < n; k += 16) {
            int64_t kn = k0 + p - k < 16 ? k0 + p - k : 16;
            kn = kn < n - k ? kn : n - k;
            for (int64_t x = 0; x < n; x += p)
                block(d + 8 * k + x * ds, ds, s + 8 * x + k * ss, ss, p < n - x ? p : n - x, kn);
        }
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 2048, ld = argc > 2 ? atoll(argv[2]) : n;
    int64_t p = argc > 3 ? atoll(argv[3]) : 40;
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    // Streaming stores need aligned lines: n and ld multiples of 8.
    if (n < 8 || n % 8 || ld < n || ld % 8 || p < 1 || reps < 1) {
        fprintf(stderr, "usage: transpose [n] [ld >= n] [P >= 1] [reps >= 1] (n, ld multiples "
                "of 8)\n");
        return 2;
    }
    size_t bytes = (size_t)(n * ld * 8 + 4095) / 4096 * 4096;
    char *a = aligned_alloc(4096, bytes), *b = aligned_alloc(4096, bytes);
    if (!a || !b) {
        fprintf(stderr, "transpose: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < bytes / 8; i++)
        ((double *)(void *)a)[i] = (double)i;
    memset(b, 0, bytes);
    enum { NV = 7 };
    const char *name[NV] = {"memcpy", "tiles64x16", "pairs", "pairs-nt", "lines-nt",
                            "pieces", "pieces-chunked"};
    double best[NV];
    for (int v = 0; v < NV; v++)
        best[v] = 1e30;
    int64_t ds = ld * 8, ss = ld * 8;
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < NV; v++) {
            double t = now();
            if (v == 0)
                memcpy(b, a, (size_t)(n * ld * 8));
            else if (v == 1)
                tiles64x16(b, ds, a, ss, n);
            else if (v <= 4)
                walk(v == 4 ? tile_lines : tile_pairs, v >= 3, b, ds, a, ss, n, n);
            else
                pieces(b, ds, a, ss, n, p, v == 6);
            _mm_sfence();
            t = now() - t;
            best[v] = t < best[v] ? t : best[v];
            // Every transposition checked against the source.
            for (int64_t i = 0; v > 0 && i < n; i += 7)
                for (int64_t j = 0; j < n; j += 5)
                    if (memcmp(b + 8 * (j + i * ld), a + 8 * (i + j * ld), 8)) {
                        fprintf(stderr, "transpose: %s wrong at (%lld, %lld)\n", name[v],
                                (long long)i, (long long)j);
                        return 1;
                    }
        }
    printf("n %lld, ld %lld, P %lld, best of %d (GB/s):", (long long)n, (long long)ld,
           (long long)p, reps);
    for (int v = 0; v < NV; v++)
        printf(" %s %.1f", name[v], (double)(n * n * 8) / best[v] * 1e-9);
    printf("\n");
    free(a);
    free(b);
    return 0;
}
