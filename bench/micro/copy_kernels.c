// Micro-benchmark of the copy kernels (lib/matrix/copy.c): which strategy is fastest here for the
// block shapes redistributions copy. Not part of the tool: `make micro` builds it (build/bin/); by
// hand, build and run with
//   cc -O2 -fopenmp -D_GNU_SOURCE -I. -Iinclude bench/micro/copy_kernels.c lib/matrix/copy.c
//      -o build/bin/copy_kernels
//   build/bin/copy_kernels [MiB per thread] [reps] [categories]
// Every measurement streams through buffers far larger than the caches (as a redistribution of a
// large matrix does), on 1 and 2 threads; the reference is memcpy of the same bytes by the same
// threads, measured alternately with the kernel, medians of the repetitions. Times are each
// thread's cpu time (the longest of the team), so that waits for a cpu on a loaded machine do not
// count.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/matrix/nt_copy.h"
#include "micro_cpu.h"

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
    double worst = 0;
#pragma omp parallel num_threads(nth) reduction(max : worst)
    {
        double t0 = cpu_now();
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
        worst = cpu_now() - t0;
    }
    return worst;
}

// ---- Cao categories at the kernel level ---------------------------------------------------
// Target tiles of (pr*s) x (pc*s) elements filled from pr x pc pieces of s x s source tiles
// (cid = 3(pr-1) + (pc-1)), streaming through `bytes` of source and target per thread, as an
// execution does but without its threads, tasks and binding: the kernels alone. Also the
// geometries nb 512 -> 256 (a 256 x 256 piece of a 512-row tile) and nb 64 -> 100 (pieces of
// 64 and 36 rows and columns of a 100 x 100 target, sources of 64 rows).
typedef struct cat {
    const char *name;
    int64_t rows[3], cols[3]; // row and column piece sizes of a target tile
    int pr, pc;
    int64_t lds;              // source tile rows
} cat;

enum { V_COLUMNS, V_PIECES, V_ONEPASS, V_MEMCPY, V_STREAM, NV };
static const char *const vname[NV] = {"columns", "pieces", "one-pass", "memcpy", "stream"};

// One target tile from its pieces (sources consecutive in src), with variant v.
static void fill_one(char *dst, const char *src, const cat *k, int v)
{
    int64_t tm = 0, tn = 0;
    for (int a = 0; a < k->pr; a++)
        tm += k->rows[a];
    for (int b = 0; b < k->pc; b++)
        tn += k->cols[b];
    _Alignas(64) char stage[16 << 10];
    int64_t cb = (int64_t)(sizeof stage / (size_t)(tm * 8));
    if (v == V_ONEPASS && cb >= 1) {
        for (int64_t j0 = 0; j0 < tn; j0 += cb) {
            int64_t j1 = j0 + cb < tn ? j0 + cb : tn, c0 = 0;
            for (int b = 0; b < k->pc; c0 += k->cols[b], b++) {
                int64_t lo = j0 > c0 ? j0 : c0, hi = j1 < c0 + k->cols[b] ? j1 : c0 + k->cols[b];
                int64_t r0 = 0;
                for (int a = 0; a < k->pr && lo < hi; r0 += k->rows[a], a++) {
                    const char *p =
                        src + (size_t)(b * k->pr + a) * (size_t)(k->lds * k->cols[b]) * 8;
                    nt_copy_2d(stage + (size_t)((lo - j0) * tm + r0) * 8, tm,
                               p + (size_t)((lo - c0) * k->lds) * 8, k->lds, k->rows[a],
                               hi - lo, 8);
                }
            }
            nt_copy_2d_ex(dst + (size_t)(j0 * tm) * 8, tm, stage, tm, tm, j1 - j0, 8,
                          NT_COPY_STREAM | NT_COPY_NOFENCE, NT_COPY_NT);
        }
        nt_copy_fence();
        return;
    }
    int64_t c0 = 0;
    for (int b = 0; b < k->pc; c0 += k->cols[b], b++) {
        int64_t r0 = 0;
        for (int a = 0; a < k->pr; r0 += k->rows[a], a++) {
            const char *p = src + (size_t)(b * k->pr + a) * (size_t)(k->lds * k->cols[b]) * 8;
            nt_copy_2d_ex(dst + (size_t)(c0 * tm + r0) * 8, tm, p, k->lds, k->rows[a],
                          k->cols[b], 8, v == V_COLUMNS ? 0 : NT_COPY_STREAM,
                          v == V_COLUMNS ? NT_COPY_COLUMNS : NT_COPY_AUTO);
        }
    }
}

