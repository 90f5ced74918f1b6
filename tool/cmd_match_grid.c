// numatile match --m M --n N --from TILE@bc2d:PxQ[:SMBxSNB] --to TILE@bc2d:... [--verify]
// [--json]: the minimum-volume relabelling of a block-cyclic grid change, from the sparse count
// matrix (no P x P table, no ranks running), timed; --verify also runs the dense solver.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli_inst.h"
#include "harness.h"

// Grid cells a layout may have (the sparse solver is O(P) memory; beyond this the tool's
// JSON sigma alone would be tens of MB).
enum { GRID_MAX_P = 1 << 22, DENSE_MAX_P = 4096 };

typedef struct grid_args {
    cli_common co;
    int64_t m, n;
    const char *from, *to;
    nt_match_objective obj;
} grid_args;

typedef struct grid_result {
    nt_bc_layout_t src, dst;
    int pi, pt, pd;
    nt_sparse_counts_t counts; // built for --verify and the canonical objective only
    int64_t nnz;
    int *sigma;
    nt_cost_t cost, canonical, dense;
    double count_s, solve_s, dense_s;
    bool equal;
} grid_result;

static const struct option grid_options[] = {
    {"m", required_argument, 0, 'm'},          {"n", required_argument, 0, 'n'},
    {"from", required_argument, 0, 'f'},       {"to", required_argument, 0, 't'},
    {"objective", required_argument, 0, 'o'},  {"json", no_argument, 0, CLI_OPT_JSON},
    {"verify", no_argument, 0, CLI_OPT_VERIFY}, {"help", no_argument, 0, CLI_OPT_HELP},
    {0, 0, 0, 0}};

// A positive integer at *s, up to a character of stop (or the end); moves *s past it.
static bool take_num(const char **s, const char *stop, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(*s, &end, 10);
    if (end == *s || **s == '-' || **s == '+' || errno || x < 1 || x > hi ||
        (*end && !strchr(stop, *end)))
        return false;
    *v = x;
    *s = end;
    return true;
}

// TILE@bc2d:PxQ[:SMBxSNB] or TILE@bc1d:P, TILE = MB or MBxNB; the layout's blocks are in
// elements (MB * SMB rows, NB * SNB columns).
static int parse_grid(const char *opt, const char *spec, nt_bc_layout_t *l, int *cells)
{
    const char *s = spec;
    int64_t mb, nb, p = 1, q, smb = 1, snb = 1;
    bool ok = take_num(&s, "x@", INT32_MAX, &mb);
    nb = mb;
    if (ok && *s == 'x')
        s++, ok = take_num(&s, "@", INT32_MAX, &nb);
    ok = ok && *s++ == '@';
    if (ok && strncmp(s, "bc1d:", 5) == 0) {
        s += 5;
        ok = take_num(&s, "", GRID_MAX_P, &q);
    } else if (ok && strncmp(s, "bc2d:", 5) == 0) {
        s += 5;
        ok = take_num(&s, "x", GRID_MAX_P, &p) && *s++ == 'x' &&
             take_num(&s, ":", GRID_MAX_P, &q);
        if (ok && *s == ':')
            s++, ok = take_num(&s, "x", INT32_MAX, &smb) && *s++ == 'x' &&
                      take_num(&s, "", INT32_MAX, &snb);
    } else {
        ok = false;
    }
    if (!ok || *s)
        return cli_usage("match", "%s: '%s' is not TILE@bc2d:PxQ[:SMBxSNB] or TILE@bc1d:P "
                         "(TILE = MB or MBxNB, all positive)", opt, spec);
    if (p * q > GRID_MAX_P)
        return cli_usage("match", "%s: a %lldx%lld grid has more than %d cells", opt,
                         (long long)p, (long long)q, GRID_MAX_P);
    *l = (nt_bc_layout_t){{mb * smb, 0, (int)p, 0}, {nb * snb, 0, (int)q, 0}, NULL};
    *cells = (int)(p * q);
    return CLI_OK;
}

