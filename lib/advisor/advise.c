// nt_advise(): every candidate target is planned (pure data, no memory touched), its
// redistribution and its kernel priced by the model (model.c), and the candidates ranked by
// predicted total time. Keeping the data where they are ("owner") is always a candidate.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/advise.h"
#include "numatile/dist.h"
#include "numatile/hetero.h"

typedef struct cands {
    const nt_profile_t *p;
    const nt_matrix_t *cur;
    const nt_advise_opts_t *o;
    int64_t tiles;
    int n, cap;
    nt_candidate_t *c;
} cands;

// The kernel on a map: the current descriptor with another owner table (the model reads only
// the sizes and the owners).
static nt_status kernel_on(const cands *cs, const int *owner, nt_kernel_pred_t *out)
{
    nt_matrix_t view = *cs->cur;
    view.owner = (int *)owner;
    return nt_model_kernel(cs->p, cs->o->kernel, &view, out);
}

static bool seen(const cands *cs, const int *owner)
{
    for (int k = 0; k < cs->n; k++)
        if (!memcmp(cs->c[k].owner, owner, (size_t)cs->tiles * sizeof *owner))
            return true;
    return false;
}

// Add a candidate with target map owner (copied) and its redistribution prediction.
static nt_status add(cands *cs, const char *name, const int *owner, const nt_redist_pred_t *rp)
{
    if (seen(cs, owner))
        return NT_OK;
    if (cs->n == cs->cap) {
        int ncap = cs->cap ? 2 * cs->cap : 16;
        nt_candidate_t *nc = realloc(cs->c, (size_t)ncap * sizeof *nc);
        if (!nc)
            return nt_fail(NT_ENOMEM, "nt_advise: out of memory");
        cs->c = nc;
        cs->cap = ncap;
    }
    nt_candidate_t c = {.redistribute = rp != NULL};
    snprintf(c.name, sizeof c.name, "%s", name);
    nt_status st = kernel_on(cs, owner, &c.kernel);
    if (st)
        return st;
    c.owner = malloc((size_t)cs->tiles * sizeof *c.owner);
    if (!c.owner)
        return nt_fail(NT_ENOMEM, "nt_advise: out of memory");
    memcpy(c.owner, owner, (size_t)cs->tiles * sizeof *owner);
    if (rp) {
        c.redist = *rp;
        double copy = cs->o->schedule == NT_SCHED_STEPS ? rp->steps_seconds : rp->free_seconds;
        // GEMM places A, B and C alike: each of them moves.
        c.redist_seconds = (rp->alloc_seconds + copy) * (cs->o->kernel == NT_ADVISE_GEMM ? 3 : 1);
    }
    c.total_seconds = c.redist_seconds + c.kernel.seconds;
    cs->c[cs->n++] = c;
    return NT_OK;
}

// Plan current -> dst relabelled by obj, price it, add it. A labelling the plan refuses (e.g.
// distance without distances) is skipped.
static nt_status add_planned(cands *cs, const char *name, const nt_matrix_t *dst,
                             nt_match_objective obj)
{
    nt_plan_opts_t po = {.relabel = obj, .explicit_segments = true};
    nt_plan_t *plan;
    nt_status st = nt_plan_create(cs->cur, dst, NULL, &po, &plan);
    if (st == NT_EINVAL && obj != NT_MATCH_CANONICAL)
        return NT_OK;
    if (st)
        return st;
    nt_redist_pred_t rp;
    const int *owner = nt_plan_dst_owner(plan);
    if (!owner)
        st = nt_fail(NT_ENOMEM, "nt_advise: no target map");
    if (!st)
        st = nt_model_redist(cs->p, plan, cs->cur, &rp);
    if (!st) {
        char full[48];
        snprintf(full, sizeof full, "%s/%s", name, nt_match_objective_name(obj));
        st = add(cs, full, owner, &rp);
    }
    nt_plan_destroy(plan);
    return st;
}

static nt_status add_map(cands *cs, const char *name, const nt_tilemap_t *map, bool relabel)
{
    const nt_matrix_t *A = cs->cur;
    nt_matrix_shape_t sh = {A->m, A->n, A->mb, A->nb, A->elem_size};
    nt_matrix_t *dst;
    nt_status st = nt_matrix_create(A->topo, &sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &dst);
    if (st)
        return st;
    if (!relabel) {
        st = add_planned(cs, name, dst, NT_MATCH_CANONICAL);
    } else {
        static const nt_match_objective objs[] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME,
                                                  NT_MATCH_STEPS, NT_MATCH_LEX,
                                                  NT_MATCH_DISTANCE};
        for (size_t k = 0; k < sizeof objs / sizeof *objs && !st; k++)
            st = add_planned(cs, name, dst, objs[k]);
    }
    nt_matrix_destroy(dst);
    return st;
}

