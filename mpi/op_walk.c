// Column walks of the operations (transpose, conjugate, scale, a band of the submatrix): the
// pack from a transposed source and the unpack that applies the element operation. The copy
// keeps its own walks (walk.c); these run only when a call asks for more than a copy.
#include <stdlib.h>
#include <string.h>

#include "block_op.h"
#include "nt_mpi_int.h"

// A transposed read in tiles: TW columns of A' (rows of A) by TH of its rows (columns of A),
// 8 KiB of doubles read and written, so that the TH columns of A a tile reads stay in the
// first-level cache (and their pages in the TLB) while the TW contiguous runs are written.
enum { TW = 64, TH = 16 };

// Element k of column x of a transposed tile: es bytes from s + (x + k * lda) * es.
static inline void tcopy(char *d, const char *s, int64_t lda, size_t es, int64_t x, int64_t k0,
                         int64_t k1)
{
    // Constant sizes, so that each memcpy is one load and one store.
    if (es == 8) {
        for (int64_t k = k0; k < k1; k++)
            memcpy(d + 8 * (k - k0), s + 8 * (x + k * lda), 8);
    } else if (es == 16) {
        for (int64_t k = k0; k < k1; k++)
            memcpy(d + 16 * (k - k0), s + 16 * (x + k * lda), 16);
    } else if (es == 4) {
        for (int64_t k = k0; k < k1; k++)
            memcpy(d + 4 * (k - k0), s + 4 * (x + k * lda), 4);
    } else {
        for (int64_t k = k0; k < k1; k++)
            memcpy(d + (size_t)(k - k0) * es, s + (size_t)(x + k * lda) * es, es);
    }
}

// Columns c .. c + w - 1 of the group (consecutive rows sj.. of A) into their messages, tile
// by tile.
static void pack_block_t(const nt_mpi_steps *st, const char *a, int64_t lda, size_t es,
                         int64_t c, int64_t sj, int64_t w)
{
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        const char *src = a + (size_t)(sj + v->s * lda) * es;
        for (int64_t k0 = 0; k0 < v->len; k0 += TH) {
            int64_t k1 = k0 + TH < v->len ? k0 + TH : v->len;
            for (int64_t x = 0; x < w; x++)
                tcopy((char *)v->msg + (size_t)((c + x) * v->stride) + (size_t)k0 * es, src,
                      lda, es, x, k0, k1);
        }
    }
}

void nt_mpi_pack_group_t(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                         int64_t lda, size_t es, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        for (int64_t c = c0; c < c1;) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            // The block stays inside the cursor's piece, where rows of A are consecutive.
            int64_t left = u.cp->v[u.k].len - (c - u.base), w = c1 - c;
            w = w < left ? w : left;
            w = w < TW ? w : TW;
            pack_block_t(st, a, lda, es, c, sj, w);
            c += w;
        }
    }
}

// Index in B's submatrix of local index l of a dimension: block b, p processes, this process
// kp away from the first block's, the submatrix from global index off.
static inline int64_t sub_index(int64_t l, int64_t b, int p, int kp, int64_t off)
{
    return ((l / b) * p + kp) * b + l % b - off;
}

// First k in [0, len) whose row d + k (of the process kr rows away from rsrc) has submatrix
// index above bound (len if none); the indices grow with k.
static int64_t first_above(const nt_mpi_clip *cl, int kr, int64_t d, int64_t len,
                           int64_t bound)
{
    int64_t lo = 0, hi = len;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sub_index(d + mid, cl->mb, cl->p, kr, cl->ib) > bound)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// The part [*k0, *k1) of a run of rows d.. of column j that the band keeps, the rows on the
// process kr rows away from B's rsrc.
static void band_part(const nt_mpi_clip *cl, int kr, int64_t d, int64_t len, int64_t j,
                      int64_t *k0, int64_t *k1)
{
    // Most runs lie wholly inside or outside the band: their ends decide without a search.
    int64_t first = sub_index(d, cl->mb, cl->p, kr, cl->ib);
    int64_t last = sub_index(d + len - 1, cl->mb, cl->p, kr, cl->ib);
    bool lo = cl->lo > INT64_MIN / 4, hi = cl->hi < INT64_MAX / 4;
    *k0 = !lo || first - j >= cl->lo ? 0
          : last - j < cl->lo        ? len
                                     : first_above(cl, kr, d, len, j + cl->lo - 1);
    *k1 = !hi || last - j <= cl->hi ? len
          : first - j > cl->hi      ? 0
                                    : first_above(cl, kr, d, len, j + cl->hi);
}

