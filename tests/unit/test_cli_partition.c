// `numatile partition`: the JSON contract (fields recomputed from the dumped map and the
// zones) and argument errors (exit 2, argument named).
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "tool_run.h"

static double num(json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    cr_assert(json_is_number(v), "field %s missing or not a number", key);
    return json_number_value(v);
}

// Recount from "map": tiles per domain and rows + columns touched; compare with the fields.
static void check_map(json_t *j, int m, int n, const double *w)
{
    json_t *map = json_object_get(j, "map"), *tiles = json_object_get(j, "tiles_per_domain");
    cr_assert_eq((int)json_array_size(map), n);
    cr_assert_eq((int)json_array_size(tiles), m);
    int cnt[32] = {0};
    char row[32][256] = {{0}}, col[32][256] = {{0}};
    for (int i = 0; i < n; i++) {
        json_t *r = json_array_get(map, (size_t)i);
        cr_assert_eq((int)json_array_size(r), n);
        for (int k = 0; k < n; k++) {
            int d = (int)json_integer_value(json_array_get(r, (size_t)k));
            cr_assert(d >= 0 && d < m);
            cnt[d]++, row[d][i] = 1, col[d][k] = 1;
        }
    }
    double sum = 0, lb = 0;
    for (int d = 0; d < m; d++)
        sum += w[d];
    long cost = 0;
    for (int d = 0; d < m; d++) {
        cr_assert_eq(json_integer_value(json_array_get(tiles, (size_t)d)), cnt[d]);
        cr_assert(fabs(cnt[d] - w[d] / sum * n * n) < 1 + 1e-9, "domain %d: %d tiles", d, cnt[d]);
        for (int i = 0; i < n; i++)
            cost += row[d][i] + col[d][i];
        lb += 2 * sqrt(w[d] / sum);
    }
    cr_assert_eq((long)num(j, "cost"), cost);
    cr_assert(fabs(num(j, "lower_bound") - lb) < 1e-8);
    cr_assert(fabs(num(j, "ratio") - cost / (n * lb)) < 1e-8);
}

Test(cli_partition, json_fields_agree_with_the_map_and_zones)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *algos[] = {"column", "rrp", "snrrp", "nrrp"};
    double w[5] = {50, 1, 1, 1, 1};
    for (int a = 0; a < 4; a++) {
        json_t *j = tool_json((const char *[]){"partition", "--speeds", "50,1,1,1,1", "--n",
                                              "50", "--algo", algos[a], "--dump", "--json",
                                              NULL});
        cr_assert_str_eq(json_string_value(json_object_get(j, "algo")), algos[a]);
        check_map(j, 5, 50, w);
        json_t *zones = json_object_get(j, "zones");
        cr_assert_eq((int)json_array_size(zones), 5);
        double cc = 0;
        for (int d = 0; d < 5; d++) {
            json_t *z = json_array_get(zones, (size_t)d);
            double area = 0, x0 = 1, x1 = 0, y0 = 1, y1 = 0;
            for (size_t k = 0; k < json_array_size(z); k++) {
                json_t *r = json_array_get(z, k);
                double a0 = num(r, "x0"), a1 = num(r, "x1"), b0 = num(r, "y0"), b1 = num(r, "y1");
                area += (a1 - a0) * (b1 - b0);
                x0 = fmin(x0, a0), x1 = fmax(x1, a1), y0 = fmin(y0, b0), y1 = fmax(y1, b1);
            }
            cr_assert(fabs(area - w[d] / 54) < 1e-8, "zone %d area %g", d, area);
            cc += (x1 - x0) + (y1 - y0); // zones are connected: projections = bounding box
        }
        cr_assert(fabs(num(j, "continuous_cost") - cc) < 1e-8);
        cr_assert(fabs(num(j, "continuous_ratio") - cc / num(j, "lower_bound")) < 1e-8);
        json_decref(j);
    }
}

