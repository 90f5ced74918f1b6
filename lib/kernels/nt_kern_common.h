// Tiled-kernel helpers: kern_common.c shares them with gemm.c, qr.c and the task graph runner.
#ifndef NUMATILE_KERN_COMMON_INTERNAL_H
#define NUMATILE_KERN_COMMON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "numatile/topo.h"

// Make stats ready for a topology of ndomains domains (allocates the arrays on first use).
nt_status nt_kernel_stats_prepare(nt_kernel_stats_t *stats, int ndomains);

// Validate options and resolve the defaults against a topology.
nt_status nt_kernel_opts_resolve(const nt_kernel_opts_t *opts, const nt_topo_t *topo,
                                 int *tpd, nt_kernel_sched *sched);

// Common argument checks of the tiled kernels: a double matrix (typed NT_DTYPE_D, or untyped
// with 8-byte elements) with memory on a physical or virtual topology (topo, when not NULL, must
// be the same). name is used in the message. The double-only drivers call this one: it refuses
// float and complex matrices (a complex float element is 8 bytes too).
nt_status nt_kern_check_matrix(const char *name, const nt_matrix_t *A, const nt_topo_t *topo);

// The element type the kernels compute A in: A's type when it has one, NT_DTYPE_D for an
// untyped matrix of 8-byte elements (matrices made before types existed), NT_DTYPE_NONE
// otherwise (no kernel takes it).
nt_dtype nt_kern_dtype(const nt_matrix_t *A);

// nt_kern_check_matrix for the drivers that run every precision: A's nt_kern_dtype() must be
// s, d, c or z and, when want is not NT_DTYPE_NONE, equal to want (all operands of one call
// share the type: pass the first operand's type for the others).
nt_status nt_kern_check_matrix_typed(const char *name, const nt_matrix_t *A,
                                     const nt_topo_t *topo, nt_dtype want);

// True when some tile of X and some tile of Y share memory.
bool nt_kern_tiles_overlap(const nt_matrix_t *X, const nt_matrix_t *Y, nt_status *st);

// Bytes of tile (i,j).
static inline int64_t nt_kern_tile_bytes(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return nt_matrix_tile_rows(A, i) * nt_matrix_tile_cols(A, j) * (int64_t)A->elem_size;
}

// Tile (i,j) of a double matrix (nt_matrix_tile() for the other types).
static inline double *nt_kern_tile(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return (double *)nt_matrix_tile(A, i, j);
}

#endif
