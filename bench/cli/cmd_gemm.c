// numatile gemm: owner-computes tiled C = A B on placed tiles, optionally after a
// redistribution (--from DIST --match MODE), with --verify and --json.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "kern_cli.h"

static const char *gemm_help =
    "usage: numatile gemm --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "  C = A B with A, B, C n x n in NB x NB tiles placed by DIST, one task per C tile run on\n"
    "  C tile's domain (BLIS single-threaded per task); --verify checks C v = A (B v) per row\n"
    "  within 4 (2n + 2) eps (8 for c, z) times the row's sum of absolute products.\n"
    "  --cache       copy the remote A and B tiles each domain needs into a per-domain cache\n"
    "                first (remote_reads then counts the copies; cache_seconds their time)\n"
    KERN_OPTIONS_HELP;

// Randomised O(n^2) check in the operands' type t: C v = A (B v) for a fixed real vector v,
// row by row, within 4 (2n + 2) eps_t times the row's sum of absolute products (8 for complex
// types: a complex multiply-add rounds twice as often); the reference sums run in double
// complex, exact enough for every type. Returns CLI_OK, CLI_VERIFY_FAILED, or CLI_RUNTIME when
// out of memory.
static int gemm_check(nt_dtype t, const nt_matrix_t *A, const nt_matrix_t *B,
                      const nt_matrix_t *C, int64_t n)
{
    int vrc = CLI_OK;
    double *tv = malloc((size_t)n * sizeof *tv), *ab = calloc((size_t)n, sizeof *ab);
    double complex *bt = calloc((size_t)n, sizeof *bt);
    if (!tv || !bt || !ab)
        vrc = CLI_RUNTIME;
    double tol = (t == NT_DTYPE_C || t == NT_DTYPE_Z ? 8.0 : 4.0) * (double)(2 * n + 2) *
                 kern_eps(t);
    for (int64_t j = 0; j < n && vrc == CLI_OK; j++)
        tv[j] = (double)((j * 7919) % 17) / 8.0 - 1.0;
    for (int64_t j = 0; j < n && vrc == CLI_OK; j++)
        for (int64_t l = 0; l < n; l++) {
            double complex b = kern_get(t, B, l, j);
            bt[l] += b * tv[j];
            ab[l] += cabs(b * tv[j]);
        }
    for (int64_t i = 0; i < n && vrc == CLI_OK; i++) {
        double complex lhs = 0, rhs = 0;
        double bound = 0;
        for (int64_t j = 0; j < n; j++) {
            double complex c = kern_get(t, C, i, j);
            lhs += c * tv[j];
            bound += cabs(c * tv[j]);
        }
        for (int64_t l = 0; l < n; l++) {
            double complex a = kern_get(t, A, i, l);
            rhs += a * bt[l];
            bound += cabs(a) * ab[l];
        }
        if (!(cabs(lhs - rhs) <= tol * bound))
            vrc = CLI_VERIFY_FAILED;
    }
    free(tv);
    free(bt);
    free(ab);
    return vrc;
}

// Place A, B and C (A and B filled from seeds seed, seed + 1), run the product.
static int gemm_run(const kopts *o, const nt_topo_t *t)
{
    nt_matrix_t *A = NULL, *B = NULL, *C = NULL;
    redist_sum rs = {0};
    nt_kernel_stats_t s = {0};
    nt_kernel_opts_t ko = {.threads_per_domain = o->threads, .sched = o->sched,
                           .cache_inputs = o->cache};
    uint64_t seed = o->co.seed;
    nt_status st;
    int rc;
    if ((st = kern_place(t, o, o->n, o->n, seed, true, &A, &rs)) != NT_OK ||
        (st = kern_place(t, o, o->n, o->n, seed + 1, true, &B, &rs)) != NT_OK ||
        (st = kern_place(t, o, o->n, o->n, seed + 2, false, &C, &rs)) != NT_OK ||
        (st = nt_gemm(1.0, A, B, 0.0, C, &ko, &s)) != NT_OK) {
        rc = cli_lib_error("gemm", st);
        goto out;
    }
    int vrc = o->co.verify ? gemm_check(o->type, A, B, C, o->n) : CLI_OK;
    json_t *extra = json_pack("{s:I, s:I, s:b, s:f}", "n", (json_int_t)o->n, "nb",
                              (json_int_t)o->nb, "cache", (int)o->cache, "cache_seconds",
                              s.cache_seconds);
    if (!o->co.json && o->cache)
        printf("input cache: %lld tiles copied (%.1f MiB) in %.3f s (part of the time below)\n",
               (long long)s.remote_reads, (double)s.remote_read_bytes / (1 << 20),
               s.cache_seconds);
    rc = kern_report("gemm", o, t, &s, &rs, vrc, extra);
out:
    nt_kernel_stats_free(&s);
    nt_matrix_destroy(C);
    nt_matrix_destroy(B);
    nt_matrix_destroy(A);
    return rc;
}

int cmd_gemm(int argc, char **argv)
{
    kopts o;
    int rc = kern_parse("gemm", gemm_help, argc, argv, &o);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    nt_topo_t *t;
    if ((rc = cli_load_topo("gemm", o.co.domains, &t)) != CLI_OK)
        return rc;
    rc = gemm_run(&o, t);
    nt_topo_destroy(t);
    return rc;
}
