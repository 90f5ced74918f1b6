// Costs of a labelling: transfer matrix, volume, one-port steps, distance-weighted volume.
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

nt_status nt_shape_check(const char *who, int p_ini, int p_tar, int p_dom)
{
    if (p_ini < 1 || p_tar < 1 || p_dom < p_ini || p_dom < p_tar)
        return nt_fail(NT_EINVAL, "%s: sizes p_ini %d, p_tar %d, p_dom %d: need p_ini, p_tar "
                       ">= 1 and p_dom >= both", who, p_ini, p_tar, p_dom);
    return NT_OK;
}

nt_status nt_sigma_check(const char *who, const int *sigma, int p_tar, int p_dom)
{
    if (!sigma)
        return nt_fail(NT_EINVAL, "%s: sigma is NULL", who);
    int *seen = calloc((size_t)p_dom, sizeof *seen);
    if (!seen)
        return nt_fail(NT_ENOMEM, "%s: cannot allocate %d flags", who, p_dom);
    nt_status st = NT_OK;
    for (int j = 0; j < p_tar && st == NT_OK; j++) {
        if (sigma[j] < 0 || sigma[j] >= p_dom)
            st = nt_fail(NT_EINVAL, "%s: sigma[%d] = %d is not a domain 0..%d", who, j, sigma[j],
                         p_dom - 1);
        else if (seen[sigma[j]]++)
            st = nt_fail(NT_EINVAL, "%s: sigma is not injective (domain %d used twice)", who,
                         sigma[j]);
    }
    free(seen);
    return st;
}

nt_status nt_transfer_matrix(const int64_t *counts, int p_ini, int p_tar, int p_dom,
                           const int *sigma, int64_t *q)
{
    nt_status st = nt_shape_check("transfer", p_ini, p_tar, p_dom);
    if (st != NT_OK)
        return st;
    if (!counts || !q)
        return nt_fail(NT_EINVAL, "transfer: counts or q is NULL");
    int64_t total;
    if ((st = nt_sigma_check("transfer", sigma, p_tar, p_dom)) ||
        (st = nt_counts_total(counts, p_ini, p_tar, &total)))
        return st;
    // Every cell of q is a partial sum of counts, so the checked total bounds them all.
    memset(q, 0, (size_t)p_dom * (size_t)p_dom * sizeof *q);
    for (int i = 0; i < p_ini; i++)
        for (int j = 0; j < p_tar; j++)
            q[(int64_t)i * p_dom + sigma[j]] += counts[(int64_t)i * p_tar + j];
    return NT_OK;
}

nt_status nt_transfer_cost(const int64_t *q, int p, const int64_t *dist, nt_cost_t *out)
{
    if (!q || !out || p < 1)
        return nt_fail(NT_EINVAL, "transfer costs: q or out is NULL, or p %d < 1", p);
    nt_cost_t c = {0, 0, 0, 0};
    for (int i = 0; i < p; i++) {
        int64_t s = 0, r = 0;
        for (int k = 0; k < p; k++) {
            int64_t a = q[(int64_t)i * p + k], b = q[(int64_t)k * p + i];
            if (a < 0)
                return nt_fail(NT_EINVAL, "transfer costs: q[%d][%d] = %lld is negative", i, k,
                               (long long)a);
            if (dist && dist[(int64_t)i * p + k] < 0)
                return nt_fail(NT_EINVAL, "transfer costs: dist[%d][%d] is negative", i, k);
            if (k == i) {
                if (__builtin_add_overflow(c.local, a, &c.local))
                    return nt_fail(NT_ERANGE, "transfer costs: local volume overflows");
                continue;
            }
            int64_t dv = 0;
            if (__builtin_add_overflow(s, a, &s) || __builtin_add_overflow(r, b, &r) ||
                __builtin_add_overflow(c.volume, a, &c.volume) ||
                (dist && (__builtin_mul_overflow(a, dist[(int64_t)i * p + k], &dv) ||
                          __builtin_add_overflow(c.dist_volume, dv, &c.dist_volume))))
                return nt_fail(NT_ERANGE, "transfer costs: a sum overflows int64");
        }
        if (s > c.steps)
            c.steps = s;
        if (r > c.steps)
            c.steps = r;
    }
    *out = c;
    return NT_OK;
}

nt_status nt_cost_eval(const int64_t *counts, int p_ini, int p_tar, int p_dom, const int *sigma,
                       const int64_t *dist, nt_cost_t *out)
{
    nt_status st = nt_shape_check("costs", p_ini, p_tar, p_dom);
    if (st != NT_OK)
        return st;
    if (!counts || !out)
        return nt_fail(NT_EINVAL, "costs: counts or out is NULL");
    int64_t total;
    if ((st = nt_sigma_check("costs", sigma, p_tar, p_dom)) ||
        (st = nt_counts_total(counts, p_ini, p_tar, &total)))
        return st;
    if (dist)
        for (int64_t x = 0; x < (int64_t)p_dom * p_dom; x++)
            if (dist[x] < 0)
                return nt_fail(NT_EINVAL, "costs: dist[%lld][%lld] is negative",
                               (long long)(x / p_dom), (long long)(x % p_dom));
    // Row sums R (domain loads), column sums C (component sizes), host[k] = component on k.
    int64_t *rsum = calloc((size_t)p_dom, sizeof *rsum);
    int64_t *csum = calloc((size_t)p_tar, sizeof *csum);
    int *host = malloc((size_t)p_dom * sizeof *host);
    if (!rsum || !csum || !host) {
        free(rsum);
        free(csum);
        free(host);
        return nt_fail(NT_ENOMEM, "costs: cannot allocate scratch for %d domains", p_dom);
    }
    for (int i = 0; i < p_ini; i++)
        for (int j = 0; j < p_tar; j++) {
            rsum[i] += counts[(int64_t)i * p_tar + j];
            csum[j] += counts[(int64_t)i * p_tar + j];
        }
    for (int k = 0; k < p_dom; k++)
        host[k] = -1;
    for (int j = 0; j < p_tar; j++)
        host[sigma[j]] = j;
    nt_cost_t c = {0, 0, 0, 0};
    for (int k = 0; k < p_dom; k++) {
        int j = host[k];
        int64_t kept = (j >= 0 && k < p_ini) ? counts[(int64_t)k * p_tar + j] : 0;
        int64_t sent = rsum[k] - kept, recv = j >= 0 ? csum[j] - kept : 0;
        c.local += kept;
        if (sent > c.steps)
            c.steps = sent;
        if (recv > c.steps)
            c.steps = recv;
    }
    c.volume = total - c.local;
    if (dist)
        for (int j = 0; j < p_tar && st == NT_OK; j++)
            for (int i = 0; i < p_ini; i++) {
                int k = sigma[j];
                int64_t dv;
                if (i != k &&
                    (__builtin_mul_overflow(counts[(int64_t)i * p_tar + j],
                                            dist[(int64_t)i * p_dom + k], &dv) ||
                     __builtin_add_overflow(c.dist_volume, dv, &c.dist_volume))) {
                    st = nt_fail(NT_ERANGE, "costs: the distance-weighted volume overflows");
                    break;
                }
            }
    free(rsum);
    free(csum);
    free(host);
    if (st == NT_OK)
        *out = c;
    return st;
}
