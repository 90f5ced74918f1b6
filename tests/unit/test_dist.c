// Distributions: tile-map generators against direct per-tile formulas or naive re-computations,
// statistical properties, the DIST parser's errors with positions and its grammar text,
// tile-map files, 1D maps, the count matrix and the costs against item-by-item recounts.
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt_core.h"
#include "numatile/dist.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

static nt_tilemap_t *spec(const char *s, int64_t mt, int64_t nt, int nd)
{
    nt_tilemap_t *m = NULL;
    cr_assert_eq(nt_tilemap_from_spec(s, mt, nt, nd, &m), NT_OK, "%s: %s", s, nt_last_error());
    cr_assert_eq(m->mt, mt);
    cr_assert_eq(m->nt, nt);
    for (int64_t x = 0; x < mt * nt; x++)
        cr_assert(m->owner[x] >= 0 && m->owner[x] < m->ndomains, "%s: owner out of range", s);
    return m;
}

static bool same_map(const nt_tilemap_t *a, const nt_tilemap_t *b)
{
    return a->mt == b->mt && a->nt == b->nt && a->ndomains == b->ndomains &&
           memcmp(a->owner, b->owner, (size_t)(a->mt * a->nt) * sizeof(int)) == 0;
}

// ---------------------------------------------------------------------------------------------
// 2D generators

Test(dist, bc2d_formula_with_superblocks)
{
    for (int p = 1; p <= 4; p++)
        for (int q = 1; q <= 4; q++)
            for (int smb = 1; smb <= 3; smb++)
                for (int snb = 1; snb <= 3; snb++) {
                    int64_t mt = 7 + p, nt = 5 + 2 * q;
                    char s[64];
                    snprintf(s, sizeof s, "bc2d:%dx%d:%dx%d", p, q, smb, snb);
                    nt_tilemap_t *m = spec(s, mt, nt, 0);
                    cr_assert_eq(m->ndomains, p * q);
                    // Direct per-tile formula: which super-block row/column, then cyclic.
                    for (int64_t i = 0; i < mt; i++)
                        for (int64_t j = 0; j < nt; j++) {
                            int64_t sbr = i / smb, sbc = j / snb;
                            int want = (int)(sbr % p) * q + (int)(sbc % q);
                            cr_assert_eq(m->owner[i * nt + j], want, "%s tile (%lld,%lld)", s,
                                         (long long)i, (long long)j);
                        }
                    nt_tilemap_destroy(m);
                }
    // The default super-block is 1x1, and bc1d:P = bc2d:1xP.
    nt_tilemap_t *a = spec("bc2d:2x3", 9, 9, 6), *b = spec("bc2d:2x3:1x1", 9, 9, 0);
    cr_assert(same_map(a, b));
    nt_tilemap_destroy(a);
    nt_tilemap_destroy(b);
    a = spec("bc1d:5", 4, 11, 0);
    b = spec("bc2d:1x5", 4, 11, 5);
    cr_assert(same_map(a, b));
    nt_tilemap_destroy(a);
    nt_tilemap_destroy(b);
}

Test(dist, balanced_is_balanced_and_seeded)
{
    const int64_t grids[][2] = {{1, 1}, {3, 7}, {10, 10}, {16, 33}};
    for (int g = 0; g < 4; g++)
        for (int d = 1; d <= 9; d++) {
            int64_t mt = grids[g][0], nt = grids[g][1], tiles = mt * nt;
            nt_tilemap_t *m = spec("balanced:12345", mt, nt, d);
            int64_t cnt[9] = {0};
            for (int64_t x = 0; x < tiles; x++)
                cnt[m->owner[x]]++;
            for (int k = 0; k < d; k++)
                cr_assert(cnt[k] == tiles / d || cnt[k] == tiles / d + 1,
                          "domain %d holds %lld of %lld tiles", k, (long long)cnt[k],
                          (long long)tiles);
            nt_tilemap_t *again = spec("balanced:12345", mt, nt, d);
            cr_assert(same_map(m, again), "same seed, different map");
            nt_tilemap_destroy(again);
            if (tiles >= 50 && d >= 2) {
                nt_tilemap_t *other = spec("balanced:12346", mt, nt, d);
                cr_assert(!same_map(m, other), "different seeds, same map");
                nt_tilemap_destroy(other);
            }
            nt_tilemap_destroy(m);
        }
}

