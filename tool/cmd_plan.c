// numatile plan / numatile redist: plan (and execute) a tiled-matrix redistribution.
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_kern.h"
#include "cli_op.h"
#include "commands.h"
#include "harness.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"

static const char *help_plan =
    "usage: numatile plan --m M --n N --from TILE@DIST --to TILE@DIST [options]\n"
    "  --m M, --n N        matrix size in elements (both matrices)\n"
    "  --from TILE@DIST    source tiles and distribution, e.g. 256x256@random:1\n"
    "  --to TILE@DIST      target, e.g. 128x128@bc2d:2x2 (TILE = MBxNB or MB)\n"
    "  --domains D         domains of the machine (default: as many as the DISTs need; more\n"
    "                      than this machine's NUMA nodes gives virtual domains)\n"
    "  --synthetic DESC    plan for a described machine (hwloc synthetic string or XML file)\n"
    "  --match MODE        relabel the target: none|volume|steps|lex|distance (default none)\n"
    "  --sub R,C,SR,SC,TR,TC  move an RxC submatrix from (SR,SC) of the source to (TR,TC)\n"
    "  --from-layout L, --to-layout L   tile (default), scalapack or lapack (one\n"
    "                      column-major array, lda = M: the out-of-place conversion)\n"
    "  --elem BYTES        element size (default 8)\n"
    "  --dump              add src_map and dst_map (after relabelling) to the output\n"
    "  --op N|T|C          B = beta*B + alpha*op(A): the target is op(source) (T, C: its\n"
    "                      transpose, N x M); with --sub, ROWS x COLS is the target's block\n"
    "  --alpha A, --beta B scalars, RE or RE,IM (default 1 and 0: a copy)\n"
    "  --uplo U|L          only the upper or lower trapezoid of the submatrix (p?trmr2d)\n"
    "  --diag N|U          with --uplo: the diagonal written (N, default) or left alone (U)\n"
    "  --type s|d|c|z      element type (sets --elem; default d when the operation computes)\n"
    "  --json              one JSON object: tiles, segments, bytes, bytes_moved, bytes_local,\n"
    "                      volume_tiles, steps (segments), steps_bytes, dist_volume, sigma,\n"
    "                      categories, fast_path, closed_form, periodic, plan_memory_bytes,\n"
    "                      pair_bytes, seconds (planning); with an operation also op, alpha,\n"
    "                      beta, uplo, diag, type\n";

static const char *help_redist =
    "usage: numatile redist --m M --n N --from TILE@DIST --to TILE@DIST [options]\n"
    "  all options of 'numatile plan' (but --synthetic), and:\n"
    "  --mode copy|move    copy segments (default) or migrate whole page-aligned tiles\n"
    "  --schedule free|steps  all copy tasks at once (default) or one-port phases\n"
    "  --threads T         copy threads per domain (default: cpus of the domain, at most 4)\n"
    "  --no-keep           copy even the tiles that stay where they are\n"
    "  --order auto|target|source|global  copy order (see the man page; default auto:\n"
    "                      on one NUMA node, for block-cyclic ScaLAPACK plans source when\n"
    "                      every run streams whole target lines, else global; source tile\n"
    "                      by source tile for large pieces of other plans)\n"
    "  --inplace           the target reuses the source's memory (TILE layouts, the whole\n"
    "                      matrix, copy mode, free schedule); the source ends without memory\n"
    "  --budget BYTES      with --inplace: extra bytes allowed per domain (K, M, G suffixes;\n"
    "                      default 0 = no limit); a larger need is refused before any copy\n"
    "  --verify            check every target element against the source (exit 1 if not);\n"
    "                      with an operation, against beta*B + alpha*op(A) per element (B is\n"
    "                      filled first when beta != 0 or with --uplo)\n"
    "  --seed S            seed of the source's fill pattern (default 1)\n"
    "  --mpi               under mpirun: run across the MPI ranks instead (exec numatile-mpi;\n"
    "                      bc2d/bc1d maps, --sub, --elem, --threads, --schedule, --seed,\n"
    "                      --verify, --json,\n"
    "                      --reps K; each rank holds only its part; see numatile(1));\n"
    "                      there --match none|volume|steps|lex relabels the target's ranks\n"
    "                      and --domains D binds each rank's unpack threads to D domains;\n"
    "                      --transport p2p|alltoallv (default p2p)\n"
    "  --json              the fields of 'plan', and seconds (execution), plan_seconds, order,\n"
    "                      alloc_seconds, fault_seconds (its first-touch page faults),\n"
    "                      bytes_alloc_fresh, bandwidth_gbs, bound_gbs (same-run parallel copy of\n"
    "                      the same bytes by the same threads), ratio, bytes_copied,\n"
    "                      tiles_kept, tiles_migrated, pages_failed, bytes_node_changed,\n"
    "                      tasks, on_domain_fraction, inplace, verify (with --verify); with\n"
    "                      --inplace also budget_bytes, peak_extra_bytes (per domain: memory\n"
    "                      held beyond the source's), peak_lower_bound_bytes (per domain:\n"
    "                      what any order needs), peak_lower_bound_total, bytes_recycled,\n"
    "                      waves\n";

