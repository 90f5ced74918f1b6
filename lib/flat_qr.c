// Flat reference QR with libFLAME's FLA_QR_UT on one column-major matrix, BLIS multithreaded
// underneath: the baseline the tiled QR is measured against.
#include <FLAME.h>
#include <limits.h>
#include <pthread.h>

#include "nt_core.h"
#include "nt_kernels.h"

static pthread_once_t flame_once = PTHREAD_ONCE_INIT;

// FLA_Init sets up libFLAME's global state (control trees, constants); it is not re-entrant,
// so it runs exactly once per process whichever thread gets here first.
static void flame_init(void)
{
    if (!FLA_Initialized())
        FLA_Init();
}

nt_status nt_flame_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    if (nthreads < 1)
        return nt_fail(NT_EINVAL, "flat QR: nthreads = %d must be >= 1", nthreads);
    if (m < 1 || n < 1 || m > INT_MAX || n > INT_MAX)
        return nt_fail(NT_EINVAL, "flat QR: m = %lld, n = %lld must be in 1..INT_MAX",
                       (long long)m, (long long)n);
    if (lda < m)
        return nt_fail(NT_EINVAL, "flat QR: lda = %lld < m = %lld", (long long)lda,
                       (long long)m);
    if (!A)
        return nt_fail(NT_EINVAL, "flat QR: A is NULL");
    pthread_once(&flame_once, flame_init);
    FLA_Obj a, t;
    FLA_Obj_create_without_buffer(FLA_DOUBLE, (dim_t)m, (dim_t)n, &a);
    FLA_Obj_attach_buffer(A, 1, (dim_t)lda, &a);
    if (FLA_QR_UT_create_T(a, &t) != FLA_SUCCESS) {
        FLA_Obj_free_without_buffer(&a);
        return nt_fail(NT_ENOMEM, "flat QR: cannot allocate T");
    }
    // libFLAME reaches BLIS through the BLAS layer, which follows BLIS's global thread count.
    int old = nt_blas_set_threads(nthreads);
    FLA_QR_UT(a, t);
    nt_blas_set_threads(old >= 1 ? old : 1);
    FLA_Obj_free(&t);
    FLA_Obj_free_without_buffer(&a);
    return NT_OK;
}
