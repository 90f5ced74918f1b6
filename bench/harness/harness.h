// The benchmark harness behind `numatile bench`: a registry of scenarios, one output directory
// per run, raw rows to CSV and JSON with median/min/max, text tables and gnuplot plots drawn
// from declared columns, progress on stderr.
//
// Adding a scenario
// -----------------
// One file and one table line:
//   1. write bench/scenarios/scn_NAME.c defining `int scn_NAME(bench_run *r)`;
//   2. declare it in bench/scenarios/scenarios.h and add `{"name", "one-line description",
//      scn_NAME}` to the registry in bench/scenarios/registry.c.
// The file reads top to bottom in four phases, a function (or a few) each:
//   - parameters: sizes from r->quick / r->full, repetitions from bench_reps(), every choice
//     recorded with bench_param(), the columns that identify a configuration with
//     bench_labels();
//   - instances: the inputs, reproducible from r->seed;
//   - measurement: one raw row per repetition with bench_row(), a flat JSON object such as
//     {"P": 32, "objective": "volume", "rep": 3, "seconds": 1.2e-5}; every numeric column that
//     is neither a label nor "rep" is a measured quantity, and the harness writes its
//     median/min/max per configuration; time with bench_now(); long loops call
//     bench_progress();
//   - report: one JSON object per configuration (a "row"), from which the harness prints the
//     text table (bench_table) and writes the plot (bench_plot_rows); the rows usually become
//     the summary too (bench_summary, printed by --json). Prose around the table (the paper's
//     numbers, what differs in the setting) goes through bench_printf().
// It returns 0, or a tool exit code (2 bad arguments, 3 run-time failure) after printing why
// (scn_fail in bench/scenarios/scn_util.h does both for a library status).
//
// Tables and plots are declared once, as static arrays, and drawn from the rows:
//
//   static const bench_col table[] = {
//       {.key = "P", .head = "P", .fmt = "%-5d"},
//       {.key = "sec,sec_min,sec_max", .head = " ms [min..max]", .fmt = "%.3g [%.3g..%.3g]",
//        .width = -27, .scale = 1e3},
//       {.key = "steps_over_volume", .head = "steps/vol", .fmt = "%9.2f", .sep = " | "},
//       {NULL}};
//   static const bench_plot_spec plot = {
//       .name = "match", .title = "matching time (median)", .width = 800, .height = 550,
//       .x = "P", .xlabel = "P", .set = "set logscale xy",
//       .panel = {{.ylabel = "seconds", .series = {{.y = "sec", .title = "volume"}}}}};
//   ...
//   bench_table(r, table, rows);
//   bench_plot_rows(r, &plot, rows);
//   bench_summary(r, json_pack("{s:o}", "rows", rows));
//
// A column (bench_col):
// - key: the row's key; several comma-separated keys when fmt has several conversions; "a.b"
//   looks into the object at "a", "a.2" takes element 2 of the array at "a". A missing (or
//   null) value prints "-", a string under a numeric conversion prints as it is, and an
//   integer under %f/%e/%g prints as an integer (reference rows of integers can share the
//   columns of measured means).
// - head: the header; '\n' separates the lines of a header of several lines.
// - fmt: printf conversions, one per key (length modifiers are not needed: %d takes any
//   integer).
// - width: the cell's width, negative = left-aligned; 0 takes the width of fmt's conversion
//   when it has only one. The header is padded to the same width and alignment.
// - sep: printed before the cell (NULL: one space; nothing before the first column).
// - scale: the values are multiplied by it before formatting (1e3: seconds -> ms); 0 = 1.
// - group: a heading over this column and the next ones up to the next group (one more header
//   line).
// Lines lose their trailing spaces. Keys that begin with '_' are for tables and plots only:
// the harness drops them from the summary it writes, so a row can carry a display value (a
// flag, a unit conversion, a label) without changing the JSON.
//
// A plot (bench_plot_spec, below): x column or tic labels, one or two panels of series (y
// columns, error-bar columns, constant reference lines), blocks (one curve per value of a
// column), titles, gnuplot settings; the harness writes NAME.dat and NAME.gp into the output
// directory and runs gnuplot (bench_plot).
//
// At the end the harness writes NAME.csv (the raw rows; columns = the union of the rows' keys),
// NAME.json (the envelope of docs/json.md, then scenario, command_line, labels, raw rows,
// stats, summary, notices), and
// NAME.txt holds a copy of the text.
//
// Files: run.c (running a scenario, its record, the timer), console.c (text, notices, progress),
// table.c, plot.c, stats.c, output.c (CSV and JSON), envelope.c and machine.c (the envelope of
// every JSON document), values.c (matrix values and exit codes the tool shares with the
// scenarios), advise_run.c (one measured candidate of the advisor, for `numatile advise --run`
// and `bench advise`); harness_int.h is what they share.
#ifndef NUMATILE_BENCH_HARNESS_H
#define NUMATILE_BENCH_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "numatile/topo.h"

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

