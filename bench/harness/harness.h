// The benchmark harness behind `numatile bench`: a registry of scenarios, one output directory
// per run, raw rows to CSV and JSON with median/min/max, progress on stderr, gnuplot plots.
//
// Adding a scenario takes one file and one table line:
//   1. write bench/scenarios/scn_NAME.c defining `int scn_NAME(bench_run *r)`;
//   2. declare it in bench/scenarios/scenarios.h and add `{"name", "one-line description",
//      scn_NAME}` to the registry in bench/scenarios/registry.c.
//
// What a scenario does with its bench_run:
//   - reads the options r->quick, r->full, r->repeat (0 = its own default, see bench_reps()),
//     r->seed;
//   - records its parameters (bench_param), names the columns that identify a configuration
//     (bench_labels), and adds one raw row per repetition (bench_row, a flat JSON object such as
//     {"P": 32, "objective": "volume", "rep": 3, "seconds": 1.2e-5}); every numeric column that
//     is neither a label nor "rep" is a measured quantity, and the harness writes its
//     median/min/max per configuration;
//   - prints its human table with bench_printf (stdout, or stderr under --json, and a copy in
//     NAME.txt), the paper's numbers beside its own, and what differs in the setting;
//   - sets its summary object (bench_summary), which `--json` prints on stdout;
//   - may write data and gnuplot scripts into the output directory (bench_fopen) and render
//     them (bench_plot); long loops report bench_progress.
// It returns 0, or a tool exit code (2 bad arguments, 3 run-time failure) after printing why.
//
// The harness then writes NAME.csv (the raw rows; columns = the union of the rows' keys) and
// NAME.json (scenario, machine, parameters, labels, raw rows, stats, summary, notices).
#ifndef NUMATILE_BENCH_HARNESS_H
#define NUMATILE_BENCH_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct bench_state bench_state; // the harness's private part of a run

typedef struct bench_run {
    const char *name; // scenario name
    bool quick;       // --quick: small sizes, few repetitions (seconds, for tests and CI)
    bool full;        // --full: more repetitions or sizes than the default
    bool json;        // --json: stdout is reserved for the summary object
    int repeat;       // --repeat R, 0 = the scenario's default
    uint64_t seed;    // --seed S (default 1): every random instance derives from it
    int domains;      // --domains D, 0 = the scenario's default
    const char *dir;  // output directory (exists while the scenario runs)
    bench_state *st;
} bench_run;

typedef int (*bench_fn)(bench_run *r);

typedef struct bench_scenario {
    const char *name;
    const char *summary;
    bench_fn run;
} bench_scenario;

// Options of one invocation of a scenario.
typedef struct bench_opts {
    bool quick, full, json;
    int repeat;
    uint64_t seed;
    int domains;      // --domains D, 0 = the scenario's default
    const char *out;  // output directory, NULL = bench/results/NAME-YYYYmmdd-HHMMSS
    const char *argv; // the command line, recorded in the JSON (may be NULL)
} bench_opts;

// ---- registry ---------------------------------------------------------------------------------

// The table of scenarios (entries whose run is NULL are absent); *n gets its length.
const bench_scenario *bench_registry(size_t *n);

// The scenario called name, or NULL.
const bench_scenario *bench_find(const char *name);

// Run a scenario with its own output directory and write NAME.csv, NAME.json (and NAME.txt).
// *summary (if not NULL) receives a new reference to the summary object (json null if the
// scenario set none). Returns the scenario's exit code, or 3 if the output could not be written.
int bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary);

// ---- what scenarios call ----------------------------------------------------------------------

// reps = r->repeat if given, else quick_reps under --quick, else dflt (times 4 under --full).
int bench_reps(const bench_run *r, int dflt, int quick_reps);

// Record a parameter of the run (steals value).
void bench_param(bench_run *r, const char *key, json_t *value);

// The row columns that identify a configuration, NULL-terminated; called once before any row.
void bench_labels(bench_run *r, ...) __attribute__((sentinel));

// Add one raw row (a flat JSON object; steals it).
void bench_row(bench_run *r, json_t *row);

// Set the summary object printed by --json (steals it; replaces an earlier one).
void bench_summary(bench_run *r, json_t *summary);

// Human-readable output: stdout (stderr under --json) and NAME.txt in the output directory.
void bench_printf(bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// A notice (not a failure): printed on stderr and kept in the JSON's "notices".
void bench_notice(bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Progress of a long loop: silent during the first 2 seconds of the run, then a bar on a
// terminal or a plain line at most every 5 seconds otherwise. Call with done == total at the end.
void bench_progress(bench_run *r, int64_t done, int64_t total, const char *what);

// Open a file of the output directory for writing; NULL (with a message on stderr) on failure.
FILE *bench_fopen(bench_run *r, const char *file);

// Run `gnuplot SCRIPT` inside the output directory if gnuplot is on PATH (the script writes its
// PNG there); otherwise, or if gnuplot fails, add a notice. Returns true if the plot was made.
bool bench_plot(bench_run *r, const char *script);

// ---- helpers (also used by the tests) ---------------------------------------------------------

double bench_now(void); // monotonic seconds

// Statistics of n values (x is not modified). n = 0 gives NAN. Median of an even count: the
// mean of the two middle values. Stddev: sample standard deviation (n - 1), 0 for n = 1.
double bench_median(const double *x, size_t n);
double bench_min(const double *x, size_t n);
double bench_max(const double *x, size_t n);
double bench_mean(const double *x, size_t n);
double bench_stddev(const double *x, size_t n);

// mkdir -p: create path and its missing parents (mode 0777 & ~umask). 0, or -1 with errno set.
int bench_mkdirs(const char *path);

// Median/min/max of every numeric non-label column except "rep", per distinct label tuple, in
// order of first appearance: [{"labels": {...}, "n": rows, "quantities": {"q": {"median": m,
// "min": a, "max": b}, ...}}, ...]. labels is a JSON array of column names. New reference.
json_t *bench_stats(json_t *rows, json_t *labels);

// Write rows as CSV (header = union of keys in first-seen order). 0, or -1 on a write error.
int bench_write_csv(FILE *f, json_t *rows);

// Description of this machine: hostname, cpus, cpu model, the numatile topology summary, library
// versions (numatile, hwloc, jansson), compiler. New reference.
json_t *bench_machine(void);

// Whether an executable named prog is on PATH.
bool bench_have_program(const char *prog);

#endif
