// Part&Redistrib, the block-like candidate families: the initial distribution itself, the block
// partition labelled canonically, for volume and for steps, rotated blocks, and blocks on fewer
// components.
#include <string.h>

#include "part_redistrib_int.h"

enum {
    ROTATIONS_MAX = 15, // rotated block candidates
    FEWER_COUNTS = 12   // block partitions on fewer components
};

nt_status nt_pr_gen_owner(pr_ws *w)
{
    memcpy(w->part, w->ini, (size_t)w->n * sizeof *w->part);
    for (int c = 0; c < w->p; c++)
        w->sigma[c] = c;
    return nt_pr_consider(w, NT_STENCIL_OWNER, 0);
}

nt_status nt_pr_gen_blocks(pr_ws *w)
{
    static const struct {
        nt_stencil_strategy_t s;
        nt_match_objective obj;
    } kinds[3] = {{NT_STENCIL_BLOCK_CANONICAL, NT_MATCH_CANONICAL},
                  {NT_STENCIL_BLOCK_VOLUME, NT_MATCH_VOLUME},
                  {NT_STENCIL_BLOCK_STEPS, NT_MATCH_STEPS}};
    for (int64_t x = 0; x < w->n; x++)
        w->part[x] = pr_block_of(x, w->n, w->p);
    for (int k = 0; k < 3; k++) {
        nt_status st = nt_pr_label(w, w->part, kinds[k].obj, w->sigma);
        if (st == NT_OK)
            st = nt_pr_consider(w, kinds[k].s, 0);
        if (st != NT_OK)
            return st;
    }
    return NT_OK;
}

// The block partition turned by r positions: item x gets the block of x - r.
nt_status nt_pr_gen_rotated(pr_ws *w)
{
    int64_t b = (w->n + w->p - 1) / w->p;
    if (w->p < 2 || b < 2)
        return NT_OK;
    int64_t prev = 0;
    int count = b - 1 < ROTATIONS_MAX ? (int)(b - 1) : ROTATIONS_MAX;
    for (int k = 1; k <= count; k++) {
        int64_t r = (int64_t)(((nt_u128)k * (nt_u128)b) / (nt_u128)(count + 1));
        if (r <= prev)
            continue;
        prev = r;
        for (int64_t x = 0; x < w->n; x++)
            w->part[x] = pr_block_of(pr_wrap(x - r, w->n), w->n, w->p);
        nt_status st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
        if (st == NT_OK)
            st = nt_pr_consider(w, NT_STENCIL_BLOCK_ROTATED, r);
        if (st != NT_OK)
            return st;
    }
    return NT_OK;
}

// Block partitions on q = 1, 2, 3, 4, 6, 8, ... < p components: when a halo costs more than
// the extra load, fewer, larger blocks win (q = 1: no halo at all).
nt_status nt_pr_gen_fewer(pr_ws *w)
{
    nt_status st = NT_OK;
    int64_t pair[2] = {2, 3}; // after 1: 2, 3, 4, 6, 8, 12, ... (each of the pair doubles)
    for (int k = 0; k < FEWER_COUNTS && st == NT_OK; k++) {
        int64_t c = 1;
        if (k > 0) {
            c = pair[(k - 1) % 2];
            pair[(k - 1) % 2] *= 2;
        }
        if (c >= w->p)
            break;
        for (int64_t x = 0; x < w->n; x++)
            w->part[x] = (int)(((nt_u128)x * (nt_u128)c) / (nt_u128)w->n);
        st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
        if (st == NT_OK)
            st = nt_pr_consider(w, NT_STENCIL_BLOCK_FEWER, c);
    }
    return st;
}
