// Scenario calibrate: the machine as numatile sees it (kind, domains, nodes, cpus, distances)
// and the copy bound of every domain pair: a parallel memcpy from a buffer on domain i to a
// buffer on domain j by threads bound to j (the side that runs a copy task in nt_plan_execute).
// The measuring is the library's (nt_calibrate(), the machine profile of numatile advise): the
// scenario calibrates `repetitions` times and reports the spread of each pair's copy rate, and
// writes the last profile to DIR/profile.json.
// Cao et al. 2022 bound a redistribution by the transport bandwidth; on one shared-memory
// machine the transport is the memory system, so this matrix is the ceiling of every migration.
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/error.h"
#include "numatile/profile.h"
#include "numatile/topo.h"
#include "scn_util.h"

// The scenario's domains: --domains D, else the physical nodes, else (one node) 2 virtual
// domains so that there is at least one remote pair to look at.
static nt_status load_topo(const bench_run *r, nt_topo_t **out)
{
    nt_topo_opts_t o = {.domains = r->domains};
    nt_status st = nt_topo_load(&o, out);
    if (st == NT_OK && !r->domains && nt_topo_ndomains(*out) < 2) {
        nt_topo_destroy(*out);
        *out = NULL;
        o.domains = 2;
        st = nt_topo_load(&o, out);
    }
    return st;
}

// Copy threads of a domain, as nt_plan_execute chooses them by default: the domain's cpus up to
// 4, one when domains share cpus.
static int copy_threads(const nt_topo_t *topo, int d)
{
    nt_domain_info_t info;
    if (nt_topo_domain(topo, d, &info) != NT_OK || info.ncpus == 0)
        return 0;
    if (nt_topo_oversubscribed(topo))
        return 1;
    return info.ncpus < 4 ? info.ncpus : 4;
}

// ---- parameters and measurement -----------------------------------------------------------------

// The run: domains, repetitions, bytes per copy, and per domain pair the median/min/max GB/s.
typedef struct calib {
    const nt_topo_t *topo;
    int D, reps;
    size_t bytes;
    double *med, *lo, *hi; // D x D, row = source domain
    double *t;             // reps x D x D: GB/s of every pair in every calibration
    nt_profile_t *last;    // the last profile measured
} calib;

static void parameters(bench_run *r, calib *c)
{
    c->D = nt_topo_ndomains(c->topo);
    c->reps = bench_reps(r, 7, 3);
    c->bytes = (size_t)(r->quick ? 16 : 64) << 20; // nt_calibrate's buffers, > the LLC
    bench_param(r, "domains", json_integer(c->D));
    bench_param(r, "bytes_per_copy", json_integer((json_int_t)c->bytes));
    bench_param(r, "repetitions", json_integer(c->reps));
    bench_param(r, "method", json_string("nt_calibrate() per repetition: parallel memcpy, "
                                         "buffer on the source domain to a buffer on the "
                                         "target domain, threads bound to the target; median "
                                         "of its own repetitions after a warm-up"));
    bench_labels(r, "src", "dst", NULL);
}

// The whole run before any of it: nt_calibrate()'s two buffers on every domain, its pair
// tables and profile, and this scenario's D x D x (3 + reps) statistics; 4096 domains took
// 15.8 GB before the library refused them.
static int room_check(bench_run *r, const calib *c)
{
    uint64_t *per = calloc((size_t)c->D, sizeof *per);
    if (!per)
        return scn_fail(r, "calibrate", NT_ENOMEM);
    for (int d = 0; d < c->D; d++)
        per[d] = 2 * (uint64_t)c->bytes;
    uint64_t DD = (uint64_t)c->D * (uint64_t)c->D;
    uint64_t tables = DD * sizeof(double) * (uint64_t)(3 + c->reps + c->reps + 4);
    nt_status st = nt_mem_room(c->topo, per, tables, "bench calibrate");
    free(per);
    return st ? scn_fail(r, "calibrate", st) : 0;
}

static int alloc_calib(bench_run *r, calib *c)
{
    size_t DD = (size_t)c->D * (size_t)c->D;
    c->med = calloc(DD, sizeof *c->med);
    c->lo = calloc(DD, sizeof *c->lo);
    c->hi = calloc(DD, sizeof *c->hi);
    c->t = calloc(DD * (size_t)c->reps, sizeof *c->t);
    if (!c->med || !c->lo || !c->hi || !c->t) {
        fprintf(stderr, "numatile bench %s: out of memory\n", r->name);
        return 3;
    }
    return 0;
}

static void free_calib(calib *c)
{
    free(c->med);
    free(c->lo);
    free(c->hi);
    free(c->t);
    nt_profile_destroy(c->last);
}

