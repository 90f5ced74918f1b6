// Guest integration tests of the machine layer: run inside a QEMU guest with several NUMA nodes
// (tests/vm/run.sh). The expected shape comes from the environment that the guest's /init fills
// from the kernel command line (the same description QEMU was started with):
//   NT_SHAPE=name  NT_CPUS=0-1/2-3/-  NT_MEM=768/768/512  NT_DIST=0-1-20,0-2-30,1-2-25|none
//   NT_TOOL=/bin/numatile (optional)
// Every page placement is checked twice: through nt_mem_where() and by a move_pages(2) system
// call made here, without libnuma or numatile. Prints one line per check, then
// "guest: numa tests=T passed=P failed=F"; exit status 1 if a check failed.
#include <sched.h>
#include <sys/wait.h>

#include "guest_common.h"

#define MAXCPU 64
#define MIB ((size_t)1 << 20)

typedef struct shape {
    const char *name;
    int nodes;
    int ncpus[MAXN];
    int cpus[MAXN][MAXCPU];
    int mem_mib[MAXN];
    uint32_t dist[MAXN][MAXN];
    int total_cpus;
} shape;

// --- The expected shape ---------------------------------------------------------------------

static bool parse_cpus(shape *s, const char *spec)
{
    char *buf = strdup(spec), *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (n == MAXN)
            break;
        if (strcmp(tok, "-") != 0) {
            int a, b;
            int got = sscanf(tok, "%d-%d", &a, &b);
            if (got == 1)
                b = a;
            if (got < 1 || a < 0 || b < a || b - a >= MAXCPU) {
                free(buf);
                return false;
            }
            for (int c = a; c <= b; c++)
                s->cpus[n][s->ncpus[n]++] = c;
            s->total_cpus += b - a + 1;
        }
        n++;
    }
    free(buf);
    s->nodes = n;
    return n > 0;
}

static bool parse_shape(shape *s)
{
    memset(s, 0, sizeof *s);
    const char *name = getenv("NT_SHAPE"), *cpus = getenv("NT_CPUS");
    const char *mem = getenv("NT_MEM"), *dist = getenv("NT_DIST");
    if (!name || !cpus || !mem || !dist || !parse_cpus(s, cpus))
        return false;
    s->name = name;
    const char *p = mem;
    for (int i = 0; i < s->nodes; i++) {
        char *end;
        s->mem_mib[i] = (int)strtol(p, &end, 10);
        if (end == p || s->mem_mib[i] <= 0)
            return false;
        p = *end ? end + 1 : end;
    }
    // Unlisted pairs: what the kernel reports without an ACPI SLIT.
    for (int i = 0; i < s->nodes; i++)
        for (int j = 0; j < s->nodes; j++)
            s->dist[i][j] = i == j ? 10 : 20;
    if (strcmp(dist, "none") != 0) {
        for (p = dist; *p;) {
            int a, b, v, used;
            if (sscanf(p, "%d-%d-%d%n", &a, &b, &v, &used) != 3 || a < 0 || b < 0 ||
                a >= s->nodes || b >= s->nodes)
                return false;
            s->dist[a][b] = s->dist[b][a] = (uint32_t)v;
            p += used;
            if (*p == ',')
                p++;
        }
    }
    return true;
}

static bool cpu_in(const int *cpus, int n, int cpu)
{
    for (int k = 0; k < n; k++)
        if (cpus[k] == cpu)
            return true;
    return false;
}

// Node of the shape that holds a cpu, or -1.
static int node_of_cpu(const shape *s, int cpu)
{
    for (int i = 0; i < s->nodes; i++)
        if (cpu_in(s->cpus[i], s->ncpus[i], cpu))
            return i;
    return -1;
}

// --- The oracle: ask the kernel directly where every page is ---------------------------------

static void fill(void *p, size_t bytes, uint64_t seed)
{
    uint64_t *w = p;
    for (size_t i = 0; i < bytes / sizeof *w; i++)
        w[i] = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
}

static bool intact(const void *p, size_t bytes, uint64_t seed)
{
    const uint64_t *w = p;
    for (size_t i = 0; i < bytes / sizeof *w; i++)
        if (w[i] != ((i + 1) * 0x9E3779B97F4A7C15ull ^ seed))
            return false;
    return true;
}

// --- Topology ---------------------------------------------------------------------------------

