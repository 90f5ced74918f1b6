// From the unit square to the N x N tile grid: prefix-rounded counts, the Precise and Rounded
// discretisations (Lambert ch. 3), Accurate (§1.3.2), and the discrete cost.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

// Tile range of the zone side [v0, v1) scaled by n. Centre rule (ROUNDED): the tiles whose
// centre j + 1/2 lies in [n v0, n v1). Corner rule (ROUNDED_CORNER): the tiles whose first
// corner j lies there (both ends rounded up, within 1e-9 of a tile), which is how the thesis
// rounds: its Figure 1.7 gives 10 tiles in 4 columns widths 3, 2, 3, 2, and Table 1.2 follows
// (docs/fidelity.md).
static void round_range(double v0, double v1, int64_t n, bool corner, int64_t *a, int64_t *b)
{
    double N = (double)n, shift = corner ? 1e-9 : 0.5;
    *a = clamp((int64_t)ceil(v0 * N - shift), n);
    *b = clamp((int64_t)ceil(v1 * N - shift), n);
}

// Paint each zone's tiles under the centre or the corner rule.
static void rounded(int m, const nt_hetero_zone_t *zones, int64_t n, bool corner, int *map)
{
    for (int i = 0; i < m; i++)
        for (int k = 0; k < zones[i].nrect; k++) {
            const het_rect *r = &zones[i].rect[k];
            int64_t j0, j1, i0, i1;
            round_range(r->x0, r->x1, n, corner, &j0, &j1);
            round_range(r->y0, r->y1, n, corner, &i0, &i1);
            for (int64_t a = i0; a < i1; a++)
                for (int64_t b = j0; b < j1; b++)
                    map[a * n + b] = i;
        }
}

// ---- Accurate (Lambert §1.3.2, Figures 1.8 and 1.9) -----------------------------------------
// The partition is read as a guillotine tree, whose cells are then dealt out along it: at a cut
// the group's cells (grp[c] == its label) are walked column by column (vertical line) or row by
// row (horizontal line), and the first ones, as many as the zones before the line owe, go to
// that side. A column partition (ColumnBased) is cut at all its column boundaries first, then
// each column row by row, as §1.3.2 describes. Otherwise the tree is RRP's (Algorithm 1.3):
// across the longer side of the current rectangle (along it if no line crosses that way), at
// the first line that leaves at least a third of the area before it, else at the last line.
// Zones of equal speeds often line up across several subtrees; choosing lines this way keeps
// to the algorithm's own tree rather than to such coincidences.

typedef struct acc_ctx {
    const nt_hetero_zone_t *zones;
    const int64_t *counts;
    int64_t n;
    int *grp;   // n * n labels: the group (or, at the end, -1 - the zone) of each cell
    int next;   // next unused group label
} acc_ctx;

static const double ACC_EPS = 1e-9;

static double acc_lo(const acc_ctx *c, int z, bool vertical)
{
    return vertical ? c->zones[z].rect[0].x0 : c->zones[z].rect[0].y0;
}

static double acc_hi(const acc_ctx *c, int z, bool vertical)
{
    return vertical ? c->zones[z].rect[0].x1 : c->zones[z].rect[0].y1;
}

// Sort ids by their start along the axis (insertion sort: groups are small and mostly sorted).
static void acc_sort(const acc_ctx *c, int *ids, int k, bool vertical)
{
    for (int a = 1; a < k; a++) {
        int z = ids[a], b = a;
        for (; b > 0 && acc_lo(c, ids[b - 1], vertical) > acc_lo(c, z, vertical); b--)
            ids[b] = ids[b - 1];
        ids[b] = z;
    }
}

