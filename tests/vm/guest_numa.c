// Guest integration tests of the machine layer: run inside a QEMU guest with several NUMA nodes
// (tests/vm/run.sh). The expected shape comes from the environment that the guest's /init fills
// from the kernel command line (the same description QEMU was started with):
//   NT_SHAPE=name  NT_CPUS=0-1/2-3/-  NT_MEM=768/768/512  NT_DIST=0-1-20,0-2-30,1-2-25|none
//   NT_TOOL=/bin/numatile (optional)
// Every page placement is checked twice: through nt_mem_where() and by a move_pages(2) system
// call made here, without libnuma or numatile. Prints one line per check, then
// "guest: numa tests=T passed=P failed=F"; exit status 1 if a check failed.
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
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
    nt_distance_source src = nt_topo_distance_source(t);
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
    check(src == NT_DISTANCE_HWLOC || src == NT_DISTANCE_LIBNUMA,
          "topo: distance_source = %s (read from the machine)", nt_topo_distance_source_name(src));
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

// --- Restricted processes: taskset, a cpu + memory binding, a cgroup cpuset -----------------
//
// Each case runs in a child process that restricts itself first (the way taskset, numactl or a
// batch scheduler would restrict a job), then checks that numatile's domains are the allowed
// cpus and nodes, that every thread it runs stays on allowed cpus (sched_getcpu()) and every
// page it places lands on an allowed node (move_pages(2)). The child's check counts come back
// through shared memory.

typedef struct restriction {
    const char *name;
    bool cpu[MAXCPU];   // allowed cpus
    bool node[MAXN];    // nodes whose memory is allowed
    bool membind;       // set_mempolicy(MPOL_BIND, node[])
    bool cgroup;        // a cgroup v2 cpuset instead of affinity + memory policy
    unsigned limits;    // NT_TOPO_LIMIT_* bits the topology must report
} restriction;

static int list_text(const bool *set, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len + 8 < cap; i++)
        if (set[i])
            len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? "," : "", i);
    return (int)len;
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

// Move this process into a new cgroup v2 cpuset of r's cpus and nodes; false (with the reason
// printed) when the guest kernel cannot.
static bool enter_cgroup(const restriction *r)
{
    mkdir("/sys/fs/cgroup", 0755);
    mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL); // EBUSY when a case mounted it already
    char dir[128], path[192], cpus[256], mems[64], pid[32];
    snprintf(dir, sizeof dir, "/sys/fs/cgroup/nt_%d", (int)getpid());
    list_text(r->cpu, MAXCPU, cpus, sizeof cpus);
    list_text(r->node, MAXN, mems, sizeof mems);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    const char *step = "enable the cpuset controller";
    bool ok = write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset");
    if (ok && (step = "mkdir", mkdir(dir, 0755) != 0))
        ok = false;
    snprintf(path, sizeof path, "%s/cpuset.cpus", dir);
    if (ok && (step = "cpuset.cpus", !write_file(path, cpus)))
        ok = false;
    snprintf(path, sizeof path, "%s/cpuset.mems", dir);
    if (ok && (step = "cpuset.mems", !write_file(path, mems)))
        ok = false;
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (ok && (step = "cgroup.procs", !write_file(path, pid)))
        ok = false;
    if (!ok)
        printf("     %s: no cgroup v2 cpuset in this guest (%s: %s)\n", r->name, step,
               strerror(errno));
    return ok;
}

static bool apply(const restriction *r)
{
    if (r->cgroup)
        return enter_cgroup(r);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = 0; c < MAXCPU; c++)
        if (r->cpu[c])
            CPU_SET(c, &set);
    int rc = sched_setaffinity(0, sizeof set, &set);
    if (!check(rc == 0, "%s: sched_setaffinity: %s", r->name, rc ? strerror(errno) : "ok"))
        return false;
    if (!r->membind)
        return true;
    unsigned long mask = 0;
    for (int i = 0; i < MAXN; i++)
        mask |= (unsigned long)r->node[i] << i;
    rc = (int)syscall(SYS_set_mempolicy, 2 /* MPOL_BIND */, &mask, (unsigned long)MAXN + 1);
    return check(rc == 0, "%s: set_mempolicy(MPOL_BIND, 0x%lx): %s", r->name, mask,
                 rc ? strerror(errno) : "ok");
}

// move_pages(2) status of every page of [p, p+bytes): how many are on a node r allows.
static int64_t pages_allowed(const restriction *r, const void *p, size_t bytes)
{
    int64_t n = 0;
    for (int i = 0; i < MAXN; i++)
        if (r->node[i]) {
            int64_t k = pages_on(p, bytes, i);
            if (k < 0)
                return -1;
            n += k;
        }
    return n;
}