static int grid_option(grid_args *a, int c, char **argv)
{
    switch (c) {
    case 'm':
    case 'n':
        if (!cli_parse_i64(optarg, 1, INT64_MAX, c == 'm' ? &a->m : &a->n))
            return cli_usage("match", "--%c: '%s' is not a positive size", c, optarg);
        return CLI_OK;
    case 'f': a->from = optarg; return CLI_OK;
    case 't': a->to = optarg; return CLI_OK;
    case 'o':
        if (nt_match_objective_parse(optarg, &a->obj) != NT_OK ||
            (a->obj != NT_MATCH_VOLUME && a->obj != NT_MATCH_CANONICAL))
            return cli_usage("match", "--objective: a grid change takes volume or canonical, "
                             "not '%s'", optarg);
        return CLI_OK;
    default: return cli_common_option(&a->co, c, argv);
    }
}

static int grid_parse(int argc, char **argv, const char *help, grid_args *a, grid_result *r)
{
    *a = (grid_args){.co = {.cmd = "match", .help = help}, .obj = NT_MATCH_VOLUME};
    int c, rc;
    while ((c = cli_getopt(argc, argv, grid_options)) != -1)
        if ((rc = grid_option(a, c, argv)) != CLI_OK)
            return rc;
    if ((rc = cli_no_operands("match", argc, argv)) != CLI_OK)
        return rc;
    if (!a->m || !a->n || !a->from || !a->to)
        return cli_usage("match", "a grid change needs --m, --n, --from and --to");
    if ((rc = parse_grid("--from", a->from, &r->src, &r->pi)) != CLI_OK ||
        (rc = parse_grid("--to", a->to, &r->dst, &r->pt)) != CLI_OK)
        return rc;
    r->pd = r->pi > r->pt ? r->pi : r->pt;
    if (a->co.verify && r->pd > DENSE_MAX_P)
        return cli_usage("match", "--verify runs the dense solver, which takes at most %d "
                         "domains (this change has %d)", DENSE_MAX_P, r->pd);
    return CLI_OK;
}

// The dense solver on the same counts (the P x P table it needs), timed, for --verify.
static nt_status grid_dense(const grid_args *a, grid_result *r)
{
    int64_t *n = malloc((size_t)r->pi * (size_t)r->pt * sizeof *n);
    int *sigma = malloc((size_t)r->pt * sizeof *sigma);
    nt_status st = n && sigma ? NT_OK : NT_ENOMEM;
    if (st == NT_OK && !r->counts.start)
        st = nt_sparse_counts_bc(a->m, a->n, &r->src, r->pi, &r->dst, r->pt, &r->counts);
    double t0 = bench_now();
    if (st == NT_OK)
        st = nt_sparse_counts_dense(&r->counts, n);
    nt_match_problem_t prob = {.p_ini = r->pi, .p_tar = r->pt, .counts = n};
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_VOLUME, sigma, &r->dense);
    r->dense_s = bench_now() - t0;
    r->equal = st == NT_OK && r->dense.volume == r->cost.volume;
    free(n);
    free(sigma);
    return st;
}

// Counts, labelling, canonical costs and (with --verify) the dense optimum.
static nt_status grid_solve(const grid_args *a, grid_result *r)
{
    r->sigma = malloc((size_t)r->pt * sizeof *r->sigma);
    if (!r->sigma)
        return NT_ENOMEM;
    // The least volume solves from the counts' two factors (never stored): count_s is 0 there.
    double t0 = bench_now();
    nt_status st = NT_OK;
    if (a->obj != NT_MATCH_VOLUME) {
        st = nt_sparse_counts_bc(a->m, a->n, &r->src, r->pi, &r->dst, r->pt, &r->counts);
        r->nnz = r->counts.nnz;
    }
    double t1 = bench_now();
    r->count_s = t1 - t0;
    if (st == NT_OK && a->obj == NT_MATCH_VOLUME)
        st = nt_match_bc_volume(a->m, a->n, &r->src, r->pi, &r->dst, r->pt, r->pd, r->sigma,
                                &r->cost, &r->nnz);
    r->solve_s = bench_now() - t1;
    // The canonical labelling (the identity) for comparison, after the timed part.
    int *id = st == NT_OK ? malloc((size_t)r->pt * sizeof *id) : NULL;
    if (st == NT_OK && !id)
        st = NT_ENOMEM;
    for (int j = 0; id && j < r->pt; j++)
        id[j] = j;
    if (st == NT_OK)
        st = nt_cost_bc(a->m, a->n, &r->src, r->pi, &r->dst, r->pt, r->pd, id, &r->canonical);
    if (st == NT_OK && a->obj == NT_MATCH_CANONICAL) {
        memcpy(r->sigma, id, (size_t)r->pt * sizeof *id);
        r->cost = r->canonical;
    }
    free(id);
    if (st == NT_OK && a->co.verify)
        st = grid_dense(a, r);
    return st;
}

