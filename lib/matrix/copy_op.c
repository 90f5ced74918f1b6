// The copy kernel of plans with an operation (see nt_copy_op.h): B = beta*B + alpha*op(A).
//
// Work goes by target lines: a piece of a target column of at most one 64-byte line is
// gathered from the source into a line buffer (a column piece for N; for T and C one element of
// each of the next source columns, read as that many sequential streams), computed there, and
// written with one streaming store when it is a whole line and beta = 0 (the target is then
// never read, and streaming spares the read for ownership of its lines), else with ordinary
// stores. Transposed blocks are walked by target row blocks of one line, so every target line
// is written once, whole, and every source line is read once; where the type allows, a block
// of one target line by 8 target columns is transposed in registers (SSE2 for d, AVX2 or
// AVX-512 for every type when the cpu has it) and each of its lines written whole by
// consecutive stores, or one with AVX-512 (lines streamed in pieces interleaved with other
// lines' pieces were measured slower, see t8x8()).
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#define HAVE_SSE2 1
#else
#define HAVE_SSE2 0
#endif
#include "nt_copy.h"
#include "nt_copy_op.h"
#include "nt_lines.h"

// The AVX2 and AVX-512 transposes, compiled for the cpus that have them (x86-64, GCC or
// Clang) and chosen at run time (nt_copy_op_init()).
#if HAVE_SSE2 && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif
#define HAVE_AVX512 (HAVE_AVX2 && NT_LINES_AVX512)

#define LINE 64

static _Atomic int isa_level = -1;

void nt_copy_op_test_isa(int level)
{
    atomic_store(&isa_level, level);
}

void nt_copy_op_init(nt_copy_op *k, const nt_plan_op_t *op, nt_dtype dtype, size_t es,
                     int64_t m, int64_t n)
{
    bool cplx = dtype == NT_DTYPE_C || dtype == NT_DTYPE_Z;
    *k = (nt_copy_op){.dtype = dtype, .es = es, .trans = op->op != NT_OP_N,
                      .conj = op->op == NT_OP_C && cplx, .ar = op->alpha_re,
                      .ai = op->alpha_im, .br = op->beta_re, .bi = op->beta_im,
                      .uplo = op->uplo, .unit = op->uplo != NT_UPLO_ALL &&
                                                op->diag == NT_DIAG_UNIT, .m = m, .n = n};
    k->beta0 = k->br == 0 && k->bi == 0;
    k->alpha0 = k->ar == 0 && k->ai == 0;
    k->move = k->ar == 1 && k->ai == 0 && k->beta0 && !k->conj;
    int cap = atomic_load(&isa_level);
#if HAVE_AVX2
    k->avx2 = cap != 0 && __builtin_cpu_supports("avx2");
#endif
#if HAVE_AVX512
    k->avx512 = k->avx2 && (cap < 0 || cap >= 2) && nt_lines_avx512();
#endif
    (void)cap;
}

int nt_copy_op_isa(const nt_copy_op *k)
{
    return k->avx512 ? 2 : k->avx2 ? 1 : 0;
}

void nt_copy_op_rows(const nt_copy_op *k, int64_t y, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = k->m;
    if (k->uplo == NT_UPLO_UPPER) {
        // p?trmr2d: a tall upper trapezoid ends its diagonal in the bottom-right corner.
        int64_t shift = k->m > k->n ? k->m - k->n : 0;
        int64_t e = y + shift + (k->unit ? 0 : 1);
        *hi = e < k->m ? e : k->m;
    } else if (k->uplo == NT_UPLO_LOWER) {
        int64_t shift = k->n > k->m ? k->n - k->m : 0;
        int64_t b = y - shift + (k->unit ? 1 : 0);
        *lo = b > 0 ? b : 0;
    }
}

// d[i] = alpha*x[i] + beta*d[i] for n elements of each real type; beta = 0 never reads d and
// alpha = 0 never reads x (BLAS's rule: NaN there must not leak in). d may be x.
static void combine_d(const nt_copy_op *k, double *d, const double *x, int64_t n)
{
    double a = k->ar, b = k->br;
    if (k->alpha0)
        for (int64_t i = 0; i < n; i++)
            d[i] = k->beta0 ? 0.0 : b * d[i];
    else if (k->beta0)
        for (int64_t i = 0; i < n; i++)
            d[i] = a * x[i];
    else
        for (int64_t i = 0; i < n; i++)
            d[i] = a * x[i] + b * d[i];
}

static void combine_s(const nt_copy_op *k, float *d, const float *x, int64_t n)
{
    float a = (float)k->ar, b = (float)k->br;
    if (k->alpha0)
        for (int64_t i = 0; i < n; i++)
            d[i] = k->beta0 ? 0.0f : b * d[i];
    else if (k->beta0)
        for (int64_t i = 0; i < n; i++)
            d[i] = a * x[i];
    else
        for (int64_t i = 0; i < n; i++)
            d[i] = a * x[i] + b * d[i];
}

// The complex types as (re, im) pairs; conj negates x's imaginary part first.
static void combine_z(const nt_copy_op *k, double *d, const double *x, int64_t n)
{
    double ar = k->ar, ai = k->ai, br = k->br, bi = k->bi, sg = k->conj ? -1.0 : 1.0;
    for (int64_t i = 0; i < 2 * n; i += 2) {
        double rr = 0.0, ri = 0.0;
        if (!k->alpha0) {
            double xr = x[i], xi = sg * x[i + 1];
            rr = ar * xr - ai * xi;
            ri = ar * xi + ai * xr;
        }
        if (!k->beta0) {
            double dr = d[i], di = d[i + 1];
            rr += br * dr - bi * di;
            ri += br * di + bi * dr;
        }
        d[i] = rr;
        d[i + 1] = ri;
    }
}

static void combine_c(const nt_copy_op *k, float *d, const float *x, int64_t n)
{
    float ar = (float)k->ar, ai = (float)k->ai, br = (float)k->br, bi = (float)k->bi;
    float sg = k->conj ? -1.0f : 1.0f;
    for (int64_t i = 0; i < 2 * n; i += 2) {
        float rr = 0.0f, ri = 0.0f;
        if (!k->alpha0) {
            float xr = x[i], xi = sg * x[i + 1];
            rr = ar * xr - ai * xi;
            ri = ar * xi + ai * xr;
        }
        if (!k->beta0) {
            float dr = d[i], di = d[i + 1];
            rr += br * dr - bi * di;
            ri += br * di + bi * dr;
        }
        d[i] = rr;
        d[i + 1] = ri;
    }
}

