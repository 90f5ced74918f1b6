// SFCP (Lambert §1.5): walk the Hilbert curve of the n x n grid and give each domain the next
// run of its tile count. Every q-square is one run of the curve and consecutive cells share a
// row or a column, whence the 3 sqrt(3) / sqrt(11) bound per zone (Theorem 1.35).
#include <stdlib.h>

#include "hetero_int.h"

// Cell (row, col) of position d on the Hilbert curve of an n x n grid, n a power of two.
// From the finest level up: pick the quadrant from two bits of d, then rotate or reflect the
// position found so far so that the sub-curve enters and leaves where its parent needs.
static void hilbert_cell(int64_t n, int64_t d, int64_t *row, int64_t *col)
{
    int64_t x = 0, y = 0;
    for (int64_t s = 1; s < n; s *= 2, d /= 4) {
        int64_t rx = (d / 2) & 1, ry = (d ^ rx) & 1;
        if (!ry) {
            if (rx)
                x = s - 1 - x, y = s - 1 - y;
            int64_t t = x;
            x = y, y = t;
        }
        x += s * rx;
        y += s * ry;
    }
    *row = y;
    *col = x;
}

nt_status nt_hetero_sfcp(int m, const int64_t *counts, int64_t n, int *owner)
{
    if (m < 1 || !counts || !owner)
        return nt_fail(NT_EINVAL, "hetero: sfcp needs m >= 1 (got %d) and non-NULL arrays", m);
    if (n < 1 || n > (1 << 15) || (n & (n - 1)))
        return nt_fail(NT_EINVAL, "hetero: sfcp needs n a power of two in 1..32768, got %lld",
                       (long long)n);
    int64_t total = 0;
    for (int i = 0; i < m; i++) {
        if (counts[i] < 0)
            return nt_fail(NT_EINVAL, "hetero: count %d is negative", i);
        total += counts[i];
    }
    if (total != n * n)
        return nt_fail(NT_EINVAL, "hetero: counts add up to %lld, the grid has %lld tiles",
                       (long long)total, (long long)(n * n));
    int64_t d = 0;
    for (int i = 0; i < m; i++)
        for (int64_t k = 0; k < counts[i]; k++, d++) {
            int64_t r, c;
            hilbert_cell(n, d, &r, &c);
            owner[r * n + c] = i;
        }
    return NT_OK;
}
