// What libnumatile_scalapack's files share: the way back to ScaLAPACK's own routines (the
// fallback), its notice, and the descriptor-type agreement. Private to mpi/scalapack/.
#ifndef NUMATILE_MPI_SCALAPACK_INT_H
#define NUMATILE_MPI_SCALAPACK_INT_H

#include <stdbool.h>

// The routines that may fall back, one notice each.
typedef enum nt_sl_routine {
    NT_SL_GEMR2D,
    NT_SL_TRMR2D,
    NT_SL_TRAN,
    NT_SL_COUNT
} nt_sl_routine;

// ScaLAPACK's definition of `name`, the next one after this library in the program's lookup
// order (dlsym(RTLD_NEXT)). When there is none, says why on stderr and ends the job with
// MPI_Abort: these routines return nothing, and ScaLAPACK itself aborts on an error.
typedef void (*nt_sl_fn)(void);
nt_sl_fn nt_sl_next(const char *name, const char *why);

// With NT_SCALAPACK_VERBOSE=1, says on stderr, once per routine family and process, that
// `name` falls back to ScaLAPACK's and why.
void nt_sl_notice(nt_sl_routine r, const char *name, const char *why);

// Whether every process of ictxt that belongs to a grid holds DTYPE = 1 (dense) in that grid's
// descriptor. Collective over ictxt (a BLACS max), so every process gets the same answer and
// takes the same path.
bool nt_sl_dense(const int *desca, const int *descb, int ictxt);

#endif
