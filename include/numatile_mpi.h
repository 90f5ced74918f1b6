/* The old name of <numatile/mpi.h>, kept for one release (see NEWS.md): include that instead. */
#ifndef NUMATILE_MPI_COMPAT_H
#define NUMATILE_MPI_COMPAT_H
#include <numatile/mpi.h>
#endif
