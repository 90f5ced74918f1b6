// numatile partition --speeds s1,s2,...|topo|PLATFORM --n N [--algo A] [--round R] [--dump]
//                   [--json]
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "harness.h"
#include "numatile/hetero.h"
#include "cli_speeds.h"

static const char *help =
    "usage: numatile partition --speeds S --n N [--algo A] [--round R] [--dump] [--json]\n"
    "  --speeds S   relative speeds s1,s2,... (positive numbers, normalised to sum 1);\n"
    "               'topo' for the cores of this machine's domains; 'measured:FILE' for\n"
    "               the GEMM speeds of a profile from numatile calibrate, 'measured' to\n"
    "               calibrate this machine now (quick); or a platform of Lambert's thesis:\n"
    "               homo-5, homo-20, hetero-1, hetero-4\n"
    "  --n N        tile grid N x N (1..8192; a power of two for sfcp)\n"
    "  --algo A     column | rrp | snrrp | nrrp | sfcp | exact (m <= 3); default nrrp\n"
    "  --round R    precise (exact tile counts, default) | rounded (tile centres) |\n"
    "               corner (tile corners, Lambert's Rounded) | accurate (Lambert's Accurate:\n"
    "               column and rrp only)\n"
    "  --dump       print the tile map (JSON: \"map\", row by row)\n"
    "  --json       one JSON object: algo, round, n, domains, speeds, zones (rectangles per\n"
    "               domain in the unit square; null for sfcp), continuous_cost, lower_bound,\n"
    "               continuous_ratio, guarantee, tiles_per_domain, cost (tile rows + tile\n"
    "               columns touched, summed), ratio (cost / (N lower_bound)),\n"
    "               makespan_ratio, seconds\n";

static json_t *zones_json(int m, const nt_hetero_zone_t *z)
{
    json_t *a = json_array();
    for (int i = 0; i < m; i++) {
        json_t *rs = json_array();
        for (int k = 0; k < z[i].nrect; k++) {
            const nt_hetero_rect_t *r = &z[i].rect[k];
            json_array_append_new(rs, json_pack("{s:f, s:f, s:f, s:f}", "x0", r->x0, "y0",
                                                r->y0, "x1", r->x1, "y1", r->y1));
        }
        json_array_append_new(a, rs);
    }
    return a;
}

typedef struct opts {
    cli_common co; // --json, --help
    double *s;     // the speeds (SPEEDS_MAX of room), m of them
    int m;
    int64_t n;
    nt_hetero_algo algo;
    nt_hetero_round round;
    bool dump;
} opts;

// The discretisation modes by name (nt_hetero_round), as --round and the JSON spell them.
static const struct {
    const char *name;
    nt_hetero_round mode;
} rounds[] = {{"precise", NT_HETERO_PRECISE},
              {"rounded", NT_HETERO_ROUNDED},
              {"corner", NT_HETERO_ROUNDED_CORNER},
              {"accurate", NT_HETERO_ACCURATE}};

static int round_parse(const char *s, nt_hetero_round *out)
{
    for (size_t k = 0; k < sizeof rounds / sizeof rounds[0]; k++)
        if (!strcmp(s, rounds[k].name)) {
            *out = rounds[k].mode;
            return CLI_OK;
        }
    return CLI_USAGE;
}

static const char *round_name(nt_hetero_round mode)
{
    for (size_t k = 0; k < sizeof rounds / sizeof rounds[0]; k++)
        if (rounds[k].mode == mode)
            return rounds[k].name;
    return "?";
}

static int parse_args(int argc, char **argv, opts *o)
{
    static const struct option lo[] = {
        {"speeds", required_argument, 0, 's'}, {"n", required_argument, 0, 'n'},
        {"algo", required_argument, 0, 'a'},   {"round", required_argument, 0, 'r'},
        {"dump", no_argument, 0, 'd'},         {"json", no_argument, 0, CLI_OPT_JSON},
        {"help", no_argument, 0, CLI_OPT_HELP}, {0, 0, 0, 0}};
    bool have_s = false, have_n = false;
    int c, rc;
    while ((c = cli_getopt(argc, argv, lo)) != -1) {
        switch (c) {
        case 's':
            if ((rc = speeds_parse("partition", optarg, NULL, o->s, &o->m)) != CLI_OK)
                return rc;
            have_s = true;
            break;
        case 'n':
            if (!cli_parse_i64(optarg, 1, 8192, &o->n))
                return cli_usage("partition", "--n: '%s' is not an integer in 1..8192", optarg);
            have_n = true;
            break;
        case 'a':
            if (nt_hetero_algo_parse(optarg, &o->algo) != NT_OK)
                return cli_usage("partition", "--algo: '%s' is not column, rrp, snrrp, nrrp, "
                                 "sfcp or exact", optarg);
            break;
        case 'r':
            if (round_parse(optarg, &o->round) != CLI_OK)
                return cli_usage("partition", "--round: '%s' is not precise, rounded, corner or "
                                 "accurate", optarg);
            break;
        case 'd': o->dump = true; break;
        default:
            if ((rc = cli_common_option(&o->co, c, argv)) != CLI_OK)
                return rc;
        }
    }
    if ((rc = cli_no_operands("partition", argc, argv)) != CLI_OK)
        return rc;
    if (!have_s)
        return cli_usage("partition", "--speeds is required");
    if (!have_n)
        return cli_usage("partition", "--n is required");
    if (o->algo == NT_HETERO_SFCP && (o->n & (o->n - 1)))
        return cli_usage("partition", "--n: sfcp needs a power of two, got %lld",
                         (long long)o->n);
    return CLI_OK;
}

