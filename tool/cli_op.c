// The operation options of plan and redist (see cli_op.h).
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_op.h"

void cli_op_init(cli_op *o)
{
    *o = (cli_op){.op = NT_PLAN_OP_INIT, .type = NT_DTYPE_NONE};
}

// A scalar: RE or RE,IM.
static bool parse_scalar(const char *s, double *re, double *im)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    char *comma = strchr(buf, ',');
    *im = 0;
    if (comma) {
        *comma = 0;
        if (!cli_parse_double(comma + 1, im))
            return false;
    }
    return cli_parse_double(buf, re);
}

// Index of arg in names (n of them), -1 when absent.
static int pick(const char *arg, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(arg, names[k]))
            return k;
    return -1;
}

int cli_op_option(cli_op *o, const char *cmd, int id, const char *arg)
{
    static const char *const ops[] = {"N", "T", "C"}, *const uplos[] = {"U", "L"};
    static const char *const diags[] = {"N", "U"}, *const types[] = {"s", "d", "c", "z"};
    int k;
    o->given = true;
    switch (id) {
    case CLI_OP_OP:
        if ((k = pick(arg, ops, 3)) < 0)
            return cli_usage(cmd, "--op: '%s' is not N|T|C", arg);
        o->op.op = (nt_op)k;
        return CLI_OK;
    case CLI_OP_ALPHA:
    case CLI_OP_BETA: {
        bool al = id == CLI_OP_ALPHA;
        if (!parse_scalar(arg, al ? &o->op.alpha_re : &o->op.beta_re,
                          al ? &o->op.alpha_im : &o->op.beta_im))
            return cli_usage(cmd, "--%s: '%s' is not a number RE or RE,IM", al ? "alpha" : "beta",
                             arg);
        return CLI_OK;
    }
    case CLI_OP_UPLO:
        if ((k = pick(arg, uplos, 2)) < 0)
            return cli_usage(cmd, "--uplo: '%s' is not U|L", arg);
        o->op.uplo = k ? NT_UPLO_LOWER : NT_UPLO_UPPER;
        return CLI_OK;
    case CLI_OP_DIAG:
        if ((k = pick(arg, diags, 2)) < 0)
            return cli_usage(cmd, "--diag: '%s' is not N|U", arg);
        o->op.diag = (nt_diag)k;
        return CLI_OK;
    default:
        if ((k = pick(arg, types, 4)) < 0)
            return cli_usage(cmd, "--type: '%s' is not s|d|c|z", arg);
        o->type = (nt_dtype)(k + NT_DTYPE_S);
        o->type_given = true;
        return CLI_OK;
    }
}

static bool computes(const cli_op *o)
{
    return o->op.alpha_re != 1 || o->op.alpha_im != 0 || o->op.beta_re != 0 ||
           o->op.beta_im != 0 || o->op.op == NT_OP_C;
}

int cli_op_resolve(cli_op *o, const char *cmd, int64_t *elem, bool elem_given)
{
    if (o->op.diag == NT_DIAG_UNIT && o->op.uplo == NT_UPLO_ALL)
        return cli_usage(cmd, "--diag: only with --uplo U|L");
    if (o->type_given) {
        int64_t es = (int64_t)nt_dtype_size(o->type);
        if (elem_given && *elem != es)
            return cli_usage(cmd, "--type %s has %lld-byte elements, --elem says %lld",
                             nt_dtype_name(o->type), (long long)es, (long long)*elem);
        *elem = es;
        return CLI_OK;
    }
    if (!computes(o))
        return CLI_OK;
    if (*elem != 8)
        return cli_usage(cmd, "--alpha, --beta and --op C compute on typed elements: give "
                         "--type s|d|c|z (--elem %lld has no type)", (long long)*elem);
    o->type = NT_DTYPE_D;
    return CLI_OK;
}

bool cli_op_active(const cli_op *o)
{
    const nt_plan_op_t *p = &o->op;
    return p->op != NT_OP_N || p->uplo != NT_UPLO_ALL || computes(o);
}

bool cli_op_placed(const cli_op *o)
{
    return o->op.beta_re != 0 || o->op.beta_im != 0 || o->op.uplo != NT_UPLO_ALL;
}

// A complex from its parts as C11 lays it out (two doubles): glibc's CMPLX needs the compiler's
// __builtin_complex, which clang 14 (the fuzz build) lacks; re + im * I would turn an infinite
// part into NaNs.
static double complex cplx(double re, double im)
{
    double complex z;
    double *p = (double *)&z;
    p[0] = re;
    p[1] = im;
    return z;
}

// Element (r, c)'s value under the seed: each real part uniform in [-1, 1), from the pattern.
static double complex value(nt_dtype t, uint64_t seed, int64_t r, int64_t c)
{
    uint64_t u[2];
    nt_matrix_pattern_value(seed, r, c, u, sizeof u);
    double re = (double)(u[0] >> 11) * 0x1p-52 - 1.0, im = (double)(u[1] >> 11) * 0x1p-52 - 1.0;
    if (t == NT_DTYPE_S || t == NT_DTYPE_C) {
        re = (float)re;
        im = (float)im;
    }
    return t == NT_DTYPE_S || t == NT_DTYPE_D ? cplx(re, 0.0) : cplx(re, im);
}

static void store(nt_dtype t, void *e, double complex v)
{
    float f[2] = {(float)creal(v), (float)cimag(v)};
    double d[2] = {creal(v), cimag(v)};
    switch (t) {
    case NT_DTYPE_S: memcpy(e, f, 4); break;
    case NT_DTYPE_C: memcpy(e, f, 8); break;
    case NT_DTYPE_D: memcpy(e, d, 8); break;
    default: memcpy(e, d, 16);
    }
}

