// numatile topo [--domains D] [--synthetic DESC] [--probe MIB] [--json]
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "harness.h"
#include "cli_topo_draw.h"
#include "cli_topo_interleave.h"

static const char *help =
    "usage: numatile topo [--domains D] [--synthetic DESC] [--probe MIB] [--json]\n"
    "                     [--map MBxNB@DIST --m M --n N [--elem BYTES]] [--draw FILE.png]\n"
    "                     [--interleave MIB [--weights bandwidth|equal|W0,W1,...]]\n"
    "                     [--profile FILE]\n"
    "  --domains D       split this machine into D domains (0 = one per NUMA node)\n"
    "  --synthetic DESC  plan for a described machine: an hwloc synthetic description such as\n"
    "                    \"pack:4 numa:2 core:8 pu:1\", or an hwloc XML file (*.xml)\n"
    "  --probe MIB       place MIB MiB on every domain (allocated and written by a thread\n"
    "                    bound to it) and check where every page landed (move_pages)\n"
    "  --map MBxNB@DIST  a tile map of MB x NB tiles (DIST as for plan --from); prints the\n"
    "                    tiles and bytes it puts on each domain\n"
    "  --m M, --n N      the map's matrix size in elements (both needed with --map)\n"
    "  --elem BYTES      the map's element size (default 8)\n"
    "  --draw FILE.png   an lstopo-style picture with gnuplot: a box per domain with its cpus\n"
    "                    and memory, and with --map its tiles and bytes (shade = share of\n"
    "                    the bytes); FILE.dat (the data drawn) and FILE.gp are left beside it\n"
    "  --interleave MIB  place MIB MiB interleaved page by page across the domains in the\n"
    "                    ratios of --weights, and count the pages on each node (move_pages)\n"
    "  --weights W       bandwidth (default: hwloc's bandwidths from the first domain with\n"
    "                    cpus, equal shares without them; no GPU memory), equal, or one\n"
    "                    weight per domain, comma-separated\n"
    "  --profile FILE    pair bandwidths measured by numatile calibrate (initiator x target),\n"
    "                    the pairs' source where hwloc has no memory attributes\n"
    "  --json            one JSON object: topology, physical_nodes, domains, domain_list\n"
    "                    [{id, node, cpus, memory_bytes, memory_allowed}], distances,\n"
    "                    distance_source, oversubscribed, source, source_text, allowed {limited_by,\n"
    "                    cpus_left_out, memory_nodes_left_out, omp_note}, memory_limits\n"
    "                    {nodes_free, mem_available, cgroup_limit, cgroup_room,\n"
    "                    address_space_limit, address_space_room, room, binding},\n"
    "                    memattr_source, bandwidth_mibs, latency_ns (initiator x target, null\n"
    "                    when hwloc has none), cost_distances, cost_source; domain rows add\n"
    "                    memory_kind, kind_from, subtype, initiator, bandwidth_mibs,\n"
    "                    latency_ns; with --interleave, interleave {bytes, pages,\n"
    "                    weights_from, method, nodes [{node, asked_share, pages, share}],\n"
    "                    moved, misplaced, max_error}; pair_bandwidth_source, with --profile\n"
    "                    profile_pairs {file, read_gbs, copy_gbs}; probe rows add\n"
    "                    cpus_ran (cpus the domain's thread was seen on); with --map, map {dist,\n"
    "                    m, n, mb, nb, elem, tiles, bytes}; with --draw, draw (after the\n"
    "                    envelope of docs/json.md)\n"
    "Domains hold only the cpus and memory nodes this process may use (cgroup cpuset,\n"
    "taskset/launcher binding, OpenMP places, numactl memory binding); the cpus left out\n"
    "are listed. HWLOC_SYNTHETIC / HWLOC_XMLFILE describe another machine, as in hwloc.\n"
    "The memory line gives what this process can still take and the limit that binds: the\n"
    "nodes' free memory, MemAvailable, the memory cgroup's limit or ulimit -v.\n";

