// 1D item maps for the stencil experiments: canonical block, random balanced, and Herrmann's
// skewed D_ini^alpha.
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "nt_partition.h"

// floor(x * p / n) without overflowing x * p.
static int block_of(int64_t x, int p, int64_t n)
{
    return (int)(((nt_u128)(uint64_t)x * (uint64_t)p) / (uint64_t)n);
}

nt_status nt_dist1d_block(int64_t n, int p, nt_dist1d_t **out)
{
    nt_dist1d_t *d;
    nt_status st = nt_dist1d_create(n, p, &d);
    if (st != NT_OK)
        return st;
    for (int64_t x = 0; x < n; x++)
        d->owner[x] = block_of(x, p, n);
    *out = d;
    return NT_OK;
}

nt_status nt_dist1d_balanced(int64_t n, int p, uint64_t seed, nt_dist1d_t **out)
{
    nt_dist1d_t *d;
    nt_status st = nt_dist1d_block(n, p, &d);
    if (st != NT_OK)
        return st;
    nt_rng rng = {seed};
    nt_shuffle_int(d->owner, n, &rng);
    *out = d;
    return NT_OK;
}

nt_status nt_dist1d_skewed(int p, int64_t d, double alpha, uint64_t seed, nt_dist1d_t **out)
{
    if (!(alpha >= 0.0 && alpha <= 1.0))
        return nt_fail(NT_EINVAL, "skewed 1D map: alpha %g must be in [0, 1]", alpha);
    if (p < 1 || d < 1 || d > INT_MAX)
        return nt_fail(NT_EINVAL, "skewed 1D map: p %d and d %lld must be in 1..INT_MAX", p,
                       (long long)d);
    int64_t n;
    if (!nt_mul_i64(p, d, &n))
        return nt_fail(NT_ERANGE, "skewed 1D map: p * d overflows");
    int64_t a = (int64_t)floor(alpha * (double)d);
    if (a > d)
        a = d;
    nt_dist1d_t *m;
    nt_status st = nt_dist1d_create(n, p, &m);
    if (st != NT_OK)
        return st;
    int64_t rest = d - a;
    int *pool = NULL, *pick = NULL;
    if (rest > 0 && !(pool = malloc((size_t)(p * rest) * sizeof *pool))) {
        nt_dist1d_destroy(m);
        return nt_fail(NT_ENOMEM, "skewed 1D map: cannot allocate %lld entries",
                       (long long)(p * rest));
    }
    if (!(pick = malloc((size_t)d * sizeof *pick))) {
        free(pool);
        nt_dist1d_destroy(m);
        return nt_fail(NT_ENOMEM, "skewed 1D map: cannot allocate %lld entries", (long long)d);
    }
    nt_rng rng = {seed};
    // The random part: every domain gets exactly d - a of the p * (d - a) free items.
    for (int64_t x = 0; x < p * rest; x++)
        pool[x] = (int)(x / rest);
    nt_shuffle_int(pool, p * rest, &rng);
    int64_t next = 0;
    for (int j = 0; j < p; j++) {
        // A uniform a-subset of component j's positions: the first a of a shuffled order.
        for (int64_t t = 0; t < d; t++)
            pick[t] = (int)t;
        nt_shuffle_int(pick, d, &rng);
        int *own = m->owner + (int64_t)j * d;
        for (int64_t t = 0; t < a; t++)
            own[pick[t]] = (j + 1) % p;
        for (int64_t t = a; t < d; t++)
            own[pick[t]] = pool[next++];
    }
    free(pick);
    free(pool);
    *out = m;
    return NT_OK;
}
