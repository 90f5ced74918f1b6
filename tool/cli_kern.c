// The parts of `numatile gemm` and `numatile qr` that are the same: options, placing an operand
// (after a redistribution under --from), its values, and the report of the run.
#include "cli_kern.h"
#include "harness.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "numatile/match.h"
#include "numatile/plan.h"

enum { O_M = 1, O_N, O_NB, O_IB, O_DIST, O_FROM, O_MATCH, O_THR, O_SCHED, O_CACHE, O_TYPE,
       O_SPEEDS, O_ALGO };

static const struct option kern_options[] = {
    {"m", required_argument, 0, O_M},
    {"n", required_argument, 0, O_N},
    {"nb", required_argument, 0, O_NB},
    {"ib", required_argument, 0, O_IB},
    {"dist", required_argument, 0, O_DIST},
    {"from", required_argument, 0, O_FROM},
    {"match", required_argument, 0, O_MATCH},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"threads", required_argument, 0, O_THR},
    {"sched", required_argument, 0, O_SCHED},
    {"seed", required_argument, 0, CLI_OPT_SEED},
    {"verify", no_argument, 0, CLI_OPT_VERIFY},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {"cache", no_argument, 0, O_CACHE},
    {"type", required_argument, 0, O_TYPE},
    {"speeds", required_argument, 0, O_SPEEDS},
    {"algo", required_argument, 0, O_ALGO},
    {0, 0, 0, 0}};

// A size option: --NAME in 1..2^31-1.
static int take_size(const char *cmd, const char *name, int64_t *out)
{
    if (!cli_parse_i64(optarg, 1, INT32_MAX, out))
        return cli_usage(cmd, "--%s: '%s' is not an integer in 1..2^31-1", name, optarg);
    return CLI_OK;
}

// One option of the kernels' own (not the common ones); c is its id, its value in optarg.
static int kern_option(kopts *o, int c, char **argv)
{
    const char *cmd = o->co.cmd;
    switch (c) {
    case O_M: return take_size(cmd, "m", &o->m);
    case O_N: return take_size(cmd, "n", &o->n);
    case O_NB: return take_size(cmd, "nb", &o->nb);
    case O_IB:
        if (strcmp(cmd, "qr"))
            return cli_usage(cmd, "--ib is a qr option");
        if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->ib))
            return cli_usage(cmd, "--ib: '%s' is not a positive integer", optarg);
        return CLI_OK;
    case O_DIST: o->dist = optarg; return CLI_OK;
    case O_FROM: o->from = optarg; return CLI_OK;
    case O_MATCH: o->match = optarg; return CLI_OK;
    case O_THR:
        if (!cli_parse_int(optarg, 1, 1024, &o->threads))
            return cli_usage(cmd, "--threads: '%s' is not an integer in 1..1024", optarg);
        return CLI_OK;
    case O_SCHED:
        if (!strcmp(optarg, "owner"))
            o->sched = NT_KERNEL_OWNER;
        else if (!strcmp(optarg, "omp"))
            o->sched = NT_KERNEL_OMP;
        else
            return cli_usage(cmd, "--sched: '%s' is not owner or omp", optarg);
        return CLI_OK;
    case O_TYPE:
        for (nt_dtype t = NT_DTYPE_S; t <= NT_DTYPE_Z; t++)
            if (!strcmp(optarg, nt_dtype_name(t))) {
                o->type = t;
                return CLI_OK;
            }
        return cli_usage(cmd, "--type: '%s' is not s, d, c or z", optarg);
    case O_CACHE:
        if (strcmp(cmd, "gemm"))
            return cli_usage(cmd, "--cache is a gemm option");
        o->cache = true;
        return CLI_OK;
    case O_SPEEDS:
        if (strcmp(cmd, "gemm"))
            return cli_usage(cmd, "--speeds is a gemm option");
        o->speeds = optarg;
        return CLI_OK;
    case O_ALGO:
        if (strcmp(cmd, "gemm"))
            return cli_usage(cmd, "--algo is a gemm option");
        if (nt_hetero_algo_parse(optarg, &o->algo) != NT_OK)
            return cli_usage(cmd, "--algo: '%s' is not column, rrp, snrrp, nrrp, sfcp or exact",
                             optarg);
        o->have_algo = true;
        return CLI_OK;
    default: return cli_common_option(&o->co, c, argv);
    }
}

