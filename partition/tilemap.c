// Tile maps and 1D maps: allocation, the caller's-function generator, and the shared shuffle.
#include <stdlib.h>

#include "nt_partition.h"

nt_status nt_tilemap_alloc(int64_t mt, int64_t nt, int ndomains, nt_tilemap_t **out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "tile map: out is NULL");
    if (mt < 1 || nt < 1)
        return nt_fail(NT_EINVAL, "tile map: grid %lldx%lld, both sides must be >= 1",
                       (long long)mt, (long long)nt);
    if (ndomains < 1)
        return nt_fail(NT_EINVAL, "tile map: ndomains %d must be >= 1", ndomains);
    // Fixed caps (dist.h says why): checked here, before the owner table is allocated.
    if (ndomains > NT_TILEMAP_MAX_LABELS)
        return nt_fail(NT_ERANGE, "tile map: %d domains is more than the limit of %d", ndomains,
                       NT_TILEMAP_MAX_LABELS);
    size_t tiles;
    if ((uint64_t)mt > SIZE_MAX || (uint64_t)nt > SIZE_MAX ||
        !nt_mul_size((size_t)mt, (size_t)nt, &tiles) || tiles > NT_TILEMAP_MAX_TILES)
        return nt_fail(NT_ERANGE, "tile map: grid %lldx%lld is more than the limit of %d tiles",
                       (long long)mt, (long long)nt, NT_TILEMAP_MAX_TILES);
    nt_tilemap_t *m = malloc(sizeof *m);
    int *owner = calloc(tiles, sizeof(int));
    if (!m || !owner) {
        free(m);
        free(owner);
        return nt_fail(NT_ENOMEM, "tile map: cannot allocate %zu tiles", tiles);
    }
    m->mt = mt;
    m->nt = nt;
    m->ndomains = ndomains;
    m->owner = owner;
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_create(int64_t mt, int64_t nt, int ndomains, nt_tilemap_t **out)
{
    return nt_tilemap_alloc(mt, nt, ndomains, out);
}

void nt_tilemap_destroy(nt_tilemap_t *map)
{
    if (!map)
        return;
    free(map->owner);
    free(map);
}

nt_status nt_tilemap_from_fn(int64_t mt, int64_t nt, int ndomains, nt_tilemap_fn fn, void *arg,
                             nt_tilemap_t **out)
{
    if (!fn)
        return nt_fail(NT_EINVAL, "tile map: fn is NULL");
    nt_tilemap_t *m;
    nt_status st = nt_tilemap_alloc(mt, nt, ndomains, &m);
    if (st != NT_OK)
        return st;
    for (int64_t i = 0; i < mt; i++)
        for (int64_t j = 0; j < nt; j++) {
            int d = fn(i, j, arg);
            if (d < 0 || d >= ndomains) {
                nt_tilemap_destroy(m);
                return nt_fail(NT_EINVAL, "tile map: fn gave domain %d for tile (%lld,%lld), "
                               "expected 0..%d", d, (long long)i, (long long)j, ndomains - 1);
            }
            m->owner[i * nt + j] = d;
        }
    *out = m;
    return NT_OK;
}

nt_status nt_dist1d_create(int64_t n, int ndomains, nt_dist1d_t **out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "1D map: out is NULL");
    if (n < 1)
        return nt_fail(NT_EINVAL, "1D map: n %lld must be >= 1", (long long)n);
    if (ndomains < 1)
        return nt_fail(NT_EINVAL, "1D map: ndomains %d must be >= 1", ndomains);
    if (ndomains > NT_TILEMAP_MAX_LABELS)
        return nt_fail(NT_ERANGE, "1D map: %d domains is more than the limit of %d", ndomains,
                       NT_TILEMAP_MAX_LABELS);
    if (n > NT_TILEMAP_MAX_TILES)
        return nt_fail(NT_ERANGE, "1D map: %lld items is more than the limit of %d", (long long)n,
                       NT_TILEMAP_MAX_TILES);
    nt_dist1d_t *d = malloc(sizeof *d);
    int *owner = calloc((size_t)n, sizeof(int));
    if (!d || !owner) {
        free(d);
        free(owner);
        return nt_fail(NT_ENOMEM, "1D map: cannot allocate %lld items", (long long)n);
    }
    d->n = n;
    d->ndomains = ndomains;
    d->owner = owner;
    *out = d;
    return NT_OK;
}

void nt_dist1d_destroy(nt_dist1d_t *d)
{
    if (!d)
        return;
    free(d->owner);
    free(d);
}

void nt_shuffle_int(int *a, int64_t n, nt_rng *rng)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t k = (int64_t)nt_rng_below(rng, (uint64_t)i + 1);
        int t = a[i];
        a[i] = a[k];
        a[k] = t;
    }
}
