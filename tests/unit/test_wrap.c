// Matrices over the caller's memory (numatile/wrap.h) and the LAPACK layout.
// Oracles: the caller's own array, addressed by hand (element (r,c) at a + (r + c*lda)*es, tile
// pointers, ScaLAPACK local positions recomputed here from the map); sentinel bytes around and
// between the elements that no numatile call may change; bytes per page recomputed element by
// element for the page walk; error messages naming the bad argument.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "lib/matrix/nt_matrix.h"
#include "numatile.h"
#include "numatile/wrap.h"

#define SENTINEL 0xA5

static nt_topo_t *topo3;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 3};
    cr_assert_eq(nt_topo_load(&o, &topo3), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_topo_destroy(topo3);
}

TestSuite(wrap, .init = setup, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

static nt_tilemap_t *random_map(nt_rng *g, int64_t mt, int64_t nt, int D)
{
    char spec[64];
    int nd = D;
    if (rnd(g, 0, 1)) {
        snprintf(spec, sizeof spec, "random:%d", (int)rnd(g, 0, 999));
    } else {
        snprintf(spec, sizeof spec, "bc2d:%dx%d", (int)rnd(g, 1, D), 1);
        nd = 0;
    }
    nt_tilemap_t *map = NULL;
    cr_assert_eq(nt_tilemap_from_spec(spec, mt, nt, nd, &map), NT_OK, "%s", nt_last_error());
    return map;
}

// An array of `bytes` bytes, all SENTINEL, aligned to 16 like malloc's.
static unsigned char *sentinel_array(size_t bytes)
{
    unsigned char *a = malloc(bytes);
    cr_assert_not_null(a);
    memset(a, SENTINEL, bytes);
    return a;
}

// Every element read through numatile equals the caller's bytes; after a pattern fill through
// numatile the caller's elements hold the pattern and every other byte is still SENTINEL.
Test(wrap, lapack_elements_equal_callers_array)
{
    nt_rng g = {39};
    for (int it = 0; it < 150; it++) {
        size_t es = (size_t)rnd(&g, 1, 16);
        int64_t m = rnd(&g, 1, 40), n = rnd(&g, 1, 40), lda = m + rnd(&g, 0, 7);
        int64_t r0 = rnd(&g, 0, 3), c0 = rnd(&g, 0, 3); // a submatrix of a larger array
        int64_t big_ld = lda + r0, cols = n + c0;
        nt_matrix_shape_t sh = {m, n, rnd(&g, 1, 12), rnd(&g, 1, 12), es};
        size_t bytes = (size_t)(big_ld * cols) * es;
        unsigned char *a = sentinel_array(bytes);
        for (size_t k = 0; k < bytes; k++)
            a[k] = (unsigned char)(k * 7 + 3);
        unsigned char *first = a + (size_t)(r0 + c0 * big_ld) * es;
        // The first element must be aligned as the wrap asks: shift the start when it is not.
        size_t al = es & (~es + 1);
        al = al < 16 ? al : 16;
        if ((uintptr_t)first % al)
            continue;
        nt_tilemap_t *map = random_map(&g, (m + sh.mb - 1) / sh.mb, (n + sh.nb - 1) / sh.nb, 3);
        nt_matrix_t *A = NULL;
        cr_assert_eq(nt_matrix_wrap_lapack(topo3, &sh, map, first, big_ld, &A), NT_OK, "%s",
                     nt_last_error());
        cr_assert(nt_matrix_is_wrapped(A));
        cr_assert_eq(A->layout, NT_LAYOUT_LAPACK);
        for (int64_t c = 0; c < n; c++)
            for (int64_t r = 0; r < m; r++)
                cr_assert_eq(memcmp(nt_matrix_elem(A, r, c), first + (size_t)(r + c * big_ld) * es,
                                    es), 0, "es %zu %lldx%lld lda %lld at (%lld,%lld)", es,
                             (long long)m, (long long)n, (long long)big_ld, (long long)r,
                             (long long)c);
        memset(a, SENTINEL, bytes);
        cr_assert_eq(nt_matrix_fill_pattern(A, 5), NT_OK);
        unsigned char want[16];
        for (int64_t c = 0; c < cols; c++)
            for (int64_t r = 0; r < big_ld; r++) {
                const unsigned char *e = a + (size_t)(r + c * big_ld) * es;
                bool inside = r >= r0 && r < r0 + m && c >= c0 && c < c0 + n;
                if (inside) {
                    nt_matrix_pattern_value(5, r - r0, c - c0, want, es);
                    cr_assert_eq(memcmp(e, want, es), 0);
                } else {
                    for (size_t b = 0; b < es; b++)
                        cr_assert_eq(e[b], SENTINEL, "byte outside the matrix written");
                }
            }
        nt_matrix_destroy(A); // must leave a alone (ASan / valgrind: no double free)
        a[0] = 1;
        free(a);
        nt_tilemap_destroy(map);
    }
}

// Tiles the caller allocated, with leading dimensions above their rows.
Test(wrap, tiles_elements_and_tile_ld)
{
    nt_rng g = {40};
    for (int it = 0; it < 80; it++) {
        size_t es = (size_t)rnd(&g, 1, 16);
        int64_t m = rnd(&g, 1, 30), n = rnd(&g, 1, 30), mb = rnd(&g, 1, 9), nb = rnd(&g, 1, 9);
        int64_t mt = (m + mb - 1) / mb, nt = (n + nb - 1) / nb, T = mt * nt;
        nt_matrix_shape_t sh = {m, n, mb, nb, es};
        void **tiles = malloc((size_t)T * sizeof *tiles);
        int64_t *ld = malloc((size_t)T * sizeof *ld);
        size_t *sz = malloc((size_t)T * sizeof *sz);
        bool contiguous = rnd(&g, 0, 2) == 0;
        for (int64_t t = 0; t < T; t++) {
            int64_t rows = t / nt < mt - 1 ? mb : m - (mt - 1) * mb;
            int64_t cols = t % nt < nt - 1 ? nb : n - (nt - 1) * nb;
            ld[t] = rows + (contiguous ? 0 : rnd(&g, 0, 3));
            sz[t] = (size_t)(ld[t] * cols) * es;
            tiles[t] = sentinel_array(sz[t]);
        }
        nt_tilemap_t *map = random_map(&g, mt, nt, 3);
        nt_matrix_t *A = NULL;
        cr_assert_eq(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, contiguous ? NULL : ld, &A),
                     NT_OK, "%s", nt_last_error());
        cr_assert_eq(A->layout, NT_LAYOUT_TILE);
        cr_assert_eq(nt_matrix_fill_pattern(A, 9), NT_OK);
        unsigned char want[16];
        for (int64_t t = 0; t < T; t++) {
            int64_t i = t / nt, j = t % nt;
            cr_assert_eq(nt_matrix_tile(A, i, j), tiles[t]);
            cr_assert_eq(nt_matrix_tile_ld(A, i, j), ld[t]);
            int64_t rows = nt_matrix_tile_rows(A, i);
            for (size_t b = 0; b < sz[t]; b++) {
                int64_t e = (int64_t)(b / es), r = e % ld[t], c = e / ld[t];
                unsigned char got = ((unsigned char *)tiles[t])[b];
                if (r >= rows) {
                    cr_assert_eq(got, SENTINEL, "padding of tile %lld written", (long long)t);
                    continue;
                }
                nt_matrix_pattern_value(9, i * mb + r, j * nb + c, want, es);
                cr_assert_eq(got, want[b % es]);
            }
        }
        nt_matrix_destroy(A);
        for (int64_t t = 0; t < T; t++)
            free(tiles[t]);
        free(tiles);
        free(ld);
        free(sz);
        nt_tilemap_destroy(map);
    }
}