Test(dist, random_uniform_and_seeded)
{
    const int d = 8;
    nt_tilemap_t *m = spec("random:7", 100, 80, d);
    int64_t cnt[8] = {0};
    for (int64_t x = 0; x < 8000; x++)
        cnt[m->owner[x]]++;
    // Chi-square with 7 degrees of freedom; 24.3 is the 0.999 quantile.
    double chi = 0, e = 8000.0 / d;
    for (int k = 0; k < d; k++)
        chi += (cnt[k] - e) * (cnt[k] - e) / e;
    cr_assert(chi < 24.3, "chi-square %g", chi);
    nt_tilemap_t *again = spec("random:7", 100, 80, d), *other = spec("random:8", 100, 80, d);
    cr_assert(same_map(m, again));
    cr_assert(!same_map(m, other));
    nt_tilemap_destroy(m);
    nt_tilemap_destroy(again);
    nt_tilemap_destroy(other);
}

Test(dist, skewed_moves_about_half)
{
    const int p = 4, q = 4, d = 16;
    const int64_t mt = 60, nt = 60;
    nt_tilemap_t *ref = spec("bc2d:4x4", mt, nt, 0);
    // Expected number of changed tiles: each tile moves with prob 1/2 to k with prob
    // 2k/(d(d-1)); it changes unless k is its own domain.
    double mean = 0, var = 0;
    for (int64_t x = 0; x < mt * nt; x++) {
        double own = 2.0 * ref->owner[x] / (d * (d - 1.0));
        double pc = 0.5 * (1 - own);
        mean += pc;
        var += pc * (1 - pc);
    }
    for (uint64_t seed = 1; seed <= 5; seed++) {
        char s[48];
        snprintf(s, sizeof s, "skewed:%dx%d:%llu", p, q, (unsigned long long)seed);
        nt_tilemap_t *m = spec(s, mt, nt, d);
        int64_t changed = 0, gained0 = 0;
        int64_t per[16] = {0};
        for (int64_t x = 0; x < mt * nt; x++) {
            changed += m->owner[x] != ref->owner[x];
            gained0 += m->owner[x] == 0 && ref->owner[x] != 0;
            if (m->owner[x] != ref->owner[x])
                per[m->owner[x]]++;
        }
        cr_assert(fabs(changed - mean) < 4 * sqrt(var), "seed %llu: %lld changed, expected %g",
                  (unsigned long long)seed, (long long)changed, mean);
        cr_assert_eq(gained0, 0, "domain 0 has probability 0");
        // Higher domains receive more (weights grow linearly).
        cr_assert(per[15] > per[2], "seed %llu: per-domain gains not increasing",
                  (unsigned long long)seed);
        nt_tilemap_t *again = spec(s, mt, nt, d);
        cr_assert(same_map(m, again));
        nt_tilemap_destroy(again);
        nt_tilemap_destroy(m);
    }
    nt_tilemap_destroy(ref);
    // One domain: nothing can move.
    nt_tilemap_t *one = spec("skewed:1x1:3", 5, 5, 0);
    for (int x = 0; x < 25; x++)
        cr_assert_eq(one->owner[x], 0);
    nt_tilemap_destroy(one);
}

// Naive ChunkSet: the documented draws, an explicit "uncovered" marker, and a full scan after
// every rectangle to decide whether to stop.
static int *chunk_reference(int64_t mt, int64_t nt, int d, uint64_t seed)
{
    int *o = malloc((size_t)(mt * nt) * sizeof *o);
    for (int64_t x = 0; x < mt * nt; x++)
        o[x] = -1;
    nt_rng r = {seed};
    int64_t hmax = mt / 2 > 1 ? mt / 2 : 1, wmax = nt / 2 > 1 ? nt / 2 : 1;
    for (int64_t rect = 0;; rect++) {
        int64_t h = 1 + (int64_t)nt_rng_below(&r, (uint64_t)hmax);
        int64_t w = 1 + (int64_t)nt_rng_below(&r, (uint64_t)wmax);
        int64_t i0 = (int64_t)nt_rng_below(&r, (uint64_t)(mt + h - 1)) - (h - 1);
        int64_t j0 = (int64_t)nt_rng_below(&r, (uint64_t)(nt + w - 1)) - (w - 1);
        for (int64_t i = 0; i < mt; i++)
            for (int64_t j = 0; j < nt; j++)
                if (i >= i0 && i < i0 + h && j >= j0 && j < j0 + w)
                    o[i * nt + j] = (int)(rect % d);
        bool all = true;
        for (int64_t x = 0; x < mt * nt; x++)
            all = all && o[x] >= 0;
        if (all)
            return o;
    }
}

