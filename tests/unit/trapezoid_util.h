// Oracle of the unit tests of operations: ScaLAPACK's p?trmr2d trapezoid, from its definition.
#ifndef NUMATILE_TEST_TRAPEZOID_UTIL_H
#define NUMATILE_TEST_TRAPEZOID_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/plan.h"

// Whether element (x, y) of an m x n submatrix is in p?trmr2d's trapezoid (REDIST/SRC/p?trmr2.c,
// insidemat): upper keeps column y's rows up to max(m - n, 0) + y (diagonal included unless
// unit), lower from y - max(n - m, 0) (plus one when unit); every element otherwise.
static inline bool kept(nt_uplo uplo, bool unit, int64_t x, int64_t y, int64_t m, int64_t n)
{
    if (uplo == NT_UPLO_UPPER)
        return x < (m > n ? m - n : 0) + y + (unit ? 0 : 1);
    if (uplo == NT_UPLO_LOWER)
        return x >= y - (n > m ? n - m : 0) + (unit ? 1 : 0);
    return true;
}

#endif