static void test_topology(const shape *s, const nt_topo_t *t)
{
    check(nt_topo_get_kind(t) == NT_TOPO_PHYSICAL, "topo: kind is physical");
    check(nt_topo_nphysical(t) == s->nodes, "topo: physical_nodes = %d (expected %d)",
          nt_topo_nphysical(t), s->nodes);
    int D = nt_topo_ndomains(t);
    if (!check(D == s->nodes, "topo: ndomains = %d (expected %d)", D, s->nodes))
        return;
    check(!nt_topo_oversubscribed(t), "topo: not oversubscribed");
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        if (!check(nt_topo_domain(t, d, &info) == NT_OK, "topo: domain %d info", d))
            continue;
        check(info.node == d, "topo: domain %d is on node %d", d, info.node);
        bool same = info.ncpus == s->ncpus[d];
        for (int k = 0; same && k < info.ncpus; k++)
            same = info.cpus[k] == s->cpus[d][k];
        check(same, "topo: domain %d has %d cpus as the shape says (%d)", d, info.ncpus,
              s->ncpus[d]);
        // The kernel keeps some of each node for itself; at least half must be visible.
        uint64_t want = (uint64_t)s->mem_mib[d] * MIB;
        check(info.memory_bytes <= want && info.memory_bytes >= want / 2,
              "topo: domain %d memory %llu MiB of the %d MiB given", d,
              (unsigned long long)(info.memory_bytes / MIB), s->mem_mib[d]);
        for (int k = 0; k < s->ncpus[d]; k++) {
            int got = -1;
            nt_status st = nt_topo_cpu_domain(t, s->cpus[d][k], &got);
            check(st == NT_OK && got == d, "topo: cpu %d belongs to domain %d", s->cpus[d][k],
                  got);
        }
    }
    const uint32_t *dm = nt_topo_distances(t);
    nt_dist_source src = nt_topo_distance_source(t);
    int bad = 0;
    for (int a = 0; a < D; a++) {
        printf("     distances row %d:", a);
        for (int b = 0; b < D; b++) {
            printf(" %u", dm[a * D + b]);
            bad += dm[a * D + b] != s->dist[a][b];
        }
        printf("   (expected:");
        for (int b = 0; b < D; b++)
            printf(" %u", s->dist[a][b]);
        printf(")\n");
    }
    check(bad == 0, "topo: distance matrix equals the shape's (%d entries differ)", bad);
    check(src == NT_DIST_HWLOC || src == NT_DIST_LIBNUMA,
          "topo: distance_source = %s (read from the machine)", nt_topo_dist_source_name(src));
}

// --- Allocation -------------------------------------------------------------------------------

static void test_alloc(const nt_topo_t *t)
{
    const size_t sizes[] = {(size_t)sysconf(_SC_PAGESIZE), MIB, 16 * MIB};
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t bytes = sizes[z];
            int64_t npages = (int64_t)(bytes / pg);
            void *p = NULL;
            nt_status st = nt_mem_alloc(t, d, bytes, NT_MEM_STRICT, &p);
            if (!check(st == NT_OK, "alloc: domain %d, %zu KiB strict: %s", d, bytes / 1024,
                       st ? nt_last_error() : "ok"))
                continue;
            fill(p, bytes, (uint64_t)d);
            nt_page_hist_t h;
            st = nt_mem_where(p, bytes, &h);
            check(st == NT_OK && h.pages == npages && h.per_node[info.node] == npages,
                  "alloc: domain %d, %zu KiB: nt_mem_where puts %lld of %lld pages on node %d",
                  d, bytes / 1024, st ? -1LL : (long long)h.per_node[info.node],
                  (long long)npages, info.node);
            int64_t on = pages_on(p, bytes, info.node);
            if (check(on == npages, "alloc: domain %d, %zu KiB: move_pages finds %lld of %lld "
                      "pages on node %d", d, bytes / 1024, (long long)on, (long long)npages,
                      info.node))
                verified[info.node] += on;
            check(intact(p, bytes, (uint64_t)d), "alloc: domain %d, %zu KiB: contents kept", d,
                  bytes / 1024);
            nt_mem_free(p, bytes);
        }
    }
}

// --- Migration --------------------------------------------------------------------------------

