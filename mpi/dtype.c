// MPI derived datatypes over the pieces of one message, so that MPI's own copies do the pack
// and the unpack (see nt_mpi_piece_type in nt_mpi_int.h).
#include <limits.h>
#include <stdlib.h>

#include "nt_mpi_int.h"

// One side's runs of a piece list: offsets (s or d) and lengths, pieces adjacent on this side
// merged (the message's order is the list's, so merging keeps its bytes in order).
typedef struct runs {
    int64_t *off, *len;
    int64_t n;
} runs;

static bool make_runs(const nt_mpi_pieces *p, bool src, runs *r)
{
    r->off = malloc((size_t)(p->n ? p->n : 1) * sizeof *r->off);
    r->len = malloc((size_t)(p->n ? p->n : 1) * sizeof *r->len);
    r->n = 0;
    if (!r->off || !r->len)
        return false;
    for (int64_t i = 0; i < p->n; i++) {
        int64_t o = src ? p->v[i].s : p->v[i].d, l = p->v[i].len;
        if (r->n > 0 && r->off[r->n - 1] + r->len[r->n - 1] == o)
            r->len[r->n - 1] += l;
        else {
            r->off[r->n] = o;
            r->len[r->n] = l;
            r->n++;
        }
    }
    return true;
}

static void free_runs(runs *r)
{
    free(r->off);
    free(r->len);
}

// Two runs or more, all equal and equally spaced (a vector describes them).
static bool runs_regular(const runs *r)
{
    bool regular = r->n > 1;
    for (int64_t i = 1; i < r->n && regular; i++)
        regular = r->len[i] == r->len[0] && r->off[i] - r->off[i - 1] == r->off[1] - r->off[0];
    return regular;
}

// Runs of elements of `unit` bytes' extent: one block, a vector when the runs are equal and
// equally spaced, else an indexed list. MPI_SUCCESS or an error code.
static int runs_type(const runs *r, MPI_Aint unit, MPI_Datatype elem, MPI_Datatype *out)
{
    if (r->n > INT_MAX)
        return MPI_ERR_COUNT;
    for (int64_t i = 0; i < r->n; i++)
        if (r->len[i] > INT_MAX)
            return MPI_ERR_COUNT;
    bool regular = runs_regular(r);
    MPI_Datatype t;
    int rc;
    if (r->n == 1 || regular) {
        MPI_Aint stride = r->n > 1 ? (MPI_Aint)(r->off[1] - r->off[0]) * unit : 0;
        rc = MPI_Type_create_hvector((int)r->n, (int)r->len[0], stride, elem, &t);
        if (rc != MPI_SUCCESS)
            return rc;
        int one = 1;
        MPI_Aint disp = (MPI_Aint)r->off[0] * unit;
        rc = MPI_Type_create_hindexed(1, &one, &disp, t, out);
        MPI_Type_free(&t);
        return rc;
    }
    int *bl = malloc((size_t)r->n * sizeof *bl);
    MPI_Aint *disp = malloc((size_t)r->n * sizeof *disp);
    if (!bl || !disp) {
        free(bl);
        free(disp);
        return MPI_ERR_NO_MEM;
    }
    for (int64_t i = 0; i < r->n; i++) {
        bl[i] = (int)r->len[i];
        disp[i] = (MPI_Aint)r->off[i] * unit;
    }
    rc = MPI_Type_create_hindexed((int)r->n, bl, disp, elem, out);
    free(bl);
    free(disp);
    return rc;
}

nt_status nt_mpi_piece_type(const nt_mpi_pieces *rp, const nt_mpi_pieces *cp, bool src,
                            int64_t ld, size_t es, MPI_Datatype *out)
{
    *out = MPI_DATATYPE_NULL;
    runs rr = {0}, cr = {0};
    MPI_Datatype elem = MPI_DATATYPE_NULL, col = MPI_DATATYPE_NULL, colx = MPI_DATATYPE_NULL;
    int rc = MPI_ERR_NO_MEM;
    if (es > INT_MAX)
        rc = MPI_ERR_COUNT;
    else if (make_runs(rp, src, &rr) && make_runs(cp, src, &cr)) {
        rc = MPI_Type_contiguous((int)es, MPI_BYTE, &elem);
        if (rc == MPI_SUCCESS)
            rc = runs_type(&rr, (MPI_Aint)es, elem, &col);
        // One column's rows, spaced by the leading dimension: the runs of columns index it.
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_resized(col, 0, (MPI_Aint)ld * (MPI_Aint)es, &colx);
        if (rc == MPI_SUCCESS)
            rc = runs_type(&cr, (MPI_Aint)ld * (MPI_Aint)es, colx, out);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_commit(out);
    }
    free_runs(&rr);
    free_runs(&cr);
    if (elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&elem);
    if (col != MPI_DATATYPE_NULL)
        MPI_Type_free(&col);
    if (colx != MPI_DATATYPE_NULL)
        MPI_Type_free(&colx);
    if (rc != MPI_SUCCESS) {
        if (*out != MPI_DATATYPE_NULL)
            MPI_Type_free(out);
        *out = MPI_DATATYPE_NULL;
        return nt_mpi_fail(rc == MPI_ERR_NO_MEM ? NT_ENOMEM : NT_ERANGE,
                           "a message's datatype could not be made (%d pieces x %d pieces)",
                           (int)(rp->n < INT_MAX ? rp->n : INT_MAX),
                           (int)(cp->n < INT_MAX ? cp->n : INT_MAX));
    }
    return NT_OK;
}

int64_t nt_mpi_run_bytes(const nt_mpi_pieces *p, bool src, size_t es, bool *regular)
{
    runs r = {0};
    int64_t avg = 0;
    *regular = false;
    if (make_runs(p, src, &r) && r.n > 0) {
        avg = p->sum * (int64_t)es / r.n;
        *regular = r.n == 1 || runs_regular(&r);
    }
    free_runs(&r);
    return avg;
}
