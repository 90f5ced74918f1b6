// pkg_mpi: a user's program of libnumatile_mpi, built against an installed numatile (pkg-config
// numatile-mpi, or CMake's numatile::mpi) by tests/mpi/packaging.sh: nt_pdgemr2d copies a
// 1 x R block-cyclic matrix onto an R x 1 grid; every process checks its elements.
//   mpirun -np R pkg_mpi          exit 0 when every element arrived
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <numatile/mpi.h>

void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_exit(int notdone);

enum { M = 50, N = 40, MB = 4, NB = 3 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int R, me, ca, cb, p, q, r, c;
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    Cblacs_get(-1, 0, &ca);
    Cblacs_gridinit(&ca, "Row", 1, R);
    Cblacs_get(-1, 0, &cb);
    Cblacs_gridinit(&cb, "Row", R, 1);
    // A on 1 x R: all M rows here, columns of blocks me, me + R, ...
    int nla = (int)nt_mpi_numroc(N, NB, me, 0, R), mlb = (int)nt_mpi_numroc(M, MB, me, 0, R);
    double *a = malloc(sizeof *a * M * (size_t)(nla > 0 ? nla : 1));
    double *b = malloc(sizeof *b * (size_t)(mlb > 0 ? mlb : 1) * N);
    for (int j = 0; j < nla; j++)
        for (int i = 0; i < M; i++)
            a[i + (size_t)j * M] = i + 1000.0 * ((j / NB * R + me) * NB + j % NB);
    int da[9] = {1, ca, M, N, MB, NB, 0, 0, M};
    int db[9] = {1, cb, M, N, MB, NB, 0, 0, mlb > 0 ? mlb : 1};
    nt_status s = nt_pdgemr2d(M, N, a, 1, 1, da, b, 1, 1, db, ca);
    long bad = s != NT_OK;
    Cblacs_gridinfo(cb, &p, &q, &r, &c);
    for (int j = 0; s == NT_OK && j < N; j++)
        for (int i = 0; i < mlb; i++)
            bad += b[i + (size_t)j * mlb] != (i / MB * R + r) * MB + i % MB + 1000.0 * j;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("pkg_mpi: %d processes, %ld wrong%s%s\n", R, bad, s ? ": " : "",
               s ? nt_mpi_last_error() : "");
    free(a);
    free(b);
    Cblacs_exit(1);
    MPI_Finalize();
    return bad != 0;
}
