// The C interface of Debian's MPI BLACS and of the ScaLAPACK routines numatile is compared with
// (libscalapack-openmpi ships no header for them; the types are <numatile/scalapack.h>'s, so
// both headers may be included): process numbers are ranks of MPI_COMM_WORLD. For blacs.c, the MPI tests and
// numatile-mpi.
#ifndef NUMATILE_MPI_BLACS_H
#define NUMATILE_MPI_BLACS_H

void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *ctxt, int *usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
int Cblacs_pnum(int ctxt, int prow, int pcol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int notdone);
void Cigsum2d(int ctxt, const char *scope, const char *top, int m, int n, int *a, int lda,
              int rdest, int cdest);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ctxt);
void pdtrmr2d_(const char *uplo, const char *diag, const int *m, const int *n, const double *a,
               const int *ia, const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc);
void pztranc_(const int *m, const int *n, const void *alpha, const void *a, const int *ia,
              const int *ja, const int *desca, const void *beta, void *c, const int *ic,
              const int *jc, const int *descc);

#endif
