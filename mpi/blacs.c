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
// What one process knows of one grid (zero outside it): the fields ScaLAPACK's p?gemr2d reads
// and nothing else (never DTYPE: pdgemr2d does not read it). GLOBAL..GLOBAL_END must agree
// between the grid's members; LLD and PNUM are each member's own.
enum {
    R_MEMBER, R_MYROW, R_MYCOL, R_NPROW, R_NPCOL, R_M, R_N, R_MB, R_NB, R_RSRC, R_CSRC, R_I, R_J,
    R_LLD, R_PNUM, REC
};
enum { GLOBAL = R_NPROW, GLOBAL_END = R_J + 1 };

// Communicators of ictxt's process sets, kept for the program's life: creating one per call
// would cost a collective each time. Keyed by the member list (a context number can be reused
// by BLACS for another set of processes). Never evicted: a member that dropped an entry while
// the others kept it would call MPI_Comm_create_group alone at the next call on that set (the
// processes of different sets see different sequences of calls). Past CACHE_MAX entries (or
// the environment variable NT_MPI_CACHE_MAX's, for tests), the members agree not to keep the
// new one: it is made and freed per call. Each kept communicator holds one of the engine's 64
// live contexts (mpi/cache.c), so at most half of them.
enum { CACHE_MAX = 32 };
typedef struct cached {
    int n, *members;
    MPI_Comm comm;
} cached;
static cached *cache;
static int ncache, cache_cap;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

// ictxt's processes as MPI_COMM_WORLD ranks, in its cells' row-major order; *w the caller's
// to free. Collective over ictxt (a BLACS sum): BLACS's own process numbers (Cblacs_pnum) are
// positions in the context's grid, world ranks only for a grid over all processes in order
// (Cblacs_gridinit), not for one made by Cblacs_gridmap.
static nt_status members(int ictxt, int **w, int *n)
{
    int np, nq, myr, myc, me;
    Cblacs_gridinfo(ictxt, &np, &nq, &myr, &myc);
    if (myr < 0 || myc < 0 || myr >= np || myc >= nq || np < 1 || nq < 1)
        return nt_mpi_fail(NT_EINVAL, "ictxt %d: the calling process is not in this BLACS "
                           "context", ictxt);
    *n = np * nq;
    *w = malloc((size_t)*n * sizeof **w);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    // In chunks of a stack buffer, so that every member makes the same calls whether its
    // allocation succeeded or not.
    enum { CHUNK_CELLS = 64 };
    int mine = myr * nq + myc;
    for (int base = 0; base < *n; base += CHUNK_CELLS) {
        int k = *n - base < CHUNK_CELLS ? *n - base : CHUNK_CELLS, v[CHUNK_CELLS] = {0};
        if (mine >= base && mine < base + k)
            v[mine - base] = me + 1;
        Cigsum2d(ictxt, "All", " ", k, 1, v, k, -1, -1);
        for (int i = 0; *w && i < k; i++)
            (*w)[base + i] = v[i] - 1;
    }
    return *w ? NT_OK : nt_mpi_fail(NT_ENOMEM, "out of memory");
}

// Room for one more entry (the table grows up to CACHE_MAX).
static bool cache_room(void)
{
    const char *e = getenv("NT_MPI_CACHE_MAX");
    int max = e && *e ? atoi(e) : CACHE_MAX;
    if (ncache >= (max < CACHE_MAX ? max : CACHE_MAX))
        return false;
    if (ncache < cache_cap)
        return true;
    int cap = cache_cap ? 2 * cache_cap : 16;
    cached *t = realloc(cache, (size_t)cap * sizeof *t);
    if (!t)
        return false;
    cache = t;
    cache_cap = cap;
    return true;
}

