// The cpus and memory nodes the process may use (allowed.c), read once per topology load.
#ifndef NUMATILE_NUMA_ALLOWED_H
#define NUMATILE_NUMA_ALLOWED_H

#include <hwloc.h>
#include <stdbool.h>

#include "numatile/topo.h"

typedef struct nt_allowed {
    hwloc_bitmap_t cpus;  // OS cpu indices the domains may use
    hwloc_bitmap_t nodes; // OS node indices whose memory may be used
    unsigned limits;      // NT_TOPO_LIMIT_* bits: what left cpus or nodes out
    char omp_note[512];   // why OMP_PLACES / OMP_PROC_BIND are not followed; "" when they are
} nt_allowed;

// Read the allowed sets of a loaded topology. For a described machine (this_system false)
// everything it has is allowed and nothing is read from the process.
nt_status nt_allowed_read(hwloc_topology_t h, bool this_system, nt_allowed *a);
void nt_allowed_free(nt_allowed *a);

#endif
