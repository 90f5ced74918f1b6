// The scalapack scenario (scn_scalapack.c) through the tool in its smallest form (--quick
// --repeat 1): the summary's shape, numatile's targets verified, and pdgemr2d's side when its
// peer runs here (build/bin/pdgemr2d_peer and mpirun, as on CI after `make deps`). Without them
// the scenario must still exit 0 and say so; the second test forces that case with
// NUMATILE_PEER_DIR. What was skipped goes to stderr, not to cr_log_warn: Criterion exits 1
// when a test logs a warning.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scn_test.h"

enum { GEOMETRIES = 7 };

static json_t *run_quick(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/nt-bench-scalapack-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return tool_json((const char *[]){"bench", "scalapack", "--quick", "--repeat", "1", "--json",
                                      "--out", dir, NULL});
}

// A measured row: numatile's times are positive, its totals add up, its targets verified.
static void check_numatile(const json_t *row)
{
    const char *g = json_string_value(json_object_get(row, "geometry"));
    cr_assert(json_is_true(json_object_get(row, "verify")), "%s: numatile's target wrong", g);
    double plan = num(row, "plan_seconds"), total = num(row, "total_seconds");
    cr_assert(plan >= 0 && num(row, "alloc_seconds") >= 0 && num(row, "copy_seconds") > 0);
    cr_assert(total >= plan && num(row, "reuse_copy_seconds") > 0, "%s", g);
    cr_assert(num(row, "copy_over_bound") >= 0 && num(row, "segments") >= 1, "%s", g);
    // The bound in GB/s with the ratio it divides: copy bandwidth = ratio x bound.
    const json_t *sub = json_object_get(row, "sub");
    double bw = (double)(json_integer_value(json_array_get(sub, 0)) *
                         json_integer_value(json_array_get(sub, 1)) * 8) /
                num(row, "copy_seconds") / 1e9;
    cr_assert(num(row, "bound_gbs") > 0, "%s", g);
    cr_assert_float_eq(num(row, "copy_over_bound") * num(row, "bound_gbs"), bw, 0.02 * bw, "%s",
                       g);
    // --repeat 1: the median is the one repetition.
    cr_assert_eq(num(row, "total_seconds_min"), total);
    json_int_t n = json_integer_value(json_object_get(row, "n"));
    cr_assert_eq(num(row, "peak_extra_bytes"), (double)(n * n * 8), "%s", g);
}

// Every row's fields; returns how many rows pdgemr2d ran on.
static int check_rows(const json_t *rows, bool peer)
{
    cr_assert_eq(json_array_size(rows), GEOMETRIES, "one row per geometry at N = 4096");
    int ran = 0;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        cr_assert_eq(json_integer_value(json_object_get(row, "n")), 4096);
        cr_assert(json_is_integer(json_object_get(row, "ranks")));
        json_t *skip = json_object_get(row, "skipped");
        cr_assert(json_is_null(skip) || json_is_string(skip));
        if (json_is_string(skip)) {
            fprintf(stderr, "bench_scalapack: %s skipped: %s\n",
                        json_string_value(json_object_get(row, "geometry")),
                        json_string_value(skip));
            continue;
        }
        check_numatile(row);
        json_t *peer_s = json_object_get(row, "pdgemr2d_seconds");
        cr_assert(peer || !peer_s, "pdgemr2d times without the peer");
        if (!peer_s)
            continue;
        ran++;
        cr_assert(num(row, "pdgemr2d_seconds") > 0);
        cr_assert(json_is_true(json_object_get(row, "pdgemr2d_verify")), "pdgemr2d's B wrong");
        cr_assert(num(row, "speedup_total") > 0 && num(row, "speedup_copy") > 0);
    }
    return ran;
}

// How a value must compare with its target's limit.
typedef enum reach { AT_LEAST, ABOVE, BELOW } reach;

