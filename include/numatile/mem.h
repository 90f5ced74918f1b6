/**
 * \file numatile/mem.h
 * \brief Memory on a domain: node-bound allocation, page-location queries, page migration.
 *
 * Buffers are page-aligned anonymous mappings whose pages are bound to the domain's NUMA node.
 * Errors follow numatile/error.h.
 *
 * Threads: every function may be called from several threads at once, on distinct buffers
 * (nt_mem_where() also on the same one).
 */
#ifndef NUMATILE_MEM_H
#define NUMATILE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Flags for nt_mem_alloc(). */
enum nt_mem_flags {
    /** Fail (NT_ESYS) instead of falling back to another node: pages are bound with MPOL_BIND
        and every page is checked with move_pages() after the first touch. Without it the node
        is only preferred (MPOL_PREFERRED) and the kernel may place pages elsewhere. */
    NT_MEM_STRICT = 1u << 0,
    /** Do not touch the pages: they are placed when first written (by the binding policy). */
    NT_MEM_NOTOUCH = 1u << 1,
    /** Ask for transparent huge pages when bytes >= 2 MiB (madvise(MADV_HUGEPAGE)) for the
        whole huge pages inside the mapping (all of it when bytes is a multiple of 2 MiB: it
        then starts on a 2 MiB boundary), so the first touch faults once per 2 MiB instead of
        once per 4 KiB; the node binding is the same. Only advice (the kernel falls back to
        small pages when it has none). Matrices use it for their memory; it is off when the
        environment has NT_NO_HUGEPAGES set to a value other than 0. With or without it, the
        part of any mapping outside its whole huge pages is advised against them
        (MADV_NOHUGEPAGE), also under the kernel's "always" mode, so that no huge page is
        shared with a neighbouring mapping: nt_mem_migrate() moves whole huge pages. */
    NT_MEM_HUGE_PAGES = 1u << 2
};

/**
 * \brief System page size in bytes.
 * @return sysconf(_SC_PAGESIZE), or 4096 if the system does not say.
 */
size_t nt_mem_page_size(void);

/** \brief One of the limits on the memory this process can still take. */
typedef enum nt_mem_limit {
    NT_LIMIT_NONE = 0,         /**< nothing known limits it */
    NT_LIMIT_NODES = 1,        /**< the NUMA nodes' free and reclaimable memory, summed */
    NT_LIMIT_MEMAVAILABLE = 2, /**< the kernel's estimate, MemAvailable in /proc/meminfo */
    NT_LIMIT_CGROUP = 3,       /**< the memory cgroup's limit (v2 memory.max, v1
                                    memory.limit_in_bytes, of the process's cgroup or an
                                    ancestor) minus its use, reclaimable page cache not counted */
    NT_LIMIT_ADDRESS_SPACE = 4 /**< RLIMIT_AS (ulimit -v) minus what the process has mapped */
} nt_mem_limit;

/** \brief The memory this process can still take, by limit (bytes; UINT64_MAX = no such
 *         limit or not known). */
typedef struct nt_mem_limits_t {
    uint64_t nodes_free;          /**< sum over nodes of free + reclaimable memory */
    uint64_t mem_available;       /**< MemAvailable */
    uint64_t cgroup_limit;        /**< the binding cgroup's limit */
    uint64_t cgroup_room;         /**< that limit minus the cgroup's use */
    uint64_t address_space_limit; /**< RLIMIT_AS */
    uint64_t address_space_room;  /**< RLIMIT_AS minus the process's mapped size (VmSize) */
    uint64_t room;                /**< the least of nodes_free, mem_available, cgroup_room and
                                       address_space_room */
    nt_mem_limit binding;         /**< which one gives room (NT_LIMIT_NONE if all unknown) */
} nt_mem_limits_t;

/**
 * \brief Read the limits on the memory this process can still take, and which one binds.
 *
 * Reads /sys/devices/system/node, /proc/meminfo, /proc/self/cgroup, the cgroup's files
 * (cgroup v2 where it holds the memory controller, else v1) and /proc/self/status; a file that
 * cannot be read leaves its limit unknown. Nothing is allocated. Safe from several threads.
 * @param[out] out the limits.
 * @retval NT_OK success. @retval NT_EINVAL out is NULL.
 */
nt_status nt_mem_limits(nt_mem_limits_t *out);

/**
 * \brief Name of a limit, as messages and the tool print it.
 * @param[in] limit any value.
 * @return "none", "node free memory", "MemAvailable", "cgroup memory limit",
 *         "address-space limit (ulimit -v)" ("unknown" otherwise); static, never NULL.
 */
const char *nt_mem_limit_name(nt_mem_limit limit);

