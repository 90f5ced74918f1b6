// Topology discovery with hwloc: NUMA nodes, their cpus and memory, distances, and the split of
// a machine into virtual domains.
#include <errno.h>
#include <hwloc.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "nt_core.h"
#include "nt_numa.h"
#include "nt_numa_allowed.h"

typedef struct node_desc {
    int os_index;
    bool mem_allowed; // the process may place memory there
    uint64_t memory;
    int ncores;
    int *core_first; // index into pus of each core's first PU, plus one sentinel
    int npus;
    int *pus;        // OS cpu indices the process may use, grouped by core
} node_desc;

typedef struct domain_desc {
    int node;      // index into the topology's node array (not the OS index)
    int ncpus;
    int *cpus;
    uint64_t memory;
} domain_desc;

struct nt_topo {
    nt_topo_kind kind;
    nt_topo_source source;
    char *source_text;
    unsigned limits;       // NT_TOPO_LIMIT_*
    int nleft_cpus, nleft_nodes;
    int *left_cpus, *left_nodes; // OS indices left out, ascending
    char *omp_note;        // NULL when there is nothing to say
    nt_distance_source dist_source;
    bool oversubscribed;
    int nnodes;
    node_desc *nodes;      // in OS index order
    int *lg, *rank;        // node array index -> hwloc logical index, and back
    int ndomains;
    domain_desc *domains;
    uint32_t *node_dist;   // nnodes x nnodes
    uint32_t *dist;        // ndomains x ndomains
    nt_memattrs attrs;     // kinds, bandwidths and latencies of the nodes (memattr.c)
    uint32_t *cost;        // ndomains x ndomains: nt_topo_cost_distances()
    bool cost_bw;          // cost comes from the bandwidths
};

void nt_topo_destroy(nt_topo_t *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nnodes; i++) {
        free(t->nodes[i].core_first);
        free(t->nodes[i].pus);
    }
    for (int d = 0; d < t->ndomains; d++)
        free(t->domains[d].cpus);
    free(t->nodes);
    free(t->lg);
    free(t->rank);
    free(t->domains);
    free(t->node_dist);
    free(t->dist);
    free(t->cost);
    nt_memattrs_free(&t->attrs);
    free(t->source_text);
    free(t->left_cpus);
    free(t->left_nodes);
    free(t->omp_note);
    free(t);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

// The NUMA node a PU's memory accesses are local to: the first NUMA node attached to its
// closest ancestor that has memory children (hwloc 2 attaches nodes beside the cpu tree).
static hwloc_obj_t local_node_of(hwloc_obj_t pu)
{
    for (hwloc_obj_t a = pu->parent; a; a = a->parent) {
        if (a->memory_arity == 0)
            continue;
        hwloc_obj_t m = a->memory_first_child;
        while (m && m->type != HWLOC_OBJ_NUMANODE)
            m = m->memory_first_child; // skip memory-side caches
        if (m)
            return m;
    }
    return NULL;
}

// The OS indices of a bitmap, ascending, into a new array (NULL when empty).
static nt_status bitmap_list(hwloc_const_bitmap_t b, int **out, int *n)
{
    int w = hwloc_bitmap_weight(b), k = 0;
    *out = NULL;
    *n = 0;
    if (w <= 0)
        return NT_OK;
    if (!(*out = malloc((size_t)w * sizeof **out)))
        return nt_fail(NT_ENOMEM, "topology: out of memory");
    unsigned i;
    hwloc_bitmap_foreach_begin(i, b) (*out)[k++] = (int)i;
    hwloc_bitmap_foreach_end();
    *n = k;
    return NT_OK;
}

// What the allowed sets leave out of the whole topology.
static nt_status read_left_out(nt_topo_t *t, hwloc_topology_t h, const nt_allowed *a)
{
    hwloc_bitmap_t c = hwloc_bitmap_alloc(), m = hwloc_bitmap_alloc();
    nt_status st = c && m ? NT_OK : nt_fail(NT_ENOMEM, "topology: out of memory");
    if (st == NT_OK) {
        hwloc_bitmap_andnot(c, hwloc_topology_get_topology_cpuset(h), a->cpus);
        hwloc_bitmap_andnot(m, hwloc_topology_get_topology_nodeset(h), a->nodes);
        st = bitmap_list(c, &t->left_cpus, &t->nleft_cpus);
    }
    if (st == NT_OK)
        st = bitmap_list(m, &t->left_nodes, &t->nleft_nodes);
    hwloc_bitmap_free(c);
    hwloc_bitmap_free(m);
    return st;
}