// ---- registry and execution (registry.c in bench/scenarios, run.c) ------------------------------

// The table of scenarios (entries whose run is NULL are absent); *n gets its length.
const bench_scenario *bench_registry(size_t *n);

// The scenario called name, or NULL.
const bench_scenario *bench_find(const char *name);

// Run a scenario with its own output directory and write NAME.csv, NAME.json (and NAME.txt).
// *summary (if not NULL) receives a new reference to the run's --json document: the envelope,
// "scenario", "notices" and the summary's fields (docs/json.md). Returns the scenario's exit
// code, or 3 if the output could not be written.
int bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary);

// ---- what scenarios call: the run's record (run.c) ----------------------------------------------

// reps = r->repeat if given, else quick_reps under --quick, else dflt (times 4 under --full).
int bench_reps(const bench_run *r, int dflt, int quick_reps);

// Record a parameter of the run (steals value).
void bench_param(bench_run *r, const char *key, json_t *value);

// The row columns that identify a configuration, NULL-terminated; called once before any row.
void bench_labels(bench_run *r, ...) __attribute__((sentinel));

// Add one raw row (a flat JSON object; steals it).
void bench_row(bench_run *r, json_t *row);

// Set the summary object printed by --json after the envelope (steals it; replaces an earlier
// one). It holds "rows" (an array of objects, one per configuration) and the scenario's own
// fields, each described in docs/json.schema.json (make check-json fails without). Keys that
// begin with '_', at any depth, are dropped when the run ends (display values, see above).
void bench_summary(bench_run *r, json_t *summary);

// Open a file of the output directory for writing; NULL (with a message on stderr) on failure.
// The file is written whole or not at all (bench_fopen_atomic): close it with fclose() and
// check its result.
FILE *bench_fopen(bench_run *r, const char *file);

// Open path for writing whole or not at all: the bytes go to a temporary file beside it
// (".NAME.tmp-XXXXXX", same directory), which fclose() renames over path only when every write,
// the flush and the close succeeded; otherwise fclose() removes it, returns EOF (errno set) and
// the previous file is left as it was. A device or FIFO that exists at path is written in place.
// NULL with errno on failure.
FILE *bench_fopen_atomic(const char *path);

// Remove every temporary file of bench_fopen_atomic still open. Async-signal-safe: the tool's
// SIGINT/SIGTERM handler calls it so that an interrupted run leaves no partial file.
void bench_atomic_cleanup(void);

// Whether a file can be written at path before any work: its directory exists and is writable,
// and path is not a directory. 0, or -1 with the reason in why.
int bench_out_check_file(const char *path, char *why, size_t len);

// ---- what scenarios call: text on the terminal (console.c) --------------------------------------

