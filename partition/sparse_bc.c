// The sparse count matrix of a block-cyclic layout change: per dimension, how many indices
// each pair (source process, target process) shares, walked block boundary by block boundary
// over one period of the pair of owners; then the product of the row and column pairs.
#include <stdio.h>
#include <stdlib.h>

#include "nt_partition.h"

// Most pieces one dimension walk may visit (each costs 16 bytes of scratch).
#define MAX_PIECES ((int64_t)1 << 24)

static nt_status check_dim(const char *name, const nt_bc_dim_t *d, int64_t extent)
{
    if (d->block < 1 || d->nprocs < 1 || d->src < 0 || d->src >= d->nprocs || d->offset < 0 ||
        d->offset > INT64_MAX - extent)
        return nt_fail(NT_EINVAL, "sparse counts: %s: block %lld (>= 1), nprocs %d (>= 1), src "
                       "%d (0..nprocs-1), offset %lld (>= 0, offset + extent in int64)", name,
                       (long long)d->block, d->nprocs, d->src, (long long)d->offset);
    return NT_OK;
}

// Grid and labels of one layout: cells <= p, labels distinct in 0..p-1.
static nt_status check_layout(const char *name, const nt_bc_layout_t *l, int p, int64_t rows,
                              int64_t cols)
{
    if (!l)
        return nt_fail(NT_EINVAL, "sparse counts: %s is NULL", name);
    char dim[32];
    snprintf(dim, sizeof dim, "%s rows", name);
    nt_status st = check_dim(dim, &l->rows, rows);
    snprintf(dim, sizeof dim, "%s cols", name);
    if (st == NT_OK)
        st = check_dim(dim, &l->cols, cols);
    if (st != NT_OK)
        return st;
    int64_t cells = (int64_t)l->rows.nprocs * l->cols.nprocs;
    if (cells > p)
        return nt_fail(NT_EINVAL, "sparse counts: %s has a %dx%d grid, more cells than its %d "
                       "domains", name, l->rows.nprocs, l->cols.nprocs, p);
    if (!l->labels)
        return NT_OK;
    char *seen = calloc((size_t)p, 1);
    if (!seen)
        return nt_fail(NT_ENOMEM, "sparse counts: cannot allocate %d flags", p);
    for (int64_t c = 0; c < cells && st == NT_OK; c++)
        if (l->labels[c] < 0 || l->labels[c] >= p || seen[l->labels[c]]++)
            st = nt_fail(NT_EINVAL, "sparse counts: %s labels[%lld] = %d is not a distinct "
                         "domain in 0..%d", name, (long long)c, l->labels[c], p - 1);
    free(seen);
    return st;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// The walk of one dimension: pieces of [0, min(extent, L)) on which both owners are constant,
// each weighted by how often it occurs in [0, extent) (q whole periods plus the remainder).
typedef struct walk {
    int64_t n;
    int *s, *t;
    int64_t *w;
} walk;

// Owner of index x, and how many indices from x on stay in its block.
static int owner_at(const nt_bc_dim_t *d, int64_t x, int64_t *left)
{
    int64_t g = x + d->offset;
    *left = d->block - g % d->block;
    return (int)((g / d->block + d->src) % d->nprocs);
}

static nt_status walk_dim(const char *name, int64_t extent, const nt_bc_dim_t *s,
                          const nt_bc_dim_t *t, walk *wk)
{
    // Period L = lcm(block_s * p_s, block_t * p_t); a period past extent (or past int64) means
    // the walk covers the whole extent once.
    int64_t ps, pt, L = 0;
    if (!__builtin_mul_overflow(s->block, (int64_t)s->nprocs, &ps) &&
        !__builtin_mul_overflow(t->block, (int64_t)t->nprocs, &pt) &&
        __builtin_mul_overflow(ps / gcd64(ps, pt), pt, &L))
        L = 0;
    bool periodic = L > 0 && L <= extent;
    int64_t span = periodic ? L : extent, q = periodic ? extent / L : 1;
    int64_t rem = periodic ? extent - q * L : 0;
    // Pieces: one per block boundary of either owner inside the span, plus one; a span of k
    // indices holds at most k / block + 1 boundaries of one owner (its first block may be
    // partial, the offset shifting it).
    int64_t bound = span / s->block + span / t->block + 3;
    if (bound > MAX_PIECES)
        return nt_fail(NT_ERANGE, "sparse counts: the %s walk has up to %lld pieces, more than "
                       "%lld (blocks too small for the extent and the grids)", name,
                       (long long)bound, (long long)MAX_PIECES);
    wk->s = malloc((size_t)bound * sizeof *wk->s);
    wk->t = malloc((size_t)bound * sizeof *wk->t);
    wk->w = malloc((size_t)bound * sizeof *wk->w);
    if (!wk->s || !wk->t || !wk->w)
        return nt_fail(NT_ENOMEM, "sparse counts: cannot allocate %lld pieces", (long long)bound);
    for (int64_t x = 0; x < span;) {
        int64_t ls, lt;
        int a = owner_at(s, x, &ls), b = owner_at(t, x, &lt);
        int64_t len = ls < lt ? ls : lt;
        int64_t y = len < span - x ? x + len : span;
        int64_t over = (rem < y ? rem : y) - x; // part of [x, y) inside [0, rem)
        wk->s[wk->n] = a;
        wk->t[wk->n] = b;
        wk->w[wk->n++] = q * (y - x) + (over > 0 ? over : 0);
        x = y;
    }
    return NT_OK;
}

static void walk_free(walk *wk)
{
    free(wk->s);
    free(wk->t);
    free(wk->w);
}

// The pairs of one dimension as a sparse nprocs_s x nprocs_t matrix.
static nt_status dim_pairs(const char *name, int64_t extent, const nt_bc_dim_t *s,
                           const nt_bc_dim_t *t, nt_sparse_counts_t *out)
{
    walk wk = {0, NULL, NULL, NULL};
    nt_status st = walk_dim(name, extent, s, t, &wk);
    if (st == NT_OK)
        st = nt_sparse_from_triples("sparse counts", name, s->nprocs, t->nprocs, wk.n, wk.s,
                                    wk.t, wk.w, out);
    walk_free(&wk);
    return st;
}

static int label_of(const nt_bc_layout_t *l, int pr, int pc)
{
    int c = pr * l->cols.nprocs + pc;
    return l->labels ? l->labels[c] : c;
}

// Entries of each source domain: (row pairs of its grid row) x (column pairs of its column).
static nt_status product(const nt_sparse_counts_t *R, const nt_sparse_counts_t *C,
                         const nt_bc_layout_t *src, int p_ini, const nt_bc_layout_t *dst,
                         int p_tar, nt_sparse_counts_t *out)
{
    nt_sparse_counts_t m = {p_ini, p_tar, 0, NULL, NULL, NULL};
    int64_t nnz;
    if (__builtin_mul_overflow(R->nnz, C->nnz, &nnz) || nnz > NT_SPARSE_MAX_NNZ)
        return nt_fail(NT_ERANGE, "sparse counts: %lld row pairs x %lld column pairs are more "
                       "than %lld entries", (long long)R->nnz, (long long)C->nnz,
                       (long long)NT_SPARSE_MAX_NNZ);
    m.start = calloc((size_t)p_ini + 1, sizeof *m.start);
    m.col = nt_sparse_alloc((size_t)nnz * sizeof *m.col);
    m.count = nt_sparse_alloc((size_t)nnz * sizeof *m.count);
    if (!m.start || !m.col || !m.count) {
        nt_sparse_counts_free(&m);
        return nt_fail(NT_ENOMEM, "sparse counts: cannot allocate %lld entries", (long long)nnz);
    }
    int nr = src->rows.nprocs, nc = src->cols.nprocs;
    for (int pr = 0; pr < nr; pr++)
        for (int pc = 0; pc < nc; pc++)
            m.start[label_of(src, pr, pc) + 1] = (R->start[pr + 1] - R->start[pr]) *
                                                 (C->start[pc + 1] - C->start[pc]);
    for (int i = 0; i < p_ini; i++)
        m.start[i + 1] += m.start[i];
    m.nnz = nnz;
    for (int pr = 0; pr < nr; pr++)
        for (int pc = 0; pc < nc; pc++) {
            int64_t e = m.start[label_of(src, pr, pc)];
            for (int64_t a = R->start[pr]; a < R->start[pr + 1]; a++)
                for (int64_t b = C->start[pc]; b < C->start[pc + 1]; b++) {
                    // Each factor is at most the extent; rows x cols was checked to fit.
                    m.col[e] = label_of(dst, R->col[a], C->col[b]);
                    m.count[e++] = R->count[a] * C->count[b];
                }
        }
    *out = m;
    return NT_OK;
}

nt_status nt_sparse_counts_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                              const nt_bc_layout_t *dst, int p_tar, nt_sparse_counts_t *out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "sparse counts: out is NULL");
    if (rows < 0 || cols < 0 || p_ini < 1 || p_tar < 1)
        return nt_fail(NT_EINVAL, "sparse counts: rows %lld and cols %lld must be >= 0, p_ini "
                       "%d and p_tar %d >= 1", (long long)rows, (long long)cols, p_ini, p_tar);
    int64_t elems;
    if (__builtin_mul_overflow(rows, cols, &elems))
        return nt_fail(NT_ERANGE, "sparse counts: rows x cols = %lld x %lld overflows int64",
                       (long long)rows, (long long)cols);
    nt_status st = check_layout("src", src, p_ini, rows, cols);
    if (st == NT_OK)
        st = check_layout("dst", dst, p_tar, rows, cols);
    if (st != NT_OK)
        return st;
    nt_sparse_counts_t R = {0}, C = {0};
    st = dim_pairs("row", rows, &src->rows, &dst->rows, &R);
    if (st == NT_OK)
        st = dim_pairs("column", cols, &src->cols, &dst->cols, &C);
    if (st == NT_OK)
        st = product(&R, &C, src, p_ini, dst, p_tar, out);
    nt_sparse_counts_free(&R);
    nt_sparse_counts_free(&C);
    return st;
}

