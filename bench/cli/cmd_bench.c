// numatile bench --list | NAME|all [--quick] [--full] [--out DIR] [--repeat R] [--seed S] [--domains D] [--json]
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "harness.h"

static const char *help =
    "usage: numatile bench --list\n"
    "       numatile bench NAME|all [--quick] [--full] [--out DIR] [--repeat R] [--seed S] "
    "[--json]\n"
    "  --list      the scenarios, one per line\n"
    "  --quick     small sizes and few repetitions (seconds)\n"
    "  --full      more repetitions or sizes than the default\n"
    "  --out DIR   output directory (created with its parents); default\n"
    "              bench/results/NAME-YYYYmmdd-HHMMSS; with 'all', DIR/NAME per scenario\n"
    "  --repeat R  repetitions per configuration (overrides the scenario's default)\n"
    "  --seed S    seed of every random instance (default 1)\n"
    "  --domains D domains to run on (scenarios that place memory; default: the scenario's,\n"
    "              virtual domains when this machine has fewer NUMA nodes)\n"
    "  --json      the scenario's summary as one JSON object on stdout (tables go to stderr)\n"
    "Every run writes NAME.csv (raw rows), NAME.json (machine, parameters, raw rows,\n"
    "median/min/max), NAME.txt (the table) and, when gnuplot is on PATH, PNG plots.\n";

static int list(bool json)
{
    size_t n;
    const bench_scenario *reg = bench_registry(&n);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        if (json)
            json_array_append_new(a, json_pack("{s:s, s:s}", "name", reg[i].name, "summary",
                                               reg[i].summary));
        else
            printf("%-16s %s\n", reg[i].name, reg[i].summary);
    }
    if (json)
        return cli_print_json(json_pack("{s:o}", "scenarios", a));
    json_decref(a);
    return CLI_OK;
}

// The command line as one string, recorded in the output JSON.
static char *join_args(int argc, char **argv)
{
    size_t len = 16;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    strcpy(s, "numatile");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"list", no_argument, 0, 'l'},        {"quick", no_argument, 0, 'q'},
        {"full", no_argument, 0, 'f'},        {"out", required_argument, 0, 'o'},
        {"repeat", required_argument, 0, 'r'}, {"seed", required_argument, 0, 's'},
        {"json", no_argument, 0, 'j'},        {"help", no_argument, 0, 'h'},
        {"domains", required_argument, 0, 'd'}, {0, 0, 0, 0}};
    bench_opts o = {.seed = 1};
    bool do_list = false;
    int c;
    int64_t seed;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'l': do_list = true; break;
        case 'q': o.quick = true; break;
        case 'f': o.full = true; break;
        case 'o': o.out = optarg; break;
        case 'j': o.json = true; break;
        case 'r':
            if (!cli_parse_int(optarg, 1, 1000000, &o.repeat))
                return cli_usage("bench", "--repeat: '%s' is not an integer in 1..1000000",
                                 optarg);
            break;
        case 's':
            if (!cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                return cli_usage("bench", "--seed: '%s' is not a non-negative integer", optarg);
            o.seed = (uint64_t)seed;
            break;
        case 'd':
            if (!cli_parse_int(optarg, 1, 4096, &o.domains))
                return cli_usage("bench", "--domains: '%s' is not an integer in 1..4096", optarg);
            break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default:
            return cli_usage("bench", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (do_list) {
        if (optind < argc)
            return cli_usage("bench", "--list takes no scenario name ('%s')", argv[optind]);
        return list(o.json);
    }
    if (optind >= argc)
        return cli_usage("bench", "which scenario? ('numatile bench --list' shows them)");
    if (optind + 1 < argc)
        return cli_usage("bench", "one scenario at a time (unexpected '%s')", argv[optind + 1]);
    if (o.quick && o.full)
        return cli_usage("bench", "--quick and --full exclude each other");
    const char *name = argv[optind];
    bool all = !strcmp(name, "all");
    if (!all && !bench_find(name))
        return cli_usage("bench", "unknown scenario '%s' ('numatile bench --list' shows them)",
                         name);

    char *cmdline = join_args(argc, argv);
    o.argv = cmdline;
    size_t n;
    const bench_scenario *reg = bench_registry(&n);
    json_t *summaries = json_object(), *one = NULL;
    int rc = CLI_OK;
    const char *out = o.out;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const bench_scenario *s = &reg[i];
        if (!all && strcmp(s->name, name))
            continue;
        char sub[4096];
        if (all && out) {
            snprintf(sub, sizeof sub, "%s/%s", out, s->name);
            o.out = sub;
        }
        json_t *summary = NULL;
        rc = bench_execute(s, &o, &summary);
        if (all)
            json_object_set_new(summaries, s->name, summary);
        else
            one = summary;
    }
    free(cmdline);
    if (rc == CLI_OK && o.json) {
        json_decref(all ? one : summaries);
        return cli_print_json(all ? summaries : one);
    }
    json_decref(summaries);
    json_decref(one);
    return rc;
}