// Seconds for one pass of variant v on nth threads.
static double cat_pass(char **src, char **dst, size_t bytes, const cat *k, int v, int nth)
{
    int64_t tm = 0, tn = 0;
    for (int a = 0; a < k->pr; a++)
        tm += k->rows[a];
    for (int b = 0; b < k->pc; b++)
        tn += k->cols[b];
    size_t tile = (size_t)(tm * tn) * 8, sstep = (size_t)(k->lds * tn) * (size_t)k->pr * 8;
    size_t ntiles = bytes / (sstep > tile ? sstep : tile);
    double worst = 0;
#pragma omp parallel num_threads(nth) reduction(max : worst)
    {
        double t0 = cpu_now();
        int t = omp_get_thread_num();
        for (size_t x = 0; x < ntiles; x++) {
            if (v == V_MEMCPY)
                memcpy(dst[t] + x * tile, src[t] + x * tile, tile);
            else if (v == V_STREAM)
                nt_copy_2d_ex(dst[t] + x * tile, 1, src[t] + x * tile, 1, (int64_t)tile, 1, 1,
                              NT_COPY_STREAM, NT_COPY_AUTO);
            else
                fill_one(dst[t] + x * tile, src[t] + x * sstep, k, v);
        }
        worst = cpu_now() - t0;
    }
    return worst;
}

static void categories(char **src, char **dst, size_t bytes, int reps)
{
    static const cat cats[] = {
        {"400 cid0 1x1", {400}, {400}, 1, 1, 400},
        {"400 cid1 1x2", {400}, {400, 400}, 1, 2, 400},
        {"400 cid2 1x3", {400}, {400, 400, 400}, 1, 3, 400},
        {"400 cid3 2x1", {400, 400}, {400}, 2, 1, 400},
        {"400 cid4 2x2", {400, 400}, {400, 400}, 2, 2, 400},
        {"400 cid5 2x3", {400, 400}, {400, 400, 400}, 2, 3, 400},
        {"400 cid6 3x1", {400, 400, 400}, {400}, 3, 1, 400},
        {"400 cid7 3x2", {400, 400, 400}, {400, 400}, 3, 2, 400},
        {"400 cid8 3x3", {400, 400, 400}, {400, 400, 400}, 3, 3, 400},
        {"800 cid4 2x2", {800, 800}, {800, 800}, 2, 2, 800},
        {"800 cid8 3x3", {800, 800, 800}, {800, 800, 800}, 3, 3, 800},
        {"100 cid8 3x3", {100, 100, 100}, {100, 100, 100}, 3, 3, 100},
        {"nb 512->256", {256}, {256}, 1, 1, 512},
        {"nb 64->100", {64, 36}, {64, 36}, 2, 2, 64},
        {"nb 8->12", {8, 4}, {8, 4}, 2, 2, 8},
        {"nb 16->24", {16, 8}, {16, 8}, 2, 2, 16},
        {"nb 24->32", {24, 8}, {24, 8}, 2, 2, 24},
    };
    const char *only = getenv("ONLY");
    printf("\nCao categories, kernels alone (best of %d, interleaved): copy / bound, bound = "
           "streaming copy of the same bytes (old bound = memcpy in the last column)\n", reps);
    printf("%-14s %3s %8s %8s %8s %8s\n", "shape", "thr", vname[0], vname[1], vname[2],
           "memcpy");
    for (size_t k = 0; k < sizeof cats / sizeof *cats; k++)
        for (int nth = 1; nth <= 2; nth++) {
            if (only && !strstr(cats[k].name, only))
                continue;
            double best[NV];
            for (int v = 0; v < NV; v++)
                best[v] = 1e30;
            for (int r = 0; r < reps; r++)
                for (int v = 0; v < NV; v++) {
                    double t = cat_pass(src, dst, bytes, &cats[k], v, nth);
                    best[v] = t < best[v] ? t : best[v];
                }
            printf("%-14s %3d", cats[k].name, nth);
            for (int v = 0; v < V_STREAM; v++)
                printf(" %8.2f", best[V_STREAM] / best[v]);
            printf("\n");
        }
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
    if (argc > 3 && strcmp(argv[3], "categories") == 0) {
        categories(src, dst, bytes, reps);
        return 0;
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
