// Scenario kernels: the tiled owner-computes GEMM and QR against flat multithreaded BLIS dgemm
// and flat libFLAME FLA_QR_UT on the same matrix and the same number of threads (issue 5,
// "Performance"): n = 2048 (--quick: 512; --full adds 3072), nb = 128..512, the best
// nb reported, medians of 5 runs. Runs are interleaved (every configuration once per round) so
// that a machine whose load drifts treats all of them alike.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "scn_util.h"

enum { K_GEMM, K_QR };
enum { MAX_NB = 8, MAX_CFG = 4 + 2 * MAX_NB };

typedef struct cfg {
    int kernel;   // K_GEMM or K_QR
    bool tiled;
    int64_t nb;   // tile size (tiled only)
    int threads;  // flat: BLIS threads; tiled: domains x threads per domain
    double *sec;  // seconds per repetition
    nt_matrix_t *A, *B, *C; // tiled operands (QR: A only)
    int64_t remote_reads;
    double owner_fraction;
} cfg;

// The flat operands of one size n, column-major.
typedef struct flat {
    int64_t n;
    double *A, *B, *C, *Q0, *W; // W: the QR work copy of Q0
} flat;

static double kernel_flops(int kernel, int64_t n)
{
    double x = (double)n;
    return kernel == K_GEMM ? 2.0 * x * x * x : 4.0 / 3.0 * x * x * x;
}

static const char *kernel_name(int kernel)
{
    return kernel == K_GEMM ? "gemm" : "qr";
}

static nt_status make_tiled(const nt_topo_t *t, const char *spec, int64_t n, int64_t nb,
                            uint64_t seed, bool fill, nt_matrix_t **out)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, sizeof(double)};
    nt_status st = nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE, 0,
                                         out);
    if (st == NT_OK && fill && (st = nt_matrix_fill(*out, scn_fill_fn, &seed)) != NT_OK) {
        nt_matrix_destroy(*out);
        *out = NULL;
    }
    return st;
}

static void free_flat(flat *f)
{
    free(f->A);
    free(f->B);
    free(f->C);
    free(f->Q0);
    free(f->W);
}

static nt_status make_flat(int64_t n, uint64_t seed, flat *f)
{
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    *f = (flat){.n = n, .A = malloc(bytes), .B = malloc(bytes), .C = calloc(1, bytes),
                .Q0 = malloc(bytes), .W = malloc(bytes)};
    if (!f->A || !f->B || !f->C || !f->Q0 || !f->W) {
        free_flat(f);
        *f = (flat){0};
        return NT_ENOMEM;
    }
    for (int64_t c = 0; c < n; c++)
        for (int64_t r = 0; r < n; r++) {
            f->A[r + c * n] = scn_value(seed, r, c);
            f->B[r + c * n] = scn_value(seed + 1, r, c);
            f->Q0[r + c * n] = scn_value(seed + 3, r, c);
        }
    return NT_OK;
}

// One timed run of a configuration; *sec gets the wall time of the kernel call.
static nt_status run_once(const nt_kernel_opts_t *ko, cfg *c, flat *f, uint64_t seed,
                          double *sec)
{
    nt_status st;
    int64_t n = f->n;
    double t0;
    if (!c->tiled) {
        if (c->kernel == K_GEMM) {
            t0 = bench_now();
            st = nt_gemm_flat(c->threads, n, n, n, 1.0, f->A, n, f->B, n, 0.0, f->C, n);
        } else {
            memcpy(f->W, f->Q0, (size_t)n * (size_t)n * sizeof(double));
            t0 = bench_now();
            st = nt_qr_flat(c->threads, n, n, f->W, n);
        }
        *sec = bench_now() - t0;
        return st;
    }
    nt_kernel_stats_t ks = {0};
    if (c->kernel == K_GEMM) {
        t0 = bench_now();
        st = nt_gemm(1.0, c->A, c->B, 0.0, c->C, ko, &ks);
        *sec = bench_now() - t0;
    } else {
        uint64_t s = seed + 3;
        nt_qr_t *qr = NULL;
        if ((st = nt_matrix_fill(c->A, scn_fill_fn, &s)) != NT_OK)
            return st;
        t0 = bench_now();
        st = nt_qr_factor(c->A, ko, &qr, &ks);
        *sec = bench_now() - t0;
        nt_qr_destroy(qr);
    }
    c->remote_reads = ks.remote_reads;
    c->owner_fraction = ks.owner_fraction;
    nt_kernel_stats_free(&ks);
    return st;
}

