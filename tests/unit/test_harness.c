// The benchmark harness: statistics against naive sorting, output directories, CSV, grouped
// median/min/max, and `numatile bench` end to end (--list, output files, --json summaries).
//
// The harness is part of the tool, not of the library: the unit tests link its objects
// (bench/harness/), not the scenarios.
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <hwloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "numatile.h"
#include "tool_run.h"

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (rng_state * 2685821657736338717ULL) % n;
}

static void insertion_sort(double *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
            double t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
}

Test(harness, median_min_max_against_sorting)
{
    double x[301], y[301], copy[301];
    for (int trial = 0; trial < 2000; trial++) {
        size_t n = 1 + rnd(trial < 1000 ? 12 : 301);
        uint64_t range = rnd(3) == 0 ? 4 : 1000000; // small ranges give many ties
        for (size_t i = 0; i < n; i++)
            x[i] = (double)rnd(range) - (double)range / 2 + (rnd(2) ? 0.25 : 0.0);
        memcpy(copy, x, n * sizeof *x);
        memcpy(y, x, n * sizeof *x);
        insertion_sort(y, n);
        double want = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
        cr_assert_eq(bench_median(x, n), want, "n %zu: median %g, sorted says %g", n,
                     bench_median(x, n), want);
        cr_assert_eq(bench_min(x, n), y[0]);
        cr_assert_eq(bench_max(x, n), y[n - 1]);
        cr_assert_eq(memcmp(x, copy, n * sizeof *x), 0, "the input was modified");
        double mean = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
            mean += y[i] / (double)n;
        for (size_t i = 0; i < n; i++)
            ss += (y[i] - mean) * (y[i] - mean);
        double sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
        cr_assert_float_eq(bench_mean(x, n), mean, 1e-9 * (1 + fabs(mean)));
        cr_assert_float_eq(bench_stddev(x, n), sd, 1e-9 * (1 + sd));
    }
    cr_assert(isnan(bench_median(x, 0)) && isnan(bench_min(x, 0)) && isnan(bench_max(x, 0)));
    cr_assert(isnan(bench_mean(x, 0)) && isnan(bench_stddev(x, 0)));
}

