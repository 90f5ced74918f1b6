// Herrmann 2016 Table 1 (docs/fidelity.md): the readings of SkewedSet and ChunkSet computed by
// samplers written here from the paper's words (own random stream, own loops), against the
// generators of numatile/dist.h: means of volume and steps over fixed seeds must agree within
// four standard errors. With NT_FIDELITY_TABLE=1 in the environment, the `table` tests print
// the tables of docs/fidelity.md (every reading, n = 16, 34, 88).
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"

enum { D = 16, G = 4, NOBJ = 4 };

static const nt_match_objective objs[NOBJ] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME,
                                              NT_MATCH_STEPS, NT_MATCH_LEX};

// splitmix64: a stream independent of the library's generator.
static uint64_t sm_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double sm_unit(uint64_t *s) { return (double)(sm_next(s) >> 11) * 0x1.0p-53; }

static int sm_below(uint64_t *s, int n) { return (int)(sm_unit(s) * n); }

// ---- statistics of one set of instances -------------------------------------------------------

// Sums over instances: volume and steps per objective, the half-duplex bound max_k (s_k + r_k)
// of the canonical and the volume labellings and its optimum over labellings, and the busiest
// domain's load.
typedef struct stats {
    int k;
    double vol[NOBJ], vol2[NOBJ], steps[NOBJ], steps2[NOBJ];
    double half_can, half_vol, half_opt, load;
} stats;

static double mean(double s, int k) { return s / k; }

static double sem(double s, double s2, int k)
{
    double m = s / k, v = s2 / k - m * m;
    return sqrt((v > 0 ? v : 0) / k);
}

// Half-duplex weight of domain k holding component j: everything it sends plus receives.
static int64_t half_weight(const int64_t *cnt, const int64_t *R, const int64_t *C, int k, int j)
{
    return R[k] + C[j] - 2 * cnt[k * D + j];
}

static void half_duplex(const int64_t *cnt, const int *sigma_vol, stats *st)
{
    int64_t R[D] = {0}, C[D] = {0}, w[D * D], mx = 0, can = 0, load = 0, opt = 0;
    int c2r[D];
    for (int i = 0; i < D; i++)
        for (int j = 0; j < D; j++)
            R[i] += cnt[i * D + j], C[j] += cnt[i * D + j];
    for (int k = 0; k < D; k++)
        for (int j = 0; j < D; j++)
            w[k * D + j] = half_weight(cnt, R, C, k, j);
    for (int j = 0; j < D; j++) {
        int64_t h = w[sigma_vol[j] * D + j];
        mx = h > mx ? h : mx;
        can = w[j * D + j] > can ? w[j * D + j] : can;
    }
    for (int k = 0; k < D; k++)
        load = R[k] > load ? R[k] : load;
    cr_assert_eq(nt_match_bottleneck(w, D, c2r, &opt), NT_OK);
    st->half_can += (double)can;
    st->half_vol += (double)mx;
    st->half_opt += (double)opt;
    st->load += (double)load;
}

// Add one instance: ini against bc2d:4x4 (tar) on n x n tiles.
static void add_instance(const int *ini, const int *tar, int64_t tiles, stats *st)
{
    int64_t cnt[D * D];
    cr_assert_eq(nt_counts_compute(tiles, ini, D, tar, D, NULL, cnt, NULL), NT_OK);
    nt_match_problem_t prob = {.p_ini = D, .p_tar = D, .p_dom = D, .counts = cnt};
    int sigma[D], sigma_vol[D];
    for (int o = 0; o < NOBJ; o++) {
        nt_cost_t c;
        cr_assert_eq(nt_match_solve(&prob, objs[o], sigma, &c), NT_OK);
        if (objs[o] == NT_MATCH_VOLUME)
            memcpy(sigma_vol, sigma, sizeof sigma);
        st->vol[o] += (double)c.volume;
        st->vol2[o] += (double)c.volume * (double)c.volume;
        st->steps[o] += (double)c.steps;
        st->steps2[o] += (double)c.steps * (double)c.steps;
    }
    half_duplex(cnt, sigma_vol, st);
    st->k++;
}

