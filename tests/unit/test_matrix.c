// Tiled matrices: geometry, both layouts, fill/compare, placement, block-cyclic detection,
// allocation failures. Oracles: ScaLAPACK's own index formulas (INDXG2L, NUMROC) for the local
// layout, a byte-level overlap check for tile addresses, and the bc2d formula for detection.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "nt_core.h"
#include "lib/matrix/nt_matrix.h"
#include "partition/nt_partition.h"
#include "numa/nt_numa.h"

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// NUMROC: elements of a dimension of n, CYCLIC(r) over p, held by process k.
static int64_t numroc(int64_t n, int64_t r, int p, int k)
{
    int64_t nblocks = n / r, cnt = nblocks / p * r;
    int64_t extra = nblocks % p;
    if (k < extra)
        cnt += r;
    else if (k == extra)
        cnt += n % r;
    return cnt;
}

Test(matrix, geometry_and_partial_tiles)
{
    nt_matrix_shape_t sh = {37, 23, 8, 5, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_OK, "%s", nt_last_error());
    cr_assert_eq(A->mt, 5);
    cr_assert_eq(A->nt, 5);
    cr_assert_eq(nt_matrix_tile_rows(A, 0), 8);
    cr_assert_eq(nt_matrix_tile_rows(A, 4), 5);
    cr_assert_eq(nt_matrix_tile_cols(A, 4), 3);
    cr_assert_eq(nt_matrix_tile_ld(A, 4, 0), 5);
    cr_assert_null(nt_matrix_tile(A, 0, 0));
    cr_assert_not(A->allocated);
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++)
            cr_assert_eq(nt_matrix_tile_domain(A, i, j), (int)(i % 2) * 2 + (int)(j % 2));
    cr_assert_eq(A->grid.p, 2);
    cr_assert_eq(A->grid.q, 2);
    nt_matrix_destroy(A);
    nt_matrix_destroy(NULL);
}

// Every element of a matrix with memory has its own bytes, and the ScaLAPACK layout puts
// element (r,c) where INDXG2L says.
static void check_layout(nt_matrix_t *A, const nt_bcgrid_t *g)
{
    size_t es = A->elem_size;
    // Distinct bytes per element: write a counter, read all back.
    int64_t k = 0;
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++, k++) {
            unsigned char *e = nt_matrix_elem(A, r, c);
            for (size_t b = 0; b < es; b++)
                e[b] = (unsigned char)((k >> (8 * (b % 8))) + b);
        }
    k = 0;
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++, k++) {
            unsigned char *e = nt_matrix_elem(A, r, c);
            for (size_t b = 0; b < es; b++)
                cr_assert_eq(e[b], (unsigned char)((k >> (8 * (b % 8))) + b),
                             "element (%lld,%lld) overlaps another", (long long)r, (long long)c);
        }
    if (A->layout != NT_LAYOUT_SCALAPACK)
        return;
    int64_t rb = g->smb * A->mb, cb = g->snb * A->nb;
    for (int d = 0; d < g->p * g->q; d++) {
        int pr = d / g->q, pc = d % g->q;
        int64_t lr = numroc(A->m, rb, g->p, pr), lc = numroc(A->n, cb, g->q, pc);
        if (lr == 0 || lc == 0)
            continue;
        cr_assert_eq(A->lld[d], lr, "domain %d: lld %lld, NUMROC %lld", d, (long long)A->lld[d],
                     (long long)lr);
        char *base = A->mem->local[d];
        for (int64_t c = 0; c < A->n; c++)
            for (int64_t r = 0; r < A->m; r++) {
                if ((r / rb) % g->p != pr || (c / cb) % g->q != pc)
                    continue;
                int64_t li = (r / (rb * g->p)) * rb + r % rb; // INDXG2L
                int64_t lj = (c / (cb * g->q)) * cb + c % cb;
                cr_assert_eq((char *)nt_matrix_elem(A, r, c),
                             base + (size_t)(lj * lr + li) * es);
            }
    }
}

