// ScaLAPACK interop: pdgemr2d's arguments (9-integer descriptors, BLACS contexts) turned into
// the grids of nt_mpi_redist(). Ranks outside a grid do not know its shape or members, so every
// process of ictxt contributes what it knows about both grids (one all-gather).
#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nt_blacs.h"
#include "nt_mpi_int.h"

enum { DTYPE_ = 0, CTXT_ = 1, M_ = 2, N_ = 3, MB_ = 4, NB_ = 5, RSRC_ = 6, CSRC_ = 7, LLD_ = 8 };
enum { REC = 12 }; // per grid: member, nprow, npcol, myrow, mycol, dtype, m, n, mb, nb, rsrc, csrc

// Communicators of ictxt's process sets, kept for the program's life: creating one per call
// would cost a collective each time. Keyed by the member list (a context number can be reused
// by BLACS for another set of processes).
enum { CACHE = 16 };
typedef struct cached {
    int n, *members;
    MPI_Comm comm;
} cached;
static cached cache[CACHE];
static int ncache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static nt_status ictxt_comm(int ictxt, MPI_Comm *out)
{
    int np, nq, myr, myc;
    Cblacs_gridinfo(ictxt, &np, &nq, &myr, &myc);
    if (myr < 0 || myc < 0 || np < 1 || nq < 1)
        return nt_mpi_fail(NT_EINVAL, "ictxt %d: the calling process is not in this BLACS "
                           "context", ictxt);
    int n = np * nq;
    int *w = malloc((size_t)n * sizeof *w);
    if (!w)
        return nt_mpi_fail(NT_ENOMEM, "out of memory");
    for (int r = 0; r < np; r++)
        for (int c = 0; c < nq; c++)
            w[r * nq + c] = Cblacs_pnum(ictxt, r, c);
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < ncache; i++)
        if (cache[i].n == n && !memcmp(cache[i].members, w, (size_t)n * sizeof *w)) {
            *out = cache[i].comm;
            pthread_mutex_unlock(&cache_lock);
            free(w);
            return NT_OK;
        }
    // Collective over ictxt's processes only (not all of MPI_COMM_WORLD).
    MPI_Group world, grp;
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_incl(world, n, w, &grp);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Comm_create_group(MPI_COMM_WORLD, grp, 0x4e55, &comm);
            MPI_Group_free(&grp);
        }
        MPI_Group_free(&world);
    }
    if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) {
        pthread_mutex_unlock(&cache_lock);
        free(w);
        return nt_mpi_fail(NT_ESYS, "ictxt %d: cannot make its communicator", ictxt);
    }
    if (ncache < CACHE) {
        cache[ncache++] = (cached){n, w, comm};
        w = NULL;
    } else {
        // Full: the oldest entry gives way (its communicator stays valid for MPI_Finalize).
        free(cache[0].members);
        memmove(cache, cache + 1, (CACHE - 1) * sizeof cache[0]);
        cache[CACHE - 1] = (cached){n, w, comm};
        w = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    *out = comm;
    return NT_OK;
}

// What this process knows of one grid.
static void describe(const int *desc, int *rec)
{
    memset(rec, 0, REC * sizeof *rec);
    if (!desc || desc[CTXT_] == -1)
        return;
    int np, nq, myr, myc;
    Cblacs_gridinfo(desc[CTXT_], &np, &nq, &myr, &myc);
    if (myr < 0 || myc < 0)
        return;
    int v[REC] = {1,        np,       nq,        myr,       myc,        desc[DTYPE_],
                  desc[M_], desc[N_], desc[MB_], desc[NB_], desc[RSRC_], desc[CSRC_]};
    memcpy(rec, v, sizeof v);
}

