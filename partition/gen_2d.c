// Tile-map generators with a closed form or a per-tile draw: bc2d, band, random, balanced,
// skewed (SkewedSet). ChunkSet lives in gen_chunk.c.
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "nt_partition.h"

static nt_status check_grid(const char *what, int p, int q)
{
    if (p < 1 || q < 1)
        return nt_fail(NT_EINVAL, "%s: grid %dx%d, both sides must be >= 1", what, p, q);
    if ((int64_t)p * q > INT_MAX)
        return nt_fail(NT_ERANGE, "%s: grid %dx%d has more than INT_MAX domains", what, p, q);
    return NT_OK;
}

// Row 0 holds the column pattern; every other row is it plus its grid row's offset (no
// division per tile: element-cyclic maps have millions of tiles).
static void fill_bc2d(nt_tilemap_t *m, int p, int q, int64_t smb, int64_t snb)
{
    int *o0 = m->owner;
    for (int64_t j = 0; j < m->nt; j++)
        o0[j] = (int)((j / snb) % q);
    for (int64_t i = 1; i < m->mt; i++) {
        int row = (int)((i / smb) % p) * q;
        int *o = m->owner + i * m->nt;
        for (int64_t j = 0; j < m->nt; j++)
            o[j] = row + o0[j];
    }
}

