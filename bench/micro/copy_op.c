// Micro-benchmark of the transposing copy kernel of plans with an operation
// (lib/matrix/copy_op.c, nt_copy_op_2d()): B = alpha*op(A) (+ beta*B) on 512 x 512 tiles, each
// thread streaming through its own tiles (far more than the caches), against the streamed
// contiguous copy of the same tiles by the same threads (nt_copy_2d_ex(), the tool's copy
// bound), measured alternately, for each instruction set the kernel may use (portable, AVX2,
// AVX-512; those the cpu lacks are skipped). Prints the kernel's speed over the copy's (the
// tool's `ratio`) and its GB/s (bytes of B per second), medians of the repetitions; times are
// each thread's cpu time (the longest of the team), so that waits for a cpu on a loaded
// machine do not count. Buffers in transparent huge pages, as matrices have them
// (NT_NO_HUGEPAGES=1: not). Not part of the tool: `make micro` builds it (build/bin/); run as
//   build/bin/copy_op [MiB per thread] [reps] [threads]      (default 256 5 2)
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_copy_op.h"
#include "micro_cpu.h"

enum { T = 512 }; // tile side, elements

// One pass over every thread's tiles: the kernel k, or the streamed copy when k is NULL.
static double pass(char **src, char **dst, size_t tiles, size_t es, const nt_copy_op *k,
                   int nth)
{
    size_t tile = (size_t)T * T * es;
    double worst = 0;
#pragma omp parallel num_threads(nth) reduction(max : worst)
    {
        int t = omp_get_thread_num();
        double t0 = cpu_now();
        for (size_t x = 0; x < tiles; x++) {
            if (k)
                nt_copy_op_2d(k, dst[t] + x * tile, T, src[t] + x * tile, T, T, T, 0, 0,
                              NT_COPY_STREAM);
            else
                nt_copy_2d_ex(dst[t] + x * tile, T, src[t] + x * tile, T, T, T, es,
                              NT_COPY_STREAM, NT_COPY_AUTO);
        }
        worst = cpu_now() - t0;
    }
    return worst;
}

typedef struct kcase {
    const char *name;
    nt_dtype dt;
    size_t es;
    nt_op op;
    double alpha, beta;
} kcase;

// Each thread's source and target, filled (small doubles and floats: no NaN, no denormal),
// in transparent huge pages as a matrix's tiles have them (NT_NO_HUGEPAGES=1: not).
static bool buffers(char **src, char **dst, int nth, size_t mib)
{
    for (int t = 0; t < nth; t++) {
        src[t] = aligned_alloc((size_t)2 << 20, mib << 20);
        dst[t] = aligned_alloc((size_t)2 << 20, mib << 20);
        if (!src[t] || !dst[t])
            return false;
        if (!getenv("NT_NO_HUGEPAGES")) {
            madvise(src[t], mib << 20, MADV_HUGEPAGE);
            madvise(dst[t], mib << 20, MADV_HUGEPAGE);
        }
        memset(src[t], 1, mib << 20);
        memset(dst[t], 2, mib << 20);
    }
    return true;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
    int reps = argc > 2 ? atoi(argv[2]) : 5, nth = argc > 3 ? atoi(argv[3]) : 2;
    if (mib < 4 || reps < 1 || reps > 99 || nth < 1 || nth > 64) {
        fprintf(stderr, "usage: copy_op [MiB per thread >= 4] [reps 1..99] [threads 1..64]\n");
        return 2;
    }
    char *src[64], *dst[64];
    if (!buffers(src, dst, nth, mib)) {
        fprintf(stderr, "copy_op: out of memory for %zu MiB\n", 2 * mib * (size_t)nth);
        return 1;
    }
    static const kcase cases[] = {
        {"d T alpha 2", NT_DTYPE_D, 8, NT_OP_T, 2, 0},
        {"d T move", NT_DTYPE_D, 8, NT_OP_T, 1, 0},
        {"d T beta 0.5", NT_DTYPE_D, 8, NT_OP_T, 2, 0.5},
        {"s T alpha 2", NT_DTYPE_S, 4, NT_OP_T, 2, 0},
        {"c C alpha 2", NT_DTYPE_C, 8, NT_OP_C, 2, 0},
        {"z C alpha 2", NT_DTYPE_Z, 16, NT_OP_C, 2, 0},
    };
    static const char *const isa[] = {"portable", "avx2", "avx512"};
    const char *only = getenv("ONLY");
    printf("512 x 512 tiles, %zu MiB per thread, %d threads, medians of %d: kernel / streamed "
           "copy (GB/s of B)\n%-14s", mib, nth, reps, "case");
    for (int l = 0; l < 3; l++)
        printf(" %16s", isa[l]);
    printf("\n");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        if (only && !strstr(cases[c].name, only))
            continue;
        const kcase *q = &cases[c];
        size_t tiles = (mib << 20) / ((size_t)T * T * q->es);
        printf("%-14s", q->name);
        nt_copy_op k[3];
        bool have[3];
        for (int l = 0; l < 3; l++) {
            nt_copy_op_test_isa(l);
            nt_plan_op_t op = {.op = q->op, .alpha_re = q->alpha, .beta_re = q->beta,
                               .uplo = NT_UPLO_ALL};
            nt_copy_op_init(&k[l], &op, q->dt, q->es, T, T);
            have[l] = nt_copy_op_isa(&k[l]) == l;
        }
        // The instruction sets in turn within each repetition, each against a copy just
        // before it: a change of the machine's speed between repetitions hits them alike.
        double r[3][99], g[3][99];
        for (int x = 0; x < reps; x++)
            for (int l = 0; l < 3; l++) {
                if (!have[l])
                    continue;
                double tc = pass(src, dst, tiles, q->es, NULL, nth);
                double tk = pass(src, dst, tiles, q->es, &k[l], nth);
                r[l][x] = tc / tk;
                g[l][x] = (double)(tiles * T * T * q->es) * nth / tk * 1e-9;
            }
        for (int l = 0; l < 3; l++) {
            if (!have[l]) {
                printf(" %16s", "-");
                continue;
            }
            qsort(r[l], (size_t)reps, sizeof *r[l], cmp);
            qsort(g[l], (size_t)reps, sizeof *g[l], cmp);
            printf("    %5.2f (%5.1f)", r[l][reps / 2], g[l][reps / 2]);
        }
        printf("\n");
        fflush(stdout);
    }
    nt_copy_op_test_isa(-1);
    for (int t = 0; t < nth; t++) {
        free(src[t]);
        free(dst[t]);
    }
    return 0;
}
