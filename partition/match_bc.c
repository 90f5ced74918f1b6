// Relabelling a block-cyclic layout change from the two factors of its counts (nt_kron_bc()),
// without the P x (row pairs x column pairs) count matrix.
#include <stdlib.h>

#include "nt_partition.h"

// Solvers' bound on the total (as nt_sparse_check()).
#define BC_MAX_TOTAL ((int64_t)1 << 60)

// The factors of the change, p_dom resolved into *pd and the total (rows x cols) checked.
static nt_status open_bc(const char *who, int64_t rows, int64_t cols, const nt_bc_layout_t *src,
                         int p_ini, const nt_bc_layout_t *dst, int p_tar, int p_dom, int *pd,
                         nt_kron_t *k)
{
    int d = p_dom ? p_dom : (p_ini > p_tar ? p_ini : p_tar);
    nt_status st = nt_shape_check(who, p_ini, p_tar, d);
    if (st != NT_OK)
        return st;
    if (rows > 0 && cols > BC_MAX_TOTAL / rows)
        return nt_fail(NT_ERANGE, "%s: rows x cols = %lld x %lld exceeds 2^60", who,
                       (long long)rows, (long long)cols);
    if ((st = nt_kron_bc(rows, cols, src, p_ini, dst, p_tar, k)) == NT_OK)
        *pd = d;
    return st;
}

nt_status nt_match_bc_volume(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                             const nt_bc_layout_t *dst, int p_tar, int p_dom, int *sigma,
                             nt_cost_t *cost, int64_t *nnz)
{
    if (!sigma)
        return nt_fail(NT_EINVAL, "bc match: sigma is NULL");
    nt_kron_t k = {0};
    int pd;
    nt_status st = open_bc("bc match", rows, cols, src, p_ini, dst, p_tar, p_dom, &pd, &k);
    if (st != NT_OK)
        return st;
    st = nt_kron_match(&k, pd, rows * cols, sigma, cost);
    if (st == NT_OK && nnz)
        *nnz = k.nnz;
    nt_kron_free(&k);
    return st;
}

nt_status nt_cost_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                     const nt_bc_layout_t *dst, int p_tar, int p_dom, const int *sigma,
                     nt_cost_t *cost)
{
    if (!cost)
        return nt_fail(NT_EINVAL, "bc cost: cost is NULL");
    nt_kron_t k = {0};
    int pd;
    nt_status st = open_bc("bc cost", rows, cols, src, p_ini, dst, p_tar, p_dom, &pd, &k);
    if (st == NT_OK && (st = nt_sigma_check("bc cost", sigma, p_tar, pd)) == NT_OK)
        st = nt_kron_cost(&k, pd, sigma, rows * cols, cost);
    nt_kron_free(&k);
    return st;
}
