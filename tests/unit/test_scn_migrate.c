// `numatile bench migrate` (scn_migrate.c) with --quick --json: every byte copied or in a tile
// kept on its domain, ratios between their bounds, the plan's timings per tile, and its files.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn_test.h"

Test(scn_migrate, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = scn_run("migrate", dir, sizeof dir);
    int64_t m = (int64_t)num(s, "m");
    json_t *rows = json_object_get(s, "rows");
    cr_assert_eq(json_array_size(rows), 6, "3 tile sizes x 2 domain counts");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        int64_t tile = (int64_t)num(r, "tile"), tb = tile * tile * 8;
        cr_assert_eq((int64_t)num(r, "tile_bytes"), tb);
        cr_assert_eq(m % tile, 0);
        // Every byte is either copied or in a tile kept on its domain.
        int64_t copied = (int64_t)num(r, "bytes_copied"), kept = (int64_t)num(r, "tiles_kept");
        cr_assert_eq(copied + kept * tb, m * m * 8, "tile %lld: %lld + %lld x %lld",
                     (long long)tile, (long long)copied, (long long)kept, (long long)tb);
        cr_assert_eq((int64_t)num(r, "loop_bytes"), copied, "the loop copies the same bytes");
        cr_assert_gt(num(r, "copy_gbs"), 0);
        cr_assert_gt(num(r, "bound_gbs"), 0);
        cr_assert_gt(num(r, "loop_gbs"), 0);
        double ratio = num(r, "ratio");
        cr_assert(ratio > 0 && num(r, "ratio_min") <= ratio && ratio <= num(r, "ratio_max"));
        double q = num(r, "copy_gbs") / num(r, "loop_gbs");
        cr_assert_float_eq(num(r, "copy_over_loop"), q, 1e-6 * q);
        cr_assert_geq(num(r, "on_domain_fraction"), 0.99);
        json_t *tgt = json_object_get(r, "ratio_target");
        cr_assert(tb == 8192 || tb >= 262144 ? json_is_number(tgt) : json_is_null(tgt));
        if (json_is_number(tgt))
            cr_assert_eq(json_is_true(json_object_get(r, "target_met")),
                         ratio >= json_number_value(tgt));
        cr_assert_geq(num(r, "move_seconds"), 0);
        cr_assert_eq(num(r, "move_bytes_copied"), 0, "move mode moves whole tiles");
    }
    json_t *plan = json_object_get(s, "plan");
    cr_assert_eq(json_array_size(plan), 2);
    json_array_foreach(plan, i, r) {
        cr_assert_gt(num(r, "tiles"), 0);
        cr_assert_float_eq(num(r, "ns_per_tile"), 1e9 * num(r, "seconds") / num(r, "tiles"),
                           1e-6);
        cr_assert_float_eq(num(r, "seconds_per_1e6_tiles"), 1e-3 * num(r, "ns_per_tile"), 1e-9);
    }
    cr_assert(json_is_boolean(json_object_get(s, "large_tiles_target_met")));
    cr_assert(nonempty_file(dir, "migrate.gp"));
    scn_cleanup(dir, s);
}
