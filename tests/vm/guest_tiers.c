// Memory tiers in the guest: the attributes the topology reports against hwloc's own reading
// of this machine (and, in the HMAT shape, against what QEMU was told: Linux gives hwloc each
// node's best initiator only), a bandwidth-first placement of a matrix larger than the fast
// nodes that fills their free memory and spills the rest, and a weighted interleave, both
// checked page by page with move_pages(2) status queries.
#include <hwloc.h>
#include <math.h>

#include "guest_common.h"

// HMAT pairs QEMU was given (nt.hmat=I-T-LAT-BW,...): bandwidth in bytes/s by pair.
static int hmat_pairs(double bw[MAXN][MAXN])
{
    const char *h = getenv("NT_HMAT");
    int n = 0;
    if (!h || !strcmp(h, "none"))
        return 0;
    for (const char *p = h; *p;) {
        int i, t, lat, used = 0;
        double v;
        char unit = 0;
        if (sscanf(p, "%d-%d-%d-%lf%c%n", &i, &t, &lat, &v, &unit, &used) < 4 || used == 0)
            break;
        bw[i][t] = v * (unit == 'G' ? 1e9 : unit == 'M' ? 1e6 : unit == 'K' ? 1e3 : 1);
        n++;
        p += used;
        p += *p == ',';
    }
    return n;
}

// hwloc's bandwidth of target node t from initiator node i's cpus (0 when none, or when i has
// no cpus of its own: hwloc gives a memory-only node its initiator's locality).
static uint64_t hwloc_bw(const nt_topo_t *topo, hwloc_topology_t h, int a, int i, int t)
{
    nt_domain_info_t info;
    nt_topo_domain(topo, a, &info);
    if (info.ncpus == 0)
        return 0;
    hwloc_obj_t in = hwloc_get_numanode_obj_by_os_index(h, (unsigned)i);
    hwloc_obj_t tg = hwloc_get_numanode_obj_by_os_index(h, (unsigned)t);
    struct hwloc_location loc = {.type = HWLOC_LOCATION_TYPE_CPUSET};
    hwloc_uint64_t v = 0;
    if (!in || !tg || hwloc_bitmap_iszero(in->cpuset))
        return 0;
    loc.location.cpuset = in->cpuset;
    return hwloc_memattr_get_value(h, HWLOC_MEMATTR_ID_BANDWIDTH, tg, &loc, 0, &v) == 0 ? v : 0;
}

// The topology's attributes equal hwloc's for every pair; with an HMAT they exist, and their
// order follows QEMU's numbers.
static void check_attributes(const nt_topo_t *t, int nodes)
{
    hwloc_topology_t h;
    hwloc_topology_init(&h);
    hwloc_topology_load(h);
    double want[MAXN][MAXN] = {{0}};
    int npairs = hmat_pairs(want);
    int D = nt_topo_ndomains(t), same = 0, hw = 0;
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) {
            uint64_t bw;
            nt_topo_pair_memattr(t, a, b, &bw, NULL);
            uint64_t ref = hwloc_bw(t, h, a, node_of[a], node_of[b]);
            same += bw == ref;
            hw += ref > 0;
        }
    check(same == D * D, "attributes: %d of %d pairs as hwloc reads them (%d with a bandwidth)",
          same, D * D, hw);
    printf("guest_tiers: memattr source %s, kernel HMAT %s\n",
           nt_attr_source_name(nt_topo_memattr_source(t)),
           access("/sys/devices/system/node/node0/access0/initiators", F_OK) == 0 ? "exposed"
                                                                                  : "absent");
    if (npairs) {
        check(nt_topo_memattr_source(t) == NT_ATTR_HWLOC, "HMAT shape: hwloc has attributes");
        bool order = true;
        for (int a = 0; a < nodes; a++)
            for (int b = 0; b < nodes; b++)
                for (int c = 0; c < nodes; c++) {
                    uint64_t x, y;
                    nt_topo_pair_memattr(t, a, b, &x, NULL);
                    nt_topo_pair_memattr(t, a, c, &y, NULL);
                    if (want[a][b] > want[a][c] && x && y && !(x > y))
                        order = false;
                }
        check(order, "HMAT shape: bandwidths ordered as QEMU's");
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, nodes - 1, &m);
        check(m.kind == NT_MEMKIND_CXL_NVM && m.initiator == 0,
              "HMAT shape: the memory-only node is the slow tier (%s from %s), initiator %d",
              nt_mem_kind_name(m.kind), m.kind_from, m.initiator);
    } else {
        check(!nt_topo_cost_from_bandwidth(t) || hw == D * D,
              "no HMAT: costs from bandwidths only when every pair has one");
    }
    hwloc_topology_destroy(h);
}