static int cmp_os(const void *a, const void *b, void *arg)
{
    hwloc_topology_t h = arg;
    unsigned x = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)*(const int *)a)->os_index;
    unsigned y = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)*(const int *)b)->os_index;
    return (x > y) - (x < y);
}

// Nodes in OS index order, so that physical domain d is node d as numactl numbers them, also
// where hwloc's logical order differs (it lists a memory-only node that HMAT gives an initiator
// beside that initiator's DRAM, before the next socket's).
static nt_status node_order(nt_topo_t *t, hwloc_topology_t h, int nn)
{
    t->lg = malloc((size_t)nn * sizeof *t->lg);
    t->rank = malloc((size_t)nn * sizeof *t->rank);
    if (!t->lg || !t->rank)
        return nt_fail(NT_ENOMEM, "topology: out of memory for %d nodes", nn);
    for (int i = 0; i < nn; i++)
        t->lg[i] = i;
    qsort_r(t->lg, (size_t)nn, sizeof *t->lg, cmp_os, h);
    for (int i = 0; i < nn; i++)
        t->rank[t->lg[i]] = i;
    return NT_OK;
}

// The NUMA node of node array index i.
static hwloc_obj_t node_obj(const nt_topo_t *t, hwloc_topology_t h, int i)
{
    return hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)t->lg[i]);
}

// Fill t->nodes from the hwloc topology: every NUMA node with the cpus the process may use,
// grouped by core.
static nt_status read_nodes(nt_topo_t *t, hwloc_topology_t h, const nt_allowed *a)
{
    int nn = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    int np = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    if (nn <= 0 || np <= 0)
        return nt_fail(NT_ESYS, "topology: hwloc found %d NUMA nodes and %d cpus", nn, np);
    // Descriptions are sized before hwloc builds them; this catches any form the sizers miss
    // before the node x node distances are allocated.
    if (nn > NT_TOPO_MAX_DOMAINS || np > NT_TOPO_MAX_PUS)
        return nt_fail(NT_ERANGE, "topology: hwloc found %d NUMA nodes and %d processing units; "
                       "the limits are %d nodes and %d processing units", nn, np,
                       NT_TOPO_MAX_DOMAINS, NT_TOPO_MAX_PUS);
    t->nnodes = nn;
    nt_status st = node_order(t, h, nn);
    if (st)
        return st;
    t->nodes = calloc((size_t)nn, sizeof *t->nodes);
    int *pu_node = malloc((size_t)np * sizeof *pu_node);
    if (!t->nodes || !pu_node) {
        free(pu_node);
        return nt_fail(NT_ENOMEM, "topology: out of memory for %d nodes", nn);
    }
    for (int i = 0; i < nn; i++) {
        hwloc_obj_t o = node_obj(t, h, i);
        t->nodes[i].os_index = (int)o->os_index;
        t->nodes[i].mem_allowed = hwloc_bitmap_isset(a->nodes, o->os_index);
        t->nodes[i].memory = o->attr->numanode.local_memory;
    }
    for (int p = 0; p < np; p++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)p);
        hwloc_obj_t m = local_node_of(pu);
        // A cpu left out belongs to no node's list, hence to no domain.
        pu_node[p] = !hwloc_bitmap_isset(a->cpus, pu->os_index) ? -1
                     : m                                         ? t->rank[m->logical_index]
                                                                 : 0;
        if (pu_node[p] >= 0)
            t->nodes[pu_node[p]].npus++;
    }
    for (int i = 0; i < nn && st == NT_OK; i++) {
        node_desc *nd = &t->nodes[i];
        nd->pus = malloc((size_t)(nd->npus + 1) * sizeof *nd->pus);
        nd->core_first = malloc((size_t)(nd->npus + 1) * sizeof *nd->core_first);
        if (!nd->pus || !nd->core_first) {
            st = nt_fail(NT_ENOMEM, "topology: out of memory for node %d", i);
            break;
        }
        // PUs come in logical order, so the PUs of one core are consecutive.
        int k = 0;
        hwloc_obj_t last_core = NULL;
        for (int p = 0; p < np; p++) {
            if (pu_node[p] != i)
                continue;
            hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)p);
            hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
            if (!core || core != last_core || k == 0)
                nd->core_first[nd->ncores++] = k;
            last_core = core;
            nd->pus[k++] = (int)pu->os_index;
        }
        nd->core_first[nd->ncores] = k;
    }
    free(pu_node);
    return st;
}

