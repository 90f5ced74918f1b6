/**
 * \file numatile/profile.h
 * \brief Machine profile: what the advisor (numatile/advise.h) knows about this machine,
 *        measured by nt_calibrate() and saved to / loaded from a JSON file.
 *
 * A profile holds, for D domains: the copy bandwidth of every domain pair (a matrix), the
 * one-thread read bandwidth of every pair (the price of a remote tile read), the aggregate
 * bandwidth of all domains copying at once, the page-migration bandwidth, the first-touch
 * (page fault) rate per domain, the time of one call of each tile kernel (GEMM and the four QR
 * kernels) per domain at the tile size nb, and the overhead of one task. It records the
 * machine (topology kind, domains, nodes, host name), the numatile version, the BLAS and the
 * date.
 *
 * JSON file (format 1): an object with "format": 1, "domains" (D), "threads_per_domain", "nb",
 * "ib", "copy_gbs" and "read_gbs" (D x D arrays, row = the domain the memory is on, column =
 * the domain whose threads copy or read), "concurrent_gbs", "migrate_gbs", "fault_gbs" (D),
 * "tile_seconds" (an object with arrays "gemm", "geqrt", "unmqr", "tsqrt", "tsmqr" of D
 * seconds each), "task_seconds", "exec_seconds", "kernel_run_seconds",
 * "stencil_item_seconds", "stencil_round_seconds", and "machine" (object: "topology",
 * "physical_nodes", "host"), "version", "blas", "date" (strings). Every rate is > 0 and finite, every time >= 0 and finite.
 *
 * Errors follow numatile/error.h: NT_OK or a negative code, out-parameters untouched on
 * failure, nt_last_error() names the bad field or argument.
 */
#ifndef NUMATILE_PROFILE_H
#define NUMATILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Version of the profile's JSON format written by nt_profile_save(). */
#define NT_PROFILE_FORMAT 1

/** \brief The tile kernels a profile times (index of nt_profile_t::tile_seconds). */
typedef enum nt_tile_kernel {
    NT_TK_GEMM = 0,  /**< C += A B on nb x nb tiles */
    NT_TK_GEQRT = 1, /**< QR of a diagonal tile */
    NT_TK_UNMQR = 2, /**< apply a GEQRT's reflectors to a tile */
    NT_TK_TSQRT = 3, /**< QR of a triangle on top of a square tile */
    NT_TK_TSMQR = 4, /**< apply a TSQRT's reflectors to a pair of tiles */
    NT_TK_COUNT = 5  /**< number of kernels */
} nt_tile_kernel;

/**
 * \brief A machine profile. Create with nt_profile_create(), nt_profile_read(),
 *        nt_profile_parse() or nt_calibrate(); free with nt_profile_destroy(). Callers may
 *        read and write every field (keeping the arrays' sizes); nt_profile_check() tells
 *        whether the values are usable.
 */
typedef struct nt_profile {
    int ndomains;           /**< D, >= 1 */
    int threads_per_domain; /**< kernel threads per domain the rates are for, >= 1 */
    int64_t nb;             /**< tile size (rows = columns) of tile_seconds, >= 1 */
    int64_t ib;             /**< QR inner block of tile_seconds, 1..nb */
    double *copy_gbs;       /**< D x D, [i*D+j]: GB/s of a parallel copy from memory on domain
                                 i by the copy threads of domain j (the executor's copy) */
    double *read_gbs;       /**< D x D, [i*D+j]: GB/s of one thread of domain j streaming
                                 through memory of domain i (prices a remote tile read) */
    double concurrent_gbs;  /**< aggregate GB/s of every domain copying locally at once */
    double migrate_gbs;     /**< GB/s of page migration (move_pages) */
    double *fault_gbs;      /**< D: GB/s of first touch of fresh memory on each domain */
    double *tile_seconds[NT_TK_COUNT]; /**< per kernel, D: seconds of one call at nb on one
                                            thread of each domain (nt_calibrate() measures
                                            the thread's CPU time, so that other jobs on a
                                            shared machine do not count) */
    double task_seconds;    /**< overhead of one task (spawn and run of an empty task) */
    double exec_seconds;    /**< fixed cost of one nt_plan_execute() (teams bound to the
                                 domains, allocation and one small copy; wall clock: mostly
                                 waiting for threads, which a busy machine lengthens) */
    double kernel_run_seconds; /**< fixed cost of one kernel run (team start, graph; one
                                    small GEMM tile; wall clock) */
    double stencil_item_seconds;  /**< one nt_stencil_update() with work 0 (CPU time, domain
                                       0's thread) */
    double stencil_round_seconds; /**< each further round of work of an update */
    char kind[16];          /**< topology kind ("physical", "virtual", ...) */
    int nodes;              /**< physical NUMA nodes */
    char host[64];          /**< host name */
    char version[32];       /**< numatile version that measured it */
    char blas[32];          /**< BLAS of the tile kernels */
    char date[32];          /**< ISO 8601 UTC time of the measurement */
} nt_profile_t;

/**
 * \brief A profile with every rate and time zero (to fill in; nt_profile_check() refuses it
 *        until the rates are set).
 * @param[in]  ndomains D, 1..::NT_TOPO_MAX_DOMAINS.
 * @param[out] out      the profile, to free with nt_profile_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL out NULL or D out of range.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_profile_create(int ndomains, nt_profile_t **out);

/**
 * \brief Free a profile and its arrays.
 * @param[in] prof a profile from this library, or NULL (then nothing happens).
 */
void nt_profile_destroy(nt_profile_t *prof);