/**
 * \brief Check, before allocating, that a request fits the machine.
 *
 * The placed needs are summed per NUMA node (domains of a node share it) and compared with the
 * memory the node can give (free plus reclaimable page cache); everything, placed or not, is
 * compared with the least of the limits nt_mem_limits() reads: the nodes' free memory,
 * MemAvailable, the memory cgroup's limit minus its use, and the address-space limit
 * (RLIMIT_AS, ulimit -v) minus what the process has already mapped.
 * Nothing is allocated but a few bytes per node. The matrix and plan constructors call it
 * themselves; front ends call it to refuse a request before building anything. On a synthetic
 * topology per_domain is ignored (its memory is fictional). Safe to call from several threads.
 * @param[in] topo       the topology of per_domain; may be NULL when per_domain is NULL.
 * @param[in] per_domain bytes wanted on each domain (nt_topo_ndomains() entries), or NULL.
 * @param[in] anywhere   bytes wanted on no particular node (tables, plans).
 * @param[in] who        prefix of the message (e.g. the function or the option), or NULL.
 * @retval NT_OK       the request fits (as far as the system says: an unknown room passes).
 * @retval NT_ENOSPACE it does not; the message names the need, the limit and the room, e.g.
 *                     "needs 29.8 GiB on domain 2, node 1 has 11.2 GiB free" or "needs 14.0
 *                     GiB, the cgroup memory limit (12.0 GiB) leaves 11.5 GiB free".
 * @retval NT_EINVAL   per_domain without topo, or bytes on a domain whose node's memory the
 *                     process may not use (nt_topo_node_memory_allowed()).
 * @retval NT_ENOMEM   the check's own few bytes could not be allocated.
 */
nt_status nt_mem_room(const nt_topo_t *topo, const uint64_t *per_domain, uint64_t anywhere,
                      const char *who);

/**
 * \brief Allocate bytes bound to a domain's node and touch them (zero-filled).
 *
 * The pages are touched by the calling thread; the binding policy decides the node, so the
 * caller need not be bound. Call it from a thread bound to the domain (nt_bind_domain(),
 * nt_team_run()) to also keep the first touch local. With NT_MEM_HUGE_PAGES, buffers of
 * 2 MiB or more are advised to use transparent huge pages.
 * @param[in]  topo   a physical or virtual topology.
 * @param[in]  domain 0..ndomains-1.
 * @param[in]  bytes  > 0; rounded up to whole pages.
 * @param[in]  flags  a combination of ::nt_mem_flags.
 * @param[out] out    page-aligned buffer, to free with nt_mem_free(out, bytes); untouched on
 *                    failure.
 * @retval NT_EINVAL  NULL pointer, domain out of range, bytes == 0, unknown flag, or a domain
 *                    whose node's memory the process may not use (cgroup cpuset, MPOL_BIND;
 *                    see nt_topo_node_memory_allowed()).
 * @retval NT_ERANGE  bytes overflows when rounded to pages.
 * @retval NT_ENOTSUP synthetic topology.
 * @retval NT_ENOMEM  the mapping failed.
 * @retval NT_ESYS    binding failed, or (strict) a page landed on another node.
 */
nt_status nt_mem_alloc(const nt_topo_t *topo, int domain, size_t bytes, unsigned flags,
                       void **out);

/**
 * \brief Free a buffer from nt_mem_alloc().
 * @param[in] ptr   the buffer, or NULL (then nothing happens).
 * @param[in] bytes the byte count given to nt_mem_alloc() (the same rounding to pages is
 *                  applied); 0 does nothing.
 */
void nt_mem_free(void *ptr, size_t bytes);

/** \brief Where the pages of a buffer are; see nt_mem_where(). */
typedef struct nt_page_hist {
    int64_t pages;          /**< pages examined */
    int64_t absent;         /**< pages not yet populated (-ENOENT) */
    int64_t errors;         /**< pages whose status was another error */
    int nnodes;             /**< length of per_node: highest node index + 1 of the machine */
    int64_t per_node[64];   /**< per_node[n] = pages on node n (nodes 0..63) */
} nt_page_hist_t;

/**
 * \brief Count the pages of [ptr, ptr+bytes) per NUMA node (move_pages with nodes = NULL).
 * @param[in]  ptr   any address; the range is widened to whole pages.
 * @param[in]  bytes > 0.
 * @param[out] hist  filled on success.
 * @retval NT_EINVAL ptr or hist NULL, bytes == 0.
 * @retval NT_ENOMEM no memory for the page table of the query.
 * @retval NT_ESYS   move_pages failed as a whole.
 */
