// flat_openblas: flat multithreaded OpenBLAS dgemm and dgeqrf on one n x n matrix, the peer that
// `numatile bench kernels` compares the tiled kernels with when OpenBLAS is installed. A program
// of its own, linked with OpenBLAS only, so that a BLIS build of numatile can run it without
// two BLAS libraries in one process.
//
//   flat_openblas --n N [--threads T] [--reps R] [--warmup W] [--kernel gemm|qr|all] [--seed S]
//
// Threads: T, else OMP_NUM_THREADS (the default of OpenMP's nthreads-var, which is what
// OpenBLAS's OpenMP build follows). Prints one JSON object on one line: per kernel the median,
// min and max GFLOP/s over R timed repetitions (after W untimed ones) and the median seconds;
// GEMM counts 2 n^3 flops, QR 4/3 n^3. Exit 2 on bad arguments, 3 when a run fails.
#include <cblas.h>
#include <errno.h>
#include <jansson.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nt_core.h"

void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);

enum { MAX_N = 46340, MAX_REPS = 1000 }; // n * n must fit the 32-bit int of OpenBLAS's LAPACK

typedef struct opts {
    long n, threads, reps, warmup, seed;
    bool gemm, qr;
} opts;

// The operands, column-major n x n; W is the QR work copy of A.
typedef struct bufs {
    double *A, *B, *C, *W, *tau, *work;
    int lwork;
} bufs;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char USAGE[] = "usage: flat_openblas --n N [--threads T] [--reps R] [--warmup W] "
                            "[--kernel gemm|qr|all] [--seed S]\n";

static int usage(const char *msg, const char *arg)
{
    fprintf(stderr, "flat_openblas: %s%s\n%s", msg, arg ? arg : "", USAGE);
    return 2;
}

static bool number(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

// 0 on success, else the exit code (usage printed; -1 for --help: exit 0).
static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.n = 0, .threads = omp_get_max_threads(), .reps = 5, .warmup = 1, .seed = 1,
                .gemm = true, .qr = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return fputs(USAGE, stdout) < 0 ? 3 : -1;
        if (ok && !strcmp(a, "--n"))
            ok = number(v, 1, MAX_N, &o->n);
        else if (ok && !strcmp(a, "--threads"))
            ok = number(v, 1, 4096, &o->threads);
        else if (ok && !strcmp(a, "--reps"))
            ok = number(v, 1, MAX_REPS, &o->reps);
        else if (ok && !strcmp(a, "--warmup"))
            ok = number(v, 0, MAX_REPS, &o->warmup);
        else if (ok && !strcmp(a, "--seed"))
            ok = number(v, 0, __LONG_MAX__, &o->seed);
        else if (ok && !strcmp(a, "--kernel")) {
            o->gemm = !strcmp(v, "gemm") || !strcmp(v, "all");
            o->qr = !strcmp(v, "qr") || !strcmp(v, "all");
            ok = o->gemm || o->qr;
        } else
            return usage(ok ? "unknown option " : "no value for ", a);
        if (!ok) {
            fprintf(stderr, "flat_openblas: bad value '%s' for %s\n", v, a);
            return 2;
        }
        i++;
    }
    return o->n > 0 ? 0 : usage("--n is required", NULL);
}

static void free_bufs(bufs *b)
{
    free(b->A);
    free(b->B);
    free(b->C);
    free(b->W);
    free(b->tau);
    free(b->work);
}

// Allocate and fill the operands (uniform in [-1, 1), seeded), and dgeqrf's workspace.
static bool make_bufs(const opts *o, bufs *b)
{
    size_t nn = (size_t)o->n * (size_t)o->n;
    int n = (int)o->n, query = -1, info = 0;
    *b = (bufs){.A = malloc(nn * sizeof(double)), .B = malloc(nn * sizeof(double)),
                .C = malloc(nn * sizeof(double)), .W = malloc(nn * sizeof(double)),
                .tau = malloc((size_t)n * sizeof(double))};
    if (!b->A || !b->B || !b->C || !b->W || !b->tau)
        return false;
    nt_rng r = {(uint64_t)o->seed};
    for (size_t i = 0; i < nn; i++) {
        b->A[i] = 2.0 * nt_rng_unit(&r) - 1.0;
        b->B[i] = 2.0 * nt_rng_unit(&r) - 1.0;
        b->C[i] = 0.0;
    }
    double best = 0;
    dgeqrf_(&n, &n, b->W, &n, b->tau, &best, &query, &info);
    b->lwork = info == 0 && best >= (double)n && best < 2e9 ? (int)best : n;
    b->work = malloc((size_t)b->lwork * sizeof(double));
    return b->work != NULL;
}

