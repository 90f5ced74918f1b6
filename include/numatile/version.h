/**
 * \file numatile/version.h
 * \brief Library version.
 */
#ifndef NUMATILE_VERSION_H
#define NUMATILE_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define NT_VERSION_MAJOR 0
#define NT_VERSION_MINOR 1
#define NT_VERSION_PATCH 0
#define NT_VERSION_STRING "0.1.0"

/** \brief Version string of the linked library (may differ from NT_VERSION_STRING). */
const char *nt_version(void);

#ifdef __cplusplus
}
#endif
#endif