// The communicator of ictxt's processes (collective over them the first time). *temporary:
// not kept, to free with release_comm() after the call.
static nt_status ictxt_comm(int ictxt, MPI_Comm *out, bool *temporary)
{
    int n = 0, *w = NULL;
    *temporary = false;
    nt_status s = members(ictxt, &w, &n);
    if (s)
        return s;
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
    int keep = rc == MPI_SUCCESS && comm != MPI_COMM_NULL && cache_room();
    // Kept by every member or by none (see CACHE_MAX).
    if (comm != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, &keep, 1, MPI_INT, MPI_MIN, comm);
    if (keep) {
        cache[ncache++] = (cached){n, w, comm};
        w = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    free(w);
    if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL)
        return nt_mpi_fail(NT_ESYS, "ictxt %d: cannot make its communicator", ictxt);
    *temporary = !keep;
    *out = comm;
    return NT_OK;
}

// The end of a call on a communicator that was not kept (collective over its processes).
static void release_comm(MPI_Comm *comm, bool temporary)
{
    if (temporary && *comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

// What this process knows of one grid, with the corner (i, j) it passes for it.
static void describe(const int *desc, int i, int j, int *rec)
{
    memset(rec, 0, REC * sizeof *rec);
    if (!desc || desc[CTXT_] == -1)
        return;
    int np, nq, myr, myc, me, nprocs;
    Cblacs_gridinfo(desc[CTXT_], &np, &nq, &myr, &myc);
    // Outside the grid, or coordinates past its shape (ScaLAPACK's T3D rule): not a member.
    if (myr < 0 || myc < 0 || myr >= np || myc >= nq)
        return;
    Cblacs_pinfo(&me, &nprocs);
    int v[REC] = {1,          myr,       myc,         np,          nq,       desc[M_],
                  desc[N_],   desc[MB_], desc[NB_],   desc[RSRC_], desc[CSRC_], i,
                  j,          desc[LLD_], me};
    memcpy(rec, v, sizeof v);
}

// The checks pdgemr2d makes (paramcheck in ScaLAPACK's REDIST/SRC/pgemraux.c), on the fields of
// one member's record, plus the block sizes ScaLAPACK divides by. m x n is the submatrix (m, n
// >= 0). Every process checks every record, so all reach the same verdict and message.
static nt_status check_rec(const char *name, const int *rec, int m, int n, int proc)
{
    const char *ij = *name == 'A' ? "ia, ja" : "ib, jb";
    if (rec[R_M] < 0 || rec[R_N] < 0)
        return nt_mpi_fail(NT_EINVAL, "desc%s: M = %d, N = %d must be >= 0 (process %d of "
                           "ictxt, BLACS process %d)", name, rec[R_M], rec[R_N], proc,
                           rec[R_PNUM]);
    if (rec[R_MB] < 1 || rec[R_NB] < 1)
        return nt_mpi_fail(NT_EINVAL, "desc%s: MB = %d, NB = %d must be >= 1 (process %d of "
                           "ictxt, BLACS process %d)", name, rec[R_MB], rec[R_NB], proc,
                           rec[R_PNUM]);
    if (rec[R_RSRC] < 0 || rec[R_RSRC] >= rec[R_NPROW] || rec[R_CSRC] < 0 ||
        rec[R_CSRC] >= rec[R_NPCOL])
        return nt_mpi_fail(NT_EINVAL, "desc%s: RSRC = %d, CSRC = %d outside its %d x %d grid "
                           "(process %d of ictxt, BLACS process %d)", name, rec[R_RSRC],
                           rec[R_CSRC], rec[R_NPROW], rec[R_NPCOL], proc, rec[R_PNUM]);
    if (rec[R_I] < 1 || rec[R_J] < 1 || (int64_t)rec[R_I] - 1 + m > rec[R_M] ||
        (int64_t)rec[R_J] - 1 + n > rec[R_N])
        return nt_mpi_fail(NT_EINVAL, "%s = %d, %d: the %d x %d submatrix leaves desc%s's "
                           "%d x %d (process %d of ictxt, BLACS process %d)", ij, rec[R_I],
                           rec[R_J], m, n, name, rec[R_M], rec[R_N], proc, rec[R_PNUM]);
    // ScaLAPACK's rule: LLD >= the local rows (so 0 on a process holding no row).
    int64_t rows = nt_mpi_numroc(rec[R_M], rec[R_MB], rec[R_MYROW], rec[R_RSRC], rec[R_NPROW]);
    if (rec[R_LLD] < rows)
        return nt_mpi_fail(NT_EINVAL, "desc%s: LLD = %d < %lld local rows on process %d of "
                           "ictxt (BLACS process %d, grid cell %d,%d)", name, rec[R_LLD],
                           (long long)rows, proc, rec[R_PNUM], rec[R_MYROW], rec[R_MYCOL]);
    return NT_OK;
}

// The grid from every member's record (same on every process: the records are the same).
// corner: the (i, j) its members pass, 0-based.
static nt_status build_grid(const char *name, const int *all, int size, int which, int m, int n,
                            int *ranks, nt_mpi_grid_t *g, int64_t corner[2], bool *any)
{
    const int *first = NULL;
    *any = false;
    for (int r = 0; r < size; r++) {
        const int *rec = all + (size_t)r * 2 * REC + (size_t)which * REC;
        if (!rec[R_MEMBER])
            continue;
        nt_status s = check_rec(name, rec, m, n, r);
        if (s)
            return s;
        if (!first) {
            first = rec;
            if ((int64_t)rec[R_NPROW] * rec[R_NPCOL] > size)
                return nt_mpi_fail(NT_EINVAL, "desc%s: grid %d x %d larger than ictxt", name,
                                   rec[R_NPROW], rec[R_NPCOL]);
            *g = (nt_mpi_grid_t){rec[R_M],    rec[R_N],    rec[R_MB],    rec[R_NB],   rec[R_RSRC],
                                 rec[R_CSRC], rec[R_NPROW], rec[R_NPCOL], ranks};
            corner[0] = (int64_t)rec[R_I] - 1;
            corner[1] = (int64_t)rec[R_J] - 1;
            for (int c = 0; c < rec[R_NPROW] * rec[R_NPCOL]; c++)
                ranks[c] = -1;
        } else if (memcmp(rec + GLOBAL, first + GLOBAL, (GLOBAL_END - GLOBAL) * sizeof *rec)) {
            return nt_mpi_fail(NT_EINVAL, "desc%s: processes %d and %d of its grid pass "
                               "different descriptors, corners or grid shapes", name,
                               (int)((first - all) / (2 * REC)), r);
        }
        int cell = rec[R_MYROW] * rec[R_NPCOL] + rec[R_MYCOL];
        if (ranks[cell] != -1)
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

// Every process's records of both grids, on every process of comm (an all-gather); *all is
// the caller's to free. The same status everywhere.
static nt_status gather(MPI_Comm comm, const int mine[2 * REC], int size, int **all)
{
    *all = malloc((size_t)size * 2 * REC * sizeof **all);
    // Every process must know whether the others can take part in the all-gather.
    int ok = *all != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for %d descriptors (on some process)",
                           size);
    if (MPI_Allgather(mine, 2 * REC, MPI_INT, *all, 2 * REC, MPI_INT, comm) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "MPI_Allgather of the descriptors failed");
    return NT_OK;
}

// Both grids and corners from the gathered records; refuses what pdgemr2d refuses. trans: A's
// submatrix is n x m (nt_ptran).
static nt_status grids(const int *all, int size, int m, int n, bool trans, int *ranks,
                       nt_mpi_grid_t g[2], int64_t corner[4])
{
    bool anya, anyb;
    nt_status s = build_grid("A", all, size, 0, trans ? n : m, trans ? m : n, ranks, &g[0],
                             corner, &anya);
    if (!s)
        s = build_grid("B", all, size, 1, m, n, ranks + size, &g[1], corner + 2, &anyb);
    if (!s && (!anya || !anyb))
        s = nt_mpi_fail(NT_EINVAL, "desc%s: no process of ictxt belongs to its grid (a "
                        "process outside it passes CTXT = -1)", anya ? "B" : "A");
    return s;
}

nt_status nt_pgemr2d(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                     const int *desca, void *b, int ib, int jb, const int *descb, int ictxt,
                     nt_mpi_stats_t *stats)
{
    return nt_mpi_pgemr2d_op(elem_size, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, NULL,
                             stats);
}

nt_status nt_mpi_pgemr2d_op(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                            const int *desca, void *b, int ib, int jb, const int *descb,
                            int ictxt, const nt_mpi_op *op, nt_mpi_stats_t *stats)
{
    if (stats)
        *stats = (nt_mpi_stats_t){0};
    if (!desca || !descb)
        return nt_mpi_fail(NT_EINVAL, "desc%s: NULL descriptor", desca ? "B" : "A");
    // As ScaLAPACK's: an empty submatrix returns at once, before any check or communication.
    if (m == 0 || n == 0)
        return NT_OK;
    if (m < 0 || n < 0)
        return nt_mpi_fail(NT_EINVAL, "m = %d, n = %d must be >= 0", m, n);
    MPI_Comm comm = MPI_COMM_NULL;
    bool temporary;
    nt_status s = ictxt_comm(ictxt, &comm, &temporary);
    if (s)
        return s;
    int size;
    MPI_Comm_size(comm, &size);
    int mine[2 * REC];
    describe(desca, ia, ja, mine);
    describe(descb, ib, jb, mine + REC);
    int *all = NULL, *ranks = malloc((size_t)size * 2 * sizeof *ranks);
    s = gather(comm, mine, size, &all);
    if (!s && !ranks)
        s = nt_mpi_fail(NT_ENOMEM, "out of memory for %d ranks", size);
    int me;
    MPI_Comm_rank(comm, &me);
    s = nt_mpi_agree(comm, s, me, NULL);
    nt_mpi_grid_t g[2] = {{0}, {0}};
    int64_t corner[4] = {0};
    if (!s)
        s = grids(all, size, m, n, op && op->trans, ranks, g, corner);
    free(all);
    if (!s) {
        // A process with no local row may pass LLD = 0; the engine wants >= 1 (it reads none).
        bool ina = mine[R_MEMBER], inb = mine[REC + R_MEMBER];
        int lda = ina && desca[LLD_] > 1 ? desca[LLD_] : 1;
        int ldb = inb && descb[LLD_] > 1 ? descb[LLD_] : 1;
        s = nt_mpi_redist_op(comm, m, n, elem_size, ina ? a : NULL, lda, corner[0], corner[1],
                             &g[0], inb ? b : NULL, ldb, corner[2], corner[3], &g[1], NULL, op,
                             stats);
    }
    free(ranks);
    release_comm(&comm, temporary);
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
    bool temporary;
    nt_status s = ictxt_comm(ictxt, &comm, &temporary);
    if (s)
        return s;
    int size;
    MPI_Comm_size(comm, &size);
    int mine[2 * REC] = {0};
    describe(desc, 1, 1, mine);
    int *all = malloc((size_t)size * 2 * REC * sizeof *all);
    int *cells = malloc((size_t)size * sizeof *cells);
    int ok = all && cells;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (ok && MPI_Allgather(mine, 2 * REC, MPI_INT, all, 2 * REC, MPI_INT, comm) != MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allgather of the descriptors failed");
    else if (!ok)
        s = nt_mpi_fail(NT_ENOMEM, "out of memory for %d descriptors (on some process)", size);
    nt_mpi_grid_t g = {0};
    int64_t corner[2];
    bool any = false;
    if (!s)
        s = build_grid("", all, size, 0, 0, 0, cells, &g, corner, &any);
    if (!s && !any)
        s = nt_mpi_fail(NT_EINVAL, "desc: no process of ictxt belongs to its grid");
    if (!s && g.nprow * g.npcol > ranks_cap)
        s = nt_mpi_fail(NT_ERANGE, "ranks_cap = %d, the grid has %d x %d processes", ranks_cap,
                        g.nprow, g.npcol);
    if (!s) {
        // cells[c] is a process of the ictxt communicator: its MPI_COMM_WORLD rank.
        MPI_Group gc, gw;
        MPI_Comm_group(comm, &gc);
        MPI_Comm_group(MPI_COMM_WORLD, &gw);
        MPI_Group_translate_ranks(gc, g.nprow * g.npcol, cells, gw, ranks);
        MPI_Group_free(&gc);
        MPI_Group_free(&gw);
        g.ranks = ranks;
        *grid = g;
    }
    free(all);
    free(cells);
    release_comm(&comm, temporary);
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
