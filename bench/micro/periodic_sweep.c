// Sweep of block sizes through the periodic executor (lib/redist/periodic/exec_periodic.c):
// ScaLAPACK layouts, N x N doubles on 4 virtual domains, 2x2 -> 4x1 grids, every ordered pair of 17
// row-and-column block sizes from 1 to 256, on the whole matrix and on bench scalapack's submatrix
// (N/2+13 x N/2-7 at (N/8+5, 3), placed at (N/4-1, N/3)), each copied into a target allocated
// beforehand. Prints per geometry copy / same-run bound (median of the repetitions; the bound is
// measured by each execution, nt_exec_opts_t.measure_bound) and the bound's median in GB/s (45-55
// rather than 27-31 here: a fast spell of the host, where copies bound by the core fall behind),
// the write paths the executor chose (line writers, whole halves, pair, unit and mask programs,
// reads ahead; test hooks of nt_periodic.h) and whether the target is right element by element,
// then a summary per side (how many below 0.5 and from 0.8 on, the median). Not part of the tool:
// `make micro` builds it (build/bin/); by hand, build (one line) and run with
//   cc -O2 -fopenmp -D_GNU_SOURCE -I. -Iinclude -Icore bench/micro/periodic_sweep.c
//      build/lib/libnumatile.a -lhwloc -lnuma -ljansson -lflame -lblis -lm
//      -o build/bin/periodic_sweep
//   build/bin/periodic_sweep [N] [reps]
// About 2.5 minutes at N = 4096 with 5 repetitions on 2 cores; the host's fast spells move whole
// stretches of it (see docs/benchmarks.md).
#include <stdio.h>
#include <stdlib.h>

#include "numatile.h"
#include "lib/redist/periodic/nt_periodic.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static nt_matrix_t *make(nt_topo_t *t, int64_t n, int64_t nb, const char *grid)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, sizeof(double)};
    nt_matrix_t *m = NULL;
    if (nt_matrix_create_spec(t, &sh, grid, 4, NT_LAYOUT_SCALAPACK, 0, &m) != NT_OK) {
        fprintf(stderr, "periodic_sweep: %s\n", nt_last_error());
        exit(1);
    }
    return m;
}

// Reset every path counter of the test hooks (their default modes), or read them.
static void paths(char *out, size_t len)
{
    int64_t l = nt_exec_test_lines(-1), h = nt_exec_test_halves(), p = nt_exec_test_pairs(-1);
    int64_t u = nt_exec_test_unit(-1), m = nt_exec_test_masks(-1), a = nt_exec_test_ahead(-1);
    if (out)
        snprintf(out, len, "%s%s%s%s%s%s", l ? "lines " : "", h ? "halves " : "",
                 p ? "pairs " : "", u ? "unit " : "", m ? "masks " : "", a ? "ahead" : "");
}

enum { MAX_REPS = 32, NNB = 17 };

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 512 || reps < 1 || reps > MAX_REPS || argc > 3) {
        fprintf(stderr, "usage: periodic_sweep [N >= 512] [reps 1..%d]\n", MAX_REPS);
        return 2;
    }
    static const int nbs[NNB] = {1, 2, 3, 5, 6, 7, 10, 13, 16, 24, 32, 50, 64, 100, 128, 200, 256};
    nt_topo_t *t = NULL;
    if (nt_topo_load(&(nt_topo_opts_t){.domains = 4}, &t) != NT_OK) {
        fprintf(stderr, "periodic_sweep: %s\n", nt_last_error());
        return 1;
    }
    printf("N = %lld doubles, 2x2 -> 4x1, 4 virtual domains, %d repetitions; copy / same-run "
           "bound and the bound in GB/s (medians), paths\n",
           (long long)n, reps);
    static double med[2][NNB * NNB];
    int cnt[2] = {0, 0}, rc = 0;
    for (int i = 0; i < NNB; i++) {
        nt_matrix_t *a = make(t, n, nbs[i], "bc2d:2x2");
        if (nt_matrix_fill_pattern(a, 7) != NT_OK)
            return 1;
        for (int j = 0; j < NNB; j++)
            for (int sub = 0; sub < 2 && j != i; sub++) {
                nt_matrix_t *b = make(t, n, nbs[j], "bc2d:4x1");
                nt_sub_t s = {n, n, 0, 0, 0, 0};
                if (sub)
                    s = (nt_sub_t){n / 2 + 13, n / 2 - 7, n / 8 + 5, 3, n / 4 - 1, n / 3};
                nt_plan_t *p = NULL;
                if (nt_plan_create(a, b, &s, NULL, &p) != NT_OK) {
                    fprintf(stderr, "periodic_sweep: %s\n", nt_last_error());
                    return 1;
                }
                paths(NULL, 0);
                double r[MAX_REPS], gbs[MAX_REPS];
                for (int k = 0; k < reps; k++) {
                    nt_exec_stats_t es = {0};
                    if (nt_plan_execute(p, a, b, &(nt_exec_opts_t){.measure_bound = true},
                                        &es) != NT_OK) {
                        fprintf(stderr, "periodic_sweep: %s\n", nt_last_error());
                        return 1;
                    }
                    r[k] = es.seconds > 0 ? es.bound_seconds / es.seconds : 0;
                    gbs[k] = es.bound_seconds > 0
                                 ? (double)s.rows * (double)s.cols * 8 / es.bound_seconds / 1e9
                                 : 0;
                    nt_exec_stats_free(&es);
                }
                char used[80];
                paths(used, sizeof used);
                qsort(r, (size_t)reps, sizeof r[0], cmp);
                qsort(gbs, (size_t)reps, sizeof gbs[0], cmp);
                int64_t bad = -1;
                nt_matrix_check_pattern(b, 7, s.dst_row, s.dst_col, s.rows, s.cols,
                                        s.src_row - s.dst_row, s.src_col - s.dst_col, &bad);
                rc |= bad != 0;
                med[sub][cnt[sub]++] = r[reps / 2];
                printf("%4d -> %-4d %-6s %.2f %5.1f  %s%s\n", nbs[i], nbs[j],
                       sub ? "sub" : "whole", r[reps / 2], gbs[reps / 2], used,
                       bad ? "  TARGET WRONG" : "");
                fflush(stdout);
                nt_plan_destroy(p);
                nt_matrix_destroy(b);
            }
        nt_matrix_destroy(a);
    }
    for (int sub = 0; sub < 2; sub++) {
        int lo = 0, hi = 0;
        for (int k = 0; k < cnt[sub]; k++) {
            lo += med[sub][k] < 0.5;
            hi += med[sub][k] >= 0.8;
        }
        qsort(med[sub], (size_t)cnt[sub], sizeof med[sub][0], cmp);
        printf("%s: %d geometries, %d below 0.5, %d from 0.8 on, median %.2f\n",
               sub ? "submatrix" : "whole matrix", cnt[sub], lo, hi, med[sub][cnt[sub] / 2]);
    }
    nt_topo_destroy(t);
    return rc;
}
