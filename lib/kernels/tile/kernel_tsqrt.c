// TSQRT tile kernel in s, d, c, z: LAPACK's xtpqrt with l = 0 (libFLAME or OpenBLAS, see
// nt_blas.h; the lower block is a full rectangle), factoring an upper triangle stacked on a square
// or rectangular tile.
#include <limits.h>

#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

nt_status nt_kern_tsqrt_typed(nt_dtype t, int64_t m, int64_t n, int64_t ib, void *R,
                              int64_t lda1, void *A2, int64_t lda2, void *T, int64_t ldt,
                              void *work, int64_t lwork)
{
    nt_status st = nt_kern_check_dtype("tsqrt", t);
    if (st)
        return st;
    if (m < 0 || n < 0 || m > INT_MAX || n > INT_MAX)
        return nt_fail(NT_EINVAL, "tsqrt kernel: m = %lld, n = %lld must be in 0..INT_MAX",
                       (long long)m, (long long)n);
    if (ib < 1 || ib > (n > 1 ? n : 1))
        return nt_fail(NT_EINVAL, "tsqrt kernel: ib = %lld must be in 1..max(1, n = %lld)",
                       (long long)ib, (long long)n);
    if (lda1 < (n > 1 ? n : 1) || lda1 > INT_MAX || lda2 < (m > 1 ? m : 1) || lda2 > INT_MAX)
        return nt_fail(NT_EINVAL, "tsqrt kernel: lda1 = %lld (>= n = %lld), lda2 = %lld "
                       "(>= m = %lld) out of range", (long long)lda1, (long long)n,
                       (long long)lda2, (long long)m);
    if (ldt < ib || ldt > INT_MAX)
        return nt_fail(NT_EINVAL, "tsqrt kernel: ldt = %lld must be >= ib = %lld",
                       (long long)ldt, (long long)ib);
    if (lwork < nt_kern_qr_lwork(ib, n))
        return nt_fail(NT_EINVAL, "tsqrt kernel: lwork = %lld < ib * n = %lld",
                       (long long)lwork, (long long)nt_kern_qr_lwork(ib, n));
    if (m == 0 || n == 0)
        return NT_OK;
    if (!R || !A2 || !T || !work)
        return nt_fail(NT_EINVAL, "tsqrt kernel: %s is NULL",
                       !R ? "R" : !A2 ? "A2" : !T ? "T" : "work");
    int info = nt_lapack_tpqrt(t, (int)m, (int)n, (int)ib, R, (int)lda1, A2, (int)lda2, T,
                               (int)ldt, work);
    if (info != 0)
        return nt_fail(NT_EINVAL, "tsqrt kernel: %stpqrt rejected argument %d", nt_dtype_name(t),
                       -info);
    return NT_OK;
}

nt_status nt_kern_tsqrt(int64_t m, int64_t n, int64_t ib, double *R, int64_t lda1, double *A2,
                        int64_t lda2, double *T, int64_t ldt, double *work, int64_t lwork)
{
    return nt_kern_tsqrt_typed(NT_DTYPE_D, m, n, ib, R, lda1, A2, lda2, T, ldt, work, lwork);
}
