// Argument checks shared by the tiled kernels.
#include <stdlib.h>

#include "nt_core.h"
#include "nt_taskgraph.h"

nt_status nt_kern_check_matrix(const char *name, const nt_matrix_t *A, const nt_topo_t *topo)
{
    if (!A)
        return nt_fail(NT_EINVAL, "%s is NULL", name);
    if (!A->allocated || !A->tile)
        return nt_fail(NT_EINVAL, "%s has no memory", name);
    if (A->elem_size != sizeof(double))
        return nt_fail(NT_EINVAL, "%s: element size %zu, the kernels need doubles (8)", name,
                       A->elem_size);
    if (!A->topo)
        return nt_fail(NT_EINVAL, "%s has no topology", name);
    if (topo && A->topo != topo)
        return nt_fail(NT_EINVAL, "%s lives on another topology than the other operands", name);
    if (nt_topo_get_kind(A->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "%s: a synthetic topology cannot run kernels", name);
    return NT_OK;
}

typedef struct range {
    uintptr_t lo, hi;
} range;

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = ((const range *)a)->lo, y = ((const range *)b)->lo;
    return x < y ? -1 : x > y;
}

static range tile_range(const nt_matrix_t *A, int64_t i, int64_t j)
{
    uintptr_t lo = (uintptr_t)nt_matrix_tile(A, i, j);
    int64_t ext = (nt_matrix_tile_cols(A, j) - 1) * nt_matrix_tile_ld(A, i, j) +
                  nt_matrix_tile_rows(A, i);
    return (range){lo, lo + (uintptr_t)ext * sizeof(double)};
}

bool nt_kern_tiles_overlap(const nt_matrix_t *X, const nt_matrix_t *Y, nt_status *st)
{
    *st = NT_OK;
    if (X == Y)
        return true;
    size_t n = (size_t)(X->mt * X->nt);
    range *r = malloc(n * sizeof *r);
    uintptr_t *maxhi = malloc(n * sizeof *maxhi);
    if (!r || !maxhi) {
        free(r);
        free(maxhi);
        *st = nt_fail(NT_ENOMEM, "kernels: out of memory");
        return false;
    }
    for (int64_t i = 0, k = 0; i < X->mt; i++)
        for (int64_t j = 0; j < X->nt; j++)
            r[k++] = tile_range(X, i, j);
    qsort(r, n, sizeof *r, by_lo);
    // Tiles of one matrix may interleave (ScaLAPACK layout): keep the running maximum end.
    for (size_t k = 0; k < n; k++)
        maxhi[k] = k && maxhi[k - 1] > r[k].hi ? maxhi[k - 1] : r[k].hi;
    bool hit = false;
    for (int64_t i = 0; i < Y->mt && !hit; i++)
        for (int64_t j = 0; j < Y->nt && !hit; j++) {
            range y = tile_range(Y, i, j);
            // Last X range starting before y ends.
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (r[mid].lo < y.hi)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            hit = lo > 0 && maxhi[lo - 1] > y.lo;
        }
    free(r);
    free(maxhi);
    return hit;
}
