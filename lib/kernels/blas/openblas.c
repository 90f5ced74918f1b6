// BLAS and LAPACK backend for BLAS=openblas (Debian's OpenMP build, libopenblas-openmp-dev):
// GEMM and TRSM through CBLAS, the tile routines (s, d, c, z) and the flat dgeqrf from the LAPACK
// bundled in OpenBLAS, and the library name. No libFLAME and no BLIS in this build.
#include <cblas.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/kernels/tile/nt_blas.h"
#include "nt_core.h"
#include "numatile/version.h"

// OpenBLAS's LAPACK is gfortran-compiled: every argument by address, and each CHARACTER
// argument adds a hidden length (size_t) at the end of the list. Not declared by cblas.h.
// Complex arrays are void * (Fortran COMPLEX layout: real, imaginary).
void sgeqrt_(const int *m, const int *n, const int *nb, float *a, const int *lda, float *t,
             const int *ldt, float *work, int *info);
void sgemqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *nb, const float *v, const int *ldv, const float *t, const int *ldt,
              float *c, const int *ldc, float *work, int *info, size_t side_len,
              size_t trans_len);
void stpqrt_(const int *m, const int *n, const int *l, const int *nb, float *a, const int *lda,
             float *b, const int *ldb, float *t, const int *ldt, float *work, int *info);
void stpmqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *l, const int *nb, const float *v, const int *ldv, const float *t,
              const int *ldt, float *a, const int *lda, float *b, const int *ldb, float *work,
              int *info, size_t side_len, size_t trans_len);
void dgeqrt_(const int *m, const int *n, const int *nb, double *a, const int *lda, double *t,
             const int *ldt, double *work, int *info);
void dgemqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *nb, const double *v, const int *ldv, const double *t, const int *ldt,
              double *c, const int *ldc, double *work, int *info, size_t side_len,
              size_t trans_len);
void dtpqrt_(const int *m, const int *n, const int *l, const int *nb, double *a, const int *lda,
             double *b, const int *ldb, double *t, const int *ldt, double *work, int *info);
void dtpmqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *l, const int *nb, const double *v, const int *ldv, const double *t,
              const int *ldt, double *a, const int *lda, double *b, const int *ldb, double *work,
              int *info, size_t side_len, size_t trans_len);
void cgeqrt_(const int *m, const int *n, const int *nb, void *a, const int *lda, void *t,
             const int *ldt, void *work, int *info);
void cgemqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *nb, const void *v, const int *ldv, const void *t, const int *ldt,
              void *c, const int *ldc, void *work, int *info, size_t side_len,
              size_t trans_len);
void ctpqrt_(const int *m, const int *n, const int *l, const int *nb, void *a, const int *lda,
             void *b, const int *ldb, void *t, const int *ldt, void *work, int *info);
void ctpmqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *l, const int *nb, const void *v, const int *ldv, const void *t,
              const int *ldt, void *a, const int *lda, void *b, const int *ldb, void *work,
              int *info, size_t side_len, size_t trans_len);
void zgeqrt_(const int *m, const int *n, const int *nb, void *a, const int *lda, void *t,
             const int *ldt, void *work, int *info);
void zgemqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *nb, const void *v, const int *ldv, const void *t, const int *ldt,
              void *c, const int *ldc, void *work, int *info, size_t side_len,
              size_t trans_len);
void ztpqrt_(const int *m, const int *n, const int *l, const int *nb, void *a, const int *lda,
             void *b, const int *ldb, void *t, const int *ldt, void *work, int *info);
void ztpmqrt_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const int *l, const int *nb, const void *v, const int *ldv, const void *t,
              const int *ldt, void *a, const int *lda, void *b, const int *ldb, void *work,
              int *info, size_t side_len, size_t trans_len);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);