static const struct {
    unsigned bit;
    const char *name, *text;
} limit_names[] = {
    {NT_TOPO_LIMIT_CPUSET, "cpuset", "the cgroup cpuset"},
    {NT_TOPO_LIMIT_AFFINITY, "affinity", "the process's cpu binding (taskset, a launcher)"},
    {NT_TOPO_LIMIT_OMP_PLACES, "omp_places",
     "the OpenMP places (OMP_PLACES, OMP_PROC_BIND)"},
    {NT_TOPO_LIMIT_MEMBIND, "membind", "the process's memory binding (numactl --membind)"},
};

static json_t *int_array(const int *v, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_integer(v[k]));
    return a;
}

// What the domains leave out of this machine, and why (nt_topo_limits()).
static json_t *allowed_json(const nt_topo_t *t)
{
    json_t *why = json_array();
    for (size_t k = 0; k < sizeof limit_names / sizeof *limit_names; k++)
        if (nt_topo_limits(t) & limit_names[k].bit)
            json_array_append_new(why, json_string(limit_names[k].name));
    int nc, nn;
    const int *c = nt_topo_cpus_left_out(t, &nc), *n = nt_topo_nodes_left_out(t, &nn);
    const char *omp = nt_topo_omp_note(t);
    return json_pack("{s:o, s:o, s:o, s:o}", "limited_by", why, "cpus_left_out",
                     int_array(c, nc), "memory_nodes_left_out", int_array(n, nn), "omp_note",
                     omp ? json_string(omp) : json_null());
}

// A limit in bytes, or null when there is none or it is not known (UINT64_MAX).
static json_t *limit_json(uint64_t v)
{
    return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

// The memory this process can still take, by limit, and the one that binds (nt_mem_limits()).
static json_t *limits_json(void)
{
    nt_mem_limits_t l;
    nt_mem_limits(&l);
    json_t *j = json_object();
    json_object_set_new(j, "nodes_free", limit_json(l.nodes_free));
    json_object_set_new(j, "mem_available", limit_json(l.mem_available));
    json_object_set_new(j, "cgroup_limit", limit_json(l.cgroup_limit));
    json_object_set_new(j, "cgroup_room", limit_json(l.cgroup_room));
    json_object_set_new(j, "address_space_limit", limit_json(l.address_space_limit));
    json_object_set_new(j, "address_space_room", limit_json(l.address_space_room));
    json_object_set_new(j, "room", limit_json(l.room));
    json_object_set_new(j, "binding", json_string(nt_mem_limit_name(l.binding)));
    return j;
}

// An attribute, or null when hwloc has none (0).
static json_t *attr_json(uint64_t v)
{
    return v ? json_integer((json_int_t)v) : json_null();
}

// A domain's memory: kind, where the kind came from, hwloc's subtype, initiator, bandwidth and
// latency from it (nt_topo_domain_memory()).
static void memory_fields(const nt_topo_t *t, int d, json_t *jd)
{
    nt_domain_memory_t m;
    nt_topo_domain_memory(t, d, &m);
    json_object_set_new(jd, "memory_kind", json_string(nt_mem_kind_name(m.kind)));
    json_object_set_new(jd, "kind_from", json_string(m.kind_from));
    json_object_set_new(jd, "subtype", m.subtype ? json_string(m.subtype) : json_null());
    json_object_set_new(jd, "initiator", json_integer(m.initiator));
    json_object_set_new(jd, "bandwidth_mibs", attr_json(m.bandwidth_mibs));
    json_object_set_new(jd, "latency_ns", attr_json(m.latency_ns));
}

// Bandwidth and latency of every initiator (row) and target (column), null where unknown; the
// cost distances and where they came from.
static void memattr_json(const nt_topo_t *t, json_t *j)
{
    int D = nt_topo_ndomains(t);
    nt_attr_source src = nt_topo_memattr_source(t);
    json_t *bw = json_array(), *lat = json_array(), *cost = json_array();
    const uint32_t *c = nt_topo_cost_distances(t);
    for (int i = 0; i < D; i++) {
        json_t *rb = json_array(), *rl = json_array(), *rc = json_array();
        for (int k = 0; k < D; k++) {
            uint64_t b, l;
            nt_topo_pair_memattr(t, i, k, &b, &l);
            json_array_append_new(rb, attr_json(b));
            json_array_append_new(rl, attr_json(l));
            json_array_append_new(rc, json_integer(c[i * D + k]));
        }
        json_array_append_new(bw, rb);
        json_array_append_new(lat, rl);
        json_array_append_new(cost, rc);
    }
    json_object_set_new(j, "memattr_source", json_string(nt_attr_source_name(src)));
    json_object_set_new(j, "bandwidth_mibs", src == NT_ATTR_NONE ? (json_decref(bw), json_null())
                                                                  : bw);
    json_object_set_new(j, "latency_ns", src == NT_ATTR_NONE ? (json_decref(lat), json_null())
                                                              : lat);
    json_object_set_new(j, "cost_distances", cost);
    json_object_set_new(j, "cost_source", json_string(nt_topo_cost_from_bandwidth(t)
                                                          ? "bandwidth" : "distances"));
}

static json_t *topo_json(const nt_topo_t *t)
{
    int D = nt_topo_ndomains(t);
    const uint32_t *dist = nt_topo_distances(t);
    json_t *doms = json_array(), *dm = json_array();
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        json_t *cpus = json_array();
        for (int k = 0; k < info.ncpus; k++)
            json_array_append_new(cpus, json_integer(info.cpus[k]));
        json_t *jd = json_pack("{s:i, s:i, s:o, s:I}", "id", d, "node", info.node, "cpus", cpus,
                               "memory_bytes", (json_int_t)info.memory_bytes);
        json_object_set_new(jd, "memory_allowed",
                            json_boolean(nt_topo_node_memory_allowed(t, info.node)));
        memory_fields(t, d, jd);
        json_array_append_new(doms, jd);
        json_t *row = json_array();
        for (int e = 0; e < D; e++)
            json_array_append_new(row, json_integer(dist[d * D + e]));
        json_array_append_new(dm, row);
    }
    json_t *j = json_pack("{s:s, s:i, s:i, s:o, s:o, s:s, s:b}", "topology",
                          nt_topo_kind_name(nt_topo_get_kind(t)), "physical_nodes",
                          nt_topo_nphysical(t), "domains", D, "domain_list", doms, "distances", dm,
                          "distance_source",
                          nt_topo_distance_source_name(nt_topo_distance_source(t)),
                          "oversubscribed", nt_topo_oversubscribed(t));
    json_object_set_new(j, "source", json_string(nt_topo_source_name(nt_topo_get_source(t))));
    json_object_set_new(j, "source_text", json_string(nt_topo_source_text(t)));
    json_object_set_new(j, "allowed", allowed_json(t));
    json_object_set_new(j, "memory_limits", limits_json());
    memattr_json(t, j);
    return j;
}

