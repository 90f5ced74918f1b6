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

static int run_size(bench_run *r, const nt_topo_t *t, const char *spec, int threads, int64_t n,
                    const int64_t *nbs, int nnb, int reps, int64_t *done, int64_t total,
                    size_res *res)
{
    cfg c[MAX_CFG];
    int nc = 0, rc = 0;
    flat f = {0};
    nt_status st = make_flat(n, r->seed, &f);
    memset(c, 0, sizeof c);
    for (int k = K_GEMM; k <= K_QR; k++) {
        c[nc++] = (cfg){.kernel = k, .threads = 1};
        if (threads > 1)
            c[nc++] = (cfg){.kernel = k, .threads = threads};
    }
    *res = (size_res){.n = n};
    for (int i = 0; i < nnb; i++) {
        if (nbs[i] > n)
            continue;
        res->nbs[res->nnb++] = nbs[i];
        for (int k = K_GEMM; k <= K_QR; k++)
            c[nc++] = (cfg){.kernel = k, .tiled = true, .nb = nbs[i], .threads = threads};
    }
    for (int i = 0; i < nc && st == NT_OK; i++) {
        if (!(c[i].sec = calloc((size_t)reps, sizeof(double)))) {
            st = NT_ENOMEM;
            break;
        }
        if (!c[i].tiled)
            continue;
        if (c[i].kernel == K_GEMM) {
            if ((st = make_tiled(t, spec, n, c[i].nb, r->seed, true, &c[i].A)) == NT_OK &&
                (st = make_tiled(t, spec, n, c[i].nb, r->seed + 1, true, &c[i].B)) == NT_OK)
                st = make_tiled(t, spec, n, c[i].nb, r->seed + 2, false, &c[i].C);
        } else {
            st = make_tiled(t, spec, n, c[i].nb, r->seed + 3, false, &c[i].A);
        }
    }
    if (st != NT_OK)
        rc = scn_fail(r, "allocating the operands", st);
    nt_kernel_opts_t ko = {0};
    char what[64];
    snprintf(what, sizeof what, "runs (n = %lld)", (long long)n);
    for (int rep = 0; rep < reps && !rc; rep++)
        for (int i = 0; i < nc && !rc; i++) {
            if ((st = run_once(&ko, &c[i], &f, r->seed, &c[i].sec[rep])) != NT_OK) {
                rc = scn_fail(r, kernel_name(c[i].kernel), st);
                break;
            }
            add_row(r, &c[i], n, rep);
            bench_progress(r, ++*done, total, what);
        }
    for (int i = 0; i < nc && !rc; i++) {
        int k = c[i].kernel;
        double g = kernel_flops(k, n) / bench_median(c[i].sec, (size_t)reps) / 1e9;
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
            res->check[k] = check(&c[i], &f);
        }
    }
    for (int i = 0; i < nc; i++) {
        free(c[i].sec);
        nt_matrix_destroy(c[i].A);
        nt_matrix_destroy(c[i].B);
        nt_matrix_destroy(c[i].C);
    }
    free_flat(&f);
    return rc;
}

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

static void print_size(bench_run *r, const size_res *s, int threads)
{
    bench_printf(r, "\nn = %lld, %d threads (median GFLOP/s of %s)\n", (long long)s->n, threads,
                 "the repetitions");
    bench_printf(r, "  %-6s", "nb");
    for (int j = 0; j < s->nnb; j++)
        bench_printf(r, " %8lld", (long long)s->nbs[j]);
    bench_printf(r, " | %9s %9s | %6s %5s %9s\n", "flat 1t", threads > 1 ? "flat mt" : "-",
                 "ratio", "nb*", "check");
    for (int k = K_GEMM; k <= K_QR; k++) {
        bench_printf(r, "  %-6s", kernel_name(k));
        for (int j = 0; j < s->nnb; j++)
            bench_printf(r, " %8.2f", s->tiled[k][j]);
        char mt[16] = "-";
        if (threads > 1)
            snprintf(mt, sizeof mt, "%.2f", s->flat_mt[k]);
        bench_printf(r, " | %9.2f %9s | %6.3f %5lld %9.1e\n", s->flat_1t[k], mt,
                     s->tiled_best[k] / best_flat(s, k), (long long)s->best_nb[k], s->check[k]);
    }
}

