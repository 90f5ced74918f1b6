// `numatile bench guo-tables` (scn_guo.c) with --quick --json: Guo's (BLOCK,*)->(*,BLOCK)
// block exchange, n x n pieces for CYCLIC dimensions, ratios recomputed from the timings, and
// its output files.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn_test.h"

Test(scn_guo, tables_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = scn_run("guo-tables", dir, sizeof dir);
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
    scn_cleanup(dir, s);
}
