// Plan internals: plan.c shares with the executors (nt_strategy.h) what they read
// of a plan, and with plan_periodic.c the cutting of a dimension into pieces.
#ifndef NUMATILE_PLAN_INTERNAL_H
#define NUMATILE_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/matrix.h"
#include "numatile/plan.h"

// One piece of one dimension: [x, x+len) of the submatrix, inside source tile st at offset so
// and target tile tt at offset to.
typedef struct nt_piece {
    int64_t x, len;
    int64_t st, tt;
    int32_t so, to;
    uint8_t whole; // the piece spans the whole source tile and the whole target tile
} nt_piece_t;

// A dimension cut at every source-tile and target-tile boundary; band[b] = first piece of the
// b-th target tile touched, band[nband] = np.
typedef struct nt_dim {
    nt_piece_t *p;
    int64_t np;
    int64_t *band;
    int64_t nband;
} nt_dim_t;

// Cut [0, n) at source boundaries (tile size bs, extent ms, offset os) and target boundaries
// (bt, mtot, ot). Free with nt_dim_free() (also after a failure).
nt_status nt_dim_build(int64_t n, int64_t os, int64_t bs, int64_t ms, int64_t ot, int64_t bt,
                       int64_t mtot, nt_dim_t *d);
void nt_dim_free(nt_dim_t *d);

// Compass index of piece k of a band of `cnt` pieces: 0 first, 1 inner (or only), 2 last.
static inline int nt_pos3(int64_t k, int64_t cnt)
{
    if (cnt == 1)
        return 1;
    return k == 0 ? 0 : k == cnt - 1 ? 2 : 1;
}

// Cao's per-dimension class of a tile cut in c pieces: 0, 1, or 2 for three and more.
static inline int nt_min3(int64_t c)
{
    return c >= 3 ? 2 : (int)c - 1;
}

// What a plan keeps of its two matrices: enough to cut its dimensions again and to find the
// domains of a periodic plan without them.
typedef struct nt_plan_geo {
    int64_t sm, sn, smb, snb, snt; // source rows, columns, tile sizes, tile columns
    int64_t tm, tn, tmb, tnb, tnt; // target
    size_t es;                     // element size
    nt_bcgrid_t gs, gt;            // the grids (target: before relabelling)
    nt_sub_t sub;                  // the submatrix (whole matrices resolved)
    bool trans;                    // op T or C: target rows are cut against source columns
} nt_plan_geo_t;

// Rows and columns of a dimension: cut them for this geometry.
nt_status nt_plan_geo_dims(const nt_plan_geo_t *g, nt_dim_t *dr, nt_dim_t *dc);

// Source row (column) grid coordinate of a row (column) piece, and the target's.
static inline int nt_piece_src_row(const nt_plan_geo_t *g, const nt_piece_t *p)
{
    return (int)((p->st / g->gs.smb) % g->gs.p);
}
static inline int nt_piece_src_col(const nt_plan_geo_t *g, const nt_piece_t *p)
{
    return (int)((p->st / g->gs.snb) % g->gs.q);
}
static inline int nt_piece_dst_row(const nt_plan_geo_t *g, const nt_piece_t *p)
{
    return (int)((p->tt / g->gt.smb) % g->gt.p);
}
static inline int nt_piece_dst_col(const nt_plan_geo_t *g, const nt_piece_t *p)
{
    return (int)((p->tt / g->gt.snb) % g->gt.q);
}

// Periodic plans (plan_periodic.c). Cao categories, compass parts and the fast-path flag from
// the two dimensions alone (a tile's category and a segment's part are separable).
void nt_periodic_shape(nt_plan_info_t *I, const nt_dim_t *dr, const nt_dim_t *dc);
// Segments per domain pair (D x D, added), the target tiles that receive remote data, and the
// remote segments each domain sends and receives (added), without listing segments.
nt_status nt_periodic_pairs(const nt_plan_geo_t *g, const nt_dim_t *dr, const nt_dim_t *dc,
                            const int *sigma, int ncomp, int D, int64_t *pair_segs,
                            int64_t *volume_tiles, int64_t *sent, int64_t *recv);

// What the executor reads of a plan.
typedef struct nt_plan_view {
    int ndomains;
    int64_t nseg;
    const nt_segment_t *seg;   // NULL for a periodic plan
    const int *dst_owner;      // relabelled owner of every target tile (mt*nt of the target)
    const int64_t *pair_bytes;
    const int64_t *pair_segs;
    bool fast_path;
    bool periodic;
    const nt_plan_geo_t *geo;
    const int *sigma;          // component -> domain
    int ncomp;
    const nt_plan_op_t *op;    // B = beta*B + alpha*op(A) (nt_plan_create_op()); NULL: a copy
    nt_dtype dtype;            // the element type the op computes in
} nt_plan_view_t;

// The view of a plan; its dst_owner is NULL for a periodic plan until nt_plan_owner_table().
void nt_plan_get_view(const nt_plan_t *plan, nt_plan_view_t *v);

// Build the per-tile target owners of a periodic plan (from sigma and the target grid) if not
// built yet. NT_ENOMEM when the table cannot be allocated.
nt_status nt_plan_owner_table(nt_plan_t *plan);

// Forget the matrices the plan was made for (plan_grids.c: they were descriptors on the
// stack); such a plan matches no matrices, so it is never executed.
void nt_plan_forget_matrices(nt_plan_t *plan);

// plan_op.c: the checks of nt_plan_create_op()'s operation against the two matrices. *copy
// is set when it is the plain copy (the plan is then nt_plan_create()'s).
nt_status nt_plan_op_check(const nt_matrix_t *src, const nt_matrix_t *dst,
                           const nt_plan_op_t *op, bool *copy);

// True when the plan was built for exactly these matrices.
bool nt_plan_matches(const nt_plan_t *plan, const nt_matrix_t *src, const nt_matrix_t *dst);

#endif
