// Shared by the two files of the BLIS backend (blis.c, which includes blis.h, and flame.c, which
// includes FLAME.h): BLIS's process-wide thread count, which libFLAME's BLAS calls follow.
#ifndef NUMATILE_BLIS_INTERNAL_H
#define NUMATILE_BLIS_INTERNAL_H

// Set BLIS's process-wide thread count (>= 1) and return the previous one (< 1 = unset).
int nt_blis_set_threads(int nthreads);

#endif