// Sort ids along the axis and find the slabs between the lines no zone crosses: slab t holds
// ids[start[t] .. start[t+1]-1], start[ns] = k. Returns ns.
static int acc_slabs(const acc_ctx *c, int *ids, int k, bool vertical, int *start)
{
    acc_sort(c, ids, k, vertical);
    int ns = 0;
    double end = 0;
    for (int t = 0; t < k; t++) {
        if (t == 0 || acc_lo(c, ids[t], vertical) >= end - ACC_EPS)
            start[ns++] = t;
        double h = acc_hi(c, ids[t], vertical);
        end = t == 0 || h > end ? h : end;
    }
    start[ns] = k;
    return ns;
}

static int64_t acc_owed(const acc_ctx *c, const int *ids, int a, int b)
{
    int64_t t = 0;
    for (int z = a; z < b; z++)
        t += c->counts[ids[z]];
    return t;
}

// Hand the first `take` cells of group `from` (column-major if vertical, else row-major) to
// group a, the rest to group b.
static void acc_walk(acc_ctx *c, int from, bool vertical, int64_t take, int a, int b)
{
    int64_t n = c->n;
    for (int64_t u = 0; u < n; u++)
        for (int64_t v = 0; v < n; v++) {
            int64_t cell = vertical ? v * n + u : u * n + v;
            if (c->grp[cell] == from)
                c->grp[cell] = take-- > 0 ? a : b;
        }
}

// Deal group `label` out to its ns slabs in turn; slab[t] receives the label of slab t.
static void acc_deal(acc_ctx *c, const int *ids, const int *start, int ns, bool vertical,
                     int label, int *slab)
{
    for (int t = 0; t + 1 < ns; t++) {
        slab[t] = c->next++;
        int rest = c->next++;
        acc_walk(c, label, vertical, acc_owed(c, ids, start[t], start[t + 1]), slab[t], rest);
        label = rest;
    }
    slab[ns - 1] = label;
}

static void acc_leaf(acc_ctx *c, int zone, int label)
{
    for (int64_t cell = 0; cell < c->n * c->n; cell++)
        if (c->grp[cell] == label)
            c->grp[cell] = -1 - zone;
}

// Is every pair of zones either in one column (same x interval) or side by side?
static bool acc_is_columns(const acc_ctx *c, int *ids, int k)
{
    acc_sort(c, ids, k, true);
    for (int t = 1; t < k; t++) {
        double x0 = acc_lo(c, ids[t], true), px0 = acc_lo(c, ids[t - 1], true);
        double x1 = acc_hi(c, ids[t], true), px1 = acc_hi(c, ids[t - 1], true);
        bool same = fabs(x0 - px0) < ACC_EPS && fabs(x1 - px1) < ACC_EPS;
        if (!same && x0 < px1 - ACC_EPS)
            return false;
    }
    return true;
}

// ColumnBased-Accurate: columns left to right, then each column's zones top to bottom. start
// and slab hold 2k + 2 entries of scratch each.
static nt_status acc_columns(acc_ctx *c, int *ids, int k, int *start, int *slab)
{
    int ns = acc_slabs(c, ids, k, true, start);
    acc_deal(c, ids, start, ns, true, c->next++, slab);
    for (int t = 0; t < ns; t++) {
        int a = start[t], b = start[t + 1], col = slab[t];
        // start and slab beyond index ns are free: reuse them for the column's zones.
        int zs = acc_slabs(c, ids + a, b - a, false, start + ns + 1);
        if (zs != b - a)
            return nt_fail(NT_EINVAL, "hetero: zones overlap in column %d", t);
        acc_deal(c, ids + a, start + ns + 1, zs, false, col, slab + ns);
        for (int z = 0; z < zs; z++)
            acc_leaf(c, ids[a + z], slab[ns + z]);
    }
    return NT_OK;
}