// Move a buffer to `node`, expecting every page to move; then again, expecting none to.
static void migrate_step(void *p, size_t bytes, int from, int node, uint64_t seed)
{
    int64_t npages = (int64_t)(bytes / (size_t)sysconf(_SC_PAGESIZE));
    nt_migrate_report_t r;
    nt_status st = nt_mem_migrate(p, bytes, node, &r);
    if (!check(st == NT_OK, "migrate: %zu KiB node %d -> %d: %s", bytes / 1024, from, node,
               st ? nt_last_error() : "ok"))
        return;
    check(r.pages == npages && r.moved == npages && r.already == 0 && r.failed == 0 &&
          r.absent == 0, "migrate: %zu KiB node %d -> %d: pages=%lld moved=%lld already=%lld "
          "failed=%lld (error %d) absent=%lld", bytes / 1024, from, node, (long long)r.pages,
          (long long)r.moved, (long long)r.already, (long long)r.failed, r.first_error,
          (long long)r.absent);
    int64_t on = pages_on(p, bytes, node);
    if (check(on == npages, "migrate: %zu KiB node %d -> %d: move_pages finds %lld of %lld "
              "pages on node %d", bytes / 1024, from, node, (long long)on, (long long)npages,
              node))
        verified[node] += on;
    check(intact(p, bytes, seed), "migrate: %zu KiB node %d -> %d: contents kept",
          bytes / 1024, from, node);
    st = nt_mem_migrate(p, bytes, node, &r);
    check(st == NT_OK && r.pages == npages && r.already == npages && r.moved == 0 &&
          r.failed == 0, "migrate: %zu KiB again to node %d: already=%lld moved=%lld", bytes / 1024,
          node, st ? -1LL : (long long)r.already, st ? -1LL : (long long)r.moved);
}

static void test_migrate(const nt_topo_t *t)
{
    int D = nt_topo_ndomains(t);
    // Every ordered pair of nodes, 1 MiB each.
    for (int a = 0; a < D; a++) {
        for (int b = 0; b < D; b++) {
            if (a == b)
                continue;
            void *p;
            if (!check(nt_mem_alloc(t, a, MIB, NT_MEM_STRICT, &p) == NT_OK,
                       "migrate: 1 MiB on node %d: %s", a, nt_last_error()))
                continue;
            uint64_t seed = (uint64_t)(a * MAXN + b);
            fill(p, MIB, seed);
            migrate_step(p, MIB, a, b, seed);
            nt_mem_free(p, MIB);
        }
    }
    // 16 MiB around all nodes: 0 -> 1 -> ... -> D-1 -> 0.
    if (D < 2)
        return;
    void *p;
    size_t big = 16 * MIB;
    if (!check(nt_mem_alloc(t, 0, big, NT_MEM_STRICT, &p) == NT_OK,
               "migrate: 16 MiB on node 0: %s", nt_last_error()))
        return;
    fill(p, big, 77);
    for (int k = 1; k <= D; k++)
        migrate_step(p, big, k - 1, k % D, 77);
    nt_mem_free(p, big);
}

// --- Binding ----------------------------------------------------------------------------------

// sched_getcpu() sampled a few times (with yields) never leaves the domain's cpus.
static bool runs_on(const nt_domain_info_t *info, int *seen)
{
    for (int k = 0; k < 50; k++) {
        *seen = sched_getcpu();
        if (!cpu_in(info->cpus, info->ncpus, *seen))
            return false;
        sched_yield();
    }
    return true;
}

static void test_bind(const shape *s, const nt_topo_t *t, const char *what)
{
    cpu_set_t saved;
    sched_getaffinity(0, sizeof saved, &saved);
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        nt_status st = nt_bind_domain(t, d);
        if (info.ncpus == 0) {
            check(st == NT_ENOTSUP, "bind %s: memory-only domain %d (node %d) gives %s", what,
                  d, info.node, nt_strerror(st));
            continue;
        }
        if (!check(st == NT_OK, "bind %s: domain %d: %s", what, d, st ? nt_last_error() : "ok"))
            continue;
        cpu_set_t now;
        bool exact = sched_getaffinity(0, sizeof now, &now) == 0 &&
                     CPU_COUNT(&now) == info.ncpus;
        for (int k = 0; exact && k < info.ncpus; k++)
            exact = CPU_ISSET(info.cpus[k], &now);
        check(exact, "bind %s: domain %d: affinity mask is exactly its %d cpus", what, d,
              info.ncpus);
        int cpu = -1;
        bool ok = runs_on(&info, &cpu);
        check(ok && node_of_cpu(s, cpu) == info.node, "bind %s: domain %d runs on cpu %d "
              "(node %d of the shape)", what, d, cpu, node_of_cpu(s, cpu));
    }
    sched_setaffinity(0, sizeof saved, &saved);
}

