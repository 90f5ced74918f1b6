// The envelope of the tool's --json output (docs/json.md): it says what the command ran on
// and with which options, and it agrees with the command's own fields and with the library.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "numatile.h"
#include "tool_run.h"

static const char *str(const json_t *o, const char *path)
{
    return json_string_value(bench_get(o, path));
}

static json_int_t num(const json_t *o, const char *path)
{
    json_t *v = bench_get(o, path);
    cr_assert(json_is_integer(v), "%s is not an integer", path);
    return json_integer_value(v);
}

// The fields every document starts with, in order, and the versions of this build.
static void check_envelope(const json_t *j, const char *command)
{
    static const char *order[] = {"schema", "tool", "command", "machine", "libraries",
                                  "parameters"};
    void *it = json_object_iter((json_t *)j);
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        cr_assert_not_null(it, "the envelope ends before '%s'", order[k]);
        cr_assert_str_eq(json_object_iter_key(it), order[k]);
        it = json_object_iter_next((json_t *)j, it);
    }
    cr_assert_eq(num(j, "schema"), BENCH_JSON_SCHEMA);
    cr_assert_str_eq(str(j, "command"), command);
    cr_assert_str_eq(str(j, "tool.version"), nt_version());
    cr_assert_str_eq(str(j, "libraries.numatile"), nt_version());
    cr_assert_str_eq(str(j, "libraries.blas"), nt_blas_name());
    cr_assert_str_eq(str(j, "libraries.jansson"), jansson_version_str());
    cr_assert(json_is_object(json_object_get(j, "parameters")));
}

Test(cli_json, plan_envelope_echoes_options_and_topology)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"plan", "--m", "64", "--n", "48", "--from",
                                           "16@bc1d:3", "--to", "16@bc2d:3x1", "--dump",
                                           "--json", NULL});
    check_envelope(j, "plan");
    // Options by their long names, numbers as numbers, flags as true, --json left out.
    cr_assert_eq(num(j, "parameters.m"), 64);
    cr_assert_eq(num(j, "parameters.n"), 48);
    cr_assert_str_eq(str(j, "parameters.from"), "16@bc1d:3");
    cr_assert(json_is_true(bench_get(j, "parameters.dump")));
    cr_assert_null(bench_get(j, "parameters.json"));
    // The machine is the topology the plan ran on: 3 domains the distributions asked for.
    cr_assert_eq(num(j, "machine.domains"), num(j, "domains"));
    cr_assert_eq(num(j, "domains"), 3);
    cr_assert_str_eq(str(j, "machine.topology"), str(j, "topology"));
    json_decref(j);
}

Test(cli_json, topo_synthetic_machine_and_unique_prefix)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *desc = "pack:2 numa:3 core:1 pu:1";
    json_t *j = tool_json((const char *[]){"topo", "--synth", desc, "--json", NULL});
    check_envelope(j, "topo");
    cr_assert_str_eq(str(j, "parameters.synthetic"), desc);
    cr_assert_str_eq(str(j, "machine.topology"), "synthetic");
    cr_assert_eq(num(j, "machine.domains"), 6);
    cr_assert_eq(num(j, "machine.physical_nodes"), 6);
    cr_assert_eq(json_array_size(json_object_get(j, "domain_list")), 6);
    json_decref(j);
}

// A subcommand without a topology of its own reports this machine's default one.
Test(cli_json, partition_reports_this_machine)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"partition", "--speeds", "1,2", "--n", "8", "--json",
                                           NULL});
    check_envelope(j, "partition");
    cr_assert_str_eq(str(j, "parameters.speeds"), "1,2");
    cr_assert_eq(num(j, "domains"), 2);
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(NULL, &t), NT_OK);
    cr_assert_eq(num(j, "machine.domains"), nt_topo_ndomains(t));
    cr_assert_str_eq(str(j, "machine.topology"), nt_topo_kind_name(nt_topo_get_kind(t)));
    nt_topo_destroy(t);
    json_decref(j);
}

// A scenario's document: the envelope with the run's parameters, then scenario, notices and
// the summary; NAME.json has the same envelope and the summary without it.
Test(cli_json, scenario_document)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[] = "/tmp/nt-cli-json-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    json_t *j = tool_json((const char *[]){"bench", "herrmann-fig3", "--quick", "--seed", "7",
                                           "--json", "--out", dir, NULL});
    check_envelope(j, "bench");
    cr_assert_str_eq(str(j, "scenario"), "herrmann-fig3");
    cr_assert(json_is_array(json_object_get(j, "notices")));
    cr_assert(json_is_true(bench_get(j, "parameters.quick")));
    cr_assert_eq(num(j, "parameters.seed"), 7);
    cr_assert_gt(json_array_size(json_object_get(j, "rows")), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/herrmann-fig3.json", dir);
    json_t *doc = json_load_file(path, 0, NULL);
    cr_assert_not_null(doc);
    check_envelope(doc, "bench");
    cr_assert(json_equal(bench_get(doc, "summary.rows"), json_object_get(j, "rows")));
    cr_assert(json_equal(json_object_get(doc, "parameters"), json_object_get(j, "parameters")));
    cr_assert(json_is_string(json_object_get(doc, "command_line")));
    json_decref(doc);
    json_decref(j);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