// Human-readable output: stdout (stderr under --json) and NAME.txt in the output directory.
void bench_printf(bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// A notice (not a failure): printed on stderr and kept in the JSON's "notices".
void bench_notice(bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Progress of a long loop: silent during the first 2 seconds of the run, then a bar on a
// terminal or a plain line at most every 5 seconds otherwise. Call with done == total at the end.
void bench_progress(bench_run *r, int64_t done, int64_t total, const char *what);

// ---- what scenarios call: tables (table.c) ------------------------------------------------------

// One column of a text table; an array of them ends with {NULL}. See the top of this file.
typedef struct bench_col {
    const char *key;   // the row's key, "k1,k2" for several values, "a.b" / "a.2" inside a
    const char *head;  // header text ('\n' between the lines of a header of several lines)
    const char *fmt;   // printf conversion(s), one per key: "%8.1f", "%.2f [%.2f..%.2f]"
    int width;         // cell width, < 0 left-aligned, 0 = the width of fmt's only conversion
    const char *sep;   // before the cell: NULL = " " (nothing before the first column)
    double scale;      // the values are multiplied by it before formatting; 0 = 1
    const char *group; // heading over this column and the next ones up to the next group
} bench_col;

// Print the header line(s) of a table (bench_printf).
void bench_table_head(bench_run *r, const bench_col *cols);

// Print one row of a table (row is not stolen).
void bench_table_row(bench_run *r, const bench_col *cols, const json_t *row);

// Print the header, then one line per element of the array rows (not stolen).
void bench_table(bench_run *r, const bench_col *cols, const json_t *rows);

// The text of one line of a table into buf (len bytes, truncated if short), without a newline
// and without trailing spaces: the header line number `line` (0 = the group line if any
// column has a group, then the header lines) when row is NULL, else the row. Returns the
// number of header lines when row is NULL, else 1.
int bench_table_line(char *buf, size_t len, const bench_col *cols, const json_t *row, int line);

// ---- what scenarios call: plots (plot.c) --------------------------------------------------------

enum { BENCH_PLOT_SERIES = 6 };

// One curve (or set of bars, or error bars) of a panel.
typedef struct bench_series {
    const char *y;     // column(s) after x: "y", "y,dy" or "y,ylow,yhigh" for error bars (or
                       // "src,value" for `image`); or a number such as "0.8": a reference line
    const char *title; // legend; every "%s" becomes the block's value when the plot has blocks
    const char *with;  // gnuplot style ("lp", "l dt 2", "yerrorlines", "image"); NULL = "lp",
                       // or the data style of `set style data` in a plot with tic labels
} bench_series;

typedef struct bench_panel {
    const char *title;  // panel title when there are two or more ("%s" = the block's value
                        // under panel_per_block); a single panel has the figure's title
    const char *ylabel;
    const char *set;    // gnuplot settings for this panel, '\n' between them (NULL = none)
    bench_series series[BENCH_PLOT_SERIES]; // up to the first whose y is NULL
} bench_panel;

// A plot drawn from rows: NAME.dat holds the columns the series use (one block per value of
// `block`, in order of appearance), NAME.gp draws NAME.png from it.
typedef struct bench_plot_spec {
    const char *name;     // file names NAME.dat, NAME.gp, NAME.png
    const char *title;    // the figure's title
    int width, height;    // pixels
    const char *x;        // x column; NULL: one x position per row, labelled by `label`
    const char *label;    // with x NULL: the column of the tic labels (bar charts)
    const char *xlabel;   // NULL = none
    const char *block;    // one data block per value of this column (gnuplot `index`), or NULL
    bool panel_per_block; // a panel per block (panel[0] is their template), else every block
                          // in every panel
    const char *set;      // gnuplot settings for the figure, '\n' between them (NULL = none)
    const char *num;      // printf format of the non-integer numbers in NAME.dat, NULL = "%g"
    bench_panel panel[2]; // one panel, or two side by side
} bench_plot_spec;

// Write NAME.dat and NAME.gp for rows (not stolen) and render them with bench_plot(). A series
// whose first column no row has is left out (an optional tool that was not found).
void bench_plot_rows(bench_run *r, const bench_plot_spec *p, const json_t *rows);

// Run `gnuplot SCRIPT` inside the output directory if gnuplot is on PATH (the script writes its
// PNG there); otherwise, or if gnuplot fails, add a notice. Returns true if the plot was made.
bool bench_plot(bench_run *r, const char *script);

// Write the data file and the script of a plot to f_dat and f_gp (the tests use it).
void bench_plot_write(FILE *f_dat, FILE *f_gp, const bench_plot_spec *p, const json_t *rows);

// ---- helpers (also used by the tests) -----------------------------------------------------------

double bench_now(void); // monotonic seconds: the one timer of the front end (run.c)

// Statistics of n values (x is not modified). n = 0 gives NAN. Median of an even count: the
// mean of the two middle values. Stddev: sample standard deviation (n - 1), 0 for n = 1.
// (stats.c)
double bench_median(const double *x, size_t n);
double bench_min(const double *x, size_t n);
double bench_max(const double *x, size_t n);
double bench_mean(const double *x, size_t n);
double bench_stddev(const double *x, size_t n);
// Spearman's rank correlation of x and y (ties get their mean rank): the Pearson correlation
// of the ranks; NAN for fewer than 3 points, a constant series, or no memory. (stats.c; also
// compiled into the QEMU guest programs.)
double bench_spearman(const double *x, const double *y, size_t n);

// Median/min/max of every numeric non-label column except "rep", per distinct label tuple, in
// order of first appearance: [{"labels": {...}, "n": rows, "quantities": {"q": {"median": m,
// "min": a, "max": b}, ...}}, ...]. labels is a JSON array of column names. New reference.
json_t *bench_stats(json_t *rows, json_t *labels);

// The value at key in row; "a.b" looks up b in the object at a, "a.2" element 2 of the array
// at a. NULL if absent. (table.c)
json_t *bench_get(const json_t *row, const char *key);

// mkdir -p: create path and its missing parents (mode 0777 & ~umask). 0, or -1 with errno set.
// (run.c)
int bench_mkdirs(const char *path);

// Write rows as CSV (header = union of keys in first-seen order). 0, or -1 on a write error.
// (output.c)
int bench_write_csv(FILE *f, json_t *rows);

// ---- what the tool and the scenarios share (values.c) ------------------------------------------

// Element (r, c) of matrix number seed: uniform in [-1, 1), a splitmix64 function of its
// arguments (the same values for a tiled matrix and a flat array). Not the library's
// nt_matrix_pattern_value, which fills an element with raw random bytes (any double, NaN and
// huge values included): fine to check that copies arrive, not to feed GEMM and QR.
double bench_value(uint64_t seed, int64_t r, int64_t c);

// nt_matrix_value_fn filling a matrix of doubles with bench_value; arg points to a uint64_t
// seed.
void bench_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg);

// The tool's exit code for a library status (docs/numatile.1): 0 for NT_OK, 2 for NT_EINVAL /
// NT_ERANGE / NT_EIO / NT_ENOSPACE (the user's input was wrong or impossible), 3 otherwise. The
// one mapping the subcommands and the scenarios share.
int bench_status_exit(nt_status st);

// ---- the JSON envelope (envelope.c, machine.c; docs/json.md) ----------------------------------

// Version of the JSON vocabulary: grows on every change that renames or removes a field
// (docs/json.md lists them); adding fields keeps it.
enum { BENCH_JSON_SCHEMA = 2 };

// The envelope every --json document starts with: {"schema", "tool": {name, version, compiler},
// "command", "machine" (bench_machine(t)), "libraries" (bench_libraries()), "parameters"
// (steals params; NULL = {})}. New reference.
json_t *bench_envelope(const char *command, const nt_topo_t *t, json_t *params);

// bench_envelope(command, t, params) followed by the command's own fields (steals fields; a
// field named like an envelope key is dropped). What a new subcommand or scenario prints.
json_t *bench_wrap(const char *command, const nt_topo_t *t, json_t *params, json_t *fields);

// The machine: hostname, cpus (online), cpu_model, and the topology t (NULL = this machine's
// default topology): topology (kind name), domains, physical_nodes, oversubscribed. New
// reference. (machine.c)
json_t *bench_machine(const nt_topo_t *t);

// Versions of the libraries loaded at run time: numatile, hwloc (the release, from the library),
// hwloc_api, jansson, blas (nt_blas_name()). New reference. (machine.c)
json_t *bench_libraries(void);

// The compiler that built the tool ("gcc 12.2.0"). (machine.c)
const char *bench_compiler(void);

// Whether an executable named prog is on PATH. (plot.c)
bool bench_have_program(const char *prog);

// path = NAME in $NUMATILE_PEER_DIR, else in this executable's directory (filled even when
// absent, for messages); true when it is there and executable. (sibling.c)
bool bench_sibling(const char *name, char *path, size_t len);

#endif