// Largest relative difference of the tiled result against the flat one: all of C for GEMM,
// |diag R| for QR (R is unique up to the signs of its rows).
static double check(const cfg *c, const flat *f)
{
    int64_t n = f->n;
    double diff = 0, scale = 0;
    if (c->kernel == K_GEMM) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                double x = *(const double *)nt_matrix_elem(c->C, i, j), y = f->C[i + j * n];
                diff = fmax(diff, fabs(x - y));
                scale = fmax(scale, fabs(y));
            }
    } else {
        for (int64_t k = 0; k < n; k++) {
            double x = fabs(*(const double *)nt_matrix_elem(c->A, k, k));
            double y = fabs(f->W[k + k * n]);
            diff = fmax(diff, fabs(x - y));
            scale = fmax(scale, y);
        }
    }
    return scale > 0 ? diff / scale : diff;
}

static void add_row(bench_run *r, const cfg *c, int64_t n, int rep)
{
    double s = c->sec[rep];
    json_t *row = json_pack("{s:s, s:s, s:I, s:I, s:i, s:i, s:f, s:f}", "kernel",
                            kernel_name(c->kernel), "impl", c->tiled ? "tiled" : "flat", "n",
                            (json_int_t)n, "nb", (json_int_t)(c->tiled ? c->nb : 0), "threads",
                            c->threads, "rep", rep, "seconds", s, "gflops",
                            kernel_flops(c->kernel, n) / s / 1e9);
    if (c->tiled) {
        json_object_set_new(row, "remote_reads", json_integer((json_int_t)c->remote_reads));
        json_object_set_new(row, "owner_fraction", json_real(c->owner_fraction));
    }
    bench_row(r, row);
}

// Results of one size.
typedef struct size_res {
    int64_t n;
    double tiled_best[2];  // median GFLOP/s of the best nb
    int64_t best_nb[2];
    double flat_mt[2];     // median GFLOP/s, flat with the same threads (0 if threads = 1)
    double flat_1t[2];     // median GFLOP/s, flat with one thread
    double check[2];       // relative difference tiled vs flat
    int64_t nbs[MAX_NB];
    double tiled[2][MAX_NB];
    int nnb;
} size_res;

static double best_flat(const size_res *s, int k)
{
    return fmax(s->flat_mt[k], s->flat_1t[k]);
}

// ---- measurement --------------------------------------------------------------------------------

// What every size shares: topology, tile map, threads, tile sizes, repetitions, progress.
typedef struct sweep {
    const nt_topo_t *t;
    char spec[32];
    int threads, tpd, nnb, reps;
    const int64_t *nbs;
    int64_t done, total;
} sweep;

// The configurations of size n: flat with 1 and with all threads, then tiled per nb <= n;
// res gets the tile sizes. Returns their number.
static int make_configs(const sweep *sw, int64_t n, cfg *c, size_res *res)
{
    int nc = 0;
    memset(c, 0, MAX_CFG * sizeof *c);
    for (int k = K_GEMM; k <= K_QR; k++) {
        c[nc++] = (cfg){.kernel = k, .threads = 1};
        if (sw->threads > 1)
            c[nc++] = (cfg){.kernel = k, .threads = sw->threads};
    }
    *res = (size_res){.n = n};
    for (int i = 0; i < sw->nnb; i++) {
        if (sw->nbs[i] > n)
            continue;
        res->nbs[res->nnb++] = sw->nbs[i];
        for (int k = K_GEMM; k <= K_QR; k++)
            c[nc++] = (cfg){.kernel = k, .tiled = true, .nb = sw->nbs[i],
                            .threads = sw->threads};
    }
    return nc;
}