// Spearman against the textbook formula 1 - 6 sum d^2 / (n (n^2 - 1)) on tie-free series
// (random permutations), and fixed cases: monotone, reversed, ties, too short, constant.
Test(harness, spearman_against_the_rank_difference_formula)
{
    unsigned seed = 7;
    for (size_t n = 3; n < 40; n++) {
        double x[40], y[40];
        for (size_t i = 0; i < n; i++) {
            x[i] = (double)i;
            y[i] = (double)i;
        }
        for (size_t i = n - 1; i > 0; i--) {
            seed = seed * 1103515245u + 12345u;
            size_t j = (seed >> 8) % (i + 1);
            double t = y[i];
            y[i] = y[j];
            y[j] = t;
        }
        double d2 = 0;
        for (size_t i = 0; i < n; i++)
            d2 += (x[i] - y[i]) * (x[i] - y[i]);
        double want = 1 - 6 * d2 / ((double)n * ((double)n * (double)n - 1));
        cr_assert_float_eq(bench_spearman(x, y, n), want, 1e-12, "n %zu", n);
    }
    double a[] = {1, 2, 3, 4}, b[] = {10, 20, 30, 40}, c[] = {4, 3, 2, 1}, t[] = {1, 1, 2, 2};
    cr_assert_float_eq(bench_spearman(a, b, 4), 1.0, 1e-12);
    cr_assert_float_eq(bench_spearman(a, c, 4), -1.0, 1e-12);
    // Ties get their mean rank: ranks of t are 1.5 1.5 3.5 3.5, Pearson with 1 2 3 4 = 0.894.
    cr_assert_float_eq(bench_spearman(a, t, 4), 2.0 / sqrt(5.0), 1e-12);
    double k[] = {5, 5, 5, 5};
    cr_assert(isnan(bench_spearman(a, b, 2)) && isnan(bench_spearman(a, k, 4)));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *temp_dir(void)
{
    char *d = strdup("/tmp/nt-harness-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static bool is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

Test(harness, mkdirs_creates_parents)
{
    char *base = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/a/b//c/d/", base);
    cr_assert_eq(bench_mkdirs(path), 0, "%s", strerror(errno));
    cr_assert(is_dir(path));
    cr_assert_eq(bench_mkdirs(path), 0, "an existing directory is fine");
    snprintf(path, sizeof path, "%s/file", base);
    FILE *f = fopen(path, "w");
    fclose(f);
    cr_assert_eq(bench_mkdirs(path), -1, "a file is not a directory");
    snprintf(path, sizeof path, "%s/file/sub", base);
    cr_assert_eq(bench_mkdirs(path), -1, "a path through a file fails");
    cr_assert_eq(bench_mkdirs(""), -1);
    rm_tree(base);
    free(base);
}

// Grouped statistics against a naive per-group recomputation.
Test(harness, stats_group_by_labels)
{
    json_t *rows = json_array(), *labels = json_pack("[s, s]", "P", "objective");
    const char *objs[] = {"volume", "steps"};
    double vals[4][40];
    int nv[4] = {0};
    for (int i = 0; i < 160; i++) {
        int p = (int)rnd(2), o = (int)rnd(2);
        double t = (double)rnd(1000) / 7.0;
        if (nv[p * 2 + o] == 40)
            continue;
        vals[p * 2 + o][nv[p * 2 + o]++] = t;
        json_array_append_new(rows, json_pack("{s:i, s:s, s:i, s:f, s:s}", "P", 8 << p,
                                              "objective", objs[o], "rep", i, "seconds", t,
                                              "note", "text columns are not quantities"));
    }
    json_t *stats = bench_stats(rows, labels);
    size_t g;
    json_t *grp;
    int groups = 0;
    json_array_foreach(stats, g, grp) {
        json_t *lab = json_object_get(grp, "labels");
        int p = json_integer_value(json_object_get(lab, "P")) == 8 ? 0 : 1;
        int o = strcmp(json_string_value(json_object_get(lab, "objective")), "volume") ? 1 : 0;
        int n = nv[p * 2 + o];
        cr_assert_eq(json_integer_value(json_object_get(grp, "n")), n);
        double y[40];
        memcpy(y, vals[p * 2 + o], (size_t)n * sizeof *y);
        insertion_sort(y, (size_t)n);
        json_t *q = json_object_get(json_object_get(grp, "quantities"), "seconds");
        double med = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
        cr_assert_float_eq(json_real_value(json_object_get(q, "median")), med, 1e-12);
        cr_assert_float_eq(json_real_value(json_object_get(q, "min")), y[0], 1e-12);
        cr_assert_float_eq(json_real_value(json_object_get(q, "max")), y[n - 1], 1e-12);
        json_t *quantities = json_object_get(grp, "quantities");
        cr_assert_null(json_object_get(quantities, "rep"), "rep is not a quantity");
        cr_assert_null(json_object_get(quantities, "P"), "labels are not quantities");
        cr_assert_null(json_object_get(quantities, "note"));
        groups++;
    }
    cr_assert_eq(groups, 4);
    json_decref(stats);
    json_decref(rows);
    json_decref(labels);
}

Test(harness, csv_union_of_columns_and_quoting)
{
    json_t *rows = json_pack("[{s:i, s:f}, {s:i, s:s, s:b}]", "a", 1, "b", 0.5, "a", 2, "c",
                             "x,\"y\"", "d", 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(bench_write_csv(f, rows), 0);
    fclose(f);
    cr_assert_str_eq(buf, "a,b,c,d\n1,0.5,,\n2,,\"x,\"\"y\"\"\",true\n");
    free(buf);
    json_decref(rows);
}

Test(harness, machine_description)
{
    json_t *m = bench_machine(NULL);
    cr_assert(json_is_string(json_object_get(m, "hostname")));
    cr_assert_gt(json_integer_value(json_object_get(m, "cpus")), 0);
    cr_assert(json_is_string(json_object_get(m, "topology")));
    cr_assert_gt(json_integer_value(json_object_get(m, "domains")), 0);
    json_decref(m);
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = "pack:2 numa:2 core:1 pu:1"}, &t),
                 NT_OK);
    m = bench_machine(t);
    cr_assert_str_eq(json_string_value(json_object_get(m, "topology")), "synthetic");
    cr_assert_eq(json_integer_value(json_object_get(m, "domains")), 4);
    nt_topo_destroy(t);
    json_decref(m);
    json_t *v = bench_libraries();
    cr_assert_str_eq(json_string_value(json_object_get(v, "numatile")), nt_version());
    cr_assert_str_eq(json_string_value(json_object_get(v, "jansson")), jansson_version_str());
    cr_assert_str_eq(json_string_value(json_object_get(v, "blas")), nt_blas_name());
    // The API level and the release are both the loaded library's; the release is at least
    // the API level (2.9.0 implements API 2.8.0).
    unsigned hv = hwloc_get_api_version(), a, b, c;
    const char *rel = json_string_value(json_object_get(v, "hwloc"));
    cr_assert_eq(sscanf(rel, "%u.%u.%u", &a, &b, &c), 3, "hwloc release '%s'", rel);
    cr_assert_geq((a << 16) | (b << 8) | c, hv, "release %s below API %x", rel, hv);
    char api[32];
    snprintf(api, sizeof api, "%u.%u.%u", hv >> 16, (hv >> 8) & 0xff, hv & 0xff);
    cr_assert_str_eq(json_string_value(json_object_get(v, "hwloc_api")), api);
    json_decref(v);
}

// The envelope comes first, the command's fields after it, and a field named like an
// envelope key cannot replace it.
Test(harness, envelope_wraps_fields)
{
    json_t *doc = bench_wrap("plan", NULL, json_pack("{s:i}", "m", 8),
                             json_pack("{s:i, s:s}", "tiles", 4, "schema", "bogus"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "schema")), BENCH_JSON_SCHEMA);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "command")), "plan");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "parameters"), "m")), 8);
    cr_assert_eq(json_integer_value(json_object_get(doc, "tiles")), 4);
    const char *first = json_object_iter_key(json_object_iter(doc));
    cr_assert_str_eq(first, "schema");
    cr_assert(json_is_object(json_object_get(doc, "libraries")));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "tool"), "name")),
                     "numatile");
    json_decref(doc);
}