typedef struct args {
    cli_common co; // --json, --domains, --verify (redist only), --help
    bool redist;   // the subcommand is redist: the plan is executed
    int64_t m, n, elem;
    int64_t mb[2], nb[2]; // [0] the source (--from), [1] the target (--to)
    const char *dist[2];
    char tile_txt[2][64]; // TILE@DIST as reported, e.g. "128x128@bc2d:2x2"
    bool given[2];        // --from, --to seen
    nt_layout layout[2];
    const char *synthetic;
    nt_match_objective match;
    bool has_sub, dump, no_keep, inplace;
    int64_t budget; // --budget in bytes (0: no limit), -1 when not given
    nt_sub_t sub;
    nt_exec_mode mode;
    nt_exec_schedule schedule;
    nt_exec_order order;
    int threads;
    int64_t seed;
    cli_op op;        // --op, --alpha, --beta, --uplo, --diag, --type
    bool elem_given;
    int64_t tm, tn;   // the target's size: M x N, or N x M transposed
} args;

// TILE@DIST: TILE is MBxNB or MB.
static bool parse_tile_dist(const char *s, int64_t *mb, int64_t *nb, const char **dist)
{
    const char *at = strchr(s, '@');
    if (!at || at == s || !at[1])
        return false;
    char tile[64];
    size_t len = (size_t)(at - s);
    if (len >= sizeof tile)
        return false;
    memcpy(tile, s, len);
    tile[len] = 0;
    char *x = strchr(tile, 'x');
    if (x) {
        *x = 0;
        if (!cli_parse_i64(tile, 1, INT32_MAX, mb) || !cli_parse_i64(x + 1, 1, INT32_MAX, nb))
            return false;
    } else {
        if (!cli_parse_i64(tile, 1, INT32_MAX, mb))
            return false;
        *nb = *mb;
    }
    *dist = at + 1;
    return true;
}

static bool parse_sub(const char *s, nt_sub_t *sub)
{
    int64_t v[6];
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int k = 0; k < 6; k++) {
        if (!tok || !cli_parse_i64(tok, 0, INT64_MAX / 2, &v[k]))
            return false;
        tok = strtok_r(NULL, ",", &save);
    }
    if (tok)
        return false;
    *sub = (nt_sub_t){v[0], v[1], v[2], v[3], v[4], v[5]};
    return true;
}

static bool parse_layout(const char *s, nt_layout *out)
{
    if (!strcmp(s, "tile"))
        *out = NT_LAYOUT_TILE;
    else if (!strcmp(s, "scalapack"))
        *out = NT_LAYOUT_SCALAPACK;
    else if (!strcmp(s, "lapack"))
        *out = NT_LAYOUT_LAPACK;
    else
        return false;
    return true;
}

// The options of both subcommands; those from O_MODE on, and --verify, belong to redist.
enum { O_M = 1, O_N, O_FROM, O_TO, O_SYN, O_MATCH, O_SUB, O_FL, O_TL, O_ELEM, O_DUMP, O_MODE,
       O_SCHED, O_THREADS, O_NOKEEP, O_SEED, O_INPLACE, O_BUDGET, O_ORDER };

static const struct option plan_options[] = {
    {"m", required_argument, 0, O_M},
    {"n", required_argument, 0, O_N},
    {"from", required_argument, 0, O_FROM},
    {"to", required_argument, 0, O_TO},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"synthetic", required_argument, 0, O_SYN},
    {"match", required_argument, 0, O_MATCH},
    {"sub", required_argument, 0, O_SUB},
    {"from-layout", required_argument, 0, O_FL},
    {"to-layout", required_argument, 0, O_TL},
    {"elem", required_argument, 0, O_ELEM},
    {"dump", no_argument, 0, O_DUMP},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {"mode", required_argument, 0, O_MODE},
    {"schedule", required_argument, 0, O_SCHED},
    {"threads", required_argument, 0, O_THREADS},
    {"no-keep", no_argument, 0, O_NOKEEP},
    {"verify", no_argument, 0, CLI_OPT_VERIFY},
    {"seed", required_argument, 0, O_SEED},
    {"inplace", no_argument, 0, O_INPLACE},
    {"budget", required_argument, 0, O_BUDGET},
    {"order", required_argument, 0, O_ORDER},
    {"op", required_argument, 0, CLI_OP_OP},
    {"alpha", required_argument, 0, CLI_OP_ALPHA},
    {"beta", required_argument, 0, CLI_OP_BETA},
    {"uplo", required_argument, 0, CLI_OP_UPLO},
    {"diag", required_argument, 0, CLI_OP_DIAG},
    {"type", required_argument, 0, CLI_OP_TYPE},
    {0, 0, 0, 0}};

static bool redist_only(int c)
{
    return (c >= O_MODE && c <= O_ORDER) || c == CLI_OPT_VERIFY;
}

// A byte count: digits and an optional K, M or G suffix (powers of 1024), up to 2^62.
static bool parse_bytes(const char *s, int64_t *out)
{
    char num[32];
    size_t len = strlen(s);
    int shift = 0;
    if (len > 1 && strchr("kKmMgG", s[len - 1])) {
        shift = strchr("kK", s[len - 1]) ? 10 : strchr("mM", s[len - 1]) ? 20 : 30;
        len--;
    }
    int64_t v;
    if (len == 0 || len >= sizeof num)
        return false;
    memcpy(num, s, len);
    num[len] = 0;
    if (!cli_parse_i64(num, 0, ((int64_t)1 << 62) >> shift, &v))
        return false;
    *out = v << shift;
    return true;
}

