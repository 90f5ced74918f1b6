// Prototypes of the LAPACK routines libFLAME exports (its f2c'ed LAPACK layer, 32-bit integers,
// every argument by address, no hidden string lengths). Internal to the BLIS build's LAPACK
// backend (lib/blas/flame.c); never included together with blis.h. OpenBLAS's gfortran-built
// LAPACK takes hidden lengths for its character arguments: lib/blas/openblas.c declares its own.
#ifndef NUMATILE_LAPACK_INTERNAL_H
#define NUMATILE_LAPACK_INTERNAL_H

int dgeqrt_(int *m, int *n, int *nb, double *a, int *lda, double *t, int *ldt, double *work,
            int *info);
int dgemqrt_(char *side, char *trans, int *m, int *n, int *k, int *nb, double *v, int *ldv,
             double *t, int *ldt, double *c, int *ldc, double *work, int *info);
int dtpqrt_(int *m, int *n, int *l, int *nb, double *a, int *lda, double *b, int *ldb,
            double *t, int *ldt, double *work, int *info);
int dtpmqrt_(char *side, char *trans, int *m, int *n, int *k, int *l, int *nb, double *v,
             int *ldv, double *t, int *ldt, double *a, int *lda, double *b, int *ldb,
             double *work, int *info);

#endif
