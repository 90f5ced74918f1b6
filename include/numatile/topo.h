/**
 * \file numatile/topo.h
 * \brief The machine: NUMA domains (physical, virtual or synthetic), their cpus, memory and
 *        distances, and binding threads to them.
 *
 * A topology is an opaque, immutable handle: load it once, share it read-only between threads,
 * destroy it last. Errors follow numatile/error.h.
 *
 * Threads: nt_topo_load() may run in several threads at once; a loaded topology is read-only
 * and every query may be called concurrently. nt_team_run() may be called from several threads
 * (each gets its own team); inside an OpenMP parallel region of the caller it needs nested
 * parallelism (omp_set_max_active_levels() >= 2), else it fails with ::NT_ESYS.
 */
#ifndef NUMATILE_TOPO_H
#define NUMATILE_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

/** \brief Most domains a topology may have (--domains, and the NUMA nodes of a description). */
#define NT_TOPO_MAX_DOMAINS 4096
/** \brief Most processing units a synthetic description or XML topology may have. */
#define NT_TOPO_MAX_PUS 65536
/** \brief Largest hwloc XML topology file read, in bytes (64 MiB). */
#define NT_TOPO_MAX_XML_BYTES (64 << 20)
/** \brief Most seconds hwloc may take to build a synthetic description: a description past
 *         it is refused (NT_ERANGE), whatever its counts. */
#define NT_TOPO_MAX_LOAD_SECONDS 5

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Opaque topology handle. */
typedef struct nt_topo nt_topo_t;

/** \brief What the domains of a topology are. */
typedef enum nt_topo_kind {
    NT_TOPO_PHYSICAL = 0,  /**< one domain per NUMA node of this machine */
    NT_TOPO_VIRTUAL = 1,   /**< this machine's cores split into more domains than it has nodes */
    NT_TOPO_SYNTHETIC = 2  /**< a described machine, for planning only (no memory, no binding) */
} nt_topo_kind;

/** \brief Where the distance matrix came from ("dist" alone means a distribution). */
typedef enum nt_distance_source {
    NT_DISTANCE_HWLOC = 0,     /**< hwloc's NUMA latency matrix (ACPI SLIT on real machines) */
    NT_DISTANCE_LIBNUMA = 1,   /**< libnuma's numa_distance() */
    NT_DISTANCE_HIERARCHY = 2, /**< derived from the object tree of a synthetic description: 10
                                    for a node to itself, 10 + 10 x levels to the common
                                    ancestor */
    NT_DISTANCE_FLAT = 3,      /**< nothing known: 10 on the diagonal, 20 elsewhere */
    NT_DIST_HWLOC = NT_DISTANCE_HWLOC,         /**< old name, kept one release (NEWS.md) */
    NT_DIST_LIBNUMA = NT_DISTANCE_LIBNUMA,     /**< old name, kept one release (NEWS.md) */
    NT_DIST_HIERARCHY = NT_DISTANCE_HIERARCHY, /**< old name, kept one release (NEWS.md) */
    NT_DIST_FLAT = NT_DISTANCE_FLAT            /**< old name, kept one release (NEWS.md) */
} nt_distance_source;

/** \brief Old name of ::nt_distance_source, kept one release (NEWS.md). */
typedef nt_distance_source nt_dist_source;

/** \brief Options for nt_topo_load(). Zero-initialise, then set what you need. */
typedef struct nt_topo_opts {
    /** Number of domains wanted; 0 = one per physical NUMA node. Larger than the number of
        nodes with cpus gives a virtual topology; more domains than cores is allowed (domains
        then share cpus and the topology reports itself oversubscribed). */
    int domains;
    /** NULL for this machine; otherwise an hwloc synthetic description such as
        "pack:4 numa:2 core:8 pu:1", or the path of an hwloc XML file (ending in ".xml"). */
    const char *synthetic;
} nt_topo_opts_t;