// An option only redist takes; c is its id, its value in optarg.
static int redist_option(args *a, int c, char **argv)
{
    const char *cmd = a->co.cmd;
    switch (c) {
    case O_MODE:
        if (!strcmp(optarg, "copy"))
            a->mode = NT_EXEC_COPY;
        else if (!strcmp(optarg, "move"))
            a->mode = NT_EXEC_MOVE;
        else
            return cli_usage(cmd, "--mode: '%s' is not copy|move", optarg);
        return CLI_OK;
    case O_SCHED:
        if (!strcmp(optarg, "free"))
            a->schedule = NT_SCHED_FREE;
        else if (!strcmp(optarg, "steps"))
            a->schedule = NT_SCHED_STEPS;
        else
            return cli_usage(cmd, "--schedule: '%s' is not free|steps", optarg);
        return CLI_OK;
    case O_THREADS:
        if (!cli_parse_int(optarg, 1, 256, &a->threads))
            return cli_usage(cmd, "--threads: '%s' is not an integer in 1..256", optarg);
        return CLI_OK;
    case O_NOKEEP: a->no_keep = true; return CLI_OK;
    case O_ORDER: {
        static const char *const names[] = {"auto", "target", "source", "global"};
        for (int k = 0; k < 4; k++)
            if (!strcmp(optarg, names[k])) {
                a->order = (nt_exec_order)k;
                return CLI_OK;
            }
        return cli_usage(cmd, "--order: '%s' is not auto|target|source|global", optarg);
    }
    case O_INPLACE: a->inplace = true; return CLI_OK;
    case O_BUDGET:
        if (!parse_bytes(optarg, &a->budget))
            return cli_usage(cmd, "--budget: '%s' is not a byte count (an integer >= 0 with an "
                             "optional K, M or G suffix)", optarg);
        return CLI_OK;
    case O_SEED:
        // Its own --seed rather than the common one: this message says ">= 0".
        if (!cli_parse_i64(optarg, 0, INT64_MAX, &a->seed))
            return cli_usage(cmd, "--seed: '%s' is not an integer in 0..2^63-1", optarg);
        return CLI_OK;
    default: return cli_common_option(&a->co, c, argv);
    }
}

// An option plan and redist both take; c is its id, its value in optarg.
static int plan_option(args *a, int c, char **argv)
{
    const char *cmd = a->co.cmd;
    switch (c) {
    case O_M:
        if (!cli_parse_i64(optarg, 1, INT32_MAX, &a->m))
            return cli_usage(cmd, "--m: '%s' is not a size in 1..2^31-1", optarg);
        return CLI_OK;
    case O_N:
        if (!cli_parse_i64(optarg, 1, INT32_MAX, &a->n))
            return cli_usage(cmd, "--n: '%s' is not a size in 1..2^31-1", optarg);
        return CLI_OK;
    case O_FROM:
    case O_TO: {
        int k = c == O_TO;
        if (!parse_tile_dist(optarg, &a->mb[k], &a->nb[k], &a->dist[k]))
            return cli_usage(cmd, "--%s: '%s' is not TILE@DIST (e.g. 128x128@bc2d:2x2)",
                             k ? "to" : "from", optarg);
        a->given[k] = true;
        return CLI_OK;
    }
    case O_SYN:
        if (a->redist)
            return cli_usage(cmd, "--synthetic: a described machine has no memory to move");
        a->synthetic = optarg;
        return cli_check_synthetic(cmd, optarg);
    case O_MATCH:
        if (nt_match_objective_parse(optarg, &a->match) != NT_OK)
            return cli_usage(cmd, "--match: '%s' is not none|volume|steps|lex|distance", optarg);
        return CLI_OK;
    case O_SUB:
        if (!parse_sub(optarg, &a->sub))
            return cli_usage(cmd, "--sub: '%s' is not ROWS,COLS,SROW,SCOL,TROW,TCOL "
                             "(six integers >= 0)", optarg);
        a->has_sub = true;
        return CLI_OK;
    case O_FL:
    case O_TL:
        if (!parse_layout(optarg, &a->layout[c == O_TL]))
            return cli_usage(cmd, "--%s: '%s' is not tile|scalapack|lapack",
                             c == O_TL ? "to-layout" : "from-layout", optarg);
        return CLI_OK;
    case O_ELEM:
        if (!cli_parse_i64(optarg, 1, 1 << 20, &a->elem))
            return cli_usage(cmd, "--elem: '%s' is not a byte count in 1..1048576", optarg);
        a->elem_given = true;
        return CLI_OK;
    case O_DUMP: a->dump = true; return CLI_OK;
    default:
        if (c >= CLI_OP_OP && c <= CLI_OP_TYPE)
            return cli_op_option(&a->op, cmd, c, optarg);
        return cli_common_option(&a->co, c, argv);
    }
}