// A matrix larger than the fast nodes: the tiles in storage order go to the first tier until
// its nodes' free memory is taken, the rest spill; every page checked.
static void check_placement(const nt_topo_t *t, bool hmat)
{
    // HMAT shape: 640 MiB in 320 tiles of 2 MiB over two DRAM nodes of 256 MiB and a slow
    // node of 1024. Elsewhere one tier: 128 MiB dealt round-robin.
    const char *spec = "tier:bandwidth";
    nt_matrix_shape_t sh = {hmat ? 8192 : 2048, hmat ? 10240 : 8192, 512, 512, 8};
    nt_tier_opts_t o;
    nt_tier_parse(spec, &o);
    nt_tilemap_t *map;
    nt_status st = nt_tier_tilemap(t, &sh, &o, &map);
    if (!check(st == NT_OK, "%s: map (%s)", spec, st ? nt_last_error() : "ok"))
        return;
    nt_matrix_t *A;
    st = nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, 0, &A);
    if (!check(st == NT_OK, "%s: matrix allocated (%s)", spec, st ? nt_last_error() : "ok")) {
        nt_tilemap_destroy(map);
        return;
    }
    int D = nt_topo_ndomains(t), tier[MAXN], top = 0;
    bool monotone = true;
    int64_t count[MAXN] = {0};
    for (int d = 0; d < D; d++) {
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, d, &m);
        tier[d] = m.kind == NT_MEMKIND_CXL_NVM; // the HMAT shape's tiers; one tier elsewhere
    }
    for (int64_t x = 0; x < map->mt * map->nt; x++) {
        int d = map->owner[x];
        monotone = monotone && tier[d] >= top;
        top = tier[d];
        count[d]++;
    }
    check(monotone, "%s: fast tier first, then the spill", spec);
    for (int d = 0; d < D; d++)
        // A third of a 256 MiB node: what is free of it after the kernel and the programs
        // before (63 to 97 tiles seen), less the margin the placement keeps.
        check(!hmat || tier[d] || count[d] >= 43, "%s: domain %d (%s) holds %lld tiles of 2 "
              "MiB%s", spec, d, tier[d] ? "slow" : "fast", (long long)count[d],
              hmat && !tier[d] ? " (at least a third of its node)" : "");
    oracle_res r = oracle_matrix(A);
    check(r.sys_ok && r.on_node == r.pages && r.conflicts == 0,
          "%s: %lld of %lld pages on their tile's node (move_pages)", spec,
          (long long)r.on_node, (long long)r.pages);
    nt_matrix_destroy(A);
    nt_tilemap_destroy(map);
}

// Weighted interleave by bandwidth from domain 0 (equal shares without attributes), and 3:1
// by hand: pages per node within 2% of the asked shares.
static void check_interleave(const nt_topo_t *t, bool hmat)
{
    int D = nt_topo_ndomains(t);
    double w[MAXN], given[MAXN];
    nt_tier_weights(t, 0, 0, w);
    if (hmat)
        check(w[0] > 2 * w[D - 1], "HMAT shape: interleave weights by bandwidth (%.3f for DRAM, "
              "%.3f for the slow node)", w[0], w[D - 1]);
    for (int d = 0; d < D; d++)
        given[d] = d == 0 ? 3 : d == D - 1 ? 1 : 0;
    const double *ws[2] = {w, given};
    size_t bytes = (size_t)64 << 20;
    for (int k = 0; k < 2; k++) {
        void *p;
        nt_interleave_report_t rep;
        nt_status st = nt_mem_alloc_weighted(t, ws[k], bytes, 0, &p, &rep);
        if (!check(st == NT_OK, "interleave %s: allocated (%s)", k ? "3:1" : "by bandwidth",
                   st ? nt_last_error() : "ok"))
            continue;
        double sum = 0, worst = 0;
        for (int d = 0; d < D; d++)
            sum += ws[k][d];
        for (int d = 0; d < D; d++) {
            int64_t on = pages_on(p, bytes, node_of[d]);
            double asked = ws[k][d] / sum, got = (double)on / (double)(bytes / pgsz);
            if (asked > 0)
                worst = fmax(worst, fabs(got / asked - 1));
            printf("guest_tiers: interleave %s: node %d asked %.4f got %.4f\n",
                   k ? "3:1" : "by bandwidth", node_of[d], asked, got);
            verified[node_of[d]] += on;
        }
        check(worst <= 0.02, "interleave %s: pages in the asked ratios within 2%% (worst %.3f%%; "
              "%lld moved after the first touch)", k ? "3:1" : "by bandwidth", 100 * worst,
              (long long)rep.moved);
        nt_mem_free(p, bytes);
    }
}

int main(void)
{
    int nodes = guest_start("guest_tiers");
    nt_topo_t *t;
    if (!check(nt_topo_load(NULL, &t) == NT_OK, "topology loads"))
        return guest_summary("tiers");
    int D = nt_topo_ndomains(t);
    for (int d = 0; d < D && d < MAXN; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        node_of[d] = info.node;
    }
    check(D == nodes, "%d domains, one per node", D);
    double want[MAXN][MAXN] = {{0}};
    check_attributes(t, nodes);
    check_placement(t, hmat_pairs(want) > 0);
    check_interleave(t, hmat_pairs(want) > 0);
    guest_print_verified("guest_tiers", nodes);
    nt_topo_destroy(t);
    return guest_summary("tiers");
}