static int64_t peak_rss_bytes(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? (int64_t)u.ru_maxrss * 1024 : -1;
}

static json_t *grid_json(const grid_args *a, const grid_result *r)
{
    json_t *o = json_pack(
        "{s:s, s:s, s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:b, s:I, s:o, s:I, s:I, s:I, "
        "s:I, s:I, s:f, s:f, s:f, s:I}",
        "objective", nt_match_objective_name(a->obj), "kind", "grid", "m", (json_int_t)a->m,
        "n", (json_int_t)a->n, "from", a->from, "to", a->to, "p_ini", r->pi, "p_tar", r->pt,
        "domains", r->pd, "items", (json_int_t)(a->m * a->n), "total",
        (json_int_t)(a->m * a->n), "weighted", 0, "nnz", (json_int_t)r->nnz, "sigma",
        inst_sigma_json(r->sigma, r->pt), "volume", (json_int_t)r->cost.volume, "steps",
        (json_int_t)r->cost.steps, "local", (json_int_t)r->cost.local, "canonical_volume",
        (json_int_t)r->canonical.volume, "canonical_steps", (json_int_t)r->canonical.steps,
        "count_seconds", r->count_s, "solve_seconds", r->solve_s, "seconds",
        r->count_s + r->solve_s, "peak_rss_bytes", (json_int_t)peak_rss_bytes());
    if (o && a->co.verify) {
        json_object_set_new(o, "dense_volume", json_integer(r->dense.volume));
        json_object_set_new(o, "dense_seconds", json_real(r->dense_s));
        json_object_set_new(o, "verify", json_boolean(r->equal));
    }
    return o;
}

static void grid_print(const grid_args *a, const grid_result *r)
{
    printf("grid change %lld x %lld elements: %s (%d domains) -> %s (%d components)\n",
           (long long)a->m, (long long)a->n, a->from, r->pi, a->to, r->pt);
    printf("sparse counts: %lld entries (a dense table would have %lld)\n",
           (long long)r->nnz, (long long)r->pi * r->pt);
    if (r->pt <= 64)
        inst_sigma_print(r->sigma, r->pt);
    printf("%-10s %16s %16s\n", "labelling", "volume", "steps");
    printf("%-10s %16lld %16lld\n", nt_match_objective_name(a->obj), (long long)r->cost.volume,
           (long long)r->cost.steps);
    printf("%-10s %16lld %16lld\n", "canonical", (long long)r->canonical.volume,
           (long long)r->canonical.steps);
    printf("time: counts %.3f s, matching %.3f s; peak RSS %.1f MiB\n", r->count_s, r->solve_s,
           (double)peak_rss_bytes() / (1 << 20));
    if (a->co.verify)
        printf("dense solver: volume %lld in %.3f s: %s\n", (long long)r->dense.volume,
               r->dense_s, r->equal ? "equal" : "DIFFERENT");
}

int match_grid(int argc, char **argv, const char *help)
{
    grid_args a;
    grid_result r = {0};
    int rc = grid_parse(argc, argv, help, &a, &r);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    nt_status st = grid_solve(&a, &r);
    if (st == NT_ENOMEM) {
        fprintf(stderr, "numatile match: out of memory\n");
        rc = CLI_RUNTIME;
    } else if (st != NT_OK) {
        rc = cli_lib_error("match", st);
    } else if (a.co.json) {
        rc = cli_print_json(grid_json(&a, &r));
    } else {
        grid_print(&a, &r);
    }
    if (rc == CLI_OK && a.co.verify && !r.equal)
        rc = CLI_VERIFY_FAILED;
    nt_sparse_counts_free(&r.counts);
    free(r.sigma);
    return rc;
}