// RRP-Accurate on the group `label` (zones ids[0..k-1] inside R); start holds k + 1 entries of
// scratch.
static nt_status acc_rrp(acc_ctx *c, int *ids, int k, het_rect R, int label, int *start)
{
    if (k == 1) {
        acc_leaf(c, ids[0], label);
        return NT_OK;
    }
    bool vertical = het_w(&R) >= het_h(&R);
    int ns = acc_slabs(c, ids, k, vertical, start);
    if (ns < 2)
        ns = acc_slabs(c, ids, k, vertical = !vertical, start);
    if (ns < 2)
        return nt_fail(NT_ENOTSUP, "hetero: Accurate needs a guillotine partition (ColumnBased "
                                   "or RRP); %d zones have no straight cut", k);
    double area = 0, before = 0;
    for (int z = 0; z < k; z++)
        area += nt_hetero_zone_area(&c->zones[ids[z]]);
    int cut = ns - 1;
    for (int t = 0; t + 1 < ns && cut == ns - 1; t++) {
        for (int z = start[t]; z < start[t + 1]; z++)
            before += nt_hetero_zone_area(&c->zones[ids[z]]);
        if (before >= area / 3 * (1 - ACC_EPS))
            cut = t + 1;
    }
    int m1 = start[cut], a = c->next++, b = c->next++;
    double v = acc_lo(c, ids[m1], vertical);
    acc_walk(c, label, vertical, acc_owed(c, ids, 0, m1), a, b);
    het_rect R1 = R, R2 = R;
    if (vertical)
        R1.x1 = R2.x0 = v;
    else
        R1.y1 = R2.y0 = v;
    nt_status st = acc_rrp(c, ids, m1, R1, a, start);
    return st ? st : acc_rrp(c, ids + m1, k - m1, R2, b, start);
}

// Every zone must be one rectangle, or empty with no tiles (a zero speed).
static nt_status accurate(int m, const nt_hetero_zone_t *zones, const int64_t *counts, int64_t n,
                          int *map)
{
    // Scratch: ids, then start and slab with room for a column's zones after its columns.
    int *ids = malloc(((size_t)m * 5 + 4) * sizeof *ids);
    if (!ids)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    int *start = ids + m, *slab = start + 2 * m + 2, k = 0;
    nt_status st = NT_OK;
    for (int i = 0; i < m && st == NT_OK; i++) {
        if (zones[i].nrect == 1)
            ids[k++] = i;
        else if (zones[i].nrect > 1)
            st = nt_fail(NT_ENOTSUP, "hetero: Accurate needs one rectangle per zone; zone %d "
                                     "has %d", i, zones[i].nrect);
        else if (counts[i] > 0)
            st = nt_fail(NT_EINVAL, "hetero: zone %d is empty but owes %lld tiles", i,
                         (long long)counts[i]);
    }
    acc_ctx c = {zones, counts, n, map, 0};
    for (int64_t cell = 0; cell < n * n; cell++)
        map[cell] = 0;
    if (st == NT_OK && acc_is_columns(&c, ids, k))
        st = acc_columns(&c, ids, k, start, slab);
    else if (st == NT_OK)
        st = acc_rrp(&c, ids, k, (het_rect){0, 0, 1, 1}, c.next++, start);
    for (int64_t cell = 0; cell < n * n && st == NT_OK; cell++)
        map[cell] = -map[cell] - 1;
    free(ids);
    return st;
}

nt_status nt_hetero_discretize(int m, const nt_hetero_zone_t *zones, const int64_t *counts,
                               int64_t n, nt_hetero_round mode, int *owner)
{
    size_t cells;
    nt_status st = check_grid(m, zones, n, owner, &cells);
    if (st)
        return st;
    bool rounding = mode == NT_HETERO_ROUNDED || mode == NT_HETERO_ROUNDED_CORNER;
    if (mode != NT_HETERO_PRECISE && mode != NT_HETERO_ACCURATE && !rounding)
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
    if (!rounding) {
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
            st = mode == NT_HETERO_PRECISE ? precise(m, zones, n, map, left)
                                           : accurate(m, zones, counts, n, map);
    } else {
        rounded(m, zones, n, mode == NT_HETERO_ROUNDED_CORNER, map);
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
