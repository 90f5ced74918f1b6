// What bounds the memory this process can still take, besides the nodes' free pages: the
// kernel's MemAvailable, the memory cgroup (v2, else v1) limit minus its use, and the
// address-space limit (RLIMIT_AS) minus what is already mapped. In containers and batch jobs
// the cgroup is the usual binding limit, and the node's meminfo knows nothing of it.
//
// NT_FSROOT (a test hook, like hwloc's HWLOC_FSROOT) prefixes every /proc and /sys path read
// here, so tests can describe a machine and a cgroup in a directory of their own.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "nt_core.h"
#include "nt_numa.h"

// Opens ROOT/path (ROOT = $NT_FSROOT, else nothing) for reading.
FILE *nt_numa_fs_open(const char *path)
{
    const char *root = getenv("NT_FSROOT");
    if (!root || !*root)
        return fopen(path, "r");
    char full[4096];
    if (snprintf(full, sizeof full, "%s%s", root, path) >= (int)sizeof full)
        return NULL;
    return fopen(full, "r");
}

// The first line of a file as a byte count: "max" (cgroup v2) and v1's page-rounded
// LONG_MAX mean no limit (UINT64_MAX); a missing or unreadable file also gives UINT64_MAX.
static uint64_t read_bytes(const char *path)
{
    FILE *f = nt_numa_fs_open(path);
    char line[64];
    uint64_t v = UINT64_MAX;
    if (f && fgets(line, sizeof line, f) && strncmp(line, "max", 3) != 0) {
        char *end;
        unsigned long long x = strtoull(line, &end, 10);
        if (end != line && x < (1ULL << 62))
            v = x;
    }
    if (f)
        fclose(f);
    return v;
}

// The value of "key" in a "key value [kB]" file (meminfo, status, memory.stat), in bytes
// (kB scaled); UINT64_MAX when absent.
uint64_t nt_numa_fs_field(const char *path, const char *key)
{
    FILE *f = nt_numa_fs_open(path);
    if (!f)
        return UINT64_MAX;
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0 || (line[kl] != ' ' && line[kl] != '\t'))
            continue;
        char *end;
        unsigned long long x = strtoull(line + kl, &end, 10);
        v = strstr(end, "kB") ? (uint64_t)x * 1024 : (uint64_t)x;
        break;
    }
    fclose(f);
    return v;
}

// This process's cgroup path in the hierarchy that has the memory controller: v2's "0::PATH"
// line when the v2 tree at /sys/fs/cgroup has memory.max files, else v1's "N:...memory...:PATH".
static bool cgroup_path(char *path, size_t cap, bool *v2)
{
    FILE *f = nt_numa_fs_open("/proc/self/cgroup");
    if (!f)
        return false;
    char line[1024], v1path[1024] = "", v2path[1024] = "";
    bool has_v1 = false, has_v2 = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = 0;
        if (!strcmp(line, "0") && !c1[1]) {
            snprintf(v2path, sizeof v2path, "%s", c2 + 1);
            has_v2 = true;
        }
        for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
            if (!strcmp(tok, "memory")) {
                snprintf(v1path, sizeof v1path, "%s", c2 + 1);
                has_v1 = true;
            }
    }
    fclose(f);
    FILE *ctl = nt_numa_fs_open("/sys/fs/cgroup/cgroup.controllers");
    bool v2mem = false;
    if (ctl) {
        char buf[512] = "";
        v2mem = fgets(buf, sizeof buf, ctl) && strstr(buf, "memory");
        fclose(ctl);
    }
    *v2 = has_v2 && v2mem;
    if (!*v2 && !has_v1)
        return false;
    snprintf(path, cap, "%s", *v2 ? v2path : v1path);
    return true;
}

// The least room (limit minus use, page cache that can be reclaimed not counted as use) over
// the cgroup and its ancestors, with the limit that gives it; UINT64_MAX when none is set.
static uint64_t cgroup_room(uint64_t *limit_out)
{
    char cg[1024];
    bool v2;
    *limit_out = UINT64_MAX;
    if (!cgroup_path(cg, sizeof cg, &v2))
        return UINT64_MAX;
    const char *base = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char *lim = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char *use = v2 ? "memory.current" : "memory.usage_in_bytes";
    const char *cache = v2 ? "inactive_file" : "total_inactive_file";
    uint64_t best = UINT64_MAX;
    for (;;) {
        char p[1400];
        snprintf(p, sizeof p, "%s%s/%s", base, cg, lim);
        uint64_t l = read_bytes(p);
        if (l != UINT64_MAX) {
            snprintf(p, sizeof p, "%s%s/%s", base, cg, use);
            uint64_t u = read_bytes(p);
            snprintf(p, sizeof p, "%s%s/memory.stat", base, cg);
            uint64_t c = nt_numa_fs_field(p, cache);
            u = u == UINT64_MAX ? 0 : u;
            u -= c != UINT64_MAX && c <= u ? c : 0;
            uint64_t room = l > u ? l - u : 0;
            if (room < best) {
                best = room;
                *limit_out = l;
            }
        }
        // Up to the parent: "/a/b" -> "/a" -> "/" -> done.
        char *slash = strrchr(cg, '/');
        if (!slash || (slash == cg && cg[1] == 0))
            break;
        if (slash == cg)
            cg[1] = 0;
        else
            *slash = 0;
    }
    return best;
}

static uint64_t as_room(uint64_t *limit_out)
{
    struct rlimit rl;
    *limit_out = UINT64_MAX;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    *limit_out = (uint64_t)rl.rlim_cur;
    uint64_t mapped = nt_numa_fs_field("/proc/self/status", "VmSize:");
    mapped = mapped == UINT64_MAX ? 0 : mapped;
    return *limit_out > mapped ? *limit_out - mapped : 0;
}

const char *nt_mem_limit_name(nt_mem_limit limit)
{
    switch (limit) {
    case NT_LIMIT_NONE: return "none";
    case NT_LIMIT_NODES: return "node free memory";
    case NT_LIMIT_MEMAVAILABLE: return "MemAvailable";
    case NT_LIMIT_CGROUP: return "cgroup memory limit";
    case NT_LIMIT_ADDRESS_SPACE: return "address-space limit (ulimit -v)";
    }
    return "unknown";
}

nt_status nt_mem_limits(nt_mem_limits_t *out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "nt_mem_limits: out is NULL");
    nt_mem_limits_t l = {0};
    l.nodes_free = 0;
    for (int n = 0; n < nt_numa_node_count() && l.nodes_free != UINT64_MAX; n++) {
        uint64_t r = nt_numa_node_room(n);
        l.nodes_free = r == UINT64_MAX || l.nodes_free > UINT64_MAX - r ? UINT64_MAX
                                                                          : l.nodes_free + r;
    }
    l.mem_available = nt_numa_fs_field("/proc/meminfo", "MemAvailable:");
    l.cgroup_room = cgroup_room(&l.cgroup_limit);
    l.address_space_room = as_room(&l.address_space_limit);
    const uint64_t rooms[4] = {l.nodes_free, l.mem_available, l.cgroup_room,
                               l.address_space_room};
    const nt_mem_limit names[4] = {NT_LIMIT_NODES, NT_LIMIT_MEMAVAILABLE, NT_LIMIT_CGROUP,
                                   NT_LIMIT_ADDRESS_SPACE};
    l.room = UINT64_MAX;
    l.binding = NT_LIMIT_NONE;
    for (int i = 0; i < 4; i++)
        if (rooms[i] < l.room) {
            l.room = rooms[i];
            l.binding = names[i];
        }
    *out = l;
    return NT_OK;
}
