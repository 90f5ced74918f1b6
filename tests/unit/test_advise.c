// The advisor: ranking consistency (sorted totals, each total the sum of its parts, each kernel
// prediction what nt_model_kernel gives on the candidate's map, distinct maps, owner present),
// decisions that follow from extreme profiles, bad input; and the `numatile advise` and
// `numatile calibrate` commands (JSON fields, usage errors, predicted vs measured under --run).
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numatile/advise.h"
#include "numatile/profile.h"
#include "numatile/topo.h"
#include "tool_run.h"

static nt_profile_t *profile(double copy_gbs, double read_remote_gbs)
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(2, &p), NT_OK);
    for (int x = 0; x < 4; x++) {
        p->copy_gbs[x] = copy_gbs;
        p->read_gbs[x] = x == 0 || x == 3 ? 10 : read_remote_gbs;
    }
    p->concurrent_gbs = 2 * copy_gbs;
    p->migrate_gbs = 1;
    p->fault_gbs[0] = p->fault_gbs[1] = copy_gbs;
    for (int k = 0; k < NT_TK_COUNT; k++)
        p->tile_seconds[k][0] = p->tile_seconds[k][1] = 1e-3;
    p->task_seconds = 1e-6;
    p->nb = 64;
    p->ib = 32;
    p->nodes = 1;
    strcpy(p->host, "test");
    strcpy(p->kind, "virtual");
    strcpy(p->date, "2026-01-01T00:00:00Z");
    return p;
}

static nt_topo_t *two_domains(void)
{
    nt_topo_t *t;
    nt_topo_opts_t to = {.domains = 2};
    cr_assert_eq(nt_topo_load(&to, &t), NT_OK);
    return t;
}

static nt_matrix_t *current(const nt_topo_t *t, int64_t n, const char *spec)
{
    nt_matrix_shape_t sh = {n, n, 64, 64, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, 2, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A),
                 NT_OK, "%s", nt_last_error());
    return A;
}

static void check_consistent(const nt_profile_t *p, const nt_matrix_t *A, const nt_advice_t *a,
                             nt_advise_kernel k)
{
    int64_t tiles = a->mt * a->nt;
    cr_assert_eq(a->mt, A->mt);
    bool owner = false;
    for (int x = 0; x < a->count; x++) {
        const nt_candidate_t *c = &a->cand[x];
        cr_assert(x == 0 || a->cand[x - 1].total_seconds <= c->total_seconds, "not sorted");
        cr_assert_float_eq(c->total_seconds, c->redist_seconds + c->kernel.seconds, 1e-15);
        if (!strcmp(c->name, "owner")) {
            owner = true;
            cr_assert(!c->redistribute && c->redist_seconds == 0);
            cr_assert(!memcmp(c->owner, A->owner, (size_t)tiles * sizeof(int)));
        } else {
            cr_assert(c->redistribute && c->redist_seconds > 0, "%s", c->name);
        }
        nt_matrix_t view = *A;
        view.owner = c->owner;
        nt_kernel_pred_t kp;
        cr_assert_eq(nt_model_kernel(p, k, &view, &kp), NT_OK);
        cr_assert_eq(kp.seconds, c->kernel.seconds, "%s", c->name);
        for (int y = 0; y < x; y++)
            cr_assert(memcmp(c->owner, a->cand[y].owner, (size_t)tiles * sizeof(int)),
                      "%s and %s: same map", c->name, a->cand[y].name);
        for (int64_t z = 0; z < tiles; z++)
            cr_assert(c->owner[z] >= 0 && c->owner[z] < 2);
    }
    cr_assert(owner, "owner is always a candidate");
}

Test(advise, ranking_consistent)
{
    nt_topo_t *t = two_domains();
    nt_profile_t *p = profile(5, 2);
    const char *specs[] = {"random:1", "skewed:2x1:4", "chunk:2:9", "bc2d:1x2"};
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 2; k++) {
            nt_matrix_t *A = current(t, 512, specs[s]);
            nt_advise_opts_t o = {.kernel = (nt_advise_kernel)k, .schedule = (nt_exec_schedule)k};
            nt_advice_t *a;
            cr_assert_eq(nt_advise(p, A, &o, &a), NT_OK, "%s", nt_last_error());
            cr_assert_geq(a->count, 3, "%s: owner, bc2d:1x2 and bc2d:2x1 at least", specs[s]);
            check_consistent(p, A, a, (nt_advise_kernel)k);
            nt_advice_destroy(a);
            nt_matrix_destroy(A);
        }
    nt_profile_destroy(p);
    nt_topo_destroy(t);
}

