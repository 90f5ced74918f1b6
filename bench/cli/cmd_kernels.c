// numatile gemm | qr | stencil: owner-computes kernels on placed tiles, optionally after a
// redistribution (--from DIST --match MODE), with --verify and --json.
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "numatile/dist.h"
#include "numatile/kernels.h"
#include "numatile/match.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"

static const char *gemm_help =
    "usage: numatile gemm --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "  C = A B with A, B, C n x n in NB x NB tiles placed by DIST, one task per C tile run on\n"
    "  C tile's domain (BLIS single-threaded per task).\n"
    "  --cache       copy the remote A and B tiles each domain needs into a per-domain cache\n"
    "                first (remote_reads then counts the copies; cache_seconds their time)\n";
static const char *qr_help =
    "usage: numatile qr --m M --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "  tiled Householder QR (GEQRT/UNMQR/TSQRT/TSMQR, libFLAME kernels), each task on the\n"
    "  domain of the tile it writes; --verify checks ||A-QR|| and ||Q^TQ-I|| (m <= 4096).\n"
    "  --ib IB       inner block (default min(nb, 32))\n";
static const char *common_help =
    "  --domains D   split this machine into D domains (default: one per NUMA node)\n"
    "  --threads T   threads per domain (default: the smallest cpu count of a domain)\n"
    "  --sched S     owner (default: owner-computes) or omp (plain OpenMP tasks, baseline)\n"
    "  --from DIST   place the operands on DIST first and redistribute them to --dist\n"
    "  --match MODE  none|volume|steps|lex: relabel --dist onto the domains (with --from)\n"
    "  --seed S      seed of the matrix values (default 1)\n"
    "  --verify      check the result (exit 1 on failure)\n"
    "  --json        one JSON object: flops, seconds, gflops, remote_reads, remote_read_bytes,\n"
    "                owner_fraction, tasks, tasks_per_domain, ... (+ redistribution, total)\n";
static const char *stencil_help =
    "usage: numatile stencil --items N --per-item E --iters K [--from DIST1D] [--strategy S]\n"
    "  3-point circular stencil, K iterations, E extra multiply-adds per item update.\n"
    "  --from DIST1D   initial placement: block (default), balanced:SEED, skewed:ALPHA:SEED\n"
    "                  (skewed needs N divisible by the domain count)\n"
    "  --strategy S    owner: run where the items are (default); canonical: move the items\n"
    "                  to the block partition first (redistribution counted)\n"
    "  --domains D, --threads T, --verify (bit-for-bit vs the sequential loop), --json\n";

typedef struct kopts {
    int64_t m, n, nb, ib;
    const char *dist, *from, *match;
    int domains, threads;
    nt_kernel_sched sched;
    uint64_t seed;
    bool verify, json, cache;
} kopts;

