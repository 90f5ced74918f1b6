// What outlives one call: the private duplicate of each caller's communicator (an MPI
// attribute of that communicator, freed with it) and the pack/receive buffers (kept between
// calls so that a repeated redistribution does not fault fresh pages in each time; freed by
// an attribute of MPI_COMM_SELF, whose delete callback MPI_Finalize runs first).
#include <stdlib.h>

#include "nt_mpi_int.h"

static int comm_key = MPI_KEYVAL_INVALID, self_key = MPI_KEYVAL_INVALID;
static struct {
    char *p;
    size_t size;
} buf[2];

static int free_dup(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    MPI_Comm *dup = val;
    MPI_Comm_free(dup);
    free(dup);
    return MPI_SUCCESS;
}

static int free_buffers(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    for (int i = 0; i < 2; i++) {
        free(buf[i].p);
        buf[i].p = NULL;
        buf[i].size = 0;
    }
    return MPI_SUCCESS;
}

nt_status nt_mpi_private_comm(MPI_Comm comm, MPI_Comm *out)
{
    if (comm_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_dup, &comm_key, NULL) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_Comm_create_keyval failed");
    void *val;
    int found = 0;
    if (MPI_Comm_get_attr(comm, comm_key, &val, &found) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "comm: MPI_Comm_get_attr failed (not a communicator?)");
    if (found) {
        *out = *(MPI_Comm *)val;
        return NT_OK;
    }
    // Collective, like the call that needs it; done once per communicator.
    MPI_Comm *dup = malloc(sizeof *dup);
    if (!dup)
        return nt_mpi_fail(NT_ENOMEM, "out of memory");
    if (MPI_Comm_dup(comm, dup) != MPI_SUCCESS) {
        free(dup);
        return nt_mpi_fail(NT_ESYS, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    if (MPI_Comm_set_attr(comm, comm_key, dup) != MPI_SUCCESS) {
        MPI_Comm_free(dup);
        free(dup);
        return nt_mpi_fail(NT_ESYS, "MPI_Comm_set_attr failed");
    }
    *out = *dup;
    return NT_OK;
}

char *nt_mpi_buffer(int which, size_t bytes)
{
    if (self_key == MPI_KEYVAL_INVALID) {
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_buffers, &self_key, NULL) !=
                MPI_SUCCESS ||
            MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL) != MPI_SUCCESS)
            return NULL;
    }
    if (bytes == 0)
        bytes = 1;
    if (buf[which].size >= bytes)
        return buf[which].p;
    free(buf[which].p);
    buf[which].p = malloc(bytes);
    buf[which].size = buf[which].p ? bytes : 0;
    return buf[which].p;
}
