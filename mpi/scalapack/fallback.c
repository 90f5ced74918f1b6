// The fallback of libnumatile_scalapack: ScaLAPACK's own routine, found after this library,
// and the notice that says when it is taken.
#include <dlfcn.h> // RTLD_NEXT: the build defines _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/nt_blacs.h"
#include "nt_scalapack.h"

// BLACS's integer combine (max) over a scope of a context; in ScaLAPACK's library.
void Cigamx2d(int ctxt, const char *scope, const char *top, int m, int n, int *a, int lda,
              int *ra, int *ca, int ldia, int rdest, int cdest);

nt_sl_fn nt_sl_next(const char *name, const char *why)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p) {
        // POSIX lets a data pointer from dlsym hold a function; ISO C has no cast for it.
        nt_sl_fn f;
        memcpy(&f, &p, sizeof f);
        return f;
    }
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "numatile_scalapack: %s: %s, and no ScaLAPACK %s follows this library (link "
            "-lscalapack-openmpi after -lnumatile_scalapack); aborting (MPI rank %d)\n", name,
            why, name, rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); // MPI_Abort does not return; the compiler does not know it
}

static bool told[NT_SL_COUNT];

void nt_sl_notice(nt_sl_routine r, const char *name, const char *why)
{
    const char *v = getenv("NT_SCALAPACK_VERBOSE");
    if (!v || strcmp(v, "1") || told[r])
        return;
    told[r] = true;
    int me, np;
    Cblacs_pinfo(&me, &np);
    fprintf(stderr, "numatile_scalapack: %s falls back to ScaLAPACK's own routine (%s) [BLACS "
            "process %d; said once]\n", name, why, me);
}

static bool dense_here(const int *desc)
{
    if (desc[1] == -1)
        return true;
    int np, nq, myr, myc;
    Cblacs_gridinfo(desc[1], &np, &nq, &myr, &myc);
    // Outside the grid the descriptor is not read (its DTYPE may be anything).
    return myr < 0 || myc < 0 || myr >= np || myc >= nq || desc[0] == 1;
}

bool nt_sl_dense(const int *desca, const int *descb, int ictxt)
{
    int other = !dense_here(desca) || !dense_here(descb);
    Cigamx2d(ictxt, "All", " ", 1, 1, &other, 1, NULL, NULL, -1, -1, -1);
    return !other;
}