Test(dist, chunk_covers_every_tile)
{
    const int64_t grids[][2] = {{1, 1}, {1, 9}, {8, 8}, {16, 12}, {30, 30}};
    for (int g = 0; g < 5; g++)
        for (int d = 1; d <= 5; d += 2) {
            int64_t mt = grids[g][0], nt = grids[g][1];
            char s[40];
            snprintf(s, sizeof s, "chunk:%d:%d", d, 17 + g);
            nt_tilemap_t *m = spec(s, mt, nt, 0);
            cr_assert_eq(m->ndomains, d);
            int *ref = chunk_reference(mt, nt, d, 17 + (uint64_t)g);
            for (int64_t x = 0; x < mt * nt; x++)
                cr_assert_eq(m->owner[x], ref[x], "%s grid %lldx%lld tile %lld", s,
                             (long long)mt, (long long)nt, (long long)x);
            free(ref);
            nt_tilemap_destroy(m);
        }
    // Several rectangles, several domains in use on a big grid.
    nt_tilemap_t *m = spec("chunk:4:1", 40, 40, 4);
    int used[4] = {0};
    for (int x = 0; x < 1600; x++)
        used[m->owner[x]] = 1;
    cr_assert_eq(used[0] + used[1] + used[2] + used[3], 4);
    nt_tilemap_destroy(m);
}

Test(dist, band_formula)
{
    for (int64_t w = 1; w <= 4; w++) {
        char s[32];
        snprintf(s, sizeof s, "band:%lld:2x3", (long long)w);
        nt_tilemap_t *m = spec(s, 9, 12, 6);
        for (int64_t i = 0; i < 9; i++)
            for (int64_t j = 0; j < 12; j++) {
                int64_t dd = i > j ? i - j : j - i;
                int want = dd < w ? (int)(i % 6) : (int)(i % 2) * 3 + (int)(j % 3);
                cr_assert_eq(m->owner[i * 12 + j], want, "%s (%lld,%lld)", s, (long long)i,
                             (long long)j);
            }
        nt_tilemap_destroy(m);
    }
}

// Found by the dist fuzzer (corpus/dist/regress-band-width-overflow): a width near INT64_MAX
// overflowed i + w - 1, leaving the band empty; a band wider than the grid covers every tile.
Test(dist, band_wider_than_any_grid)
{
    const char *specs[] = {"band:9223372036854775804:2x3", "band:9223372036854775807:2x3"};
    for (int k = 0; k < 2; k++) {
        nt_tilemap_t *m = spec(specs[k], 5, 7, 6);
        for (int64_t x = 0; x < 35; x++)
            cr_assert_eq(m->owner[x], (int)(x / 7 % 6), "%s tile %lld", specs[k], (long long)x);
        nt_tilemap_destroy(m);
    }
}

static int fn_owner(int64_t i, int64_t j, void *arg)
{
    int d = *(int *)arg;
    return (int)((i * 7 + j) % d) - (i == 3 && j == 4 && d == 99 ? 200 : 0);
}

Test(dist, from_function)
{
    int d = 5;
    nt_tilemap_t *m = NULL;
    cr_assert_eq(nt_tilemap_from_fn(6, 7, d, fn_owner, &d, &m), NT_OK);
    for (int64_t i = 0; i < 6; i++)
        for (int64_t j = 0; j < 7; j++)
            cr_assert_eq(m->owner[i * 7 + j], (int)((i * 7 + j) % d));
    nt_tilemap_destroy(m);
    int bad = 99;
    nt_tilemap_t *keep = (nt_tilemap_t *)0x1;
    cr_assert_eq(nt_tilemap_from_fn(6, 7, 99, fn_owner, &bad, &keep), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "(3,4)") != NULL, "%s", nt_last_error());
    cr_assert_eq(keep, (nt_tilemap_t *)0x1);
    cr_assert_eq(nt_tilemap_from_fn(6, 7, 3, NULL, NULL, &keep), NT_EINVAL);
    cr_assert_eq(nt_tilemap_create(0, 3, 2, &keep), NT_EINVAL);
    cr_assert_eq(nt_tilemap_create(INT64_MAX / 2, 4, 2, &keep), NT_ERANGE);
    nt_tilemap_destroy(NULL);
}

// ---------------------------------------------------------------------------------------------
// Parser errors

static void spec_error(const char *s, int nd, nt_status code, const char *needle)
{
    nt_tilemap_t *m = (nt_tilemap_t *)0x1;
    cr_assert_eq(nt_tilemap_from_spec(s, 4, 4, nd, &m), code, "'%s': %s", s, nt_last_error());
    cr_assert(strstr(nt_last_error(), needle) != NULL, "'%s': message '%s' lacks '%s'", s,
              nt_last_error(), needle);
    cr_assert_eq(m, (nt_tilemap_t *)0x1, "out written on failure");
}

