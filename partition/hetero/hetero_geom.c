// Geometry shared by the heterogeneous partitioners: speed checks, the sorted list, Lambert's
// splitting routines, zone areas and half-perimeters.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetero_int.h"

nt_status nt_hetero_normalize(int m, const double *speeds, double *out)
{
    if (m < 1)
        return nt_fail(NT_EINVAL, "hetero: m = %d, need at least one speed", m);
    if (!speeds || !out)
        return nt_fail(NT_EINVAL, "hetero: speeds or output array is NULL");
    double sum = 0;
    for (int i = 0; i < m; i++) {
        if (!isfinite(speeds[i]) || speeds[i] < 0)
            return nt_fail(NT_EINVAL, "hetero: speed %d (%g) is not a finite value >= 0", i,
                           speeds[i]);
        sum += speeds[i];
    }
    if (!(sum > 0))
        return nt_fail(NT_EINVAL, "hetero: the speeds add up to %g, need a positive sum", sum);
    // Only ratios matter: speeds whose sum overflows (1e308 twice) are scaled by the largest.
    double scale = 1;
    if (!isfinite(sum)) {
        scale = 0;
        for (int i = 0; i < m; i++)
            scale = speeds[i] > scale ? speeds[i] : scale;
        sum = 0;
        for (int i = 0; i < m; i++)
            sum += speeds[i] / scale;
    }
    for (int i = 0; i < m; i++)
        out[i] = speeds[i] / scale / sum;
    return NT_OK;
}

nt_status nt_hetero_lower_bound(int m, const double *speeds, double *lb)
{
    if (!lb)
        return nt_fail(NT_EINVAL, "hetero: lb is NULL");
    double *s = malloc((size_t)(m > 0 ? m : 1) * sizeof *s);
    if (!s)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    nt_status st = nt_hetero_normalize(m, speeds, s);
    if (st == NT_OK) {
        double b = 0;
        for (int i = 0; i < m; i++)
            b += 2 * sqrt(s[i]);
        *lb = b;
    }
    free(s);
    return st;
}

// Sort by (speed, caller index) so that equal speeds keep a deterministic order.
typedef struct keyed {
    double v;
    int i;
} keyed;

static int by_speed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

nt_status nt_het_list_init(int m, const double *speeds, nt_hetero_zone_t *zones, het_list *L)
{
    if (!zones)
        return nt_fail(NT_EINVAL, "hetero: zones is NULL");
    double *norm = malloc((size_t)(m > 0 ? m : 1) * sizeof *norm);
    if (!norm)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    nt_status st = nt_hetero_normalize(m, speeds, norm);
    if (st) {
        free(norm);
        return st;
    }
    int *all = malloc((size_t)m * sizeof *all);
    keyed *key = malloc((size_t)m * sizeof *key);
    double *s = malloc((size_t)m * sizeof *s), *pre = malloc((size_t)(m + 1) * sizeof *pre);
    if (!all || !key || !s || !pre) {
        free(norm), free(all), free(key), free(s), free(pre);
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    }
    int k = 0;
    for (int i = 0; i < m; i++)
        if (norm[i] > 0)
            key[k++] = (keyed){norm[i], i};
    qsort(key, (size_t)k, sizeof *key, by_speed);
    pre[0] = 0;
    for (int p = 0; p < k; p++) {
        all[p] = key[p].i;
        s[p] = key[p].v;
        pre[p + 1] = pre[p] + s[p];
    }
    free(norm), free(key);
    for (int i = 0; i < m; i++)
        zones[i].nrect = 0;
    *L = (het_list){k, s, pre, all, zones};
    return NT_OK;
}

void nt_het_list_free(het_list *L)
{
    free(L->s), free(L->pre), free(L->idx);
}

void nt_het_assign(het_list *L, int pos, const het_rect *r, int n, double ref)
{
    nt_hetero_zone_t *z = &L->zones[L->idx[pos]];
    z->nrect = 0;
    for (int k = 0; k < n && z->nrect < NT_HETERO_MAX_RECTS; k++)
        if (het_w(&r[k]) > 1e-12 * ref && het_h(&r[k]) > 1e-12 * ref)
            z->rect[z->nrect++] = r[k];
}

void nt_het_guillotine(const het_rect *R, double a, het_rect *R1, het_rect *R2)
{
    *R1 = *R2 = *R;
    if (het_h(R) <= het_w(R))
        R1->x1 = R2->x0 = R->x0 + a * het_w(R);
    else
        R1->y1 = R2->y0 = R->y0 + a * het_h(R);
}

