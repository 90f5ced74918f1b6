// Plans with an operation (nt_plan_create_op()): B = beta*B + alpha*op(A) on random geometries
// (tile sizes, maps, layouts, submatrices), all four types, every op, scalars 0, 1, real and
// complex, trapezoids of both kinds with and without their diagonal. Oracle: every element of
// B recomputed from the source's element values with C's complex arithmetic and the trapezoid
// rule of ScaLAPACK's p?trmr2d (written here from its definition), the untouched elements
// compared with what B held before, bit for bit; beta = 0 into a B full of NaN.
#include <complex.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/matrix/nt_copy.h"
#include "numatile.h"
#include "nt_core.h"
#include "trapezoid_util.h"

#ifdef __SANITIZE_ADDRESS__
#define NCASES 60
#else
#define NCASES 300
#endif

static nt_topo_t *topos[5];

static void setup(void)
{
    for (int d = 1; d <= 4; d++) {
        nt_topo_opts_t o = {.domains = d};
        cr_assert_eq(nt_topo_load(&o, &topos[d]), NT_OK, "%s", nt_last_error());
    }
}

static void teardown(void)
{
    for (int d = 1; d <= 4; d++)
        nt_topo_destroy(topos[d]);
}

TestSuite(redist_op, .init = setup, .fini = teardown);

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

static bool is_cplx(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z;
}

// Element (r, c) of a matrix filled under `seed`: parts in [-1, 1), rounded to the type.
static double complex val(nt_dtype t, uint64_t seed, int64_t r, int64_t c)
{
    nt_rng g = {seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)(r * 100003 + c)};
    double re = (double)(nt_rng_next(&g) >> 11) * 0x1p-52 - 1.0;
    double im = (double)(nt_rng_next(&g) >> 11) * 0x1p-52 - 1.0;
    if (t == NT_DTYPE_S || t == NT_DTYPE_C) {
        re = (float)re;
        im = (float)im;
    }
    return is_cplx(t) ? CMPLX(re, im) : CMPLX(re, 0.0);
}

static void put(nt_dtype t, void *e, double complex v)
{
    float f[2] = {(float)creal(v), (float)cimag(v)};
    double d[2] = {creal(v), cimag(v)};
    memcpy(e, t == NT_DTYPE_S || t == NT_DTYPE_C ? (void *)f : (void *)d, nt_dtype_size(t));
}

static double complex get(nt_dtype t, const void *e)
{
    float f[2] = {0, 0};
    double d[2] = {0, 0};
    if (t == NT_DTYPE_S || t == NT_DTYPE_C) {
        memcpy(f, e, nt_dtype_size(t));
        return CMPLX(f[0], f[1]);
    }
    memcpy(d, e, nt_dtype_size(t));
    return CMPLX(d[0], d[1]);
}

typedef struct fill {
    nt_dtype t;
    uint64_t seed;
    bool nan;
} fill;

static void fill_fn(int64_t r, int64_t c, void *e, size_t es, void *arg)
{
    const fill *f = arg;
    (void)es;
    put(f->t, e, f->nan ? CMPLX(NAN, NAN) : val(f->t, f->seed, r, c));
}

typedef struct op_case {
    nt_plan_op_t op;
    nt_dtype t;
    nt_sub_t s;
    bool placed, nan;
    uint64_t seed;
} op_case;