static nt_status add_bc2d(cands *cs)
{
    int D = cs->p->ndomains;
    nt_status st = NT_OK;
    for (int P = 1; P <= D && !st; P++) {
        if (D % P)
            continue;
        nt_tilemap_t *map;
        if ((st = nt_tilemap_bc2d(cs->cur->mt, cs->cur->nt, P, D / P, 1, 1, &map)))
            return st;
        char name[40];
        snprintf(name, sizeof name, "bc2d:%dx%d", P, D / P);
        st = add_map(cs, name, map, true);
        nt_tilemap_destroy(map);
    }
    return st;
}

// ColumnBased, NRRP, SNRRP from the measured speeds, each component on a domain of its speed
// with the least volume (nt_hetero_place()); partitioners that cannot handle the case (e.g.
// too few tiles) are skipped.
static nt_status add_hetero(cands *cs)
{
    const nt_matrix_t *A = cs->cur;
    int D = cs->p->ndomains;
    if (A->mt != A->nt || cs->o->no_hetero || A->ndomains != D)
        return NT_OK;
    double *speeds = malloc((size_t)D * sizeof *speeds);
    int *sigma = malloc((size_t)D * sizeof *sigma);
    nt_status st = speeds && sigma ? nt_profile_speeds(cs->p, speeds)
                                   : nt_fail(NT_ENOMEM, "nt_advise: out of memory");
    static const nt_hetero_algo algos[] = {NT_HETERO_COLUMN, NT_HETERO_NRRP, NT_HETERO_SNRRP};
    nt_tilemap_t cur = {A->mt, A->nt, D, A->owner};
    for (size_t k = 0; k < sizeof algos / sizeof *algos && !st; k++) {
        nt_tilemap_t *part;
        if (nt_hetero_tilemap(algos[k], NT_HETERO_PRECISE, D, speeds, A->mt, &part) != NT_OK)
            continue;
        if (nt_hetero_place(&cur, part, speeds, NT_MATCH_VOLUME, sigma, NULL) == NT_OK) {
            for (int64_t x = 0; x < cs->tiles; x++)
                part->owner[x] = sigma[part->owner[x]];
            char name[40];
            snprintf(name, sizeof name, "hetero:%s", nt_hetero_algo_name(algos[k]));
            st = add_map(cs, name, part, false);
        }
        nt_tilemap_destroy(part);
    }
    free(speeds);
    free(sigma);
    return st;
}

static int by_total(const void *a, const void *b)
{
    const nt_candidate_t *x = a, *y = b;
    if (x->total_seconds != y->total_seconds)
        return x->total_seconds < y->total_seconds ? -1 : 1;
    return strcmp(x->name, y->name);
}

void nt_advice_destroy(nt_advice_t *a)
{
    if (!a)
        return;
    for (int k = 0; k < a->count; k++)
        free(a->cand[k].owner);
    free(a->cand);
    free(a);
}

// Pair rates relative to the local one from hwloc's bandwidths, for every pair (i memory,
// j reader): rd = bw(I_j -> i) / bw(I_j -> j), cp = min(bw(I_j -> i), bw(I_j -> j)) / bw(I_j
// -> j), I_j the initiator of j. False when a bandwidth is missing.
static bool attr_ratios(const nt_topo_t *t, int D, double *rd, double *cp)
{
    for (int j = 0; j < D; j++) {
        nt_domain_memory_t m;
        uint64_t bjj = 0, bij = 0;
        nt_topo_domain_memory(t, j, &m);
        if (m.initiator < 0 || nt_topo_pair_memattr(t, m.initiator, j, &bjj, NULL) || !bjj)
            return false;
        for (int i = 0; i < D; i++) {
            if (nt_topo_pair_memattr(t, m.initiator, i, &bij, NULL) || !bij)
                return false;
            rd[i * D + j] = (double)bij / (double)bjj;
            cp[i * D + j] = (double)(bij < bjj ? bij : bjj) / (double)bjj;
        }
    }
    return true;
}