Test(matrix, layouts_place_every_element_and_page)
{
    nt_topo_t *t;
    nt_topo_opts_t o = {.domains = 4};
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    nt_rng g = {5};
    for (int it = 0; it < 40; it++) {
        int p = (int)rnd(&g, 1, 2), q = (int)rnd(&g, 1, 2);
        int64_t smb = rnd(&g, 1, 2), snb = rnd(&g, 1, 2);
        nt_matrix_shape_t sh = {rnd(&g, 1, 70), rnd(&g, 1, 70), rnd(&g, 1, 40),
                                rnd(&g, 1, 40), (size_t)rnd(&g, 1, 16)};
        char spec[64];
        snprintf(spec, sizeof spec, "bc2d:%dx%d:%lldx%lld", p, q, (long long)smb,
                 (long long)snb);
        nt_layout lay = it % 2 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
        nt_matrix_t *A;
        cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, 0, lay, 0, &A), NT_OK, "%s",
                     nt_last_error());
        cr_assert(A->allocated);
        // Fresh memory is zero.
        for (int64_t c = 0; c < A->n; c += 7)
            for (int64_t r = 0; r < A->m; r += 5) {
                unsigned char *e = nt_matrix_elem(A, r, c);
                for (size_t b = 0; b < A->elem_size; b++)
                    cr_assert_eq(e[b], 0);
            }
        nt_bcgrid_t grid = {p, q, smb, snb};
        check_layout(A, &grid);
        nt_placement_report_t rep;
        cr_assert_eq(nt_matrix_check_placement(A, &rep), NT_OK, "%s", nt_last_error());
        cr_assert_gt(rep.pages, 0);
        cr_assert_eq(rep.on_domain, rep.pages, "%lld of %lld pages on their domain",
                     (long long)rep.on_domain, (long long)rep.pages);
        // Pattern fill and check, compare against itself and against a perturbed copy.
        cr_assert_eq(nt_matrix_fill_pattern(A, 99), NT_OK);
        int64_t bad;
        cr_assert_eq(nt_matrix_check_pattern(A, 99, 0, 0, A->m, A->n, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0);
        cr_assert_eq(nt_matrix_compare(A, A, NULL, &bad), NT_OK);
        cr_assert_eq(bad, 0);
        nt_matrix_t *B;
        cr_assert_eq(nt_matrix_create_spec(t, &sh, "random:4", 4, NT_LAYOUT_TILE, 0, &B), NT_OK);
        cr_assert_eq(nt_matrix_fill_pattern(B, 99), NT_OK);
        cr_assert_eq(nt_matrix_compare(B, A, NULL, &bad), NT_OK);
        cr_assert_eq(bad, 0);
        ((unsigned char *)nt_matrix_elem(B, A->m - 1, A->n - 1))[0] ^= 1;
        cr_assert_eq(nt_matrix_compare(B, A, NULL, &bad), NT_OK);
        cr_assert_eq(bad, 1);
        nt_matrix_destroy(B);
        nt_matrix_destroy(A);
    }
    nt_topo_destroy(t);
}

Test(matrix, scalapack_layout_needs_a_grid_of_tiles)
{
    nt_matrix_shape_t sh = {40, 40, 4, 4, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "random:1", 4, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &A), NT_EINVAL);
    cr_assert_null(A);
    cr_assert(strstr(nt_last_error(), "SCALAPACK"), "%s", nt_last_error());
    // A relabelled block-cyclic map is still a grid of tiles per domain.
    nt_tilemap_t *m;
    cr_assert_eq(nt_tilemap_bc2d(10, 10, 2, 2, 1, 1, &m), NT_OK);
    for (int64_t x = 0; x < 100; x++)
        m->owner[x] = 3 - m->owner[x];
    cr_assert_eq(nt_matrix_create(NULL, &sh, m, NT_LAYOUT_SCALAPACK, NT_MATRIX_NOALLOC, &A),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(A->grid.p, 0, "a relabelled map is not detected as plain bc2d");
    nt_matrix_destroy(A);
    nt_tilemap_destroy(m);
}

