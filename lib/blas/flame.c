// LAPACK backend for BLAS=blis: libFLAME's LAPACK-compatible tile routines (its f2c'ed layer,
// prototypes in nt_lapack.h) and the flat FLA_QR_UT baseline. libFLAME reaches BLIS through the
// BLAS layer, so its thread count is BLIS's process-wide one (see nt_blas_serial_begin).
#include <FLAME.h>
#include <pthread.h>

#include "nt_blas.h"
#include "nt_blis.h"
#include "nt_core.h"
#include "nt_lapack.h"

int nt_lapack_dgeqrt(int m, int n, int ib, double *A, int lda, double *T, int ldt, double *work)
{
    int info = 0;
    dgeqrt_(&m, &n, &ib, A, &lda, T, &ldt, work, &info);
    return info;
}

int nt_lapack_dgemqrt(bool trans, int m, int n, int k, int ib, const double *V, int ldv,
                      const double *T, int ldt, double *C, int ldc, double *work)
{
    char side = 'L', tr = trans ? 'T' : 'N';
    int info = 0;
    // dgemqrt only reads V and T; its f2c prototype is not const-qualified.
    dgemqrt_(&side, &tr, &m, &n, &k, &ib, (double *)V, &ldv, (double *)T, &ldt, C, &ldc, work,
             &info);
    return info;
}

int nt_lapack_dtpqrt(int m, int n, int ib, double *A, int lda, double *B, int ldb, double *T,
                     int ldt, double *work)
{
    int l = 0, info = 0;
    dtpqrt_(&m, &n, &l, &ib, A, &lda, B, &ldb, T, &ldt, work, &info);
    return info;
}

int nt_lapack_dtpmqrt(bool trans, int m, int n, int k, int ib, const double *V, int ldv,
                      const double *T, int ldt, double *A, int lda, double *B, int ldb,
                      double *work)
{
    char side = 'L', tr = trans ? 'T' : 'N';
    int l = 0, info = 0;
    // dtpmqrt only reads V and T; its f2c prototype is not const-qualified.
    dtpmqrt_(&side, &tr, &m, &n, &k, &l, &ib, (double *)V, &ldv, (double *)T, &ldt, A, &lda, B,
             &ldb, work, &info);
    return info;
}

static pthread_once_t flame_once = PTHREAD_ONCE_INIT;

// FLA_Init sets up libFLAME's global state (control trees, constants); it is not re-entrant,
// so it runs exactly once per process whichever thread gets here first.
static void flame_init(void)
{
    if (!FLA_Initialized())
        FLA_Init();
}

nt_status nt_blas_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    pthread_once(&flame_once, flame_init);
    FLA_Obj a, t;
    FLA_Obj_create_without_buffer(FLA_DOUBLE, (dim_t)m, (dim_t)n, &a);
    FLA_Obj_attach_buffer(A, 1, (dim_t)lda, &a);
    if (FLA_QR_UT_create_T(a, &t) != FLA_SUCCESS) {
        FLA_Obj_free_without_buffer(&a);
        return nt_fail(NT_ENOMEM, "flat QR: cannot allocate T");
    }
    // libFLAME reaches BLIS through the BLAS layer, which follows BLIS's global thread count.
    int old = nt_blis_set_threads(nthreads);
    FLA_QR_UT(a, t);
    nt_blis_set_threads(old >= 1 ? old : 1);
    FLA_Obj_free(&t);
    FLA_Obj_free_without_buffer(&a);
    return NT_OK;
}
