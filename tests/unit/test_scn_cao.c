// `numatile bench cao-categories` (scn_cao.c) with --quick --json: segments per target tile
// from the category formula, target tile counts from the matrix sizes, the two ScaLAPACK-like
// geometries, and its output files.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn_test.h"

Test(scn_cao, categories_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = scn_run("cao-categories", dir, sizeof dir);
    int64_t m = (int64_t)num(s, "m");
    json_t *rows = json_object_get(s, "rows");
    cr_assert_eq(json_array_size(rows), 18, "2 source tile sizes x 9 categories");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        int cid = (int)num(r, "cid");
        int64_t tile = (int64_t)num(r, "tile");
        cr_assert_eq(cid, (int)(i % 9));
        cr_assert_eq((int64_t)num(r, "target_mb"), tile * (cid / 3 + 1));
        cr_assert_eq((int64_t)num(r, "target_nb"), tile * (cid % 3 + 1));
        // Aligned tiles: every target tile is (cid/3+1) x (cid%3+1) whole source tiles.
        cr_assert_float_eq(num(r, "segments_per_tile"), (cid / 3 + 1) * (cid % 3 + 1), 1e-12);
        int64_t tt = (m / (tile * (cid / 3 + 1))) * (m / (tile * (cid % 3 + 1)));
        cr_assert_eq((int64_t)num(r, "target_tiles"), tt);
        cr_assert_eq((int64_t)num(r, "category_tiles"), tt);
        cr_assert_eq((int)num(r, "plan_category"), cid);
        double ratio = num(r, "ratio");
        cr_assert(ratio > 0 && num(r, "ratio_min") <= ratio && ratio <= num(r, "ratio_max"));
        cr_assert_gt(num(r, "gbs"), 0);
    }
    cr_assert(json_is_true(json_object_get(s, "categories_as_expected")));
    cr_assert(json_is_null(json_object_get(s, "cao_reference_met")), "no 400x400 tiles");
    cr_assert(json_is_null(json_object_get(s, "issue12_target_met")), "no 400x400 tiles");
    // The two ScaLAPACK-like geometries, measured and checked like the categories.
    json_t *geoms = json_object_get(s, "geometries");
    cr_assert_eq(json_array_size(geoms), 2);
    json_array_foreach(geoms, i, r) {
        cr_assert_eq((int64_t)num(r, "target_mb"), i == 0 ? 256 : 100);
        cr_assert_gt(num(r, "ratio"), 0);
        cr_assert_gt(num(r, "segments_per_tile"), 0);
    }
    scn_cleanup(dir, s);
}
