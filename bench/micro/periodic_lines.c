// Micro-benchmark of the periodic executor's write paths (lib/redist/periodic/exec_periodic.c):
// ScaLAPACK block-cyclic N x N doubles on 4 virtual domains, 2x2 -> 4x1 grid (and a same-grid
// control), copied into a target allocated beforehand, with the line writers as the library chooses
// them, forced off, and forced on with and without their AVX-512 loop, without unit programs
// (lib/redist/periodic/periodic_unit.c), without reads one column ahead, and without mask programs
// (lib/redist/periodic/periodic_masks.c), the variants interleaved repetition by repetition.
// Besides the whole matrix, nb 64 -> 100 and 8 -> 12 on bench scalapack's submatrix ("sub": N/2+13
// x N/2-7 at (N/8+5, 3), placed at (N/4-1, N/3)), and nb 6 -> 9 (block sizes off the grid of 4).
// Prints copy / same-run bound per variant (the bound is measured by each execution,
// nt_exec_opts_t.measure_bound), medians. Not part of the tool: `make micro` builds it
// (build/bin/); by hand: build (one line) and run with
//   cc -O2 -fopenmp -D_GNU_SOURCE -I. -Iinclude -Icore bench/micro/periodic_lines.c
//      build/lib/libnumatile.a -lhwloc -lnuma -ljansson -lflame -lblis -lm
//      -o build/bin/periodic_lines
//   build/bin/periodic_lines [N] [reps] [fresh]
// With "fresh", every timed execution allocates a new target (as bench scalapack's copy and c/bound
// columns do) instead of copying into one allocated beforehand.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_lines.h"
#include "lib/matrix/nt_matrix.h"
#include "lib/redist/periodic/nt_periodic.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(void)
{
    fprintf(stderr, "periodic_lines: %s\n", nt_last_error());
    exit(1);
}

static nt_matrix_t *make(nt_topo_t *t, int64_t n, int64_t nb, const char *grid, unsigned flags)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, sizeof(double)};
    nt_matrix_t *m = NULL;
    if (nt_matrix_create_spec(t, &sh, grid, 4, NT_LAYOUT_SCALAPACK, flags, &m) != NT_OK)
        die();
    return m;
}

// Variants: the line writers' test mode and the unit programs' (nt_periodic.h); "off" is
// plain copies (neither), "no unit" the automatic choice without unit programs.
enum { VARIANTS = 7, MAX_REPS = 64 };
static const char *const names[VARIANTS] = {"auto",    "off",      "on",      "on, no AVX-512",
                                            "no unit", "no ahead", "no masks"};
static const int modes[VARIANTS] = {-1, 0, 1, 2, -1, -1, -1},
                 umodes[VARIANTS] = {-1, 0, -1, -1, 0, -1, -1},
                 amodes[VARIANTS] = {-1, -1, -1, -1, -1, 0, -1},
                 mmodes[VARIANTS] = {-1, 0, -1, -1, -1, -1, 0};

// One geometry: source a on 2x2, target b (on tgrid) with target block size nb_b, submatrix s,
// the plan p between them. Fresh: every execution allocates a target of its own, and b only
// describes the targets (the control row still copies into it).
typedef struct geometry {
    nt_topo_t *t;
    int64_t n, nb_b;
    const char *tgrid;
    bool fresh;
    nt_matrix_t *a, *b;
    nt_sub_t s;
    nt_plan_t *p;
} geometry;

// Mismatches of target m (0 or 1) against a's pattern over the submatrix.
static int64_t wrong_target(const geometry *g, const nt_matrix_t *m)
{
    const nt_sub_t *s = &g->s;
    int64_t wrong = -1;
    nt_matrix_check_pattern(m, 7, s->dst_row, s->dst_col, s->rows, s->cols,
                            s->src_row - s->dst_row, s->src_col - s->dst_col, &wrong);
    return wrong != 0;
}

static void test_modes(int v)
{
    nt_exec_test_lines(v < 0 ? -1 : modes[v]);
    nt_exec_test_unit(v < 0 ? -1 : umodes[v]);
    nt_exec_test_ahead(v < 0 ? -1 : amodes[v]);
    nt_exec_test_masks(v < 0 ? -1 : mmodes[v]);
}

// One execution of variant v: copy / same-run bound. A fresh target is checked (*bad) and freed.
static double run_variant(const geometry *g, int v, int64_t *bad)
{
    nt_exec_stats_t es = {0};
    test_modes(v);
    nt_matrix_t *bb = g->b;
    nt_plan_t *pp = g->p;
    if (g->fresh) {
        bb = make(g->t, g->n, g->nb_b, g->tgrid, NT_MATRIX_NOALLOC);
        if (nt_plan_create(g->a, bb, &g->s, NULL, &pp) != NT_OK)
            die();
    }
    if (nt_plan_execute(pp, g->a, bb, &(nt_exec_opts_t){.measure_bound = true}, &es))
        die();
    if (g->fresh) {
        *bad += wrong_target(g, bb);
        nt_plan_destroy(pp);
        nt_matrix_destroy(bb);
    }
    double r = es.seconds > 0 ? es.bound_seconds / es.seconds : 0;
    nt_exec_stats_free(&es);
    return r;
}