// n elements: B's d from A's x (contiguous both). Elements of typed matrices are aligned to
// their type (tiles and local matrices are line-aligned), so the typed pointers are valid.
static void combine(const nt_copy_op *k, void *d, const void *x, int64_t n)
{
    if (k->move) {
        memmove(d, x, (size_t)n * k->es);
        return;
    }
    switch (k->dtype) {
    case NT_DTYPE_S: combine_s(k, d, x, n); return;
    case NT_DTYPE_D: combine_d(k, d, x, n); return;
    case NT_DTYPE_C: combine_c(k, d, x, n); return;
    case NT_DTYPE_Z: combine_z(k, d, x, n); return;
    default: memmove(d, x, (size_t)n * k->es); // untyped: only moves are planned
    }
}

// n elements of A, `stride` bytes apart, into the line buffer t; one fixed-size move each.
static void gather(char *t, const char *s, size_t stride, int64_t n, size_t es)
{
    switch (es) {
    case 4:
        for (int64_t r = 0; r < n; r++)
            memcpy(t + r * 4, s + (size_t)r * stride, 4);
        return;
    case 8:
        for (int64_t r = 0; r < n; r++)
            memcpy(t + r * 8, s + (size_t)r * stride, 8);
        return;
    case 16:
        for (int64_t r = 0; r < n; r++)
            memcpy(t + r * 16, s + (size_t)r * stride, 16);
        return;
    default:
        for (int64_t r = 0; r < n; r++)
            memcpy(t + (size_t)r * es, s + (size_t)r * stride, es);
    }
}

// Write the n elements gathered in t to B at d: one streaming store for a whole aligned line
// when allowed (stream: beta = 0 and NT_COPY_STREAM), else ordinary stores.
static void emit(const nt_copy_op *k, char *d, char *t, int64_t n, bool stream)
{
    if (stream && (size_t)n * k->es == LINE && ((uintptr_t)d & (LINE - 1)) == 0) {
        combine(k, t, t, n);
        nt_lines_stream(d, t);
        return;
    }
    combine(k, d, t, n);
}

// Elements per line piece, and those before column 0's first line boundary at d (0 when
// the element size does not divide a line: then pieces ignore lines).
static int64_t line_elems(const nt_copy_op *k)
{
    return k->es <= LINE && LINE % k->es == 0 ? (int64_t)(LINE / k->es) : 1;
}

static int64_t line_head(const nt_copy_op *k, const char *d, int64_t per)
{
    if (per == 1 || (uintptr_t)d % k->es)
        return 0;
    return (int64_t)(((LINE - ((uintptr_t)d & (LINE - 1))) & (LINE - 1)) / k->es) % per;
}

// Rows [a, b) of block column j (submatrix column y0 + j) inside [i0, i1) and the trapezoid.
static bool col_rows(const nt_copy_op *k, int64_t x0, int64_t y0, int64_t j, int64_t i0,
                     int64_t i1, int64_t *a, int64_t *b)
{
    *a = i0;
    *b = i1;
    if (k->uplo != NT_UPLO_ALL) {
        int64_t lo, hi;
        nt_copy_op_rows(k, y0 + j, &lo, &hi);
        *a = lo - x0 > i0 ? lo - x0 : i0;
        *b = hi - x0 < i1 ? hi - x0 : i1;
    }
    return *a < *b;
}

// op N: each column's range in line pieces.
static void block_n(const nt_copy_op *k, char *dst, size_t ldd, const char *src, size_t lds,
                    int64_t rows, int64_t cols, int64_t x0, int64_t y0, bool stream)
{
    size_t es = k->es;
    int64_t per = line_elems(k);
    alignas(LINE) char t[LINE];
    for (int64_t j = 0; j < cols; j++) {
        int64_t a, b;
        if (!col_rows(k, x0, y0, j, 0, rows, &a, &b))
            continue;
        char *d = dst + j * ldd + (size_t)a * es;
        const char *s = src + j * lds + (size_t)a * es;
        if (!stream || per == 1) {
            combine(k, d, s, b - a);
            continue;
        }
        for (int64_t i = a, e; i < b; i = e) {
            e = i == a ? i + line_head(k, d, per) : i + per;
            e = e == i ? i + per : e;
            e = e < b ? e : b;
            memcpy(t, s + (size_t)(i - a) * es, (size_t)(e - i) * es);
            emit(k, d + (size_t)(i - a) * es, t, e - i, true);
        }
    }
}

#if HAVE_SSE2
// An 8 x 8 block of 8-byte elements, transposed in registers: target columns jj, jj+1 from
// two elements of each of the 8 source columns, then each target column's line written by
// consecutive stores. Every source line is read once and every target line written once,
// whole and in one go: streamed lines written in 16-byte pieces alternating between two
// columns ran at 0.42-0.43 of a streamed copy, whole in turn 0.47-0.53 (stripes of two lines,
// 2 threads, 512 x 512 doubles, CPU time, medians of 5, load 3-4). Doubles are scaled here; other 8-byte types only
// move (k->move). Multiply and add stay separate operations: the same rounding as combine_d().
static void t8x8(const nt_copy_op *k, char *d, size_t ldd, const char *s, size_t lds,
                 bool stream)
{
    __m128d al = _mm_set1_pd(k->ar), be = _mm_set1_pd(k->br);
    for (int jj = 0; jj < 8; jj += 2) {
        __m128d lo[4], hi[4];
        for (int ii = 0; ii < 8; ii += 2) {
            __m128d a = _mm_loadu_pd((const double *)(const void *)(s + jj * 8 + ii * lds));
            __m128d b = _mm_loadu_pd((const double *)(const void *)(s + jj * 8 + (ii + 1) * lds));
            lo[ii / 2] = _mm_unpacklo_pd(a, b);
            hi[ii / 2] = _mm_unpackhi_pd(a, b);
        }
        double *p = (double *)(void *)(d + jj * ldd);
        double *q = (double *)(void *)(d + (jj + 1) * ldd);
        if (!k->move)
            for (int x = 0; x < 4; x++) {
                lo[x] = _mm_mul_pd(al, lo[x]);
                hi[x] = _mm_mul_pd(al, hi[x]);
                if (!k->beta0) {
                    lo[x] = _mm_add_pd(lo[x], _mm_mul_pd(be, _mm_loadu_pd(p + 2 * x)));
                    hi[x] = _mm_add_pd(hi[x], _mm_mul_pd(be, _mm_loadu_pd(q + 2 * x)));
                }
            }
        for (int x = 0; x < 4; x++)
            if (stream)
                _mm_stream_pd(p + 2 * x, lo[x]);
            else
                _mm_storeu_pd(p + 2 * x, lo[x]);
        for (int x = 0; x < 4; x++)
            if (stream)
                _mm_stream_pd(q + 2 * x, hi[x]);
            else
                _mm_storeu_pd(q + 2 * x, hi[x]);
    }
}
#endif