// Local arrays in the ScaLAPACK layout, positions recomputed here: element (r,c) of a tile of
// domain d is at local row = rows of d's earlier tile rows + r % mb, likewise for columns.
Test(wrap, scalapack_locals_by_hand)
{
    nt_rng g = {41};
    nt_topo_opts_t o = {.domains = 4};
    nt_topo_t *t4 = NULL;
    cr_assert_eq(nt_topo_load(&o, &t4), NT_OK);
    for (int it = 0; it < 60; it++) {
        size_t es = (size_t)rnd(&g, 1, 16);
        int64_t m = rnd(&g, 1, 40), n = rnd(&g, 1, 40), mb = rnd(&g, 1, 7), nb = rnd(&g, 1, 7);
        int64_t mt = (m + mb - 1) / mb, nt = (n + nb - 1) / nb;
        int p = (int)rnd(&g, 1, 4), q = (int)rnd(&g, 1, 4 / p);
        char spec[32];
        snprintf(spec, sizeof spec, "bc2d:%dx%d", p, q);
        nt_tilemap_t *map = NULL;
        cr_assert_eq(nt_tilemap_from_spec(spec, mt, nt, 0, &map), NT_OK);
        int D = map->ndomains;
        void *local[16] = {0};
        int64_t lld[16], lrows[16], lcols[16];
        size_t lbytes[16];
        for (int d = 0; d < D; d++) {
            int pr = d / q, pc = d % q;
            lrows[d] = lcols[d] = 0;
            for (int64_t i = pr; i < mt; i += p)
                lrows[d] += i < mt - 1 ? mb : m - (mt - 1) * mb;
            for (int64_t j = pc; j < nt; j += q)
                lcols[d] += j < nt - 1 ? nb : n - (nt - 1) * nb;
            lld[d] = lrows[d] + rnd(&g, 0, 3);
            lbytes[d] = (size_t)((lld[d] > 0 ? lld[d] : 1) * (lcols[d] > 0 ? lcols[d] : 1)) * es;
            local[d] = lcols[d] > 0 && lrows[d] > 0 ? sentinel_array(lbytes[d]) : NULL;
        }
        nt_matrix_shape_t sh = {m, n, mb, nb, es};
        nt_matrix_t *A = NULL;
        cr_assert_eq(nt_matrix_wrap_scalapack(t4, &sh, map, local, lld, &A), NT_OK, "%s %s",
                     spec, nt_last_error());
        cr_assert_eq(nt_matrix_fill_pattern(A, 11), NT_OK);
        unsigned char want[16];
        for (int64_t c = 0; c < n; c++)
            for (int64_t r = 0; r < m; r++) {
                int64_t i = r / mb, j = c / nb;
                int d = (int)(i % p) * q + (int)(j % q);
                int64_t lr = (i / p) * mb + r % mb, lc = (j / q) * nb + c % nb;
                nt_matrix_pattern_value(11, r, c, want, es);
                cr_assert_eq(memcmp((char *)local[d] + (size_t)(lr + lc * lld[d]) * es, want,
                                    es), 0, "%s (%lld,%lld)", spec, (long long)r, (long long)c);
                cr_assert_eq(nt_matrix_elem(A, r, c),
                             (char *)local[d] + (size_t)(lr + lc * lld[d]) * es);
            }
        nt_matrix_destroy(A);
        for (int d = 0; d < D; d++)
            free(local[d]);
        nt_tilemap_destroy(map);
    }
    nt_topo_destroy(t4);
}

