// libFuzzer harness: the DIST grammar (nt_tilemap_from_spec). Input: three bytes choosing the
// tile grid (mt, nt in 1..32) and the domain count (0..16, 0 = as the spec says), then the spec.
// Checks: a map on success has the asked grid, owners in 0..ndomains-1 and the asked domain
// count, and the same spec gives the same map again; on failure the output is untouched and
// there is a message. `file:` specs are left to the tile-map file harness.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_map(const nt_tilemap_t *map, int64_t mt, int64_t nt, int nd)
{
    FUZZ_CHECK(map && map->owner, "success without a map");
    FUZZ_CHECK(map->mt == mt && map->nt == nt, "grid %lldx%lld, asked %lldx%lld",
               (long long)map->mt, (long long)map->nt, (long long)mt, (long long)nt);
    FUZZ_CHECK(map->ndomains >= 1 && (nd == 0 || map->ndomains == nd),
               "ndomains %d, asked %d", map->ndomains, nd);
    for (int64_t x = 0; x < mt * nt; x++)
        FUZZ_CHECK(map->owner[x] >= 0 && map->owner[x] < map->ndomains,
                   "tile %lld on domain %d of %d", (long long)x, map->owner[x], map->ndomains);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    int64_t mt = fuzz_range(&in, 1, 32), nt = fuzz_range(&in, 1, 32);
    int nd = (int)fuzz_range(&in, 0, 16);
    char *spec = fuzz_rest_string(&in);
    if (!strncmp(spec, "file:", 5)) {
        free(spec);
        return -1; // reads a file: see fuzz_tilemap_file
    }
    nt_tilemap_t *sentinel = (nt_tilemap_t *)&in, *map = sentinel;
    nt_status st = nt_tilemap_from_spec(spec, mt, nt, nd, &map);
    if (st == NT_OK) {
        check_map(map, mt, nt, nd);
        nt_tilemap_t *again = NULL;
        FUZZ_CHECK(nt_tilemap_from_spec(spec, mt, nt, nd, &again) == NT_OK,
                   "the same spec failed the second time");
        FUZZ_CHECK(again->ndomains == map->ndomains &&
                       !memcmp(again->owner, map->owner, (size_t)(mt * nt) * sizeof(int)),
                   "the same spec gave another map");
        nt_tilemap_destroy(again);
        nt_tilemap_destroy(map);
    } else {
        FUZZ_CHECK(st < 0, "status %d", st);
        FUZZ_CHECK(map == sentinel, "output written on failure");
        const char *msg = nt_last_error();
        FUZZ_CHECK(msg && *msg, "failure without a message");
    }
    free(spec);
    return 0;
}
