// ChunkSet (Herrmann 2016 §6): random rectangles of tiles (observation swaths) stored
// round-robin on the domains, later rectangles overwriting earlier ones, until every tile has
// been covered. The paper gives no swath size; docs/fidelity.md calibrates it on Table 1.
#include <stdlib.h>

#include "nt_partition.h"

nt_status nt_tilemap_chunk_swath(int64_t mt, int64_t nt, int ndomains, int64_t hmax,
                                 int64_t wmax, uint64_t seed, nt_tilemap_t **out)
{
    if (hmax < 0 || wmax < 0)
        return nt_fail(NT_EINVAL, "chunk: swath sides up to %lldx%lld, both must be >= 0",
                       (long long)hmax, (long long)wmax);
    nt_tilemap_t *m;
    nt_status st = nt_tilemap_alloc(mt, nt, ndomains, &m);
    if (st != NT_OK)
        return st;
    int64_t tiles = mt * nt;
    // covered[] marks tiles painted at least once; -1 in owner would do but costs a pass.
    unsigned char *covered = calloc((size_t)tiles, 1);
    if (!covered) {
        nt_tilemap_destroy(m);
        return nt_fail(NT_ENOMEM, "chunk: cannot allocate %lld flags", (long long)tiles);
    }
    // The Table 1 calibration (docs/fidelity.md): sides up to a third of the grid. A side
    // longer than the grid covers it all, so larger bounds count as the grid's side.
    hmax = hmax == 0 ? (mt + 2) / 3 : hmax < mt ? hmax : mt;
    wmax = wmax == 0 ? (nt + 2) / 3 : wmax < nt ? wmax : nt;
    int64_t left = tiles;
    nt_rng rng = {seed};
    for (int64_t r = 0; left > 0; r++) {
        int64_t h = 1 + (int64_t)nt_rng_below(&rng, (uint64_t)hmax);
        int64_t w = 1 + (int64_t)nt_rng_below(&rng, (uint64_t)wmax);
        // Corner uniform over the positions where the rectangle meets the grid, then clipped,
        // so that border tiles are not starved.
        int64_t i0 = (int64_t)nt_rng_below(&rng, (uint64_t)(mt + h - 1)) - (h - 1);
        int64_t j0 = (int64_t)nt_rng_below(&rng, (uint64_t)(nt + w - 1)) - (w - 1);
        int64_t i1 = i0 + h < mt ? i0 + h : mt;
        int64_t j1 = j0 + w < nt ? j0 + w : nt;
        if (i0 < 0)
            i0 = 0;
        if (j0 < 0)
            j0 = 0;
        int dom = (int)(r % ndomains);
        for (int64_t i = i0; i < i1; i++)
            for (int64_t j = j0; j < j1; j++) {
                int64_t x = i * nt + j;
                m->owner[x] = dom;
                left -= !covered[x];
                covered[x] = 1;
            }
    }
    free(covered);
    *out = m;
    return NT_OK;
}

nt_status nt_tilemap_chunk(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                           nt_tilemap_t **out)
{
    return nt_tilemap_chunk_swath(mt, nt, ndomains, mt / 2 > 1 ? mt / 2 : 1,
                                  nt / 2 > 1 ? nt / 2 : 1, seed, out);
}
