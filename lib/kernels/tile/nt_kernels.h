// Tile kernels on plain column-major buffers: the kernel_*.c wrappers, shared with gemm.c, qr.c.
//
// Each wrapper validates every dimension, leading dimension and pointer before calling the
// library chosen at build time (BLIS + libFLAME, or OpenBLAS) through the thin interface of
// nt_blas.h, because the libraries abort (or print through xerbla) on bad arguments. All of
// them run single-threaded: they are meant to be called from inside tasks.
//
// Tile Householder QR (PLASMA's algorithm, LAPACK's compact WY storage):
// - geqrt: A (m x n) = Q R; R in the upper triangle, the Householder vectors V below the
//   diagonal (unit diagonal implied), T the ib x min(m,n) triangular block factors.
// - unmqr: C (m x n) = op(Q) C with the k reflectors of a geqrt (V m x k, T ib x k).
// - tsqrt: [R; A2] = Q [R'; 0] with R (n x n) upper triangular, A2 (m x n) full; V lands in A2
//   (all m rows of it), T is ib x n.
// - tsmqr: [C1; C2] = op(Q) [C1; C2] with the reflectors of a tsqrt: C1 is k x n (the k rows
//   matching R), C2 is m x n, V m x k, T ib x k.
// The workspace of every QR kernel is ib * (columns of the updated or factored block) elements.
//
// Precisions: every kernel exists as nt_kern_X_typed(nt_dtype t, ...) for t = NT_DTYPE_S, D, C,
// Z (float, double, float _Complex, double _Complex; any other t is NT_EINVAL), on void *
// operands of that type, and as the double-only nt_kern_X(...) of the same arguments without t
// (the same call with t = NT_DTYPE_D). For complex types "trans" means the conjugate
// transpose: op(A) = A^H in GEMM, Q^H in UNMQR and TSMQR. GEMM's alpha and beta are real for
// every type. A driver picks the type of its matrices with nt_kern_dtype() (nt_kern_common.h)
// and sizes T tiles and workspaces with nt_dtype_size(t).
#ifndef NUMATILE_KERNELS_INTERNAL_H
#define NUMATILE_KERNELS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "nt_blas.h" // nt_blas_serial_begin/end, which the tiled runs call
#include "numatile/error.h"
#include "numatile/matrix.h" // nt_dtype

// NT_OK when t is s, d, c or z; otherwise NT_EINVAL with a message naming who ("gemm", ...).
nt_status nt_kern_check_dtype(const char *who, nt_dtype t);

// C = alpha op(A) op(B) + beta C in type t with nthreads library threads (>= 1); op = transpose
// (conjugate transpose for c, z) when the flag is set; C is m x n, op(A) m x k, op(B) k x n.
nt_status nt_kern_gemm_typed(nt_dtype t, int nthreads, bool trans_a, bool trans_b, int64_t m,
                             int64_t n, int64_t k, double alpha, const void *A, int64_t lda,
                             const void *B, int64_t ldb, double beta, void *C, int64_t ldc);

// C = alpha op(A) op(B) + beta C, op = transpose when the flag is set; C is m x n, op(A) m x k,
// op(B) k x n. One library thread (set per call, see lib/kernels/blas/).
nt_status nt_kern_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                       double *C, int64_t ldc);

// The same with nthreads library threads (>= 1): the flat multithreaded reference.
nt_status nt_kern_gemm_threads(int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                               int64_t k, double alpha, const double *A, int64_t lda,
                               const double *B, int64_t ldb, double beta, double *C,
                               int64_t ldc);

// B (m x n) = R^{-1} B with R upper triangular m x m, non-unit diagonal (trsm, one thread).
// The caller checks that the diagonal has no zero.
nt_status nt_kern_trsm_upper(int64_t m, int64_t n, const double *R, int64_t ldr, double *B,
                             int64_t ldb);

nt_status nt_kern_trsm_upper_typed(nt_dtype t, int64_t m, int64_t n, const void *R, int64_t ldr,
                                   void *B, int64_t ldb);

