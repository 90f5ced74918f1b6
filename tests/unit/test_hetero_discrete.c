// Heterogeneous partitions on the tile grid: prefix-rounded counts, Precise and Rounded
// discretisation, the discrete cost against a naive recount, SFCP's Hilbert walk and bound,
// evaluation of the thesis platforms, and placement among domains of equal speed.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/hetero.h"

#ifdef __SANITIZE_ADDRESS__
enum { DRAWS = 40 };
#else
enum { DRAWS = 400 };
#endif

static int random_speeds(nt_rng *r, int t, int mmax, double *s)
{
    int m = 1 + (int)nt_rng_below(r, (uint64_t)mmax);
    for (int i = 0; i < m; i++) {
        double u = 1 - nt_rng_unit(r);
        s[i] = t & 1 ? pow(u, -1 / 1.16) : u;
    }
    return m;
}

// Naive recount: per domain, mark every row and column holding one of its tiles.
static int64_t naive_cost(int m, int64_t n, const int *owner, int64_t *tiles)
{
    char *row = calloc((size_t)(m * n), 1), *col = calloc((size_t)(m * n), 1);
    for (int d = 0; d < m; d++)
        tiles[d] = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            int d = owner[i * n + j];
            row[d * n + i] = col[d * n + j] = 1;
            tiles[d]++;
        }
    int64_t c = 0;
    for (int64_t k = 0; k < m * n; k++)
        c += row[k] + col[k];
    free(row), free(col);
    return c;
}

Test(hetero, counts_are_prefix_rounded)
{
    nt_rng r = {5};
    double s[64];
    int64_t c[64];
    for (int t = 0; t < 2000; t++) {
        int m = random_speeds(&r, t, 64, s);
        int64_t n = 1 + (int64_t)nt_rng_below(&r, 300);
        cr_assert_eq(nt_hetero_counts(m, s, n, c), NT_OK);
        double sum = 0, pre = 0;
        for (int i = 0; i < m; i++)
            sum += s[i];
        int64_t total = 0;
        for (int i = 0; i < m; i++) {
            double want = s[i] / sum * (double)(n * n);
            cr_assert(c[i] >= floor(want) - 1e-9 && c[i] <= ceil(want) + 1e-9,
                      "count %lld for %.3f tiles", (long long)c[i], want);
            pre += s[i] / sum;
            total += c[i];
            if (i < m - 1) // the prefix is Round(N^2 * prefix) up to rounding noise
                cr_assert(llabs(total - llround(pre * (double)(n * n))) <= 1);
        }
        cr_assert_eq(total, n * n);
    }
}

static const nt_hetero_algo algos[] = {NT_HETERO_COLUMN, NT_HETERO_RRP, NT_HETERO_SNRRP,
                                       NT_HETERO_NRRP};

Test(hetero, precise_gives_exact_counts_and_cost_matches_naive)
{
    nt_rng r = {11};
    double s[64];
    int64_t counts[64], tiles[64], tiles2[64], per[64];
    nt_hetero_zone_t z[64];
    for (int t = 0; t < DRAWS; t++) {
        int m = random_speeds(&r, t, 64, s);
        int64_t n = 1 + (int64_t)nt_rng_below(&r, 64);
        int *owner = malloc((size_t)(n * n) * sizeof *owner);
        cr_assert_eq(nt_hetero_counts(m, s, n, counts), NT_OK);
        for (int a = 0; a < 4; a++) {
            cr_assert_eq(nt_hetero_partition(algos[a], m, s, z), NT_OK);
            cr_assert_eq(nt_hetero_discretize(m, z, counts, n, NT_HETERO_PRECISE, owner), NT_OK,
                         "%s", nt_last_error());
            int64_t cost, want = naive_cost(m, n, owner, tiles2);
            cr_assert_eq(nt_hetero_discrete_cost(m, n, owner, &cost, per, tiles), NT_OK);
            cr_assert_eq(cost, want);
            int64_t sum_per = 0;
            for (int i = 0; i < m; i++) {
                cr_assert_eq(tiles[i], counts[i], "%s: domain %d has %lld tiles, owes %lld",
                             nt_hetero_algo_name(algos[a]), i, (long long)tiles[i],
                             (long long)counts[i]);
                cr_assert_eq(tiles2[i], counts[i]);
                sum_per += per[i];
            }
            cr_assert_eq(sum_per, cost);
        }
        free(owner);
    }
}

