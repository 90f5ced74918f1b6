// Memory that is not all alike: each node's kind (hwloc subtypes), capacity, and bandwidth and
// latency per initiator and target (hwloc's memory attributes, from ACPI HMAT or an XML file),
// and the cost distances derived from the bandwidths.
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nt_core.h"
#include "nt_numa.h"

void nt_memattrs_free(nt_memattrs *m)
{
    if (!m)
        return;
    for (int i = 0; m->subtype && i < m->nnodes; i++)
        free(m->subtype[i]);
    free(m->subtype);
    free(m->kind);
    free(m->kind_from);
    free(m->init_node);
    free(m->bw);
    free(m->lat);
    *m = (nt_memattrs){0};
}

// The kind a subtype names; -1 when it names none (then the attributes decide).
static int kind_of_subtype(const char *s)
{
    if (!s)
        return -1;
    if (!strcasecmp(s, "HBM") || !strcasecmp(s, "MCDRAM"))
        return NT_MEMKIND_HBM;
    if (!strcasecmp(s, "GPUMemory"))
        return NT_MEMKIND_GPU;
    if (!strncasecmp(s, "CXL", 3) || !strcasecmp(s, "NVM") || !strcasecmp(s, "SPM"))
        return NT_MEMKIND_CXL_NVM;
    if (!strcasecmp(s, "DRAM"))
        return NT_MEMKIND_DRAM;
    return -1;
}

// One attribute for a target node from an initiator node's cpus; 0 when hwloc has none. The
// combined attribute first, else the mean of its read and write forms.
static uint64_t get_attr(hwloc_topology_t h, hwloc_obj_t target, hwloc_obj_t init,
                         hwloc_memattr_id_t both, hwloc_memattr_id_t rd, hwloc_memattr_id_t wr)
{
    struct hwloc_location loc = {.type = HWLOC_LOCATION_TYPE_CPUSET};
    loc.location.cpuset = init->cpuset;
    hwloc_uint64_t v = 0, r = 0, w = 0;
    if (hwloc_memattr_get_value(h, both, target, &loc, 0, &v) == 0 && v > 0)
        return v;
    bool hr = hwloc_memattr_get_value(h, rd, target, &loc, 0, &r) == 0 && r > 0;
    bool hw = hwloc_memattr_get_value(h, wr, target, &loc, 0, &w) == 0 && w > 0;
    return hr && hw ? (r + w) / 2 : hr ? r : hw ? w : 0;
}

static nt_status alloc_attrs(nt_memattrs *m, int nn)
{
    size_t n = (size_t)nn, nn2 = n * n;
    m->nnodes = nn;
    m->kind = calloc(n, sizeof *m->kind);
    m->kind_from = calloc(n, sizeof *m->kind_from);
    m->subtype = calloc(n, sizeof *m->subtype);
    m->init_node = calloc(n, sizeof *m->init_node);
    m->bw = calloc(nn2, sizeof *m->bw);
    m->lat = calloc(nn2, sizeof *m->lat);
    if (!m->kind || !m->kind_from || !m->subtype || !m->init_node || !m->bw ||
        !m->lat) {
        nt_memattrs_free(m);
        return nt_fail(NT_ENOMEM, "topology: out of memory for memory attributes");
    }
    return NT_OK;
}

// Nearest node with cpus of every node (itself when it has some; lowest index on ties).
static void nearest_initiators(nt_memattrs *m, const bool *has_cpus, const uint32_t *dist)
{
    int nn = m->nnodes;
    for (int t = 0; t < nn; t++) {
        int best = has_cpus[t] ? t : -1;
        for (int i = 0; i < nn && !has_cpus[t]; i++)
            if (has_cpus[i] && (best < 0 || dist[t * nn + i] < dist[t * nn + best]))
                best = i;
        m->init_node[t] = best;
    }
}

