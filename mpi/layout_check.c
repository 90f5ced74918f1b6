// The checks of the matrices of any tile map (nt_mpi_layout_redist, nt_mpi_layout_relabel):
// splits, owners and this rank's tiles, found by scanning the owner table or, when the layout
// gives an index of this rank's tiles (mine[]), by reading only those entries; the owner
// entries an index leaves unread are checked by the piece walk when it reads them. Then the
// agreement, and for indexes the one collective check a rank cannot make alone: that the
// ranks' own tiles add up to every tile.
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt_mpi_layout.h"

nt_status nt_lay_bad(int k, const char *side, const char *what, int me)
{
    return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_redist: transfer %d: %s%s (rank %d)", k, side,
                       what, me);
}

void nt_lay_owner_field(char *b, size_t n, const nt_mpi_layout_t *L, int64_t t)
{
    if (L->owner) {
        snprintf(b, n, "->owner[%" PRId64 "]", t);
        return;
    }
    const nt_mpi_grid_t *g = L->cyclic;
    int64_t i = t / L->nt, j = t % L->nt;
    int cell = (int)((i + g->rsrc) % g->nprow) * g->npcol + (int)((j + g->csrc) % g->npcol);
    snprintf(b, n, "->cyclic%s%d] (tile %" PRId64 ")", g->ranks ? "->ranks[" : " cell [", cell,
             t);
}

nt_status nt_lay_bad_owner(int k, const char *side, const nt_mpi_layout_t *L, int64_t t, int r,
                           int size, int me)
{
    char f[80], w[200];
    nt_lay_owner_field(f, sizeof f, L, t);
    snprintf(w, sizeof w, "%s = %d is not a rank of comm (%d ranks)", f, r, size);
    return nt_lay_bad(k, side, w, me);
}

// A cyclic owner map: a grid of at least one cell, its first cell inside (its ranks are
// checked as they are read).
static nt_status check_cyclic(int k, const char *side, const nt_mpi_grid_t *g, int me)
{
    if (g->nprow >= 1 && g->npcol >= 1 && g->nprow <= INT32_MAX / g->npcol && g->rsrc >= 0 &&
        g->rsrc < g->nprow && g->csrc >= 0 && g->csrc < g->npcol)
        return NT_OK;
    char w[200];
    snprintf(w, sizeof w, "->cyclic: nprow = %d, npcol = %d, rsrc = %d, csrc = %d (nprow, npcol "
             ">= 1, their product an int; rsrc, csrc inside the grid)", g->nprow, g->npcol,
             g->rsrc, g->csrc);
    return nt_lay_bad(k, side, w, me);
}

// One dimension: a split from 0 to n, non-decreasing, or a tile size matching the count.
static nt_status check_dim(int k, const char *side, const nt_lay_dim *d, bool rows, int me)
{
    char w[160];
    const char *sp = rows ? "row_split" : "col_split", *bs = rows ? "mb" : "nb";
    if (d->n < 0 || d->count < 0) {
        snprintf(w, sizeof w, "->%s = %" PRId64 ", ->%s = %" PRId64 ": must be >= 0",
                 rows ? "m" : "n", d->n, rows ? "mt" : "nt", d->count);
        return nt_lay_bad(k, side, w, me);
    }
    if (!d->split) {
        int64_t want = d->b >= 1 ? d->n / d->b + (d->n % d->b != 0) : -1;
        if (want == d->count)
            return NT_OK;
        snprintf(w, sizeof w, "->%s = %" PRId64 " with no %s: %s tile %s of %" PRId64 " (>= 1) "
                 "for %" PRId64 " of them", bs, d->b, sp, rows ? "mt" : "nt",
                 rows ? "rows" : "columns", d->n, d->count);
        return nt_lay_bad(k, side, w, me);
    }
    bool ok = d->split[0] == 0 && d->split[d->count] == d->n;
    for (int64_t t = 0; ok && t < d->count; t++)
        ok = d->split[t] <= d->split[t + 1];
    if (ok)
        return NT_OK;
    snprintf(w, sizeof w, "->%s: must go from 0 to %" PRId64 " without decreasing", sp, d->n);
    return nt_lay_bad(k, side, w, me);
}

