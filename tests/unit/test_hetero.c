// Heterogeneous continuous partitions: areas, exact cover, guarantees against the lower bound,
// ColumnBased against a brute force over all column structures, the m = 2 and m = 3 optima
// against exhaustive search on small tile grids.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/hetero.h"

#ifdef __SANITIZE_ADDRESS__
enum { SWEEP = 600 };
#else
enum { SWEEP = 10000 };
#endif

// Uniform (0, 1] speeds, or Pareto with shape 1.16 (the "80/20" tail) on odd draws.
static int random_speeds(nt_rng *r, int t, double *s)
{
    int m = 2 + (int)nt_rng_below(r, 63);
    for (int i = 0; i < m; i++) {
        double u = 1 - nt_rng_unit(r);
        s[i] = t & 1 ? pow(u, -1 / 1.16) : u;
    }
    return m;
}

static double lower_bound(int m, const double *s)
{
    double sum = 0, lb = 0;
    for (int i = 0; i < m; i++)
        sum += s[i];
    for (int i = 0; i < m; i++)
        lb += 2 * sqrt(s[i] / sum);
    return lb;
}

static double overlap(const nt_hetero_rect_t *a, const nt_hetero_rect_t *b)
{
    double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0);
    double h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
    return w > 0 && h > 0 ? w * h : 0;
}

// Areas equal the normalised speeds, rectangles lie in the unit square and (when pairs is
// set) no two rectangles overlap: with the areas adding up to 1 this is an exact cover.
static void check_cover(int m, const double *s, const nt_hetero_zone_t *z, bool pairs)
{
    double sum = 0;
    for (int i = 0; i < m; i++)
        sum += s[i];
    for (int i = 0; i < m; i++) {
        cr_assert(fabs(nt_hetero_zone_area(&z[i]) - s[i] / sum) <= 1e-12,
                  "zone %d area %.17g, speed %.17g", i, nt_hetero_zone_area(&z[i]), s[i] / sum);
        cr_assert(z[i].nrect >= 1 && z[i].nrect <= NT_HETERO_MAX_RECTS);
        for (int k = 0; k < z[i].nrect; k++) {
            const nt_hetero_rect_t *r = &z[i].rect[k];
            cr_assert(r->x0 >= -1e-12 && r->y0 >= -1e-12 && r->x1 <= 1 + 1e-12 &&
                      r->y1 <= 1 + 1e-12 && r->x0 < r->x1 && r->y0 < r->y1,
                      "zone %d rect %d [%g,%g]x[%g,%g]", i, k, r->x0, r->x1, r->y0, r->y1);
        }
    }
    if (!pairs)
        return;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < z[i].nrect; k++)
            for (int j = i; j < m; j++)
                for (int l = j == i ? k + 1 : 0; l < z[j].nrect; l++)
                    cr_assert(overlap(&z[i].rect[k], &z[j].rect[l]) <= 1e-12,
                              "zones %d and %d overlap", i, j);
}

static const nt_hetero_algo continuous[] = {NT_HETERO_COLUMN, NT_HETERO_RRP, NT_HETERO_SNRRP,
                                            NT_HETERO_NRRP};

Test(hetero, random_sweep_areas_cover_and_guarantees)
{
    nt_rng r = {2017};
    double s[64], worst[4] = {0};
    nt_hetero_zone_t z[64];
    for (int t = 0; t < SWEEP; t++) {
        int m = random_speeds(&r, t, s);
        double lb = lower_bound(m, s);
        for (int a = 0; a < 4; a++) {
            cr_assert_eq(nt_hetero_partition(continuous[a], m, s, z), NT_OK, "%s",
                         nt_last_error());
            check_cover(m, s, z, m <= 16 || t % 16 == 0);
            double ratio = nt_hetero_continuous_cost(m, z) / lb;
            cr_assert(ratio >= 1 - 1e-12 && ratio <= nt_hetero_guarantee(continuous[a]) + 1e-9,
                      "%s: ratio %.6f, m = %d, draw %d", nt_hetero_algo_name(continuous[a]),
                      ratio, m, t);
            worst[a] = fmax(worst[a], ratio);
        }
    }
    cr_log_info("worst ratios: column %.4f rrp %.4f snrrp %.4f nrrp %.4f", worst[0], worst[1],
                worst[2], worst[3]);
}