// The repetitions' seconds and the tiled operands of every configuration.
static nt_status alloc_configs(const bench_run *r, const sweep *sw, int64_t n, cfg *c, int nc)
{
    nt_status st = NT_OK;
    for (int i = 0; i < nc && st == NT_OK; i++) {
        if (!(c[i].sec = calloc((size_t)sw->reps, sizeof(double))))
            return NT_ENOMEM;
        if (!c[i].tiled)
            continue;
        if (c[i].kernel == K_GEMM) {
            if ((st = make_tiled(sw->t, sw->spec, n, c[i].nb, r->seed, true, &c[i].A)) ==
                    NT_OK &&
                (st = make_tiled(sw->t, sw->spec, n, c[i].nb, r->seed + 1, true, &c[i].B)) ==
                    NT_OK)
                st = make_tiled(sw->t, sw->spec, n, c[i].nb, r->seed + 2, false, &c[i].C);
        } else {
            st = make_tiled(sw->t, sw->spec, n, c[i].nb, r->seed + 3, false, &c[i].A);
        }
    }
    return st;
}

static void free_configs(cfg *c, int nc)
{
    for (int i = 0; i < nc; i++) {
        free(c[i].sec);
        nt_matrix_destroy(c[i].A);
        nt_matrix_destroy(c[i].B);
        nt_matrix_destroy(c[i].C);
    }
}

// Every configuration once per round, reps rounds, a raw row per run.
static int run_rounds(bench_run *r, sweep *sw, int64_t n, cfg *c, int nc, flat *f)
{
    nt_kernel_opts_t ko = {0};
    char what[64];
    snprintf(what, sizeof what, "runs (n = %lld)", (long long)n);
    for (int rep = 0; rep < sw->reps; rep++)
        for (int i = 0; i < nc; i++) {
            nt_status st = run_once(&ko, &c[i], f, r->seed, &c[i].sec[rep]);
            if (st != NT_OK)
                return scn_fail(r, kernel_name(c[i].kernel), st);
            add_row(r, &c[i], n, rep);
            bench_progress(r, ++sw->done, sw->total, what);
        }
    return 0;
}

// Median GFLOP/s per configuration into res: flat 1 and all threads, tiled per nb, the best nb
// and the check of its result against the flat one.
static void collect(const cfg *c, int nc, const flat *f, int reps, size_res *res)
{
    for (int i = 0; i < nc; i++) {
        int k = c[i].kernel;
        double g = kernel_flops(k, f->n) / bench_median(c[i].sec, (size_t)reps) / 1e9;
        if (!c[i].tiled) {
            *(c[i].threads == 1 ? &res->flat_1t[k] : &res->flat_mt[k]) = g;
            continue;
        }
        for (int j = 0; j < res->nnb; j++)
            if (res->nbs[j] == c[i].nb)
                res->tiled[k][j] = g;
        if (g > res->tiled_best[k]) {
            res->tiled_best[k] = g;
            res->best_nb[k] = c[i].nb;
            // The last run of both sides left comparable results behind.
            res->check[k] = check(&c[i], f);
        }
    }
}

static int run_size(bench_run *r, sweep *sw, int64_t n, size_res *res)
{
    cfg c[MAX_CFG];
    flat f = {0};
    int nc = make_configs(sw, n, c, res), rc = 0;
    nt_status st = make_flat(n, r->seed, &f);
    if (st == NT_OK)
        st = alloc_configs(r, sw, n, c, nc);
    if (st != NT_OK)
        rc = scn_fail(r, "allocating the operands", st);
    if (!rc)
        rc = run_rounds(r, sw, n, c, nc, &f);
    if (!rc)
        collect(c, nc, &f, sw->reps, res);
    free_configs(c, nc);
    free_flat(&f);
    return rc;
}

