// BLAS backend for BLAS=blis: GEMM and TRSM with BLIS (s, d, c, z), BLIS's process-wide thread
// count and the library name. The only file that includes blis.h (FLAME.h, in flame.c, declares the
// same BLAS prototypes differently).
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
#include "lib/kernels/tile/nt_blas.h"
#include "numatile/version.h"

int64_t nt_blas_dim_max(void)
{
    return INT64_MAX;
}

// One library thread count for this call only, whatever BLIS_NUM_THREADS or
// bli_thread_set_num_threads() say: the expert interface takes a per-call runtime object, so
// tasks running concurrently each get exactly the threads they ask for.
static rntm_t rntm_of(int nthreads)
{
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads((dim_t)nthreads, &rntm);
    return rntm;
}

// "trans" is the transpose for real types and the conjugate transpose for complex ones.
static trans_t op_of(nt_dtype t, bool trans)
{
    if (!trans)
        return BLIS_NO_TRANSPOSE;
    return t == NT_DTYPE_C || t == NT_DTYPE_Z ? BLIS_CONJ_TRANSPOSE : BLIS_TRANSPOSE;
}

void nt_blas_gemm(nt_dtype t, int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                  int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    rntm_t rntm = rntm_of(nthreads);
    trans_t ta = op_of(t, trans_a), tb = op_of(t, trans_b);
    dim_t dm = (dim_t)m, dn = (dim_t)n, dk = (dim_t)k;
    inc_t la = (inc_t)lda, lb = (inc_t)ldb, lc = (inc_t)ldc;
    // BLIS's typed API is not const-correct; it only reads alpha, beta, A and B.
    switch (t) {
    case NT_DTYPE_S:
        bli_sgemm_ex(ta, tb, dm, dn, dk, (float *)alpha, (float *)A, 1, la, (float *)B, 1, lb,
                     (float *)beta, C, 1, lc, NULL, &rntm);
        break;
    case NT_DTYPE_D:
        bli_dgemm_ex(ta, tb, dm, dn, dk, (double *)alpha, (double *)A, 1, la, (double *)B, 1, lb,
                     (double *)beta, C, 1, lc, NULL, &rntm);
        break;
    case NT_DTYPE_C:
        bli_cgemm_ex(ta, tb, dm, dn, dk, (scomplex *)alpha, (scomplex *)A, 1, la,
                     (scomplex *)B, 1, lb, (scomplex *)beta, C, 1, lc, NULL, &rntm);
        break;
    case NT_DTYPE_Z:
        bli_zgemm_ex(ta, tb, dm, dn, dk, (dcomplex *)alpha, (dcomplex *)A, 1, la,
                     (dcomplex *)B, 1, lb, (dcomplex *)beta, C, 1, lc, NULL, &rntm);
        break;
    default:
        break; // the wrappers never pass another type
    }
}

void nt_blas_trsm_upper(nt_dtype t, int64_t m, int64_t n, const void *R, int64_t ldr, void *B,
                        int64_t ldb)
{
    rntm_t rntm = rntm_of(1);
    float s1 = 1.0f;
    double d1 = 1.0;
    scomplex c1 = {1.0f, 0.0f};
    dcomplex z1 = {1.0, 0.0};
    dim_t dm = (dim_t)m, dn = (dim_t)n;
    inc_t lr = (inc_t)ldr, lb = (inc_t)ldb;
    switch (t) {
    case NT_DTYPE_S:
        bli_strsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, dm, dn, &s1,
                     (float *)R, 1, lr, B, 1, lb, NULL, &rntm);
        break;
    case NT_DTYPE_D:
        bli_dtrsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, dm, dn, &d1,
                     (double *)R, 1, lr, B, 1, lb, NULL, &rntm);
        break;
    case NT_DTYPE_C:
        bli_ctrsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, dm, dn, &c1,
                     (scomplex *)R, 1, lr, B, 1, lb, NULL, &rntm);
        break;
    case NT_DTYPE_Z:
        bli_ztrsm_ex(BLIS_LEFT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, dm, dn, &z1,
                     (dcomplex *)R, 1, lr, B, 1, lb, NULL, &rntm);
        break;
    default:
        break;
    }
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
