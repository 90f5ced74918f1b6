// LAPACK <-> tile conversions (numatile/convert.h) against a naive per-element oracle: element
// (r,c) of the LAPACK array must be element (r%MB, c%NB) of tile (r/MB, c/NB), the tiles
// following each other column of tiles after column of tiles, each one's offset the sum of the
// sizes of the tiles before it (computed here by a loop, not by the library's formula). Round
// trips must be bit-exact, for random m, n, lda, MB, NB, element sizes 1..16, budgets and
// thread counts; the workspace, counted at the allocations, never above the budget.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "nt_core.h"
#include "lib/matrix/nt_convert.h"
#include "lib/matrix/nt_copy.h"

static void teardown(void)
{
    nt_convert_test_fail_alloc_after(-1);
    nt_copy_test_stream_above(-1);
}

TestSuite(convert, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// Byte b of element (r,c): distinct for distinct (r, c, b) in the sizes tested here.
static unsigned char pat(int64_t r, int64_t c, size_t b)
{
    uint64_t x = (uint64_t)r * 0x9E3779B97F4A7C15u ^ (uint64_t)c * 0xC2B2AE3D27D4EB4Fu ^ b;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9u;
    return (unsigned char)(x >> 56);
}

static size_t lapack_elems(const nt_convert_geom_t *g)
{
    return (size_t)((g->n - 1) * g->lda + g->m);
}

// The oracle's tile offsets: off[i + j*mt], by walking the tiles in the documented order.
static int64_t *oracle_offsets(const nt_convert_geom_t *g, int64_t *mt, int64_t *nt)
{
    *mt = (g->m + g->mb - 1) / g->mb;
    *nt = (g->n + g->nb - 1) / g->nb;
    int64_t *off = malloc((size_t)(*mt * *nt) * sizeof *off), pos = 0;
    cr_assert(off);
    for (int64_t j = 0; j < *nt; j++)
        for (int64_t i = 0; i < *mt; i++) {
            off[i + j * *mt] = pos;
            int64_t rows = g->m - i * g->mb < g->mb ? g->m - i * g->mb : g->mb;
            int64_t cols = g->n - j * g->nb < g->nb ? g->n - j * g->nb : g->nb;
            pos += rows * cols;
        }
    cr_assert_eq(pos, g->m * g->n);
    return off;
}

// Fill a LAPACK array with the pattern; the rows m..lda-1 get other bytes.
static void fill_lapack(unsigned char *a, const nt_convert_geom_t *g, nt_rng *rng)
{
    size_t es = g->elem_size;
    for (size_t k = 0; k < lapack_elems(g) * es; k++)
        a[k] = (unsigned char)nt_rng_next(rng);
    for (int64_t c = 0; c < g->n; c++)
        for (int64_t r = 0; r < g->m; r++)
            for (size_t b = 0; b < es; b++)
                a[(size_t)(c * g->lda + r) * es + b] = pat(r, c, b);
}

// Mismatching elements of a LAPACK array (the m x n elements only).
static int64_t check_lapack(const unsigned char *a, const nt_convert_geom_t *g)
{
    int64_t bad = 0;
    size_t es = g->elem_size;
    for (int64_t c = 0; c < g->n; c++)
        for (int64_t r = 0; r < g->m; r++)
            for (size_t b = 0; b < es; b++)
                if (a[(size_t)(c * g->lda + r) * es + b] != pat(r, c, b)) {
                    bad++;
                    break;
                }
    return bad;
}

// Mismatching elements of a buffer in the tile layout; also checks nt_convert_tile_offset().
static int64_t check_tiles(const unsigned char *t, const nt_convert_geom_t *g)
{
    int64_t mt, nt, bad = 0;
    int64_t *off = oracle_offsets(g, &mt, &nt);
    for (int64_t j = 0; j < nt; j++)
        for (int64_t i = 0; i < mt; i++) {
            int64_t lib;
            cr_assert_eq(nt_convert_tile_offset(g, i, j, &lib), NT_OK, "%s", nt_last_error());
            cr_assert_eq(lib, off[i + j * mt], "tile (%lld,%lld)", (long long)i, (long long)j);
        }
    size_t es = g->elem_size;
    for (int64_t c = 0; c < g->n; c++)
        for (int64_t r = 0; r < g->m; r++) {
            int64_t i = r / g->mb, j = c / g->nb;
            int64_t mi = g->m - i * g->mb < g->mb ? g->m - i * g->mb : g->mb;
            int64_t e = off[i + j * mt] + (c % g->nb) * mi + r % g->mb;
            for (size_t b = 0; b < es; b++)
                if (t[(size_t)e * es + b] != pat(r, c, b)) {
                    bad++;
                    break;
                }
        }
    free(off);
    return bad;
}

static nt_convert_geom_t random_geom(nt_rng *rng, int64_t maxdim)
{
    nt_convert_geom_t g = {.m = rnd(rng, 1, maxdim), .n = rnd(rng, 1, maxdim)};
    g.lda = g.m + (rnd(rng, 0, 2) ? rnd(rng, 0, 2 * g.m + 3) : 0);
    g.mb = rnd(rng, 0, 3) ? rnd(rng, 1, g.m + 2) : rnd(rng, 1, 4);
    g.nb = rnd(rng, 0, 3) ? rnd(rng, 1, g.n + 2) : rnd(rng, 1, 4);
    g.elem_size = (size_t)rnd(rng, 1, 16);
    return g;
}

// A random budget between the least one and a generous one (0 now and then: the default).
static size_t random_budget(nt_rng *rng, const nt_convert_geom_t *g)
{
    size_t least;
    cr_assert_eq(nt_convert_min_budget(g, &least), NT_OK, "%s", nt_last_error());
    switch (rnd(rng, 0, 3)) {
    case 0: return least;
    case 1: return 0;
    case 2: return least + (size_t)rnd(rng, 0, 200) * g->elem_size;
    default: return 3 * least + lapack_elems(g) * g->elem_size / (size_t)rnd(rng, 1, 8);
    }
}

#define FMT "m %lld n %lld lda %lld mb %lld nb %lld es %zu budget %zu threads %d"
#define ARGS(g, o) (long long)(g).m, (long long)(g).n, (long long)(g).lda, (long long)(g).mb, \
                   (long long)(g).nb, (g).elem_size, (o).budget_bytes, (o).threads

// One in-place round trip: LAPACK -> tile checked by the oracle, back checked bit-exact, the
// workspace counted and within the budget both ways.
static void round_trip(const nt_convert_geom_t *g, const nt_convert_opts_t *o, nt_rng *rng)
{
    size_t bytes = lapack_elems(g) * g->elem_size;
    unsigned char *a = malloc(bytes);
    cr_assert(a);
    fill_lapack(a, g, rng);
    nt_convert_stats_t st;
    for (int dir = 0; dir < 2; dir++) {
        nt_convert_test_reset_peak();
        size_t before = nt_convert_test_peak_bytes();
        nt_status s = dir == 0 ? nt_convert_lapack_to_tile(a, g, o, &st)
                               : nt_convert_tile_to_lapack(a, g, o, &st);
        cr_assert_eq(s, NT_OK, FMT ": %s", ARGS(*g, *o), nt_last_error());
        size_t used = nt_convert_test_peak_bytes() - before;
        cr_assert_eq(used, st.workspace_bytes, FMT ": counted %zu, reported %zu", ARGS(*g, *o),
                     used, st.workspace_bytes);
        cr_assert(used <= st.budget_bytes, FMT ": %zu above the budget", ARGS(*g, *o), used);
        cr_assert(!o->budget_bytes || st.budget_bytes == o->budget_bytes);
        int64_t bad = dir == 0 ? check_tiles(a, g) : check_lapack(a, g);
        cr_assert_eq(bad, 0, FMT ": %lld elements wrong after %s", ARGS(*g, *o), (long long)bad,
                     dir == 0 ? "LAPACK -> tile" : "tile -> LAPACK");
    }
    free(a);
}

Test(convert, random_round_trips_match_the_oracle)
{
    nt_rng rng = {39};
    for (int k = 0; k < 400; k++) {
        nt_convert_geom_t g = random_geom(&rng, k < 300 ? 24 : 90);
        nt_convert_opts_t o = {.budget_bytes = random_budget(&rng, &g),
                               .threads = (int)rnd(&rng, 0, 4)};
        round_trip(&g, &o, &rng);
    }
}

// The shapes at the edges: one row, one column, tiles of one element, tiles larger than the
// array, tile sizes that divide m and that do not, m coprime with mb (units of one element).
Test(convert, edge_shapes_round_trip)
{
    const int64_t shapes[][5] = {{1, 1, 1, 1, 1},    {1, 9, 1, 1, 4},   {9, 1, 12, 4, 1},
                                 {5, 7, 5, 1, 1},    {5, 7, 9, 9, 9},   {16, 16, 16, 4, 4},
                                 {17, 13, 20, 4, 5}, {31, 29, 31, 6, 7}, {64, 40, 64, 16, 8},
                                 {33, 33, 100, 32, 2}, {7, 50, 7, 2, 50}, {50, 7, 61, 50, 2}};
    nt_rng rng = {7};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t es = 1; es <= 16; es += 5)
            for (int th = 1; th <= 3; th++) {
                nt_convert_geom_t g = {shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3],
                                       shapes[s][4], es};
                size_t least;
                cr_assert_eq(nt_convert_min_budget(&g, &least), NT_OK);
                nt_convert_opts_t o = {.budget_bytes = least ? least : 1, .threads = th};
                round_trip(&g, &o, &rng);
                o.budget_bytes = 0;
                round_trip(&g, &o, &rng);
            }
}

