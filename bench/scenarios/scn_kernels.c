// Scenario kernels: the tiled owner-computes GEMM and QR against the flat libraries on the same
// matrix and the same number of threads (issues 5 and 17, "Performance"): the flat runs of this
// build (BLIS dgemm and libFLAME FLA_QR_UT, or OpenBLAS dgemm and dgeqrf under
// `make BLAS=openblas`) in this process, and flat OpenBLAS dgemm/dgeqrf from the peer program
// flat_openblas next to this executable, when it was built. n = 2048 (--quick: 512; --full:
// 2048 and 4096), nb = 128..2048 (which nb each kernel tries: `tries`), the best nb reported,
// medians of 5 runs. Runs are interleaved (every configuration once per round, the peer once
// per round) so that a machine whose load drifts treats all of them alike.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "numatile/version.h"
#include "scn_util.h"

extern char **environ;

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

// Whether the sweep tries tile size nb for kernel k at size n. GEMM: up to n/2 (2 x 2 C tiles
// still give each of 2 threads whole tiles; larger tiles let the tile dgemm run nearer its flat
// single-thread speed: 1024 and 2048 at n = 4096, 1024 at 2048). QR: up to 512, because
// its update kernels block by ib = 32 and lose speed on larger tiles while a 1024-tile QR at
// n = 4096 costs seconds per round.
static bool tries(int k, int64_t nb, int64_t n)
{
    return k == K_GEMM ? 2 * nb <= n : nb <= n && nb <= 512;
}

// Short name of the library the flat runs of this process use for kernel k.
static const char *inproc_lib(int k)
{
    if (!strncmp(nt_blas_name(), "openblas", 8))
        return "openblas";
    return k == K_GEMM ? "blis" : "libflame";
}

static nt_status make_tiled(const nt_topo_t *t, const char *spec, int64_t n, int64_t nb,
                            uint64_t seed, bool fill, nt_matrix_t **out)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, sizeof(double)};
    nt_status st = nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE, 0,
                                         out);
    if (st == NT_OK && fill && (st = nt_matrix_fill(*out, bench_fill_fn, &seed)) != NT_OK) {
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
            f->A[r + c * n] = bench_value(seed, r, c);
            f->B[r + c * n] = bench_value(seed + 1, r, c);
            f->Q0[r + c * n] = bench_value(seed + 3, r, c);
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
        if ((st = nt_matrix_fill(c->A, bench_fill_fn, &s)) != NT_OK)
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
    int threads;
    double tiled_best[2];  // median GFLOP/s of the best nb
    int64_t best_nb[2];
    double flat_mt[2];     // median GFLOP/s, flat with the same threads (0 if threads = 1)
    double flat_1t[2];     // median GFLOP/s, flat with one thread
    double peer[2];        // median GFLOP/s of the flat OpenBLAS peer, same threads (0: none)
    double check[2];       // relative difference tiled vs flat
    int64_t nbs[MAX_NB];
    double tiled[2][MAX_NB]; // 0: the kernel did not try that nb
    int nnb;
} size_res;

// The faster flat run of this process (the baseline of "ratio").
static double best_flat(const size_res *s, int k)
{
    return fmax(s->flat_mt[k], s->flat_1t[k]);
}

// The fastest flat run of any library: this process's (1 or all threads) or the peer's.
typedef struct best {
    double gflops;
    const char *lib; // "blis", "libflame" or "openblas"
    int threads;
    bool peer;       // measured by the flat_openblas program
} best;

static best best_of(const size_res *s, int k)
{
    best b = {s->flat_1t[k], inproc_lib(k), 1, false};
    if (s->flat_mt[k] > b.gflops)
        b = (best){s->flat_mt[k], inproc_lib(k), s->threads, false};
    if (s->peer[k] > b.gflops)
        b = (best){s->peer[k], "openblas", s->threads, true};
    return b;
}

// ---- measurement --------------------------------------------------------------------------------

// What every size shares: topology, tile map, threads, tile sizes, repetitions, progress.
typedef struct sweep {
    const nt_topo_t *t;
    char spec[32];
    int threads, tpd, nnb, reps;
    const int64_t *nbs;
    int64_t done, total;
    char peer[PATH_MAX];  // the flat_openblas program, "" when absent or after it failed
    char peer_blas[96];   // the library it reports, "openblas 0.3.21 (Cooperlake)"
} sweep;