// The two sets agree on every mean within 4 standard errors (plus 0.05 for exact ties).
static void assert_agree(const char *what, const stats *a, const stats *b)
{
    for (int o = 0; o < NOBJ; o++) {
        double tv = 4 * hypot(sem(a->vol[o], a->vol2[o], a->k), sem(b->vol[o], b->vol2[o], b->k));
        double ts = 4 * hypot(sem(a->steps[o], a->steps2[o], a->k),
                              sem(b->steps[o], b->steps2[o], b->k));
        double va = mean(a->vol[o], a->k), vb = mean(b->vol[o], b->k);
        double sa = mean(a->steps[o], a->k), sb = mean(b->steps[o], b->k);
        cr_assert(fabs(va - vb) <= tv + 0.05, "%s %s volume: generator %.2f, sampler %.2f, "
                  "tolerance %.2f", what, nt_match_objective_name(objs[o]), va, vb, tv);
        cr_assert(fabs(sa - sb) <= ts + 0.05, "%s %s steps: generator %.2f, sampler %.2f, "
                  "tolerance %.2f", what, nt_match_objective_name(objs[o]), sa, sb, ts);
    }
}

static bool table_wanted(void)
{
    const char *e = getenv("NT_FIDELITY_TABLE");
    return e && *e && strcmp(e, "0") != 0;
}

static void print_row(const char *name, int n, const stats *s)
{
    int k = s->k;
    printf("%-34s n=%2d | vol %7.1f %7.1f %7.1f %7.1f | steps %6.1f %6.1f %6.1f %6.1f | "
           "half-duplex can %6.1f vol %6.1f opt %6.1f | max load/mean %.2f\n", name, n,
           mean(s->vol[0], k), mean(s->vol[1], k), mean(s->vol[2], k), mean(s->vol[3], k),
           mean(s->steps[0], k), mean(s->steps[1], k), mean(s->steps[2], k),
           mean(s->steps[3], k), mean(s->half_can, k), mean(s->half_vol, k),
           mean(s->half_opt, k),
           mean(s->load, k) * D / ((double)n * n));
}

static int *bc2d(int n)
{
    int *t = malloc((size_t)n * n * sizeof *t);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            t[i * n + j] = (i % G) * G + j % G;
    return t;
}

// ---- SkewedSet ---------------------------------------------------------------------------------

// A reading: destination probability of every domain id of the reference (bc2d:4x4) map, and
// how the move and the reference labelling are drawn.
typedef struct skew_reading {
    const char *name;
    double p[D];
    bool another;  // "moved onto another processor": redraw while the destination is the tile's
    int reference; // 0 = bc2d as is, 1 = a random permutation, 2 = a random derangement
} skew_reading;

enum { P_DOMAIN_LINEAR, P_DOMAIN_POW2, P_GRID_LINEAR, P_GRID_POW2 };

// The paper's probability of index i is read as 2i/(P(P-1)) (the DIGEST's correction) or as
// 2^i normalised (the printed formula), over the domain id (1D) or over the grid row and grid
// column separately (2D, product of the two).
static void skew_probs(int kind, double *p)
{
    double side[G], sum = 0;
    for (int r = 0; r < G; r++)
        side[r] = kind == P_GRID_LINEAR ? 2.0 * r / (G * (G - 1)) : ldexp(1, r) / (ldexp(1, G) - 1);
    for (int k = 0; k < D; k++) {
        switch (kind) {
        case P_DOMAIN_LINEAR: p[k] = 2.0 * k / (D * (D - 1)); break;
        case P_DOMAIN_POW2: p[k] = ldexp(1, k) / (ldexp(1, D) - 1); break;
        default: p[k] = side[k / G] * side[k % G]; break;
        }
        sum += p[k];
    }
    cr_assert(fabs(sum - 1) < 1e-12);
}

