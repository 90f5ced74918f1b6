// The op kernel itself (lib/matrix/copy_op.c, nt_copy_op_2d()): transposed blocks of every
// type against a per-element oracle, bit for bit, over the geometries that pick its paths
// (8 x 8 register transposes, the AVX2 stripes, streamed lines, the element-by-element edges):
// blocks of 1..130 and of 512 x 512, leading dimensions longer than the block, targets starting
// off a line, trapezoids, with and without streaming, on every instruction set the cpu offers
// and on the portable one. Everything of B outside the block (its padding rows, the memory
// before and after) is compared bit for bit with what it held; beta = 0 runs into a B of NaN.
// The oracle does the kernel's arithmetic in C (a product, then a sum; complex products as
// (ar*xr - ai*xi, ar*xi + ai*xr)), so results are compared exactly.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_copy_op.h"
#include "nt_core.h"
#include "trapezoid_util.h"

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// A value of one real part: uniform in [-1, 1), rounded to float for s and c.
static double part(nt_rng *g, bool single)
{
    double v = (double)(nt_rng_next(g) >> 11) * 0x1p-52 - 1.0;
    return single ? (double)(float)v : v;
}

// Element e of type t with parts re, im (im ignored for the real types).
static void put(nt_dtype t, void *e, double re, double im)
{
    float f[2] = {(float)re, (float)im};
    double d[2] = {re, im};
    bool single = t == NT_DTYPE_S || t == NT_DTYPE_C;
    memcpy(e, single ? (void *)f : (void *)d, nt_dtype_size(t));
}

static void get(nt_dtype t, const void *e, double *re, double *im)
{
    float f[2] = {0, 0};
    double d[2] = {0, 0};
    if (t == NT_DTYPE_S || t == NT_DTYPE_C) {
        memcpy(f, e, nt_dtype_size(t));
        *re = f[0];
        *im = f[1];
    } else {
        memcpy(d, e, nt_dtype_size(t));
        *re = d[0];
        *im = d[1];
    }
}

// The oracle of one element in the type's own precision: alpha*op(a) + beta*b, with
// combine_*()'s order of operations; beta = 0 never reads b, alpha = 0 never reads a;
// alpha = 1, beta = 0 without conjugation moves a's bits.
static void oracle(const nt_plan_op_t *op, nt_dtype t, const void *a, const void *b, void *out)
{
    size_t es = nt_dtype_size(t);
    bool cplx = t == NT_DTYPE_C || t == NT_DTYPE_Z, single = t == NT_DTYPE_S || t == NT_DTYPE_C;
    bool conj = op->op == NT_OP_C && cplx, beta0 = op->beta_re == 0 && op->beta_im == 0;
    bool alpha0 = op->alpha_re == 0 && op->alpha_im == 0;
    if (op->alpha_re == 1 && op->alpha_im == 0 && beta0 && !conj) {
        memcpy(out, a, es);
        return;
    }
    double xr, xi, dr = 0, di = 0;
    get(t, a, &xr, &xi);
    if (!beta0)
        get(t, b, &dr, &di);
    if (single) {
        float ar = (float)op->alpha_re, ai = (float)op->alpha_im, br = (float)op->beta_re;
        float bi = (float)op->beta_im, fxr = (float)xr, fxi = conj ? -(float)xi : (float)xi;
        float fdr = (float)dr, fdi = (float)di, rr = 0, ri = 0;
        if (!cplx) {
            rr = alpha0 ? 0.0f : ar * fxr;
            rr = beta0 ? rr : alpha0 ? br * fdr : rr + br * fdr;
        } else {
            if (!alpha0) {
                rr = ar * fxr - ai * fxi;
                ri = ar * fxi + ai * fxr;
            }
            if (!beta0) {
                rr += br * fdr - bi * fdi;
                ri += br * fdi + bi * fdr;
            }
        }
        put(t, out, rr, ri);
        return;
    }
    double ar = op->alpha_re, ai = op->alpha_im, br = op->beta_re, bi = op->beta_im;
    double rr = 0, ri = 0;
    xi = conj ? -xi : xi;
    if (!cplx) {
        rr = alpha0 ? 0.0 : ar * xr;
        rr = beta0 ? rr : alpha0 ? br * dr : rr + br * dr;
    } else {
        if (!alpha0) {
            rr = ar * xr - ai * xi;
            ri = ar * xi + ai * xr;
        }
        if (!beta0) {
            rr += br * dr - bi * di;
            ri += br * di + bi * dr;
        }
    }
    put(t, out, rr, ri);
}