// Every element of T against the oracle; returns the count of wrong ones (and says the first).
static int64_t check_all(const op_case *k, const nt_matrix_t *S, const nt_matrix_t *T)
{
    int64_t bad = 0;
    double eps = k->t == NT_DTYPE_S || k->t == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON;
    double complex alpha = CMPLX(k->op.alpha_re, k->op.alpha_im);
    double complex beta = CMPLX(k->op.beta_re, k->op.beta_im);
    bool tr = k->op.op != NT_OP_N;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t r = 0; r < T->m; r++) {
            const void *e = nt_matrix_elem(T, r, c);
            int64_t x = r - k->s.dst_row, y = c - k->s.dst_col;
            bool in = x >= 0 && x < k->s.rows && y >= 0 && y < k->s.cols &&
                      kept(k->op.uplo, k->op.diag == NT_DIAG_UNIT, x, y, k->s.rows, k->s.cols);
            if (!in) { // untouched: bit for bit what B held (NaN included)
                unsigned char want[16] = {0};
                if (k->placed)
                    put(k->t, want, k->nan ? CMPLX(NAN, NAN) : val(k->t, k->seed + 1, r, c));
                if (memcmp(want, e, T->elem_size) && bad++ == 0)
                    cr_log_error("untouched (%lld,%lld) changed", (long long)r, (long long)c);
                continue;
            }
            double complex a = get(k->t, nt_matrix_elem(S, k->s.src_row + (tr ? y : x),
                                                        k->s.src_col + (tr ? x : y)));
            if (k->op.op == NT_OP_C)
                a = conj(a);
            double complex b0 = k->placed && !k->nan ? val(k->t, k->seed + 1, r, c) : 0;
            double complex want = (k->op.alpha_re == 0 && k->op.alpha_im == 0 ? 0 : alpha * a) +
                                  (k->op.beta_re == 0 && k->op.beta_im == 0 ? 0 : beta * b0);
            double mag = cabs(alpha) * cabs(a) + cabs(beta) * cabs(b0);
            double complex got = get(k->t, e);
            if (!(cabs(got - want) <= 8 * eps * mag) && bad++ == 0)
                cr_log_error("(%lld,%lld): got %g%+gi, want %g%+gi", (long long)r,
                             (long long)c, creal(got), cimag(got), creal(want), cimag(want));
        }
    return bad;
}

static const char *spec_for(nt_rng *g, int D, char *buf, size_t len)
{
    int p = (int)rnd(g, 1, D), q = (int)rnd(g, 1, D / p);
    if (rnd(g, 0, 2) == 0)
        snprintf(buf, len, "random:%d", (int)rnd(g, 0, 99));
    else
        snprintf(buf, len, "bc2d:%dx%d", p, q);
    return buf;
}

static nt_matrix_t *make(nt_rng *g, int D, int64_t m, int64_t n, int64_t mb, int64_t nb,
                         nt_dtype t, unsigned flags)
{
    nt_matrix_shape_t sh = {m, n, mb, nb, nt_dtype_size(t)};
    char spec[64];
    spec_for(g, D, spec, sizeof spec);
    nt_layout lay = rnd(g, 0, 2) == 0 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
    nt_matrix_t *A = NULL;
    int nd = spec[0] == 'r' ? D : 0; // random maps take the domain count, grids say theirs
    nt_status st = nt_matrix_create_spec(topos[D], &sh, spec, nd, lay, flags, &A);
    if (st == NT_EINVAL && lay == NT_LAYOUT_SCALAPACK)
        st = nt_matrix_create_spec(topos[D], &sh, spec, nd, NT_LAYOUT_TILE, flags, &A);
    cr_assert_eq(st, NT_OK, "%s: %s", spec, nt_last_error());
    cr_assert_eq(nt_matrix_set_dtype(A, t), NT_OK);
    return A;
}

// A scalar for the case: 0, 1, -1, 2.5 or (complex types) a complex one.
static void scalar(nt_rng *g, nt_dtype t, double *re, double *im)
{
    static const double reals[] = {0, 1, -1, 2.5};
    *im = 0;
    int64_t k = rnd(g, 0, is_cplx(t) ? 4 : 3);
    if (k == 4) {
        *re = 0.5;
        *im = -1.5;
    } else {
        *re = reals[k];
    }
}

// A random case: geometry, type, operation, and whether B is placed (filled, or NaN).
static op_case random_case(nt_rng *g, int64_t big)
{
    op_case k = {.seed = (uint64_t)rnd(g, 1, 1 << 20)};
    k.t = (nt_dtype)rnd(g, NT_DTYPE_S, NT_DTYPE_Z);
    k.op = (nt_plan_op_t)NT_PLAN_OP_INIT;
    k.op.op = (nt_op)rnd(g, NT_OP_N, NT_OP_C);
    scalar(g, k.t, &k.op.alpha_re, &k.op.alpha_im);
    scalar(g, k.t, &k.op.beta_re, &k.op.beta_im);
    k.op.uplo = (nt_uplo)rnd(g, NT_UPLO_ALL, NT_UPLO_LOWER);
    k.op.diag = k.op.uplo != NT_UPLO_ALL && rnd(g, 0, 1) ? NT_DIAG_UNIT : NT_DIAG_NONUNIT;
    bool beta0 = k.op.beta_re == 0 && k.op.beta_im == 0;
    k.placed = !beta0 || rnd(g, 0, 1);
    k.nan = k.placed && beta0 && rnd(g, 0, 1);
    k.s.rows = rnd(g, 1, big);
    k.s.cols = rnd(g, 1, big);
    return k;
}

