// Redistribution plans (Cao et al. 2022): the segments between a source and a target tiled
// matrix, their domains (optionally relabelled), and the predicted costs.
//
// The segment geometry is separable: along each dimension the submatrix is cut at every
// source-tile and every target-tile boundary into pieces; segments are the products of a row
// piece and a column piece. Building them costs O(segments) and never looks at memory.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/mem.h"
#include "nt_plan.h"

struct nt_plan {
    const nt_matrix_t *src, *dst; // identity only: checked by nt_plan_execute()
    int D;
    int ncomp;            // components of the target map
    nt_segment_t *seg;
    int64_t nseg;
    int64_t *pair_bytes;  // D*D
    int64_t *pair_segs;   // D*D
    int *sigma;           // ncomp
    int *dst_owner;       // dst mt*nt, relabelled
    nt_schedule_t *sched; // lazily built
    nt_plan_geo_t geo;    // to cut the dimensions again (periodic plans, enumeration)
    nt_plan_info_t info;
    bool has_op;          // nt_plan_create_op() with an operation other than the copy
    nt_plan_op_t op;
    nt_dtype dtype;       // the source's type, which the op computes in
};

void nt_dim_free(nt_dim_t *d)
{
    free(d->p);
    free(d->band);
    *d = (nt_dim_t){0};
}

nt_status nt_dim_build(int64_t n, int64_t os, int64_t bs, int64_t ms, int64_t ot, int64_t bt,
                       int64_t mtot, nt_dim_t *d)
{
    *d = (nt_dim_t){0};
    if (n == 0)
        return NT_OK;
    int64_t cap = n / bs + n / bt + 3;
    d->p = malloc((size_t)cap * sizeof *d->p);
    d->band = malloc((size_t)(n / bt + 3) * sizeof *d->band);
    if (!d->p || !d->band)
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    int64_t x = 0, prev_tt = -1;
    while (x < n) {
        int64_t gs = os + x, gt = ot + x;
        int64_t st = gs / bs, tt = gt / bt;
        int64_t es = (st + 1) * bs - os, et = (tt + 1) * bt - ot; // piece ends
        int64_t e = es < et ? es : et;
        if (e > n)
            e = n;
        int64_t srows = (st + 1) * bs > ms ? ms - st * bs : bs;   // source tile extent
        int64_t trows = (tt + 1) * bt > mtot ? mtot - tt * bt : bt;
        int32_t so = (int32_t)(gs - st * bs), to = (int32_t)(gt - tt * bt);
        nt_piece_t pc = {x, e - x, st, tt, so, to,
                    (uint8_t)(so == 0 && to == 0 && e - x == srows && e - x == trows)};
        if (tt != prev_tt) {
            d->band[d->nband++] = d->np;
            prev_tt = tt;
        }
        d->p[d->np++] = pc;
        x = e;
    }
    d->band[d->nband] = d->np;
    return NT_OK;
}

// Bytes from source domain i to target component j, in closed form from the two
// block-cyclic grids (Guo), into counts[i * ncomp + j].
static nt_status closed_form_counts(const nt_matrix_t *src, const nt_matrix_t *dst,
                                    const nt_sub_t *s, int64_t *counts, int ncomp)
{
    const nt_bcgrid_t *gs = &src->grid, *gt = &dst->grid;
    nt_cyclic_t rs = {gs->smb * src->mb, gs->p, s->src_row};
    nt_cyclic_t rt = {gt->smb * dst->mb, gt->p, s->dst_row};
    nt_cyclic_t cs = {gs->snb * src->nb, gs->q, s->src_col};
    nt_cyclic_t ct = {gt->snb * dst->nb, gt->q, s->dst_col};
    int64_t *rc = malloc((size_t)(gs->p * gt->p) * sizeof *rc);
    int64_t *cc = malloc((size_t)(gs->q * gt->q) * sizeof *cc);
    nt_status st = NT_OK;
    if (!rc || !cc)
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    for (int a = 0; a < gs->p && st == NT_OK; a++)
        for (int b = 0; b < gt->p && st == NT_OK; b++) {
            int64_t nr;
            st = nt_cyclic_intersect(s->rows, &rs, a, &rt, b, NULL, 0, &nr, &rc[a * gt->p + b]);
        }
    for (int a = 0; a < gs->q && st == NT_OK; a++)
        for (int b = 0; b < gt->q && st == NT_OK; b++) {
            int64_t nr;
            st = nt_cyclic_intersect(s->cols, &cs, a, &ct, b, NULL, 0, &nr, &cc[a * gt->q + b]);
        }
    if (st == NT_OK) {
        memset(counts, 0, (size_t)src->ndomains * (size_t)ncomp * sizeof *counts);
        for (int a = 0; a < gs->p; a++)
            for (int c = 0; c < gs->q; c++)
                for (int b = 0; b < gt->p; b++)
                    for (int e = 0; e < gt->q; e++) {
                        int i = a * gs->q + c, j = b * gt->q + e;
                        counts[(size_t)i * (size_t)ncomp + (size_t)j] =
                            rc[a * gt->p + b] * cc[c * gt->q + e] * (int64_t)src->elem_size;
                    }
    }
    free(rc);
    free(cc);
    return st;
}