// Workspace size (elements) of a QR kernel with inner block ib updating/factoring ncols columns.
static inline int64_t nt_kern_qr_lwork(int64_t ib, int64_t ncols)
{
    return ib * (ncols > 0 ? ncols : 1);
}

// A (m x n, m, n >= 0) = Q R; T is ib x min(m,n) (ldt >= ib), 1 <= ib <= max(1, min(m,n)).
nt_status nt_kern_geqrt(int64_t m, int64_t n, int64_t ib, double *A, int64_t lda, double *T,
                        int64_t ldt, double *work, int64_t lwork);

nt_status nt_kern_geqrt_typed(nt_dtype t, int64_t m, int64_t n, int64_t ib, void *A,
                              int64_t lda, void *T, int64_t ldt, void *work, int64_t lwork);

// C (m x n) = Q^T C (trans; Q^H for c, z) or Q C; V is m x k (k <= m), T is ib x k.
nt_status nt_kern_unmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib, const double *V,
                        int64_t ldv, const double *T, int64_t ldt, double *C, int64_t ldc,
                        double *work, int64_t lwork);

nt_status nt_kern_unmqr_typed(nt_dtype t, bool trans, int64_t m, int64_t n, int64_t k,
                              int64_t ib, const void *V, int64_t ldv, const void *T, int64_t ldt,
                              void *C, int64_t ldc, void *work, int64_t lwork);

// [R; A2] = Q [R'; 0]: R is n x n upper triangular (lda1), A2 is m x n (lda2), T ib x n.
nt_status nt_kern_tsqrt(int64_t m, int64_t n, int64_t ib, double *R, int64_t lda1, double *A2,
                        int64_t lda2, double *T, int64_t ldt, double *work, int64_t lwork);

nt_status nt_kern_tsqrt_typed(nt_dtype t, int64_t m, int64_t n, int64_t ib, void *R,
                              int64_t lda1, void *A2, int64_t lda2, void *T, int64_t ldt,
                              void *work, int64_t lwork);

// [C1; C2] = Q^T [C1; C2] (trans; Q^H for c, z) or Q [C1; C2]: C1 is k x n (ldc1), C2 m x n
// (ldc2), V m x k (ldv), T ib x k.
nt_status nt_kern_tsmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib,
                        const double *V, int64_t ldv, const double *T, int64_t ldt, double *C1,
                        int64_t ldc1, double *C2, int64_t ldc2, double *work, int64_t lwork);

nt_status nt_kern_tsmqr_typed(nt_dtype t, bool trans, int64_t m, int64_t n, int64_t k,
                              int64_t ib, const void *V, int64_t ldv, const void *T, int64_t ldt,
                              void *C1, int64_t ldc1, void *C2, int64_t ldc2, void *work,
                              int64_t lwork);

// Tile helpers in type t (no argument checks: the driver owns the tile). set_identity writes
// the m x n tile A(x, y) = (x - y == diag ? 1 : 0), the tile of an identity whose global row
// minus global column offset is diag (diag = j * nb - i * mb for tile (i, j));
// first_zero_diag returns the first d in 0..n-1 with A(d, d) == 0 (real and imaginary parts),
// or -1 when the diagonal has no zero.
void nt_kern_set_identity(nt_dtype t, int64_t m, int64_t n, int64_t diag, void *A, int64_t lda);
int64_t nt_kern_first_zero_diag(nt_dtype t, int64_t n, const void *A, int64_t lda);

// Flat reference QR (double only) of a column-major m x n matrix with nthreads library threads:
// libFLAME's FLA_QR_UT (BLIS build; FLA_Init is called once, thread-safely) or OpenBLAS's dgeqrf. A
// is overwritten by R (unique up to the signs of its rows) and the reflectors.
nt_status nt_kern_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

// The former name of nt_kern_qr_flat, still called by lib/qr.c.
nt_status nt_flame_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

#endif