static void expect_einval(nt_status st, const char *word)
{
    cr_assert_eq(st, NT_EINVAL, "status %d, %s", (int)st, nt_last_error());
    cr_assert(strstr(nt_last_error(), word), "message \"%s\" does not name %s",
              nt_last_error(), word);
}

Test(wrap, bad_input_names_the_argument)
{
    nt_matrix_shape_t sh = {10, 8, 4, 4, 8};
    nt_tilemap_t *map = NULL, *other = NULL;
    cr_assert_eq(nt_tilemap_from_spec("bc2d:3x1", 3, 2, 0, &map), NT_OK);
    cr_assert_eq(nt_tilemap_from_spec("bc2d:3x1", 4, 2, 0, &other), NT_OK);
    double *a = calloc(200, sizeof *a);
    nt_matrix_t *A = (nt_matrix_t *)&sh; // must stay untouched on failure
    expect_einval(nt_matrix_wrap_lapack(topo3, &sh, map, a, 9, &A), "lda");
    expect_einval(nt_matrix_wrap_lapack(topo3, &sh, map, NULL, 10, &A), "a is NULL");
    expect_einval(nt_matrix_wrap_lapack(topo3, &sh, map, (char *)a + 4, 10, &A), "aligned");
    expect_einval(nt_matrix_wrap_lapack(topo3, &sh, other, a, 10, &A), "map");
    expect_einval(nt_matrix_wrap_lapack(NULL, &sh, map, a, 10, &A), "topo");
    expect_einval(nt_matrix_wrap_lapack(topo3, NULL, map, a, 10, &A), "shape");
    cr_assert_eq(A, (nt_matrix_t *)&sh);
    // Tiles: NULL, overlapping (the same buffer twice, and interleaved columns), ld too small.
    void *tiles[6];
    int64_t ld[6];
    for (int t = 0; t < 6; t++) {
        tiles[t] = a + 8 * t; // each reaches into the next
        ld[t] = t / 2 < 2 ? 4 : 2;
    }
    expect_einval(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), "overlap");
    double *own[6];
    for (int t = 0; t < 6; t++)
        tiles[t] = own[t] = calloc(64, sizeof(double));
    cr_assert_eq(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), NT_OK, "%s",
                 nt_last_error());
    nt_matrix_destroy(A);
    tiles[3] = tiles[2];
    expect_einval(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), "overlap");
    tiles[3] = (char *)own[2] + 8; // one row below tile 2's column: shares its elements
    expect_einval(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), "overlap");
    tiles[3] = NULL;
    expect_einval(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), "tiles[3]");
    tiles[3] = own[3];
    ld[5] = 1;
    expect_einval(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), "ld[5]");
    // Interleaved but disjoint: two tiles whose columns alternate in one buffer.
    ld[5] = 2;
    for (int t = 0; t < 6; t++)
        ld[t] = 8;
    double *buf = calloc(8 * 8 * 4, sizeof *buf);
    for (int t = 0; t < 6; t++)
        tiles[t] = buf + (t % 2) * 4 + (t / 2) * 64; // rows 0-3 and 4-7 of the same columns
    cr_assert_eq(nt_matrix_wrap_tiles(topo3, &sh, map, tiles, ld, &A), NT_OK, "%s",
                 nt_last_error());
    nt_matrix_destroy(A);
    // ScaLAPACK: NULL array for a domain with tiles, lld below the local rows, overlap.
    void *loc[3] = {own[0], own[1], NULL};
    int64_t lld[3] = {4, 4, 2};
    expect_einval(nt_matrix_wrap_scalapack(topo3, &sh, map, loc, lld, &A), "local[2]");
    loc[2] = own[2];
    lld[1] = 3;
    expect_einval(nt_matrix_wrap_scalapack(topo3, &sh, map, loc, lld, &A), "lld[1]");
    lld[1] = 4;
    loc[1] = own[0];
    expect_einval(nt_matrix_wrap_scalapack(topo3, &sh, map, loc, lld, &A), "overlap");
    loc[1] = own[1];
    cr_assert_eq(nt_matrix_wrap_scalapack(topo3, &sh, map, loc, lld, &A), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_matrix_alloc(A), NT_EINVAL); // it has memory: the caller's
    nt_matrix_destroy(A);
    nt_topo_opts_t so = {.synthetic = "pack:2 core:2 pu:1"};
    nt_topo_t *syn = NULL;
    if (nt_topo_load(&so, &syn) == NT_OK) {
        cr_assert_eq(nt_matrix_wrap_lapack(syn, &sh, map, a, 10, &A), NT_ENOTSUP);
        nt_topo_destroy(syn);
    }
    for (int t = 0; t < 6; t++)
        free(own[t]);
    free(buf);
    free(a);
    nt_tilemap_destroy(map);
    nt_tilemap_destroy(other);
}

