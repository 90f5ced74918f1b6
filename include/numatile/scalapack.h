/**
 * \file scalapack.h
 * \brief libnumatile_scalapack: ScaLAPACK's redistribution and transposition routines under
 *        their own names, for programs relinked (or LD_PRELOADed) without a source change.
 *
 * A shared library beside libnumatile_mpi. Linked before ScaLAPACK (`-lnumatile_scalapack`
 * ahead of `-lscalapack-openmpi`) or preloaded (`LD_PRELOAD=libnumatile_scalapack.so`), it
 * replaces ScaLAPACK's p?gemr2d, p?trmr2d and PBLAS's p?tran, p?tranu, p?tranc: the Fortran
 * names (`pdgemr2d_`, ...: every argument by reference, 1-based corners, the enclosing BLACS
 * context last) and ScaLAPACK's C names (`Cpdgemr2d`, ...: scalars by value, the same
 * descriptors and context). A program that includes this header calls the same functions.
 *
 * Semantics are ScaLAPACK's (REDIST/SRC/p?gemr.c, p?trmr.c; PBLAS/SRC/p?tran_.c), as
 * nt_pgemr2d() implements them for the copies: m = 0 or n = 0 returns at once; otherwise
 * every process of the context calls; a process outside a grid passes that descriptor with
 * CTXT = -1; DTYPE is not read by ScaLAPACK's p?gemr2d, and LLD may be 0 on a process that
 * holds no row. Elements are copied bit for bit (the types only fix their sizes: s 4, d 8,
 * c 8, z 16, i 4 bytes).
 *
 * Fallback: what numatile does not run itself goes to ScaLAPACK's own routine, found after
 * this library in the program's symbol lookup (dlsym(RTLD_NEXT)); the result is then
 * ScaLAPACK's, including its error messages and aborts on bad arguments. That is: a
 * descriptor whose DTYPE is not 1 (dense) on some process (agreed over the context first, so
 * every process takes the same path); and any call numatile's engine refuses or fails (it
 * leaves B unchanged and agrees on its status over the context, so again every process falls
 * back). p?gemr2d run on nt_pgemr2d(), p?trmr2d on nt_ptrmr2d(), p?tran on nt_ptran(); an
 * empty p?tran goes to PBLAS, which checks its arguments even then. With the
 * environment variable NT_SCALAPACK_VERBOSE set to 1, each process says so on stderr, once
 * per routine, with the reason. When no ScaLAPACK routine follows this library, a fallback
 * prints why on stderr and ends the job with MPI_Abort (ScaLAPACK's own reaction to an error:
 * these routines return nothing).
 *
 * Threads: as ScaLAPACK, one calling thread per process.
 */
