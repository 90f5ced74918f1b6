// What outlives one call. Per caller's communicator (an MPI attribute of it, freed with it):
// the private duplicate, the ranks that share this rank's memory (MPI_Comm_split_type
// SHARED) and a shared-memory window (MPI_Win_allocate_shared) into which ranks of one node
// pack their messages directly, saving the transport's copy. Per process: the pack and
// receive buffers of the point-to-point path, kept so that a repeated redistribution does not
// fault fresh pages in each time (freed by an attribute of MPI_COMM_SELF, whose delete
// callback MPI_Finalize runs first).
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_int.h"

static int comm_key = MPI_KEYVAL_INVALID, self_key = MPI_KEYVAL_INVALID;
static struct {
    char *p;
    size_t size;
} buf[2];

static void free_window(nt_mpi_ctx *c)
{
    if (c->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(c->win);
        MPI_Win_free(&c->win);
    }
    c->win = MPI_WIN_NULL;
    c->base = NULL;
    c->cap = 0;
}

// Live contexts: MPI_Finalize deletes MPI_COMM_SELF's attributes first and the caller's
// communicators' only later (Open MPI: after its one-sided layer is gone), so the windows and
// communicators are released from MPI_COMM_SELF's callback. Every rank made its contexts in
// the same order (collectively), so the collective frees match.
enum { MAX_CTX = 64 };
static nt_mpi_ctx *live[MAX_CTX];
static int nlive;

static void release_mpi(nt_mpi_ctx *c)
{
    free_window(c);
    if (c->node != MPI_COMM_NULL)
        MPI_Comm_free(&c->node);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
}

static void free_ctx(nt_mpi_ctx *c)
{
    for (int i = 0; i < nlive; i++)
        if (live[i] == c) {
            live[i] = live[--nlive];
            break;
        }
    release_mpi(c);
    free(c->node_rank);
    free(c);
}

static int delete_ctx(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    free_ctx(val);
    return MPI_SUCCESS;
}

static int free_buffers(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    for (int i = 0; i < nlive; i++)
        release_mpi(live[i]);
    for (int i = 0; i < 2; i++) {
        free(buf[i].p);
        buf[i].p = NULL;
        buf[i].size = 0;
    }
    return MPI_SUCCESS;
}

static nt_status ensure_self_key(void)
{
    if (self_key != MPI_KEYVAL_INVALID)
        return NT_OK;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_buffers, &self_key, NULL) !=
            MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_COMM_SELF attribute failed");
    return NT_OK;
}

// The node communicator and the rank translation; shm stays off if any step fails or
// NT_MPI_NO_SHM is set (then every message goes through point-to-point, and node_rank still
// says which peers share this node: redist.c sends to them through datatypes).
static void setup_node(nt_mpi_ctx *c)
{
    int size;
    MPI_Comm_size(c->comm, &size);
    c->node_rank = malloc((size_t)size * sizeof *c->node_rank);
    const char *off = getenv("NT_MPI_NO_SHM");
    int want = c->node_rank && !(off && *off && strcmp(off, "0"));
    // Every rank must take the same path: the split is collective.
    MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, c->comm);
    c->node_ranks = 1;
    if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c->node) !=
        MPI_SUCCESS) {
        c->node = MPI_COMM_NULL;
        free(c->node_rank);
        c->node_rank = NULL;
        return;
    }
    // Counted even without shm: the threads of ranks sharing cpus are capped by it.
    MPI_Comm_size(c->node, &c->node_ranks);
    MPI_Group g, gn;
    MPI_Comm_group(c->comm, &g);
    MPI_Comm_group(c->node, &gn);
    int *all = malloc((size_t)size * sizeof *all);
    if (all && c->node_rank) {
        for (int i = 0; i < size; i++)
            all[i] = i;
        MPI_Group_translate_ranks(g, size, all, gn, c->node_rank);
        for (int i = 0; i < size; i++)
            if (c->node_rank[i] == MPI_UNDEFINED)
                c->node_rank[i] = -1;
        c->shm = want;
    } else {
        free(c->node_rank);
        c->node_rank = NULL;
    }
    free(all);
    MPI_Group_free(&g);
    MPI_Group_free(&gn);
    // The window is collective over the node, and redist.c's order of checks follows it.
    int shm = c->shm;
    MPI_Allreduce(MPI_IN_PLACE, &shm, 1, MPI_INT, MPI_MIN, c->comm);
    c->shm = shm;
    if (!c->shm) {
        MPI_Comm_free(&c->node);
        c->node = MPI_COMM_NULL;
    }
}