// Domains of the rows (cells of src in row-major order, then the domains outside its grid) or
// of the columns (the same for dst): numbered by cell, a row's factor rows and an entry's
// column follow from the cell index, with no table (nt_kron_col()).
static int *cell_domains(const nt_bc_layout_t *l, int p)
{
    int cells = l->rows.nprocs * l->cols.nprocs;
    int *dom = malloc((size_t)p * sizeof *dom);
    char *used = calloc((size_t)p, 1);
    if (dom && used) {
        for (int c = 0; c < cells; c++) {
            dom[c] = label_of(l, c / l->cols.nprocs, c % l->cols.nprocs);
            used[dom[c]] = 1;
        }
        for (int d = 0, c = cells; d < p; d++)
            if (!used[d])
                dom[c++] = d;
    } else {
        free(dom);
        dom = NULL;
    }
    free(used);
    return dom;
}

// Factor rows of each row (-1 past src's cells) and the domains of rows and columns.
static nt_status kron_maps(const nt_bc_layout_t *src, int p_ini, const nt_bc_layout_t *dst,
                           int p_tar, nt_kron_t *k)
{
    int nc = src->cols.nprocs, cells = src->rows.nprocs * nc;
    k->ra = malloc((size_t)p_ini * sizeof *k->ra);
    k->rb = calloc((size_t)p_ini, sizeof *k->rb);
    k->rdom = cell_domains(src, p_ini);
    k->cdom = cell_domains(dst, p_tar);
    if (!k->ra || !k->rb || !k->rdom || !k->cdom)
        return nt_fail(NT_ENOMEM, "sparse counts: cannot allocate the maps of %d domains",
                       p_ini);
    for (int i = 0; i < p_ini; i++) {
        k->ra[i] = i < cells ? i / nc : -1;
        k->rb[i] = i < cells ? i % nc : 0;
    }
    return NT_OK;
}