Test(dist, parser_errors_with_positions)
{
    spec_error("bc2d:4x", 0, NT_EINVAL, "DIST 'bc2d:4x' at 7: expected a positive integer");
    spec_error("bc2d:0x4", 0, NT_EINVAL, "at 5: expected a positive integer");
    spec_error("bc2d:4", 0, NT_EINVAL, "at 6: expected 'x'");
    spec_error("bc2d:4x4:", 0, NT_EINVAL, "at 9: expected a positive integer");
    spec_error("bc2d:4x4:2", 0, NT_EINVAL, "at 10: expected 'x'");
    spec_error("bc2d:4x4:2x2x", 0, NT_EINVAL, "at 12: unexpected text");
    spec_error("bc2d", 0, NT_EINVAL, "at 4: expected ':'");
    spec_error("bcd2:4x4", 0, NT_EINVAL, "at 0: unknown distribution");
    spec_error("", 0, NT_EINVAL, "at 0: unknown distribution");
    spec_error("random:abc", 4, NT_EINVAL, "at 7: expected a seed");
    spec_error("random:-1", 4, NT_EINVAL, "at 7: expected a seed");
    spec_error("random:1", 0, NT_EINVAL, "needs the domain count");
    spec_error("balanced:1", 0, NT_EINVAL, "needs the domain count");
    spec_error("skewed:2x2", 0, NT_EINVAL, "at 10: expected ':'");
    spec_error("skewed:2x2:", 0, NT_EINVAL, "at 11: expected a seed");
    spec_error("chunk:0:1", 0, NT_EINVAL, "at 6: expected a positive integer");
    spec_error("band:2:2x2x", 0, NT_EINVAL, "at 10: unexpected text");
    spec_error("bc1d:3 ", 0, NT_EINVAL, "at 6: unexpected text");
    spec_error("file:", 0, NT_EINVAL, "at 5: expected a file path");
    spec_error("bc2d:2x2", 8, NT_EINVAL, "has 4 domains but 8");
    spec_error("chunk:3:1", 4, NT_EINVAL, "has 3 domains but 4");
    spec_error("skewed:2x2:1:foo", 0, NT_EINVAL, "at 13: expected domain, grid or derange");
    spec_error("skewed:2x2:1:derange:grid", 0, NT_EINVAL, "at 21: expected domain, grid");
    spec_error("skewed:2x2:1:grid:domain", 0, NT_EINVAL, "at 18: expected domain, grid");
    spec_error("chunk:3:1:2x", 0, NT_EINVAL, "at 12: expected a positive integer");
    spec_error("chunk:3:1:2", 0, NT_EINVAL, "at 11: expected 'x'");
    spec_error("bc2d:99999999999x2", 0, NT_ERANGE, "at 5: number too large");
    spec_error("bc2d:65536x65536", 0, NT_ERANGE, "more than INT_MAX domains");
    spec_error("random:99999999999999999999999", 3, NT_ERANGE, "at 7: number too large");
    nt_tilemap_t *m;
    cr_assert_eq(nt_tilemap_from_spec(NULL, 4, 4, 0, &m), NT_EINVAL);
    cr_assert_eq(nt_tilemap_from_spec("bc2d:2x2", 0, 4, 0, &m), NT_EINVAL);
    // The largest seed is accepted.
    m = spec("random:18446744073709551615", 3, 3, 2);
    nt_tilemap_destroy(m);
}

// The help text lists every kind the parser takes, and the unknown-kind message every name.
Test(dist, spec_grammar_text)
{
    const char *want = "bc2d:PxQ[:SMBxSNB] | bc1d:P | random:SEED | balanced:SEED | "
                       "skewed:PxQ:SEED[:domain|:grid][:derange] | chunk:D:SEED[:HxW] | "
                       "band:W:PxQ | file:PATH";
    char buf[256];
    cr_assert_eq(nt_tilemap_spec_grammar(NULL, 0), strlen(want));
    cr_assert_eq(nt_tilemap_spec_grammar(buf, sizeof buf), strlen(want));
    cr_assert_str_eq(buf, want);
    // Truncated like snprintf: cap - 1 characters and the NUL, full length returned.
    char small[8];
    cr_assert_eq(nt_tilemap_spec_grammar(small, sizeof small), strlen(want));
    cr_assert_str_eq(small, "bc2d:Px");
    spec_error("bcd2:4x4", 0, NT_EINVAL, "DIST 'bcd2:4x4' at 0: unknown distribution (expected "
               "bc2d, bc1d, random, balanced, skewed, chunk, band or file)");
}

