// Matrices of any tile map across ranks: the pieces one rank sends or receives, and the
// relabelling over several transfers (their checks: layout_check.c). A piece is the
// intersection of a source tile with a target tile inside the submatrix; each side finds its
// own pieces from its own tiles (its index, or a scan of the owner table) and the other
// matrix's splits (binary search), so no rank builds a table of the other ranks' pieces.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_layout.h"

nt_lay_dim nt_lay_dim_of(const nt_mpi_layout_t *L, bool rows)
{
    return rows ? (nt_lay_dim){L->row_split, L->mb, L->m, L->mt}
                : (nt_lay_dim){L->col_split, L->nb, L->n, L->nt};
}

int64_t nt_lay_tile_of(const nt_lay_dim *d, int64_t x)
{
    if (!d->split)
        return x / d->b;
    int64_t lo = 0, hi = d->count - 1; // the last t with split[t] <= x
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (d->split[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static nt_status add(nt_lay_pieces *p, const nt_lay_piece *x)
{
    if (p->n == p->cap) {
        int64_t cap = p->cap ? 2 * p->cap : 256;
        nt_lay_piece *v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v)
            return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_redist: out of memory for %" PRId64
                               " pieces", cap);
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = *x;
    return NT_OK;
}

// The tiles of the other matrix that a range [lo, hi) of this one's indices meets, after the
// shift from this matrix's submatrix corner to the other's.
typedef struct span {
    int64_t lo, hi; // in this matrix
    int64_t first, last; // tiles of the other
} span;

static bool meet(const nt_lay_dim *mine, int64_t t, int64_t corner, int64_t len,
                 const nt_lay_dim *other, int64_t ocorner, span *s)
{
    s->lo = nt_lay_lo(mine, t) > corner ? nt_lay_lo(mine, t) : corner;
    s->hi = nt_lay_hi(mine, t) < corner + len ? nt_lay_hi(mine, t) : corner + len;
    if (s->lo >= s->hi)
        return false;
    s->first = nt_lay_tile_of(other, s->lo - corner + ocorner);
    s->last = nt_lay_tile_of(other, s->hi - 1 - corner + ocorner);
    return true;
}

// The pieces of one own tile (i, j) of L (the source when send, else the target) against the
// other matrix O: one per tile of O it meets.
typedef struct walk {
    const nt_mpi_transfer_t *x;
    const nt_mpi_layout_t *L, *O;
    nt_lay_dim d[2], o[2];
    int64_t c[2], oc[2]; // submatrix corners in L and in O
    int k, me, size;
    bool send;
} walk;

static nt_status tile_pieces(const walk *w, int64_t i, int64_t j, const nt_mpi_tile_t *tile,
                             nt_lay_pieces *out)
{
    span r, c;
    if (!meet(&w->d[0], i, w->c[0], w->x->rows, &w->o[0], w->oc[0], &r) ||
        !meet(&w->d[1], j, w->c[1], w->x->cols, &w->o[1], w->oc[1], &c))
        return NT_OK;
    int64_t r0 = nt_lay_lo(&w->d[0], i), c0 = nt_lay_lo(&w->d[1], j);
    size_t es = w->x->elem_size;
    for (int64_t oi = r.first; oi <= r.last; oi++) {
        int64_t a = nt_lay_lo(&w->o[0], oi) - w->oc[0] + w->c[0];
        int64_t b = nt_lay_hi(&w->o[0], oi) - w->oc[0] + w->c[0];
        a = a > r.lo ? a : r.lo;
        b = b < r.hi ? b : r.hi;
        for (int64_t oj = c.first; a < b && oj <= c.last; oj++) {
            int64_t e = nt_lay_lo(&w->o[1], oj) - w->oc[1] + w->c[1];
            int64_t f = nt_lay_hi(&w->o[1], oj) - w->oc[1] + w->c[1];
            e = e > c.lo ? e : c.lo;
            f = f < c.hi ? f : c.hi;
            if (e >= f)
                continue;
            int64_t mine = i * w->L->nt + j, theirs = oi * w->O->nt + oj;
            int peer = nt_lay_owner(w->O, theirs);
            if (peer < 0 || peer >= w->size) // unchecked when O gives an index
                return nt_lay_bad_owner(w->k, w->send ? "b" : "a", w->O, theirs, peer,
                                        w->size, w->me);
            nt_lay_piece p = {.peer = peer, .xfer = w->k,
                              .src_tile = w->send ? mine : theirs,
                              .dst_tile = w->send ? theirs : mine, .rows = b - a,
                              .cols = f - e, .ld = tile->ld, .es = es,
                              .at = tile->ptr ? (char *)tile->ptr + ((a - r0) +
                                                   (e - c0) * tile->ld) * (int64_t)es
                                              : NULL};
            nt_status st = add(out, &p);
            if (st)
                return st;
        }
    }
    return NT_OK;
}

static nt_status transfer_pieces(const nt_mpi_transfer_t *x, int k, int me, int size,
                                 bool send, nt_lay_pieces *out)
{
    const nt_mpi_layout_t *L = send ? x->a : x->b, *O = send ? x->b : x->a;
    walk w = {x, L, O, {nt_lay_dim_of(L, true), nt_lay_dim_of(L, false)},
              {nt_lay_dim_of(O, true), nt_lay_dim_of(O, false)},
              {send ? x->ia : x->ib, send ? x->ja : x->jb},
              {send ? x->ib : x->ia, send ? x->jb : x->ja}, k, me, size, send};
    if (x->rows == 0 || x->cols == 0)
        return NT_OK;
    // Without tiles (a relabelling counts bytes only) the pieces have no addresses.
    const nt_mpi_tile_t none = {NULL, 1};
    if (nt_lay_indexed(L)) { // checked: increasing, this rank's, tiles[q] is tile mine[q]
        for (int64_t q = 0; q < L->nmine; q++) {
            int64_t t = L->mine[q];
            nt_status st = tile_pieces(&w, t / L->nt, t % L->nt, L->tiles ? &L->tiles[q] : &none,
                                       out);
            if (st)
                return st;
        }
        return NT_OK;
    }
    int64_t own = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++) {
        if (nt_lay_owner(L, t) != me)
            continue;
        const nt_mpi_tile_t *tile = L->tiles ? &L->tiles[own++] : &none;
        nt_status st = tile_pieces(&w, t / L->nt, t % L->nt, tile, out);
        if (st)
            return st;
    }
    return NT_OK;
}

static int by_message(const void *pa, const void *pb)
{
    const nt_lay_piece *a = pa, *b = pb;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->xfer != b->xfer)
        return a->xfer < b->xfer ? -1 : 1;
    if (a->src_tile != b->src_tile)
        return a->src_tile < b->src_tile ? -1 : 1;
    return a->dst_tile < b->dst_tile ? -1 : a->dst_tile > b->dst_tile;
}

