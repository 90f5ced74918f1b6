// Sparse count matrices from lists of (row, column, weight) triples: a counting sort by row,
// then repeated columns of a row merged with a per-column marker, in place. O(n + p) time and
// 12 bytes per triple; no p_rows x p_cols table. Used for tile maps here and for the pairs of
// block-cyclic dimensions (sparse_bc.c).
#include <stdlib.h>

#include "nt_partition.h"

// Bucket the triples by row (start[] has p_rows + 1 offsets, filled here).
static nt_status bucket(const char *who, const char *what, int p_rows, int p_cols, int64_t n,
                        const int *row, const int *col, const int64_t *w, int64_t *start,
                        int *bcol, int64_t *bw)
{
    for (int64_t x = 0; x < n; x++) {
        if ((unsigned)row[x] >= (unsigned)p_rows || (unsigned)col[x] >= (unsigned)p_cols)
            return nt_fail(NT_EINVAL, "%s: %s %lld has row %d (0..%d) and column %d (0..%d)",
                           who, what, (long long)x, row[x], p_rows - 1, col[x], p_cols - 1);
        if (w && w[x] < 1)
            return nt_fail(NT_EINVAL, "%s: %s %lld has weight %lld, weights must be >= 1", who,
                           what, (long long)x, (long long)w[x]);
        start[row[x] + 1]++;
    }
    for (int i = 0; i < p_rows; i++)
        start[i + 1] += start[i];
    int64_t *fill = start; // advanced per row, then shifted back
    for (int64_t x = 0; x < n; x++) {
        int64_t e = fill[row[x]]++;
        bcol[e] = col[x];
        bw[e] = w ? w[x] : 1;
    }
    for (int i = p_rows; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;
    return NT_OK;
}

// Sum repeated columns of each row, compacting rows to the front (a row's output never
// overtakes its input). pos[c] is the output index of column c in the current row.
static nt_status merge(const char *who, int p_rows, int p_cols, int64_t *start, int *bcol,
                       int64_t *bw, int64_t *nnz)
{
    int64_t *pos = malloc((size_t)p_cols * sizeof *pos);
    if (!pos)
        return nt_fail(NT_ENOMEM, "%s: cannot allocate %d columns of scratch", who, p_cols);
    for (int j = 0; j < p_cols; j++)
        pos[j] = -1;
    int64_t out = 0, in = 0;
    for (int i = 0; i < p_rows; i++) {
        int64_t end = start[i + 1], first = out;
        start[i] = first;
        for (; in < end; in++) {
            int c = bcol[in];
            if (pos[c] >= first) {
                if (__builtin_add_overflow(bw[pos[c]], bw[in], &bw[pos[c]])) {
                    free(pos);
                    return nt_fail(NT_ERANGE, "%s: the weight of (%d,%d) overflows int64", who,
                                   i, c);
                }
                continue;
            }
            pos[c] = out;
            bcol[out] = c;
            bw[out++] = bw[in];
        }
    }
    start[p_rows] = out;
    *nnz = out;
    free(pos);
    return NT_OK;
}

nt_status nt_sparse_from_triples(const char *who, const char *what, int p_rows, int p_cols,
                                 int64_t n, const int *row, const int *col, const int64_t *w,
                                 nt_sparse_counts_t *out)
{
    nt_sparse_counts_t m = {p_rows, p_cols, 0, NULL, NULL, NULL};
    m.start = calloc((size_t)p_rows + 1, sizeof *m.start);
    m.col = malloc((size_t)(n ? n : 1) * sizeof *m.col);
    m.count = malloc((size_t)(n ? n : 1) * sizeof *m.count);
    nt_status st = NT_OK;
    if (!m.start || !m.col || !m.count)
        st = nt_fail(NT_ENOMEM, "%s: cannot allocate %lld entries", who, (long long)n);
    if (st == NT_OK)
        st = bucket(who, what, p_rows, p_cols, n, row, col, w, m.start, m.col, m.count);
    if (st == NT_OK)
        st = merge(who, p_rows, p_cols, m.start, m.col, m.count, &m.nnz);
    if (st != NT_OK) {
        nt_sparse_counts_free(&m);
        return st;
    }
    // Give back what merging saved; a failed shrink keeps the larger arrays.
    size_t keep = (size_t)(m.nnz ? m.nnz : 1);
    int *c = realloc(m.col, keep * sizeof *c);
    m.col = c ? c : m.col;
    int64_t *k = realloc(m.count, keep * sizeof *k);
    m.count = k ? k : m.count;
    *out = m;
    return NT_OK;
}

nt_status nt_sparse_counts_tilemaps(const nt_tilemap_t *src, const nt_tilemap_t *dst,
                                    const int64_t *size, nt_sparse_counts_t *out)
{
    if (!src || !dst || !out)
        return nt_fail(NT_EINVAL, "sparse counts: src, dst or out is NULL");
    if (src->mt != dst->mt || src->nt != dst->nt)
        return nt_fail(NT_EINVAL, "sparse counts: grids differ (%lldx%lld and %lldx%lld)",
                       (long long)src->mt, (long long)src->nt, (long long)dst->mt,
                       (long long)dst->nt);
    if (src->ndomains < 1 || dst->ndomains < 1)
        return nt_fail(NT_EINVAL, "sparse counts: src has %d domains and dst %d (>= 1 each)",
                       src->ndomains, dst->ndomains);
    return nt_sparse_from_triples("sparse counts", "tile", src->ndomains, dst->ndomains,
                                  src->mt * src->nt, src->owner, dst->owner, size, out);
}