// Placement probe: one thread per domain allocates and writes its buffer; where the pages
// landed is then read back page by page.
// cpus sampled per probe thread (before, between and after the writes).
enum { PROBE_SAMPLES = 3 };

typedef struct probe_row {
    int node;
    int64_t pages, on_node;
    double seconds;
    int ran_on[PROBE_SAMPLES]; // sched_getcpu() samples: where the bound thread ran
} probe_row;

typedef struct probe_ctx {
    const nt_topo_t *t;
    size_t bytes;
    probe_row *rows;
} probe_ctx;

static nt_status probe_domain(int d, int rank, void *arg)
{
    (void)rank;
    probe_ctx *c = arg;
    nt_domain_info_t info;
    nt_topo_domain(c->t, d, &info);
    void *p;
    int ran[PROBE_SAMPLES];
    ran[0] = sched_getcpu();
    double t0 = bench_now();
    nt_status st = nt_mem_alloc(c->t, d, c->bytes, NT_MEM_NOTOUCH, &p);
    if (st)
        return st;
    memset(p, 1, c->bytes / 2);
    ran[1] = sched_getcpu();
    memset((char *)p + c->bytes / 2, 1, c->bytes - c->bytes / 2);
    double t1 = bench_now();
    ran[2] = sched_getcpu();
    nt_page_hist_t h;
    st = nt_mem_where(p, c->bytes, &h);
    nt_mem_free(p, c->bytes);
    if (st)
        return st;
    c->rows[d] = (probe_row){info.node, h.pages,
                             info.node < 64 ? h.per_node[info.node] : 0, t1 - t0,
                             {ran[0], ran[1], ran[2]}};
    return NT_OK;
}