// The grid from every member's record (same on every process: the records are the same).
static nt_status build_grid(const char *name, const int *all, int size, int which, int *ranks,
                            nt_mpi_grid_t *g, bool *any)
{
    const int *first = NULL;
    *any = false;
    for (int r = 0; r < size; r++) {
        const int *rec = all + (size_t)r * 2 * REC + (size_t)which * REC;
        if (!rec[0])
            continue;
        if (!first) {
            first = rec;
            if (rec[5] != 1)
                return nt_mpi_fail(NT_EINVAL, "desc%s: DTYPE = %d (only 1, dense, is supported)",
                                   name, rec[5]);
            if ((int64_t)rec[1] * rec[2] > size)
                return nt_mpi_fail(NT_EINVAL, "desc%s: grid %d x %d larger than ictxt", name,
                                   rec[1], rec[2]);
            *g = (nt_mpi_grid_t){rec[6], rec[7], rec[8], rec[9], rec[10], rec[11],
                                 rec[1], rec[2], ranks};
            for (int c = 0; c < rec[1] * rec[2]; c++)
                ranks[c] = -1;
        } else if (memcmp(rec + 1, first + 1, 2 * sizeof *rec) ||
                   memcmp(rec + 5, first + 5, 7 * sizeof *rec)) {
            return nt_mpi_fail(NT_EINVAL, "desc%s: processes of its grid pass different "
                               "descriptors or grid shapes", name);
        }
        int cell = rec[3] * rec[2] + rec[4];
        if (rec[3] >= rec[1] || rec[4] >= rec[2] || ranks[cell] != -1)
            return nt_mpi_fail(NT_EINVAL, "desc%s: inconsistent BLACS grid coordinates", name);
        ranks[cell] = r;
    }
    if (!first)
        return NT_OK;
    for (int c = 0; c < g->nprow * g->npcol; c++)
        if (ranks[c] < 0)
            return nt_mpi_fail(NT_EINVAL, "desc%s: grid cell %d has no process of ictxt", name,
                               c);
    *any = true;
    return NT_OK;
}

nt_status nt_pgemr2d(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                     const int *desca, void *b, int ib, int jb, const int *descb, int ictxt,
                     nt_mpi_stats_t *stats)
{
    if (!desca || !descb)
        return nt_mpi_fail(NT_EINVAL, "desc%s: NULL descriptor", desca ? "B" : "A");
    MPI_Comm comm = MPI_COMM_NULL;
    nt_status s = ictxt_comm(ictxt, &comm);
    if (s)
        return s;
    int size;
    MPI_Comm_size(comm, &size);
    int mine[2 * REC];
    describe(desca, mine);
    describe(descb, mine + REC);
    int *all = malloc((size_t)size * 2 * REC * sizeof *all);
    int *ranks = malloc((size_t)size * 2 * sizeof *ranks);
    // Every process must know whether the others can take part in the all-gather.
    int ok = all && ranks;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) {
        free(all);
        free(ranks);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for %d descriptors (on some process)",
                           size);
    }
    if (MPI_Allgather(mine, 2 * REC, MPI_INT, all, 2 * REC, MPI_INT, comm) != MPI_SUCCESS) {
        free(all);
        free(ranks);
        return nt_mpi_fail(NT_ESYS, "MPI_Allgather of the descriptors failed");
    }
    nt_mpi_grid_t ga = {0}, gb = {0};
    bool anya, anyb;
    s = build_grid("A", all, size, 0, ranks, &ga, &anya);
    if (!s)
        s = build_grid("B", all, size, 1, ranks + size, &gb, &anyb);
    free(all);
    if (!s && m > 0 && n > 0 && (!anya || !anyb))
        s = nt_mpi_fail(NT_EINVAL, "desc%s: no process of ictxt belongs to its grid",
                        anya ? "B" : "A");
    if (s || m <= 0 || n <= 0 || !anya || !anyb) {
        // The records are the same everywhere, so every process returns the same here.
        free(ranks);
        if (!s && (m < 0 || n < 0))
            s = nt_mpi_fail(NT_EINVAL, "m = %d, n = %d must be >= 0", m, n);
        if (stats)
            *stats = (nt_mpi_stats_t){0};
        return s;
    }
    bool ina = desca[CTXT_] != -1 && mine[0], inb = descb[CTXT_] != -1 && mine[REC];
    s = nt_mpi_redist(comm, m, n, elem_size, ina ? a : NULL, ina ? desca[LLD_] : 1,
                      (int64_t)ia - 1, (int64_t)ja - 1, &ga, inb ? b : NULL,
                      inb ? descb[LLD_] : 1, (int64_t)ib - 1, (int64_t)jb - 1, &gb, NULL, stats);
    free(ranks);
    return s;
}

nt_status nt_pdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca,
                      double *b, int ib, int jb, const int *descb, int ictxt)
{
    return nt_pgemr2d(sizeof(double), m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, NULL);
}

