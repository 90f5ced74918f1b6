// `numatile plan` and `numatile redist`: the JSON contract of DESIGN.md, checked against the
// library's own plan of the same matrices, and argument errors (exit 2, named argument).
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "tool_run.h"

static json_t *run_json(const char *const *args, int want)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, want, "exit %d: %s", r.status, r.err);
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    cr_assert_not_null(j, "not JSON (%s): %s", e.text, r.out);
    tool_result_free(&r);
    return j;
}

static int64_t geti(json_t *j, const char *k)
{
    json_t *v = json_object_get(j, k);
    cr_assert(json_is_integer(v), "field %s missing or not an integer", k);
    return json_integer_value(v);
}

// The library's plan of the same problem.
static nt_plan_t *library_plan(int domains, int64_t m, int64_t n, int64_t mbs, const char *ds,
                               int64_t mbt, const char *dt, nt_match_objective obj,
                               const nt_sub_t *sub, nt_topo_t **t, nt_matrix_t **S,
                               nt_matrix_t **T)
{
    nt_topo_opts_t o = {.domains = domains};
    cr_assert_eq(nt_topo_load(&o, t), NT_OK);
    nt_matrix_shape_t a = {m, n, mbs, mbs, 8}, b = {m, n, mbt, mbt, 8};
    cr_assert_eq(nt_matrix_create_spec(*t, &a, ds, 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, S),
                 NT_OK);
    cr_assert_eq(nt_matrix_create_spec(*t, &b, dt, 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, T),
                 NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(*S, *T, sub, &(nt_plan_opts_t){.relabel = obj}, &p), NT_OK);
    return p;
}

Test(cli_plan, json_fields_match_the_library)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = run_json((const char *[]){"plan", "--m", "300", "--n", "250", "--from",
                                          "32@random:5", "--to", "40@bc2d:2x2", "--domains",
                                          "4", "--match", "volume", "--sub",
                                          "100,90,10,20,30,40", "--dump", "--json", NULL},
                         0);
    nt_topo_t *t;
    nt_matrix_t *S, *T;
    nt_sub_t sub = {100, 90, 10, 20, 30, 40};
    nt_plan_t *p = library_plan(4, 300, 250, 32, "random:5", 40, "bc2d:2x2", NT_MATCH_VOLUME,
                                &sub, &t, &S, &T);
    nt_plan_info_t I;
    nt_plan_info(p, &I);
    cr_assert_eq(geti(j, "tiles"), I.tiles);
    cr_assert_eq(geti(j, "segments"), I.segments);
    cr_assert_eq(geti(j, "bytes_moved"), I.bytes_moved);
    cr_assert_eq(geti(j, "bytes_local"), I.bytes_local);
    cr_assert_eq(geti(j, "volume_tiles"), I.volume_tiles);
    cr_assert_eq(geti(j, "steps"), I.steps);
    cr_assert_eq(geti(j, "bytes"), 100 * 90 * 8);
    cr_assert(json_is_number(json_object_get(j, "seconds")));
    json_t *sig = json_object_get(j, "sigma");
    int ns;
    const int *s = nt_plan_sigma(p, &ns);
    cr_assert_eq((int)json_array_size(sig), ns);
    for (int k = 0; k < ns; k++)
        cr_assert_eq(json_integer_value(json_array_get(sig, (size_t)k)), s[k]);
    // --dump: maps row by row; the target after relabelling.
    json_t *sm = json_object_get(j, "src_map"), *dm = json_object_get(j, "dst_map");
    cr_assert_eq((int64_t)json_array_size(sm), S->mt);
    cr_assert_eq((int64_t)json_array_size(dm), T->mt);
    const int *own = nt_plan_dst_owner(p);
    for (int64_t i = 0; i < T->mt; i++)
        for (int64_t k = 0; k < T->nt; k++)
            cr_assert_eq(json_integer_value(json_array_get(json_array_get(dm, (size_t)i),
                                                           (size_t)k)), own[i * T->nt + k]);
    for (int64_t i = 0; i < S->mt; i++)
        for (int64_t k = 0; k < S->nt; k++)
            cr_assert_eq(json_integer_value(json_array_get(json_array_get(sm, (size_t)i),
                                                           (size_t)k)), S->owner[i * S->nt + k]);
    json_decref(j);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_topo_destroy(t);
}

Test(cli_plan, synthetic_machine_and_text_output)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = run_json((const char *[]){"plan", "--m", "64", "--n", "64", "--from",
                                          "8@bc2d:2x4", "--to", "16x4@bc2d:4x2", "--synthetic",
                                          "pack:2 numa:4 core:1 pu:1", "--match", "distance",
                                          "--json", NULL},
                         0);
    cr_assert_str_eq(json_string_value(json_object_get(j, "topology")), "synthetic");
    cr_assert_eq(geti(j, "domains"), 8);
    cr_assert(json_is_true(json_object_get(j, "closed_form")));
    json_decref(j);
    tool_result r = tool_run((const char *[]){"plan", "--m", "64", "--n", "64", "--from",
                                              "8@bc2d:2x4", "--to", "16@bc1d:8", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "segments"), "%s", r.out);
    tool_result_free(&r);
}