static nt_status run_probe(const nt_topo_t *t, int mib, probe_row **rows)
{
    probe_ctx c = {t, (size_t)mib << 20, calloc((size_t)nt_topo_ndomains(t), sizeof(probe_row))};
    if (!c.rows)
        return NT_ENOMEM;
    nt_status st = nt_team_run(t, 1, probe_domain, &c);
    if (st) {
        free(c.rows);
        return st;
    }
    *rows = c.rows;
    return NT_OK;
}

// Every domain's buffer is taken at once: refuse, before the first, a probe the nodes cannot
// hold together.
static int probe_room(const nt_topo_t *t, int mib)
{
    int D = nt_topo_ndomains(t);
    uint64_t *per = calloc((size_t)D, sizeof *per);
    if (!per)
        return cli_usage("topo", "--probe: out of memory");
    // A domain on a node whose memory the process may not use is probed all the same (its
    // buffer lands where the binding lets it): counted on no node, only against the machine.
    uint64_t elsewhere = 0;
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        bool here = info.node < 0 || nt_topo_node_memory_allowed(t, info.node);
        per[d] = here ? (uint64_t)mib << 20 : 0;
        elsewhere += here ? 0 : (uint64_t)mib << 20;
    }
    char who[64];
    snprintf(who, sizeof who, "--probe %d (MiB on each of %d domains)", mib, D);
    nt_status st = nt_mem_room(t, per, elsewhere + (uint64_t)D * sizeof(probe_row), who);
    free(per);
    return st == NT_OK ? CLI_OK : cli_lib_error("topo", st);
}

static void probe_print(const nt_topo_t *t, int mib, const probe_row *rows)
{
    printf("placement probe: %d MiB per domain, written by a thread bound to the domain\n", mib);
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        if (rows[d].pages == 0) {
            printf("  domain %d: no cpus, skipped\n", d);
            continue;
        }
        printf("  domain %d: %lld of %lld pages on node %d (%.1f%%), first touch %.2f GB/s\n", d,
               (long long)rows[d].on_node, (long long)rows[d].pages, rows[d].node,
               100.0 * (double)rows[d].on_node / (double)rows[d].pages,
               (double)mib * (1 << 20) / rows[d].seconds / 1e9);
    }
}

static json_t *probe_json(const nt_topo_t *t, int mib, const probe_row *rows)
{
    json_t *a = json_array();
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        if (!rows[d].pages)
            continue;
        json_t *r = json_pack("{s:i, s:i, s:I, s:I, s:I, s:f}", "domain", d, "node",
                              rows[d].node, "bytes", (json_int_t)mib << 20, "pages",
                              (json_int_t)rows[d].pages, "pages_on_node",
                              (json_int_t)rows[d].on_node, "seconds", rows[d].seconds);
        // Where the domain's thread ran while it wrote: the check that binding stays inside
        // the cpus the process may use.
        json_object_set_new(r, "cpus_ran", int_array(rows[d].ran_on, PROBE_SAMPLES));
        json_array_append_new(a, r);
    }
    return a;
}

// On a terminal, big machines are summarised: this many domains listed, cpu lists as ranges,
// and the distance matrix as its range of values. Pipes and files get everything, as --json.
enum { TERM_DOMAINS = 16 };

// cpus as "0-15,32-47": consecutive runs folded.
static void print_cpu_ranges(const int *cpus, int n)
{
    for (int k = 0; k < n;) {
        int e = k;
        while (e + 1 < n && cpus[e + 1] == cpus[e] + 1)
            e++;
        printf("%s%d", k ? "," : "", cpus[k]);
        if (e > k)
            printf("-%d", cpus[e]);
        k = e + 1;
    }
}

static void print_domain_rows(const nt_topo_t *t, int shown, bool ranges)
{
    printf("%-7s %-5s %-10s %s\n", "domain", "node", "memory", "cpus");
    for (int d = 0; d < shown; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        printf("%-7d %-5d %7.1f GiB ", d, info.node, (double)info.memory_bytes / (1 << 30));
        if (info.ncpus == 0)
            printf("(none: memory-only)");
        if (ranges)
            print_cpu_ranges(info.cpus, info.ncpus);
        else
            for (int k = 0; k < info.ncpus; k++)
                printf("%s%d", k ? "," : "", info.cpus[k]);
        if (!nt_topo_node_memory_allowed(t, info.node))
            printf(" (memory not allowed)");
        printf("\n");
    }
    int D = nt_topo_ndomains(t);
    if (shown < D)
        printf("... %d more domains (all of them with --json, or when the output is not a "
               "terminal)\n", D - shown);
}

