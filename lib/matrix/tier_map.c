// Placement by memory tier (numatile/tiers.h): the candidate domains grouped in tiers, tiles
// dealt round-robin over the first tier with room, and interleave weights by bandwidth.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numa/nt_numa.h"
#include "numatile/tiers.h"

const char *nt_tier_policy_name(nt_tier_policy p)
{
    switch (p) {
    case NT_TIER_BANDWIDTH: return "bandwidth";
    case NT_TIER_CAPACITY: return "capacity";
    case NT_TIER_DRAM: return "dram";
    }
    return "unknown";
}

// "512", "512K", "2G": bytes, > 0, without overflow.
static bool parse_limit(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
              : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

nt_status nt_tier_parse(const char *spec, nt_tier_opts_t *out)
{
    if (!spec || !out)
        return nt_fail(NT_EINVAL, "nt_tier_parse: %s is NULL", spec ? "out" : "spec");
    if (strncmp(spec, "tier:", 5))
        return nt_fail(NT_EINVAL, "tier spec '%s' does not start with 'tier:'", spec);
    nt_tier_opts_t o = {0};
    const char *p = spec + 5, *colon = strchr(p, ':'), *plus = strchr(p, '+');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    if (plus && (!colon || plus < colon)) {
        if (strncmp(plus, "+gpu", 4) || (colon ? plus + 4 != colon : plus[4] != 0))
            return nt_fail(NT_EINVAL, "tier spec '%s': after the policy only '+gpu' may "
                           "follow", spec);
        o.flags |= NT_TIER_ALLOW_GPU;
        n = (size_t)(plus - p);
    }
    bool found = false;
    for (int k = NT_TIER_BANDWIDTH; k <= NT_TIER_DRAM && !found; k++) {
        const char *name = nt_tier_policy_name((nt_tier_policy)k);
        if (strlen(name) == n && !strncmp(p, name, n)) {
            o.policy = (nt_tier_policy)k;
            found = true;
        }
    }
    if (!found)
        return nt_fail(NT_EINVAL, "tier spec '%s': unknown policy '%.*s' (bandwidth, capacity, "
                       "dram)", spec, (int)n, p);
    if (colon && !parse_limit(colon + 1, &o.limit_bytes))
        return nt_fail(NT_EINVAL, "tier spec '%s': limit '%s' is not a byte count > 0 (K, M, "
                       "G suffixes)", spec, colon + 1);
    *out = o;
    return NT_OK;
}

// A candidate domain and what orders it.
typedef struct cand {
    int d;
    double key;    // larger first: bandwidth, kind rank or capacity
    uint64_t room; // bytes it may still take
} cand;

static int by_key(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    return x->key < y->key ? 1 : x->key > y->key ? -1 : (x->d > y->d) - (x->d < y->d);
}

// The kinds when bandwidths are missing: faster kinds first, GPU memory last.
static double kind_rank(nt_mem_kind k)
{
    return k == NT_MEMKIND_HBM ? 3 : k == NT_MEMKIND_DRAM ? 2 : k == NT_MEMKIND_CXL_NVM ? 1 : 0;
}

static bool candidate(const nt_topo_t *t, int d, nt_tier_policy policy, unsigned flags,
                      nt_domain_memory_t *dm)
{
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    nt_topo_domain_memory(t, d, dm);
    if (!nt_topo_node_memory_allowed(t, info.node))
        return false;
    if (dm->kind == NT_MEMKIND_GPU && !(flags & NT_TIER_ALLOW_GPU))
        return false;
    return policy != NT_TIER_DRAM || dm->kind == NT_MEMKIND_DRAM;
}

// The room of a domain: its memory, the limit, and on this machine its node's free memory
// (MemFree: the page cache counted reclaimable may be tmpfs) less a margin for the kernel's
// watermarks and own allocations (1/64 of the node, at least 48 MiB: with 16 MiB, 6 MiB of a
// 640 MiB matrix missed two 256 MiB guest nodes), shared among the node's domains.
static uint64_t domain_room(const nt_topo_t *t, int d, uint64_t limit)
{
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    uint64_t r = info.memory_bytes;
    if (limit && limit < r)
        r = limit;
    if (nt_topo_get_kind(t) != NT_TOPO_SYNTHETIC) {
        uint64_t free_b = nt_numa_node_free(info.node);
        uint64_t margin = info.memory_bytes / 64 > (48u << 20) ? info.memory_bytes / 64
                                                                : 48u << 20;
        if (free_b != UINT64_MAX)
            free_b = free_b > margin ? free_b - margin : 0;
        int share = nt_topo_ndomains(t) / nt_topo_nphysical(t);
        if (free_b != UINT64_MAX && free_b / (uint64_t)(share > 0 ? share : 1) < r)
            r = free_b / (uint64_t)(share > 0 ? share : 1);
    }
    return r;
}

// The candidates in tier order; *n of them, tier[k] = the tier of the k-th.
static nt_status order_candidates(const nt_topo_t *t, const nt_tier_opts_t *o, cand *c,
                                  int *tier, int *n)
{
    int D = nt_topo_ndomains(t), k = 0;
    bool all_bw = true;
    for (int d = 0; d < D; d++) {
        nt_domain_memory_t dm;
        if (!candidate(t, d, o->policy, o->flags, &dm))
            continue;
        all_bw = all_bw && dm.bandwidth_mibs > 0;
        c[k++] = (cand){d, o->policy == NT_TIER_CAPACITY ? (double)dm.capacity_bytes
                           : (double)dm.bandwidth_mibs, domain_room(t, d, o->limit_bytes)};
    }
    if (k == 0)
        return nt_fail(NT_ENOSPACE, "tier:%s: no domain may hold tiles (GPU memory needs "
                       "'+gpu', DRAM-only needs DRAM nodes the process may use)",
                       nt_tier_policy_name(o->policy));
    if (o->policy != NT_TIER_CAPACITY && !all_bw)
        for (int x = 0; x < k; x++) {
            nt_domain_memory_t dm;
            nt_topo_domain_memory(t, c[x].d, &dm);
            c[x].key = kind_rank(dm.kind);
        }
    qsort(c, (size_t)k, sizeof *c, by_key);
    // A tier starts where the key falls below 90% of the tier's first.
    for (int x = 0, first = 0; x < k; x++) {
        if (c[x].key < 0.9 * c[first].key)
            first = x;
        tier[x] = x == first ? (x ? tier[x - 1] + 1 : 0) : tier[first];
    }
    *n = k;
    return NT_OK;
}

static size_t page_round(size_t b)
{
    size_t pg = nt_mem_page_size();
    return (b + pg - 1) / pg * pg;
}

// Deal the tiles: round-robin over the domains of the first tier with room for each.
static nt_status deal(nt_tilemap_t *map, const nt_matrix_shape_t *s, cand *c, const int *tier,
                      int n, const char *policy)
{
    int first = 0, next = 0; // the current tier's first candidate, the next to try
    for (int64_t i = 0; i < map->mt; i++)
        for (int64_t j = 0; j < map->nt; j++) {
            int64_t r = s->m - i * s->mb < s->mb ? s->m - i * s->mb : s->mb;
            int64_t cc = s->n - j * s->nb < s->nb ? s->n - j * s->nb : s->nb;
            size_t b = page_round((size_t)r * (size_t)cc * s->elem_size);
            int got = -1;
            while (got < 0 && first < n) {
                int end = first;
                while (end < n && tier[end] == tier[first])
                    end++;
                for (int tries = 0; tries < end - first && got < 0; tries++) {
                    int x = first + (next - first + tries) % (end - first);
                    if (c[x].room >= b)
                        got = x;
                }
                if (got < 0) {
                    first = next = end; // this tier is full: spill to the next
                }
            }
            if (got < 0)
                return nt_fail(NT_ENOSPACE, "tier:%s: tile (%lld,%lld) of %zu bytes does not "
                               "fit the room left on the candidate domains", policy,
                               (long long)i, (long long)j, b);
            c[got].room -= b;
            map->owner[i * map->nt + j] = c[got].d;
            int end = got + 1;
            next = end < n && tier[end] == tier[got] ? end : first;
        }
    return NT_OK;
}

nt_status nt_tier_tilemap(const nt_topo_t *t, const nt_matrix_shape_t *s,
                          const nt_tier_opts_t *opts, nt_tilemap_t **out)
{
    nt_tier_opts_t o = opts ? *opts : (nt_tier_opts_t){0};
    if (!t || !s || !out)
        return nt_fail(NT_EINVAL, "nt_tier_tilemap: %s is NULL", !t ? "topo" : !s ? "shape"
                                                                                : "out");
    if ((unsigned)o.policy > NT_TIER_DRAM || (o.flags & ~NT_TIER_ALLOW_GPU))
        return nt_fail(NT_EINVAL, "nt_tier_tilemap: unknown %s %u", o.flags &
                       ~NT_TIER_ALLOW_GPU ? "flags" : "policy", o.flags & ~NT_TIER_ALLOW_GPU
                       ? o.flags : (unsigned)o.policy);
    if (s->m < 1 || s->n < 1 || s->mb < 1 || s->nb < 1 || s->elem_size < 1)
        return nt_fail(NT_EINVAL, "nt_tier_tilemap: shape %lldx%lld in %lldx%lld tiles of "
                       "%zu-byte elements: every size must be >= 1", (long long)s->m,
                       (long long)s->n, (long long)s->mb, (long long)s->nb, s->elem_size);
    int D = nt_topo_ndomains(t), n = 0;
    nt_tilemap_t *map = NULL;
    nt_status st = nt_tilemap_create((s->m + s->mb - 1) / s->mb, (s->n + s->nb - 1) / s->nb, D,
                                     &map);
    if (st)
        return st;
    cand *c = malloc((size_t)D * sizeof *c);
    int *tier = malloc((size_t)D * sizeof *tier);
    st = c && tier ? order_candidates(t, &o, c, tier, &n)
                   : nt_fail(NT_ENOMEM, "nt_tier_tilemap: out of memory");
    if (st == NT_OK)
        st = deal(map, s, c, tier, n, nt_tier_policy_name(o.policy));
    free(c);
    free(tier);
    if (st) {
        nt_tilemap_destroy(map);
        return st;
    }
    *out = map;
    return NT_OK;
}

nt_status nt_tier_weights(const nt_topo_t *t, int init, unsigned flags, double *w)
{
    if (!t || !w)
        return nt_fail(NT_EINVAL, "nt_tier_weights: %s is NULL", t ? "weights" : "topo");
    int D = nt_topo_ndomains(t);
    nt_domain_info_t info;
    if (init < 0 || init >= D || nt_topo_domain(t, init, &info) || info.ncpus == 0)
        return nt_fail(NT_EINVAL, "nt_tier_weights: initiator %d is not a domain with cpus "
                       "(0..%d)", init, D - 1);
    if (flags & ~NT_TIER_ALLOW_GPU)
        return nt_fail(NT_EINVAL, "nt_tier_weights: unknown flags %u", flags);
    double sum = 0;
    int k = 0;
    bool all_bw = true;
    for (int d = 0; d < D; d++) {
        nt_domain_memory_t dm;
        uint64_t bw = 0;
        w[d] = 0;
        if (!candidate(t, d, NT_TIER_BANDWIDTH, flags, &dm))
            continue;
        nt_topo_pair_memattr(t, init, d, &bw, NULL);
        // Linux gives hwloc only each node's best initiator (access0): that bandwidth then.
        bw = bw ? bw : dm.bandwidth_mibs;
        all_bw = all_bw && bw > 0;
        w[d] = (double)bw;
        k++;
    }
    if (k == 0)
        return nt_fail(NT_ENOSPACE, "nt_tier_weights: no domain may hold the buffer");
    for (int d = 0; d < D; d++) {
        nt_domain_memory_t dm;
        if (!all_bw)
            w[d] = candidate(t, d, NT_TIER_BANDWIDTH, flags, &dm) ? 1 : 0;
        sum += w[d];
    }
    for (int d = 0; d < D; d++)
        w[d] /= sum;
    return NT_OK;
}
