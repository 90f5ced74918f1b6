// Large arrays of the sparse count matrices and their solvers, in transparent huge pages.
//
// Why: on the VMs measured (Debian's THP "madvise" mode) the first touch of a fresh 4 KiB page
// is a fault that costs more than filling it; the block-cyclic count matrix of a P = 65536
// change writes 123 MB at once (0.48 s in 4 KiB pages, 0.13 s in 2 MiB ones, same run). The
// memory stays an ordinary heap block: free() releases it.
#include <stdlib.h>
#include <sys/mman.h>

#include "nt_partition.h"

enum { HUGE = 2 << 20 };

void *nt_sparse_alloc(size_t bytes)
{
    if (bytes < 4 * (size_t)HUGE)
        return malloc(bytes ? bytes : 1);
    size_t len = (bytes + HUGE - 1) / HUGE * HUGE;
    void *p = aligned_alloc(HUGE, len);
    if (p)
        (void)madvise(p, len, MADV_HUGEPAGE); // advice only: small pages if refused
    return p;
}