Test(matrix, block_cyclic_detection_matches_the_formula)
{
    nt_rng g = {11};
    for (int it = 0; it < 500; it++) {
        int p = (int)rnd(&g, 1, 4), q = (int)rnd(&g, 1, 4);
        int64_t smb = rnd(&g, 1, 3), snb = rnd(&g, 1, 3), mt = rnd(&g, 1, 12),
                nt = rnd(&g, 1, 12);
        nt_tilemap_t *m;
        cr_assert_eq(nt_tilemap_bc2d(mt, nt, p, q, smb, snb, &m), NT_OK);
        nt_bcgrid_t d = nt_bcgrid_detect(m->owner, mt, nt, p * q);
        cr_assert_gt(d.p, 0);
        for (int64_t i = 0; i < mt; i++)
            for (int64_t j = 0; j < nt; j++)
                cr_assert_eq(m->owner[i * nt + j],
                             (int)((i / d.smb) % d.p) * d.q + (int)((j / d.snb) % d.q));
        // Any change to a tile of a map with two domains or more breaks the pattern unless it
        // happens to give another block-cyclic map; a random map is (almost) never one.
        nt_tilemap_destroy(m);
    }
    nt_tilemap_t *r;
    cr_assert_eq(nt_tilemap_random(8, 8, 4, 3, &r), NT_OK);
    cr_assert_eq(nt_bcgrid_detect(r->owner, 8, 8, 4).p, 0);
    nt_tilemap_destroy(r);
}

// The SCALAPACK geometry (lld, local columns) of a block-cyclic map, found from its grid rows
// and columns alone, against counting tile by tile; grids with empty rows or columns of
// processes and spare domains included, at creation and after nt_matrix_set_owner().
static void expect_geometry(const nt_matrix_t *A, const int *owner, int D)
{
    for (int d = 0; d < D; d++) {
        int64_t rows = 0, cols = 0;
        for (int64_t i = 0; i < A->mt; i++)
            for (int64_t j = 0; j < A->nt; j++)
                if (owner[i * A->nt + j] == d) {
                    rows += nt_matrix_tile_rows(A, i);
                    break;
                }
        for (int64_t j = 0; j < A->nt; j++)
            for (int64_t i = 0; i < A->mt; i++)
                if (owner[i * A->nt + j] == d) {
                    cols += nt_matrix_tile_cols(A, j);
                    break;
                }
        cr_assert_eq(A->lld[d], rows > 0 ? rows : 1, "domain %d: lld %lld, tiles say %lld", d,
                     (long long)A->lld[d], (long long)rows);
        cr_assert_eq(A->mem->local_cols[d], cols, "domain %d: %lld local columns, tiles say %lld",
                     d, (long long)A->mem->local_cols[d], (long long)cols);
    }
}

