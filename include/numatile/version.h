/**
 * \file numatile/version.h
 * \brief Library version.
 *
 * Threads: safe from any thread.
 */
#ifndef NUMATILE_VERSION_H
#define NUMATILE_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Major version of these headers (incompatible API changes). */
#define NT_VERSION_MAJOR 0
/** \brief Minor version of these headers (compatible additions). */
#define NT_VERSION_MINOR 1
/** \brief Patch version of these headers (fixes only). */
#define NT_VERSION_PATCH 0
/** \brief "MAJOR.MINOR.PATCH" of these headers; the Makefile reads the version from here. */
#define NT_VERSION_STRING "0.1.0"

/**
 * \brief Version string of the linked library (may differ from NT_VERSION_STRING when the
 *        program was compiled against other headers).
 * @return "MAJOR.MINOR.PATCH"; a static string, never NULL.
 */
const char *nt_version(void);

#ifdef __cplusplus
}
#endif
#endif