typedef struct kcase {
    nt_dtype t;
    nt_plan_op_t op;
    int64_t rows, cols; // B's block (A's is cols x rows)
    int64_t ldd, lds;   // elements
    int64_t off;        // elements from a 64-byte boundary to B's block
    int64_t m, n;       // the submatrix, for the trapezoid
    int64_t x0, y0;     // the block's first element in it
    bool stream, nan;   // NT_COPY_STREAM; B's block full of NaN (beta = 0)
} kcase;

// Run one case through nt_copy_op_2d() and compare every byte of B's buffer; returns the
// number of wrong elements (the first one logged).
static int64_t run_kernel_case(nt_rng *g, const kcase *c)
{
    nt_dtype t = c->t;
    size_t es = nt_dtype_size(t);
    bool single = t == NT_DTYPE_S || t == NT_DTYPE_C;
    int64_t guard = 19;                                  // elements after B's last column
    int64_t bn = c->off + c->ldd * c->cols + guard;      // B's buffer, elements
    int64_t an = c->lds * c->rows;                       // A's, elements (A is cols x rows)
    char *B = aligned_alloc(64, (size_t)((bn * (int64_t)es + 63) / 64 * 64));
    char *B0 = malloc((size_t)bn * es), *A = malloc((size_t)an * es + 8);
    cr_assert(B && B0 && A);
    char *a = A + 8 * (an % 2); // A at an 8-byte offset half the time: unaligned loads
    for (int64_t e = 0; e < bn; e++)
        put(t, B0 + e * (int64_t)es, part(g, single), part(g, single));
    for (int64_t e = 0; e < an; e++)
        put(t, a + e * (int64_t)es, part(g, single), part(g, single));
    char *b = B + c->off * (int64_t)es;
    if (c->nan)
        for (int64_t j = 0; j < c->cols; j++)
            for (int64_t i = 0; i < c->rows; i++)
                put(t, B0 + (c->off + j * c->ldd + i) * (int64_t)es, NAN, NAN);
    memcpy(B, B0, (size_t)bn * es);
    nt_copy_op k;
    nt_copy_op_init(&k, &c->op, t, es, c->m, c->n);
    nt_copy_op_2d(&k, b, c->ldd, a, c->lds, c->rows, c->cols, c->x0, c->y0,
                  c->stream ? NT_COPY_STREAM : 0);
    int64_t bad = 0;
    bool unit = c->op.diag == NT_DIAG_UNIT;
    for (int64_t e = 0; e < bn; e++) {
        int64_t r = e - c->off, j = r >= 0 ? r / c->ldd : -1, i = r >= 0 ? r % c->ldd : -1;
        const char *old = B0 + e * (int64_t)es;
        unsigned char want[16];
        bool in = j >= 0 && j < c->cols && i < c->rows &&
                  kept(c->op.uplo, unit, c->x0 + i, c->y0 + j, c->m, c->n);
        if (in)
            oracle(&c->op, t, a + (i * c->lds + j) * (int64_t)es, old, want);
        else
            memcpy(want, old, es);
        if (memcmp(want, B + e * (int64_t)es, es) && bad++ == 0)
            cr_log_error("%s element (%lld, %lld) of %lldx%lld (ldd %lld, lds %lld, offset "
                         "%lld) wrong", in ? "computed" : "untouched", (long long)i,
                         (long long)j, (long long)c->rows, (long long)c->cols,
                         (long long)c->ldd, (long long)c->lds, (long long)c->off);
    }
    free(B);
    free(B0);
    free(A);
    return bad;
}