// ---------------------------------------------------------------------------------------------
// Tile-map files

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void file_error(const char *path, const char *text, int nd, const char *needle)
{
    write_file(path, text);
    char s[128];
    snprintf(s, sizeof s, "file:%s", path);
    nt_tilemap_t *m = (nt_tilemap_t *)0x1;
    cr_assert_eq(nt_tilemap_from_spec(s, 3, 4, nd, &m), NT_EINVAL, "<%s>", text);
    cr_assert(strstr(nt_last_error(), needle) != NULL, "<%s>: message '%s' lacks '%s'", text,
              nt_last_error(), needle);
    cr_assert_eq(m, (nt_tilemap_t *)0x1);
}

Test(dist, tilemap_files)
{
    char path[] = "/tmp/nt_tilemap_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    write_file(path, "# a 3x4 map\n0 1 2 3\n\n3 2 1 0   # comment\n1 1 1 4\n");
    char s[128];
    snprintf(s, sizeof s, "file:%s", path);
    nt_tilemap_t *m = spec(s, 3, 4, 0);
    const int want[12] = {0, 1, 2, 3, 3, 2, 1, 0, 1, 1, 1, 4};
    cr_assert_arr_eq(m->owner, want, sizeof want);
    cr_assert_eq(m->ndomains, 5);
    nt_tilemap_destroy(m);
    m = spec(s, 3, 4, 8);
    cr_assert_eq(m->ndomains, 8);
    nt_tilemap_destroy(m);
    file_error(path, "0 1 2 3\n0 1 2\n0 0 0 0\n", 0, "line 2: expected 4 domain ids, found 3");
    file_error(path, "0 1 2 3\n0 1 2 3 4\n0 0 0 0\n", 0, "line 2: more than 4 domain ids");
    file_error(path, "0 1 2 3\n0 x1 2 3\n0 0 0 0\n", 0, "line 2: junk 'x1'");
    file_error(path, "0 1 2 3\n0 -1 2 3\n0 0 0 0\n", 0, "line 2: junk '-1'");
    file_error(path, "0 1 2 3\n0 1 2 3\n0 99999999999 0 0\n", 0, "line 3: domain id");
    file_error(path, "0 1 2 3\n0 1 2 3\n0 0 9 0\n", 8, "line 3: domain 9 out of range 0..7");
    file_error(path, "0 1 2 3\n\n0 1 2 3\n", 0, "2 tile rows, expected 3");
    file_error(path, "0 1 2 3\n0 1 2 3\n0 1 2 3\n0 1 2 3\n", 0, "line 4: more than 3 tile rows");
    unlink(path);
    nt_tilemap_t *keep = (nt_tilemap_t *)0x1;
    cr_assert_eq(nt_tilemap_from_spec(s, 3, 4, 0, &keep), NT_EIO);
    cr_assert(strstr(nt_last_error(), path) != NULL);
}

// ---------------------------------------------------------------------------------------------
// 1D maps

Test(dist, dist1d_block_and_balanced)
{
    for (int64_t n = 1; n <= 40; n += 3)
        for (int p = 1; p <= 9; p++) {
            nt_dist1d_t *b, *r;
            cr_assert_eq(nt_dist1d_block(n, p, &b), NT_OK);
            cr_assert_eq(nt_dist1d_balanced(n, p, (uint64_t)(n * 31 + p), &r), NT_OK);
            int64_t cb[9] = {0}, cr[9] = {0};
            for (int64_t x = 0; x < n; x++) {
                cr_assert_eq(b->owner[x], (int)(x * p / n));
                if (x > 0)
                    cr_assert(b->owner[x] >= b->owner[x - 1]);
                cb[b->owner[x]]++;
                cr[r->owner[x]]++;
            }
            for (int k = 0; k < p; k++) {
                cr_assert(cb[k] == n / p || cb[k] == n / p + 1);
                cr_assert_eq(cr[k], cb[k], "balanced holds the block map's multiset");
            }
            nt_dist1d_destroy(b);
            nt_dist1d_destroy(r);
        }
    nt_dist1d_t *a, *b2, *c;
    cr_assert_eq(nt_dist1d_balanced(500, 7, 1, &a), NT_OK);
    cr_assert_eq(nt_dist1d_balanced(500, 7, 1, &b2), NT_OK);
    cr_assert_eq(nt_dist1d_balanced(500, 7, 2, &c), NT_OK);
    cr_assert_arr_eq(a->owner, b2->owner, 500 * sizeof(int));
    cr_assert(memcmp(a->owner, c->owner, 500 * sizeof(int)) != 0);
    nt_dist1d_destroy(a);
    nt_dist1d_destroy(b2);
    nt_dist1d_destroy(c);
    nt_dist1d_t *keep = (nt_dist1d_t *)0x1;
    cr_assert_eq(nt_dist1d_block(0, 3, &keep), NT_EINVAL);
    cr_assert_eq(nt_dist1d_balanced(5, 0, 1, &keep), NT_EINVAL);
    cr_assert_eq(keep, (nt_dist1d_t *)0x1);
    nt_dist1d_destroy(NULL);
}