// The restriction, when there is one: what limited the domains and what they leave out.
static void print_allowed(const nt_topo_t *t)
{
    unsigned lim = nt_topo_limits(t);
    if (!lim)
        return;
    printf("allowed: domains keep only what this process may use, limited by");
    const char *sep = " ";
    for (size_t k = 0; k < sizeof limit_names / sizeof *limit_names; k++)
        if (lim & limit_names[k].bit) {
            printf("%s%s", sep, limit_names[k].text);
            sep = ", ";
        }
    printf("\n");
    int nc, nn;
    const int *c = nt_topo_cpus_left_out(t, &nc), *n = nt_topo_nodes_left_out(t, &nn);
    if (nc) {
        printf("  cpus left out: ");
        print_cpu_ranges(c, nc);
        printf("\n");
    }
    if (nn) {
        printf("  memory of nodes left out (no allocation there): ");
        print_cpu_ranges(n, nn);
        printf("\n");
    }
}

static void print_distances(const nt_topo_t *t, bool summary)
{
    int D = nt_topo_ndomains(t);
    const uint32_t *dist = nt_topo_distances(t);
    printf("distances (%s):", nt_topo_distance_source_name(nt_topo_distance_source(t)));
    if (summary) {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t i = 0; i < (size_t)D * (size_t)D; i++) {
            lo = dist[i] < lo ? dist[i] : lo;
            hi = dist[i] > hi ? dist[i] : hi;
        }
        printf(" %d x %d matrix, values %u..%u (the matrix with --json)\n", D, D, lo, hi);
        return;
    }
    printf("\n");
    for (int d = 0; d < D; d++) {
        printf("  ");
        for (int e = 0; e < D; e++)
            printf("%4u", dist[d * D + e]);
        printf("\n");
    }
}

// "NAME X.X GiB" of a limit (with what is left of it when that differs), after ", " unless it
// is the first (*first); nothing when there is no such limit.
static void print_limit(const char *name, uint64_t limit, uint64_t room, bool *first)
{
    if (limit == UINT64_MAX)
        return;
    printf("%s%s %.1f GiB", *first ? "" : ", ", name, (double)limit / (1 << 30));
    if (room != limit && room != UINT64_MAX)
        printf(" (%.1f GiB left)", (double)room / (1 << 30));
    *first = false;
}

// What this process can still take and which limit binds, then every limit known.
static void print_limits(void)
{
    nt_mem_limits_t l;
    nt_mem_limits(&l);
    if (l.room == UINT64_MAX) {
        printf("memory: no limit known\n");
        return;
    }
    printf("memory: %.1f GiB can still be taken, bound by the %s; limits: ",
           (double)l.room / (1 << 30), nt_mem_limit_name(l.binding));
    bool first = true;
    print_limit("node free", l.nodes_free, l.nodes_free, &first);
    print_limit("MemAvailable", l.mem_available, l.mem_available, &first);
    print_limit("cgroup", l.cgroup_limit, l.cgroup_room, &first);
    print_limit("address space (ulimit -v)", l.address_space_limit, l.address_space_room,
                &first);
    printf("\n");
}

// Kinds and attributes, only where there is something to say: hwloc gave attributes or a
// domain is not plain DRAM (a machine without either prints as before).
static void print_memory_kinds(const nt_topo_t *t, int shown)
{
    bool any = nt_topo_memattr_source(t) != NT_ATTR_NONE;
    for (int d = 0; d < shown && !any; d++) {
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, d, &m);
        any = m.kind != NT_MEMKIND_DRAM;
    }
    if (!any)
        return;
    printf("memory kinds and attributes (%s; bandwidth and latency from the initiator):\n",
           nt_attr_source_name(nt_topo_memattr_source(t)));
    printf("  %-7s %-8s %-9s %-10s %-9s %12s %10s\n", "domain", "kind", "from", "subtype",
           "initiator", "bandwidth", "latency");
    for (int d = 0; d < shown; d++) {
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, d, &m);
        printf("  %-7d %-8s %-9s %-10s %-9d ", d, nt_mem_kind_name(m.kind), m.kind_from,
               m.subtype ? m.subtype : "-", m.initiator);
        if (m.bandwidth_mibs)
            printf("%7.1f GB/s ", (double)m.bandwidth_mibs * (1 << 20) / 1e9);
        else
            printf("%12s ", "-");
        if (m.latency_ns)
            printf("%7llu ns\n", (unsigned long long)m.latency_ns);
        else
            printf("%10s\n", "-");
    }
    if (nt_topo_cost_from_bandwidth(t))
        printf("costs are weighted by the bandwidths (10 = the best local bandwidth; the "
               "matrix as cost_distances with --json)\n");
}