static const int64_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 40, 64, 67, 130};

// A random transposed case of type t: geometry from the sizes above, leading dimensions as
// long or longer (sometimes whole lines, so that streaming applies), a target off a line
// boundary a third of the time, real or complex scalars with 0 and 1 among them.
static kcase random_kcase(nt_rng *g, nt_dtype t)
{
    static const double reals[] = {2.0, -1.5, 1.0, 0.0, 0.5};
    bool cplx = t == NT_DTYPE_C || t == NT_DTYPE_Z;
    size_t es = nt_dtype_size(t);
    int64_t per = 64 / (int64_t)es, ns = (int64_t)(sizeof sizes / sizeof *sizes);
    kcase c = {.t = t, .op = NT_PLAN_OP_INIT};
    c.op.op = cplx && rnd(g, 0, 1) ? NT_OP_C : NT_OP_T;
    c.op.alpha_re = reals[rnd(g, 0, 4)];
    c.op.beta_re = rnd(g, 0, 1) ? 0.0 : reals[rnd(g, 0, 4)];
    if (cplx && rnd(g, 0, 2) == 0)
        c.op.alpha_im = -0.75;
    if (cplx && c.op.beta_re != 0 && rnd(g, 0, 2) == 0)
        c.op.beta_im = 1.25;
    c.rows = sizes[rnd(g, 0, ns - 1)];
    c.cols = sizes[rnd(g, 0, ns - 1)];
    c.ldd = c.rows + (rnd(g, 0, 1) ? rnd(g, 0, 9) : 0);
    if (rnd(g, 0, 1))
        c.ldd = (c.ldd + per - 1) / per * per; // whole lines per column
    c.lds = c.cols + (rnd(g, 0, 1) ? rnd(g, 0, 9) : 0);
    c.off = rnd(g, 0, 2) == 0 ? rnd(g, 1, per - 1) : 0;
    c.m = c.rows;
    c.n = c.cols;
    if (rnd(g, 0, 4) == 0) { // a trapezoid: the block inside a larger submatrix
        c.op.uplo = rnd(g, 0, 1) ? NT_UPLO_UPPER : NT_UPLO_LOWER;
        c.op.diag = rnd(g, 0, 1) ? NT_DIAG_UNIT : NT_DIAG_NONUNIT;
        c.x0 = rnd(g, 0, 20);
        c.y0 = rnd(g, 0, 20);
        c.m = c.x0 + c.rows + rnd(g, 0, 20);
        c.n = c.y0 + c.cols + rnd(g, 0, 20);
    }
    c.stream = rnd(g, 0, 1);
    c.nan = c.op.beta_re == 0 && c.op.beta_im == 0 && rnd(g, 0, 1);
    return c;
}

static void random_cases(nt_dtype t, int isa)
{
    nt_copy_op_test_isa(isa);
    nt_rng g = {1000u + (uint64_t)t * 10u + (uint64_t)(isa + 1)};
    for (int it = 0; it < 400; it++) {
        kcase c = random_kcase(&g, t);
        int64_t bad = run_kernel_case(&g, &c);
        cr_assert_eq(bad, 0, "%s isa %d case %d: %lld wrong (op %d alpha %g%+gi beta %g%+gi "
                     "uplo %d, %lldx%lld, ldd %lld lds %lld off %lld, stream %d nan %d)",
                     nt_dtype_name(t), isa, it, (long long)bad, (int)c.op.op, c.op.alpha_re,
                     c.op.alpha_im, c.op.beta_re, c.op.beta_im, (int)c.op.uplo, (long long)c.rows,
                     (long long)c.cols, (long long)c.ldd, (long long)c.lds, (long long)c.off,
                     c.stream, c.nan);
    }
    nt_copy_op_test_isa(-1);
}

