// p?trmr2d_ and Cp?trmr2d: ScaLAPACK's trapezoidal copies between block-cyclic grids. The
// engine has no trapezoidal copy yet, so they run ScaLAPACK's own routine (with its notice).
#include <numatile/scalapack.h>

#include "nt_scalapack.h"

typedef void (*trmr_fn)(const char *uplo, const char *diag, int m, int n, const void *a, int ia,
                        int ja, const int *desca, void *b, int ib, int jb, const int *descb,
                        int ictxt);

static void trmr(const char *cname, const char *uplo, const char *diag, int m, int n,
                 const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
                 const int *descb, int ictxt)
{
    const char *why = "no trapezoidal copy in numatile's engine";
    trmr_fn f = (trmr_fn)nt_sl_next(cname, why);
    nt_sl_notice(NT_SL_TRMR2D, cname, why);
    f(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpstrmr2d(const char *uplo, const char *diag, int m, int n, const float *a, int ia,
               int ja, const int *desca, float *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpstrmr2d", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpdtrmr2d(const char *uplo, const char *diag, int m, int n, const double *a, int ia,
               int ja, const int *desca, double *b, int ib, int jb, const int *descb,
               int ictxt)
{
    trmr("Cpdtrmr2d", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpctrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpctrmr2d", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpztrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpztrmr2d", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpitrmr2d(const char *uplo, const char *diag, int m, int n, const int *a, int ia, int ja,
               const int *desca, int *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpitrmr2d", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

// The Fortran names (the hidden lengths of uplo and diag that Fortran appends are not read,
// as ScaLAPACK's own wrappers do not read them).
void pstrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const float *a,
               const int *ia, const int *ja, const int *desca, float *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpstrmr2d", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pdtrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const double *a,
               const int *ia, const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpdtrmr2d", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pctrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpctrmr2d", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pztrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpztrmr2d", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pitrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const int *a,
               const int *ia, const int *ja, const int *desca, int *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpitrmr2d", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}
