// From the unit square to the N x N tile grid: prefix-rounded counts, the Precise and Rounded
// discretisations (Lambert §1.3.2 and ch. 3), and the discrete cost.
#include <math.h>
#include <stdlib.h>

#include "hetero_int.h"

nt_status nt_hetero_counts(int m, const double *speeds, int64_t n, int64_t *counts)
{
    if (!counts)
        return nt_fail(NT_EINVAL, "hetero: counts is NULL");
    if (n < 1 || n > INT32_MAX)
        return nt_fail(NT_EINVAL, "hetero: grid side n = %lld, need 1..2^31-1", (long long)n);
    double *s = malloc((size_t)(m > 0 ? m : 1) * sizeof *s);
    if (!s)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    nt_status st = nt_hetero_normalize(m, speeds, s);
    if (st == NT_OK) {
        double n2 = (double)n * (double)n, pre = 0;
        int64_t prev = 0;
        for (int i = 0; i < m; i++) {
            pre += s[i];
            int64_t r = i == m - 1 ? n * n : (int64_t)floor(n2 * pre + 0.5);
            if (r > n * n)
                r = n * n;
            counts[i] = r - prev;
            prev = r;
        }
    }
    free(s);
    return st;
}

static nt_status check_grid(int m, const void *zones, int64_t n, const int *owner,
                            size_t *cells)
{
    if (m < 1 || !zones || !owner)
        return nt_fail(NT_EINVAL, "hetero: m = %d < 1 or a NULL array", m);
    if (n < 1 || n > INT32_MAX)
        return nt_fail(NT_EINVAL, "hetero: grid side n = %lld, need 1..2^31-1", (long long)n);
    size_t c, bytes;
    if (!nt_mul_size((size_t)n, (size_t)n, &c) || !nt_mul_size(c, sizeof(int), &bytes))
        return nt_fail(NT_ERANGE, "hetero: grid %lld x %lld too large", (long long)n,
                       (long long)n);
    *cells = c;
    return NT_OK;
}

// First integer index k with k >= v (up to rounding noise) and the last with k <= v.
static int64_t up(double v) { return (int64_t)ceil(v - 1e-9); }
static int64_t down(double v) { return (int64_t)floor(v + 1e-9); }

static int64_t clamp(int64_t v, int64_t n) { return v < 0 ? 0 : v > n ? n : v; }

static nt_status precise(int m, const nt_hetero_zone_t *zones, int64_t n, int *map,
                         int64_t *left)
{
    for (int i = 0; i < m; i++)
        for (int k = 0; k < zones[i].nrect; k++) {
            const het_rect *r = &zones[i].rect[k];
            int64_t j0 = clamp(up(r->x0 * (double)n), n), j1 = clamp(down(r->x1 * (double)n), n);
            int64_t i0 = clamp(up(r->y0 * (double)n), n), i1 = clamp(down(r->y1 * (double)n), n);
            for (int64_t a = i0; a < i1; a++)
                for (int64_t b = j0; b < j1 && left[i] > 0; b++)
                    if (map[a * n + b] < 0)
                        map[a * n + b] = i, left[i]--;
        }
    for (int64_t a = 0; a < n; a++)
        for (int64_t b = 0; b < n; b++) {
            if (map[a * n + b] >= 0)
                continue;
            int pick = -1;
            for (int64_t da = -1; da <= 1; da++)
                for (int64_t db = -1; db <= 1; db++) {
                    int64_t u = a + da, v = b + db;
                    if ((da || db) && u >= 0 && u < n && v >= 0 && v < n) {
                        int d = map[u * n + v];
                        if (d >= 0 && left[d] > 0 &&
                            (pick < 0 || left[d] < left[pick] ||
                             (left[d] == left[pick] && d < pick)))
                            pick = d;
                    }
                }
            if (pick < 0)
                for (int d = 0; d < m; d++)
                    if (left[d] > 0 && (pick < 0 || left[d] < left[pick]))
                        pick = d;
            if (pick < 0)
                return nt_fail(NT_EINVAL, "hetero: counts exhausted before tile (%lld, %lld)",
                               (long long)a, (long long)b);
            map[a * n + b] = pick;
            left[pick]--;
        }
    return NT_OK;
}

