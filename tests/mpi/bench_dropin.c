// bench_dropin: what relinking costs. On the same arrays, alternating in one run: ScaLAPACK's
// own pdgemr2d (its C routine Cpdgemr2d, found in libscalapack by dlsym: its Fortran
// pdgemr2d_ tail-calls Cpdgemr2d through the PLT, which the drop-in interposes, so timing
// libscalapack's pdgemr2d_ timed numatile), pdgemr2d_ called by name (libnumatile_scalapack,
// linked first) and nt_pgemr2d called directly. Each call between barriers, its time the
// slowest rank's; medians (min, max) of --reps calls; ratios of the same run: the drop-in over
// nt_pgemr2d (what the drop-in's own work costs: its DTYPE agreement) and ScaLAPACK's over the
// drop-in (the speed-up a relinked program gets). Every drop-in result is compared bit for bit
// with ScaLAPACK's. The geometries are `numatile bench mpi-redist`'s (N x N doubles, 2 x 2 grid
// of nb x nb blocks onto 4 x 1).
//   mpirun -np 4 bench_dropin [--n N] [--reps K] [--nb 1,8,32,64]
// Exit 0 when every result matched, 1 otherwise.
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/mpi.h>
#include <numatile/scalapack.h>

#include "mpi/nt_blacs.h"

typedef void (*gemr_f)(int, int, double *, int, int, int *, double *, int, int, int *, int);

enum { MAXREPS = 64, MAXNB = 16 };

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

typedef struct grid {
    int ctxt, p, q, myrow, mycol, mloc, nloc, desc[9];
    double *v;
} grid;

static void make(grid *g, int n, int nb, int p, int q, int R)
{
    int np, nq;
    g->p = p, g->q = q;
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "Row", p, q);
    g->myrow = g->mycol = -1;
    if (g->ctxt >= 0)
        Cblacs_gridinfo(g->ctxt, &np, &nq, &g->myrow, &g->mycol);
    bool in = g->myrow >= 0 && g->myrow < p;
    g->mloc = in ? (int)nt_mpi_numroc(n, nb, g->myrow, 0, p) : 0;
    g->nloc = in ? (int)nt_mpi_numroc(n, nb, g->mycol, 0, q) : 0;
    int lld = g->mloc > 1 ? g->mloc : 1;
    int d[9] = {1, in ? g->ctxt : -1, n, n, nb, nb, 0, 0, lld};
    memcpy(g->desc, d, sizeof d);
    size_t count = (size_t)lld * (size_t)(g->nloc > 1 ? g->nloc : 1);
    g->v = malloc(count * sizeof *g->v);
    if (!g->v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t k = 0; k < count; k++)
        g->v[k] = (double)k * 0.5 + R;
}

// One timed call (slowest rank), which = 0 ScaLAPACK's, 1 by name (drop-in), 2 nt_pgemr2d.
static double timed(int which, gemr_f own, int n, const grid *a, grid *b, int gctx)
{
    int one = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (which == 0)
        own(n, n, a->v, 1, 1, (int *)a->desc, b->v, 1, 1, b->desc, gctx);
    else if (which == 1)
        pdgemr2d_(&n, &n, a->v, &one, &one, a->desc, b->v, &one, &one, b->desc, &gctx);
    else
        nt_pgemr2d(8, n, n, a->v, 1, 1, a->desc, b->v, 1, 1, b->desc, gctx, NULL);
    double t = MPI_Wtime() - t0, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static double median(double *t, int k, double *lo, double *hi)
{
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    *lo = t[0], *hi = t[k - 1];
    return k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
}

static int parse_nbs(const char *s, int *nbs)
{
    int k = 0;
    for (char *end; *s && k < MAXNB; s = *end ? end + 1 : end) {
        long v = strtol(s, &end, 10);
        if (v < 1 || (*end && *end != ','))
            return -1;
        nbs[k++] = (int)v;
    }
    return k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, R, n = 4096, reps = 5, nbs[MAXNB] = {1, 8, 32, 64}, nnb = 4;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--nb") && i + 1 < argc)
            nnb = parse_nbs(argv[++i], nbs);
        else
            nnb = -1;
    }
    void *lib = dlopen("libscalapack-openmpi.so.2.2", RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "Cpdgemr2d") : NULL;
    if (R != 4 || n < 1 || reps < 1 || reps > MAXREPS || nnb < 1 || !sym) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 4 bench_dropin [--n N] [--reps 1..%d] [--nb "
                    "LIST] (needs ScaLAPACK loaded: %s)\n", MAXREPS, sym ? "yes" : "no");
        MPI_Finalize();
        return 2;
    }
    gemr_f own;
    memcpy(&own, &sym, sizeof own);
    int gctx;
    Cblacs_get(-1, 0, &gctx);
    Cblacs_gridinit(&gctx, "Row", 1, R);
    long bad = 0;
    if (rank == 0)
        printf("bench_dropin: %d x %d doubles, 4 ranks, 2x2 -> 4x1, %d reps (median, min-max "
               "seconds)\n%-6s %-24s %-24s %-24s %9s %9s\n", n, n, reps, "nb", "ScaLAPACK",
               "pdgemr2d_ (drop-in)", "nt_pgemr2d", "drop/nt", "SL/drop");
    for (int k = 0; k < nnb; k++) {
        grid a, b, c;
        make(&a, n, nbs[k], 2, 2, R);
        make(&b, n, nbs[k], 4, 1, R);
        make(&c, n, nbs[k], 4, 1, R);
        double t[3][MAXREPS], med[3], lo[3], hi[3];
        for (int r = 0; r < reps; r++)
            for (int w = 0; w < 3; w++)
                t[w][r] = timed(w, own, n, &a, w == 0 ? &b : &c, gctx);
        size_t count = (size_t)(b.mloc > 1 ? b.mloc : 1) * (size_t)(b.nloc > 1 ? b.nloc : 1);
        bad += memcmp(b.v, c.v, count * sizeof *b.v) != 0;
        for (int w = 0; w < 3; w++)
            med[w] = median(t[w], reps, &lo[w], &hi[w]);
        if (rank == 0) {
            char cell[3][40];
            for (int w = 0; w < 3; w++)
                snprintf(cell[w], sizeof cell[w], "%.4f (%.4f-%.4f)", med[w], lo[w], hi[w]);
            printf("%-6d %-24s %-24s %-24s %9.2f %9.2f\n", nbs[k], cell[0], cell[1], cell[2],
                   med[1] / med[2], med[0] / med[1]);
        }
        free(a.v), free(b.v), free(c.v);
        Cblacs_gridexit(a.ctxt), Cblacs_gridexit(b.ctxt), Cblacs_gridexit(c.ctxt);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bench_dropin: drop-in results equal to ScaLAPACK's on every rank: %s\n",
               bad ? "NO" : "yes");
    MPI_Finalize();
    return bad != 0;
}
