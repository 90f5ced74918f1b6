// Matrices over the caller's memory (numatile/wrap.h): a LAPACK array, tiles, ScaLAPACK local
// arrays. The descriptor is built as nt_matrix_create() builds it without memory, then the
// caller's addresses are checked and attached as borrowed memory.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_matrix.h"
#include "numatile/wrap.h"

// The alignment asked of an element's address: the largest power of two dividing its size,
// at most 16 (what malloc gives; a double needs 8, a complex double 16 for vector loads).
static uintptr_t elem_align(size_t es)
{
    size_t a = es & (~es + 1);
    return a < 16 ? a : 16;
}

// The descriptor (checks sizes, map and owners as nt_matrix_create() does), without memory.
static nt_status wrap_descriptor(const char *who, const nt_topo_t *topo,
                                 const nt_matrix_shape_t *shape, const nt_tilemap_t *map,
                                 nt_layout layout, nt_matrix_t **A)
{
    if (!topo)
        return nt_fail(NT_EINVAL, "%s: topo is NULL", who);
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "%s: a synthetic topology has no memory to wrap", who);
    nt_status st = nt_matrix_create(topo, shape, map, layout, NT_MATRIX_NOALLOC, A);
    if (st)
        return nt_fail(st, "%s: %s", who, nt_last_error());
    (*A)->tile = calloc((size_t)((*A)->mt * (*A)->nt), sizeof *(*A)->tile);
    if (!(*A)->tile) {
        nt_matrix_destroy(*A);
        return nt_fail(NT_ENOMEM, "%s: out of memory", who);
    }
    (*A)->mem->borrowed = true;
    return NT_OK;
}

// A block of cols columns of rows elements, ld apart, at p: aligned, not wrapping around.
static nt_status check_block(const char *who, const char *what, const void *p, int64_t rows,
                             int64_t cols, int64_t ld, size_t es)
{
    if (!p)
        return nt_fail(NT_EINVAL, "%s: %s is NULL", who, what);
    if ((uintptr_t)p % elem_align(es) != 0)
        return nt_fail(NT_EINVAL, "%s: %s = %p is not aligned to %zu bytes (elements of %zu "
                       "bytes)", who, what, p, (size_t)elem_align(es), es);
    size_t ext;
    if (!nt_mul_size((size_t)(cols - 1), (size_t)ld, &ext) ||
        !nt_add_size(ext, (size_t)rows, &ext) || !nt_mul_size(ext, es, &ext) ||
        (uintptr_t)p + ext < (uintptr_t)p)
        return nt_fail(NT_ERANGE, "%s: %s: %lld columns of leading dimension %lld overflow "
                       "the address space", who, what, (long long)cols, (long long)ld);
    return NT_OK;
}

nt_status nt_matrix_wrap_lapack(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                const nt_tilemap_t *map, void *a, int64_t lda,
                                nt_matrix_t **out)
{
    const char *who = "nt_matrix_wrap_lapack";
    if (!shape || !map || !out)
        return nt_fail(NT_EINVAL, "%s: %s is NULL", who,
                       !shape ? "shape" : !map ? "map" : "out");
    if (shape->m >= 1 && lda < shape->m)
        return nt_fail(NT_EINVAL, "%s: lda = %lld is below m = %lld", who, (long long)lda,
                       (long long)shape->m);
    nt_matrix_t *A = NULL;
    nt_status st = wrap_descriptor(who, topo, shape, map, NT_LAYOUT_LAPACK, &A);
    if (st)
        return st;
    st = check_block(who, "a", a, A->m, A->n, lda, A->elem_size);
    if (st == NT_OK)
        st = nt_lapack_set_lld(A, lda);
    if (st) {
        nt_matrix_destroy(A);
        return st;
    }
    nt_lapack_point_tiles(A, a, lda);
    A->allocated = true;
    *out = A;
    return NT_OK;
}

typedef struct span {
    uintptr_t lo, hi; // first byte, one past the last
    int64_t t;
} span;

static int span_by_lo(const void *x, const void *y)
{
    uintptr_t a = ((const span *)x)->lo, b = ((const span *)y)->lo;
    return a < b ? -1 : a > b;
}