/**
 * \brief Check that a profile is usable: rates > 0 and finite, times >= 0 and finite, sizes in
 *        range and, with a topology, as many domains as the topology has.
 * @param[in] prof the profile.
 * @param[in] topo a topology to compare with, or NULL.
 * @retval NT_OK usable. @retval NT_EINVAL prof NULL or a bad value (the message names the
 *         field, e.g. "profile: copy_gbs[1][0] = -2: must be > 0").
 */
nt_status nt_profile_check(const nt_profile_t *prof, const nt_topo_t *topo);

/**
 * \brief Name of a tile kernel, as in the JSON object "tile_seconds" ("gemm", "geqrt", ...).
 * @param[in] kernel an ::nt_tile_kernel id.
 * @return the name (a static string), or "unknown" when kernel is not an id below
 *         ::NT_TK_COUNT.
 */
const char *nt_profile_kernel_name(int kernel);

/**
 * \brief The profile as JSON text (the file format above).
 * @param[in]  prof a profile that passes nt_profile_check() without topology.
 * @param[out] text a NUL-terminated string, to free with free(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument or a profile nt_profile_check()
 *         refuses. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_profile_dump(const nt_profile_t *prof, char **text);

/**
 * \brief Read a profile from JSON text and check it (nt_profile_check()).
 * @param[in]  text JSON text (NUL-terminated).
 * @param[in]  topo the topology the profile must describe (same domain count), or NULL.
 * @param[out] out  the profile, to free with nt_profile_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, not JSON, another format, a missing
 *         field, a field of the wrong type or size, a bad value, a domain count other than
 *         the topology's: the message names the field. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_profile_parse(const char *text, const nt_topo_t *topo, nt_profile_t **out);

/**
 * \brief Write a profile to a file, whole or not at all.
 *
 * The text goes to a temporary file ".NAME.tmp-XXXXXX" in the file's directory, which is
 * synced, closed and renamed over the file only when complete: on any failure (a full disk)
 * the temporary is removed and the previous file is left as it was. No signal handler is
 * installed: a process killed during the write can leave the temporary behind. A device or
 * FIFO named by path is written in place.
 * @param[in] prof the profile (as for nt_profile_dump()).
 * @param[in] path file name.
 * @retval NT_OK success. @retval NT_EINVAL as nt_profile_dump(), or path is a directory.
 *         @retval NT_EIO the file cannot be created there (no such directory, not writable).
 *         @retval NT_ESYS writing failed (a full disk; the message names the file and the
 *         system's reason; the previous file is intact). @retval NT_ENOMEM allocation failed.
 */
nt_status nt_profile_save(const nt_profile_t *prof, const char *path);

/**
 * \brief Read a profile from a file (as nt_profile_parse()).
 *
 * The file must be a regular file no larger than a profile of the topology's domains can be
 * (of ::NT_TOPO_MAX_DOMAINS domains when topo is NULL); it is opened non-blocking, so a FIFO,
 * a device or a directory is refused at once, before anything is read.
 * @param[in]  path file name.
 * @param[in]  topo as for nt_profile_parse().
 * @param[out] out  the profile; untouched on failure.
 * @retval NT_OK success. @retval NT_EIO the file cannot be opened or read. @retval NT_EINVAL
 *         not a regular file, or as nt_profile_parse(). @retval NT_ERANGE the file is larger
 *         than a profile can be. @retval NT_ENOMEM as nt_profile_parse().
 */
nt_status nt_profile_read(const char *path, const nt_topo_t *topo, nt_profile_t **out);

/** \brief Old name of nt_profile_read(), kept one release (NEWS.md): readers of files end in
 *         _read.
 * @param[in] path,topo as there. @param[out] out as there.
 * @retval NT_OK as there. @retval NT_EINVAL as there. */
NT_DEPRECATED("use nt_profile_read")
nt_status nt_profile_load(const char *path, const nt_topo_t *topo, nt_profile_t **out);

/**
 * \brief Speeds of the domains for heterogeneous partitions: threads_per_domain / GEMM tile
 *        time of each domain, normalised to sum 1.
 * @param[in]  prof   a profile.
 * @param[out] speeds prof->ndomains values; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument or a GEMM time <= 0.
 */
nt_status nt_profile_speeds(const nt_profile_t *prof, double *speeds);

/** \brief Options of nt_calibrate(). Zero-initialise for the defaults. */
typedef struct nt_calibrate_opts {
    int64_t nb;             /**< tile size of the kernel timings; 0 = 256 */
    int64_t ib;             /**< QR inner block; 0 = min(nb, 32) (the QR's default) */
    int threads_per_domain; /**< kernel threads per domain; 0 = nt_kernel_default_threads() */
    bool quick;             /**< smaller buffers and fewer repetitions (about 4x faster) */
} nt_calibrate_opts_t;

/**
 * \brief Measure this machine: copy and read bandwidth per domain pair, concurrent copy,
 *        page migration, first touch per domain, tile kernels per domain, task overhead.
 *        Pair bandwidths and tile-kernel times are the best of several rounds (a round
 *        measures every pair, or every domain and kernel, once); the other numbers are
 *        medians of several runs. Threads bound to the domain.
 *        Allocates a few buffers of up to 64 MiB per domain (16 MiB with quick), and three
 *        nb x nb tiles of doubles per domain, all domains' at once.
 * @param[in]  topo a physical or virtual topology (not synthetic).
 * @param[in]  opts options, or NULL for the defaults.
 * @param[out] out  the profile, to free with nt_profile_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument or bad option (named).
 * @retval NT_ENOTSUP synthetic topology, or a domain without cpus.
 * @retval NT_ENOMEM, NT_ESYS allocation or binding failed (everything taken is released).
 */
nt_status nt_calibrate(const nt_topo_t *topo, const nt_calibrate_opts_t *opts,
                       nt_profile_t **out);

#ifdef __cplusplus
}
#endif
#endif