// The source block is rows x cols, or cols x rows transposed (trans).
static nt_status check_sub(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *s,
                           bool trans)
{
    if (s->rows < 0 || s->cols < 0 || s->src_row < 0 || s->src_col < 0 || s->dst_row < 0 ||
        s->dst_col < 0)
        return nt_fail(NT_EINVAL, "nt_plan_create: submatrix %lldx%lld at source (%lld,%lld), "
                       "target (%lld,%lld): negative value", (long long)s->rows,
                       (long long)s->cols, (long long)s->src_row, (long long)s->src_col,
                       (long long)s->dst_row, (long long)s->dst_col);
    int64_t sr = trans ? s->cols : s->rows, sc = trans ? s->rows : s->cols;
    if (s->src_row > src->m - sr || s->src_col > src->n - sc)
        return nt_fail(NT_EINVAL, "nt_plan_create: %ssubmatrix %lldx%lld at (%lld,%lld) out of "
                       "the %lldx%lld source", trans ? "transposed " : "", (long long)sr,
                       (long long)sc,
                       (long long)s->src_row, (long long)s->src_col, (long long)src->m,
                       (long long)src->n);
    if (s->dst_row > dst->m - s->rows || s->dst_col > dst->n - s->cols)
        return nt_fail(NT_EINVAL, "nt_plan_create: submatrix %lldx%lld at (%lld,%lld) out of "
                       "the %lldx%lld target", (long long)s->rows, (long long)s->cols,
                       (long long)s->dst_row, (long long)s->dst_col, (long long)dst->m,
                       (long long)dst->n);
    return NT_OK;
}

void nt_plan_destroy(nt_plan_t *p)
{
    if (!p)
        return;
    free(p->seg);
    free(p->pair_bytes);
    free(p->pair_segs);
    free(p->sigma);
    free(p->dst_owner);
    nt_sched_destroy(p->sched);
    free(p);
}

// Cost distances of the topology as int64 (NULL without a topology).
static int64_t *topo_dist(const nt_topo_t *topo, int D)
{
    if (!topo)
        return NULL;
    const uint32_t *d32 = nt_topo_cost_distances(topo); // bandwidth-weighted where known
    int64_t *d = malloc((size_t)D * (size_t)D * sizeof *d);
    if (d)
        for (size_t x = 0; x < (size_t)D * (size_t)D; x++)
            d[x] = d32[x];
    return d;
}

// Checked arguments of nt_plan_create().
typedef struct plan_args {
    nt_plan_opts_t o;
    bool trans;            // op T or C
    nt_sub_t s;            // the submatrix (the whole matrix when none was given)
    const nt_topo_t *topo; // the source's, else the target's, else NULL
    int D;                 // domain space: the machine's, or the larger label count without one
    int ncomp;             // components of the target map
} plan_args;

// Label of tile t (row-major index): from the table, or from the grid of a matrix without one.
static int tile_label(const nt_matrix_t *A, int64_t t)
{
    if (A->owner)
        return A->owner[t];
    const nt_bcgrid_t *g = &A->grid;
    return (int)(((t / A->nt) / g->smb) % g->p) * g->q + (int)(((t % A->nt) / g->snb) % g->q);
}

