// The geometry of LAPACK <-> tile conversions (numatile/convert.h) and the out-of-place
// conversions: every tile copied as one 2D block by the copy kernels (nt_copy.h), tiles in
// parallel. They are the reference the in-place conversions (convert_inplace.c) are measured
// against in `numatile bench adopt`.
#include <omp.h>
#include <stdint.h>

#include "nt_convert.h"
#include "nt_copy.h"
#include "nt_core.h"

static nt_status check_sizes(const nt_convert_geom_t *g, const char *who)
{
    if (!g)
        return nt_fail(NT_EINVAL, "%s: g is NULL", who);
    if (g->m < 1 || g->n < 1)
        return nt_fail(NT_EINVAL, "%s: m %lld and n %lld must be >= 1", who, (long long)g->m,
                       (long long)g->n);
    if (g->mb < 1 || g->nb < 1)
        return nt_fail(NT_EINVAL, "%s: mb %lld and nb %lld must be >= 1", who,
                       (long long)g->mb, (long long)g->nb);
    if (g->lda < g->m)
        return nt_fail(NT_EINVAL, "%s: lda %lld is below m %lld", who, (long long)g->lda,
                       (long long)g->m);
    if (g->elem_size < 1)
        return nt_fail(NT_EINVAL, "%s: elem_size must be >= 1", who);
    return NT_OK;
}

nt_status nt_convert_check(const nt_convert_geom_t *g, const char *who, nt_cgeom *out)
{
    nt_status s = check_sizes(g, who);
    if (s)
        return s;
    // Every offset the conversions compute is below the array's element count, and every byte
    // offset below its bytes: both must fit int64_t (and size_t).
    int64_t elems, last;
    size_t bytes;
    if (!nt_mul_i64(g->n - 1, g->lda, &last) || __builtin_add_overflow(last, g->m, &elems) ||
        !nt_mul_size((size_t)elems, g->elem_size, &bytes) || bytes > (size_t)INT64_MAX)
        return nt_fail(NT_ERANGE, "%s: the array ((n-1)*lda + m = (%lld-1)*%lld + %lld "
                       "elements of elem_size %zu bytes) overflows", who, (long long)g->n,
                       (long long)g->lda, (long long)g->m, g->elem_size);
    nt_cgeom c = {.m = g->m, .n = g->n, .lda = g->lda, .mb = g->mb, .nb = g->nb,
                  .es = g->elem_size, .bytes = bytes};
    c.mt = (c.m + c.mb - 1) / c.mb; // no overflow: m >= 1, mb >= 1
    c.nt = (c.n + c.nb - 1) / c.nb;
    c.mb = c.mb > c.m ? c.m : c.mb; // a tile taller than the array is the array's height
    c.nb = c.nb > c.n ? c.n : c.nb;
    c.mtf = c.m / c.mb;
    c.mr = c.m - c.mtf * c.mb;
    *out = c;
    return NT_OK;
}

nt_status nt_convert_tile_offset(const nt_convert_geom_t *g, int64_t i, int64_t j,
                                 int64_t *offset)
{
    nt_cgeom c;
    nt_status s = nt_convert_check(g, "nt_convert_tile_offset", &c);
    if (s)
        return s;
    if (!offset)
        return nt_fail(NT_EINVAL, "nt_convert_tile_offset: offset is NULL");
    if (i < 0 || i >= c.mt || j < 0 || j >= c.nt)
        return nt_fail(NT_EINVAL, "nt_convert_tile_offset: tile (i %lld, j %lld) outside the "
                       "%lld x %lld tiles", (long long)i, (long long)j, (long long)c.mt,
                       (long long)c.nt);
    *offset = nt_cgeom_tile(&c, i, j);
    return NT_OK;
}

// Checks of the out-of-place conversions: pointers, threads, and buffers that do not overlap.
static nt_status check_copy(const void *a, const void *t, const nt_convert_geom_t *g,
                            int threads, const char *who, nt_cgeom *c)
{
    nt_status s = nt_convert_check(g, who, c);
    if (s)
        return s;
    if (!a || !t)
        return nt_fail(NT_EINVAL, "%s: %s is NULL", who, !a ? "the LAPACK array" : "the "
                       "tile buffer");
    if (threads < 0)
        return nt_fail(NT_EINVAL, "%s: threads %d must be >= 0", who, threads);
    uintptr_t pa = (uintptr_t)a, pt = (uintptr_t)t;
    size_t tbytes = (size_t)(c->m * c->n) * c->es; // <= c->bytes: no overflow
    if (pa < pt + tbytes && pt < pa + c->bytes)
        return nt_fail(NT_EINVAL, "%s: the LAPACK array and the tile buffer overlap (use "
                       "the in-place conversion)", who);
    return NT_OK;
}