Test(advise, extreme_profiles_decide)
{
    nt_topo_t *t = two_domains();
    // Everything on domain 0: owner-computes uses half the machine. With copies nearly free,
    // redistributing wins; with copies slower than the whole kernel, staying wins.
    nt_tilemap_t *zero; // every tile on domain 0
    cr_assert_eq(nt_tilemap_create(16, 16, 2, &zero), NT_OK);
    nt_matrix_shape_t sh = {1024, 1024, 64, 64, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create(t, &sh, zero, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A), NT_OK);
    nt_tilemap_destroy(zero);
    nt_advise_opts_t o = {.kernel = NT_ADVISE_GEMM};
    nt_profile_t *fast = profile(1e6, 10), *slow = profile(1e-6, 10);
    nt_advice_t *a;
    cr_assert_eq(nt_advise(fast, A, &o, &a), NT_OK);
    cr_assert(a->cand[0].redistribute, "fast copies: %s chosen", a->cand[0].name);
    nt_advice_destroy(a);
    cr_assert_eq(nt_advise(slow, A, &o, &a), NT_OK);
    cr_assert_str_eq(a->cand[0].name, "owner");
    nt_advice_destroy(a);
    nt_advise_opts_t nh = {.kernel = NT_ADVISE_QR, .no_hetero = true};
    cr_assert_eq(nt_advise(fast, A, &nh, &a), NT_OK);
    for (int x = 0; x < a->count; x++)
        cr_assert_null(strstr(a->cand[x].name, "hetero"));
    nt_advice_destroy(a);
    nt_matrix_destroy(A);
    nt_profile_destroy(fast);
    nt_profile_destroy(slow);
    nt_topo_destroy(t);
}

Test(advise, bad_input)
{
    nt_topo_t *t = two_domains();
    nt_matrix_t *A = current(t, 256, "random:2");
    nt_profile_t *p = profile(5, 2), *p3;
    nt_advice_t *a = (nt_advice_t *)0x1;
    cr_assert_eq(nt_advise(NULL, A, NULL, &a), NT_EINVAL);
    cr_assert_eq(nt_advise(p, NULL, NULL, &a), NT_EINVAL);
    cr_assert_eq(nt_advise(p, A, NULL, NULL), NT_EINVAL);
    nt_advise_opts_t bad = {.kernel = (nt_advise_kernel)9};
    cr_assert_eq(nt_advise(p, A, &bad, &a), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "kernel"));
    cr_assert_eq(nt_profile_create(3, &p3), NT_OK);
    cr_assert_eq(nt_advise(p3, A, NULL, &a), NT_EINVAL);
    p->copy_gbs[1] = NAN;
    cr_assert_eq(nt_advise(p, A, NULL, &a), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "copy_gbs[0][1]"), "%s", nt_last_error());
    cr_assert_eq(a, (nt_advice_t *)0x1, "out touched on failure");
    nt_advice_destroy(NULL);
    nt_profile_destroy(p3);
    nt_profile_destroy(p);
    nt_matrix_destroy(A);
    nt_topo_destroy(t);
}

// ---- the commands -------------------------------------------------------------------------------

static void expect_status(int want, const char *const *args, const char *needle)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, want, "%s %s: exit %d, stderr: %s", args[0], args[1], r.status,
                 r.err);
    if (needle)
        cr_assert(strstr(r.err, needle), "stderr '%s' lacks '%s'", r.err, needle);
    tool_result_free(&r);
}