// The first tile (row-major) of a matrix on a label >= D, or -1. For a matrix without a table
// (a grid plan, plan_grids.c) from its grid: in tile row i (grid row r), the first column whose
// grid column reaches D - r*q; rows repeat every smb * p.
static int64_t first_beyond(const nt_matrix_t *A, int D)
{
    if (A->owner) {
        for (int64_t t = 0; t < A->mt * A->nt; t++)
            if (A->owner[t] >= D)
                return t;
        return -1;
    }
    const nt_bcgrid_t *g = &A->grid;
    int64_t cols = (A->nt + g->snb - 1) / g->snb, period = g->smb * g->p;
    cols = cols < g->q ? cols : g->q;
    for (int64_t i = 0; i < A->mt && i < period; i++) {
        int64_t need = (int64_t)D - ((i / g->smb) % g->p) * g->q;
        if (need <= 0)
            return i * A->nt;
        if (need < cols)
            return i * A->nt + need * g->snb;
    }
    return -1;
}

// Labels against the domain space: the source's used labels must be domains, and so must the
// target's unless it is relabelled (then it needs no more components than domains).
static nt_status check_labels(const nt_matrix_t *src, const nt_matrix_t *dst, const plan_args *a)
{
    int D = a->D;
    // Used labels must exist on the machine (matrix creation checked the topology's count).
    int64_t t;
    if (a->topo && src->ndomains > D && (t = first_beyond(src, D)) >= 0)
        return nt_fail(NT_EINVAL, "nt_plan_create: source tile %lld on domain %d, the "
                       "machine has %d", (long long)t, tile_label(src, t), D);
    if (a->o.relabel != NT_MATCH_CANONICAL && a->ncomp > D)
        return nt_fail(NT_EINVAL, "nt_plan_create: cannot relabel %d target components onto %d "
                       "domains", a->ncomp, D);
    if (a->o.relabel == NT_MATCH_CANONICAL && a->ncomp > D && (t = first_beyond(dst, D)) >= 0)
        return nt_fail(NT_EINVAL, "nt_plan_create: target tile %lld on domain %d, the "
                       "machine has %d", (long long)t, tile_label(dst, t), D);
    if (a->o.relabel == NT_MATCH_DISTANCE && !a->topo)
        return nt_fail(NT_EINVAL, "nt_plan_create: relabel 'distance' needs a topology");
    return NT_OK;
}

static nt_status check_args(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                            const nt_plan_opts_t *opts, plan_args *a)
{
    a->o = opts ? *opts : (nt_plan_opts_t){0};
    if ((int)a->o.relabel < NT_MATCH_CANONICAL || a->o.relabel > NT_MATCH_DISTANCE)
        return nt_fail(NT_EINVAL, "nt_plan_create: unknown relabel objective %d",
                       (int)a->o.relabel);
    if (src->elem_size != dst->elem_size)
        return nt_fail(NT_EINVAL, "nt_plan_create: element sizes differ (source %zu bytes, "
                       "target %zu)", src->elem_size, dst->elem_size);
    if (src->topo && dst->topo && src->topo != dst->topo)
        return nt_fail(NT_EINVAL, "nt_plan_create: source and target are on different "
                       "topologies");
    if (sub) {
        a->s = *sub;
    } else {
        int64_t sm = a->trans ? src->n : src->m, sn = a->trans ? src->m : src->n;
        if (sm != dst->m || sn != dst->n)
            return nt_fail(NT_EINVAL, "nt_plan_create: sizes differ (%s%lldx%lld vs %lldx%lld) "
                           "and no submatrix given", a->trans ? "transposed " : "",
                           (long long)sm, (long long)sn, (long long)dst->m, (long long)dst->n);
        a->s = (nt_sub_t){dst->m, dst->n, 0, 0, 0, 0};
    }
    nt_status st = check_sub(src, dst, &a->s, a->trans);
    if (st)
        return st;
    a->topo = src->topo ? src->topo : dst->topo;
    a->D = a->topo ? nt_topo_ndomains(a->topo)
                   : (src->ndomains > dst->ndomains ? src->ndomains : dst->ndomains);
    a->ncomp = dst->ndomains;
    return check_labels(src, dst, a);
}

// The geometry the plan keeps, and whether it is periodic: block-cyclic maps and ScaLAPACK
// layouts on both sides, where segments (one per element for CYCLIC(1)) are not stored.
static void plan_set_geo(nt_plan_t *p, const nt_matrix_t *src, const nt_matrix_t *dst,
                         const plan_args *a)
{
    p->geo = (nt_plan_geo_t){src->m, src->n, src->mb, src->nb, src->nt, dst->m, dst->n,
                             dst->mb, dst->nb, dst->nt, src->elem_size, src->grid, dst->grid,
                             a->s, a->trans};
    // The periodic executor only copies: an operation takes stored segments.
    p->info.periodic = !a->o.explicit_segments && !p->has_op &&
                       src->layout == NT_LAYOUT_SCALAPACK &&
                       dst->layout == NT_LAYOUT_SCALAPACK && src->grid.p > 0 &&
                       dst->grid.p > 0;
}