// Run one case end to end on D domains and check it; the matrices are sized around the
// submatrix with random offsets, tile sizes 1..maxtile.
static void run_case(nt_rng *g, op_case *k, int64_t maxtile)
{
    int D = (int)rnd(g, 1, 4);
    bool tr = k->op.op != NT_OP_N;
    k->s.src_row = rnd(g, 0, 5);
    k->s.src_col = rnd(g, 0, 5);
    k->s.dst_row = rnd(g, 0, 5);
    k->s.dst_col = rnd(g, 0, 5);
    int64_t sm = k->s.src_row + (tr ? k->s.cols : k->s.rows) + rnd(g, 0, 4);
    int64_t sn = k->s.src_col + (tr ? k->s.rows : k->s.cols) + rnd(g, 0, 4);
    int64_t tm = k->s.dst_row + k->s.rows + rnd(g, 0, 4);
    int64_t tn = k->s.dst_col + k->s.cols + rnd(g, 0, 4);
    nt_matrix_t *S = make(g, D, sm, sn, rnd(g, 1, maxtile), rnd(g, 1, maxtile), k->t, 0);
    nt_matrix_t *T = make(g, D, tm, tn, rnd(g, 1, maxtile), rnd(g, 1, maxtile), k->t,
                          k->placed ? 0 : NT_MATRIX_NOALLOC);
    fill fs = {k->t, k->seed, false}, ft = {k->t, k->seed + 1, k->nan};
    cr_assert_eq(nt_matrix_fill(S, fill_fn, &fs), NT_OK);
    if (k->placed)
        cr_assert_eq(nt_matrix_fill(T, fill_fn, &ft), NT_OK);
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create_op(S, T, &k->s, NULL, &k->op, &p), NT_OK, "%s", nt_last_error());
    nt_exec_opts_t eo = {.threads_per_domain = (int)rnd(g, 1, 2)};
    cr_assert_eq(nt_plan_execute(p, S, T, &eo, NULL), NT_OK, "%s", nt_last_error());
    int64_t bad = check_all(k, S, T);
    cr_assert_eq(bad, 0, "%lld wrong: type %s op %d alpha %g%+gi beta %g%+gi uplo %d diag %d, "
                 "sub %lldx%lld, %s B%s", (long long)bad, nt_dtype_name(k->t), (int)k->op.op,
                 k->op.alpha_re, k->op.alpha_im, k->op.beta_re, k->op.beta_im, (int)k->op.uplo,
                 (int)k->op.diag, (long long)k->s.rows, (long long)k->s.cols,
                 k->placed ? "placed" : "fresh", k->nan ? " of NaN" : "");
    // The source is intact.
    int64_t changed = 0;
    for (int64_t c = 0; c < S->n; c++)
        for (int64_t r = 0; r < S->m; r++) {
            unsigned char want[16];
            put(k->t, want, val(k->t, k->seed, r, c));
            changed += memcmp(want, nt_matrix_elem(S, r, c), S->elem_size) != 0;
        }
    cr_assert_eq(changed, 0);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

Test(redist_op, random_cases_match_the_oracle)
{
    nt_rng g = {4242};
    for (int it = 0; it < NCASES; it++) {
        op_case k = random_case(&g, 40);
        run_case(&g, &k, 12);
    }
}