// One timed run of a kernel: seconds, or a negative value when dgeqrf reports an error.
static double run_once(bool gemm, const opts *o, bufs *b)
{
    int n = (int)o->n, info = 0;
    if (gemm) {
        double t0 = now();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, b->A, n, b->B, n,
                    0.0, b->C, n);
        return now() - t0;
    }
    memcpy(b->W, b->A, (size_t)n * (size_t)n * sizeof(double));
    double t0 = now();
    dgeqrf_(&n, &n, b->W, &n, b->tau, b->work, &b->lwork, &info);
    double s = now() - t0;
    return info == 0 ? s : -1.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Warm-up and timed runs of one kernel; adds "<kernel>_gflops", "_gflops_min", "_gflops_max"
// and "_seconds" (medians) to out. False when a run fails.
static bool measure(bool gemm, const opts *o, bufs *b, double *sec, json_t *out)
{
    for (long i = 0; i < o->warmup; i++)
        if (run_once(gemm, o, b) < 0)
            return false;
    for (long i = 0; i < o->reps; i++)
        if ((sec[i] = run_once(gemm, o, b)) < 0)
            return false;
    qsort(sec, (size_t)o->reps, sizeof *sec, cmp_double);
    double x = (double)o->n, flops = gemm ? 2.0 * x * x * x : 4.0 / 3.0 * x * x * x;
    size_t h = (size_t)o->reps / 2;
    double med = o->reps % 2 ? sec[h] : 0.5 * (sec[h - 1] + sec[h]);
    const char *k = gemm ? "gemm" : "qr";
    char key[32];
    snprintf(key, sizeof key, "%s_gflops", k);
    json_object_set_new(out, key, json_real(flops / med / 1e9));
    snprintf(key, sizeof key, "%s_gflops_min", k);
    json_object_set_new(out, key, json_real(flops / sec[o->reps - 1] / 1e9));
    snprintf(key, sizeof key, "%s_gflops_max", k);
    json_object_set_new(out, key, json_real(flops / sec[0] / 1e9));
    snprintf(key, sizeof key, "%s_seconds", k);
    json_object_set_new(out, key, json_real(med));
    return true;
}

// "openblas 0.3.21 (Cooperlake)", the form numatile's nt_blas_name() uses.
static json_t *library_name(void)
{
    char version[32] = "?", name[96];
    const char *config = openblas_get_config(), *core = openblas_get_corename();
    if (config && sscanf(config, "OpenBLAS %31s", version) != 1)
        snprintf(version, sizeof version, "?");
    snprintf(name, sizeof name, "openblas %s (%s)", version, core ? core : "?");
    return json_string(name);
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    // OpenBLAS's OpenMP build runs omp_get_max_threads() threads per call outside a parallel
    // region; this process is ours, so set that ICV directly.
    omp_set_num_threads((int)o.threads);
    bufs b = {0};
    double *sec = malloc((size_t)o.reps * sizeof *sec);
    json_t *out = json_object();
    bool ok = sec && out && make_bufs(&o, &b);
    if (!ok)
        fprintf(stderr, "flat_openblas: cannot allocate the n = %ld operands\n", o.n);
    if (ok) {
        json_object_set_new(out, "peer", json_string("flat_openblas"));
        json_object_set_new(out, "blas", library_name());
        json_object_set_new(out, "n", json_integer(o.n));
        json_object_set_new(out, "threads", json_integer(o.threads));
        json_object_set_new(out, "reps", json_integer(o.reps));
        ok = (!o.gemm || measure(true, &o, &b, sec, out)) &&
             (!o.qr || measure(false, &o, &b, sec, out));
        if (!ok)
            fprintf(stderr, "flat_openblas: dgeqrf failed\n");
    }
    if (ok) {
        char *s = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6));
        ok = s && printf("%s\n", s) > 0;
        free(s);
    }
    json_decref(out);
    free_bufs(&b);
    free(sec);
    return ok ? 0 : 3;
}