// ---- report -------------------------------------------------------------------------------------

static json_t *size_json(const size_res *s, int threads)
{
    json_t *o = json_pack("{s:I, s:i}", "n", (json_int_t)s->n, "threads", threads);
    for (int k = K_GEMM; k <= K_QR; k++) {
        char key[64];
        const char *kn = kernel_name(k);
        snprintf(key, sizeof key, "%s_ratio", kn);
        json_object_set_new(o, key, json_real(s->tiled_best[k] / best_flat(s, k)));
        snprintf(key, sizeof key, "%s_nb", kn);
        json_object_set_new(o, key, json_integer((json_int_t)s->best_nb[k]));
        snprintf(key, sizeof key, "%s_tiled_gflops", kn);
        json_object_set_new(o, key, json_real(s->tiled_best[k]));
        snprintf(key, sizeof key, "%s_flat_1t_gflops", kn);
        json_object_set_new(o, key, json_real(s->flat_1t[k]));
        if (threads > 1) {
            snprintf(key, sizeof key, "%s_flat_mt_gflops", kn);
            json_object_set_new(o, key, json_real(s->flat_mt[k]));
            snprintf(key, sizeof key, "%s_ratio_flat_mt", kn);
            json_object_set_new(o, key, json_real(s->tiled_best[k] / s->flat_mt[k]));
        }
        snprintf(key, sizeof key, "%s_ratio_flat_1t", kn);
        json_object_set_new(o, key, json_real(s->tiled_best[k] / s->flat_1t[k]));
        snprintf(key, sizeof key, "%s_flat_baseline_threads", kn);
        json_object_set_new(o, key,
                            json_integer(threads > 1 && s->flat_mt[k] >= s->flat_1t[k] ? threads
                                                                                     : 1));
        snprintf(key, sizeof key, "%s_check", kn);
        json_object_set_new(o, key, json_real(s->check[k]));
    }
    return o;
}

// The table of one size: a row per kernel, a column per tile size, then the flat runs, the
// ratio, the best tile size and the check.
static void print_size(bench_run *r, const size_res *s, int threads)
{
    static const bench_col label = {.key = "kernel", .head = "nb", .fmt = "%-6s", .sep = "  "};
    static const bench_col tail[] = {
        {.key = "flat_1t", .head = "flat 1t", .fmt = "%9.2f", .sep = " | "},
        {.key = "flat_mt", .head = "flat mt", .fmt = "%9.2f"},
        {.key = "ratio", .head = "ratio", .fmt = "%6.3f", .sep = " | "},
        {.key = "nb", .head = "nb*", .fmt = "%5d"},
        {.key = "check", .head = "check", .fmt = "%9.1e"},
        {NULL}};
    bench_col cols[MAX_NB + 8];
    char keys[MAX_NB][24], heads[MAX_NB][24];
    int n = 0;
    cols[n++] = label;
    for (int j = 0; j < s->nnb; j++) {
        snprintf(keys[j], sizeof keys[j], "tiled.%d", j);
        snprintf(heads[j], sizeof heads[j], "%lld", (long long)s->nbs[j]);
        cols[n++] = (bench_col){.key = keys[j], .head = heads[j], .fmt = "%8.2f"};
    }
    memcpy(cols + n, tail, sizeof tail);
    if (threads <= 1)
        cols[n + 1].head = "-";
    json_t *rows = json_array();
    for (int k = K_GEMM; k <= K_QR; k++) {
        json_t *tiled = json_array();
        for (int j = 0; j < s->nnb; j++)
            json_array_append_new(tiled, json_real(s->tiled[k][j]));
        json_t *o = json_pack("{s:s, s:o, s:f, s:f, s:I, s:f}", "kernel", kernel_name(k),
                              "tiled", tiled, "flat_1t", s->flat_1t[k], "ratio",
                              s->tiled_best[k] / best_flat(s, k), "nb",
                              (json_int_t)s->best_nb[k], "check", s->check[k]);
        if (threads > 1)
            json_object_set_new(o, "flat_mt", json_real(s->flat_mt[k]));
        json_array_append_new(rows, o);
    }
    bench_printf(r, "\nn = %lld, %d threads (median GFLOP/s of %s)\n", (long long)s->n, threads,
                 "the repetitions");
    bench_table(r, cols, rows);
    json_decref(rows);
}

