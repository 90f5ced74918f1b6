// GEMM and TRSM tile kernels: argument checks, then the selected BLAS through nt_blas.h.
#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

// Rows x cols operand stored column-major with leading dimension ld: BLIS and OpenBLAS abort
// on ld < rows (unless the operand is empty) and read through the pointer whenever
// rows * cols > 0.
static nt_status check_operand(const char *name, int64_t rows, int64_t cols, const double *p,
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

static nt_status gemm_run(int nthreads, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const double *A, int64_t lda, const double *B,
                          int64_t ldb, double beta, double *C, int64_t ldc)
{
    if (m < 0 || n < 0 || k < 0)
        return nt_fail(NT_EINVAL, "gemm kernel: m = %lld, n = %lld, k = %lld must be >= 0",
                       (long long)m, (long long)n, (long long)k);
    if (nthreads < 1)
        return nt_fail(NT_EINVAL, "gemm kernel: nthreads = %d must be >= 1", nthreads);
    if (m > nt_blas_dim_max() || n > nt_blas_dim_max() || k > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "gemm kernel: m = %lld, n = %lld, k = %lld exceed the BLAS's "
                       "index range (%lld)", (long long)m, (long long)n, (long long)k,
                       (long long)nt_blas_dim_max());
    nt_status st;
    if ((st = check_operand("a", ta ? k : m, ta ? m : k, A, lda)) != NT_OK ||
        (st = check_operand("b", tb ? n : k, tb ? k : n, B, ldb)) != NT_OK ||
        (st = check_operand("c", m, n, C, ldc)) != NT_OK)
        return st;
    if (m == 0 || n == 0)
        return NT_OK;
    if (k == 0 || alpha == 0.0) {
        // Nothing to multiply: scale C here (beta = 0 overwrites, as BLAS does, even NaNs).
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                C[i + j * ldc] = beta == 0.0 ? 0.0 : beta * C[i + j * ldc];
        return NT_OK;
    }
    nt_blas_dgemm(nthreads, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return NT_OK;
}

nt_status nt_kern_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc)
{
    return gemm_run(1, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

nt_status nt_kern_gemm_threads(int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                               int64_t k, double alpha, const double *A, int64_t lda,
                               const double *B, int64_t ldb, double beta, double *C,
                               int64_t ldc)
{
    return gemm_run(nthreads, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

nt_status nt_kern_trsm_upper(int64_t m, int64_t n, const double *R, int64_t ldr, double *B,
                             int64_t ldb)
{
    if (m < 0 || n < 0)
        return nt_fail(NT_EINVAL, "trsm kernel: m = %lld, n = %lld must be >= 0", (long long)m,
                       (long long)n);
    if (n > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "trsm kernel: n = %lld exceeds the BLAS's index range (%lld)",
                       (long long)n, (long long)nt_blas_dim_max());
    nt_status st;
    if ((st = check_operand("r", m, m, R, ldr)) != NT_OK ||
        (st = check_operand("b", m, n, B, ldb)) != NT_OK)
        return st;
    if (m == 0 || n == 0)
        return NT_OK;
    nt_blas_dtrsm_upper(m, n, R, ldr, B, ldb);
    return NT_OK;
}