static int parse_common(const char *cmd, int argc, char **argv, kopts *o, const char *help)
{
    enum { O_M = 1, O_N, O_NB, O_IB, O_DIST, O_FROM, O_MATCH, O_DOM, O_THR, O_SCHED, O_SEED,
           O_VERIFY, O_JSON, O_CACHE, O_HELP };
    static const struct option lo[] = {
        {"m", required_argument, 0, O_M},         {"n", required_argument, 0, O_N},
        {"nb", required_argument, 0, O_NB},       {"ib", required_argument, 0, O_IB},
        {"dist", required_argument, 0, O_DIST},   {"from", required_argument, 0, O_FROM},
        {"match", required_argument, 0, O_MATCH}, {"domains", required_argument, 0, O_DOM},
        {"threads", required_argument, 0, O_THR}, {"sched", required_argument, 0, O_SCHED},
        {"seed", required_argument, 0, O_SEED},   {"verify", no_argument, 0, O_VERIFY},
        {"json", no_argument, 0, O_JSON},         {"help", no_argument, 0, O_HELP},
        {"cache", no_argument, 0, O_CACHE},       {0, 0, 0, 0}};
    int c;
    int64_t seed = 1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case O_M:
            if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->m))
                return cli_usage(cmd, "--m: '%s' is not an integer in 1..2^31-1", optarg);
            break;
        case O_N:
            if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->n))
                return cli_usage(cmd, "--n: '%s' is not an integer in 1..2^31-1", optarg);
            break;
        case O_NB:
            if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->nb))
                return cli_usage(cmd, "--nb: '%s' is not an integer in 1..2^31-1", optarg);
            break;
        case O_IB:
            if (strcmp(cmd, "qr"))
                return cli_usage(cmd, "--ib is a qr option");
            if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->ib))
                return cli_usage(cmd, "--ib: '%s' is not a positive integer", optarg);
            break;
        case O_DIST: o->dist = optarg; break;
        case O_FROM: o->from = optarg; break;
        case O_MATCH: o->match = optarg; break;
        case O_DOM:
            if (!cli_parse_int(optarg, 1, 4096, &o->domains))
                return cli_usage(cmd, "--domains: '%s' is not an integer in 1..4096", optarg);
            break;
        case O_THR:
            if (!cli_parse_int(optarg, 1, 1024, &o->threads))
                return cli_usage(cmd, "--threads: '%s' is not an integer in 1..1024", optarg);
            break;
        case O_SCHED:
            if (!strcmp(optarg, "owner"))
                o->sched = NT_KERNEL_OWNER;
            else if (!strcmp(optarg, "omp"))
                o->sched = NT_KERNEL_OMP;
            else
                return cli_usage(cmd, "--sched: '%s' is not owner or omp", optarg);
            break;
        case O_SEED:
            if (!cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                return cli_usage(cmd, "--seed: '%s' is not a non-negative integer", optarg);
            break;
        case O_VERIFY: o->verify = true; break;
        case O_JSON: o->json = true; break;
        case O_CACHE:
            if (strcmp(cmd, "gemm"))
                return cli_usage(cmd, "--cache is a gemm option");
            o->cache = true;
            break;
        case O_HELP:
            fputs(help, stdout);
            fputs(common_help, stdout);
            exit(CLI_OK);
        default:
            return cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    o->seed = (uint64_t)seed;
    if (!o->n || !o->nb || !o->dist)
        return cli_usage(cmd, "--n, --nb and --dist are required");
    if (!strcmp(cmd, "qr") && !o->m)
        return cli_usage(cmd, "--m is required");
    if (o->match && !o->from)
        return cli_usage(cmd, "--match needs --from");
    return CLI_OK;
}

// Element (r,c): uniform in [-1, 1), a splitmix64 function of (seed, r, c).
typedef struct valarg {
    uint64_t seed;
} valarg;

