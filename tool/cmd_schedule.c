// numatile schedule --instance FILE [--objective volume|steps|lex] [--verify] [--json]
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "harness.h"
#include "cli_inst.h"
#include "numatile/dist.h"
#include "numatile/sched.h"

static const char *schedule_help =
    "usage: numatile schedule --instance FILE [--objective volume|steps|lex] [--verify] "
    "[--json]\n"
    "  --instance FILE   instance file, as for 'numatile match'\n"
    "  --objective OBJ   labelling to schedule (default volume; see 'numatile match --help')\n"
    "  --verify          check the schedule against the transfers (exit 1 if it is wrong)\n"
    "  --json            one JSON object: objective, domains, sigma, volume, steps, phases\n"
    "                    [{\"count\": c, \"pairs\": [[src, dst], ...]}, ...], seconds\n"
    "Within a phase every domain sends to at most one domain and receives from at most one;\n"
    "each pair moves c units; the counts add up to steps = max over domains of\n"
    "max(sent, received).\n";

// The one-port schedule of the matched labelling: *q gets the P x P transfer matrix (free it),
// *seconds the time of building both.
static nt_status build_schedule(const inst_matched *m, int64_t **q, nt_schedule_t **s,
                                double *seconds)
{
    int p = m->inst->p;
    *q = calloc((size_t)p * (size_t)p, sizeof **q);
    nt_status st = *q ? NT_OK : NT_ENOMEM;
    double t0 = bench_now();
    if (st == NT_OK)
        st = nt_transfer_matrix(m->counts, p, p, p, m->sigma, *q);
    if (st == NT_OK)
        st = nt_sched_build(*q, p, s);
    *seconds = bench_now() - t0;
    return st;
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

static void print_phases(const nt_schedule_t *s)
{
    printf("%-6s %10s  %s\n", "phase", "count", "pairs (src->dst)");
    for (int t = 0; t < s->nphases; t++) {
        printf("%-6d %10lld ", t + 1, (long long)s->count[t]);
        for (int64_t x = s->first[t]; x < s->first[t + 1]; x++)
            printf(" %d->%d", s->src[x], s->dst[x]);
        printf("\n");
    }
}

// Print the schedule (JSON or text); ok: the --verify check passed. Returns the exit code of
// the output.
static int report(const inst_args *a, const inst_matched *m, const nt_schedule_t *s,
                  double seconds, bool ok)
{
    const char *name = nt_match_objective_name(a->obj);
    int p = m->inst->p;
    if (a->co.json) {
        json_t *j = json_pack("{s:s, s:i, s:o, s:I, s:I, s:i, s:o, s:f}", "objective", name,
                              "domains", p, "sigma", inst_sigma_json(m->sigma, p), "volume",
                              (json_int_t)m->cost.volume, "steps", (json_int_t)s->steps,
                              "nphases", s->nphases, "phases", phases_json(s), "seconds",
                              seconds);
        if (a->co.verify)
            json_object_set_new(j, "verify", json_boolean(ok));
        return cli_print_json(j);
    }
    printf("instance %s: P = %d, %s labelling, volume %lld\n", a->instance, p, name,
           (long long)m->cost.volume);
    inst_sigma_print(m->sigma, p);
    printf("one-port schedule: %lld steps in %d phases (built in %.3f ms)\n",
           (long long)s->steps, s->nphases, 1e3 * seconds);
    print_phases(s);
    if (a->co.verify && ok)
        printf("verify: ok (phases one-port, sum to the transfers, %lld steps = bound)\n",
               (long long)s->steps);
    return CLI_OK;
}

int cmd_schedule(int argc, char **argv)
{
    inst_args a;
    int rc = inst_parse("schedule", schedule_help, true, argc, argv, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    inst_matched m;
    if ((rc = inst_match("schedule", &a, &m)) != CLI_OK)
        return rc;
    int64_t *q = NULL;
    nt_schedule_t *s = NULL;
    double seconds;
    nt_status st = build_schedule(&m, &q, &s, &seconds);
    bool ok = true;
    if (st != NT_OK) {
        rc = cli_lib_error("schedule", st);
    } else {
        if (a.co.verify && nt_sched_verify(s, q) != NT_OK) {
            ok = false;
            fprintf(stderr, "numatile schedule: verify failed: %s\n", nt_last_error());
        }
        rc = report(&a, &m, s, seconds, ok);
    }
    nt_sched_destroy(s);
    free(q);
    inst_matched_free(&m);
    return rc == CLI_OK && !ok ? CLI_VERIFY_FAILED : rc;
}