// How many threads a call runs. OpenBLAS's OpenMP build (0.3.21, num_cpu_avail in
// common_thread.h) decides per call: one thread inside an active parallel region
// (omp_in_parallel()) or when the calling task's omp_get_max_threads() is 1, otherwise
// omp_get_max_threads() threads (its parallel construct takes the ICV, no num_threads clause).
// So a tile kernel inside a team of several threads runs single-threaded by itself, but inside
// a team of one (an inactive region) or outside any region it would open a nested team of
// omp_get_max_threads(). openblas_set_num_threads() is no cure: the next call resets the count
// to omp_get_max_threads(), and it calls omp_set_num_threads() on the caller as a side effect.
// The count is therefore set where this build reads it, in the calling task's nthreads-var ICV,
// for the duration of one call: inside a region that ICV belongs to the current task alone, so
// concurrent tasks and the caller's later regions never see the change.
static int threads_enter(int nthreads)
{
    int old = omp_get_max_threads();
    if (old != nthreads && !(nthreads == 1 && omp_in_parallel()))
        omp_set_num_threads(nthreads);
    return old;
}

// Restore the caller's ICV (OpenBLAS itself may have set it to the count it used).
static void threads_leave(int old)
{
    if (omp_get_max_threads() != old)
        omp_set_num_threads(old);
}

int64_t nt_blas_dim_max(void)
{
    return INT_MAX; // blasint is int: Debian's OpenBLAS is built without INTERFACE64
}

static bool is_complex(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z;
}

// "trans" is the transpose for real types and the conjugate transpose for complex ones.
static enum CBLAS_TRANSPOSE op_of(nt_dtype t, bool trans)
{
    return !trans ? CblasNoTrans : is_complex(t) ? CblasConjTrans : CblasTrans;
}

void nt_blas_gemm(nt_dtype t, int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                  int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    int old = threads_enter(nthreads);
    enum CBLAS_TRANSPOSE ta = op_of(t, trans_a), tb = op_of(t, trans_b);
    blasint bm = (blasint)m, bn = (blasint)n, bk = (blasint)k;
    blasint la = (blasint)lda, lb = (blasint)ldb, lc = (blasint)ldc;
    switch (t) {
    case NT_DTYPE_S:
        cblas_sgemm(CblasColMajor, ta, tb, bm, bn, bk, *(const float *)alpha, A, la, B, lb,
                    *(const float *)beta, C, lc);
        break;
    case NT_DTYPE_D:
        cblas_dgemm(CblasColMajor, ta, tb, bm, bn, bk, *(const double *)alpha, A, la, B, lb,
                    *(const double *)beta, C, lc);
        break;
    case NT_DTYPE_C:
        cblas_cgemm(CblasColMajor, ta, tb, bm, bn, bk, alpha, A, la, B, lb, beta, C, lc);
        break;
    case NT_DTYPE_Z:
        cblas_zgemm(CblasColMajor, ta, tb, bm, bn, bk, alpha, A, la, B, lb, beta, C, lc);
        break;
    default:
        break; // the wrappers never pass another type
    }
    threads_leave(old);
}

void nt_blas_trsm_upper(nt_dtype t, int64_t m, int64_t n, const void *R, int64_t ldr, void *B,
                        int64_t ldb)
{
    int old = threads_enter(1);
    static const float c1[2] = {1.0f, 0.0f};
    static const double z1[2] = {1.0, 0.0};
    blasint bm = (blasint)m, bn = (blasint)n, lr = (blasint)ldr, lb = (blasint)ldb;
    switch (t) {
    case NT_DTYPE_S:
        cblas_strsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, bm, bn,
                    1.0f, R, lr, B, lb);
        break;
    case NT_DTYPE_D:
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, bm, bn,
                    1.0, R, lr, B, lb);
        break;
    case NT_DTYPE_C:
        cblas_ctrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, bm, bn,
                    c1, R, lr, B, lb);
        break;
    case NT_DTYPE_Z:
        cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, bm, bn,
                    z1, R, lr, B, lb);
        break;
    default:
        break;
    }
    threads_leave(old);
}

int nt_lapack_geqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *T, int ldt,
                    void *work)
{
    int info = 0, old = threads_enter(1);
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
        info = -1000;
    }
    threads_leave(old);
    return info;
}

