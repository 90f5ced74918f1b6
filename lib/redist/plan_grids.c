// Plans from grids alone (nt_plan_create_grids): the periodic plan of two block-cyclic
// ScaLAPACK matrices needs their sizes and grids, never their tile tables, so descriptors
// without a table stand in for the matrices and the plan forgets them once made. What
// `numatile plan` reports for an element-cyclic 100000 x 100000 matrix then costs kilobytes
// where the two tables would take 80 GB.
#include <limits.h>

#include "nt_core.h"
#include "nt_plan.h"

static nt_status bad(const char *side, const char *field, long long v, const char *want)
{
    return nt_fail(NT_EINVAL, "nt_plan_create_grids: %s->%s = %lld: %s", side, field, v, want);
}

// A matrix descriptor with A's sizes and grid and no table (owner NULL, no memory).
static nt_status describe(const nt_topo_t *topo, const nt_grid_matrix_t *g, const char *side,
                          nt_matrix_t *A)
{
    if (g->m < 1 || g->n < 1)
        return bad(side, g->m < 1 ? "m" : "n", g->m < 1 ? g->m : g->n, "must be >= 1");
    if (g->mb < 1 || g->mb > INT32_MAX || g->nb < 1 || g->nb > INT32_MAX) {
        bool r = g->mb < 1 || g->mb > INT32_MAX;
        return bad(side, r ? "mb" : "nb", r ? g->mb : g->nb, "must be in 1..INT32_MAX");
    }
    if (g->elem_size < 1)
        return bad(side, "elem_size", 0, "must be >= 1");
    const nt_bcgrid_t *b = &g->grid;
    if (b->p < 1 || b->q < 1)
        return bad(side, b->p < 1 ? "grid.p" : "grid.q", b->p < 1 ? b->p : b->q,
                   "must be >= 1");
    if ((int64_t)b->p * b->q > INT_MAX)
        return bad(side, "grid.p * grid.q", (long long)b->p * b->q, "must be <= INT_MAX");
    if (b->smb < 1 || b->snb < 1)
        return bad(side, b->smb < 1 ? "grid.smb" : "grid.snb", b->smb < 1 ? b->smb : b->snb,
                   "must be >= 1");
    *A = (nt_matrix_t){.m = g->m, .n = g->n, .mb = g->mb, .nb = g->nb,
                       .mt = (g->m + g->mb - 1) / g->mb, .nt = (g->n + g->nb - 1) / g->nb,
                       .elem_size = g->elem_size, .layout = NT_LAYOUT_SCALAPACK,
                       .ndomains = b->p * b->q, .topo = topo, .grid = *b};
    return NT_OK;
}

nt_status nt_plan_create_grids(const nt_topo_t *topo, const nt_grid_matrix_t *src,
                               const nt_grid_matrix_t *dst, const nt_sub_t *sub,
                               const nt_plan_opts_t *opts, nt_plan_t **out)
{
    if (!src || !dst || !out)
        return nt_fail(NT_EINVAL, "nt_plan_create_grids: %s is NULL",
                       !src ? "src" : !dst ? "dst" : "out");
    if (opts && opts->explicit_segments)
        return nt_fail(NT_EINVAL, "nt_plan_create_grids: opts.explicit_segments needs the "
                       "matrices' tile tables (use nt_plan_create())");
    nt_matrix_t S, T;
    nt_status st = describe(topo, src, "src", &S);
    if (st == NT_OK)
        st = describe(topo, dst, "dst", &T);
    nt_plan_t *p = NULL;
    if (st == NT_OK && (st = nt_plan_create(&S, &T, sub, opts, &p)) == NT_OK) {
        nt_plan_forget_matrices(p);
        *out = p;
    }
    return st;
}
