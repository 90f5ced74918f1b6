/**
 * \file numatile/instance.h
 * \brief Reader for DESIGN.md's "Instance file for match / schedule".
 *
 * Format: `#` starts a comment (to the end of the line); blank lines are ignored. The first
 * line holds `P N` (P >= 1 domains = components, N >= 0 items); then exactly N lines
 * `d p [w]`: initial domain d in 0..P-1, target component p in 0..P-1 and an optional positive
 * integer size w (default 1). Errors name the line and the problem.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: every function may be called from several threads at once on distinct instances.
 */
#ifndef NUMATILE_INSTANCE_H
#define NUMATILE_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Largest instance file nt_instance_read() reads (256 MiB: about 20 million items of
 *         short lines; the parsed arrays take about as much again). */
#define NT_INSTANCE_MAX_BYTES ((size_t)256 << 20)

/** \brief A parsed instance. Created by the readers, freed with nt_instance_destroy(). */
typedef struct nt_instance {
    int p;            /**< domains = components */
    int64_t n;        /**< items */
    int *domain;      /**< n initial domains in 0..p-1 (NULL when n = 0) */
    int *part;        /**< n target components in 0..p-1 (NULL when n = 0) */
    int64_t *size;    /**< n sizes >= 1 (1 where the line gave none; NULL when n = 0) */
    int weighted;     /**< 1 if any line gave a size, else 0 */
    int64_t total;    /**< sum of the sizes (fits in int64, checked) */
} nt_instance_t;

/**
 * \brief Parse an instance from memory.
 * @param[in]  text the text (need not be NUL-terminated; a NUL byte inside is junk).
 * @param[in]  len  its length in bytes.
 * @param[out] out  the instance; untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL malformed text; the message names the line: "line 4: domain 5 out of range
 *                   0..3", "line 2: size must be a positive integer", "line 3: junk 'x'",
 *                   "line 1: expected 'P N'", "expected 6 item lines, found 4", "line 9: extra
 *                   line after 6 items".
 * @retval NT_ERANGE a number or the total size overflows.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_instance_parse(const char *text, size_t len, nt_instance_t **out);

/**
 * \brief Read an instance file (see nt_instance_parse(); messages start with the path).
 * @param[in]  path the file.
 * @param[out] out  the instance; untouched on failure.
 * @retval NT_OK success. @retval NT_EIO the file cannot be read.
 * @retval NT_EINVAL as nt_instance_parse(), or path is not a regular file (a directory,
 *         device or FIFO: refused at once, never read or waited on).
 * @retval NT_ERANGE as nt_instance_parse(), or the file is larger than
 *         ::NT_INSTANCE_MAX_BYTES (refused before it is read).
 * @retval NT_ENOMEM as nt_instance_parse().
 */
nt_status nt_instance_read(const char *path, nt_instance_t **out);

/**
 * \brief Free an instance and its arrays.
 * @param[in] inst an instance from a reader, or NULL (then nothing happens).
 */
void nt_instance_destroy(nt_instance_t *inst);

/**
 * \brief Weighted count matrix of an instance: counts[i * p + j] = sum of the sizes of the
 *        items with domain i and component j (items: the same without sizes).
 * @param[in]  inst   the instance.
 * @param[out] items  p x p item counts (caller's array) or NULL.
 * @param[out] weight p x p weights (caller's array) or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL instance. @retval NT_ENOMEM scratch failed.
 */
nt_status nt_instance_counts(const nt_instance_t *inst, int64_t *items, int64_t *weight);

#ifdef __cplusplus
}
#endif
#endif
