// p?gemr2d_ and Cp?gemr2d: ScaLAPACK's general copies between block-cyclic grids, run by
// nt_pgemr2d() (whose semantics are pdgemr2d's), else by ScaLAPACK's own routine.
#include <stddef.h>

#include <numatile/mpi.h>
#include <numatile/scalapack.h>

#include "nt_scalapack.h"

// ScaLAPACK's C entry, the one every type shares but for the element type.
typedef void (*gemr_fn)(int m, int n, const void *a, int ia, int ja, const int *desca,
                        void *b, int ib, int jb, const int *descb, int ictxt);

// The copy of `es`-byte elements; cname is ScaLAPACK's C routine for the fallback.
static void gemr(const char *cname, size_t es, int m, int n, const void *a, int ia, int ja,
                 const int *desca, void *b, int ib, int jb, const int *descb, int ictxt)
{
    // ScaLAPACK returns at once, before reading anything else or communicating.
    if (m == 0 || n == 0)
        return;
    const char *why = "a descriptor type (DTYPE) other than 1, dense";
    if (nt_sl_dense(desca, descb, ictxt)) {
        // Every process gets the same status (nt_pgemr2d agrees on it), B untouched on failure.
        if (nt_pgemr2d(es, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, NULL) == NT_OK)
            return;
        why = nt_mpi_last_error();
    }
    gemr_fn f = (gemr_fn)nt_sl_next(cname, why);
    nt_sl_notice(NT_SL_GEMR2D, cname, why);
    f(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpsgemr2d(int m, int n, const float *a, int ia, int ja, const int *desca, float *b,
               int ib, int jb, const int *descb, int ictxt)
{
    gemr("Cpsgemr2d", 4, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca, double *b,
               int ib, int jb, const int *descb, int ictxt)
{
    gemr("Cpdgemr2d", 8, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpcgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib,
               int jb, const int *descb, int ictxt)
{
    gemr("Cpcgemr2d", 8, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpzgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib,
               int jb, const int *descb, int ictxt)
{
    gemr("Cpzgemr2d", 16, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

void Cpigemr2d(int m, int n, const int *a, int ia, int ja, const int *desca, int *b, int ib,
               int jb, const int *descb, int ictxt)
{
    gemr("Cpigemr2d", 4, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

// The Fortran names: every argument by reference. Their fallback is ScaLAPACK's C routine,
// which its own Fortran wrapper calls.
void psgemr2d_(const int *m, const int *n, const float *a, const int *ia, const int *ja,
               const int *desca, float *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt)
{
    gemr("Cpsgemr2d", 4, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt)
{
    gemr("Cpdgemr2d", 8, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pcgemr2d_(const int *m, const int *n, const void *a, const int *ia, const int *ja,
               const int *desca, void *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt)
{
    gemr("Cpcgemr2d", 8, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pzgemr2d_(const int *m, const int *n, const void *a, const int *ia, const int *ja,
               const int *desca, void *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt)
{
    gemr("Cpzgemr2d", 16, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}

void pigemr2d_(const int *m, const int *n, const int *a, const int *ia, const int *ja,
               const int *desca, int *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt)
{
    gemr("Cpigemr2d", 4, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);
}
