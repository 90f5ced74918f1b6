// LAPACK <-> tile conversions: the checked geometry their files use (convert_copy.c,
// convert_inplace.c, convert_pack.c), the packing pass, and the in-place conversion's test
// hooks (tests/unit/test_convert*.c).
#ifndef NUMATILE_CONVERT_INTERNAL_H
#define NUMATILE_CONVERT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/convert.h"

// A checked geometry with what every conversion derives from it.
typedef struct nt_cgeom {
    int64_t m, n, lda, mb, nb;
    int64_t mt, nt; // tile rows and columns
    int64_t mtf;    // full tile rows (m / mb)
    int64_t mr;     // rows of the last tile row when partial, else 0
    size_t es;      // bytes per element
    size_t bytes;   // bytes of the LAPACK array: ((n-1)*lda + m) * es
} nt_cgeom;

// Check g (who names the function in messages) and derive the rest: NT_EINVAL for a NULL or
// a size below its minimum, NT_ERANGE when the array's bytes overflow size_t or int64_t.
nt_status nt_convert_check(const nt_convert_geom_t *g, const char *who, nt_cgeom *out);

// Columns of tile column j.
static inline int64_t nt_cgeom_cols(const nt_cgeom *c, int64_t j)
{
    return j < c->nt - 1 ? c->nb : c->n - (c->nt - 1) * c->nb;
}

// Rows of tile row i.
static inline int64_t nt_cgeom_rows(const nt_cgeom *c, int64_t i)
{
    return i < c->mt - 1 ? c->mb : c->m - (c->mt - 1) * c->mb;
}

// Element offset of tile (i,j) in the tile layout (numatile/convert.h).
static inline int64_t nt_cgeom_tile(const nt_cgeom *c, int64_t i, int64_t j)
{
    return j * c->nb * c->m + i * c->mb * nt_cgeom_cols(c, j);
}

// Bytes below which an extra thread costs more than it copies (starting and joining it).
#define NT_CONVERT_THREAD_BYTES ((size_t)256 << 10)

// Threads worth running on bytes, at most threads (>= 1).
static inline int nt_convert_threads(int threads, size_t bytes)
{
    size_t worth = 1 + bytes / NT_CONVERT_THREAD_BYTES;
    return worth < (size_t)threads ? (int)worth : threads;
}

// Pack the columns of the array at a from leading dimension lda to m (up: back from m to lda)
// in place with up to threads threads, no workspace (convert_pack.c); flags as nt_copy_2d_ex's.
void nt_convert_pack(char *a, const nt_cgeom *c, int threads, unsigned flags, bool up);

// Allocation-failure injection: the allocation after k more succeeds fails (NT_ENOMEM, before
// the array is touched); k < 0 disarms (the default). It fires once and disarms itself.
void nt_convert_test_fail_alloc_after(int64_t k);

// The most workspace bytes the in-place conversions held at once since the last reset,
// counted at the allocations themselves (the oracle of "never above the budget").
size_t nt_convert_test_peak_bytes(void);
void nt_convert_test_reset_peak(void);

#endif