static int draw_from(const double *p, uint64_t *s)
{
    double u = sm_unit(s), c = 0;
    for (int k = 0; k < D - 1; k++)
        if (u < (c += p[k]))
            return k;
    return D - 1;
}

static void sm_perm(int *perm, bool derangement, uint64_t *s)
{
    for (bool again = true; again;) {
        for (int k = 0; k < D; k++)
            perm[k] = k;
        for (int k = D - 1; k > 0; k--) {
            int j = sm_below(s, k + 1), t = perm[k];
            perm[k] = perm[j], perm[j] = t;
        }
        again = false;
        for (int k = 0; k < D && derangement; k++)
            again = again || perm[k] == k;
    }
}

// One SkewedSet instance of the reading, from the paper's words: half of the tiles (a coin
// each) move to a destination drawn with p; the reference labelling is applied at the end.
static void skew_sample(const skew_reading *rd, int n, const int *ref, uint64_t *s, int *ini)
{
    int perm[D];
    for (int x = 0; x < n * n; x++) {
        ini[x] = ref[x];
        if (sm_next(s) & 1) {
            int d;
            do
                d = draw_from(rd->p, s);
            while (rd->another && d == ref[x]);
            ini[x] = d;
        }
    }
    sm_perm(perm, rd->reference == 2, s);
    for (int x = 0; x < n * n && rd->reference; x++)
        ini[x] = perm[ini[x]];
}

static void skew_sampler_stats(const skew_reading *rd, int n, int k, uint64_t seed, stats *st)
{
    int *tar = bc2d(n), *ini = malloc((size_t)n * n * sizeof *ini);
    uint64_t s = seed;
    *st = (stats){0};
    for (int i = 0; i < k; i++) {
        skew_sample(rd, n, tar, &s, ini);
        add_instance(ini, tar, (int64_t)n * n, st);
    }
    free(tar);
    free(ini);
}

static void skew_generator_stats(nt_skew_mode mode, int n, int k, stats *st)
{
    int *tar = bc2d(n);
    nt_skew_opts_t o = {.mode = mode, .derange = true};
    *st = (stats){0};
    for (int i = 0; i < k; i++) {
        nt_tilemap_t *m = NULL;
        cr_assert_eq(nt_tilemap_skewed_ex(n, n, G, G, &o, 1000 + (uint64_t)i, &m), NT_OK);
        add_instance(m->owner, tar, (int64_t)n * n, st);
        nt_tilemap_destroy(m);
    }
    free(tar);
}

// The generators implement the readings they document: GRID = 2D linear, DOMAIN = 1D linear,
// both with a deranged reference. 300 instances at n = 16, 150 at n = 34.
Test(fidelity_herrmann, skewed_generator_matches_its_reading)
{
    static const struct {
        nt_skew_mode mode;
        int kind;
    } cases[2] = {{NT_SKEW_GRID, P_GRID_LINEAR}, {NT_SKEW_DOMAIN, P_DOMAIN_LINEAR}};
    for (int c = 0; c < 2; c++)
        for (int n = 16; n <= 34; n += 18) {
            int k = n == 16 ? 300 : 150;
            skew_reading rd = {.name = "", .reference = 2};
            skew_probs(cases[c].kind, rd.p);
            stats g, s;
            skew_generator_stats(cases[c].mode, n, k, &g);
            skew_sampler_stats(&rd, n, k, 77 + (uint64_t)n, &s);
            char what[32];
            snprintf(what, sizeof what, "%s n=%d", c ? "domain" : "grid", n);
            assert_agree(what, &g, &s);
            // Closed form: a deranged reference keeps only the moved tiles that land on their
            // own component's domain: E[canonical volume] = N - N/(2D).
            double N = (double)n * n, want = N - N / (2.0 * D);
            double tol = 4 * sem(g.vol[0], g.vol2[0], g.k) + 0.05;
            cr_assert(fabs(mean(g.vol[0], g.k) - want) <= tol, "%s canonical volume %.2f, "
                      "closed form %.2f", what, mean(g.vol[0], g.k), want);
        }
}

