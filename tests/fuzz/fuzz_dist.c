// libFuzzer harness: the DIST grammar (nt_tilemap_from_spec). Input: three bytes choosing the
// tile grid (mt, nt in 1..32) and the domain count (0..16, 0 = as the spec says), then the spec.
// Checks: a map on success has the asked grid, owners in 0..ndomains-1 and the asked domain
// count, and the same spec gives the same map again; on failure the output is untouched and
// there is a message. `file:` specs are left to the tile-map file harness. Valid deranged skewed
// maps of more than 2^20 labels (up to the library's cap of 2^24) are skipped: their
// derangement shuffles every label, over a second in a release build for 2^24 labels and past
// the fuzzer's timeout under ASan, twice per input; past the cap the library refuses them at
// once, which is fuzzed.
#include <ctype.h>
#include <stdbool.h>
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

// A `skewed:PxQ:...:derange` spec (P and Q plain digits) whose P x Q is more than 2^20 but
// within the label cap.
static bool slow_derangement(const char *spec)
{
    size_t n = strlen(spec);
    if (strncmp(spec, "skewed:", 7) != 0 || n < 15 || strcmp(spec + n - 8, ":derange") != 0 ||
        !isdigit((unsigned char)spec[7]))
        return false;
    char *end;
    long long p = strtoll(spec + 7, &end, 10);
    if (*end != 'x' || !isdigit((unsigned char)end[1]))
        return false;
    long long q = strtoll(end + 1, NULL, 10);
    if (p <= 0 || q <= 0 || p > NT_TILEMAP_MAX_LABELS || q > NT_TILEMAP_MAX_LABELS)
        return false;
    return p * q > (1LL << 20) && p * q <= NT_TILEMAP_MAX_LABELS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    int64_t mt = fuzz_range(&in, 1, 32), nt = fuzz_range(&in, 1, 32);
    int nd = (int)fuzz_range(&in, 0, 16);
    char *spec = fuzz_rest_string(&in);
    if (!strncmp(spec, "file:", 5) || slow_derangement(spec)) {
        free(spec);
        return -1; // reads a file (see fuzz_tilemap_file), or slow by design (above)
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
