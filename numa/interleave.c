// Weighted interleave page by page: the layout (largest deficit first), the first touch of each
// node's pages under a preferred policy, and move_pages for the pages that landed elsewhere.
#include <errno.h>
#include <math.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nt_core.h"
#include "nt_numa.h"

static nt_status check_weights(const double *w, int D, double *sum)
{
    *sum = 0;
    for (int d = 0; d < D; d++) {
        if (!(w[d] >= 0) || !isfinite(w[d]))
            return nt_fail(NT_EINVAL, "weighted interleave: weights[%d] = %g must be >= 0 and "
                           "finite", d, w[d]);
        *sum += w[d];
    }
    if (!(*sum > 0))
        return nt_fail(NT_EINVAL, "weighted interleave: every weight is 0");
    return NT_OK;
}

nt_status nt_mem_interleave_layout(const double *w, int D, int64_t pages, int *dom)
{
    if (!w || !dom || D < 1 || pages < 0)
        return nt_fail(NT_EINVAL, "nt_mem_interleave_layout: %s",
                       !w ? "weights is NULL" : !dom ? "domain is NULL"
                       : D < 1 ? "ndomains < 1" : "pages < 0");
    double sum;
    nt_status st = check_weights(w, D, &sum);
    if (st)
        return st;
    int *live = malloc((size_t)D * sizeof *live);
    int64_t *got = calloc((size_t)D, sizeof *got);
    if (!live || !got) {
        free(live);
        free(got);
        return nt_fail(NT_ENOMEM, "nt_mem_interleave_layout: out of memory");
    }
    int n = 0;
    for (int d = 0; d < D; d++)
        if (w[d] > 0)
            live[n++] = d;
    for (int64_t k = 0; k < pages; k++) {
        int best = live[0];
        double bd = -INFINITY;
        for (int x = 0; x < n; x++) {
            int d = live[x];
            double deficit = (double)(k + 1) * (w[d] / sum) - (double)got[d];
            if (deficit > bd) {
                bd = deficit;
                best = d;
            }
        }
        dom[k] = best;
        got[best]++;
    }
    free(live);
    free(got);
    return NT_OK;
}