Test(cli_partition, sfcp_and_platforms)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    double w[3] = {1, 2, 3};
    json_t *j = tool_json((const char *[]){"partition", "--speeds", "1,2,3", "--n", "16",
                                          "--algo", "sfcp", "--dump", "--json", NULL});
    cr_assert(json_is_null(json_object_get(j, "zones")));
    check_map(j, 3, 16, w);
    json_decref(j);
    j = tool_json((const char *[]){"partition", "--speeds", "hetero-4", "--n", "50", "--algo",
                                  "column", "--round", "rounded", "--json", NULL});
    cr_assert_eq(json_array_size(json_object_get(j, "tiles_per_domain")), 20);
    cr_assert_str_eq(json_string_value(json_object_get(j, "round")), "rounded");
    json_decref(j);
    tool_result r = tool_run((const char *[]){"partition", "--speeds", "3,1", "--n", "8",
                                              "--algo", "exact", "--dump", NULL});
    cr_assert_eq(r.status, 0);
    int lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 4 + 8, "%s", r.out);
    tool_result_free(&r);
}

static void expect_usage(const char *const *args, const char *needle)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "exit %d for %s %s", r.status, args[1], args[2]);
    cr_assert(strstr(r.err, needle) != NULL, "stderr '%s' lacks '%s'", r.err, needle);
    tool_result_free(&r);
}

Test(cli_partition, bad_arguments_exit_2_naming_the_argument)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    expect_usage((const char *[]){"partition", "--speeds", "1,-2", "--n", "8", NULL},
                 "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "1,0", "--n", "8", NULL},
                 "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "1,x", "--n", "8", NULL},
                 "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "", "--n", "8", NULL}, "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "1,,2", "--n", "8", NULL},
                 "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "1,2,", "--n", "8", NULL},
                 "--speeds");
    expect_usage((const char *[]){"partition", "--n", "8", NULL}, "--speeds");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", "--n", "0", NULL}, "--n");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", "--n", "ten", NULL}, "--n");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", NULL}, "--n");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", "--n", "50", "--algo", "sfcp",
                                  NULL},
                 "--n");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", "--n", "8", "--algo", "best",
                                  NULL},
                 "--algo");
    expect_usage((const char *[]){"partition", "--speeds", "1,2,3,4", "--n", "8", "--algo",
                                  "exact", NULL},
                 "--algo");
    expect_usage((const char *[]){"partition", "--speeds", "1,2", "--n", "8", "--round", "up",
                                  NULL},
                 "--round");
}

// --round corner and accurate (Lambert's Rounded and Accurate, docs/fidelity.md): the JSON names
// the mode; Accurate keeps exact counts (checked against the map); it is refused where a zone
// is not one rectangle (nrrp on Hetero-4).
Test(cli_partition, corner_and_accurate_rounding)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    double w[5] = {10, 20, 5, 8, 11};
    const char *algos[] = {"column", "rrp"};
    for (int a = 0; a < 2; a++) {
        json_t *j = tool_json((const char *[]){"partition", "--speeds", "10,20,5,8,11", "--n",
                                              "30", "--algo", algos[a], "--round", "accurate",
                                              "--dump", "--json", NULL});
        cr_assert_str_eq(json_string_value(json_object_get(j, "round")), "accurate");
        check_map(j, 5, 30, w);
        json_decref(j);
    }
    json_t *j = tool_json((const char *[]){"partition", "--speeds", "hetero-4", "--n", "50",
                                          "--algo", "column", "--round", "corner", "--json",
                                          NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, "round")), "corner");
    json_t *tiles = json_object_get(j, "tiles_per_domain");
    json_int_t total = 0;
    for (size_t d = 0; d < json_array_size(tiles); d++)
        total += json_integer_value(json_array_get(tiles, d));
    cr_assert_eq(total, 2500);
    json_decref(j);
    tool_result r = tool_run((const char *[]){"partition", "--speeds", "hetero-4", "--n", "40",
                                              "--algo", "nrrp", "--round", "accurate", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "Accurate"), "%s", r.err);
    tool_result_free(&r);
}