typedef struct team_rec {
    int calls[MAXN * 2][2];
    int cpu_bad[MAXN * 2][2];
    int64_t local[MAXN * 2][2];
    const nt_topo_t *t;
} team_rec;

// One team thread: where it runs, and where its first-touched (non-strict) pages land.
static nt_status team_body(int d, int rank, void *arg)
{
    team_rec *r = arg;
    if (d < 0 || d >= MAXN * 2 || rank < 0 || rank > 1)
        return NT_ERANGE;
    nt_domain_info_t info;
    nt_topo_domain(r->t, d, &info);
    int cpu;
    bool ok = runs_on(&info, &cpu);
    void *p;
    int64_t local = -1;
    if (nt_mem_alloc(r->t, d, MIB, 0, &p) == NT_OK) {
        local = pages_on(p, MIB, info.node);
        nt_mem_free(p, MIB);
    }
#pragma omp critical(guest_team)
    {
        r->calls[d][rank]++;
        r->cpu_bad[d][rank] += !ok;
        r->local[d][rank] = local;
    }
    return NT_OK;
}

static void test_team(const nt_topo_t *t, const char *what)
{
    int D = nt_topo_ndomains(t);
    if (D > MAXN * 2)
        return;
    team_rec r;
    memset(&r, 0, sizeof r);
    r.t = t;
    nt_status st = nt_team_run(t, 2, team_body, &r);
    if (!check(st == NT_OK, "team %s: nt_team_run, 2 threads per domain: %s", what,
               st ? nt_last_error() : "ok"))
        return;
    int64_t want = (int64_t)(MIB / (size_t)sysconf(_SC_PAGESIZE));
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (info.ncpus == 0) {
            check(r.calls[d][0] + r.calls[d][1] == 0, "team %s: memory-only domain %d gets no "
                  "thread", what, d);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            check(r.calls[d][k] == 1 && r.cpu_bad[d][k] == 0, "team %s: domain %d rank %d ran "
                  "once (%d) on the domain's cpus", what, d, k, r.calls[d][k]);
            check(r.local[d][k] == want, "team %s: domain %d rank %d: %lld of %lld first-touched "
                  "pages on node %d", what, d, k, (long long)r.local[d][k], (long long)want,
                  info.node);
        }
    }
}

// --- Virtual domains --------------------------------------------------------------------------

static void test_virtual(const shape *s)
{
    int cpu_nodes = 0;
    for (int i = 0; i < s->nodes; i++)
        cpu_nodes += s->ncpus[i] > 0;
    int D = 2 * cpu_nodes;
    nt_topo_opts_t o = {.domains = D};
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&o, &t);
    if (!check(st == NT_OK, "virtual: load %d domains: %s", D, st ? nt_last_error() : "ok"))
        return;
    check(nt_topo_get_kind(t) == NT_TOPO_VIRTUAL, "virtual: kind is %s",
          nt_topo_kind_name(nt_topo_get_kind(t)));
    check(nt_topo_nphysical(t) == s->nodes, "virtual: physical_nodes = %d",
          nt_topo_nphysical(t));
    if (!check(nt_topo_ndomains(t) == D, "virtual: ndomains = %d (expected %d)",
               nt_topo_ndomains(t), D)) {
        nt_topo_destroy(t);
        return;
    }
    check(nt_topo_oversubscribed(t) == (D > s->total_cpus), "virtual: oversubscribed = %d "
          "(%d domains, %d cpus)", nt_topo_oversubscribed(t), D, s->total_cpus);
    int per_node[MAXN] = {0};
    int owner[MAXCPU];
    for (int c = 0; c < MAXCPU; c++)
        owner[c] = -1;
    int shared = 0;
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        bool on_node = info.ncpus > 0 && info.node >= 0 && info.node < s->nodes;
        for (int k = 0; on_node && k < info.ncpus; k++) {
            on_node = node_of_cpu(s, info.cpus[k]) == info.node;
            if (info.cpus[k] < MAXCPU) {
                shared += owner[info.cpus[k]] >= 0;
                owner[info.cpus[k]] = d;
            }
        }
        check(on_node, "virtual: domain %d is on node %d and its %d cpus are that node's", d,
              info.node, info.ncpus);
        if (on_node)
            per_node[info.node]++;
    }
    for (int i = 0; i < s->nodes; i++)
        check(per_node[i] == (s->ncpus[i] > 0 ? 2 : 0), "virtual: node %d holds %d domains",
              i, per_node[i]);
    // Domains share cpus only when there are more domains than cpus.
    check((shared > 0) == (D > s->total_cpus), "virtual: %d cpus shared between domains",
          shared);
    const uint32_t *dm = nt_topo_distances(t);
    int bad = 0;
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) {
            nt_domain_info_t ia, ib;
            nt_topo_domain(t, a, &ia);
            nt_topo_domain(t, b, &ib);
            bad += dm[a * D + b] != s->dist[ia.node][ib.node];
        }
    check(bad == 0, "virtual: distances are the nodes' distances (%d entries differ)", bad);
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        void *p;
        st = nt_mem_alloc(t, d, MIB, NT_MEM_STRICT, &p);
        if (!check(st == NT_OK, "virtual: 1 MiB strict on domain %d: %s", d,
                   st ? nt_last_error() : "ok"))
            continue;
        int64_t want = (int64_t)(MIB / (size_t)sysconf(_SC_PAGESIZE));
        int64_t on = pages_on(p, MIB, info.node);
        if (check(on == want, "virtual: domain %d: move_pages finds %lld of %lld pages on node "
                  "%d", d, (long long)on, (long long)want, info.node))
            verified[info.node] += on;
        nt_mem_free(p, MIB);
    }
    test_bind(s, t, "virtual");
    test_team(t, "virtual");
    nt_topo_destroy(t);
}