// The q-th own tile (tile t) exists with a leading dimension that holds its rows.
static nt_status check_tile(int k, const char *side, const nt_mpi_layout_t *L, int64_t q,
                            int64_t t, int me)
{
    nt_lay_dim dr = nt_lay_dim_of(L, true);
    int64_t rows = nt_lay_hi(&dr, t / L->nt) - nt_lay_lo(&dr, t / L->nt);
    const nt_mpi_tile_t *x = L->tiles ? &L->tiles[q] : NULL;
    if (x && x->ptr && x->ld >= (rows > 1 ? rows : 1))
        return NT_OK;
    char w[160];
    snprintf(w, sizeof w, "->tiles[%" PRId64 "] (tile %" PRId64 "): %s", q, t,
             !x ? "tiles is NULL" : !x->ptr ? "ptr is NULL" : "ld below the tile's rows");
    return nt_lay_bad(k, side, w, me);
}

// Without an index: every owner is a rank; this rank's tiles are counted (and checked).
static nt_status scan_tiles(int k, const char *side, const nt_mpi_layout_t *L, int me,
                            int size, bool tiles, int64_t *own)
{
    int64_t n = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++) {
        nt_status st;
        int r = nt_lay_owner(L, t);
        if (r < 0 || r >= size)
            return nt_lay_bad_owner(k, side, L, t, r, size, me);
        if (r != me)
            continue;
        if (tiles && (st = check_tile(k, side, L, n, t, me)))
            return st;
        n++;
    }
    *own = n;
    return NT_OK;
}

// With an index: increasing tiles, each owned by this rank, then their tiles[]; nothing else
// is read.
static nt_status index_tiles(int k, const char *side, const nt_mpi_layout_t *L, int me,
                             bool tiles, int64_t *own)
{
    char w[200];
    int64_t all = L->mt * L->nt;
    if (!L->mine || L->nmine < 0 || L->nmine > all) {
        if (!L->mine)
            snprintf(w, sizeof w, "->nmine = %" PRId64 " with mine NULL", L->nmine);
        else
            snprintf(w, sizeof w, "->nmine = %" PRId64 ": must be 0 .. mt * nt = %" PRId64,
                     L->nmine, all);
        return nt_lay_bad(k, side, w, me);
    }
    for (int64_t q = 0; q < L->nmine; q++) {
        int64_t t = L->mine[q];
        if (t < 0 || t >= all || (q > 0 && t <= L->mine[q - 1])) {
            snprintf(w, sizeof w, "->mine[%" PRId64 "] = %" PRId64 ": %s", q, t,
                     t < 0 || t >= all ? "not a tile (0 .. mt * nt - 1)"
                                       : "not above the entry before it (must increase)");
            return nt_lay_bad(k, side, w, me);
        }
        int r = nt_lay_owner(L, t);
        if (r != me) {
            char f[80];
            nt_lay_owner_field(f, sizeof f, L, t);
            snprintf(w, sizeof w, "%s = %d, but ->mine[%" PRId64 "] lists tile %" PRId64
                     " as this rank's", f, r, q, t);
            return nt_lay_bad(k, side, w, me);
        }
    }
    for (int64_t q = 0; tiles && q < L->nmine; q++) {
        nt_status st = check_tile(k, side, L, q, L->mine[q], me);
        if (st)
            return st;
    }
    *own = L->nmine;
    return NT_OK;
}

static nt_status check_layout(int k, const char *side, const nt_mpi_layout_t *L, int me,
                              int size, bool tiles, int64_t *own)
{
    if (!L)
        return nt_lay_bad(k, side, " is NULL", me);
    nt_lay_dim d[2] = {nt_lay_dim_of(L, true), nt_lay_dim_of(L, false)};
    nt_status st;
    if ((st = check_dim(k, side, &d[0], true, me)) || (st = check_dim(k, side, &d[1], false, me)))
        return st;
    if (L->mt > 0 && L->nt > INT64_MAX / L->mt)
        return nt_mpi_fail(NT_ERANGE, "nt_mpi_layout_redist: transfer %d: %s->mt * nt overflows",
                           k, side);
    if (L->mt * L->nt > 0 && !L->owner && !L->cyclic)
        return nt_lay_bad(k, side, "->owner and ->cyclic are NULL", me);
    if (!L->owner && L->cyclic && (st = check_cyclic(k, side, L->cyclic, me)))
        return st;
    return nt_lay_indexed(L) ? index_tiles(k, side, L, me, tiles, own)
                             : scan_tiles(k, side, L, me, size, tiles, own);
}