// Sampling check independent of the rectangle arithmetic: random points lie in exactly one
// zone (points on a boundary have probability zero).
Test(hetero, sampled_points_in_exactly_one_zone)
{
    nt_rng r = {7};
    double s[64];
    nt_hetero_zone_t z[64];
    for (int t = 0; t < 40; t++) {
        int m = random_speeds(&r, t, s);
        for (int a = 0; a < 4; a++) {
            cr_assert_eq(nt_hetero_partition(continuous[a], m, s, z), NT_OK);
            for (int p = 0; p < 2000; p++) {
                double x = nt_rng_unit(&r), y = nt_rng_unit(&r);
                int hits = 0;
                for (int i = 0; i < m; i++)
                    for (int k = 0; k < z[i].nrect; k++) {
                        const nt_hetero_rect_t *q = &z[i].rect[k];
                        hits += x > q->x0 && x < q->x1 && y > q->y0 && y < q->y1;
                    }
                cr_assert_eq(hits, 1, "%s: point (%g, %g) in %d zones",
                             nt_hetero_algo_name(continuous[a]), x, y, hits);
            }
        }
    }
}

// The worst case of SNRRP (Lambert Fig. 1.19): s_k = 2/3 of s_1 + .. + s_k for k > 1, taken a
// hair above 2/3 so that every level falls in the Square case. SNRRP approaches sqrt(3/2) and
// stays below it; NRRP stays below 2/sqrt(3).
Test(hetero, snrrp_worst_case_family)
{
    enum { M = 24 };
    double s[M], prefix = 1;
    nt_hetero_zone_t z[M];
    for (int k = M - 1; k > 0; k--) {
        s[k] = (2.0 / 3 + 1e-9) * prefix;
        prefix -= s[k];
    }
    s[0] = prefix;
    double lb = lower_bound(M, s);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_SNRRP, M, s, z), NT_OK);
    check_cover(M, s, z, true);
    double rs = nt_hetero_continuous_cost(M, z) / lb;
    cr_assert(rs > 1.2 && rs <= sqrt(1.5) + 1e-9, "snrrp ratio %.6f", rs);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_NRRP, M, s, z), NT_OK);
    check_cover(M, s, z, true);
    cr_assert(nt_hetero_continuous_cost(M, z) / lb <= 2 / sqrt(3) + 1e-9);
}