Test(advise, cli)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char path[] = "/tmp/nt-adv-profile-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    json_t *cal = tool_json((const char *[]){"calibrate", "--quick", "--nb", "64", "--domains",
                                             "2", "--out", path, "--json", NULL});
    cr_assert_eq(json_integer_value(json_object_get(cal, "domains")), 2);
    cr_assert_eq(json_integer_value(json_object_get(cal, "format")), NT_PROFILE_FORMAT);
    json_decref(cal);
    // partition --speeds measured:FILE: the profile's speeds, normalised.
    nt_profile_t *prof;
    cr_assert_eq(nt_profile_read(path, NULL, &prof), NT_OK);
    double want[2];
    cr_assert_eq(nt_profile_speeds(prof, want), NT_OK);
    nt_profile_destroy(prof);
    char spec[64];
    snprintf(spec, sizeof spec, "measured:%s", path);
    json_t *part = tool_json((const char *[]){"partition", "--speeds", spec, "--n", "8", "--algo",
                                              "column", "--json", NULL});
    json_t *sp = json_object_get(part, "speeds");
    cr_assert_eq(json_array_size(sp), 2);
    for (size_t k = 0; k < 2; k++)
        cr_assert_float_eq(json_number_value(json_array_get(sp, k)), want[k], 1e-9);
    json_decref(part);
    expect_status(2, (const char *[]){"partition", "--speeds", "measured:/nonexistent/p.json",
                                      "--n", "8", NULL}, "/nonexistent/p.json");
    json_t *o = tool_json((const char *[]){"advise", "--m", "512", "--n", "512", "--from",
                                           "64@skewed:2x1:3", "--kernel", "qr", "--profile", path,
                                           "--domains", "2", "--run", "--json", NULL});
    json_t *c = json_object_get(o, "candidates");
    cr_assert_geq(json_array_size(c), 3);
    cr_assert_str_eq(json_string_value(json_object_get(o, "choice")),
                     json_string_value(json_object_get(json_array_get(c, 0), "name")));
    double prev = 0;
    size_t i;
    json_t *x;
    json_array_foreach(c, i, x) {
        double tot = json_real_value(json_object_get(x, "total_seconds"));
        cr_assert(tot >= prev && tot > 0);
        prev = tot;
    }
    json_t *runs = json_object_get(o, "runs");
    cr_assert_eq(json_array_size(runs), 2, "the choice and the runner-up are run");
    json_array_foreach(runs, i, x) {
        cr_assert_gt(json_real_value(json_object_get(x, "kernel_measured")), 0);
        cr_assert_str_eq(json_string_value(json_object_get(x, "name")),
                         json_string_value(json_object_get(json_array_get(c, i), "name")));
    }
    json_decref(o);
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "64", "--from", "8@random:1",
                                      "--kernel", "lu", NULL}, "--kernel");
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "64", "--kernel", "qr",
                                      NULL}, "--from");
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "32", "--from", "8@random:1",
                                      "--kernel", "gemm", NULL}, "--m");
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "64", "--from", "8random:1",
                                      "--kernel", "qr", NULL}, "TILE@DIST");
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "64", "--from", "8@random:1",
                                      "--kernel", "qr", "--profile", path, "--domains", "3",
                                      NULL}, "domains");
    expect_status(2, (const char *[]){"advise", "--m", "64", "--n", "64", "--from", "8@random:1",
                                      "--kernel", "qr", "--profile", "/nonexistent/p.json",
                                      NULL}, "/nonexistent/p.json");
    expect_status(2, (const char *[]){"calibrate", "--nb", "0", NULL}, "--nb");
    unlink(path);
}

static double field(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "summary field %s missing", key);
    return json_number_value(v);
}

// `bench advise --quick`: the summary's numbers agree with each other and with the raw rows.
Test(advise, bench_quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[] = "/tmp/nt-bench-adv-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    json_t *s = tool_json((const char *[]){"bench", "advise", "--quick", "--json", "--out", dir,
                                           NULL});
    int n = (int)field(s, "instances");
    cr_assert_eq(n, 6);
    double within = field(s, "within_10pct"), best = field(s, "best_seconds");
    cr_assert(within >= 0 && within <= n);
    cr_assert_float_eq(field(s, "within_10pct_fraction"), within / n, 1e-4); // printed rounded
    cr_assert(field(s, "advisor_seconds") >= best && field(s, "never_seconds") >= best &&
              field(s, "always_seconds") >= best && best > 0);
    for (int k = 0; k < 2; k++) {
        double rho = field(s, k ? "spearman_kernel" : "spearman_redist");
        cr_assert(rho >= -1 && rho <= 1);
    }
    // The raw rows: one chosen candidate per instance, its measured total the advisor's share.
    char path[600];
    snprintf(path, sizeof path, "%s/advise.json", dir);
    json_t *doc = json_load_file(path, 0, NULL);
    cr_assert_not_null(doc);
    double chosen = 0;
    int nchosen = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "raw"), i, r) {
        if (json_is_true(json_object_get(r, "chosen"))) {
            nchosen++;
            chosen += field(r, "total_measured");
        }
        cr_assert_float_eq(field(r, "total_measured"),
                           field(r, "redist_measured") + field(r, "kernel_measured"), 1e-6);
    }
    cr_assert_eq(nchosen, n);
    cr_assert_float_eq(chosen, field(s, "advisor_seconds"), 1e-4 * chosen);
    json_decref(doc);
    json_decref(s);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