Test(cli_plan, redist_verifies_every_mode)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *modes[][5] = {{"copy", "free", "tile", "tile", "64x32@random:3"},
                              {"move", "free", "tile", "tile", "64x32@random:3"},
                              {"copy", "steps", "tile", "scalapack", "64x32@random:3"},
                              {"move", "steps", "scalapack", "tile", "64x32@bc2d:4x1"}};
    for (int k = 0; k < 4; k++) {
        json_t *j = run_json((const char *[]){"redist", "--m", "200", "--n", "180", "--from",
                                              modes[k][4], "--to", "64x32@bc2d:2x2",
                                              "--match", "lex", "--mode", modes[k][0],
                                              "--schedule", modes[k][1], "--from-layout",
                                              modes[k][2], "--to-layout", modes[k][3],
                                              "--verify", "--json", NULL},
                             0);
        cr_assert(json_is_true(json_object_get(j, "verify")), "mode %d", k);
        cr_assert(json_is_number(json_object_get(j, "bandwidth_gbs")));
        cr_assert(json_is_number(json_object_get(j, "bound_gbs")));
        cr_assert_eq(geti(j, "tiles"), 4 * 6);
        cr_assert(json_is_number(json_object_get(j, "seconds")));
        json_decref(j);
    }
    json_t *j = run_json((const char *[]){"redist", "--m", "90", "--n", "70", "--from",
                                          "7x5@chunk:3:1", "--to", "11x13@bc1d:3", "--sub",
                                          "40,30,45,35,2,3", "--elem", "3", "--verify",
                                          "--json", NULL},
                         0);
    cr_assert(json_is_true(json_object_get(j, "verify")));
    cr_assert_eq(geti(j, "bytes"), 40 * 30 * 3);
    json_decref(j);
}

static void expect_usage(const char *const *args, const char *needle)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "exit %d (stderr: %s)", r.status, r.err);
    cr_assert(strstr(r.err, needle), "stderr does not name '%s': %s", needle, r.err);
    tool_result_free(&r);
}

Test(cli_plan, bad_arguments_exit_2_naming_the_argument)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    expect_usage((const char *[]){"plan", "--n", "10", "--from", "2@bc1d:1", "--to", "2@bc1d:1",
                                  NULL}, "--m");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2xbc1d:1",
                                  "--to", "2@bc1d:1", NULL}, "--from");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc9d:1", NULL}, "--to");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--sub", "1,2,3", NULL}, "--sub");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--sub", "5,5,6,0,0,0", NULL},
                 "out of");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--match", "best", NULL}, "--match");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--mode", "move", NULL}, "--mode");
    expect_usage((const char *[]){"redist", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--synthetic", "pack:2 pu:1", NULL},
                 "--synthetic");
    expect_usage((const char *[]){"redist", "--m", "10", "--n", "10", "--from", "2@bc1d:1",
                                  "--to", "2@bc1d:1", "--mode", "teleport", NULL}, "--mode");
    expect_usage((const char *[]){"plan", "--m", "10", "--n", "10", "--from", "2@bc1d:4",
                                  "--to", "2@bc1d:1", "--domains", "2", NULL}, "domain");
}

// Domains of the run's topology as its JSON reports them.
static int64_t run_domains(const char *const *args)
{
    json_t *j = run_json(args, 0);
    json_t *mach = json_object_get(j, "machine");
    cr_assert(json_is_object(mach), "no machine object");
    int64_t d = geti(mach, "domains");
    json_decref(j);
    return d;
}

// Without --domains, gemm, qr and advise take as many domains as their DISTs announce (at
// least the machine's nodes), as plan does: a 2x2 grid ran on 4 domains under plan and was
// refused by the others on a machine of fewer nodes ("bc2d:2x2 has 4 domains but 1 were
// asked for"); a DIST of fewer domains than the machine was refused by gemm and qr's --from.
Test(cli_plan, kernels_and_advise_choose_domains_as_plan)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    int64_t plan = run_domains((const char *const[]){"plan", "--m", "256", "--n", "256",
                                                     "--from", "64@bc2d:2x2", "--to",
                                                     "64@bc2d:1x1", "--json", NULL});
    cr_assert_geq(plan, 4);
    const char *const runs[][14] = {
        {"gemm", "--n", "256", "--nb", "64", "--dist", "bc2d:2x2", "--verify", "--json", NULL},
        {"gemm", "--n", "256", "--nb", "64", "--dist", "bc2d:1x1", "--from", "bc2d:2x2",
         "--verify", "--json", NULL},
        {"qr", "--m", "256", "--n", "256", "--nb", "64", "--dist", "bc2d:2x2", "--verify",
         "--json", NULL},
        {"advise", "--m", "256", "--n", "256", "--from", "64@bc2d:2x2", "--kernel", "gemm",
         "--json", NULL}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++)
        cr_assert_eq(run_domains(runs[k]), plan, "%s %s", runs[k][0], runs[k][6]);
}