nt_status nt_mpi_grid_from_desc(const int *desc, int ictxt, nt_mpi_grid_t *grid, int *ranks,
                                int ranks_cap)
{
    if (!desc || !grid || (!ranks && ranks_cap > 0))
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_grid_from_desc: NULL argument");
    MPI_Comm comm = MPI_COMM_NULL;
    nt_status s = ictxt_comm(ictxt, &comm);
    if (s)
        return s;
    int size, np, nq, myr, myc;
    MPI_Comm_size(comm, &size);
    Cblacs_gridinfo(ictxt, &np, &nq, &myr, &myc);
    int mine[2 * REC] = {0};
    describe(desc, mine);
    int *all = malloc((size_t)size * 2 * REC * sizeof *all);
    int *cells = malloc((size_t)size * sizeof *cells);
    int ok = all && cells;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (ok && MPI_Allgather(mine, 2 * REC, MPI_INT, all, 2 * REC, MPI_INT, comm) != MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allgather of the descriptors failed");
    else if (!ok)
        s = nt_mpi_fail(NT_ENOMEM, "out of memory for %d descriptors (on some process)", size);
    nt_mpi_grid_t g = {0};
    bool any = false;
    if (!s)
        s = build_grid("", all, size, 0, cells, &g, &any);
    if (!s && !any)
        s = nt_mpi_fail(NT_EINVAL, "desc: no process of ictxt belongs to its grid");
    if (!s && g.nprow * g.npcol > ranks_cap)
        s = nt_mpi_fail(NT_ERANGE, "ranks_cap = %d, the grid has %d x %d processes", ranks_cap,
                        g.nprow, g.npcol);
    if (!s) {
        // Process k of the ictxt communicator is ictxt's cell k (row-major): its BLACS number.
        for (int c = 0; c < g.nprow * g.npcol; c++)
            ranks[c] = Cblacs_pnum(ictxt, cells[c] / nq, cells[c] % nq);
        g.ranks = ranks;
        *grid = g;
    }
    free(all);
    free(cells);
    return s;
}

nt_status nt_mpi_desc_from_grid(const nt_mpi_grid_t *grid, int ctxt, int64_t lld, int *desc)
{
    if (!grid || !desc)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_desc_from_grid: NULL argument");
    int64_t v[5] = {grid->m, grid->n, grid->mb, grid->nb, lld};
    for (int i = 0; i < 5; i++)
        if (v[i] < (i < 2 ? 0 : 1) || v[i] > INT32_MAX)
            return nt_mpi_fail(NT_ERANGE, "nt_mpi_desc_from_grid: %s = %lld does not fit a "
                               "descriptor", (const char *[]){"m", "n", "mb", "nb", "lld"}[i],
                               (long long)v[i]);
    int d[9] = {1,          ctxt,       (int)grid->m, (int)grid->n, (int)grid->mb,
                (int)grid->nb, grid->rsrc, grid->csrc, (int)lld};
    memcpy(desc, d, sizeof d);
    return NT_OK;
}

nt_status nt_mpi_matrix_desc(const nt_matrix_t *A, int nprow, int npcol, int domain, int ctxt,
                             int *desc, void **local)
{
    if (!A || !desc || !local)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_matrix_desc: NULL argument");
    if (A->layout != NT_LAYOUT_SCALAPACK || !A->allocated)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_matrix_desc: A needs the ScaLAPACK layout and "
                           "memory");
    // The grid is the caller's: a matrix of few tiles fits several grids.
    int p = nprow, q = npcol;
    if (p < 1 || q < 1 || (int64_t)p * q > A->ndomains)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_matrix_desc: grid %d x %d does not fit A's %d "
                           "domains", p, q, A->ndomains);
    if (domain < 0 || domain >= p * q)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_matrix_desc: domain %d outside 0..%d", domain,
                           p * q - 1);
    // ScaLAPACK's map: tile (i, j) on grid cell (i mod p, j mod q), cell (r, c) = domain
    // r*q + c, checked tile by tile.
    bool cyclic = true;
    for (int64_t i = 0; cyclic && i < A->mt; i++)
        for (int64_t j = 0; cyclic && j < A->nt; j++)
            cyclic = A->owner[i * A->nt + j] == (int)(i % p) * q + (int)(j % q);
    if (!cyclic)
        return nt_mpi_fail(NT_ENOTSUP, "nt_mpi_matrix_desc: A's map is not bc2d:%dx%d (2D "
                           "block-cyclic, one tile per block)", p, q);
    if (A->m > INT32_MAX || A->n > INT32_MAX || A->lld[domain] > INT32_MAX)
        return nt_mpi_fail(NT_ERANGE, "nt_mpi_matrix_desc: sizes do not fit a descriptor");
    int r = domain / q, c = domain % q;
    bool holds = r < A->mt && c < A->nt;
    // A process without elements still needs LLD >= its local rows (it may have rows and
    // no columns).
    int64_t rows = nt_mpi_numroc(A->m, A->mb, r, 0, p);
    int64_t lld = holds ? A->lld[domain] : rows > 1 ? rows : 1;
    int d[9] = {1, ctxt, (int)A->m, (int)A->n, (int)A->mb, (int)A->nb, 0, 0, (int)lld};
    memcpy(desc, d, sizeof d);
    // The domain's local matrix starts with its first tile (no copy).
    *local = holds ? nt_matrix_tile(A, r, c) : NULL;
    return NT_OK;
}