int kern_parse(const char *cmd, const char *help, int argc, char **argv, kopts *o)
{
    *o = (kopts){.co = {.cmd = cmd, .help = help, .seed = 1}, .type = NT_DTYPE_D,
                 .algo = NT_HETERO_NRRP};
    int c, rc;
    while ((c = cli_getopt(argc, argv, kern_options)) != -1)
        if ((rc = kern_option(o, c, argv)) != CLI_OK)
            return rc;
    if ((rc = cli_no_operands(cmd, argc, argv)) != CLI_OK)
        return rc;
    if (o->speeds && o->dist)
        return cli_usage(cmd, "--speeds and --dist exclude each other: give one of them");
    if (o->have_algo && !o->speeds)
        return cli_usage(cmd, "--algo needs --speeds");
    if (!o->n || !o->nb || (!o->dist && !o->speeds))
        return cli_usage(cmd, !strcmp(cmd, "gemm") ? "--n, --nb and one of --dist or --speeds "
                                                     "are required"
                                                   : "--n, --nb and --dist are required");
    if (!strcmp(cmd, "qr") && !o->m)
        return cli_usage(cmd, "--m is required");
    if (o->match && !o->from)
        return cli_usage(cmd, "--match needs --from");
    // Part j of a heterogeneous partition is sized for domain j's speed: relabelling it onto
    // other domains would undo that.
    if (o->speeds && o->match && strcmp(o->match, "none"))
        return cli_usage(cmd, "--match %s: the --speeds partition gives each domain the part "
                         "built for its speed; only --match none applies", o->match);
    return CLI_OK;
}

double kern_eps(nt_dtype t)
{
    return t == NT_DTYPE_S || t == NT_DTYPE_C ? (double)FLT_EPSILON : DBL_EPSILON;
}

typedef struct value_arg {
    uint64_t seed;
    nt_dtype type;
    int64_t n; // columns: the imaginary parts' column offset
} value_arg;

// Element (r,c): bench_value(seed, r, c); for complex types the imaginary part is the same
// function of (seed, r, c + n) (another stream). These values fix the residuals the commands
// print.
static void kern_value(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    const value_arg *v = arg;
    double re = bench_value(v->seed, r, c);
    double im = v->type == NT_DTYPE_C || v->type == NT_DTYPE_Z ? bench_value(v->seed, r, c + v->n)
                                                                : 0.0;
    switch (v->type) {
    case NT_DTYPE_S:
        *(float *)elem = (float)re;
        break;
    case NT_DTYPE_C:
        ((float *)elem)[0] = (float)re;
        ((float *)elem)[1] = (float)im;
        break;
    case NT_DTYPE_Z:
        ((double *)elem)[0] = re;
        ((double *)elem)[1] = im;
        break;
    default:
        *(double *)elem = re;
    }
}

// Per tile of an operand: its descriptor's tables beside nt_matrix_bytes(), the kernel's task
// records and, under --from, the redistribution's tables (redist measures 240 B a tile).
enum { KERN_TILE_BYTES = 240 };

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t tiles_of(const kopts *o, const kern_operand *op)
{
    return sat_mul((uint64_t)((op->m + o->nb - 1) / o->nb),
                   (uint64_t)((op->n + o->nb - 1) / o->nb));
}

