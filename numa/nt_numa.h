// Internal interface of the machine layer (not installed).
#ifndef NUMATILE_NUMA_INTERNAL_H
#define NUMATILE_NUMA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "numatile/mem.h"
#include "numatile/topo.h"

// Allocation-failure injection for tests: after `n` more successful nt_mem_alloc() calls, every
// further call fails with NT_ENOMEM until re-armed. n < 0 disarms (the default).
void nt_mem_test_fail_after(int64_t n);

// nt_mem_room() for per-domain byte counts kept as size_t (n entries; labels beyond the topology's
// domains must be 0): the workspaces of the kernels check their slabs with it before allocating.
nt_status nt_mem_room_sizes(const nt_topo_t *t, const size_t *per_domain, int n, const char *who);

// Prefer node for the pages [p, p + len) of a mapping of nt_mem_alloc (page-aligned; mbind
// MPOL_PREFERRED): a LAPACK-layout array binds each range of pages to the node of its owners
// (lib/matrix/lapack.c). NT_ESYS when the kernel refuses; NT_OK without NUMA support.
nt_status nt_mem_prefer_node(void *p, size_t len, int node);

// Refuse an hwloc XML topology file past NT_TOPO_MAX_XML_BYTES, NT_TOPO_MAX_DOMAINS NUMA nodes
// or NT_TOPO_MAX_PUS processing units before hwloc loads it (NT_ERANGE; a file that cannot be
// opened is left to hwloc). xml_size.c, used by nt_topo_load().
nt_status nt_topo_xml_check_size(const char *path);

// numa/limits.c: /proc and /sys read under $NT_FSROOT when set (a test hook); a
// "key value [kB]" field in bytes (UINT64_MAX when absent); a node's free plus reclaimable
// memory (room.c; UINT64_MAX when unknown).
FILE *nt_numa_fs_open(const char *path);
uint64_t nt_numa_fs_field(const char *path, const char *key);
uint64_t nt_numa_node_room(int node);
// Only MemFree (libnuma's free count without node meminfo): what can be placed on a node at
// once without reclaiming, which tmpfs pages on the file lists would not give.
uint64_t nt_numa_node_free(int node);

// Refuse a synthetic description of pus processing units and numa nodes (the size check's
// estimates) that hwloc cannot build within NT_TOPO_MAX_LOAD_SECONDS (NT_ERANGE) or crashes
// on (NT_EINVAL), by building it in a child process first; small ones pass unprobed.
// synth_time.c, used by nt_topo_load().
nt_status nt_topo_synthetic_time_check(const char *desc, uint64_t pus, uint64_t numa);

// Largest OS node index + 1 known to the kernel (1 when libnuma reports no NUMA support).
int nt_numa_node_count(void);

// What left memory nodes out of a topology, in words, for error messages ("the cgroup cpuset",
// "the process's memory binding (numactl --membind)" or both).
const char *nt_topo_memory_limit_text(const nt_topo_t *t);

// numa/memattr.c: what hwloc says of every node's memory (subtypes, memory attributes), read
// once per load. Per node index (the topology's node array): kind, how it was decided, hwloc's
// subtype (or NULL), the nearest node with cpus (itself when it has cpus, -1 when
// none has); bw and lat are nnodes x nnodes, [initiator node * nnodes + target node], 0 when
// unknown; initiators are the nodes with cpus.
typedef struct nt_memattrs {
    int nnodes;
    nt_mem_kind *kind;
    const char **kind_from;
    char **subtype;
    int *init_node;
    uint64_t *bw, *lat;
    nt_attr_source source;
} nt_memattrs;

// Read them from a loaded hwloc topology; node index i is hwloc's NUMA node of logical index
// lg[i], has_cpus[i] says whether it has cpus the domains use, node_dist is the node distance
// matrix (for the nearest initiator).
nt_status nt_memattrs_read(struct hwloc_topology *h, int nnodes, const int *lg,
                           const bool *has_cpus, const uint32_t *node_dist, nt_memattrs *m);
void nt_memattrs_free(nt_memattrs *m);

// The cost distances of nt_topo_cost_distances() for D domains (dom_node: domain -> node
// index), from the bandwidths when every pair needed has one (*from_bw true), else a copy of
// dist. *out is allocated here.
nt_status nt_memattrs_cost(const nt_memattrs *m, const int *dom_node, int D,
                           const uint32_t *dist, uint32_t **out, bool *from_bw);

// topo.c's side: the topology's attributes, and a domain's node index.
const nt_memattrs *nt_topo_memattrs(const nt_topo_t *t);
int nt_topo_domain_node_index(const nt_topo_t *t, int domain);

#endif
