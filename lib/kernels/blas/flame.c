// LAPACK backend for BLAS=blis: libFLAME's LAPACK-compatible tile routines in s, d, c, z (its
// f2c'ed layer, prototypes in nt_lapack.h) and the flat FLA_QR_UT baseline. libFLAME reaches
// BLIS through the BLAS layer, so its thread count is BLIS's process-wide one (see
// nt_blas_serial_begin).
#include <FLAME.h>
#include <pthread.h>

#include "lib/kernels/tile/nt_blas.h"
#include "nt_blis.h"
#include "nt_core.h"
#include "lib/kernels/tile/nt_lapack.h"

// "trans" is Q^T for real types and Q^H for complex ones (LAPACK's 'T' is not allowed there).
static char trans_char(nt_dtype t, bool trans)
{
    return !trans ? 'N' : t == NT_DTYPE_C || t == NT_DTYPE_Z ? 'C' : 'T';
}

int nt_lapack_geqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *T, int ldt,
                    void *work)
{
    int info = 0;
    switch (t) {
    case NT_DTYPE_S:
        sgeqrt_(&m, &n, &ib, A, &lda, T, &ldt, work, &info);
        break;
    case NT_DTYPE_D:
        dgeqrt_(&m, &n, &ib, A, &lda, T, &ldt, work, &info);
        break;
    case NT_DTYPE_C:
        cgeqrt_(&m, &n, &ib, A, &lda, T, &ldt, work, &info);
        break;
    case NT_DTYPE_Z:
        zgeqrt_(&m, &n, &ib, A, &lda, T, &ldt, work, &info);
        break;
    default:
        info = -1000; // the wrappers never pass another type
    }
    return info;
}

int nt_lapack_gemqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V, int ldv,
                     const void *T, int ldt, void *C, int ldc, void *work)
{
    char side = 'L', tr = trans_char(t, trans);
    int info = 0;
    // xgemqrt only reads V and T; its f2c prototype is not const-qualified.
    void *v = (void *)V, *tt = (void *)T;
    switch (t) {
    case NT_DTYPE_S:
        sgemqrt_(&side, &tr, &m, &n, &k, &ib, v, &ldv, tt, &ldt, C, &ldc, work, &info);
        break;
    case NT_DTYPE_D:
        dgemqrt_(&side, &tr, &m, &n, &k, &ib, v, &ldv, tt, &ldt, C, &ldc, work, &info);
        break;
    case NT_DTYPE_C:
        cgemqrt_(&side, &tr, &m, &n, &k, &ib, v, &ldv, tt, &ldt, C, &ldc, work, &info);
        break;
    case NT_DTYPE_Z:
        zgemqrt_(&side, &tr, &m, &n, &k, &ib, v, &ldv, tt, &ldt, C, &ldc, work, &info);
        break;
    default:
        info = -1000;
    }
    return info;
}

int nt_lapack_tpqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *B, int ldb,
                    void *T, int ldt, void *work)
{
    int l = 0, info = 0;
    switch (t) {
    case NT_DTYPE_S:
        stpqrt_(&m, &n, &l, &ib, A, &lda, B, &ldb, T, &ldt, work, &info);
        break;
    case NT_DTYPE_D:
        dtpqrt_(&m, &n, &l, &ib, A, &lda, B, &ldb, T, &ldt, work, &info);
        break;
    case NT_DTYPE_C:
        ctpqrt_(&m, &n, &l, &ib, A, &lda, B, &ldb, T, &ldt, work, &info);
        break;
    case NT_DTYPE_Z:
        ztpqrt_(&m, &n, &l, &ib, A, &lda, B, &ldb, T, &ldt, work, &info);
        break;
    default:
        info = -1000;
    }
    return info;
}

int nt_lapack_tpmqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V,
                     int ldv, const void *T, int ldt, void *A, int lda, void *B, int ldb,
                     void *work)
{
    char side = 'L', tr = trans_char(t, trans);
    int l = 0, info = 0;
    // xtpmqrt only reads V and T; its f2c prototype is not const-qualified.
    void *v = (void *)V, *tt = (void *)T;
    switch (t) {
    case NT_DTYPE_S:
        stpmqrt_(&side, &tr, &m, &n, &k, &l, &ib, v, &ldv, tt, &ldt, A, &lda, B, &ldb, work,
                 &info);
        break;
    case NT_DTYPE_D:
        dtpmqrt_(&side, &tr, &m, &n, &k, &l, &ib, v, &ldv, tt, &ldt, A, &lda, B, &ldb, work,
                 &info);
        break;
    case NT_DTYPE_C:
        ctpmqrt_(&side, &tr, &m, &n, &k, &l, &ib, v, &ldv, tt, &ldt, A, &lda, B, &ldb, work,
                 &info);
        break;
    case NT_DTYPE_Z:
        ztpmqrt_(&side, &tr, &m, &n, &k, &l, &ib, v, &ldv, tt, &ldt, A, &lda, B, &ldb, work,
                 &info);
        break;
    default:
        info = -1000;
    }
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
