// Bands of the submatrix (nt_ptrmr2d's trapezoids): which rows of a run a column keeps, and
// the pack that writes only those. The steps of a column walk are sorted by rows (source rows
// in a pack, target rows in an unpack), and both orders are the order of the submatrix's row
// index, so the rows a column keeps are one range of steps (a prefix for an upper band, a
// suffix for a lower one) with at most a partial step at each end: found by bisection over the
// steps' first and last indices, computed once per group, the steps inside copied whole.
#include <stdlib.h>
#include <string.h>

// Header-only line writers (no libnumatile symbol), as in walk.c.
#include "lib/matrix/nt_lines.h"
#include "nt_mpi_copy.h"
#include "nt_mpi_int.h"

// First k in [0, len) whose row d + k (of the process kr rows away from rsrc) has submatrix
// index above bound (len if none); the indices grow with k.
static int64_t first_above(const nt_mpi_clip *cl, int kr, int64_t d, int64_t len,
                           int64_t bound)
{
    int64_t lo = 0, hi = len;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (nt_mpi_sub_index(d + mid, cl->mb, cl->p, kr, cl->ib) > bound)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void nt_mpi_band_part(const nt_mpi_clip *cl, int kr, int64_t d, int64_t len, int64_t j,
                      int64_t *k0, int64_t *k1)
{
    // Most runs lie wholly inside or outside the band: their ends decide without a search.
    int64_t first = nt_mpi_sub_index(d, cl->mb, cl->p, kr, cl->ib);
    int64_t last = nt_mpi_sub_index(d + len - 1, cl->mb, cl->p, kr, cl->ib);
    bool lo = cl->lo > INT64_MIN / 4, hi = cl->hi < INT64_MAX / 4;
    *k0 = !lo || first - j >= cl->lo ? 0
          : last - j < cl->lo        ? len
                                     : first_above(cl, kr, d, len, j + cl->lo - 1);
    *k1 = !hi || last - j <= cl->hi ? len
          : first - j > cl->hi      ? 0
                                    : first_above(cl, kr, d, len, j + cl->hi);
}

int64_t *nt_mpi_band_index(const nt_mpi_steps *st, const nt_mpi_clip *cl, bool pack)
{
    int64_t *lim = malloc((size_t)(st->n ? st->n : 1) * 2 * sizeof *lim);
    for (int64_t e = 0; lim && e < st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        int kr = pack ? (v->list - cl->rsrc + cl->p) % cl->p : cl->kr;
        lim[2 * e] = nt_mpi_sub_index(v->d, cl->mb, cl->p, kr, cl->ib);
        lim[2 * e + 1] = nt_mpi_sub_index(v->d + v->len - 1, cl->mb, cl->p, kr, cl->ib);
    }
    return lim;
}

void nt_mpi_band_steps(const int64_t *lim, int64_t n, int64_t j, const nt_mpi_clip *cl,
                       int64_t *e0, int64_t *e1)
{
    // e0: the first step whose last row reaches j + lo; e1: the first whose first row passes
    // j + hi (the indices grow along the steps).
    int64_t a = 0, b = n;
    while (cl->lo > INT64_MIN / 4 && a < b) {
        int64_t mid = a + (b - a) / 2;
        if (lim[2 * mid + 1] - j < cl->lo)
            a = mid + 1;
        else
            b = mid;
    }
    *e0 = a;
    b = n;
    while (cl->hi < INT64_MAX / 4 && a < b) {
        int64_t mid = a + (b - a) / 2;
        if (lim[2 * mid] - j > cl->hi)
            b = mid;
        else
            a = mid + 1;
    }
    *e1 = cl->hi < INT64_MAX / 4 ? a : n;
}

// Whether step e lies wholly inside the band of column j.
static inline bool whole(const int64_t *lim, int64_t e, int64_t j, const nt_mpi_clip *cl)
{
    return lim[2 * e] - j >= cl->lo && lim[2 * e + 1] - j <= cl->hi;
}

// Column c of a band pack: per message, only the rows the band keeps at the receiver (list
// k of the steps is B's process row k, kc its process column's distance from csrc). w: one
// line writer per message (8-byte elements), or NULL: each message's kept rows are one
// contiguous range of its column (its steps in [e0, e1)), so a writer streams them.
static void pack_col_band(const nt_mpi_steps *st, const int64_t *lim, const char *scol,
                          size_t es, int64_t c, int64_t dj, const nt_mpi_clip *cl, int kc,
                          nt_lines *w)
{
    int64_t j = nt_mpi_sub_index(dj, cl->nb, cl->q, kc, cl->jb), e0, e1;
    nt_mpi_band_steps(lim, st->n, j, cl, &e0, &e1);
    for (int k = 0; w && k < st->nl; k++)
        w[k].base = NULL; // not started in this column
    for (int64_t e = e0; e < e1; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t k0 = 0, k1 = v->len;
        if (!whole(lim, e, j, cl))
            nt_mpi_band_part(cl, (v->list - cl->rsrc + cl->p) % cl->p, v->d, v->len, j, &k0,
                             &k1);
        char *d = (char *)v->msg + (size_t)(c * v->stride) + (size_t)k0 * es;
        const char *s = scol + (size_t)(v->s + k0) * es;
        if (w && !w[v->list].base)
            nt_lines_start(&w[v->list], (uint64_t *)(void *)d);
        if (w && k1 > k0)
            nt_lines_put(&w[v->list], (const uint64_t *)(const void *)s, k1 - k0);
        else if (k1 > k0)
            nt_mpi_copy_elems(d, s, k1 - k0, es);
    }
    for (int k = 0; w && k < st->nl; k++)
        if (w[k].base)
            nt_lines_flush(&w[k]);
}

void nt_mpi_pack_group_band(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t lda, size_t es, int threads, const nt_mpi_clip *cl, int tc,
                            bool lines)
{
    int kc = (tc - cl->csrc + cl->q) % cl->q;
    int64_t *lim = nt_mpi_band_index(st, cl, true);
    if (!lim) {
        // Without room for the index: every element packed, the unpack still clips.
        nt_mpi_pack_group(st, cp, a, lda, es, threads, false);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        nt_mpi_cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        // This thread's writers; without their memory it copies without them.
        nt_lines *w = lines && es == 8 && st->nl > 0
                          ? aligned_alloc(64, (size_t)st->nl * sizeof *w) : NULL;
        if (w)
            memset(w, 0, (size_t)st->nl * sizeof *w);
        for (int64_t c = c0; c < c1; c++) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            pack_col_band(st, lim, a + (size_t)(sj * lda) * es, es, c, dj, cl, kc, w);
        }
        if (w)
            nt_lines_fence(); // before the agreement that publishes them
        free(w);
    }
    free(lim);
}
