// Micro-benchmark behind the data in the copy bound's sources (lib/redist/exec_team.c, fill_data):
// two threads, each over two 32 MiB buffer pairs (huge pages advised, touched beforehand), copy
// with streaming stores from sources holding zeros, one byte value, 1.0, a sequence or random bits,
// then stream-write 64 MiB of zeros or of 1.5 and read 64 MiB of zeros or data. The variants
// alternate repetition by repetition; prints mean GB/s and the runs. On the AMD Zen 4 VM of
// docs/benchmarks.md zero lines are written about 3x faster than others, so a copy of zeros outruns
// a copy of any data. Not part of the tool: `make micro` builds it (build/bin/); by hand:
//   cc -O2 -fopenmp bench/micro/zero_lines.c -o build/bin/zero_lines
//   build/bin/zero_lines [reps]       (default 9, at most 64)
#include <emmintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { COPIES = 5, TESTS = COPIES + 4, MAX_REPS = 64 };
static const char *const names[TESTS] = {
    "copy of zeros", "copy of bytes 3", "copy of 1.0", "copy of a sequence", "copy of random bits",
    "write zeros", "write 1.5", "read zeros", "read data"};

static char *buffer(size_t n)
{
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("zero_lines: mmap");
        exit(1);
    }
    (void)madvise(p, n, MADV_HUGEPAGE);
    for (size_t o = 0; o < n; o += 4096)
        p[o] = 0;
    return p;
}

static void fill(char *p, size_t n, int kind, uint64_t seed)
{
    uint64_t *w = (uint64_t *)(void *)p, x = seed * 2654435761u + 88172645463325252u;
    for (size_t i = 0; i < n / 8; i++) {
        double v = kind == 2 ? 1.0 : (double)i + 0.25;
        if (kind == 1)
            w[i] = 0x0303030303030303u;
        else if (kind == 4) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            w[i] = x;
        } else if (kind != 0)
            memcpy(&w[i], &v, 8);
    }
}

// Streaming copy of n bytes (multiple of 64, both 64-byte aligned).
static void stream_copy(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(void *)(d + i), _mm_load_si128((const __m128i *)(s + i)));
    _mm_sfence();
}

static void stream_set(char *d, size_t n, double x)
{
    __m128d v = _mm_set1_pd(x);
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_pd((double *)(void *)(d + i), v);
    _mm_sfence();
}

static double sum(const char *s, size_t n)
{
    __m128d a = _mm_setzero_pd();
    for (size_t i = 0; i < n; i += 16)
        a = _mm_add_pd(a, _mm_load_pd((const double *)(const void *)(s + i)));
    return _mm_cvtsd_f64(a) + _mm_cvtsd_f64(_mm_unpackhi_pd(a, a));
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: zero_lines [reps 1..%d]\n", MAX_REPS);
        return 2;
    }
    const size_t B = (size_t)32 << 20;
    char *src[COPIES][4], *dst[4], *data[2];
    for (int v = 0; v < COPIES; v++)
        for (int k = 0; k < 4; k++) {
            src[v][k] = buffer(B);
            fill(src[v][k], B, v, (uint64_t)k);
        }
    for (int k = 0; k < 4; k++)
        dst[k] = buffer(B);
    for (int k = 0; k < 2; k++) {
        data[k] = buffer(2 * B);
        fill(data[k], 2 * B, 3, (uint64_t)k);
    }
    double gbs[TESTS][MAX_REPS], total[TESTS] = {0};
    volatile double sink = 0;
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < TESTS; v++) {
            double t0 = omp_get_wtime(), s = 0;
#pragma omp parallel num_threads(2) reduction(+ : s)
            {
                int t = omp_get_thread_num();
                if (v < COPIES)
                    for (int k = t; k < 4; k += 2)
                        stream_copy(dst[k], src[v][k], B);
                else if (v < COPIES + 2)
                    for (int k = 2 * t; k < 2 * t + 2; k++)
                        stream_set(dst[k], B, v == COPIES ? 0.0 : 1.5);
                else if (v == COPIES + 2)
                    s += sum(src[0][2 * t], B) + sum(src[0][2 * t + 1], B);
                else
                    s += sum(data[t], 2 * B);
            }
            sink += s;
            double sec = omp_get_wtime() - t0;
            // A copy moves 4 x 32 MiB each way; a write or a read 4 x 32 or 2 x 64 MiB.
            gbs[v][r] = 4.0 * (double)B / sec / 1e9;
            total[v] += gbs[v][r];
        }
    printf("GB/s (copies: bytes copied per second), 2 threads, %d repetitions, mean: runs\n",
           reps);
    for (int v = 0; v < TESTS; v++) {
        printf("%-20s %6.2f:", names[v], total[v] / reps);
        for (int r = 0; r < reps; r++)
            printf(" %.1f", gbs[v][r]);
        printf("\n");
    }
    return sink == 12345.0;
}