static const bench_plot_spec plot = {
    .name = "kernels",
    .title = "tiled owner-computes kernels vs the best flat run (median GFLOP/s)", .width = 1100,
    .height = 450, .x = "nb", .xlabel = "nb", .block = "n",
    .set = "set grid\nset key bottom right\nset yrange [0:*]",
    .panel = {{.title = "GEMM (BLIS)", .ylabel = "GFLOP/s",
               .series = {{.y = "tiled_gemm", .title = "tiled n=%s"},
                          {.y = "flat_gemm", .title = "flat n=%s", .with = "l dt 2"}}},
              {.title = "QR (libFLAME)", .ylabel = "GFLOP/s",
               .series = {{.y = "tiled_qr", .title = "tiled n=%s"},
                          {.y = "flat_qr", .title = "flat n=%s", .with = "l dt 2"}}}}};

// Per size and tile size: tiled GFLOP/s of both kernels against the best flat run.
static void draw(bench_run *r, const size_res *res, int nsizes)
{
    json_t *rows = json_array();
    for (int i = 0; i < nsizes; i++)
        for (int j = 0; j < res[i].nnb; j++)
            json_array_append_new(rows, json_pack("{s:I, s:I, s:f, s:f, s:f, s:f}", "n",
                                                  (json_int_t)res[i].n, "nb",
                                                  (json_int_t)res[i].nbs[j], "tiled_gemm",
                                                  res[i].tiled[K_GEMM][j], "tiled_qr",
                                                  res[i].tiled[K_QR][j], "flat_gemm",
                                                  best_flat(&res[i], K_GEMM), "flat_qr",
                                                  best_flat(&res[i], K_QR)));
    bench_plot_rows(r, &plot, rows);
    json_decref(rows);
}

static void print_notes(bench_run *r, int threads, int D)
{
    bench_printf(r,
        "\nratio = tiled GFLOP/s at the best nb (nb*) / the faster flat run (1 or %d threads), "
        "medians.\n  The faster flat run is the baseline so that a flat run that collapses "
        "(BLIS threads spinning\n  against other load, as seen on a busy machine for flat QR "
        "with 2 threads) cannot inflate\n  the ratio; json also has *_ratio_flat_1t and "
        "*_ratio_flat_mt.\ncheck = max relative difference tiled vs flat: all of C (GEMM), "
        "|diag R| (QR).\n"
        "Target (issue 5): GEMM and QR ratios >= 0.9 at n >= 2048 with the best nb in "
        "128..512.\n"
        "Setting: %d domain(s) of one 2-core VM (virtual domains share one memory node), not "
        "a NUMA server;\n  %s\n",
        threads, D,
        D == 1 ? "with one domain the tiled kernels run on one team: this measures the "
                 "task-graph overhead and\n  tile-size effects against the flat libraries, not "
                 "NUMA locality."
               : "tiles are read across virtual domains at the cost of local memory: remote "
                 "reads are counted,\n  not paid.");
}

static void report(bench_run *r, const sweep *sw, const size_res *res, int nsizes)
{
    int D = nt_topo_ndomains(sw->t);
    for (int i = 0; i < nsizes; i++)
        print_size(r, &res[i], sw->threads);
    scn_note_load_end(r);
    print_notes(r, sw->threads, D);
    const size_res *top = &res[nsizes - 1];
    json_t *sum = size_json(top, sw->threads);
    json_object_set_new(sum, "nb", json_integer((json_int_t)top->best_nb[K_GEMM]));
    json_object_set_new(sum, "domains", json_integer(D));
    json_object_set_new(sum, "repetitions", json_integer(sw->reps));
    json_t *sizes = json_array();
    for (int i = 0; i < nsizes; i++)
        json_array_append_new(sizes, size_json(&res[i], sw->threads));
    json_object_set_new(sum, "sizes", sizes);
    draw(r, res, nsizes);
    bench_summary(r, sum);
}