// An empty plan with its per-pair and per-tile arrays (a periodic plan builds its per-tile
// owners on demand: nt_plan_owner_table()).
static nt_status plan_alloc(const nt_matrix_t *src, const nt_matrix_t *dst, const plan_args *a,
                            const nt_plan_op_t *op, nt_plan_t **out)
{
    nt_plan_t *p = calloc(1, sizeof *p);
    if (!p)
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    p->src = src;
    p->dst = dst;
    p->D = a->D;
    p->ncomp = a->ncomp;
    if (op) {
        p->has_op = true;
        p->op = *op;
        p->dtype = src->dtype;
    }
    plan_set_geo(p, src, dst, a);
    // The per-tile table first: a plan of billions of target tiles is refused before it is
    // made. A periodic plan has none (nt_plan_dst_owner() checks its own).
    nt_status room = p->info.periodic ? NT_OK
                                      : nt_mem_room(NULL, NULL, (uint64_t)(dst->mt * dst->nt) *
                                                    sizeof(int), "nt_plan_create");
    if (room != NT_OK) {
        free(p);
        return room;
    }
    size_t DD = (size_t)a->D * (size_t)a->D;
    p->pair_bytes = calloc(DD, sizeof *p->pair_bytes);
    p->pair_segs = calloc(DD, sizeof *p->pair_segs);
    p->sigma = malloc((size_t)a->ncomp * sizeof *p->sigma);
    if (!p->info.periodic)
        p->dst_owner = malloc((size_t)(dst->mt * dst->nt) * sizeof *p->dst_owner);
    if (!p->pair_bytes || !p->pair_segs || !p->sigma || (!p->info.periodic && !p->dst_owner)) {
        nt_plan_destroy(p);
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    }
    *out = p;
    return NT_OK;
}

// Segment of row piece r (in row band br) and column piece c (in column band bc). The source
// domain comes from src_owner, or from the source grid when src_owner is NULL (periodic
// plans); the target domain is left 0 for the caller (count_segments(), or the relabelled
// target grid).
static void make_segment(const nt_plan_geo_t *geo, const int *src_owner, const nt_dim_t *dr,
                         const nt_dim_t *dc, int64_t br, int64_t bc, int64_t r, int64_t c,
                         nt_segment_t *g)
{
    int64_t r0 = dr->band[br], r1 = dr->band[br + 1], c0 = dc->band[bc], c1 = dc->band[bc + 1];
    const nt_piece_t *pr = &dr->p[r], *pc = &dc->p[c];
    // Transposed, a row piece lies in a source tile column and a column piece in a tile row.
    const nt_piece_t *sr = geo->trans ? pc : pr, *sc = geo->trans ? pr : pc;
    *g = (nt_segment_t){.src_tile = sr->st * geo->snt + sc->st,
                        .dst_tile = pr->tt * geo->tnt + pc->tt,
                        .src_row = sr->so, .src_col = sc->so, .dst_row = pr->to,
                        .dst_col = pc->to, .rows = (int32_t)pr->len, .cols = (int32_t)pc->len,
                        .part = (uint8_t)(3 * nt_pos3(r - r0, r1 - r0) + nt_pos3(c - c0, c1 - c0)),
                        .category = (uint8_t)(3 * nt_min3(r1 - r0) + nt_min3(c1 - c0)),
                        .whole = pr->whole && pc->whole && !geo->trans};
    g->src_dom = src_owner ? src_owner[g->src_tile]
                           : nt_piece_src_row(geo, pr) * geo->gs.q + nt_piece_src_col(geo, pc);
}

