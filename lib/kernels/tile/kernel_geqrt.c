// GEQRT tile kernel in s, d, c, z: LAPACK's xgeqrt (compact WY, ib-wide panels) from the
// selected library (libFLAME or OpenBLAS, see nt_blas.h).
#include <limits.h>

#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

nt_status nt_kern_geqrt_typed(nt_dtype t, int64_t m, int64_t n, int64_t ib, void *A,
                              int64_t lda, void *T, int64_t ldt, void *work, int64_t lwork)
{
    nt_status st = nt_kern_check_dtype("geqrt", t);
    if (st)
        return st;
    if (m < 0 || n < 0 || m > INT_MAX || n > INT_MAX)
        return nt_fail(NT_EINVAL, "geqrt kernel: m = %lld, n = %lld must be in 0..INT_MAX",
                       (long long)m, (long long)n);
    int64_t k = m < n ? m : n;
    if (ib < 1 || ib > (k > 1 ? k : 1))
        return nt_fail(NT_EINVAL, "geqrt kernel: ib = %lld must be in 1..max(1, min(m,n) = %lld)",
                       (long long)ib, (long long)k);
    if (lda < (m > 1 ? m : 1) || lda > INT_MAX)
        return nt_fail(NT_EINVAL, "geqrt kernel: lda = %lld must be in max(1, m)..INT_MAX",
                       (long long)lda);
    if (ldt < ib || ldt > INT_MAX)
        return nt_fail(NT_EINVAL, "geqrt kernel: ldt = %lld must be >= ib = %lld",
                       (long long)ldt, (long long)ib);
    if (lwork < nt_kern_qr_lwork(ib, n))
        return nt_fail(NT_EINVAL, "geqrt kernel: lwork = %lld < ib * n = %lld",
                       (long long)lwork, (long long)nt_kern_qr_lwork(ib, n));
    if (k == 0)
        return NT_OK;
    if (!A || !T || !work)
        return nt_fail(NT_EINVAL, "geqrt kernel: %s is NULL", !A ? "A" : !T ? "T" : "work");
    int info = nt_lapack_geqrt(t, (int)m, (int)n, (int)ib, A, (int)lda, T, (int)ldt, work);
    if (info != 0)
        return nt_fail(NT_EINVAL, "geqrt kernel: %sgeqrt rejected argument %d", nt_dtype_name(t),
                       -info);
    return NT_OK;
}

nt_status nt_kern_geqrt(int64_t m, int64_t n, int64_t ib, double *A, int64_t lda, double *T,
                        int64_t ldt, double *work, int64_t lwork)
{
    return nt_kern_geqrt_typed(NT_DTYPE_D, m, n, ib, A, lda, T, ldt, work, lwork);
}
