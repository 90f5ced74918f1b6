// The thin BLAS/LAPACK interface between the tile kernels (kernel_*.c, flat_qr.c) and the library
// chosen at build time (make BLAS=blis|openblas): one backend per library in lib/kernels/blas/,
// plain C types here so that no kernel file includes a library header. Internal; not installed.
//
// Backends: lib/blas/blis.c (BLIS) + lib/blas/flame.c (libFLAME's LAPACK) for BLAS=blis,
// lib/blas/openblas.c for BLAS=openblas. Exactly one set is compiled and linked, so a binary never
// holds two BLAS libraries. Every argument arrives checked by the kernel wrappers (sizes,
// leading dimensions, pointers, workspace), because the libraries abort or print on bad ones.
// Matrices are column-major, of the element types of numatile/matrix.h.
#ifndef NUMATILE_BLAS_INTERNAL_H
#define NUMATILE_BLAS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/matrix.h" // nt_dtype

// Largest dimension or leading dimension the library takes: BLIS uses 64-bit dim_t, Debian's
// OpenBLAS 32-bit int (built without INTERFACE64).
int64_t nt_blas_dim_max(void);

// Every routine below takes the element type first (::NT_DTYPE_S, D, C or Z; never NONE: the
// kernel wrappers resolve it) and its matrices and scalars as pointers to elements of that
// type. Complex elements are C11's float _Complex / double _Complex (Fortran's COMPLEX layout).
// "trans" is the transpose for s/d and the conjugate transpose for c/z.

// C (m x n) = alpha op(A) op(B) + beta C with nthreads library threads (>= 1); m, n, k >= 1
// and alpha != 0 (the caller handles the empty and scaling-only cases). alpha and beta point to
// one element each. Called inside an active OpenMP parallel region, OpenBLAS runs one thread
// whatever nthreads says (BLIS nests).
void nt_blas_gemm(nt_dtype t, int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                  int64_t ldb, const void *beta, void *C, int64_t ldc);

// B (m x n) = R^{-1} B, R upper triangular with a non-unit diagonal; one thread; m, n >= 1.
void nt_blas_trsm_upper(nt_dtype t, int64_t m, int64_t n, const void *R, int64_t ldr, void *B,
                        int64_t ldb);

// The LAPACK tile routines xGEQRT, xGEMQRT, xTPQRT, xTPMQRT (reference LAPACK 3.x semantics),
// one thread each, side = left and l = 0 where the routine has them. They return LAPACK's info
// (0 = success, -i = argument i).
int nt_lapack_geqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *T, int ldt,
                    void *work);
int nt_lapack_gemqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V, int ldv,
                     const void *T, int ldt, void *C, int ldc, void *work);
int nt_lapack_tpqrt(nt_dtype t, int m, int n, int ib, void *A, int lda, void *B, int ldb,
                    void *T, int ldt, void *work);
int nt_lapack_tpmqrt(nt_dtype t, bool trans, int m, int n, int k, int ib, const void *V,
                     int ldv, const void *T, int ldt, void *A, int lda, void *B, int ldb,
                     void *work);

// The double-only names the backends had before the types, kept for callers not yet typed.
static inline void nt_blas_dgemm(int nthreads, bool trans_a, bool trans_b, int64_t m, int64_t n,
                                 int64_t k, double alpha, const double *A, int64_t lda,
                                 const double *B, int64_t ldb, double beta, double *C,
                                 int64_t ldc)
{
    nt_blas_gemm(NT_DTYPE_D, nthreads, trans_a, trans_b, m, n, k, &alpha, A, lda, B, ldb, &beta,
                 C, ldc);
}

static inline void nt_blas_dtrsm_upper(int64_t m, int64_t n, const double *R, int64_t ldr,
                                       double *B, int64_t ldb)
{
    nt_blas_trsm_upper(NT_DTYPE_D, m, n, R, ldr, B, ldb);
}

static inline int nt_lapack_dgeqrt(int m, int n, int ib, double *A, int lda, double *T, int ldt,
                                   double *work)
{
    return nt_lapack_geqrt(NT_DTYPE_D, m, n, ib, A, lda, T, ldt, work);
}

static inline int nt_lapack_dgemqrt(bool trans, int m, int n, int k, int ib, const double *V,
                                    int ldv, const double *T, int ldt, double *C, int ldc,
                                    double *work)
{
    return nt_lapack_gemqrt(NT_DTYPE_D, trans, m, n, k, ib, V, ldv, T, ldt, C, ldc, work);
}

static inline int nt_lapack_dtpqrt(int m, int n, int ib, double *A, int lda, double *B, int ldb,
                                   double *T, int ldt, double *work)
{
    return nt_lapack_tpqrt(NT_DTYPE_D, m, n, ib, A, lda, B, ldb, T, ldt, work);
}

static inline int nt_lapack_dtpmqrt(bool trans, int m, int n, int k, int ib, const double *V,
                                    int ldv, const double *T, int ldt, double *A, int lda,
                                    double *B, int ldb, double *work)
{
    return nt_lapack_tpmqrt(NT_DTYPE_D, trans, m, n, k, ib, V, ldv, T, ldt, A, lda, B, ldb,
                            work);
}

// Flat reference QR of the whole m x n matrix with nthreads library threads: libFLAME's
// FLA_QR_UT (BLIS build) or dgeqrf (OpenBLAS build). A is overwritten by R and the reflectors;
// R is the same up to the signs of its rows. Arguments checked by the caller (flat_qr.c); fails
// only when the library's workspace cannot be allocated (NT_ENOMEM).
nt_status nt_blas_qr_flat(int nthreads, int64_t m, int64_t n, double *A, int64_t lda);

// Bracket a tiled run whose tasks call the LAPACK tile routines. BLIS build: libFLAME's LAPACK
// reaches BLIS through its BLAS layer, which follows BLIS's process-wide thread count, so
// begin sets it to 1 and the last end restores it (nested and concurrent runs are counted).
// OpenBLAS build: nothing to do (every call sets its own thread count), so both are no-ops.
void nt_blas_serial_begin(void);
void nt_blas_serial_end(void);

#endif