// Kinds and attributes of the nodes (memattr.c), and the cost distances from them.
static nt_status read_attrs(nt_topo_t *t, hwloc_topology_t h)
{
    bool *has = malloc((size_t)t->nnodes * sizeof *has);
    int *dn = malloc((size_t)t->ndomains * sizeof *dn);
    nt_status st = has && dn ? NT_OK : nt_fail(NT_ENOMEM, "topology: out of memory");
    for (int i = 0; st == NT_OK && i < t->nnodes; i++)
        has[i] = t->nodes[i].npus > 0;
    for (int d = 0; st == NT_OK && d < t->ndomains; d++)
        dn[d] = t->domains[d].node;
    if (st == NT_OK)
        st = nt_memattrs_read(h, t->nnodes, t->lg, has, t->node_dist, &t->attrs);
    if (st == NT_OK)
        st = nt_memattrs_cost(&t->attrs, dn, t->ndomains, t->dist, &t->cost, &t->cost_bw);
    free(has);
    free(dn);
    return st;
}

// Distance between two nodes of a described machine: 10 to itself, else 10 + 10 x the levels
// from the deeper node's parent up to the common ancestor (at least one level).
static uint32_t hierarchy_distance(const nt_topo_t *t, hwloc_topology_t h, int a, int b)
{
    if (a == b)
        return 10;
    hwloc_obj_t pa = node_obj(t, h, a)->parent;
    hwloc_obj_t pb = node_obj(t, h, b)->parent;
    hwloc_obj_t c = hwloc_get_common_ancestor_obj(h, pa, pb);
    int up = pa->depth - c->depth;
    if (pb->depth - c->depth > up)
        up = pb->depth - c->depth;
    if (up < 1)
        up = 1;
    return (uint32_t)(10 + 10 * up);
}

static nt_status read_distances(nt_topo_t *t, hwloc_topology_t h, bool synthetic)
{
    int nn = t->nnodes;
    t->node_dist = malloc((size_t)nn * (size_t)nn * sizeof *t->node_dist);
    if (!t->node_dist)
        return nt_fail(NT_ENOMEM, "topology: out of memory for distances");

    unsigned nr = 1;
    struct hwloc_distances_s *dm = NULL;
    if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, &dm,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 && nr >= 1) {
        bool complete = true;
        for (int i = 0; i < nn && complete; i++) {
            for (int j = 0; j < nn; j++) {
                hwloc_obj_t oi = node_obj(t, h, i), oj = node_obj(t, h, j);
                int xi = hwloc_distances_obj_index(dm, oi), xj = hwloc_distances_obj_index(dm, oj);
                if (xi < 0 || xj < 0) {
                    complete = false;
                    break;
                }
                uint64_t v = dm->values[(unsigned)xi * dm->nbobjs + (unsigned)xj];
                t->node_dist[i * nn + j] = (uint32_t)v;
            }
        }
        hwloc_distances_release(h, dm);
        if (complete) {
            t->dist_source = NT_DISTANCE_HWLOC;
            return NT_OK;
        }
    }
    if (synthetic) {
        for (int i = 0; i < nn; i++)
            for (int j = 0; j < nn; j++)
                t->node_dist[i * nn + j] = hierarchy_distance(t, h, i, j);
        t->dist_source = NT_DISTANCE_HIERARCHY;
        return NT_OK;
    }
    if (numa_available() >= 0) {
        bool ok = true;
        for (int i = 0; i < nn && ok; i++)
            for (int j = 0; j < nn && ok; j++) {
                int d = numa_distance(t->nodes[i].os_index, t->nodes[j].os_index);
                ok = d > 0;
                t->node_dist[i * nn + j] = (uint32_t)d;
            }
        if (ok) {
            t->dist_source = NT_DISTANCE_LIBNUMA;
            return NT_OK;
        }
    }
    for (int i = 0; i < nn; i++)
        for (int j = 0; j < nn; j++)
            t->node_dist[i * nn + j] = i == j ? 10 : 20;
    t->dist_source = NT_DISTANCE_FLAT;
    return NT_OK;
}

static nt_status make_domain(domain_desc *d, int node, const int *cpus, int ncpus,
                             uint64_t memory)
{
    d->node = node;
    d->memory = memory;
    d->ncpus = ncpus;
    d->cpus = malloc((size_t)(ncpus > 0 ? ncpus : 1) * sizeof *d->cpus);
    if (!d->cpus)
        return nt_fail(NT_ENOMEM, "topology: out of memory for a domain");
    memcpy(d->cpus, cpus, (size_t)ncpus * sizeof *cpus);
    qsort(d->cpus, (size_t)ncpus, sizeof *d->cpus, cmp_int);
    return NT_OK;
}