// Larger tiles: the 8 x 8 register path of transposed doubles and the streamed lines (every
// execution streams under the test hook).
Test(redist_op, large_tiles_and_streaming_match_the_oracle)
{
    nt_copy_test_stream_above(0);
    nt_rng g = {77};
    for (int it = 0; it < NCASES / 10; it++) {
        op_case k = random_case(&g, 150);
        if (it % 2 == 0)
            k.t = NT_DTYPE_D; // the register path (alpha real)
        if (k.t == NT_DTYPE_D) {
            k.op.alpha_im = k.op.beta_im = 0;
        }
        run_case(&g, &k, 70);
    }
    nt_copy_test_stream_above(-1);
}

// beta = 0 never reads B: a target full of NaN (also +-Inf) comes out finite in the
// submatrix, for every type and op, also with alpha = 0 (B = 0 there).
Test(redist_op, beta_zero_never_reads_the_target)
{
    nt_rng g = {9};
    for (int t = NT_DTYPE_S; t <= NT_DTYPE_Z; t++)
        for (int o = NT_OP_N; o <= NT_OP_C; o++)
            for (int a = 0; a < 3; a++) {
                op_case k = {.seed = (uint64_t)(t * 10 + o), .t = (nt_dtype)t,
                             .op = NT_PLAN_OP_INIT, .placed = true, .nan = true,
                             .s = {.rows = 37, .cols = 23}};
                k.op.op = (nt_op)o;
                k.op.alpha_re = a == 0 ? 0.0 : a == 1 ? 1.0 : -3.0;
                run_case(&g, &k, 16);
            }
}

// Untyped elements of any size can be transposed (moved, not computed): sizes that do not
// divide a line, and larger than one.
Test(redist_op, untyped_elements_transpose_byte_for_byte)
{
    static const size_t sizes[] = {1, 3, 8, 24, 100};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t es = sizes[z];
        nt_matrix_shape_t ss = {29, 41, 7, 5, es}, ts = {41, 29, 6, 9, es};
        nt_matrix_t *S = NULL, *T = NULL;
        cr_assert_eq(nt_matrix_create_spec(topos[2], &ss, "bc2d:2x1", 2, NT_LAYOUT_TILE, 0, &S),
                     NT_OK);
        cr_assert_eq(nt_matrix_create_spec(topos[2], &ts, "random:3", 2, NT_LAYOUT_TILE,
                                           NT_MATRIX_NOALLOC, &T), NT_OK);
        cr_assert_eq(nt_matrix_fill_pattern(S, 11), NT_OK);
        nt_plan_op_t op = NT_PLAN_OP_INIT;
        op.op = NT_OP_T;
        nt_plan_t *p = NULL;
        cr_assert_eq(nt_plan_create_op(S, T, NULL, NULL, &op, &p), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_plan_execute(p, S, T, NULL, NULL), NT_OK, "%s", nt_last_error());
        int64_t bad = 0;
        for (int64_t c = 0; c < T->n; c++)
            for (int64_t r = 0; r < T->m; r++)
                bad += memcmp(nt_matrix_elem(T, r, c), nt_matrix_elem(S, c, r), es) != 0;
        cr_assert_eq(bad, 0, "element size %zu: %lld wrong", es, (long long)bad);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

// The plain copy through nt_plan_create_op() is nt_plan_create()'s plan (periodic when the
// layouts allow), and an operation never is.
Test(redist_op, the_plain_copy_is_the_copy_plan)
{
    nt_matrix_shape_t sh = {64, 64, 8, 8, 8};
    nt_matrix_t *S = NULL, *T = NULL;
    cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, "bc2d:2x2", 4, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topos[4], &sh, "bc2d:4x1", 4, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_op_t copy = NT_PLAN_OP_INIT, tr = NT_PLAN_OP_INIT;
    tr.op = NT_OP_T;
    nt_plan_t *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &a), NT_OK);
    cr_assert_eq(nt_plan_create_op(S, T, NULL, NULL, &copy, &b), NT_OK);
    cr_assert_eq(nt_plan_create_op(S, T, NULL, NULL, &tr, &c), NT_OK);
    nt_plan_info_t ia, ib, ic;
    nt_plan_info(a, &ia);
    nt_plan_info(b, &ib);
    nt_plan_info(c, &ic);
    cr_assert(ia.periodic && ib.periodic && !ic.periodic);
    cr_assert_eq(ia.segments, ib.segments);
    cr_assert_eq(memcmp(nt_plan_pair_bytes(a), nt_plan_pair_bytes(b), 16 * sizeof(int64_t)), 0);
    // The transposed plan's bytes per pair, summed over its segments, against a count by
    // element: source (r, c) goes to target (c, r).
    int64_t want[16] = {0};
    for (int64_t r = 0; r < 64; r++)
        for (int64_t col = 0; col < 64; col++)
            want[S->owner[(r / 8) * S->nt + col / 8] * 4 + T->owner[(col / 8) * T->nt + r / 8]] +=
                8;
    cr_assert_eq(memcmp(nt_plan_pair_bytes(c), want, sizeof want), 0);
    nt_plan_destroy(a);
    nt_plan_destroy(b);
    nt_plan_destroy(c);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// Bad operations are refused with a message naming the field; executors that cannot apply one
