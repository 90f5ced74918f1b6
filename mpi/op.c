// Operations across ranks: B = beta*B + alpha*op(A) (op = A, A^T, conj(A)^T) and triangular or
// trapezoidal restrictions of the copy. The public entries nt_ptrmr2d() (ScaLAPACK's
// p?trmr2d) and nt_ptran() (PBLAS's p?tran), and nt_mpi_redist_op(), which hands the executor
// the grid of A^T when the operation transposes: the exchange then moves A^T's block-cyclic
// pieces as the copy does, the pack reads A across its rows and the unpack applies the element
// operation (op_walk.c).
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_int.h"

enum { DESC_CTXT = 1 };

static size_t type_size(char t)
{
    return t == 's' ? 4 : t == 'd' ? 8 : t == 'c' ? 8 : t == 'z' ? 16 : 0;
}

// The grid of A^T: cell (r, c) of it is A's cell (c, r). NULL (reported by the executor as a
// NULL grid) when A's grid cannot be transposed (bad sizes, left to the executor's checks).
static const nt_mpi_grid_t *transpose_grid(const nt_mpi_grid_t *ga, nt_mpi_grid_t *t,
                                           int **ranks)
{
    *ranks = NULL;
    if (!ga || ga->nprow < 1 || ga->npcol < 1 || ga->nprow > INT_MAX / ga->npcol)
        return ga;
    int p = ga->nprow, q = ga->npcol;
    *ranks = malloc((size_t)p * (size_t)q * sizeof **ranks);
    if (!*ranks)
        return NULL;
    for (int r = 0; r < q; r++)
        for (int c = 0; c < p; c++)
            (*ranks)[r * p + c] = ga->ranks ? ga->ranks[c * q + r] : c * q + r;
    *t = (nt_mpi_grid_t){ga->n, ga->m, ga->nb, ga->mb, ga->csrc, ga->rsrc, q, p, *ranks};
    return t;
}

// op normalised into *o: its type against elem_size, conjugation only for complex types,
// alpha = 1 and beta = 0 without scaling. Returns the op to run (NULL: a plain copy).
static nt_status normalise(const nt_mpi_op *op, size_t elem_size, nt_mpi_op *o,
                           const nt_mpi_op **run)
{
    *o = *op;
    if (o->type && type_size(o->type) == 0)
        return nt_mpi_fail(NT_EINVAL, "op type '%c': 's', 'd', 'c' or 'z'", o->type);
    if (o->type && type_size(o->type) != elem_size)
        return nt_mpi_fail(NT_EINVAL, "elem_size = %zu is not the size of type '%c' (%zu)",
                           elem_size, o->type, type_size(o->type));
    if (!o->type && (o->scale || o->conj))
        return nt_mpi_fail(NT_EINVAL, "scaling or conjugating needs an element type");
    // alpha = 1, beta = 0: a copy, whose runs are plain copies (bit for bit what the
    // arithmetic gives: 1 * x is x), and B is not read.
    if (o->scale && o->alpha[0] == 1 && o->alpha[1] == 0 && o->beta[0] == 0 && o->beta[1] == 0)
        o->scale = false;
    if (!o->scale) {
        o->alpha[0] = 1, o->alpha[1] = 0;
        o->beta[0] = 0, o->beta[1] = 0;
    }
    o->conj = o->conj && (o->type == 'c' || o->type == 'z');
    bool plain = !o->trans && !o->conj && !o->band && !o->scale;
    *run = plain ? NULL : o;
    return NT_OK;
}

nt_status nt_mpi_redist_op(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                           const void *a, int64_t lda, int64_t ia, int64_t ja,
                           const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib,
                           int64_t jb, const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                           const nt_mpi_op *op, nt_mpi_stats_t *stats)
{
    nt_mpi_op o;
    const nt_mpi_op *run = NULL;
    if (op) {
        nt_status s = normalise(op, elem_size, &o, &run);
        if (s)
            return s;
    }
    if (!run || !run->trans)
        return nt_mpi_redist_engine(comm, rows, cols, elem_size, a, lda, ia, ja, ga, b, ldb, ib,
                                    jb, gb, opts, run, stats);
    nt_mpi_grid_t t;
    int *ranks;
    const nt_mpi_grid_t *gt = transpose_grid(ga, &t, &ranks);
    nt_status s = nt_mpi_redist_engine(comm, rows, cols, elem_size, a, lda, ja, ia, gt, b, ldb,
                                       ib, jb, gb, opts, run, stats);
    free(ranks);
    return s;
}