/** \brief Where a topology's description came from (nt_topo_get_source()). */
typedef enum nt_topo_source {
    NT_TOPO_FROM_THIS_MACHINE = 0, /**< hwloc read the machine this process runs on */
    NT_TOPO_FROM_SYNTHETIC = 1,    /**< an hwloc synthetic description (nt_topo_opts_t.synthetic
                                        or HWLOC_SYNTHETIC in the environment) */
    NT_TOPO_FROM_XML = 2,          /**< an hwloc XML file (nt_topo_opts_t.synthetic or
                                        HWLOC_XMLFILE in the environment) */
    NT_TOPO_FROM_OTHER = 3         /**< another hwloc source that is not this machine (e.g.
                                        HWLOC_FSROOT, or a caller's topology built so) */
} nt_topo_source;

/** \name What left cpus or memory nodes out of the domains (bits of nt_topo_limits())
 *  @{ */
/** the cgroup cpuset the process runs in (hwloc's allowed cpuset and nodeset) */
#define NT_TOPO_LIMIT_CPUSET 1u
/** the process's cpu binding (taskset, sched_setaffinity, a launcher's binding) */
#define NT_TOPO_LIMIT_AFFINITY 2u
/** the OpenMP places (OMP_PLACES, as the OpenMP runtime made them) */
#define NT_TOPO_LIMIT_OMP_PLACES 4u
/** the process's memory binding (numactl --membind, set_mempolicy(MPOL_BIND)) */
#define NT_TOPO_LIMIT_MEMBIND 8u
/** @} */

/** \brief One domain, as returned by nt_topo_domain(). Pointers are owned by the topology. */
typedef struct nt_domain_info {
    int id;                /**< domain index, 0..ndomains-1 */
    int node;              /**< OS index of the NUMA node holding this domain's memory */
    int ncpus;             /**< number of cpus (PUs) this domain's threads may run on: those of
                                the node that the process may use (nt_topo_limits()); 0 for a
                                memory-only node or a node none of whose cpus are allowed */
    const int *cpus;       /**< OS indices of those cpus, ascending */
    uint64_t memory_bytes; /**< memory of the node; for virtual domains, the node's memory
                                divided by the domains sharing it */
} nt_domain_info_t;

/**
 * \brief Discover a topology.
 *
 * On this machine, domains are built from the cpus and memory nodes the process may use: the
 * cgroup cpuset (hwloc's allowed sets), the process's cpu binding, or the OpenMP places when the
 * OpenMP runtime made some (OMP_PLACES or OMP_PROC_BIND set: the runtime then binds the initial
 * thread to one place, so the places tell the job's cpus), and a MPOL_BIND memory policy. Every
 * NUMA node still gives a domain; one whose cpus are all left out is memory-only, one whose
 * memory is left out refuses allocations (nt_topo_node_memory_allowed()).
 *
 * hwloc's environment is honoured as hwloc documents it: with opts->synthetic NULL,
 * HWLOC_SYNTHETIC or HWLOC_XMLFILE describe the machine (sized as opts->synthetic would be), and
 * unless HWLOC_THISSYSTEM=1 says the description is this machine, the topology is a synthetic
 * one (planning only), its source given by nt_topo_get_source(). An opts->synthetic description
 * takes precedence over the environment, as hwloc_topology_set_synthetic() does.
 * @param[in]  opts options, or NULL for one physical domain per NUMA node of this machine.
 * @param[out] out  the new topology, to free with nt_topo_destroy(); untouched on failure.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  out is NULL, domains < 0, a malformed synthetic description (also in
 *                    HWLOC_SYNTHETIC / HWLOC_XMLFILE, which hwloc would silently ignore), or
 *                    fewer domains than NUMA nodes (merging nodes is not supported).
 * @retval NT_ERANGE  more than ::NT_TOPO_MAX_DOMAINS domains, or a synthetic description or
 *                    XML file of more than ::NT_TOPO_MAX_DOMAINS NUMA nodes or ::NT_TOPO_MAX_PUS
 *                    processing units (refused before hwloc builds it), or an XML file larger
 *                    than ::NT_TOPO_MAX_XML_BYTES.
 * @retval NT_ENOMEM  allocation failed.
 * @retval NT_ESYS    hwloc could not read this machine.
 */
nt_status nt_topo_load(const nt_topo_opts_t *opts, nt_topo_t **out);