// The summary's verdict on one of issue 12's targets against the rows: the rows of the named
// geometries are covered; those with the key are measured, their values listed in order, and
// those that reach the limit met. measured: the run must have measured at least one.
static void check_target(const json_t *s, const char *what, const char *const *geoms,
                         const char *key, reach how, double limit, bool measured)
{
    json_t *targets = json_object_get(s, "targets"), *t, *row, *mine = NULL;
    size_t i;
    json_array_foreach(targets, i, t) {
        const char *name = json_string_value(json_object_get(t, "target"));
        cr_assert_not_null(name, "a target without its name");
        if (strcmp(name, what) == 0)
            mine = t;
    }
    cr_assert_not_null(mine, "no verdict on \"%s\"", what);
    json_t *vals = json_object_get(mine, "values");
    int covered = 0, cells = 0, met = 0;
    json_array_foreach(json_object_get(s, "rows"), i, row) {
        const char *g = json_string_value(json_object_get(row, "geometry"));
        cr_assert_not_null(g, "a row without its geometry");
        bool named = false;
        for (const char *const *n = geoms; *n; n++)
            named |= strcmp(g, *n) == 0;
        if (!named)
            continue;
        covered++;
        json_t *v = json_object_get(row, key);
        if (!json_is_number(v))
            continue;
        double x = json_number_value(v);
        cr_assert_eq(json_number_value(json_array_get(vals, (size_t)cells)), x, "%s: %s", what,
                     g);
        cells++;
        met += how == BELOW ? x < limit : how == ABOVE ? x > limit : x >= limit;
    }
    cr_assert(!measured || cells > 0, "%s: nothing measured", what);
    cr_assert_eq(json_integer_value(json_object_get(mine, "covered")), covered, "%s", what);
    cr_assert_eq(json_integer_value(json_object_get(mine, "cells")), cells, "%s", what);
    cr_assert_eq(json_integer_value(json_object_get(mine, "met")), met, "%s", what);
    cr_assert_eq(json_array_size(vals), (size_t)cells, "%s", what);
}

// Issue 12's targets as the scenario judges them, recounted from its rows (pdgemr2d's only
// when its peer ran).
static void check_targets(const json_t *s, bool peer)
{
    static const char *const b09[] = {"512->256", "64->100", NULL}, *const b07[] = {"8->12", NULL};
    static const char *const b05[] = {"1->3", NULL};
    static const char *const nb32[] = {"512->256", "64->100", "64->32 equal", "64->100 sub", NULL};
    cr_assert_eq(json_array_size(json_object_get(s, "targets")), 7);
    check_target(s, "c/bound >= 0.9, nb 512 -> 256 and 64 -> 100", b09, "copy_over_bound",
                 AT_LEAST, 0.9, true);
    check_target(s, "c/bound >= 0.7, nb 8 -> 12", b07, "copy_over_bound", AT_LEAST, 0.7, true);
    check_target(s, "c/bound >= 0.5, nb 1 -> 3", b05, "copy_over_bound", AT_LEAST, 0.5, true);
    check_target(s, "x pool >= 5, nb >= 32", nb32, "speedup_pool", AT_LEAST, 5, peer);
    check_target(s, "x copy >= 8, nb >= 32", nb32, "speedup_copy", AT_LEAST, 8, peer);
    check_target(s, "element-cyclic plan < 0.005 s", b05, "plan_seconds", BELOW, 0.005, true);
    check_target(s, "element-cyclic x total > 1 (faster than pdgemr2d)", b05, "speedup_total",
                 ABOVE, 1, peer);
}

Test(scn_scalapack, quick, .timeout = 600)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[64];
    json_t *s = run_quick(dir, sizeof dir);
    cr_assert_eq(num(s, "repetitions"), 1);
    cr_assert(json_is_true(json_object_get(s, "verify")));
    bool peer = json_is_true(json_object_get(s, "peer"));
    int ran = check_rows(json_object_get(s, "rows"), peer);
    check_targets(s, peer && ran > 0);
    if (peer)
        cr_assert_gt(ran, 0, "the peer is present but ran on no geometry");
    else
        fprintf(stderr, "scn_scalapack: pdgemr2d part skipped: %s\n",
                    json_string_value(json_object_get(s, "peer_absent")));
    scn_cleanup(dir, s);
}

// No peer where it is looked for: numatile alone, exit 0, the reason in the summary.
Test(scn_scalapack, without_peer, .timeout = 600)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    cr_assert_eq(setenv("NUMATILE_PEER_DIR", "/nonexistent-numatile-peer-dir", 1), 0);
    char dir[64];
    json_t *s = run_quick(dir, sizeof dir);
    cr_assert(json_is_false(json_object_get(s, "peer")));
    const char *why = json_string_value(json_object_get(s, "peer_absent"));
    cr_assert(why && strstr(why, "/nonexistent-numatile-peer-dir/pdgemr2d_peer"), "%s", why);
    cr_assert_eq(check_rows(json_object_get(s, "rows"), false), 0);
    check_targets(s, false);
    scn_cleanup(dir, s);
}