// Larger arrays, several threads and panels, lda > m (packing: columns moved by memmove, then
// several at once as they drift apart); every other element size with streaming stores
// (which the conversions take only for arrays of 32 MiB and more, lowered here by the hook).
Test(convert, larger_arrays_with_packing)
{
    nt_rng rng = {4242};
    const int64_t shapes[][5] = {{300, 257, 301, 64, 32}, {256, 300, 256, 64, 64},
                                 {301, 200, 700, 50, 17}, {129, 400, 130, 128, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t es = 1; es <= 16; es *= 2) {
            nt_copy_test_stream_above(es == 2 || es >= 8 ? 0 : -1);
            nt_convert_geom_t g = {shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3],
                                   shapes[s][4], es};
            size_t least;
            cr_assert_eq(nt_convert_min_budget(&g, &least), NT_OK);
            size_t col = (size_t)g.m * es;
            const size_t budgets[] = {least ? least : 1, 2 * least + 3 * col,
                                      least + 300 * col};
            for (int b = 0; b < 3; b++) {
                nt_convert_opts_t o = {.budget_bytes = budgets[b], .threads = 1 + b};
                round_trip(&g, &o, &rng);
            }
        }
}

// The packing pass's pipeline (columns round-robin over more threads than cpus, each waiting
// for the columns its destination overlaps): gaps lda - m from one element, where every column
// waits for the previous one, to more than a column, where all move at once.
Test(convert, packing_pipeline_with_many_threads)
{
    nt_rng rng = {99};
    const int64_t gaps[] = {1, 3, 50, 199, 200, 401, 1000};
    for (size_t k = 0; k < sizeof gaps / sizeof *gaps; k++)
        for (int th = 2; th <= 6; th += 2) {
            nt_convert_geom_t g = {200, 420, 200 + gaps[k], 64, 40, 16};
            nt_convert_opts_t o = {.threads = th};
            round_trip(&g, &o, &rng);
            g.mb = 200; // one tile row: packing alone
            round_trip(&g, &o, &rng);
        }
}

