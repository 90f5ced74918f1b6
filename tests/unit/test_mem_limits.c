// The memory limits besides the nodes' free pages (numa/limits.c): MemAvailable, the memory
// cgroup (v1 and v2, ancestors included, reclaimable cache not counted as use) and the
// address space left under RLIMIT_AS. Described machines live in a fake /proc and /sys tree
// under $NT_FSROOT; a real cgroup is made where the machine lets the test make one.
#include <criterion/criterion.h>
#include <errno.h>
#include <numa.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "numatile.h"
#include "fsroot_util.h"
#include "tool_run.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

// A machine of 16 GiB free on node 0 and 8 GiB MemAvailable, no cgroup limit yet.
static void fake_machine(void)
{
    fsroot_machine("limits", 8);
}

Test(mem_limits, memavailable_binds_below_node_free)
{
    fake_machine();
    fsroot_put("/proc/self/cgroup", "0::/\n");
    nt_mem_limits_t l;
    cr_assert_eq(nt_mem_limits(&l), NT_OK);
    cr_assert_eq(l.nodes_free, 16 * GIB);
    cr_assert_eq(l.mem_available, 8 * GIB);
    cr_assert_eq(l.cgroup_room, UINT64_MAX);
    cr_assert_eq(l.binding, NT_LIMIT_MEMAVAILABLE);
    cr_assert_eq(l.room, 8 * GIB);
    cr_assert_eq(nt_mem_room(NULL, NULL, 7 * GIB, "t"), NT_OK);
    cr_assert_eq(nt_mem_room(NULL, NULL, 9 * GIB, "t"), NT_ENOSPACE);
    cr_assert_not_null(strstr(nt_last_error(), "MemAvailable leaves 8.0 GiB free"), "%s",
                       nt_last_error());
    fsroot_remove();
}

Test(mem_limits, cgroup_v1_limit_minus_use_without_cache)
{
    fake_machine();
    fsroot_put("/proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/batch/job7\n0::/\n");
    fsroot_put("/sys/fs/cgroup/memory/batch/job7/memory.limit_in_bytes", "1073741824\n");
    fsroot_put("/sys/fs/cgroup/memory/batch/job7/memory.usage_in_bytes", "536870912\n");
    fsroot_put("/sys/fs/cgroup/memory/batch/job7/memory.stat",
        "cache 268435456\ntotal_inactive_file 268435456\n");
    fsroot_put("/sys/fs/cgroup/memory/batch/memory.limit_in_bytes", "9223372036854771712\n");
    nt_mem_limits_t l;
    cr_assert_eq(nt_mem_limits(&l), NT_OK);
    cr_assert_eq(l.binding, NT_LIMIT_CGROUP);
    cr_assert_eq(l.cgroup_limit, GIB);
    cr_assert_eq(l.cgroup_room, 768 * MIB, "room %llu", (unsigned long long)l.cgroup_room);
    cr_assert_eq(l.room, 768 * MIB);
    cr_assert_eq(nt_mem_room(NULL, NULL, 700 * MIB, "t"), NT_OK);
    cr_assert_eq(nt_mem_room(NULL, NULL, GIB, "redist"), NT_ENOSPACE);
    cr_assert_not_null(strstr(nt_last_error(), "redist: needs 1.0 GiB, the cgroup memory limit "
                                               "(1.0 GiB) leaves 0.8 GiB free"),
                       "%s", nt_last_error());
    fsroot_remove();
}

