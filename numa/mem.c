// Node-bound allocation, page-location histograms and page migration (libnuma / move_pages).
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nt_core.h"
#include "nt_numa.h"

// move_pages takes a page list; query in chunks so large buffers need bounded scratch memory.
#define PAGE_CHUNK 4096

static _Atomic int64_t fail_after = -1;

void nt_mem_test_fail_after(int64_t n)
{
    atomic_store(&fail_after, n);
}

// true when the injected failure fires for this call
static bool injected_failure(void)
{
    int64_t v = atomic_load(&fail_after);
    while (v >= 0) {
        if (v == 0)
            return true;
        if (atomic_compare_exchange_weak(&fail_after, &v, v - 1))
            return false;
    }
    return false;
}

size_t nt_mem_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

int nt_numa_node_count(void)
{
    if (numa_available() < 0)
        return 1;
    return numa_max_node() + 1;
}

// Mappings of at least this many bytes ask for transparent huge pages (x86-64's 2 MiB).
#define HUGE_BYTES ((size_t)2 << 20)

// NT_NO_HUGEPAGES=1 in the environment: no huge-page advice (to compare, or for a kernel
// whose huge pages misbehave), read once.
static bool nt_mem_no_hugepages(void)
{
    static _Atomic int v = -1;
    int x = atomic_load(&v);
    if (x < 0) {
        const char *e = getenv("NT_NO_HUGEPAGES");
        x = e && *e && strcmp(e, "0") != 0;
        atomic_store(&v, x);
    }
    return x;
}

