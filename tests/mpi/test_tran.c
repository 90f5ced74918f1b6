// test_tran: nt_ptran (B = beta*B + alpha*op(A), op N, T or C; s, d, c, z) and nt_ptrmr2d
// (trapezoidal copies) against a naive per-element oracle and against ScaLAPACK's own pdtran,
// pztranc and pdtrmr2d.
//
//   mpirun -np R test_tran [--cases N] [--seed S] [--verbose]
//
// Every case draws (one seed, the same on every rank) BLACS grids of up to 4 x 4 processes on
// random ranks, global sizes up to 200, block sizes 1..40 (sometimes up to 200), RSRC/CSRC,
// padded leading dimensions and a random submatrix (sometimes empty).
//   - nt_ptran: one grid (p?tran works on one context; ranks outside it do not call), A and C
//     with their own block sizes and sources; the type, op, alpha and beta drawn (alpha and
//     beta 0 among them). The values are small integers and halves, so every result is exact
//     in every type and compared bit for bit. beta = 0 cases fill C with NaN first: no NaN may
//     reach sub(C), and every NaN outside it must stay. Checked: every element of C (padding
//     included) against the oracle, A unchanged; for 'd' with op T, C equal to pdtran's; for
//     'z' with op C, equal to pztranc's.
//   - nt_ptrmr2d: two grids as pgemr2d takes them (processes outside a grid pass CTXT -1),
//     uplo and diag drawn; every element of B against the oracle of ScaLAPACK's trapezoid, and
//     equal to pdtrmr2d's B.
//   - bad uplo, diag, type and trans: NT_EINVAL on every calling rank, nothing written.
// Rank 0 prints a summary; exit 0 when every check passed on every rank, 1 otherwise.
#include <ctype.h>
#include <math.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/mpi.h"
#include "mpi/nt_blacs.h"
#include "test_util.h"

typedef struct mat {
    int M, N, mb, nb, p, q, rsrc, csrc, pad, map[16];
    int ctxt, myrow, mycol, mloc, nloc, lld, desc[9];
    size_t count; // elements: lld * max(1, nloc)
} mat;

static size_t esize(char t)
{
    return t == 's' ? 4 : t == 'd' ? 8 : t == 'c' ? 8 : 16;
}

static void put(char t, char *p, double re, double im)
{
    if (t == 's' || t == 'c') {
        float f[2] = {(float)re, (float)im};
        memcpy(p, f, t == 's' ? 4 : 8);
    } else {
        double d[2] = {re, im};
        memcpy(p, d, t == 'd' ? 8 : 16);
    }
}

static void get(char t, const char *p, double *re, double *im)
{
    *im = 0;
    if (t == 's' || t == 'c') {
        float f[2] = {0, 0};
        memcpy(f, p, t == 's' ? 4 : 8);
        *re = f[0], *im = f[1];
    } else {
        double d[2] = {0, 0};
        memcpy(d, p, t == 'd' ? 8 : 16);
        *re = d[0], *im = d[1];
    }
}

// Element values: small integers (exact in float through every product below).
static void a_val(int64_t i, int64_t j, double v[2])
{
    v[0] = (double)((i * 131 + j * 17) % 61) - 30;
    v[1] = (double)((i * 7 + j * 29) % 53) - 26;
}

static void c_val(int64_t i, int64_t j, double v[2])
{
    v[0] = (double)((i * 19 + j * 23) % 41) - 20.5;
    v[1] = (double)((i * 11 + j * 3) % 37) - 18;
}

static const double PAD = -7.25;