nt_status nt_mem_where(const void *ptr, size_t bytes, nt_page_hist_t *hist);

/** \brief Outcome of nt_mem_migrate(). */
typedef struct nt_migrate_report {
    int64_t pages;         /**< pages in the range */
    int64_t moved;         /**< pages that were elsewhere and are now on the target node */
    int64_t already;       /**< pages that were on the target node already */
    int64_t absent;        /**< pages never touched (nothing to move; placed on first touch) */
    int64_t failed;        /**< pages left where they were */
    int first_error;       /**< errno of the first failed page (e.g. EBUSY, ENOMEM), 0 if none */
} nt_migrate_report_t;

/**
 * \brief Move the pages of [ptr, ptr+bytes) to a NUMA node, keeping their addresses
 *        (move_pages with MPOL_MF_MOVE). Pages that cannot move are reported, not fatal.
 *
 * A transparent huge page moves whole: one that reaches past either end of the range moves
 * memory outside it too. A whole mapping of nt_mem_alloc() has none (see NT_MEM_HUGE_PAGES);
 * a part of one may.
 * @param[in]  ptr   any address; the range is widened to whole pages.
 * @param[in]  bytes > 0.
 * @param[in]  node  OS node index that has memory.
 * @param[out] rep   filled on success (may report failed pages).
 * @retval NT_EINVAL ptr or rep NULL, bytes == 0, node not a node with memory.
 * @retval NT_ENOMEM no memory for the page table of the call.
 * @retval NT_ESYS   move_pages failed as a whole.
 */
nt_status nt_mem_migrate(void *ptr, size_t bytes, int node, nt_migrate_report_t *rep);

/** \brief Outcome of nt_mem_alloc_weighted(). */
typedef struct nt_interleave_report {
    int64_t pages;        /**< pages of the buffer */
    int64_t placed;       /**< pages on their asked node after the first touch */
    int64_t moved;        /**< pages found elsewhere and moved to their node (move_pages) */
    int64_t misplaced;    /**< pages left on another node (a full node) */
} nt_interleave_report_t;

/**
 * \brief Allocate bytes interleaved page by page across domains in the ratios of weights, and
 *        touch them (zero-filled).
 *
 * Page k goes to the domain with the largest deficit (k + 1) x w_d / sum(w) - pages so far, so
 * that after any number of pages every domain holds its share within one page. The calling
 * thread faults each domain's pages in under a preferred policy for that domain's node (its
 * own memory policy is restored afterwards), with transparent huge pages advised off (a huge
 * page would put 512 pages on one node); pages that land elsewhere are then moved with
 * move_pages(2). numatile places the pages itself because the kernel's
 * MPOL_WEIGHTED_INTERLEAVE (Linux 6.9) takes its weights from a system-wide table
 * (/sys/kernel/mm/mempolicy/weighted_interleave) that a process should not rewrite.
 * @param[in]  topo    a physical or virtual topology.
 * @param[in]  weights ndomains entries, each >= 0 and finite, at least one > 0 (e.g. from
 *                     nt_tier_weights()); a domain of weight > 0 must be on a node whose
 *                     memory the process may use.
 * @param[in]  bytes   > 0; rounded up to whole pages.
 * @param[in]  flags   0 or ::NT_MEM_STRICT (then any page left on another node fails the
 *                     call with ::NT_ESYS, the buffer freed).
 * @param[out] out     the buffer, to free with nt_mem_free(out, bytes); untouched on failure.
 * @param[out] report  what happened, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL topo, weights or out, bytes 0, a bad weight,
 *         an unknown flag, or weight on a node the process may not use.
 * @retval NT_ERANGE bytes overflows when rounded to pages. @retval NT_ENOTSUP synthetic
 *         topology. @retval NT_ENOMEM the mapping or its page tables failed.
 * @retval NT_ESYS the memory policy could not be set, or (strict) a page landed elsewhere.
 */
nt_status nt_mem_alloc_weighted(const nt_topo_t *topo, const double *weights, size_t bytes,
                                unsigned flags, void **out, nt_interleave_report_t *report);

/**
 * \brief The domain of each page of a weighted interleave, as nt_mem_alloc_weighted() lays
 *        it out (largest deficit first, lowest domain on ties).
 * @param[in]  weights ndomains entries, >= 0 and finite, at least one > 0.
 * @param[in]  ndomains >= 1.
 * @param[in]  pages   >= 0.
 * @param[out] domain  pages entries.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, a bad weight or count.
 */
nt_status nt_mem_interleave_layout(const double *weights, int ndomains, int64_t pages,
                                   int *domain);

#ifdef __cplusplus
}
#endif
#endif