#if HAVE_AVX2
// The scalars of the AVX2 kernels, broadcast once per block: alpha and beta's real and
// imaginary parts, and the sign mask of conjugation (imaginary parts negated).
// The flags are copied too: the kernels test them for every vector, and k's fields would be
// reloaded after every store (the stores may alias them); stripe_avx2() sets them to
// constants, so that each of its loops is compiled for one type.
typedef struct vscal {
    __m256d ar, ai, br, bi, conj;
    nt_dtype dtype;
    bool move, beta0;
} vscal;

#define AVX2_INLINE __attribute__((target("avx2"), always_inline)) static inline

AVX2_INLINE vscal vscal_of(const nt_copy_op *k)
{
    vscal v = {.dtype = k->dtype, .move = k->move, .beta0 = k->beta0};
    if (k->dtype == NT_DTYPE_C || k->dtype == NT_DTYPE_S) {
        v.ar = _mm256_castps_pd(_mm256_set1_ps((float)k->ar));
        v.ai = _mm256_castps_pd(_mm256_set1_ps((float)k->ai));
        v.br = _mm256_castps_pd(_mm256_set1_ps((float)k->br));
        v.bi = _mm256_castps_pd(_mm256_set1_ps((float)k->bi));
        v.conj = _mm256_castps_pd(_mm256_setr_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f,
                                                 -0.0f));
    } else {
        v.ar = _mm256_set1_pd(k->ar);
        v.ai = _mm256_set1_pd(k->ai);
        v.br = _mm256_set1_pd(k->br);
        v.bi = _mm256_set1_pd(k->bi);
        v.conj = _mm256_setr_pd(0.0, -0.0, 0.0, -0.0);
    }
    if (!k->conj)
        v.conj = _mm256_setzero_pd();
    return v;
}

// 32 bytes of a target line: x (from A, transposed) combined with B's p as combine_*() does,
// in the same order of operations (no FMA), so that every path rounds alike. Complex products
// as (ar*xr - ai*xi, ar*xi + ai*xr): one product by the real parts, one by the imaginary parts
// of the swapped pairs, joined by addsub.
AVX2_INLINE __m256d vop(const vscal *v, __m256d x, const double *p)
{
    if (v->move)
        return x;
    if (v->dtype == NT_DTYPE_D) {
        x = _mm256_mul_pd(v->ar, x);
        return v->beta0 ? x : _mm256_add_pd(x, _mm256_mul_pd(v->br, _mm256_loadu_pd(p)));
    }
    if (v->dtype == NT_DTYPE_Z) {
        x = _mm256_xor_pd(x, v->conj);
        x = _mm256_addsub_pd(_mm256_mul_pd(v->ar, x),
                             _mm256_mul_pd(v->ai, _mm256_permute_pd(x, 0x5)));
        if (v->beta0)
            return x;
        __m256d b = _mm256_loadu_pd(p);
        return _mm256_add_pd(x, _mm256_addsub_pd(_mm256_mul_pd(v->br, b),
                                                 _mm256_mul_pd(v->bi, _mm256_permute_pd(b, 0x5))));
    }
    if (v->dtype == NT_DTYPE_S) {
        __m256 y = _mm256_mul_ps(_mm256_castpd_ps(v->ar), _mm256_castpd_ps(x));
        if (!v->beta0)
            y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_castpd_ps(v->br),
                                               _mm256_loadu_ps((const float *)(const void *)p)));
        return _mm256_castps_pd(y);
    }
    __m256 y = _mm256_castpd_ps(_mm256_xor_pd(x, v->conj)); // NT_DTYPE_C
    __m256 ar = _mm256_castpd_ps(v->ar), ai = _mm256_castpd_ps(v->ai);
    y = _mm256_addsub_ps(_mm256_mul_ps(ar, y), _mm256_mul_ps(ai, _mm256_permute_ps(y, 0xB1)));
    if (!v->beta0) {
        __m256 b = _mm256_loadu_ps((const float *)(const void *)p);
        __m256 br = _mm256_castpd_ps(v->br), bi = _mm256_castpd_ps(v->bi);
        y = _mm256_add_ps(y, _mm256_addsub_ps(_mm256_mul_ps(br, b),
                                              _mm256_mul_ps(bi, _mm256_permute_ps(b, 0xB1))));
    }
    return _mm256_castps_pd(y);
}

// A whole target line (d, 32-byte halves x and y): streamed or stored.
AVX2_INLINE void vline(double *d, __m256d x, __m256d y, bool stream)
{
    if (stream) {
        _mm256_stream_pd(d, x);
        _mm256_stream_pd(d + 4, y);
    } else {
        _mm256_storeu_pd(d, x);
        _mm256_storeu_pd(d + 4, y);
    }
}

