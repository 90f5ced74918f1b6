// Placing a wrapped matrix's pages in place, and first touch of an untouched array.
// Oracles: move_pages status queries made here, page by page (nt_mem_where); the page count
// of the array recomputed from its addresses; the elements, which neither call may change.
// Real node changes need several nodes: tests/vm/guest_byom.c checks them in the guests; here
// every virtual domain is on this machine's node(s), so placement must find them in place.
#include <criterion/criterion.h>
#include <string.h>
#include <sys/mman.h>

#include "nt_core.h"
#include "numatile.h"
#include "numatile/wrap.h"

static nt_topo_t *topo2;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 2};
    cr_assert_eq(nt_topo_load(&o, &topo2), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_topo_destroy(topo2);
}

TestSuite(wrap_place, .init = setup, .fini = teardown);

// An untouched anonymous mapping of bytes (whole pages), as a large malloc gives.
static double *untouched(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(p, MAP_FAILED);
    return p;
}

static nt_matrix_t *wrap(double *a, int64_t m, int64_t n, int64_t lda, const char *spec,
                         nt_tilemap_t **map)
{
    nt_matrix_shape_t sh = {m, n, 128, 64, 8};
    cr_assert_eq(nt_tilemap_from_spec(spec, (m + 127) / 128, (n + 63) / 64, 0, map), NT_OK);
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_wrap_lapack(topo2, &sh, *map, a, lda, &A), NT_OK, "%s",
                 nt_last_error());
    return A;
}

Test(wrap_place, first_touch_then_place_moves_nothing_copies_nothing)
{
    int64_t m = 1000, n = 600, lda = 1024; // 4.7 MiB
    size_t bytes = (size_t)(lda * n) * sizeof(double), pg = nt_mem_page_size();
    double *a = untouched(bytes);
    nt_tilemap_t *map;
    nt_matrix_t *A = wrap(a, m, n, lda, "bc2d:1x2", &map);
    // Pages holding elements: the array's pages but the tail of the last column's padding.
    int64_t want = (int64_t)((((size_t)(lda * (n - 1) + m)) * 8 + pg - 1) / pg);
    nt_place_report_t r;
    cr_assert_eq(nt_matrix_place(A, NT_PLACE_QUERY, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq(r.pages, want);
    cr_assert_eq(r.pages_absent, want, "an untouched array has no page yet");
    cr_assert_eq(r.bytes, m * n * 8);
    cr_assert_eq(r.bytes_local, 0);
    cr_assert_eq(nt_matrix_first_touch(A, 1, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq(r.pages_absent, 0);
    cr_assert_eq(r.pages_failed, 0);
    cr_assert_eq(r.bytes_copied, 0);
    cr_assert_eq(r.local_fraction, 1.0);
    nt_page_hist_t h;
    cr_assert_eq(nt_mem_where(a, bytes, &h), NT_OK);
    cr_assert_geq(h.pages - h.absent, want, "every page holding elements is populated");
    for (int64_t x = 0; x < lda * n; x++)
        cr_assert_eq(a[x], 0.0, "first touch changed element %lld", (long long)x);
    for (int64_t x = 0; x < lda * n; x++)
        a[x] = (double)x;
    cr_assert_eq(nt_matrix_place(A, NT_PLACE_STRICT, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq(r.pages_already, want);
    cr_assert_eq(r.pages_moved, 0);
    cr_assert_eq(r.bytes_moved, 0);
    cr_assert_eq(r.bytes_copied, 0);
    cr_assert_eq(r.bytes_local, r.bytes);
    cr_assert_lt(r.peak_extra_bytes, (int64_t)bytes / 100, "peak %lld bytes",
                 (long long)r.peak_extra_bytes);
    int64_t per = 0;
    for (int k = 0; k < 64; k++)
        per += r.pages_per_node[k];
    cr_assert_eq(per, want);
    for (int64_t x = 0; x < lda * n; x++)
        cr_assert_eq(a[x], (double)x, "placement changed element %lld", (long long)x);
    nt_matrix_destroy(A);
    nt_tilemap_destroy(map);
    munmap(a, bytes);
}

// Wrapped tiles and ScaLAPACK arrays go through the same walk.
Test(wrap_place, tiles_and_scalapack)
{
    nt_matrix_shape_t sh = {256, 256, 128, 128, 8};
    nt_tilemap_t *map;
    cr_assert_eq(nt_tilemap_from_spec("bc2d:2x1", 2, 2, 0, &map), NT_OK);
    double *t[4];
    for (int k = 0; k < 4; k++)
        t[k] = untouched(128 * 128 * 8);
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_wrap_tiles(topo2, &sh, map, (void **)t, NULL, &A), NT_OK);
    nt_place_report_t r;
    cr_assert_eq(nt_matrix_first_touch(A, 2, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq(r.pages, 4 * 128 * 128 * 8 / (int64_t)nt_mem_page_size());
    cr_assert_eq(r.pages_absent, 0);
    cr_assert_eq(r.pages_shared, 0, "whole-page tiles share no page");
    cr_assert_eq(r.local_fraction, 1.0);
    nt_matrix_destroy(A);
    for (int k = 0; k < 4; k++)
        munmap(t[k], 128 * 128 * 8);
    void *loc[2] = {untouched(128 * 256 * 8), untouched(128 * 256 * 8)};
    int64_t lld[2] = {128, 128};
    cr_assert_eq(nt_matrix_wrap_scalapack(topo2, &sh, map, loc, lld, &A), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_matrix_first_touch(A, 1, &r), NT_OK);
    cr_assert_eq(r.pages, 2 * 128 * 256 * 8 / (int64_t)nt_mem_page_size());
    cr_assert_eq(r.local_fraction, 1.0);
    nt_placement_report_t c;
    cr_assert_eq(nt_matrix_check_placement(A, &c), NT_OK);
    cr_assert_eq(c.pages, r.pages);
    cr_assert_eq(c.on_domain, c.pages);
    nt_matrix_destroy(A);
    munmap(loc[0], 128 * 256 * 8);
    munmap(loc[1], 128 * 256 * 8);
    nt_tilemap_destroy(map);
}

Test(wrap_place, bad_input)
{
    nt_place_report_t r;
    memset(&r, 0x7f, sizeof r);
    cr_assert_eq(nt_matrix_place(NULL, 0, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "A is NULL"));
    nt_matrix_shape_t sh = {64, 64, 32, 32, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo2, &sh, "bc2d:2x1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_OK);
    cr_assert_eq(nt_matrix_place(A, 0, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "no memory"));
    cr_assert_eq(nt_matrix_first_touch(A, 1, &r), NT_EINVAL);
    cr_assert_eq(nt_matrix_alloc(A), NT_OK);
    cr_assert_eq(nt_matrix_place(A, 1u << 7, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "flags"));
    cr_assert_eq(nt_matrix_first_touch(A, 0, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "threads_per_domain"));
    cr_assert_eq(r.pages, 0x7f7f7f7f7f7f7f7fLL, "report touched on failure");
    // A matrix numatile allocated is already in place.
    cr_assert_eq(nt_matrix_place(A, NT_PLACE_STRICT, &r), NT_OK);
    cr_assert_eq(r.pages_moved, 0);
    cr_assert_eq(r.local_fraction, 1.0);
    nt_matrix_destroy(A);
}