Test(dist, dist1d_skewed_model)
{
    const double alphas[] = {0.0, 0.25, 0.5, 0.99, 1.0};
    for (int ai = 0; ai < 5; ai++)
        for (int p = 1; p <= 6; p++)
            for (int64_t d = 1; d <= 9; d += 4) {
                nt_dist1d_t *m;
                cr_assert_eq(nt_dist1d_skewed(p, d, alphas[ai], 5, &m), NT_OK);
                cr_assert_eq(m->n, p * d);
                int64_t a = (int64_t)floor(alphas[ai] * (double)d);
                int64_t per[6] = {0};
                for (int j = 0; j < p; j++) {
                    int64_t shifted = 0;
                    for (int64_t t = 0; t < d; t++) {
                        int o = m->owner[j * d + t];
                        per[o]++;
                        shifted += o == (j + 1) % p;
                    }
                    cr_assert(shifted >= a, "component %d: %lld items on (j+1) mod p, want >= "
                              "%lld", j, (long long)shifted, (long long)a);
                }
                for (int k = 0; k < p; k++)
                    cr_assert_eq(per[k], d, "domain %d holds %lld items", k, (long long)per[k]);
                nt_dist1d_destroy(m);
            }
    nt_dist1d_t *keep = (nt_dist1d_t *)0x1;
    cr_assert_eq(nt_dist1d_skewed(4, 5, 1.5, 1, &keep), NT_EINVAL);
    cr_assert_eq(nt_dist1d_skewed(4, 5, NAN, 1, &keep), NT_EINVAL);
    cr_assert_eq(keep, (nt_dist1d_t *)0x1);
}

// Canonical volume of one instance: items not already on their component's domain.
static int64_t canonical_volume(const nt_dist1d_t *ini, const nt_dist1d_t *tar)
{
    int64_t v = 0;
    for (int64_t x = 0; x < ini->n; x++)
        v += ini->owner[x] != tar->owner[x];
    return v;
}

static void expected_canonical(int p, int64_t d, double alpha, int trials, double want)
{
    nt_dist1d_t *tar;
    cr_assert_eq(nt_dist1d_block(p * d, p, &tar), NT_OK);
    double sum = 0, sum2 = 0;
    for (int t = 0; t < trials; t++) {
        nt_dist1d_t *ini;
        if (alpha == 0)
            cr_assert_eq(nt_dist1d_balanced(p * d, p, 1000 + (uint64_t)t, &ini), NT_OK);
        else
            cr_assert_eq(nt_dist1d_skewed(p, d, alpha, 1000 + (uint64_t)t, &ini), NT_OK);
        double v = (double)canonical_volume(ini, tar);
        sum += v;
        sum2 += v * v;
        nt_dist1d_destroy(ini);
    }
    double mean = sum / trials, sd = sqrt((sum2 - trials * mean * mean) / (trials - 1));
    double se = sd / sqrt(trials);
    cr_assert(fabs(mean - want) <= 3 * se, "alpha %g: mean %g, expected %g (3 SE = %g)", alpha,
              mean, want, 3 * se);
    nt_dist1d_destroy(tar);
}

Test(dist, expected_canonical_volume)
{
    // Herrmann 2016 §4.3: E = D(P-1) for random balanced, D(P-1) + floor(alpha D) skewed.
    expected_canonical(32, 10, 0.0, 200, 10.0 * 31);
    expected_canonical(32, 20, 0.5, 200, 20.0 * 31 + 10);
}

// ---------------------------------------------------------------------------------------------
// Counts and costs

