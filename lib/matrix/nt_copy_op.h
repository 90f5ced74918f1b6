// The copy kernel of plans with an operation (nt_plan_create_op()): B = beta*B + alpha*op(A)
// on a 2D strided block, restricted to a p?trmr2d trapezoid; called by the stored-segment
// strategy (lib/redist/exec_segments.c). Implemented in copy_op.c.
#ifndef NUMATILE_COPY_OP_INTERNAL_H
#define NUMATILE_COPY_OP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/plan.h"

// The operation, as the kernel reads it (nt_copy_op_init() from a plan's nt_plan_op_t).
typedef struct nt_copy_op {
    nt_dtype dtype;   // NONE: raw elements of es bytes, moved only (alpha 1, beta 0, no conj)
    size_t es;        // bytes per element
    bool trans, conj; // op T or C; C on a complex type
    double ar, ai;    // alpha
    double br, bi;    // beta
    bool beta0;       // beta = 0: B is never read
    bool alpha0;      // alpha = 0: A is never read
    bool move;        // alpha = 1, beta = 0, no conjugation: elements are moved, not computed
    nt_uplo uplo;
    bool unit;        // DIAG U: the trapezoid leaves its diagonal out
    int64_t m, n;     // the whole submatrix (B's extent), which the trapezoid is relative to
    bool avx2;        // transpose with AVX2 (the cpu has it; nt_copy_op_isa())
    bool avx512;      // transpose with AVX-512 (the cpu has it; implies avx2)
} nt_copy_op;

// The kernel's form of op on elements of `dtype` (es bytes each), for an m x n submatrix.
void nt_copy_op_init(nt_copy_op *k, const nt_plan_op_t *op, nt_dtype dtype, size_t es,
                     int64_t m, int64_t n);

// Tests and benchmarks: the instruction sets later nt_copy_op_init() calls may choose from; 0
// the portable kernels only, 1 up to AVX2, 2 up to AVX-512, -1 (the default) all the cpu has.
void nt_copy_op_test_isa(int level);

// The instruction set k's transposes use: 0 portable, 1 AVX2, 2 AVX-512.
int nt_copy_op_isa(const nt_copy_op *k);

// Rows [*lo, *hi) of submatrix column y (0 <= y < n) inside the trapezoid (p?trmr2d's rule,
// see nt_plan_op_t); *lo >= *hi when none.
void nt_copy_op_rows(const nt_copy_op *k, int64_t y, int64_t *lo, int64_t *hi);

// The rows x cols block of B at dst (column-major, leading dimension ldd) whose first element
// is element (x0, y0) of the submatrix: B = beta*B + alpha*op(A) on its elements inside the
// trapezoid, the others untouched. A's block at src (leading dimension lds) is rows x cols, or
// cols x rows when transposed (element (i, j) of B's block takes A's (j, i)). NT_COPY_STREAM
// in flags (nt_copy.h) lets whole target lines be streamed when beta = 0; a store fence ends
// the call unless NT_COPY_NOFENCE. The blocks must not overlap. Thread-safe.
void nt_copy_op_2d(const nt_copy_op *k, void *dst, int64_t ldd, const void *src, int64_t lds,
                   int64_t rows, int64_t cols, int64_t x0, int64_t y0, unsigned flags);

#endif