// Control only: a plain streamed copy of each source local array into the target's (same
// layout, no executor), two threads, against the bound of an execution just before: what
// these arrays allow, as opposed to the bound's fresh buffers.
static double plain_copy(const geometry *g)
{
    nt_exec_stats_t es = {0};
    if (nt_plan_execute(g->p, g->a, g->b, &(nt_exec_opts_t){.measure_bound = true}, &es))
        die();
    const nt_matrix_t *a = g->a, *b = g->b;
    double t0 = omp_get_wtime();
#pragma omp parallel num_threads(2)
    for (int d = omp_get_thread_num(); d < 4; d += 2)
        nt_copy_2d_ex(b->mem->local[d], 1, a->mem->local[d], 1, (int64_t)a->mem->local_bytes[d],
                      1, 1, NT_COPY_STREAM, NT_COPY_NT);
    double t1 = omp_get_wtime();
    double r = es.bound_seconds / (t1 - t0);
    nt_exec_stats_free(&es);
    return r;
}

// Median [min..max] of x[0..n-1], which it sorts, after " | " and a prefix.
static void print_stat(const char *prefix, double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp);
    printf(" | %s%.2f [%.2f..%.2f]", prefix, x[n / 2], x[0], x[n - 1]);
}

// Geometry geo = {source nb, target nb, sub} (the control when control is set): its line.
// Returns 1 if a target came out wrong.
static int run_geometry(nt_topo_t *t, int64_t n, int reps, bool fresh, const int64_t geo[3],
                        bool control)
{
    geometry g = {.t = t, .n = n, .nb_b = geo[1], .tgrid = control ? "bc2d:2x2" : "bc2d:4x1",
                  .fresh = fresh};
    g.a = make(t, n, geo[0], "bc2d:2x2", 0);
    g.b = make(t, n, geo[1], g.tgrid, fresh && !control ? NT_MATRIX_NOALLOC : 0);
    g.s = geo[2] ? (nt_sub_t){n / 2 + 13, n / 2 - 7, n / 8 + 5, 3, n / 4 - 1, n / 3}
                 : (nt_sub_t){n, n, 0, 0, 0, 0};
    if (nt_matrix_fill_pattern(g.a, 7) != NT_OK || nt_plan_create(g.a, g.b, &g.s, NULL, &g.p))
        die();
    double r[VARIANTS][MAX_REPS], plain[MAX_REPS];
    int64_t bad = 0;
    for (int k = 0; k < reps; k++)
        for (int v = 0; v < VARIANTS; v++)
            r[v][k] = run_variant(&g, v, &bad);
    test_modes(-1);
    for (int k = 0; control && k < reps; k++)
        plain[k] = plain_copy(&g);
    // Fresh targets were checked one by one; b holds the executions into it.
    if (!fresh || control)
        bad += wrong_target(&g, g.b);
    char label[32];
    snprintf(label, sizeof label, "%lld->%lld%s", (long long)geo[0], (long long)geo[1],
             control ? " =grid" : geo[2] ? " sub" : "");
    printf("%-14s", label);
    for (int v = 0; v < VARIANTS; v++)
        print_stat("", r[v], reps);
    if (control)
        print_stat("plain copy of the arrays ", plain, reps);
    printf("%s\n", bad == 0 ? "" : "  TARGET WRONG");
    nt_plan_destroy(g.p);
    nt_matrix_destroy(g.a);
    nt_matrix_destroy(g.b);
    return bad != 0;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    // "fresh": every execution into a new target that it allocates (as bench scalapack times).
    bool fresh = argc > 3 && strcmp(argv[3], "fresh") == 0;
    if (n < 64 || reps < 1 || reps > MAX_REPS || (argc > 3 && !fresh) || argc > 4) {
        fprintf(stderr, "usage: periodic_lines [N >= 64] [reps 1..%d] [fresh]\n", MAX_REPS);
        return 2;
    }
    // The last one ("=grid") is the control: the same layout on the same 2x2 grid, every column
    // one contiguous run (nothing for a writer to gain; what the executor itself reaches).
    static const int64_t geo[][3] = {{512, 256, 0}, {64, 100, 0}, {64, 100, 1}, {8, 12, 0},
                                     {8, 12, 1},    {6, 9, 0},    {1, 3, 0},    {64, 64, 0}};
    const size_t ngeo = sizeof geo / sizeof geo[0];
    nt_topo_t *t = NULL;
    if (nt_topo_load(&(nt_topo_opts_t){.domains = 4}, &t) != NT_OK)
        die();
    printf("N = %lld doubles, 2x2 -> 4x1, 4 virtual domains, %d repetitions, AVX-512 loop %s; "
           "copy / same-run bound, median [min..max]\n",
           (long long)n, reps, nt_lines_avx512() ? "available" : "not available");
    printf("%-14s", "nb");
    for (int v = 0; v < VARIANTS; v++)
        printf(" | %-16s", names[v]);
    printf("\n");
    int rc = 0;
    for (size_t g = 0; g < ngeo; g++)
        rc |= run_geometry(t, n, reps, fresh, geo[g], g + 1 == ngeo);
    nt_topo_destroy(t);
    return rc;
}