Test(dist, counts_against_naive)
{
    nt_rng r = {3};
    for (int t = 0; t < 200 / SCALE; t++) {
        int pi = 1 + (int)nt_rng_below(&r, 6), pt = 1 + (int)nt_rng_below(&r, 6);
        int64_t n = (int64_t)nt_rng_below(&r, 60);
        int ini[60], tar[60];
        int64_t sz[60];
        for (int64_t x = 0; x < n; x++) {
            ini[x] = (int)nt_rng_below(&r, (uint64_t)pi);
            tar[x] = (int)nt_rng_below(&r, (uint64_t)pt);
            sz[x] = 1 + (int64_t)nt_rng_below(&r, 1000);
        }
        int64_t items[36], weight[36], unit[36];
        cr_assert_eq(nt_counts_compute(n, ini, pi, tar, pt, sz, items, weight), NT_OK);
        cr_assert_eq(nt_counts_compute(n, ini, pi, tar, pt, NULL, NULL, unit), NT_OK);
        for (int i = 0; i < pi; i++)
            for (int j = 0; j < pt; j++) {
                int64_t ci = 0, cw = 0;
                for (int64_t x = 0; x < n; x++)
                    if (ini[x] == i && tar[x] == j) {
                        ci++;
                        cw += sz[x];
                    }
                cr_assert_eq(items[i * pt + j], ci);
                cr_assert_eq(unit[i * pt + j], ci);
                cr_assert_eq(weight[i * pt + j], cw);
            }
    }
    // Tile maps: bc2d against itself is diagonal.
    nt_tilemap_t *a = spec("bc2d:2x2", 6, 6, 0), *b = spec("bc2d:2x2", 6, 6, 0);
    int64_t c[16];
    cr_assert_eq(nt_counts_tilemaps(a, b, NULL, c, NULL), NT_OK);
    for (int x = 0; x < 16; x++)
        cr_assert_eq(c[x], x % 5 == 0 ? 9 : 0);
    nt_tilemap_t *o = spec("bc2d:2x2", 6, 7, 0);
    cr_assert_eq(nt_counts_tilemaps(a, o, NULL, c, NULL), NT_EINVAL);
    nt_tilemap_destroy(a);
    nt_tilemap_destroy(b);
    nt_tilemap_destroy(o);
}

Test(dist, counts_errors_leave_outputs)
{
    int ini[3] = {0, 1, 2}, tar[3] = {0, 1, 0};
    int64_t sz[3] = {1, 0, 1}, out[6] = {-5, -5, -5, -5, -5, -5};
    cr_assert_eq(nt_counts_compute(3, ini, 2, tar, 2, NULL, out, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "item 2") != NULL, "%s", nt_last_error());
    cr_assert_eq(out[0], -5);
    cr_assert_eq(nt_counts_compute(3, ini, 3, tar, 2, sz, NULL, out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "item 1 has size 0") != NULL, "%s", nt_last_error());
    cr_assert_eq(out[0], -5);
    int64_t big[2] = {INT64_MAX, 1};
    int z[2] = {0, 0};
    cr_assert_eq(nt_counts_compute(2, z, 1, z, 1, big, NULL, out), NT_ERANGE);
    cr_assert_eq(out[0], -5);
    cr_assert_eq(nt_counts_compute(-1, z, 1, z, 1, NULL, out, NULL), NT_EINVAL);
}

