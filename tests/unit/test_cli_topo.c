// `numatile topo`: the JSON contract of DESIGN.md and argument errors (exit 2, named argument).
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsroot_util.h"
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
                     nt_topo_distance_source_name(nt_topo_distance_source(t)));
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

// ---- --map and --draw ----------------------------------------------------------------------

typedef struct dat_row {
    int domain, node, x, y, allowed;
    char cpus[256];
    long long memory, tiles, bytes;
    double share;
} dat_row;

// The data file written beside the picture: one row per domain, '#' lines are comments.
static int read_dat(const char *path, dat_row *rows, int cap)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no data file %s", path);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        cr_assert_lt(n, cap);
        dat_row *r = &rows[n];
        int got = sscanf(line, "%d %d %d %d \"%255[^\"]\" %lld %lld %lld %lf %d", &r->domain,
                         &r->node, &r->x, &r->y, r->cpus, &r->memory, &r->tiles, &r->bytes,
                         &r->share, &r->allowed);
        cr_assert_eq(got, 10, "bad data line: %s", line);
        cr_assert_eq(r->domain, n);
        n++;
    }
    fclose(f);
    return n;
}

static void assert_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "no picture %s", path);
    unsigned char sig[8] = {0};
    cr_assert_eq(fread(sig, 1, 8, f), 8);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    cr_assert_eq(memcmp(sig, "\x89PNG\r\n\x1a\n", 8), 0, "%s is not a PNG", path);
    cr_assert_gt(size, 1000, "%s is only %ld bytes", path, size);
}

static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

// bc2d:PxQ:SMBxSNB over an m x n matrix of MB x NB tiles, counted element by element from
// DESIGN.md's owner formula: the naive oracle for what --map puts on each domain.
static void naive_bc2d(int64_t m, int64_t n, int64_t mb, int64_t nb, int P, int Q, int smb,
                       int snb, int64_t elem, long long *tiles, long long *bytes)
{
    int64_t mt = (m + mb - 1) / mb, nt = (n + nb - 1) / nb;
    for (int d = 0; d < P * Q; d++)
        tiles[d] = bytes[d] = 0;
    for (int64_t i = 0; i < mt; i++)
        for (int64_t j = 0; j < nt; j++)
            tiles[((i / smb) % P) * Q + (j / snb) % Q]++;
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < n; c++) {
            int64_t i = r / mb, j = c / nb;
            bytes[((i / smb) % P) * Q + (j / snb) % Q] += elem;
        }
}

Test(cli_topo, draw_map_data_matches_a_naive_count)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    if (!have_gnuplot())
        cr_skip("gnuplot not on PATH");
    char dir[] = "/tmp/nt_draw_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char png[128], dat[128], gp[128];
    snprintf(png, sizeof png, "%s/six.png", dir);
    snprintf(dat, sizeof dat, "%s/six.dat", dir);
    snprintf(gp, sizeof gp, "%s/six.gp", dir);
    // Six described domains, partial edge tiles in both directions, super-blocks 2x1.
    json_t *j = tool_json((const char *[]){"topo", "--synthetic", "pack:2 numa:3 core:2 pu:1",
                                           "--map", "32x48@bc2d:2x3:2x1", "--m", "500", "--n",
                                           "300", "--elem", "4", "--draw", png, "--json", NULL});
    assert_png(png);
    long long tiles[6], bytes[6];
    naive_bc2d(500, 300, 32, 48, 2, 3, 2, 1, 4, tiles, bytes);
    dat_row rows[16];
    cr_assert_eq(read_dat(dat, rows, 16), 6);
    json_t *map = json_object_get(j, "map");
    long long sum = 0;
    for (int d = 0; d < 6; d++) {
        cr_assert_eq(rows[d].tiles, tiles[d], "domain %d: %lld tiles drawn, %lld in the map", d,
                     rows[d].tiles, tiles[d]);
        cr_assert_eq(rows[d].bytes, bytes[d], "domain %d: %lld bytes drawn, %lld in the map", d,
                     rows[d].bytes, bytes[d]);
        cr_assert_eq(json_integer_value(json_array_get(json_object_get(map, "tiles"),
                                                       (size_t)d)), tiles[d]);
        cr_assert_eq(json_integer_value(json_array_get(json_object_get(map, "bytes"),
                                                       (size_t)d)), bytes[d]);
        cr_assert_eq(rows[d].node, d);
        cr_assert_eq(rows[d].allowed, 1);
        sum += rows[d].bytes;
    }
    cr_assert_eq(sum, 500LL * 300 * 4);
    // The script draws from that data file, and the picture is the one asked for.
    FILE *f = fopen(gp, "r");
    cr_assert_not_null(f);
    char script[8192];
    size_t len = fread(script, 1, sizeof script - 1, f);
    script[len] = 0;
    fclose(f);
    cr_assert(strstr(script, dat), "the script does not read %s", dat);
    cr_assert(strstr(script, png));
    json_decref(j);
    remove(png);
    remove(dat);
    remove(gp);
    rmdir(dir);
}

