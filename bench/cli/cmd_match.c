// numatile match --instance FILE [--objective volume|steps|lex] [--json]
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "inst_cli.h"

static const char *match_help =
    "usage: numatile match --instance FILE [--objective volume|steps|lex] [--json]\n"
    "  --instance FILE   instance file: '#' comments; first line 'P N'; then N lines 'd p [w]'\n"
    "                    (initial domain, target component, optional positive size)\n"
    "  --objective OBJ   volume (default): least data moved; steps: fewest one-port steps;\n"
    "                    lex: fewest steps, then least volume among those; canonical: identity\n"
    "  --json            one JSON object: objective, domains, items, total, sigma, volume,\n"
    "                    steps, canonical_volume, canonical_steps, seconds\n"
    "sigma[j] is the domain of component j; volume and steps are in units of the sizes.\n"
    "seconds = the matching (count matrix and weights included, file reading excluded).\n";

static double pct(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 100.0;
}

static json_t *match_json(const inst_args *a, const inst_matched *m)
{
    int p = m->inst->p;
    return json_pack("{s:s, s:i, s:I, s:I, s:b, s:o, s:I, s:I, s:I, s:I, s:I, s:f}",
                     "objective", nt_match_objective_name(a->obj), "domains", p, "items",
                     (json_int_t)m->inst->n, "total", (json_int_t)m->inst->total, "weighted",
                     m->inst->weighted, "sigma", inst_sigma_json(m->sigma, p), "volume",
                     (json_int_t)m->cost.volume, "steps", (json_int_t)m->cost.steps, "local",
                     (json_int_t)m->cost.local, "canonical_volume",
                     (json_int_t)m->canonical.volume, "canonical_steps",
                     (json_int_t)m->canonical.steps, "seconds", m->seconds);
}

static void match_print(const inst_args *a, const inst_matched *m)
{
    const char *name = nt_match_objective_name(a->obj);
    int p = m->inst->p;
    printf("instance %s: P = %d, N = %lld items, total size %lld%s\n", a->instance, p,
           (long long)m->inst->n, (long long)m->inst->total,
           m->inst->weighted ? " (weighted)" : "");
    printf("objective: %s\n", name);
    inst_sigma_print(m->sigma, p);
    printf("%-10s %14s %14s\n", "labelling", "volume", "steps");
    printf("%-10s %14lld %14lld\n", name, (long long)m->cost.volume, (long long)m->cost.steps);
    printf("%-10s %14lld %14lld\n", "canonical", (long long)m->canonical.volume,
           (long long)m->canonical.steps);
    printf("ratio      %13.1f%% %13.1f%%   (%s / canonical)\n",
           pct(m->cost.volume, m->canonical.volume), pct(m->cost.steps, m->canonical.steps),
           name);
    printf("matching time: %.3f ms (count matrix and weights included, file reading "
           "excluded)\n", 1e3 * m->seconds);
}

int cmd_match(int argc, char **argv)
{
    inst_args a;
    int rc = inst_parse("match", match_help, false, argc, argv, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    inst_matched m;
    if ((rc = inst_match("match", &a, &m)) != CLI_OK)
        return rc;
    if (a.co.json)
        rc = cli_print_json(match_json(&a, &m));
    else
        match_print(&a, &m);
    inst_matched_free(&m);
    return rc;
}
