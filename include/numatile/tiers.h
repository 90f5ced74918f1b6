/**
 * \file numatile/tiers.h
 * \brief Placement by memory tier: a tile map that fills the fast memory first and spills the
 *        rest (or fills the largest memory first, or DRAM only), and the weights of a weighted
 *        interleave by bandwidth.
 *
 * A tier is a group of domains alike for the policy: for ::NT_TIER_BANDWIDTH and
 * ::NT_TIER_DRAM, domains whose bandwidth from their initiator (nt_topo_domain_memory()) is
 * within 10% of the tier's fastest (without hwloc bandwidths for every candidate domain, the
 * kind ranks them instead: HBM, DRAM, CXL/NVM, GPU memory); for ::NT_TIER_CAPACITY, domains
 * whose capacity is within 10% of the tier's largest. Tiles are taken in storage order (tile
 * (i, j) at index i x nt + j) and dealt round-robin over the domains of the first tier that
 * still has room for them, so "the first tiles" sit on the first tier. GPU memory is a
 * candidate only with ::NT_TIER_ALLOW_GPU; nodes whose memory the process may not use never
 * are. Memory-only domains hold tiles like any other; the kernels run their tasks on the
 * nearest domain with cpus, as for every map.
 *
 * Errors follow numatile/error.h.
 */
#ifndef NUMATILE_TIERS_H
#define NUMATILE_TIERS_H

#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Which memory a tier placement fills first. */
typedef enum nt_tier_policy {
    NT_TIER_BANDWIDTH = 0, /**< the fastest tier first, spilling to the next when full */
    NT_TIER_CAPACITY = 1,  /**< the largest memories first (e.g. a CXL expander), spilling to
                                smaller ones */
    NT_TIER_DRAM = 2       /**< DRAM domains only, fastest first; ::NT_ENOSPACE when they cannot
                                hold the matrix */
} nt_tier_policy;

/** \brief Flag of nt_tier_opts_t: GPU memory may hold tiles (never by default). */
#define NT_TIER_ALLOW_GPU 1u

/** \brief Options of nt_tier_tilemap(). Zero-initialise for bandwidth-first without GPU
 *         memory and no limit but the domains' memory. */
typedef struct nt_tier_opts {
    nt_tier_policy policy; /**< the order of the tiers */
    unsigned flags;        /**< ::NT_TIER_ALLOW_GPU */
    uint64_t limit_bytes;  /**< at most this many bytes on each domain (0: no limit); the
                                room of a domain is the least of this, its memory
                                (nt_domain_info_t.memory_bytes) and, on this machine, its
                                node's free memory (MemFree, less 1/64 of the node and at
                                least 48 MiB kept for the kernel) shared among the node's
                                domains */
} nt_tier_opts_t;

/**
 * \brief Name of a tier policy, as in the DIST spec "tier:NAME".
 * @param[in] policy any value.
 * @return "bandwidth", "capacity" or "dram" ("unknown" otherwise); static, never NULL.
 */
const char *nt_tier_policy_name(nt_tier_policy policy);

/**
 * \brief Read a tier DIST spec: "tier:POLICY[+gpu][:LIMIT]", POLICY = bandwidth, capacity or
 *        dram, "+gpu" sets ::NT_TIER_ALLOW_GPU, LIMIT a byte count with an optional K, M or G
 *        suffix (powers of 1024) sets limit_bytes. nt_matrix_create_spec() takes such specs.
 * @param[in]  spec the spec, e.g. "tier:bandwidth:512M".
 * @param[out] out  the options; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, a spec not starting with "tier:",
 *         an unknown policy or suffix, or a limit that is 0 or overflows; the message names
 *         the part.
 */
nt_status nt_tier_parse(const char *spec, nt_tier_opts_t *out);

/**
 * \brief The tile map of a matrix placed by tier (see the file comment).
 * @param[in]  topo  the topology (any kind; a synthetic one plans with its described memory).
 * @param[in]  shape the matrix sizes (as nt_matrix_create() checks them).
 * @param[in]  opts  the policy, or NULL for the defaults.
 * @param[out] out   the map (ndomains = the topology's), to free with nt_tilemap_destroy();
 *                   untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL  a NULL argument, a bad shape, an unknown policy or flag.
 * @retval NT_ENOSPACE no candidate domain (e.g. ::NT_TIER_DRAM on a machine without DRAM
 *                    nodes the process may use), or the candidates' room cannot hold every
 *                    tile; the message gives the bytes and the room.
 * @retval NT_ERANGE  the tile grid exceeds the tile map limits.
 * @retval NT_ENOMEM  allocation failed.
 */
nt_status nt_tier_tilemap(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                          const nt_tier_opts_t *opts, nt_tilemap_t **out);

/**
 * \brief Interleave weights by bandwidth: for each domain, its bandwidth from an initiator
 *        domain's cpus (nt_topo_pair_memattr()), else from the domain's own initiator
 *        (nt_domain_memory_t.bandwidth_mibs: Linux gives hwloc only each node's best
 *        initiator), as a share of the sum over the candidate domains (GPU memory only with
 *        ::NT_TIER_ALLOW_GPU, memory the process may use only); the others get 0. Without a
 *        bandwidth for every candidate, the candidates share equally.
 * @param[in]  topo      the topology.
 * @param[in]  initiator the domain whose cpus will access the buffer (it must have cpus).
 * @param[in]  flags     ::NT_TIER_ALLOW_GPU or 0.
 * @param[out] weights   ndomains entries, summing to 1.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, initiator out of range or without
 *         cpus, unknown flag. @retval NT_ENOSPACE no candidate domain.
 */
nt_status nt_tier_weights(const nt_topo_t *topo, int initiator, unsigned flags,
                          double *weights);

#ifdef __cplusplus
}
#endif
#endif
