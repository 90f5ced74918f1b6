// Periodic plans: the accounting of a plan between two block-cyclic ScaLAPACK matrices without
// listing its segments. A segment is a (row piece, column piece) pair and everything counted
// about it is separable: its Cao category and compass part are products of a row class and a
// column class, and its domains come from the row piece's grid rows and the column piece's grid
// columns. So the counts are products of per-dimension histograms: O(pieces + grid^2), not
// O(segments).
#include <stdlib.h>

#include "nt_core.h"
#include "nt_plan.h"

void nt_periodic_shape(nt_plan_info_t *I, const nt_dim_t *dr, const nt_dim_t *dc)
{
    int64_t cat[2][3] = {{0}}, part[2][3] = {{0}};
    bool whole = dr->np > 0 && dc->np > 0;
    const nt_dim_t *d2[2] = {dr, dc};
    for (int k = 0; k < 2; k++) {
        const nt_dim_t *d = d2[k];
        for (int64_t b = 0; b < d->nband; b++) {
            int64_t p0 = d->band[b], cnt = d->band[b + 1] - p0;
            cat[k][nt_min3(cnt)]++;
            for (int64_t x = p0; x < p0 + cnt; x++) {
                part[k][nt_pos3(x - p0, cnt)]++;
                whole = whole && d->p[x].whole;
            }
        }
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            I->category_tiles[3 * a + b] = cat[0][a] * cat[1][b];
            I->part_segments[3 * a + b] = part[0][a] * part[1][b];
        }
    I->fast_path = whole;
}

// Pieces of a dimension counted by (source grid coordinate, target grid coordinate), into
// cnt[a * nt + b]; bands whose pieces all come from one source coordinate a0, counted by
// (a0, target coordinate) into single[a0 * nt + b].
static void dim_hist(const nt_plan_geo_t *g, const nt_dim_t *d, bool rows, int nt,
                     int64_t *cnt, int64_t *single)
{
    for (int64_t b = 0; b < d->nband; b++) {
        int a0 = -1, tb = 0;
        bool one = true;
        for (int64_t x = d->band[b]; x < d->band[b + 1]; x++) {
            const nt_piece_t *p = &d->p[x];
            int a = rows ? nt_piece_src_row(g, p) : nt_piece_src_col(g, p);
            tb = rows ? nt_piece_dst_row(g, p) : nt_piece_dst_col(g, p);
            cnt[a * nt + tb]++;
            one = one && (a0 < 0 || a0 == a);
            a0 = a;
        }
        if (one)
            single[a0 * nt + tb]++;
    }
}

nt_status nt_periodic_pairs(const nt_plan_geo_t *g, const nt_dim_t *dr, const nt_dim_t *dc,
                            const int *sigma, int ncomp, int D, int64_t *pair_segs,
                            int64_t *volume_tiles, int64_t *sent, int64_t *recv)
{
    int ps = g->gs.p, qs = g->gs.q, pt = g->gt.p, qt = g->gt.q;
    size_t nr = (size_t)ps * (size_t)pt, nc = (size_t)qs * (size_t)qt;
    int64_t *rp = calloc(2 * (nr + nc), sizeof *rp);
    if (!rp)
        return nt_fail(NT_ENOMEM, "nt_plan_create: out of memory");
    int64_t *rs = rp + nr, *cp = rs + nr, *cs = cp + nc;
    dim_hist(g, dr, true, pt, rp, rs);
    dim_hist(g, dc, false, qt, cp, cs);
    // A target tile is local only when one source domain, its own, sends it everything.
    int64_t local = 0;
    for (int a = 0; a < ps; a++)
        for (int b = 0; b < pt; b++)
            for (int c = 0; c < qs; c++)
                for (int e = 0; e < qt; e++) {
                    int i = a * qs + c, j = b * qt + e;
                    int64_t n = rp[a * pt + b] * cp[c * qt + e];
                    if (n == 0 || j >= ncomp || sigma[j] >= D)
                        continue; // a component without tiles (checked by the caller)
                    int d = sigma[j];
                    pair_segs[(size_t)i * (size_t)D + (size_t)d] += n;
                    if (i != d) {
                        sent[i] += n;
                        recv[d] += n;
                    } else {
                        local += rs[a * pt + b] * cs[c * qt + e];
                    }
                }
    *volume_tiles = dr->nband * dc->nband - local;
    free(rp);
    return NT_OK;
}