nt_status nt_kron_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                     const nt_bc_layout_t *dst, int p_tar, nt_kron_t *k)
{
    if (!k)
        return nt_fail(NT_EINVAL, "sparse counts: out is NULL");
    if (rows < 0 || cols < 0 || p_ini < 1 || p_tar < 1)
        return nt_fail(NT_EINVAL, "sparse counts: rows %lld and cols %lld must be >= 0, p_ini "
                       "%d and p_tar %d >= 1", (long long)rows, (long long)cols, p_ini, p_tar);
    int64_t elems;
    if (__builtin_mul_overflow(rows, cols, &elems))
        return nt_fail(NT_ERANGE, "sparse counts: rows x cols = %lld x %lld overflows int64",
                       (long long)rows, (long long)cols);
    nt_status st = check_layout("src", src, p_ini, rows, cols);
    if (st == NT_OK)
        st = check_layout("dst", dst, p_tar, rows, cols);
    if (st != NT_OK)
        return st;
    *k = (nt_kron_t){.p_ini = p_ini, .p_tar = p_tar, .own_a = true};
    st = dim_pairs("row", rows, &src->rows, &dst->rows, &k->a);
    if (st == NT_OK)
        st = dim_pairs("column", cols, &src->cols, &dst->cols, &k->b);
    if (st == NT_OK)
        st = kron_maps(src, p_ini, dst, p_tar, k);
    if (st != NT_OK) {
        nt_kron_free(k);
        return st;
    }
    nt_kron_sizes(k);
    return NT_OK;
}
