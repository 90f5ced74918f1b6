// `numatile bench stencil` (scn_stencil.c) end to end with --quick --json: the model's totals
// (owner-computes linear in K, optimal labellings and the heuristic never worse), means
// recomputed from the raw rows, and the halo counts of the block partition.
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "scn_test.h"

Test(scn_stencil, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *dir = scn_temp_dir();
    json_t *doc, *sum = scn_run_doc("stencil", dir, &doc);
    json_t *raw = json_object_get(doc, "raw"), *models = json_object_get(sum, "model");
    int inst = (int)num(sum, "instances");
    cr_assert_eq(num(sum, "domains"), 16);
    cr_assert_eq(json_array_size(models), 4);
    static const char *st[5] = {"owner", "canonical", "volume", "steps", "part_redistrib"};
    size_t m;
    json_t *mo;
    json_array_foreach(models, m, mo) {
        const char *model = str(mo, "model");
        double ratio = num(mo, "ratio");
        json_t *mt = json_object_get(mo, "mean_total");
        cr_assert_eq(json_array_size(mt), 10);
        double own1 = num(json_array_get(mt, 1), "owner");
        for (int k = 0; k < 10; k++) {
            json_t *e = json_array_get(mt, (size_t)k);
            cr_assert_eq(num(e, "K"), k);
            // Owner-computes never redistributes: linear in K, 0 at K = 0.
            cr_assert(close_rel(num(e, "owner"), k * own1, TOL));
            // The optimal labelling of the model beats the canonical one; the heuristic is
            // never worse than owner-computes nor than the labelled block partition.
            const char *opt = !strcmp(model, "volume") ? "volume" : "steps";
            cr_assert_leq(num(e, opt), num(e, "canonical") * (1 + TOL) + TOL);
            double best = fmin(num(e, "owner"), num(e, opt));
            cr_assert_leq(num(e, "part_redistrib"), best * (1 + TOL) + TOL, "%s K=%d", model, k);
            // Means recomputed from the raw rows.
            for (int s = 0; s < 5; s++) {
                double acc = 0;
                int cnt = 0;
                size_t i;
                json_t *x;
                json_array_foreach(raw, i, x) {
                    if (strcmp(str(x, "kind"), "model") || strcmp(str(x, "model"), model) ||
                        num(x, "ratio") != ratio || (int)num(x, "K") != k)
                        continue;
                    acc += num(x, st[s]);
                    cnt++;
                }
                cr_assert_eq(cnt, inst);
                cr_assert(close_rel(num(e, st[s]), acc / inst, TOL), "%s %s K=%d", model,
                          st[s], k);
            }
        }
        cr_assert(close_rel(num(mo, "vol_over_can_K0"),
                            num(json_array_get(mt, 0), "volume") /
                                num(json_array_get(mt, 0), "canonical"),
                            TOL));
    }
    json_t *meas = json_object_get(sum, "rows");
    cr_assert_eq(json_array_size(meas), 4);
    json_array_foreach(meas, m, mo) {
        int64_t K = (int64_t)num(mo, "K");
        // Halo items as the model predicts; the block partition of a ring into 16 blocks sends
        // each block's two end items once per iteration.
        cr_assert_eq(num(mo, "owner_halo"), num(mo, "owner_halo_predicted"));
        cr_assert_eq(num(mo, "block_halo"), num(mo, "block_halo_predicted"));
        cr_assert_eq((int64_t)num(mo, "block_halo"), 32 * K);
        cr_assert_gt(num(mo, "owner_halo"), num(mo, "block_halo"));
        cr_assert_gt(num(mo, "owner_seconds"), 0);
        cr_assert_gt(num(mo, "block_seconds"), 0);
    }
    json_decref(sum);
    json_decref(doc);
    scn_rm_tree(dir);
}