// The same as t8x8() with AVX2 (k->avx2), for d and c (and any 8-byte move): four 4 x 4
// transposes in 256-bit registers, each target line two consecutive 32-byte stores. 0.68-0.73
// of a streamed copy against t8x8()'s 0.39-0.63 in the same runs (see t8x8()).
AVX2_INLINE void t4x4_avx2(const char *s, size_t lds, __m256d *o)
{
    __m256d a = _mm256_loadu_pd((const double *)(const void *)s);
    __m256d b = _mm256_loadu_pd((const double *)(const void *)(s + lds));
    __m256d c = _mm256_loadu_pd((const double *)(const void *)(s + 2 * lds));
    __m256d e = _mm256_loadu_pd((const double *)(const void *)(s + 3 * lds));
    __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
    __m256d t2 = _mm256_unpacklo_pd(c, e), t3 = _mm256_unpackhi_pd(c, e);
    o[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    o[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    o[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    o[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

AVX2_INLINE void t8x8_avx2(const vscal *v, char *d, size_t ldd, const char *s, size_t lds,
                           bool stream)
{
    for (int h = 0; h < 2; h++) { // target columns 4h .. 4h + 3: source rows 4h .. 4h + 3
        __m256d lo[4], hi[4];     // their rows 0..3 and 4..7: source columns 0..3 and 4..7
        t4x4_avx2(s + 32 * h, lds, lo);
        t4x4_avx2(s + 32 * h + 4 * lds, lds, hi);
        for (int c = 0; c < 4; c++) {
            double *p = (double *)(void *)(d + (size_t)(4 * h + c) * ldd);
            vline(p, vop(v, lo[c], p), vop(v, hi[c], p + 4), stream);
        }
    }
}

// 8 x 8 4-byte elements: o[c] is row c of the 8 source columns at s (8 elements each).
AVX2_INLINE void t8x8s_avx2(const char *s, size_t lds, __m256d *o)
{
    __m256 r[8], t[8], u[8];
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q++)
        r[q] = _mm256_loadu_ps((const float *)(const void *)(s + (size_t)q * lds));
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q += 2) {
        t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
    }
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q += 4) { // u[q..q+3]: rows 0, 1, 2, 3 (and 4..7) of columns q..q+3
        u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
        u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xEE);
        u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
        u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
    }
    _Pragma("GCC unroll 8")
    for (int c = 0; c < 4; c++) {
        o[c] = _mm256_castps_pd(_mm256_permute2f128_ps(u[c], u[c + 4], 0x20));
        o[c + 4] = _mm256_castps_pd(_mm256_permute2f128_ps(u[c], u[c + 4], 0x31));
    }
}

// A 16 x 8 block of 4-byte elements (s, or any 4-byte move): target columns 0..7 of one
// target line (16 elements) from 16 source columns, as two 8 x 8 transposes.
AVX2_INLINE void t16x8s_avx2(const vscal *v, char *d, size_t ldd, const char *s, size_t lds,
                             bool stream)
{
    __m256d lo[8], hi[8]; // target rows 0..7 and 8..15: source columns 0..7 and 8..15
    t8x8s_avx2(s, lds, lo);
    t8x8s_avx2(s + 8 * lds, lds, hi);
    _Pragma("GCC unroll 8")
    for (int c = 0; c < 8; c++) {
        double *p = (double *)(void *)(d + (size_t)c * ldd);
        vline(p, vop(v, lo[c], p), vop(v, hi[c], p + 4), stream);
    }
}

// A 4 x 8 block of 16-byte elements (z, or any 16-byte move): target columns 0..7 of one
// target line (4 elements) from 4 source columns, each element one 128-bit half.
AVX2_INLINE void t4x8z_avx2(const vscal *v, char *d, size_t ldd, const char *s, size_t lds,
                            bool stream)
{
    _Pragma("GCC unroll 8")
    for (int c = 0; c < 8; c++) { // target column c: source row c of source columns 0..3
        const char *q = s + 16 * c;
        __m256d x = _mm256_insertf128_pd(
            _mm256_castpd128_pd256(_mm_loadu_pd((const double *)(const void *)q)),
            _mm_loadu_pd((const double *)(const void *)(q + lds)), 1);
        __m256d y = _mm256_insertf128_pd(
            _mm256_castpd128_pd256(_mm_loadu_pd((const double *)(const void *)(q + 2 * lds))),
            _mm_loadu_pd((const double *)(const void *)(q + 3 * lds)), 1);
        double *p = (double *)(void *)(d + (size_t)c * ldd);
        vline(p, vop(v, x, p), vop(v, y, p + 4), stream);
    }
}
#endif

#if HAVE_AVX512
// The AVX-512 kernels: a target line is one 512-bit register, written by one store (streamed
// when beta = 0), where the AVX2 kernels write it in two halves. Their loops over registers,
// and those of the AVX2 kernels they share, are unrolled by pragma: left as loops, GCC kept
// the arrays of registers on the stack, and d with alpha 2 ran at 0.57 of a streamed copy
// against 0.84 unrolled (bench/micro/copy_op.c, 2 threads, four-line stripes).
typedef struct wscal {
    __m512d ar, ai, br, bi;
    __m512i conj, negre; // sign masks: imaginary parts (conjugation), real parts (products)
    nt_dtype dtype;
    bool move, beta0;
} wscal;

#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline

AVX512_INLINE wscal wscal_of(const nt_copy_op *k)
{
    wscal v = {.dtype = k->dtype, .move = k->move, .beta0 = k->beta0};
    if (k->dtype == NT_DTYPE_C || k->dtype == NT_DTYPE_S) {
        v.ar = _mm512_castps_pd(_mm512_set1_ps((float)k->ar));
        v.ai = _mm512_castps_pd(_mm512_set1_ps((float)k->ai));
        v.br = _mm512_castps_pd(_mm512_set1_ps((float)k->br));
        v.bi = _mm512_castps_pd(_mm512_set1_ps((float)k->bi));
        v.negre = _mm512_set1_epi64((int64_t)0x80000000u);
    } else {
        v.ar = _mm512_set1_pd(k->ar);
        v.ai = _mm512_set1_pd(k->ai);
        v.br = _mm512_set1_pd(k->br);
        v.bi = _mm512_set1_pd(k->bi);
        v.negre = _mm512_set_epi64(0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN);
    }
    v.conj = _mm512_setzero_si512();
    if (k->conj)
        v.conj = k->dtype == NT_DTYPE_C ? _mm512_slli_epi64(v.negre, 32)
                                        : _mm512_set_epi64(INT64_MIN, 0, INT64_MIN, 0,
                                                           INT64_MIN, 0, INT64_MIN, 0);
    return v;
}

AVX512_INLINE __m512d wxor(__m512d x, __m512i m)
{
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), m));
}

// alpha * x for complex x, alpha = (re, im) broadcast: re*x plus im*x with each pair swapped
// and its real parts negated (AVX-512 has no addsub), which rounds as addsub and the scalar
// (ar*xr - ai*xi, ar*xi + ai*xr) do: negation is exact.
AVX512_INLINE __m512d wcmul_d(__m512d re, __m512d im, __m512i negre, __m512d x)
{
    return _mm512_add_pd(_mm512_mul_pd(re, x),
                         wxor(_mm512_mul_pd(im, _mm512_permute_pd(x, 0x55)), negre));
}

