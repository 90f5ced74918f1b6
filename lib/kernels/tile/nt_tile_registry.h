// The tile kernels, one row each: the NT_TK_* id (numatile/profile.h) is the row, then the name
// (profile JSON, messages), the flop count of one call, and one call on calibration tiles.
// Kernels (the calls their tasks name), the profile, calibration and the model all read this
// table. To add a tile kernel: its id in numatile/profile.h, its row here.
#ifndef NUMATILE_TILE_REGISTRY_H
#define NUMATILE_TILE_REGISTRY_H

#include <stdint.h>

#include "numatile/error.h"
#include "numatile/profile.h"

// Calibration tiles of one domain: A, B, C nb x nb (ld nb), T ib x nb (ld ib), work W of lw.
typedef struct nt_tk_tiles {
    int64_t nb, ib, lw;
    double *A, *B, *C, *T, *W;
} nt_tk_tiles_t;

typedef struct nt_tile_kernel_info {
    const char *name;
    // Real flops of one call on m x n x k (the sizes a task's nt_tk_call_t gives).
    double (*flops)(double m, double n, double k);
    // One call at the calibration size; the calls run in table order, so a kernel applying
    // reflectors finds those of the factorisation before it.
    nt_status (*calibrate)(const nt_tk_tiles_t *t);
} nt_tile_kernel_info_t;

// The row of kernel k (NULL when k is not an NT_TK_* id).
const nt_tile_kernel_info_t *nt_tile_kernel_info(int k);

// Name of kernel k, "unknown" when k is not an NT_TK_* id.
const char *nt_tk_name(int k);

#endif