// Bytes of every domain in every page, counted element by element (domain d as node d).
static void walk_against_elements(const nt_matrix_t *A)
{
    nt_page_walk_t w;
    cr_assert_eq(nt_page_walk_init(&w, A), NT_OK);
    int D = A->ndomains;
    for (int d = 0; d < D; d++)
        w.dnode[d] = d;
    w.nnodes = D;
    int64_t acc[8];
    uintptr_t page, prev = 0;
    size_t pg = w.pg, es = A->elem_size;
    int64_t seen = 0;
    while (nt_page_walk_next(&w, &page, acc)) {
        cr_assert(seen == 0 || page > prev, "pages out of order");
        prev = page;
        int64_t want[8] = {0}, any = 0;
        uintptr_t first = UINTPTR_MAX;
        for (int64_t c = 0; c < A->n; c++)
            for (int64_t r = 0; r < A->m; r++) {
                uintptr_t e = (uintptr_t)nt_matrix_elem(A, r, c);
                uintptr_t lo = e > page ? e : page, hi = e + es < page + pg ? e + es : page + pg;
                if (lo < hi) {
                    want[nt_matrix_tile_domain(A, r / A->mb, c / A->nb)] += (int64_t)(hi - lo);
                    any = 1;
                    first = lo < first ? lo : first;
                }
            }
        cr_assert(any, "a page without elements was visited");
        cr_assert_eq(w.first, first, "first element byte of the page");
        for (int d = 0; d < D; d++)
            cr_assert_eq(acc[d], want[d], "page %lld domain %d", (long long)seen, d);
        seen++;
    }
    cr_assert_not(w.failed);
    // Every page holding an element was visited (LAPACK: elements in address order).
    int64_t pages = 0;
    uintptr_t last = 0;
    for (int64_t c = 0; c < A->n && A->layout == NT_LAYOUT_LAPACK; c++)
        for (int64_t r = 0; r < A->m; r++) {
            uintptr_t e = (uintptr_t)nt_matrix_elem(A, r, c);
            for (uintptr_t p = e / pg * pg; p < e + es; p += pg)
                if (pages == 0 || p > last) {
                    pages++;
                    last = p;
                }
        }
    if (A->layout == NT_LAYOUT_LAPACK)
        cr_assert_eq(seen, pages);
    nt_page_walk_free(&w);
}

