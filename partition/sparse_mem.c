// Large arrays of the sparse count matrices and their solvers, in transparent huge pages.
//
// Why: on the VMs measured (Debian's THP "madvise" mode) the first touch of a fresh 4 KiB page
// is a fault that costs more than filling it; the block-cyclic count matrix of a P = 65536
// change writes 123 MB at once (0.46-0.55 s in 4 KiB pages, 0.12-0.20 s in 2 MiB ones, same
// run), and the solver's searches read random rows of its sorted copies, where each small page
// is a TLB miss besides the cache miss. The memory stays an ordinary heap block: free()
// releases it.
#include <stdlib.h>
#include <sys/mman.h>

#include "nt_partition.h"

enum { HUGE_PAGE = 2 << 20 };

void *nt_sparse_alloc(size_t bytes)
{
    if (bytes < 4 * (size_t)HUGE_PAGE)
        return malloc(bytes ? bytes : 1);
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, len);
    if (p)
        (void)madvise(p, len, MADV_HUGEPAGE); // advice only: small pages if refused
    return p;
}