// Kinds: the subtype when it names one; else a memory-only node much slower than the best
// local memory of a node with cpus is the slow tier (what a QEMU or firmware HMAT without
// subtypes shows); else DRAM.
static void decide_kinds(nt_memattrs *m, const bool *has_cpus)
{
    int nn = m->nnodes;
    uint64_t best_local = 0;
    for (int i = 0; i < nn; i++)
        if (has_cpus[i] && m->bw[(size_t)i * nn + i] > best_local)
            best_local = m->bw[(size_t)i * nn + i];
    for (int t = 0; t < nn; t++) {
        int k = kind_of_subtype(m->subtype[t]);
        int in = m->init_node[t];
        uint64_t b = in >= 0 ? m->bw[(size_t)in * nn + t] : 0;
        if (k >= 0) {
            m->kind[t] = (nt_mem_kind)k;
            m->kind_from[t] = "subtype";
        } else if (!has_cpus[t] && b > 0 && best_local > 0 && 2 * b < best_local) {
            m->kind[t] = NT_MEMKIND_CXL_NVM;
            m->kind_from[t] = "memattrs";
        } else {
            m->kind[t] = NT_MEMKIND_DRAM;
            m->kind_from[t] = "default";
        }
    }
}

nt_status nt_memattrs_read(struct hwloc_topology *h, int nn, const int *lg, const bool *has_cpus,
                           const uint32_t *node_dist, nt_memattrs *m)
{
    nt_status st = alloc_attrs(m, nn);
    if (st)
        return st;
    m->source = NT_ATTR_NONE;
    for (int t = 0; t < nn; t++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)lg[t]);
        if (o->subtype && !(m->subtype[t] = strdup(o->subtype))) {
            nt_memattrs_free(m);
            return nt_fail(NT_ENOMEM, "topology: out of memory for memory attributes");
        }
        for (int i = 0; i < nn; i++) {
            if (!has_cpus[i])
                continue;
            hwloc_obj_t in = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)lg[i]);
            size_t x = (size_t)i * (size_t)nn + (size_t)t;
            m->bw[x] = get_attr(h, o, in, HWLOC_MEMATTR_ID_BANDWIDTH,
                                HWLOC_MEMATTR_ID_READ_BANDWIDTH, HWLOC_MEMATTR_ID_WRITE_BANDWIDTH);
            m->lat[x] = get_attr(h, o, in, HWLOC_MEMATTR_ID_LATENCY, HWLOC_MEMATTR_ID_READ_LATENCY,
                                 HWLOC_MEMATTR_ID_WRITE_LATENCY);
            if (m->bw[x] || m->lat[x])
                m->source = NT_ATTR_HWLOC;
        }
    }
    nearest_initiators(m, has_cpus, node_dist);
    decide_kinds(m, has_cpus);
    return NT_OK;
}

// Bandwidth of a copy from node a to node b run by b's initiator: the slower of its read of a
// and its write of b; 0 when either is unknown.
static uint64_t pair_bw(const nt_memattrs *m, int a, int b)
{
    int in = m->init_node[b], nn = m->nnodes;
    if (in < 0)
        return 0;
    uint64_t r = m->bw[(size_t)in * nn + a], w = m->bw[(size_t)in * nn + b];
    return r < w ? r : w;
}

nt_status nt_memattrs_cost(const nt_memattrs *m, const int *dom_node, int D,
                           const uint32_t *dist, uint32_t **out, bool *from_bw)
{
    size_t n2 = (size_t)D * (size_t)D;
    uint32_t *c = malloc(n2 * sizeof *c);
    if (!c)
        return nt_fail(NT_ENOMEM, "topology: out of memory for cost distances");
    memcpy(c, dist, n2 * sizeof *c);
    *out = c;
    *from_bw = false;
    int nn = m->nnodes;
    uint64_t best = 0;
    for (int i = 0; i < nn; i++)
        if (m->init_node[i] == i && m->bw[(size_t)i * nn + i] > best)
            best = m->bw[(size_t)i * nn + i];
    if (m->source != NT_ATTR_HWLOC || best == 0)
        return NT_OK;
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++)
            if (pair_bw(m, dom_node[a], dom_node[b]) == 0)
                return NT_OK; // a pair without bandwidth: keep the distances whole
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) {
            double v = 10.0 * (double)best / (double)pair_bw(m, dom_node[a], dom_node[b]);
            uint32_t u = v > 1e9 ? 1000000000u : (uint32_t)(v + 0.5);
            c[(size_t)a * D + b] = a != b && u < 10 ? 10 : u;
        }
    *from_bw = true;
    return NT_OK;
}