// The segments, grouped by target tile (row band, column band), row-major inside a tile, with
// their source domain, compass part and category; counts the categories and parts.
static void fill_segments(nt_plan_t *p, const nt_matrix_t *src, const nt_dim_t *dr,
                          const nt_dim_t *dc)
{
    nt_plan_info_t *I = &p->info;
    int64_t k = 0;
    for (int64_t br = 0; br < dr->nband; br++)
        for (int64_t bc = 0; bc < dc->nband; bc++) {
            int64_t k0 = k;
            for (int64_t r = dr->band[br]; r < dr->band[br + 1]; r++)
                for (int64_t c = dc->band[bc]; c < dc->band[bc + 1]; c++) {
                    nt_segment_t *g = &p->seg[k++];
                    make_segment(&p->geo, src->owner, dr, dc, br, bc, r, c, g);
                    g->whole = g->whole && !p->has_op; // an operation copies every tile
                    I->fast_path = I->fast_path && g->whole;
                    I->part_segments[g->part]++;
                }
            I->category_tiles[p->seg[k0].category]++;
        }
}

nt_status nt_plan_geo_dims(const nt_plan_geo_t *g, nt_dim_t *dr, nt_dim_t *dc)
{
    const nt_sub_t *s = &g->sub;
    if (g->trans) {
        nt_status st = nt_dim_build(s->rows, s->src_col, g->snb, g->sn, s->dst_row, g->tmb,
                                    g->tm, dr);
        if (st == NT_OK)
            st = nt_dim_build(s->cols, s->src_row, g->smb, g->sm, s->dst_col, g->tnb, g->tn,
                              dc);
        return st;
    }
    nt_status st = nt_dim_build(s->rows, s->src_row, g->smb, g->sm, s->dst_row, g->tmb, g->tm,
                                dr);
    if (st == NT_OK)
        st = nt_dim_build(s->cols, s->src_col, g->snb, g->sn, s->dst_col, g->tnb, g->tn, dc);
    return st;
}

// Geometry: cut both dimensions into pieces (dr, dc, freed by the caller) and make a segment of
// every (row piece, column piece) pair.
static nt_status plan_geometry(nt_plan_t *p, const nt_matrix_t *src, nt_dim_t *dr,
                               nt_dim_t *dc)
{
    nt_status st = nt_plan_geo_dims(&p->geo, dr, dc);
    if (st)
        return st;
    int64_t nseg;
    if (!nt_mul_i64(dr->np, dc->np, &nseg) || (uint64_t)nseg > SIZE_MAX / sizeof(nt_segment_t))
        return nt_fail(NT_ERANGE, "nt_plan_create: %lld x %lld segments overflow",
                       (long long)dr->np, (long long)dc->np);
    nt_plan_info_t *I = &p->info;
    I->ndomains = p->D;
    I->segments = nseg;
    I->tiles = dr->nband * dc->nband;
    I->elements = p->geo.sub.rows * p->geo.sub.cols;
    I->bytes = I->elements * (int64_t)src->elem_size;
    if (I->periodic) {
        nt_periodic_shape(I, dr, dc);
        return NT_OK;
    }
    nt_status room = nt_mem_room(NULL, NULL, (uint64_t)nseg * sizeof *p->seg, "nt_plan_create");
    if (room != NT_OK)
        return room;
    if (nseg > 0 && !(p->seg = malloc((size_t)nseg * sizeof *p->seg)))
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory for %lld segments",
                       (long long)nseg);
    p->nseg = nseg;
    I->fast_path = true;
    fill_segments(p, src, dr, dc);
    // Nothing moves as a whole tile under an operation.
    if (nseg == 0 || p->has_op)
        I->fast_path = false;
    return NT_OK;
}

// Bytes from source domain i to target component j into counts[i * ncomp + j]: closed form for
// block-cyclic maps, otherwise summed over the segments.
static nt_status component_counts(nt_plan_t *p, const nt_matrix_t *src, const nt_matrix_t *dst,
                                  const nt_sub_t *s, int64_t *counts)
{
    // The closed form intersects rows with rows: not for a transposed plan.
    p->info.closed_form = src->grid.p > 0 && dst->grid.p > 0 && !p->geo.trans;
    if (p->info.closed_form)
        return closed_form_counts(src, dst, s, counts, p->ncomp);
    for (int64_t x = 0; x < p->nseg; x++) {
        const nt_segment_t *g = &p->seg[x];
        counts[(size_t)g->src_dom * (size_t)p->ncomp + (size_t)dst->owner[g->dst_tile]] +=
            (int64_t)g->rows * g->cols * (int64_t)src->elem_size;
    }
    return NT_OK;
}

