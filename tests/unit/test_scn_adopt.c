// `numatile bench adopt` (scn_adopt.c) end to end with --quick --json: five cases at each of the
// two leading dimensions, their medians and ratios recomputed from the raw rows, the in-place
// workspace within the budget (and far below the second array the others need), the passes the
// geometry asks for, the adoption rows (wrap + place, convert + place, copy in and out), and
// the acceptance fields following the rows. (The scenario itself checks
// every converted element; a wrong one exits 3, which tool_json() asserts against.)
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scn_test.h"

static const char *const cases[] = {"copy_bound", "out_of_place", "in_place",
                                    "out_of_place_back", "in_place_back"};

// Seconds of case c at lda from the raw rows, in repetition order; their count.
static int raw_seconds(const json_t *raw, const char *c, double lda, double *out)
{
    int n = 0;
    size_t i;
    json_t *x;
    json_array_foreach(raw, i, x) {
        if (strcmp(str(x, "case"), c) || num(x, "lda") != lda)
            continue;
        cr_assert_eq(num(x, "rep"), n);
        out[n++] = num(x, "seconds");
    }
    return n;
}

Test(scn_adopt, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *dir = scn_temp_dir();
    json_t *doc, *sum = scn_run_doc("adopt", dir, &doc);
    json_t *rows = json_object_get(sum, "rows"), *raw = json_object_get(doc, "raw");
    double n = num(sum, "n"), budget = num(sum, "budget_bytes"), mbytes = n * n * 8;
    cr_assert_eq(n, 512);
    cr_assert_eq(budget, floor(mbytes / 100));
    cr_assert_eq(json_array_size(rows), 10);
    for (size_t k = 0; k < 10; k++) {
        json_t *row = json_array_get(rows, k);
        double lda = num(row, "lda");
        cr_assert_eq(lda, k < 5 ? n : n + 8);
        cr_assert_str_eq(str(row, "case"), cases[k % 5]);
        double sec[64], bound[64], ratio[64];
        int reps = raw_seconds(raw, cases[k % 5], lda, sec);
        cr_assert_geq(reps, 1);
        cr_assert_eq(raw_seconds(raw, "copy_bound", lda, bound), reps);
        cr_assert(close_rel(num(row, "seconds"), median(sec, reps), TOL));
        cr_assert(close_rel(num(row, "gbs"), mbytes / num(row, "seconds") * 1e-9, TOL));
        for (int i = 0; i < reps; i++)
            ratio[i] = bound[i] / sec[i];
        cr_assert(close_rel(num(row, "ratio_bound"), median(ratio, reps), TOL));
        bool inplace = k % 5 == 2 || k % 5 == 4;
        double extra = num(row, "extra_bytes");
        cr_assert(close_rel(num(row, "extra_fraction"), extra / mbytes, TOL));
        if (!inplace) {
            cr_assert(json_is_null(json_object_get(row, "over_out_of_place")));
            cr_assert_geq(extra, mbytes);
            continue;
        }
        // In place: against the out-of-place conversion of the same repetitions.
        double op[64];
        cr_assert_eq(raw_seconds(raw, cases[k % 5 - 1], lda, op), reps);
        for (int i = 0; i < reps; i++)
            ratio[i] = sec[i] / op[i];
        cr_assert(close_rel(num(row, "over_out_of_place"), median(ratio, reps), TOL));
        cr_assert_eq(num(row, "budget_bytes"), budget);
        cr_assert_leq(extra, budget);
        cr_assert_gt(extra, 0);
        // lda = n needs no packing; lda = n + 8 packs through the workspace.
        cr_assert_eq(num(row, "passes"), lda == n ? 1 : 2);
        cr_assert_geq(num(row, "threads"), 1);
    }
    // Adoption: the three cases, their medians from the raw rows; wrapping and converting
    // copy nothing through numatile and hold far less than the copy's second matrix.
    static const char *const pcases[] = {"wrap_place", "convert_place", "copy_in_out"};
    json_t *prows = json_object_get(sum, "adoption");
    cr_assert_eq(json_array_size(prows), 3);
    for (size_t k = 0; k < 3; k++) {
        json_t *row = json_array_get(prows, k);
        cr_assert_str_eq(str(row, "case"), pcases[k]);
        cr_assert_eq(num(row, "domains"), 2);
        double sec[64];
        int reps = raw_seconds(raw, pcases[k], n, sec);
        cr_assert_geq(reps, 1);
        cr_assert(close_rel(num(row, "seconds"), median(sec, reps), TOL));
        cr_assert_eq(json_is_null(json_object_get(row, "back_seconds")), k == 0);
        double local = num(row, "local_fraction");
        cr_assert(local >= 0 && local <= 1);
        if (k < 2) {
            cr_assert_eq(num(row, "bytes_copied"), 0);
            cr_assert_lt(num(row, "extra_bytes"), mbytes / 100);
        } else {
            cr_assert_eq(num(row, "bytes_copied"), 2 * mbytes);
            cr_assert_eq(num(row, "extra_bytes"), mbytes);
            cr_assert_eq(num(row, "bytes_moved"), 0);
        }
    }
    // 512 x 512 doubles in 64 x 64 tiles of 32 KiB: page-granular once converted, so every
    // byte is local after placement, as in a placed numatile matrix.
    cr_assert_eq(num(json_array_get(prows, 1), "local_fraction"), 1.0);
    cr_assert_eq(num(json_array_get(prows, 2), "local_fraction"), 1.0);
    json_t *acc = json_object_get(sum, "acceptance"), *ip = json_array_get(rows, 2);
    cr_assert_eq(num(acc, "lda"), n);
    cr_assert(close_rel(num(acc, "in_place_over_out_of_place"), num(ip, "over_out_of_place"),
                        TOL));
    cr_assert(close_rel(num(acc, "out_of_place_ratio_bound"),
                        num(json_array_get(rows, 1), "ratio_bound"), TOL));
    cr_assert_eq(num(acc, "extra_bytes"), num(ip, "extra_bytes"));
    bool met = num(acc, "in_place_over_out_of_place") <= 2.0 &&
               num(acc, "out_of_place_ratio_bound") >= 0.8 && num(acc, "extra_bytes") <= budget;
    cr_assert_eq(json_is_true(json_object_get(acc, "met")), met);
    json_decref(doc);
    scn_cleanup(dir, sum);
    free(dir);
}
