// The MPI tests' generator (splitmix64), independent of the library's: every rank seeds it
// alike, so every rank draws the same geometries.
#ifndef NUMATILE_MPI_TEST_RNG_H
#define NUMATILE_MPI_TEST_RNG_H

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

#endif
