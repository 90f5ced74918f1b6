// `numatile gemm --speeds`: the operands sit on the heterogeneous partition (every domain runs
// exactly the C tiles `numatile partition` gives it), measured:FILE reads a calibrated profile,
// and the argument errors (exit 2, argument named).
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool_run.h"

// Tiles per domain of `numatile partition --speeds S --n NT --algo A --dump --json`, counted
// from its map; returns the number of domains.
static int partition_counts(const char *speeds, const char *nt, const char *algo, long *cnt,
                            int cap)
{
    json_t *j = tool_json((const char *[]){"partition", "--speeds", speeds, "--n", nt, "--algo",
                                          algo, "--dump", "--json", NULL});
    int m = (int)json_integer_value(json_object_get(j, "domains"));
    cr_assert(m >= 1 && m <= cap);
    for (int d = 0; d < m; d++)
        cnt[d] = 0;
    json_t *map = json_object_get(j, "map");
    cr_assert_eq(json_array_size(map), (size_t)atoi(nt));
    for (size_t i = 0; i < json_array_size(map); i++) {
        json_t *row = json_array_get(map, i);
        for (size_t k = 0; k < json_array_size(row); k++) {
            json_int_t d = json_integer_value(json_array_get(row, k));
            cr_assert(d >= 0 && d < m);
            cnt[d]++;
        }
    }
    json_decref(j);
    return m;
}

static void expect_tasks(json_t *j, const long *cnt, int m)
{
    json_t *per = json_object_get(j, "tasks_per_domain"), *run = json_object_get(j, "tasks_run");
    cr_assert_eq(json_array_size(per), (size_t)m);
    cr_assert_eq(json_array_size(run), (size_t)m);
    for (int d = 0; d < m; d++) {
        cr_assert_eq(json_integer_value(json_array_get(per, (size_t)d)), cnt[d],
                     "domain %d owns %lld tasks, the partition gives it %ld", d,
                     json_integer_value(json_array_get(per, (size_t)d)), cnt[d]);
        cr_assert_eq(json_integer_value(json_array_get(run, (size_t)d)), cnt[d],
                     "domain %d ran %lld tasks, the partition gives it %ld", d,
                     json_integer_value(json_array_get(run, (size_t)d)), cnt[d]);
    }
}

Test(cli_gemm_speeds, every_domain_runs_its_share_of_the_partition)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *algos[] = {"nrrp", "column", "sfcp"};
    const char *ns[] = {"384", "384", "256"}, *nts[] = {"12", "12", "8"};
    for (int a = 0; a < 3; a++) {
        long cnt[3];
        int m = partition_counts("4,2,1", nts[a], algos[a], cnt, 3);
        cr_assert_eq(m, 3);
        json_t *j = tool_json((const char *[]){"gemm", "--n", ns[a], "--nb", "32", "--speeds",
                                              "4,2,1", "--algo", algos[a], "--domains", "3",
                                              "--verify", "--json", NULL});
        cr_assert(json_is_true(json_object_get(j, "verify")));
        expect_tasks(j, cnt, 3);
        char want[32];
        snprintf(want, sizeof want, "hetero:%s", algos[a]);
        cr_assert_str_eq(json_string_value(json_object_get(j, "dist")), want);
        cr_assert_str_eq(json_string_value(json_object_get(j, "algo")), algos[a]);
        json_t *sp = json_object_get(j, "speeds");
        cr_assert_eq(json_array_size(sp), 3);
        const double w[3] = {4.0 / 7, 2.0 / 7, 1.0 / 7};
        for (size_t d = 0; d < 3; d++)
            cr_assert_float_eq(json_number_value(json_array_get(sp, d)), w[d], 1e-9);
        json_decref(j);
    }
    // nrrp is the default; text output names the partition.
    tool_result r = tool_run((const char *[]){"gemm", "--n", "384", "--nb", "32", "--speeds",
                                              "4,2,1", "--domains", "3", "--verify", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "heterogeneous partition nrrp"), "%s", r.out);
    cr_assert(strstr(r.out, "verify: ok"), "%s", r.out);
    tool_result_free(&r);
}