Test(mem_limits, cgroup_v2_ancestor_limit_binds)
{
    fake_machine();
    fsroot_put("/proc/self/cgroup", "0::/user.slice/job\n");
    fsroot_put("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    fsroot_put("/sys/fs/cgroup/user.slice/job/memory.max", "max\n");
    fsroot_put("/sys/fs/cgroup/user.slice/job/memory.current", "104857600\n");
    fsroot_put("/sys/fs/cgroup/user.slice/memory.max", "2147483648\n");
    fsroot_put("/sys/fs/cgroup/user.slice/memory.current", "1073741824\n");
    fsroot_put("/sys/fs/cgroup/user.slice/memory.stat", "anon 536870912\ninactive_file 536870912\n");
    nt_mem_limits_t l;
    cr_assert_eq(nt_mem_limits(&l), NT_OK);
    cr_assert_eq(l.binding, NT_LIMIT_CGROUP);
    cr_assert_eq(l.cgroup_limit, 2 * GIB);
    cr_assert_eq(l.cgroup_room, 1536 * MIB);
    fsroot_remove();
}

Test(mem_limits, address_space_counts_what_is_mapped)
{
#ifdef __SANITIZE_ADDRESS__
    // ASan reserves terabytes of address space for its shadow: under a lowered RLIMIT_AS its
    // own allocator fails ("Failed to mmap"). The plain build runs this test.
    cr_skip("RLIMIT_AS cannot be lowered under AddressSanitizer");
#endif
    fake_machine();
    fsroot_put("/proc/self/cgroup", "0::/\n");
    // 6 GiB of address space, 100 MiB of it mapped (the fake VmSize): 5.9 GiB left, below
    // MemAvailable's 8.
    struct rlimit rl = {6 * GIB, 6 * GIB};
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
    nt_mem_limits_t l;
    cr_assert_eq(nt_mem_limits(&l), NT_OK);
    cr_assert_eq(l.binding, NT_LIMIT_ADDRESS_SPACE);
    cr_assert_eq(l.address_space_room, 6 * GIB - 100 * MIB);
    cr_assert_eq(nt_mem_room(NULL, NULL, 6 * GIB - 50 * MIB, "t"), NT_ENOSPACE);
    cr_assert_not_null(strstr(nt_last_error(), "address-space limit (ulimit -v) (6.0 GiB)"),
                       "%s", nt_last_error());
    fsroot_remove();
}

Test(mem_limits, tool_refuses_naming_the_cgroup)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    fake_machine();
    fsroot_put("/proc/self/cgroup", "4:memory:/job\n");
    fsroot_put("/sys/fs/cgroup/memory/job/memory.limit_in_bytes", "268435456\n");
    fsroot_put("/sys/fs/cgroup/memory/job/memory.usage_in_bytes", "0\n");
    // 2 x 8000^2 doubles = 0.95 GiB, far above the 256 MiB the cgroup allows.
    tool_result r = tool_run((const char *const[]){"redist", "--m", "8000", "--n", "8000",
                                                   "--from", "100@bc2d:1x1", "--to",
                                                   "200@bc2d:1x1", NULL});
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, "cgroup memory limit (0.2 GiB)"), "%s", r.err);
    tool_result_free(&r);
    fsroot_remove();
}

// A real cgroup (v1 here, v2 where it is the memory hierarchy), made below ours: a child
// process moved into it sees its limit bind. Skipped where the machine does not let the test
// make one (no permission, no writable hierarchy).
static bool real_cgroup(char *dir, size_t cap, bool *v2)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024], path[1024] = "";
    *v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        // v2: the "0::PATH" line; v1: the hierarchy whose controllers include memory.
        bool ours = *v2 ? !strcmp(line, "0") : strstr(c1 + 1, "memory") != NULL;
        if (ours)
            snprintf(path, sizeof path, "%s", c2 + 1);
    }
    if (f)
        fclose(f);
    if (!*path)
        return false;
    snprintf(dir, cap, "%s%s/nt_test_%d", *v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory",
             strcmp(path, "/") ? path : "", (int)getpid());
    return mkdir(dir, 0755) == 0;
}

static bool write_file(const char *dir, const char *name, const char *text)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

Test(mem_limits, real_cgroup_limit_binds)
{
    char dir[1100];
    bool v2;
    unsetenv("NT_FSROOT");
    if (!real_cgroup(dir, sizeof dir, &v2))
        cr_skip("cannot make a memory cgroup here (%s)", strerror(errno));
    if (!write_file(dir, v2 ? "memory.max" : "memory.limit_in_bytes", "268435456")) {
        rmdir(dir);
        cr_skip("cannot set the cgroup's memory limit");
    }
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        char me[32];
        snprintf(me, sizeof me, "%d", (int)getpid());
        if (!write_file(dir, "cgroup.procs", me))
            _exit(77);
        nt_mem_limits_t l;
        int bad = nt_mem_limits(&l) != NT_OK || l.binding != NT_LIMIT_CGROUP ||
                  l.cgroup_limit != 256 * MIB || l.cgroup_room > 256 * MIB ||
                  nt_mem_room(NULL, NULL, 512 * MIB, "t") != NT_ENOSPACE ||
                  !strstr(nt_last_error(), "cgroup memory limit");
        _exit(bad);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    rmdir(dir);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        cr_skip("cannot move a process into the cgroup");
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

// This project's VMs leave most of their memory out of node0/meminfo (6.9 of 24 GB): with one
// node, the machine's meminfo is the node's, and the room follows it.
Test(mem_limits, one_node_reads_the_machine_meminfo)
{
    fake_machine();
    fsroot_put("/proc/self/cgroup", "0::/\n");
    fsroot_put("/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 7340032 kB\n"
        "Node 0 MemFree: 1048576 kB\n");
    nt_mem_limits_t l;
    cr_assert_eq(nt_mem_limits(&l), NT_OK);
    // One node here (libnuma's count of the real machine): the machine's 16 GiB; else the
    // node files, as on any multi-node machine.
    bool one = numa_available() < 0 || numa_max_node() == 0;
    cr_assert_eq(l.nodes_free, one ? 16 * GIB : GIB, "nodes_free %llu",
                 (unsigned long long)l.nodes_free);
    fsroot_remove();
}