AVX512_INLINE __m512d wcmul_s(__m512d re, __m512d im, __m512i negre, __m512d x)
{
    __m512 y = _mm512_castpd_ps(x);
    __m512 a = _mm512_mul_ps(_mm512_castpd_ps(re), y);
    __m512 b = _mm512_mul_ps(_mm512_castpd_ps(im), _mm512_permute_ps(y, 0xB1));
    return _mm512_castps_pd(_mm512_add_ps(a, _mm512_castpd_ps(wxor(_mm512_castps_pd(b), negre))));
}

// vop() on a whole target line (x from A, transposed; p B's line).
AVX512_INLINE __m512d wop(const wscal *v, __m512d x, const double *p)
{
    if (v->move)
        return x;
    if (v->dtype == NT_DTYPE_D) {
        x = _mm512_mul_pd(v->ar, x);
        return v->beta0 ? x : _mm512_add_pd(x, _mm512_mul_pd(v->br, _mm512_loadu_pd(p)));
    }
    if (v->dtype == NT_DTYPE_S) {
        __m512 y = _mm512_mul_ps(_mm512_castpd_ps(v->ar), _mm512_castpd_ps(x));
        if (!v->beta0)
            y = _mm512_add_ps(y, _mm512_mul_ps(_mm512_castpd_ps(v->br),
                                               _mm512_loadu_ps((const float *)(const void *)p)));
        return _mm512_castps_pd(y);
    }
    bool z = v->dtype == NT_DTYPE_Z;
    x = wxor(x, v->conj);
    x = z ? wcmul_d(v->ar, v->ai, v->negre, x) : wcmul_s(v->ar, v->ai, v->negre, x);
    if (v->beta0)
        return x;
    __m512d b = _mm512_loadu_pd(p);
    b = z ? wcmul_d(v->br, v->bi, v->negre, b) : wcmul_s(v->br, v->bi, v->negre, b);
    return z ? _mm512_add_pd(x, b)
             : _mm512_castps_pd(_mm512_add_ps(_mm512_castpd_ps(x), _mm512_castpd_ps(b)));
}

AVX512_INLINE void wline(double *d, __m512d x, bool stream)
{
    if (stream)
        _mm512_stream_pd(d, x);
    else
        _mm512_storeu_pd(d, x);
}

// 8 x 8 8-byte elements: the 8 source columns at s (one line each) into the 8 target lines
// o[c] (row c of the source block): pairs, then quadruples, then halves.
AVX512_INLINE void t8x8_w(const char *s, size_t lds, __m512d *o)
{
    __m512d r[8], t[8], u[8];
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q++)
        r[q] = _mm512_loadu_pd((const double *)(const void *)(s + (size_t)q * lds));
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q += 2) { // t[q]: rows 0, 2, 4, 6 of q, q+1; t[q+1]: rows 1, 3, 5, 7
        t[q] = _mm512_unpacklo_pd(r[q], r[q + 1]);
        t[q + 1] = _mm512_unpackhi_pd(r[q], r[q + 1]);
    }
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; q += 4) { // u[q + x]: rows x, x + 4 (x = 0, 2, 1, 3) of q .. q + 3
        u[q] = _mm512_permutex2var_pd(t[q], lo, t[q + 2]);
        u[q + 1] = _mm512_permutex2var_pd(t[q], hi, t[q + 2]);
        u[q + 2] = _mm512_permutex2var_pd(t[q + 1], lo, t[q + 3]);
        u[q + 3] = _mm512_permutex2var_pd(t[q + 1], hi, t[q + 3]);
    }
    static const int row[4] = {0, 2, 1, 3};
    _Pragma("GCC unroll 8")
    for (int x = 0; x < 4; x++) {
        o[row[x]] = _mm512_shuffle_f64x2(u[x], u[x + 4], 0x44);
        o[row[x] + 4] = _mm512_shuffle_f64x2(u[x], u[x + 4], 0xEE);
    }
}

AVX512_INLINE void t8x8_avx512(const wscal *v, char *d, size_t ldd, const char *s, size_t lds,
                               bool stream)
{
    __m512d o[8];
    t8x8_w(s, lds, o);
    _Pragma("GCC unroll 8")
    for (int c = 0; c < 8; c++) {
        double *p = (double *)(void *)(d + (size_t)c * ldd);
        wline(p, wop(v, o[c], p), stream);
    }
}

// A 16 x 8 block of 4-byte elements: the AVX2 8 x 8 float transposes, each target line's two
// halves joined in one register.
AVX512_INLINE void t16x8s_avx512(const wscal *v, char *d, size_t ldd, const char *s,
                                 size_t lds, bool stream)
{
    __m256d lo[8], hi[8];
    t8x8s_avx2(s, lds, lo);
    t8x8s_avx2(s + 8 * lds, lds, hi);
    _Pragma("GCC unroll 8")
    for (int c = 0; c < 8; c++) {
        double *p = (double *)(void *)(d + (size_t)c * ldd);
        __m512d x = _mm512_insertf64x4(_mm512_castpd256_pd512(lo[c]), hi[c], 1);
        wline(p, wop(v, x, p), stream);
    }
}

// A 4 x 8 block of 16-byte elements: the 4 source columns at s (two lines each) into the 8
// target lines, as 4 x 4 transposes of 128-bit lanes.
AVX512_INLINE void t4x8z_avx512(const wscal *v, char *d, size_t ldd, const char *s, size_t lds,
                                bool stream)
{
    _Pragma("GCC unroll 8")
    for (int h = 0; h < 2; h++) { // target columns 4h .. 4h + 3: the source's second line
        __m512d x[4], a[4];
        _Pragma("GCC unroll 8")
        for (int q = 0; q < 4; q++)
            x[q] = _mm512_loadu_pd((const double *)(const void *)(s + 64 * h + (size_t)q * lds));
        a[0] = _mm512_shuffle_f64x2(x[0], x[1], 0x44); // lanes 0, 1 of columns 0 and 1
        a[1] = _mm512_shuffle_f64x2(x[0], x[1], 0xEE); // lanes 2, 3
        a[2] = _mm512_shuffle_f64x2(x[2], x[3], 0x44);
        a[3] = _mm512_shuffle_f64x2(x[2], x[3], 0xEE);
        __m512d o[4] = {_mm512_shuffle_f64x2(a[0], a[2], 0x88), // lane 0 of each column
                        _mm512_shuffle_f64x2(a[0], a[2], 0xDD),
                        _mm512_shuffle_f64x2(a[1], a[3], 0x88),
                        _mm512_shuffle_f64x2(a[1], a[3], 0xDD)};
        _Pragma("GCC unroll 8")
        for (int c = 0; c < 4; c++) {
            double *p = (double *)(void *)(d + (size_t)(4 * h + c) * ldd);
            wline(p, wop(v, o[c], p), stream);
        }
    }
}
#endif

