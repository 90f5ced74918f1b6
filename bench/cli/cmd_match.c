// numatile match    --instance FILE [--objective volume|steps|lex] [--json]
// numatile schedule --instance FILE [--objective volume|steps|lex] [--verify] [--json]
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "numatile/dist.h"
#include "numatile/instance.h"
#include "numatile/match.h"
#include "numatile/sched.h"

static const char *match_help =
    "usage: numatile match --instance FILE [--objective volume|steps|lex] [--json]\n"
    "  --instance FILE   instance file: '#' comments; first line 'P N'; then N lines 'd p [w]'\n"
    "                    (initial domain, target component, optional positive size)\n"
    "  --objective OBJ   volume (default): least data moved; steps: fewest one-port steps;\n"
    "                    lex: fewest steps, then least volume among those; canonical: identity\n"
    "  --json            one JSON object: objective, P, N, total, sigma, volume, steps,\n"
    "                    canonical_volume, canonical_steps, seconds\n"
    "sigma[j] is the domain of component j; volume and steps are in units of the sizes.\n"
    "seconds = the matching (count matrix and weights included, file reading excluded).\n";

static const char *schedule_help =
    "usage: numatile schedule --instance FILE [--objective volume|steps|lex] [--verify] "
    "[--json]\n"
    "  --instance FILE   instance file, as for 'numatile match'\n"
    "  --objective OBJ   labelling to schedule (default volume; see 'numatile match --help')\n"
    "  --verify          check the schedule against the transfers (exit 1 if it is wrong)\n"
    "  --json            one JSON object: objective, P, sigma, volume, steps, phases\n"
    "                    [{\"count\": c, \"pairs\": [[src, dst], ...]}, ...], seconds\n"
    "Within a phase every domain sends to at most one domain and receives from at most one;\n"
    "each pair moves c units; the counts add up to steps = max over domains of\n"
    "max(sent, received).\n";

// Largest P accepted: a few P x P int64 matrices (2 GiB each at this size) and O(P^3) time.
enum { MAX_P = 16384 };

typedef struct matched {
    nt_instance_t *inst;
    int64_t *counts; // P x P weighted count matrix
    int *sigma;
    nt_cost_t cost, canonical;
    double seconds;
} matched;

static void matched_free(matched *m)
{
    nt_instance_destroy(m->inst);
    free(m->counts);
    free(m->sigma);
}

typedef struct args {
    const char *instance;
    nt_match_objective obj;
    bool json, verify;
} args;

// Shared option parsing; with_verify accepts --verify (schedule only).
static int parse_args(const char *cmd, const char *help, bool with_verify, int argc, char **argv,
                      args *a)
{
    static const struct option opts[] = {
        {"instance", required_argument, 0, 'i'}, {"objective", required_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},           {"verify", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    *a = (args){.obj = NT_MATCH_VOLUME};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'i': a->instance = optarg; break;
        case 'o':
            if (nt_match_objective_parse(optarg, &a->obj) != NT_OK ||
                a->obj == NT_MATCH_DISTANCE)
                return cli_usage(cmd, "--objective: '%s' is not one of volume, steps, lex, "
                                 "canonical", optarg);
            break;
        case 'j': a->json = true; break;
        case 'v':
            if (!with_verify)
                return cli_usage(cmd, "unknown option '--verify'");
            a->verify = true;
            break;
        case 'h': fputs(help, stdout); return -1;
        default: return cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (!a->instance)
        return cli_usage(cmd, "--instance FILE is required");
    return CLI_OK;
}

// Read the instance, then time the matching: count matrix, weights and solve.
static int load_and_match(const char *cmd, const args *a, matched *m)
{
    *m = (matched){0};
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
        matched_free(m);
        fprintf(stderr, "numatile %s: out of memory for P = %d\n", cmd, p);
        return CLI_RUNTIME;
    }
    nt_match_problem_t prob = {.p_ini = p, .p_tar = p, .p_dom = p, .counts = m->counts};
    double t0 = cli_now();
    st = nt_instance_counts(m->inst, NULL, m->counts);
    if (st == NT_OK)
        st = nt_match_solve(&prob, a->obj, m->sigma, &m->cost);
    m->seconds = cli_now() - t0;
    int *identity = st == NT_OK ? malloc((size_t)p * sizeof *identity) : NULL;
    if (st == NT_OK && !identity)
        st = NT_ENOMEM;
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_CANONICAL, identity, &m->canonical);
    free(identity);
    if (st) {
        int rc = cli_lib_error(cmd, st);
        matched_free(m);
        return rc;
    }
    return CLI_OK;
}

static json_t *sigma_json(const int *sigma, int p)
{
    json_t *s = json_array();
    for (int j = 0; j < p; j++)
        json_array_append_new(s, json_integer(sigma[j]));
    return s;
}

static void print_sigma(const int *sigma, int p)
{
    printf("sigma (component -> domain):");
    for (int j = 0; j < p; j++)
        printf("%s%d", j % 16 ? " " : "\n  ", sigma[j]);
    printf("\n");
}

static double pct(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 100.0;
}

