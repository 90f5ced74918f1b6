// Column walks of the operations (transpose, conjugate, scale, a band of the submatrix): the
// pack from a transposed source and the unpack that applies the element operation. The copy
// keeps its own walks (walk.c); these run only when a call asks for more than a copy.
#include <stdlib.h>
#include <string.h>

#include "block_op.h"
#include "nt_mpi_int.h"

// Columns of A' read together: consecutive rows of A, one 64-byte line of doubles.
enum { TBLOCK = 8 };

// Columns c .. c + w - 1 of the group (consecutive rows sj.. of A) into their messages: for
// each row of A' (a column of A) the w elements are one contiguous read of A.
static void pack_block_t(const nt_mpi_steps *st, const char *a, int64_t lda, size_t es,
                         int64_t c, int64_t sj, int64_t w)
{
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        for (int64_t k = 0; k < v->len; k++) {
            const char *src = a + (size_t)(sj + (v->s + k) * lda) * es;
            char *dst = (char *)v->msg + (size_t)(c * v->stride) + (size_t)k * es;
            if (es == 8) {
                for (int64_t x = 0; x < w; x++)
                    memcpy(dst + (size_t)(x * v->stride), src + 8 * x, 8);
            } else {
                for (int64_t x = 0; x < w; x++)
                    memcpy(dst + (size_t)(x * v->stride), src + (size_t)x * es, es);
            }
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
            w = w < TBLOCK ? w : TBLOCK;
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

// First k in [0, len) whose row d + k has submatrix index above bound (len if none); the
// indices grow with k.
static int64_t first_above(const nt_mpi_clip *cl, int64_t d, int64_t len, int64_t bound)
{
    int64_t lo = 0, hi = len;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sub_index(d + mid, cl->mb, cl->p, cl->kr, cl->ib) > bound)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// The part [*k0, *k1) of a run of rows d.. of column j that the band keeps.
static void band_part(const nt_mpi_clip *cl, int64_t d, int64_t len, int64_t j, int64_t *k0,
                      int64_t *k1)
{
    *k0 = cl->lo > INT64_MIN / 4 ? first_above(cl, d, len, j + cl->lo - 1) : 0;
    *k1 = cl->hi < INT64_MAX / 4 ? first_above(cl, d, len, j + cl->hi) : len;
}

// One column of B (local dj, group column c, source column sj of A').
static void unpack_col_op(const nt_mpi_steps *st, const char *a, int64_t ars, int64_t acs,
                          char *dcol, size_t es, int64_t c, int64_t sj, int64_t j,
                          const nt_mpi_op *op, const nt_mpi_clip *cl)
{
    for (int64_t e = 0; e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t k0 = 0, k1 = v->len, step = (int64_t)es;
        const char *src;
        if (v->msg) {
            src = v->msg + (size_t)(c * v->stride);
        } else {
            src = a + (size_t)(v->s * ars + sj * acs) * es;
            step = ars * (int64_t)es;
        }
        if (op->band)
            band_part(cl, v->d, v->len, j, &k0, &k1);
        if (k1 > k0)
            nt_mpi_run_op(dcol + (size_t)(v->d + k0) * es, src + k0 * step, step, k1 - k0, es,
                          op);
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
        for (int64_t c = c0; c < c1; c++) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            if (dj < d0 || dj >= d1)
                continue;
            int64_t j = op->band ? sub_index(dj, clip->nb, clip->q, clip->kc, clip->jb) : 0;
            unpack_col_op(st, a, ars, acs, b + (size_t)(dj * ldb) * es, es, c, sj, j, op, clip);
        }
    }
}