// Column c of a band pack: per message, only the rows the band keeps at the receiver (list
// k of the steps is B's process row k, tc its process column).
static void pack_col_band(const nt_mpi_steps *st, const char *scol, size_t es, int64_t c,
                          int64_t dj, const nt_mpi_clip *cl, int kc)
{
    int64_t j = sub_index(dj, cl->nb, cl->q, kc, cl->jb);
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t k0, k1;
        band_part(cl, (v->list - cl->rsrc + cl->p) % cl->p, v->d, v->len, j, &k0, &k1);
        if (k1 > k0)
            memcpy((char *)v->msg + (size_t)(c * v->stride) + (size_t)k0 * es,
                   scol + (size_t)(v->s + k0) * es, (size_t)(k1 - k0) * es);
    }
}

void nt_mpi_pack_group_band(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t lda, size_t es, int threads, const nt_mpi_clip *cl, int tc)
{
    int kc = (tc - cl->csrc + cl->q) % cl->q;
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        for (int64_t c = c0; c < c1; c++) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            pack_col_band(st, a + (size_t)(sj * lda) * es, es, c, dj, cl, kc);
        }
    }
}

// Columns x0..x1-1 of a block: group columns c + x, source columns sj + x of A', B's local
// columns dj + x (consecutive, inside one piece of the group's columns).
typedef struct block {
    int64_t c, sj, dj, x0, x1;
} block;

// Rows [k0, k1) of step v in column x of the block: band-clipped, then the element op.
static void unpack_run(const nt_mpi_step *v, const char *a, int64_t ars, int64_t acs, char *b,
                       int64_t ldb, size_t es, const block *bk, int64_t x, int64_t k0,
                       int64_t k1, const nt_mpi_op *op, const nt_mpi_clip *cl)
{
    int64_t step = (int64_t)es, dj = bk->dj + x;
    const char *src;
    if (v->msg) {
        src = v->msg + (size_t)((bk->c + x) * v->stride);
    } else {
        src = a + (size_t)(v->s * ars + (bk->sj + x) * acs) * es;
        step = ars * (int64_t)es;
    }
    if (op->band) {
        int64_t b0, b1, j = sub_index(dj, cl->nb, cl->q, cl->kc, cl->jb);
        band_part(cl, cl->kr, v->d, v->len, j, &b0, &b1);
        k0 = k0 > b0 ? k0 : b0;
        k1 = k1 < b1 ? k1 : b1;
    }
    if (k1 > k0)
        nt_mpi_run_op(b + (size_t)(dj * ldb + v->d + k0) * es, src + k0 * step, step, k1 - k0,
                      es, op);
}

// A block of columns: messages and a plain local part column by column, a transposed local
// part (rows of A' across A's columns) in tiles of TH rows.
static void unpack_block_op(const nt_mpi_steps *st, const char *a, int64_t ars, int64_t acs,
                            char *b, int64_t ldb, size_t es, const block *bk,
                            const nt_mpi_op *op, const nt_mpi_clip *cl)
{
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        if (v->msg || ars == 1) {
            for (int64_t x = bk->x0; x < bk->x1; x++)
                unpack_run(v, a, ars, acs, b, ldb, es, bk, x, 0, v->len, op, cl);
            continue;
        }
        for (int64_t k0 = 0; k0 < v->len; k0 += TH)
            for (int64_t x = bk->x0; x < bk->x1; x++)
                unpack_run(v, a, ars, acs, b, ldb, es, bk, x, k0,
                           k0 + TH < v->len ? k0 + TH : v->len, op, cl);
    }
}

void nt_mpi_unpack_group_op(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t ars, int64_t acs, char *b, int64_t ldb, size_t es,
                            int64_t d0, int64_t d1, int threads, const nt_mpi_op *op,
                            const nt_mpi_clip *clip)
{
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        for (int64_t c = c0; c < c1;) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            int64_t left = u.cp->v[u.k].len - (c - u.base), w = c1 - c;
            w = w < left ? w : left;
            w = w < TW ? w : TW;
            // Only B's columns [d0, d1) (this domain's share).
            block bk = {c, sj, dj, d0 > dj ? d0 - dj : 0, d1 - dj < w ? d1 - dj : w};
            if (bk.x1 > bk.x0)
                unpack_block_op(st, a, ars, acs, b, ldb, es, &bk, op, clip);
            c += w;
        }
    }
}