// One domain per NUMA node, memory-only nodes included (they get no cpus).
static nt_status physical_domains(nt_topo_t *t)
{
    t->ndomains = t->nnodes;
    t->domains = calloc((size_t)t->nnodes, sizeof *t->domains);
    if (!t->domains)
        return nt_fail(NT_ENOMEM, "topology: out of memory for domains");
    for (int i = 0; i < t->nnodes; i++) {
        nt_status st = make_domain(&t->domains[i], i, t->nodes[i].pus, t->nodes[i].npus,
                                   t->nodes[i].memory);
        if (st)
            return st;
    }
    return NT_OK;
}

// Split the cores of the nodes that have cpus into D domains. Domains go one at a time to the
// node with the most cores per domain so far, so every node gets a balanced share; within a
// node, domain j takes a contiguous run of cores, or core j mod ncores when it has more
// domains than cores (then the topology is oversubscribed).
static nt_status virtual_domains(nt_topo_t *t, int D)
{
    int nn = t->nnodes, with_cpus = 0, total_cores = 0;
    for (int i = 0; i < nn; i++)
        if (t->nodes[i].ncores > 0) {
            with_cpus++;
            total_cores += t->nodes[i].ncores;
        }
    if (with_cpus == 0)
        return nt_fail(NT_ESYS, "topology: no NUMA node has cpus");
    int *per_node = calloc((size_t)nn, sizeof *per_node);
    t->domains = calloc((size_t)D, sizeof *t->domains);
    if (!per_node || !t->domains) {
        free(per_node);
        return nt_fail(NT_ENOMEM, "topology: out of memory for %d domains", D);
    }
    for (int i = 0; i < nn; i++)
        per_node[i] = t->nodes[i].ncores > 0;
    for (int k = with_cpus; k < D; k++) {
        int best = -1;
        for (int i = 0; i < nn; i++) {
            if (t->nodes[i].ncores == 0)
                continue;
            // cores/domains larger than the best's: compare c_i * d_best > c_best * d_i
            if (best < 0 || (int64_t)t->nodes[i].ncores * per_node[best] >
                                (int64_t)t->nodes[best].ncores * per_node[i])
                best = i;
        }
        per_node[best]++;
    }
    nt_status st = NT_OK;
    int d = 0;
    for (int i = 0; i < nn && st == NT_OK; i++) {
        node_desc *nd = &t->nodes[i];
        for (int j = 0; j < per_node[i] && st == NT_OK; j++) {
            int c0, c1;
            if (per_node[i] <= nd->ncores) {
                c0 = (int)((int64_t)j * nd->ncores / per_node[i]);
                c1 = (int)((int64_t)(j + 1) * nd->ncores / per_node[i]);
            } else {
                c0 = j % nd->ncores;
                c1 = c0 + 1;
            }
            int p0 = nd->core_first[c0], p1 = nd->core_first[c1];
            st = make_domain(&t->domains[d], i, nd->pus + p0, p1 - p0,
                             nd->memory / (uint64_t)per_node[i]);
            d++;
        }
    }
    t->ndomains = d;
    t->oversubscribed = D > total_cores;
    free(per_node);
    return st;
}

static nt_status domain_distances(nt_topo_t *t)
{
    size_t D = (size_t)t->ndomains;
    t->dist = malloc(D * D * sizeof *t->dist);
    if (!t->dist)
        return nt_fail(NT_ENOMEM, "topology: out of memory for distances");
    for (size_t a = 0; a < D; a++)
        for (size_t b = 0; b < D; b++)
            t->dist[a * D + b] =
                t->node_dist[t->domains[a].node * t->nnodes + t->domains[b].node];
    return NT_OK;
}

// Sizing a synthetic description before hwloc builds it: hwloc allocates every object, so
// "pack:1000 core:100 pu:1" would take it tens of seconds and gigabytes. The description is a
// list of "type:arity" levels, each optionally followed by "(attributes)", with memory children
// written "[numa...]" after a level. Anything this reader does not follow is left to hwloc.
typedef struct synth_size {
    uint64_t objects; // objects of the current level (saturates at UINT64_MAX)
    uint64_t numa;    // NUMA nodes so far
    uint64_t inner;   // the most objects of a level above the current one
    bool bare;        // a level was a bare arity
} synth_size;

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static bool is_numa_type(const char *s, size_t n)
{
    return (n >= 4 && strncasecmp(s, "numa", 4) == 0) || (n >= 4 && strncasecmp(s, "node", 4) == 0);
}