// ---- the scenario -------------------------------------------------------------------------------

static void parameters(bench_run *r, sweep *sw, const int64_t *ns, int nsizes)
{
    const nt_topo_t *t = sw->t;
    int D = nt_topo_ndomains(t), p, q;
    sw->threads = nt_kernel_default_threads(t, &sw->tpd);
    scn_grid(D, &p, &q);
    snprintf(sw->spec, sizeof sw->spec, "bc2d:%dx%d", p, q);
    scn_note_load(r);
    json_t *jn = json_array(), *jnb = json_array();
    for (int i = 0; i < nsizes; i++)
        json_array_append_new(jn, json_integer((json_int_t)ns[i]));
    for (int i = 0; i < sw->nnb; i++)
        json_array_append_new(jnb, json_integer((json_int_t)sw->nbs[i]));
    bench_param(r, "n", jn);
    bench_param(r, "nb", jnb);
    bench_param(r, "repetitions", json_integer(sw->reps));
    bench_param(r, "domains", json_integer(D));
    bench_param(r, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
    bench_param(r, "oversubscribed", json_boolean(nt_topo_oversubscribed(t)));
    bench_param(r, "dist", json_string(sw->spec));
    bench_param(r, "threads", json_integer(sw->threads));
    bench_param(r, "threads_per_domain", json_integer(sw->tpd));
    bench_labels(r, "kernel", "impl", "n", "nb", "threads", NULL);
    // Progress counts every run of every size.
    for (int i = 0; i < nsizes; i++) {
        int cnt = 2 * (sw->threads > 1 ? 2 : 1);
        for (int j = 0; j < sw->nnb; j++)
            cnt += sw->nbs[j] <= ns[i] ? 2 : 0;
        sw->total += (int64_t)cnt * sw->reps;
    }
}

int scn_kernels(bench_run *r)
{
    static const int64_t quick_n[] = {512}, dflt_n[] = {2048}, full_n[] = {2048, 3072};
    static const int64_t quick_nb[] = {128, 256}, dflt_nb[] = {128, 192, 256, 384, 512};
    const int64_t *ns = r->quick ? quick_n : r->full ? full_n : dflt_n;
    int nsizes = r->full && !r->quick ? 2 : 1;
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&(nt_topo_opts_t){.domains = r->domains}, &t);
    if (st != NT_OK)
        return scn_fail(r, "loading the topology", st);
    sweep sw = {.t = t, .nbs = r->quick ? quick_nb : dflt_nb, .nnb = r->quick ? 2 : 5,
                .reps = bench_reps(r, 5, 3)};
    parameters(r, &sw, ns, nsizes);
    bench_printf(r, "Tiled owner-computes GEMM and QR vs flat BLIS dgemm / libFLAME FLA_QR_UT "
                 "(issue 5)\n%d domain(s) (%s%s), tiles on %s, %d thread(s) (%d per domain); "
                 "flat runs with 1 and %d BLIS threads;\n%d repetitions, interleaved; "
                 "seconds = wall time of the kernel call.\n", nt_topo_ndomains(t),
                 nt_topo_kind_name(nt_topo_get_kind(t)),
                 nt_topo_oversubscribed(t) ? ", oversubscribed" : "", sw.spec, sw.threads,
                 sw.tpd, sw.threads, sw.reps);
    size_res res[2];
    int rc = 0;
    for (int i = 0; i < nsizes && !rc; i++)
        rc = run_size(r, &sw, ns[i], &res[i]);
    if (!rc)
        report(r, &sw, res, nsizes);
    nt_topo_destroy(t);
    return rc;
}