Test(matrix, scalapack_geometry_of_grids_matches_the_tiles)
{
    nt_rng g = {23};
    for (int it = 0; it < 400; it++) {
        int p = (int)rnd(&g, 1, 4), q = (int)rnd(&g, 1, 4), D = p * q + (int)rnd(&g, 0, 2);
        int64_t smb = rnd(&g, 1, 3), snb = rnd(&g, 1, 3);
        nt_matrix_shape_t sh = {rnd(&g, 1, 60), rnd(&g, 1, 60), rnd(&g, 1, 8), rnd(&g, 1, 8), 8};
        int64_t mt = (sh.m + sh.mb - 1) / sh.mb, nt = (sh.n + sh.nb - 1) / sh.nb;
        nt_tilemap_t *m;
        cr_assert_eq(nt_tilemap_bc2d(mt, nt, p, q, smb, snb, &m), NT_OK);
        m->ndomains = D;
        nt_matrix_t *A;
        cr_assert_eq(nt_matrix_create(NULL, &sh, m, NT_LAYOUT_SCALAPACK, NT_MATRIX_NOALLOC, &A),
                     NT_OK, "%s", nt_last_error());
        cr_assert_gt(A->grid.p, 0);
        expect_geometry(A, m->owner, D);
        // The same map again through set_owner (a grid), then with domains 0 and D - 1
        // swapped (not the plain grid any more, so counted tile by tile).
        nt_owner_state_t old;
        cr_assert_eq(nt_matrix_set_owner(A, m->owner, D, &old), NT_OK);
        nt_matrix_owner_discard(&old);
        cr_assert_gt(A->grid.p, 0);
        expect_geometry(A, m->owner, D);
        for (int64_t x = 0; x < mt * nt && D > 1; x++)
            m->owner[x] = m->owner[x] == 0 ? D - 1 : m->owner[x] == D - 1 ? 0 : m->owner[x];
        cr_assert_eq(nt_matrix_set_owner(A, m->owner, D, &old), NT_OK);
        nt_matrix_owner_discard(&old);
        expect_geometry(A, m->owner, D);
        nt_matrix_destroy(A);
        nt_tilemap_destroy(m);
    }
}

Test(matrix, synthetic_topology_plans_but_has_no_memory)
{
    nt_topo_t *syn;
    nt_topo_opts_t so = {.synthetic = "pack:2 numa:2 core:2 pu:1"};
    cr_assert_eq(nt_topo_load(&so, &syn), NT_OK);
    nt_matrix_shape_t sh = {100, 100, 10, 10, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(syn, &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE, 0, &A),
                 NT_ENOTSUP);
    cr_assert_null(A);
    cr_assert_eq(nt_matrix_create_spec(syn, &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_OK);
    cr_assert_eq(nt_matrix_alloc(A), NT_ENOTSUP);
    nt_matrix_destroy(A);
    nt_topo_destroy(syn);
}

Test(matrix, bad_arguments_are_named)
{
    nt_matrix_shape_t sh = {10, 10, 4, 4, 8};
    nt_matrix_t *A = NULL;
    nt_tilemap_t *m;
    cr_assert_eq(nt_tilemap_create(2, 2, 1, &m), NT_OK);
    cr_assert_eq(nt_matrix_create(NULL, &sh, m, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "map is 2x2"), "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create(NULL, &sh, m, NT_LAYOUT_TILE, 0, &A), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "topo"));
    sh.elem_size = 0;
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc1d:1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_EINVAL);
    sh = (nt_matrix_shape_t){10, 10, 0, 4, 8};
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc1d:1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_EINVAL);
    sh = (nt_matrix_shape_t){INT64_MAX / 2, 10, 4, 4, 8};
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc1d:1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_ERANGE);
    cr_assert_null(A);
    nt_tilemap_destroy(m);
}

// Allocation failure at every possible point: nothing leaks (ASan), nothing is returned.
Test(matrix, allocation_failure_releases_everything)
{
    nt_topo_t *t;
    nt_topo_opts_t o = {.domains = 3};
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    // 64x64 doubles = 32 KiB tiles (own mappings) plus 8x8 partial edge tiles (slabs).
    nt_matrix_shape_t sh = {200, 200, 64, 64, 8};
    for (int lay = 0; lay < 2; lay++) {
        int64_t k = 0;
        for (;; k++) {
            nt_mem_test_fail_after(k);
            nt_matrix_t *A = NULL;
            nt_status st = nt_matrix_create_spec(t, &sh, "bc2d:3x1", 0, (nt_layout)lay, 0, &A);
            nt_mem_test_fail_after(-1);
            if (st == NT_OK) {
                nt_matrix_destroy(A);
                break;
            }
            cr_assert_eq(st, NT_ENOMEM);
            cr_assert_null(A);
        }
        cr_assert_gt(k, lay == 0 ? 3 : 1, "layout %d needed %lld allocations", lay, (long long)k);
    }
    nt_topo_destroy(t);
}