// refuse it and leave both matrices as they were.
Test(redist_op, bad_operations_are_refused)
{
    nt_matrix_shape_t sh = {16, 16, 4, 4, 8};
    nt_matrix_t *S = NULL, *T = NULL, *U = NULL, *F = NULL;
    cr_assert_eq(nt_matrix_create_spec(topos[2], &sh, "bc2d:2x1", 2, NT_LAYOUT_TILE, 0, &S),
                 NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topos[2], &sh, "bc2d:1x2", 2, NT_LAYOUT_TILE, 0, &T),
                 NT_OK);
    cr_assert_eq(nt_matrix_create_spec(topos[2], &sh, "bc2d:1x2", 2, NT_LAYOUT_TILE, 0, &U),
                 NT_OK);
    nt_matrix_shape_t fs = {16, 16, 4, 4, 4};
    cr_assert_eq(nt_matrix_create_spec(topos[2], &fs, "bc2d:1x2", 2, NT_LAYOUT_TILE, 0, &F),
                 NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(S, NT_DTYPE_D), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(T, NT_DTYPE_D), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(F, NT_DTYPE_S), NT_OK);
    struct { nt_plan_op_t op; const nt_matrix_t *dst; const char *word; } bad[] = {
        {{(nt_op)3, 1, 0, 0, 0, NT_UPLO_ALL, NT_DIAG_NONUNIT}, T, "op->op"},
        {{NT_OP_N, 1, 0, 0, 0, (nt_uplo)7, NT_DIAG_NONUNIT}, T, "op->uplo"},
        {{NT_OP_N, 1, 0, 0, 0, NT_UPLO_UPPER, (nt_diag)-1}, T, "op->diag"},
        {{NT_OP_N, 1, 2, 0, 0, NT_UPLO_ALL, NT_DIAG_NONUNIT}, T, "alpha_im"},
        {{NT_OP_T, 1, 0, 0, 1, NT_UPLO_ALL, NT_DIAG_NONUNIT}, T, "beta_im"},
        {{NT_OP_N, 2, 0, 0, 0, NT_UPLO_ALL, NT_DIAG_NONUNIT}, U, "type"},
        {{NT_OP_T, 2, 0, 0, 0, NT_UPLO_ALL, NT_DIAG_NONUNIT}, F, "type"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        nt_plan_t *p = (nt_plan_t *)&bad; // must stay untouched
        nt_status st = nt_plan_create_op(S, bad[k].dst, NULL, NULL, &bad[k].op, &p);
        cr_assert_eq(st, NT_EINVAL, "case %zu", k);
        cr_assert_eq(p, (nt_plan_t *)&bad, "case %zu: out written", k);
        cr_assert(strstr(nt_last_error(), bad[k].word), "case %zu: '%s' lacks '%s'", k,
                  nt_last_error(), bad[k].word);
    }
    // A transposed submatrix must fit the source transposed: 10 x 3 of B reads 3 x 10 of A.
    nt_plan_op_t tr = NT_PLAN_OP_INIT;
    tr.op = NT_OP_T;
    nt_plan_t *p = NULL;
    nt_sub_t sub = {10, 3, 14, 0, 0, 0}; // A rows 14..16 do not exist
    cr_assert_eq(nt_plan_create_op(S, T, &sub, NULL, &tr, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "transposed"), "%s", nt_last_error());
    sub.src_row = 13;
    cr_assert_eq(nt_plan_create_op(S, T, &sub, NULL, &tr, &p), NT_OK, "%s", nt_last_error());
    // In place and move mode cannot apply it: refused before anything is touched.
    cr_assert_eq(nt_matrix_fill_pattern(T, 3), NT_OK);
    nt_exec_opts_t inplace = {.inplace = true}, move = {.mode = NT_EXEC_MOVE};
    cr_assert_eq(nt_plan_execute(p, S, T, &inplace, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "in place"), "%s", nt_last_error());
    cr_assert_eq(nt_plan_execute(p, S, T, &move, NULL), NT_ENOTSUP);
    cr_assert(strstr(nt_last_error(), "move"), "%s", nt_last_error());
    int64_t changed;
    cr_assert_eq(nt_matrix_check_pattern(T, 3, 0, 0, 16, 16, 0, 0, &changed), NT_OK);
    cr_assert_eq(changed, 0);
    cr_assert(S->allocated);
    // NULL arguments.
    cr_assert_eq(nt_plan_create_op(NULL, T, NULL, NULL, &tr, &p), NT_EINVAL);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_matrix_destroy(U);
    nt_matrix_destroy(F);
}