// The out-of-place copies against the same oracle (by tiles, or by columns when a tile's
// column piece is 256 bytes or more), half of them with streaming stores.
Test(convert, copies_match_the_oracle)
{
    nt_rng rng = {11};
    for (int k = 0; k < 200; k++) {
        nt_convert_geom_t g = random_geom(&rng, 40);
        size_t bytes = lapack_elems(&g) * g.elem_size, tbytes = (size_t)(g.m * g.n) * g.elem_size;
        unsigned char *a = malloc(bytes), *t = malloc(tbytes), *back = malloc(bytes);
        cr_assert(a && t && back);
        fill_lapack(a, &g, &rng);
        int th = (int)rnd(&rng, 0, 3);
        nt_copy_test_stream_above(k % 2 ? 0 : -1); // streaming stores on small arrays too
        cr_assert_eq(nt_convert_lapack_to_tile_copy(a, t, &g, th), NT_OK, "%s", nt_last_error());
        cr_assert_eq(check_tiles(t, &g), 0);
        memset(back, 0x5A, bytes);
        cr_assert_eq(nt_convert_tile_to_lapack_copy(t, back, &g, th), NT_OK, "%s",
                     nt_last_error());
        cr_assert_eq(check_lapack(back, &g), 0);
        for (int64_t c = 0; c < g.n; c++) // rows m..lda-1 are not written
            for (int64_t r = g.m; r < g.lda && c < g.n - 1; r++)
                cr_assert_eq(back[(size_t)(c * g.lda + r) * g.elem_size], 0x5A);
        free(a);
        free(t);
        free(back);
    }
}

