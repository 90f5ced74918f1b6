// Memory tiers: kinds and attributes read from hwloc XML fixtures (checked against hwloc's own
// answers for every pair), cost distances from bandwidths, tier placements checked by their
// invariants (candidates, room, tier order, spill only when full), interleave weights, spec
// parsing and bad input. Fixtures in tests/topologies/ (run from the source tree).
#include <criterion/criterion.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"

#define CXL "tests/topologies/cxl-memory-only.xml"
#define GH "tests/topologies/grace-hopper-like.xml"
#define SLIT "tests/topologies/slit-hmat-disagree.xml"

static nt_topo_t *load(const char *xml)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = xml}, &t), NT_OK, "%s",
                 nt_last_error());
    return t;
}

// hwloc's own value for a target node from an initiator node's cpus (0 when none).
static uint64_t hwloc_value(hwloc_topology_t h, hwloc_memattr_id_t id, int init, int target)
{
    hwloc_obj_t in = hwloc_get_numanode_obj_by_os_index(h, (unsigned)init);
    hwloc_obj_t tg = hwloc_get_numanode_obj_by_os_index(h, (unsigned)target);
    struct hwloc_location loc = {.type = HWLOC_LOCATION_TYPE_CPUSET};
    loc.location.cpuset = in->cpuset;
    hwloc_uint64_t v = 0;
    return hwloc_memattr_get_value(h, id, tg, &loc, 0, &v) == 0 ? v : 0;
}

// Every pair of every fixture as hwloc reads it; initiators are the domains with cpus.
Test(tiers, attributes_are_hwlocs_for_every_pair)
{
    const char *files[] = {CXL, GH, SLIT};
    for (int f = 0; f < 3; f++) {
        nt_topo_t *t = load(files[f]);
        hwloc_topology_t h;
        hwloc_topology_init(&h);
        cr_assert_eq(hwloc_topology_set_xml(h, files[f]), 0);
        cr_assert_eq(hwloc_topology_load(h), 0);
        int D = nt_topo_ndomains(t);
        cr_assert_eq(D, hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE));
        cr_assert_eq(nt_topo_memattr_source(t), NT_ATTR_HWLOC);
        for (int i = 0; i < D; i++) {
            nt_domain_info_t info, ik;
            nt_topo_domain(t, i, &info);
            cr_assert_eq(info.node, i, "physical domain %d is node %d", i, info.node);
            for (int k = 0; k < D; k++) {
                uint64_t bw, lat;
                nt_topo_domain(t, k, &ik);
                cr_assert_eq(nt_topo_pair_memattr(t, i, k, &bw, &lat), NT_OK);
                uint64_t hb = info.ncpus ? hwloc_value(h, HWLOC_MEMATTR_ID_BANDWIDTH, info.node,
                                                       ik.node) : 0;
                uint64_t hl = info.ncpus ? hwloc_value(h, HWLOC_MEMATTR_ID_LATENCY, info.node,
                                                       ik.node) : 0;
                cr_assert_eq(bw, hb, "%s: bandwidth %d->%d: %llu, hwloc %llu", files[f], i, k,
                             (unsigned long long)bw, (unsigned long long)hb);
                cr_assert_eq(lat, hl, "%s: latency %d->%d", files[f], i, k);
            }
            hwloc_obj_t o = hwloc_get_numanode_obj_by_os_index(h, (unsigned)info.node);
            nt_domain_memory_t m;
            cr_assert_eq(nt_topo_domain_memory(t, i, &m), NT_OK);
            cr_assert_eq(m.capacity_bytes, o->attr->numanode.local_memory);
            cr_assert((m.subtype == NULL) == (o->subtype == NULL));
            if (o->subtype)
                cr_assert_str_eq(m.subtype, o->subtype);
        }
        hwloc_topology_destroy(h);
        nt_topo_destroy(t);
    }
}