#if HAVE_AVX2
// One block of one target line by 8 target columns, any type (trapezoid edges, stripes
// that are not whole lines).
__attribute__((target("avx2"))) static void block_avx2(const nt_copy_op *k, char *d, size_t ldd,
                                                       const char *s, size_t lds, bool stream)
{
    vscal v = vscal_of(k);
    if (k->es == 16)
        t4x8z_avx2(&v, d, ldd, s, lds, stream);
    else if (k->es == 4)
        t16x8s_avx2(&v, d, ldd, s, lds, stream);
    else
        t8x8_avx2(&v, d, ldd, s, lds, stream);
}
#endif

#if HAVE_AVX512
__attribute__((target("avx512f"))) static void
block_avx512(const nt_copy_op *k, char *d, size_t ldd, const char *s, size_t lds, bool stream)
{
    wscal v = wscal_of(k);
    if (k->es == 16)
        t4x8z_avx512(&v, d, ldd, s, lds, stream);
    else if (k->es == 4)
        t16x8s_avx512(&v, d, ldd, s, lds, stream);
    else
        t8x8_avx512(&v, d, ldd, s, lds, stream);
}
#endif

// Whether block columns [j, j + 8) of the row block [i0, i0 + per) (one target line) can take
// a register transpose: t8x8() for 8-byte elements that only move or are doubles scaled by a
// real alpha; with AVX2 (k->avx2) every type: c, s or 4-byte moves (t16x8s_avx2()), z or 16-byte
// moves (t4x8z_avx2()); alpha != 0
// (which must not read A), and the whole block inside the trapezoid.
static bool fast8(const nt_copy_op *k, int64_t x0, int64_t y0, int64_t j, int64_t i0)
{
    if (!HAVE_SSE2 || (k->es != 8 && !((k->es == 16 || k->es == 4) && k->avx2)))
        return false;
    if (!k->move &&
        (k->alpha0 || !(k->dtype == NT_DTYPE_D || (k->avx2 && k->dtype != NT_DTYPE_NONE))))
        return false;
    if (k->uplo == NT_UPLO_ALL)
        return true;
    int64_t per = LINE / (int64_t)k->es;
    for (int64_t c = j; c < j + 8; c++) {
        int64_t a, b;
        if (!col_rows(k, x0, y0, c, i0, i0 + per, &a, &b) || a != i0 || b != i0 + per)
            return false;
    }
    return true;
}

// Rows [i0, *i1) of one row block: up to the first line boundary of column 0 (head), then
// one line each.
static int64_t row_block_end(int64_t i0, int64_t head, int64_t per, int64_t rows)
{
    int64_t i1 = i0 == 0 && head > 0 ? head : i0 + per;
    return i1 < rows ? i1 : rows;
}

// Block columns [j, j + w) of the row block [i0, i1): one 8 x 8 register transpose where
// fast8() allows, else column by column through the line buffer t.
static void row_block_t(const nt_copy_op *k, char *dst, size_t ldd, const char *src, size_t lds,
                        int64_t i0, int64_t i1, int64_t j, int64_t w, int64_t x0, int64_t y0,
                        bool stream, bool lines, char *t)
{
    size_t es = k->es;
#if HAVE_SSE2
    if ((i1 - i0) * (int64_t)es == LINE && w == 8 && fast8(k, x0, y0, j, i0)) {
        char *d = dst + (size_t)j * ldd + (size_t)i0 * es;
        const char *s = src + (size_t)i0 * lds + (size_t)j * es;
        bool st = lines && ((uintptr_t)(dst + (size_t)i0 * es) & (LINE - 1)) == 0;
#if HAVE_AVX512
        if (k->avx512) {
            block_avx512(k, d, ldd, s, lds, st);
            return;
        }
#endif
#if HAVE_AVX2
        if (k->avx2) {
            block_avx2(k, d, ldd, s, lds, st);
            return;
        }
#endif
        t8x8(k, d, ldd, s, lds, st);
        return;
    }
#else
    (void)lines;
#endif
    for (int64_t c = j; c < j + w; c++) {
        int64_t a, b;
        if (!col_rows(k, x0, y0, c, i0, i1, &a, &b))
            continue;
        gather(t, src + (size_t)a * lds + (size_t)c * es, lds, b - a, es);
        emit(k, dst + (size_t)c * ldd + (size_t)a * es, t, b - a, stream);
    }
}

// beta reads the target: ask for the lines of the stripe's next 8 columns (rows [s0, s1)) one
// step ahead; the prefetchers do not follow runs of a few lines spread over columns. Measured
// (redist --op T --alpha 2 --beta 0.5, 8192^2 doubles, 512 x 512 tiles, 2 threads, binaries
// alternated, load 12-14): 0.87 s without, 0.36 s with (medians of 5).
static void prefetch_next(const char *dst, size_t ldd, int64_t s0, int64_t s1, int64_t j,
                          int64_t cols, size_t es)
{
#if HAVE_SSE2
    for (int64_t c = j; c < j + 8 && c < cols; c++)
        for (int64_t i = s0; i < s1; i += LINE / (int64_t)es)
            _mm_prefetch(dst + (size_t)c * ldd + (size_t)i * es, _MM_HINT_T0);
#else
    (void)dst, (void)ldd, (void)s0, (void)s1, (void)j, (void)cols, (void)es;
#endif
}

// The source of the next stripe, asked for in address order a few lines per step of the
// current one: its columns are short sequential runs (one target line of each source column a
// step) that the prefetchers pick up late, and in address order the lines come from one DRAM
// page after another. Measured on a stand-alone copy of this loop with t8x8_avx2() (2
// threads, 512 x 512 doubles, CPU time against a streamed copy, medians of 5, load 3-4): 0.66
// without, 0.78 with.
typedef struct src_ahead {
    const char *src;    // the block's source
    size_t lds;         // its column stride, bytes
    uintptr_t cur, end; // lines left in column i: [cur, end]
    int64_t i, i1;      // columns left: [i, i1)
    size_t bytes;       // bytes per source column
    int64_t quota;      // lines per step
} src_ahead;