#ifndef NUMATILE_SCALAPACK_H
#define NUMATILE_SCALAPACK_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief PDGEMR2D: copy the m x n submatrix of A at (ia, ja) into B at (ib, jb), A and B
 *        block-cyclic on BLACS grids that may differ (ScaLAPACK's Fortran interface).
 * @param[in]  m, n   submatrix sizes, >= 0 (either 0: returns at once).
 * @param[in]  a      the local part of A (not read outside A's grid).
 * @param[in]  ia, ja 1-based corner in A.
 * @param[in]  desca  A's 9-integer descriptor; CTXT = -1 on a process outside A's grid.
 * @param[out] b      the local part of B; only the submatrix's elements are written.
 * @param[in]  ib, jb 1-based corner in B.
 * @param[in]  descb  B's descriptor; CTXT = -1 on a process outside B's grid.
 * @param[in]  ictxt  a BLACS context holding every process of both grids; all of them call.
 */
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
/** \brief PSGEMR2D: pdgemr2d_() for single precision (4-byte) elements.
 *  \copydetails pdgemr2d_ */
void psgemr2d_(const int *m, const int *n, const float *a, const int *ia, const int *ja,
               const int *desca, float *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
/** \brief PCGEMR2D: pdgemr2d_() for single complex (8-byte) elements.
 *  \copydetails pdgemr2d_ */
void pcgemr2d_(const int *m, const int *n, const void *a, const int *ia, const int *ja,
               const int *desca, void *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
/** \brief PZGEMR2D: pdgemr2d_() for double complex (16-byte) elements.
 *  \copydetails pdgemr2d_ */
void pzgemr2d_(const int *m, const int *n, const void *a, const int *ia, const int *ja,
               const int *desca, void *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
/** \brief PIGEMR2D: pdgemr2d_() for integer (4-byte) elements.
 *  \copydetails pdgemr2d_ */
void pigemr2d_(const int *m, const int *n, const int *a, const int *ia, const int *ja,
               const int *desca, int *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);

/**
 * \brief PDTRMR2D: pdgemr2d_() restricted to the upper or lower trapezoid of the submatrix.
 * @param[in]  uplo   "U": the elements on and above the diagonal; "L": on and below.
 * @param[in]  diag   "N": the diagonal is copied; "U": it is not (unit diagonal).
 * @param[in]  m, n   submatrix sizes, >= 0 (either 0: returns at once).
 * @param[in]  a      the local part of A (not read outside A's grid).
 * @param[in]  ia, ja 1-based corner in A.
 * @param[in]  desca  A's descriptor; CTXT = -1 on a process outside A's grid.
 * @param[out] b      the local part of B; only the trapezoid's elements are written.
 * @param[in]  ib, jb 1-based corner in B.
 * @param[in]  descb  B's descriptor; CTXT = -1 on a process outside B's grid.
 * @param[in]  ictxt  a BLACS context holding every process of both grids; all of them call.
 */
void pdtrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const double *a,
               const int *ia, const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
/** \brief PSTRMR2D: pdtrmr2d_() for single precision elements.
 *  \copydetails pdtrmr2d_ */
void pstrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const float *a,
               const int *ia, const int *ja, const int *desca, float *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
/** \brief PCTRMR2D: pdtrmr2d_() for single complex elements.
 *  \copydetails pdtrmr2d_ */
void pctrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
/** \brief PZTRMR2D: pdtrmr2d_() for double complex elements.
 *  \copydetails pdtrmr2d_ */
void pztrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
/** \brief PITRMR2D: pdtrmr2d_() for integer elements.
 *  \copydetails pdtrmr2d_ */
void pitrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const int *a,
               const int *ia, const int *ja, const int *desca, int *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);

/**
 * \brief PDTRAN (PBLAS): sub(C) := beta * sub(C) + alpha * sub(A)^T, sub(C) the m x n
 *        submatrix of C at (ic, jc), sub(A) the n x m submatrix of A at (ia, ja); A and C on
 *        the same BLACS grid. Collective over that grid; beta = 0 does not read C.
 * @param[in]     m, n   sub(C)'s sizes, >= 0.
 * @param[in]     alpha  the scalar of A.
 * @param[in]     a      the local part of A.
 * @param[in]     ia, ja 1-based corner in A.
 * @param[in]     desca  A's descriptor.
 * @param[in]     beta   the scalar of C.
 * @param[in,out] c      the local part of C.
 * @param[in]     ic, jc 1-based corner in C.
 * @param[in]     descc  C's descriptor.
 */
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc);
/** \brief PSTRAN: pdtran_() in single precision.
 *  \copydetails pdtran_ */
void pstran_(const int *m, const int *n, const float *alpha, const float *a, const int *ia,
             const int *ja, const int *desca, const float *beta, float *c, const int *ic,
             const int *jc, const int *descc);
/** \brief PCTRANU: pdtran_() in single complex, transposed without conjugation (alpha, beta
 *         and the elements are pairs of floats).
 *  \copydetails pdtran_ */
void pctranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc);
/** \brief PZTRANU: pdtran_() in double complex, transposed without conjugation.
 *  \copydetails pdtran_ */
void pztranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc);
/** \brief PCTRANC: pdtran_() in single complex, conjugate transpose (sub(A)^H).
 *  \copydetails pdtran_ */
void pctranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc);
/** \brief PZTRANC: pdtran_() in double complex, conjugate transpose (sub(A)^H).
 *  \copydetails pdtran_ */
void pztranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc);

/**
 * \brief Cpdgemr2d: ScaLAPACK's C name of pdgemr2d_(), scalars by value.
 * @param[in]  m, n   submatrix sizes, >= 0 (either 0: returns at once).
 * @param[in]  a      the local part of A (not read outside A's grid).
 * @param[in]  ia, ja 1-based corner in A.
 * @param[in]  desca  A's descriptor; CTXT = -1 on a process outside A's grid.
 * @param[out] b      the local part of B.
 * @param[in]  ib, jb 1-based corner in B.
 * @param[in]  descb  B's descriptor; CTXT = -1 on a process outside B's grid.
 * @param[in]  ictxt  a BLACS context holding every process of both grids; all of them call.
 */
void Cpdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca, double *b,
               int ib, int jb, const int *descb, int ictxt);
/** \brief Cpsgemr2d: Cpdgemr2d() for single precision elements.
 *  \copydetails Cpdgemr2d */
void Cpsgemr2d(int m, int n, const float *a, int ia, int ja, const int *desca, float *b,
               int ib, int jb, const int *descb, int ictxt);
/** \brief Cpcgemr2d: Cpdgemr2d() for single complex elements.
 *  \copydetails Cpdgemr2d */
void Cpcgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib,
               int jb, const int *descb, int ictxt);
/** \brief Cpzgemr2d: Cpdgemr2d() for double complex elements.
 *  \copydetails Cpdgemr2d */
void Cpzgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib,
               int jb, const int *descb, int ictxt);
/** \brief Cpigemr2d: Cpdgemr2d() for integer elements.
 *  \copydetails Cpdgemr2d */
void Cpigemr2d(int m, int n, const int *a, int ia, int ja, const int *desca, int *b, int ib,
               int jb, const int *descb, int ictxt);

/**
 * \brief Cpdtrmr2d: ScaLAPACK's C name of pdtrmr2d_(), scalars by value.
 * @param[in]  uplo   "U" or "L" (see pdtrmr2d_()).
 * @param[in]  diag   "N" or "U".
 * @param[in]  m, n   submatrix sizes, >= 0.
 * @param[in]  a      the local part of A.
 * @param[in]  ia, ja 1-based corner in A.
 * @param[in]  desca  A's descriptor.
 * @param[out] b      the local part of B.
 * @param[in]  ib, jb 1-based corner in B.
 * @param[in]  descb  B's descriptor.
 * @param[in]  ictxt  a BLACS context holding every process of both grids.
 */
void Cpdtrmr2d(const char *uplo, const char *diag, int m, int n, const double *a, int ia,
               int ja, const int *desca, double *b, int ib, int jb, const int *descb,
               int ictxt);
/** \brief Cpstrmr2d: Cpdtrmr2d() for single precision elements.
 *  \copydetails Cpdtrmr2d */
void Cpstrmr2d(const char *uplo, const char *diag, int m, int n, const float *a, int ia,
               int ja, const int *desca, float *b, int ib, int jb, const int *descb, int ictxt);
/** \brief Cpctrmr2d: Cpdtrmr2d() for single complex elements.
 *  \copydetails Cpdtrmr2d */
void Cpctrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt);
/** \brief Cpztrmr2d: Cpdtrmr2d() for double complex elements.
 *  \copydetails Cpdtrmr2d */
void Cpztrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt);
/** \brief Cpitrmr2d: Cpdtrmr2d() for integer elements.
 *  \copydetails Cpdtrmr2d */
void Cpitrmr2d(const char *uplo, const char *diag, int m, int n, const int *a, int ia, int ja,
               const int *desca, int *b, int ib, int jb, const int *descb, int ictxt);

#ifdef __cplusplus
}
#endif
#endif
