// numatile gemm: owner-computes tiled C = A B on placed tiles, optionally after a
// redistribution (--from DIST --match MODE), with --verify and --json.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "cli_kern.h"
#include "cli_speeds.h"

static const char *gemm_help =
    "usage: numatile gemm --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "       numatile gemm --n N --nb NB --speeds S [--algo A] [options]\n"
    "  C = A B with A, B, C n x n in NB x NB tiles placed by DIST, one task per C tile run on\n"
    "  C tile's domain (BLIS single-threaded per task); --verify checks C v = A (B v) per row\n"
    "  within 4 (2n + 2) eps (8 for c, z) times the row's sum of absolute products.\n"
    "  --speeds S    instead of --dist: place A, B and C on the heterogeneous partition of the\n"
    "                ceil(n/nb) x ceil(n/nb) tile grid for these relative domain speeds, one per\n"
    "                domain: s1,s2,... | topo (cpus of the domains) | measured (GEMM speeds\n"
    "                of a quick calibration of the same --domains) | measured:FILE (of a\n"
    "                profile from numatile calibrate); as numatile partition, exact tile counts\n"
    "                (JSON adds speeds, normalised, and algo; dist reads hetero:ALGO)\n"
    "  --algo A      with --speeds: column | rrp | snrrp | nrrp | sfcp | exact; default nrrp\n"
    "                (--from redistributes to the partition; only --match none applies)\n"
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

// Place A, B and C (A and B filled from seeds seed, seed + 1), run the product; m speeds
// (normalised) when --speeds gave them.
static int gemm_run(const kopts *o, const nt_topo_t *t, int m, const double *speeds)
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
    if (o->map) {
        json_t *sp = json_array();
        for (int i = 0; i < m; i++)
            json_array_append_new(sp, json_real(speeds[i]));
        json_object_set_new(extra, "speeds", sp);
        json_object_set_new(extra, "algo", json_string(nt_hetero_algo_name(o->algo)));
    }
    if (!o->co.json && o->map) {
        printf("heterogeneous partition %s of %lld x %lld tiles, speeds",
               nt_hetero_algo_name(o->algo), (long long)o->map->mt, (long long)o->map->nt);
        for (int i = 0; i < m; i++)
            printf(" %.3f", speeds[i]);
        printf("\n");
    }
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

// --speeds on topology t: the speeds (normalised to sum 1, as partition reports them) into s
// and *m, and the heterogeneous tile map of --algo into *map. CLI_OK or the exit code.
static int hetero_map(const kopts *o, const nt_topo_t *t, double *s, int *m, nt_tilemap_t **map)
{
    int rc = speeds_parse("gemm", o->speeds, t, s, m);
    if (rc != CLI_OK)
        return rc;
    int nd = nt_topo_ndomains(t);
    if (*m != nd)
        return cli_usage("gemm", "--speeds: %d speeds for %d domains (--domains or the "
                         "machine's); give one speed per domain", *m, nd);
    double sum = 0;
    for (int i = 0; i < *m; i++)
        sum += s[i];
    for (int i = 0; i < *m; i++)
        s[i] /= sum;
    int64_t nt = (o->n + o->nb - 1) / o->nb;
    if (o->algo == NT_HETERO_SFCP && (nt & (nt - 1)))
        return cli_usage("gemm", "--algo sfcp needs a power-of-two tile grid, got %lld tiles "
                         "per side (--n / --nb)", (long long)nt);
    nt_status st = nt_hetero_tilemap(o->algo, NT_HETERO_PRECISE, *m, s, nt, map);
    if (st == NT_ENOTSUP)
        return cli_usage("gemm", "--algo %s: %s", nt_hetero_algo_name(o->algo), nt_last_error());
    return st ? cli_lib_error("gemm", st) : CLI_OK;
}

int cmd_gemm(int argc, char **argv)
{
    kopts o;
    int rc = kern_parse("gemm", gemm_help, argc, argv, &o);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    // A, B and C, and under --cache the copies of the remote A and B tiles (at most A and B);
    // the task records take about 56 bytes per tile product (measured: 55 MB at 100^3).
    kern_operand ops[] = {{o.n, o.n, 0, o.cache ? 5 : 3}};
    if ((rc = kern_room("gemm", &o, ops, 1, (o.n + o.nb - 1) / o.nb, 64)) != CLI_OK)
        return rc;
    // --speeds gives one speed per domain of the machine (or --domains): no DIST to count.
    nt_topo_t *t;
    const char *specs[] = {o.speeds ? NULL : o.dist, o.from};
    int64_t nt = (o.n + o.nb - 1) / o.nb, grid[] = {nt, nt};
    if ((rc = cli_topo_for_dists("gemm", o.co.domains, specs, 2, grid, grid, &t)) != CLI_OK)
        return rc;
    double *s = NULL;
    int m = 0;
    nt_tilemap_t *map = NULL;
    char name[32];
    if (o.speeds) {
        s = malloc(SPEEDS_MAX * sizeof *s);
        rc = s ? hetero_map(&o, t, s, &m, &map) : CLI_RUNTIME;
        o.map = map;
        snprintf(name, sizeof name, "hetero:%s", nt_hetero_algo_name(o.algo));
        o.dist = name;
    }
    if (rc == CLI_OK)
        rc = gemm_run(&o, t, m, s);
    nt_tilemap_destroy(map);
    free(s);
    nt_topo_destroy(t);
    return rc;
}