/** \brief hwloc's topology handle (declared here so that this header needs no hwloc.h; it is
 *         the structure behind hwloc_topology_t). */
struct hwloc_topology;

/**
 * \brief Build a topology from an hwloc topology the caller already holds.
 *
 * The same domains as nt_topo_load() would build from that topology: on this machine
 * (hwloc_topology_is_thissystem() true) restricted to what the process may use, otherwise a
 * synthetic topology for planning only. Objects the caller's topology has filtered out (its
 * allowed sets, HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING, hwloc_topology_restrict()) are absent
 * from the domains too.
 *
 * Ownership: numatile only reads the caller's topology during the call and keeps nothing of it
 * (the domains, cpus and distances are copied); it neither modifies nor destroys it, and it
 * does not duplicate it. The caller may destroy it as soon as the call returns. Reading the same
 * hwloc topology from several threads at once is safe as hwloc documents it for read-only use.
 * @param[in]  topology a loaded hwloc topology (hwloc_topology_t), not NULL.
 * @param[in]  opts     options, or NULL; opts->synthetic must be NULL (the caller's topology
 *                      is the description); opts->domains as for nt_topo_load().
 * @param[out] out      the new topology, to free with nt_topo_destroy(); untouched on failure.
 * @retval NT_OK      success.
 * @retval NT_EINVAL  topology or out NULL, opts->synthetic set, domains < 0 or fewer domains
 *                    than NUMA nodes.
 * @retval NT_ERANGE  more than ::NT_TOPO_MAX_DOMAINS domains or nodes, more than
 *                    ::NT_TOPO_MAX_PUS processing units.
 * @retval NT_ENOMEM  allocation failed.
 * @retval NT_ESYS    the hwloc topology has no NUMA node or no processing unit.
 */
nt_status nt_topo_from_hwloc(struct hwloc_topology *topology, const nt_topo_opts_t *opts,
                             nt_topo_t **out);

/**
 * \brief Where the topology's description came from.
 * @param[in] topo a loaded topology (not NULL).
 * @return ::NT_TOPO_FROM_THIS_MACHINE for physical and virtual topologies, else the kind of
 *         description of a synthetic one.
 */
nt_topo_source nt_topo_get_source(const nt_topo_t *topo);

/**
 * \brief Name of a topology source, as printed by the tool.
 * @param[in] src any value.
 * @return "this-machine", "synthetic", "xml" or "other" ("unknown" for other values); a static
 *         string, never NULL.
 */
const char *nt_topo_source_name(nt_topo_source src);

/**
 * \brief The description a topology was read from, in words, e.g. "HWLOC_SYNTHETIC=\"pack:2
 *        numa:2 core:1 pu:1\" in the environment" or "this machine".
 * @param[in] topo a loaded topology (not NULL).
 * @return a string owned by the topology (valid until nt_topo_destroy()), never NULL.
 */
const char *nt_topo_source_text(const nt_topo_t *topo);

/**
 * \brief What left cpus or memory nodes of this machine out of the domains.
 * @param[in] topo a loaded topology (not NULL).
 * @return a mask of NT_TOPO_LIMIT_* bits; 0 when the process may use the whole machine, and
 *         always 0 for a synthetic topology.
 */
unsigned nt_topo_limits(const nt_topo_t *topo);

/**
 * \brief The cpus of the machine that the process may not use, left out of every domain.
 * @param[in]  topo a loaded topology (not NULL).
 * @param[out] n    the number of cpus listed; not NULL.
 * @return their OS indices, ascending, owned by the topology (valid until nt_topo_destroy());
 *         NULL when *n is 0.
 */
const int *nt_topo_cpus_left_out(const nt_topo_t *topo, int *n);

/**
 * \brief The NUMA nodes whose memory the process may not use.
 * @param[in]  topo a loaded topology (not NULL).
 * @param[out] n    the number of nodes listed; not NULL.
 * @return their OS indices, ascending, owned by the topology; NULL when *n is 0.
 */
const int *nt_topo_nodes_left_out(const nt_topo_t *topo, int *n);

