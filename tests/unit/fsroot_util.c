// See fsroot_util.h.
#include "fsroot_util.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[96];

void fsroot_put(const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    for (char *p = full + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(full, 0755);
            *p = '/';
        }
    FILE *f = fopen(full, "w");
    cr_assert_not_null(f, "%s: %s", full, strerror(errno));
    fputs(text, f);
    fclose(f);
}

void fsroot_machine(const char *tag, int mem_available_gib)
{
    snprintf(root, sizeof root, "/tmp/nt_fsroot_%s_%d", tag, (int)getpid());
    mkdir(root, 0755);
    fsroot_put("/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 33554432 kB\n"
               "Node 0 MemFree: 16777216 kB\nNode 0 Inactive(file): 0 kB\n"
               "Node 0 SReclaimable: 0 kB\n");
    char meminfo[160];
    snprintf(meminfo, sizeof meminfo, "MemTotal: 33554432 kB\nMemFree: 16777216 kB\n"
             "MemAvailable: %llu kB\n", (unsigned long long)mem_available_gib << 20);
    fsroot_put("/proc/meminfo", meminfo);
    fsroot_put("/proc/self/status", "Name: test\nVmSize: 102400 kB\n");
    setenv("NT_FSROOT", root, 1);
}

void fsroot_cgroup_machine(const char *tag)
{
    fsroot_machine(tag, 16);
    fsroot_put("/proc/self/cgroup", "4:memory:/job\n0::/\n");
    fsroot_put("/sys/fs/cgroup/memory/job/memory.limit_in_bytes", "1073741824\n");
    fsroot_put("/sys/fs/cgroup/memory/job/memory.usage_in_bytes", "268435456\n");
    fsroot_put("/sys/fs/cgroup/memory/job/memory.stat", "total_inactive_file 0\n");
}

void fsroot_remove(void)
{
    unsetenv("NT_FSROOT");
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    cr_assert_eq(system(cmd), 0);
}
