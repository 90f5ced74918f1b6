// Source bands of stored segments (see nt_bands.h). Measured on the AMD Zen 4 VM of
// docs/benchmarks.md (tile layout, 4096^2 doubles, 4 virtual domains, 2 threads, nb 512 -> 256
// on grids 2x2 -> 4x1: every source column goes to two targets in 2 KiB pieces), copy / same-run
// bound alternated execution by execution in one process: 0.89-0.91 with bands against
// 0.53-0.65 segment by segment; a contiguous copy of the same bytes between the same tiles runs
// at 0.9-0.95 of the bound. An earlier trial of column-by-column copies had measured slower:
// its 2 KiB pieces, one copy-kernel call each, fell below the kernel's streaming threshold
// (memcpy, with reads for ownership); here each piece takes the strategy of its segment.
// Target-side bands (one target tile's adjacent pieces written through a line writer) changed
// nothing measurable (nb 64 -> 100 0.59-0.60 both ways; Cao's multi-row categories within the
// runs' spread) and were left out.
#include <stdlib.h>

#include "nt_bands.h"
#include "lib/matrix/nt_copy.h"

typedef struct seg_key {
    int64_t key, x; // source column << 32 | source row; the segment
} seg_key;

static int cmp_seg_key(const void *p, const void *q)
{
    const seg_key *a = p, *b = q;
    if (a->key != b->key)
        return (a->key > b->key) - (a->key < b->key);
    return (a->x > b->x) - (a->x < b->x);
}

// One source tile's segments, ord[lo..hi), by source column then row; k is scratch for
// hi - lo entries.
static void sort_tile(const nt_segment_t *seg, int64_t *ord, int64_t lo, int64_t hi,
                      seg_key *k)
{
    bool sorted = true;
    for (int64_t y = lo; y < hi; y++) {
        const nt_segment_t *g = &seg[ord[y]];
        k[y - lo] = (seg_key){(int64_t)((uint64_t)g->src_col << 32 | (uint64_t)g->src_row),
                              ord[y]};
        sorted = sorted && (y == lo || k[y - lo - 1].key <= k[y - lo].key);
    }
    if (sorted)
        return;
    qsort(k, (size_t)(hi - lo), sizeof *k, cmp_seg_key);
    for (int64_t y = lo; y < hi; y++)
        ord[y] = k[y - lo].x;
}

int64_t *nt_bands_order(const nt_segment_t *seg, int64_t nseg, int64_t ntiles)
{
    int64_t *start = calloc((size_t)ntiles + 1, sizeof *start);
    int64_t *ord = malloc((size_t)(nseg > 0 ? nseg : 1) * sizeof *ord);
    seg_key *keys = NULL;
    int64_t most = 0;
    if (start && ord) {
        for (int64_t x = 0; x < nseg; x++)
            start[seg[x].src_tile + 1]++;
        for (int64_t t = 0; t < ntiles; t++) {
            most = start[t + 1] > most ? start[t + 1] : most;
            start[t + 1] += start[t];
        }
        keys = malloc((size_t)(most > 0 ? most : 1) * sizeof *keys);
    }
    if (!start || !ord || !keys) {
        free(start);
        free(ord);
        free(keys);
        return NULL;
    }
    for (int64_t x = 0; x < nseg; x++)
        ord[start[seg[x].src_tile]++] = x;
    // start[t] is now the end of tile t's range, which starts where tile t - 1's ends.
    for (int64_t t = 0; t < ntiles; t++)
        sort_tile(seg, ord, t > 0 ? start[t - 1] : 0, start[t], keys);
    free(start);
    free(keys);
    return ord;
}

int64_t nt_band_end(const nt_bands *b, int64_t k, int64_t hi)
{
    if (!b->on)
        return k + 1;
    const nt_segment_t *g = &b->seg[b->list[k]];
    int64_t e = k + 1;
    for (; e < hi && e - k < NT_BAND_MAX; e++) {
        const nt_segment_t *h = &b->seg[b->list[e]];
        if (h->src_tile != g->src_tile || h->src_col != g->src_col || h->cols != g->cols)
            break;
    }
    return e;
}

int64_t nt_band_copy(const nt_bands *b, int64_t lo, int64_t hi, int64_t c0, int64_t c1)
{
    const nt_matrix_t *S = b->src, *T = b->dst;
    const nt_segment_t *g0 = &b->seg[b->list[lo]];
    int64_t si = g0->src_tile / S->nt, sj = g0->src_tile % S->nt;
    size_t es = S->elem_size;
    int64_t lds = nt_matrix_tile_ld(S, si, sj), n = hi - lo, all = 0;
    const char *a[NT_BAND_MAX];
    char *d[NT_BAND_MAX];
    int64_t ldt[NT_BAND_MAX], rows[NT_BAND_MAX];
    nt_copy_kind kind[NT_BAND_MAX];
    for (int64_t k = 0; k < n; k++) {
        const nt_segment_t *g = &b->seg[b->list[lo + k]];
        int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
        ldt[k] = nt_matrix_tile_ld(T, ti, tj);
        a[k] = (const char *)nt_matrix_tile(S, si, sj) +
               ((size_t)(g->src_col + c0) * (size_t)lds + (size_t)g->src_row) * es;
        d[k] = (char *)nt_matrix_tile(T, ti, tj) +
               ((size_t)(g->dst_col + c0) * (size_t)ldt[k] + (size_t)g->dst_row) * es;
        rows[k] = g->rows;
        kind[k] = nt_copy_kind_of(g->rows, g->cols, es, b->copy_flags);
        all += g->rows;
    }
    for (int64_t j = 0; j < c1 - c0; j++)
        for (int64_t k = 0; k < n; k++)
            nt_copy_2d_ex(d[k] + (size_t)(j * ldt[k]) * es, ldt[k],
                          a[k] + (size_t)(j * lds) * es, lds, rows[k], 1, es,
                          b->copy_flags | NT_COPY_NOFENCE, kind[k]);
    return all * (c1 - c0) * (int64_t)es;
}
