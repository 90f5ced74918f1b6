// Helpers shared by the kernel unit tests (test_gemm.c, test_qr.c): a virtual topology, element
// reads through the public accessor, and a dense column-major copy for the naive oracles.
#ifndef NUMATILE_KERNEL_TEST_UTIL_H
#define NUMATILE_KERNEL_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "numatile.h"
#include "numatile/matrix.h"

// D virtual domains on this machine; the test fails if they cannot be loaded.
static inline nt_topo_t *kt_topo(int D)
{
    nt_topo_opts_t o = {.domains = D};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    return t;
}

// Element (r, c) of a matrix of doubles.
static inline double kt_get(const nt_matrix_t *A, int64_t r, int64_t c)
{
    return *(const double *)nt_matrix_elem(A, r, c);
}

// A column-major m x n copy of A (leading dimension m); the caller frees it.
static inline double *kt_dense(const nt_matrix_t *A)
{
    double *d = malloc((size_t)(A->m * A->n) * sizeof *d);
    cr_assert_not_null(d);
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            d[r + c * A->m] = kt_get(A, r, c);
    return d;
}

#endif
