// Sparse count matrices: their check, the tile-map builder, the dense view and the costs of a
// labelling, all in O(p + nnz) memory (no p_ini x p_tar table).
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

// Largest total a sparse matrix may carry: potentials and path lengths of the solver stay
// below 2^62 (a path adds at most the total once to a potential of at most the total).
#define SPARSE_MAX_TOTAL ((int64_t)1 << 60)

// Offsets, column ranges and counts; the repeated-column check needs scratch (below).
static nt_status check_rows(const char *who, const nt_sparse_counts_t *n, int64_t *total)
{
    if (n->start[0] != 0 || n->start[n->p_ini] != n->nnz)
        return nt_fail(NT_EINVAL, "%s: start[0] = %lld must be 0 and start[p_ini] = %lld must "
                       "equal nnz = %lld", who, (long long)n->start[0],
                       (long long)n->start[n->p_ini], (long long)n->nnz);
    if (n->nnz > 0 && (!n->col || !n->count))
        return nt_fail(NT_EINVAL, "%s: col or count is NULL with nnz = %lld", who,
                       (long long)n->nnz);
    int64_t t = 0;
    for (int i = 0; i < n->p_ini; i++) {
        if (n->start[i + 1] < n->start[i])
            return nt_fail(NT_EINVAL, "%s: start[%d] = %lld is less than start[%d] = %lld", who,
                           i + 1, (long long)n->start[i + 1], i, (long long)n->start[i]);
        for (int64_t e = n->start[i]; e < n->start[i + 1]; e++) {
            if (n->col[e] < 0 || n->col[e] >= n->p_tar)
                return nt_fail(NT_EINVAL, "%s: col[%lld] = %d (row %d) is outside 0..%d", who,
                               (long long)e, n->col[e], i, n->p_tar - 1);
            if (n->count[e] < 0)
                return nt_fail(NT_EINVAL, "%s: count[%lld] = %lld (row %d, column %d) is "
                               "negative", who, (long long)e, (long long)n->count[e], i,
                               n->col[e]);
            if (__builtin_add_overflow(t, n->count[e], &t) || t > SPARSE_MAX_TOTAL)
                return nt_fail(NT_ERANGE, "%s: the total of the counts exceeds 2^60", who);
        }
    }
    *total = t;
    return NT_OK;
}

nt_status nt_sparse_check(const char *who, const nt_sparse_counts_t *n, int p_dom, int *pd,
                          int64_t *total)
{
    if (!n)
        return nt_fail(NT_EINVAL, "%s: the count matrix is NULL", who);
    int d = p_dom ? p_dom : (n->p_ini > n->p_tar ? n->p_ini : n->p_tar);
    nt_status st = nt_shape_check(who, n->p_ini, n->p_tar, d);
    if (st != NT_OK)
        return st;
    if (!n->start)
        return nt_fail(NT_EINVAL, "%s: start is NULL", who);
    if ((st = check_rows(who, n, total)) != NT_OK)
        return st;
    // A column twice in one row would count twice in the costs but once in the matching.
    int *last = malloc((size_t)n->p_tar * sizeof *last);
    if (!last)
        return nt_fail(NT_ENOMEM, "%s: cannot allocate %d columns of scratch", who, n->p_tar);
    for (int j = 0; j < n->p_tar; j++)
        last[j] = -1;
    for (int i = 0; i < n->p_ini && st == NT_OK; i++)
        for (int64_t e = n->start[i]; e < n->start[i + 1]; e++) {
            if (last[n->col[e]] == i) {
                st = nt_fail(NT_EINVAL, "%s: column %d appears twice in row %d (col[%lld])",
                             who, n->col[e], i, (long long)e);
                break;
            }
            last[n->col[e]] = i;
        }
    free(last);
    if (st == NT_OK)
        *pd = d;
    return st;
}

void nt_sparse_counts_free(nt_sparse_counts_t *n)
{
    if (!n)
        return;
    free(n->start);
    free(n->col);
    free(n->count);
    *n = (nt_sparse_counts_t){0};
}

nt_status nt_sparse_counts_dense(const nt_sparse_counts_t *n, int64_t *counts)
{
    int pd;
    int64_t total;
    nt_status st = nt_sparse_check("sparse counts", n, 0, &pd, &total);
    if (st != NT_OK)
        return st;
    if (!counts)
        return nt_fail(NT_EINVAL, "sparse counts: counts is NULL");
    memset(counts, 0, (size_t)n->p_ini * (size_t)n->p_tar * sizeof *counts);
    for (int i = 0; i < n->p_ini; i++)
        for (int64_t e = n->start[i]; e < n->start[i + 1]; e++)
            counts[(int64_t)i * n->p_tar + n->col[e]] = n->count[e];
    return NT_OK;
}

// Sent, received and kept of every domain under sigma (q's row and column sums off the
// diagonal, without q): a domain's kept weight is its entry in the column placed on it.
static nt_status sparse_cost_eval(const nt_sparse_counts_t *n, int pd, const int *sigma,
                                  int64_t total, nt_cost_t *cost)
{
    int64_t *sent = calloc((size_t)pd, sizeof *sent), *recv = calloc((size_t)pd, sizeof *recv);
    if (!sent || !recv) {
        free(sent);
        free(recv);
        return nt_fail(NT_ENOMEM, "sparse cost: cannot allocate scratch for p_dom = %d", pd);
    }
    int64_t local = 0;
    for (int i = 0; i < n->p_ini; i++)
        for (int64_t e = n->start[i]; e < n->start[i + 1]; e++) {
            int k = sigma[n->col[e]];
            if (k == i) {
                local += n->count[e];
            } else {
                sent[i] += n->count[e];
                recv[k] += n->count[e];
            }
        }
    int64_t steps = 0;
    for (int k = 0; k < pd; k++) {
        int64_t m = sent[k] > recv[k] ? sent[k] : recv[k];
        steps = m > steps ? m : steps;
    }
    free(sent);
    free(recv);
    *cost = (nt_cost_t){.volume = total - local, .local = local, .steps = steps};
    return NT_OK;
}

nt_status nt_sparse_cost(const nt_sparse_counts_t *n, int p_dom, const int *sigma,
                         nt_cost_t *cost)
{
    int pd;
    int64_t total;
    nt_status st = nt_sparse_check("sparse cost", n, p_dom, &pd, &total);
    if (st != NT_OK)
        return st;
    if (!cost)
        return nt_fail(NT_EINVAL, "sparse cost: cost is NULL");
    if ((st = nt_sigma_check("sparse cost", sigma, n->p_tar, pd)) != NT_OK)
        return st;
    return sparse_cost_eval(n, pd, sigma, total, cost);
}