/**
 * \brief Whether the process may place memory on a NUMA node.
 * @param[in] topo a loaded topology (not NULL).
 * @param[in] node OS index of the node (nt_domain_info_t.node).
 * @return true for a node of the topology whose memory is allowed (every node of a synthetic
 *         topology); false otherwise. nt_mem_alloc() refuses the others with ::NT_EINVAL.
 */
bool nt_topo_node_memory_allowed(const nt_topo_t *topo, int node);

/**
 * \brief Why numatile does not follow OMP_PLACES or OMP_PROC_BIND, in one or two sentences,
 *        for a tool to print once at start; the library itself never prints.
 * @param[in] topo a loaded topology (not NULL).
 * @return a string owned by the topology, or NULL when there is nothing to say (neither is set,
 *         or OMP_PLACES is set and followed: domains keep only the cpus of its places).
 */
const char *nt_topo_omp_note(const nt_topo_t *topo);

/**
 * \brief Free a topology and everything it owns (domain cpu lists, distances).
 * @param[in] topo the topology, or NULL (then nothing happens). Every pointer obtained from it
 *                 (nt_topo_domain(), nt_topo_distances()) becomes invalid.
 */
void nt_topo_destroy(nt_topo_t *topo);

/**
 * \brief Kind of the topology.
 * @param[in] topo a loaded topology (not NULL).
 * @return ::NT_TOPO_PHYSICAL, ::NT_TOPO_VIRTUAL or ::NT_TOPO_SYNTHETIC.
 */
nt_topo_kind nt_topo_get_kind(const nt_topo_t *topo);

/**
 * \brief Name of a topology kind, as printed by the tool.
 * @param[in] kind any value.
 * @return "physical", "virtual" or "synthetic" ("unknown" for other values); a static string,
 *         never NULL.
 */
const char *nt_topo_kind_name(nt_topo_kind kind);

/**
 * \brief Name of a distance source, as printed by the tool.
 * @param[in] src any value.
 * @return "hwloc", "libnuma", "hierarchy" or "flat" ("unknown" for other values); a static
 *         string, never NULL.
 */
const char *nt_topo_distance_source_name(nt_distance_source src);

/** \brief Old name of nt_topo_distance_source_name(), kept one release (NEWS.md).
 * @param[in] src as there. @return as there. */
NT_DEPRECATED("use nt_topo_distance_source_name")
const char *nt_topo_dist_source_name(nt_distance_source src);

/**
 * \brief Number of domains.
 * @param[in] topo a loaded topology (not NULL).
 * @return the number of domains, >= 1.
 */
int nt_topo_ndomains(const nt_topo_t *topo);

/**
 * \brief Number of NUMA nodes of the underlying (physical or described) machine.
 * @param[in] topo a loaded topology (not NULL).
 * @return the node count, >= 1; smaller than nt_topo_ndomains() for a virtual topology.
 */
int nt_topo_nphysical(const nt_topo_t *topo);

/**
 * \brief Whether domains share cpus (more virtual domains than cores).
 * @param[in] topo a loaded topology (not NULL).
 * @return true when at least two domains share a cpu.
 */
bool nt_topo_oversubscribed(const nt_topo_t *topo);

/**
 * \brief Where the distances came from.
 * @param[in] topo a loaded topology (not NULL).
 * @return the source of nt_topo_distances().
 */
nt_distance_source nt_topo_distance_source(const nt_topo_t *topo);

/**
 * \brief Describe one domain.
 * @param[in]  topo   a loaded topology.
 * @param[in]  domain 0..ndomains-1.
 * @param[out] info   filled on success; its pointers stay valid until nt_topo_destroy().
 * @retval NT_EINVAL topo or info NULL, or domain out of range.
 */
nt_status nt_topo_domain(const nt_topo_t *topo, int domain, nt_domain_info_t *info);

/**
 * \brief The domain-to-domain distance matrix, row-major ndomains x ndomains, owned by the
 *        topology. Two domains on the same node are at the node's local distance.
 * @param[in] topo a loaded topology, or NULL.
 * @return the matrix (valid until nt_topo_destroy()), or NULL if topo is NULL.
 */
const uint32_t *nt_topo_distances(const nt_topo_t *topo);