// Cost of every set partition of m speeds into columns (restricted growth strings), the
// minimum over all of them and over those made of consecutive runs of the sorted speeds.
static void brute_columns(int m, const double *s, double *best_all, double *best_consec)
{
    int g[8] = {0}, mx[8] = {0};
    *best_all = *best_consec = INFINITY;
    for (;;) {
        double sum[8] = {0};
        int cnt[8] = {0}, ng = 0;
        for (int i = 0; i < m; i++) {
            sum[g[i]] += s[i], cnt[g[i]]++;
            ng = g[i] + 1 > ng ? g[i] + 1 : ng;
        }
        double c = 0;
        for (int k = 0; k < ng; k++)
            c += 1 + cnt[k] * sum[k];
        *best_all = fmin(*best_all, c);
        bool consec = true; // s is sorted: groups must be runs of increasing labels
        for (int i = 1; i < m; i++)
            consec &= g[i] == g[i - 1] || g[i] == g[i - 1] + 1;
        if (consec)
            *best_consec = fmin(*best_consec, c);
        int i = m - 1;
        while (i > 0 && g[i] == mx[i - 1] + 1)
            i--;
        if (i == 0)
            return;
        g[i]++;
        for (int j = i + 1; j < m; j++)
            g[j] = 0;
        for (int j = 1; j < m; j++)
            mx[j] = mx[j - 1] > g[j] ? mx[j - 1] : g[j];
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(hetero, column_dp_equals_brute_force_over_all_column_partitions)
{
    nt_rng r = {99};
    for (int t = 0; t < 300; t++) {
        int m = 1 + t % 7;
        double s[8], sorted[8], sum = 0;
        for (int i = 0; i < m; i++) {
            double u = 1 - nt_rng_unit(&r);
            s[i] = t & 1 ? pow(u, -1 / 1.16) : u;
            sum += s[i];
        }
        for (int i = 0; i < m; i++)
            sorted[i] = s[i] / sum;
        qsort(sorted, (size_t)m, sizeof *sorted, cmp_double);
        double all, consec, dp;
        brute_columns(m, sorted, &all, &consec);
        // Sorting then cutting into consecutive runs loses nothing (the WLOG of the thesis).
        cr_assert(fabs(all - consec) <= 1e-12, "all %.15g consecutive %.15g", all, consec);
        int col[8], nc;
        cr_assert_eq(nt_hetero_column_dp(m, s, col, &nc, &dp), NT_OK);
        cr_assert(fabs(dp - all) <= 1e-12, "m = %d: dp %.15g brute force %.15g", m, dp, all);
        nt_hetero_zone_t z[8];
        cr_assert_eq(nt_hetero_partition(NT_HETERO_COLUMN, m, s, z), NT_OK);
        check_cover(m, s, z, true);
        cr_assert(fabs(nt_hetero_continuous_cost(m, z) - dp) <= 1e-12);
        // Each zone spans its column's width: the zones of a column share x0 and x1.
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++)
                if (col[i] == col[j])
                    cr_assert(fabs(z[i].rect[0].x0 - z[j].rect[0].x0) < 1e-15);
    }
}

// Smallest discrete cost (rows + columns touched, summed) of any colouring of a g x g grid
// with `colours` colours, by colour counts: best[k1 * 64 + k2] (k3 implied).
static void exhaustive_grid(int g, int colours, int *best)
{
    int cells = g * g;
    for (int k = 0; k < 64 * 64; k++)
        best[k] = 1 << 20;
    int c[25] = {0};
    for (;;) {
        unsigned rows[3] = {0}, cols[3] = {0};
        int cnt[3] = {0};
        for (int p = 0; p < cells; p++) {
            rows[c[p]] |= 1u << (p / g), cols[c[p]] |= 1u << (p % g);
            cnt[c[p]]++;
        }
        int cost = 0;
        for (int k = 0; k < colours; k++)
            cost += __builtin_popcount(rows[k]) + __builtin_popcount(cols[k]);
        int key = cnt[0] * 64 + cnt[1];
        if (cost < best[key])
            best[key] = cost;
        int p = 0;
        while (p < cells && c[p] == colours - 1)
            c[p++] = 0;
        if (p == cells)
            return;
        c[p]++;
    }
}

// The continuous optimum is at most the discrete optimum / g (a colouring is a partition of
// the square); equality where the optimal shape fits the grid (square corner with k a square,
// strips with k a multiple of g).
Test(hetero, exact_two_against_exhaustive_grid)
{
#ifdef __SANITIZE_ADDRESS__
    int g = 4;
#else
    int g = 5;
#endif
    static int best[64 * 64];
    exhaustive_grid(g, 2, best);
    for (int k = 1; k < g * g; k++) {
        double s[2] = {k, g * g - k};
        nt_hetero_zone_t z[2];
        cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 2, s, z), NT_OK);
        check_cover(2, s, z, true);
        double c = nt_hetero_continuous_cost(2, z) * g, d = best[k * 64 + (g * g - k)];
        cr_assert(c <= d + 1e-9, "k = %d: continuous %.6f > discrete %g", k, c, d);
        int kk = k < g * g - k ? k : g * g - k, a = (int)lround(sqrt(kk));
        bool fits = (a * a == kk && 4 * kk <= g * g) || (kk % g == 0 && 4 * kk >= g * g);
        if (fits)
            cr_assert(fabs(c - d) < 1e-9, "k = %d: continuous %.6f, discrete %g", k, c, d);
    }
}