// What an operation cannot combine with; the target's size.
static int check_op_args(args *a)
{
    const char *cmd = a->co.cmd;
    int rc = cli_op_resolve(&a->op, cmd, &a->elem, a->elem_given);
    if (rc != CLI_OK)
        return rc;
    bool tr = a->op.op.op != NT_OP_N;
    a->tm = tr ? a->n : a->m;
    a->tn = tr ? a->m : a->n;
    if (!cli_op_active(&a->op))
        return CLI_OK;
    if (a->inplace || a->mode == NT_EXEC_MOVE)
        return cli_usage(cmd, "--%s cannot apply an operation (--op, --alpha, --beta, --uplo)",
                         a->inplace ? "inplace" : "mode move");
    if (a->redist && cli_op_placed(&a->op) && a->match != NT_MATCH_CANONICAL)
        return cli_usage(cmd, "--beta and --uplo write into a placed target: --match must be "
                         "none");
    return CLI_OK;
}

// What --inplace cannot combine with, said before anything is built.
static int check_inplace_args(const args *a)
{
    const char *cmd = a->co.cmd;
    if (!a->inplace)
        return a->budget >= 0 ? cli_usage(cmd, "--budget: only with --inplace") : CLI_OK;
    if (a->mode == NT_EXEC_MOVE)
        return cli_usage(cmd, "--inplace: copies; --mode move is not available with it");
    if (a->schedule == NT_SCHED_STEPS)
        return cli_usage(cmd, "--inplace: runs its own order; --schedule steps is not "
                         "available with it");
    if (a->layout[0] != NT_LAYOUT_TILE || a->layout[1] != NT_LAYOUT_TILE)
        return cli_usage(cmd, "--inplace: needs the tile layout on both sides (--%s %s)",
                         a->layout[0] != NT_LAYOUT_TILE ? "from-layout" : "to-layout",
                         a->layout[a->layout[0] == NT_LAYOUT_TILE] == NT_LAYOUT_LAPACK
                             ? "lapack" : "scalapack");
    if (a->has_sub)
        return cli_usage(cmd, "--inplace: moves the whole matrix; --sub is not available "
                         "with it");
    return CLI_OK;
}

static int parse_args(int argc, char **argv, bool redist, args *a)
{
    const char *cmd = redist ? "redist" : "plan";
    *a = (args){.co = {.cmd = cmd, .help = redist ? help_redist : help_plan}, .redist = redist,
                .elem = 8, .match = NT_MATCH_CANONICAL, .seed = 1, .budget = -1};
    cli_op_init(&a->op);
    int c, rc;
    while ((c = cli_getopt(argc, argv, plan_options)) != -1) {
        if (!redist && redist_only(c)) {
            const char *name = "?";
            for (const struct option *q = plan_options; q->name; q++)
                if (q->val == c)
                    name = q->name;
            return cli_usage(cmd, "--%s belongs to 'numatile redist'", name);
        }
        rc = redist_only(c) ? redist_option(a, c, argv) : plan_option(a, c, argv);
        if (rc != CLI_OK)
            return rc;
    }
    if ((rc = cli_no_operands(cmd, argc, argv)) != CLI_OK)
        return rc;
    if (!a->m || !a->n)
        return cli_usage(cmd, "--m and --n are required");
    if (!a->given[0] || !a->given[1])
        return cli_usage(cmd, "--from and --to are required");
    if ((rc = check_inplace_args(a)) != CLI_OK || (rc = check_op_args(a)) != CLI_OK)
        return rc;
    for (int k = 0; k < 2; k++)
        snprintf(a->tile_txt[k], sizeof a->tile_txt[k], "%lldx%lld@%.40s", (long long)a->mb[k],
                 (long long)a->nb[k], a->dist[k]);
    return CLI_OK;
}

static int64_t ceil_div(int64_t x, int64_t y)
{
    return x / y + (x % y != 0);
}

// A library error about one of the matrices: exit 2 for bad input, 3 otherwise.
static int matrix_error(const char *cmd, const char *opt, const char *txt, nt_status st)
{
    cli_eprintf("numatile %s: %s '%s': %s: %s\n", cmd, opt, txt, nt_strerror(st),
                nt_last_error());
    return bench_status_exit(st);
}

static json_t *map_json(const int *owner, int64_t mt, int64_t nt)
{
    json_t *rows = json_array();
    for (int64_t i = 0; i < mt; i++) {
        json_t *r = json_array();
        for (int64_t j = 0; j < nt; j++)
            json_array_append_new(r, json_integer(owner[i * nt + j]));
        json_array_append_new(rows, r);
    }
    return rows;
}

static void map_print(const char *name, const int *owner, int64_t mt, int64_t nt)
{
    printf("%s (%lld x %lld tiles):\n", name, (long long)mt, (long long)nt);
    cli_print_tilemap(stdout, owner, mt, nt, false);
}

