// `numatile topo`: the JSON contract of DESIGN.md and argument errors (exit 2, named argument).
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "numatile.h"
#include "tool_run.h"

// The JSON must agree with the library's own view of the same topology.
static void check_against_library(json_t *j, int domains, const char *synthetic)
{
    nt_topo_opts_t o = {.domains = domains, .synthetic = synthetic};
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    int D = nt_topo_ndomains(t);
    cr_assert_str_eq(json_string_value(json_object_get(j, "topology")),
                     nt_topo_kind_name(nt_topo_get_kind(t)));
    cr_assert_eq(json_integer_value(json_object_get(j, "physical_nodes")), nt_topo_nphysical(t));
    cr_assert_eq(json_is_true(json_object_get(j, "oversubscribed")), nt_topo_oversubscribed(t));
    cr_assert_str_eq(json_string_value(json_object_get(j, "distance_source")),
                     nt_topo_dist_source_name(nt_topo_distance_source(t)));
    json_t *doms = json_object_get(j, "domain_list"), *dist = json_object_get(j, "distances");
    cr_assert_eq((int)json_array_size(doms), D);
    cr_assert_eq((int)json_array_size(dist), D);
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        json_t *jd = json_array_get(doms, (size_t)d);
        cr_assert_eq(json_integer_value(json_object_get(jd, "id")), d);
        cr_assert_eq(json_integer_value(json_object_get(jd, "node")), info.node);
        cr_assert_eq(json_integer_value(json_object_get(jd, "memory_bytes")),
                     (json_int_t)info.memory_bytes);
        json_t *cpus = json_object_get(jd, "cpus");
        cr_assert_eq((int)json_array_size(cpus), info.ncpus);
        for (int k = 0; k < info.ncpus; k++)
            cr_assert_eq(json_integer_value(json_array_get(cpus, (size_t)k)), info.cpus[k]);
        json_t *row = json_array_get(dist, (size_t)d);
        for (int e = 0; e < D; e++)
            cr_assert_eq(json_integer_value(json_array_get(row, (size_t)e)),
                         nt_topo_distances(t)[d * D + e]);
    }
    nt_topo_destroy(t);
}

Test(cli_topo, json_fields_match_the_library)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"topo", "--json", NULL});
    check_against_library(j, 0, NULL);
    json_decref(j);
    j = tool_json((const char *[]){"topo", "--domains", "4", "--json", NULL});
    check_against_library(j, 4, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(j, "topology")), "virtual");
    json_decref(j);
    const char *s4 = "pack:2 numa:2 core:2 pu:1", *s8 = "pack:4 numa:2 core:8 pu:1";
    j = tool_json((const char *[]){"topo", "--synthetic", s4, "--json", NULL});
    check_against_library(j, 0, s4);
    cr_assert_eq(json_integer_value(json_object_get(j, "physical_nodes")), 4);
    json_decref(j);
    j = tool_json((const char *[]){"topo", "--synthetic", s8, "--json", NULL});
    check_against_library(j, 0, s8);
    cr_assert_eq(json_integer_value(json_object_get(j, "physical_nodes")), 8);
    json_decref(j);
}

// The probe's page counts are checked against the library's own placement rule: every page of
// a domain's buffer on that domain's node.
Test(cli_topo, probe_reports_every_page_on_its_node)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"topo", "--domains", "3", "--probe", "2", "--json",
                                           NULL});
    json_t *probe = json_object_get(j, "probe");
    cr_assert_eq(json_array_size(probe), 3);
    for (size_t d = 0; d < 3; d++) {
        json_t *row = json_array_get(probe, d);
        cr_assert_eq(json_integer_value(json_object_get(row, "bytes")), 2 << 20);
        json_int_t pages = json_integer_value(json_object_get(row, "pages"));
        cr_assert_eq(pages, (2 << 20) / 4096);
        cr_assert_eq(json_integer_value(json_object_get(row, "pages_on_node")), pages);
    }
    json_decref(j);
}

Test(cli_topo, text_report_runs)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    tool_result r = tool_run((const char *[]){"topo", "--domains", "3", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "virtual, 3 domains"), "%s", r.out);
    cr_assert(strstr(r.out, "distances"));
    tool_result_free(&r);
}

Test(cli_topo, bad_arguments_exit_2_naming_the_argument)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const struct { const char *args[6]; const char *needle; } cases[] = {
        {{"topo", "--domains", "x", NULL}, "--domains"},
        {{"topo", "--domains", "0", NULL}, "--domains"},
        {{"topo", "--domains", "-3", NULL}, "--domains"},
        {{"topo", "--domains", "4097", NULL}, "--domains"},
        {{"topo", "--domains", NULL}, "--domains"},
        {{"topo", "--synthetic", "numa:two", NULL}, "synthetic"},
        {{"topo", "--synthetic", "pack:4 numa:1 core:1 pu:1", "--domains", "2", NULL}, "domains"},
        {{"topo", "--bogus", NULL}, "--bogus"},
        {{"topo", "--probe", "0", NULL}, "--probe"},
        {{"topo", "--probe", "4", "--synthetic", "pack:2 numa:1 core:1 pu:1", NULL}, "--probe"},
        {{"topo", "extra", NULL}, "extra"},
        {{"no-such-command", NULL}, "no-such-command"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tool_result r = tool_run(cases[k].args);
        cr_assert_eq(r.status, 2, "case %zu: exit %d", k, r.status);
        cr_assert(strstr(r.err, cases[k].needle), "case %zu: stderr '%s' lacks '%s'", k, r.err,
                  cases[k].needle);
        cr_assert_str_eq(r.out, "", "case %zu: nothing on stdout", k);
        tool_result_free(&r);
    }
}
