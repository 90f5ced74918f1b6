// Shared helpers of the `numatile` tool: subcommand table, the options every subcommand
// parses alike, argument errors, number parsing, JSON output. Exit codes (docs/numatile.1): 0 ok,
// 1 a --verify check failed, 2 bad arguments, 3 the library failed at run time.
#ifndef NUMATILE_CLI_H
#define NUMATILE_CLI_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "numatile.h"

enum { CLI_OK = 0, CLI_VERIFY_FAILED = 1, CLI_USAGE = 2, CLI_RUNTIME = 3 };

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); // argv[0] is the subcommand name
} cli_cmd;

// The options most subcommands accept, parsed here so that each has one spelling and one
// message. A subcommand lists those it takes in its getopt_long table with these ids, e.g.
// {"json", no_argument, 0, CLI_OPT_JSON}, and hands every id it does not handle itself to
// cli_common_option. The ids lie above every character, clear of the subcommands' own ids.
enum { CLI_OPT_JSON = 0x100, CLI_OPT_DOMAINS, CLI_OPT_SEED, CLI_OPT_VERIFY, CLI_OPT_HELP,
       CLI_OPT_BAD };

typedef struct cli_common {
    const char *cmd;  // the subcommand's name, for messages
    const char *help; // what --help prints
    bool json;        // --json: one JSON object on stdout
    bool verify;      // --verify: check the result, exit CLI_VERIFY_FAILED if wrong
    int domains;      // --domains D in 1..4096; 0 when not given
    uint64_t seed;    // --seed S >= 0; the subcommand sets its default before parsing
} cli_common;

// What a parse step returns after --help printed the help: the subcommand exits with CLI_OK.
enum { CLI_HELP_SHOWN = -1 };

// getopt_long over the long options of opts, silent: every message about the arguments is ours.
// Unique prefixes are accepted as getopt_long does ("--dom 4"). -h is --help (CLI_OPT_HELP).
// A refused argument comes back as CLI_OPT_BAD, with the reason kept for cli_common_option:
// "option '--m' needs a value" (none left, or the next argument is itself an option),
// "unknown option '--bogus'" (with "did you mean --X?" for a near miss or a single dash),
// "option '--fr' is ambiguous (--from, --from-layout)", "option '--json' takes no value".
int cli_getopt(int argc, char **argv, const struct option *opts);

// Handle option id (what cli_getopt returned; its argument in optarg) that the subcommand did
// not: a common option fills co (CLI_OK, or CLI_USAGE with a message if its value is wrong);
// --help prints co->help (CLI_HELP_SHOWN); CLI_OPT_BAD prints why cli_getopt refused the
// argument (CLI_USAGE).
int cli_common_option(cli_common *co, int id, char **argv);

// After the options: CLI_OK when no argument is left, else a usage error naming the first.
int cli_no_operands(const char *cmd, int argc, char **argv);

// Print "numatile CMD: message" and a hint to stderr; return CLI_USAGE.
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// fprintf to stderr with non-printable bytes of the result escaped (\xNN, nt_escape): for every
// message that echoes argv or file contents. Newlines in fmt itself are kept.
void cli_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// A --synthetic value that names an XML file (".xml", any case) must be readable: CLI_OK, or a
// usage error with the system's reason, rather than the library's "not a valid hwloc XML" for
// a file that is not there. Synthetic descriptions pass unchecked.
int cli_check_synthetic(const char *cmd, const char *desc);

// Before any work: whether the output file path (given as option opt, e.g. "--out") can be
// written: its directory exists and is writable, path is not a directory. CLI_OK, or CLI_USAGE
// after a message naming opt. The file itself is then written whole or not at all
// (bench_fopen_atomic, nt_profile_save).
int cli_check_out(const char *cmd, const char *opt, const char *path);

// This machine's topology with --domains D (0 = one domain per node) into *t, to destroy with
// nt_topo_destroy; CLI_OK, or the exit code after cli_lib_error() when it cannot be loaded.
int cli_load_topo(const char *cmd, int domains, nt_topo_t **t);

// Print "numatile CMD: <what>: <nt_last_error()>" to stderr; return bench_status_exit(st)
// (harness.h: the exit code of a library status, shared with the scenarios).
int cli_lib_error(const char *cmd, nt_status st);

// Parse a whole decimal integer in [lo, hi]; false on junk, empty string or out of range.
bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
bool cli_parse_int(const char *s, int lo, int hi, int *out);
// Parse a finite double; false on junk.
bool cli_parse_double(const char *s, double *out);

// Print obj as one JSON document on stdout (compact, newline-terminated) and release it: the
// envelope of docs/json.md (cli_json_wrap), then obj's fields. Returns CLI_OK, or CLI_RUNTIME
// if it could not be written.
int cli_print_json(json_t *obj);

// ---- the JSON envelope of the subcommands (cli_json.c) --------------------------------------

// Note the option opts[k] that cli_getopt returns (value: its optarg, NULL for a flag) as a
// parameter of the envelope, and argv[0] as the command. --json and --help are not noted.
void cli_json_note_option(char **argv, const struct option *opts, int k, const char *value);

// Forget the command, options and topology noted so far (cli_getopt does at a new scan).
void cli_json_reset(void);

// Record the topology the command runs on, for the envelope's "machine" (cli_load_topo does;
// a subcommand that loads its own topology calls it). Without it, this machine's default.
void cli_json_topology(const nt_topo_t *t);

// obj (stolen) after the envelope: schema, tool, command, machine, libraries, parameters
// (bench_wrap). An obj that already has "schema" comes back as it is. New reference.
json_t *cli_json_wrap(json_t *obj);

// Print a tile map (owner[i*nt+j], row by row) as a grid, each line indented by two spaces.
// compact: one character per tile (0-9a-zA-Z) when every domain id is below 62, else ids
// separated by spaces. On a terminal each domain gets a background colour, unless NO_COLOR is
// set to a non-empty value (no-color.org).
void cli_print_tilemap(FILE *f, const int *owner, int64_t mt, int64_t nt, bool compact);

#endif
