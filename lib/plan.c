// Redistribution plans (Cao et al. 2022): the segments between a source and a target tiled
// matrix, their domains (optionally relabelled), and the predicted costs.
//
// The segment geometry is separable: along each dimension the submatrix is cut at every
// source-tile and every target-tile boundary into pieces; segments are the products of a row
// piece and a column piece. Building them costs O(segments) and never looks at memory.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
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
    nt_plan_info_t info;
};

// One piece of one dimension: [x, x+len) of the submatrix, inside source tile st at offset so
// and target tile tt at offset to.
typedef struct piece {
    int64_t x, len;
    int64_t st, tt;
    int32_t so, to;
    uint8_t whole; // the piece spans the whole source tile and the whole target tile
} piece;

typedef struct dim {
    piece *p;
    int64_t np;
    int64_t *band;  // band[b] = first piece of the b-th target tile touched, band[nb] = np
    int64_t nband;
} dim;

static void dim_free(dim *d)
{
    free(d->p);
    free(d->band);
}

// Cut [0, n) at source boundaries (tile size bs, extent ms, offset os) and target boundaries.
static nt_status dim_build(int64_t n, int64_t os, int64_t bs, int64_t ms, int64_t ot,
                           int64_t bt, int64_t mtot, dim *d)
{
    *d = (dim){0};
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
        piece pc = {x, e - x, st, tt, so, to,
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

// Compass index of piece k of a band of `cnt` pieces: 0 first, 1 inner (or only), 2 last.
static int pos3(int64_t k, int64_t cnt)
{
    if (cnt == 1)
        return 1;
    return k == 0 ? 0 : k == cnt - 1 ? 2 : 1;
}

static int min3(int64_t c)
{
    return c >= 3 ? 2 : (int)c - 1;
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

static nt_status check_sub(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *s)
{
    if (s->rows < 0 || s->cols < 0 || s->src_row < 0 || s->src_col < 0 || s->dst_row < 0 ||
        s->dst_col < 0)
        return nt_fail(NT_EINVAL, "nt_plan_create: submatrix %lldx%lld at source (%lld,%lld), "
                       "target (%lld,%lld): negative value", (long long)s->rows,
                       (long long)s->cols, (long long)s->src_row, (long long)s->src_col,
                       (long long)s->dst_row, (long long)s->dst_col);
    if (s->src_row > src->m - s->rows || s->src_col > src->n - s->cols)
        return nt_fail(NT_EINVAL, "nt_plan_create: submatrix %lldx%lld at (%lld,%lld) out of "
                       "the %lldx%lld source", (long long)s->rows, (long long)s->cols,
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

// Distances of the topology as int64 (NULL without a topology).
static int64_t *topo_dist(const nt_topo_t *topo, int D)
{
    if (!topo)
        return NULL;
    const uint32_t *d32 = nt_topo_distances(topo);
    int64_t *d = malloc((size_t)D * (size_t)D * sizeof *d);
    if (d)
        for (size_t x = 0; x < (size_t)D * (size_t)D; x++)
            d[x] = d32[x];
    return d;
}

nt_status nt_plan_create(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                         const nt_plan_opts_t *opts, nt_plan_t **out)
{
    double t0 = nt_now();
    if (!src || !dst || !out)
        return nt_fail(NT_EINVAL, "nt_plan_create: %s is NULL",
                       !src ? "src" : !dst ? "dst" : "out");
    nt_plan_opts_t o = opts ? *opts : (nt_plan_opts_t){0};
    if ((int)o.relabel < NT_MATCH_CANONICAL || o.relabel > NT_MATCH_DISTANCE)
        return nt_fail(NT_EINVAL, "nt_plan_create: unknown relabel objective %d",
                       (int)o.relabel);
    if (src->elem_size != dst->elem_size)
        return nt_fail(NT_EINVAL, "nt_plan_create: element sizes differ (source %zu bytes, "
                       "target %zu)", src->elem_size, dst->elem_size);
    if (src->topo && dst->topo && src->topo != dst->topo)
        return nt_fail(NT_EINVAL, "nt_plan_create: source and target are on different "
                       "topologies");
    nt_sub_t s;
    if (sub) {
        s = *sub;
    } else {
        if (src->m != dst->m || src->n != dst->n)
            return nt_fail(NT_EINVAL, "nt_plan_create: sizes differ (%lldx%lld vs %lldx%lld) "
                           "and no submatrix given", (long long)src->m, (long long)src->n,
                           (long long)dst->m, (long long)dst->n);
        s = (nt_sub_t){src->m, src->n, 0, 0, 0, 0};
    }
    nt_status st = check_sub(src, dst, &s);
    if (st)
        return st;
    const nt_topo_t *topo = src->topo ? src->topo : dst->topo;
    int D = topo ? nt_topo_ndomains(topo)
                 : (src->ndomains > dst->ndomains ? src->ndomains : dst->ndomains);
    // Used labels must exist on the machine (matrix creation checked the topology's count).
    if (topo && src->ndomains > D) {
        for (int64_t t = 0; t < src->mt * src->nt; t++)
            if (src->owner[t] >= D)
                return nt_fail(NT_EINVAL, "nt_plan_create: source tile %lld on domain %d, the "
                               "machine has %d", (long long)t, src->owner[t], D);
    }
    int ncomp = dst->ndomains;
    if (o.relabel != NT_MATCH_CANONICAL && ncomp > D)
        return nt_fail(NT_EINVAL, "nt_plan_create: cannot relabel %d target components onto %d "
                       "domains", ncomp, D);
    if (o.relabel == NT_MATCH_CANONICAL && ncomp > D)
        for (int64_t t = 0; t < dst->mt * dst->nt; t++)
            if (dst->owner[t] >= D)
                return nt_fail(NT_EINVAL, "nt_plan_create: target tile %lld on domain %d, the "
                               "machine has %d", (long long)t, dst->owner[t], D);
    if (o.relabel == NT_MATCH_DISTANCE && !topo)
        return nt_fail(NT_EINVAL, "nt_plan_create: relabel 'distance' needs a topology");

    nt_plan_t *p = calloc(1, sizeof *p);
    dim dr = {0}, dc = {0};
    int64_t *counts = NULL, *dist = NULL;
    if (!p)
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    p->src = src;
    p->dst = dst;
    p->D = D;
    p->ncomp = ncomp;
    size_t DD = (size_t)D * (size_t)D;
    size_t ndt = (size_t)(dst->mt * dst->nt);
    size_t ccells = (size_t)src->ndomains * (size_t)ncomp;
    p->pair_bytes = calloc(DD, sizeof *p->pair_bytes);
    p->pair_segs = calloc(DD, sizeof *p->pair_segs);
    p->sigma = malloc((size_t)ncomp * sizeof *p->sigma);
    p->dst_owner = malloc(ndt * sizeof *p->dst_owner);
    counts = calloc(ccells, sizeof *counts);
    if (!p->pair_bytes || !p->pair_segs || !p->sigma || !p->dst_owner || !counts) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
        goto fail;
    }
    if ((st = dim_build(s.rows, s.src_row, src->mb, src->m, s.dst_row, dst->mb, dst->m, &dr)) ||
        (st = dim_build(s.cols, s.src_col, src->nb, src->n, s.dst_col, dst->nb, dst->n, &dc)))
        goto fail;
    int64_t nseg;
    if (!nt_mul_i64(dr.np, dc.np, &nseg) || (uint64_t)nseg > SIZE_MAX / sizeof(nt_segment_t)) {
        st = nt_fail(NT_ERANGE, "nt_plan_create: %lld x %lld segments overflow",
                     (long long)dr.np, (long long)dc.np);
        goto fail;
    }
    if (nseg > 0 && !(p->seg = malloc((size_t)nseg * sizeof *p->seg))) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory for %lld segments",
                     (long long)nseg);
        goto fail;
    }
    p->nseg = nseg;
    nt_plan_info_t *I = &p->info;
    I->ndomains = D;
    I->segments = nseg;
    I->tiles = dr.nband * dc.nband;
    I->elements = s.rows * s.cols;
    I->bytes = I->elements * (int64_t)src->elem_size;
    I->fast_path = true;

    // Geometry: grouped by target tile (row band, column band), row-major inside a tile.
    int64_t k = 0;
    for (int64_t br = 0; br < dr.nband; br++) {
        int64_t r0 = dr.band[br], r1 = dr.band[br + 1];
        for (int64_t bc = 0; bc < dc.nband; bc++) {
            int64_t c0 = dc.band[bc], c1 = dc.band[bc + 1];
            uint8_t cat = (uint8_t)(3 * min3(r1 - r0) + min3(c1 - c0));
            I->category_tiles[cat]++;
            for (int64_t r = r0; r < r1; r++) {
                const piece *pr = &dr.p[r];
                for (int64_t c = c0; c < c1; c++) {
                    const piece *pc = &dc.p[c];
                    nt_segment_t *g = &p->seg[k++];
                    g->src_tile = pr->st * src->nt + pc->st;
                    g->dst_tile = pr->tt * dst->nt + pc->tt;
                    g->src_row = pr->so;
                    g->src_col = pc->so;
                    g->dst_row = pr->to;
                    g->dst_col = pc->to;
                    g->rows = (int32_t)pr->len;
                    g->cols = (int32_t)pc->len;
                    g->src_dom = src->owner[g->src_tile];
                    g->part = (uint8_t)(3 * pos3(r - r0, r1 - r0) + pos3(c - c0, c1 - c0));
                    g->category = cat;
                    g->whole = pr->whole && pc->whole;
                    I->fast_path = I->fast_path && g->whole;
                    I->part_segments[g->part]++;
                }
            }
        }
    }
    if (nseg == 0)
        I->fast_path = false;

    // Bytes from source domain i to target component j: closed form for block-cyclic maps,
    // otherwise summed over the segments.
    I->closed_form = src->grid.p > 0 && dst->grid.p > 0;
    if (I->closed_form) {
        if ((st = closed_form_counts(src, dst, &s, counts, ncomp)) != NT_OK)
            goto fail;
    } else {
        for (int64_t x = 0; x < nseg; x++) {
            const nt_segment_t *g = &p->seg[x];
            counts[(size_t)g->src_dom * (size_t)ncomp + (size_t)dst->owner[g->dst_tile]] +=
                (int64_t)g->rows * g->cols * (int64_t)src->elem_size;
        }
    }

    dist = topo_dist(topo, D);
    if (topo && !dist) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
        goto fail;
    }
    // Source labels beyond the machine are unused (checked above): their rows are zero.
    int pini = src->ndomains < D ? src->ndomains : D;
    if (o.relabel == NT_MATCH_CANONICAL) {
        for (int j = 0; j < ncomp; j++)
            p->sigma[j] = j;
    } else {
        nt_match_problem_t mp = {.p_ini = pini, .p_tar = ncomp, .p_dom = D,
                                 .counts = counts, .dist = dist};
        if ((st = nt_match_solve(&mp, o.relabel, p->sigma, NULL)) != NT_OK)
            goto fail;
    }
    for (size_t t = 0; t < ndt; t++)
        p->dst_owner[t] = p->sigma[dst->owner[t]];
    for (size_t i = 0; i < (size_t)pini; i++)
        for (int j = 0; j < ncomp; j++)
            p->pair_bytes[i * (size_t)D + (size_t)p->sigma[j]] +=
                counts[i * (size_t)ncomp + (size_t)j];

    // Target domains, segments per pair, volume in tiles.
    int64_t *sent = calloc((size_t)D * 4, sizeof *sent);
    if (!sent) {
        st = nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
        goto fail;
    }
    int64_t *recv = sent + D, *sentb = sent + 2 * D, *recvb = sent + 3 * D;
    for (int64_t x = 0; x < nseg;) {
        int64_t tile = p->seg[x].dst_tile;
        bool remote = false;
        for (; x < nseg && p->seg[x].dst_tile == tile; x++) {
            nt_segment_t *g = &p->seg[x];
            g->dst_dom = p->dst_owner[g->dst_tile];
            p->pair_segs[(size_t)g->src_dom * (size_t)D + (size_t)g->dst_dom]++;
            if (g->src_dom != g->dst_dom) {
                remote = true;
                sent[g->src_dom]++;
                recv[g->dst_dom]++;
            }
        }
        I->volume_tiles += remote;
    }
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
    for (int i = 0; i < D; i++) {
        int64_t a = sent[i] > recv[i] ? sent[i] : recv[i];
        int64_t b = sentb[i] > recvb[i] ? sentb[i] : recvb[i];
        I->steps = a > I->steps ? a : I->steps;
        I->steps_bytes = b > I->steps_bytes ? b : I->steps_bytes;
    }
    free(sent);
    if (o.schedule) {
        const nt_schedule_t *sc;
        if ((st = nt_plan_schedule(p, &sc)) != NT_OK)
            goto fail;
    }
    free(counts);
    free(dist);
    dim_free(&dr);
    dim_free(&dc);
    I->seconds = nt_now() - t0;
    *out = p;
    return NT_OK;
fail:
    free(counts);
    free(dist);
    dim_free(&dr);
    dim_free(&dc);
    nt_plan_destroy(p);
    return st;
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

const int *nt_plan_dst_owner(const nt_plan_t *plan)
{
    return plan ? plan->dst_owner : NULL;
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
                          plan->info.fast_path};
}

bool nt_plan_matches(const nt_plan_t *plan, const nt_matrix_t *src, const nt_matrix_t *dst)
{
    return plan->src == src && plan->dst == dst;
}