// LAPACK -> tile by columns: each thread reads a contiguous range of whole columns and writes
// each column's pieces into their tiles. Reading whole columns keeps the reads sequential;
// a tile at a time reads a piece of mb elements per column, a page apart, which the hardware
// prefetchers follow badly (measured at N = 8192, 256 x 256 doubles, huge pages, load ~15:
// 0.57-0.63 of the streamed contiguous copy by tiles, 0.89-0.96 by columns with streaming
// stores; the way back, tiles to columns, is at 0.9 by tiles and keeps copying that way).
static void copy_columns_to_tiles(const char *a, char *t, const nt_cgeom *c, int threads,
                                  unsigned flags)
{
    // The pieces (a few KiB) are below the copy kernels' own streaming threshold, but the
    // whole target is not read again: stream them when the conversion streams.
    nt_copy_kind kind = flags & NT_COPY_STREAM ? NT_COPY_NT : NT_COPY_AUTO;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int64_t th = omp_get_thread_num(), nth = omp_get_num_threads();
        int64_t c0 = c->n * th / nth, c1 = c->n * (th + 1) / nth; // n * nth fits: n <= elems
        for (int64_t col = c0; col < c1; col++) {
            int64_t j = col / c->nb, cc = col - j * c->nb;
            for (int64_t i = 0; i < c->mt; i++) {
                int64_t mi = nt_cgeom_rows(c, i);
                nt_copy_2d_ex(t + (size_t)(nt_cgeom_tile(c, i, j) + cc * mi) * c->es, mi,
                              a + (size_t)(col * c->lda + i * c->mb) * c->es, mi, mi, 1, c->es,
                              flags | NT_COPY_NOFENCE, kind);
            }
        }
        nt_copy_fence();
    }
}

// Pieces of at least this many bytes are copied by columns (a call each); shorter ones by
// tiles, where one call copies all the tile's pieces.
#define COLUMN_PIECE ((size_t)256)

// Copy every tile between the two layouts; to_tile says which way.
static void copy_tiles(char *a, char *t, const nt_cgeom *c, int threads, bool to_tile)
{
    int64_t ntiles = c->mt * c->nt;
    unsigned flags = (int64_t)(c->m * c->n * (int64_t)c->es) >= nt_copy_stream_bytes()
                         ? NT_COPY_STREAM : 0;
    // Tiles in the tile layout's order (down each tile column), so that neighbouring tiles
    // of one thread are neighbours in both buffers.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (int64_t k = 0; k < ntiles; k++) {
        int64_t i = k % c->mt, j = k / c->mt;
        int64_t mi = nt_cgeom_rows(c, i), nj = nt_cgeom_cols(c, j);
        char *pt = t + (size_t)nt_cgeom_tile(c, i, j) * c->es;
        char *pa = a + (size_t)(j * c->nb * c->lda + i * c->mb) * c->es;
        if (to_tile)
            nt_copy_2d_ex(pt, mi, pa, c->lda, mi, nj, c->es, flags, NT_COPY_AUTO);
        else
            nt_copy_2d_ex(pa, c->lda, pt, mi, mi, nj, c->es, flags, NT_COPY_AUTO);
    }
}

nt_status nt_convert_lapack_to_tile_copy(const void *a, void *t, const nt_convert_geom_t *g,
                                         int threads)
{
    nt_cgeom c;
    nt_status s = check_copy(a, t, g, threads, "nt_convert_lapack_to_tile_copy", &c);
    if (s)
        return s;
    int th = nt_convert_threads(threads ? threads : omp_get_max_threads(), c.bytes);
    unsigned flags = (int64_t)(c.m * c.n * (int64_t)c.es) >= nt_copy_stream_bytes()
                         ? NT_COPY_STREAM : 0;
    if ((size_t)c.mb * c.es >= COLUMN_PIECE)
        copy_columns_to_tiles(a, t, &c, th, flags);
    else
        copy_tiles((char *)(uintptr_t)a, t, &c, th, true);
    return NT_OK;
}

nt_status nt_convert_tile_to_lapack_copy(const void *t, void *a, const nt_convert_geom_t *g,
                                         int threads)
{
    nt_cgeom c;
    nt_status s = check_copy(a, t, g, threads, "nt_convert_tile_to_lapack_copy", &c);
    if (s)
        return s;
    int th = nt_convert_threads(threads ? threads : omp_get_max_threads(), c.bytes);
    copy_tiles(a, (char *)(uintptr_t)t, &c, th, false);
    return NT_OK;
}