int cmd_match(int argc, char **argv)
{
    args a;
    int rc = parse_args("match", match_help, false, argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    matched m;
    if ((rc = load_and_match("match", &a, &m)) != CLI_OK)
        return rc;
    const char *name = nt_match_objective_name(a.obj);
    int p = m.inst->p;
    if (a.json) {
        rc = cli_print_json(json_pack(
            "{s:s, s:i, s:I, s:I, s:b, s:o, s:I, s:I, s:I, s:I, s:I, s:f}", "objective", name,
            "P", p, "N", (json_int_t)m.inst->n, "total", (json_int_t)m.inst->total, "weighted",
            m.inst->weighted, "sigma", sigma_json(m.sigma, p), "volume",
            (json_int_t)m.cost.volume, "steps", (json_int_t)m.cost.steps, "local",
            (json_int_t)m.cost.local, "canonical_volume", (json_int_t)m.canonical.volume,
            "canonical_steps", (json_int_t)m.canonical.steps, "seconds", m.seconds));
    } else {
        printf("instance %s: P = %d, N = %lld items, total size %lld%s\n", a.instance, p,
               (long long)m.inst->n, (long long)m.inst->total,
               m.inst->weighted ? " (weighted)" : "");
        printf("objective: %s\n", name);
        print_sigma(m.sigma, p);
        printf("%-10s %14s %14s\n", "labelling", "volume", "steps");
        printf("%-10s %14lld %14lld\n", name, (long long)m.cost.volume,
               (long long)m.cost.steps);
        printf("%-10s %14lld %14lld\n", "canonical", (long long)m.canonical.volume,
               (long long)m.canonical.steps);
        printf("ratio      %13.1f%% %13.1f%%   (%s / canonical)\n",
               pct(m.cost.volume, m.canonical.volume), pct(m.cost.steps, m.canonical.steps),
               name);
        printf("matching time: %.3f ms (count matrix and weights included, file reading "
               "excluded)\n", 1e3 * m.seconds);
    }
    matched_free(&m);
    return rc;
}

static json_t *phases_json(const nt_schedule_t *s)
{
    json_t *phases = json_array();
    for (int t = 0; t < s->nphases; t++) {
        json_t *pairs = json_array();
        for (int64_t x = s->first[t]; x < s->first[t + 1]; x++)
            json_array_append_new(pairs, json_pack("[i, i]", s->src[x], s->dst[x]));
        json_array_append_new(phases, json_pack("{s:I, s:o}", "count", (json_int_t)s->count[t],
                                                "pairs", pairs));
    }
    return phases;
}

static void print_schedule(const nt_schedule_t *s)
{
    printf("%-6s %10s  %s\n", "phase", "count", "pairs (src->dst)");
    for (int t = 0; t < s->nphases; t++) {
        printf("%-6d %10lld ", t + 1, (long long)s->count[t]);
        for (int64_t x = s->first[t]; x < s->first[t + 1]; x++)
            printf(" %d->%d", s->src[x], s->dst[x]);
        printf("\n");
    }
}

int cmd_schedule(int argc, char **argv)
{
    args a;
    int rc = parse_args("schedule", schedule_help, true, argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    matched m;
    if ((rc = load_and_match("schedule", &a, &m)) != CLI_OK)
        return rc;
    int p = m.inst->p;
    int64_t *q = calloc((size_t)p * (size_t)p, sizeof *q);
    nt_schedule_t *s = NULL;
    nt_status st = q ? NT_OK : NT_ENOMEM;
    double t0 = cli_now();
    if (st == NT_OK)
        st = nt_cost_transfer(m.counts, p, p, p, m.sigma, q);
    if (st == NT_OK)
        st = nt_sched_build(q, p, &s);
    double seconds = cli_now() - t0;
    if (st) {
        rc = cli_lib_error("schedule", st);
        free(q);
        matched_free(&m);
        return rc;
    }
    const char *name = nt_match_objective_name(a.obj);
    bool ok = true;
    if (a.verify && (st = nt_sched_verify(s, q)) != NT_OK) {
        ok = false;
        fprintf(stderr, "numatile schedule: verify failed: %s\n", nt_last_error());
    }
    if (a.json) {
        json_t *j = json_pack("{s:s, s:i, s:o, s:I, s:I, s:i, s:o, s:f}", "objective", name, "P",
                              p, "sigma", sigma_json(m.sigma, p), "volume",
                              (json_int_t)m.cost.volume, "steps", (json_int_t)s->steps,
                              "nphases", s->nphases, "phases", phases_json(s), "seconds",
                              seconds);
        if (a.verify)
            json_object_set_new(j, "verify", json_boolean(ok));
        rc = cli_print_json(j);
    } else {
        printf("instance %s: P = %d, %s labelling, volume %lld\n", a.instance, p, name,
               (long long)m.cost.volume);
        print_sigma(m.sigma, p);
        printf("one-port schedule: %lld steps in %d phases (built in %.3f ms)\n",
               (long long)s->steps, s->nphases, 1e3 * seconds);
        print_schedule(s);
        if (a.verify && ok)
            printf("verify: ok (phases one-port, sum to the transfers, %lld steps = bound)\n",
                   (long long)s->steps);
    }
    nt_sched_destroy(s);
    free(q);
    matched_free(&m);
    return rc == CLI_OK && !ok ? CLI_VERIFY_FAILED : rc;
}
