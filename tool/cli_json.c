// The envelope of every subcommand's --json document (docs/json.md): cli_getopt notes each
// option it returns and the subcommand's name, cli_load_topo (or the subcommand) the topology
// it ran on; cli_print_json puts them before the subcommand's own fields. The state is the
// process's: the tool runs one subcommand, and a new scan (fuzz_cli runs many in one process)
// starts it afresh.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "harness.h"

static char command[64];    // argv[0] of the subcommand (a copy: argv may not outlive the scan)
static json_t *params;      // the options given, by long name
static json_t *machine;     // bench_machine() of the topology the command ran on, or NULL

void cli_json_reset(void)
{
    command[0] = '\0';
    json_decref(params);
    json_decref(machine);
    params = machine = NULL;
}

// An option's value as given, typed when it reads as a number ("64" -> 64, "0.5" -> 0.5).
static json_t *typed(const char *s)
{
    int64_t i;
    double d;
    if (cli_parse_i64(s, INT64_MIN, INT64_MAX, &i))
        return json_integer((json_int_t)i);
    if (cli_parse_double(s, &d))
        return json_real(d);
    return json_string(s);
}

void cli_json_note_option(char **argv, const struct option *opts, int k, const char *value)
{
    if (!command[0])
        snprintf(command, sizeof command, "%s", argv[0]);
    if (k < 0 || !opts[k].name || !strcmp(opts[k].name, "json") || !strcmp(opts[k].name, "help"))
        return;
    if (!params)
        params = json_object();
    json_object_set_new(params, opts[k].name, value ? typed(value) : json_true());
}

void cli_json_topology(const nt_topo_t *t)
{
    json_decref(machine);
    machine = bench_machine(t);
}

json_t *cli_json_wrap(json_t *obj)
{
    if (!obj || json_object_get(obj, "schema"))
        return obj; // already a document (bench's scenario summaries)
    json_t *doc = bench_wrap(command[0] ? command : "unknown", NULL, json_incref(params), obj);
    if (machine)
        json_object_set(doc, "machine", machine);
    return doc;
}