// --- The tool ---------------------------------------------------------------------------------

// Output of a command (at most cap-1 bytes) and its exit status.
static int run_cmd(const char *cmd, char *out, size_t cap)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    int rc = pclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Value after "key": in a JSON text, found crudely (the first occurrence of the key).
static const char *json_value(const char *js, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(js, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t')
        p++;
    return p;
}

static long json_long(const char *js, const char *key)
{
    const char *v = json_value(js, key);
    return v ? strtol(v, NULL, 10) : -1;
}

static bool json_is(const char *js, const char *key, const char *want)
{
    const char *v = json_value(js, key);
    size_t n = strlen(want);
    return v && v[0] == '"' && strncmp(v + 1, want, n) == 0 && v[n + 1] == '"';
}

static void test_tool(const shape *s)
{
    const char *tool = getenv("NT_TOOL");
    if (!tool || access(tool, X_OK) != 0) {
        printf("     tool: not in the initramfs, not checked\n");
        return;
    }
    static char out[65536];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s topo --json", tool);
    int rc = run_cmd(cmd, out, sizeof out);
    check(rc == 0, "tool: '%s' exits 0 (%d)", cmd, rc);
    check(json_long(out, "physical_nodes") == s->nodes, "tool: physical_nodes = %ld",
          json_long(out, "physical_nodes"));
    // json_value finds a key's first occurrence: the envelope's "machine" (docs/json.md), which
    // describes the same topology as topo's own fields.
    check(json_is(out, "topology", "physical") && json_long(out, "domains") == s->nodes,
          "tool: topology physical, domains = %ld", json_long(out, "domains"));
    int D = 2 * s->nodes;
    snprintf(cmd, sizeof cmd, "%s topo --domains %d --json", tool, D);
    rc = run_cmd(cmd, out, sizeof out);
    check(rc == 0 && json_is(out, "topology", "virtual") && json_long(out, "domains") == D &&
          json_long(out, "physical_nodes") == s->nodes, "tool: '%s': topology virtual, "
          "physical_nodes = %ld, domains = %ld", cmd, json_long(out, "physical_nodes"),
          json_long(out, "domains"));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    shape s;
    if (!parse_shape(&s)) {
        check(false, "guest: NT_SHAPE, NT_CPUS, NT_MEM or NT_DIST missing or malformed");
        return guest_summary("numa");
    }
    printf("guest_numa: shape %s, %d nodes, %d cpus\n", s.name, s.nodes, s.total_cpus);
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(NULL, &t);
    if (check(st == NT_OK, "topo: load this machine: %s", st ? nt_last_error() : "ok")) {
        test_topology(&s, t);
        if (nt_topo_ndomains(t) == s.nodes) {
            test_alloc(t);
            test_migrate(t);
            test_bind(&s, t, "physical");
            test_team(t, "physical");
        }
        nt_topo_destroy(t);
    }
    test_virtual(&s);
    test_tool(&s);

    guest_print_verified("guest_numa", s.nodes);
    return guest_summary("numa");
}