const char *nt_mem_kind_name(nt_mem_kind k)
{
    switch (k) {
    case NT_MEMKIND_DRAM: return "dram";
    case NT_MEMKIND_HBM: return "hbm";
    case NT_MEMKIND_CXL_NVM: return "cxl_nvm";
    case NT_MEMKIND_GPU: return "gpu";
    }
    return "unknown";
}

const char *nt_attr_source_name(nt_attr_source s)
{
    switch (s) {
    case NT_ATTR_NONE: return "none";
    case NT_ATTR_HWLOC: return "hwloc";
    }
    return "unknown";
}

nt_attr_source nt_topo_memattr_source(const nt_topo_t *t)
{
    return nt_topo_memattrs(t)->source;
}

// The domain whose threads access a domain's memory: itself, or the nearest with cpus.
static int initiator_domain(const nt_topo_t *t, int d)
{
    int D = nt_topo_ndomains(t), best = -1;
    const uint32_t *dist = nt_topo_distances(t);
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    if (info.ncpus > 0)
        return d;
    for (int e = 0; e < D; e++) {
        nt_topo_domain(t, e, &info);
        if (info.ncpus > 0 && (best < 0 || dist[(size_t)d * D + e] < dist[(size_t)d * D + best]))
            best = e;
    }
    return best;
}

nt_status nt_topo_pair_memattr(const nt_topo_t *t, int init, int target, uint64_t *bw,
                               uint64_t *lat)
{
    if (!t)
        return nt_fail(NT_EINVAL, "nt_topo_pair_memattr: topo is NULL");
    int D = nt_topo_ndomains(t);
    if (init < 0 || init >= D || target < 0 || target >= D)
        return nt_fail(NT_EINVAL, "nt_topo_pair_memattr: %s %d out of range 0..%d",
                       init < 0 || init >= D ? "initiator" : "target",
                       init < 0 || init >= D ? init : target, D - 1);
    const nt_memattrs *m = nt_topo_memattrs(t);
    nt_domain_info_t info;
    nt_topo_domain(t, init, &info);
    size_t x = (size_t)nt_topo_domain_node_index(t, init) * (size_t)m->nnodes +
               (size_t)nt_topo_domain_node_index(t, target);
    if (bw)
        *bw = info.ncpus > 0 ? m->bw[x] : 0;
    if (lat)
        *lat = info.ncpus > 0 ? m->lat[x] : 0;
    return NT_OK;
}

nt_status nt_topo_domain_memory(const nt_topo_t *t, int d, nt_domain_memory_t *out)
{
    if (!t || !out)
        return nt_fail(NT_EINVAL, "nt_topo_domain_memory: %s is NULL", t ? "out" : "topo");
    if (d < 0 || d >= nt_topo_ndomains(t))
        return nt_fail(NT_EINVAL, "nt_topo_domain_memory: domain %d out of range 0..%d", d,
                       nt_topo_ndomains(t) - 1);
    const nt_memattrs *m = nt_topo_memattrs(t);
    int k = nt_topo_domain_node_index(t, d);
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    nt_domain_memory_t r = {m->kind[k], m->kind_from[k], m->subtype[k], info.memory_bytes,
                            initiator_domain(t, d), 0, 0};
    if (r.initiator >= 0)
        nt_topo_pair_memattr(t, r.initiator, d, &r.bandwidth_mibs, &r.latency_ns);
    *out = r;
    return NT_OK;
}