static void topo_print(const nt_topo_t *t)
{
    int D = nt_topo_ndomains(t);
    printf("topology: %s, %d domain%s on %d NUMA node%s%s\n",
           nt_topo_kind_name(nt_topo_get_kind(t)), D, D == 1 ? "" : "s", nt_topo_nphysical(t),
           nt_topo_nphysical(t) == 1 ? "" : "s",
           nt_topo_oversubscribed(t) ? " (oversubscribed: domains share cpus)" : "");
    if (nt_topo_get_source(t) != NT_TOPO_FROM_THIS_MACHINE)
        printf("described by %s: not this machine, for planning only\n", nt_topo_source_text(t));
    bool big = isatty(STDOUT_FILENO) && D > TERM_DOMAINS;
    print_domain_rows(t, big ? TERM_DOMAINS : D, isatty(STDOUT_FILENO));
    print_memory_kinds(t, big ? TERM_DOMAINS : D);
    print_allowed(t);
    print_limits();
    print_distances(t, big);
}

typedef struct topo_args {
    cli_common co;         // --json, --domains, --help
    const char *synthetic; // --synthetic DESC
    int probe_mib;         // --probe MIB, 0 = no probe
    const char *draw;      // --draw FILE.png
    topo_map map;          // --map MBxNB@DIST --m M --n N [--elem BYTES]
    topo_interleave il;    // --interleave MIB [--weights W]
    const char *profile;   // --profile FILE
} topo_args;

static const struct option topo_options[] = {
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"synthetic", required_argument, 0, 's'},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {"probe", required_argument, 0, 'p'},
    {"draw", required_argument, 0, 'D'},
    {"map", required_argument, 0, 'M'},
    {"m", required_argument, 0, 'm'},
    {"n", required_argument, 0, 'n'},
    {"elem", required_argument, 0, 'e'},
    {"interleave", required_argument, 0, 'i'},
    {"weights", required_argument, 0, 'w'},
    {"profile", required_argument, 0, 'P'},
    {0, 0, 0, 0}};

// MBxNB@DIST or MB@DIST, as plan and redist take --from and --to.
static bool parse_map(const char *s, topo_map *m)
{
    const char *at = strchr(s, '@');
    char tile[64];
    if (!at || at == s || !at[1] || (size_t)(at - s) >= sizeof tile)
        return false;
    memcpy(tile, s, (size_t)(at - s));
    tile[at - s] = 0;
    char *x = strchr(tile, 'x');
    if (x)
        *x = 0;
    if (!cli_parse_i64(tile, 1, INT32_MAX, &m->mb) ||
        !cli_parse_i64(x ? x + 1 : tile, 1, INT32_MAX, &m->nb))
        return false;
    m->dist = at + 1;
    return true;
}

static bool ends_png(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && !strcasecmp(s + n - 4, ".png");
}

static int check_map_args(topo_args *a, bool have_m, bool have_n, bool have_elem)
{
    if (!a->map.dist) {
        if (have_m || have_n || have_elem)
            return cli_usage("topo", "--%s is the size of the --map matrix: give --map too",
                             have_m ? "m" : have_n ? "n" : "elem");
        return CLI_OK;
    }
    if (!have_m || !have_n)
        return cli_usage("topo", "--map needs the matrix size: --%s missing",
                         have_m ? "n" : "m");
    int64_t e, b;
    if (__builtin_mul_overflow(a->map.m, a->map.n, &e) ||
        __builtin_mul_overflow(e, a->map.elem, &b))
        return cli_usage("topo", "--m %lld x --n %lld x --elem %lld bytes overflows",
                         (long long)a->map.m, (long long)a->map.n, (long long)a->map.elem);
    return CLI_OK;
}