// One level "type:arity(...)" or a memory child "[numa...]" of w (n bytes); false if not read.
// A level may also be a bare arity ("2 4080"): hwloc then picks the types itself and attaches
// the NUMA nodes to a level above the PUs ("3 2 2" has 6), so any level but the last may be.
static bool synth_level(const char *w, size_t n, synth_size *z)
{
    if (w[0] == '[') {
        z->numa = sat_add(z->numa, z->objects);
        return true;
    }
    const char *colon = memchr(w, ':', n);
    const char *digits = colon ? colon + 1 : w;
    if (digits >= w + n || *digits < '0' || *digits > '9')
        return false;
    if (z->objects > z->inner)
        z->inner = z->objects;
    z->bare |= !colon;
    // Base 0, as hwloc reads arities: "pack:0x10000" is 65536 packages, not 0 (strtoull
    // stops at the word's end and saturates at ULLONG_MAX).
    uint64_t arity = strtoull(digits, NULL, 0);
    z->objects = sat_mul(z->objects, arity);
    if (colon && is_numa_type(w, (size_t)(colon - w)))
        z->numa = sat_add(z->numa, z->objects);
    return true;
}

// Walk the words of desc (split at blanks outside parentheses and brackets). PUs are the
// objects of the last level; without a NUMA level hwloc adds one node.
static nt_status synthetic_check_size(const char *desc)
{
    synth_size z = {1, 0, 0, false};
    const char *s = desc;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        const char *w = s;
        int depth = 0;
        for (; *s && (depth > 0 || (*s != ' ' && *s != '\t' && *s != '\n')); s++)
            depth += (*s == '(' || *s == '[') - (*s == ')' || *s == ']');
        if (s > w && w[0] != '(' && !synth_level(w, (size_t)(s - w), &z))
            return NT_OK; // not a form this reader follows: hwloc decides
    }
    uint64_t numa = z.numa ? z.numa : 1;
    if (z.bare && z.inner > numa)
        numa = z.inner; // an upper bound: hwloc chooses the level
    if (numa <= NT_TOPO_MAX_DOMAINS && z.objects <= NT_TOPO_MAX_PUS)
        return nt_topo_synthetic_time_check(desc, z.objects, numa);
    return nt_fail(NT_ERANGE,
                   "synthetic: \"%s\" describes %s%llu NUMA node%s and %s%llu processing "
                   "units; the limits are %d nodes and %d processing units",
                   desc, numa == UINT64_MAX ? "over " : "", (unsigned long long)numa,
                   numa == 1 ? "" : "s", z.objects == UINT64_MAX ? "over " : "",
                   (unsigned long long)z.objects, NT_TOPO_MAX_DOMAINS, NT_TOPO_MAX_PUS);
}