// The configurations of size n: flat with 1 and with all threads, then tiled per nb the kernel
// tries; res gets the tile sizes. Returns their number.
static int make_configs(const sweep *sw, int64_t n, cfg *c, size_res *res)
{
    int nc = 0;
    memset(c, 0, MAX_CFG * sizeof *c);
    for (int k = K_GEMM; k <= K_QR; k++) {
        c[nc++] = (cfg){.kernel = k, .threads = 1};
        if (sw->threads > 1)
            c[nc++] = (cfg){.kernel = k, .threads = sw->threads};
    }
    *res = (size_res){.n = n, .threads = sw->threads};
    for (int i = 0; i < sw->nnb; i++) {
        if (!tries(K_GEMM, sw->nbs[i], n) && !tries(K_QR, sw->nbs[i], n))
            continue;
        res->nbs[res->nnb++] = sw->nbs[i];
        for (int k = K_GEMM; k <= K_QR; k++)
            if (tries(k, sw->nbs[i], n))
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

// ---- the flat OpenBLAS peer ---------------------------------------------------------------------

// Where the peer program is: $NUMATILE_FLAT_PEER if set (empty: none; for tests and for an
// installed tool whose peer lives elsewhere), else flat_openblas in this executable's directory,
// where one build puts both. False, with *path = "", when it is not an executable file.
static bool peer_find(char *path, size_t len)
{
    const char *env = getenv("NUMATILE_FLAT_PEER");
    char self[PATH_MAX] = "";
    ssize_t k = env ? 0 : readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = k > 0 ? (self[k] = '\0', strrchr(self, '/')) : NULL;
    if (slash)
        *slash = '\0';
    int w = env ? snprintf(path, len, "%s", env)
                : slash ? snprintf(path, len, "%s/flat_openblas", self) : -1;
    if (w < 0 || (size_t)w >= len)
        path[0] = '\0'; // no directory, or a path too long to hold: no peer
    if (path[0] && access(path, X_OK) == 0)
        return true;
    path[0] = '\0';
    return false;
}

// Run the peer once on size n (one warm-up and one timed run of each kernel, so that the
// process's first-call costs stay out of the time) and parse its JSON line into *out. The
// peer's stdout comes through a pipe; its stderr is ours. posix_spawn, not a shell: the path
// is used as it is. False when it cannot start, fails or prints something else.
static bool peer_run(const char *path, int64_t n, int threads, uint64_t seed, json_t **out)
{
    char sn[24], st[16], ss[24];
    snprintf(sn, sizeof sn, "%lld", (long long)n);
    snprintf(st, sizeof st, "%d", threads);
    snprintf(ss, sizeof ss, "%llu", (unsigned long long)(seed % (uint64_t)LONG_MAX));
    char *argv[] = {(char *)path, "--n", sn, "--threads", st, "--reps", "1", "--warmup", "1",
                    "--seed", ss, NULL};
    int fd[2], ws = 0;
    pid_t pid;
    *out = NULL;
    if (pipe(fd) != 0)
        return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    int e = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    FILE *f = e == 0 ? fdopen(fd[0], "r") : NULL;
    if (f) {
        json_error_t je;
        *out = json_loadf(f, 0, &je);
        fclose(f);
    } else {
        close(fd[0]);
    }
    while (e == 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (e == 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && json_is_object(*out))
        return true;
    json_decref(*out);
    *out = NULL;
    return false;
}

// One round of the peer: its seconds per kernel into psec[k * reps + rep], a raw row each
// (impl "flat_openblas"). When it fails, say so and leave it out from here on.
static void peer_round(bench_run *r, sweep *sw, int64_t n, int rep, double *psec)
{
    json_t *o = NULL;
    bool ok = peer_run(sw->peer, n, sw->threads, r->seed, &o);
    for (int k = K_GEMM; ok && k <= K_QR; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_seconds", kernel_name(k));
        double s = json_number_value(json_object_get(o, key));
        if (!(ok = s > 0))
            break;
        psec[k * sw->reps + rep] = s;
        bench_row(r, json_pack("{s:s, s:s, s:I, s:i, s:i, s:i, s:f, s:f}", "kernel",
                               kernel_name(k), "impl", "flat_openblas", "n", (json_int_t)n,
                               "nb", 0, "threads", sw->threads, "rep", rep, "seconds", s,
                               "gflops", kernel_flops(k, n) / s / 1e9));
    }
    const char *blas = json_string_value(json_object_get(o, "blas"));
    if (ok && blas)
        snprintf(sw->peer_blas, sizeof sw->peer_blas, "%s", blas);
    if (!ok) {
        bench_notice(r, "the flat OpenBLAS peer %s failed at n = %lld: compared with %s/%s "
                     "only from here on", sw->peer, (long long)n, inproc_lib(K_GEMM),
                     inproc_lib(K_QR));
        sw->peer[0] = '\0';
    }
    json_decref(o);
}

// Every configuration once per round, reps rounds, a raw row per run.
// Then the peer, if there is one.
static int run_rounds(bench_run *r, sweep *sw, int64_t n, cfg *c, int nc, flat *f,
                      double *psec)
{
    nt_kernel_opts_t ko = {0};
    char what[64];
    snprintf(what, sizeof what, "runs (n = %lld)", (long long)n);
    for (int rep = 0; rep < sw->reps; rep++) {
        for (int i = 0; i < nc; i++) {
            nt_status st = run_once(&ko, &c[i], f, r->seed, &c[i].sec[rep]);
            if (st != NT_OK)
                return scn_fail(r, kernel_name(c[i].kernel), st);
            add_row(r, &c[i], n, rep);
            bench_progress(r, ++sw->done, sw->total, what);
        }
        if (sw->peer[0]) {
            peer_round(r, sw, n, rep, psec);
            bench_progress(r, ++sw->done, sw->total, what);
        }
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

// The peer's median GFLOP/s into res when it ran every round of this size.
static void collect_peer(const sweep *sw, const double *psec, size_res *res)
{
    for (int k = K_GEMM; k <= K_QR && sw->peer[0]; k++)
        res->peer[k] = kernel_flops(k, res->n) /
                       bench_median(psec + k * sw->reps, (size_t)sw->reps) / 1e9;
}

static int run_size(bench_run *r, sweep *sw, int64_t n, size_res *res)
{
    cfg c[MAX_CFG];
    flat f = {0};
    int nc = make_configs(sw, n, c, res), rc = 0;
    double *psec = calloc(2 * (size_t)sw->reps, sizeof *psec);
    nt_status st = psec ? make_flat(n, r->seed, &f) : NT_ENOMEM;
    if (st == NT_OK)
        st = alloc_configs(r, sw, n, c, nc);
    if (st != NT_OK)
        rc = scn_fail(r, "allocating the operands", st);
    if (!rc)
        rc = run_rounds(r, sw, n, c, nc, &f, psec);
    if (!rc) {
        collect(c, nc, &f, sw->reps, res);
        collect_peer(sw, psec, res);
    }
    free_configs(c, nc);
    free_flat(&f);
    free(psec);
    return rc;
}

// ---- report -------------------------------------------------------------------------------------

// o["<kernel>_<what>"] = v (stolen).
static void put(json_t *o, int k, const char *what, json_t *v)
{
    char key[64];
    snprintf(key, sizeof key, "%s_%s", kernel_name(k), what);
    json_object_set_new(o, key, v);
}

// The fastest flat library of kernel k and the ratio to it; the peer's columns if it ran.
static void put_best(json_t *o, const size_res *s, int k)
{
    best b = best_of(s, k);
    put(o, k, "best_flat_gflops", json_real(b.gflops));
    put(o, k, "best_flat_lib", json_string(b.lib));
    put(o, k, "best_flat_threads", json_integer(b.threads));
    put(o, k, "best_flat_peer", json_boolean(b.peer));
    put(o, k, "ratio_best", json_real(s->tiled_best[k] / b.gflops));
    if (s->peer[k] > 0) {
        put(o, k, "openblas_gflops", json_real(s->peer[k]));
        put(o, k, "ratio_openblas", json_real(s->tiled_best[k] / s->peer[k]));
    }
}

static json_t *size_json(const size_res *s, int threads)
{
    json_t *o = json_pack("{s:I, s:i}", "n", (json_int_t)s->n, "threads", threads);
    for (int k = K_GEMM; k <= K_QR; k++) {
        put(o, k, "ratio", json_real(s->tiled_best[k] / best_flat(s, k)));
        put(o, k, "nb", json_integer((json_int_t)s->best_nb[k]));
        put(o, k, "tiled_gflops", json_real(s->tiled_best[k]));
        put(o, k, "flat_1t_gflops", json_real(s->flat_1t[k]));
        if (threads > 1) {
            put(o, k, "flat_mt_gflops", json_real(s->flat_mt[k]));
            put(o, k, "ratio_flat_mt", json_real(s->tiled_best[k] / s->flat_mt[k]));
        }
        put(o, k, "ratio_flat_1t", json_real(s->tiled_best[k] / s->flat_1t[k]));
        put(o, k, "flat_baseline_threads",
            json_integer(threads > 1 && s->flat_mt[k] >= s->flat_1t[k] ? threads : 1));
        put(o, k, "flat_lib", json_string(inproc_lib(k)));
        put_best(o, s, k);
        put(o, k, "check", json_real(s->check[k]));
    }
    return o;
}

// One table row: tiled GFLOP/s per nb (null where the kernel did not try it), the flat runs,
// the ratios, the best tile size and the check.
static json_t *table_row(const size_res *s, int k)
{
    json_t *tiled = json_array();
    for (int j = 0; j < s->nnb; j++)
        json_array_append_new(tiled, s->tiled[k][j] > 0 ? json_real(s->tiled[k][j])
                                                        : json_null());
    best b = best_of(s, k);
    char lib[40];
    snprintf(lib, sizeof lib, "%s %dt", b.lib, b.threads);
    json_t *o = json_pack("{s:s, s:o, s:f, s:f, s:f, s:s, s:I, s:f}", "kernel", kernel_name(k),
                          "tiled", tiled, "flat_1t", s->flat_1t[k], "ratio",
                          s->tiled_best[k] / best_flat(s, k), "ratio_best",
                          s->tiled_best[k] / b.gflops, "best", lib, "nb",
                          (json_int_t)s->best_nb[k], "check", s->check[k]);
    if (s->threads > 1)
        json_object_set_new(o, "flat_mt", json_real(s->flat_mt[k]));
    if (s->peer[k] > 0)
        json_object_set_new(o, "openblas", json_real(s->peer[k]));
    return o;
}

// The table of one size: a row per kernel, a column per tile size, then the flat runs of this
// process (1 and all threads) and of the OpenBLAS peer, the ratio to this process's faster
// flat run, the ratio to the fastest flat library and which it was, the best nb, the check.
static void print_size(bench_run *r, const size_res *s, int threads)
{
    static const bench_col label = {.key = "kernel", .head = "nb", .fmt = "%-6s", .sep = "  "};
    static const bench_col tail[] = {
        {.key = "flat_1t", .head = "1t", .fmt = "%7.2f", .sep = " | ", .group = "flat"},
        {.key = "flat_mt", .head = "mt", .fmt = "%7.2f"},
        {.key = "openblas", .head = "OpenBLAS", .fmt = "%8.2f"},
        {.key = "ratio", .head = "ratio", .fmt = "%6.3f", .sep = " | ", .group = "tiled / flat"},
        {.key = "ratio_best", .head = "vs best", .fmt = "%7.3f"},
        {.key = "best", .head = "best flat", .fmt = "%-12s"},
        {.key = "nb", .head = "nb*", .fmt = "%5d", .group = ""},
        {.key = "check", .head = "check", .fmt = "%8.1e"},
        {NULL}};
    bench_col cols[MAX_NB + 10];
    char keys[MAX_NB][24], heads[MAX_NB][24];
    int n = 0;
    cols[n++] = label;
    for (int j = 0; j < s->nnb; j++) {
        snprintf(keys[j], sizeof keys[j], "tiled.%d", j);
        snprintf(heads[j], sizeof heads[j], "%lld", (long long)s->nbs[j]);
        cols[n++] = (bench_col){.key = keys[j], .head = heads[j], .fmt = "%7.2f",
                                .group = j ? NULL : "tiled"};
    }
    memcpy(cols + n, tail, sizeof tail);
    if (threads <= 1)
        cols[n + 1].head = "-";
    json_t *rows = json_array();
    for (int k = K_GEMM; k <= K_QR; k++)
        json_array_append_new(rows, table_row(s, k));
    bench_printf(r, "\nn = %lld, %d threads (median GFLOP/s of %s)\n", (long long)s->n, threads,
                 "the repetitions");
    bench_table(r, cols, rows);
    json_decref(rows);
}

static const bench_plot_spec plot = {
    .name = "kernels",
    .title = "tiled owner-computes kernels vs the flat libraries (median GFLOP/s)", .width = 1100,
    .height = 520, .x = "nb", .xlabel = "nb", .block = "n",
    .set = "set grid\nset key below\nset yrange [0:*]\nset logscale x 2",
    .panel = {{.title = "GEMM", .ylabel = "GFLOP/s",
               .series = {{.y = "tiled_gemm", .title = "tiled n=%s"},
                          {.y = "flat_gemm", .title = "flat (this build) n=%s", .with = "l dt 2"},
                          {.y = "flat_openblas_gemm", .title = "flat OpenBLAS peer n=%s",
                           .with = "l dt 3"}}},
              {.title = "QR", .ylabel = "GFLOP/s",
               .series = {{.y = "tiled_qr", .title = "tiled n=%s"},
                          {.y = "flat_qr", .title = "flat (this build) n=%s", .with = "l dt 2"},
                          {.y = "flat_openblas_qr", .title = "flat OpenBLAS peer n=%s",
                           .with = "l dt 3"}}}}};

// Per size and tile size: tiled GFLOP/s of both kernels against the best flat run.
static void draw(bench_run *r, const size_res *res, int nsizes)
{
    static const char *tk[] = {"tiled_gemm", "tiled_qr"}, *pk[] = {"flat_openblas_gemm",
                                                                  "flat_openblas_qr"};
    json_t *rows = json_array();
    for (int i = 0; i < nsizes; i++)
        for (int j = 0; j < res[i].nnb; j++) {
            json_t *o = json_pack("{s:I, s:I, s:f, s:f}", "n", (json_int_t)res[i].n, "nb",
                                  (json_int_t)res[i].nbs[j], "flat_gemm",
                                  best_flat(&res[i], K_GEMM), "flat_qr",
                                  best_flat(&res[i], K_QR));
            for (int k = K_GEMM; k <= K_QR; k++) {
                // An nb the kernel did not try is a gap in its curve (NaN), not a zero.
                if (res[i].tiled[k][j] > 0)
                    json_object_set_new(o, tk[k], json_real(res[i].tiled[k][j]));
                if (res[i].peer[k] > 0)
                    json_object_set_new(o, pk[k], json_real(res[i].peer[k]));
            }
            json_array_append_new(rows, o);
        }
    bench_plot_rows(r, &plot, rows);
    json_decref(rows);
}

static void print_notes(bench_run *r, const sweep *sw, int D)
{
    bench_printf(r,
        "\nratio = tiled GFLOP/s at the best nb (nb*) / the faster flat run of this build (1 or "
        "%d threads),\n  medians. The faster flat run is the baseline so that a flat run that "
        "collapses (BLIS threads\n  spinning against other load, as seen on a busy machine for "
        "flat QR with 2 threads) cannot\n  inflate the ratio; json also has *_ratio_flat_1t and "
        "*_ratio_flat_mt.\n"
        "vs best flat = tiled at nb* / the fastest flat run of any library: this build's or the "
        "OpenBLAS\n  peer's (%s), named in \"best flat\"; json *_ratio_best, "
        "*_best_flat_lib.\n"
        "check = max relative difference tiled vs flat: all of C (GEMM), |diag R| (QR).\n"
        "Targets: issue 5, ratio >= 0.9 at n >= 2048; issue 17, vs best flat >= 0.95 (GEMM) "
        "and >= 1.1 (QR)\n  at n = 2048 and 4096.\n"
        "Setting: %d domain(s) of one 2-core VM (virtual domains share one memory node), not "
        "a NUMA server;\n  %s\n",
        sw->threads, sw->peer[0] ? sw->peer_blas : "not run", D,
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
    print_notes(r, sw, D);
    const size_res *top = &res[nsizes - 1];
    json_t *sum = size_json(top, sw->threads);
    json_object_set_new(sum, "nb", json_integer((json_int_t)top->best_nb[K_GEMM]));
    json_object_set_new(sum, "domains", json_integer(D));
    json_object_set_new(sum, "repetitions", json_integer(sw->reps));
    json_t *sizes = json_array();
    for (int i = 0; i < nsizes; i++)
        json_array_append_new(sizes, size_json(&res[i], sw->threads));
    json_object_set_new(sum, "rows", sizes);
    json_object_set_new(sum, "openblas_peer", sw->peer[0] ? json_string(sw->peer) : json_null());
    json_object_set_new(sum, "openblas_peer_blas",
                        sw->peer[0] ? json_string(sw->peer_blas) : json_null());
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
    bench_param(r, "openblas_peer", sw->peer[0] ? json_string(sw->peer) : json_null());
    // Progress counts every run of every size, a peer run as one.
    for (int i = 0; i < nsizes; i++) {
        int cnt = 2 * (sw->threads > 1 ? 2 : 1) + (sw->peer[0] ? 1 : 0);
        for (int j = 0; j < sw->nnb; j++)
            for (int k = K_GEMM; k <= K_QR; k++)
                cnt += tries(k, sw->nbs[j], ns[i]);
        sw->total += (int64_t)cnt * sw->reps;
    }
}

// The first lines of the report: what runs against what.
static void print_head(bench_run *r, const sweep *sw)
{
    const nt_topo_t *t = sw->t;
    bench_printf(r, "Tiled owner-computes GEMM and QR (tile kernels on %s) vs flat %s dgemm / "
                 "%s QR\n(issues 5 and 17)\n%d domain(s) (%s%s), tiles on %s, %d thread(s) (%d "
                 "per domain); flat runs with 1 and %d threads;\n%d repetitions, interleaved; "
                 "seconds = wall time of the kernel call.\n", nt_blas_name(),
                 inproc_lib(K_GEMM), inproc_lib(K_QR), nt_topo_ndomains(t),
                 nt_topo_kind_name(nt_topo_get_kind(t)),
                 nt_topo_oversubscribed(t) ? ", oversubscribed" : "", sw->spec, sw->threads,
                 sw->tpd, sw->threads, sw->reps);
    if (sw->peer[0])
        bench_printf(r, "Flat OpenBLAS peer: %s, %d threads, one process per round (one "
                     "warm-up and one timed run of each kernel).\n", sw->peer, sw->threads);
}

int scn_kernels(bench_run *r)
{
    static const int64_t quick_n[] = {512}, dflt_n[] = {2048}, full_n[] = {2048, 4096};
    static const int64_t quick_nb[] = {128, 256};
    static const int64_t dflt_nb[] = {128, 192, 256, 384, 512, 1024, 2048};
    const int64_t *ns = r->quick ? quick_n : r->full ? full_n : dflt_n;
    int nsizes = r->full && !r->quick ? 2 : 1;
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&(nt_topo_opts_t){.domains = r->domains}, &t);
    if (st != NT_OK)
        return scn_fail(r, "loading the topology", st);
    sweep sw = {.t = t, .nbs = r->quick ? quick_nb : dflt_nb,
                .nnb = r->quick ? 2 : (int)(sizeof dflt_nb / sizeof *dflt_nb),
                .reps = bench_reps(r, 5, 3)};
    if (!peer_find(sw.peer, sizeof sw.peer))
        bench_notice(r, "no flat OpenBLAS peer (flat_openblas next to this program, or "
                     "$NUMATILE_FLAT_PEER): compared with %s/%s only", inproc_lib(K_GEMM),
                     inproc_lib(K_QR));
    parameters(r, &sw, ns, nsizes);
    print_head(r, &sw);
    size_res res[2];
    int rc = 0;
    for (int i = 0; i < nsizes && !rc; i++)
        rc = run_size(r, &sw, ns[i], &res[i]);
    if (!rc)
        report(r, &sw, res, nsizes);
    nt_topo_destroy(t);
    return rc;
}
