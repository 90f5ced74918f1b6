// The cpus and memory nodes this process may use: the cgroup cpuset (hwloc's allowed sets), the
// process's cpu binding (taskset, a batch scheduler or an MPI launcher), the OpenMP places and the
// process's memory binding (numactl --membind). Domains are built from these sets only, so every
// binding made through a domain stays inside them by construction.
#include <numaif.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nt_core.h"
#include "nt_numa_allowed.h"

// Mode flags of get_mempolicy(2) (linux/mempolicy.h), absent from older numaif.h.
#ifndef MPOL_F_STATIC_NODES
#define MPOL_F_STATIC_NODES (1 << 15)
#endif
#ifndef MPOL_F_RELATIVE_NODES
#define MPOL_F_RELATIVE_NODES (1 << 14)
#endif

void nt_allowed_free(nt_allowed *a)
{
    hwloc_bitmap_free(a->cpus);
    hwloc_bitmap_free(a->nodes);
    a->cpus = a->nodes = NULL;
}

static void note(nt_allowed *a, const char *fmt, const char *v)
{
    size_t n = strlen(a->omp_note);
    if (n + 2 >= sizeof a->omp_note)
        return;
    if (n)
        a->omp_note[n++] = ' ';
    snprintf(a->omp_note + n, sizeof a->omp_note - n, fmt, v);
}

// libgomp binds the initial thread to the first place as soon as OMP_PLACES or OMP_PROC_BIND is
// set, so the thread's (and the process's) affinity no longer says which cpus the job owns; the
// places do, and libgomp has already intersected them with the affinity it started with.
static bool omp_places(hwloc_bitmap_t set)
{
    int np = omp_get_num_places();
    for (int p = 0; p < np; p++) {
        int n = omp_get_place_num_procs(p);
        int *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
        if (!ids)
            continue;
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < n; k++)
            hwloc_bitmap_set(set, (unsigned)ids[k]);
        free(ids);
    }
    return np > 0 && !hwloc_bitmap_iszero(set);
}

// cpus &= set, noting the limit when that leaves cpus out; an empty intersection is ignored
// (false) so a domain set is never emptied by an inconsistent source.
static bool restrict_to(hwloc_bitmap_t cpus, hwloc_const_bitmap_t set, unsigned bit,
                        unsigned *limits)
{
    hwloc_bitmap_t r = hwloc_bitmap_alloc();
    if (!r)
        return false;
    hwloc_bitmap_and(r, cpus, set);
    bool ok = !hwloc_bitmap_iszero(r);
    if (ok && !hwloc_bitmap_isequal(r, cpus)) {
        hwloc_bitmap_copy(cpus, r);
        *limits |= bit;
    }
    hwloc_bitmap_free(r);
    return ok;
}

static void cpu_limits(hwloc_topology_t h, nt_allowed *a)
{
    const char *pl = getenv("OMP_PLACES"), *pb = getenv("OMP_PROC_BIND");
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return;
    bool places = omp_places(set);
    if (places) {
        if (!restrict_to(a->cpus, set, NT_TOPO_LIMIT_OMP_PLACES, &a->limits))
            note(a, "OMP_PLACES=\"%s\" is not followed: its places hold none of the cpus this "
                 "process may use.", pl ? pl : "");
    } else {
        if (pl && *pl)
            note(a, "OMP_PLACES=\"%s\" is not followed: the OpenMP runtime made no places of it "
                 "(see its message); domains use the process's cpu binding.", pl);
        // hwloc's process binding: the union of the bindings of the process's threads.
        hwloc_bitmap_zero(set);
        if (hwloc_get_cpubind(h, set, HWLOC_CPUBIND_PROCESS) == 0)
            restrict_to(a->cpus, set, NT_TOPO_LIMIT_AFFINITY, &a->limits);
    }
    if (pb && *pb) {
        if (!strncasecmp(pb, "false", 5))
            note(a, "OMP_PROC_BIND=%s is not followed: numatile binds each of its threads to the "
                 "cpus of the domain it works for (placement depends on it).", pb);
        else
            note(a, "OMP_PROC_BIND=%s is not followed for numatile's own threads: each is bound "
                 "to all the cpus of the domain it works for (within OMP_PLACES when set), not "
                 "to one place.", pb);
    }
    hwloc_bitmap_free(set);
}

// Only MPOL_BIND restricts: preferred and interleaved policies still allow every node.
static void memory_limits(nt_allowed *a)
{
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {0};
    int mode = 0;
    if (get_mempolicy(&mode, mask, sizeof mask * 8, NULL, 0) != 0)
        return;
    mode &= ~(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
    if (mode != MPOL_BIND)
        return;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return;
    const size_t bits = 8 * sizeof(unsigned long);
    for (size_t n = 0; n < sizeof mask * 8; n++)
        if (mask[n / bits] >> (n % bits) & 1)
            hwloc_bitmap_set(set, (unsigned)n);
    restrict_to(a->nodes, set, NT_TOPO_LIMIT_MEMBIND, &a->limits);
    hwloc_bitmap_free(set);
}

nt_status nt_allowed_read(hwloc_topology_t h, bool this_system, nt_allowed *a)
{
    *a = (nt_allowed){0};
    a->cpus = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(h));
    a->nodes = hwloc_bitmap_dup(hwloc_topology_get_topology_nodeset(h));
    if (!a->cpus || !a->nodes) {
        nt_allowed_free(a);
        return nt_fail(NT_ENOMEM, "topology: out of memory for the allowed sets");
    }
    // A described machine has no process running on it: everything is allowed.
    if (!this_system)
        return NT_OK;
    restrict_to(a->cpus, hwloc_topology_get_allowed_cpuset(h), NT_TOPO_LIMIT_CPUSET, &a->limits);
    restrict_to(a->nodes, hwloc_topology_get_allowed_nodeset(h), NT_TOPO_LIMIT_CPUSET,
                &a->limits);
    cpu_limits(h, a);
    memory_limits(a);
    return NT_OK;
}