int kern_room(const char *cmd, const kopts *o, const kern_operand *ops, int nops, int64_t kt,
              uint64_t step_bytes)
{
    uint64_t need = sat_mul(sat_mul(tiles_of(o, &ops[0]), (uint64_t)kt), step_bytes);
    uint64_t largest = 0;
    int64_t mats = 0;
    for (int k = 0; k < nops; k++) {
        if (ops[k].count < 1)
            continue;
        size_t es = ops[k].elem ? ops[k].elem : nt_dtype_size(o->type);
        nt_matrix_shape_t sh = {ops[k].m, ops[k].n, o->nb, o->nb, es};
        uint64_t one = sat_add(nt_matrix_bytes(&sh, true),
                               sat_mul(KERN_TILE_BYTES, tiles_of(o, &ops[k])));
        need = sat_add(need, sat_mul(one, (uint64_t)ops[k].count));
        largest = one > largest ? one : largest;
        mats += ops[k].count;
    }
    // --from: each operand is created on the source first, then moved: one more at a time.
    if (o->from)
        need = sat_add(need, largest);
    char who[160];
    snprintf(who, sizeof who, "%s of %lld matri%s in %lldx%lld tiles", cmd, (long long)mats,
             mats == 1 ? "x" : "ces", (long long)o->nb, (long long)o->nb);
    nt_status st = nt_mem_room(NULL, NULL, need, who);
    return st == NT_OK ? CLI_OK : cli_lib_error(cmd, st);
}

// Domains a DIST announces on an mt x nt grid (0 when it needs a count: random, balanced).
static int spec_domains(const char *spec, int64_t mt, int64_t nt)
{
    // A block-cyclic DIST names P x Q domains whatever the grid: no map to build (an
    // element-cyclic map of a large matrix would take gigabytes).
    nt_bcgrid_t g;
    if (nt_tilemap_spec_grid(spec, &g) == NT_OK && g.p > 0)
        return g.p * g.q;
    nt_tilemap_t *m;
    if (nt_tilemap_from_spec(spec, mt, nt, 0, &m) != NT_OK)
        return 0;
    int d = m->ndomains;
    nt_tilemap_destroy(m);
    return d;
}

int cli_topo_for_dists(const char *cmd, int domains, const char *const *specs, int nspecs,
                       const int64_t *mt, const int64_t *nt, nt_topo_t **t)
{
    nt_topo_opts_t to = {.domains = domains};
    nt_status st;
    if (!domains) {
        int need = 0;
        for (int k = 0; k < nspecs; k++) {
            int d = specs[k] ? spec_domains(specs[k], mt[k], nt[k]) : 0;
            need = d > need ? d : need;
        }
        nt_topo_t *phys;
        if ((st = nt_topo_load(NULL, &phys)) != NT_OK)
            return cli_lib_error(cmd, st);
        if (need > nt_topo_ndomains(phys))
            to.domains = need;
        nt_topo_destroy(phys);
    }
    if ((st = nt_topo_load(&to, t)) != NT_OK)
        return cli_lib_error(cmd, st);
    cli_json_topology(*t);
    return CLI_OK;
}

// An operand on map, or on spec when map is NULL (flags as nt_matrix_create_spec's), filled
// from seed when fill is set.
static nt_status create_operand(const nt_topo_t *t, const nt_matrix_shape_t *sh, nt_dtype type,
                                const nt_tilemap_t *map, const char *spec, unsigned flags,
                                bool fill, uint64_t seed, nt_matrix_t **out)
{
    // As plan: a DIST uses the domains it names (random and balanced: the topology's).
    nt_matrix_t *A;
    nt_status st = map ? nt_matrix_create(t, sh, map, NT_LAYOUT_TILE, flags, &A)
                       : nt_matrix_create_spec(t, sh, spec, 0, NT_LAYOUT_TILE, flags, &A);
    if (st != NT_OK)
        return st;
    value_arg v = {seed, type, sh->n};
    if ((st = nt_matrix_set_dtype(A, type)) != NT_OK ||
        (fill && (st = nt_matrix_fill(A, kern_value, &v)) != NT_OK)) {
        nt_matrix_destroy(A);
        return st;
    }
    *out = A;
    return NT_OK;
}