static json_t *plan_json(const args *a, const nt_topo_t *t, const nt_plan_t *p)
{
    nt_plan_info_t info;
    nt_plan_info(p, &info);
    int nsig, D = info.ndomains;
    const int *sig = nt_plan_sigma(p, &nsig);
    json_t *sigma = json_array(), *cats = json_array(), *pairs = json_array();
    for (int j = 0; j < nsig; j++)
        json_array_append_new(sigma, json_integer(sig[j]));
    for (int c = 0; c < 9; c++)
        json_array_append_new(cats, json_integer(info.category_tiles[c]));
    const int64_t *pb = nt_plan_pair_bytes(p);
    for (int i = 0; i < D; i++) {
        json_t *r = json_array();
        for (int j = 0; j < D; j++)
            json_array_append_new(r, json_integer(pb[i * D + j]));
        json_array_append_new(pairs, r);
    }
    json_t *j = json_pack("{s:I, s:I, s:I, s:s, s:s, s:i, s:s, s:s}", "m", (json_int_t)a->m,
                          "n", (json_int_t)a->n, "elem_size", (json_int_t)a->elem, "from",
                          a->tile_txt[0], "to", a->tile_txt[1], "domains", D, "topology",
                          nt_topo_kind_name(nt_topo_get_kind(t)), "match",
                          nt_match_objective_name(a->match));
    json_object_set_new(j, "tiles", json_integer(info.tiles));
    json_object_set_new(j, "segments", json_integer(info.segments));
    json_object_set_new(j, "bytes", json_integer(info.bytes));
    json_object_set_new(j, "bytes_moved", json_integer(info.bytes_moved));
    json_object_set_new(j, "bytes_local", json_integer(info.bytes_local));
    json_object_set_new(j, "volume_tiles", json_integer(info.volume_tiles));
    json_object_set_new(j, "steps", json_integer(info.steps));
    json_object_set_new(j, "steps_bytes", json_integer(info.steps_bytes));
    json_object_set_new(j, "dist_volume", json_integer(info.dist_volume));
    json_object_set_new(j, "sigma", sigma);
    json_object_set_new(j, "categories", cats);
    json_object_set_new(j, "pair_bytes", pairs);
    json_object_set_new(j, "fast_path", json_boolean(info.fast_path));
    json_object_set_new(j, "closed_form", json_boolean(info.closed_form));
    json_object_set_new(j, "periodic", json_boolean(info.periodic));
    json_object_set_new(j, "plan_memory_bytes", json_integer(info.memory_bytes));
    json_object_set_new(j, "seconds", json_real(info.seconds));
    return j;
}

