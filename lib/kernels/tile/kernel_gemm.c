// GEMM and TRSM tile kernels in s, d, c, z: argument checks, then the selected BLAS through
// nt_blas.h.
#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

// Rows x cols operand stored column-major with leading dimension ld: BLIS and OpenBLAS abort
// on ld < rows (unless the operand is empty) and read through the pointer whenever
// rows * cols > 0.
static nt_status check_operand(const char *name, int64_t rows, int64_t cols, const void *p,
                               int64_t ld)
{
    if (ld < (rows > 1 ? rows : 1))
        return nt_fail(NT_EINVAL, "blas kernel: ld%s = %lld < max(1, %lld rows)", name,
                       (long long)ld, (long long)rows);
    if (ld > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "blas kernel: ld%s = %lld exceeds the BLAS's index range "
                       "(%lld)", name, (long long)ld, (long long)nt_blas_dim_max());
    if (rows > 0 && cols > 0 && !p)
        return nt_fail(NT_EINVAL, "blas kernel: %s is NULL", name);
    int64_t span;
    if (!nt_mul_i64(ld, cols, &span))
        return nt_fail(NT_ERANGE, "blas kernel: ld%s x columns overflows", name);
    return NT_OK;
}

nt_status nt_kern_check_dtype(const char *who, nt_dtype t)
{
    if (t != NT_DTYPE_S && t != NT_DTYPE_D && t != NT_DTYPE_C && t != NT_DTYPE_Z)
        return nt_fail(NT_EINVAL, "%s kernel: element type %d is not s, d, c or z", who, (int)t);
    return NT_OK;
}

// One element of type t holding the real value x (complex: imaginary part 0).
typedef union scalar {
    float s;
    double d;
    float c[2];
    double z[2];
} scalar;

static scalar scalar_of(nt_dtype t, double x)
{
    scalar v = {.z = {0.0, 0.0}};
    if (t == NT_DTYPE_S)
        v.s = (float)x;
    else if (t == NT_DTYPE_D)
        v.d = x;
    else if (t == NT_DTYPE_C)
        v.c[0] = (float)x;
    else
        v.z[0] = x;
    return v;
}

// C (m x n) = beta C with a real beta: each real and imaginary part scales alone. beta = 0
// overwrites (even NaNs), as BLAS does.
static void scale(nt_dtype t, int64_t m, int64_t n, double beta, void *C, int64_t ldc)
{
    int64_t parts = t == NT_DTYPE_C || t == NT_DTYPE_Z ? 2 : 1;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m * parts; i++) {
            int64_t x = i + j * ldc * parts;
            if (t == NT_DTYPE_S || t == NT_DTYPE_C) {
                float *c = C;
                c[x] = beta == 0.0 ? 0.0f : (float)beta * c[x];
            } else {
                double *c = C;
                c[x] = beta == 0.0 ? 0.0 : beta * c[x];
            }
        }
}

nt_status nt_kern_gemm_typed(nt_dtype t, int nthreads, bool ta, bool tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const void *A, int64_t lda, const void *B,
                             int64_t ldb, double beta, void *C, int64_t ldc)
{
    nt_status st;
    if ((st = nt_kern_check_dtype("gemm", t)) != NT_OK)
        return st;
    if (m < 0 || n < 0 || k < 0)
        return nt_fail(NT_EINVAL, "gemm kernel: m = %lld, n = %lld, k = %lld must be >= 0",
                       (long long)m, (long long)n, (long long)k);
    if (nthreads < 1)
        return nt_fail(NT_EINVAL, "gemm kernel: nthreads = %d must be >= 1", nthreads);
    if (m > nt_blas_dim_max() || n > nt_blas_dim_max() || k > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "gemm kernel: m = %lld, n = %lld, k = %lld exceed the BLAS's "
                       "index range (%lld)", (long long)m, (long long)n, (long long)k,
                       (long long)nt_blas_dim_max());
    if ((st = check_operand("a", ta ? k : m, ta ? m : k, A, lda)) != NT_OK ||
        (st = check_operand("b", tb ? n : k, tb ? k : n, B, ldb)) != NT_OK ||
        (st = check_operand("c", m, n, C, ldc)) != NT_OK)
        return st;
    if (m == 0 || n == 0)
        return NT_OK;
    if (k == 0 || alpha == 0.0) {
        scale(t, m, n, beta, C, ldc); // nothing to multiply
        return NT_OK;
    }
    scalar a = scalar_of(t, alpha), b = scalar_of(t, beta);
    nt_blas_gemm(t, nthreads, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
    return NT_OK;
}

nt_status nt_kern_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc)
{
    return nt_kern_gemm_typed(NT_DTYPE_D, 1, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb,
                              beta, C, ldc);
}

nt_status nt_kern_gemm_threads(int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                               int64_t k, double alpha, const double *A, int64_t lda,
                               const double *B, int64_t ldb, double beta, double *C,
                               int64_t ldc)
{
    return nt_kern_gemm_typed(NT_DTYPE_D, nthreads, trans_a, trans_b, m, n, k, alpha, A, lda, B,
                              ldb, beta, C, ldc);
}

nt_status nt_kern_trsm_upper_typed(nt_dtype t, int64_t m, int64_t n, const void *R, int64_t ldr,
                                   void *B, int64_t ldb)
{
    nt_status st;
    if ((st = nt_kern_check_dtype("trsm", t)) != NT_OK)
        return st;
    if (m < 0 || n < 0)
        return nt_fail(NT_EINVAL, "trsm kernel: m = %lld, n = %lld must be >= 0", (long long)m,
                       (long long)n);
    if (n > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "trsm kernel: n = %lld exceeds the BLAS's index range (%lld)",
                       (long long)n, (long long)nt_blas_dim_max());
    if ((st = check_operand("r", m, m, R, ldr)) != NT_OK ||
        (st = check_operand("b", m, n, B, ldb)) != NT_OK)
        return st;
    if (m == 0 || n == 0)
        return NT_OK;
    nt_blas_trsm_upper(t, m, n, R, ldr, B, ldb);
    return NT_OK;
}

nt_status nt_kern_trsm_upper(int64_t m, int64_t n, const double *R, int64_t ldr, double *B,
                             int64_t ldb)
{
    return nt_kern_trsm_upper_typed(NT_DTYPE_D, m, n, R, ldr, B, ldb);
}
