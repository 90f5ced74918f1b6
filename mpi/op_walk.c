// Column walks of the operations (transpose, conjugate, scale, a band of the submatrix): the
// pack from a transposed source and the unpack that applies the element operation. The copy
// keeps its own walks (walk.c); these run only when a call asks for more than a copy.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Header-only line writers (no libnumatile symbol), as in walk.c.
#include "block_op.h"
#include "lib/matrix/nt_lines.h"
#include "nt_mpi_int.h"

// Columns of A' a walk with a plain local part takes at once; A's columns a transposing walk
// reads together (a chunk of a step), down every row of A the thread has.
enum { TW = 64, KC = 16 };

// Elements of es bytes from p to the next 64-byte boundary, below t (0: p is on one, or its
// elements cannot line up with one).
static inline int64_t to_line(const char *p, size_t es, int64_t t)
{
    uintptr_t o = (uintptr_t)p & 63;
    return o == 0 || o % es ? 0 : (int64_t)((64 - o) / es) % t;
}

#if defined(__SSE2__)
static inline __m128i load16(const char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

// 16 bytes to p, with a streaming store when the caller writes p's whole line.
static inline void put16(char *p, __m128i v, bool stream)
{
    if (stream)
        _mm_stream_si128((__m128i *)(void *)p, v);
    else
        _mm_storeu_si128((__m128i *)(void *)p, v);
}
#endif

// One tile, nx <= t by nk <= t elements: element (x, k) from s + x * es + k * ss to
// d + k * es + x * ds. A whole tile of 8-byte elements (8 x 8) is written target line by
// target line, each 16-byte store from two 8-byte loads (25% faster streaming than 2 x 2
// register transposes, which fill two target lines at once); of 16-byte ones (4 x 4) element
// by element. No arithmetic: the bits move unchanged (NaNs included). stream: a whole tile
// whose target lines are whole aligned lines, written with streaming stores. conj (16-byte
// elements, complex doubles): the imaginary part's sign flipped, which is what -x does.
static inline void tile(char *d, int64_t ds, const char *s, int64_t ss, size_t es, int64_t nx,
                        int64_t nk, bool stream, bool conj)
{
#if defined(__SSE2__)
    if (es == 8 && nx == 8 && nk == 8) {
        for (int x = 0; x < 8; x++)
            for (int k = 0; k < 8; k += 2) {
                const char *p = s + 8 * x + k * ss;
                __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)p);
                __m128i hi = _mm_loadl_epi64((const __m128i *)(const void *)(p + ss));
                put16(d + 8 * k + x * ds, _mm_unpacklo_epi64(lo, hi), stream);
            }
        return;
    }
    if (es == 16 && nx == 4 && nk == 4) {
        __m128i m = _mm_set_epi64x(conj ? INT64_MIN : 0, 0);
        for (int x = 0; x < 4; x++)
            for (int k = 0; k < 4; k++)
                put16(d + 16 * k + x * ds, _mm_xor_si128(load16(s + 16 * x + k * ss), m), stream);
        return;
    }
#endif
    (void)stream;
    if (conj) {
        for (int64_t x = 0; x < nx; x++)
            for (int64_t k = 0; k < nk; k++) {
                double z[2];
                memcpy(z, s + 16 * x + k * ss, sizeof z);
                z[1] = -z[1];
                memcpy(d + 16 * k + x * ds, z, sizeof z);
            }
        return;
    }
    // Constant sizes, so that each memcpy is one load and one store.
    for (int64_t x = 0; x < nx; x++) {
        char *dx = d + x * ds;
        const char *sx = s + (size_t)x * es;
        if (es == 8)
            for (int64_t k = 0; k < nk; k++)
                memcpy(dx + 8 * k, sx + k * ss, 8);
        else if (es == 16)
            for (int64_t k = 0; k < nk; k++)
                memcpy(dx + 16 * k, sx + k * ss, 16);
        else if (es == 4)
            for (int64_t k = 0; k < nk; k++)
                memcpy(dx + 4 * k, sx + k * ss, 4);
        else
            for (int64_t k = 0; k < nk; k++)
                memcpy(dx + (size_t)k * es, sx + k * ss, es);
    }
}