// Whether column block t (of A's tiles) shares a byte with block u: for each column of t, only
// the last column of u starting before it ends can reach into it (columns of u are disjoint
// and ordered, ld >= rows).
static bool blocks_share(const nt_matrix_t *A, int64_t t, int64_t u)
{
    int64_t es = (int64_t)A->elem_size;
    int64_t tr = nt_matrix_tile_rows(A, t / A->nt) * es, tl = nt_matrix_tile_ld(A, t / A->nt,
                                                                                 t % A->nt) * es;
    int64_t ur = nt_matrix_tile_rows(A, u / A->nt) * es, ul = nt_matrix_tile_ld(A, u / A->nt,
                                                                                u % A->nt) * es;
    int64_t tc = nt_matrix_tile_cols(A, t % A->nt), uc = nt_matrix_tile_cols(A, u % A->nt);
    int64_t t0 = (int64_t)(uintptr_t)A->tile[t], u0 = (int64_t)(uintptr_t)A->tile[u];
    for (int64_t c = 0; c < tc; c++) {
        int64_t x0 = t0 + c * tl, x1 = x0 + tr;
        if (x1 <= u0)
            continue;
        int64_t k = (x1 - 1 - u0) / ul;
        k = k < uc - 1 ? k : uc - 1;
        if (u0 + k * ul + ur > x0)
            return true;
    }
    return false;
}

// No two tiles of A share an element (a sweep by start address; exact test between tiles
// whose extents overlap, as tiles with ld > rows may interleave). *bad gets one such pair.
static nt_status tiles_disjoint(const nt_matrix_t *A, int64_t bad[2], bool *ok)
{
    size_t n = (size_t)(A->mt * A->nt), nact = 0;
    span *s = malloc(n * sizeof *s);
    size_t *act = malloc(n * sizeof *act);
    if (!s || !act) {
        free(s);
        free(act);
        return nt_fail(NT_ENOMEM, "nt_matrix_wrap: out of memory");
    }
    for (size_t t = 0; t < n; t++) {
        int64_t i = (int64_t)t / A->nt, j = (int64_t)t % A->nt;
        int64_t ext = (nt_matrix_tile_cols(A, j) - 1) * nt_matrix_tile_ld(A, i, j) +
                      nt_matrix_tile_rows(A, i);
        s[t] = (span){(uintptr_t)A->tile[t], (uintptr_t)A->tile[t] + (uintptr_t)ext *
                      A->elem_size, (int64_t)t};
    }
    qsort(s, n, sizeof *s, span_by_lo);
    *ok = true;
    for (size_t k = 0; k < n && *ok; k++) {
        size_t keep = 0;
        for (size_t q = 0; q < nact; q++) {
            const span *o = &s[act[q]];
            if (o->hi <= s[k].lo)
                continue; // ends before every later tile starts
            act[keep++] = act[q];
            if (blocks_share(A, s[k].t, o->t) || blocks_share(A, o->t, s[k].t)) {
                *ok = false;
                bad[0] = o->t < s[k].t ? o->t : s[k].t;
                bad[1] = o->t < s[k].t ? s[k].t : o->t;
            }
        }
        nact = keep;
        act[nact++] = k;
    }
    free(s);
    free(act);
    return NT_OK;
}

// The overlap check with its message, naming the two tiles (or arrays, for ScaLAPACK).
static nt_status check_disjoint(const char *who, const nt_matrix_t *A)
{
    int64_t bad[2] = {0, 0};
    bool ok = true;
    nt_status st = tiles_disjoint(A, bad, &ok);
    if (st || ok)
        return st;
    if (A->layout == NT_LAYOUT_SCALAPACK)
        return nt_fail(NT_EINVAL, "%s: local: the arrays of domains %d and %d overlap", who,
                       A->owner[bad[0]], A->owner[bad[1]]);
    return nt_fail(NT_EINVAL, "%s: tiles: tile (%lld,%lld) and tile (%lld,%lld) overlap", who,
                   (long long)(bad[0] / A->nt), (long long)(bad[0] % A->nt),
                   (long long)(bad[1] / A->nt), (long long)(bad[1] % A->nt));
}