// Without a map: the boxes of this machine, their cpus as the library lists them.
Test(cli_topo, draw_this_machine_lists_each_domain)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    if (!have_gnuplot())
        cr_skip("gnuplot not on PATH");
    char dir[] = "/tmp/nt_draw_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char png[128], dat[128], gp[128];
    snprintf(png, sizeof png, "%s/m.png", dir);
    snprintf(dat, sizeof dat, "%s/m.dat", dir);
    snprintf(gp, sizeof gp, "%s/m.gp", dir);
    tool_result r = tool_run((const char *[]){"topo", "--domains", "3", "--draw", png, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "picture: "));
    tool_result_free(&r);
    assert_png(png);
    dat_row rows[8];
    cr_assert_eq(read_dat(dat, rows, 8), 3);
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 3}, &t), NT_OK);
    for (int d = 0; d < 3; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        cr_assert_eq(rows[d].node, info.node);
        cr_assert_eq(rows[d].memory, (long long)info.memory_bytes);
        cr_assert_eq(rows[d].tiles, 0);
        // "a" or "a-b" for this machine's one or two cpus per domain
        int a = -1, b = -1;
        int got = sscanf(rows[d].cpus, "%d-%d", &a, &b);
        cr_assert_eq(a, info.cpus[0], "domain %d: cpus '%s'", d, rows[d].cpus);
        cr_assert_eq(got == 2 ? b : a, info.cpus[info.ncpus - 1]);
    }
    nt_topo_destroy(t);
    remove(png);
    remove(dat);
    remove(gp);
    rmdir(dir);
}

Test(cli_topo, map_and_draw_arguments_exit_2)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const struct { const char *args[12]; const char *needle; } cases[] = {
        {{"topo", "--draw", "/tmp/x.jpg", NULL}, "--draw"},
        {{"topo", "--draw", "/tmp/it's.png", NULL}, "--draw"},
        {{"topo", "--map", "32x32@bc1d:2", "--m", "100", NULL}, "--n"},
        {{"topo", "--m", "100", "--n", "100", NULL}, "--map"},
        {{"topo", "--map", "32x@bc1d:2", "--m", "9", "--n", "9", NULL}, "--map"},
        {{"topo", "--map", "32x32@bc2d:2x", "--m", "9", "--n", "9", NULL}, "--map"},
        {{"topo", "--domains", "2", "--map", "8x8@bc2d:2x2", "--m", "64", "--n", "64", NULL},
         "--map"},
        {{"topo", "--map", "8@bc1d:1", "--m", "2147483647", "--n", "2147483647", "--elem",
          "1048576", NULL}, "overflows"},
        {{"topo", "--map", "8@bc1d:1", "--m", "0", "--n", "9", NULL}, "--m"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tool_result r = tool_run(cases[k].args);
        cr_assert_eq(r.status, 2, "case %zu: exit %d (%s)", k, r.status, r.err);
        cr_assert(strstr(r.err, cases[k].needle), "case %zu: stderr '%s' lacks '%s'", k, r.err,
                  cases[k].needle);
        cr_assert_str_eq(r.out, "");
        tool_result_free(&r);
    }
}

// topo shows the memory limits and the one that binds, as nt_mem_limits() reads them: here
// the cgroup (1 GiB, 768 MiB left) below the 16 GiB the node and MemAvailable have.
Test(cli_topo, memory_limits_and_the_binding_one)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    fsroot_cgroup_machine("topo");
    json_t *j = tool_json((const char *const[]){"topo", "--json", NULL});
    json_t *l = json_object_get(j, "memory_limits");
    cr_assert(json_is_object(l), "no memory_limits object");
    cr_assert_eq(json_integer_value(json_object_get(l, "nodes_free")), 16LL << 30);
    cr_assert_eq(json_integer_value(json_object_get(l, "mem_available")), 16LL << 30);
    cr_assert_eq(json_integer_value(json_object_get(l, "cgroup_limit")), 1LL << 30);
    cr_assert_eq(json_integer_value(json_object_get(l, "cgroup_room")), 768LL << 20);
    cr_assert_eq(json_integer_value(json_object_get(l, "room")), 768LL << 20);
    cr_assert_str_eq(json_string_value(json_object_get(l, "binding")),
                     nt_mem_limit_name(NT_LIMIT_CGROUP));
    json_decref(j);
    tool_result r = tool_run((const char *const[]){"topo", NULL});
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.out, "memory: 0.8 GiB can still be taken, bound by the cgroup "
                                     "memory limit; limits: node free 16.0 GiB, MemAvailable "
                                     "16.0 GiB, cgroup 1.0 GiB (0.8 GiB left)"),
                       "%s", r.out);
    tool_result_free(&r);
    fsroot_remove();
}
