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
// The workspace of every QR kernel is ib * (columns of the updated or factored block) doubles.
#ifndef NUMATILE_KERNELS_INTERNAL_H
#define NUMATILE_KERNELS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "nt_blas.h" // nt_blas_serial_begin/end, which the tiled runs call
#include "numatile/error.h"

// C = alpha op(A) op(B) + beta C, op = transpose when the flag is set; C is m x n, op(A) m x k,
// op(B) k x n. One library thread (set per call, see lib/blas/).
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

// Workspace size (doubles) of a QR kernel with inner block ib updating/factoring ncols columns.
static inline int64_t nt_kern_qr_lwork(int64_t ib, int64_t ncols)
{
    return ib * (ncols > 0 ? ncols : 1);
}

// A (m x n, m, n >= 0) = Q R; T is ib x min(m,n) (ldt >= ib), 1 <= ib <= max(1, min(m,n)).
nt_status nt_kern_geqrt(int64_t m, int64_t n, int64_t ib, double *A, int64_t lda, double *T,
                        int64_t ldt, double *work, int64_t lwork);

// C (m x n) = Q^T C (trans) or Q C; V is m x k (k <= m), T is ib x k.
nt_status nt_kern_unmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib, const double *V,
                        int64_t ldv, const double *T, int64_t ldt, double *C, int64_t ldc,
                        double *work, int64_t lwork);

// [R; A2] = Q [R'; 0]: R is n x n upper triangular (lda1), A2 is m x n (lda2), T ib x n.
nt_status nt_kern_tsqrt(int64_t m, int64_t n, int64_t ib, double *R, int64_t lda1, double *A2,
                        int64_t lda2, double *T, int64_t ldt, double *work, int64_t lwork);

// [C1; C2] = Q^T [C1; C2] (trans) or Q [C1; C2]: C1 is k x n (ldc1), C2 m x n (ldc2), V m x k
// (ldv), T ib x k.
nt_status nt_kern_tsmqr(bool trans, int64_t m, int64_t n, int64_t k, int64_t ib,
                        const double *V, int64_t ldv, const double *T, int64_t ldt, double *C1,
                        int64_t ldc1, double *C2, int64_t ldc2, double *work, int64_t lwork);

// Flat reference QR of a column-major m x n matrix with nthreads library threads: libFLAME's
// FLA_QR_UT (BLIS build; FLA_Init is called once, thread-safely) or OpenBLAS's dgeqrf. A is
// overwritten by R (unique up to the signs of its rows) and the reflectors.
nt_status nt_kern_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

// The former name of nt_kern_qr_flat, still called by lib/qr.c.
nt_status nt_flame_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

#endif
