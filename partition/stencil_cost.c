// Cost model of a redistribution followed by a 3-point circular 1D stencil (Herrmann 2016 §5.1).
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_partition.h"
#include "numatile/stencil_model.h"

static nt_status check_ids(const char *name, int64_t n, int p, const int *ids)
{
    if (!ids)
        return nt_fail(NT_EINVAL, "%s is NULL", name);
    for (int64_t x = 0; x < n; x++)
        if (ids[x] < 0 || ids[x] >= p)
            return nt_fail(NT_EINVAL, "%s[%lld] = %d is out of range [0, %d)", name,
                           (long long)x, ids[x], p);
    return NT_OK;
}

static nt_status check_sizes(int64_t n, int p)
{
    if (p < 1)
        return nt_fail(NT_EINVAL, "p = %d: need at least one domain", p);
    if (n < p)
        return nt_fail(NT_EINVAL, "n = %lld items is fewer than p = %d domains", (long long)n, p);
    return NT_OK;
}

nt_status nt_stencil_check_params(const nt_stencil_params_t *params)
{
    if (!params)
        return nt_fail(NT_EINVAL, "params is NULL");
    if (params->iters < 0)
        return nt_fail(NT_EINVAL, "params->iters = %lld is negative", (long long)params->iters);
    if (!isfinite(params->tau_comm) || params->tau_comm < 0)
        return nt_fail(NT_EINVAL, "params->tau_comm = %g must be finite and >= 0",
                       params->tau_comm);
    if (!isfinite(params->tau_calc) || params->tau_calc < 0)
        return nt_fail(NT_EINVAL, "params->tau_calc = %g must be finite and >= 0",
                       params->tau_calc);
    return NT_OK;
}

// Components of the left and right neighbours of item x on the ring.
static inline int left_of(int64_t n, const int *part, int64_t x)
{
    return part[x == 0 ? n - 1 : x - 1];
}

static inline int right_of(int64_t n, const int *part, int64_t x)
{
    return part[x == n - 1 ? 0 : x + 1];
}

nt_status nt_stencil_halo(int64_t n, int p, const int *part, int64_t *nij, int64_t *load)
{
    nt_status st = check_sizes(n, p);
    if (st == NT_OK)
        st = check_ids("part", n, p, part);
    if (st != NT_OK)
        return st;
    if (!nij)
        return nt_fail(NT_EINVAL, "nij is NULL");
    size_t pp;
    if (!nt_mul_size((size_t)p, (size_t)p, &pp) || !nt_mul_size(pp, sizeof *nij, &pp))
        return nt_fail(NT_ERANGE, "p*p = %d*%d halo entries overflow", p, p);
    memset(nij, 0, pp);
    if (load)
        memset(load, 0, (size_t)p * sizeof *load);
    for (int64_t x = 0; x < n; x++) {
        int c = part[x], a = left_of(n, part, x), b = right_of(n, part, x);
        // One copy of x goes to each distinct other component next to it.
        if (a != c)
            nij[(size_t)c * (size_t)p + (size_t)a]++;
        if (b != c && b != a)
            nij[(size_t)c * (size_t)p + (size_t)b]++;
        if (load)
            load[c]++;
    }
    return NT_OK;
}

double nt_stencil_total(const nt_stencil_cost_t *cost, nt_stencil_model_t model)
{
    return model == NT_STENCIL_MODEL_STEPS ? cost->total_steps : cost->total_volume;
}

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

nt_status nt_stencil_evaluate(int64_t n, int p, const int *ini, const int *part,
                              const int *sigma, const nt_stencil_params_t *params,
                              nt_stencil_cost_t *cost)
{
    nt_status st = check_sizes(n, p);
    if (st == NT_OK)
        st = check_ids("ini", n, p, ini);
    if (st == NT_OK)
        st = check_ids("part", n, p, part);
    if (st == NT_OK && sigma)
        st = check_ids("sigma", p, p, sigma);
    if (st == NT_OK)
        st = nt_stencil_check_params(params);
    if (st != NT_OK)
        return st;
    if (!cost)
        return nt_fail(NT_EINVAL, "cost is NULL");

    // Five per-domain counters: sent, received (redistribution), halo out, halo in, load.
    size_t bytes;
    if (!nt_mul_size((size_t)p, 5 * sizeof(int64_t), &bytes))
        return nt_fail(NT_ERANGE, "p = %d: workspace size overflows", p);
    int64_t *w = calloc(1, bytes);
    if (!w)
        return nt_fail(NT_ENOMEM, "no memory for a %zu-byte workspace", bytes);
    int64_t *sent = w, *recv = w + p, *out = w + 2 * (size_t)p, *in = w + 3 * (size_t)p;
    int64_t *load = w + 4 * (size_t)p;

    if (sigma) {
        // sigma must be a bijection: reuse 'sent' as a seen-flag array, then clear it.
        for (int c = 0; c < p; c++) {
            if (sent[sigma[c]]) {
                free(w);
                return nt_fail(NT_EINVAL, "sigma is not a permutation: domain %d appears twice",
                               sigma[c]);
            }
            sent[sigma[c]] = 1;
        }
        memset(sent, 0, (size_t)p * sizeof *sent);
    }

    nt_stencil_cost_t c = {0};
    for (int64_t x = 0; x < n; x++) {
        int k = part[x];
        int dst = sigma ? sigma[k] : k;
        if (dst != ini[x]) {
            c.redist_volume++;
            sent[ini[x]]++;
            recv[dst]++;
        }
        int a = left_of(n, part, x), b = right_of(n, part, x);
        if (a != k) {
            out[k]++;
            in[a]++;
        }
        if (b != k && b != a) {
            out[k]++;
            in[b]++;
        }
        load[k]++;
    }
    for (int i = 0; i < p; i++) {
        c.redist_steps = max_i64(c.redist_steps, max_i64(sent[i], recv[i]));
        c.halo_volume += out[i];
        c.halo_steps = max_i64(c.halo_steps, max_i64(out[i], in[i]));
        c.max_load = max_i64(c.max_load, load[i]);
    }
    free(w);

    double calc = params->tau_calc * (double)c.max_load;
    double k_iters = (double)params->iters;
    c.iter_volume = params->tau_comm * (double)c.halo_volume + calc;
    c.iter_steps = params->tau_comm * (double)c.halo_steps + calc;
    c.total_volume = params->tau_comm * (double)c.redist_volume + k_iters * c.iter_volume;
    c.total_steps = params->tau_comm * (double)c.redist_steps + k_iters * c.iter_steps;
    *cost = c;
    return NT_OK;
}