static void value(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    uint64_t z = ((const valarg *)arg)->seed * 0x9e3779b97f4a7c15ULL +
                 (uint64_t)r * 0xbf58476d1ce4e5b9ULL + (uint64_t)c * 0x94d049bb133111ebULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    *(double *)elem = (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

// Redistribution totals over the operands placed with --from.
typedef struct redist_sum {
    int64_t bytes_moved, bytes_copied, tiles_kept;
    double seconds;
    bool used;
} redist_sum;

// Create an m x n operand filled from seed on `dist`, or on `from` and then redistributed to
// `dist` (relabelled by `match`).
static nt_status place(const nt_topo_t *t, const kopts *o, int64_t m, int64_t n, uint64_t seed,
                       bool fill, nt_matrix_t **out, redist_sum *rs)
{
    nt_matrix_shape_t sh = {m, n, o->nb, o->nb, 8};
    int D = nt_topo_ndomains(t);
    valarg va = {seed};
    nt_status st;
    if (!o->from) {
        nt_matrix_t *A;
        if ((st = nt_matrix_create_spec(t, &sh, o->dist, D, NT_LAYOUT_TILE, 0, &A)) != NT_OK)
            return st;
        if (fill && (st = nt_matrix_fill(A, value, &va)) != NT_OK) {
            nt_matrix_destroy(A);
            return st;
        }
        *out = A;
        return NT_OK;
    }
    nt_match_objective obj = NT_MATCH_CANONICAL;
    if (o->match && (st = nt_match_objective_parse(o->match, &obj)) != NT_OK)
        return st;
    nt_matrix_t *src = NULL, *dst = NULL;
    nt_plan_t *plan = NULL;
    nt_plan_opts_t po = {.relabel = obj};
    nt_exec_stats_t es = {0};
    if ((st = nt_matrix_create_spec(t, &sh, o->from, D, NT_LAYOUT_TILE, 0, &src)) != NT_OK ||
        (fill && (st = nt_matrix_fill(src, value, &va)) != NT_OK) ||
        (st = nt_matrix_create_spec(t, &sh, o->dist, D, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                    &dst)) != NT_OK ||
        (st = nt_plan_create(src, dst, NULL, &po, &plan)) != NT_OK ||
        (st = nt_plan_execute(plan, src, dst, NULL, &es)) != NT_OK) {
        nt_plan_destroy(plan);
        nt_matrix_destroy(dst);
        nt_matrix_destroy(src);
        nt_exec_stats_free(&es);
        return st;
    }
    rs->used = true;
    rs->bytes_moved += es.bytes_moved;
    rs->bytes_copied += es.bytes_copied;
    rs->tiles_kept += es.tiles_kept;
    rs->seconds += es.seconds_alloc + es.seconds;
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    // Tiles dst adopted from src belong to dst now; src only keeps aliases it does not free.
    nt_matrix_destroy(src);
    *out = dst;
    return NT_OK;
}

static json_t *stats_json(const nt_kernel_stats_t *s)
{
    json_t *per = json_array(), *run = json_array();
    for (int d = 0; d < s->ndomains; d++) {
        json_array_append_new(per, json_integer(s->tasks_owned[d]));
        json_array_append_new(run, json_integer(s->tasks_run[d]));
    }
    return json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:f, s:I, s:o, s:o}", "flops",
                     s->flops, "seconds", s->seconds,
                     "gflops", s->seconds > 0 ? s->flops / s->seconds / 1e9 : 0.0,
                     "remote_reads", (json_int_t)s->remote_reads, "remote_read_bytes",
                     (json_int_t)s->remote_read_bytes, "remote_writes",
                     (json_int_t)s->remote_writes, "remote_write_bytes",
                     (json_int_t)s->remote_write_bytes, "owner_fraction", s->owner_fraction,
                     "tasks", (json_int_t)s->tasks, "tasks_per_domain", per, "tasks_run", run);
}

static void stats_print(const char *what, const nt_kernel_stats_t *s)
{
    printf("%s: %.3f s, %.2f GFLOP/s, %lld tasks, owner fraction %.3f\n", what, s->seconds,
           s->seconds > 0 ? s->flops / s->seconds / 1e9 : 0.0, (long long)s->tasks,
           s->owner_fraction);
    printf("remote tile reads: %lld (%.1f MiB), remote tile writes: %lld (%.1f MiB)\n",
           (long long)s->remote_reads, (double)s->remote_read_bytes / (1 << 20),
           (long long)s->remote_writes, (double)s->remote_write_bytes / (1 << 20));
    printf("tasks per domain:");
    for (int d = 0; d < s->ndomains; d++)
        printf(" %lld", (long long)s->tasks_owned[d]);
    printf("\n");
}