/**
 * \brief The first domain whose cpu set contains an OS cpu index.
 * @param[in]  topo   a loaded topology.
 * @param[in]  cpu    OS cpu index (e.g. from sched_getcpu()).
 * @param[out] domain the domain; untouched on failure.
 * @retval NT_EINVAL topo or domain NULL.
 * @retval NT_ERANGE no domain holds that cpu.
 */
nt_status nt_topo_cpu_domain(const nt_topo_t *topo, int cpu, int *domain);

/**
 * \brief Bind the calling thread to the cpus of a domain (sched_setaffinity).
 * @param[in] topo   a physical or virtual topology.
 * @param[in] domain 0..ndomains-1.
 * @retval NT_EINVAL  topo NULL or domain out of range.
 * @retval NT_ENOTSUP synthetic topology, or a domain without cpus.
 * @retval NT_ESYS    the kernel refused the affinity mask.
 */
nt_status nt_bind_domain(const nt_topo_t *topo, int domain);

/**
 * \brief Work run by every thread of a team; see nt_team_run().
 * @param domain the domain this thread is bound to.
 * @param rank   the thread's rank inside its domain, 0..threads_per_domain-1.
 * @param arg    the caller's pointer.
 * @return NT_OK, or an error that nt_team_run() returns (the first one wins).
 */
typedef nt_status (*nt_team_fn)(int domain, int rank, void *arg);

/**
 * \brief Run fn on an OpenMP team of ndomains x threads_per_domain threads, thread t bound to
 *        domain t / threads_per_domain for the call, its previous affinity restored afterwards.
 *        Domains without cpus get no threads.
 * @param[in] topo               a physical or virtual topology.
 * @param[in] threads_per_domain >= 1.
 * @param[in] fn                 the work; not NULL.
 * @param[in] arg                passed to fn.
 * @retval NT_OK      every call returned NT_OK.
 * @retval NT_EINVAL  topo or fn NULL, threads_per_domain < 1.
 * @retval NT_ENOTSUP synthetic topology.
 * @retval other      the first error returned by fn or by binding.
 */
nt_status nt_team_run(const nt_topo_t *topo, int threads_per_domain, nt_team_fn fn, void *arg);

/** \name Memory kinds and attributes (hwloc's subtypes and memory attributes, ACPI HMAT)
 *  @{ */

/** \brief What a domain's memory is. */
typedef enum nt_mem_kind {
    NT_MEMKIND_DRAM = 0,    /**< ordinary memory: no subtype (or "DRAM") and nothing says
                                 otherwise */
    NT_MEMKIND_HBM = 1,     /**< high-bandwidth memory (hwloc subtype "HBM" or "MCDRAM") */
    NT_MEMKIND_CXL_NVM = 2, /**< a slow tier: CXL-attached or non-volatile memory (subtypes
                                 starting with "CXL", "NVM", "SPM"), or a memory-only node whose
                                 bandwidth from its nearest initiator is below half of the best
                                 local bandwidth of a node with cpus */
    NT_MEMKIND_GPU = 3      /**< a GPU's memory seen as a NUMA node (subtype "GPUMemory") */
} nt_mem_kind;

/**
 * \brief Name of a memory kind, as the tool prints it.
 * @param[in] kind any value.
 * @return "dram", "hbm", "cxl_nvm" or "gpu" ("unknown" otherwise); static, never NULL.
 */
const char *nt_mem_kind_name(nt_mem_kind kind);

/** \brief Where the memory attributes of a topology came from. */
typedef enum nt_attr_source {
    NT_ATTR_NONE = 0, /**< hwloc has no bandwidth or latency per initiator and target */
    NT_ATTR_HWLOC = 1 /**< hwloc's memory attributes (ACPI HMAT on Linux, or an XML file
                           carrying them) */
} nt_attr_source;

/**
 * \brief Name of an attribute source, as the tool prints it.
 * @param[in] src any value.
 * @return "none" or "hwloc" ("unknown" otherwise); static, never NULL.
 */
const char *nt_attr_source_name(nt_attr_source src);

