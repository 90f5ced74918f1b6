// p?tran_, p?tranu_, p?tranc_: PBLAS's transpositions C := beta C + alpha op(A), run by
// nt_ptran(), else by PBLAS's own routine.
#include <numatile/mpi.h>
#include <numatile/scalapack.h>

#include "nt_scalapack.h"

typedef void (*tran_fn)(const int *m, const int *n, const void *alpha, const void *a,
                        const int *ia, const int *ja, const int *desca, const void *beta,
                        void *c, const int *ic, const int *jc, const int *descc);

// trans 'T' or 'C', type s/d/c/z; name is PBLAS's routine for the fallback.
static void tran(const char *name, char trans, char type, const int *m, const int *n,
                 const void *alpha, const void *a, const int *ia, const int *ja,
                 const int *desca, const void *beta, void *c, const int *ic, const int *jc,
                 const int *descc)
{
    const char *why = NULL;
    // PBLAS checks its arguments even when nothing moves (and aborts on a bad one): its own
    // routine does exactly that, without communicating, so empty calls go there silently.
    if (*m != 0 && *n != 0) {
        why = "a descriptor type (DTYPE) other than 1, dense";
        // PBLAS is collective over A's context (the grid's processes call it).
        if (nt_sl_dense(desca, descc, desca[1])) {
            if (nt_ptran(trans, type, *m, *n, alpha, a, *ia, *ja, desca, beta, c, *ic, *jc,
                         descc, NULL) == NT_OK)
                return;
            why = nt_mpi_last_error();
        }
    }
    tran_fn f = (tran_fn)nt_sl_next(name, why ? why : "an empty call");
    if (why)
        nt_sl_notice(NT_SL_TRAN, name, why);
    f(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pstran_(const int *m, const int *n, const float *alpha, const float *a, const int *ia,
             const int *ja, const int *desca, const float *beta, float *c, const int *ic,
             const int *jc, const int *descc)
{
    tran("pstran_", 'T', 's', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc)
{
    tran("pdtran_", 'T', 'd', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pctranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pctranu_", 'T', 'c', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pztranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pztranu_", 'T', 'z', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pctranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pctranc_", 'C', 'c', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pztranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pztranc_", 'C', 'z', m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}
