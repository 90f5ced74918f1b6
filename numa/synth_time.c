// Capping a synthetic description by the time hwloc takes to build it, not only by its counts:
// hwloc's cost is far from linear in them (measured here, hwloc 2.9: "numa:256 pu:16" 0.3 s,
// "numa:1024 pu:16" 15 s, "numa:16 pu:1024" 19 s, "numa:1 pu:8192" over 30 s, all 16384 PUs
// or fewer), so no count cap separates the fast from the slow. A large description is built
// once in a child process under an alarm: past NT_TOPO_MAX_LOAD_SECONDS the child is killed
// and the description refused; a child killed by another signal means hwloc crashes on it.
#include <hwloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nt_core.h"
#include "nt_numa.h"

// Descriptions this small build in well under a second whatever their shape.
#define PROBE_PUS 1024
#define PROBE_NUMA 256

nt_status nt_topo_synthetic_time_check(const char *desc, uint64_t pus, uint64_t numa)
{
    if (pus <= PROBE_PUS && numa <= PROBE_NUMA)
        return NT_OK;
    pid_t pid = fork();
    if (pid < 0)
        return NT_OK; // no probe possible: hwloc decides, as before
    if (pid == 0) {
        alarm(NT_TOPO_MAX_LOAD_SECONDS);
        hwloc_topology_t h;
        int ok = hwloc_topology_init(&h) == 0 && hwloc_topology_set_synthetic(h, desc) == 0 &&
                 hwloc_topology_load(h) == 0;
        _exit(ok ? 0 : 1); // no cleanup: the process ends here
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return nt_fail(NT_ERANGE, "synthetic: hwloc takes more than %d s to build \"%s\" "
                       "(%llu processing units, %llu NUMA nodes); the limit is %d s",
                       NT_TOPO_MAX_LOAD_SECONDS, desc, (unsigned long long)pus,
                       (unsigned long long)numa, NT_TOPO_MAX_LOAD_SECONDS);
    if (WIFSIGNALED(status))
        return nt_fail(NT_EINVAL, "synthetic: hwloc crashes building \"%s\" (signal %d)", desc,
                       WTERMSIG(status));
    return NT_OK; // built in time, or refused by hwloc: the real load reports it
}