// The readings are far apart at n = 16: the grid reading's busiest domain receives 1/4 of the
// moved tiles, the domain reading's 1/8, hence about 30 against 18 steps (volume labelling).
Test(fidelity_herrmann, skewed_readings_are_distinguishable)
{
    stats grid, dom;
    skew_generator_stats(NT_SKEW_GRID, 16, 200, &grid);
    skew_generator_stats(NT_SKEW_DOMAIN, 16, 200, &dom);
    double a = mean(grid.steps[1], 200), b = mean(dom.steps[1], 200);
    cr_assert(a > b + 8, "grid %.1f steps, domain %.1f", a, b);
}

// A side of one index draws nothing: GRID on 1xD or Dx1 is DOMAIN, draw for draw.
Test(fidelity_herrmann, skewed_grid_on_a_line_is_the_domain_reading)
{
    for (int t = 0; t < 2; t++) {
        int p = t ? 8 : 1, q = t ? 1 : 8;
        nt_skew_opts_t og = {.mode = NT_SKEW_GRID}, od = {.mode = NT_SKEW_DOMAIN};
        nt_tilemap_t *a = NULL, *b = NULL;
        cr_assert_eq(nt_tilemap_skewed_ex(20, 13, p, q, &og, 5, &a), NT_OK);
        cr_assert_eq(nt_tilemap_skewed_ex(20, 13, p, q, &od, 5, &b), NT_OK);
        cr_assert_eq(memcmp(a->owner, b->owner, 260 * sizeof(int)), 0, "%dx%d", p, q);
        nt_tilemap_destroy(a);
        nt_tilemap_destroy(b);
    }
    nt_skew_opts_t bad = {.mode = (nt_skew_mode)7};
    nt_tilemap_t *m = NULL;
    cr_assert_eq(nt_tilemap_skewed_ex(4, 4, 2, 2, &bad, 1, &m), NT_EINVAL);
    cr_assert_null(m);
}

// derange relabels the plain map by a permutation without fixed points, uniform over the 9
// derangements of 4 domains (chi-square, 8 degrees of freedom, 0.999 quantile 26.1).
Test(fidelity_herrmann, skewed_derangement_is_uniform)
{
    int seen[256] = {0};
    for (uint64_t seed = 0; seed < 900; seed++) {
        nt_tilemap_t *a = NULL, *b = NULL;
        nt_skew_opts_t plain = {0}, der = {.derange = true};
        cr_assert_eq(nt_tilemap_skewed_ex(10, 10, 2, 2, &plain, seed, &a), NT_OK);
        cr_assert_eq(nt_tilemap_skewed_ex(10, 10, 2, 2, &der, seed, &b), NT_OK);
        int pi[4] = {-1, -1, -1, -1};
        for (int x = 0; x < 100; x++) {
            int u = a->owner[x], v = b->owner[x];
            cr_assert(pi[u] < 0 || pi[u] == v, "not a relabelling");
            pi[u] = v;
        }
        int code = 0;
        for (int k = 0; k < 4; k++) {
            cr_assert(pi[k] >= 0, "seed %llu: domain %d absent", (unsigned long long)seed, k);
            cr_assert_neq(pi[k], k, "fixed point");
            code = code * 4 + pi[k];
        }
        seen[code]++;
        nt_tilemap_destroy(a);
        nt_tilemap_destroy(b);
    }
    double chi = 0;
    int kinds = 0;
    for (int c = 0; c < 256; c++)
        if (seen[c])
            kinds++, chi += (seen[c] - 100.0) * (seen[c] - 100.0) / 100.0;
    cr_assert_eq(kinds, 9);
    cr_assert(chi < 26.1, "chi-square %g", chi);
}