// Relabelling: sigma (component -> domain) by the objective, then the target tiles' domains
// and the bytes per domain pair.
static nt_status relabel(nt_plan_t *p, const nt_matrix_t *src, const nt_matrix_t *dst,
                         nt_match_objective objective, const int64_t *counts,
                         const int64_t *dist)
{
    int D = p->D, ncomp = p->ncomp;
    // Source labels beyond the machine are unused (checked above): their rows are zero.
    int pini = src->ndomains < D ? src->ndomains : D;
    if (objective == NT_MATCH_CANONICAL) {
        for (int j = 0; j < ncomp; j++)
            p->sigma[j] = j;
    } else {
        nt_match_problem_t mp = {.p_ini = pini, .p_tar = ncomp, .p_dom = D,
                                 .counts = counts, .dist = dist};
        nt_status st = nt_match_solve(&mp, objective, p->sigma, NULL);
        if (st)
            return st;
    }
    for (size_t t = 0; p->dst_owner && t < (size_t)(dst->mt * dst->nt); t++)
        p->dst_owner[t] = p->sigma[dst->owner[t]];
    // Canonical plans may name more components than domains when the extra ones hold no
    // tile (checked in check_labels): their counts are zero and their label has no column.
    for (size_t i = 0; i < (size_t)pini; i++)
        for (int j = 0; j < ncomp; j++)
            if (p->sigma[j] < D)
                p->pair_bytes[i * (size_t)D + (size_t)p->sigma[j]] +=
                    counts[i * (size_t)ncomp + (size_t)j];
    return NT_OK;
}

// Each segment's target domain and the segments per domain pair; the target tiles that receive
// remote data (volume) and the remote segments each domain sends and receives.
static void count_segments(nt_plan_t *p, int64_t *sent, int64_t *recv)
{
    size_t D = (size_t)p->D;
    for (int64_t x = 0; x < p->nseg;) {
        int64_t tile = p->seg[x].dst_tile;
        bool remote = false;
        for (; x < p->nseg && p->seg[x].dst_tile == tile; x++) {
            nt_segment_t *g = &p->seg[x];
            g->dst_dom = p->dst_owner[g->dst_tile];
            p->pair_segs[(size_t)g->src_dom * D + (size_t)g->dst_dom]++;
            if (g->src_dom != g->dst_dom) {
                remote = true;
                sent[g->src_dom]++;
                recv[g->dst_dom]++;
            }
        }
        p->info.volume_tiles += remote;
    }
}

// Bytes moved and kept, the distance-weighted volume, and the bytes each domain sends and
// receives.
static void count_bytes(nt_plan_t *p, const int64_t *dist, int64_t *sentb, int64_t *recvb)
{
    nt_plan_info_t *I = &p->info;
    int D = p->D;
    for (int i = 0; i < D; i++)
        for (int j = 0; j < D; j++) {
            int64_t b = p->pair_bytes[(size_t)i * (size_t)D + (size_t)j];
            if (i == j) {
                I->bytes_local += b;
                continue;
            }
            I->bytes_moved += b;
            sentb[i] += b;
            recvb[j] += b;
            if (dist)
                I->dist_volume += b * dist[(size_t)i * (size_t)D + (size_t)j];
        }
}

// Accounting: target domains, segments per pair, volume, bytes, and the one-port steps (the
// busiest domain's larger of sent and received, in segments and in bytes).
static nt_status plan_account(nt_plan_t *p, const int64_t *dist, const nt_dim_t *dr,
                              const nt_dim_t *dc)
{
    int D = p->D;
    int64_t *sent = calloc((size_t)D * 4, sizeof *sent);
    if (!sent)
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    int64_t *recv = sent + D, *sentb = sent + 2 * D, *recvb = sent + 3 * D;
    nt_plan_info_t *I = &p->info;
    if (I->periodic) {
        nt_status st = nt_periodic_pairs(&p->geo, dr, dc, p->sigma, p->ncomp, D, p->pair_segs,
                                         &I->volume_tiles, sent, recv);
        if (st) {
            free(sent);
            return st;
        }
    } else {
        count_segments(p, sent, recv);
    }
    count_bytes(p, dist, sentb, recvb);
    for (int i = 0; i < D; i++) {
        int64_t a = sent[i] > recv[i] ? sent[i] : recv[i];
        int64_t b = sentb[i] > recvb[i] ? sentb[i] : recvb[i];
        I->steps = a > I->steps ? a : I->steps;
        I->steps_bytes = b > I->steps_bytes ? b : I->steps_bytes;
    }
    free(sent);
    return NT_OK;
}