// reps calibrations; every pair of every one a raw row.
static int measure(bench_run *r, calib *c)
{
    nt_calibrate_opts_t o = {.quick = r->quick};
    int DD = c->D * c->D;
    for (int k = 0; k < c->reps; k++) {
        nt_profile_destroy(c->last);
        c->last = NULL;
        nt_status st = nt_calibrate(c->topo, &o, &c->last);
        if (st != NT_OK)
            return scn_fail(r, "calibrate", st);
        for (int x = 0; x < DD; x++) {
            double g = c->last->copy_gbs[x];
            c->t[x * c->reps + k] = g;
            bench_row(r, json_pack("{s:i, s:i, s:i, s:i, s:f, s:f}", "src", x / c->D, "dst",
                                   x % c->D, "rep", k, "threads",
                                   copy_threads(c->topo, x % c->D), "seconds",
                                   (double)c->bytes / (g * 1e9), "gbs", g));
        }
        bench_progress(r, k + 1, c->reps, "calibrations");
    }
    for (int x = 0; x < DD; x++) {
        double m3[3];
        scn_stat3(m3, c->t + (size_t)x * (size_t)c->reps, c->reps);
        c->med[x] = m3[0];
        c->lo[x] = m3[1];
        c->hi[x] = m3[2];
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/profile.json", r->dir);
    nt_status st = nt_profile_save(c->last, path);
    return st ? scn_fail(r, "profile.json", st) : 0;
}

// ---- report -------------------------------------------------------------------------------------

static const bench_col domain_cols[] = {
    {.key = "domain", .head = "domain", .fmt = "%-6d"},
    {.key = "node", .head = "node", .fmt = "%4d"},
    {.key = "threads", .head = "threads", .fmt = "%8d"},
    {.key = "memory_bytes", .head = "GiB", .fmt = "%7.1f", .scale = 1.0 / (1u << 30)},
    {.key = "cpus", .head = "cpus", .fmt = "%s", .sep = "  "},
    {NULL}};

// keys "a,b" with ".j" after each: "a.j,b.j".
static void line_keys(char *out, size_t len, const char *keys, int j)
{
    size_t at = 0;
    out[0] = 0;
    for (const char *k = keys; *k && at < len;) {
        size_t n = strcspn(k, ",");
        at += (size_t)snprintf(out + at, len - at, "%s%.*s.%d", at ? "," : "", (int)n, k, j);
        k += n + (k[n] == ',');
    }
}

// A D x D table: an optional label column, then for every j the cell of keys "K.j" (each key
// of keys gets ".j"), headed j. *text holds the keys and heads; free both.
static bench_col *matrix_cols(int D, const bench_col *label, const char *keys, const char *fmt,
                              int width, char **text)
{
    bench_col *cols = calloc((size_t)D + 2, sizeof *cols);
    *text = calloc((size_t)D, 160);
    if (!cols || !*text)
        return NULL;
    int n = 0;
    if (label)
        cols[n++] = *label;
    for (int j = 0; j < D; j++, n++) {
        char *key = *text + (size_t)j * 160, *head = key + 128;
        line_keys(key, 128, keys, j);
        snprintf(head, 32, "%d", j);
        cols[n] = (bench_col){.key = key, .head = head, .fmt = fmt, .width = width, .sep = " "};
    }
    return cols;
}

static json_t *int_array(const int *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(x[i]));
    return a;
}

// The domains: one row each (node, copy threads, memory, cpus), then the distance matrix.
static void print_topology(bench_run *r, const nt_topo_t *topo)
{
    int D = nt_topo_ndomains(topo);
    bench_printf(r, "topology: %s, %d domain%s on %d NUMA node%s%s; distances from %s\n",
                 nt_topo_kind_name(nt_topo_get_kind(topo)), D, D == 1 ? "" : "s",
                 nt_topo_nphysical(topo), nt_topo_nphysical(topo) == 1 ? "" : "s",
                 nt_topo_oversubscribed(topo) ? " (oversubscribed: domains share cpus)" : "",
                 nt_topo_distance_source_name(nt_topo_distance_source(topo)));
    json_t *rows = json_array(), *dist = json_array();
    const uint32_t *dm = nt_topo_distances(topo);
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        char cpus[1024] = "";
        for (int k = 0, at = 0; k < info.ncpus && at < (int)sizeof cpus; k++)
            at += snprintf(cpus + at, sizeof cpus - (size_t)at, "%s%d", k ? "," : "",
                           info.cpus[k]);
        json_array_append_new(rows, json_pack("{s:i, s:i, s:i, s:I, s:s}", "domain", d, "node",
                                              info.node, "threads", copy_threads(topo, d),
                                              "memory_bytes", (json_int_t)info.memory_bytes,
                                              "cpus", cpus));
        json_t *row = json_array();
        for (int j = 0; j < D; j++)
            json_array_append_new(row, json_integer(dm[d * D + j]));
        json_array_append_new(dist, json_pack("{s:o}", "d", row));
    }
    bench_table(r, domain_cols, rows);
    bench_printf(r, "distances:\n");
    char *text;
    bench_col *cols = matrix_cols(D, NULL, "d", "%4u", 0, &text);
    size_t i;
    json_t *row;
    json_array_foreach(dist, i, row)
        if (cols)
            bench_table_row(r, cols, row);
    free(cols);
    free(text);
    json_decref(rows);
    json_decref(dist);
}