// Declared tables: widths from the format, composite cells, separators, scaling, missing and
// string values, integers under a floating conversion, nested keys, group and header lines.
Test(harness, table_lines)
{
    static const bench_col cols[] = {
        {.key = "n", .head = "n", .fmt = "%3d", .group = "size"},
        {.key = "who", .head = "", .fmt = "%-5s"},
        {.key = "mean,sd", .head = "mean\n+-sd", .fmt = "%.2f+-%.2f", .width = -11,
         .sep = " | ", .group = "stats"},
        {.key = "sec", .head = "ms", .fmt = "%7.1f", .scale = 1e3},
        {.key = "ref.vol", .head = "vol", .fmt = "%6.1f"},
        {NULL}};
    json_t *ours = json_pack("{s:i, s:s, s:f, s:f, s:f, s:{s:f}}", "n", 16, "who", "ours",
                             "mean", 0.5, "sd", 0.125, "sec", 0.25, "ref", "vol", 12.25);
    json_t *paper = json_pack("{s:i, s:s, s:s, s:{s:i}}", "n", 16, "who", "paper", "sec",
                              "n/a", "ref", "vol", 249);
    char buf[256];
    cr_assert_eq(bench_table_line(buf, sizeof buf, cols, NULL, 0), 3);
    cr_assert_str_eq(buf, "size      | stats");
    bench_table_line(buf, sizeof buf, cols, NULL, 1);
    cr_assert_str_eq(buf, "  n       | mean             ms    vol");
    bench_table_line(buf, sizeof buf, cols, NULL, 2);
    cr_assert_str_eq(buf, "          | +-sd");
    cr_assert_eq(bench_table_line(buf, sizeof buf, cols, ours, 0), 1);
    cr_assert_str_eq(buf, " 16 ours  | 0.50+-0.12    250.0   12.2");
    bench_table_line(buf, sizeof buf, cols, paper, 0);
    cr_assert_str_eq(buf, " 16 paper | -               n/a    249");
    bench_table_line(buf, 12, cols, ours, 0);
    cr_assert_str_eq(buf, " 16 ours  |", "a short buffer truncates");
    json_decref(ours);
    json_decref(paper);
}