void nt_het_square(const het_rect *R, double a, het_rect *sq, het_rect rest[2])
{
    double l = sqrt(a * het_w(R) * het_h(R));
    *sq = (het_rect){R->x0, R->y0, R->x0 + l, R->y0 + l};
    rest[0] = (het_rect){R->x0 + l, R->y0, R->x1, R->y0 + l};
    rest[1] = (het_rect){R->x0, R->y0 + l, R->x1, R->y1};
}

void nt_het_tripartition(const het_rect *R, double a, double b, het_rect *R1, het_rect *Z2,
                      het_rect *Z3)
{
    double w = het_w(R), h = het_h(R);
    if (h <= w) {
        double w1 = R->x0 + (a + b) * w, h1 = R->y0 + a / (a + b) * h;
        *R1 = (het_rect){R->x0, R->y0, w1, h1};
        *Z2 = (het_rect){R->x0, h1, w1, R->y1};
        *Z3 = (het_rect){w1, R->y0, R->x1, R->y1};
    } else {
        double w1 = R->x0 + a / (a + b) * w, h1 = R->y0 + (a + b) * h;
        *R1 = (het_rect){R->x0, R->y0, w1, h1};
        *Z2 = (het_rect){w1, R->y0, R->x1, h1};
        *Z3 = (het_rect){R->x0, h1, R->x1, R->y1};
    }
}

void nt_het_superposition(const het_rect *R, double a, double e, het_rect *R1, het_rect *Z2,
                       het_rect Z3[2])
{
    double w = het_w(R), h = het_h(R), l = sqrt(e * w * h);
    *R1 = (het_rect){R->x0, R->y0, R->x0 + l, R->y0 + l};
    if (h <= w) {
        // Z2 stands on the square, full remaining height; Z3 is the L around both.
        double x = R->x0 + (a - e) * h * w / (h - l);
        *Z2 = (het_rect){R->x0, R->y0 + l, x, R->y1};
        if (x >= R->x0 + l) {
            Z3[0] = (het_rect){R->x0 + l, R->y0, x, R->y0 + l};
            Z3[1] = (het_rect){x, R->y0, R->x1, R->y1};
        } else {
            Z3[0] = (het_rect){R->x0 + l, R->y0, R->x1, R->y0 + l};
            Z3[1] = (het_rect){x, R->y0 + l, R->x1, R->y1};
        }
    } else {
        double y = R->y0 + (a - e) * h * w / (w - l);
        *Z2 = (het_rect){R->x0 + l, R->y0, R->x1, y};
        if (y >= R->y0 + l) {
            Z3[0] = (het_rect){R->x0, R->y0 + l, R->x0 + l, y};
            Z3[1] = (het_rect){R->x0, y, R->x1, R->y1};
        } else {
            Z3[0] = (het_rect){R->x0, R->y0 + l, R->x0 + l, R->y1};
            Z3[1] = (het_rect){R->x0 + l, y, R->x1, R->y1};
        }
    }
}

double nt_hetero_zone_area(const nt_hetero_zone_t *z)
{
    double a = 0;
    for (int k = 0; k < z->nrect; k++)
        a += het_w(&z->rect[k]) * het_h(&z->rect[k]);
    return a;
}

// Measure of the union of n <= NT_HETERO_MAX_RECTS intervals [lo[k], hi[k]].
static double union_length(double *lo, double *hi, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
            double t = lo[j]; lo[j] = lo[j - 1]; lo[j - 1] = t;
            t = hi[j]; hi[j] = hi[j - 1]; hi[j - 1] = t;
        }
    double len = 0, a = 0, b = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || lo[i] > b) {
            len += b - a;
            a = lo[i], b = hi[i];
        } else if (hi[i] > b) {
            b = hi[i];
        }
    }
    return n ? len + (b - a) : 0;
}

double nt_hetero_zone_halfperimeter(const nt_hetero_zone_t *z)
{
    double xl[NT_HETERO_MAX_RECTS], xh[NT_HETERO_MAX_RECTS];
    double yl[NT_HETERO_MAX_RECTS], yh[NT_HETERO_MAX_RECTS];
    int n = 0;
    for (int k = 0; k < z->nrect && k < NT_HETERO_MAX_RECTS; k++) {
        const het_rect *r = &z->rect[k];
        if (!(het_w(r) > 0 && het_h(r) > 0))
            continue;
        xl[n] = r->x0, xh[n] = r->x1, yl[n] = r->y0, yh[n] = r->y1;
        n++;
    }
    return union_length(xl, xh, n) + union_length(yl, yh, n);
}

double nt_hetero_continuous_cost(int m, const nt_hetero_zone_t *zones)
{
    double c = 0;
    for (int i = 0; i < m; i++)
        c += nt_hetero_zone_halfperimeter(&zones[i]);
    return c;
}

int nt_het_reach(const het_list *L, int lo, int hi, double target)
{
    int a = lo + 1, b = hi;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (het_sum(L, lo, mid) >= target)
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}
