// conform: ScaLAPACK's redistribution and transposition routines called by their own names, in
// the style of ScaLAPACK's REDIST tester. Built twice from this one file: conform_dropin links
// libnumatile_scalapack before ScaLAPACK (numatile answers), conform_plain links ScaLAPACK
// alone. Both print, on rank 0, one digest line per case (the bits of every rank's local B,
// padding included); `make test-mpi` compares the two outputs line by line, so every case
// gives the same bits with the drop-in as with ScaLAPACK.
//
//   mpirun -np R conform --expect dropin|plain [--cases N] [--seed S] [--verbose]
//
// Every case draws (one seed, the same on every rank) an enclosing context (1 x R row-major or
// a 2D column-major grid of all R processes), two BLACS grids of 1..R processes on random
// processes (Cblacs_gridmap: processes outside a grid, grids that share members or none at
// all, in any order), global sizes up to 200, block sizes 1..70, RSRC/CSRC displacements,
// random corners and submatrices (some empty), padded leading dimensions, and one of the five
// element types (s, d, c, z, i). The routine: p?gemr2d_ (most cases), p?trmr2d_ (uplo U/L,
// diag N/U), or a PBLAS transposition p?tran_/p?tranu_/p?tranc_ (A and C on one grid, alpha,
// beta in small integers, beta = 0 included), sometimes through the C names (Cp?gemr2d,
// Cp?trmr2d). ScaLAPACK's rules exercised on purpose:
//   - DTYPE is not read by p?gemr2d: some cases pass DTYPE = 2 (the drop-in falls back to
//     ScaLAPACK's routine for them, and says so with NT_SCALAPACK_VERBOSE=1);
//   - LLD = 0 on a process that holds no row;
//   - a process outside a grid passes CTXT = -1 and garbage in every other field, and garbage
//     corners;
//   - m = 0 or n = 0 returns at once, without communication: in those cases only the even
//     processes call (a routine that communicated would hang).
// Each run also checks itself against a naive oracle, element by element on every rank: the
// submatrix (or its trapezoid, ScaLAPACK's: anchored at the bottom right of a rectangle; or
// beta B + alpha op(A)) from A's global coordinates, everything else of B (padding included)
// as it was, A unchanged. --expect says which library must answer pdgemr2d_ (dladdr).
// Exit 0 when every check passed on every rank, 1 otherwise.
#include <dlfcn.h> // dladdr: the build defines _GNU_SOURCE
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/scalapack.h>

#include "mpi/nt_blacs.h"
#include "test_util.h"

enum { MAXR = 8, KIND_GEMR = 0, KIND_TRMR = 1, KIND_TRAN = 2 };

// The five types: element size, components (complex: 2), floating or integer.
static const char TYPES[] = "sdczi";
static const int ESIZE[] = {4, 8, 8, 16, 4};

typedef struct mat {
    int M, N, mb, nb, p, q, rsrc, csrc;
    int map[MAXR];
    int ctxt, myrow, mycol, mloc, nloc, lld;
    int desc[9];
    size_t count; // elements of the local array: lld * max(1, nloc)
} mat;

typedef struct kase {
    int kind, type, cnames, m, n, ia, ja, ib, jb, dtype_a, dtype_b;
    char uplo, diag, op; // trmr: uplo U/L, diag N/U; tran: op T (u) or C (c)
    int alpha[2], beta[2]; // small integers (real, imaginary)
    mat A, B;
    int gctxt;
    bool own_ctx;  // gctxt made for this case: the union of both grids' processes only
    bool in_ctx;   // this process belongs to gctxt (else it does not call)
    bool zero_lld; // LLD = 0 where a process has no row
} kase;

static int rnd(int lo, int hi)
{
    return uni(lo, hi);
}

// Values only some processes draw (garbage outside a grid): a generator of their own, so the
// shared one stays in step on every rank.
static uint64_t garbage_state = 12345;
static int garbage(void)
{
    garbage_state = garbage_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)(garbage_state >> 40) % 2001 - 1000;
}