// Bytes the plan holds (the schedule, built on demand, is not counted).
static int64_t plan_memory(const nt_plan_t *p, const nt_matrix_t *dst)
{
    size_t DD = (size_t)p->D * (size_t)p->D;
    size_t owners = p->dst_owner ? (size_t)(dst->mt * dst->nt) * sizeof(int) : 0;
    return (int64_t)(sizeof *p + (size_t)p->nseg * sizeof *p->seg + 2 * DD * sizeof(int64_t) +
                     (size_t)p->ncomp * sizeof(int) + owners);
}

// Both entries: op NULL for the plain copy, else a checked operation.
static nt_status plan_create(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                             const nt_plan_opts_t *opts, const nt_plan_op_t *op,
                             nt_plan_t **out)
{
    double t0 = nt_now();
    plan_args a = {.trans = op && op->op != NT_OP_N};
    nt_plan_t *p = NULL;
    nt_status st = check_args(src, dst, sub, opts, &a);
    if (st || (st = plan_alloc(src, dst, &a, op, &p)) != NT_OK)
        return st;
    nt_dim_t dr = {0}, dc = {0};
    int64_t *dist = NULL;
    int64_t *counts = calloc((size_t)src->ndomains * (size_t)a.ncomp, sizeof *counts);
    if (!counts) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
        goto out;
    }
    if ((st = plan_geometry(p, src, &dr, &dc)) != NT_OK ||
        (st = component_counts(p, src, dst, &a.s, counts)) != NT_OK)
        goto out;
    dist = topo_dist(a.topo, a.D);
    if (a.topo && !dist) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
        goto out;
    }
    if ((st = relabel(p, src, dst, a.o.relabel, counts, dist)) != NT_OK ||
        (st = plan_account(p, dist, &dr, &dc)) != NT_OK)
        goto out;
    if (a.o.schedule) {
        const nt_schedule_t *sc;
        st = nt_plan_schedule(p, &sc);
    }
out:
    free(counts);
    free(dist);
    nt_dim_free(&dr);
    nt_dim_free(&dc);
    if (st) {
        nt_plan_destroy(p);
        return st;
    }
    p->info.memory_bytes = plan_memory(p, dst);
    p->info.seconds = nt_now() - t0;
    *out = p;
    return NT_OK;
}

nt_status nt_plan_create(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                         const nt_plan_opts_t *opts, nt_plan_t **out)
{
    if (!src || !dst || !out)
        return nt_fail(NT_EINVAL, "nt_plan_create: %s is NULL",
                       !src ? "src" : !dst ? "dst" : "out");
    return plan_create(src, dst, sub, opts, NULL, out);
}

nt_status nt_plan_create_op(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                            const nt_plan_opts_t *opts, const nt_plan_op_t *op,
                            nt_plan_t **out)
{
    if (!src || !dst || !out)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: %s is NULL",
                       !src ? "src" : !dst ? "dst" : "out");
    bool copy = true;
    nt_status st = op ? nt_plan_op_check(src, dst, op, &copy) : NT_OK;
    if (st)
        return st;
    return plan_create(src, dst, sub, opts, copy ? NULL : op, out);
}

nt_status nt_plan_info(const nt_plan_t *plan, nt_plan_info_t *info)
{
    if (!plan || !info)
        return nt_fail(NT_EINVAL, "nt_plan_info: %s is NULL", plan ? "info" : "plan");
    *info = plan->info;
    return NT_OK;
}

const nt_segment_t *nt_plan_segments(const nt_plan_t *plan)
{
    return plan ? plan->seg : NULL;
}