static double complex load(nt_dtype t, const void *e)
{
    float f[2] = {0, 0};
    double d[2] = {0, 0};
    switch (t) {
    case NT_DTYPE_S: memcpy(f, e, 4); return cplx(f[0], 0.0);
    case NT_DTYPE_C: memcpy(f, e, 8); return cplx(f[0], f[1]);
    case NT_DTYPE_D: memcpy(d, e, 8); return cplx(d[0], 0.0);
    default: memcpy(d, e, 16); return cplx(d[0], d[1]);
    }
}

typedef struct fill_arg {
    nt_dtype t;
    uint64_t seed;
} fill_arg;

static void fill_fn(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    const fill_arg *f = arg;
    (void)es;
    store(f->t, elem, value(f->t, f->seed, r, c));
}

nt_status cli_op_fill(const cli_op *o, nt_matrix_t *A, uint64_t seed)
{
    if (o->type == NT_DTYPE_NONE)
        return nt_matrix_fill_pattern(A, seed);
    nt_status st = nt_matrix_set_dtype(A, o->type);
    fill_arg f = {o->type, seed};
    return st ? st : nt_matrix_fill(A, fill_fn, &f);
}

// Whether submatrix element (x, y) of an m x n submatrix is written (p?trmr2d's trapezoid).
static bool in_trapezoid(const nt_plan_op_t *op, int64_t x, int64_t y, int64_t m, int64_t n)
{
    bool unit = op->diag == NT_DIAG_UNIT;
    if (op->uplo == NT_UPLO_UPPER) {
        int64_t k = m > n ? m - n : 0;
        return unit ? x - y < k : x - y <= k;
    }
    if (op->uplo == NT_UPLO_LOWER) {
        int64_t k = n > m ? n - m : 0;
        return unit ? y - x < k : y - x <= k;
    }
    return true;
}

// The expected value of T(r, c) against the one found; true when they agree.
static bool check_elem(const cli_op *o, const nt_matrix_t *S, const nt_sub_t *s, int64_t r,
                       int64_t c, uint64_t seed, bool placed, const void *got)
{
    nt_dtype t = o->type;
    int64_t x = r - s->dst_row, y = c - s->dst_col;
    bool in = x >= 0 && x < s->rows && y >= 0 && y < s->cols &&
              in_trapezoid(&o->op, x, y, s->rows, s->cols);
    if (t == NT_DTYPE_NONE) { // moved bytes: the transposed source or the untouched target
        unsigned char want[64] = {0};
        size_t es = S->elem_size < sizeof want ? S->elem_size : sizeof want;
        if (in) {
            bool tr = o->op.op != NT_OP_N;
            memcpy(want, nt_matrix_elem(S, s->src_row + (tr ? y : x), s->src_col + (tr ? x : y)),
                   es);
        } else if (placed) {
            nt_matrix_pattern_value(seed + 1, r, c, want, es);
        }
        return memcmp(want, got, es) == 0;
    }
    double complex b0 = placed ? value(t, seed + 1, r, c) : 0, g = load(t, got), want = b0;
    double mag = cabs(b0);
    if (in) {
        double complex alpha = cplx(o->op.alpha_re, o->op.alpha_im);
        double complex beta = cplx(o->op.beta_re, o->op.beta_im);
        bool tr = o->op.op != NT_OP_N;
        double complex a = load(t, nt_matrix_elem(S, s->src_row + (tr ? y : x),
                                                  s->src_col + (tr ? x : y)));
        if (o->op.op == NT_OP_C)
            a = conj(a);
        want = alpha * a + beta * b0;
        mag = cabs(alpha) * cabs(a) + cabs(beta) * cabs(b0);
    }
    double eps = t == NT_DTYPE_S || t == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON;
    return cabs(g - want) <= 8 * eps * mag;
}

nt_status cli_op_verify(const cli_op *o, const nt_matrix_t *S, const nt_matrix_t *T,
                        const nt_sub_t *sub, uint64_t seed, bool placed, int64_t *bad)
{
    *bad = 0;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t r = 0; r < T->m; r++)
            *bad += !check_elem(o, S, sub, r, c, seed, placed, nt_matrix_elem(T, r, c));
    return NT_OK;
}

void cli_op_json(json_t *out, const cli_op *o)
{
    static const char *const ops[] = {"N", "T", "C"}, *const uplos[] = {"all", "U", "L"};
    const nt_plan_op_t *p = &o->op;
    json_object_set_new(out, "op", json_string(ops[p->op]));
    json_object_set_new(out, "alpha", json_pack("[f, f]", p->alpha_re, p->alpha_im));
    json_object_set_new(out, "beta", json_pack("[f, f]", p->beta_re, p->beta_im));
    json_object_set_new(out, "uplo", json_string(uplos[p->uplo]));
    json_object_set_new(out, "diag", json_string(p->diag == NT_DIAG_UNIT ? "U" : "N"));
    json_object_set_new(out, "type", json_string(nt_dtype_name(o->type)));
}

void cli_op_print(const cli_op *o)
{
    static const char *const ops[] = {"A", "A^T", "A^H"}, *const uplos[] = {"", "U", "L"};
    const nt_plan_op_t *p = &o->op;
    printf("  operation: B = (%g%+gi) B + (%g%+gi) %s on type %s", p->beta_re, p->beta_im,
           p->alpha_re, p->alpha_im, ops[p->op], nt_dtype_name(o->type));
    if (p->uplo != NT_UPLO_ALL)
        printf(", %s trapezoid%s", uplos[p->uplo],
               p->diag == NT_DIAG_UNIT ? " without its diagonal" : "");
    printf("\n");
}
