// ColumnBased (Beaumont et al. 2002; Lambert Algorithm 1.1): the optimal partition of the
// square into columns, and the left-right mirror that restores its former column order. With
// the speeds sorted, some optimal column partition cuts them into consecutive groups (swap
// argument in hetero.h), and a column of k zones of total area S costs 1 + k S whatever its
// position, so f(q) = min_r 1 + r (s_{q-r+1} + .. + s_q) + f(q-r) over the q smallest speeds;
// the thesis' extra index C (number of columns) is not needed.
#include <stdlib.h>

#include "hetero_int.h"

// cut[q] = start of the last column of the best partition of the q smallest speeds.
static nt_status column_cuts(const het_list *L, int *cut, double *best)
{
    int m = L->m;
    double *f = malloc((size_t)(m + 1) * sizeof *f);
    if (!f)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    f[0] = 0;
    for (int q = 1; q <= m; q++) {
        f[q] = -1;
        for (int r = 1; r <= q; r++) {
            double c = 1 + r * het_sum(L, q - r, q) + f[q - r];
            if (f[q] < 0 || c < f[q])
                f[q] = c, cut[q] = q - r;
        }
    }
    *best = f[m];
    free(f);
    return NT_OK;
}

nt_status nt_het_column(het_list *L)
{
    int m = L->m;
    int *cut = malloc((size_t)(m + 1) * sizeof *cut);
    if (!cut)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    double best;
    nt_status st = column_cuts(L, cut, &best);
    if (st) {
        free(cut);
        return st;
    }
    // Columns from the left, the largest speeds first: [cut[q], q) spans [1 - pre[q],
    // 1 - pre[a]]. The order does not change the cost; it changes how a rounding falls, and
    // this one is the order under which the thesis's Table 1.2 follows (docs/fidelity.md).
    for (int q = m; q > 0; q = cut[q]) {
        int a = cut[q];
        double x0 = q == m ? 0.0 : 1.0 - L->pre[q], x1 = a == 0 ? 1.0 : 1.0 - L->pre[a];
        double width = het_sum(L, a, q);
        double y = 0;
        for (int p = a; p < q; p++) {
            double y1 = p == q - 1 ? 1.0 : y + L->s[p] / width;
            het_rect r = {x0, y, x1, y1};
            nt_het_assign(L, p, &r, 1, 0);
            y = y1;
        }
    }
    free(cut);
    return NT_OK;
}

nt_status nt_hetero_column_dp(int m, const double *speeds, int *column, int *ncols,
                              double *cost)
{
    nt_hetero_zone_t *zones = malloc((size_t)(m > 0 ? m : 1) * sizeof *zones);
    if (!zones)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    het_list L;
    nt_status st = nt_het_list_init(m, speeds, zones, &L);
    free(zones);
    if (st)
        return st;
    int *cut = malloc((size_t)(L.m + 1) * sizeof *cut);
    double best = 0;
    if (!cut)
        st = nt_fail(NT_ENOMEM, "hetero: out of memory");
    else
        st = column_cuts(&L, cut, &best);
    if (st == NT_OK) {
        int nc = 0;
        for (int q = L.m; q > 0; q = cut[q])
            nc++;
        if (column) {
            for (int i = 0; i < m; i++)
                column[i] = -1;
            int c = 0;
            for (int q = L.m; q > 0; q = cut[q], c++)
                for (int p = cut[q]; p < q; p++)
                    column[L.idx[p]] = c;
        }
        if (ncols)
            *ncols = nc;
        if (cost)
            *cost = best;
    }
    free(cut);
    nt_het_list_free(&L);
    return st;
}

void nt_hetero_zones_mirror(int m, nt_hetero_zone_t *zones)
{
    for (int i = 0; i < m && zones; i++)
        for (int k = 0; k < zones[i].nrect; k++) {
            nt_hetero_rect_t *r = &zones[i].rect[k];
            double x0 = 1.0 - r->x1;
            r->x1 = 1.0 - r->x0;
            r->x0 = x0;
        }
}