// The table of docs/fidelity.md for SkewedSet: every reading, sampled here.
Test(fidelity_herrmann, table_skewed)
{
    if (!table_wanted())
        cr_skip("set NT_FIDELITY_TABLE=1 to print the table");
    static const struct {
        const char *name;
        int kind, reference;
        bool another;
    } rd[] = {{"1D 2i/(P(P-1)), derangement", P_DOMAIN_LINEAR, 2, false},
              {"1D 2^i normalised, derangement", P_DOMAIN_POW2, 2, false},
              {"2D 2r/(p(p-1)), derangement", P_GRID_LINEAR, 2, false},
              {"2D 2^r normalised, derangement", P_GRID_POW2, 2, false},
              {"2D 2r/(p(p-1)), permutation", P_GRID_LINEAR, 1, false},
              {"2D 2r/(p(p-1)), another proc.", P_GRID_LINEAR, 2, true},
              {"1D 2i/(P(P-1)), another proc.", P_DOMAIN_LINEAR, 2, true}};
    printf("SkewedSet readings (columns: canonical volume steps lex)\n");
    for (size_t r = 0; r < sizeof rd / sizeof rd[0]; r++)
        for (int n = 16; n <= 88; n += n == 16 ? 18 : 54) {
            skew_reading x = {.name = rd[r].name, .another = rd[r].another,
                              .reference = rd[r].reference};
            skew_probs(rd[r].kind, x.p);
            stats s;
            skew_sampler_stats(&x, n, n == 88 ? 100 : 500, 4242 + (uint64_t)n, &s);
            print_row(rd[r].name, n, &s);
        }
    fflush(stdout);
}

// ---- ChunkSet ----------------------------------------------------------------------------------

// One ChunkSet instance from the paper's words and nt_tilemap_chunk_swath()'s documented draws,
// on the independent stream: swaths of sides 1..hmax x 1..wmax, corner uniform over the
// positions meeting the grid, painted round-robin until every tile is covered.
static void chunk_sample(int n, int hmax, uint64_t *s, int *own)
{
    int left = n * n;
    char *cov = calloc((size_t)n * n, 1);
    for (int r = 0; left > 0; r++) {
        int h = 1 + sm_below(s, hmax), w = 1 + sm_below(s, hmax);
        int i0 = sm_below(s, n + h - 1) - (h - 1), j0 = sm_below(s, n + w - 1) - (w - 1);
        for (int i = i0 > 0 ? i0 : 0; i < i0 + h && i < n; i++)
            for (int j = j0 > 0 ? j0 : 0; j < j0 + w && j < n; j++) {
                own[i * n + j] = r % D;
                left -= !cov[i * n + j];
                cov[i * n + j] = 1;
            }
    }
    free(cov);
}

static void chunk_sampler_stats(int n, int hmax, int k, uint64_t seed, stats *st)
{
    int *tar = bc2d(n), *own = malloc((size_t)n * n * sizeof *own);
    uint64_t s = seed;
    *st = (stats){0};
    for (int i = 0; i < k; i++) {
        chunk_sample(n, hmax, &s, own);
        add_instance(own, tar, (int64_t)n * n, st);
    }
    free(tar);
    free(own);
}

static void chunk_generator_stats(int n, int64_t hmax, int k, stats *st)
{
    int *tar = bc2d(n);
    *st = (stats){0};
    for (int i = 0; i < k; i++) {
        nt_tilemap_t *m = NULL;
        cr_assert_eq(nt_tilemap_chunk_swath(n, n, D, hmax, hmax, 500 + (uint64_t)i, &m), NT_OK);
        add_instance(m->owner, tar, (int64_t)n * n, st);
        nt_tilemap_destroy(m);
    }
    free(tar);
}

