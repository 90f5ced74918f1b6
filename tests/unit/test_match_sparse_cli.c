// numatile match's grid-change form: its JSON against counts made element by element and the
// dense solver run here, --verify, and its usage errors.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/dist.h"
#include "numatile/match.h"
#include "tool_run.h"

// Dense counts of an m x n matrix from bc2d:PxQ with blocks (b0, b1) to P2xQ2 with (b2, b3).
static int64_t *naive(int64_t m, int64_t n, const int g[4], const int64_t b[4])
{
    int pi = g[0] * g[1], pt = g[2] * g[3];
    int64_t *c = calloc((size_t)pi * pt, sizeof *c);
    for (int64_t x = 0; x < m; x++)
        for (int64_t y = 0; y < n; y++) {
            int s = (int)((x / b[0]) % g[0]) * g[1] + (int)((y / b[1]) % g[1]);
            int t = (int)((x / b[2]) % g[2]) * g[3] + (int)((y / b[3]) % g[3]);
            c[(int64_t)s * pt + t]++;
        }
    return c;
}

Test(match_sparse_cli, grid_json_against_naive_and_dense)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    // TILE x SMB gives the element blocks: 5x1 tiles with 2x3 grid blocks = blocks 10 x 3.
    const char *args[] = {"match", "--m",  "300", "--n", "200", "--from", "5x1@bc2d:3x4:2x3",
                          "--to", "7@bc2d:6x2", "--verify", "--json", NULL};
    const int g[4] = {3, 4, 6, 2};
    const int64_t b[4] = {10, 3, 7, 7};
    json_t *o = tool_json(args);
    int64_t *c = naive(300, 200, g, b);
    int pi = 12, pt = 12;
    int sigma[12], seen[12] = {0};
    nt_match_problem_t prob = {.p_ini = pi, .p_tar = pt, .counts = c};
    nt_cost_t dc;
    cr_assert_eq(nt_match_solve(&prob, NT_MATCH_VOLUME, sigma, &dc), NT_OK);
    json_t *js = json_object_get(o, "sigma");
    cr_assert_eq(json_array_size(js), (size_t)pt);
    int64_t kept = 0, canon = 0;
    for (int j = 0; j < pt; j++) {
        int k = (int)json_integer_value(json_array_get(js, (size_t)j));
        cr_assert(k >= 0 && k < pi && !seen[k]++, "sigma[%d] = %d", j, k);
        kept += c[(int64_t)k * pt + j];
        canon += c[(int64_t)j * pt + j];
    }
    cr_assert_eq(json_integer_value(json_object_get(o, "volume")), 60000 - kept);
    cr_assert_eq(60000 - kept, dc.volume, "not the dense optimum");
    cr_assert_eq(json_integer_value(json_object_get(o, "canonical_volume")), 60000 - canon);
    cr_assert_eq(json_integer_value(json_object_get(o, "dense_volume")), dc.volume);
    cr_assert(json_is_true(json_object_get(o, "verify")));
    cr_assert_eq(json_integer_value(json_object_get(o, "total")), 60000);
    cr_assert_str_eq(json_string_value(json_object_get(o, "kind")), "grid");
    json_decref(o);
    free(c);
}

static void expect_usage(const char *const *args, const char *needle)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "exit %d, stderr %s", r.status, r.err);
    cr_assert(strstr(r.err, needle), "stderr '%s' lacks '%s'", r.err, needle);
    tool_result_free(&r);
}

Test(match_sparse_cli, usage_errors)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *a1[] = {"match", "--m", "10", "--from", "1@bc2d:2x2", "--to", "1@bc1d:4", NULL};
    expect_usage(a1, "--n");
    const char *a2[] = {"match", "--m", "10", "--n", "10", "--from", "1@bc2d:2x2", "--to",
                        "1@bc2d:2x", NULL};
    expect_usage(a2, "--to");
    const char *a3[] = {"match", "--m", "10", "--n", "10", "--from", "1@bc2d:2x2", "--to",
                        "1@bc1d:4", "--objective", "steps", NULL};
    expect_usage(a3, "--objective");
    const char *a4[] = {"match", "--m", "10", "--n", "10", "--from", "1@bc2d:100x100", "--to",
                        "1@bc1d:4", "--verify", NULL};
    expect_usage(a4, "--verify");
    const char *a5[] = {"match", "--m", "0", "--n", "10", "--from", "1@bc2d:2x2", "--to",
                        "1@bc1d:4", NULL};
    expect_usage(a5, "--m");
    const char *a6[] = {"match", "--m", "10", "--n", "10", "--from", "0@bc2d:2x2", "--to",
                        "1@bc1d:4", NULL};
    expect_usage(a6, "--from");
}