nt_status nt_tilemap_bc2d(int64_t mt, int64_t nt, int p, int q, int64_t smb, int64_t snb,
                          nt_tilemap_t **out)
{
    nt_status st = check_grid("bc2d", p, q);
    if (st != NT_OK)
        return st;
    if (smb < 1 || snb < 1)
        return nt_fail(NT_EINVAL, "bc2d: super-block %lldx%lld, both sides must be >= 1",
                       (long long)smb, (long long)snb);
    nt_tilemap_t *m;
    if ((st = nt_tilemap_alloc(mt, nt, p * q, &m)) != NT_OK)
        return st;
    fill_bc2d(m, p, q, smb, snb);
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_band(int64_t mt, int64_t nt, int64_t w, int p, int q, nt_tilemap_t **out)
{
    nt_status st = check_grid("band", p, q);
    if (st != NT_OK)
        return st;
    if (w < 1)
        return nt_fail(NT_EINVAL, "band: width %lld must be >= 1", (long long)w);
    nt_tilemap_t *m;
    if ((st = nt_tilemap_alloc(mt, nt, p * q, &m)) != NT_OK)
        return st;
    fill_bc2d(m, p, q, 1, 1);
    int64_t d = (int64_t)p * q;
    for (int64_t i = 0; i < mt; i++) {
        // Only columns i-w+1 .. i+w-1 are in the band.
        int64_t lo = i - w + 1 > 0 ? i - w + 1 : 0;
        // w - 1 compared with the room right of i: i + w - 1 overflows for a huge w.
        int64_t hi = w - 1 < nt - 1 - i ? i + w - 1 : nt - 1;
        for (int64_t j = lo; j <= hi; j++)
            m->owner[i * nt + j] = (int)(i % d);
    }
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_random(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                            nt_tilemap_t **out)
{
    nt_tilemap_t *m;
    nt_status st = nt_tilemap_alloc(mt, nt, ndomains, &m);
    if (st != NT_OK)
        return st;
    nt_rng rng = {seed};
    for (int64_t x = 0; x < mt * nt; x++)
        m->owner[x] = (int)nt_rng_below(&rng, (uint64_t)ndomains);
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_balanced(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                              nt_tilemap_t **out)
{
    nt_tilemap_t *m;
    nt_status st = nt_tilemap_alloc(mt, nt, ndomains, &m);
    if (st != NT_OK)
        return st;
    // x mod D gives domain d exactly floor(T/D) tiles, one more when d < T mod D.
    int64_t tiles = mt * nt;
    for (int64_t x = 0; x < tiles; x++)
        m->owner[x] = (int)(x % ndomains);
    nt_rng rng = {seed};
    nt_shuffle_int(m->owner, tiles, &rng);
    *out = m;
    return NT_OK;
}

// Index k in 1..d-1 with probability 2k/(d(d-1)): r uniform in [0, d(d-1)/2) falls in
// [k(k-1)/2, k(k+1)/2) for exactly one k.
static int draw_skewed(nt_rng *rng, int64_t d)
{
    uint64_t total = (uint64_t)d * (uint64_t)(d - 1) / 2;
    uint64_t r = nt_rng_below(rng, total);
    uint64_t k = (uint64_t)((1.0 + sqrt(1.0 + 8.0 * (double)r)) / 2.0);
    // The float estimate can be off by one either way near the boundaries.
    while (k > 1 && k * (k - 1) / 2 > r)
        k--;
    while (k * (k + 1) / 2 <= r)
        k++;
    return (int)k;
}

// One grid side of the GRID reading: a side of one index draws nothing.
static int draw_side(nt_rng *rng, int m)
{
    return m > 1 ? draw_skewed(rng, m) : 0;
}

// A uniformly random derangement of 0..d-1 (d >= 2): shuffles until none has a fixed point
// (about e tries on average).
static void draw_derangement(int *perm, int d, nt_rng *rng)
{
    for (bool fixed = true; fixed;) {
        for (int k = 0; k < d; k++)
            perm[k] = k;
        nt_shuffle_int(perm, d, rng);
        fixed = false;
        for (int k = 0; k < d && !fixed; k++)
            fixed = perm[k] == k;
    }
}

// Relabel every owner by a derangement drawn from its own stream, so that the moves are the
// same with and without it.
static nt_status derange_map(nt_tilemap_t *m, uint64_t seed)
{
    int d = m->ndomains;
    if (d < 2)
        return NT_OK;
    int *perm = malloc((size_t)d * sizeof *perm);
    if (!perm)
        return nt_fail(NT_ENOMEM, "skewed: cannot allocate %d labels", d);
    nt_rng rng = {seed ^ 0xD1B54A32D192ED03ULL};
    draw_derangement(perm, d, &rng);
    for (int64_t x = 0; x < m->mt * m->nt; x++)
        m->owner[x] = perm[m->owner[x]];
    free(perm);
    return NT_OK;
}

nt_status nt_tilemap_skewed_ex(int64_t mt, int64_t nt, int p, int q, const nt_skew_opts_t *opts,
                               uint64_t seed, nt_tilemap_t **out)
{
    nt_skew_opts_t o = opts ? *opts : (nt_skew_opts_t){0};
    if (o.mode != NT_SKEW_GRID && o.mode != NT_SKEW_DOMAIN)
        return nt_fail(NT_EINVAL, "skewed: unknown mode %d", (int)o.mode);
    nt_status st = check_grid("skewed", p, q);
    if (st != NT_OK)
        return st;
    nt_tilemap_t *m;
    if ((st = nt_tilemap_alloc(mt, nt, p * q, &m)) != NT_OK)
        return st;
    fill_bc2d(m, p, q, 1, 1);
    int64_t d = (int64_t)p * q;
    nt_rng rng = {seed};
    for (int64_t x = 0; x < mt * nt && d > 1; x++) {
        if (!nt_rng_below(&rng, 2))
            continue;
        if (o.mode == NT_SKEW_DOMAIN) {
            m->owner[x] = draw_skewed(&rng, d);
        } else {
            int r = draw_side(&rng, p);
            m->owner[x] = r * q + draw_side(&rng, q);
        }
    }
    if (o.derange && (st = derange_map(m, seed)) != NT_OK) {
        nt_tilemap_destroy(m);
        return st;
    }
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_skewed(int64_t mt, int64_t nt, int p, int q, uint64_t seed,
                            nt_tilemap_t **out)
{
    return nt_tilemap_skewed_ex(mt, nt, p, q, NULL, seed, out);
}
