// What the instance-file subcommands match (cmd_match.c) and schedule (cmd_schedule.c) share:
// their options, reading the instance and matching it, printing sigma; and match's grid changes
// (cmd_match_grid.c).
#ifndef NUMATILE_TOOL_CLI_INST_H
#define NUMATILE_TOOL_CLI_INST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "numatile/instance.h"
#include "numatile/match.h"

typedef struct inst_args {
    cli_common co;        // --json, --verify (schedule only), --help
    const char *instance; // --instance FILE
    nt_match_objective obj;
} inst_args;

// An instance and its matching under the chosen objective.
typedef struct inst_matched {
    nt_instance_t *inst;
    int64_t *counts; // P x P weighted count matrix
    int *sigma;
    nt_cost_t cost, canonical;
    double seconds; // the matching: count matrix, weights and solve (file reading excluded)
} inst_matched;

// Parse the arguments of cmd into a; help is what --help prints; with_verify accepts --verify.
// Returns CLI_OK, CLI_HELP_SHOWN, or CLI_USAGE after a message.
int inst_parse(const char *cmd, const char *help, bool with_verify, int argc, char **argv,
               inst_args *a);

// Read a->instance and match it (also the canonical labelling, for comparison). Returns CLI_OK
// with m filled (free it with inst_matched_free), or the exit code of a failure it reported.
int inst_match(const char *cmd, const inst_args *a, inst_matched *m);

void inst_matched_free(inst_matched *m);

// sigma (component -> domain) as a JSON array, and as text lines on stdout.
json_t *inst_sigma_json(const int *sigma, int p);
void inst_sigma_print(const int *sigma, int p);

// `numatile match --m M --n N --from TILE@bc2d:.. --to TILE@bc2d:..`: the grid-change form of
// match (argv as cmd_match got it; help is what --help prints). Returns the exit code.
int match_grid(int argc, char **argv, const char *help);

#endif
