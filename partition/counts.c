// The count matrix n[i][j] of a distribution against a partition, in O(n + p_ini * p_tar).
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

nt_status nt_counts_total(const int64_t *counts, int p_ini, int p_tar, int64_t *total)
{
    int64_t t = 0;
    for (int64_t x = 0; x < (int64_t)p_ini * p_tar; x++) {
        if (counts[x] < 0)
            return nt_fail(NT_EINVAL, "count matrix: entry (%lld,%lld) = %lld is negative",
                           (long long)(x / p_tar), (long long)(x % p_tar), (long long)counts[x]);
        if (__builtin_add_overflow(t, counts[x], &t))
            return nt_fail(NT_ERANGE, "count matrix: the total overflows int64");
    }
    *total = t;
    return NT_OK;
}

nt_status nt_counts_compute(int64_t n, const int *ini, int p_ini, const int *tar, int p_tar,
                            const int64_t *size, int64_t *items, int64_t *weight)
{
    if (n < 0 || p_ini < 1 || p_tar < 1)
        return nt_fail(NT_EINVAL, "counts: n %lld must be >= 0, p_ini %d and p_tar %d >= 1",
                       (long long)n, p_ini, p_tar);
    if (n > 0 && (!ini || !tar))
        return nt_fail(NT_EINVAL, "counts: ini or tar is NULL");
    size_t cells;
    if (!nt_mul_size((size_t)p_ini, (size_t)p_tar, &cells) || cells > SIZE_MAX / 16)
        return nt_fail(NT_ERANGE, "counts: %d x %d matrix is too large", p_ini, p_tar);
    // Scratch first, so the caller's arrays stay untouched on failure.
    int64_t *ci = calloc(cells, sizeof *ci);
    int64_t *cw = size ? calloc(cells, sizeof *cw) : NULL;
    if (!ci || (size && !cw)) {
        free(ci);
        free(cw);
        return nt_fail(NT_ENOMEM, "counts: cannot allocate a %d x %d matrix", p_ini, p_tar);
    }
    nt_status st = NT_OK;
    for (int64_t x = 0; x < n; x++) {
        unsigned a = (unsigned)ini[x], b = (unsigned)tar[x];
        if (a >= (unsigned)p_ini || b >= (unsigned)p_tar) {
            st = nt_fail(NT_EINVAL, "counts: item %lld has domain %d (0..%d) and component %d "
                         "(0..%d)", (long long)x, ini[x], p_ini - 1, tar[x], p_tar - 1);
            break;
        }
        size_t cell = (size_t)a * (size_t)p_tar + b;
        ci[cell]++;
        if (size) {
            if (size[x] < 1) {
                st = nt_fail(NT_EINVAL, "counts: item %lld has size %lld, sizes must be >= 1",
                             (long long)x, (long long)size[x]);
                break;
            }
            if (__builtin_add_overflow(cw[cell], size[x], &cw[cell])) {
                st = nt_fail(NT_ERANGE, "counts: the weight of cell (%u,%u) overflows int64",
                             a, b);
                break;
            }
        }
    }
    if (st == NT_OK) {
        if (items)
            memcpy(items, ci, cells * sizeof *ci);
        if (weight)
            memcpy(weight, size ? cw : ci, cells * sizeof *ci);
    }
    free(ci);
    free(cw);
    return st;
}

nt_status nt_counts_tilemaps(const nt_tilemap_t *src, const nt_tilemap_t *dst,
                             const int64_t *size, int64_t *items, int64_t *weight)
{
    if (!src || !dst)
        return nt_fail(NT_EINVAL, "counts: src or dst map is NULL");
    if (src->mt != dst->mt || src->nt != dst->nt)
        return nt_fail(NT_EINVAL, "counts: grids differ (%lldx%lld and %lldx%lld)",
                       (long long)src->mt, (long long)src->nt, (long long)dst->mt,
                       (long long)dst->nt);
    return nt_counts_compute(src->mt * src->nt, src->owner, src->ndomains, dst->owner,
                             dst->ndomains, size, items, weight);
}