// Paint each tile whose centre (j + 1/2, i + 1/2) lies in [N x0, N x1) x [N y0, N y1).
static void rounded(int m, const nt_hetero_zone_t *zones, int64_t n, int *map)
{
    for (int i = 0; i < m; i++)
        for (int k = 0; k < zones[i].nrect; k++) {
            const het_rect *r = &zones[i].rect[k];
            double N = (double)n;
            int64_t j0 = clamp((int64_t)ceil(r->x0 * N - 0.5), n);
            int64_t j1 = clamp((int64_t)ceil(r->x1 * N - 0.5), n);
            int64_t i0 = clamp((int64_t)ceil(r->y0 * N - 0.5), n);
            int64_t i1 = clamp((int64_t)ceil(r->y1 * N - 0.5), n);
            for (int64_t a = i0; a < i1; a++)
                for (int64_t b = j0; b < j1; b++)
                    map[a * n + b] = i;
        }
}

nt_status nt_hetero_discretize(int m, const nt_hetero_zone_t *zones, const int64_t *counts,
                               int64_t n, nt_hetero_round mode, int *owner)
{
    size_t cells;
    nt_status st = check_grid(m, zones, n, owner, &cells);
    if (st)
        return st;
    if (mode != NT_HETERO_PRECISE && mode != NT_HETERO_ROUNDED)
        return nt_fail(NT_EINVAL, "hetero: unknown discretisation mode %d", (int)mode);
    int64_t *left = malloc((size_t)m * sizeof *left);
    int *map = malloc(cells * sizeof *map);
    if (!left || !map) {
        free(left), free(map);
        return nt_fail(NT_ENOMEM, "hetero: out of memory for a %lld x %lld map", (long long)n,
                       (long long)n);
    }
    for (size_t c = 0; c < cells; c++)
        map[c] = -1;
    if (mode == NT_HETERO_PRECISE) {
        int64_t total = 0;
        for (int i = 0; i < m && st == NT_OK; i++) {
            if (!counts || counts[i] < 0)
                st = nt_fail(NT_EINVAL, "hetero: counts missing or count %d negative", i);
            else
                total += left[i] = counts[i];
        }
        if (st == NT_OK && total != n * n)
            st = nt_fail(NT_EINVAL, "hetero: counts add up to %lld, the grid has %lld tiles",
                         (long long)total, (long long)(n * n));
        if (st == NT_OK)
            st = precise(m, zones, n, map, left);
    } else {
        rounded(m, zones, n, map);
        for (size_t c = 0; c < cells && st == NT_OK; c++)
            if (map[c] < 0)
                st = nt_fail(NT_EINVAL, "hetero: the centre of tile (%lld, %lld) is in no zone",
                             (long long)(c / (size_t)n), (long long)(c % (size_t)n));
    }
    if (st == NT_OK)
        for (size_t c = 0; c < cells; c++)
            owner[c] = map[c];
    free(left), free(map);
    return st;
}

nt_status nt_hetero_discrete_cost(int m, int64_t n, const int *owner, int64_t *cost,
                                  int64_t *per, int64_t *tiles)
{
    size_t cells;
    nt_status st = check_grid(m, owner, n, owner, &cells);
    if (st)
        return st;
    if (!cost)
        return nt_fail(NT_EINVAL, "hetero: cost is NULL");
    for (size_t c = 0; c < cells; c++)
        if (owner[c] < 0 || owner[c] >= m)
            return nt_fail(NT_EINVAL, "hetero: owner %d of tile (%lld, %lld) not in 0..%d",
                           owner[c], (long long)(c / (size_t)n), (long long)(c % (size_t)n),
                           m - 1);
    int64_t *cnt = calloc((size_t)m * 3, sizeof *cnt), *stamp = cnt + m, *tl = cnt + 2 * m;
    if (!cnt)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    // stamp[d] = 1 + the last row (then column) where d was counted.
    for (int64_t a = 0; a < n; a++)
        for (int64_t b = 0; b < n; b++) {
            int d = owner[a * n + b];
            tl[d]++;
            if (stamp[d] != a + 1)
                stamp[d] = a + 1, cnt[d]++;
        }
    for (int d = 0; d < m; d++)
        stamp[d] = 0;
    for (int64_t b = 0; b < n; b++)
        for (int64_t a = 0; a < n; a++) {
            int d = owner[a * n + b];
            if (stamp[d] != b + 1)
                stamp[d] = b + 1, cnt[d]++;
        }
    int64_t total = 0;
    for (int d = 0; d < m; d++) {
        total += cnt[d];
        if (per)
            per[d] = cnt[d];
        if (tiles)
            tiles[d] = tl[d];
    }
    *cost = total;
    free(cnt);
    return NT_OK;
}