// Wrapped application arrays (NT_LAYOUT_LAPACK, numatile/wrap.h) on both sides: the LAPACK
// arrays themselves checked against the oracle, B = 0.5 B - 2 A^T, with a submatrix.
Test(redist_op, wrapped_lapack_arrays)
{
    enum { M = 45, N = 33, LDA = 50, LDB = 37 };
    static double a[LDA * N], b[LDB * M];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < LDA; i++)
            a[i + j * LDA] = i < M ? 0.25 * i - 0.5 * j : NAN; // padding never read
    for (int j = 0; j < M; j++)
        for (int i = 0; i < LDB; i++)
            b[i + j * LDB] = i + 100.0 * j;
    nt_matrix_shape_t sa = {M, N, 8, 6, 8}, sb = {N, M, 7, 9, 8};
    nt_tilemap_t *ma = NULL, *mb = NULL;
    cr_assert_eq(nt_tilemap_from_spec("bc2d:2x1", (M + 7) / 8, (N + 5) / 6, 0, &ma),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_tilemap_from_spec("bc2d:1x2", (N + 6) / 7, (M + 8) / 9, 0, &mb),
                 NT_OK, "%s", nt_last_error());
    nt_matrix_t *A = NULL, *B = NULL;
    cr_assert_eq(nt_matrix_wrap_lapack(topos[2], &sa, ma, a, LDA, &A), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_matrix_wrap_lapack(topos[2], &sb, mb, b, LDB, &B), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_matrix_set_dtype(A, NT_DTYPE_D), NT_OK);
    cr_assert_eq(nt_matrix_set_dtype(B, NT_DTYPE_D), NT_OK);
    nt_plan_op_t op = NT_PLAN_OP_INIT;
    op.op = NT_OP_T;
    op.alpha_re = -2;
    op.beta_re = 0.5;
    nt_sub_t s = {20, 30, 3, 1, 2, 4}; // 20 x 30 of B at (2,4) from 30 x 20 of A at (3,1)
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create_op(A, B, &s, NULL, &op, &p), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_plan_execute(p, A, B, NULL, NULL), NT_OK, "%s", nt_last_error());
    int bad = 0;
    for (int j = 0; j < M; j++)
        for (int i = 0; i < N; i++) {
            double old = i + 100.0 * j, want = old;
            int x = i - 2, y = j - 4;
            if (x >= 0 && x < 20 && y >= 0 && y < 30)
                want = -2 * (0.25 * (3 + y) - 0.5 * (1 + x)) + 0.5 * old;
            bad += b[i + j * LDB] != want;
        }
    cr_assert_eq(bad, 0);
    for (int j = 0; j < M; j++) // B's padding rows untouched
        for (int i = N; i < LDB; i++)
            cr_assert_eq(b[i + j * LDB], i + 100.0 * j);
    nt_plan_destroy(p);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_tilemap_destroy(ma);
    nt_tilemap_destroy(mb);
}