nt_status nt_lay_pieces_make(int count, const nt_mpi_transfer_t *x, int me, int size,
                             bool send, nt_lay_pieces *out)
{
    for (int k = 0; k < count; k++) {
        nt_status st = transfer_pieces(&x[k], k, me, size, send, out);
        if (st)
            return st;
    }
    // Sent pieces are made in message order within each peer; received ones in target order.
    // One sort puts both in (peer, transfer, source tile, target tile) order.
    if (out->n > 1)
        qsort(out->v, (size_t)out->n, sizeof *out->v, by_message);
    return NT_OK;
}

void nt_lay_pieces_free(nt_lay_pieces *p)
{
    free(p->v);
    *p = (nt_lay_pieces){0};
}

nt_status nt_mpi_layout_relabel(MPI_Comm comm, int count, const nt_mpi_transfer_t *xfer,
                                nt_match_objective obj, int *perm, int64_t moved[2])
{
    int me, size;
    if (comm == MPI_COMM_NULL || MPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_relabel: comm is not a communicator");
    int64_t *own = NULL;
    nt_status st = perm ? nt_lay_check(count, xfer, me, size, false, &own)
                        : nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_relabel: perm is NULL");
    bool checked = st == NT_OK;
    if (!st && (obj < NT_MATCH_CANONICAL || obj > NT_MATCH_LEX))
        st = nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_relabel: obj = %d is not canonical, volume, "
                         "steps or lex", (int)obj);
    if (!st && size > NT_MATCH_MAX_P)
        st = nt_mpi_fail(NT_ERANGE, "nt_mpi_layout_relabel: %d ranks, at most %d", size,
                         NT_MATCH_MAX_P);
    int64_t *counts = st ? NULL : calloc((size_t)size * (size_t)size, sizeof *counts);
    if (!st && !counts)
        st = nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_relabel: out of memory");
    nt_lay_pieces p = {0};
    if (!st)
        st = nt_lay_pieces_make(count, xfer, me, size, true, &p);
    for (int64_t k = 0; !st && k < p.n; k++)
        counts[(size_t)me * (size_t)size + (size_t)p.v[k].peer] +=
            p.v[k].rows * p.v[k].cols * (int64_t)p.v[k].es;
    nt_lay_pieces_free(&p);
    if ((st = nt_lay_agree(comm, st, checked, count, xfer, own, me)) == NT_OK &&
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, counts, size, MPI_INT64_T, comm) !=
            MPI_SUCCESS)
        st = nt_mpi_fail(NT_ESYS, "nt_mpi_layout_relabel: MPI_Allgather failed");
    int *sigma = st ? NULL : malloc((size_t)size * sizeof *sigma);
    if (!st && !sigma)
        st = nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_relabel: out of memory");
    nt_match_problem_t mp = {.p_ini = size, .p_tar = size, .p_dom = size, .counts = counts};
    if (!st && (st = nt_match_solve(&mp, obj, sigma, NULL)) != NT_OK)
        st = nt_mpi_fail(st, "nt_mpi_layout_relabel: %s", nt_last_error());
    if (!st) {
        int64_t before = 0, after = 0;
        for (int i = 0; i < size; i++)
            for (int j = 0; j < size; j++) {
                int64_t c = counts[(size_t)i * (size_t)size + (size_t)j];
                before += i != j ? c : 0;
                after += i != sigma[j] ? c : 0;
            }
        memcpy(perm, sigma, (size_t)size * sizeof *perm);
        if (moved) {
            moved[0] = before;
            moved[1] = after;
        }
    }
    free(sigma);
    free(counts);
    return st;
}