Test(wrap, page_walk_counts_every_byte)
{
    nt_rng g = {42};
    size_t pg = nt_mem_page_size();
    for (int it = 0; it < 30; it++) {
        size_t es = (size_t)rnd(&g, 1, 16);
        int64_t m = rnd(&g, 1, 300), n = rnd(&g, 1, 40), lda = m + rnd(&g, 0, 700);
        nt_matrix_shape_t sh = {m, n, rnd(&g, 1, 100), rnd(&g, 1, 9), es};
        unsigned char *a = aligned_alloc(pg, ((size_t)(lda * n) * es + pg) / pg * pg);
        nt_tilemap_t *map = random_map(&g, (m + sh.mb - 1) / sh.mb, (n + sh.nb - 1) / sh.nb, 3);
        nt_matrix_t *A = NULL;
        size_t off = (size_t)rnd(&g, 0, 64) * ((es & (~es + 1)) < 16 ? (es & (~es + 1)) : 16);
        cr_assert_eq(nt_matrix_wrap_lapack(topo3, &sh, map, a + off, lda, &A), NT_OK, "%s",
                     nt_last_error());
        walk_against_elements(A);
        nt_matrix_destroy(A);
        free(a);
        nt_tilemap_destroy(map);
    }
    // TILE and SCALAPACK layouts numatile allocated, small enough to share pages.
    for (int it = 0; it < 10; it++) {
        nt_matrix_shape_t sh = {rnd(&g, 1, 90), rnd(&g, 1, 90), rnd(&g, 1, 20), rnd(&g, 1, 20),
                                (size_t)rnd(&g, 1, 16)};
        nt_matrix_t *A = NULL;
        nt_layout L = it % 2 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
        cr_assert_eq(nt_matrix_create_spec(topo3, &sh, "bc2d:3x1", 0, L, 0, &A), NT_OK);
        walk_against_elements(A);
        nt_matrix_destroy(A);
    }
}

// nt_matrix_create() with the LAPACK layout: one array, lda = m, every element zero, pages
// where most of their bytes' owners are (here every virtual domain is on one node).
Test(wrap, owned_lapack_layout)
{
    nt_matrix_shape_t sh = {300, 70, 64, 16, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo3, &sh, "random:4", 0, NT_LAYOUT_LAPACK, 0, &A),
                 NT_OK, "%s", nt_last_error());
    cr_assert_not(nt_matrix_is_wrapped(A));
    for (int d = 0; d < A->ndomains; d++)
        cr_assert_eq(A->lld[d], 300);
    const char *base = nt_matrix_tile(A, 0, 0);
    for (int64_t c = 0; c < sh.n; c++)
        for (int64_t r = 0; r < sh.m; r++) {
            cr_assert_eq((const char *)nt_matrix_elem(A, r, c), base + (r + c * 300) * 8);
            cr_assert_eq(*(const double *)nt_matrix_elem(A, r, c), 0.0);
        }
    nt_placement_report_t rep;
    cr_assert_eq(nt_matrix_check_placement(A, &rep), NT_OK, "%s", nt_last_error());
    size_t pg = nt_mem_page_size();
    cr_assert_eq(rep.pages, (int64_t)((300 * 70 * 8 + pg - 1) / pg));
    cr_assert_eq(rep.on_domain, rep.pages);
    nt_matrix_destroy(A);
}