// The default swath (0 = ceil(n/3)) against the sampler with sides up to ceil(n/3), and the
// legacy half-grid swaths of nt_tilemap_chunk() against the sampler with n/2.
Test(fidelity_herrmann, chunk_generator_matches_its_reading)
{
    for (int n = 16; n <= 34; n += 18) {
        stats g, s;
        int k = n == 16 ? 300 : 150;
        chunk_generator_stats(n, 0, k, &g);
        chunk_sampler_stats(n, (n + 2) / 3, k, 99 + (uint64_t)n, &s);
        char what[32];
        snprintf(what, sizeof what, "swath n/3 n=%d", n);
        assert_agree(what, &g, &s);
        chunk_generator_stats(n, n / 2, k, &g);
        chunk_sampler_stats(n, n / 2, k, 98 + (uint64_t)n, &s);
        snprintf(what, sizeof what, "swath n/2 n=%d", n);
        assert_agree(what, &g, &s);
    }
}

// Exact draws: the legacy generator is the swath generator with half-grid sides, and 0 means
// ceil(side/3); bounds beyond the grid count as the grid's side.
Test(fidelity_herrmann, chunk_swath_defaults)
{
    static const int64_t grids[][2] = {{16, 16}, {34, 20}, {7, 1}, {1, 1}};
    for (int g = 0; g < 4; g++) {
        int64_t mt = grids[g][0], nt = grids[g][1];
        nt_tilemap_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        cr_assert_eq(nt_tilemap_chunk(mt, nt, 5, 9, &a), NT_OK);
        cr_assert_eq(nt_tilemap_chunk_swath(mt, nt, 5, mt / 2 > 1 ? mt / 2 : 1,
                                            nt / 2 > 1 ? nt / 2 : 1, 9, &b), NT_OK);
        cr_assert_eq(nt_tilemap_chunk_swath(mt, nt, 5, 0, 0, 9, &c), NT_OK);
        cr_assert_eq(nt_tilemap_chunk_swath(mt, nt, 5, (mt + 2) / 3, (nt + 2) / 3, 9, &d),
                     NT_OK);
        size_t bytes = (size_t)(mt * nt) * sizeof(int);
        cr_assert_eq(memcmp(a->owner, b->owner, bytes), 0);
        cr_assert_eq(memcmp(c->owner, d->owner, bytes), 0);
        nt_tilemap_destroy(b);
        cr_assert_eq(nt_tilemap_chunk_swath(mt, nt, 5, mt, nt, 9, &b), NT_OK);
        nt_tilemap_destroy(d);
        cr_assert_eq(nt_tilemap_chunk_swath(mt, nt, 5, 1000 * mt, 1000 * nt, 9, &d), NT_OK);
        cr_assert_eq(memcmp(b->owner, d->owner, bytes), 0);
        nt_tilemap_destroy(a), nt_tilemap_destroy(b), nt_tilemap_destroy(c);
        nt_tilemap_destroy(d);
    }
    nt_tilemap_t *m = NULL;
    cr_assert_eq(nt_tilemap_chunk_swath(4, 4, 2, -1, 1, 1, &m), NT_EINVAL);
    cr_assert_null(m);
}

// The table of docs/fidelity.md for ChunkSet: swath bounds, sampled here.
Test(fidelity_herrmann, table_chunk)
{
    if (!table_wanted())
        cr_skip("set NT_FIDELITY_TABLE=1 to print the table");
    static const char *names[] = {"sides 1..n/2 (nt_tilemap_chunk)", "sides 1..ceil(n/3)",
                                  "sides 1..n/4", "sides 1..2", "sides 1 (single tiles)"};
    printf("ChunkSet readings (columns: canonical volume steps lex)\n");
    for (int v = 0; v < 5; v++)
        for (int n = 16; n <= 88; n += 18) {
            int hmax = v == 0 ? n / 2 : v == 1 ? (n + 2) / 3 : v == 2 ? n / 4 : v == 3 ? 2 : 1;
            stats s;
            chunk_sampler_stats(n, hmax, n > 40 ? 100 : 500, 4343 + (uint64_t)n, &s);
            print_row(names[v], n, &s);
        }
    fflush(stdout);
}