// Mean of the medians on the diagonal (*loc) and off it (*rem); NAN without any.
static void local_remote(const calib *c, double *loc, double *rem)
{
    int nloc = 0, nrem = 0;
    *loc = *rem = 0;
    for (int i = 0; i < c->D; i++)
        for (int j = 0; j < c->D; j++) {
            double m = c->med[i * c->D + j];
            if (isnan(m))
                continue;
            if (i == j) {
                *loc += m;
                nloc++;
            } else {
                *rem += m;
                nrem++;
            }
        }
    *loc = nloc ? *loc / nloc : NAN;
    *rem = nrem ? *rem / nrem : NAN;
}

static json_t *matrix_row(const double *x, int D)
{
    json_t *row = json_array();
    for (int j = 0; j < D; j++)
        json_array_append_new(row, json_real(x[j]));
    return row;
}

static json_t *matrix_json(const double *x, int D)
{
    json_t *m = json_array();
    for (int i = 0; i < D; i++)
        json_array_append_new(m, matrix_row(x + i * D, D));
    return m;
}

static void print_bounds(bench_run *r, const calib *c)
{
    static const bench_col src_col = {.key = "src", .head = "", .fmt = "%-4d"};
    bench_printf(r, "\ncopy bound per domain pair, GB/s (bytes copied / time), %zu MiB per "
                    "copy, median [min..max] of %d\nrows: source domain, columns: target "
                    "domain (threads bound there)\n", c->bytes >> 20, c->reps);
    char *text;
    bench_col *cols = matrix_cols(c->D, &src_col, "med,lo,hi", "%.2f [%.2f..%.2f]", -20, &text);
    json_t *rows = json_array();
    for (int i = 0; i < c->D; i++)
        json_array_append_new(rows, json_pack("{s:i, s:o, s:o, s:o}", "src", i, "med",
                                              matrix_row(c->med + i * c->D, c->D), "lo",
                                              matrix_row(c->lo + i * c->D, c->D), "hi",
                                              matrix_row(c->hi + i * c->D, c->D)));
    if (cols)
        bench_table(r, cols, rows);
    free(cols);
    free(text);
    json_decref(rows);
    double loc, rem;
    local_remote(c, &loc, &rem);
    bench_printf(r, "mean of medians: same domain %.2f GB/s, other domain %.2f GB/s "
                    "(ratio %.2f)\n", loc, rem, rem / loc);
}

static void print_reference(bench_run *r, const nt_topo_t *topo)
{
    bench_printf(r,
        "\nReference: Cao et al. 2022 bound a redistribution by bound = Bnet*Bmemcpy / "
        "((2+r)*Bnet + Bmemcpy)\n  (r = local/remote bytes); their Bnet is a cluster "
        "network. Here the 'network' is the memory system\n  itself, so this matrix is "
        "the ceiling: a migration reads and writes every moved byte once\n  (GB/s counts "
        "bytes copied; memory traffic is 2-3x that with write-allocate).\n"
        "Setting: %s domains of %s (%d cpus in all); domains on one node share its "
        "memory\n  controller, so off-diagonal and diagonal entries differ only by noise "
        "and cache effects there;\n  on a multi-node machine the off-diagonal entries "
        "show the interconnect (compare the distances).\n",
        nt_topo_kind_name(nt_topo_get_kind(topo)),
        nt_topo_nphysical(topo) == 1 ? "one NUMA node" : "several NUMA nodes",
        omp_get_num_procs());
}