static void expect_usage(const char *const *args, const char *n1, const char *n2)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, n1) != NULL, "stderr '%s' lacks '%s'", r.err, n1);
    if (n2)
        cr_assert(strstr(r.err, n2) != NULL, "stderr '%s' lacks '%s'", r.err, n2);
    tool_result_free(&r);
}

Test(cli_gemm_speeds, bad_arguments_exit_2_naming_the_argument)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    // One speed per domain: both counts are named.
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", "4,2",
                                  "--domains", "3", NULL},
                 "--speeds", "2 speeds for 3 domains");
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", "4,2,1",
                                  "--dist", "bc1d:3", "--domains", "3", NULL},
                 "--speeds", "--dist");
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--domains", "3", NULL},
                 "--speeds", "--dist");
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", "4,x",
                                  "--domains", "2", NULL},
                 "numatile gemm: --speeds", "'x'");
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", "4,2",
                                  "--algo", "best", "--domains", "2", NULL},
                 "--algo", NULL);
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--dist", "bc1d:2",
                                  "--algo", "rrp", "--domains", "2", NULL},
                 "--algo", "--speeds");
    // Relabelling would give a part to a domain of another speed.
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", "4,2",
                                  "--from", "bc1d:2", "--match", "volume", "--domains", "2",
                                  NULL},
                 "--match", "--speeds");
    // 3 x 3 tiles: sfcp needs a power of two.
    expect_usage((const char *[]){"gemm", "--n", "96", "--nb", "32", "--speeds", "4,2",
                                  "--algo", "sfcp", "--domains", "2", NULL},
                 "--algo", "sfcp");
    expect_usage((const char *[]){"qr", "--m", "64", "--n", "64", "--nb", "32", "--speeds",
                                  "4,2", "--domains", "2", NULL},
                 "--speeds", NULL);
}

Test(cli_gemm_speeds, measured_file)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[] = "/tmp/nt-gemm-speeds-XXXXXX";
    cr_assert(mkdtemp(dir));
    char prof[64], bad[64], arg[80];
    snprintf(prof, sizeof prof, "%s/prof.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    // A file that is not there, and one that is not a profile: clear usage errors.
    snprintf(arg, sizeof arg, "measured:%s", bad);
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", arg,
                                  "--domains", "2", NULL},
                 "--speeds measured:", "cannot read");
    FILE *f = fopen(bad, "w");
    cr_assert(f);
    fputs("{\"not\": \"a profile\"\n", f);
    fclose(f);
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", arg,
                                  "--domains", "2", NULL},
                 "--speeds measured:", "profile");
    // A profile written by calibrate: its GEMM speeds place the operands.
    tool_result r = tool_run((const char *[]){"calibrate", "--domains", "2", "--quick", "--out",
                                              prof, NULL});
    cr_assert_eq(r.status, 0, "calibrate: %s", r.err);
    tool_result_free(&r);
    snprintf(arg, sizeof arg, "measured:%s", prof);
    json_t *j = tool_json((const char *[]){"gemm", "--n", "256", "--nb", "32", "--speeds", arg,
                                          "--domains", "2", "--verify", "--json", NULL});
    cr_assert(json_is_true(json_object_get(j, "verify")));
    json_t *sp = json_object_get(j, "speeds");
    cr_assert_eq(json_array_size(sp), 2);
    double s0 = json_number_value(json_array_get(sp, 0)),
           s1 = json_number_value(json_array_get(sp, 1));
    cr_assert(s0 > 0 && s1 > 0);
    cr_assert_float_eq(s0 + s1, 1.0, 1e-9);
    // partition reads the same profile into the same tile counts.
    long cnt[2];
    cr_assert_eq(partition_counts(arg, "8", "nrrp", cnt, 2), 2);
    expect_tasks(j, cnt, 2);
    json_decref(j);
    // The profile's 2 domains do not fit 3.
    expect_usage((const char *[]){"gemm", "--n", "128", "--nb", "32", "--speeds", arg,
                                  "--domains", "3", NULL},
                 "--speeds", "2 speeds for 3 domains");
    unlink(prof);
    unlink(bad);
    rmdir(dir);
}