/** \brief The memory of one domain, as returned by nt_topo_domain_memory(). */
typedef struct nt_domain_memory {
    nt_mem_kind kind;        /**< what the memory is */
    const char *kind_from;   /**< how the kind was decided: "subtype", "memattrs" or "default";
                                  static */
    const char *subtype;     /**< hwloc's subtype of the node (e.g. "GPUMemory"), or NULL;
                                  owned by the topology */
    uint64_t capacity_bytes; /**< hwloc's Capacity of the node (its memory); for virtual
                                  domains the node's share, as nt_domain_info_t.memory_bytes */
    int initiator;           /**< the domain whose threads access this memory and run its
                                  tasks: the domain itself when it has cpus, else the nearest
                                  domain with cpus (distance matrix, lowest index on ties);
                                  -1 when no domain has cpus */
    uint64_t bandwidth_mibs; /**< bandwidth from that initiator in MiB/s (hwloc's Bandwidth,
                                  else the mean of ReadBandwidth and WriteBandwidth), 0 when
                                  unknown */
    uint64_t latency_ns;     /**< latency from that initiator in ns (Latency, else the mean of
                                  ReadLatency and WriteLatency), 0 when unknown */
} nt_domain_memory_t;

/**
 * \brief Where the memory attributes came from: ::NT_ATTR_HWLOC when hwloc gave a bandwidth
 *        or a latency for at least one initiator and target.
 * @param[in] topo a loaded topology (not NULL).
 * @return the source of nt_topo_pair_memattr() and of the bandwidths of
 *         nt_topo_domain_memory().
 */
nt_attr_source nt_topo_memattr_source(const nt_topo_t *topo);

/**
 * \brief Describe the memory of one domain: kind, capacity, initiator and the bandwidth and
 *        latency from it.
 * @param[in]  topo   a loaded topology.
 * @param[in]  domain 0..ndomains-1.
 * @param[out] out    filled on success; its strings stay valid until nt_topo_destroy().
 * @retval NT_OK success. @retval NT_EINVAL topo or out NULL, or domain out of range.
 */
nt_status nt_topo_domain_memory(const nt_topo_t *topo, int domain, nt_domain_memory_t *out);

/**
 * \brief Bandwidth and latency of accesses by the cpus of one domain to the memory of another
 *        (hwloc's memory attributes; domains on the same node share its values).
 * @param[in]  topo           a loaded topology.
 * @param[in]  initiator      the domain whose cpus access, 0..ndomains-1 (a domain without
 *                            cpus has no values: both 0).
 * @param[in]  target         the domain whose memory is accessed, 0..ndomains-1.
 * @param[out] bandwidth_mibs MiB/s, 0 when unknown; may be NULL.
 * @param[out] latency_ns     ns, 0 when unknown; may be NULL.
 * @retval NT_OK success (values may be 0). @retval NT_EINVAL topo NULL or a domain out of
 *         range.
 */
nt_status nt_topo_pair_memattr(const nt_topo_t *topo, int initiator, int target,
                               uint64_t *bandwidth_mibs, uint64_t *latency_ns);

/**
 * \brief The distances costs are weighted by, row-major ndomains x ndomains, owned by the
 *        topology: with hwloc bandwidths for every pair needed, the distance from a to b is
 *        10 x B / min(bw(I_b -> a), bw(I_b -> b)), rounded, at least 10 off the diagonal,
 *        where I_b is b's initiator (nt_topo_domain_memory()), bw the pair bandwidth and B the
 *        best local bandwidth of a domain with cpus (so that B costs 10, as SLIT's local
 *        distance); otherwise exactly nt_topo_distances(). Plans' dist_volume and the
 *        ::NT_MATCH_DISTANCE relabelling use it.
 * @param[in] topo a loaded topology, or NULL.
 * @return the matrix (valid until nt_topo_destroy()), or NULL if topo is NULL.
 */
const uint32_t *nt_topo_cost_distances(const nt_topo_t *topo);

/**
 * \brief Whether nt_topo_cost_distances() come from hwloc's bandwidths (true) or are the
 *        distance matrix (false).
 * @param[in] topo a loaded topology (not NULL).
 * @return as described.
 */
bool nt_topo_cost_from_bandwidth(const nt_topo_t *topo);
/** @} */

#ifdef __cplusplus
}
#endif
#endif
