// The last error message of libnumatile_mpi, per thread (libnumatile's own message is internal
// to it, so this library keeps one of its own), and the agreement that spreads it to every rank.
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nt_mpi_int.h"

static _Thread_local char last[512];

nt_status nt_mpi_fail(nt_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    return code;
}

void nt_mpi_set_error(const char *msg)
{
    snprintf(last, sizeof last, "%s", msg);
}

const char *nt_mpi_last_error(void)
{
    return last;
}

// The agreement of redist.c and topo.c (nt_mpi_int.h).
nt_status nt_mpi_agree(MPI_Comm c, nt_status st, int me, int *flag)
{
    int v[3] = {st, flag ? -*flag : 0, st ? me : INT_MAX};
    if (MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MIN, c) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_Allreduce of the agreement failed");
    if (flag)
        *flag = -v[1];
    if (v[0] == NT_OK)
        return NT_OK;
    char msg[400];
    snprintf(msg, sizeof msg, "rank %d: %s", me, nt_mpi_last_error());
    if (MPI_Bcast(msg, sizeof msg, MPI_CHAR, v[2], c) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_Bcast of the error message failed");
    msg[sizeof msg - 1] = '\0';
    nt_mpi_set_error(msg);
    return (nt_status)v[0];
}