// A mapping of len bytes (whole pages); with huge_start it starts on a huge-page boundary (a
// larger mapping, its excess given back), so that huge pages cover all of it. Only for lengths
// of whole huge pages: the kernel places mappings top down, so consecutive ones still follow
// each other. Aligning other lengths too left a hole after each, so that neighbouring tiles'
// pool runs no longer joined: in-place peaks of bench cao-categories' 800 x 800 tiles (5.1 MB)
// went from 39-83% of the matrix to 100% in categories 1-7, for a faster first touch (3.2 MB
// tiles, 4800^2 doubles: 0.022-0.030 s against 0.032-0.033).
static void *map_pages(size_t len, bool huge_start)
{
    const int prot = PROT_READ | PROT_WRITE, fl = MAP_PRIVATE | MAP_ANONYMOUS;
    size_t extra = HUGE_BYTES - nt_mem_page_size();
    if (!huge_start || len + extra < len)
        return mmap(NULL, len, prot, fl, -1, 0);
    char *q = mmap(NULL, len + extra, prot, fl, -1, 0);
    if (q == MAP_FAILED)
        return q;
    uintptr_t a = ((uintptr_t)q + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
    size_t head = a - (uintptr_t)q;
    if (head > 0)
        munmap(q, head);
    if (extra > head)
        munmap((char *)a + len, extra - head);
    return (void *)a;
}

// Huge pages only inside one mapping: its parts before the first and after the last huge-page
// boundary in it are advised against them, the whole huge pages between for them when `want`.
// Mappings next to each other with the same node policy merge into one kernel VMA, where a
// huge page could otherwise straddle two allocations (two tiles of one domain): moving one of
// them (nt_mem_migrate, move_pages) moves the whole huge page and its neighbour's pages with
// it (tests/vm guest_redist r25, 3.2 MB tiles under THP "always": 392 of 7200 pages left on
// the wrong node before this).
static void advise_huge(void *p, size_t len, bool want)
{
    uintptr_t a = (uintptr_t)p, e = a + len, h = HUGE_BYTES;
    uintptr_t lo = (a + h - 1) & ~(h - 1), hi = e & ~(h - 1);
    if (lo >= hi) {
        (void)madvise(p, len, MADV_NOHUGEPAGE);
        return;
    }
    if (lo > a)
        (void)madvise(p, lo - a, MADV_NOHUGEPAGE);
    if (e > hi)
        (void)madvise((void *)hi, e - hi, MADV_NOHUGEPAGE);
    if (want)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

static bool round_to_pages(size_t bytes, size_t *out)
{
    size_t pg = nt_mem_page_size();
    size_t r;
    if (!nt_add_size(bytes, pg - 1, &r))
        return false;
    *out = r / pg * pg;
    return true;
}

// nt_mem_alloc's arguments checked, bytes rounded up to whole pages into *len.
static nt_status check_alloc(const nt_topo_t *t, int d, size_t bytes, unsigned flags,
                             void **out, size_t *len)
{
    if (!t || !out)
        return nt_fail(NT_EINVAL, "nt_mem_alloc: %s is NULL", t ? "out" : "topo");
    if (nt_topo_get_kind(t) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_mem_alloc: a synthetic topology has no memory "
                       "(it is for planning only)");
    if (d < 0 || d >= nt_topo_ndomains(t))
        return nt_fail(NT_EINVAL, "nt_mem_alloc: domain %d out of range 0..%d", d,
                       nt_topo_ndomains(t) - 1);
    if (bytes == 0)
        return nt_fail(NT_EINVAL, "nt_mem_alloc: bytes is 0");
    if (flags & ~(unsigned)(NT_MEM_STRICT | NT_MEM_NOTOUCH | NT_MEM_HUGE_PAGES))
        return nt_fail(NT_EINVAL, "nt_mem_alloc: unknown flags 0x%x", flags);
    if (!round_to_pages(bytes, len))
        return nt_fail(NT_ERANGE, "nt_mem_alloc: bytes = %zu overflows", bytes);
    if (injected_failure())
        return nt_fail(NT_ENOMEM, "nt_mem_alloc: injected failure (test hook)");
    return NT_OK;
}

// The pages [p, p + len) bound to node (strict: MPOL_BIND, else MPOL_PREFERRED); unmapped on
// failure.
static nt_status bind_pages(void *p, size_t len, int node, bool strict)
{
    if (numa_available() >= 0) {
        unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {0};
        const size_t bits = 8 * sizeof(unsigned long);
        if ((size_t)node >= sizeof mask * 8) {
            munmap(p, len);
            return nt_fail(NT_ERANGE, "nt_mem_alloc: node %d above 1023", node);
        }
        mask[(size_t)node / bits] |= 1UL << ((size_t)node % bits);
        if (mbind(p, len, strict ? MPOL_BIND : MPOL_PREFERRED, mask, sizeof mask * 8, 0) != 0) {
            int err = errno;
            munmap(p, len);
            return nt_fail(NT_ESYS, "nt_mem_alloc: mbind to node %d: %s", node, strerror(err));
        }
    } else if (strict && node != 0) {
        munmap(p, len);
        return nt_fail(NT_ESYS, "nt_mem_alloc: no NUMA support in this kernel, cannot bind "
                       "to node %d", node);
    }
    return NT_OK;
}

nt_status nt_mem_prefer_node(void *p, size_t len, int node)
{
    if (numa_available() < 0)
        return NT_OK; // one node: nothing to prefer
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {0};
    const size_t bits = 8 * sizeof(unsigned long);
    if (node < 0 || (size_t)node >= sizeof mask * 8)
        return nt_fail(NT_ERANGE, "nt_mem_prefer_node: node %d outside 0..1023", node);
    mask[(size_t)node / bits] |= 1UL << ((size_t)node % bits);
    if (mbind(p, len, MPOL_PREFERRED, mask, sizeof mask * 8, 0) != 0)
        return nt_fail(NT_ESYS, "nt_mem_prefer_node: mbind to node %d: %s", node,
                       strerror(errno));
    return NT_OK;
}

// First touch of every page; strict: every page must then be on node (else unmapped).
static nt_status touch_pages(void *p, size_t len, int node, bool strict)
{
    size_t pg = nt_mem_page_size();
    for (size_t off = 0; off < len; off += pg)
        ((volatile char *)p)[off] = 0;
    if (strict && numa_available() >= 0) {
        nt_page_hist_t h;
        nt_status st = nt_mem_where(p, len, &h);
        int64_t here = st == NT_OK && node < 64 ? h.per_node[node] : -1;
        if (here != h.pages) {
            munmap(p, len);
            if (st != NT_OK)
                return st;
            return nt_fail(NT_ESYS, "nt_mem_alloc: strict: %lld of %lld pages landed "
                           "on node %d", (long long)here, (long long)h.pages, node);
        }
    }
    return NT_OK;
}

nt_status nt_mem_alloc(const nt_topo_t *t, int d, size_t bytes, unsigned flags, void **out)
{
    size_t len = 0;
    nt_status st = check_alloc(t, d, bytes, flags, out, &len);
    if (st != NT_OK)
        return st;
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    // The kernel would refuse the binding below (EINVAL) or, for a memory policy, silently
    // place the pages elsewhere: say which rule left the node out instead.
    if (!nt_topo_node_memory_allowed(t, info.node))
        return nt_fail(NT_EINVAL, "nt_mem_alloc: domain %d is on node %d, whose memory this "
                       "process may not use (%s)", d, info.node, nt_topo_memory_limit_text(t));
    // Transparent huge pages (NT_MEM_HUGE_PAGES) for mappings of at least one huge page:
    // first touch then faults once per 2 MiB instead of once per 4 KiB. Measured here (512 MiB,
    // one thread, Debian's "madvise" THP mode): 10-11.6 GB/s against 2.2-2.5 GB/s, but
    // 0.65-0.8 GB/s when the kernel takes huge pages from memory the VM's host has not backed
    // yet. Only advice: the kernel falls back to small pages; placement is unchanged (the
    // binding below applies to huge pages too). Matrices ask for it, workspaces do not (those
    // occasional slow faults made timed kernels noisy: bench advise chose within 10% in
    // 9-12 of 18 instances with every large buffer advised, 16-17 without).
    bool huge = (flags & NT_MEM_HUGE_PAGES) && len >= HUGE_BYTES && !nt_mem_no_hugepages();
    void *p = map_pages(len, huge && len % HUGE_BYTES == 0);
    if (p == MAP_FAILED)
        return nt_fail(NT_ENOMEM, "nt_mem_alloc: mmap of %zu bytes failed: %s (with many "
                       "tiles: the kernel's vm.max_map_count)", len, strerror(errno));
    advise_huge(p, len, huge);
    bool strict = flags & NT_MEM_STRICT;
    if ((st = bind_pages(p, len, info.node, strict)) != NT_OK)
        return st;
    if (!(flags & NT_MEM_NOTOUCH) && (st = touch_pages(p, len, info.node, strict)) != NT_OK)
        return st;
    *out = p;
    return NT_OK;
}

void nt_mem_free(void *ptr, size_t bytes)
{
    size_t len;
    if (!ptr || bytes == 0 || !round_to_pages(bytes, &len))
        return;
    munmap(ptr, len);
}

// Page-aligned start and page count of [ptr, ptr+bytes).
static void page_span(const void *ptr, size_t bytes, uintptr_t *start, size_t *npages)
{
    size_t pg = nt_mem_page_size();
    uintptr_t a = (uintptr_t)ptr / pg * pg;
    uintptr_t e = ((uintptr_t)ptr + bytes - 1) / pg * pg;
    *start = a;
    *npages = (e - a) / pg + 1;
}

nt_status nt_mem_where(const void *ptr, size_t bytes, nt_page_hist_t *hist)
{
    if (!ptr || !hist)
        return nt_fail(NT_EINVAL, "nt_mem_where: %s is NULL", ptr ? "hist" : "ptr");
    if (bytes == 0)
        return nt_fail(NT_EINVAL, "nt_mem_where: bytes is 0");
    if ((uintptr_t)ptr + (bytes - 1) < (uintptr_t)ptr)
        return nt_fail(NT_ERANGE, "nt_mem_where: range wraps around the address space");
    uintptr_t start;
    size_t npages;
    page_span(ptr, bytes, &start, &npages);
    void **pages = malloc(PAGE_CHUNK * sizeof *pages);
    int *status = malloc(PAGE_CHUNK * sizeof *status);
    if (!pages || !status) {
        free(pages);
        free(status);
        return nt_fail(NT_ENOMEM, "nt_mem_where: out of memory");
    }
    nt_page_hist_t h;
    memset(&h, 0, sizeof h);
    h.nnodes = nt_numa_node_count();
    if (h.nnodes > 64)
        h.nnodes = 64;
    size_t pg = nt_mem_page_size();
    nt_status st = NT_OK;
    for (size_t done = 0; done < npages && st == NT_OK;) {
        size_t n = npages - done < PAGE_CHUNK ? npages - done : PAGE_CHUNK;
        for (size_t k = 0; k < n; k++)
            pages[k] = (void *)(start + (done + k) * pg);
        if (move_pages(0, (unsigned long)n, pages, NULL, status, 0) != 0) {
            st = nt_fail(NT_ESYS, "nt_mem_where: move_pages: %s", strerror(errno));
            break;
        }
        for (size_t k = 0; k < n; k++) {
            if (status[k] >= 0 && status[k] < 64)
                h.per_node[status[k]]++;
            else if (status[k] == -ENOENT)
                h.absent++;
            else
                h.errors++;
        }
        done += n;
        h.pages = (int64_t)done;
    }
    free(pages);
    free(status);
    if (st == NT_OK)
        *hist = h;
    return st;
}

// Move the n pages of pages[] to node (nodes[] holds node n times); status[] is scratch and
// pages[] is reordered. Counts into *r the pages already there, absent and failed.
static nt_status migrate_chunk(void **pages, int *status, int *nodes, size_t n, int node,
                               nt_migrate_report_t *r)
{
    // Ask first, so pages already in place are told apart from pages moved.
    if (move_pages(0, (unsigned long)n, pages, NULL, status, 0) != 0)
        return nt_fail(NT_ESYS, "nt_mem_migrate: move_pages query: %s", strerror(errno));
    for (size_t k = 0; k < n; k++)
        r->already += status[k] == node;
    // A positive return counts pages that could not be moved; their status says why.
    if (move_pages(0, (unsigned long)n, pages, nodes, status, MPOL_MF_MOVE) < 0)
        return nt_fail(NT_ESYS, "nt_mem_migrate: move_pages to node %d: %s", node,
                       strerror(errno));
    // With transparent huge pages the kernel moves a whole huge page for its first address but
    // reports -EBUSY for the next one it meets inside it; a second call on the pages not in
    // place yet reports those as on the node and retries true failures.
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (status[k] == -ENOENT)
            r->absent++;
        else if (status[k] != node)
            pages[m++] = pages[k];
    }
    if (m > 0 && move_pages(0, (unsigned long)m, pages, nodes, status, MPOL_MF_MOVE) < 0)
        return nt_fail(NT_ESYS, "nt_mem_migrate: move_pages to node %d: %s", node,
                       strerror(errno));
    for (size_t k = 0; k < m; k++) {
        if (status[k] == node)
            continue;
        if (status[k] == -ENOENT) {
            r->absent++;
            continue;
        }
        r->failed++;
        if (!r->first_error)
            r->first_error = status[k] < 0 ? -status[k] : EAGAIN;
    }
    return NT_OK;
}

nt_status nt_mem_migrate(void *ptr, size_t bytes, int node, nt_migrate_report_t *rep)
{
    if (!ptr || !rep)
        return nt_fail(NT_EINVAL, "nt_mem_migrate: %s is NULL", ptr ? "rep" : "ptr");
    if (bytes == 0)
        return nt_fail(NT_EINVAL, "nt_mem_migrate: bytes is 0");
    if ((uintptr_t)ptr + (bytes - 1) < (uintptr_t)ptr)
        return nt_fail(NT_ERANGE, "nt_mem_migrate: range wraps around the address space");
    if (numa_available() < 0)
        return nt_fail(NT_ENOTSUP, "nt_mem_migrate: no NUMA support in this kernel");
    if (node < 0 || node > numa_max_node() || !numa_bitmask_isbitset(numa_all_nodes_ptr,
                                                                     (unsigned)node))
        return nt_fail(NT_EINVAL, "nt_mem_migrate: node %d is not a node with memory "
                       "(0..%d)", node, numa_max_node());
    uintptr_t start;
    size_t npages;
    page_span(ptr, bytes, &start, &npages);
    void **pages = malloc(PAGE_CHUNK * sizeof *pages);
    int *status = malloc(PAGE_CHUNK * sizeof *status);
    int *nodes = malloc(PAGE_CHUNK * sizeof *nodes);
    nt_status st = NT_OK;
    if (!pages || !status || !nodes)
        st = nt_fail(NT_ENOMEM, "nt_mem_migrate: out of memory");
    for (size_t k = 0; k < PAGE_CHUNK && st == NT_OK; k++)
        nodes[k] = node;
    nt_migrate_report_t r = {0};
    size_t pg = nt_mem_page_size();
    for (size_t done = 0; done < npages && st == NT_OK;) {
        size_t n = npages - done < PAGE_CHUNK ? npages - done : PAGE_CHUNK;
        for (size_t k = 0; k < n; k++)
            pages[k] = (void *)(start + (done + k) * pg);
        st = migrate_chunk(pages, status, nodes, n, node, &r);
        done += n;
    }
    free(pages);
    free(status);
    free(nodes);
    if (st != NT_OK)
        return st;
    r.pages = (int64_t)npages;
    r.moved = r.pages - r.already - r.failed - r.absent;
    *rep = r;
    return NT_OK;
}