// Rounded: every tile belongs to the zone containing its centre (naive point location).
Test(hetero, rounded_follows_tile_centres)
{
    nt_rng r = {13};
    double s[64];
    nt_hetero_zone_t z[64];
    for (int t = 0; t < DRAWS / 4; t++) {
        int m = random_speeds(&r, t, 64, s);
        int64_t n = 1 + (int64_t)nt_rng_below(&r, 60);
        int *owner = malloc((size_t)(n * n) * sizeof *owner);
        for (int a = 0; a < 4; a++) {
            cr_assert_eq(nt_hetero_partition(algos[a], m, s, z), NT_OK);
            cr_assert_eq(nt_hetero_discretize(m, z, NULL, n, NT_HETERO_ROUNDED, owner), NT_OK);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    double x = (j + 0.5) / (double)n, y = (i + 0.5) / (double)n;
                    const nt_hetero_zone_t *q = &z[owner[i * n + j]];
                    bool in = false;
                    for (int k = 0; k < q->nrect; k++)
                        in |= x >= q->rect[k].x0 - 1e-12 && x <= q->rect[k].x1 + 1e-12 &&
                              y >= q->rect[k].y0 - 1e-12 && y <= q->rect[k].y1 + 1e-12;
                    cr_assert(in, "tile (%lld, %lld) outside its zone", (long long)i,
                              (long long)j);
                }
        }
        free(owner);
    }
}

// With one tile per domain, domain d marks position d of the curve: consecutive positions
// share a row or a column, and every aligned 2^q x 2^q block is one run of the curve.
Test(hetero, sfcp_walks_a_hilbert_curve)
{
    enum { N = 16 };
    int64_t ones[N * N];
    int owner[N * N], where[N * N];
    for (int d = 0; d < N * N; d++)
        ones[d] = 1;
    cr_assert_eq(nt_hetero_sfcp(N * N, ones, N, owner), NT_OK);
    for (int c = 0; c < N * N; c++)
        where[owner[c]] = c;
    for (int d = 1; d < N * N; d++) {
        int a = where[d - 1], b = where[d];
        int dist = abs(a / N - b / N) + abs(a % N - b % N);
        cr_assert_eq(dist, 1, "positions %d and %d are not neighbours", d - 1, d);
    }
    for (int q = 1; q < N; q *= 2)
        for (int bi = 0; bi < N; bi += q)
            for (int bj = 0; bj < N; bj += q) {
                int lo = N * N, hi = -1;
                for (int i = bi; i < bi + q; i++)
                    for (int j = bj; j < bj + q; j++) {
                        lo = owner[i * N + j] < lo ? owner[i * N + j] : lo;
                        hi = owner[i * N + j] > hi ? owner[i * N + j] : hi;
                    }
                cr_assert_eq(hi - lo + 1, q * q, "block (%d,%d) of side %d is not one run", bi,
                             bj, q);
            }
}

// Theorem 1.35: every SFCP zone has p(Z) <= 3 sqrt(3) / sqrt(11) * 2 sqrt(|Z|).
Test(hetero, sfcp_zones_within_bound)
{
    nt_rng r = {17};
    double s[64];
    int64_t counts[64], per[64], tiles[64];
    const double bound = 3 * sqrt(3.0) / sqrt(11.0);
    for (int t = 0; t < DRAWS; t++) {
        int m = random_speeds(&r, t, 64, s);
        int64_t n = (int64_t)1 << (1 + nt_rng_below(&r, 7));
        int *owner = malloc((size_t)(n * n) * sizeof *owner);
        cr_assert_eq(nt_hetero_counts(m, s, n, counts), NT_OK);
        cr_assert_eq(nt_hetero_sfcp(m, counts, n, owner), NT_OK);
        int64_t cost;
        cr_assert_eq(nt_hetero_discrete_cost(m, n, owner, &cost, per, tiles), NT_OK);
        cr_assert_eq(cost, naive_cost(m, n, owner, tiles));
        for (int i = 0; i < m; i++) {
            cr_assert_eq(tiles[i], counts[i]);
            if (counts[i])
                cr_assert((double)per[i] <= bound * 2 * sqrt((double)counts[i]) + 1e-9,
                          "zone of %lld tiles costs %lld", (long long)counts[i],
                          (long long)per[i]);
        }
        free(owner);
    }
    int owner[36];
    cr_assert_eq(nt_hetero_sfcp(1, (int64_t[]){36}, 6, owner), NT_EINVAL);
}

Test(hetero, evaluate_thesis_platforms)
{
    const char *names[] = {"homo-5", "homo-20", "hetero-1", "hetero-4"};
    for (int p = 0; p < 4; p++) {
        double s[20];
        int m;
        cr_assert_eq(nt_hetero_platform(names[p], 20, &m, s), NT_OK);
        for (int a = 0; a <= NT_HETERO_SFCP; a++) {
            int64_t n = a == NT_HETERO_SFCP ? 64 : 50;
            nt_hetero_eval_t e;
            cr_assert_eq(nt_hetero_evaluate((nt_hetero_algo)a, NT_HETERO_PRECISE, m, s, n, &e),
                         NT_OK);
            nt_tilemap_t *map;
            cr_assert_eq(nt_hetero_tilemap((nt_hetero_algo)a, NT_HETERO_PRECISE, m, s, n, &map),
                         NT_OK);
            int64_t tiles[20];
            cr_assert_eq(e.cost, naive_cost(m, n, map->owner, tiles));
            cr_assert(fabs(e.ratio - (double)e.cost / ((double)n * e.lower_bound)) < 1e-12);
            cr_assert(e.ratio >= 1 - 1e-9 && e.continuous_ratio >= 1 - 1e-12);
            cr_assert(e.makespan_ratio >= 1 - 1e-12 && e.makespan_ratio < 1.1);
            nt_tilemap_destroy(map);
        }
    }
    int m;
    double s[4];
    cr_assert_eq(nt_hetero_platform("hetero-4", 4, &m, s), NT_EINVAL);
    cr_assert_eq(nt_hetero_platform("cray", 20, &m, s), NT_EINVAL);
}