Test(tiers, kinds_and_initiators_of_the_fixtures)
{
    nt_topo_t *t = load(CXL);
    // Nodes numbered as Linux does (DRAM 0, 1, CXL 2, 3) while hwloc lists each CXL node
    // beside its socket's DRAM (logical order 0, 2, 1, 3): domains follow the OS numbers.
    static const nt_mem_kind cxl[] = {NT_MEMKIND_DRAM, NT_MEMKIND_DRAM, NT_MEMKIND_CXL_NVM,
                                      NT_MEMKIND_CXL_NVM};
    static const int init[] = {0, 1, 0, 1};
    hwloc_topology_t h;
    hwloc_topology_init(&h);
    hwloc_topology_set_xml(h, CXL);
    hwloc_topology_load(h);
    cr_assert_eq(hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, 1)->os_index, 2,
                 "the fixture lists node 2 second in hwloc's logical order");
    hwloc_topology_destroy(h);
    for (int d = 0; d < 4; d++) {
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, d, &m);
        cr_assert_eq(m.kind, cxl[d], "cxl domain %d: %s", d, nt_mem_kind_name(m.kind));
        cr_assert_eq(m.initiator, init[d]);
        uint64_t bw;
        nt_topo_pair_memattr(t, init[d], d, &bw, NULL);
        cr_assert_eq(m.bandwidth_mibs, bw);
    }
    nt_topo_destroy(t);
    t = load(GH);
    for (int d = 0; d < 4; d++) {
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, d, &m);
        cr_assert_eq(m.kind, d % 2 ? NT_MEMKIND_GPU : NT_MEMKIND_DRAM);
        cr_assert_str_eq(m.kind_from, d % 2 ? "subtype" : "default");
    }
    nt_topo_destroy(t);
}

// Without attributes (a synthetic description, this machine): no source, every domain DRAM,
// cost distances exactly the distances.
Test(tiers, no_attributes_changes_nothing)
{
    const char *descs[] = {"pack:2 numa:2 core:1 pu:1", NULL};
    for (int k = 0; k < 2; k++) {
        nt_topo_t *t;
        cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = descs[k]}, &t), NT_OK);
        int D = nt_topo_ndomains(t);
        cr_assert_eq(nt_topo_memattr_source(t), NT_ATTR_NONE);
        cr_assert_not(nt_topo_cost_from_bandwidth(t));
        cr_assert_eq(memcmp(nt_topo_cost_distances(t), nt_topo_distances(t),
                            (size_t)D * (size_t)D * sizeof(uint32_t)), 0);
        for (int d = 0; d < D; d++) {
            nt_domain_memory_t m;
            nt_topo_domain_memory(t, d, &m);
            cr_assert_eq(m.kind, NT_MEMKIND_DRAM);
            cr_assert_eq(m.bandwidth_mibs, 0);
        }
        nt_topo_destroy(t);
    }
}

// The cost of a -> b is 10 x best local / min(bw(I_b -> a), bw(I_b -> b)), computed here from
// the pair queries; on the SLIT/HMAT fixture it ranks the pairs as HMAT does, not as SLIT.
Test(tiers, cost_distances_follow_bandwidths)
{
    const char *files[] = {CXL, SLIT};
    for (int f = 0; f < 2; f++) {
        nt_topo_t *t = load(files[f]);
        int D = nt_topo_ndomains(t);
        cr_assert(nt_topo_cost_from_bandwidth(t));
        uint64_t best = 0;
        for (int d = 0; d < D; d++) {
            uint64_t bw;
            nt_topo_pair_memattr(t, d, d, &bw, NULL);
            best = bw > best ? bw : best;
        }
        const uint32_t *c = nt_topo_cost_distances(t);
        for (int a = 0; a < D; a++)
            for (int b = 0; b < D; b++) {
                nt_domain_memory_t mb;
                nt_topo_domain_memory(t, b, &mb);
                uint64_t r, w;
                nt_topo_pair_memattr(t, mb.initiator, a, &r, NULL);
                nt_topo_pair_memattr(t, mb.initiator, b, &w, NULL);
                double want = 10.0 * (double)best / (double)(r < w ? r : w);
                uint32_t u = (uint32_t)(want + 0.5);
                cr_assert_eq(c[a * D + b], a != b && u < 10 ? 10 : u, "%s: cost %d->%d",
                             files[f], a, b);
            }
        nt_topo_destroy(t);
    }
    nt_topo_t *t = load(SLIT);
    const uint32_t *d = nt_topo_distances(t), *c = nt_topo_cost_distances(t);
    cr_assert_lt(d[0 * 4 + 1], d[0 * 4 + 2], "SLIT: 0-1 nearer than 0-2");
    cr_assert_gt(c[0 * 4 + 1], c[0 * 4 + 2], "HMAT: 0-2 cheaper than 0-1");
    nt_topo_destroy(t);
}
