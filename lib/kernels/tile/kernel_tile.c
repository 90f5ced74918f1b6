// Small per-type tile helpers the tiled QR needs besides the BLAS/LAPACK kernels: the tiles of
// an identity (forming Q) and the zero test on R's diagonal (before a back substitution).
#include "nt_kernels.h"

// Real parts per element: complex elements are two reals (real, imaginary).
static int64_t parts(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z ? 2 : 1;
}

static bool single(nt_dtype t)
{
    return t == NT_DTYPE_S || t == NT_DTYPE_C;
}

void nt_kern_set_identity(nt_dtype t, int64_t m, int64_t n, int64_t diag, void *A, int64_t lda)
{
    int64_t p = parts(t);
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < m * p; x++) {
            // Component x % p of element x / p: 1 only for the real part on the diagonal.
            bool one = x % p == 0 && x / p - y == diag;
            if (single(t))
                ((float *)A)[x + y * lda * p] = one ? 1.0f : 0.0f;
            else
                ((double *)A)[x + y * lda * p] = one ? 1.0 : 0.0;
        }
}

int64_t nt_kern_first_zero_diag(nt_dtype t, int64_t n, const void *A, int64_t lda)
{
    int64_t p = parts(t);
    for (int64_t d = 0; d < n; d++) {
        int64_t at = (d + d * lda) * p;
        bool zero = true;
        for (int64_t c = 0; c < p; c++)
            zero = zero && (single(t) ? ((const float *)A)[at + c] == 0.0f
                                      : ((const double *)A)[at + c] == 0.0);
        if (zero)
            return d;
    }
    return -1;
}