static void draw_grid(mat *x, int R, bool all)
{
    do {
        x->p = uni(1, 4);
        x->q = uni(1, 4);
    } while (x->p * x->q > R || (all && x->p * x->q < R));
    int perm[16];
    for (int i = 0; i < R; i++)
        perm[i] = i;
    for (int i = R - 1; i > 0; i--) {
        int j = uni(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    memcpy(x->map, perm, sizeof perm);
}

static void draw_layout(mat *x)
{
    x->M = uni(1, 200);
    x->N = uni(1, 200);
    x->mb = uni(0, 9) ? uni(1, 40) : uni(41, 200);
    x->nb = uni(0, 9) ? uni(1, 40) : uni(41, 200);
    x->rsrc = uni(0, x->p - 1);
    x->csrc = uni(0, x->q - 1);
    x->pad = uni(0, 2);
}

// The BLACS grid of x's map (collective over every rank), or reuse ctxt when given (>= 0).
static void make_grid(mat *x, int ctxt)
{
    if (ctxt < 0) {
        int usermap[16];
        for (int i = 0; i < x->p; i++)
            for (int j = 0; j < x->q; j++)
                usermap[i + j * x->p] = x->map[i * x->q + j];
        Cblacs_get(-1, 0, &ctxt);
        Cblacs_gridmap(&ctxt, usermap, x->p, x->p, x->q);
    }
    x->ctxt = ctxt;
    int np, nq;
    x->myrow = x->mycol = -1;
    if (ctxt >= 0)
        Cblacs_gridinfo(ctxt, &np, &nq, &x->myrow, &x->mycol);
    memset(x->desc, 0, sizeof x->desc);
    x->desc[1] = -1;
    x->mloc = x->nloc = 0;
    x->lld = 1;
    x->count = 1;
    if (x->myrow < 0)
        return;
    x->mloc = (int)nt_mpi_numroc(x->M, x->mb, x->myrow, x->rsrc, x->p);
    x->nloc = (int)nt_mpi_numroc(x->N, x->nb, x->mycol, x->csrc, x->q);
    x->lld = (x->mloc > 1 ? x->mloc : 1) + x->pad;
    x->count = (size_t)x->lld * (size_t)(x->nloc > 1 ? x->nloc : 1);
    int d[9] = {1, ctxt, x->M, x->N, x->mb, x->nb, x->rsrc, x->csrc, x->lld};
    memcpy(x->desc, d, sizeof d);
}

// Global coordinates of local element k (false: padding).
static bool coords(const mat *x, size_t k, int64_t *gi, int64_t *gj)
{
    int li = (int)(k % (size_t)x->lld), lj = (int)(k / (size_t)x->lld);
    if (li >= x->mloc || lj >= x->nloc)
        return false;
    *gi = l2g(li, x->mb, x->myrow, x->rsrc, x->p);
    *gj = l2g(lj, x->nb, x->mycol, x->csrc, x->q);
    return true;
}

// x's local part of type t: f's values, PAD in the padding; nan: every element NaN.
static char *fill(const mat *x, char t, void (*f)(int64_t, int64_t, double *), bool nan)
{
    size_t es = esize(t);
    char *v = malloc(x->count * es);
    if (!v) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (size_t k = 0; k < x->count; k++) {
        int64_t gi, gj;
        double w[2] = {PAD, PAD};
        if (coords(x, k, &gi, &gj))
            f(gi, gj, w);
        if (nan && w[0] != PAD)
            w[0] = w[1] = NAN;
        put(t, v + k * es, w[0], w[1]);
    }
    return v;
}

// Two values equal, NaN equal to NaN.
static bool same(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

// A case of nt_ptran: sub(C) (m x n at ic, jc) = beta*sub(C) + alpha*op(sub(A)).
typedef struct tcase {
    mat A, C;
    char type, op;
    int m, n, ia, ja, ic, jc;
    double alpha[2], beta[2];
} tcase;

// The oracle's value of C's element (gi, gj).
static void want_c(const tcase *t, int64_t gi, int64_t gj, const double c0[2], double w[2])
{
    int64_t i = gi - (t->ic - 1), j = gj - (t->jc - 1);
    if (i < 0 || i >= t->m || j < 0 || j >= t->n) {
        w[0] = c0[0], w[1] = c0[1];
        return;
    }
    double x[2];
    if (t->op == 'N')
        a_val(t->ia - 1 + i, t->ja - 1 + j, x);
    else
        a_val(t->ia - 1 + j, t->ja - 1 + i, x);
    bool cx = t->type == 'c' || t->type == 'z';
    if (!cx)
        x[1] = 0;
    if (t->op == 'C' && cx)
        x[1] = -x[1];
    double r[2] = {t->alpha[0] * x[0] - t->alpha[1] * x[1],
                   t->alpha[0] * x[1] + t->alpha[1] * x[0]};
    if (t->alpha[0] == 0 && t->alpha[1] == 0)
        r[0] = r[1] = 0;
    if (t->beta[0] != 0 || t->beta[1] != 0) {
        r[0] += t->beta[0] * c0[0] - t->beta[1] * c0[1];
        r[1] += t->beta[0] * c0[1] + t->beta[1] * c0[0];
    }
    w[0] = r[0], w[1] = cx ? r[1] : 0;
}

// Elements of c (C's local part after the call) that differ from the oracle; nan: C held NaN.
static int64_t check_c(const tcase *t, const char *c, bool nan)
{
    size_t es = esize(t->type);
    int64_t bad = 0;
    for (size_t k = 0; t->C.myrow >= 0 && k < t->C.count; k++) {
        int64_t gi, gj;
        double c0[2] = {PAD, PAD}, w[2] = {PAD, (t->type == 'c' || t->type == 'z') ? PAD : 0};
        if (coords(&t->C, k, &gi, &gj)) {
            c_val(gi, gj, c0);
            if (nan)
                c0[0] = c0[1] = NAN;
            if (t->type == 's' || t->type == 'd')
                c0[1] = 0;
            want_c(t, gi, gj, c0, w);
        }
        double g[2];
        get(t->type, c + k * es, &g[0], &g[1]);
        bad += !same(g[0], w[0]) || !same(g[1], w[1]);
    }
    return bad;
}

static const double ALPHAS[][2] = {{1, 0}, {-2, 0}, {0.5, 1}, {0, 0}, {3, -0.5}};
static const double BETAS[][2] = {{0, 0}, {1, 0}, {-1, 0.5}, {2, 0}, {0.25, -1}};

static void draw_tcase(tcase *t, int R)
{
    draw_grid(&t->A, R, true);
    t->C.p = t->A.p, t->C.q = t->A.q;
    memcpy(t->C.map, t->A.map, sizeof t->A.map);
    draw_layout(&t->A);
    draw_layout(&t->C);
    t->type = "sdcz"[uni(0, 3)];
    t->op = "NTC"[uni(0, 2)];
    bool tr = t->op != 'N';
    int am = tr ? t->A.N : t->A.M, an = tr ? t->A.M : t->A.N; // op(A)'s sizes
    int mmax = am < t->C.M ? am : t->C.M, nmax = an < t->C.N ? an : t->C.N;
    t->m = uni(0, 29) ? uni(1, mmax) : 0;
    t->n = uni(1, nmax);
    int ar = tr ? t->n : t->m, ac = tr ? t->m : t->n; // sub(A)'s sizes
    t->ia = uni(1, t->A.M - ar + 1);
    t->ja = uni(1, t->A.N - ac + 1);
    t->ic = uni(1, t->C.M - t->m + 1);
    t->jc = uni(1, t->C.N - t->n + 1);
    // A quarter of the cases are plain transpositions (alpha = 1, beta = 0): their own runs.
    bool plain = uni(0, 3) == 0;
    int ka = plain ? 0 : uni(0, 4), kb = plain ? 0 : uni(0, 4);
    memcpy(t->alpha, ALPHAS[ka], sizeof t->alpha);
    memcpy(t->beta, BETAS[kb], sizeof t->beta);
    if (t->type == 's' || t->type == 'd')
        t->alpha[1] = t->beta[1] = 0;
}

typedef struct tally {
    int64_t tran, trmr, vs_oracle, vs_scalapack, a_changed, status, nan_cases, compared;
} tally;
enum { TALLY = 8 };

static void scalars(const tcase *t, char al[16], char be[16])
{
    put(t->type, al, t->alpha[0], t->alpha[1]);
    put(t->type, be, t->beta[0], t->beta[1]);
}

// ScaLAPACK's own result where it has the routine (pdtran for d/T, pztranc for z/C).
static void scalapack_tran(const tcase *t, const char *a, char *c)
{
    const double *al = t->alpha, *be = t->beta;
    double za[2] = {al[0], al[1]}, zb[2] = {be[0], be[1]};
    if (t->type == 'd')
        pdtran_(&t->m, &t->n, za, (const double *)a, &t->ia, &t->ja, t->A.desc, zb,
                (double *)c, &t->ic, &t->jc, t->C.desc);
    else
        pztranc_(&t->m, &t->n, za, (const double *)a, &t->ia, &t->ja, t->A.desc, zb,
                 (double *)c, &t->ic, &t->jc, t->C.desc);
}

static void run_tcase(const tcase *t, tally *ty, int rank, bool verbose)
{
    bool in = t->A.myrow >= 0, nan = t->beta[0] == 0 && t->beta[1] == 0 && uni(0, 1);
    size_t es = esize(t->type);
    char *a = fill(&t->A, t->type, a_val, false), *a0 = fill(&t->A, t->type, a_val, false);
    char *c = fill(&t->C, t->type, c_val, nan);
    char al[16], be[16];
    scalars(t, al, be);
    nt_status s = NT_OK;
    if (verbose)
        fprintf(stderr, "rank %d (%s): tran %c%c m %d n %d alpha %g beta %g A %dx%d (%d,%d) "
                "%dx%d src %d,%d at %d,%d; C %dx%d (%d,%d) src %d,%d at %d,%d\n", rank,
                in ? "in" : "out", t->type, t->op, t->m, t->n, t->alpha[0], t->beta[0], t->A.M,
                t->A.N, t->A.mb, t->A.nb, t->A.p, t->A.q, t->A.rsrc, t->A.csrc, t->ia, t->ja,
                t->C.M, t->C.N, t->C.mb, t->C.nb, t->C.rsrc, t->C.csrc, t->ic, t->jc);
    if (in)
        s = nt_ptran(t->op, t->type, t->m, t->n, al, a, t->ia, t->ja, t->A.desc, be, c, t->ic,
                     t->jc, t->C.desc, NULL);
    if (s && verbose)
        fprintf(stderr, "rank %d: nt_ptran: %s\n", rank, nt_mpi_last_error());
    ty->status += s != NT_OK;
    int64_t bad = check_c(t, c, nan);
    if (bad && verbose)
        fprintf(stderr, "rank %d: tran %c%c alpha %g%+gi beta %g%+gi nan %d: %lld wrong\n", rank,
                t->type, t->op, t->alpha[0], t->alpha[1], t->beta[0], t->beta[1], nan,
                (long long)bad);
    ty->vs_oracle += bad;
    ty->a_changed += memcmp(a, a0, t->A.count * es) != 0;
    ty->nan_cases += nan;
    bool cmp = in && t->m > 0 && ((t->type == 'd' && t->op == 'T') ||
                                  (t->type == 'z' && t->op == 'C'));
    if (cmp) {
        char *c2 = fill(&t->C, t->type, c_val, nan);
        scalapack_tran(t, a, c2);
        // Bit for bit: signed zeros too.
        bool differ = memcmp(c, c2, t->C.count * es) != 0;
        if (differ && verbose)
            for (size_t k = 0; k < t->C.count * es / 8; k++) {
                double x, y;
                memcpy(&x, c + 8 * k, 8);
                memcpy(&y, c2 + 8 * k, 8);
                if (memcmp(&x, &y, 8))
                    fprintf(stderr, "rank %d: %c%c word %zu: numatile %g, ScaLAPACK %g\n", rank,
                            t->type, t->op, k, x, y);
            }
        ty->vs_scalapack += differ;
        ty->compared++;
        free(c2);
    }
    free(a), free(a0), free(c);
}

// A case of nt_ptrmr2d.
typedef struct rcase {
    mat A, B;
    char uplo, diag;
    int m, n, ia, ja, ib, jb;
} rcase;

static void b_val(int64_t i, int64_t j, double v[2])
{
    c_val(i, j, v);
    v[1] = 0;
}

static int64_t check_b(const rcase *r, const char *b)
{
    int64_t bad = 0;
    int64_t dm = r->m > r->n ? r->m - r->n : 0, dn = r->n > r->m ? r->n - r->m : 0;
    int unit = toupper(r->diag) == 'U';
    bool upper = toupper(r->uplo) == 'U';
    for (size_t k = 0; r->B.myrow >= 0 && k < r->B.count; k++) {
        int64_t gi, gj;
        double w[2] = {PAD, 0}, g[2];
        if (coords(&r->B, k, &gi, &gj)) {
            int64_t i = gi - (r->ib - 1), j = gj - (r->jb - 1);
            bool sub = i >= 0 && i < r->m && j >= 0 && j < r->n;
            bool keep = upper ? i - j <= dm - unit : j - i <= dn - unit;
            if (sub && keep)
                a_val(r->ia - 1 + i, r->ja - 1 + j, w);
            else
                b_val(gi, gj, w);
            w[1] = 0;
        }
        get('d', b + k * 8, &g[0], &g[1]);
        bad += !same(g[0], w[0]);
    }
    return bad;
}

static void run_rcase(rcase *r, int gctx, tally *ty, int rank, bool verbose)
{
    if (verbose && rank == 0)
        fprintf(stderr, "trmr %c%c m %d n %d A %dx%d (%d,%d) %dx%d src %d,%d at %d,%d; B %dx%d "
                "(%d,%d) %dx%d src %d,%d at %d,%d\n", r->uplo, r->diag, r->m, r->n, r->A.M,
                r->A.N, r->A.mb, r->A.nb, r->A.p, r->A.q, r->A.rsrc, r->A.csrc, r->ia, r->ja,
                r->B.M, r->B.N, r->B.mb, r->B.nb, r->B.p, r->B.q, r->B.rsrc, r->B.csrc, r->ib,
                r->jb);
    char *a = fill(&r->A, 'd', a_val, false), *a0 = fill(&r->A, 'd', a_val, false);
    char *b = fill(&r->B, 'd', b_val, false), *b2 = fill(&r->B, 'd', b_val, false);
    // ScaLAPACK reads the imaginary part nowhere: a_val's real parts are the doubles.
    if (verbose)
        fprintf(stderr, "rank %d: nt_ptrmr2d\n", rank);
    nt_status s = nt_ptrmr2d(r->uplo, r->diag, 8, r->m, r->n, a, r->ia, r->ja, r->A.desc, b,
                             r->ib, r->jb, r->B.desc, gctx, NULL);
    if (s && verbose)
        fprintf(stderr, "rank %d: nt_ptrmr2d: %s\n", rank, nt_mpi_last_error());
    ty->status += s != NT_OK;
    int64_t bad = check_b(r, b);
    if (bad && verbose)
        fprintf(stderr, "rank %d: trmr %c%c: %lld wrong\n", rank, r->uplo, r->diag,
                (long long)bad);
    ty->vs_oracle += bad;
    ty->a_changed += memcmp(a, a0, r->A.count * 8) != 0;
    if (r->m > 0 && r->n > 0) {
        if (verbose)
            fprintf(stderr, "rank %d: pdtrmr2d\n", rank);
        pdtrmr2d_(&r->uplo, &r->diag, &r->m, &r->n, (double *)a, &r->ia, &r->ja, r->A.desc,
                  (double *)b2, &r->ib, &r->jb, r->B.desc, &gctx);
        ty->vs_scalapack += memcmp(b, b2, r->B.count * 8) != 0;
        ty->compared++;
    }
    free(a), free(a0), free(b), free(b2);
}

static void draw_rcase(rcase *r, int R)
{
    draw_grid(&r->A, R, false);
    draw_layout(&r->A);
    draw_grid(&r->B, R, false);
    draw_layout(&r->B);
    int mmax = r->A.M < r->B.M ? r->A.M : r->B.M, nmax = r->A.N < r->B.N ? r->A.N : r->B.N;
    r->m = uni(0, 29) ? uni(1, mmax) : 0;
    r->n = uni(1, nmax);
    r->ia = uni(1, r->A.M - r->m + 1);
    r->ja = uni(1, r->A.N - r->n + 1);
    r->ib = uni(1, r->B.M - r->m + 1);
    r->jb = uni(1, r->B.N - r->n + 1);
    r->uplo = "ULul"[uni(0, 3)];
    r->diag = "NUnu"[uni(0, 3)];
}

// Bad letters: NT_EINVAL on every rank of the context, C untouched. Returns mismatches.
static int64_t bad_letters(int gctx)
{
    int desc[9] = {1, gctx, 4, 4, 2, 2, 0, 0, 4};
    double a[16] = {0}, c[16], one = 1;
    for (int k = 0; k < 16; k++)
        c[k] = k;
    int64_t bad = 0;
    bad += nt_ptrmr2d('X', 'N', 8, 2, 2, a, 1, 1, desc, c, 1, 1, desc, gctx, NULL) != NT_EINVAL;
    bad += nt_ptrmr2d('U', 'Q', 8, 2, 2, a, 1, 1, desc, c, 1, 1, desc, gctx, NULL) != NT_EINVAL;
    bad += nt_ptran('T', 'q', 2, 2, &one, a, 1, 1, desc, &one, c, 1, 1, desc, NULL) != NT_EINVAL;
    bad += nt_ptran('X', 'd', 2, 2, &one, a, 1, 1, desc, &one, c, 1, 1, desc, NULL) != NT_EINVAL;
    bad += nt_ptran('T', 'd', 2, 2, NULL, a, 1, 1, desc, &one, c, 1, 1, desc, NULL) !=
           NT_EINVAL;
    for (int k = 0; k < 16; k++)
        bad += c[k] != k;
    return bad;
}

static void run_case(int k, int R, int gctx, tally *ty, int rank, bool verbose)
{
    if (k % 2 == 0) {
        tcase t = {0};
        draw_tcase(&t, R);
        make_grid(&t.A, -1);
        make_grid(&t.C, t.A.ctxt);
        run_tcase(&t, ty, rank, verbose);
        ty->tran += rank == 0;
        if (t.A.ctxt >= 0)
            Cblacs_gridexit(t.A.ctxt);
    } else {
        rcase r = {0};
        draw_rcase(&r, R);
        make_grid(&r.A, -1);
        make_grid(&r.B, -1);
        run_rcase(&r, gctx, ty, rank, verbose);
        ty->trmr += rank == 0;
        if (r.A.ctxt >= 0)
            Cblacs_gridexit(r.A.ctxt);
        if (r.B.ctxt >= 0)
            Cblacs_gridexit(r.B.ctxt);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, R;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    long cases = 400, seed = 1;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
    }
    if (R > 16) {
        if (rank == 0)
            fprintf(stderr, "test_tran: at most 16 ranks\n");
        MPI_Finalize();
        return 2;
    }
    rng_state = (uint64_t)seed;
    int me, np, gctx;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &gctx);
    Cblacs_gridinit(&gctx, "Row", 1, R);
    tally ty = {0};
    for (long k = 0; k < cases; k++) {
        if (verbose && rank == 0)
            fprintf(stderr, "case %ld\n", k);
        run_case((int)k, R, gctx, &ty, rank, verbose);
    }
    int64_t letters = bad_letters(gctx);
    int64_t v[TALLY + 1];
    memcpy(v, &ty, sizeof ty);
    v[TALLY] = letters;
    MPI_Allreduce(MPI_IN_PLACE, v, TALLY + 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    memcpy(&ty, v, sizeof ty);
    bool ok = ty.vs_oracle == 0 && ty.vs_scalapack == 0 && ty.a_changed == 0 &&
              ty.status == 0 && v[TALLY] == 0;
    if (rank == 0)
        printf("test_tran: %d ranks, %lld tran + %lld trmr2d cases (%lld with NaN in C, %lld "
               "rank-results compared with ScaLAPACK): mismatches vs oracle %lld, vs ScaLAPACK "
               "%lld, A changed %lld, bad status %lld, bad-letter checks %lld: %s\n", R,
               (long long)ty.tran, (long long)ty.trmr, (long long)ty.nan_cases,
               (long long)ty.compared, (long long)ty.vs_oracle, (long long)ty.vs_scalapack,
               (long long)ty.a_changed, (long long)ty.status, (long long)v[TALLY],
               ok ? "ok" : "FAIL");
    Cblacs_gridexit(gctx);
    Cblacs_exit(1);
    MPI_Finalize();
    return ok ? 0 : 1;
}