// A block transposed: element (x, k), at s + x * es + k * ss, to d + k * es + x * ds, for
// x < nx, k < nk (ss, ds: bytes between the source's and the target's columns). In tiles of
// one 64-byte line each way (8 x 8 doubles), their k edges on the target's lines and their x
// edges on the source's, so that every line is read or written whole within a tile or two
// consecutive ones; a column of tiles runs down the source's columns (t streams the
// prefetchers follow). stream: whole target lines (ds a multiple of 64) go out with streaming
// stores, so they are not read first (fence before publishing them). conj: see tile(). On
// 2048 x 2048 doubles, lld 2048 (bench/micro/transpose.c): 64 x 16 tiles with ordinary
// stores moved 1.3-1.8 GB/s, this walk 4.4-4.7 GB/s streaming, memcpy 5.4-5.8 GB/s.
static void transpose_block(char *d, int64_t ds, const char *s, int64_t ss, size_t es,
                            int64_t nx, int64_t nk, bool stream, bool conj)
{
    int64_t t = es == 4 ? 16 : es == 16 ? 4 : 8;
    int64_t hx = to_line(s, es, t), hk = to_line(d, es, t);
    stream = stream && (es == 8 || es == 16) && ds % 64 == 0 &&
             ((uintptr_t)d + (uintptr_t)hk * es) % 64 == 0;
    for (int64_t k = 0; k < nk;) {
        int64_t k1 = k == 0 && hk ? hk : k + t;
        k1 = k1 < nk ? k1 : nk;
        for (int64_t x = 0; x < nx;) {
            int64_t x1 = x == 0 && hx ? hx : x + t;
            x1 = x1 < nx ? x1 : nx;
            tile(d + (size_t)k * es + x * ds, ds, s + (size_t)x * es + k * ss, ss, es, x1 - x,
                 k1 - k, stream && k1 - k == t, conj);
            x = x1;
        }
        k = k1;
    }
}

// The end of the chunk of a step's k0.. (of len): KC elements, the first one ending where the
// target's column (at d) reaches a 64-byte line, so that the chunks' tiles write whole lines.
static inline int64_t chunk_end(const char *d, size_t es, int64_t k0, int64_t len)
{
    int64_t h = k0 == 0 ? to_line(d, es, KC) : 0, k1 = h ? h : k0 + KC;
    return k1 < len ? k1 : len;
}