// Declared plots: the data file holds x and the series' columns, one block per block value;
// the script draws every block in every panel, then the reference lines; a series whose column
// no row has is left out.
Test(harness, plot_files)
{
    static const bench_plot_spec spec = {
        .name = "p", .title = "T", .width = 800, .height = 400, .x = "x", .xlabel = "X",
        .block = "D", .set = "set logscale x 2",
        .panel = {{.title = "left", .ylabel = "GB/s",
                   .series = {{.y = "y", .title = "copy D=%s"},
                              {.y = "nope", .title = "absent", .with = "l"},
                              {.y = "0.9", .title = "target", .with = "l dt 2"}}},
                  {.title = "the paper's",
                   .series = {{.y = "y,lo,hi", .title = "D=%s", .with = "yerrorlines"}}}}};
    json_t *rows = json_pack("[{s:i, s:i, s:f, s:f, s:f}, {s:i, s:i, s:f, s:f, s:f},"
                             " {s:i, s:i, s:f, s:f, s:f}]", "D", 2, "x", 1, "y", 0.5, "lo",
                             0.25, "hi", 0.75, "D", 4, "x", 1, "y", 1.5, "lo", 1.0, "hi", 2.0,
                             "D", 2, "x", 2, "y", 2.5, "lo", 2.0, "hi", 3.0);
    char *dat = NULL, *gp = NULL;
    size_t ld = 0, lg = 0;
    FILE *fd = open_memstream(&dat, &ld), *fg = open_memstream(&gp, &lg);
    bench_plot_write(fd, fg, &spec, rows);
    fclose(fd);
    fclose(fg);
    cr_assert_str_eq(dat, "# x y lo hi (a block per D)\n1 0.5 0.25 0.75\n2 2.5 2 3\n\n\n"
                          "1 1.5 1 2\n\n\n");
    cr_assert(strstr(gp, "set multiplot layout 1,2 title 'T'\nset xlabel 'X'\n"
                         "set logscale x 2\nset title 'left'\nset ylabel 'GB/s'\n"), "%s", gp);
    cr_assert(strstr(gp, "plot 'p.dat' index 0 u 1:2 w lp t 'copy D=2', '' index 1 u 1:2 w lp t "
                         "'copy D=4', 0.9 w l dt 2 t 'target'\n"), "%s", gp);
    // A quote inside a title is doubled (gnuplot's single-quoted strings).
    cr_assert(strstr(gp, "set title 'the paper''s'\n"), "%s", gp);
    cr_assert(strstr(gp, "plot 'p.dat' index 0 u 1:2:3:4 w yerrorlines t 'D=2', '' index 1 u "
                         "1:2:3:4 w yerrorlines t 'D=4'\nunset multiplot\n"), "%s", gp);
    free(dat);
    free(gp);
    json_decref(rows);
}

// ---- the tool ---------------------------------------------------------------------------------

Test(bench_cli, list_and_usage_errors)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    tool_result r = tool_run((const char *[]){"bench", "--list", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "match ") && strstr(r.out, "herrmann-fig2") &&
                  strstr(r.out, "herrmann-fig3"),
              "%s", r.out);
    tool_result_free(&r);
    r = tool_run((const char *[]){"bench", "--list", "--json", NULL});
    cr_assert_eq(r.status, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_geq(json_array_size(json_object_get(j, "scenarios")), 3);
    json_decref(j);
    tool_result_free(&r);
    const char *const *bad[] = {
        (const char *[]){"bench", NULL},
        (const char *[]){"bench", "no-such-scenario", NULL},
        (const char *[]){"bench", "match", "--bogus", NULL},
        (const char *[]){"bench", "match", "--repeat", "0", NULL},
        (const char *[]){"bench", "match", "--repeat", "x", NULL},
        (const char *[]){"bench", "match", "herrmann-fig2", NULL},
        (const char *[]){"bench", "match", "--quick", "--full", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = tool_run(bad[i]);
        cr_assert_eq(r.status, 2, "case %zu: exit %d", i, r.status);
        cr_assert(r.err[0]);
        tool_result_free(&r);
    }
}

static json_t *load_json_file(const char *dir, const char *file)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s: %s", path, e.text);
    return j;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int n = 0;
    for (int c; (c = fgetc(f)) != EOF;)
        n += c == '\n';
    fclose(f);
    return n;
}