typedef struct rteam {
    const restriction *r;
    const nt_topo_t *t;
    int threads, off_cpu, seen_cpu;
    int64_t pages, pages_ok;
} rteam;

// A team thread: sched_getcpu() sampled while it works must be allowed, and its first-touched
// pages on an allowed node.
static nt_status rteam_body(int d, int rank, void *arg)
{
    (void)rank;
    rteam *x = arg;
    int off = 0, cpu = -1;
    void *p = NULL;
    int64_t ok = -1;
    for (int k = 0; k < 20; k++) {
        cpu = sched_getcpu();
        off += cpu < 0 || cpu >= MAXCPU || !x->r->cpu[cpu];
        sched_yield();
    }
    if (nt_mem_alloc(x->t, d, MIB, 0, &p) == NT_OK) {
        ok = pages_allowed(x->r, p, MIB);
        nt_mem_free(p, MIB);
    }
#pragma omp critical(guest_rteam)
    {
        x->threads++;
        x->off_cpu += off;
        x->seen_cpu = cpu;
        x->pages += (int64_t)(MIB / pgsz);
        x->pages_ok += ok;
    }
    return NT_OK;
}

static void rteam_check(const restriction *r, const nt_topo_t *t, const char *what)
{
    rteam x = {.r = r, .t = t};
    nt_status st = nt_team_run(t, 2, rteam_body, &x);
    if (!check(st == NT_OK, "%s: %s team: %s", r->name, what, st ? nt_last_error() : "ok"))
        return;
    check(x.threads > 0 && x.off_cpu == 0, "%s: %s team: %d threads, %d sched_getcpu samples "
          "off the allowed cpus", r->name, what, x.threads, x.off_cpu);
    check(x.pages_ok == x.pages, "%s: %s team: %lld of %lld first-touched pages on allowed "
          "nodes", r->name, what, (long long)x.pages_ok, (long long)x.pages);
}

// The domains of this machine under r: each node's allowed cpus, memory allowed or not, and the
// cpus and nodes left out listed.
static void rcheck_topology(const shape *s, const restriction *r, const nt_topo_t *t)
{
    check(nt_topo_ndomains(t) == s->nodes, "%s: %d domains (one per node, %d nodes)", r->name,
          nt_topo_ndomains(t), s->nodes);
    check((nt_topo_limits(t) & r->limits) == r->limits, "%s: limits 0x%x include 0x%x",
          r->name, nt_topo_limits(t), r->limits);
    for (int d = 0; d < nt_topo_ndomains(t) && d < s->nodes; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        int want = 0;
        bool same = true;
        for (int k = 0; k < s->ncpus[info.node]; k++)
            if (r->cpu[s->cpus[info.node][k]]) {
                same &= want < info.ncpus && info.cpus[want] == s->cpus[info.node][k];
                want++;
            }
        check(same && want == info.ncpus, "%s: domain %d (node %d) has the node's %d allowed "
              "cpus (has %d)", r->name, d, info.node, want, info.ncpus);
        check(nt_topo_node_memory_allowed(t, info.node) == r->node[info.node],
              "%s: node %d memory %s", r->name, info.node,
              r->node[info.node] ? "allowed" : "left out");
    }
    int n, want = 0;
    const int *left = nt_topo_cpus_left_out(t, &n);
    bool ok = true;
    for (int c = 0; c < s->total_cpus && c < MAXCPU; c++)
        if (!r->cpu[c]) {
            ok &= want < n && left[want] == c;
            want++;
        }
    check(ok && n == want, "%s: %d cpus listed as left out (want %d)", r->name, n, want);
    const int *lnodes = nt_topo_nodes_left_out(t, &n);
    want = 0;
    ok = true;
    for (int i = 0; i < s->nodes; i++)
        if (!r->node[i]) {
            ok &= want < n && lnodes[want] == i;
            want++;
        }
    check(ok && n == want, "%s: %d nodes listed as left out (want %d)", r->name, n, want);
}

