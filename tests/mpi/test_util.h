// What the MPI tests share: their generator (splitmix64), independent of the library's (every
// rank seeds it alike, so every rank draws the same geometries), and ScaLAPACK's local-to-global
// index, the oracle's side of a block-cyclic layout.
#ifndef NUMATILE_MPI_TEST_UTIL_H
#define NUMATILE_MPI_TEST_UTIL_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Uniform in lo..hi, both included.
static inline int uni(int lo, int hi)
{
    return lo + (int)(next() % (uint64_t)(hi - lo + 1));
}

// Global index of local index l (ScaLAPACK's INDXL2G, 0-based): block size nb, process iproc
// of nprocs, the first block on process isrc.
static inline int64_t l2g(int64_t l, int64_t nb, int iproc, int isrc, int nprocs)
{
    return nb * ((l / nb) * nprocs + (iproc - isrc + nprocs) % nprocs) + l % nb;
}

#endif
