// Flat reference QR on one column-major matrix, the library multithreaded underneath (libFLAME's
// FLA_QR_UT on BLIS, or OpenBLAS's dgeqrf; see nt_blas.h): the baseline the tiled QR is
// measured against.
#include <limits.h>

#include "lib/kernels/tile/nt_blas.h"
#include "nt_core.h"
#include "lib/kernels/tile/nt_kernels.h"

nt_status nt_kern_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    if (nthreads < 1)
        return nt_fail(NT_EINVAL, "flat QR: nthreads = %d must be >= 1", nthreads);
    if (m < 1 || n < 1 || m > INT_MAX || n > INT_MAX)
        return nt_fail(NT_EINVAL, "flat QR: m = %lld, n = %lld must be in 1..INT_MAX",
                       (long long)m, (long long)n);
    if (lda < m)
        return nt_fail(NT_EINVAL, "flat QR: lda = %lld < m = %lld", (long long)lda,
                       (long long)m);
    if (lda > nt_blas_dim_max())
        return nt_fail(NT_ERANGE, "flat QR: lda = %lld exceeds the BLAS's index range (%lld)",
                       (long long)lda, (long long)nt_blas_dim_max());
    if (!A)
        return nt_fail(NT_EINVAL, "flat QR: A is NULL");
    return nt_blas_qr_flat(nthreads, m, n, A, lda);
}

nt_status nt_flame_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda)
{
    return nt_kern_qr_flat(nthreads, m, n, A, lda);
}
