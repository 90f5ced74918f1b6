// The benchmark scenarios calibrate, migrate, cao-categories and guo-tables, run through the
// tool with --quick --json: the summary's fields are present and consistent with each other and
// with what can be recomputed independently (byte counts from the matrix sizes, segments per
// target tile from the category formula, Guo's (BLOCK,*)->(*,BLOCK) block exchange), and the
// output files exist.
#include <criterion/criterion.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool_run.h"

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static bool nonempty_file(const char *dir, const char *file)
{
    char path[600];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

// Run `numatile bench NAME --quick --json --out TMP`; return the summary, check the files.
static json_t *run_scenario(const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/nt-bench-a-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    json_t *sum = tool_json((const char *[]){"bench", name, "--quick", "--json", "--out", dir,
                                             NULL});
    const char *ext[] = {"csv", "json", "txt"};
    for (int i = 0; i < 3; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.%s", name, ext[i]);
        cr_assert(nonempty_file(dir, file), "%s/%s missing", dir, file);
    }
    return sum;
}

static void cleanup(const char *dir, json_t *sum)
{
    json_decref(sum);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static double num(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "field %s missing or not a number", key);
    return json_number_value(v);
}

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

Test(bench_a, calibrate_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = run_scenario("calibrate", dir, sizeof dir);
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
    cleanup(dir, s);
}

Test(bench_a, migrate_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = run_scenario("migrate", dir, sizeof dir);
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
    cleanup(dir, s);
}

Test(bench_a, cao_categories_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = run_scenario("cao-categories", dir, sizeof dir);
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
    cleanup(dir, s);
}

Test(bench_a, guo_tables_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = run_scenario("guo-tables", dir, sizeof dir);
    int64_t n = (int64_t)num(s, "n");
    cr_assert(json_is_true(json_object_get(s, "pair_counts_agree")));
    cr_assert(json_is_true(json_object_get(s, "closed_form")));
    json_t *rows = json_object_get(s, "rows");
    cr_assert_eq(json_array_size(rows), 13, "6 patterns x 2 domain counts + Guo's 3x3->5x2");
    size_t i;
    json_t *r;
    int bx = 0;
    json_array_foreach(rows, i, r) {
        cr_assert(json_is_true(json_object_get(r, "pair_bytes_agree")));
        cr_assert(num(r, "naive_over_plan") > 0 && num(r, "naive_over_sets") > 0);
        double q = num(r, "naive_seconds") / num(r, "plan_seconds");
        cr_assert_float_eq(num(r, "naive_over_plan"), q, 1e-6 * q);
        const char *pat = json_string_value(json_object_get(r, "pattern"));
        int ps = (int)num(r, "source_domains"), pt = (int)num(r, "target_domains");
        if (!strcmp(pat, "(BLOCK,*)->(*,BLOCK)")) {
            // Guo: (BLOCK,*) Px1 -> (*,BLOCK) 1xP: every pair exchanges one n/P x n/P block.
            cr_assert_eq(ps, pt);
            cr_assert_eq((int)num(r, "segments"), ps * pt);
            cr_assert_eq((int)num(r, "set_tuples"), ps * pt);
            bx++;
        }
        // A CYCLIC dimension on either side cuts the plan into n pieces along it.
        if (strstr(pat, "(CYCLIC,CYCLIC)") || !strcmp(pat, "(CYCLIC,*)->(*,CYCLIC)"))
            cr_assert_eq((int64_t)num(r, "segments"), n * n);
    }
    cr_assert_eq(bx, 2);
    cr_assert_geq(num(s, "plan_speedup_max"), num(s, "plan_speedup_min"));
    cleanup(dir, s);
}
