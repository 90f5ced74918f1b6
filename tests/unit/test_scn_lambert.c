// `numatile bench lambert-partition` (scn_lambert.c) end to end with --quick --json: lower
// bounds from the thesis's speeds, and the GEMM's remote reads counted by brute force on both
// maps, rebuilt from the summary.
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "scn_test.h"

// GEMM remote reads with A, B and C on one map: task (i,j) reads A(i,k) and B(k,j) for all k.
static int64_t gemm_remote_reads(const int *own, int n)
{
    int64_t rr = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                rr += (own[i * n + k] != own[i * n + j]) + (own[k * n + j] != own[i * n + j]);
    return rr;
}

// The thesis platforms, written out independently: (count, speed) pairs.
static const struct platform {
    const char *name;
    int groups[2][2];
} def[4] = {{"homo-5", {{5, 1}, {0, 0}}},
            {"homo-20", {{20, 1}, {0, 0}}},
            {"hetero-1", {{1, 50}, {4, 1}}},
            {"hetero-4", {{4, 50}, {16, 1}}}};

// Platform p of the summary (pl): its name, the lower bound from its speeds, each algorithm's
// precise partition within the bounds.
static void check_platform(const json_t *pl, int p)
{
    cr_assert_str_eq(str(pl, "platform"), def[p].name);
    double tot = 0, lb = 0;
    for (int g = 0; g < 2; g++)
        tot += def[p].groups[g][0] * def[p].groups[g][1];
    for (int g = 0; g < 2; g++)
        lb += 2 * def[p].groups[g][0] * sqrt(def[p].groups[g][1] / tot);
    const char *key;
    json_t *al;
    json_object_foreach(json_object_get(pl, "algos"), key, al) {
        int64_t N = (int64_t)num(al, "N");
        cr_assert_eq(N, !strcmp(key, "sfcp") ? 64 : 50);
        json_t *pr = json_object_get(al, "precise");
        cr_assert(close_rel(num(pr, "lower_bound"), lb, TOL), "%s %s", def[p].name, key);
        cr_assert(close_rel(num(pr, "ratio"), num(pr, "cost") / (N * lb), TOL));
        cr_assert_geq(num(pr, "ratio"), 0.95);
        cr_assert_leq(num(pr, "ratio"), 2.0);
        // Precise gives every domain floor or ceil of its share.
        cr_assert_lt(num(pr, "makespan_ratio"), 1.0 + 2.0 * tot / (N * N) + TOL);
    }
    cr_assert(json_is_object(json_object_get(json_object_get(pl, "thesis"), "column_rounded")));
}

// One machine row (m): both maps rebuilt and the GEMM's remote reads counted by brute force,
// tiles per domain, ratios from the timings.
static void check_machine(const json_t *m)
{
    int D = (int)num(m, "domains"), N = (int)num(m, "N");
    double speeds[64];
    cr_assert_leq(D, 64);
    for (int d = 0; d < D; d++)
        speeds[d] = json_number_value(json_array_get(json_object_get(m, "speeds_raw"), (size_t)d));
    // Rebuild both maps and count the GEMM's remote reads by brute force.
    nt_hetero_algo algo;
    cr_assert_eq(nt_hetero_algo_parse(str(m, "algo"), &algo), NT_OK);
    nt_tilemap_t *het = NULL, *bc = NULL;
    cr_assert_eq(nt_hetero_tilemap(algo, NT_HETERO_PRECISE, D, speeds, N, &het), NT_OK);
    cr_assert_eq(nt_tilemap_from_spec(str(m, "bc2d"), N, N, D, &bc), NT_OK);
    json_t *hr = json_object_get(m, "hetero"), *br = json_object_get(m, "bc2d_run");
    cr_assert_eq((int64_t)num(hr, "remote_reads"), gemm_remote_reads(het->owner, N));
    cr_assert_eq((int64_t)num(br, "remote_reads"), gemm_remote_reads(bc->owner, N));
    int64_t cnt[64] = {0};
    for (int t = 0; t < N * N; t++)
        cnt[het->owner[t]]++;
    for (int d = 0; d < D; d++)
        cr_assert_eq(json_integer_value(json_array_get(json_object_get(hr, "tiles"),
                                                       (size_t)d)),
                     cnt[d]);
    nt_tilemap_destroy(het);
    nt_tilemap_destroy(bc);
    cr_assert_eq(num(hr, "owner_fraction"), 1.0);
    cr_assert(close_rel(num(m, "time_ratio"), num(hr, "seconds") / num(br, "seconds"), TOL));
    cr_assert(close_rel(num(m, "predicted_time_ratio"),
                        num(hr, "busiest_core_tiles") / num(br, "busiest_core_tiles"),
                        TOL));
}

Test(scn_lambert, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *dir = scn_temp_dir();
    json_t *doc, *sum = scn_run_doc("lambert-partition", dir, &doc);
    json_t *plats = json_object_get(sum, "platforms");
    cr_assert_eq(num(sum, "n"), 50);
    cr_assert_eq(json_array_size(plats), 4);
    for (int p = 0; p < 4; p++)
        check_platform(json_array_get(plats, (size_t)p), p);
    json_t *mach = json_object_get(sum, "rows");
    cr_assert_geq(json_array_size(mach), 2);
    size_t i;
    json_t *m;
    json_array_foreach(mach, i, m)
        check_machine(m);
    json_decref(sum);
    json_decref(doc);
    scn_rm_tree(dir);
}
