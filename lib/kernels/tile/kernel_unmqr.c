// UNMQR tile kernel in s, d, c, z: LAPACK's xgemqrt (libFLAME or OpenBLAS, see nt_blas.h),
// applying the Q of a GEQRT from the left (trans: Q^T, or Q^H for complex types).
#include <limits.h>

#include "nt_blas.h"
#include "nt_core.h"
#include "nt_kernels.h"

nt_status nt_kern_unmqr_typed(nt_dtype t, bool trans, int64_t m, int64_t n, int64_t k,
                              int64_t ib, const void *V, int64_t ldv, const void *T, int64_t ldt,
                              void *C, int64_t ldc, void *work, int64_t lwork)
{
    nt_status st = nt_kern_check_dtype("unmqr", t);
    if (st)
        return st;
    if (m < 0 || n < 0 || m > INT_MAX || n > INT_MAX)
        return nt_fail(NT_EINVAL, "unmqr kernel: m = %lld, n = %lld must be in 0..INT_MAX",
                       (long long)m, (long long)n);
    if (k < 0 || k > m)
        return nt_fail(NT_EINVAL, "unmqr kernel: k = %lld must be in 0..m = %lld",
                       (long long)k, (long long)m);
    if (ib < 1 || ib > (k > 1 ? k : 1))
        return nt_fail(NT_EINVAL, "unmqr kernel: ib = %lld must be in 1..max(1, k = %lld)",
                       (long long)ib, (long long)k);
    if (ldv < (m > 1 ? m : 1) || ldv > INT_MAX || ldc < (m > 1 ? m : 1) || ldc > INT_MAX)
        return nt_fail(NT_EINVAL, "unmqr kernel: ldv = %lld, ldc = %lld must be in "
                       "max(1, m = %lld)..INT_MAX", (long long)ldv, (long long)ldc,
                       (long long)m);
    if (ldt < ib || ldt > INT_MAX)
        return nt_fail(NT_EINVAL, "unmqr kernel: ldt = %lld must be >= ib = %lld",
                       (long long)ldt, (long long)ib);
    if (lwork < nt_kern_qr_lwork(ib, n))
        return nt_fail(NT_EINVAL, "unmqr kernel: lwork = %lld < ib * n = %lld",
                       (long long)lwork, (long long)nt_kern_qr_lwork(ib, n));
    if (m == 0 || n == 0 || k == 0)
        return NT_OK;
    if (!V || !T || !C || !work)
        return nt_fail(NT_EINVAL, "unmqr kernel: %s is NULL",
                       !V ? "V" : !T ? "T" : !C ? "C" : "work");
    int info = nt_lapack_gemqrt(t, trans, (int)m, (int)n, (int)k, (int)ib, V, (int)ldv, T,
                                (int)ldt, C, (int)ldc, work);
    if (info != 0)
        return nt_fail(NT_EINVAL, "unmqr kernel: %sgemqrt rejected argument %d",
                       nt_dtype_name(t), -info);
    return NT_OK;
}

nt_status nt_kern_unmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib, const double *V,
                        int64_t ldv, const double *T, int64_t ldt, double *C, int64_t ldc,
                        double *work, int64_t lwork)
{
    return nt_kern_unmqr_typed(NT_DTYPE_D, trans, m, n, k, ib, V, ldv, T, ldt, C, ldc, work,
                               lwork);
}