// hwloc reads /sys and /proc under HWLOC_FSROOT; pointed nowhere, it builds an empty machine
// (no memory, any cpus) without a word, on which every allocation would then fail.
static nt_status fsroot_check(const char *fs)
{
    struct stat sb;
    if (!fs)
        return NT_OK;
    if (stat(fs, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return nt_fail(NT_EINVAL, "HWLOC_FSROOT=%s in the environment: %s (unset it to use "
                       "this machine)", fs, stat(fs, &sb) != 0 ? strerror(errno)
                                                              : "not a directory");
    char sys[4096];
    snprintf(sys, sizeof sys, "%s/sys/devices/system", fs);
    if (stat(sys, &sb) != 0)
        return nt_fail(NT_EINVAL, "HWLOC_FSROOT=%s in the environment: it holds no "
                       "sys/devices/system, not a copy of a machine's /sys and /proc (unset it "
                       "to use this machine)", fs);
    return NT_OK;
}

// Either form of an XML file name: hwloc reads the file whatever it is called, numatile tells
// descriptions and files apart by the extension.
static bool is_xml_name(const char *s)
{
    size_t n = strlen(s);
    return n >= 4 && strcasecmp(s + n - 4, ".xml") == 0;
}

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

static char *text_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

static nt_status check_domains(int domains, const char *fn)
{
    if (domains < 0)
        return nt_fail(NT_EINVAL, "%s: domains = %d is negative", fn, domains);
    if (domains > NT_TOPO_MAX_DOMAINS)
        return nt_fail(NT_ERANGE, "domains: %d is more than the limit of %d", domains,
                       NT_TOPO_MAX_DOMAINS);
    return NT_OK;
}

static const char *backend_of(hwloc_topology_t h)
{
    const char *b = hwloc_obj_get_info_by_name(hwloc_get_root_obj(h), "Backend");
    return b ? b : "unknown";
}

// A topology that is not this machine: the kind of description, and in words. hwloc enforces
// HWLOC_SYNTHETIC before HWLOC_XMLFILE; an XML file keeps the Backend info of the machine it was
// exported from, so only the environment tells XML apart. For a caller's topology (who set),
// the synthetic backend's description is the one sign left.
static nt_topo_source described_source(hwloc_topology_t h, const char *who, char **text)
{
    const char *xml = nonempty(getenv("HWLOC_XMLFILE"));
    const char *syn = nonempty(getenv("HWLOC_SYNTHETIC"));
    const char *d = hwloc_obj_get_info_by_name(hwloc_get_root_obj(h), "SyntheticDescription");
    if (who) {
        *text = d ? text_printf("%s (synthetic \"%s\")", who, d)
                  : text_printf("%s (hwloc backend %s, not this machine)", who, backend_of(h));
        return d ? NT_TOPO_FROM_SYNTHETIC : NT_TOPO_FROM_OTHER;
    }
    if (syn) {
        *text = text_printf("HWLOC_SYNTHETIC=\"%s\" in the environment", syn);
        return NT_TOPO_FROM_SYNTHETIC;
    }
    if (xml) {
        *text = text_printf("HWLOC_XMLFILE=%s in the environment", xml);
        return NT_TOPO_FROM_XML;
    }
    const char *fs = nonempty(getenv("HWLOC_FSROOT"));
    *text = text_printf("an hwloc topology of another machine (backend %s%s%s)", backend_of(h),
                        fs ? ", HWLOC_FSROOT=" : "", fs ? fs : "");
    return NT_TOPO_FROM_OTHER;
}

// The topology from a loaded hwloc topology: domains from the allowed sets on this machine, a
// synthetic (planning) topology otherwise. Takes text (the source in words) in every case.
static nt_status build(hwloc_topology_t h, int domains, nt_topo_source src, char *text,
                       nt_topo_t **out)
{
    if (!text)
        return nt_fail(NT_ENOMEM, "topology: out of memory");
    bool here = src == NT_TOPO_FROM_THIS_MACHINE;
    nt_allowed a;
    nt_status st = nt_allowed_read(h, here, &a);
    if (st) {
        free(text);
        return st;
    }
    nt_topo_t *t = calloc(1, sizeof *t);
    if (!t) {
        free(text);
        nt_allowed_free(&a);
        return nt_fail(NT_ENOMEM, "topology: out of memory");
    }
    t->source = src;
    t->source_text = text;
    t->limits = a.limits;
    if (a.omp_note[0] && !(t->omp_note = strdup(a.omp_note)))
        st = nt_fail(NT_ENOMEM, "topology: out of memory");
    if (st == NT_OK)
        st = read_nodes(t, h, &a);
    if (st == NT_OK)
        st = read_left_out(t, h, &a);
    nt_allowed_free(&a);
    if (st == NT_OK)
        st = read_distances(t, h, !here);
    if (st == NT_OK) {
        if (domains == 0 || domains == t->nnodes) {
            t->kind = NT_TOPO_PHYSICAL;
            st = physical_domains(t);
        } else if (domains < t->nnodes) {
            st = nt_fail(NT_EINVAL,
                         "domains: %d is fewer than the %d NUMA nodes of this machine "
                         "(domains may split nodes, not merge them)", domains, t->nnodes);
        } else {
            t->kind = NT_TOPO_VIRTUAL;
            st = virtual_domains(t, domains);
        }
        if (!here)
            t->kind = NT_TOPO_SYNTHETIC;
    }
    if (st == NT_OK)
        st = domain_distances(t);
    if (st == NT_OK)
        st = read_attrs(t, h);
    if (st != NT_OK) {
        nt_topo_destroy(t);
        return st;
    }
    *out = t;
    return NT_OK;
}

nt_status nt_topo_load(const nt_topo_opts_t *opts, nt_topo_t **out)
{
    nt_topo_opts_t o = {0};
    if (opts)
        o = *opts;
    if (!out)
        return nt_fail(NT_EINVAL, "nt_topo_load: out is NULL");
    nt_status st = check_domains(o.domains, "nt_topo_load");
    if (st)
        return st;
    if (o.synthetic && !*o.synthetic)
        return nt_fail(NT_EINVAL, "nt_topo_load: synthetic description is empty");
    // hwloc reads its environment only when the caller names no description; those are sized
    // as a named one would be.
    const char *env_xml = o.synthetic ? NULL : nonempty(getenv("HWLOC_XMLFILE"));
    const char *env_syn = o.synthetic ? NULL : nonempty(getenv("HWLOC_SYNTHETIC"));
    bool xml = o.synthetic && is_xml_name(o.synthetic);
    if (o.synthetic)
        st = xml ? nt_topo_xml_check_size(o.synthetic) : synthetic_check_size(o.synthetic);
    if (st == NT_OK && env_xml)
        st = nt_topo_xml_check_size(env_xml);
    if (st == NT_OK && env_syn)
        st = synthetic_check_size(env_syn);
    if (st == NT_OK && !o.synthetic && !env_xml && !env_syn)
        st = fsroot_check(nonempty(getenv("HWLOC_FSROOT")));
    if (st != NT_OK)
        return st;

    hwloc_topology_t h;
    if (hwloc_topology_init(&h) != 0)
        return nt_fail(NT_ENOMEM, "nt_topo_load: hwloc_topology_init failed");
    if (o.synthetic) {
        int rc = xml ? hwloc_topology_set_xml(h, o.synthetic)
                     : hwloc_topology_set_synthetic(h, o.synthetic);
        if (rc != 0) {
            hwloc_topology_destroy(h);
            return nt_fail(NT_EINVAL, "synthetic: %s \"%s\" is not a valid hwloc %s",
                           xml ? "file" : "description", o.synthetic,
                           xml ? "XML topology" : "synthetic description");
        }
    } else {
        // Everything, so that what the process may not use can be listed; domains are then
        // built from the allowed sets only.
        hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    }
    if (hwloc_topology_load(h) != 0) {
        hwloc_topology_destroy(h);
        return nt_fail(NT_ESYS, "nt_topo_load: hwloc could not load the topology");
    }
    const char *ts = getenv("HWLOC_THISSYSTEM");
    if ((env_xml || env_syn) && hwloc_topology_is_thissystem(h) && !(ts && atoi(ts))) {
        // hwloc warns and reads this machine instead: numatile would then run on a machine
        // the user did not mean.
        hwloc_topology_destroy(h);
        return nt_fail(NT_EINVAL, "%s%s%s%s%s in the environment: hwloc could not read it, %s",
                       env_xml ? "HWLOC_XMLFILE=" : "", env_xml ? env_xml : "",
                       env_xml && env_syn ? ", " : "", env_syn ? "HWLOC_SYNTHETIC=" : "",
                       env_syn ? env_syn : "",
                       "a missing or invalid description (unset it to use this machine)");
    }
    nt_topo_source src;
    char *text;
    if (o.synthetic) {
        src = xml ? NT_TOPO_FROM_XML : NT_TOPO_FROM_SYNTHETIC;
        text = xml ? text_printf("the XML file %s", o.synthetic)
                   : text_printf("the synthetic description \"%s\"", o.synthetic);
    } else if (hwloc_topology_is_thissystem(h)) {
        src = NT_TOPO_FROM_THIS_MACHINE;
        text = env_xml || env_syn
                   ? text_printf("this machine (HWLOC_THISSYSTEM=1 with %s=%s)",
                                 env_xml ? "HWLOC_XMLFILE" : "HWLOC_SYNTHETIC",
                                 env_xml ? env_xml : env_syn)
                   : strdup("this machine");
    } else {
        src = described_source(h, NULL, &text);
    }
    st = build(h, o.domains, src, text, out);
    hwloc_topology_destroy(h);
    return st;
}

nt_status nt_topo_from_hwloc(struct hwloc_topology *h, const nt_topo_opts_t *opts,
                             nt_topo_t **out)
{
    nt_topo_opts_t o = {0};
    if (opts)
        o = *opts;
    if (!h || !out)
        return nt_fail(NT_EINVAL, "nt_topo_from_hwloc: %s is NULL", h ? "out" : "topology");
    if (o.synthetic)
        return nt_fail(NT_EINVAL, "nt_topo_from_hwloc: opts->synthetic must be NULL (the "
                       "caller's topology is the description)");
    nt_status st = check_domains(o.domains, "nt_topo_from_hwloc");
    if (st)
        return st;
    nt_topo_source src;
    char *text;
    if (hwloc_topology_is_thissystem(h)) {
        src = NT_TOPO_FROM_THIS_MACHINE;
        text = strdup("this machine (the caller's hwloc topology)");
    } else {
        src = described_source(h, "the caller's hwloc topology", &text);
    }
    return build(h, o.domains, src, text, out);
}

nt_topo_kind nt_topo_get_kind(const nt_topo_t *t) { return t->kind; }
int nt_topo_ndomains(const nt_topo_t *t) { return t->ndomains; }
int nt_topo_nphysical(const nt_topo_t *t) { return t->nnodes; }
bool nt_topo_oversubscribed(const nt_topo_t *t) { return t->oversubscribed; }
nt_distance_source nt_topo_distance_source(const nt_topo_t *t) { return t->dist_source; }
nt_topo_source nt_topo_get_source(const nt_topo_t *t) { return t->source; }
const char *nt_topo_source_text(const nt_topo_t *t) { return t->source_text; }
unsigned nt_topo_limits(const nt_topo_t *t) { return t->limits; }
const char *nt_topo_omp_note(const nt_topo_t *t) { return t->omp_note; }

const int *nt_topo_cpus_left_out(const nt_topo_t *t, int *n)
{
    *n = t->nleft_cpus;
    return t->left_cpus;
}

const int *nt_topo_nodes_left_out(const nt_topo_t *t, int *n)
{
    *n = t->nleft_nodes;
    return t->left_nodes;
}

bool nt_topo_node_memory_allowed(const nt_topo_t *t, int node)
{
    for (int i = 0; i < t->nnodes; i++)
        if (t->nodes[i].os_index == node)
            return t->nodes[i].mem_allowed;
    return false;
}

const char *nt_topo_memory_limit_text(const nt_topo_t *t)
{
    unsigned m = t->limits & (NT_TOPO_LIMIT_CPUSET | NT_TOPO_LIMIT_MEMBIND);
    return m == (NT_TOPO_LIMIT_CPUSET | NT_TOPO_LIMIT_MEMBIND)
               ? "the cgroup cpuset and the process's memory binding"
           : m == NT_TOPO_LIMIT_MEMBIND ? "the process's memory binding (numactl --membind)"
                                        : "the cgroup cpuset's memory nodes";
}

const char *nt_topo_source_name(nt_topo_source s)
{
    switch (s) {
    case NT_TOPO_FROM_THIS_MACHINE: return "this-machine";
    case NT_TOPO_FROM_SYNTHETIC: return "synthetic";
    case NT_TOPO_FROM_XML: return "xml";
    case NT_TOPO_FROM_OTHER: return "other";
    }
    return "unknown";
}
const uint32_t *nt_topo_distances(const nt_topo_t *t) { return t ? t->dist : NULL; }
const uint32_t *nt_topo_cost_distances(const nt_topo_t *t) { return t ? t->cost : NULL; }
bool nt_topo_cost_from_bandwidth(const nt_topo_t *t) { return t->cost_bw; }
const nt_memattrs *nt_topo_memattrs(const nt_topo_t *t) { return &t->attrs; }
int nt_topo_domain_node_index(const nt_topo_t *t, int d) { return t->domains[d].node; }

const char *nt_topo_kind_name(nt_topo_kind k)
{
    switch (k) {
    case NT_TOPO_PHYSICAL: return "physical";
    case NT_TOPO_VIRTUAL: return "virtual";
    case NT_TOPO_SYNTHETIC: return "synthetic";
    }
    return "unknown";
}

const char *nt_topo_distance_source_name(nt_distance_source s)
{
    switch (s) {
    case NT_DISTANCE_HWLOC: return "hwloc";
    case NT_DISTANCE_LIBNUMA: return "libnuma";
    case NT_DISTANCE_HIERARCHY: return "hierarchy";
    case NT_DISTANCE_FLAT: return "flat";
    }
    return "unknown";
}

nt_status nt_topo_domain(const nt_topo_t *t, int d, nt_domain_info_t *info)
{
    if (!t || !info)
        return nt_fail(NT_EINVAL, "nt_topo_domain: %s is NULL", t ? "info" : "topo");
    if (d < 0 || d >= t->ndomains)
        return nt_fail(NT_EINVAL, "nt_topo_domain: domain %d out of range 0..%d", d,
                       t->ndomains - 1);
    const domain_desc *dd = &t->domains[d];
    info->id = d;
    info->node = t->nodes[dd->node].os_index;
    info->ncpus = dd->ncpus;
    info->cpus = dd->cpus;
    info->memory_bytes = dd->memory;
    return NT_OK;
}

nt_status nt_topo_cpu_domain(const nt_topo_t *t, int cpu, int *domain)
{
    if (!t || !domain)
        return nt_fail(NT_EINVAL, "nt_topo_cpu_domain: %s is NULL", t ? "domain" : "topo");
    for (int d = 0; d < t->ndomains; d++)
        for (int k = 0; k < t->domains[d].ncpus; k++)
            if (t->domains[d].cpus[k] == cpu) {
                *domain = d;
                return NT_OK;
            }
    return nt_fail(NT_ERANGE, "nt_topo_cpu_domain: cpu %d belongs to no domain", cpu);
}