// Local extent by brute force (the owner of every global index): the oracle's own NUMROC.
static int local_count(int n, int nb, int me, int src, int P)
{
    int k = 0;
    for (int g = 0; g < n; g++)
        k += (g / nb + src) % P == me;
    return k;
}

// A random grid on distinct random processes of the pool.
static void draw_grid(mat *x, const int *pool, int npool)
{
    x->p = rnd(1, npool);
    x->q = rnd(1, npool / x->p);
    int perm[MAXR];
    for (int i = 0; i < npool; i++)
        perm[i] = pool[i];
    for (int i = npool - 1; i > 0; i--) {
        int j = rnd(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < x->p * x->q; i++)
        x->map[i] = perm[i];
}

static void draw_sizes(mat *x, int maxdim)
{
    // Empty matrices now and then; empty submatrices come from draw_sub too.
    x->M = rnd(0, 49) ? rnd(1, maxdim) : 0;
    x->N = rnd(0, 49) ? rnd(1, maxdim) : 0;
    x->mb = rnd(1, 70);
    x->nb = rnd(1, 70);
    x->rsrc = rnd(0, x->p - 1);
    x->csrc = rnd(0, x->q - 1);
}

// A new context for the grid (Cblacs_gridmap: a collective over all processes); this
// process's coordinates in it, -1 outside.
static void make_context(mat *x)
{
    int usermap[MAXR]; // column-major p x q for Cblacs_gridmap
    for (int r = 0; r < x->p; r++)
        for (int c = 0; c < x->q; c++)
            usermap[c * x->p + r] = x->map[r * x->q + c];
    int ctxt, np, nq;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridmap(&ctxt, usermap, x->p, x->p, x->q);
    x->ctxt = ctxt;
    x->myrow = x->mycol = -1;
    if (ctxt >= 0)
        Cblacs_gridinfo(ctxt, &np, &nq, &x->myrow, &x->mycol);
    if (x->myrow >= x->p || x->mycol >= x->q)
        x->myrow = x->mycol = -1;
}

// The local sizes and the descriptor, on the context x->ctxt (coordinates myrow, mycol).
static void make_desc(mat *x, int dtype, bool zero_lld, int pad)
{
    if (x->myrow < 0) {
        x->mloc = x->nloc = 0;
        x->lld = 1;
        x->count = 1;
        // Outside: CTXT = -1 and garbage elsewhere (ScaLAPACK reads none of it).
        for (int i = 0; i < 9; i++)
            x->desc[i] = garbage();
        x->desc[1] = -1;
        return;
    }
    x->mloc = local_count(x->M, x->mb, x->myrow, x->rsrc, x->p);
    x->nloc = local_count(x->N, x->nb, x->mycol, x->csrc, x->q);
    x->lld = x->mloc == 0 && zero_lld ? 0 : (x->mloc > 1 ? x->mloc : 1) + pad;
    x->count = (size_t)(x->lld > 0 ? x->lld : 1) * (size_t)(x->nloc > 1 ? x->nloc : 1);
    int d[9] = {dtype, x->ctxt, x->M, x->N, x->mb, x->nb, x->rsrc, x->csrc, x->lld};
    memcpy(x->desc, d, sizeof d);
}

static int global_of(int l, int nb, int me, int src, int P)
{
    return (int)l2g(l, nb, me, src, P);
}

// Component values (as doubles: every one is exact in every type).
static double a_val(int gi, int gj, int c)
{
    double v = (double)(gi * 512 + gj + 1);
    return c ? -v - 0.25 : v;
}

static double b_val(int gi, int gj, int c)
{
    double v = -(double)(gi * 512 + gj + 1) - 0.5;
    return c ? v + 0.125 : v;
}

static const double PAD = -3.75;

static void put(void *base, size_t k, int type, int c, double v)
{
    switch (type) {
    case 0: ((float *)base)[k] = (float)v; break;
    case 1: ((double *)base)[k] = v; break;
    case 2: ((float *)base)[2 * k + (size_t)c] = (float)v; break;
    case 3: ((double *)base)[2 * k + (size_t)c] = v; break;
    default: ((int *)base)[k] = (int)v; break;
    }
}

static double get(const void *base, size_t k, int type, int c)
{
    switch (type) {
    case 0: return ((const float *)base)[k];
    case 1: return ((const double *)base)[k];
    case 2: return ((const float *)base)[2 * k + (size_t)c];
    case 3: return ((const double *)base)[2 * k + (size_t)c];
    default: return ((const int *)base)[k];
    }
}

static int comps(int type)
{
    return type == 2 || type == 3 ? 2 : 1;
}

// A local array filled: f(gi, gj, c) inside the matrix, PAD in the padding rows.
static void *fill(const mat *x, int type, double (*f)(int, int, int))
{
    void *v = malloc(x->count * (size_t)ESIZE[type]);
    if (!v)
        abort();
    size_t ld = (size_t)(x->lld > 0 ? x->lld : 1);
    for (size_t k = 0; k < x->count; k++) {
        int li = (int)(k % ld), lj = (int)(k / ld);
        bool in = x->myrow >= 0 && li < x->mloc && lj < x->nloc;
        int gi = in ? global_of(li, x->mb, x->myrow, x->rsrc, x->p) : 0;
        int gj = in ? global_of(lj, x->nb, x->mycol, x->csrc, x->q) : 0;
        for (int c = 0; c < comps(type); c++)
            put(v, k, type, c, in ? f(gi, gj, c) : PAD);
    }
    return v;
}

// ScaLAPACK's trapezoid (REDIST/SRC/p?trmr2.c): element (i, j) of the m x n submatrix, with the
// diagonal anchored at the bottom-right corner when the submatrix is not square.
static bool in_trapezoid(const kase *g, int i, int j)
{
    int unit = g->diag == 'U' || g->diag == 'u';
    if (g->uplo == 'U' || g->uplo == 'u') {
        int d = g->m - g->n > 0 ? g->m - g->n : 0;
        return i < d + j + !unit;
    }
    int d = g->n - g->m > 0 ? g->n - g->m : 0;
    return i >= j - d + unit;
}

// The expected component c of B's global element (gi, gj) (0-based).
static double expected(const kase *g, int gi, int gj, int c)
{
    int i = gi - (g->ib - 1), j = gj - (g->jb - 1);
    bool in = i >= 0 && i < g->m && j >= 0 && j < g->n;
    if (!in || (g->kind == KIND_TRMR && !in_trapezoid(g, i, j)))
        return b_val(gi, gj, c);
    if (g->kind != KIND_TRAN)
        return a_val(g->ia - 1 + i, g->ja - 1 + j, c);
    // C(i, j) = beta C(i, j) + alpha op(A)(i, j), op(A)(i, j) = A(j, i) (conjugated for 'C').
    int ai = g->ia - 1 + j, aj = g->ja - 1 + i;
    double ar = a_val(ai, aj, 0), aim = comps(g->type) == 2 ? a_val(ai, aj, 1) : 0;
    if (g->op == 'C')
        aim = -aim;
    double br = b_val(gi, gj, 0), bim = comps(g->type) == 2 ? b_val(gi, gj, 1) : 0;
    if (c == 0)
        return g->beta[0] * br - g->beta[1] * bim + g->alpha[0] * ar - g->alpha[1] * aim;
    return g->beta[0] * bim + g->beta[1] * br + g->alpha[0] * aim + g->alpha[1] * ar;
}

// Mismatches of this rank's B (or of an unchanged array) against the oracle.
static long check_b(const kase *g, const void *b)
{
    const mat *x = &g->B;
    if (x->myrow < 0)
        return 0;
    long bad = 0;
    size_t ld = (size_t)(x->lld > 0 ? x->lld : 1);
    for (size_t k = 0; k < x->count; k++) {
        int li = (int)(k % ld), lj = (int)(k / ld);
        bool in = li < x->mloc && lj < x->nloc;
        int gi = in ? global_of(li, x->mb, x->myrow, x->rsrc, x->p) : 0;
        int gj = in ? global_of(lj, x->nb, x->mycol, x->csrc, x->q) : 0;
        for (int c = 0; c < comps(g->type); c++) {
            // The oracle's value through the element type (integers drop the fraction).
            char want[16];
            put(want, 0, g->type, 0, in ? expected(g, gi, gj, c) : PAD);
            bad += get(b, k, g->type, c) != get(want, 0, g->type, 0);
        }
    }
    return bad;
}

// FNV-1a over bytes.
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

static void draw_case(kase *g, int R, const int *gctx, int ngctx)
{
    memset(g, 0, sizeof *g);
    g->gctxt = gctx[rnd(0, ngctx - 1)];
    int u = rnd(0, 99);
    g->kind = u < 60 ? KIND_GEMR : u < 80 ? KIND_TRMR : KIND_TRAN;
    g->type = rnd(0, g->kind == KIND_TRAN ? 3 : 4); // PBLAS has no integer transposition
    g->cnames = g->kind != KIND_TRAN && rnd(0, 3) == 0;
    g->uplo = "UL"[rnd(0, 1)];
    g->diag = "NU"[rnd(0, 1)];
    // PBLAS wants LLD >= max(1, local rows); the REDIST routines accept 0 without rows.
    g->zero_lld = g->kind != KIND_TRAN && rnd(0, 1);
    int pool[MAXR];
    for (int i = 0; i < R; i++)
        pool[i] = i;
    // Disjoint grids sometimes: A from the first half of the processes, B from the rest.
    bool disjoint = g->kind != KIND_TRAN && R >= 2 && rnd(0, 3) == 0;
    int half = R / 2;
    draw_grid(&g->A, pool, disjoint ? half : R);
    if (g->kind == KIND_TRAN) {
        g->B.p = g->A.p, g->B.q = g->A.q;
        memcpy(g->B.map, g->A.map, sizeof g->A.map);
    } else {
        draw_grid(&g->B, disjoint ? pool + half : pool, disjoint ? R - half : R);
    }
    draw_sizes(&g->A, 200);
    draw_sizes(&g->B, 200);
    g->dtype_a = g->dtype_b = 1;
    if (g->kind == KIND_GEMR && rnd(0, 9) == 0)
        g->dtype_a = 2;
}

// The submatrix and corners, inside both matrices (for tran: C m x n, A n x m).
static void draw_sub(kase *g)
{
    int am = g->A.M, an = g->A.N;
    if (g->kind == KIND_TRAN) {
        am = g->A.N, an = g->A.M; // the transpose's extent, in C's orientation
    }
    int maxm = am < g->B.M ? am : g->B.M, maxn = an < g->B.N ? an : g->B.N;
    // Empty one time in ten or so (and when a matrix is empty).
    g->m = rnd(0, 19) == 0 ? 0 : rnd(maxm > 0, maxm);
    g->n = rnd(0, 19) == 0 ? 0 : rnd(maxn > 0, maxn);
    if (g->kind == KIND_TRAN) {
        g->ia = rnd(1, g->A.M - g->n + 1);
        g->ja = rnd(1, g->A.N - g->m + 1);
    } else {
        g->ia = rnd(1, g->A.M - g->m + 1);
        g->ja = rnd(1, g->A.N - g->n + 1);
    }
    g->ib = rnd(1, g->B.M - g->m + 1);
    g->jb = rnd(1, g->B.N - g->n + 1);
    int small[] = {-1, 1, 2, 0};
    g->alpha[0] = small[rnd(0, 2)];
    g->alpha[1] = comps(g->type) == 2 ? small[rnd(0, 3)] : 0;
    g->beta[0] = small[rnd(0, 3)];
    g->beta[1] = comps(g->type) == 2 && g->beta[0] ? small[rnd(0, 3)] : 0;
    g->op = "TC"[rnd(0, 1)];
}

// Sometimes (a REDIST case) the enclosing context is only the processes of the two grids, in
// a random order, 1 x k: the others do not call (every such set is a new communicator for
// numatile, which must stay in step on processes that see different sequences of sets).
static void union_context(kase *g, int R)
{
    g->in_ctx = true;
    g->own_ctx = g->kind != KIND_TRAN && rnd(0, 2) == 0;
    if (!g->own_ctx)
        return;
    int set[MAXR], k = 0;
    for (int r = 0; r < R; r++) {
        bool in = false;
        for (int i = 0; i < g->A.p * g->A.q; i++)
            in |= g->A.map[i] == r;
        for (int i = 0; i < g->B.p * g->B.q; i++)
            in |= g->B.map[i] == r;
        if (in)
            set[k++] = r;
    }
    for (int i = k - 1; i > 0; i--) {
        int j = rnd(0, i), t = set[i];
        set[i] = set[j];
        set[j] = t;
    }
    int ctxt, np, nq, myr = -1, myc = -1;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridmap(&ctxt, set, 1, 1, k);
    if (ctxt >= 0)
        Cblacs_gridinfo(ctxt, &np, &nq, &myr, &myc);
    g->in_ctx = myr >= 0 && myr < 1 && myc < k;
    g->gctxt = g->in_ctx ? ctxt : -1;
}

typedef void (*gemr_f)(const int *, const int *, const void *, const int *, const int *,
                       const int *, void *, const int *, const int *, const int *, const int *);
typedef void (*trmr_f)(const char *, const char *, const int *, const int *, const void *,
                       const int *, const int *, const int *, void *, const int *, const int *,
                       const int *, const int *);
typedef void (*tran_f)(const int *, const int *, const void *, const void *, const int *,
                       const int *, const int *, const void *, void *, const int *, const int *,
                       const int *);

static void call_gemr(const kase *g, const void *a, void *b, const int *da, const int *db,
                      int ia, int ja, int ib, int jb)
{
    static const gemr_f f[] = {(gemr_f)psgemr2d_, (gemr_f)pdgemr2d_, (gemr_f)pcgemr2d_,
                               (gemr_f)pzgemr2d_, (gemr_f)pigemr2d_};
    int m = g->m, n = g->n, ctx = g->gctxt, t = g->type;
    if (!g->cnames) {
        f[t](&m, &n, a, &ia, &ja, da, b, &ib, &jb, db, &ctx);
        return;
    }
    switch (t) {
    case 0: Cpsgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 1: Cpdgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 2: Cpcgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 3: Cpzgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    default: Cpigemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    }
}

static void call_trmr(const kase *g, const void *a, void *b, const int *da, const int *db,
                      int ia, int ja, int ib, int jb)
{
    static const trmr_f f[] = {(trmr_f)pstrmr2d_, (trmr_f)pdtrmr2d_, (trmr_f)pctrmr2d_,
                               (trmr_f)pztrmr2d_, (trmr_f)pitrmr2d_};
    int m = g->m, n = g->n, ctx = g->gctxt, t = g->type;
    const char *u = &g->uplo, *d = &g->diag;
    if (!g->cnames) {
        f[t](u, d, &m, &n, a, &ia, &ja, da, b, &ib, &jb, db, &ctx);
        return;
    }
    switch (t) {
    case 0: Cpstrmr2d(u, d, m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 1: Cpdtrmr2d(u, d, m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 2: Cpctrmr2d(u, d, m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    case 3: Cpztrmr2d(u, d, m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    default: Cpitrmr2d(u, d, m, n, a, ia, ja, da, b, ib, jb, db, ctx); break;
    }
}

// PBLAS: the scalars in the element type; called by the grid's processes only.
static void call_tran(const kase *g, const void *a, void *b)
{
    int t = g->type;
    char alpha[16], beta[16];
    for (int c = 0; c < comps(t); c++) {
        put(alpha, 0, t, c, g->alpha[c]);
        put(beta, 0, t, c, g->beta[c]);
    }
    tran_f f = t == 0 ? (tran_f)pstran_ : t == 1 ? (tran_f)pdtran_
             : t == 2 ? (g->op == 'C' ? (tran_f)pctranc_ : (tran_f)pctranu_)
                      : (g->op == 'C' ? (tran_f)pztranc_ : (tran_f)pztranu_);
    int m = g->m, n = g->n;
    f(&m, &n, alpha, a, &g->ia, &g->ja, g->A.desc, beta, b, &g->ib, &g->jb, g->B.desc);
}

typedef struct tally {
    long cases, empty, trmr, tran, dtype, cnames, zero_lld, outside, own_ctx, bad_b, bad_a;
} tally;

// One case: draw, make the grids, call, check, print the digest, count.
static void run_case(int k, int rank, int R, const int *gctx, int ngctx, bool verbose,
                     tally *t)
{
    kase g;
    draw_case(&g, R, gctx, ngctx);
    int pad_a = rnd(0, 3), pad_b = rnd(0, 3);
    make_context(&g.A);
    make_desc(&g.A, g.dtype_a, g.zero_lld, pad_a);
    if (g.kind == KIND_TRAN) {
        // PBLAS: A and C on one grid, one context.
        g.B.ctxt = g.A.ctxt, g.B.myrow = g.A.myrow, g.B.mycol = g.A.mycol;
    } else {
        make_context(&g.B);
    }
    make_desc(&g.B, g.dtype_b, g.zero_lld, pad_b);
    draw_sub(&g);
    union_context(&g, R);
    void *a = fill(&g.A, g.type, a_val), *b = fill(&g.B, g.type, b_val);
    void *a0 = fill(&g.A, g.type, a_val);
    bool empty = g.m == 0 || g.n == 0;
    int ia = g.A.myrow >= 0 ? g.ia : -77, ja = g.A.myrow >= 0 ? g.ja : 1 << 30;
    int ib = g.B.myrow >= 0 ? g.ib : -5, jb = g.B.myrow >= 0 ? g.jb : 1 << 29;
    if (g.kind == KIND_TRAN) {
        if (g.A.myrow >= 0) // PBLAS: only the grid's processes call
            call_tran(&g, a, b);
    } else if (g.in_ctx && (!empty || rank % 2 == 0)) {
        // Empty: only the even processes call (ScaLAPACK does not communicate then).
        if (g.kind == KIND_GEMR)
            call_gemr(&g, a, b, g.A.desc, g.B.desc, ia, ja, ib, jb);
        else
            call_trmr(&g, a, b, g.A.desc, g.B.desc, ia, ja, ib, jb);
    }
    long bad_b = check_b(&g, b);
    long bad_a = memcmp(a, a0, g.A.count * (size_t)ESIZE[g.type]) != 0;
    uint64_t h = fnv(0xcbf29ce484222325ULL, b, g.B.myrow >= 0 ? g.B.count * (size_t)ESIZE[g.type]
                                                                 : 0);
    uint64_t *all = malloc((size_t)R * sizeof *all);
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t d = 0xcbf29ce484222325ULL;
        for (int r = 0; r < R; r++)
            d = fnv(d, &all[r], sizeof all[r]);
        printf("case %d %c%s%s: digest %016llx\n", k, TYPES[g.type],
               g.kind == KIND_GEMR ? "gemr2d" : g.kind == KIND_TRMR ? "trmr2d" : "tran",
               g.cnames ? " (C name)" : "", (unsigned long long)d);
    }
    free(all);
    if ((bad_b || bad_a) && verbose)
        fprintf(stderr, "rank %d case %d kind %d type %c m %d n %d ia %d ja %d ib %d jb %d "
                "uplo %c diag %c op %c alpha %d,%d beta %d,%d A %dx%d mb %d nb %d %dx%d src "
                "%d,%d B %dx%d mb %d nb %d %dx%d src %d,%d: B mismatches %ld, A changed %ld\n",
                rank, k, g.kind, TYPES[g.type], g.m, g.n, g.ia, g.ja, g.ib, g.jb, g.uplo,
                g.diag, g.op, g.alpha[0], g.alpha[1], g.beta[0], g.beta[1], g.A.M, g.A.N,
                g.A.mb, g.A.nb, g.A.p, g.A.q, g.A.rsrc, g.A.csrc, g.B.M, g.B.N, g.B.mb, g.B.nb,
                g.B.p, g.B.q, g.B.rsrc, g.B.csrc, bad_b, bad_a);
    t->cases++;
    t->empty += empty;
    t->trmr += g.kind == KIND_TRMR;
    t->tran += g.kind == KIND_TRAN;
    t->dtype += g.dtype_a != 1;
    t->cnames += g.cnames;
    t->zero_lld += (g.A.myrow >= 0 && g.A.lld == 0) || (g.B.myrow >= 0 && g.B.lld == 0);
    t->outside += g.A.myrow < 0 || g.B.myrow < 0;
    t->bad_b += bad_b;
    t->bad_a += bad_a;
    free(a);
    free(a0);
    free(b);
    if (g.A.ctxt >= 0)
        Cblacs_gridexit(g.A.ctxt);
    if (g.kind != KIND_TRAN && g.B.ctxt >= 0)
        Cblacs_gridexit(g.B.ctxt);
    if (g.own_ctx && g.gctxt >= 0)
        Cblacs_gridexit(g.gctxt);
    t->own_ctx += g.own_ctx;
}

// Which library answers pdgemr2d_: "dropin" (libnumatile_scalapack) or "plain".
static const char *answering(void)
{
    Dl_info info;
    void *p;
    gemr_f f = (gemr_f)pdgemr2d_;
    memcpy(&p, &f, sizeof p);
    if (!dladdr(p, &info) || !info.dli_fname)
        return "unknown";
    return strstr(info.dli_fname, "numatile_scalapack") ? "dropin" : "plain";
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, R, cases = 200;
    long seed = 1;
    bool verbose = false;
    const char *expect = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
        else
            expect = "";
    }
    if (!expect || (strcmp(expect, "dropin") && strcmp(expect, "plain")) || R > MAXR) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np R conform --expect dropin|plain [--cases N] "
                    "[--seed S] [--verbose] (R <= %d)\n", MAXR);
        MPI_Finalize();
        return 2;
    }
    bool lib_ok = !strcmp(answering(), expect);
    // Enclosing contexts: all processes in one row, and (R composite) a 2D column-major grid.
    int gctx[2], ngctx = 1;
    Cblacs_get(-1, 0, &gctx[0]);
    Cblacs_gridinit(&gctx[0], "Row", 1, R);
    for (int p = 2; p * p <= R; p++)
        if (R % p == 0) {
            Cblacs_get(-1, 0, &gctx[1]);
            Cblacs_gridinit(&gctx[1], "Col", p, R / p);
            ngctx = 2;
            break;
        }
    rng_state = (uint64_t)seed * 0x2545F4914F6CDD1DULL + (uint64_t)R;
    tally t = {0};
    double t0 = MPI_Wtime();
    for (int k = 0; k < cases; k++)
        run_case(k, rank, R, gctx, ngctx, verbose, &t);
    long v[3] = {t.bad_b, t.bad_a, !lib_ok}, s[3];
    MPI_Reduce(v, s, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int fail = 0;
    if (rank == 0) {
        fail = s[0] || s[1] || s[2];
        printf("conform: %d ranks, %ld cases (seed %ld; %ld trmr2d, %ld tran, %ld empty, %ld "
               "DTYPE 2, %ld C names, %ld with LLD 0, %ld with processes outside a grid, %ld in "
               "a context of the grids' processes only) in %.1f s, answered by %s (expected "
               "%s): B mismatches vs oracle %ld, A changed %ld: %s\n", R, t.cases, seed,
               t.trmr, t.tran, t.empty, t.dtype, t.cnames, t.zero_lld, t.outside, t.own_ctx,
               MPI_Wtime() - t0, answering(), expect, s[0], s[1], fail ? "FAIL" : "PASS");
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return fail;
}
