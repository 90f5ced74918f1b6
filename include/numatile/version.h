/**
 * \file numatile/version.h
 * \brief Library version, and the BLAS/LAPACK library the tile kernels were built with.
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

/**
 * \brief The BLAS the tile kernels run on, chosen when the library was built (make BLAS=blis or
 *        BLAS=openblas), and the kernel family it selected for this CPU at run time.
 *
 * BLIS build: GEMM and TRSM on BLIS, the QR tile kernels (LAPACK's dgeqrt, dgemqrt, dtpqrt,
 * dtpmqrt) and the flat QR baseline on libFLAME over that BLIS; the string is "blis VERSION
 * (CONFIG)", CONFIG being the BLIS configuration its run-time dispatch chose, e.g.
 * "blis 0.9.0 (zen3)". OpenBLAS build: everything on OpenBLAS and the LAPACK it bundles; the
 * string is "openblas VERSION (CORE)", CORE being OpenBLAS's kernel family for this CPU, e.g.
 * "openblas 0.3.21 (Cooperlake)". The first call may initialise the library (thread-safe).
 * @return a static string, never NULL; the same pointer on every call.
 */
const char *nt_blas_name(void);

#ifdef __cplusplus
}
#endif
#endif
