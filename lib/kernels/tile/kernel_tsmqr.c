// TSMQR tile kernel in s, d, c, z: LAPACK's xtpmqrt with l = 0 (libFLAME or OpenBLAS, see
// nt_blas.h), applying the Q of a TSQRT from the left to a pair of tiles [C1; C2] (trans: Q^T,
// or Q^H for complex types).
#include <limits.h>

#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

nt_status nt_kern_tsmqr_typed(nt_dtype t, bool trans, int64_t m, int64_t n, int64_t k,
                              int64_t ib, const void *V, int64_t ldv, const void *T, int64_t ldt,
                              void *C1, int64_t ldc1, void *C2, int64_t ldc2, void *work,
                              int64_t lwork)
{
    nt_status st = nt_kern_check_dtype("tsmqr", t);
    if (st)
        return st;
    if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
        return nt_fail(NT_EINVAL, "tsmqr kernel: m = %lld, n = %lld, k = %lld must be in "
                       "0..INT_MAX", (long long)m, (long long)n, (long long)k);
    if (ib < 1 || ib > (k > 1 ? k : 1))
        return nt_fail(NT_EINVAL, "tsmqr kernel: ib = %lld must be in 1..max(1, k = %lld)",
                       (long long)ib, (long long)k);
    if (ldv < (m > 1 ? m : 1) || ldv > INT_MAX || ldc2 < (m > 1 ? m : 1) || ldc2 > INT_MAX ||
        ldc1 < (k > 1 ? k : 1) || ldc1 > INT_MAX)
        return nt_fail(NT_EINVAL, "tsmqr kernel: ldv = %lld, ldc2 = %lld (>= m = %lld), "
                       "ldc1 = %lld (>= k = %lld) out of range", (long long)ldv,
                       (long long)ldc2, (long long)m, (long long)ldc1, (long long)k);
    if (ldt < ib || ldt > INT_MAX)
        return nt_fail(NT_EINVAL, "tsmqr kernel: ldt = %lld must be >= ib = %lld",
                       (long long)ldt, (long long)ib);
    if (lwork < nt_kern_qr_lwork(ib, n))
        return nt_fail(NT_EINVAL, "tsmqr kernel: lwork = %lld < ib * n = %lld",
                       (long long)lwork, (long long)nt_kern_qr_lwork(ib, n));
    if (m == 0 || n == 0 || k == 0)
        return NT_OK;
    if (!V || !T || !C1 || !C2 || !work)
        return nt_fail(NT_EINVAL, "tsmqr kernel: %s is NULL",
                       !V ? "V" : !T ? "T" : !C1 ? "C1" : !C2 ? "C2" : "work");
    int info = nt_lapack_tpmqrt(t, trans, (int)m, (int)n, (int)k, (int)ib, V, (int)ldv, T,
                                (int)ldt, C1, (int)ldc1, C2, (int)ldc2, work);
    if (info != 0)
        return nt_fail(NT_EINVAL, "tsmqr kernel: %stpmqrt rejected argument %d",
                       nt_dtype_name(t), -info);
    return NT_OK;
}

nt_status nt_kern_tsmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib,
                        const double *V, int64_t ldv, const double *T, int64_t ldt, double *C1,
                        int64_t ldc1, double *C2, int64_t ldc2, double *work, int64_t lwork)
{
    return nt_kern_tsmqr_typed(NT_DTYPE_D, trans, m, n, k, ib, V, ldv, T, ldt, C1, ldc1, C2,
                               ldc2, work, lwork);
}
