// Room checks: what a request needs, compared with what the nodes have free and the address-space
// limit, before anything is allocated; an impossible request then fails at once with both numbers
// instead of allocating for seconds and meeting the OOM killer.
#include <inttypes.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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
// reclaims (node meminfo), else libnuma's free count; UINT64_MAX when nothing says.
static uint64_t node_room(int node)
{
    char path[96], line[160];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    FILE *f = fopen(path, "r");
    uint64_t sum = 0;
    int found = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            const char *keys[] = {"MemFree:", "Inactive(file):", "SReclaimable:"};
            for (size_t k = 0; k < 3; k++) {
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
    if (numa_available() >= 0 && numa_node_size64(node, &fr) > 0 && fr >= 0)
        return (uint64_t)fr;
    return UINT64_MAX;
}

// The address-space limit (ulimit -v), or UINT64_MAX.
static uint64_t as_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)rl.rlim_cur;
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
        uint64_t room = per[n] ? node_room(n) : UINT64_MAX;
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
    uint64_t total = sat_add(placed, anywhere), room = 0;
    if (anywhere) {
        for (int n = 0; n < nt_numa_node_count() && room != UINT64_MAX; n++)
            room = sat_add(room, node_room(n));
        if (total > room)
            return nt_fail(NT_ENOSPACE, "%s: needs %.1f GiB, the machine has %.1f GiB free",
                           who, gib(total), gib(room));
    }
    uint64_t lim = as_limit();
    if (total > lim)
        return nt_fail(NT_ENOSPACE, "%s: needs %.1f GiB, the address-space limit (ulimit -v) "
                       "is %.1f GiB", who, gib(total), gib(lim));
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
