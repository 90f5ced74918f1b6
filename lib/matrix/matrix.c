// Tiled matrices on domains: descriptors, node-bound tile memory, fill/compare helpers and the
// page-by-page placement check.
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_copy.h"
#include "nt_lines.h"
#include "nt_matrix.h"
#include "nt_pool.h"
#include "numatile/pool.h"
#include "partition/nt_partition.h"
#include "numatile/mem.h"
#include "numatile/tiers.h"

// Small tiles are packed at this alignment (a cache line) inside their domain's buffer.
#define SMALL_ALIGN 64

size_t nt_matrix_big_tile_bytes(void)
{
    return nt_mem_page_size();
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

// Which tile rows and columns hold tiles of each domain: has[d * (mt + nt) + x] = 1 for tile
// row x, has[d * (mt + nt) + mt + x] = 1 for tile column x (has zeroed by the caller); count[d]
// = the domain's tiles (count may be NULL). A block-cyclic map (A->grid) gives them from its
// tile rows and columns alone, O((mt + nt) max(p, q)), instead of visiting every tile
// (element-cyclic maps have millions): domain (r, c) holds tile (i, j) exactly when i is in
// grid row r and j in column c.
static void mark_owned(const nt_matrix_t *A, unsigned char *has, int64_t *count)
{
    size_t stride = (size_t)(A->mt + A->nt);
    const nt_bcgrid_t *g = &A->grid;
    if (g->p <= 0) {
        for (int64_t i = 0; i < A->mt; i++)
            for (int64_t j = 0; j < A->nt; j++) {
                int d = A->owner[i * A->nt + j];
                has[(size_t)d * stride + (size_t)i] = 1;
                has[(size_t)d * stride + (size_t)(A->mt + j)] = 1;
                if (count)
                    count[d]++;
            }
        return;
    }
    // Grid rows and columns that hold tiles at all.
    int64_t pr = (A->mt + g->smb - 1) / g->smb, pc = (A->nt + g->snb - 1) / g->snb;
    pr = pr < g->p ? pr : g->p;
    pc = pc < g->q ? pc : g->q;
    for (int64_t i = 0; i < A->mt; i++) {
        int64_t r = i / g->smb % g->p;
        for (int64_t c = 0; c < pc; c++)
            has[(size_t)(r * g->q + c) * stride + (size_t)i] = 1;
    }
    for (int64_t j = 0; j < A->nt; j++) {
        int64_t c = j / g->snb % g->q;
        for (int64_t r = 0; r < pr; r++)
            has[(size_t)(r * g->q + c) * stride + (size_t)(A->mt + j)] = 1;
    }
    for (int d = 0; count && d < A->ndomains; d++) {
        int64_t nr = 0, nc = 0;
        for (int64_t x = 0; x < A->mt; x++)
            nr += has[(size_t)d * stride + (size_t)x];
        for (int64_t x = 0; x < A->nt; x++)
            nc += has[(size_t)d * stride + (size_t)(A->mt + x)];
        count[d] = nr * nc;
    }
}

// SCALAPACK layout: each domain's tiles must be a product of tile rows x tile columns.
// Fills lld[d] and local_cols[d] (0 for a domain without tiles).
static nt_status scalapack_geometry(const nt_matrix_t *A, int64_t *lld, int64_t *lcols)
{
    int D = A->ndomains;
    size_t cells;
    if (!nt_mul_size((size_t)D, (size_t)(A->mt + A->nt), &cells))
        return nt_fail(NT_ERANGE, "nt_matrix_create: domain x tile-grid table overflows");
    unsigned char *has = calloc(cells, 1);
    int64_t *count = calloc((size_t)D, sizeof *count);
    if (!has || !count) {
        free(has);
        free(count);
        return nt_fail(NT_ENOMEM, "nt_matrix_create: out of memory");
    }
    size_t stride = (size_t)(A->mt + A->nt);
    mark_owned(A, has, count);
    nt_status st = NT_OK;
    for (int d = 0; d < D && st == NT_OK; d++) {
        int64_t nr = 0, nc = 0, rows = 0, cols = 0;
        for (int64_t i = 0; i < A->mt; i++)
            if (has[(size_t)d * stride + (size_t)i]) {
                nr++;
                rows += nt_matrix_tile_rows(A, i);
            }
        for (int64_t j = 0; j < A->nt; j++)
            if (has[(size_t)d * stride + (size_t)(A->mt + j)]) {
                nc++;
                cols += nt_matrix_tile_cols(A, j);
            }
        if (nr * nc != count[d])
            st = nt_fail(NT_EINVAL, "nt_matrix_create: SCALAPACK layout needs each domain's "
                         "tiles to form a grid of tile rows x tile columns; domain %d holds %lld "
                         "tiles over %lld tile rows and %lld tile columns", d,
                         (long long)count[d], (long long)nr, (long long)nc);
        lld[d] = rows > 0 ? rows : 1;
        lcols[d] = cols;
    }
    free(has);
    free(count);
    return st;
}

size_t nt_dtype_size(nt_dtype t)
{
    switch (t) {
    case NT_DTYPE_S:
        return sizeof(float);
    case NT_DTYPE_D:
    case NT_DTYPE_C:
        return 8;
    case NT_DTYPE_Z:
        return 16;
    default:
        return 0;
    }
}

const char *nt_dtype_name(nt_dtype t)
{
    static const char *const names[] = {"none", "s", "d", "c", "z"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

nt_dtype nt_matrix_dtype(const nt_matrix_t *A)
{
    return A ? A->dtype : NT_DTYPE_NONE;
}

nt_status nt_matrix_set_dtype(nt_matrix_t *A, nt_dtype t)
{
    if (!A)
        return nt_fail(NT_EINVAL, "nt_matrix_set_dtype: A is NULL");
    if (t != NT_DTYPE_NONE && nt_dtype_size(t) == 0)
        return nt_fail(NT_EINVAL, "nt_matrix_set_dtype: t = %d is not an element type", (int)t);
    // A type that contradicts the element size would make every kernel read the tiles wrongly.
    if (t != NT_DTYPE_NONE && A->elem_size != nt_dtype_size(t))
        return nt_fail(NT_EINVAL, "nt_matrix_set_dtype: type %s needs %zu-byte elements, A has "
                       "elem_size = %zu", nt_dtype_name(t), nt_dtype_size(t), A->elem_size);
    A->dtype = t;
    return NT_OK;
}

static nt_status check_shape(const char *who, const nt_matrix_shape_t *shape)
{
    if (shape->m < 1 || shape->n < 1)
        return nt_fail(NT_EINVAL, "%s: m = %lld, n = %lld must be >= 1", who,
                       (long long)shape->m, (long long)shape->n);
    if (shape->mb < 1 || shape->nb < 1 || shape->mb > INT32_MAX || shape->nb > INT32_MAX)
        return nt_fail(NT_EINVAL, "%s: tile size %lldx%lld must be in "
                       "1..2^31-1", who, (long long)shape->mb, (long long)shape->nb);
    if (shape->elem_size < 1)
        return nt_fail(NT_EINVAL, "%s: elem_size is 0", who);
    size_t total;
    if (!nt_mul_size((size_t)shape->m, (size_t)shape->n, &total) ||
        !nt_mul_size(total, shape->elem_size, &total) || total > (size_t)INT64_MAX)
        return nt_fail(NT_ERANGE, "%s: %lld x %lld elements of %zu bytes "
                       "overflow", who, (long long)shape->m, (long long)shape->n, shape->elem_size);
    return NT_OK;
}

// Bytes of tile (i, j) of a matrix of this shape (edge tiles are smaller).
static size_t shape_tile_bytes(const nt_matrix_shape_t *s, int64_t i, int64_t j)
{
    int64_t r = s->m - i * s->mb < s->mb ? s->m - i * s->mb : s->mb;
    int64_t c = s->n - j * s->nb < s->nb ? s->n - j * s->nb : s->nb;
    return (size_t)r * (size_t)c * s->elem_size;
}

// What creating the matrix will take, checked before anything is allocated: the descriptor's
// per-tile tables, and with memory the tiles on their owners' nodes (a lower bound for the
// ScaLAPACK layout, whose local matrices nt_matrix_alloc checks exactly).
static nt_status create_room(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                             const nt_tilemap_t *map, bool alloc)
{
    size_t ntiles = (size_t)(map->mt * map->nt);
    uint64_t anywhere = (uint64_t)ntiles * (sizeof(int) + (alloc ? sizeof(void *) + 1 : 0));
    if (!alloc || !topo)
        return nt_mem_room(NULL, NULL, anywhere, "nt_matrix_create");
    uint64_t *per = calloc((size_t)nt_topo_ndomains(topo), sizeof *per);
    if (!per)
        return nt_fail(NT_ENOMEM, "nt_matrix_create: out of memory");
    for (int64_t i = 0; i < map->mt; i++)
        for (int64_t j = 0; j < map->nt; j++)
            per[map->owner[i * map->nt + j]] += shape_tile_bytes(shape, i, j);
    nt_status st = nt_mem_room(topo, per, anywhere, "nt_matrix_create");
    free(per);
    return st;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Per tile: the map's owner and the descriptor's (ints), the tile pointer and the ownership
// flag, rounded up for the allocator's own words.
enum { TILE_TABLE_BYTES = 24 };

uint64_t nt_matrix_bytes(const nt_matrix_shape_t *shape, bool with_memory)
{
    if (!shape || shape->m < 1 || shape->n < 1 || shape->mb < 1 || shape->nb < 1 ||
        shape->elem_size < 1)
        return UINT64_MAX;
    uint64_t mt = (uint64_t)ceil_div(shape->m, shape->mb);
    uint64_t nt = (uint64_t)ceil_div(shape->n, shape->nb);
    uint64_t tiles = sat_mul(mt, nt), bytes = sat_mul(tiles, TILE_TABLE_BYTES);
    if (!with_memory)
        return bytes;
    uint64_t es = shape->elem_size;
    bytes = sat_add(bytes, sat_mul(sat_mul((uint64_t)shape->m, (uint64_t)shape->n), es));
    // A tile of a page or more is a mapping of its own: the last page of each is padded (the
    // edge tiles' too, at most a page each).
    uint64_t page = nt_mem_page_size();
    uint64_t full = sat_mul(sat_mul((uint64_t)(shape->mb < shape->m ? shape->mb : shape->m),
                                    (uint64_t)(shape->nb < shape->n ? shape->nb : shape->n)), es);
    if (full >= page) {
        uint64_t pad = full % page ? page - full % page : 0;
        bytes = sat_add(bytes, sat_add(sat_mul(tiles, pad), sat_mul(mt + nt, page)));
    }
    return bytes;
}

nt_status nt_matrix_create(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                           const nt_tilemap_t *map, nt_layout layout, unsigned flags,
                           nt_matrix_t **out)
{
    if (!shape || !map || !out)
        return nt_fail(NT_EINVAL, "nt_matrix_create: %s is NULL",
                       !shape ? "shape" : !map ? "map" : "out");
    if (flags & ~(unsigned)NT_MATRIX_NOALLOC)
        return nt_fail(NT_EINVAL, "nt_matrix_create: unknown flags 0x%x", flags);
    if (!topo && !(flags & NT_MATRIX_NOALLOC))
        return nt_fail(NT_EINVAL, "nt_matrix_create: topo is NULL (allowed only with "
                       "NT_MATRIX_NOALLOC)");
    if (layout != NT_LAYOUT_TILE && layout != NT_LAYOUT_SCALAPACK && layout != NT_LAYOUT_LAPACK)
        return nt_fail(NT_EINVAL, "nt_matrix_create: unknown layout %d", (int)layout);
    nt_status st0 = check_shape("nt_matrix_create", shape);
    if (st0)
        return st0;
    int64_t mt = ceil_div(shape->m, shape->mb), nt = ceil_div(shape->n, shape->nb);
    if (map->mt != mt || map->nt != nt)
        return nt_fail(NT_EINVAL, "nt_matrix_create: map is %lldx%lld tiles, the matrix has "
                       "%lldx%lld", (long long)map->mt, (long long)map->nt, (long long)mt,
                       (long long)nt);
    if (map->ndomains < 1 || !map->owner)
        return nt_fail(NT_EINVAL, "nt_matrix_create: map has no domains");
    int D = map->ndomains;
    if (topo && D > nt_topo_ndomains(topo)) {
        // A map may announce more labels than the machine has; only used ones must fit.
        for (int64_t t = 0; t < mt * nt; t++)
            if (map->owner[t] >= nt_topo_ndomains(topo))
                return nt_fail(NT_EINVAL, "nt_matrix_create: tile (%lld,%lld) on domain %d, "
                               "the topology has %d", (long long)(t / nt), (long long)(t % nt),
                               map->owner[t], nt_topo_ndomains(topo));
    }
    for (int64_t t = 0; t < mt * nt; t++)
        if (map->owner[t] < 0 || map->owner[t] >= D)
            return nt_fail(NT_EINVAL, "nt_matrix_create: tile (%lld,%lld) on domain %d out of "
                           "range 0..%d", (long long)(t / nt), (long long)(t % nt),
                           map->owner[t], D - 1);
    if (topo && !(flags & NT_MATRIX_NOALLOC) && nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_matrix_create: a synthetic topology has no memory; "
                       "use NT_MATRIX_NOALLOC to plan");
    if ((st0 = create_room(topo, shape, map, !(flags & NT_MATRIX_NOALLOC))) != NT_OK)
        return st0;

    nt_matrix_t *A = calloc(1, sizeof *A);
    if (!A)
        return nt_fail(NT_ENOMEM, "nt_matrix_create: out of memory");
    *A = (nt_matrix_t){.m = shape->m, .n = shape->n, .mb = shape->mb, .nb = shape->nb,
                       .mt = mt, .nt = nt, .elem_size = shape->elem_size, .layout = layout,
                       .ndomains = D, .topo = topo};
    size_t ntiles = (size_t)(mt * nt);
    A->owner = malloc(ntiles * sizeof *A->owner);
    A->mem = calloc(1, sizeof *A->mem);
    nt_status st = NT_OK;
    if (!A->owner || !A->mem) {
        st = nt_fail(NT_ENOMEM, "nt_matrix_create: out of memory");
        goto fail;
    }
    memcpy(A->owner, map->owner, ntiles * sizeof *A->owner);
    A->grid = nt_bcgrid_detect(A->owner, mt, nt, D);
    if (layout == NT_LAYOUT_SCALAPACK) {
        A->lld = malloc((size_t)D * sizeof *A->lld);
        A->mem->local_cols = malloc((size_t)D * sizeof *A->mem->local_cols);
        if (!A->lld || !A->mem->local_cols) {
            st = nt_fail(NT_ENOMEM, "nt_matrix_create: out of memory");
            goto fail;
        }
        if ((st = scalapack_geometry(A, A->lld, A->mem->local_cols)) != NT_OK)
            goto fail;
    }
    if (layout == NT_LAYOUT_LAPACK && (st = nt_lapack_set_lld(A, A->m)) != NT_OK)
        goto fail;
    if (!(flags & NT_MATRIX_NOALLOC) && (st = nt_matrix_alloc(A)) != NT_OK)
        goto fail;
    *out = A;
    return NT_OK;
fail:
    nt_matrix_destroy(A);
    return st;
}

nt_status nt_matrix_set_owner(nt_matrix_t *A, const int *owner, int ndomains,
                              nt_owner_state_t *old)
{
    size_t ntiles = (size_t)(A->mt * A->nt);
    nt_matrix_t tmp = *A;
    tmp.owner = malloc(ntiles * sizeof *tmp.owner);
    tmp.ndomains = ndomains;
    tmp.lld = NULL;
    int64_t *lcols = NULL;
    if (!tmp.owner)
        return nt_fail(NT_ENOMEM, "nt_matrix_set_owner: out of memory");
    memcpy(tmp.owner, owner, ntiles * sizeof *tmp.owner);
    tmp.grid = nt_bcgrid_detect(tmp.owner, A->mt, A->nt, ndomains);
    if (A->layout == NT_LAYOUT_LAPACK) {
        if (!(tmp.lld = malloc((size_t)ndomains * sizeof *tmp.lld))) {
            free(tmp.owner);
            return nt_fail(NT_ENOMEM, "nt_matrix_set_owner: out of memory");
        }
        for (int d = 0; d < ndomains; d++)
            tmp.lld[d] = A->lld[0];
    }
    if (A->layout == NT_LAYOUT_SCALAPACK) {
        tmp.lld = malloc((size_t)ndomains * sizeof *tmp.lld);
        lcols = malloc((size_t)ndomains * sizeof *lcols);
        nt_status st = !tmp.lld || !lcols
                           ? nt_fail(NT_ENOMEM, "nt_matrix_set_owner: out of memory")
                           : scalapack_geometry(&tmp, tmp.lld, lcols);
        if (st) {
            free(tmp.owner);
            free(tmp.lld);
            free(lcols);
            return st;
        }
    }
    *old = (nt_owner_state_t){A->owner, A->ndomains, A->grid, A->lld, A->mem->local_cols};
    A->owner = tmp.owner;
    A->ndomains = ndomains;
    A->lld = tmp.lld;
    A->mem->local_cols = lcols;
    A->grid = tmp.grid;
    return NT_OK;
}

void nt_matrix_owner_restore(nt_matrix_t *A, nt_owner_state_t *old)
{
    free(A->owner);
    free(A->lld);
    free(A->mem->local_cols);
    A->owner = old->owner;
    A->ndomains = old->ndomains;
    A->grid = old->grid;
    A->lld = old->lld;
    A->mem->local_cols = old->local_cols;
    *old = (nt_owner_state_t){0};
}

void nt_matrix_owner_discard(nt_owner_state_t *old)
{
    free(old->owner);
    free(old->lld);
    free(old->local_cols);
    *old = (nt_owner_state_t){0};
}

// A "tier:..." spec (numatile/tiers.h): the map depends on the machine, so it needs one.
static nt_status tier_map(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                          const char *spec, nt_tilemap_t **map)
{
    nt_tier_opts_t o;
    if (!topo)
        return nt_fail(NT_EINVAL, "nt_matrix_create_spec: '%s' needs a topology", spec);
    nt_status st = nt_tier_parse(spec, &o);
    return st ? st : nt_tier_tilemap(topo, shape, &o, map);
}

nt_status nt_matrix_create_spec(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                const char *spec, int ndomains, nt_layout layout,
                                unsigned flags, nt_matrix_t **out)
{
    if (!shape || !spec || !out)
        return nt_fail(NT_EINVAL, "nt_matrix_create_spec: %s is NULL",
                       !shape ? "shape" : !spec ? "spec" : "out");
    nt_status st0 = check_shape("nt_matrix_create_spec", shape);
    if (st0)
        return st0;
    if (ndomains == 0 && topo &&
        (!strncmp(spec, "random:", 7) || !strncmp(spec, "balanced:", 9)))
        ndomains = nt_topo_ndomains(topo);
    nt_tilemap_t *map;
    nt_status st = !strncmp(spec, "tier:", 5)
                       ? tier_map(topo, shape, spec, &map)
                       : nt_tilemap_from_spec(spec, ceil_div(shape->m, shape->mb),
                                              ceil_div(shape->n, shape->nb), ndomains, &map);
    if (st)
        return st;
    st = nt_matrix_create(topo, shape, map, layout, flags, out);
    nt_tilemap_destroy(map);
    return st;
}

// The part of a column-major run (col bytes per column) that the caller overwrites right
// after the allocation (nt_matrix_alloc_cover): bytes [r0, r1) of each of the columns
// [c0, c1). Empty when c0 >= c1 or r0 >= r1.
struct nt_keep {
    size_t col, r0, r1;
    int64_t c0, c1;
};

// A run of a matrix's memory to prepare once all are mapped: fresh pages to fault in by a
// first touch (their node comes from the mapping's policy, not from the touching thread), or
// pool memory to zero, except what `keep` says will be overwritten.
struct nt_pending_run {
    char *p;
    size_t n;
    bool zero;
    struct nt_keep keep;
};

// Zero n bytes at p with streaming stores for the whole lines (memset for the partial ends):
// pool memory is not in the caches, and memset (like any cached store) reads every line before
// writing it. Measured here: on 4 KiB pieces 8 KiB apart, 12-13 GB/s with memset or AVX2
// stores, 54-56 GB/s streamed; zeroing a pooled N x N target around a quarter-size submatrix
// (1 MiB pieces on two threads), 2.2 ms with memset and 1.1 ms streamed at N = 4096, 10.1 and
// 4.4 ms at N = 8192.
static void zero_streamed(char *p, size_t n)
{
    size_t head = (size_t)(-(uintptr_t)p & 63);
    if (n < head + 64) {
        memset(p, 0, n);
        return;
    }
    memset(p, 0, head);
    size_t body = (n - head) & ~(size_t)63;
    static const uint64_t zero[8];
    for (size_t i = 0; i < body; i += 64)
        nt_lines_stream(p + head + i, zero);
    memset(p + head + body, 0, n - head - body);
}

// Zero bytes [off, off + len) of a run but its kept rectangle: the ranges before the first and
// after the last kept column and the gaps between kept parts, all streamed.
static void zero_outside(const struct nt_pending_run *r, size_t off, size_t len)
{
    const struct nt_keep *k = &r->keep;
    size_t end = off + len;
    size_t first = (size_t)k->c0 * k->col + k->r0, last = (size_t)(k->c1 - 1) * k->col + k->r1;
    if (off < first)
        zero_streamed(r->p + off, (first < end ? first : end) - off);
    if (last < end)
        zero_streamed(r->p + (last > off ? last : off), end - (last > off ? last : off));
    // Gaps: from the end of column c's kept part to the start of column c + 1's (empty when
    // the kept part is whole columns).
    int64_t from = (int64_t)(off / k->col) - 1;
    for (int64_t c = from > k->c0 ? from : k->c0; c + 1 < k->c1; c++) {
        size_t g0 = (size_t)c * k->col + k->r1, g1 = (size_t)(c + 1) * k->col + k->r0;
        if (g0 >= end)
            break;
        if (g1 <= off)
            continue;
        g0 = g0 > off ? g0 : off;
        g1 = g1 < end ? g1 : end;
        zero_streamed(r->p + g0, g1 - g0);
    }
}

// Fault in (fresh) or zero (pooled) one piece of a run.
static void prepare_piece(const struct nt_pending_run *r, size_t off, size_t len)
{
    if (r->zero) {
        if (r->keep.c0 < r->keep.c1 && r->keep.r0 < r->keep.r1)
            zero_outside(r, off, len);
        else
            zero_streamed(r->p + off, len);
        nt_copy_fence(); // the streamed zeros before the copies that may share their lines
        return;
    }
    size_t pg = nt_mem_page_size();
    for (size_t o = off; o < off + len; o += pg)
        ((volatile char *)r->p)[o] = 0;
}

// Prepare the pending runs of one kind (fresh: fault in; pooled: zero) in pieces of
// PREP_PIECE bytes shared by the threads, so that page faults and zeroing proceed in parallel
// (measured here, first touch of 128 MiB: 0.054-0.063 s on one thread, 0.042-0.056 s on two).
// Returns the seconds it took.
#define PREP_PIECE ((size_t)1 << 20)
static double prepare_kind(const struct nt_matrix_mem *mm, bool zero)
{
    int64_t pieces = 0;
    for (size_t k = 0; k < mm->npend; k++)
        if (mm->pend[k].zero == zero)
            pieces += (int64_t)((mm->pend[k].n + PREP_PIECE - 1) / PREP_PIECE);
    if (pieces == 0)
        return 0;
    double t0 = nt_now();
    // No more threads than cpus this process may run on: more cannot fault pages faster, and
    // an OMP_NUM_THREADS the machine cannot honour (100000) would crash libgomp here.
    cpu_set_t cpus;
    int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    int nth = omp_get_max_threads() < ncpu ? omp_get_max_threads() : ncpu;
#pragma omp parallel for schedule(dynamic, 1) if (pieces > 1) num_threads(nth)
    for (int64_t q = 0; q < pieces; q++) {
        // Piece q: walk to its run (runs are few, or each a single piece).
        int64_t left = q;
        size_t k = 0;
        for (;; k++) {
            if (mm->pend[k].zero != zero)
                continue;
            int64_t np = (int64_t)((mm->pend[k].n + PREP_PIECE - 1) / PREP_PIECE);
            if (left < np)
                break;
            left -= np;
        }
        size_t off = (size_t)left * PREP_PIECE, n = mm->pend[k].n - off;
        prepare_piece(&mm->pend[k], off, n < PREP_PIECE ? n : PREP_PIECE);
    }
    return nt_now() - t0;
}

// Fault in the fresh runs (timed as the allocation's page faults), zero the pooled ones.
static void prepare_runs(struct nt_matrix_mem *mm)
{
    mm->fault_seconds = prepare_kind(mm, false);
    prepare_kind(mm, true);
    free(mm->pend);
    mm->pend = NULL;
    mm->npend = mm->cap_pend = 0;
}

// Queue a run for prepare_runs(); when the queue cannot grow, prepare it at once.
static void pend_run(struct nt_matrix_mem *mm, char *p, size_t n, bool zero,
                     const struct nt_keep *keep)
{
    struct nt_pending_run r = {p, n, zero, keep ? *keep : (struct nt_keep){0}};
    if (mm->npend == mm->cap_pend) {
        size_t cap = mm->cap_pend ? 2 * mm->cap_pend : 64;
        struct nt_pending_run *g = realloc(mm->pend, cap * sizeof *g);
        if (!g) {
            prepare_piece(&r, 0, n);
            return;
        }
        mm->pend = g;
        mm->cap_pend = cap;
    }
    mm->pend[mm->npend++] = r;
}

// Memory of domain d for A: from A's pool when a run fits (to be zeroed: a matrix starts at
// zero; streamed zeros, no page fault; but not under keep, which the caller overwrites), else
// fresh from the kernel, mapped untouched; both are prepared by prepare_runs() once everything
// is mapped. On success *kind (when not NULL) says which: NT_TILE_PIECE of a pool run, or
// NT_TILE_MAPPING.
static nt_status mat_alloc(nt_matrix_t *A, int d, size_t bytes, const struct nt_keep *keep,
                           void **out, unsigned char *kind)
{
    struct nt_matrix_mem *mm = A->mem;
    if (mm->pool && (*out = nt_mempool_take(mm->pool, d, bytes)) != NULL) {
        pend_run(mm, *out, bytes, true, keep);
        mm->bytes_pooled += (int64_t)bytes;
        if (kind)
            *kind = NT_TILE_PIECE;
        return NT_OK;
    }
    nt_status st = nt_mem_alloc(A->topo, d, bytes, NT_MEM_NOTOUCH | NT_MEM_HUGE_PAGES, out);
    if (st)
        return st;
    if (kind)
        *kind = NT_TILE_MAPPING;
    pend_run(mm, *out, bytes, false, NULL);
    mm->bytes_fresh += (int64_t)bytes;
    return NT_OK;
}

// Memory of domain d back to A's pool, or to the kernel.
static void mat_free(nt_matrix_t *A, int d, void *p, size_t bytes)
{
    if (!p)
        return;
    if (A->mem->pool)
        nt_mempool_give(A->mem->pool, d, p, bytes);
    else
        nt_mem_free(p, bytes);
}

nt_status nt_matrix_set_pool(nt_matrix_t *A, nt_mempool_t *pool)
{
    if (!A)
        return nt_fail(NT_EINVAL, "nt_matrix_set_pool: A is NULL");
    if (A->allocated)
        return nt_fail(NT_EINVAL, "nt_matrix_set_pool: the matrix already has memory");
    if (pool && A->topo && A->topo != nt_mempool_topo(pool))
        return nt_fail(NT_EINVAL, "nt_matrix_set_pool: the pool is on another topology");
    if (pool && !A->topo)
        A->topo = nt_mempool_topo(pool);
    A->mem->pool = pool;
    return NT_OK;
}

void nt_matrix_release(nt_matrix_t *A)
{
    if (!A || !A->mem)
        return;
    struct nt_matrix_mem *mm = A->mem;
    // A wrapped matrix frees its tables only: the elements are the caller's.
    if (mm->borrowed && mm->local)
        memset(mm->local, 0, (size_t)A->ndomains * sizeof *mm->local);
    if (mm->lapack)
        nt_mem_free(mm->lapack, mm->lapack_bytes);
    mm->lapack = NULL;
    mm->lapack_bytes = 0;
    if (A->tile && mm->owned)
        for (int64_t i = 0; i < A->mt; i++)
            for (int64_t j = 0; j < A->nt; j++)
                if (mm->owned[i * A->nt + j])
                    mat_free(A, A->owner[i * A->nt + j], A->tile[i * A->nt + j],
                             nt_tile_bytes(A, i, j));
    if (mm->slab)
        for (int d = 0; d < A->ndomains; d++)
            mat_free(A, d, mm->slab[d], mm->slab_bytes[d]);
    if (mm->local)
        for (int d = 0; d < A->ndomains; d++)
            mat_free(A, d, mm->local[d], mm->local_bytes[d]);
    free(mm->owned);
    free(mm->slab);
    free(mm->slab_bytes);
    free(mm->local);
    free(mm->local_bytes);
    mm->owned = NULL;
    mm->slab = mm->local = NULL;
    mm->slab_bytes = mm->local_bytes = NULL;
    free(A->tile);
    A->tile = NULL;
    A->allocated = false;
}

void nt_matrix_destroy(nt_matrix_t *A)
{
    if (!A)
        return;
    nt_matrix_release(A);
    if (A->mem)
        free(A->mem->local_cols);
    free(A->mem);
    free(A->lld);
    free(A->owner);
    free(A->tile_ld);
    free(A);
}

// The indices [*lo, *hi) of tile row or column x (tiles of b, ext indices in all) that the
// cover [c0, c0 + cn) holds, relative to the tile's first (*lo >= *hi: none).
static void tile_span(int64_t x, int64_t b, int64_t ext, int64_t c0, int64_t cn, int64_t *lo,
                      int64_t *hi)
{
    int64_t t0 = x * b, t1 = t0 + b < ext ? t0 + b : ext;
    *lo = (c0 > t0 ? c0 : t0) - t0;
    *hi = (c0 + cn < t1 ? c0 + cn : t1) - t0;
}

// A big tile's part under the cover (nt_matrix_alloc_cover).
static struct nt_keep tile_keep(const nt_matrix_t *A, int64_t i, int64_t j)
{
    const struct nt_matrix_mem *mm = A->mem;
    int64_t r0, r1, c0, c1;
    if (!mm->has_cover)
        return (struct nt_keep){0};
    tile_span(i, A->mb, A->m, mm->cover[0], mm->cover[2], &r0, &r1);
    tile_span(j, A->nb, A->n, mm->cover[1], mm->cover[3], &c0, &c1);
    if (r0 >= r1 || c0 >= c1)
        return (struct nt_keep){0};
    size_t es = A->elem_size;
    return (struct nt_keep){(size_t)nt_matrix_tile_rows(A, i) * es, (size_t)r0 * es,
                            (size_t)r1 * es, c0, c1};
}

// Each ScaLAPACK local matrix is allocated a little longer than it holds, by a different amount
// per domain (the tail is placed and zeroed like the rest, never addressed): local matrices of
// 2^k bytes (N = 4096 or 8192 on a 2x2 or 4x1 grid) would otherwise lie exactly 2^k bytes apart,
// and the copies, which walk the same local column of several of them at once, then meet the
// same cache sets and memory banks in all of them. Measured with bench/micro/periodic_lines.c
// (2x2 -> 4x1, N = 8192, copy / bound, both layouts in one process, alternated): without and
// with (d + 1) x 64 KiB, nb 512 -> 256 0.66-0.75 / 0.71-0.80, 64 -> 100 0.78-0.80 / 0.85-0.91,
// 8 -> 12 0.45-0.52 / 0.77-0.81, 1 -> 3 0.43 / 0.57-0.59; a uniform 2 MiB did likewise.
#define LOCAL_STAGGER ((size_t)64 << 10)
static size_t local_pad(int d)
{
    return (size_t)(d % 16 + 1) * LOCAL_STAGGER;
}

// Domain d's local matrix under the cover. rk[x]: the position (in tiles) of tile row x, or of
// tile column mt + x, in the local matrix, -1 when d has none there. Global order is local
// order, so the covered rows (columns) of d are one contiguous local range: the tiles strictly
// inside the cover are whole, only the first and last can be cut.
static struct nt_keep local_keep(const nt_matrix_t *A, int d, const int64_t *rk)
{
    const struct nt_matrix_mem *mm = A->mem;
    if (!mm->has_cover)
        return (struct nt_keep){0};
    int64_t r0 = INT64_MAX, r1 = -1, c0 = INT64_MAX, c1 = -1;
    for (int64_t i = 0; i < A->mt; i++) {
        int64_t lo, hi;
        tile_span(i, A->mb, A->m, mm->cover[0], mm->cover[2], &lo, &hi);
        if (rk[i] < 0 || lo >= hi)
            continue;
        r0 = r0 < rk[i] * A->mb + lo ? r0 : rk[i] * A->mb + lo;
        r1 = r1 > rk[i] * A->mb + hi ? r1 : rk[i] * A->mb + hi;
    }
    for (int64_t j = 0; j < A->nt; j++) {
        int64_t lo, hi;
        tile_span(j, A->nb, A->n, mm->cover[1], mm->cover[3], &lo, &hi);
        if (rk[A->mt + j] < 0 || lo >= hi)
            continue;
        c0 = c0 < rk[A->mt + j] * A->nb + lo ? c0 : rk[A->mt + j] * A->nb + lo;
        c1 = c1 > rk[A->mt + j] * A->nb + hi ? c1 : rk[A->mt + j] * A->nb + hi;
    }
    if (r0 >= r1 || c0 >= c1)
        return (struct nt_keep){0};
    size_t es = A->elem_size;
    return (struct nt_keep){(size_t)A->lld[d] * es, (size_t)r0 * es, (size_t)r1 * es, c0, c1};
}

static nt_status alloc_tile_layout(nt_matrix_t *A, const unsigned char *skip)
{
    struct nt_matrix_mem *mm = A->mem;
    int D = A->ndomains;
    size_t ntiles = (size_t)(A->mt * A->nt);
    size_t big = nt_matrix_big_tile_bytes();
    mm->owned = calloc(ntiles, 1);
    mm->slab = calloc((size_t)D, sizeof *mm->slab);
    mm->slab_bytes = calloc((size_t)D, sizeof *mm->slab_bytes);
    if (!mm->owned || !mm->slab || !mm->slab_bytes)
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    // Slab sizes first: small tiles packed per domain.
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            size_t b = nt_tile_bytes(A, i, j);
            if (b >= big)
                continue;
            size_t r = (b + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN;
            size_t *sb = &mm->slab_bytes[A->owner[i * A->nt + j]];
            if (!nt_add_size(*sb, r, sb))
                return nt_fail(NT_ERANGE, "nt_matrix_alloc: slab size overflows");
        }
    for (int d = 0; d < D; d++)
        if (mm->slab_bytes[d]) {
            nt_status st = mat_alloc(A, d, mm->slab_bytes[d], NULL, (void **)&mm->slab[d], NULL);
            if (st) {
                mm->slab_bytes[d] = 0;
                return st;
            }
        }
    size_t *cursor = calloc((size_t)D, sizeof *cursor);
    if (!cursor)
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            int64_t t = i * A->nt + j;
            int d = A->owner[t];
            size_t b = nt_tile_bytes(A, i, j);
            if (b < big) {
                A->tile[t] = mm->slab[d] + cursor[d];
                cursor[d] += (b + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN;
            }
        }
    // Big tiles domain by domain: consecutive mappings with the same node policy can merge
    // into one kernel VMA, which keeps many tiles under the kernel's mapping limit (tiles of
    // 2 MiB or more that are not whole huge pages take two: nt_mem_alloc advises their edges
    // against huge pages, so that moving one tile never moves a huge page of its neighbour).
    nt_status st = NT_OK;
    for (int d = 0; d < D && st == NT_OK; d++)
        for (int64_t i = 0; i < A->mt && st == NT_OK; i++)
            for (int64_t j = 0; j < A->nt; j++) {
                int64_t t = i * A->nt + j;
                size_t b = nt_tile_bytes(A, i, j);
                if (A->owner[t] != d || b < big || (skip && skip[t]))
                    continue;
                void *p;
                struct nt_keep k = tile_keep(A, i, j);
                if ((st = mat_alloc(A, d, b, &k, &p, &mm->owned[t])) != NT_OK)
                    break;
                A->tile[t] = p;
            }
    free(cursor);
    return st;
}

// rank[d * (mt+nt) + x]: position of tile row x (or tile column mt+x) in domain d's local
// matrix, counted in tiles; -1 where d has none. Into *out, to free.
static nt_status local_ranks(const nt_matrix_t *A, int64_t **out)
{
    int D = A->ndomains;
    size_t stride = (size_t)(A->mt + A->nt), cells;
    if (!nt_mul_size((size_t)D, stride, &cells))
        return nt_fail(NT_ERANGE, "nt_matrix_alloc: table overflows");
    int64_t *rank = malloc(cells * sizeof *rank);
    unsigned char *has = calloc(cells, 1);
    if (!rank || !has) {
        free(rank);
        free(has);
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    }
    mark_owned(A, has, NULL);
    for (size_t x = 0; x < cells; x++)
        rank[x] = has[x] ? 0 : -1;
    free(has);
    for (int d = 0; d < D; d++) {
        int64_t r = 0;
        for (size_t x = 0; x < stride; x++) {
            if ((int64_t)x == A->mt)
                r = 0;
            int64_t *v = &rank[(size_t)d * stride + x];
            if (*v >= 0)
                *v = r++;
        }
    }
    *out = rank;
    return NT_OK;
}

// Every tile's address inside its domain's local matrix (mem->local[], lld[]).
static void point_local(nt_matrix_t *A, const int64_t *rank)
{
    size_t stride = (size_t)(A->mt + A->nt);
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            int d = A->owner[i * A->nt + j];
            int64_t ri = rank[(size_t)d * stride + (size_t)i];
            int64_t rj = rank[(size_t)d * stride + (size_t)(A->mt + j)];
            A->tile[i * A->nt + j] =
                A->mem->local[d] + (size_t)(rj * A->nb * A->lld[d] + ri * A->mb) * A->elem_size;
        }
}

nt_status nt_matrix_point_local_tiles(nt_matrix_t *A)
{
    int64_t *rank;
    nt_status st = local_ranks(A, &rank);
    if (st)
        return st;
    point_local(A, rank);
    free(rank);
    return NT_OK;
}

static nt_status alloc_scalapack(nt_matrix_t *A)
{
    struct nt_matrix_mem *mm = A->mem;
    int D = A->ndomains;
    mm->local = calloc((size_t)D, sizeof *mm->local);
    mm->local_bytes = calloc((size_t)D, sizeof *mm->local_bytes);
    int64_t *rank = NULL;
    if (!mm->local || !mm->local_bytes)
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    nt_status st = local_ranks(A, &rank);
    size_t stride = (size_t)(A->mt + A->nt);
    for (int d = 0; d < D && st == NT_OK; d++) {
        if (mm->local_cols[d] == 0)
            continue;
        size_t b;
        if (!nt_mul_size((size_t)A->lld[d], (size_t)mm->local_cols[d], &b) ||
            !nt_mul_size(b, A->elem_size, &b)) {
            st = nt_fail(NT_ERANGE, "nt_matrix_alloc: local matrix of domain %d overflows", d);
            break;
        }
        struct nt_keep k = local_keep(A, d, rank + (size_t)d * stride);
        if (!nt_add_size(b, local_pad(d), &b)) {
            st = nt_fail(NT_ERANGE, "nt_matrix_alloc: local matrix of domain %d overflows", d);
            break;
        }
        if ((st = mat_alloc(A, d, b, &k, (void **)&mm->local[d], NULL)) == NT_OK)
            mm->local_bytes[d] = b;
    }
    if (st == NT_OK)
        point_local(A, rank);
    free(rank);
    return st;
}

// The memory nt_matrix_alloc_except will bind to each domain, as it will round it: small tiles
// packed at SMALL_ALIGN, big tiles (not skipped) in whole pages, ScaLAPACK local matrices.
static nt_status alloc_room(const nt_matrix_t *A, const unsigned char *skip)
{
    // A map may announce more labels than the topology has domains (unused ones stay 0).
    int D = nt_topo_ndomains(A->topo) > A->ndomains ? nt_topo_ndomains(A->topo) : A->ndomains;
    uint64_t *per = calloc((size_t)D, sizeof *per);
    if (!per)
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    size_t big = nt_matrix_big_tile_bytes(), pg = nt_mem_page_size();
    for (int64_t t = 0; A->layout == NT_LAYOUT_TILE && t < A->mt * A->nt; t++) {
        size_t b = nt_tile_bytes(A, t / A->nt, t % A->nt);
        if (b < big)
            per[A->owner[t]] += (b + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN;
        else if (!(skip && skip[t]))
            per[A->owner[t]] += (b + pg - 1) / pg * pg;
    }
    for (int64_t t = 0; A->layout == NT_LAYOUT_LAPACK && t < A->mt * A->nt; t++)
        per[A->owner[t]] += nt_tile_bytes(A, t / A->nt, t % A->nt);
    for (int d = 0; A->layout == NT_LAYOUT_SCALAPACK && d < A->ndomains; d++)
        if (A->mem->local_cols[d] > 0)
            per[d] = (uint64_t)A->lld[d] * (uint64_t)A->mem->local_cols[d] * A->elem_size +
                     local_pad(d);
    // What the pool holds for a domain needs no new memory.
    for (int d = 0; A->mem->pool && d < D; d++) {
        size_t held = 0;
        nt_mempool_bytes(A->mem->pool, d, &held);
        per[d] = per[d] > held ? per[d] - held : 0;
    }
    size_t ntiles = (size_t)(A->mt * A->nt);
    nt_status st = nt_mem_room(A->topo, per, (uint64_t)ntiles * (sizeof(void *) + 1),
                               "nt_matrix_alloc");
    free(per);
    return st;
}

nt_status nt_matrix_alloc_except(nt_matrix_t *A, const unsigned char *skip)
{
    if (!A)
        return nt_fail(NT_EINVAL, "nt_matrix_alloc: A is NULL");
    if (A->allocated)
        return nt_fail(NT_EINVAL, "nt_matrix_alloc: the matrix already has memory");
    if (!A->topo)
        return nt_fail(NT_EINVAL, "nt_matrix_alloc: the matrix has no topology");
    if (nt_topo_get_kind(A->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_matrix_alloc: a synthetic topology has no memory");
    nt_status st0 = alloc_room(A, skip);
    if (st0)
        return st0;
    A->mem->bytes_pooled = A->mem->bytes_fresh = 0;
    A->mem->fault_seconds = 0;
    A->tile = calloc((size_t)(A->mt * A->nt), sizeof *A->tile);
    if (!A->tile)
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    nt_status st = A->layout == NT_LAYOUT_TILE        ? alloc_tile_layout(A, skip)
                   : A->layout == NT_LAYOUT_LAPACK ? nt_matrix_alloc_lapack(A)
                                                   : alloc_scalapack(A);
    if (st) {
        free(A->mem->pend);
        A->mem->pend = NULL;
        A->mem->npend = A->mem->cap_pend = 0;
        nt_matrix_release(A);
        return st;
    }
    if (A->layout != NT_LAYOUT_LAPACK) // which faulted its pages in itself
        prepare_runs(A->mem);
    A->allocated = true;
    return NT_OK;
}

nt_status nt_matrix_alloc(nt_matrix_t *A)
{
    return nt_matrix_alloc_except(A, NULL);
}

nt_status nt_matrix_alloc_cover(nt_matrix_t *A, const unsigned char *skip,
                                const nt_sub_t *cover)
{
    if (!A || !cover)
        return nt_matrix_alloc_except(A, skip);
    struct nt_matrix_mem *mm = A->mem;
    int64_t c[4] = {cover->dst_row, cover->dst_col, cover->rows, cover->cols};
    memcpy(mm->cover, c, sizeof c);
    mm->has_cover = cover->rows > 0 && cover->cols > 0;
    nt_status st = nt_matrix_alloc_except(A, skip);
    mm->has_cover = false;
    return st;
}

void nt_matrix_adopt_tile(nt_matrix_t *dst, int64_t td, nt_matrix_t *src, int64_t ts)
{
    dst->tile[td] = src->tile[ts];
    dst->mem->owned[td] = src->mem->owned[ts];
    src->mem->owned[ts] = 0;
}

nt_status nt_matrix_fill(nt_matrix_t *A, nt_matrix_value_fn fn, void *arg)
{
    if (!A || !fn)
        return nt_fail(NT_EINVAL, "nt_matrix_fill: %s is NULL", A ? "fn" : "A");
    if (!A->allocated)
        return nt_fail(NT_EINVAL, "nt_matrix_fill: the matrix has no memory");
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++) {
            char *t = nt_matrix_tile(A, i, j);
            int64_t ld = nt_matrix_tile_ld(A, i, j);
            int64_t rows = nt_matrix_tile_rows(A, i), cols = nt_matrix_tile_cols(A, j);
            for (int64_t c = 0; c < cols; c++)
                for (int64_t r = 0; r < rows; r++)
                    fn(i * A->mb + r, j * A->nb + c, t + (size_t)(c * ld + r) * A->elem_size,
                       A->elem_size, arg);
        }
    return NT_OK;
}

void nt_matrix_pattern_value(uint64_t seed, int64_t r, int64_t c, void *elem, size_t elem_size)
{
    nt_rng g = {seed ^ ((uint64_t)r * 0x9e3779b97f4a7c15ULL) ^
                ((uint64_t)c * 0xc2b2ae3d27d4eb4fULL)};
    unsigned char *out = elem;
    size_t k = 0;
    while (k < elem_size) {
        uint64_t v = nt_rng_next(&g);
        size_t take = elem_size - k < 8 ? elem_size - k : 8;
        memcpy(out + k, &v, take);
        k += take;
    }
}

static void pattern_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg)
{
    nt_matrix_pattern_value(*(const uint64_t *)arg, r, c, elem, elem_size);
}

nt_status nt_matrix_fill_pattern(nt_matrix_t *A, uint64_t seed)
{
    return nt_matrix_fill(A, pattern_fn, &seed);
}

static bool sub_fits(const nt_matrix_t *A, int64_t row, int64_t col, int64_t rows, int64_t cols)
{
    return row >= 0 && col >= 0 && rows >= 0 && cols >= 0 && row <= A->m - rows &&
           col <= A->n - cols;
}

nt_status nt_matrix_compare(const nt_matrix_t *dst, const nt_matrix_t *src, const nt_sub_t *sub,
                            int64_t *mismatches)
{
    if (!dst || !src || !mismatches)
        return nt_fail(NT_EINVAL, "nt_matrix_compare: %s is NULL",
                       !dst ? "dst" : !src ? "src" : "mismatches");
    if (!dst->allocated || !src->allocated)
        return nt_fail(NT_EINVAL, "nt_matrix_compare: %s has no memory",
                       dst->allocated ? "src" : "dst");
    if (dst->elem_size != src->elem_size)
        return nt_fail(NT_EINVAL, "nt_matrix_compare: element sizes differ (%zu vs %zu)",
                       dst->elem_size, src->elem_size);
    nt_sub_t s;
    if (sub) {
        s = *sub;
    } else {
        if (dst->m != src->m || dst->n != src->n)
            return nt_fail(NT_EINVAL, "nt_matrix_compare: sizes differ and no submatrix given");
        s = (nt_sub_t){src->m, src->n, 0, 0, 0, 0};
    }
    if (!sub_fits(src, s.src_row, s.src_col, s.rows, s.cols) ||
        !sub_fits(dst, s.dst_row, s.dst_col, s.rows, s.cols))
        return nt_fail(NT_EINVAL, "nt_matrix_compare: submatrix out of bounds");
    int64_t bad = 0;
    for (int64_t y = 0; y < s.cols; y++)
        for (int64_t x = 0; x < s.rows; x++)
            bad += memcmp(nt_matrix_elem(dst, s.dst_row + x, s.dst_col + y),
                          nt_matrix_elem(src, s.src_row + x, s.src_col + y),
                          src->elem_size) != 0;
    *mismatches = bad;
    return NT_OK;
}

nt_status nt_matrix_check_pattern(const nt_matrix_t *A, uint64_t seed, int64_t row, int64_t col,
                                  int64_t rows, int64_t cols, int64_t dr, int64_t dc,
                                  int64_t *mismatches)
{
    if (!A || !mismatches)
        return nt_fail(NT_EINVAL, "nt_matrix_check_pattern: %s is NULL", A ? "mismatches" : "A");
    if (!A->allocated)
        return nt_fail(NT_EINVAL, "nt_matrix_check_pattern: the matrix has no memory");
    if (!sub_fits(A, row, col, rows, cols))
        return nt_fail(NT_EINVAL, "nt_matrix_check_pattern: block out of bounds");
    unsigned char buf[256], *want = A->elem_size <= sizeof buf ? buf : malloc(A->elem_size);
    if (!want)
        return nt_fail(NT_ENOMEM, "nt_matrix_check_pattern: out of memory");
    int64_t bad = 0;
    for (int64_t y = 0; y < cols; y++)
        for (int64_t x = 0; x < rows; x++) {
            nt_matrix_pattern_value(seed, row + x + dr, col + y + dc, want, A->elem_size);
            bad += memcmp(nt_matrix_elem(A, row + x, col + y), want, A->elem_size) != 0;
        }
    if (want != buf)
        free(want);
    *mismatches = bad;
    return NT_OK;
}

static nt_status where_add(const void *p, size_t bytes, int node, nt_placement_report_t *rep)
{
    nt_page_hist_t h;
    nt_status st = nt_mem_where(p, bytes, &h);
    if (st)
        return st;
    int64_t here = node >= 0 && node < 64 ? h.per_node[node] : 0;
    rep->pages += h.pages;
    rep->on_domain += here;
    rep->absent += h.absent;
    rep->elsewhere += h.pages - here - h.absent;
    return NT_OK;
}

nt_status nt_matrix_check_placement(const nt_matrix_t *A, nt_placement_report_t *rep)
{
    if (!A || !rep)
        return nt_fail(NT_EINVAL, "nt_matrix_check_placement: %s is NULL", A ? "rep" : "A");
    if (!A->allocated || !A->topo)
        return nt_fail(NT_EINVAL, "nt_matrix_check_placement: the matrix has no memory");
    // The LAPACK layout and wrapped memory share pages between owners: page by page, each on
    // the node of the domains holding most of its bytes.
    if (A->layout == NT_LAYOUT_LAPACK || A->mem->borrowed)
        return nt_matrix_check_pages(A, rep);
    nt_placement_report_t r = {0};
    nt_status st = NT_OK;
    if (A->layout == NT_LAYOUT_SCALAPACK) {
        for (int d = 0; d < A->ndomains && st == NT_OK; d++)
            if (A->mem->local[d]) {
                nt_domain_info_t info;
                nt_topo_domain(A->topo, d, &info);
                st = where_add(A->mem->local[d], A->mem->local_bytes[d], info.node, &r);
            }
    } else {
        for (int64_t i = 0; i < A->mt && st == NT_OK; i++)
            for (int64_t j = 0; j < A->nt && st == NT_OK; j++) {
                nt_domain_info_t info;
                nt_topo_domain(A->topo, nt_matrix_tile_domain(A, i, j), &info);
                st = where_add(nt_matrix_tile(A, i, j), nt_tile_bytes(A, i, j), info.node, &r);
            }
    }
    if (st)
        return st;
    *rep = r;
    return NT_OK;
}

// ---- memory handed over by the in-place executor (nt_matrix.h) ---------------------------------

nt_status nt_matrix_alloc_tables(nt_matrix_t *A)
{
    if (A->allocated || A->tile || A->layout != NT_LAYOUT_TILE)
        return nt_fail(NT_EINVAL, "nt_matrix_alloc_tables: %s",
                       A->layout != NT_LAYOUT_TILE ? "TILE layout only" : "already has memory");
    struct nt_matrix_mem *mm = A->mem;
    size_t ntiles = (size_t)(A->mt * A->nt);
    A->tile = calloc(ntiles, sizeof *A->tile);
    mm->owned = calloc(ntiles, 1);
    mm->slab = calloc((size_t)A->ndomains, sizeof *mm->slab);
    mm->slab_bytes = calloc((size_t)A->ndomains, sizeof *mm->slab_bytes);
    if (!A->tile || !mm->owned || !mm->slab || !mm->slab_bytes) {
        nt_matrix_release(A);
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc_tables: out of memory");
    }
    return NT_OK;
}

nt_status nt_matrix_slab_sizes(const nt_matrix_t *A, size_t *bytes)
{
    size_t big = nt_matrix_big_tile_bytes();
    memset(bytes, 0, (size_t)A->ndomains * sizeof *bytes);
    for (int64_t t = 0; t < A->mt * A->nt; t++) {
        size_t b = nt_tile_bytes(A, t / A->nt, t % A->nt);
        if (b >= big)
            continue;
        size_t *sb = &bytes[A->owner[t]];
        if (!nt_add_size(*sb, (b + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN, sb))
            return nt_fail(NT_ERANGE, "nt_matrix_slab_sizes: slab size overflows");
    }
    return NT_OK;
}

void nt_matrix_place_slab(nt_matrix_t *A, int d, char *p, size_t bytes)
{
    size_t big = nt_matrix_big_tile_bytes(), cursor = 0;
    // The same packing as alloc_tile_layout: row-major order, SMALL_ALIGN apart.
    for (int64_t t = 0; t < A->mt * A->nt; t++) {
        size_t b = nt_tile_bytes(A, t / A->nt, t % A->nt);
        if (A->owner[t] != d || b >= big)
            continue;
        A->tile[t] = p + cursor;
        cursor += (b + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN;
    }
    A->mem->slab[d] = p;
    A->mem->slab_bytes[d] = bytes;
}

void nt_matrix_place_tile(nt_matrix_t *A, int64_t t, char *p, bool mapping)
{
    A->tile[t] = p;
    A->mem->owned[t] = mapping ? NT_TILE_MAPPING : NT_TILE_PIECE;
}

void nt_matrix_forget_memory(nt_matrix_t *A)
{
    struct nt_matrix_mem *mm = A->mem;
    if (mm->owned)
        memset(mm->owned, 0, (size_t)(A->mt * A->nt));
    for (int d = 0; mm->slab && d < A->ndomains; d++) {
        mm->slab[d] = NULL;
        mm->slab_bytes[d] = 0;
    }
    nt_matrix_release(A);
}