static json_t *result_json(const opts *o, const nt_hetero_zone_t *z, const nt_hetero_eval_t *e,
                           const int *owner, const int64_t *tiles, double secs)
{
    double sum = 0;
    for (int i = 0; i < o->m; i++)
        sum += o->s[i];
    json_t *sp = json_array(), *tl = json_array();
    for (int i = 0; i < o->m; i++) {
        json_array_append_new(sp, json_real(o->s[i] / sum));
        json_array_append_new(tl, json_integer(tiles[i]));
    }
    json_t *j = json_pack(
        "{s:s, s:s, s:I, s:i, s:o, s:o, s:f, s:f, s:f, s:f, s:o, s:I, s:f, s:f, s:f}", "algo",
        nt_hetero_algo_name(o->algo), "round",
        round_name(o->round), "n", (json_int_t)o->n, "domains", o->m,
        "speeds", sp, "zones", z ? zones_json(o->m, z) : json_null(), "continuous_cost",
        e->continuous_cost, "lower_bound", e->lower_bound, "continuous_ratio",
        e->continuous_ratio, "guarantee", nt_hetero_guarantee(o->algo), "tiles_per_domain", tl,
        "cost", (json_int_t)e->cost, "ratio", e->ratio, "makespan_ratio", e->makespan_ratio,
        "seconds", secs);
    if (o->dump) {
        json_t *rows = json_array();
        for (int64_t i = 0; i < o->n; i++) {
            json_t *row = json_array();
            for (int64_t k = 0; k < o->n; k++)
                json_array_append_new(row, json_integer(owner[i * o->n + k]));
            json_array_append_new(rows, row);
        }
        json_object_set_new(j, "map", rows);
    }
    return j;
}

static void result_print(const opts *o, const nt_hetero_eval_t *e, const int *owner,
                         const int64_t *tiles)
{
    printf("%s (%s), %d domains, %lld x %lld tiles\n", nt_hetero_algo_name(o->algo),
           round_name(o->round), o->m, (long long)o->n,
           (long long)o->n);
    printf("continuous: cost %.6f, lower bound %.6f, ratio %.4f (guarantee %.4f)\n",
           e->continuous_cost, e->lower_bound, e->continuous_ratio,
           nt_hetero_guarantee(o->algo));
    printf("discrete: cost %lld tiles, ratio %.4f, makespan ratio %.4f\n", (long long)e->cost,
           e->ratio, e->makespan_ratio);
    printf("tiles per domain:");
    for (int i = 0; i < o->m; i++)
        printf(" %lld", (long long)tiles[i]);
    printf("\n");
    if (o->dump)
        cli_print_tilemap(stdout, owner, o->n, o->n, true);
}

// Partition (zones and tile map, timed), evaluate, report.
static int run(const opts *o)
{
    nt_hetero_zone_t *z = NULL;
    int64_t *tiles = malloc((size_t)o->m * sizeof *tiles);
    nt_tilemap_t *map = NULL;
    nt_hetero_eval_t e;
    double t0 = bench_now();
    nt_status st = tiles ? NT_OK : NT_ENOMEM;
    if (st == NT_OK && o->algo != NT_HETERO_SFCP) {
        z = malloc((size_t)o->m * sizeof *z);
        st = z ? nt_hetero_partition(o->algo, o->m, o->s, z) : NT_ENOMEM;
    }
    if (st == NT_OK)
        st = nt_hetero_tilemap(o->algo, o->round, o->m, o->s, o->n, &map);
    double secs = bench_now() - t0;
    if (st == NT_OK)
        st = nt_hetero_evaluate(o->algo, o->round, o->m, o->s, o->n, &e);
    int64_t cost;
    if (st == NT_OK)
        st = nt_hetero_discrete_cost(o->m, o->n, map->owner, &cost, NULL, tiles);
    int rc = CLI_OK;
    if (st)
        rc = st == NT_ENOTSUP ? cli_usage("partition", "--algo %s: %s",
                                          nt_hetero_algo_name(o->algo), nt_last_error())
                              : cli_lib_error("partition", st);
    else if (o->co.json)
        rc = cli_print_json(result_json(o, z, &e, map->owner, tiles, secs));
    else
        result_print(o, &e, map->owner, tiles);
    nt_tilemap_destroy(map);
    free(z), free(tiles);
    return rc;
}

int cmd_partition(int argc, char **argv)
{
    opts o = {.co = {.cmd = "partition", .help = help}, .algo = NT_HETERO_NRRP,
              .round = NT_HETERO_PRECISE};
    o.s = malloc(SPEEDS_MAX * sizeof *o.s);
    if (!o.s)
        return CLI_RUNTIME;
    int rc = parse_args(argc, argv, &o);
    if (rc == CLI_OK)
        rc = run(&o);
    else if (rc == CLI_HELP_SHOWN)
        rc = CLI_OK;
    free(o.s);
    return rc;
}
