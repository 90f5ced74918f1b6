// p?trmr2d_ and Cp?trmr2d: ScaLAPACK's trapezoidal copies between block-cyclic grids, run by
// nt_ptrmr2d() (ScaLAPACK's trapezoids, pdgemr2d's semantics otherwise), else by ScaLAPACK's
// own routine.
#include <stddef.h>

#include <numatile/mpi.h>
#include <numatile/scalapack.h>

#include "nt_scalapack.h"

typedef void (*trmr_fn)(const char *uplo, const char *diag, int m, int n, const void *a, int ia,
                        int ja, const int *desca, void *b, int ib, int jb, const int *descb,
                        int ictxt);

// The copy of `es`-byte elements; cname is ScaLAPACK's C routine for the fallback.
static void trmr(const char *cname, size_t es, const char *uplo, const char *diag, int m, int n,
                 const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
                 const int *descb, int ictxt)
{
    // ScaLAPACK returns at once, before reading anything else or communicating.
    if (m == 0 || n == 0)
        return;
    const char *why = "a descriptor type (DTYPE) other than 1, dense";
    if (nt_sl_dense(desca, descb, ictxt)) {
        // Every process gets the same status, B untouched on failure (as nt_pgemr2d).
        if (nt_ptrmr2d(*uplo, *diag, es, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt,
                       NULL) == NT_OK)
            return;
        why = nt_mpi_last_error();
    }
    trmr_fn f = (trmr_fn)nt_sl_next(cname, why);
    nt_sl_notice(NT_SL_TRMR2D, cname, why);
    f(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpstrmr2d(const char *uplo, const char *diag, int m, int n, const float *a, int ia,
               int ja, const int *desca, float *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpstrmr2d", 4, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpdtrmr2d(const char *uplo, const char *diag, int m, int n, const double *a, int ia,
               int ja, const int *desca, double *b, int ib, int jb, const int *descb,
               int ictxt)
{
    trmr("Cpdtrmr2d", 8, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpctrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpctrmr2d", 8, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpztrmr2d(const char *uplo, const char *diag, int m, int n, const void *a, int ia, int ja,
               const int *desca, void *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpztrmr2d", 16, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpitrmr2d(const char *uplo, const char *diag, int m, int n, const int *a, int ia, int ja,
               const int *desca, int *b, int ib, int jb, const int *descb, int ictxt)
{
    trmr("Cpitrmr2d", 4, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

// The Fortran names (the hidden lengths of uplo and diag that Fortran appends are not read,
// as ScaLAPACK's own wrappers do not read them).
void pstrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const float *a,
               const int *ia, const int *ja, const int *desca, float *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpstrmr2d", 4, uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pdtrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const double *a,
               const int *ia, const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpdtrmr2d", 8, uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pctrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpctrmr2d", 8, uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pztrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const void *a,
               const int *ia, const int *ja, const int *desca, void *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpztrmr2d", 16, uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pitrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const int *a,
               const int *ia, const int *ja, const int *desca, int *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    trmr("Cpitrmr2d", 4, uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}