nt_status nt_ptrmr2d(char uplo, char diag, size_t elem_size, int m, int n, const void *a,
                     int ia, int ja, const int *desca, void *b, int ib, int jb,
                     const int *descb, int ictxt, nt_mpi_stats_t *stats)
{
    int u = toupper((unsigned char)uplo), d = toupper((unsigned char)diag);
    if (u != 'U' && u != 'L')
        return nt_mpi_fail(NT_EINVAL, "uplo = '%c': 'U' (upper) or 'L' (lower)", uplo);
    if (d != 'U' && d != 'N')
        return nt_mpi_fail(NT_EINVAL, "diag = '%c': 'U' (diagonal not copied) or 'N'", diag);
    int64_t unit = d == 'U';
    // ScaLAPACK's trapezoids end at the submatrix's bottom-right corner: a tall upper one is
    // full above its last n rows' triangle, a wide lower one full left of its last m columns.
    nt_mpi_op op = {.band = true, .lo = INT64_MIN / 2, .hi = INT64_MAX / 2};
    if (u == 'U')
        op.hi = (m > n ? (int64_t)m - n : 0) - unit;
    else
        op.lo = -(n > m ? (int64_t)n - m : 0) + unit;
    return nt_mpi_pgemr2d_op(elem_size, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, &op,
                             stats);
}

// A scalar of type t at p as (real, imaginary).
static void scalar(char t, const void *p, double v[2])
{
    float f[2] = {0, 0};
    v[1] = 0;
    if (t == 's' || t == 'c') {
        memcpy(f, p, t == 's' ? sizeof(float) : 2 * sizeof(float));
        v[0] = f[0], v[1] = f[1];
    } else {
        memcpy(v, p, t == 'd' ? sizeof(double) : 2 * sizeof(double));
    }
}

nt_status nt_ptran(char trans, char type, int m, int n, const void *alpha, const void *a,
                   int ia, int ja, const int *desca, const void *beta, void *c, int ic, int jc,
                   const int *descc, nt_mpi_stats_t *stats)
{
    int t = tolower((unsigned char)type), op = toupper((unsigned char)trans);
    if (type_size((char)t) == 0)
        return nt_mpi_fail(NT_EINVAL, "type = '%c': 's', 'd', 'c' or 'z'", type);
    if (op != 'N' && op != 'T' && op != 'C')
        return nt_mpi_fail(NT_EINVAL, "trans = '%c': 'N', 'T' or 'C'", trans);
    if (!alpha || !beta)
        return nt_mpi_fail(NT_EINVAL, "%s: NULL scalar", alpha ? "beta" : "alpha");
    if (!desca || !descc)
        return nt_mpi_fail(NT_EINVAL, "desc%s: NULL descriptor", desca ? "C" : "A");
    if (desca[DESC_CTXT] != descc[DESC_CTXT])
        return nt_mpi_fail(NT_EINVAL, "descC: CTXT = %d differs from descA's %d (one context)",
                           descc[DESC_CTXT], desca[DESC_CTXT]);
    if (m < 0 || n < 0)
        return nt_mpi_fail(NT_EINVAL, "m = %d, n = %d must be >= 0", m, n);
    nt_mpi_op o = {.trans = op != 'N', .conj = op == 'C', .type = (char)t, .scale = true};
    scalar((char)t, alpha, o.alpha);
    scalar((char)t, beta, o.beta);
    if (stats)
        *stats = (nt_mpi_stats_t){0};
    // PBLAS returns at once, without communication, when nothing changes.
    if (m == 0 || n == 0 ||
        (o.alpha[0] == 0 && o.alpha[1] == 0 && o.beta[0] == 1 && o.beta[1] == 0))
        return NT_OK;
    return nt_mpi_pgemr2d_op(type_size((char)t), m, n, a, ia, ja, desca, c, ic, jc, descc,
                             desca[DESC_CTXT], &o, stats);
}