static void src_ahead_column(src_ahead *p)
{
    uintptr_t a = (uintptr_t)(p->src + (size_t)p->i * p->lds);
    p->cur = a & ~(uintptr_t)(LINE - 1);
    p->end = a + p->bytes - 1;
}

// Source columns [i0, i1) over `steps` steps.
static void src_ahead_start(src_ahead *p, const char *src, size_t lds, size_t bytes, int64_t i0,
                            int64_t i1, int64_t steps)
{
    *p = (src_ahead){.src = src, .lds = lds, .i = i0, .i1 = i1, .bytes = bytes};
    int64_t lines = (i1 - i0) * (int64_t)((bytes + 2 * LINE - 2) / LINE);
    p->quota = steps > 0 ? (lines + steps - 1) / steps : lines;
    if (p->i < p->i1)
        src_ahead_column(p);
}

static void src_ahead_step(src_ahead *p)
{
#if HAVE_SSE2
    for (int64_t q = 0; q < p->quota && p->i < p->i1; q++) {
        _mm_prefetch((const char *)p->cur, _MM_HINT_T0);
        p->cur += LINE;
        if (p->cur > p->end && ++p->i < p->i1)
            src_ahead_column(p);
    }
#else
    (void)p;
#endif
}

// op T or C: stripes of stripe_lines() target row blocks of one line each (aligned on column
// 0's lines), walked 8 target columns at a time: each target column gets that many consecutive
// lines and each source column one line per step. Measured with t8x8() (bench/micro-style, one
// thread, 512 x 512 doubles, CPU time against a streamed copy, loaded machine, medians of 15):
// stripes of one line 0.54, of four 0.65, of eight 0.54. With the AVX2 blocks and src_ahead
// (2 threads, medians of 5, load 3-6): d 0.61-0.71 with two lines, 0.54-0.60 with four; z
// 0.77-0.83 with two, 0.69 with four, 0.70-0.72 with one; s 0.55-0.57 with two, 0.63-0.64
// with one line (16 source columns a stripe, as two lines of d). Those were a Zen 3 without
// AVX-512. On a Zen 5 with AVX-512 (bench/micro/copy_op.c, 2 threads, medians of 5, the
// instruction sets alternated in each repetition), four lines for every type: d with alpha 2
// 0.81-0.84 of the copy with four, 0.54 with two, 0.80 with eight; beta 0.5 0.67-0.69
// against 0.49; z 0.84-0.88 against 0.55; s 0.52 with two lines, 0.71 with four; the AVX2
// blocks there gain as much from four lines (d 0.73-0.75 against 0.52). Hence four lines
// where the cpu has AVX-512, the earlier choice elsewhere.
static int stripe_lines(const nt_copy_op *k)
{
    if (k->avx512)
        return 4;
    return k->es == 4 ? 1 : 2;
}

#if HAVE_AVX2
// A stripe of nb whole register blocks of one target line each (rows [s0, s0 + nb lines),
// every column of it in the op's block): block_t()'s walk over columns [0, cols8) in one loop,
// without row_block_t()'s checks per block (8.4-8.7 GB/s against 7.6-7.7 through
// row_block_t(), 2 threads, same runs as above), compiled once per type (stripe_avx2()):
// 0.74 of a streamed copy against 0.52-0.59 with the type tested per vector (d, 2 threads,
// medians of 5, alternated, load 6-11). The same body for each instruction set: NAME takes
// scalars of type VT and the kernels K4, K8 and K16 for elements of 4, 8 and 16 bytes.
#define STRIPE_BODY(NAME, INLINE, VT, K4, K8, K16)                                             \
    INLINE void NAME(const VT *v, size_t es, char *dst, size_t ldd, const char *src,           \
                     size_t lds, int64_t s0, int nb, int64_t cols8, int64_t cols, bool lines,  \
                     src_ahead *ahead)                                                         \
    {                                                                                          \
        int64_t per = LINE / (int64_t)es;                                                      \
        for (int64_t j = 0; j < cols8; j += 8) {                                               \
            if (!v->beta0)                                                                     \
                prefetch_next(dst, ldd, s0, s0 + per * nb, j + 8, cols, es);                   \
            src_ahead_step(ahead);                                                             \
            for (int b = 0; b < nb; b++) {                                                     \
                int64_t i0 = s0 + per * b;                                                     \
                char *d = dst + (size_t)j * ldd + (size_t)i0 * es;                             \
                const char *s = src + (size_t)i0 * lds + (size_t)j * es;                       \
                bool st = lines && ((uintptr_t)(dst + (size_t)i0 * es) & (LINE - 1)) == 0;     \
                if (es == 16)                                                                  \
                    K16(v, d, ldd, s, lds, st);                                                \
                else if (es == 4)                                                              \
                    K4(v, d, ldd, s, lds, st);                                                 \
                else                                                                           \
                    K8(v, d, ldd, s, lds, st);                                                 \
            }                                                                                  \
        }                                                                                      \
    }

STRIPE_BODY(stripe_body_avx2, AVX2_INLINE, vscal, t16x8s_avx2, t8x8_avx2, t4x8z_avx2)
#if HAVE_AVX512
STRIPE_BODY(stripe_body_avx512, AVX512_INLINE, wscal, t16x8s_avx512, t8x8_avx512,
            t4x8z_avx512)
#endif
#undef STRIPE_BODY

// The stripe body BODY compiled for each element size, type and beta = 0 or not (the flags
// of v constants in each call).
#define STRIPE_CASE(BODY, ES, DT, MOVE, BETA0)                                                 \
    do {                                                                                       \
        v.dtype = DT;                                                                          \
        v.move = MOVE;                                                                         \
        v.beta0 = BETA0;                                                                       \
        BODY(&v, ES, dst, ldd, src, lds, s0, nb, cols8, cols, lines, ahead);                   \
    } while (0)