// Each tile's address and leading dimension checked and attached; tile_ld kept only when
// some tile's leading dimension is not its row count.
static nt_status attach_tiles(const char *who, nt_matrix_t *A, void *const *tiles,
                              const int64_t *ld)
{
    bool strided = false;
    for (int64_t t = 0; t < A->mt * A->nt; t++) {
        int64_t i = t / A->nt, j = t % A->nt, rows = nt_matrix_tile_rows(A, i);
        int64_t l = ld ? ld[t] : rows;
        char what[96];
        snprintf(what, sizeof what, "tiles[%lld] (tile (%lld,%lld))", (long long)t,
                 (long long)i, (long long)j);
        if (l < rows)
            return nt_fail(NT_EINVAL, "%s: ld[%lld] = %lld is below the %lld rows of tile "
                           "(%lld,%lld)", who, (long long)t, (long long)l, (long long)rows,
                           (long long)i, (long long)j);
        nt_status st = check_block(who, what, tiles[t], rows, nt_matrix_tile_cols(A, j), l,
                                   A->elem_size);
        if (st)
            return st;
        A->tile[t] = tiles[t];
        strided |= l != rows;
    }
    if (!strided)
        return NT_OK;
    size_t n = (size_t)(A->mt * A->nt);
    if (!(A->tile_ld = malloc(n * sizeof *A->tile_ld)))
        return nt_fail(NT_ENOMEM, "%s: out of memory", who);
    memcpy(A->tile_ld, ld, n * sizeof *A->tile_ld);
    return NT_OK;
}

nt_status nt_matrix_wrap_tiles(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                               const nt_tilemap_t *map, void *const *tiles, const int64_t *ld,
                               nt_matrix_t **out)
{
    const char *who = "nt_matrix_wrap_tiles";
    if (!shape || !map || !tiles || !out)
        return nt_fail(NT_EINVAL, "%s: %s is NULL", who,
                       !shape ? "shape" : !map ? "map" : !tiles ? "tiles" : "out");
    nt_matrix_t *A = NULL;
    nt_status st = wrap_descriptor(who, topo, shape, map, NT_LAYOUT_TILE, &A);
    if (st)
        return st;
    A->mem->owned = calloc((size_t)(A->mt * A->nt), 1); // all 0: no tile is numatile's
    if (!A->mem->owned)
        st = nt_fail(NT_ENOMEM, "%s: out of memory", who);
    if (st == NT_OK)
        st = attach_tiles(who, A, tiles, ld);
    if (st == NT_OK)
        st = check_disjoint(who, A);
    if (st) {
        nt_matrix_destroy(A);
        return st;
    }
    A->allocated = true;
    *out = A;
    return NT_OK;
}

static nt_status attach_locals(const char *who, nt_matrix_t *A, void *const *local,
                               const int64_t *lld)
{
    for (int d = 0; d < A->ndomains; d++) {
        // The descriptor's geometry: lld[d] = the local rows until replaced below.
        int64_t rows = A->lld[d], cols = A->mem->local_cols[d];
        if (cols == 0)
            continue; // no tiles: nothing of local[d] is read
        char what[48];
        snprintf(what, sizeof what, "local[%d]", d);
        if (lld[d] < rows)
            return nt_fail(NT_EINVAL, "%s: lld[%d] = %lld is below the %lld local rows of "
                           "domain %d", who, d, (long long)lld[d], (long long)rows, d);
        nt_status st = check_block(who, what, local[d], rows, cols, lld[d], A->elem_size);
        if (st)
            return st;
        A->lld[d] = lld[d];
        A->mem->local[d] = local[d];
        A->mem->local_bytes[d] = (size_t)((cols - 1) * lld[d] + rows) * A->elem_size;
    }
    return NT_OK;
}

nt_status nt_matrix_wrap_scalapack(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                   const nt_tilemap_t *map, void *const *local,
                                   const int64_t *lld, nt_matrix_t **out)
{
    const char *who = "nt_matrix_wrap_scalapack";
    if (!shape || !map || !local || !lld || !out)
        return nt_fail(NT_EINVAL, "%s: %s is NULL", who,
                       !shape ? "shape" : !map ? "map" : !local ? "local" : !lld ? "lld"
                                                                              : "out");
    nt_matrix_t *A = NULL;
    nt_status st = wrap_descriptor(who, topo, shape, map, NT_LAYOUT_SCALAPACK, &A);
    if (st)
        return st;
    struct nt_matrix_mem *mm = A->mem;
    mm->local = calloc((size_t)A->ndomains, sizeof *mm->local);
    mm->local_bytes = calloc((size_t)A->ndomains, sizeof *mm->local_bytes);
    if (!mm->local || !mm->local_bytes)
        st = nt_fail(NT_ENOMEM, "%s: out of memory", who);
    if (st == NT_OK)
        st = attach_locals(who, A, local, lld);
    if (st == NT_OK)
        st = nt_matrix_point_local_tiles(A);
    if (st == NT_OK)
        st = check_disjoint(who, A);
    if (st) {
        nt_matrix_destroy(A);
        return st;
    }
    A->allocated = true;
    *out = A;
    return NT_OK;
}

bool nt_matrix_is_wrapped(const nt_matrix_t *A)
{
    return A && A->mem && A->mem->borrowed;
}