static void plan_print(const nt_topo_t *t, const nt_plan_t *p)
{
    nt_plan_info_t info;
    nt_plan_info(p, &info);
    int nsig;
    const int *sig = nt_plan_sigma(p, &nsig);
    printf("plan on %d %s domain%s: %lld target tiles, %lld segments%s%s%s\n", info.ndomains,
           nt_topo_kind_name(nt_topo_get_kind(t)), info.ndomains == 1 ? "" : "s",
           (long long)info.tiles, (long long)info.segments,
           info.fast_path ? " (fast path: whole tiles)" : "",
           info.closed_form ? " (closed-form communication sets)" : "",
           info.periodic ? " (periodic: no segment stored)" : "");
    printf("  bytes %lld: moved %lld, local %lld; tiles receiving remote data %lld\n",
           (long long)info.bytes, (long long)info.bytes_moved, (long long)info.bytes_local,
           (long long)info.volume_tiles);
    printf("  steps %lld segments, %lld bytes; distance-weighted volume %lld\n",
           (long long)info.steps, (long long)info.steps_bytes, (long long)info.dist_volume);
    printf("  sigma:");
    for (int j = 0; j < nsig; j++)
        printf(" %d", sig[j]);
    printf("\n  Cao categories (tiles):");
    for (int c = 0; c < 9; c++)
        printf(" %d:%lld", c, (long long)info.category_tiles[c]);
    printf("\n  planned in %.6f s\n", info.seconds);
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Per tile of the finer grid, what redist keeps beside the matrices (the target owners, the
// segments, the executor's tables): the peak of redist with 1x1 tiles, 1M of them on each
// side, is 240 MB without the elements. plan alone keeps the segments.
enum { REDIST_TILE_BYTES = 240 };

// The whole request, refused before any tile map is built: both matrices' tables, the source's
// elements and, unless the target reuses them (--inplace), the target's, and the plan's and the
// executor's per-tile tables, at least one per tile of the finer grid in each dimension. The
// library checks again, exactly and per node, as it allocates. A plan from grids has none of
// these: its pieces, a few words per tile row and column, are counted.
static int check_room(const args *a, bool grids)
{
    uint64_t rows = 0, cols = 0, need = 0;
    for (int k = 0; k < 2 && grids; k++)
        need = sat_add(need, 64 * (uint64_t)(ceil_div(a->m, a->mb[k]) + ceil_div(a->n, a->nb[k])));
    for (int k = 0; k < 2 && !grids; k++) {
        int64_t m = k ? a->tm : a->m, n = k ? a->tn : a->n;
        nt_matrix_shape_t sh = {m, n, a->mb[k], a->nb[k], (size_t)a->elem};
        bool data = a->redist && (k == 0 || !a->inplace);
        need = sat_add(need, nt_matrix_bytes(&sh, data));
        uint64_t r = (uint64_t)ceil_div(m, a->mb[k]), c = (uint64_t)ceil_div(n, a->nb[k]);
        rows = r > rows ? r : rows;
        cols = c > cols ? c : cols;
    }
    uint64_t per_tile = grids ? 0 : a->redist ? REDIST_TILE_BYTES
                                   : a->has_sub ? 0 : sizeof(nt_segment_t);
    need = sat_add(need, sat_mul(sat_mul(rows, cols), per_tile));
    char who[160];
    snprintf(who, sizeof who, "%s of %lldx%lld from %s to %s", a->co.cmd, (long long)a->m,
             (long long)a->n, a->tile_txt[0], a->tile_txt[1]);
    nt_status st = nt_mem_room(NULL, NULL, need, who);
    return st == NT_OK ? CLI_OK : cli_lib_error(a->co.cmd, st);
}

// --synthetic as given; else --domains, or as many domains as the DISTs announce (at least
// the machine's nodes), as gemm, qr and advise choose.
static int load_topology(const args *a, nt_topo_t **t)
{
    if (!a->synthetic) {
        const char *specs[] = {a->dist[0], a->dist[1]};
        int64_t mt[] = {ceil_div(a->m, a->mb[0]), ceil_div(a->tm, a->mb[1])};
        int64_t nt[] = {ceil_div(a->n, a->nb[0]), ceil_div(a->tn, a->nb[1])};
        return cli_topo_for_dists(a->co.cmd, a->co.domains, specs, 2, mt, nt, t);
    }
    nt_topo_opts_t to = {.domains = a->co.domains, .synthetic = a->synthetic};
    nt_status st = nt_topo_load(&to, t);
    if (st != NT_OK)
        return cli_lib_error(a->co.cmd, st);
    cli_json_topology(*t);
    return CLI_OK;
}

// The source (with memory only for redist) and the target (its memory comes with the
// execution). On failure the caller destroys what was made.
static int create_matrices(const args *a, const nt_topo_t *t, nt_matrix_t **S, nt_matrix_t **T)
{
    nt_matrix_shape_t ss = {a->m, a->n, a->mb[0], a->nb[0], (size_t)a->elem};
    nt_matrix_shape_t ts = {a->tm, a->tn, a->mb[1], a->nb[1], (size_t)a->elem};
    nt_status st = nt_matrix_create_spec(t, &ss, a->dist[0], 0, a->layout[0],
                                         a->redist ? 0 : NT_MATRIX_NOALLOC, S);
    if (st != NT_OK)
        return matrix_error(a->co.cmd, "--from", a->tile_txt[0], st);
    // An operation that reads the target or leaves part of it gets a filled, placed one.
    bool placed = a->redist && cli_op_active(&a->op) && cli_op_placed(&a->op);
    st = nt_matrix_create_spec(t, &ts, a->dist[1], 0, a->layout[1],
                               placed ? 0 : NT_MATRIX_NOALLOC, T);
    if (st != NT_OK)
        return matrix_error(a->co.cmd, "--to", a->tile_txt[1], st);
    if (a->op.type != NT_DTYPE_NONE && ((st = nt_matrix_set_dtype(*S, a->op.type)) != NT_OK ||
                                        (st = nt_matrix_set_dtype(*T, a->op.type)) != NT_OK))
        return cli_lib_error(a->co.cmd, st);
    return CLI_OK;
}

// `plan` of two block-cyclic DISTs without --dump: the matrices by their grids alone
// (nt_plan_create_grids(), no tile table, no segment list), into g[2]. False for anything else:
// a malformed DIST, or a grid of more domains than the machine's, which the matrices' creation
// then reports as before.
static bool grid_plan(const args *a, const nt_topo_t *t, nt_grid_matrix_t g[2])
{
    if (a->redist || a->dump || cli_op_active(&a->op))
        return false;
    for (int k = 0; k < 2; k++) {
        g[k] = (nt_grid_matrix_t){a->m, a->n, a->mb[k], a->nb[k], (size_t)a->elem, {0}};
        if (nt_tilemap_spec_grid(a->dist[k], &g[k].grid) != NT_OK || g[k].grid.p == 0 ||
            (int64_t)g[k].grid.p * g[k].grid.q > nt_topo_ndomains(t))
            return false;
    }
    return true;
}

// The plan, from the grids g (when not NULL) or from the matrices (made into *S and *T, freed
// by the caller).
static int make_plan(const args *a, const nt_topo_t *t, const nt_grid_matrix_t *g,
                     nt_matrix_t **S, nt_matrix_t **T, nt_plan_t **p)
{
    nt_plan_opts_t po = {.relabel = a->match};
    const nt_sub_t *sub = a->has_sub ? &a->sub : NULL;
    nt_status st;
    if (g) {
        st = nt_plan_create_grids(t, &g[0], &g[1], sub, &po, p);
    } else {
        int rc = create_matrices(a, t, S, T);
        if (rc != CLI_OK)
            return rc;
        st = nt_plan_create_op(*S, *T, sub, &po, cli_op_active(&a->op) ? &a->op.op : NULL, p);
    }
    return st == NT_OK ? CLI_OK : cli_lib_error(a->co.cmd, st);
}

// The plan's report: under --json its object (returned, to be completed and printed), else the
// text on stdout (NULL returned); --dump adds both tile maps.
static json_t *show_plan(const args *a, const nt_topo_t *t, const nt_plan_t *p,
                         const nt_matrix_t *S, const nt_matrix_t *T)
{
    json_t *out = NULL;
    if (a->co.json)
        out = plan_json(a, t, p);
    else
        plan_print(t, p);
    if (out && cli_op_active(&a->op))
        cli_op_json(out, &a->op);
    else if (cli_op_active(&a->op))
        cli_op_print(&a->op);
    if (a->dump && out) {
        json_object_set_new(out, "src_map", map_json(S->owner, S->mt, S->nt));
        json_object_set_new(out, "dst_map", map_json(nt_plan_dst_owner(p), T->mt, T->nt));
    } else if (a->dump) {
        map_print("source map", S->owner, S->mt, S->nt);
        map_print("target map (after relabelling)", nt_plan_dst_owner(p), T->mt, T->nt);
    }
    return out;
}

// Fill the source, execute the plan into T and, under --verify, count the target elements
// that differ from the source (*bad).
static nt_status execute(const args *a, nt_plan_t *p, nt_matrix_t *S, nt_matrix_t *T,
                         nt_exec_stats_t *es, int64_t *bad)
{
    bool op = cli_op_active(&a->op), placed = op && cli_op_placed(&a->op);
    cli_op_fill(&a->op, S, (uint64_t)a->seed);
    if (placed)
        cli_op_fill(&a->op, T, (uint64_t)a->seed + 1);
    nt_exec_opts_t eo = {.mode = a->mode, .schedule = a->schedule,
                         .threads_per_domain = a->threads, .no_keep = a->no_keep,
                         .measure_bound = true, .inplace = a->inplace,
                         .budget_bytes = a->budget > 0 ? a->budget : 0, .order = a->order};
    nt_status st = nt_plan_execute(p, S, T, &eo, es);
    *bad = 0;
    if (st != NT_OK || !a->co.verify)
        return st;
    // In place the source has no memory left: the target is checked against the pattern.
    if (a->inplace)
        return nt_matrix_check_pattern(T, (uint64_t)a->seed, 0, 0, a->m, a->n, 0, 0, bad);
    nt_sub_t whole = {a->tm, a->tn, 0, 0, 0, 0};
    if (op)
        return cli_op_verify(&a->op, S, T, a->has_sub ? &a->sub : &whole, (uint64_t)a->seed,
                             placed, bad);
    return nt_matrix_compare(T, S, a->has_sub ? &a->sub : &whole, bad);
}

static double on_domain_fraction(const nt_exec_stats_t *es)
{
    return es->tasks ? (double)es->tasks_on_domain / (double)es->tasks : 1.0;
}

static double bound_ratio(const nt_exec_stats_t *es)
{
    return es->bound_gbs > 0 ? es->bandwidth_gbs / es->bound_gbs : 0;
}

static json_t *per_domain_json(const int64_t *v, int D)
{
    json_t *arr = json_array();
    for (int d = 0; d < D; d++)
        json_array_append_new(arr, json_integer(v ? v[d] : 0));
    return arr;
}

// --inplace: the budget, the peak of extra memory per domain and its lower bounds.
static void inplace_json(json_t *out, const args *a, const nt_exec_stats_t *es)
{
    json_object_set_new(out, "budget_bytes", json_integer(a->budget > 0 ? a->budget : 0));
    json_object_set_new(out, "peak_extra_bytes",
                        per_domain_json(es->peak_extra_bytes, es->ndomains));
    json_object_set_new(out, "peak_lower_bound_bytes",
                        per_domain_json(es->peak_lower_bound_bytes, es->ndomains));
    json_object_set_new(out, "peak_lower_bound_total", json_integer(es->peak_lower_bound_total));
    json_object_set_new(out, "bytes_recycled", json_integer(es->bytes_recycled));
    json_object_set_new(out, "waves", json_integer(es->waves));
}

static void inplace_print(const args *a, const nt_exec_stats_t *es)
{
    printf("  in place: peak extra bytes per domain");
    for (int d = 0; d < es->ndomains; d++)
        printf(" %lld", (long long)(es->peak_extra_bytes ? es->peak_extra_bytes[d] : 0));
    printf(" (lower bound");
    for (int d = 0; d < es->ndomains; d++)
        printf(" %lld", (long long)(es->peak_lower_bound_bytes ? es->peak_lower_bound_bytes[d]
                                                               : 0));
    printf(", total %lld); budget %lld%s\n", (long long)es->peak_lower_bound_total,
           (long long)(a->budget > 0 ? a->budget : 0), a->budget > 0 ? "" : " (no limit)");
    printf("  recycled %lld bytes of the source in %lld waves\n",
           (long long)es->bytes_recycled, (long long)es->waves);
}

// The execution's fields, added to the plan's object (whose "seconds" become plan_seconds).
static void exec_json(json_t *out, const args *a, const nt_exec_stats_t *es, int64_t bad)
{
    json_object_set(out, "plan_seconds", json_object_get(out, "seconds"));
    json_object_set_new(out, "mode", json_string(a->mode ? "move" : "copy"));
    json_object_set_new(out, "schedule", json_string(a->schedule ? "steps" : "free"));
    static const char *const orders[] = {"auto", "target", "source", "global"};
    json_object_set_new(out, "order", json_string(orders[a->order]));
    json_object_set_new(out, "seconds", json_real(es->seconds));
    json_object_set_new(out, "alloc_seconds", json_real(es->alloc_seconds));
    json_object_set_new(out, "fault_seconds", json_real(es->fault_seconds));
    json_object_set_new(out, "bytes_alloc_fresh", json_integer(es->bytes_alloc_fresh));
    json_object_set_new(out, "bandwidth_gbs", json_real(es->bandwidth_gbs));
    json_object_set_new(out, "bound_gbs", json_real(es->bound_gbs));
    json_object_set_new(out, "ratio", json_real(bound_ratio(es)));
    json_object_set_new(out, "bytes_copied", json_integer(es->bytes_copied));
    json_object_set_new(out, "tiles_kept", json_integer(es->tiles_kept));
    json_object_set_new(out, "tiles_migrated", json_integer(es->tiles_migrated));
    json_object_set_new(out, "pages_migrated", json_integer(es->pages_migrated));
    json_object_set_new(out, "pages_failed", json_integer(es->pages_failed));
    json_object_set_new(out, "bytes_node_changed", json_integer(es->bytes_node_changed));
    json_object_set_new(out, "tasks", json_integer(es->tasks));
    json_object_set_new(out, "on_domain_fraction", json_real(on_domain_fraction(es)));
    json_object_set_new(out, "inplace", json_boolean(a->inplace));
    if (a->inplace)
        inplace_json(out, a, es);
    if (a->co.verify) {
        json_object_set_new(out, "verify", json_boolean(bad == 0));
        json_object_set_new(out, "mismatches", json_integer(bad));
    }
}

static void exec_print(const args *a, const nt_exec_stats_t *es, int64_t bad)
{
    printf("executed (%s, %s): %.6f s, %.3f GB/s; same-run copy bound %.3f GB/s "
           "(ratio %.2f); allocation %.6f s\n", a->mode ? "move" : "copy",
           a->schedule ? "steps" : "free", es->seconds, es->bandwidth_gbs, es->bound_gbs,
           bound_ratio(es), es->alloc_seconds);
    printf("  copied %lld bytes in %lld tasks (%.1f%% on their domain); kept %lld tiles, "
           "migrated %lld (%lld pages failed); %lld bytes changed node\n",
           (long long)es->bytes_copied, (long long)es->tasks, 100 * on_domain_fraction(es),
           (long long)es->tiles_kept, (long long)es->tiles_migrated,
           (long long)es->pages_failed, (long long)es->bytes_node_changed);
    if (a->inplace)
        inplace_print(a, es);
    if (a->co.verify)
        printf("verify: %s (%lld mismatching elements)\n", bad ? "FAILED" : "ok",
               (long long)bad);
}

// redist: execute the plan and report it (into out under --json). Returns CLI_OK,
// CLI_VERIFY_FAILED, or the exit code of a failure it reported.
static int redistribute(const args *a, nt_plan_t *p, nt_matrix_t *S, nt_matrix_t *T,
                        json_t *out)
{
    nt_exec_stats_t es = {0};
    int64_t bad;
    nt_status st = execute(a, p, S, T, &es, &bad);
    if (st == NT_OK && out)
        exec_json(out, a, &es, bad);
    else if (st == NT_OK)
        exec_print(a, &es, bad);
    nt_exec_stats_free(&es);
    if (st != NT_OK)
        return cli_lib_error(a->co.cmd, st);
    return bad ? CLI_VERIFY_FAILED : CLI_OK;
}

static int run(int argc, char **argv, bool redist)
{
    args a;
    int rc = parse_args(argc, argv, redist, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    nt_topo_t *t;
    if ((rc = load_topology(&a, &t)) != CLI_OK)
        return rc;
    nt_grid_matrix_t g[2];
    bool grids = grid_plan(&a, t, g);
    nt_matrix_t *S = NULL, *T = NULL;
    nt_plan_t *p = NULL;
    json_t *out = NULL;
    if ((rc = check_room(&a, grids)) != CLI_OK || (rc = make_plan(&a, t, grids ? g : NULL, &S, &T, &p)) != CLI_OK)
        goto done;
    out = show_plan(&a, t, p, S, T);
    if (redist)
        rc = redistribute(&a, p, S, T, out);
    // A failed check is still reported; a failed execution is not.
    if (out && (rc == CLI_OK || rc == CLI_VERIFY_FAILED)) {
        int wrc = cli_print_json(out);
        out = NULL;
        if (rc == CLI_OK)
            rc = wrc;
    }
done:
    json_decref(out);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_topo_destroy(t);
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    return run(argc, argv, false);
}

// redist --mpi: this program never links MPI, so it hands the whole command line (without
// --mpi) to its sibling numatile-mpi, which is an MPI program; exec keeps the process that
// mpirun started, so the sibling joins the job as this rank.
static int exec_mpi(int argc, char **argv)
{
    char path[PATH_MAX + 32];
    if (!bench_sibling("numatile-mpi", path, sizeof path))
        return cli_usage("redist", "--mpi: no MPI program at %s (built by make when mpicc and "
                         "libscalapack-openmpi-dev are installed; or set NUMATILE_PEER_DIR)",
                         path);
    char **nargv = calloc((size_t)argc + 2, sizeof *nargv);
    if (!nargv)
        return cli_usage("redist", "--mpi: out of memory");
    int k = 0;
    nargv[k++] = path;
    nargv[k++] = "redist";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--mpi"))
            nargv[k++] = argv[i];
    nargv[k] = NULL;
    fflush(NULL);
    execv(path, nargv);
    cli_eprintf("numatile redist --mpi: cannot run %s\n", path);
    free(nargv);
    return CLI_USAGE;
}

int cmd_redist(int argc, char **argv)
{
    bool mpi = false, help = false;
    for (int i = 1; i < argc; i++) {
        mpi |= !strcmp(argv[i], "--mpi");
        help |= !strcmp(argv[i], "--help");
    }
    if (mpi && !help)
        return exec_mpi(argc, argv);
    return run(argc, argv, true);
}