nt_status kern_place(const nt_topo_t *t, const kopts *o, int64_t m, int64_t n, uint64_t seed,
                     bool fill, nt_matrix_t **out, redist_sum *rs)
{
    nt_matrix_shape_t sh = {m, n, o->nb, o->nb, nt_dtype_size(o->type)};
    if (!o->from)
        return create_operand(t, &sh, o->type, o->map, o->dist, 0, fill, seed, out);
    nt_match_objective obj = NT_MATCH_CANONICAL;
    nt_status st;
    if (o->match && (st = nt_match_objective_parse(o->match, &obj)) != NT_OK)
        return st;
    nt_matrix_t *src = NULL, *dst = NULL;
    nt_plan_t *plan = NULL;
    nt_plan_opts_t po = {.relabel = obj};
    nt_exec_stats_t es = {0};
    if ((st = create_operand(t, &sh, o->type, NULL, o->from, 0, fill, seed, &src)) != NT_OK ||
        (st = create_operand(t, &sh, o->type, o->map, o->dist, NT_MATRIX_NOALLOC, false, 0,
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
    rs->seconds += es.alloc_seconds + es.seconds;
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

static json_t *report_json(const char *cmd, const kopts *o, const nt_topo_t *t,
                           const nt_kernel_stats_t *s, const redist_sum *rs, int verify_rc)
{
    json_t *j = stats_json(s);
    json_object_set_new(j, "command", json_string(cmd));
    json_object_set_new(j, "dist", json_string(o->dist));
    json_object_set_new(j, "domains", json_integer(nt_topo_ndomains(t)));
    json_object_set_new(j, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
    json_object_set_new(j, "sched", json_string(o->sched == NT_KERNEL_OWNER ? "owner" : "omp"));
    json_object_set_new(j, "type", json_string(nt_dtype_name(o->type)));
    if (rs->used) {
        json_object_set_new(j, "from", json_string(o->from));
        json_object_set_new(j, "match", json_string(o->match ? o->match : "none"));
        json_object_set_new(j, "redist", json_pack("{s:I, s:I, s:I, s:f}", "bytes_moved",
                                                   (json_int_t)rs->bytes_moved, "bytes_copied",
                                                   (json_int_t)rs->bytes_copied, "tiles_kept",
                                                   (json_int_t)rs->tiles_kept, "seconds",
                                                   rs->seconds));
        json_object_set_new(j, "total_seconds", json_real(rs->seconds + s->seconds));
    }
    if (o->co.verify)
        json_object_set_new(j, "verify", json_boolean(verify_rc == CLI_OK));
    return j;
}

static void report_text(const char *cmd, const kopts *o, const nt_kernel_stats_t *s,
                        const redist_sum *rs, int verify_rc)
{
    printf("%s: %.3f s, %.2f GFLOP/s, %lld tasks, owner fraction %.3f\n", cmd, s->seconds,
           s->seconds > 0 ? s->flops / s->seconds / 1e9 : 0.0, (long long)s->tasks,
           s->owner_fraction);
    printf("remote tile reads: %lld (%.1f MiB), remote tile writes: %lld (%.1f MiB)\n",
           (long long)s->remote_reads, (double)s->remote_read_bytes / (1 << 20),
           (long long)s->remote_writes, (double)s->remote_write_bytes / (1 << 20));
    printf("tasks per domain:");
    for (int d = 0; d < s->ndomains; d++)
        printf(" %lld", (long long)s->tasks_owned[d]);
    printf("\n");
    if (rs->used)
        printf("redistribution %s -> %s (match %s): %.1f MiB moved, %.3f s; total %.3f s\n",
               o->from, o->dist, o->match ? o->match : "none",
               (double)rs->bytes_moved / (1 << 20), rs->seconds, rs->seconds + s->seconds);
    if (o->co.verify)
        printf("verify: %s\n", verify_rc == CLI_OK ? "ok" : "FAILED");
}

int kern_report(const char *cmd, const kopts *o, const nt_topo_t *t, nt_kernel_stats_t *s,
                const redist_sum *rs, int verify_rc, json_t *extra)
{
    int rc = verify_rc;
    if (o->co.json) {
        json_t *j = report_json(cmd, o, t, s, rs, verify_rc);
        if (extra)
            json_object_update(j, extra);
        int wrc = cli_print_json(j);
        rc = wrc != CLI_OK ? wrc : verify_rc;
    } else {
        report_text(cmd, o, s, rs, verify_rc);
    }
    json_decref(extra);
    nt_kernel_stats_free(s);
    return rc;
}