nt_status nt_mpi_context(MPI_Comm comm, nt_mpi_ctx **out)
{
    if (comm_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_ctx, &comm_key, NULL) !=
            MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_Comm_create_keyval failed");
    void *val;
    int found = 0;
    if (MPI_Comm_get_attr(comm, comm_key, &val, &found) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "comm: MPI_Comm_get_attr failed (not a communicator?)");
    if (found) {
        *out = val;
        return NT_OK;
    }
    // Collective, like the call that needs it; done once per communicator.
    nt_mpi_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nt_mpi_fail(NT_ENOMEM, "out of memory");
    c->comm = c->node = MPI_COMM_NULL;
    c->win = MPI_WIN_NULL;
    if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
        free(c);
        return nt_mpi_fail(NT_ESYS, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    setup_node(c);
    // The same on every rank, as redist.c checks an injected failure before the exchange when
    // messages may be received straight into B.
    const char *dt = getenv("NT_MPI_DATATYPES");
    c->datatypes = !dt || !*dt ? 1 : !strcmp(dt, "0") ? 0 : !strcmp(dt, "all") ? 2 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &c->datatypes, 1, MPI_INT, MPI_MIN, c->comm);
    if (nlive == MAX_CTX || ensure_self_key() != NT_OK ||
        MPI_Comm_set_attr(comm, comm_key, c) != MPI_SUCCESS) {
        free_ctx(c);
        return nt_mpi_fail(NT_ESYS, "cannot keep the context of comm (more than %d "
                           "communicators, or MPI_Comm_set_attr failed)", MAX_CTX);
    }
    live[nlive++] = c;
    *out = c;
    return NT_OK;
}

// The first 64-byte boundary at or after p (the same offset in every rank's mapping: the
// segments are mapped on page boundaries).
static char *line_up(char *p)
{
    return p + (-(uintptr_t)p & 63);
}

nt_status nt_mpi_window_grow(nt_mpi_ctx *c, size_t bytes)
{
    size_t want = bytes > c->cap ? bytes + bytes / 4 : c->cap;
    free_window(c);
    MPI_Info info;
    MPI_Info_create(&info);
    // Each rank's segment on its own pages (placed by first touch, on the receiver).
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    // 64 bytes more, so that the segment used starts on a cache line (line writers stream
    // whole lines of it); Open MPI's segments may start anywhere.
    int rc = MPI_Win_allocate_shared((MPI_Aint)want + 64, 1, info, c->node, &c->base, &c->win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        c->win = MPI_WIN_NULL;
        return nt_mpi_fail(NT_ENOMEM, "MPI_Win_allocate_shared of %zu bytes failed", want);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win);
    c->base = line_up(c->base);
    c->cap = want;
    return NT_OK;
}

char *nt_mpi_window_of(const nt_mpi_ctx *c, int rank)
{
    MPI_Aint size;
    int disp;
    char *p = NULL;
    if (MPI_Win_shared_query(c->win, c->node_rank[rank], &size, &disp, &p) != MPI_SUCCESS)
        return NULL;
    return line_up(p);
}

char *nt_mpi_buffer(int which, size_t bytes)
{
    if (ensure_self_key() != NT_OK)
        return NULL;
    if (bytes == 0)
        bytes = 1;
    if (buf[which].size >= bytes)
        return buf[which].p;
    free(buf[which].p);
    buf[which].p = malloc(bytes);
    buf[which].size = buf[which].p ? bytes : 0;
    return buf[which].p;
}