void nt_mpi_pack_group_t(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                         int64_t lda, size_t es, int threads, bool lines)
{
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u0 = nt_mpi_thread_share(cp, &c0, &c1);
        // Step by step, KC of A's columns at a time down all of the thread's rows of A (piece
        // by piece): the chunk's columns are read in order, each target column's pages
        // visited once per chunk. Piece by piece with every step inside instead (pieces of
        // 30-60 rows when block sizes differ) read each page of A for a few lines only.
        for (int64_t e = 0; e < st->n; e++) {
            const nt_mpi_step *v = &st->v[e];
            const char *d0 = v->msg + (size_t)(c0 * v->stride);
            for (int64_t k0 = 0, k1; k0 < v->len; k0 = k1) {
                k1 = chunk_end(d0, es, k0, v->len);
                nt_mpi_cursor u = u0;
                for (int64_t c = c0; c < c1;) {
                    nt_mpi_cursor_col(&u, c, &sj, &dj);
                    // Inside the cursor's piece, where rows of A are consecutive.
                    int64_t left = u.cp->v[u.k].len - (c - u.base), w = c1 - c;
                    w = w < left ? w : left;
                    transpose_block((char *)v->msg + (size_t)(c * v->stride + k0 * (int64_t)es),
                                    v->stride, a + (size_t)(sj + (v->s + k0) * lda) * es,
                                    lda * (int64_t)es, es, w, k1 - k0, lines, false);
                    c += w;
                }
            }
        }
        if (lines)
            nt_lines_fence(); // before the agreement that publishes them
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

// The local part of a transposed unpack: step v (rows v->s.. of A', A's columns) across the
// block's columns, transposed in line tiles (transpose_block), which also conjugate complex
// doubles. Another element op (scale, conjugating complex floats) transposes BK x BX pieces
// into a buffer in the first-level cache and applies itself to the buffer's contiguous runs;
// a band keeps the element walk, which clips.
enum { BX = 32, BK = 16 };
static void unpack_local_t(const nt_mpi_step *v, const char *a, int64_t lda, char *b,
                           int64_t ldb, size_t es, const block *bk, const nt_mpi_op *op,
                           const nt_mpi_clip *cl, bool stream)
{
    char *d = b + (size_t)((bk->dj + bk->x0) * ldb + v->d) * es;
    const char *s = a + (size_t)(v->s * lda + bk->sj + bk->x0) * es;
    int64_t nx = bk->x1 - bk->x0, sb = lda * (int64_t)es, db = ldb * (int64_t)es;
    if (!op->band && !op->scale && (!op->conj || es == 16)) {
        transpose_block(d, db, s, sb, es, nx, v->len, stream, op->conj);
        return;
    }
    if (op->band || es > 16) {
        for (int64_t k0 = 0; k0 < v->len; k0 += BK)
            for (int64_t x = bk->x0; x < bk->x1; x++)
                unpack_run(v, a, lda, 1, b, ldb, es, bk, x, k0,
                           k0 + BK < v->len ? k0 + BK : v->len, op, cl, op->band);
        return;
    }
    _Alignas(64) char buf[BX * BK * 16];
    for (int64_t k0 = 0; k0 < v->len; k0 += BK) {
        int64_t kn = v->len - k0 < BK ? v->len - k0 : BK;
        for (int64_t x0 = 0; x0 < nx; x0 += BX) {
            int64_t xn = nx - x0 < BX ? nx - x0 : BX;
            transpose_block(buf, kn * (int64_t)es, s + (size_t)x0 * es + k0 * sb, sb, es, xn,
                            kn, false, false);
            for (int64_t x = 0; x < xn; x++)
                nt_mpi_run_op(d + (x0 + x) * db + (size_t)k0 * es, buf + (size_t)(x * kn) * es,
                              (int64_t)es, kn, es, op);
        }
    }
}

// len elements of 8 or 16 bytes from s to d, complex doubles conjugated when conj (as tile());
// stream: the whole lines of d with streaming stores. The messages of a transposition arrive
// in B's order: copied here (pztranc's conjugated), not read first.
static void copy_run(char *d, const char *s, int64_t len, size_t es, bool conj, bool stream)
{
    int64_t k = 0;
#if defined(__SSE2__)
    if (stream && (uintptr_t)d % es == 0) {
        __m128i m = _mm_set_epi64x(conj ? INT64_MIN : 0, 0);
        int64_t per = 64 / (int64_t)es;
        k = to_line(d, es, per);
        k = k < len ? k : len;
        tile(d, 0, s, (int64_t)es, es, 1, k, false, conj); // up to d's first whole line
        for (; k + per <= len; k += per)
            for (int i = 0; i < 4; i++)
                put16(d + (size_t)k * es + 16 * i,
                      _mm_xor_si128(load16(s + (size_t)k * es + 16 * i), m), true);
    }
#endif
    (void)stream;
    if (conj)
        tile(d + (size_t)k * es, 0, s + (size_t)k * es, (int64_t)es, es, 1, len - k, false, true);
    else
        nt_mpi_copy_elems(d + (size_t)k * es, s + (size_t)k * es, len - k, es);
}

// A block of columns with a plain local part, column by column.
static void unpack_block_op(const nt_mpi_steps *st, const int64_t *lim, const char *a,
                            int64_t acs, char *b, int64_t ldb, size_t es, const block *bk,
                            const nt_mpi_op *op, const nt_mpi_clip *cl, bool lines)
{
    for (int64_t x = bk->x0; x < bk->x1; x++)
        unpack_col_op(st, lim, a, acs, b, ldb, es, bk, x, op, cl, lines);
}

// Step v (or a chunk of a local one) of a transposed unpack in a block's columns: a message's
// runs whole (streamed, complex doubles conjugated as asked), the local part in tiles.
static void unpack_step_t(const nt_mpi_step *v, const char *a, int64_t lda, char *b,
                          int64_t ldb, size_t es, const block *bk, const nt_mpi_op *op,
                          const nt_mpi_clip *cl, bool stream)
{
    if (!v->msg) {
        unpack_local_t(v, a, lda, b, ldb, es, bk, op, cl, stream);
    } else if ((es == 16 || (es == 8 && !op->conj)) && !op->band && !op->scale) {
        for (int64_t x = bk->x0; x < bk->x1; x++)
            copy_run(b + (size_t)((bk->dj + x) * ldb + v->d) * es,
                     v->msg + (size_t)((bk->c + x) * v->stride), v->len, es, op->conj, stream);
    } else {
        for (int64_t x = bk->x0; x < bk->x1; x++)
            unpack_run(v, a, lda, 1, b, ldb, es, bk, x, 0, v->len, op, cl, op->band);
    }
}

// A thread's columns [c0, c1) of a transposed unpack (u0: the cursor at c0), step by step,
// the local part KC of A's columns at a time down all the thread's rows of A (as
// nt_mpi_pack_group_t), B's columns [d0, d1) only.
static void unpack_share_t(const nt_mpi_steps *st, nt_mpi_cursor u0, int64_t c0, int64_t c1,
                           const char *a, int64_t lda, char *b, int64_t ldb, size_t es,
                           int64_t d0, int64_t d1, const nt_mpi_op *op, const nt_mpi_clip *cl,
                           bool stream)
{
    int64_t sj, dj, dj0;
    if (c1 <= c0)
        return;
    nt_mpi_cursor u = u0;
    nt_mpi_cursor_col(&u, c0, &sj, &dj0);
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        const char *bd = b + (size_t)(dj0 * ldb + v->d) * es; // the chunks' first target column
        for (int64_t k0 = 0, k1; k0 < v->len; k0 = k1) {
            k1 = v->msg ? v->len : chunk_end(bd, es, k0, v->len);
            nt_mpi_step p = *v;
            p.s += k0, p.d += k0;
            p.len = k1 - k0;
            u = u0;
            for (int64_t c = c0; c < c1;) {
                nt_mpi_cursor_col(&u, c, &sj, &dj);
                int64_t left = u.cp->v[u.k].len - (c - u.base), w = c1 - c;
                w = w < left ? w : left;
                block bk = {c, sj, dj, d0 > dj ? d0 - dj : 0, d1 - dj < w ? d1 - dj : w};
                if (bk.x1 > bk.x0)
                    unpack_step_t(&p, a, lda, b, ldb, es, &bk, op, cl, stream);
                c += w;
            }
        }
    }
}

