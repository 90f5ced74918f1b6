// What the tool and the scenarios share besides the harness proper: reproducible matrix values
// and the exit code of a library status (see harness.h).
#include "harness.h"

#include <stdbool.h>

double bench_value(uint64_t seed, int64_t r, int64_t c)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)r * 0xbf58476d1ce4e5b9ULL +
                 (uint64_t)c * 0x94d049bb133111ebULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

void bench_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg)
{
    (void)elem_size;
    *(double *)elem = bench_value(*(const uint64_t *)arg, r, c);
}

int bench_status_exit(nt_status st)
{
    if (st == NT_OK)
        return 0;
    bool usage = st == NT_EINVAL || st == NT_ERANGE || st == NT_EIO || st == NT_ENOSPACE;
    return usage ? 2 : 3;
}