static void plot(bench_run *r, const size_res *res, int nsizes)
{
    FILE *f = bench_fopen(r, "kernels.dat");
    if (!f)
        return;
    for (int i = 0; i < nsizes; i++) {
        const size_res *s = &res[i];
        fprintf(f, "# n = %lld: nb tiled_gemm tiled_qr flat_gemm flat_qr (GFLOP/s)\n",
                (long long)s->n);
        for (int j = 0; j < s->nnb; j++)
            fprintf(f, "%lld %g %g %g %g\n", (long long)s->nbs[j], s->tiled[K_GEMM][j],
                    s->tiled[K_QR][j], best_flat(s, K_GEMM), best_flat(s, K_QR));
        fprintf(f, "\n\n");
    }
    fclose(f);
    if (!(f = bench_fopen(r, "kernels.gp")))
        return;
    fprintf(f, "set terminal pngcairo size 1100,450\nset output 'kernels.png'\n"
               "set multiplot layout 1,2 title 'tiled owner-computes kernels vs the best flat "
               "run (median GFLOP/s)'\nset xlabel 'nb'\nset ylabel 'GFLOP/s'\nset grid\n"
               "set key bottom right\nset yrange [0:*]\n");
    for (int k = K_GEMM; k <= K_QR; k++) {
        fprintf(f, "set title '%s'\nplot ", k == K_GEMM ? "GEMM (BLIS)" : "QR (libFLAME)");
        for (int i = 0; i < nsizes; i++)
            fprintf(f, "%s'kernels.dat' index %d u 1:%d w lp t 'tiled n=%lld', "
                       "'' index %d u 1:%d w l dt 2 t 'flat n=%lld'",
                    i ? ", " : "", i, 2 + k, (long long)res[i].n, i, 4 + k,
                    (long long)res[i].n);
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    bench_plot(r, "kernels.gp");
}

int scn_kernels(bench_run *r)
{
    static const int64_t quick_n[] = {512}, dflt_n[] = {2048}, full_n[] = {2048, 3072};
    static const int64_t quick_nb[] = {128, 256}, dflt_nb[] = {128, 192, 256, 384, 512};
    const int64_t *ns = r->quick ? quick_n : r->full ? full_n : dflt_n;
    int nsizes = r->full && !r->quick ? 2 : 1;
    const int64_t *nbs = r->quick ? quick_nb : dflt_nb;
    int nnb = r->quick ? 2 : 5;
    int reps = bench_reps(r, 5, 3);

    nt_topo_opts_t to = {.domains = r->domains};
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&to, &t);
    if (st != NT_OK)
        return scn_fail(r, "loading the topology", st);
    int D = nt_topo_ndomains(t), p, q, tpd;
    int threads = scn_kernel_threads(t, &tpd);
    scn_grid(D, &p, &q);
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:%dx%d", p, q);

    scn_note_load(r);
    json_t *jn = json_array(), *jnb = json_array();
    for (int i = 0; i < nsizes; i++)
        json_array_append_new(jn, json_integer((json_int_t)ns[i]));
    for (int i = 0; i < nnb; i++)
        json_array_append_new(jnb, json_integer((json_int_t)nbs[i]));
    bench_param(r, "n", jn);
    bench_param(r, "nb", jnb);
    bench_param(r, "repetitions", json_integer(reps));
    bench_param(r, "domains", json_integer(D));
    bench_param(r, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
    bench_param(r, "oversubscribed", json_boolean(nt_topo_oversubscribed(t)));
    bench_param(r, "dist", json_string(spec));
    bench_param(r, "threads", json_integer(threads));
    bench_param(r, "threads_per_domain", json_integer(tpd));
    bench_labels(r, "kernel", "impl", "n", "nb", "threads", NULL);

    bench_printf(r, "Tiled owner-computes GEMM and QR vs flat BLIS dgemm / libFLAME FLA_QR_UT "
                 "(issue 5)\n%d domain(s) (%s%s), tiles on %s, %d thread(s) (%d per domain); "
                 "flat runs with 1 and %d BLIS threads;\n%d repetitions, interleaved; "
                 "seconds = wall time of the kernel call.\n", D,
                 nt_topo_kind_name(nt_topo_get_kind(t)),
                 nt_topo_oversubscribed(t) ? ", oversubscribed" : "", spec, threads, tpd,
                 threads, reps);

    size_res res[2];
    int64_t done = 0, total = 0;
    for (int i = 0; i < nsizes; i++) {
        int cnt = 2 * (threads > 1 ? 2 : 1);
        for (int j = 0; j < nnb; j++)
            cnt += nbs[j] <= ns[i] ? 2 : 0;
        total += (int64_t)cnt * reps;
    }
    int rc = 0;
    for (int i = 0; i < nsizes && !rc; i++)
        rc = run_size(r, t, spec, threads, ns[i], nbs, nnb, reps, &done, total, &res[i]);
    if (rc) {
        nt_topo_destroy(t);
        return rc;
    }
    for (int i = 0; i < nsizes; i++)
        print_size(r, &res[i], threads);
    scn_note_load_end(r);

    const size_res *top = &res[nsizes - 1];
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
    json_t *sum = size_json(top, threads);
    json_object_set_new(sum, "nb", json_integer((json_int_t)top->best_nb[K_GEMM]));
    json_object_set_new(sum, "domains", json_integer(D));
    json_object_set_new(sum, "repetitions", json_integer(reps));
    json_t *sizes = json_array();
    for (int i = 0; i < nsizes; i++)
        json_array_append_new(sizes, size_json(&res[i], threads));
    json_object_set_new(sum, "sizes", sizes);
    bench_summary(r, sum);
    plot(r, res, nsizes);
    nt_topo_destroy(t);
    return 0;
}
