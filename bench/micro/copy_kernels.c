// Micro-benchmark of the copy kernels (lib/copy.c): which strategy is fastest here for the
// block shapes redistributions copy. Not part of the tool; build and run with
//   cc -O2 -fopenmp -D_GNU_SOURCE -Ilib -Iinclude bench/micro/copy_kernels.c lib/copy.c
//      -o build/bin/copy_kernels
//   build/bin/copy_kernels [MiB per thread] [reps]
// Every measurement streams through buffers far larger than the caches (as a redistribution of
// a large matrix does), on 1 and 2 threads; the reference is memcpy of the same bytes by the
// same threads, measured alternately with the kernel, medians of the repetitions.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nt_copy.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct shape {
    const char *name;
    size_t n;       // bytes per column
    size_t ldd;     // destination stride in bytes (n: contiguous)
    size_t lds;     // source stride in bytes
    size_t block;   // bytes per call (a multiple of n)
} shape;

// One pass: each thread copies `bytes` from its source half to its destination half, in
// blocks of the shape, with the given kernel (kind < 0: plain memcpy of contiguous blocks).
static double pass(char **src, char **dst, size_t bytes, const shape *sh, int kind,
                   unsigned flags, int nth)
{
    double t0 = now();
#pragma omp parallel num_threads(nth)
    {
        int t = omp_get_thread_num();
        size_t cols = sh->block / sh->n;
        size_t sstep = cols * sh->lds, dstep = cols * sh->ldd;
        size_t nblocks = bytes / sh->block;
        for (size_t b = 0; b < nblocks; b++) {
            if (kind < 0)
                memcpy(dst[t] + b * sh->block, src[t] + b * sh->block, sh->block);
            else
                nt_copy_2d_ex(dst[t] + b * dstep, (int64_t)(sh->ldd), src[t] + b * sstep,
                              (int64_t)(sh->lds), (int64_t)sh->n, (int64_t)cols, 1, flags,
                              (nt_copy_kind)kind);
        }
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 64;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    size_t bytes = mb << 20;
    // Shapes: contiguous blocks of 64 KiB .. 8 MiB; strided columns as a target tile of two
    // or three row pieces sees them (destination stride 2-3x the column), short to long.
    static const shape shapes[] = {
        {"contig 64K", 65536, 65536, 65536, 65536},
        {"contig 1M", 1 << 20, 1 << 20, 1 << 20, 1 << 20},
        {"contig 8M", 8 << 20, 8 << 20, 8 << 20, 8 << 20},
        {"col 64B ld x2", 64, 128, 64, 64 * 512},
        {"col 200B ld x3", 200, 600, 200, 200 * 400},
        {"col 512B ld x2", 512, 1024, 512, 512 * 256},
        {"col 800B ld x3", 800, 2400, 800, 800 * 100},
        {"col 3200B ld x2", 3200, 6400, 3200, 3200 * 400},
        {"col 6400B ld x3", 6400, 19200, 6400, 6400 * 800},
        {"col 4096B ld x2", 4096, 8192, 4096, 4096 * 512},
        // Source-side strides: a 256-row target tile cut from 512-row source tiles (nb 512 ->
        // 256), and 64-row pieces of 100-row targets (nb 64 -> 100).
        {"src 2048B ld x2", 2048, 2048, 4096, 2048 * 256},
        {"seg 64x64 in 100", 512, 800, 512, 512 * 64},
        {"seg 36x36 in 100", 288, 800, 512, 288 * 36},
    };
    static const char *const kname[] = {"columns", "blocked", "stream", "auto+stream"};
    static const int kinds[] = {NT_COPY_COLUMNS, NT_COPY_BLOCKED, NT_COPY_NT, NT_COPY_AUTO};
    static const unsigned kflags[] = {0, 0, 0, NT_COPY_STREAM};
    char *src[2], *dst[2];
    for (int t = 0; t < 2; t++) {
        // Strided shapes spread the destination over up to 3x the bytes.
        src[t] = malloc(3 * bytes + 4096);
        dst[t] = malloc(3 * bytes + 4096);
        if (!src[t] || !dst[t])
            return 1;
        memset(src[t], 1, 3 * bytes + 4096);
        memset(dst[t], 2, 3 * bytes + 4096);
    }
    printf("copy kernels: %zu MiB per thread per pass, %d reps, medians; ratio = kernel time /"
           " memcpy time of the same bytes (contiguous), < 1 is faster\n", mb, reps);
    printf("%-18s %3s %11s %11s %11s %11s %11s\n", "shape", "thr", "memcpy GB/s", kname[0],
           kname[1], kname[2], kname[3]);
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (int nth = 1; nth <= 2; nth++) {
            double ref[64], tk[4][64];
            size_t b = bytes / shapes[k].block * shapes[k].block;
            shape contig = {0};
            contig.n = contig.ldd = contig.lds = contig.block = shapes[k].block;
            for (int r = 0; r < reps && r < 64; r++) {
                ref[r] = pass(src, dst, b, &contig, -1, 0, nth);
                for (int q = 0; q < 4; q++)
                    tk[q][r] = pass(src, dst, b, &shapes[k], kinds[q], kflags[q], nth);
            }
            qsort(ref, (size_t)reps, sizeof *ref, cmp);
            printf("%-18s %3d %11.2f", shapes[k].name, nth,
                   (double)b * nth / ref[reps / 2] / 1e9);
            for (int q = 0; q < 4; q++) {
                qsort(tk[q], (size_t)reps, sizeof **tk, cmp);
                printf(" %11.2f", tk[q][reps / 2] / ref[reps / 2]);
            }
            printf("\n");
        }
    return 0;
}
