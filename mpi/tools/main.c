// numatile-mpi: the MPI side of the numatile tool (which itself never links MPI).
//
//   mpirun -np R numatile-mpi redist --m M --n N --from TILE@DIST --to TILE@DIST [--sub S]
//                                    [--elem B] [--threads T] [--schedule free|steps]
//                                    [--reps K] [--seed S] [--verify] [--json]
//                                    [--match none|volume|steps|lex] [--domains D]
//                                    [--transport p2p|alltoallv]
//   mpirun -np 4 numatile-mpi bench [--n N] [--reps K] [--quick] [--json] [--ops-only]
//                                   [--no-ops]
//
// `numatile redist --mpi ...` execs `numatile-mpi redist ...` with the same arguments.
// redist (redist.c): DIST is bc2d:PxQ or bc1d:P (ScaLAPACK layouts, grid cell (p,q) on rank
// p*Q + q, as numatile's bc2d maps), each rank allocates only its own local arrays, fills A
// with numatile's pattern (nt_matrix_pattern_value of the global coordinates) and B with
// another one, runs nt_mpi_redist K times and (--verify) checks every local element of B.
// Rank 0 prints.
// bench (bench.c): pdgemr2d and nt_pdgemr2d on the same geometries, alternating, in the same
// run; per geometry the bytes that cross ranks, the median times (slowest rank, between
// barriers) and their ratio; both results checked against the oracle. Then (bench_ops.c,
// unless --no-ops; --ops-only: these alone) pdtrmr2d, pdtran and pztranc against nt_ptrmr2d
// and nt_ptran, alternating, both results compared element by element.
// Exit codes as the numatile tool: 0 success, 1 a check failed, 2 bad arguments, 3 a failure.
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/nt_blacs.h"
#include "tool.h"

int tool_rank, tool_nranks;

int tool_usage(const char *fmt, const char *arg)
{
    if (tool_rank == 0) {
        fprintf(stderr, "numatile-mpi: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n");
    }
    return 2;
}

bool tool_number(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double tool_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int tool_print_json(json_t *o)
{
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
    int ok = t && printf("%s\n", t) > 0 && fflush(stdout) == 0;
    free(t);
    json_decref(o);
    return ok ? 0 : 3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &tool_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tool_nranks);
    int rc;
    if (argc >= 2 && !strcmp(argv[1], "redist"))
        rc = tool_redist(argc, argv);
    else if (argc >= 2 && !strcmp(argv[1], "bench"))
        rc = tool_bench(argc, argv);
    else
        rc = tool_usage("%s",
                        "usage: mpirun -np R numatile-mpi redist|bench [options] (numatile(1))");
    Cblacs_exit(1);
    MPI_Finalize();
    return rc;
}