// An allocation failure injected at every site, in both directions: NT_ENOMEM and every byte
// of the array (padding included) as it was; past the last site the conversion succeeds.
Test(convert, injected_allocation_failure_leaves_the_array_unchanged)
{
    const nt_convert_geom_t geoms[] = {{40, 30, 47, 8, 6, 8}, {37, 30, 37, 8, 6, 3},
                                       {40, 30, 41, 40, 6, 2}};
    nt_rng rng = {5};
    for (size_t gi = 0; gi < sizeof geoms / sizeof *geoms; gi++)
        for (int dir = 0; dir < 2; dir++) {
            const nt_convert_geom_t *g = &geoms[gi];
            size_t bytes = lapack_elems(g) * g->elem_size;
            unsigned char *a = malloc(bytes), *saved = malloc(bytes);
            cr_assert(a && saved);
            fill_lapack(a, g, &rng);
            if (dir == 1)
                cr_assert_eq(nt_convert_lapack_to_tile(a, g, NULL, NULL), NT_OK);
            memcpy(saved, a, bytes);
            nt_convert_opts_t o = {.budget_bytes = bytes / 2, .threads = 2};
            int fails = 0;
            for (int64_t k = 0;; k++) {
                nt_convert_test_fail_alloc_after(k);
                nt_status s = dir == 0 ? nt_convert_lapack_to_tile(a, g, &o, NULL)
                                       : nt_convert_tile_to_lapack(a, g, &o, NULL);
                nt_convert_test_fail_alloc_after(-1);
                if (s == NT_OK)
                    break;
                cr_assert_eq(s, NT_ENOMEM, "%s", nt_last_error());
                cr_assert(strstr(nt_last_error(), "injected"), "%s", nt_last_error());
                cr_assert_eq(memcmp(a, saved, bytes), 0, "geometry %zu dir %d: site %lld "
                             "changed the array", gi, dir, (long long)k);
                fails++;
            }
            // The bitmaps are the one allocation; the third geometry (one tile row) only packs,
            // which needs none.
            cr_assert_eq(fails, gi < 2 ? 1 : 0, "geometry %zu: %d sites", gi, fails);
            cr_assert_eq(dir == 0 ? check_tiles(a, g) : check_lapack(a, g), 0);
            free(a);
            free(saved);
        }
}

// The least budget works; one byte less is refused with a message naming the budget, the
// array untouched.
Test(convert, least_budget_is_exact)
{
    nt_rng rng = {77};
    for (int k = 0; k < 60; k++) {
        nt_convert_geom_t g = random_geom(&rng, 30);
        size_t least;
        cr_assert_eq(nt_convert_min_budget(&g, &least), NT_OK);
        if (least <= 1)
            continue;
        size_t bytes = lapack_elems(&g) * g.elem_size;
        unsigned char *a = malloc(bytes), *saved = malloc(bytes);
        cr_assert(a && saved);
        fill_lapack(a, &g, &rng);
        memcpy(saved, a, bytes);
        nt_convert_opts_t o = {.budget_bytes = least - 1};
        cr_assert_eq(nt_convert_lapack_to_tile(a, &g, &o, NULL), NT_EINVAL);
        cr_assert(strstr(nt_last_error(), "budget_bytes"), "%s", nt_last_error());
        cr_assert_eq(memcmp(a, saved, bytes), 0);
        o.budget_bytes = least;
        cr_assert_eq(nt_convert_lapack_to_tile(a, &g, &o, NULL), NT_OK, "%s", nt_last_error());
        cr_assert_eq(check_tiles(a, &g), 0);
        free(a);
        free(saved);
    }
}