Test(dist, costs_against_item_recount)
{
    nt_rng r = {17};
    for (int t = 0; t < 300 / SCALE; t++) {
        int pd = 1 + (int)nt_rng_below(&r, 7);
        int pi = 1 + (int)nt_rng_below(&r, (uint64_t)pd);
        int pt = 1 + (int)nt_rng_below(&r, (uint64_t)pd);
        int64_t n = (int64_t)nt_rng_below(&r, 50);
        int ini[50], tar[50];
        int64_t sz[50];
        for (int64_t x = 0; x < n; x++) {
            ini[x] = (int)nt_rng_below(&r, (uint64_t)pi);
            tar[x] = (int)nt_rng_below(&r, (uint64_t)pt);
            sz[x] = 1 + (int64_t)nt_rng_below(&r, 9);
        }
        // A random injective sigma.
        int perm[8], sigma[8];
        for (int k = 0; k < pd; k++)
            perm[k] = k;
        for (int k = pd - 1; k > 0; k--) {
            int s = (int)nt_rng_below(&r, (uint64_t)k + 1), tmp = perm[k];
            perm[k] = perm[s];
            perm[s] = tmp;
        }
        memcpy(sigma, perm, sizeof sigma);
        int64_t dist[64];
        for (int x = 0; x < pd * pd; x++)
            dist[x] = (int64_t)nt_rng_below(&r, 30);
        int64_t w[64];
        cr_assert_eq(nt_counts_compute(n, ini, pi, tar, pt, sz, NULL, w), NT_OK);
        // Item by item.
        int64_t sent[8] = {0}, recv[8] = {0}, vol = 0, loc = 0, dv = 0, steps = 0;
        for (int64_t x = 0; x < n; x++) {
            int to = sigma[tar[x]];
            if (to == ini[x]) {
                loc += sz[x];
                continue;
            }
            vol += sz[x];
            sent[ini[x]] += sz[x];
            recv[to] += sz[x];
            dv += sz[x] * dist[ini[x] * pd + to];
        }
        for (int k = 0; k < pd; k++) {
            steps = sent[k] > steps ? sent[k] : steps;
            steps = recv[k] > steps ? recv[k] : steps;
        }
        nt_cost_t c, c2;
        cr_assert_eq(nt_cost_eval(w, pi, pt, pd, sigma, dist, &c), NT_OK, "%s", nt_last_error());
        cr_assert_eq(c.volume, vol);
        cr_assert_eq(c.local, loc);
        cr_assert_eq(c.steps, steps);
        cr_assert_eq(c.dist_volume, dv);
        int64_t q[64];
        cr_assert_eq(nt_transfer_matrix(w, pi, pt, pd, sigma, q), NT_OK);
        cr_assert_eq(nt_transfer_cost(q, pd, dist, &c2), NT_OK);
        cr_assert(c2.volume == vol && c2.local == loc && c2.steps == steps &&
                  c2.dist_volume == dv);
        cr_assert_eq(nt_cost_eval(w, pi, pt, pd, sigma, NULL, &c2), NT_OK);
        cr_assert_eq(c2.dist_volume, 0);
    }
    // Argument errors.
    int64_t w[4] = {1, 2, 3, 4};
    int dup[2] = {1, 1}, out_of[2] = {0, 2}, ok[2] = {1, 0};
    nt_cost_t c;
    cr_assert_eq(nt_cost_eval(w, 2, 2, 2, dup, NULL, &c), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "injective") != NULL);
    cr_assert_eq(nt_cost_eval(w, 2, 2, 2, out_of, NULL, &c), NT_EINVAL);
    cr_assert_eq(nt_cost_eval(w, 2, 2, 1, ok, NULL, &c), NT_EINVAL);
    int64_t neg[4] = {1, 0, 0, -1};
    cr_assert_eq(nt_transfer_cost(neg, 2, NULL, &c), NT_EINVAL);
    int64_t huge[4] = {0, INT64_MAX, 1, 0}, d2[4] = {0, 2, 2, 0};
    cr_assert_eq(nt_transfer_cost(huge, 2, d2, &c), NT_ERANGE);
}

// The optional readings of skewed: and chunk: build the maps of the generators they name.
static void same_as(const char *s, const nt_tilemap_t *want)
{
    nt_tilemap_t *m = spec(s, want->mt, want->nt, 0);
    cr_assert_eq(memcmp(m->owner, want->owner, (size_t)(want->mt * want->nt) * sizeof *m->owner),
                 0, "%s", s);
    nt_tilemap_destroy(m);
}

Test(dist, spec_skewed_chunk_readings)
{
    static const struct {
        const char *spec;
        nt_skew_opts_t o;
    } sk[] = {{"skewed:4x4:7", {.mode = NT_SKEW_GRID}},
              {"skewed:4x4:7:grid", {.mode = NT_SKEW_GRID}},
              {"skewed:4x4:7:domain", {.mode = NT_SKEW_DOMAIN}},
              {"skewed:4x4:7:derange", {.mode = NT_SKEW_GRID, .derange = true}},
              {"skewed:4x4:7:grid:derange", {.mode = NT_SKEW_GRID, .derange = true}},
              {"skewed:4x4:7:domain:derange", {.mode = NT_SKEW_DOMAIN, .derange = true}}};
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++) {
        nt_tilemap_t *want = NULL;
        cr_assert_eq(nt_tilemap_skewed_ex(16, 12, 4, 4, &sk[i].o, 7, &want), NT_OK);
        same_as(sk[i].spec, want);
        nt_tilemap_destroy(want);
    }
    nt_tilemap_t *want = NULL;
    cr_assert_eq(nt_tilemap_skewed(16, 12, 4, 4, 7, &want), NT_OK);
    same_as("skewed:4x4:7", want); // the library's default reading
    nt_tilemap_destroy(want);
    cr_assert_eq(nt_tilemap_chunk(20, 18, 5, 3, &want), NT_OK);
    same_as("chunk:5:3", want);
    nt_tilemap_destroy(want);
    cr_assert_eq(nt_tilemap_chunk_swath(20, 18, 5, 4, 2, 3, &want), NT_OK);
    same_as("chunk:5:3:4x2", want);
    nt_tilemap_destroy(want);
}
