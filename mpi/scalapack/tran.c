// p?tran_, p?tranu_, p?tranc_: PBLAS's transpositions C := beta C + alpha op(A). The engine has
// no transposition yet, so they run PBLAS's own routine (with its notice).
#include <numatile/scalapack.h>

#include "nt_scalapack.h"

typedef void (*tran_fn)(const int *m, const int *n, const void *alpha, const void *a,
                        const int *ia, const int *ja, const int *desca, const void *beta,
                        void *c, const int *ic, const int *jc, const int *descc);

static void tran(const char *name, const int *m, const int *n, const void *alpha, const void *a,
                 const int *ia, const int *ja, const int *desca, const void *beta, void *c,
                 const int *ic, const int *jc, const int *descc)
{
    const char *why = "no transposition in numatile's engine";
    tran_fn f = (tran_fn)nt_sl_next(name, why);
    nt_sl_notice(NT_SL_TRAN, name, why);
    f(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pstran_(const int *m, const int *n, const float *alpha, const float *a, const int *ia,
             const int *ja, const int *desca, const float *beta, float *c, const int *ic,
             const int *jc, const int *descc)
{
    tran("pstran_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc)
{
    tran("pdtran_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pctranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pctranu_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pztranu_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pztranu_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pctranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pctranc_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

void pztranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc)
{
    tran("pztranc_", m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}