void nt_mpi_unpack_group_op(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t ars, int64_t acs, char *b, int64_t ldb, size_t es,
                            int64_t d0, int64_t d1, int threads, const nt_mpi_op *op,
                            const nt_mpi_clip *clip, bool lines)
{
    // Without memory for the index every step is clipped on its own (slower, same result).
    int64_t *lim = op->band && ars == 1 ? nt_mpi_band_index(st, clip, false) : NULL;
    // A transposed local part streams its whole target lines when the call streams.
    bool stream = lines && ars != 1;
    lines = lines && lim && es == 8 && st->contig && !op->scale && !op->conj;
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        if (ars != 1)
            unpack_share_t(st, u, c0, c1, a, ars, b, ldb, es, d0, d1, op, clip, stream);
        for (int64_t c = c0; ars == 1 && c < c1;) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            int64_t left = u.cp->v[u.k].len - (c - u.base), w = c1 - c;
            w = w < left ? w : left;
            w = w < TW ? w : TW;
            // Only B's columns [d0, d1) (this domain's share).
            block bk = {c, sj, dj, d0 > dj ? d0 - dj : 0, d1 - dj < w ? d1 - dj : w};
            if (bk.x1 > bk.x0)
                unpack_block_op(st, lim, a, acs, b, ldb, es, &bk, op, clip, lines);
            c += w;
        }
        if (lines || stream)
            nt_lines_fence(); // before the agreement that publishes them
    }
    free(lim);
}