// herrmann-fig2 --quick --json: the summary on stdout, every file written into a new nested
// directory, the means recomputed from the raw rows of the JSON file.
Test(bench_cli, herrmann_fig2_quick_json)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *base = temp_dir(), out[512], path[600];
    snprintf(out, sizeof out, "%s/nested/run", base);
    tool_result r = tool_run((const char *[]){"bench", "herrmann-fig2", "--quick", "--json",
                                              "--out", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *sum = json_loads(r.out, 0, NULL);
    cr_assert_not_null(sum, "stdout is not one JSON object: %s", r.out);
    tool_result_free(&r);
    json_t *rows = json_object_get(sum, "rows");
    cr_assert_eq(json_array_size(rows), 20);
    json_t *doc = load_json_file(out, "herrmann-fig2.json");
    json_t *raw = json_object_get(doc, "raw");
    for (int d = 1; d <= 20; d++) {
        json_t *row = json_array_get(rows, (size_t)d - 1);
        cr_assert_eq(json_integer_value(json_object_get(row, "D")), d);
        const char *keys[] = {"vol_over_can_mean", "vol_over_can_std", "steps_over_can_mean",
                              "steps_over_can_std"};
        for (int k = 0; k < 4; k++)
            cr_assert(json_is_number(json_object_get(row, keys[k])), "D %d lacks %s", d,
                      keys[k]);
        // Oracle: the mean ratio recomputed from the raw per-instance costs.
        double vs = 0, ss = 0;
        int n = 0;
        size_t i;
        json_t *x;
        json_array_foreach(raw, i, x) {
            if (json_integer_value(json_object_get(x, "D")) != d)
                continue;
            double can_v = (double)json_integer_value(json_object_get(x, "can_volume"));
            double can_s = (double)json_integer_value(json_object_get(x, "can_steps"));
            double v = (double)json_integer_value(json_object_get(x, "volopt_volume"));
            double s = (double)json_integer_value(json_object_get(x, "stepsopt_steps"));
            cr_assert_leq(v, can_v);
            cr_assert_leq(s, can_s);
            vs += v / can_v;
            ss += s / can_s;
            n++;
        }
        cr_assert_gt(n, 0);
        cr_assert_float_eq(json_number_value(json_object_get(row, "vol_over_can_mean")), vs / n,
                           1e-9);
        cr_assert_float_eq(json_number_value(json_object_get(row, "steps_over_can_mean")),
                           ss / n, 1e-9);
    }
    cr_assert(json_is_object(json_object_get(doc, "machine")));
    cr_assert(json_is_object(json_object_get(doc, "parameters")));
    cr_assert_eq(json_array_size(json_object_get(doc, "stats")), 20);
    snprintf(path, sizeof path, "%s/herrmann-fig2.csv", out);
    cr_assert_eq(count_lines(path), 1 + (int)json_array_size(raw));
    snprintf(path, sizeof path, "%s/herrmann-fig2.txt", out);
    cr_assert(is_file(path));
    // The plot says where and how it was measured: numatile's version and the --quick mark.
    snprintf(path, sizeof path, "%s/herrmann-fig2.gp", out);
    FILE *gp = fopen(path, "r");
    cr_assert_not_null(gp);
    char first[512] = "";
    cr_assert_not_null(fgets(first, sizeof first, gp));
    fclose(gp);
    cr_assert(strstr(first, "set label 99 '") && strstr(first, nt_version()) &&
                  strstr(first, nt_blas_name()) && strstr(first, ", --quick'"),
              "%s", first);
    json_decref(doc);
    json_decref(sum);
    rm_tree(base);
    free(base);
}

// match --quick (scipy off to stay fast): one raw row per objective, P and repetition, and
// the recorded optima consistent with each other (steps-optimal has the fewest steps, lex
// matches it and has the least volume among them, volume-optimal the least volume).
Test(bench_cli, match_quick_outputs)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv("NT_PYTHON", "none", 1);
    char *base = temp_dir(), path[600];
    tool_result r = tool_run((const char *[]){"bench", "match", "--quick", "--repeat", "2",
                                              "--out", base, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "counting"), "%s", r.out);
    tool_result_free(&r);
    json_t *doc = load_json_file(base, "match.json");
    json_t *raw = json_object_get(doc, "raw");
    int found = 0;
    for (int p = 8; p <= 128; p *= 4)
        for (int rep = 0; rep < 2; rep++) {
            json_t *by[3] = {NULL};
            const char *objs[] = {"volume", "steps", "lex"};
            size_t i;
            json_t *x;
            json_array_foreach(raw, i, x) {
                if (json_integer_value(json_object_get(x, "P")) != p ||
                    json_integer_value(json_object_get(x, "rep")) != rep)
                    continue;
                for (int o = 0; o < 3; o++)
                    if (!strcmp(json_string_value(json_object_get(x, "objective")), objs[o]))
                        by[o] = x;
            }
            cr_assert(by[0] && by[1] && by[2], "P %d rep %d: rows missing", p, rep);
#define F(o, k) json_integer_value(json_object_get(by[o], k))
            cr_assert_leq(F(1, "steps"), F(0, "steps"));
            cr_assert_eq(F(2, "steps"), F(1, "steps"));
            cr_assert_leq(F(0, "volume"), F(2, "volume"));
            cr_assert_leq(F(2, "volume"), F(1, "volume"));
#undef F
            found++;
        }
    cr_assert_eq(found, 6);
    json_t *stats = json_object_get(doc, "stats");
    cr_assert_eq(json_array_size(stats), 3 * 3 + 1, "3 sizes x 3 objectives + counting");
    snprintf(path, sizeof path, "%s/match.csv", base);
    cr_assert_eq(count_lines(path), 1 + (int)json_array_size(raw));
    cr_assert_eq(json_array_size(raw), 3 * 3 * 2 + 2);
    json_decref(doc);
    rm_tree(base);
    free(base);
}