static int parse_args(int argc, char **argv, topo_args *a)
{
    *a = (topo_args){.co = {.cmd = "topo", .help = help}, .map = {.elem = 8}};
    int c, rc;
    bool have_m = false, have_n = false, have_elem = false;
    while ((c = cli_getopt(argc, argv, topo_options)) != -1) {
        switch (c) {
        case 's':
            if ((rc = cli_check_synthetic("topo", optarg)) != CLI_OK)
                return rc;
            a->synthetic = optarg;
            break;
        case 'p':
            if (!cli_parse_int(optarg, 1, 1 << 20, &a->probe_mib))
                return cli_usage("topo", "--probe: '%s' is not a size in MiB (1..1048576)",
                                 optarg);
            break;
        case 'i':
            if (!cli_parse_int(optarg, 1, 1 << 20, &a->il.mib))
                return cli_usage("topo", "--interleave: '%s' is not a size in MiB (1..1048576)",
                                 optarg);
            break;
        case 'w':
            a->il.weights = optarg;
            break;
        case 'P':
            a->profile = optarg;
            break;
        case 'D':
            if (!ends_png(optarg) || strchr(optarg, '\''))
                return cli_usage("topo", "--draw: '%s' is not a FILE.png name (without quotes)",
                                 optarg);
            a->draw = optarg;
            break;
        case 'M':
            if (!parse_map(optarg, &a->map))
                return cli_usage("topo", "--map: '%s' is not MBxNB@DIST", optarg);
            break;
        case 'm':
        case 'n':
            if (!cli_parse_i64(optarg, 1, INT32_MAX, c == 'm' ? &a->map.m : &a->map.n))
                return cli_usage("topo", "--%c: '%s' is not a size in 1..%d", c, optarg,
                                 INT32_MAX);
            *(c == 'm' ? &have_m : &have_n) = true;
            break;
        case 'e':
            if (!cli_parse_i64(optarg, 1, 1 << 20, &a->map.elem))
                return cli_usage("topo", "--elem: '%s' is not a byte count in 1..1048576",
                                 optarg);
            have_elem = true;
            break;
        default:
            if ((rc = cli_common_option(&a->co, c, argv)) != CLI_OK)
                return rc;
        }
    }
    if ((rc = cli_no_operands("topo", argc, argv)) != CLI_OK)
        return rc;
    if ((a->probe_mib || a->il.mib) && a->synthetic)
        return cli_usage("topo", "--%s needs this machine; a --synthetic topology has no "
                         "memory to place", a->probe_mib ? "probe" : "interleave");
    if (a->il.weights && !a->il.mib)
        return cli_usage("topo", "--weights are the shares of --interleave: give --interleave");
    return check_map_args(a, have_m, have_n, have_elem);
}

static json_t *map_json(const topo_args *a, int D, const int64_t *tiles, const int64_t *bytes)
{
    json_t *jt = json_array(), *jb = json_array();
    for (int d = 0; d < D; d++) {
        json_array_append_new(jt, json_integer(tiles[d]));
        json_array_append_new(jb, json_integer(bytes[d]));
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "dist", a->map.dist, "m",
                     (json_int_t)a->map.m, "n", (json_int_t)a->map.n, "mb",
                     (json_int_t)a->map.mb, "nb", (json_int_t)a->map.nb, "elem",
                     (json_int_t)a->map.elem, "tiles", jt, "bytes", jb);
}

static void map_print(const topo_args *a, int D, const int64_t *tiles, const int64_t *bytes)
{
    printf("map %lldx%lld@%s on %lld x %lld elements of %lld bytes:\n", (long long)a->map.mb,
           (long long)a->map.nb, a->map.dist, (long long)a->map.m, (long long)a->map.n,
           (long long)a->map.elem);
    for (int d = 0; d < D; d++)
        printf("  domain %d: %lld tiles, %lld bytes\n", d, (long long)tiles[d],
               (long long)bytes[d]);
}