// Placement: the optimum over labellings that keep every component on a domain of its speed,
// against enumeration of all such permutations.
Test(hetero, place_respects_speeds_and_is_optimal)
{
    enum { P = 6 };
    double speeds[P] = {2, 1, 2, 1, 1, 3};
    nt_tilemap_t *part, *cur;
    cr_assert_eq(nt_hetero_tilemap(NT_HETERO_NRRP, NT_HETERO_PRECISE, P, speeds, 24, &part),
                 NT_OK);
    nt_rng r = {23};
    for (int t = 0; t < 20; t++) {
        cr_assert_eq(nt_tilemap_create(24, 24, P, &cur), NT_OK);
        // A scrambled copy of the partition: some tiles elsewhere, labels permuted.
        int perm[P] = {2, 4, 0, 1, 3, 5};
        for (int64_t c = 0; c < 24 * 24; c++)
            cur->owner[c] = nt_rng_below(&r, 4) ? perm[part->owner[c]] : (int)nt_rng_below(&r, P);
        int sigma[P];
        nt_cost_t cost;
        cr_assert_eq(nt_hetero_place(cur, part, speeds, NT_MATCH_VOLUME, sigma, &cost), NT_OK,
                     "%s", nt_last_error());
        for (int j = 0; j < P; j++)
            cr_assert_eq(speeds[sigma[j]], speeds[j], "component %d placed on domain %d", j,
                         sigma[j]);
        // Enumerate all permutations (Heap's algorithm) that respect the speeds.
        int64_t best = INT64_MAX;
        int a[P], c[P] = {0};
        for (int i = 0; i < P; i++)
            a[i] = i;
        for (int i = 0;;) {
            bool okp = true;
            for (int j = 0; j < P; j++)
                okp &= speeds[a[j]] == speeds[j];
            if (okp) {
                int64_t vol = 0;
                for (int64_t q = 0; q < 24 * 24; q++)
                    vol += cur->owner[q] != a[part->owner[q]];
                best = vol < best ? vol : best;
            }
            while (i < P && c[i] >= i)
                c[i++] = 0;
            if (i == P)
                break;
            int k = i % 2 ? c[i] : 0, tmp = a[k];
            a[k] = a[i], a[i] = tmp;
            c[i]++;
            i = 0;
        }
        cr_assert_eq(cost.volume, best);
        nt_tilemap_destroy(cur);
    }
    nt_tilemap_destroy(part);
    unsigned char allowed[4];
    cr_assert_eq(nt_hetero_allowed(2, (double[]){1, 2}, 2, (double[]){2, 1}, allowed), NT_OK);
    cr_assert(!allowed[0] && allowed[1] && allowed[2] && !allowed[3]);
}

Test(hetero, discretize_rejects_bad_input)
{
    nt_hetero_zone_t z[2];
    double s[2] = {1, 3};
    int owner[16];
    cr_assert_eq(nt_hetero_partition(NT_HETERO_EXACT, 2, s, z), NT_OK);
    cr_assert_eq(nt_hetero_discretize(2, z, (int64_t[]){4, 11}, 4, NT_HETERO_PRECISE, owner),
                 NT_EINVAL);
    cr_assert_eq(nt_hetero_discretize(2, z, (int64_t[]){-1, 17}, 4, NT_HETERO_PRECISE, owner),
                 NT_EINVAL);
    cr_assert_eq(nt_hetero_discretize(2, z, NULL, 4, NT_HETERO_PRECISE, owner), NT_EINVAL);
    cr_assert_eq(nt_hetero_discretize(2, z, (int64_t[]){4, 12}, 0, NT_HETERO_PRECISE, owner),
                 NT_EINVAL);
    cr_assert_eq(nt_hetero_discretize(2, z, (int64_t[]){4, 12}, 4, NT_HETERO_PRECISE, owner),
                 NT_OK);
    int64_t cost;
    cr_assert_eq(nt_hetero_discrete_cost(2, 4, owner, &cost, NULL, NULL), NT_OK);
    cr_assert_eq(cost, 2 + 2 + 4 + 4); // a 2 x 2 corner and its L
    owner[3] = 5;
    cr_assert_eq(nt_hetero_discrete_cost(2, 4, owner, &cost, NULL, NULL), NT_EINVAL);
}
