// GEMM tile kernel with BLIS, and BLIS's process-wide thread setting. The only lib/ file that
// includes blis.h (FLAME.h declares the same BLAS prototypes differently).
#include <limits.h>
#include <pthread.h>

// blis.h is not clean under -Wextra (unused parameters and functions in its inline helpers);
// silence that for the header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <blis.h>
#pragma GCC diagnostic pop

#include "nt_core.h"
#include "nt_kernels.h"

// Rows x cols operand stored column-major with leading dimension ld: BLIS aborts on ld < rows
// (unless the operand is empty) and reads through the pointer whenever rows * cols > 0.
static nt_status check_operand(const char *name, int64_t rows, int64_t cols, const double *p,
                               int64_t ld)
{
    if (ld < (rows > 1 ? rows : 1))
        return nt_fail(NT_EINVAL, "blas kernel: ld%s = %lld < max(1, %lld rows)", name,
                       (long long)ld, (long long)rows);
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
    // The expert interface takes a per-call runtime object: the thread count applies to this
    // call only, whatever BLIS_NUM_THREADS or bli_thread_set_num_threads() say, so tasks
    // running concurrently each get exactly one BLIS thread.
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads((dim_t)nthreads, &rntm);
    // BLIS's typed API is not const-correct; it only reads A and B.
    bli_dgemm_ex(ta ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, tb ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
                 (dim_t)m, (dim_t)n, (dim_t)k, &alpha, (double *)A, 1, (inc_t)lda, (double *)B, 1,
                 (inc_t)ldb, &beta, C, 1, (inc_t)ldc, NULL, &rntm);
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
    nt_status st;
    if ((st = check_operand("r", m, m, R, ldr)) != NT_OK ||
        (st = check_operand("b", m, n, B, ldb)) != NT_OK)
        return st;
    if (m == 0 || n == 0)
        return NT_OK;
    double one = 1.0;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rntm);
    bli_dtrsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, (dim_t)m, (dim_t)n,
                 &one, (double *)R, 1, (inc_t)ldr, B, 1, (inc_t)ldb, NULL, &rntm);
    return NT_OK;
}

static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static int serial_depth;
static dim_t serial_saved;

void nt_blas_serial_begin(void)
{
    pthread_mutex_lock(&serial_lock);
    if (serial_depth++ == 0) {
        serial_saved = bli_thread_get_num_threads();
        bli_thread_set_num_threads(1);
    }
    pthread_mutex_unlock(&serial_lock);
}

void nt_blas_serial_end(void)
{
    pthread_mutex_lock(&serial_lock);
    if (serial_depth > 0 && --serial_depth == 0 && serial_saved > 1)
        bli_thread_set_num_threads(serial_saved);
    pthread_mutex_unlock(&serial_lock);
}

int nt_blas_set_threads(int nthreads)
{
    pthread_mutex_lock(&serial_lock);
    dim_t old = bli_thread_get_num_threads();
    if (nthreads >= 1)
        bli_thread_set_num_threads((dim_t)nthreads);
    pthread_mutex_unlock(&serial_lock);
    return old > INT_MAX ? INT_MAX : (int)old;
}
