// Column walks of the operations (transpose, conjugate, scale, a band of the submatrix): the
// pack from a transposed source and the unpack that applies the element operation. The copy
// keeps its own walks (walk.c); these run only when a call asks for more than a copy.
#include <stdlib.h>
#include <string.h>

// Header-only line writers (no libnumatile symbol), as in walk.c.
#include "block_op.h"
#include "lib/matrix/nt_lines.h"
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

// Columns x0..x1-1 of a block: group columns c + x, source columns sj + x of A', B's local
// columns dj + x (consecutive, inside one piece of the group's columns).
typedef struct block {
    int64_t c, sj, dj, x0, x1;
} block;

// Rows [k0, k1) of step v in column x of the block, band-clipped (clip: the step may cross
// the band's edge), then the element op.
static void unpack_run(const nt_mpi_step *v, const char *a, int64_t ars, int64_t acs, char *b,
                       int64_t ldb, size_t es, const block *bk, int64_t x, int64_t k0,
                       int64_t k1, const nt_mpi_op *op, const nt_mpi_clip *cl, bool clip)
{
    int64_t step = (int64_t)es, dj = bk->dj + x;
    const char *src;
    if (v->msg) {
        src = v->msg + (size_t)((bk->c + x) * v->stride);
    } else {
        src = a + (size_t)(v->s * ars + (bk->sj + x) * acs) * es;
        step = ars * (int64_t)es;
    }
    if (clip) {
        int64_t b0, b1, j = nt_mpi_sub_index(dj, cl->nb, cl->q, cl->kc, cl->jb);
        nt_mpi_band_part(cl, cl->kr, v->d, v->len, j, &b0, &b1);
        k0 = k0 > b0 ? k0 : b0;
        k1 = k1 < b1 ? k1 : b1;
    }
    if (k1 > k0)
        nt_mpi_run_op(b + (size_t)(dj * ldb + v->d + k0) * es, src + k0 * step, step, k1 - k0,
                      es, op);
}

// A plain band's column through a line writer: the kept steps [e0, e1) are contiguous rows
// of B (st->contig), those between the two ends wholly kept, so one writer streams them.
static void unpack_col_lines(const nt_mpi_steps *st, const int64_t *lim, const char *a,
                             int64_t lda, char *b, int64_t ldb, const block *bk, int64_t x,
                             int64_t j, int64_t e0, int64_t e1, const nt_mpi_clip *cl)
{
    nt_lines w = {.lo = 0};
    for (int64_t e = e0; e < e1; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t k0 = 0, k1 = v->len;
        if (lim[2 * e] - j < cl->lo || lim[2 * e + 1] - j > cl->hi)
            nt_mpi_band_part(cl, cl->kr, v->d, v->len, j, &k0, &k1);
        const char *src = v->msg ? v->msg + (size_t)((bk->c + x) * v->stride)
                                 : a + (size_t)(v->s + (bk->sj + x) * lda) * 8;
        if (e == e0)
            nt_lines_start(&w, (uint64_t *)(void *)(b + (size_t)((bk->dj + x) * ldb + v->d +
                                                                   k0) * 8));
        if (k1 > k0)
            nt_lines_put(&w, (const uint64_t *)(const void *)(src + k0 * 8), k1 - k0);
    }
    if (e1 > e0)
        nt_lines_flush(&w);
}

// Column x of a block, with a plain local part: the steps its band keeps (lim: the steps'
// row indices, NULL without a band or without memory: every step, each clipped); lines: a
// plain band of 8-byte elements through a line writer.
static void unpack_col_op(const nt_mpi_steps *st, const int64_t *lim, const char *a,
                          int64_t lda, char *b, int64_t ldb, size_t es, const block *bk,
                          int64_t x, const nt_mpi_op *op, const nt_mpi_clip *cl, bool lines)
{
    int64_t e0 = 0, e1 = st->n, j = 0;
    if (lim) {
        j = nt_mpi_sub_index(bk->dj + x, cl->nb, cl->q, cl->kc, cl->jb);
        nt_mpi_band_steps(lim, st->n, j, cl, &e0, &e1);
        if (lines) {
            unpack_col_lines(st, lim, a, lda, b, ldb, bk, x, j, e0, e1, cl);
            return;
        }
    }
    for (int64_t e = e0; e < e1; e++) {
        bool inside = lim && lim[2 * e] - j >= cl->lo && lim[2 * e + 1] - j <= cl->hi;
        unpack_run(&st->v[e], a, 1, lda, b, ldb, es, bk, x, 0, st->v[e].len, op, cl,
                   op->band && !inside);
    }
}

// A block of columns: with a plain local part column by column; with a transposed one (rows
// of A' across A's columns) step by step, its local part in tiles of TH rows.
static void unpack_block_op(const nt_mpi_steps *st, const int64_t *lim, const char *a,
                            int64_t ars, int64_t acs, char *b, int64_t ldb, size_t es,
                            const block *bk, const nt_mpi_op *op, const nt_mpi_clip *cl,
                            bool lines)
{
    if (ars == 1) {
        for (int64_t x = bk->x0; x < bk->x1; x++)
            unpack_col_op(st, lim, a, acs, b, ldb, es, bk, x, op, cl, lines);
        return;
    }
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t tile = v->msg ? v->len : TH;
        for (int64_t k0 = 0; k0 < v->len; k0 += tile)
            for (int64_t x = bk->x0; x < bk->x1; x++)
                unpack_run(v, a, ars, acs, b, ldb, es, bk, x, k0,
                           k0 + tile < v->len ? k0 + tile : v->len, op, cl, op->band);
    }
}

void nt_mpi_unpack_group_op(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t ars, int64_t acs, char *b, int64_t ldb, size_t es,
                            int64_t d0, int64_t d1, int threads, const nt_mpi_op *op,
                            const nt_mpi_clip *clip, bool lines)
{
    // Without memory for the index every step is clipped on its own (slower, same result).
    int64_t *lim = op->band && ars == 1 ? nt_mpi_band_index(st, clip, false) : NULL;
    lines = lines && lim && es == 8 && st->contig && !op->scale && !op->conj;
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
                unpack_block_op(st, lim, a, ars, acs, b, ldb, es, &bk, op, clip, lines);
            c += w;
        }
        if (lines)
            nt_lines_fence(); // before the agreement that publishes them
    }
    free(lim);
}