// For a described machine whose hwloc attributes give every pair a bandwidth, a copy of the
// profile whose remote rates follow them: the profile was measured elsewhere and cannot know
// this machine's pairs, so its local rates are kept and each pair scaled by the bandwidth
// ratio. *out stays NULL otherwise (on this machine the profile's measured pairs win).
static nt_status profile_with_attrs(const nt_profile_t *p, const nt_topo_t *t,
                                    nt_profile_t **out)
{
    *out = NULL;
    int D = p->ndomains;
    if (nt_topo_get_kind(t) != NT_TOPO_SYNTHETIC || nt_topo_memattr_source(t) != NT_ATTR_HWLOC)
        return NT_OK;
    double *rd = malloc((size_t)D * (size_t)D * sizeof *rd);
    double *cp = malloc((size_t)D * (size_t)D * sizeof *cp);
    nt_profile_t *q = NULL;
    nt_status st = rd && cp ? NT_OK : nt_fail(NT_ENOMEM, "nt_advise: out of memory");
    if (!st && attr_ratios(t, D, rd, cp) && !(st = nt_profile_create(D, &q))) {
        nt_profile_t keep = *q;
        *q = *p; // scalars and strings; the arrays are q's own, copied below
        q->copy_gbs = keep.copy_gbs;
        q->read_gbs = keep.read_gbs;
        q->fault_gbs = keep.fault_gbs;
        memcpy(q->fault_gbs, p->fault_gbs, (size_t)D * sizeof *q->fault_gbs);
        for (int k = 0; k < NT_TK_COUNT; k++) {
            q->tile_seconds[k] = keep.tile_seconds[k];
            memcpy(q->tile_seconds[k], p->tile_seconds[k], (size_t)D * sizeof(double));
        }
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++) {
                q->copy_gbs[i * D + j] = p->copy_gbs[j * D + j] * cp[i * D + j];
                q->read_gbs[i * D + j] = p->read_gbs[j * D + j] * rd[i * D + j];
            }
        *out = q;
    }
    free(rd);
    free(cp);
    return st;
}

static nt_status advise_with(const nt_profile_t *p, const nt_matrix_t *cur,
                             const nt_advise_opts_t *opts, nt_advice_t **out);

nt_status nt_advise(const nt_profile_t *p, const nt_matrix_t *cur, const nt_advise_opts_t *opts,
                    nt_advice_t **out)
{
    if (!p || !cur || !out)
        return nt_fail(NT_EINVAL, "nt_advise: NULL argument");
    if (!cur->topo)
        return nt_fail(NT_EINVAL, "nt_advise: the current matrix has no topology");
    nt_status st = nt_profile_check(p, cur->topo);
    nt_profile_t *q = NULL;
    if (!st)
        st = profile_with_attrs(p, cur->topo, &q);
    if (!st)
        st = advise_with(q ? q : p, cur, opts, out);
    nt_profile_destroy(q);
    return st;
}

static nt_status advise_with(const nt_profile_t *p, const nt_matrix_t *cur,
                             const nt_advise_opts_t *opts, nt_advice_t **out)
{
    nt_status st;
    nt_advise_opts_t o = opts ? *opts : (nt_advise_opts_t){0};
    if (o.kernel != NT_ADVISE_GEMM && o.kernel != NT_ADVISE_QR)
        return nt_fail(NT_EINVAL, "nt_advise: unknown kernel %d", (int)o.kernel);
    if (o.schedule != NT_SCHED_FREE && o.schedule != NT_SCHED_STEPS)
        return nt_fail(NT_EINVAL, "nt_advise: unknown schedule %d", (int)o.schedule);
    cands cs = {.p = p, .cur = cur, .o = &o, .tiles = cur->mt * cur->nt};
    st = add(&cs, "owner", cur->owner, NULL);
    if (!st)
        st = add_bc2d(&cs);
    if (!st)
        st = add_hetero(&cs);
    nt_advice_t *a = st ? NULL : malloc(sizeof *a);
    if (!st && !a)
        st = nt_fail(NT_ENOMEM, "nt_advise: out of memory");
    if (st) {
        for (int k = 0; k < cs.n; k++)
            free(cs.c[k].owner);
        free(cs.c);
        return st;
    }
    qsort(cs.c, (size_t)cs.n, sizeof *cs.c, by_total);
    *a = (nt_advice_t){.mt = cur->mt, .nt = cur->nt, .count = cs.n, .cand = cs.c};
    *out = a;
    return NT_OK;
}

const char *nt_advise_kernel_name(nt_advise_kernel kernel)
{
    return kernel == NT_ADVISE_GEMM ? "gemm" : kernel == NT_ADVISE_QR ? "qr" : "unknown";
}
