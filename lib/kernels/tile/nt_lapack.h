// libFLAME's LAPACK-compatible tile routines (its f2c'ed layer: every argument by address, no
// hidden lengths for character arguments), which FLAME.h does not declare. Only lib/blas/flame.c
// includes this. OpenBLAS's gfortran-compiled LAPACK takes hidden lengths for its character
// arguments: lib/blas/openblas.c declares its own. Complex arrays are passed as void *: the
// layout is Fortran's COMPLEX (real, imaginary), the f2c types are structs of that layout.
#ifndef NUMATILE_LAPACK_INTERNAL_H
#define NUMATILE_LAPACK_INTERNAL_H

int sgeqrt_(int *m, int *n, int *nb, float *a, int *lda, float *t, int *ldt, float *work,
            int *info);
int dgeqrt_(int *m, int *n, int *nb, double *a, int *lda, double *t, int *ldt, double *work,
            int *info);
int cgeqrt_(int *m, int *n, int *nb, void *a, int *lda, void *t, int *ldt, void *work,
            int *info);
int zgeqrt_(int *m, int *n, int *nb, void *a, int *lda, void *t, int *ldt, void *work,
            int *info);

int sgemqrt_(char *side, char *trans, int *m, int *n, int *k, int *nb, float *v, int *ldv,
             float *t, int *ldt, float *c, int *ldc, float *work, int *info);
int dgemqrt_(char *side, char *trans, int *m, int *n, int *k, int *nb, double *v, int *ldv,
             double *t, int *ldt, double *c, int *ldc, double *work, int *info);
int cgemqrt_(char *side, char *trans, int *m, int *n, int *k, int *nb, void *v, int *ldv,
             void *t, int *ldt, void *c, int *ldc, void *work, int *info);
int zgemqrt_(char *side, char *trans, int *m, int *n, int *k, int *nb, void *v, int *ldv,
             void *t, int *ldt, void *c, int *ldc, void *work, int *info);

int stpqrt_(int *m, int *n, int *l, int *nb, float *a, int *lda, float *b, int *ldb, float *t,
            int *ldt, float *work, int *info);
int dtpqrt_(int *m, int *n, int *l, int *nb, double *a, int *lda, double *b, int *ldb,
            double *t, int *ldt, double *work, int *info);
int ctpqrt_(int *m, int *n, int *l, int *nb, void *a, int *lda, void *b, int *ldb, void *t,
            int *ldt, void *work, int *info);
int ztpqrt_(int *m, int *n, int *l, int *nb, void *a, int *lda, void *b, int *ldb, void *t,
            int *ldt, void *work, int *info);

int stpmqrt_(char *side, char *trans, int *m, int *n, int *k, int *l, int *nb, float *v,
             int *ldv, float *t, int *ldt, float *a, int *lda, float *b, int *ldb, float *work,
             int *info);
int dtpmqrt_(char *side, char *trans, int *m, int *n, int *k, int *l, int *nb, double *v,
             int *ldv, double *t, int *ldt, double *a, int *lda, double *b, int *ldb,
             double *work, int *info);
int ctpmqrt_(char *side, char *trans, int *m, int *n, int *k, int *l, int *nb, void *v,
             int *ldv, void *t, int *ldt, void *a, int *lda, void *b, int *ldb, void *work,
             int *info);
int ztpmqrt_(char *side, char *trans, int *m, int *n, int *k, int *l, int *nb, void *v,
             int *ldv, void *t, int *ldt, void *a, int *lda, void *b, int *ldb, void *work,
             int *info);

#endif