static void rcheck_memory(const restriction *r, const nt_topo_t *t)
{
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        void *p = NULL;
        nt_status st = nt_mem_alloc(t, d, MIB, NT_MEM_STRICT, &p);
        if (!r->node[info.node]) {
            check(st == NT_EINVAL && strstr(nt_last_error(), "may not use"), "%s: domain %d "
                  "(node %d, left out) refuses memory: %s", r->name, d, info.node,
                  st ? nt_last_error() : "allocated!");
            if (st == NT_OK)
                nt_mem_free(p, MIB);
            continue;
        }
        if (!check(st == NT_OK, "%s: 1 MiB strict on domain %d: %s", r->name, d,
                   st ? nt_last_error() : "ok"))
            continue;
        int64_t on = pages_on(p, MIB, info.node);
        if (check(on == (int64_t)(MIB / pgsz), "%s: domain %d: move_pages finds %lld of %lld "
                  "pages on node %d", r->name, d, (long long)on, (long long)(MIB / pgsz),
                  info.node))
            verified[info.node] += on;
        nt_mem_free(p, MIB);
    }
}

// A redistribution between two maps of a virtual topology on the allowed nodes: every tile
// of the target, after the copy, on its domain's node (move_pages), and that node allowed.
static void rcheck_redist(const restriction *r, const nt_topo_t *t)
{
    int D = nt_topo_ndomains(t);
    bool nodes_ok = true;
    for (int d = 0; d < D && d < MAXN; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        node_of[d] = info.node;
        nodes_ok &= r->node[info.node] && info.ncpus > 0;
    }
    check(nodes_ok && D <= MAXN, "%s: virtual domains only on allowed nodes with cpus", r->name);
    char from[32], to[32];
    snprintf(from, sizeof from, "bc1d:%d", D);
    snprintf(to, sizeof to, "random:5");
    nt_matrix_shape_t sh = {300, 260, 32, 32, 8};
    nt_matrix_t *S = NULL, *T = NULL;
    nt_plan_t *plan = NULL;
    nt_status st = nt_matrix_create_spec(t, &sh, from, 0, NT_LAYOUT_TILE, 0, &S);
    if (st == NT_OK)
        st = nt_matrix_create_spec(t, &sh, to, D, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T);
    if (st == NT_OK)
        st = nt_plan_create(S, T, NULL, &(nt_plan_opts_t){0}, &plan);
    nt_exec_stats_t es;
    memset(&es, 0, sizeof es);
    if (st == NT_OK)
        st = nt_plan_execute(plan, S, T, &(nt_exec_opts_t){0}, &es);
    if (check(st == NT_OK, "%s: redistribution %s -> %s on %d domains: %s", r->name, from, to, D,
              st ? nt_last_error() : "ok")) {
        check(es.tasks > 0 && es.tasks_on_domain == es.tasks, "%s: %lld of %lld copy tasks ran "
              "on their domain's cpus", r->name, (long long)es.tasks_on_domain,
              (long long)es.tasks);
        oracle_res o = oracle_matrix(T);
        check(o.sys_ok && o.conflicts == 0 && o.on_node == o.pages, "%s: target: move_pages "
              "finds %lld of %lld pages on their tile's (allowed) node", r->name,
              (long long)o.on_node, (long long)o.pages);
    }
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// The tool under the same restriction (inherited by the child process): its probe threads
// stay on allowed cpus; a map with tiles on a left-out node is refused with exit 2.
static void rcheck_tool(const restriction *r, int nodes)
{
    const char *tool = getenv("NT_TOOL");
    if (!tool || access(tool, X_OK) != 0)
        return;
    static char out[65536];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s topo --probe 1 --json", tool);
    int rc = run_cmd(cmd, out, sizeof out);
    int samples = 0, off = 0;
    for (const char *p = out; (p = strstr(p, "\"cpus_ran\":[")) != NULL;) {
        p += strlen("\"cpus_ran\":[");
        for (int k = 0; k < 3; k++) {
            char *end;
            long c = strtol(p, &end, 10);
            samples++;
            off += c < 0 || c >= MAXCPU || !r->cpu[c];
            p = end + (*end == ',');
        }
    }
    check(rc == 0 && samples > 0 && off == 0, "%s: tool: topo --probe: %d of %d cpu samples "
          "off the allowed cpus (exit %d)", r->name, off, samples, rc);
    bool left_node = false;
    for (int i = 0; i < nodes; i++)
        left_node |= !r->node[i];
    if (!left_node)
        return;
    snprintf(cmd, sizeof cmd, "%s redist --m 128 --n 128 --from 32x32@bc1d:%d --to "
             "32x32@bc1d:1 2>&1", tool, nodes);
    rc = run_cmd(cmd, out, sizeof out);
    check(rc == 2 && strstr(out, "may not use"), "%s: tool: redist with tiles on a left-out "
          "node exits 2 (%d): %.200s", r->name, rc, out);
}

static void restricted_checks(const shape *s, const restriction *r)
{
    if (!apply(r))
        return;
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(NULL, &t);
    if (check(st == NT_OK, "%s: load: %s", r->name, st ? nt_last_error() : "ok")) {
        rcheck_topology(s, r, t);
        rcheck_memory(r, t);
        rteam_check(r, t, "physical");
        nt_topo_destroy(t);
    }
    // Virtual domains on the nodes that have allowed cpus: two per node, or one more than
    // the nodes when that is more (fewer domains than nodes is refused).
    int k = 0;
    for (int i = 0; i < s->nodes; i++) {
        bool any = false;
        for (int c = 0; c < s->ncpus[i]; c++)
            any |= r->cpu[s->cpus[i][c]];
        k += any && r->node[i];
    }
    int D = 2 * k > s->nodes ? 2 * k : s->nodes + 1;
    st = nt_topo_load(&(nt_topo_opts_t){.domains = D}, &t);
    if (check(st == NT_OK, "%s: load %d virtual domains: %s", r->name, D,
              st ? nt_last_error() : "ok")) {
        rteam_check(r, t, "virtual");
        rcheck_redist(r, t);
        nt_topo_destroy(t);
    }
    rcheck_tool(r, s->nodes);
}

// The three cases (taskset needs cpu 1; the node-2 cases need three nodes).
static int restriction_cases(const shape *s, restriction *cases)
{
    memset(cases, 0, 3 * sizeof *cases);
    // taskset -c 1: one cpu, every node's memory.
    cases[0].name = "taskset cpu 1";
    cases[0].cpu[1] = true;
    for (int i = 0; i < s->nodes; i++)
        cases[0].node[i] = true;
    cases[0].limits = NT_TOPO_LIMIT_AFFINITY;
    // Node 2 left out by the cpu binding and an MPOL_BIND memory policy (numactl
    // --cpunodebind and --membind of the other nodes), then by a cgroup cpuset.
    for (int k = 1; k < 3; k++) {
        restriction *r = &cases[k];
        r->name = k == 1 ? "affinity+membind without node 2" : "cgroup cpuset without node 2";
        r->membind = k == 1;
        r->cgroup = k == 2;
        for (int i = 0; i < s->nodes; i++) {
            r->node[i] = i != 2;
            for (int c = 0; c < s->ncpus[i]; c++)
                r->cpu[s->cpus[i][c]] = i != 2;
        }
        r->limits = k == 1 ? NT_TOPO_LIMIT_MEMBIND | (s->ncpus[2] ? NT_TOPO_LIMIT_AFFINITY : 0)
                           : NT_TOPO_LIMIT_CPUSET;
    }
    return s->nodes >= 3 ? 3 : 1;
}

// The child: `guest_numa --restricted K FILE` runs case K and writes its counts to FILE. A
// fresh program, not a fork: libgomp's thread pool does not survive fork().
static int restricted_child(const shape *s, int k, const char *file)
{
    restriction cases[3];
    pgsz = (size_t)sysconf(_SC_PAGESIZE);
    if (k < 0 || k >= restriction_cases(s, cases))
        return 2;
    restricted_checks(s, &cases[k]);
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fprintf(f, "%d %d", tests, passed);
    for (int i = 0; i < MAXN; i++)
        fprintf(f, " %lld", (long long)verified[i]);
    return fclose(f) == 0 ? 0 : 1;
}

static void test_restricted(const shape *s)
{
    restriction cases[3];
    int n = restriction_cases(s, cases);
    for (int k = 0; k < n; k++) {
        char file[64], arg[16];
        snprintf(file, sizeof file, "/tmp/nt_restricted_%d", k);
        snprintf(arg, sizeof arg, "%d", k);
        remove(file);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            execl("/proc/self/exe", "guest_numa", "--restricted", arg, file, (char *)NULL);
            _exit(127);
        }
        int ws, t = 0, p = 0;
        bool done = pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) &&
                    WEXITSTATUS(ws) == 0;
        FILE *f = done ? fopen(file, "r") : NULL;
        done = f && fscanf(f, "%d %d", &t, &p) == 2;
        for (int i = 0; done && i < MAXN; i++) {
            long long v = 0;
            if (fscanf(f, "%lld", &v) == 1)
                verified[i] += v;
        }
        if (f)
            fclose(f);
        if (!check(done, "%s: the child process finished and reported", cases[k].name))
            continue;
        tests += t;
        passed += p;
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    shape s;
    if (argc == 4 && !strcmp(argv[1], "--restricted"))
        return parse_shape(&s) ? restricted_child(&s, atoi(argv[2]), argv[3]) : 2;
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
    test_restricted(&s);

    guest_print_verified("guest_numa", s.nodes);
    return guest_summary("numa");
}