int nt_lapack_gemqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V, int ldv,
                     const void *T, int ldt, void *C, int ldc, void *work)
{
    int info = 0, old = threads_enter(1);
    const char *tr = !trans ? "N" : is_complex(t) ? "C" : "T";
    switch (t) {
    case NT_DTYPE_S:
        sgemqrt_("L", tr, &m, &n, &k, &ib, V, &ldv, T, &ldt, C, &ldc, work, &info, 1, 1);
        break;
    case NT_DTYPE_D:
        dgemqrt_("L", tr, &m, &n, &k, &ib, V, &ldv, T, &ldt, C, &ldc, work, &info, 1, 1);
        break;
    case NT_DTYPE_C:
        cgemqrt_("L", tr, &m, &n, &k, &ib, V, &ldv, T, &ldt, C, &ldc, work, &info, 1, 1);
        break;
    case NT_DTYPE_Z:
        zgemqrt_("L", tr, &m, &n, &k, &ib, V, &ldv, T, &ldt, C, &ldc, work, &info, 1, 1);
        break;
    default:
        info = -1000;
    }
    threads_leave(old);
    return info;
}

int nt_lapack_tpqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *B, int ldb,
                    void *T, int ldt, void *work)
{
    int l = 0, info = 0, old = threads_enter(1);
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
    threads_leave(old);
    return info;
}

int nt_lapack_tpmqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V,
                     int ldv, const void *T, int ldt, void *A, int lda, void *B, int ldb,
                     void *work)
{
    int l = 0, info = 0, old = threads_enter(1);
    const char *tr = !trans ? "N" : is_complex(t) ? "C" : "T";
    switch (t) {
    case NT_DTYPE_S:
        stpmqrt_("L", tr, &m, &n, &k, &l, &ib, V, &ldv, T, &ldt, A, &lda, B, &ldb, work, &info,
                 1, 1);
        break;
    case NT_DTYPE_D:
        dtpmqrt_("L", tr, &m, &n, &k, &l, &ib, V, &ldv, T, &ldt, A, &lda, B, &ldb, work, &info,
                 1, 1);
        break;
    case NT_DTYPE_C:
        ctpmqrt_("L", tr, &m, &n, &k, &l, &ib, V, &ldv, T, &ldt, A, &lda, B, &ldb, work, &info,
                 1, 1);
        break;
    case NT_DTYPE_Z:
        ztpmqrt_("L", tr, &m, &n, &k, &l, &ib, V, &ldv, T, &ldt, A, &lda, B, &ldb, work, &info,
                 1, 1);
        break;
    default:
        info = -1000;
    }
    threads_leave(old);
    return info;
}

nt_status nt_blas_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    int im = (int)m, in = (int)n, ilda = (int)lda, query = -1, info = 0;
    double best = 0;
    dgeqrf_(&im, &in, A, &ilda, &best, &best, &query, &info); // workspace query: A untouched
    int lwork = info == 0 && best >= (double)in && best <= (double)INT_MAX ? (int)best : in;
    double *tau = malloc((size_t)(m < n ? m : n) * sizeof *tau);
    double *work = malloc((size_t)lwork * sizeof *work);
    if (!tau || !work) {
        free(tau);
        free(work);
        return nt_fail(NT_ENOMEM, "flat QR: cannot allocate %d doubles of workspace", lwork);
    }
    int old = threads_enter(nthreads);
    dgeqrf_(&im, &in, A, &ilda, tau, work, &lwork, &info);
    threads_leave(old);
    free(tau);
    free(work);
    if (info != 0)
        return nt_fail(NT_EINVAL, "flat QR: dgeqrf rejected argument %d", -info);
    return NT_OK;
}

// OpenBLAS's LAPACK calls its own BLAS, whose thread count every call sets (threads_enter):
// nothing process-wide to change around a tiled run.
void nt_blas_serial_begin(void)
{
}

void nt_blas_serial_end(void)
{
}

static pthread_once_t name_once = PTHREAD_ONCE_INIT;
static char name_buf[96];

// The version from the library actually loaded (openblas_get_config() starts "OpenBLAS
// 0.3.21 ...") and the kernel family its DYNAMIC_ARCH dispatch chose for this CPU.
static void name_init(void)
{
    char version[32] = "?";
    const char *config = openblas_get_config();
    if (config && sscanf(config, "OpenBLAS %31s", version) != 1)
        snprintf(version, sizeof version, "?");
    const char *core = openblas_get_corename();
    snprintf(name_buf, sizeof name_buf, "openblas %s (%s)", version, core ? core : "?");
}

const char *nt_blas_name(void)
{
    pthread_once(&name_once, name_init);
    return name_buf;
}
