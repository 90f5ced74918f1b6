// Room checks: what a request needs, compared with what the nodes have free and the machine's
// limits (numa/limits.c: MemAvailable, the memory cgroup, the address space left), before
// anything is allocated; an impossible request then fails at once with both numbers
// instead of allocating for seconds and meeting the OOM killer.
#include <inttypes.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_numa.h"

static double gib(uint64_t b)
{
    return (double)b / (double)(1ULL << 30);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Memory the kernel can give on a node without swapping: MemFree plus the page cache and slab it
// reclaims (node meminfo), else libnuma's free count; UINT64_MAX when nothing says. With one
// node the machine's own meminfo is that node: some VMs (this project's, with memory added
// after boot) leave most of it out of node0/meminfo (6.9 of 24 GB here).
// nkeys = 1: MemFree only.
static uint64_t node_meminfo(int node, size_t nkeys)
{
    char path[96], line[160];
    if (nt_numa_node_count() == 1)
        snprintf(path, sizeof path, "/proc/meminfo");
    else
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    static const char *const keys[] = {"MemFree:", "Inactive(file):", "SReclaimable:"};
    FILE *f = nt_numa_fs_open(path);
    uint64_t sum = 0;
    int found = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            for (size_t k = 0; k < nkeys; k++) {
                char *p = strstr(line, keys[k]);
                if (p) {
                    sum += strtoull(p + strlen(keys[k]), NULL, 10) * 1024;
                    found |= k == 0;
                }
            }
        }
        fclose(f);
    }
    if (found)
        return sum;
    long long fr;
    if (!getenv("NT_FSROOT") && numa_available() >= 0 && numa_node_size64(node, &fr) > 0 &&
        fr >= 0)
        return (uint64_t)fr;
    return UINT64_MAX;
}

uint64_t nt_numa_node_room(int node)
{
    return node_meminfo(node, 3);
}

uint64_t nt_numa_node_free(int node)
{
    return node_meminfo(node, 1);
}

// The binding limit as a message names it: "the cgroup memory limit (12.0 GiB)".
static void limit_text(const nt_mem_limits_t *l, char *buf, size_t cap)
{
    uint64_t lim = l->binding == NT_LIMIT_CGROUP ? l->cgroup_limit
                 : l->binding == NT_LIMIT_ADDRESS_SPACE ? l->address_space_limit : 0;
    if (l->binding == NT_LIMIT_NODES)
        snprintf(buf, cap, "the machine's free memory");
    else if (lim)
        snprintf(buf, cap, "the %s (%.1f GiB)", nt_mem_limit_name(l->binding), gib(lim));
    else
        snprintf(buf, cap, "%s", nt_mem_limit_name(l->binding));
}

// Placed needs summed per node (domains of a node share its memory) against that node's room;
// *placed gets the total.
static nt_status check_nodes(const nt_topo_t *t, const uint64_t *need, const char *who,
                             uint64_t *placed)
{
    int D = nt_topo_ndomains(t), nn = nt_numa_node_count();
    uint64_t *per = calloc((size_t)nn, sizeof *per);
    int *first = malloc((size_t)nn * sizeof *first), *count = calloc((size_t)nn, sizeof *count);
    nt_status st = per && first && count ? NT_OK : nt_fail(NT_ENOMEM, "%s: out of memory", who);
    *placed = 0;
    for (int d = 0; d < D && st == NT_OK; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (!need[d] || info.node < 0 || info.node >= nn)
            continue;
        if (!nt_topo_node_memory_allowed(t, info.node)) {
            st = nt_fail(NT_EINVAL, "%s: domain %d holds data but is on node %d, whose memory "
                         "this process may not use (%s)", who, d, info.node,
                         nt_topo_memory_limit_text(t));
            break;
        }
        if (!count[info.node]++)
            first[info.node] = d;
        per[info.node] = sat_add(per[info.node], need[d]);
        *placed = sat_add(*placed, need[d]);
    }
    for (int n = 0; n < nn && st == NT_OK; n++) {
        uint64_t room = per[n] ? nt_numa_node_room(n) : UINT64_MAX;
        if (per[n] > room)
            st = nt_fail(NT_ENOSPACE, "%s: needs %.1f GiB on domain %d%s, node %d has %.1f GiB "
                         "free", who, gib(per[n]), first[n],
                         count[n] > 1 ? " and the domains sharing its node" : "", n, gib(room));
    }
    free(per);
    free(first);
    free(count);
    return st;
}

nt_status nt_mem_room(const nt_topo_t *topo, const uint64_t *per_domain, uint64_t anywhere,
                      const char *who)
{
    if (!who)
        who = "nt_mem_room";
    if (per_domain && !topo)
        return nt_fail(NT_EINVAL, "nt_mem_room: per_domain given without a topology");
    uint64_t placed = 0;
    // A synthetic machine's memory is fictional: only what this process keeps counts.
    if (per_domain && nt_topo_get_kind(topo) != NT_TOPO_SYNTHETIC) {
        nt_status st = check_nodes(topo, per_domain, who, &placed);
        if (st)
            return st;
    }
    // Then everything, placed or not, against the least of the machine's limits.
    uint64_t total = sat_add(placed, anywhere);
    nt_mem_limits_t lim;
    nt_mem_limits(&lim);
    if (total && total > lim.room) {
        char what[96];
        limit_text(&lim, what, sizeof what);
        return nt_fail(NT_ENOSPACE, "%s: needs %.1f GiB, %s leaves %.1f GiB free", who,
                       gib(total), what, gib(lim.room));
    }
    return NT_OK;
}

nt_status nt_mem_room_sizes(const nt_topo_t *t, const size_t *per_domain, int n, const char *who)
{
    int D = nt_topo_ndomains(t);
    uint64_t *per = calloc((size_t)D, sizeof *per);
    if (!per)
        return nt_fail(NT_ENOMEM, "%s: out of memory", who);
    for (int d = 0; d < n && d < D; d++)
        per[d] = per_domain[d];
    nt_status st = nt_mem_room(t, per, 0, who);
    free(per);
    return st;
}
