// `numatile bench calibrate` (scn_calibrate.c) with --quick --json: one row per domain pair,
// the same numbers as the median, min and max matrices, distances nearest to each domain
// itself, one raw row per pair and repetition, and its output files.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn_test.h"

// The raw rows in NAME.json.
static size_t raw_rows(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s", path, e.text);
    size_t n = json_array_size(json_object_get(doc, "raw"));
    cr_assert(json_is_array(json_object_get(doc, "stats")));
    json_decref(doc);
    return n;
}

Test(scn_calibrate, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = scn_run("calibrate", dir, sizeof dir);
    int D = (int)num(s, "domains");
    cr_assert_geq(D, 2, "one node gives 2 virtual domains by default");
    cr_assert_geq(num(s, "physical_nodes"), 1);
    cr_assert(json_is_string(json_object_get(s, "topology")));
    // rows: one per domain pair, the same numbers as the matrices below.
    json_t *rows = json_object_get(s, "rows");
    cr_assert_eq(json_array_size(rows), (size_t)D * (size_t)D);
    for (size_t k = 0; k < json_array_size(rows); k++) {
        json_t *row = json_array_get(rows, k);
        int i = (int)num(row, "src"), j = (int)num(row, "dst");
        cr_assert(i >= 0 && i < D && j >= 0 && j < D);
        cr_assert_eq(num(row, "gbs_median"),
                     json_number_value(json_array_get(
                         json_array_get(json_object_get(s, "gbs_median"), (size_t)i), (size_t)j)));
    }
    json_t *med = json_object_get(s, "gbs_median"), *lo = json_object_get(s, "gbs_min");
    json_t *hi = json_object_get(s, "gbs_max"), *dist = json_object_get(s, "distances");
    cr_assert_eq(json_array_size(med), (size_t)D);
    cr_assert_eq(json_array_size(dist), (size_t)D);
    for (int i = 0; i < D; i++) {
        cr_assert_eq(json_array_size(json_array_get(med, (size_t)i)), (size_t)D);
        for (int j = 0; j < D; j++) {
            double m = json_number_value(json_array_get(json_array_get(med, (size_t)i), (size_t)j));
            double a = json_number_value(json_array_get(json_array_get(lo, (size_t)i), (size_t)j));
            double b = json_number_value(json_array_get(json_array_get(hi, (size_t)i), (size_t)j));
            cr_assert(a > 0 && a <= m && m <= b, "pair %d->%d: %g %g %g", i, j, a, m, b);
            json_int_t dij = json_integer_value(json_array_get(json_array_get(dist, (size_t)i),
                                                               (size_t)j));
            json_int_t dii = json_integer_value(json_array_get(json_array_get(dist, (size_t)i),
                                                               (size_t)i));
            cr_assert_geq(dij, dii, "a domain is nearest to itself");
        }
    }
    cr_assert_gt(num(s, "local_gbs"), 0);
    cr_assert_gt(num(s, "remote_gbs"), 0);
    cr_assert_eq(raw_rows(dir, "calibrate"), (size_t)(D * D) * (size_t)num(s, "repetitions"));
    scn_cleanup(dir, s);
}
