// numatile bench --list | NAME|all [--quick] [--full] [--out DIR] [--repeat R] [--seed S]
//                [--domains D] [--json]
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
    "  --json      the scenario's summary as one JSON object on stdout (tables go to stderr;\n"
    "              fields in docs/json.md)\n"
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

typedef struct bench_args {
    cli_common co;    // --json, --domains, --seed (default 1), --help
    bench_opts o;     // the scenario's options (json, seed, domains from co)
    bool list;        // --list
    const char *name; // the scenario, or "all"
    int argc;         // the command line, recorded in the output JSON
    char **argv;
} bench_args;

static const struct option bench_options[] = {
    {"list", no_argument, 0, 'l'},
    {"quick", no_argument, 0, 'q'},
    {"full", no_argument, 0, 'f'},
    {"out", required_argument, 0, 'o'},
    {"repeat", required_argument, 0, 'r'},
    {"seed", required_argument, 0, CLI_OPT_SEED},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {0, 0, 0, 0}};

// One option; c is its id, its value in optarg.
static int bench_option(bench_args *a, int c, char **argv)
{
    switch (c) {
    case 'l': a->list = true; return CLI_OK;
    case 'q': a->o.quick = true; return CLI_OK;
    case 'f': a->o.full = true; return CLI_OK;
    case 'o': a->o.out = optarg; return CLI_OK;
    case 'r':
        if (!cli_parse_int(optarg, 1, 1000000, &a->o.repeat))
            return cli_usage("bench", "--repeat: '%s' is not an integer in 1..1000000", optarg);
        return CLI_OK;
    default: return cli_common_option(&a->co, c, argv);
    }
}

// The options, then the one scenario name (none with --list).
static int parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){.co = {.cmd = "bench", .help = help, .seed = 1}, .argc = argc,
                      .argv = argv};
    int c, rc;
    while ((c = cli_getopt(argc, argv, bench_options)) != -1)
        if ((rc = bench_option(a, c, argv)) != CLI_OK)
            return rc;
    a->o.json = a->co.json;
    a->o.seed = a->co.seed;
    a->o.domains = a->co.domains;
    if (a->list) {
        if (optind < argc)
            return cli_usage("bench", "--list takes no scenario name ('%s')", argv[optind]);
        return CLI_OK;
    }
    if (optind >= argc)
        return cli_usage("bench", "which scenario? ('numatile bench --list' shows them)");
    if (optind + 1 < argc)
        return cli_usage("bench", "one scenario at a time (unexpected '%s')", argv[optind + 1]);
    if (a->o.quick && a->o.full)
        return cli_usage("bench", "--quick and --full exclude each other");
    a->name = argv[optind];
    if (strcmp(a->name, "all") && !bench_find(a->name))
        return cli_usage("bench", "unknown scenario '%s' ('numatile bench --list' shows them)",
                         a->name);
    return CLI_OK;
}

// Run the named scenario, or all of them (each in DIR/NAME under --out DIR); under --json
// print its document (docs/json.md), or for all of them {"summaries": {NAME: document, ...}}
// after the envelope.
static int run_scenarios(const bench_args *a)
{
    bool all = !strcmp(a->name, "all");
    char *cmdline = join_args(a->argc, a->argv);
    bench_opts o = a->o;
    o.argv = cmdline;
    size_t n;
    const bench_scenario *reg = bench_registry(&n);
    json_t *summaries = json_object(), *one = NULL;
    int rc = CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const bench_scenario *s = &reg[i];
        if (!all && strcmp(s->name, a->name))
            continue;
        char sub[4096];
        if (all && a->o.out) {
            snprintf(sub, sizeof sub, "%s/%s", a->o.out, s->name);
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
        return cli_print_json(all ? json_pack("{s:o}", "summaries", summaries) : one);
    }
    json_decref(summaries);
    json_decref(one);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    return a.list ? list(a.co.json) : run_scenarios(&a);
}