static nt_status check_args(const nt_topo_t *t, const double *w, size_t bytes, unsigned flags,
                            void **out)
{
    if (!t || !w || !out)
        return nt_fail(NT_EINVAL, "nt_mem_alloc_weighted: %s is NULL",
                       !t ? "topo" : !w ? "weights" : "out");
    if (nt_topo_get_kind(t) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_mem_alloc_weighted: a synthetic topology has no memory");
    if (bytes == 0)
        return nt_fail(NT_EINVAL, "nt_mem_alloc_weighted: bytes is 0");
    if (flags & ~(unsigned)NT_MEM_STRICT)
        return nt_fail(NT_EINVAL, "nt_mem_alloc_weighted: unknown flags 0x%x", flags);
    double sum;
    int D = nt_topo_ndomains(t);
    nt_status st = check_weights(w, D, &sum);
    for (int d = 0; d < D && !st; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (w[d] > 0 && (!nt_topo_node_memory_allowed(t, info.node) || info.node >= 64))
            st = nt_fail(NT_EINVAL, "nt_mem_alloc_weighted: weights[%d] > 0 but node %d's "
                         "memory %s", d, info.node, info.node >= 64 ? "is past node 63"
                                                                     : "is not allowed");
    }
    return st;
}

// Fault in the pages of one node under MPOL_PREFERRED for it.
static nt_status touch_node(char *p, const int *dom, const int *node_of, int64_t pages,
                            size_t pg, int node)
{
    unsigned long mask[16] = {1ul << node}; // nodes < 64 (checked); room as get_mempolicy's
    if (set_mempolicy(MPOL_PREFERRED, mask, 16 * 64) != 0)
        return nt_fail(NT_ESYS, "nt_mem_alloc_weighted: set_mempolicy(node %d): %s", node,
                       strerror(errno));
    for (int64_t k = 0; k < pages; k++)
        if (node_of[dom[k]] == node)
            p[(size_t)k * pg] = 0;
    return NT_OK;
}

// Check every page and move the misplaced ones, in chunks of move_pages calls.
static nt_status fix_pages(char *p, const int *dom, const int *node_of, int64_t pages,
                           size_t pg, nt_interleave_report_t *r)
{
    enum { CHUNK = 4096 };
    void *addr[CHUNK];
    int status[CHUNK], want[CHUNK];
    for (int64_t k0 = 0; k0 < pages; k0 += CHUNK) {
        int n = pages - k0 < CHUNK ? (int)(pages - k0) : CHUNK, m = 0;
        for (int x = 0; x < n; x++)
            addr[x] = p + (size_t)(k0 + x) * pg;
        if (move_pages(0, (unsigned long)n, addr, NULL, status, 0) != 0)
            return nt_fail(NT_ESYS, "nt_mem_alloc_weighted: move_pages query: %s",
                           strerror(errno));
        for (int x = 0; x < n; x++) {
            int node = node_of[dom[k0 + x]];
            if (status[x] == node) {
                r->placed++;
                continue;
            }
            addr[m] = addr[x];
            want[m++] = node;
        }
        if (m && move_pages(0, (unsigned long)m, addr, want, status, MPOL_MF_MOVE) < 0)
            return nt_fail(NT_ESYS, "nt_mem_alloc_weighted: move_pages: %s", strerror(errno));
        for (int x = 0; x < m; x++)
            *(status[x] == want[x] ? &r->moved : &r->misplaced) += 1;
    }
    return NT_OK;
}

// Lay out, touch node by node under the caller's policy saved and restored, then fix.
static nt_status place(const nt_topo_t *t, const double *w, char *p, int64_t pages, size_t pg,
                       nt_interleave_report_t *r)
{
    int D = nt_topo_ndomains(t);
    int *dom = malloc((size_t)pages * sizeof *dom), *node_of = malloc((size_t)D * sizeof(int));
    nt_status st = dom && node_of ? nt_mem_interleave_layout(w, D, pages, dom)
                                  : nt_fail(NT_ENOMEM, "nt_mem_alloc_weighted: out of memory");
    unsigned long old_mask[16] = {0};
    int old_mode = MPOL_DEFAULT;
    if (!st && get_mempolicy(&old_mode, old_mask, 16 * 64, NULL, 0) != 0)
        st = nt_fail(NT_ESYS, "nt_mem_alloc_weighted: get_mempolicy: %s", strerror(errno));
    for (int d = 0; d < D && !st; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        node_of[d] = info.node;
    }
    bool done[64] = {false};
    for (int d = 0; d < D && !st; d++)
        if (w[d] > 0 && !done[node_of[d]]) {
            done[node_of[d]] = true;
            st = touch_node(p, dom, node_of, pages, pg, node_of[d]);
        }
    // The default policy's mask is empty (as get_mempolicy left it): given, not NULL.
    if (dom && node_of && set_mempolicy(old_mode, old_mask, 16 * 64) != 0 && !st)
        st = nt_fail(NT_ESYS, "nt_mem_alloc_weighted: restoring the memory policy: %s",
                     strerror(errno));
    if (!st)
        st = fix_pages(p, dom, node_of, pages, pg, r);
    free(dom);
    free(node_of);
    return st;
}

nt_status nt_mem_alloc_weighted(const nt_topo_t *t, const double *w, size_t bytes,
                                unsigned flags, void **out, nt_interleave_report_t *report)
{
    nt_status st = check_args(t, w, bytes, flags, out);
    if (st)
        return st;
    size_t pg = nt_mem_page_size(), len;
    if (bytes > SIZE_MAX - (pg - 1))
        return nt_fail(NT_ERANGE, "nt_mem_alloc_weighted: %zu bytes overflow", bytes);
    len = (bytes + pg - 1) / pg * pg;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return nt_fail(NT_ENOMEM, "nt_mem_alloc_weighted: mmap of %zu bytes: %s", len,
                       strerror(errno));
    (void)madvise(p, len, MADV_NOHUGEPAGE); // one node per 4 KiB page, not per 2 MiB
    nt_interleave_report_t r = {.pages = (int64_t)(len / pg)};
    st = place(t, w, p, r.pages, pg, &r);
    if (!st && (flags & NT_MEM_STRICT) && r.misplaced)
        st = nt_fail(NT_ESYS, "nt_mem_alloc_weighted: %lld of %lld pages could not be put on "
                     "their node", (long long)r.misplaced, (long long)r.pages);
    if (st) {
        munmap(p, len);
        return st;
    }
    *out = p;
    if (report)
        *report = r;
    return NT_OK;
}
