// The parts of `numatile match` and `numatile schedule` that are the same: options, reading
// and matching the instance, sigma.
#include "cli_inst.h"

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

// Largest P accepted: a few P x P int64 matrices (2 GiB each at this size) and O(P^3) time.
enum { MAX_P = NT_MATCH_MAX_P };

static const struct option inst_options[] = {
    {"instance", required_argument, 0, 'i'},
    {"objective", required_argument, 0, 'o'},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"verify", no_argument, 0, CLI_OPT_VERIFY},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {0, 0, 0, 0}};

// One option; c is its id, its value in optarg.
static int inst_option(inst_args *a, bool with_verify, int c, char **argv)
{
    const char *cmd = a->co.cmd;
    switch (c) {
    case 'i': a->instance = optarg; return CLI_OK;
    case 'o':
        if (nt_match_objective_parse(optarg, &a->obj) != NT_OK || a->obj == NT_MATCH_DISTANCE)
            return cli_usage(cmd, "--objective: '%s' is not one of volume, steps, lex, "
                             "canonical", optarg);
        return CLI_OK;
    case CLI_OPT_VERIFY:
        if (!with_verify)
            return cli_usage(cmd, "unknown option '--verify'");
        return cli_common_option(&a->co, c, argv);
    default: return cli_common_option(&a->co, c, argv);
    }
}

int inst_parse(const char *cmd, const char *help, bool with_verify, int argc, char **argv,
               inst_args *a)
{
    *a = (inst_args){.co = {.cmd = cmd, .help = help}, .obj = NT_MATCH_VOLUME};
    int c, rc;
    while ((c = cli_getopt(argc, argv, inst_options)) != -1)
        if ((rc = inst_option(a, with_verify, c, argv)) != CLI_OK)
            return rc;
    if ((rc = cli_no_operands(cmd, argc, argv)) != CLI_OK)
        return rc;
    if (!a->instance)
        return cli_usage(cmd, "--instance FILE is required");
    return CLI_OK;
}

void inst_matched_free(inst_matched *m)
{
    nt_instance_destroy(m->inst);
    free(m->counts);
    free(m->sigma);
}

// The matching itself, timed: count matrix, weights and solve; then the canonical costs.
static nt_status match_counts(const inst_args *a, inst_matched *m)
{
    int p = m->inst->p;
    nt_match_problem_t prob = {.p_ini = p, .p_tar = p, .p_dom = p, .counts = m->counts};
    double t0 = bench_now();
    nt_status st = nt_instance_counts(m->inst, NULL, m->counts);
    if (st == NT_OK)
        st = nt_match_solve(&prob, a->obj, m->sigma, &m->cost);
    m->seconds = bench_now() - t0;
    int *identity = st == NT_OK ? malloc((size_t)p * sizeof *identity) : NULL;
    if (st == NT_OK && !identity)
        st = NT_ENOMEM;
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_CANONICAL, identity, &m->canonical);
    free(identity);
    return st;
}

int inst_match(const char *cmd, const inst_args *a, inst_matched *m)
{
    *m = (inst_matched){0};
    nt_status st = nt_instance_read(a->instance, &m->inst);
    if (st)
        return cli_lib_error(cmd, st);
    int p = m->inst->p;
    if (p > MAX_P) {
        nt_instance_destroy(m->inst);
        m->inst = NULL;
        return cli_usage(cmd, "%s: P = %d domains is more than this tool matches (at most %d: "
                         "the matching needs P^2 memory and P^3 time)", a->instance, p, MAX_P);
    }
    m->counts = calloc((size_t)p * (size_t)p, sizeof *m->counts);
    m->sigma = calloc((size_t)p, sizeof *m->sigma);
    if (!m->counts || !m->sigma) {
        inst_matched_free(m);
        fprintf(stderr, "numatile %s: out of memory for P = %d\n", cmd, p);
        return CLI_RUNTIME;
    }
    if ((st = match_counts(a, m)) != NT_OK) {
        int rc = cli_lib_error(cmd, st);
        inst_matched_free(m);
        return rc;
    }
    return CLI_OK;
}

json_t *inst_sigma_json(const int *sigma, int p)
{
    json_t *s = json_array();
    for (int j = 0; j < p; j++)
        json_array_append_new(s, json_integer(sigma[j]));
    return s;
}

void inst_sigma_print(const int *sigma, int p)
{
    printf("sigma (component -> domain):");
    for (int j = 0; j < p; j++)
        printf("%s%d", j % 16 ? " " : "\n  ", sigma[j]);
    printf("\n");
}