nt_status nt_plan_foreach_segment(const nt_plan_t *plan, nt_segment_fn fn, void *arg)
{
    if (!plan || !fn)
        return nt_fail(NT_EINVAL, "nt_plan_foreach_segment: %s is NULL", plan ? "fn" : "plan");
    if (!plan->info.periodic) {
        for (int64_t k = 0; k < plan->nseg; k++)
            if (fn(&plan->seg[k], arg))
                break;
        return NT_OK;
    }
    nt_dim_t dr, dc = {0};
    nt_status st = nt_plan_geo_dims(&plan->geo, &dr, &dc);
    bool stop = st != NT_OK;
    for (int64_t br = 0; br < dr.nband && !stop; br++)
        for (int64_t bc = 0; bc < dc.nband && !stop; bc++)
            for (int64_t r = dr.band[br]; r < dr.band[br + 1] && !stop; r++)
                for (int64_t c = dc.band[bc]; c < dc.band[bc + 1] && !stop; c++) {
                    nt_segment_t g;
                    make_segment(&plan->geo, NULL, &dr, &dc, br, bc, r, c, &g);
                    g.dst_dom = plan->sigma[nt_piece_dst_row(&plan->geo, &dr.p[r]) *
                                                plan->geo.gt.q +
                                            nt_piece_dst_col(&plan->geo, &dc.p[c])];
                    stop = fn(&g, arg) != 0;
                }
    nt_dim_free(&dr);
    nt_dim_free(&dc);
    return st;
}

const int64_t *nt_plan_pair_bytes(const nt_plan_t *plan)
{
    return plan ? plan->pair_bytes : NULL;
}

const int64_t *nt_plan_pair_segments(const nt_plan_t *plan)
{
    return plan ? plan->pair_segs : NULL;
}

const int *nt_plan_sigma(const nt_plan_t *plan, int *n)
{
    if (!plan)
        return NULL;
    if (n)
        *n = plan->ncomp;
    return plan->sigma;
}

nt_status nt_plan_owner_table(nt_plan_t *p)
{
    if (p->dst_owner)
        return NT_OK;
    const nt_plan_geo_t *g = &p->geo;
    int64_t mt = (g->tm + g->tmb - 1) / g->tmb;
    nt_status room = nt_mem_room(NULL, NULL, (uint64_t)(mt * g->tnt) * sizeof(int),
                                 "nt_plan_dst_owner");
    if (room != NT_OK)
        return room;
    int *o = malloc((size_t)(mt * g->tnt) * sizeof *o);
    if (!o)
        return nt_fail(NT_ENOMEM, "nt_plan_dst_owner: out of memory for %lld tile owners",
                       (long long)(mt * g->tnt));
    // A row depends only on its grid row, which repeats every smb x p rows: the first period is
    // computed, later rows copy the row one period up (element-cyclic targets have millions of
    // tiles).
    int64_t period = g->gt.smb * g->gt.p;
    for (int64_t i = 0; i < mt; i++) {
        int *row = o + i * g->tnt;
        if (i >= period) {
            memcpy(row, row - period * g->tnt, (size_t)g->tnt * sizeof *row);
            continue;
        }
        int b = (int)(i / g->gt.smb);
        for (int64_t j = 0; j < g->tnt; j++)
            row[j] = p->sigma[b * g->gt.q + (int)((j / g->gt.snb) % g->gt.q)];
    }
    p->dst_owner = o;
    return NT_OK;
}

const int *nt_plan_dst_owner(const nt_plan_t *plan)
{
    // A periodic plan's table is a cache built on first use (the plan is not const-defined).
    if (!plan || nt_plan_owner_table((nt_plan_t *)plan) != NT_OK)
        return NULL;
    return plan->dst_owner;
}

nt_status nt_plan_schedule(nt_plan_t *plan, const nt_schedule_t **sched)
{
    if (!plan || !sched)
        return nt_fail(NT_EINVAL, "nt_plan_schedule: %s is NULL", plan ? "sched" : "plan");
    if (!plan->sched) {
        nt_status st = nt_sched_build(plan->pair_bytes, plan->D, &plan->sched);
        if (st)
            return st;
    }
    *sched = plan->sched;
    return NT_OK;
}

void nt_plan_get_view(const nt_plan_t *plan, nt_plan_view_t *v)
{
    *v = (nt_plan_view_t){plan->D, plan->nseg, plan->seg, plan->dst_owner, plan->pair_bytes,
                          plan->pair_segs, plan->info.fast_path, plan->info.periodic,
                          &plan->geo, plan->sigma, plan->ncomp,
                          plan->has_op ? &plan->op : NULL, plan->dtype};
}

void nt_plan_forget_matrices(nt_plan_t *plan)
{
    plan->src = plan->dst = NULL;
}

bool nt_plan_matches(const nt_plan_t *plan, const nt_matrix_t *src, const nt_matrix_t *dst)
{
    return plan->src && plan->src == src && plan->dst == dst;
}