#define STRIPE_TYPES(BODY)                                                                     \
    do {                                                                                       \
        if (k->move && k->es == 4)                                                             \
            STRIPE_CASE(BODY, 4, k->dtype, true, true);                                        \
        else if (k->move && k->es == 8)                                                        \
            STRIPE_CASE(BODY, 8, k->dtype, true, true);                                        \
        else if (k->move)                                                                      \
            STRIPE_CASE(BODY, 16, k->dtype, true, true);                                       \
        else if (k->dtype == NT_DTYPE_S && k->beta0)                                           \
            STRIPE_CASE(BODY, 4, NT_DTYPE_S, false, true);                                     \
        else if (k->dtype == NT_DTYPE_S)                                                       \
            STRIPE_CASE(BODY, 4, NT_DTYPE_S, false, false);                                    \
        else if (k->dtype == NT_DTYPE_D && k->beta0)                                           \
            STRIPE_CASE(BODY, 8, NT_DTYPE_D, false, true);                                     \
        else if (k->dtype == NT_DTYPE_D)                                                       \
            STRIPE_CASE(BODY, 8, NT_DTYPE_D, false, false);                                    \
        else if (k->dtype == NT_DTYPE_C && k->beta0)                                           \
            STRIPE_CASE(BODY, 8, NT_DTYPE_C, false, true);                                     \
        else if (k->dtype == NT_DTYPE_C)                                                       \
            STRIPE_CASE(BODY, 8, NT_DTYPE_C, false, false);                                    \
        else if (k->beta0)                                                                     \
            STRIPE_CASE(BODY, 16, NT_DTYPE_Z, false, true);                                    \
        else                                                                                   \
            STRIPE_CASE(BODY, 16, NT_DTYPE_Z, false, false);                                   \
    } while (0)

__attribute__((target("avx2"))) static void
stripe_avx2(const nt_copy_op *k, char *dst, size_t ldd, const char *src, size_t lds, int64_t s0,
            int nb, int64_t cols8, int64_t cols, bool lines, src_ahead *ahead)
{
    vscal v = vscal_of(k);
    STRIPE_TYPES(stripe_body_avx2);
}

#if HAVE_AVX512
__attribute__((target("avx512f"))) static void
stripe_avx512(const nt_copy_op *k, char *dst, size_t ldd, const char *src, size_t lds,
              int64_t s0, int nb, int64_t cols8, int64_t cols, bool lines, src_ahead *ahead)
{
    wscal v = wscal_of(k);
    STRIPE_TYPES(stripe_body_avx512);
}
#endif
#undef STRIPE_TYPES
#undef STRIPE_CASE
#endif
static void block_t(const nt_copy_op *k, char *dst, size_t ldd, const char *src, size_t lds,
                    int64_t rows, int64_t cols, int64_t x0, int64_t y0, bool stream)
{
    int64_t per = line_elems(k), head = line_head(k, dst, per);
    // Streamed 8 x 8 blocks need every column's line aligned, as column 0's is.
    bool lines = stream && ldd % LINE == 0;
    alignas(LINE) char t[LINE]; // elements of more than a line take block_t_wide()
    src_ahead ahead;
    int stripe = stripe_lines(k);
    for (int64_t s0 = 0, s1; s0 < rows; s0 = s1) {
        s1 = s0;
        for (int b = 0; b < stripe && s1 < rows; b++)
            s1 = row_block_end(s1, head, per, rows);
        int64_t s2 = s1;
        for (int b = 0; b < stripe && s2 < rows; b++)
            s2 = row_block_end(s2, head, per, rows);
        src_ahead_start(&ahead, src, lds, (size_t)cols * k->es, s1, s2, (cols + 7) / 8);
        int64_t j0 = 0;
#if HAVE_AVX2
        // Whole lines (and the stripe's start one of them) of a type the AVX2 register path
        // takes, no trapezoid: the AVX2 loop over the whole 8-column groups.
        if (k->avx2 && k->uplo == NT_UPLO_ALL && (s1 - s0) % per == 0 &&
            (s0 > 0 || head == 0) && fast8(k, x0, y0, 0, s0)) {
            j0 = cols - cols % 8;
            int nb = (int)((s1 - s0) / per);
#if HAVE_AVX512
            if (k->avx512)
                stripe_avx512(k, dst, ldd, src, lds, s0, nb, j0, cols, lines, &ahead);
            else
#endif
                stripe_avx2(k, dst, ldd, src, lds, s0, nb, j0, cols, lines, &ahead);
        }
#endif
        for (int64_t j = j0; j < cols; j += 8) {
            int64_t w = cols - j < 8 ? cols - j : 8;
            if (!k->beta0)
                prefetch_next(dst, ldd, s0, s1, j + 8, cols, k->es);
            src_ahead_step(&ahead);
            for (int64_t i0 = s0, i1; i0 < s1; i0 = i1) {
                i1 = row_block_end(i0, head, per, rows);
                row_block_t(k, dst, ldd, src, lds, i0, i1, j, w, x0, y0, stream, lines, t);
            }
        }
    }
}

// Elements larger than the line buffer (untyped, moved only): one at a time.
static void block_t_wide(const nt_copy_op *k, char *dst, size_t ldd, const char *src,
                         size_t lds, int64_t rows, int64_t cols, int64_t x0, int64_t y0)
{
    size_t es = k->es;
    for (int64_t j = 0; j < cols; j++) {
        int64_t a, b;
        if (!col_rows(k, x0, y0, j, 0, rows, &a, &b))
            continue;
        for (int64_t i = a; i < b; i++)
            memcpy(dst + (size_t)j * ldd + (size_t)i * es, src + (size_t)i * lds +
                   (size_t)j * es, es);
    }
}

void nt_copy_op_2d(const nt_copy_op *k, void *dst, int64_t ldd, const void *src, int64_t lds,
                   int64_t rows, int64_t cols, int64_t x0, int64_t y0, unsigned flags)
{
    if (rows <= 0 || cols <= 0)
        return;
    size_t es = k->es, bd = (size_t)ldd * es, bs = (size_t)lds * es;
    bool stream = (flags & NT_COPY_STREAM) && k->beta0 && nt_copy_has_stream();
    if (!k->trans)
        block_n(k, dst, bd, src, bs, rows, cols, x0, y0, stream);
    else if (es > LINE)
        block_t_wide(k, dst, bd, src, bs, rows, cols, x0, y0);
    else
        block_t(k, dst, bd, src, bs, rows, cols, x0, y0, stream);
    if (stream && !(flags & NT_COPY_NOFENCE))
        nt_copy_fence();
}
