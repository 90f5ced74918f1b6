// BLAS backend for BLAS=blis: GEMM and TRSM with BLIS, BLIS's process-wide thread count and the
// library name. The only file that includes blis.h (FLAME.h, in flame.c, declares the same BLAS
// prototypes differently).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

// blis.h is not clean under -Wextra (unused parameters and functions in its inline helpers);
// silence that for the header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <blis.h>
#pragma GCC diagnostic pop

#include "nt_blis.h"
#include "nt_blas.h"
#include "numatile/version.h"

int64_t nt_blas_dim_max(void)
{
    return INT64_MAX;
}

void nt_blas_dgemm(int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                   double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                   double beta, double *C, int64_t ldc)
{
    // The expert interface takes a per-call runtime object: the thread count applies to this
    // call only, whatever BLIS_NUM_THREADS or bli_thread_set_num_threads() say, so tasks
    // running concurrently each get exactly one BLIS thread.
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads((dim_t)nthreads, &rntm);
    // BLIS's typed API is not const-correct; it only reads A and B.
    bli_dgemm_ex(trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
                 trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, (dim_t)m, (dim_t)n, (dim_t)k,
                 &alpha, (double *)A, 1, (inc_t)lda, (double *)B, 1, (inc_t)ldb, &beta, C, 1,
                 (inc_t)ldc, NULL, &rntm);
}

void nt_blas_dtrsm_upper(int64_t m, int64_t n, const double *R, int64_t ldr, double *B,
                         int64_t ldb)
{
    double one = 1.0;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rntm);
    bli_dtrsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, (dim_t)m, (dim_t)n,
                 &one, (double *)R, 1, (inc_t)ldr, B, 1, (inc_t)ldb, NULL, &rntm);
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

int nt_blis_set_threads(int nthreads)
{
    pthread_mutex_lock(&serial_lock);
    dim_t old = bli_thread_get_num_threads();
    if (nthreads >= 1)
        bli_thread_set_num_threads((dim_t)nthreads);
    pthread_mutex_unlock(&serial_lock);
    return old > INT32_MAX ? INT32_MAX : (int)old;
}

static pthread_once_t name_once = PTHREAD_ONCE_INIT;
static char name_buf[96];

// The configuration BLIS selected at run time for this CPU (Debian builds every x86-64
// configuration and picks one at initialisation), e.g. "zen3".
static void name_init(void)
{
    snprintf(name_buf, sizeof name_buf, "blis %s (%s)", bli_info_get_version_str(),
             bli_arch_string(bli_arch_query_id()));
}

const char *nt_blas_name(void)
{
    pthread_once(&name_once, name_init);
    return name_buf;
}