// The machine part of the summary: topology kind, domains, physical nodes, distances, cpus, threads.
static json_t *topology_json(const nt_topo_t *topo)
{
    int D = nt_topo_ndomains(topo);
    json_t *dist = json_array(), *cpus = json_array(), *thr = json_array();
    const uint32_t *dm = nt_topo_distances(topo);
    for (int i = 0; i < D; i++) {
        json_t *row = json_array();
        for (int j = 0; j < D; j++)
            json_array_append_new(row, json_integer(dm[i * D + j]));
        json_array_append_new(dist, row);
        nt_domain_info_t info;
        nt_topo_domain(topo, i, &info);
        json_array_append_new(cpus, int_array(info.cpus, info.ncpus));
        json_array_append_new(thr, json_integer(copy_threads(topo, i)));
    }
    return json_pack("{s:s, s:i, s:i, s:b, s:s, s:o, s:o, s:o}", "topology",
                     nt_topo_kind_name(nt_topo_get_kind(topo)), "domains", D, "physical_nodes",
                     nt_topo_nphysical(topo), "oversubscribed", nt_topo_oversubscribed(topo),
                     "distance_source",
                     nt_topo_distance_source_name(nt_topo_distance_source(topo)), "distances", dist,
                     "cpus", cpus, "threads", thr);
}

static json_t *summary(const calib *c)
{
    json_t *s = topology_json(c->topo);
    double loc, rem;
    local_remote(c, &loc, &rem);
    json_object_set_new(s, "bytes", json_integer((json_int_t)c->bytes));
    json_object_set_new(s, "repetitions", json_integer(c->reps));
    json_object_set_new(s, "gbs_median", matrix_json(c->med, c->D));
    json_object_set_new(s, "gbs_min", matrix_json(c->lo, c->D));
    json_object_set_new(s, "gbs_max", matrix_json(c->hi, c->D));
    json_object_set_new(s, "local_gbs", isnan(loc) ? json_null() : json_real(loc));
    json_object_set_new(s, "remote_gbs", isnan(rem) ? json_null() : json_real(rem));
    // One row per domain pair, as every scenario summary has (docs/json.md).
    json_t *rows = json_array();
    for (int i = 0; i < c->D; i++)
        for (int j = 0; j < c->D; j++) {
            int x = i * c->D + j;
            json_array_append_new(rows, json_pack("{s:i, s:i, s:f, s:f, s:f}", "src", i, "dst", j,
                                                  "gbs_median", c->med[x], "gbs_min", c->lo[x],
                                                  "gbs_max", c->hi[x]));
        }
    json_object_set_new(s, "rows", rows);
    // The whole last profile (numatile/profile.h's format), as the advisor would read it.
    char *text = NULL;
    json_t *prof = c->last && nt_profile_dump(c->last, &text) == NT_OK ? json_loads(text, 0, NULL)
                                                                      : NULL;
    free(text);
    json_object_set_new(s, "profile", prof ? prof : json_null());
    return s;
}

// The copy bound as a heat map, source domains down, target domains across.
static const bench_plot_spec plot = {
    .name = "calibrate", .title = "copy bound per domain pair (median GB/s)", .width = 700,
    .height = 600, .x = "dst", .xlabel = "target domain (threads bound here)", .num = "%.1f",
    .set = "set autoscale xfix\nset autoscale yfix\nset yrange [*:*] reverse\nset xtics 1\n"
           "set ytics 1\nset cblabel 'GB/s'\nset palette rgb 33,13,10",
    .panel = {{.ylabel = "source domain",
               .series = {{.y = "src,gbs", .title = "", .with = "image"},
                          {.y = "src,gbs", .title = "", .with = "labels"}}}}};

static void draw(bench_run *r, const calib *c)
{
    json_t *rows = json_array();
    for (int i = 0; i < c->D; i++)
        for (int j = 0; j < c->D; j++)
            json_array_append_new(rows, json_pack("{s:i, s:i, s:f}", "src", i, "dst", j, "gbs",
                                                  c->med[i * c->D + j]));
    bench_plot_rows(r, &plot, rows);
    json_decref(rows);
}

int scn_calibrate(bench_run *r)
{
    nt_topo_t *topo = NULL;
    nt_status st = load_topo(r, &topo);
    if (st != NT_OK) {
        int rc = scn_fail(r, "topology", st);
        return st == NT_EINVAL ? 2 : rc;
    }
    calib c = {.topo = topo};
    parameters(r, &c);
    int rc = room_check(r, &c);
    if (!rc)
        print_topology(r, topo);
    if (!rc)
        rc = alloc_calib(r, &c);
    if (!rc)
        rc = measure(r, &c);
    if (!rc) {
        print_bounds(r, &c);
        print_reference(r, topo);
        bench_summary(r, summary(&c));
        draw(r, &c);
    }
    free_calib(&c);
    nt_topo_destroy(topo);
    return rc;
}
