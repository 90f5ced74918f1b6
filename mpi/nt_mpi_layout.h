// Internals of the any-layout exchange (layout.c checks and relabels, layout_exchange.c moves):
// the tiles of one dimension of an nt_mpi_layout_t, and the pieces one rank sends or receives.
#ifndef NUMATILE_MPI_LAYOUT_H
#define NUMATILE_MPI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt_mpi_int.h"

// One dimension of a layout: tile t holds indices lo(t) .. hi(t)-1.
typedef struct nt_lay_dim {
    const int64_t *split; // count + 1 offsets, or NULL: tiles of b
    int64_t b, n, count;
} nt_lay_dim;

static inline int64_t nt_lay_lo(const nt_lay_dim *d, int64_t t)
{
    return d->split ? d->split[t] : t * d->b;
}

static inline int64_t nt_lay_hi(const nt_lay_dim *d, int64_t t)
{
    if (d->split)
        return d->split[t + 1];
    int64_t h = (t + 1) * d->b;
    return h < d->n ? h : d->n;
}

// The rows (rows = true) or columns of a layout.
nt_lay_dim nt_lay_dim_of(const nt_mpi_layout_t *L, bool rows);

// The tile holding index x, 0 <= x < n (binary search in the split: the last tile starting
// at or before x, so empty tiles are skipped).
int64_t nt_lay_tile_of(const nt_lay_dim *d, int64_t x);

// The rank that owns tile t: owner[t], or by the cyclic formula when owner is NULL.
static inline int nt_lay_owner(const nt_mpi_layout_t *L, int64_t t)
{
    if (L->owner)
        return L->owner[t];
    const nt_mpi_grid_t *g = L->cyclic;
    int64_t i = t / L->nt, j = t % L->nt;
    int cell = (int)((i + g->rsrc) % g->nprow) * g->npcol + (int)((j + g->csrc) % g->npcol);
    return g->ranks ? g->ranks[cell] : cell;
}

// Whether a layout gives an index of this rank's tiles (mine[], nmine).
static inline bool nt_lay_indexed(const nt_mpi_layout_t *L)
{
    return L->mine || L->nmine;
}

// Check every transfer on this rank (me of size ranks), and this rank's tiles when tiles is
// set; the message names the transfer, the field and the rank. A layout with an index has only
// its own entries read (the piece walk checks the others it reads). *own (allocated even on
// failure, NULL only when count is bad; nt_lay_agree frees it) gets the own tiles of each
// side: a of transfer k at k, b at count + k.
nt_status nt_lay_check(int count, const nt_mpi_transfer_t *x, int me, int size, bool tiles,
                       int64_t **own);

// The agreement on st over c (collective), then, when some rank gave an index and every rank
// passed nt_lay_check (checked), that the own tiles of each matrix add up to its mt * nt over
// the ranks (that failure first). Frees own.
nt_status nt_lay_agree(MPI_Comm c, nt_status st, bool checked, int count,
                       const nt_mpi_transfer_t *x, int64_t *own, int me);

// NT_EINVAL naming transfer k, its side ("a", "b", "") with what, and rank me.
nt_status nt_lay_bad(int k, const char *side, const char *what, int me);
// NT_EINVAL: the owner r of side's tile t (its owner[] entry or grid cell) is not one of size
// ranks.
nt_status nt_lay_bad_owner(int k, const char *side, const nt_mpi_layout_t *L, int64_t t, int r,
                           int size, int me);
// The field that gives tile t its owner: "->owner[t]" or the cyclic grid's cell.
void nt_lay_owner_field(char *b, size_t n, const nt_mpi_layout_t *L, int64_t t);

// A rectangle of one transfer that moves between two ranks. Sent pieces are generated in the
// order (transfer, source tile, target tile) for each peer; received ones are sorted so.
typedef struct nt_lay_piece {
    int peer;                 // the rank on the other side
    int xfer;                 // transfer index
    int64_t src_tile, dst_tile; // row-major tile indices: the order of the message
    int64_t rows, cols;
    char *at;                 // the source element (sent) or target element (received)
    int64_t ld;               // in elements
    size_t es;
} nt_lay_piece;

typedef struct nt_lay_pieces {
    nt_lay_piece *v;
    int64_t n, cap;
} nt_lay_pieces;

// The pieces this rank sends (send = true: of its source tiles) or receives (of its target
// tiles), appended to out and sorted by peer and message order. Without tiles[] on the side
// read, the pieces' addresses are NULL (byte counts only). The transfers are checked
// (nt_lay_check); owners of the other side outside 0 .. size-1 fail as the walk reads them.
// Its own tiles come from the index when the side gives one, else from a scan of owner[].
nt_status nt_lay_pieces_make(int count, const nt_mpi_transfer_t *x, int me, int size,
                             bool send, nt_lay_pieces *out);
void nt_lay_pieces_free(nt_lay_pieces *p);

#endif