Test(copy_op, transposed_doubles_match_the_oracle_bit_for_bit)
{
    random_cases(NT_DTYPE_D, -1);
    random_cases(NT_DTYPE_D, 1);
    random_cases(NT_DTYPE_D, 0);
}

Test(copy_op, transposed_complex_doubles_match_the_oracle_bit_for_bit)
{
    random_cases(NT_DTYPE_Z, -1);
    random_cases(NT_DTYPE_Z, 1);
    random_cases(NT_DTYPE_Z, 0);
}

Test(copy_op, transposed_singles_match_the_oracle_bit_for_bit)
{
    random_cases(NT_DTYPE_S, -1);
    random_cases(NT_DTYPE_C, -1);
    random_cases(NT_DTYPE_S, 1);
    random_cases(NT_DTYPE_C, 1);
    random_cases(NT_DTYPE_S, 0);
    random_cases(NT_DTYPE_C, 0);
}

// The benchmark's geometry: whole 512 x 512 tiles on whole lines, streamed (beta = 0, B of
// NaN) and read (beta = 0.5), real types with alpha 2 and complex ones conjugated with a
// complex alpha, on every instruction set; also a 512 x 512 block at an odd offset and leading
// dimensions.
Test(copy_op, tiles_of_512_match_the_oracle_bit_for_bit)
{
    static const nt_dtype types[] = {NT_DTYPE_D, NT_DTYPE_Z, NT_DTYPE_S, NT_DTYPE_C};
    nt_rng g = {512};
    static const int isas[] = {-1, 1, 0}; // all the cpu has (AVX-512 here?), AVX2, portable
    for (int x = 0; x < 3; x++) {
        int isa = isas[x];
        nt_copy_op_test_isa(isa);
        for (int z = 0; z < 4; z++)
            for (int beta = 0; beta < 2; beta++)
                for (int odd = 0; odd < 2; odd++) {
                    bool cplx = types[z] == NT_DTYPE_Z || types[z] == NT_DTYPE_C;
                    kcase c = {.t = types[z], .op = NT_PLAN_OP_INIT, .rows = 512, .cols = 512,
                               .ldd = odd ? 515 : 512, .lds = odd ? 517 : 512, .off = odd ? 3 : 0,
                               .m = 512, .n = 512, .stream = true, .nan = !beta};
                    c.op.op = cplx ? NT_OP_C : NT_OP_T;
                    c.op.alpha_re = 2;
                    c.op.alpha_im = cplx ? 0.5 : 0;
                    c.op.beta_re = beta ? 0.5 : 0;
                    int64_t bad = run_kernel_case(&g, &c);
                    cr_assert_eq(bad, 0, "isa %d %s beta %d odd %d: %lld wrong", isa,
                                 nt_dtype_name(types[z]), beta, odd, (long long)bad);
                }
    }
    nt_copy_op_test_isa(-1);
}

// The kernels the tests above name are the ones that run: each cap gives the best instruction
// set at or below it that the cpu has, so the random cases above reach the AVX-512 and AVX2
// kernels on a cpu that has them.
Test(copy_op, the_instruction_set_follows_the_cap_and_the_cpu)
{
    nt_plan_op_t op = NT_PLAN_OP_INIT;
    op.op = NT_OP_T;
    int best = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    best = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    static const int caps[] = {-1, 0, 1, 2};
    for (int x = 0; x < 4; x++) {
        nt_copy_op_test_isa(caps[x]);
        nt_copy_op k;
        nt_copy_op_init(&k, &op, NT_DTYPE_D, 8, 16, 16);
        int want = caps[x] < 0 || caps[x] > best ? best : caps[x];
        cr_assert_eq(nt_copy_op_isa(&k), want, "cap %d: isa %d, want %d", caps[x],
                     nt_copy_op_isa(&k), want);
    }
    nt_copy_op_test_isa(-1);
}