Test(hetero, exact_three_against_exhaustive_grid_and_heuristics)
{
#ifdef __SANITIZE_ADDRESS__
    int g = 3;
#else
    int g = 4;
#endif
    static int best[64 * 64];
    exhaustive_grid(g, 3, best);
    for (int k1 = 1; k1 < g * g; k1++)
        for (int k2 = 1; k1 + k2 < g * g; k2++) {
            double s[3] = {k1, k2, g * g - k1 - k2};
            nt_hetero_zone_t z[3];
            cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 3, s, z), NT_OK);
            check_cover(3, s, z, true);
            double c = nt_hetero_continuous_cost(3, z) * g;
            cr_assert(c <= best[k1 * 64 + k2] + 1e-9, "(%d,%d): continuous %.6f > discrete %d",
                      k1, k2, c, best[k1 * 64 + k2]);
        }
    // No heuristic beats the optimum.
    nt_rng r = {3};
    for (int t = 0; t < 2000; t++) {
        double s[3];
        for (int i = 0; i < 3; i++)
            s[i] = t & 1 ? pow(1 - nt_rng_unit(&r), -1 / 1.16) : 1 - nt_rng_unit(&r);
        nt_hetero_zone_t z[3];
        cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 3, s, z), NT_OK);
        check_cover(3, s, z, true);
        double opt = nt_hetero_continuous_cost(3, z);
        cr_assert(opt >= lower_bound(3, s) - 1e-12);
        for (int a = 0; a < 4; a++) {
            cr_assert_eq(nt_hetero_partition(continuous[a], 3, s, z), NT_OK);
            cr_assert(nt_hetero_continuous_cost(3, z) >= opt - 1e-12, "%s beats exact",
                      nt_hetero_algo_name(continuous[a]));
        }
    }
}

Test(hetero, exact_two_formula_and_threshold)
{
    for (int k = 1; k < 1000; k++) {
        double s1 = k / 2000.0, s[2] = {1 - s1, s1};
        nt_hetero_zone_t z[2];
        cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 2, s, z), NT_OK);
        double want = 1 - s1 >= 3 * s1 ? 2 + 2 * sqrt(s1) : 3;
        cr_assert(fabs(nt_hetero_continuous_cost(2, z) - want) < 1e-12);
        cr_assert_eq(z[1].nrect, 1); // the smaller zone is a square or a strip
    }
}

Test(hetero, zero_speeds_get_empty_zones)
{
    double s[5] = {0, 3, 0, 1, 2};
    nt_hetero_zone_t z[5];
    for (int a = 0; a < 4; a++) {
        cr_assert_eq(nt_hetero_partition(continuous[a], 5, s, z), NT_OK);
        cr_assert_eq(z[0].nrect, 0);
        cr_assert_eq(z[2].nrect, 0);
        cr_assert(fabs(nt_hetero_zone_area(&z[1]) - 0.5) < 1e-12);
    }
    cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 5, s, z), NT_OK);
}

Test(hetero, errors_name_the_argument)
{
    nt_hetero_zone_t z[4];
    double bad[3] = {1, -2, 3};
    cr_assert_eq(nt_hetero_partition(NT_HETERO_NRRP, 3, bad, z), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "speed 1") != NULL, "%s", nt_last_error());
    double nan[2] = {1, NAN}, zero[2] = {0, 0}, ok[4] = {1, 2, 3, 4};
    cr_assert_eq(nt_hetero_partition(NT_HETERO_RRP, 2, nan, z), NT_EINVAL);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_RRP, 2, zero, z), NT_EINVAL);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_RRP, 0, ok, z), NT_EINVAL);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_RRP, 4, ok, NULL), NT_EINVAL);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 4, ok, z), NT_ENOTSUP);
    cr_assert_eq(nt_hetero_partition(NT_HETERO_SFCP, 4, ok, z), NT_ENOTSUP);
    cr_assert_eq(nt_hetero_partition((nt_hetero_algo)17, 4, ok, z), NT_EINVAL);
    nt_hetero_algo a;
    cr_assert_eq(nt_hetero_algo_parse("nrrp", &a), NT_OK);
    cr_assert_eq(a, NT_HETERO_NRRP);
    cr_assert_eq(nt_hetero_algo_parse("nrp", &a), NT_EINVAL);
    double lb;
    cr_assert_eq(nt_hetero_lower_bound(4, (double[]){1, 1, 1, 1}, &lb), NT_OK);
    cr_assert(fabs(lb - 4) < 1e-15);
}