static int finish(const char *cmd, const kopts *o, const nt_topo_t *t, nt_kernel_stats_t *s,
                  const redist_sum *rs, int verify_rc, json_t *extra)
{
    if (o->json) {
        json_t *j = stats_json(s);
        json_object_set_new(j, "command", json_string(cmd));
        json_object_set_new(j, "dist", json_string(o->dist));
        json_object_set_new(j, "domains", json_integer(nt_topo_ndomains(t)));
        json_object_set_new(j, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
        json_object_set_new(j, "sched",
                            json_string(o->sched == NT_KERNEL_OWNER ? "owner" : "omp"));
        if (rs->used) {
            json_object_set_new(j, "from", json_string(o->from));
            json_object_set_new(j, "match", json_string(o->match ? o->match : "none"));
            json_object_set_new(j, "redist", json_pack("{s:I, s:I, s:I, s:f}", "bytes_moved",
                                                       (json_int_t)rs->bytes_moved,
                                                       "bytes_copied",
                                                       (json_int_t)rs->bytes_copied,
                                                       "tiles_kept", (json_int_t)rs->tiles_kept,
                                                       "seconds", rs->seconds));
            json_object_set_new(j, "total_seconds", json_real(rs->seconds + s->seconds));
        }
        if (o->verify)
            json_object_set_new(j, "verify", json_boolean(verify_rc == CLI_OK));
        if (extra)
            json_object_update(j, extra);
        json_decref(extra);
        nt_kernel_stats_free(s);
        int rc = cli_print_json(j);
        return rc != CLI_OK ? rc : verify_rc;
    }
    json_decref(extra);
    stats_print(cmd, s);
    if (rs->used)
        printf("redistribution %s -> %s (match %s): %.1f MiB moved, %.3f s; total %.3f s\n",
               o->from, o->dist, o->match ? o->match : "none",
               (double)rs->bytes_moved / (1 << 20), rs->seconds, rs->seconds + s->seconds);
    if (o->verify)
        printf("verify: %s\n", verify_rc == CLI_OK ? "ok" : "FAILED");
    nt_kernel_stats_free(s);
    return verify_rc;
}

static double get(const nt_matrix_t *A, int64_t r, int64_t c)
{
    return *(const double *)nt_matrix_elem(A, r, c);
}

int cmd_gemm(int argc, char **argv)
{
    kopts o = {0};
    int rc = parse_common("gemm", argc, argv, &o, gemm_help);
    if (rc)
        return rc;
    nt_topo_opts_t to = {.domains = o.domains};
    nt_topo_t *t;
    nt_status st = nt_topo_load(&to, &t);
    if (st)
        return cli_lib_error("gemm", st);
    nt_matrix_t *A = NULL, *B = NULL, *C = NULL;
    redist_sum rs = {0};
    nt_kernel_stats_t s = {0};
    nt_kernel_opts_t ko = {.threads_per_domain = o.threads, .sched = o.sched,
                           .cache_inputs = o.cache};
    if ((st = place(t, &o, o.n, o.n, o.seed, true, &A, &rs)) != NT_OK ||
        (st = place(t, &o, o.n, o.n, o.seed + 1, true, &B, &rs)) != NT_OK ||
        (st = place(t, &o, o.n, o.n, o.seed + 2, false, &C, &rs)) != NT_OK ||
        (st = nt_gemm(1.0, A, B, 0.0, C, &ko, &s)) != NT_OK) {
        rc = cli_lib_error("gemm", st);
        goto out;
    }
    int vrc = CLI_OK;
    if (o.verify) {
        // Randomised O(n^2) check: C t = A (B t) within a rounding bound per row.
        int64_t n = o.n;
        double *tv = malloc((size_t)n * 8), *bt = calloc((size_t)n, 8);
        double *ab = calloc((size_t)n, 8);
        if (!tv || !bt || !ab)
            vrc = CLI_RUNTIME;
        for (int64_t j = 0; j < n && vrc == CLI_OK; j++)
            tv[j] = (double)((j * 7919) % 17) / 8.0 - 1.0;
        for (int64_t j = 0; j < n && vrc == CLI_OK; j++)
            for (int64_t l = 0; l < n; l++) {
                bt[l] += get(B, l, j) * tv[j];
                ab[l] += fabs(get(B, l, j) * tv[j]);
            }
        for (int64_t i = 0; i < n && vrc == CLI_OK; i++) {
            double lhs = 0, rhs = 0, bound = 0;
            for (int64_t j = 0; j < n; j++) {
                lhs += get(C, i, j) * tv[j];
                bound += fabs(get(C, i, j) * tv[j]);
            }
            for (int64_t l = 0; l < n; l++) {
                rhs += get(A, i, l) * bt[l];
                bound += fabs(get(A, i, l)) * ab[l];
            }
            if (fabs(lhs - rhs) > 4.0 * (double)(2 * n + 2) * DBL_EPSILON * bound)
                vrc = CLI_VERIFY_FAILED;
        }
        free(tv);
        free(bt);
        free(ab);
    }
    json_t *extra = json_pack("{s:I, s:I, s:b, s:f}", "n", (json_int_t)o.n, "nb",
                              (json_int_t)o.nb, "cache", (int)o.cache, "cache_seconds",
                              s.cache_seconds);
    if (!o.json && o.cache)
        printf("input cache: %lld tiles copied (%.1f MiB) in %.3f s (part of the time below)\n",
               (long long)s.remote_reads, (double)s.remote_read_bytes / (1 << 20),
               s.cache_seconds);
    rc = finish("gemm", &o, t, &s, &rs, vrc, extra);
out:
    nt_kernel_stats_free(&s);
    nt_matrix_destroy(C);
    nt_matrix_destroy(B);
    nt_matrix_destroy(A);
    nt_topo_destroy(t);
    return rc;
}

// Dense column-major copy of a tiled matrix (rows x cols of it), NULL when out of memory.
static double *dense_copy(const nt_matrix_t *A, int64_t rows, int64_t cols, bool upper)
{
    double *d = calloc((size_t)(rows * cols), sizeof *d);
    for (int64_t j = 0; d && j < cols; j++)
        for (int64_t i = 0; i < rows && (!upper || i <= j); i++)
            d[i + j * rows] = get(A, i, j);
    return d;
}

// ||A - QR||_F / (||A||_F max(m,n) eps) and ||Q^T Q - I||_F / (m eps). The products go through
// BLIS (nt_gemm_flat): a naive triple loop made --verify take a minute at n = 2048.
static nt_status qr_residuals(const nt_matrix_t *A0, const nt_matrix_t *F, const nt_matrix_t *Q,
                              double *r1, double *r2)
{
    int64_t m = A0->m, n = A0->n, k = m < n ? m : n;
    double *a = dense_copy(A0, m, n, false), *q = dense_copy(Q, m, m, false);
    double *r = dense_copy(F, k, n, true), *qt = malloc((size_t)(m * m) * sizeof *qt);
    double *g = malloc((size_t)(m * m) * sizeof *g);
    nt_status st = a && q && r && qt && g ? NT_OK : NT_ENOMEM;
    double an = 0, res = 0, orth = 0;
    for (int64_t x = 0; st == NT_OK && x < m * n; x++)
        an += a[x] * a[x];
    // a := a - Q(:, 0:k) R
    if (st == NT_OK)
        st = nt_gemm_flat(1, m, n, k, -1.0, q, m, r, k, 1.0, a, m);
    for (int64_t x = 0; st == NT_OK && x < m * n; x++)
        res += a[x] * a[x];
    for (int64_t j = 0; st == NT_OK && j < m; j++)
        for (int64_t i = 0; i < m; i++)
            qt[j + i * m] = q[i + j * m];
    if (st == NT_OK)
        st = nt_gemm_flat(1, m, m, m, 1.0, qt, m, q, m, 0.0, g, m);
    for (int64_t j = 0; st == NT_OK && j < m; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = g[i + j * m] - (double)(i == j);
            orth += d * d;
        }
    free(a);
    free(q);
    free(r);
    free(qt);
    free(g);
    if (st != NT_OK)
        return st;
    *r1 = sqrt(res) / (sqrt(an) * (double)(m > n ? m : n) * DBL_EPSILON);
    *r2 = sqrt(orth) / ((double)m * DBL_EPSILON);
    return NT_OK;
}

int cmd_qr(int argc, char **argv)
{
    kopts o = {0};
    int rc = parse_common("qr", argc, argv, &o, qr_help);
    if (rc)
        return rc;
    if (o.verify && o.m > 4096)
        return cli_usage("qr", "--verify forms Q densely: use --m <= 4096");
    nt_topo_opts_t to = {.domains = o.domains};
    nt_topo_t *t;
    nt_status st = nt_topo_load(&to, &t);
    if (st)
        return cli_lib_error("qr", st);
    nt_matrix_t *A = NULL, *A0 = NULL, *Q = NULL;
    nt_qr_t *qr = NULL;
    redist_sum rs = {0}, none = {0};
    nt_kernel_stats_t s = {0}, sq = {0};
    nt_kernel_opts_t ko = {.threads_per_domain = o.threads, .sched = o.sched, .ib = o.ib};
    kopts plain = o;
    plain.from = NULL;
    if ((st = place(t, &o, o.m, o.n, o.seed, true, &A, &rs)) != NT_OK ||
        (o.verify && (st = place(t, &plain, o.m, o.n, o.seed, true, &A0, &none)) != NT_OK) ||
        (st = nt_qr_factor(A, &ko, &qr, &s)) != NT_OK) {
        rc = cli_lib_error("qr", st);
        goto out;
    }
    int vrc = CLI_OK;
    json_t *extra = json_pack("{s:I, s:I, s:I, s:I}", "m", (json_int_t)o.m, "n",
                              (json_int_t)o.n, "nb", (json_int_t)o.nb, "ib",
                              (json_int_t)nt_qr_ib(qr));
    if (o.verify) {
        if ((st = place(t, &plain, o.m, o.m, 0, false, &Q, &none)) != NT_OK ||
            (st = nt_qr_form_q(qr, Q, &ko, &sq)) != NT_OK) {
            json_decref(extra);
            rc = cli_lib_error("qr", st);
            goto out;
        }
        double r1 = 0, r2 = 0;
        if ((st = qr_residuals(A0, A, Q, &r1, &r2)) != NT_OK) {
            json_decref(extra);
            fprintf(stderr, "numatile qr: --verify: %s\n", st == NT_ENOMEM ?
                    "out of memory for the dense residual check" : nt_last_error());
            rc = CLI_RUNTIME;
            goto out;
        }
        if (!(r1 < 10.0 && r2 < 10.0))
            vrc = CLI_VERIFY_FAILED;
        json_object_set_new(extra, "residual_qr", json_real(r1));
        json_object_set_new(extra, "residual_orth", json_real(r2));
        if (!o.json)
            printf("||A-QR||/(||A|| n eps) = %.3g, ||Q^TQ-I||/(m eps) = %.3g (both < 10)\n", r1,
                   r2);
    }
    rc = finish("qr", &o, t, &s, &rs, vrc, extra);
out:
    nt_kernel_stats_free(&s);
    nt_kernel_stats_free(&sq);
    nt_qr_destroy(qr);
    nt_matrix_destroy(Q);
    nt_matrix_destroy(A0);
    nt_matrix_destroy(A);
    nt_topo_destroy(t);
    return rc;
}

// DIST1D: block | balanced:SEED | skewed:ALPHA:SEED.
static int parse_dist1d(const char *spec, int64_t n, int p, nt_dist1d_t **out)
{
    nt_status st;
    if (!strcmp(spec, "block")) {
        st = nt_dist1d_block(n, p, out);
    } else if (!strncmp(spec, "balanced:", 9)) {
        int64_t seed;
        if (!cli_parse_i64(spec + 9, 0, INT64_MAX, &seed))
            return cli_usage("stencil", "--from '%s': expected balanced:SEED", spec);
        st = nt_dist1d_balanced(n, p, (uint64_t)seed, out);
    } else if (!strncmp(spec, "skewed:", 7)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", spec + 7);
        char *colon = strchr(buf, ':');
        double alpha;
        int64_t seed;
        if (!colon)
            return cli_usage("stencil", "--from '%s': expected skewed:ALPHA:SEED", spec);
        *colon = 0;
        if (!cli_parse_double(buf, &alpha) || alpha < 0 || alpha > 1 ||
            !cli_parse_i64(colon + 1, 0, INT64_MAX, &seed))
            return cli_usage("stencil", "--from '%s': expected skewed:ALPHA:SEED, ALPHA in "
                             "[0,1]", spec);
        if (n % p)
            return cli_usage("stencil", "--from skewed needs --items divisible by the %d "
                             "domains", p);
        st = nt_dist1d_skewed(p, n / p, alpha, (uint64_t)seed, out);
    } else {
        return cli_usage("stencil", "--from '%s': expected block, balanced:SEED or "
                         "skewed:ALPHA:SEED", spec);
    }
    return st ? cli_lib_error("stencil", st) : CLI_OK;
}

int cmd_stencil(int argc, char **argv)
{
    enum { O_ITEMS = 1, O_PER, O_ITERS, O_FROM, O_STRAT, O_DOM, O_THR, O_VERIFY, O_JSON, O_HELP };
    static const struct option lo[] = {
        {"items", required_argument, 0, O_ITEMS}, {"per-item", required_argument, 0, O_PER},
        {"iters", required_argument, 0, O_ITERS}, {"from", required_argument, 0, O_FROM},
        {"strategy", required_argument, 0, O_STRAT}, {"domains", required_argument, 0, O_DOM},
        {"threads", required_argument, 0, O_THR}, {"verify", no_argument, 0, O_VERIFY},
        {"json", no_argument, 0, O_JSON},         {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0}};
    int64_t items = 0, per = -1, iters = -1;
    const char *from = "block", *strategy = "owner";
    int domains = 0, threads = 0, c;
    bool verify = false, json = false;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case O_ITEMS:
            if (!cli_parse_i64(optarg, 1, INT32_MAX, &items))
                return cli_usage("stencil", "--items: '%s' is not an integer in 1..2^31-1",
                                 optarg);
            break;
        case O_PER:
            if (!cli_parse_i64(optarg, 0, INT32_MAX, &per))
                return cli_usage("stencil", "--per-item: '%s' is not a non-negative integer",
                                 optarg);
            break;
        case O_ITERS:
            if (!cli_parse_i64(optarg, 0, INT32_MAX, &iters))
                return cli_usage("stencil", "--iters: '%s' is not a non-negative integer",
                                 optarg);
            break;
        case O_FROM: from = optarg; break;
        case O_STRAT:
            if (strcmp(optarg, "owner") && strcmp(optarg, "canonical"))
                return cli_usage("stencil", "--strategy: '%s' is not owner or canonical",
                                 optarg);
            strategy = optarg;
            break;
        case O_DOM:
            if (!cli_parse_int(optarg, 1, 4096, &domains))
                return cli_usage("stencil", "--domains: '%s' is not an integer in 1..4096",
                                 optarg);
            break;
        case O_THR:
            if (!cli_parse_int(optarg, 1, 1024, &threads))
                return cli_usage("stencil", "--threads: '%s' is not an integer in 1..1024",
                                 optarg);
            break;
        case O_VERIFY: verify = true; break;
        case O_JSON: json = true; break;
        case O_HELP: fputs(stencil_help, stdout); return CLI_OK;
        default:
            return cli_usage("stencil", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage("stencil", "unexpected argument '%s'", argv[optind]);
    if (!items || per < 0 || iters < 0)
        return cli_usage("stencil", "--items, --per-item and --iters are required");
    nt_topo_opts_t to = {.domains = domains};
    nt_topo_t *t;
    nt_status st = nt_topo_load(&to, &t);
    if (st)
        return cli_lib_error("stencil", st);
    int D = nt_topo_ndomains(t);
    nt_dist1d_t *ini = NULL, *run = NULL;
    int rc = parse_dist1d(from, items, D, &ini);
    double *v = NULL, *ref = NULL;
    int64_t moved = 0;
    if (rc)
        goto out;
    if (!strcmp(strategy, "canonical")) {
        if ((st = nt_dist1d_block(items, D, &run)) != NT_OK) {
            rc = cli_lib_error("stencil", st);
            goto out;
        }
        for (int64_t x = 0; x < items; x++)
            moved += ini->owner[x] != run->owner[x];
    }
    v = malloc((size_t)items * sizeof *v);
    ref = verify ? malloc((size_t)items * sizeof *ref) : NULL;
    if (!v || (verify && !ref)) {
        rc = cli_usage("stencil", "out of memory for %lld items", (long long)items);
        goto out;
    }
    for (int64_t x = 0; x < items; x++)
        v[x] = (double)((x * 2654435761u) % 1000) / 10.0;
    if (ref)
        memcpy(ref, v, (size_t)items * sizeof *v);
    nt_stencil_opts_t so = {.iters = iters, .work = per, .threads_per_domain = threads};
    nt_stencil_stats_t ss;
    if ((st = nt_stencil_run(t, run ? run : ini, v, &so, &ss)) != NT_OK) {
        rc = cli_lib_error("stencil", st);
        goto out;
    }
    int vrc = CLI_OK;
    if (ref) {
        double *w = malloc((size_t)items * sizeof *w);
        for (int64_t it = 0; it < iters && w; it++) {
            for (int64_t x = 0; x < items; x++)
                w[x] = nt_stencil_update(ref[(x + items - 1) % items], ref[x],
                                         ref[(x + 1) % items], per);
            memcpy(ref, w, (size_t)items * sizeof *w);
        }
        if (!w || memcmp(ref, v, (size_t)items * sizeof *v))
            vrc = CLI_VERIFY_FAILED;
        free(w);
    }
    if (json) {
        json_t *j = json_pack(
            "{s:s, s:I, s:I, s:I, s:s, s:s, s:i, s:I, s:I, s:I, s:f, s:f}", "command", "stencil",
            "items", (json_int_t)items, "per_item", (json_int_t)per, "iters", (json_int_t)iters,
            "from", from, "strategy", strategy, "domains", D, "redist_items", (json_int_t)moved,
            "halo_items", (json_int_t)ss.halo_items, "halo_bytes", (json_int_t)ss.halo_bytes,
            "owner_fraction", ss.owner_fraction, "seconds", ss.seconds);
        if (verify)
            json_object_set_new(j, "verify", json_boolean(vrc == CLI_OK));
        rc = cli_print_json(j);
        if (rc == CLI_OK)
            rc = vrc;
    } else {
        printf("stencil: %lld items on %d domains (%s, strategy %s), %lld iterations, "
               "%lld extra ops per item\n", (long long)items, D, from, strategy,
               (long long)iters, (long long)per);
        printf("%.4f s, halo items %lld (%lld bytes), owner fraction %.3f, items moved first "
               "%lld\n", ss.seconds, (long long)ss.halo_items, (long long)ss.halo_bytes,
               ss.owner_fraction, (long long)moved);
        if (verify)
            printf("verify: %s\n", vrc == CLI_OK ? "ok (bit for bit)" : "FAILED");
        rc = vrc;
    }
out:
    free(v);
    free(ref);
    nt_dist1d_destroy(ini);
    nt_dist1d_destroy(run);
    nt_topo_destroy(t);
    return rc;
}