// Bad input: the status and a message naming the argument, the array untouched.
Test(convert, bad_input_names_the_argument)
{
    double a[64] = {0}, t[64];
    const nt_convert_geom_t ok = {4, 4, 4, 2, 2, 8};
    struct {
        nt_convert_geom_t g;
        const char *word;
        nt_status want;
    } cases[] = {
        {{0, 4, 4, 2, 2, 8}, "m 0", NT_EINVAL},   {{4, -1, 4, 2, 2, 8}, "n -1", NT_EINVAL},
        {{4, 4, 3, 2, 2, 8}, "lda 3", NT_EINVAL}, {{4, 4, 4, 0, 2, 8}, "mb 0", NT_EINVAL},
        {{4, 4, 4, 2, 0, 8}, "nb 0", NT_EINVAL},  {{4, 4, 4, 2, 2, 0}, "elem_size", NT_EINVAL},
        {{4, INT64_MAX / 2, 8, 2, 2, 8}, "overflows", NT_ERANGE},
        {{4, 3, INT64_MAX / 2, 2, 2, 8}, "overflows", NT_ERANGE},
        {{1 << 20, 1 << 20, 1 << 20, 2, 2, (size_t)1 << 40}, "overflows", NT_ERANGE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const nt_convert_geom_t *g = &cases[k].g;
        nt_status got[] = {nt_convert_lapack_to_tile(a, g, NULL, NULL),
                           nt_convert_tile_to_lapack(a, g, NULL, NULL),
                           nt_convert_lapack_to_tile_copy(a, t, g, 0),
                           nt_convert_tile_to_lapack_copy(t, a, g, 0)};
        for (int f = 0; f < 4; f++) {
            cr_assert_eq(got[f], cases[k].want, "case %zu function %d", k, f);
        }
        cr_assert(strstr(nt_last_error(), cases[k].word), "case %zu: %s", k, nt_last_error());
        size_t least;
        int64_t off;
        cr_assert_eq(nt_convert_min_budget(g, &least), cases[k].want);
        cr_assert_eq(nt_convert_tile_offset(g, 0, 0, &off), cases[k].want);
    }
    for (int k = 0; k < 64; k++)
        cr_assert_eq(a[k], 0.0);
    cr_assert_eq(nt_convert_lapack_to_tile(NULL, &ok, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "a is NULL"), "%s", nt_last_error());
    cr_assert_eq(nt_convert_lapack_to_tile(a, NULL, NULL, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "g is NULL"), "%s", nt_last_error());
    nt_convert_opts_t neg = {.threads = -1};
    cr_assert_eq(nt_convert_tile_to_lapack(a, &ok, &neg, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "threads -1"), "%s", nt_last_error());
    cr_assert_eq(nt_convert_lapack_to_tile_copy(a, NULL, &ok, 0), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "tile buffer is NULL"), "%s", nt_last_error());
    cr_assert_eq(nt_convert_lapack_to_tile_copy(a, a + 8, &ok, 0), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "overlap"), "%s", nt_last_error());
    cr_assert_eq(nt_convert_tile_to_lapack_copy(t, a, &ok, -2), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "threads -2"), "%s", nt_last_error());
    int64_t off;
    cr_assert_eq(nt_convert_tile_offset(&ok, 2, 0, &off), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "i 2"), "%s", nt_last_error());
    cr_assert_eq(nt_convert_tile_offset(&ok, 0, -1, &off), NT_EINVAL);
    cr_assert_eq(nt_convert_tile_offset(&ok, 0, 0, NULL), NT_EINVAL);
    cr_assert_eq(nt_convert_min_budget(&ok, NULL), NT_EINVAL);
    for (int k = 0; k < 64; k++)
        cr_assert_eq(a[k], 0.0);
}