// A profile's pair matrix as initiator (the reading or copying domain, the profile's column) x
// target (where the memory is, its row).
static json_t *pair_matrix(const double *m, int D)
{
    json_t *rows = json_array();
    for (int i = 0; i < D; i++) {
        json_t *r = json_array();
        for (int k = 0; k < D; k++)
            json_array_append_new(r, json_real(m[k * D + i]));
        json_array_append_new(rows, r);
    }
    return rows;
}

// Where the pairs' bandwidths come from: hwloc's attributes first, else a measured profile.
static const char *pair_source(const nt_topo_t *t, const nt_profile_t *p)
{
    return nt_topo_memattr_source(t) == NT_ATTR_HWLOC ? "hwloc" : p ? "profile" : "none";
}

static void profile_print(const nt_topo_t *t, const nt_profile_t *p, const char *file)
{
    int D = p->ndomains;
    printf("pair bandwidths (from %s; %s): one-thread read GB/s, initiator x target\n",
           pair_source(t, p), file);
    for (int i = 0; i < D; i++) {
        printf(" ");
        for (int k = 0; k < D; k++)
            printf(" %7.2f", p->read_gbs[k * D + i]);
        printf("\n");
    }
}

static int run(const topo_args *a)
{
    nt_topo_opts_t o = {.domains = a->co.domains, .synthetic = a->synthetic};
    nt_topo_t *t;
    nt_status st = nt_topo_load(&o, &t);
    if (st)
        return cli_lib_error("topo", st);
    cli_json_topology(t);
    int D = nt_topo_ndomains(t), rc = CLI_OK;
    nt_profile_t *prof = NULL;
    if (a->profile && (st = nt_profile_read(a->profile, t, &prof)) != NT_OK)
        rc = cli_lib_error("topo", st);
    int64_t *tiles = NULL, *bytes = NULL;
    if (a->map.dist) {
        tiles = calloc((size_t)D, sizeof *tiles);
        bytes = calloc((size_t)D, sizeof *bytes);
        rc = tiles && bytes ? topo_map_holds(t, &a->map, tiles, bytes) : CLI_RUNTIME;
    }
    topo_interleave il = a->il;
    if (rc == CLI_OK && il.mib && (rc = topo_interleave_check(il.weights, D)) == CLI_OK)
        rc = topo_interleave_run(t, &il);
    probe_row *rows = NULL;
    if (rc == CLI_OK && a->probe_mib)
        rc = probe_room(t, a->probe_mib);
    if (rc == CLI_OK && a->probe_mib && (st = run_probe(t, a->probe_mib, &rows)) != NT_OK)
        rc = cli_lib_error("topo", st);
    if (rc == CLI_OK && a->draw)
        rc = topo_draw(t, a->draw, &a->map, tiles, bytes);
    if (rc == CLI_OK && a->co.json) {
        json_t *j = topo_json(t);
        if (rows)
            json_object_set_new(j, "probe", probe_json(t, a->probe_mib, rows));
        if (tiles)
            json_object_set_new(j, "map", map_json(a, D, tiles, bytes));
        if (il.mib)
            json_object_set_new(j, "interleave", topo_interleave_json(&il));
        json_object_set_new(j, "pair_bandwidth_source", json_string(pair_source(t, prof)));
        if (prof)
            json_object_set_new(j, "profile_pairs", json_pack(
                "{s:s, s:o, s:o}", "file", a->profile, "read_gbs",
                pair_matrix(prof->read_gbs, D), "copy_gbs", pair_matrix(prof->copy_gbs, D)));
        if (a->draw)
            json_object_set_new(j, "draw", json_string(a->draw));
        rc = cli_print_json(j);
    } else if (rc == CLI_OK) {
        topo_print(t);
        if (rows)
            probe_print(t, a->probe_mib, rows);
        if (tiles)
            map_print(a, D, tiles, bytes);
        if (il.mib)
            topo_interleave_print(&il);
        if (prof)
            profile_print(t, prof, a->profile);
        if (a->draw)
            printf("picture: %s\n", a->draw);
    }
    free(rows);
    free(tiles);
    free(bytes);
    nt_profile_destroy(prof);
    nt_topo_destroy(t);
    return rc;
}

int cmd_topo(int argc, char **argv)
{
    topo_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    return run(&a);
}
