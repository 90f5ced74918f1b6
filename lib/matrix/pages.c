// The pages holding a matrix's elements, walked in address order with the bytes each node's
// domains own in every page: what placing, first-touching and checking a matrix's memory page
// by page share (place.c, lapack.c, matrix.c).
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_matrix.h"
#include "numatile/mem.h"

typedef struct tile_at {
    uintptr_t lo;
    int64_t t;
} tile_at;

static int by_address(const void *a, const void *b)
{
    uintptr_t x = ((const tile_at *)a)->lo, y = ((const tile_at *)b)->lo;
    return x < y ? -1 : x > y;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

// The node of every domain, and how many node entries a page's counts need.
static nt_status walk_nodes(nt_page_walk_t *w, const nt_matrix_t *A)
{
    w->dnode = calloc((size_t)A->ndomains, sizeof *w->dnode);
    if (!w->dnode)
        return nt_fail(NT_ENOMEM, "nt_matrix pages: out of memory");
    w->scratch += (size_t)A->ndomains * sizeof *w->dnode;
    int nd = A->topo ? nt_topo_ndomains(A->topo) : 0;
    w->nnodes = 1;
    for (int d = 0; d < A->ndomains && d < nd; d++) {
        nt_domain_info_t info;
        nt_topo_domain(A->topo, d, &info);
        w->dnode[d] = info.node >= 0 ? info.node : 0;
        w->nnodes = w->dnode[d] + 1 > w->nnodes ? w->dnode[d] + 1 : w->nnodes;
    }
    return NT_OK;
}

nt_status nt_page_walk_init(nt_page_walk_t *w, const nt_matrix_t *A)
{
    *w = (nt_page_walk_t){.A = A, .pg = nt_mem_page_size()};
    nt_status st = walk_nodes(w, A);
    if (st)
        return st;
    if (A->layout == NT_LAYOUT_LAPACK) {
        uintptr_t base = (uintptr_t)A->tile[0];
        w->end = base + (uintptr_t)((A->n - 1) * A->lld[0] + A->m) * A->elem_size;
        w->page = base / w->pg * w->pg;
        return NT_OK;
    }
    size_t n = (size_t)(A->mt * A->nt);
    tile_at *at = malloc(n * sizeof *at);
    w->order = malloc(n * sizeof *w->order);
    if (!at || !w->order) {
        free(at);
        nt_page_walk_free(w);
        return nt_fail(NT_ENOMEM, "nt_matrix pages: out of memory");
    }
    for (size_t t = 0; t < n; t++)
        at[t] = (tile_at){(uintptr_t)A->tile[t], (int64_t)t};
    qsort(at, n, sizeof *at, by_address);
    for (size_t t = 0; t < n; t++)
        w->order[t] = at[t].t;
    free(at);
    w->scratch += n * (sizeof *at + sizeof *w->order);
    return NT_OK;
}

void nt_page_walk_free(nt_page_walk_t *w)
{
    free(w->dnode);
    free(w->order);
    free(w->active);
    w->dnode = NULL;
    w->order = w->active = NULL;
}

int nt_page_best_node(const int64_t *acc, int nnodes)
{
    int best = -1;
    for (int k = 0; k < nnodes; k++)
        if (acc[k] > 0 && (best < 0 || acc[k] > acc[best]))
            best = k;
    return best;
}

// LAPACK: the bytes of [o0, o1) (offsets from the first element) per node; their sum. *lo:
// the offset of the first element byte in the range.
static int64_t lapack_bytes(const nt_page_walk_t *w, int64_t o0, int64_t o1, int64_t *acc,
                            int64_t *lo)
{
    const nt_matrix_t *A = w->A;
    int64_t es = (int64_t)A->elem_size, cb = A->lld[0] * es, colb = A->m * es, mbb = A->mb * es;
    int64_t total = 0;
    for (int64_t c = o0 / cb; c < A->n && c * cb < o1; c++) {
        int64_t cs = c * cb, a = max64(o0, cs), b = min64(o1, cs + colb);
        if (a >= b)
            continue;
        if (total == 0)
            *lo = a;
        const int *own = A->owner + c / A->nb;
        for (int64_t i = (a - cs) / mbb; i * mbb < b - cs; i++) {
            int64_t ts = cs + i * mbb, te = cs + min64((i + 1) * mbb, colb);
            int64_t bytes = min64(b, te) - max64(a, ts);
            acc[w->dnode[own[i * A->nt]]] += bytes;
            total += bytes;
        }
    }
    return total;
}

static bool lapack_next(nt_page_walk_t *w, uintptr_t *page, int64_t *acc)
{
    const nt_matrix_t *A = w->A;
    uintptr_t base = (uintptr_t)A->tile[0];
    int64_t cb = A->lld[0] * (int64_t)A->elem_size;
    while (w->page < w->end) {
        uintptr_t p0 = w->page > base ? w->page : base;
        uintptr_t p1 = w->page + w->pg < w->end ? w->page + w->pg : w->end;
        memset(acc, 0, (size_t)w->nnodes * sizeof *acc);
        int64_t lo = 0;
        if (lapack_bytes(w, (int64_t)(p0 - base), (int64_t)(p1 - base), acc, &lo) > 0) {
            *page = w->page;
            w->first = base + (uintptr_t)lo;
            w->page += w->pg;
            return true;
        }
        // Only padding rows here (lda well above m): on to the page of the next column.
        int64_t next = ((int64_t)(p0 - base) / cb + 1) * cb;
        uintptr_t np = (base + (uintptr_t)next) / w->pg * w->pg;
        w->page = np > w->page ? np : w->page + w->pg;
    }
    return false;
}

// Bytes of tile t inside [p0, p1), column by column unless the tile is contiguous; *first
// lowered to its first byte there.
static int64_t tile_bytes_in(const nt_matrix_t *A, int64_t t, uintptr_t p0, uintptr_t p1,
                             uintptr_t *first)
{
    int64_t i = t / A->nt, j = t % A->nt, es = (int64_t)A->elem_size;
    int64_t R = nt_matrix_tile_rows(A, i) * es, L = nt_matrix_tile_ld(A, i, j) * es;
    int64_t cols = nt_matrix_tile_cols(A, j);
    int64_t lo = (int64_t)(uintptr_t)A->tile[t], a = (int64_t)p0, b = (int64_t)p1;
    int64_t total = 0;
    if (L == R) {
        total = max64(0, min64(b, lo + cols * R) - max64(a, lo));
        if (total > 0 && (uintptr_t)max64(a, lo) < *first)
            *first = (uintptr_t)max64(a, lo);
        return total;
    }
    for (int64_t c = a > lo ? (a - lo) / L : 0; c < cols && lo + c * L < b; c++) {
        int64_t s = max64(a, lo + c * L), n = min64(b, lo + c * L + R) - s;
        if (n <= 0)
            continue;
        if (total == 0 && (uintptr_t)s < *first)
            *first = (uintptr_t)s;
        total += n;
    }
    return total;
}

static uintptr_t tile_end(const nt_matrix_t *A, int64_t t)
{
    int64_t i = t / A->nt, j = t % A->nt;
    int64_t ext = (nt_matrix_tile_cols(A, j) - 1) * nt_matrix_tile_ld(A, i, j) +
                  nt_matrix_tile_rows(A, i);
    return (uintptr_t)A->tile[t] + (uintptr_t)ext * A->elem_size;
}

// Tiles starting before p1 join the active list (false when it cannot grow).
static bool activate(nt_page_walk_t *w, uintptr_t p1)
{
    const nt_matrix_t *A = w->A;
    int64_t n = A->mt * A->nt;
    for (; w->next < n && (uintptr_t)A->tile[w->order[w->next]] < p1; w->next++) {
        if (w->nactive == w->cap_active) {
            int64_t cap = w->cap_active ? 2 * w->cap_active : 64;
            int64_t *g = realloc(w->active, (size_t)cap * sizeof *g);
            if (!g)
                return false;
            w->scratch += (size_t)(cap - w->cap_active) * sizeof *g;
            w->active = g;
            w->cap_active = cap;
        }
        w->active[w->nactive++] = w->order[w->next];
    }
    return true;
}

static bool tiles_next(nt_page_walk_t *w, uintptr_t *page, int64_t *acc)
{
    const nt_matrix_t *A = w->A;
    int64_t n = A->mt * A->nt;
    for (;;) {
        if (w->nactive == 0) {
            if (w->next >= n)
                return false;
            uintptr_t first = (uintptr_t)A->tile[w->order[w->next]] / w->pg * w->pg;
            if (!w->started || first > w->page)
                w->page = first;
            w->started = true;
        }
        uintptr_t p0 = w->page, p1 = p0 + w->pg;
        if (!activate(w, p1)) {
            w->failed = true;
            nt_fail(NT_ENOMEM, "nt_matrix pages: out of memory");
            return false;
        }
        memset(acc, 0, (size_t)w->nnodes * sizeof *acc);
        int64_t total = 0, keep = 0;
        w->first = UINTPTR_MAX;
        for (int64_t k = 0; k < w->nactive; k++) {
            int64_t t = w->active[k], b = tile_bytes_in(A, t, p0, p1, &w->first);
            acc[w->dnode[A->owner[t]]] += b;
            total += b;
            if (tile_end(A, t) > p1)
                w->active[keep++] = t;
        }
        w->nactive = keep;
        w->page = p1;
        if (total > 0) {
            *page = p0;
            return true;
        }
    }
}

bool nt_page_walk_next(nt_page_walk_t *w, uintptr_t *page, int64_t *acc)
{
    return w->A->layout == NT_LAYOUT_LAPACK ? lapack_next(w, page, acc)
                                            : tiles_next(w, page, acc);
}
