// libFuzzer harness, structure-aware: hwloc XML topology files (nt_topo_load with a path
// ending in ".xml"). The input drives a generator of well-formed hwloc 2 XML: 1..3 packages,
// each with 0..3 NUMA nodes (memory 0, small, huge; OS indices permuted) and 0..4 cores of 1..2
// PUs, so packages without cpus give memory-only nodes; optionally a NUMA latency matrix with
// any values (0, asymmetric, near 2^64). One more byte chooses the domain count (0..16).
// Checks: fuzz_topo_check.c.
//
// Raw bytes are not fed to hwloc: hwloc 2.9's XML readers themselves crash on malformed files
// (a NULL bitmap in hwloc_bitmap_or when an object lacks or garbles one of its sets; strspn on
// NULL in the built-in reader: tests/fuzz/hwloc-xml-crashes/, on which `numatile topo
// --synthetic FILE.xml` dies of SIGSEGV) and leak in the libxml2 plugin. What numatile does
// with what hwloc loads is the target here.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_topo_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct xbuf {
    char *s;
    size_t len, cap;
} xbuf;

static void put(xbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(xbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * b->cap + (size_t)n + 64;
        if (!(b->s = realloc(b->s, b->cap)))
            abort();
    }
}

// The four sets of an object, as hwloc 2 writes them (32-bit masks suffice here).
static void sets(xbuf *b, unsigned cpus, unsigned nodes)
{
    put(b, "cpuset=\"0x%08x\" complete_cpuset=\"0x%08x\" nodeset=\"0x%08x\" "
           "complete_nodeset=\"0x%08x\"", cpus, cpus, nodes, nodes);
}

typedef struct machine {
    int npack, nnuma[3], ncore[3], pus[3][4];
    int node_os[9];     // OS index of the k-th node, a permutation of 0..nodes-1
    uint64_t memory[9];
    int nodes, ncpus;
} machine;

static void make_machine(fuzz_in *in, machine *m)
{
    memset(m, 0, sizeof *m);
    m->npack = (int)fuzz_range(in, 1, 3);
    for (int p = 0; p < m->npack; p++) {
        m->nnuma[p] = (int)fuzz_range(in, 0, 3);
        m->ncore[p] = (int)fuzz_range(in, 0, 4);
        for (int c = 0; c < m->ncore[p]; c++)
            m->ncpus += m->pus[p][c] = (int)fuzz_range(in, 1, 2);
        m->nodes += m->nnuma[p];
    }
    static const uint64_t mem[] = {0, 4096, 1ull << 30, 1ull << 50};
    for (int k = 0; k < m->nodes; k++) {
        m->node_os[k] = k;
        m->memory[k] = mem[fuzz_range(in, 0, 3)];
    }
    for (int k = m->nodes - 1; k > 0; k--) { // Fisher-Yates from the input
        int r = (int)fuzz_range(in, 0, k), t = m->node_os[k];
        m->node_os[k] = m->node_os[r];
        m->node_os[r] = t;
    }
}

static void emit_package(xbuf *b, const machine *m, int p, int *cpu, int *node, int *gp)
{
    unsigned cpus = 0, nodes = 0;
    for (int c = 0, x = *cpu; c < m->ncore[p]; c++)
        for (int u = 0; u < m->pus[p][c]; u++)
            cpus |= 1u << x++;
    for (int k = *node; k < *node + m->nnuma[p]; k++)
        nodes |= 1u << m->node_os[k];
    put(b, "    <object type=\"Package\" os_index=\"%d\" ", p);
    sets(b, cpus, nodes);
    put(b, " gp_index=\"%d\">\n", (*gp)++);
    for (int k = 0; k < m->nnuma[p]; k++, (*node)++) {
        put(b, "      <object type=\"NUMANode\" os_index=\"%d\" ", m->node_os[*node]);
        sets(b, cpus, 1u << m->node_os[*node]);
        put(b, " gp_index=\"%d\" local_memory=\"%llu\"/>\n", (*gp)++,
            (unsigned long long)m->memory[*node]);
    }
    for (int c = 0; c < m->ncore[p]; c++) {
        unsigned core = 0;
        for (int u = 0; u < m->pus[p][c]; u++)
            core |= 1u << (*cpu + u);
        put(b, "      <object type=\"Core\" os_index=\"%d\" ", *cpu);
        sets(b, core, nodes);
        put(b, " gp_index=\"%d\">\n", (*gp)++);
        for (int u = 0; u < m->pus[p][c]; u++, (*cpu)++) {
            put(b, "        <object type=\"PU\" os_index=\"%d\" ", *cpu);
            sets(b, 1u << *cpu, nodes);
            put(b, " gp_index=\"%d\"/>\n", (*gp)++);
        }
        put(b, "      </object>\n");
    }
    put(b, "    </object>\n");
}

static void emit_distances(xbuf *b, fuzz_in *in, const machine *m)
{
    static const uint64_t special[] = {0, 1, 10, 1ull << 32, UINT64_MAX - 1};
    char idx[64] = "", vals[9 * 9 * 24] = "";
    size_t il = 0, vl = 0;
    for (int k = 0; k < m->nodes; k++)
        il += (size_t)snprintf(idx + il, sizeof idx - il, "%d ", k);
    for (int x = 0; x < m->nodes * m->nodes; x++) {
        uint64_t v = fuzz_byte(in) < 16 ? special[fuzz_range(in, 0, 4)]
                                        : (uint64_t)fuzz_range(in, 0, 255);
        vl += (size_t)snprintf(vals + vl, sizeof vals - vl, "%llu ", (unsigned long long)v);
    }
    put(b, "  <distances2 type=\"NUMANode\" nbobjs=\"%d\" kind=\"6\" name=\"NUMALatency\" "
           "indexing=\"os\">\n    <indexes length=\"%zu\">%s</indexes>\n"
           "    <u64values length=\"%zu\">%s</u64values>\n  </distances2>\n",
        m->nodes, il, idx, vl, vals);
}

static char *make_xml(fuzz_in *in, size_t *len)
{
    machine m;
    make_machine(in, &m);
    xbuf b = {malloc(4096), 0, 4096};
    if (!b.s)
        abort();
    unsigned all_cpus = m.ncpus ? (unsigned)((1ull << m.ncpus) - 1) : 0;
    unsigned all_nodes = m.nodes ? (unsigned)((1ull << m.nodes) - 1) : 0;
    put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM "
            "\"hwloc2.dtd\">\n<topology version=\"2.0\">\n  <object type=\"Machine\" "
            "os_index=\"0\" ");
    sets(&b, all_cpus, all_nodes);
    put(&b, " gp_index=\"1\">\n");
    int cpu = 0, node = 0, gp = 2;
    for (int p = 0; p < m.npack; p++)
        emit_package(&b, &m, p, &cpu, &node, &gp);
    put(&b, "  </object>\n");
    if (m.nodes > 0 && fuzz_byte(in) & 1)
        emit_distances(&b, in, &m);
    put(&b, "</topology>\n");
    *len = b.len;
    return b.s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    nt_topo_opts_t opts = {.domains = (int)fuzz_range(&in, 0, 16)};
    size_t len;
    char *xml = make_xml(&in, &len);
    opts.synthetic = fuzz_scratch_file("topo.xml", xml, len);
    FUZZ_CHECK(opts.synthetic, "cannot write the scratch file");
    fuzz_topo_load_and_check(&opts);
    free(xml);
    return 0;
}
