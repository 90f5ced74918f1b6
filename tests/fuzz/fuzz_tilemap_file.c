// libFuzzer harness: the tile-map file reader (nt_tilemap_read, behind `file:PATH`).
// Input: three bytes choosing the expected grid (mt, nt in 1..16) and the domain count (0..16,
// 0 = 1 + the largest id), then the file's bytes, written to a scratch file. Checks on
// success: the asked grid, owners in range, the domain count as documented; on failure the
// output is untouched and there is a message.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    int64_t mt = fuzz_range(&in, 1, 16), nt = fuzz_range(&in, 1, 16);
    int nd = (int)fuzz_range(&in, 0, 16);
    const char *path = fuzz_scratch_file("map.txt", in.p, in.n);
    FUZZ_CHECK(path, "cannot write the scratch file");
    nt_tilemap_t *sentinel = (nt_tilemap_t *)&in, *map = sentinel;
    nt_status st = nt_tilemap_read(path, mt, nt, nd, &map);
    if (st != NT_OK) {
        FUZZ_CHECK(st < 0 && map == sentinel, "status %d, output %p", st, (void *)map);
        const char *msg = nt_last_error();
        FUZZ_CHECK(msg && *msg, "failure without a message");
        return 0;
    }
    FUZZ_CHECK(map->mt == mt && map->nt == nt, "grid %lldx%lld, asked %lldx%lld",
               (long long)map->mt, (long long)map->nt, (long long)mt, (long long)nt);
    int maxid = 0;
    for (int64_t x = 0; x < mt * nt; x++) {
        FUZZ_CHECK(map->owner[x] >= 0 && map->owner[x] < map->ndomains,
                   "tile %lld on domain %d of %d", (long long)x, map->owner[x], map->ndomains);
        maxid = map->owner[x] > maxid ? map->owner[x] : maxid;
    }
    FUZZ_CHECK(nd ? map->ndomains == nd : map->ndomains == maxid + 1,
               "ndomains %d (asked %d, largest id %d)", map->ndomains, nd, maxid);
    nt_tilemap_destroy(map);
    return 0;
}