nt_status nt_lay_check(int count, const nt_mpi_transfer_t *x, int me, int size, bool tiles,
                       int64_t **own)
{
    *own = NULL;
    if (count < 0 || (count > 0 && !x))
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_redist: count = %d%s (rank %d)", count,
                           count < 0 ? " must be >= 0" : " with xfer NULL", me);
    int64_t *n = calloc(4 * (size_t)count + 1, sizeof *n); // own tiles, then their sums
    if (!n)
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_redist: out of memory (rank %d)", me);
    *own = n;
    for (int k = 0; k < count; k++) {
        const nt_mpi_transfer_t *t = &x[k];
        nt_status st;
        if ((st = check_layout(k, "a", t->a, me, size, tiles, &n[k])) ||
            (st = check_layout(k, "b", t->b, me, size, tiles, &n[count + k])))
            return st;
        if (t->elem_size < 1)
            return nt_lay_bad(k, "", "elem_size = 0", me);
        if (t->rows < 0 || t->cols < 0 || t->ia < 0 || t->ja < 0 || t->ib < 0 || t->jb < 0 ||
            t->ia > t->a->m - t->rows || t->ja > t->a->n - t->cols ||
            t->ib > t->b->m - t->rows || t->jb > t->b->n - t->cols) {
            char w[200];
            snprintf(w, sizeof w, "submatrix %" PRId64 "x%" PRId64 " at (%" PRId64 ",%" PRId64
                     ") -> (%" PRId64 ",%" PRId64 ") is negative or outside a or b", t->rows,
                     t->cols, t->ia, t->ja, t->ib, t->jb);
            return nt_lay_bad(k, "", w, me);
        }
    }
    return NT_OK;
}

// Own tiles that do not add up to mt * nt over the ranks: an index that misses some (its other
// errors are local), or owner tables that differ between the ranks. The sums are the same on
// every rank; only then does each rank count its tiles in owner[] to name the one whose
// index misses some (the agreement carries its message to all).
static nt_status sums(MPI_Comm c, int count, const nt_mpi_transfer_t *x, int64_t *own,
                      int me)
{
    int64_t *all = own + 2 * (size_t)count, q = 0;
    for (int h = 0; h < 2; h++) // one side at a time: count entries fit an int
        if (MPI_Allreduce(own + (size_t)h * (size_t)count, all + (size_t)h * (size_t)count,
                          count, MPI_INT64_T, MPI_SUM, c) != MPI_SUCCESS)
            return nt_mpi_fail(NT_ESYS, "nt_mpi_layout_redist: MPI_Allreduce of the tile "
                               "counts failed");
    const nt_mpi_layout_t *L = NULL;
    for (; q < 2 * (int64_t)count && !L; q++) {
        const nt_mpi_layout_t *S = q < count ? x[q].a : x[q - count].b;
        L = all[q] != S->mt * S->nt ? S : NULL;
    }
    if (!L)
        return NT_OK;
    q--;
    int k = (int)(q % count);
    const char *side = q < count ? "a" : "b";
    int64_t n = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++)
        n += nt_lay_owner(L, t) == me;
    char w[240];
    snprintf(w, sizeof w, "->nmine = %" PRId64 ", but its owners give this rank %" PRId64
             " tiles", own[q], n);
    nt_status st = nt_mpi_agree(c, n == own[q] ? NT_OK : nt_lay_bad(k, side, w, me), me, NULL);
    if (st)
        return st;
    snprintf(w, sizeof w, "->owner: the ranks own %" PRId64 " of its mt * nt = %" PRId64
             " tiles (the owner tables differ between the ranks)", all[q], L->mt * L->nt);
    return nt_lay_bad(k, side, w, me);
}

nt_status nt_lay_agree(MPI_Comm c, nt_status st, bool checked, int count,
                       const nt_mpi_transfer_t *x, int64_t *own, int me)
{
    // 2: a rank failed its checks (its counts mean nothing); else 1: some rank gave an index.
    int flag = checked ? 0 : 2;
    for (int k = 0; checked && k < count; k++)
        flag |= nt_lay_indexed(x[k].a) || nt_lay_indexed(x[k].b);
    nt_status agreed = nt_mpi_agree(c, st, me, &flag);
    // An index that misses tiles can make a later failure (this rank sending itself other bytes
    // than it receives): the counts name its cause, so they come first.
    st = flag == 1 ? sums(c, count, x, own, me) : NT_OK;
    free(own);
    return st ? st : agreed;
}
