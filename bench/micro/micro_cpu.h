// What the copy micro benchmarks (copy_kernels.c, copy_op.c) share: per-thread cpu time and
// the comparison for sorting samples to their median. Header-only: each benchmark is a
// program of its own.
#ifndef NUMATILE_MICRO_CPU_H
#define NUMATILE_MICRO_CPU_H

#include <time.h>

// Cpu time of the calling thread: on a loaded machine wall time mostly measures the waits for
// a cpu; the cpu time of each thread (the longest of the team) is what the copy itself took.
static inline double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// qsort() order of doubles.
static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
