// Shared helpers of the scenario tests (test_scn_<name>.c, one per bench/scenarios/scn_<name>.c):
// run `numatile bench NAME --quick --json` into a temporary directory, read its summary, its
// NAME.json document and its files, and remove the directory afterwards.
#ifndef NUMATILE_TEST_SCN_TEST_H
#define NUMATILE_TEST_SCN_TEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "tool_run.h"

// The tool prints reals with 10 significant digits (jansson's precision in cli_print_json), so
// values recomputed from printed ones agree to about 1e-10 relative.
#define TOL 1e-7

// Run `numatile bench NAME --quick --json --out DIR` with DIR a fresh directory written into
// dir (len bytes); assert that NAME.csv, NAME.json and NAME.txt are there; return the summary.
json_t *scn_run(const char *name, char *dir, size_t len);

// Run `numatile bench NAME --quick --json --out DIR` (--repeat 1 under ASan) into the existing
// dir; *doc gets NAME.json (its raw and stats arrays asserted); return the summary.
json_t *scn_run_doc(const char *name, const char *dir, json_t **doc);

// A fresh temporary directory (malloc'd; scn_rm_tree() removes and frees it).
char *scn_temp_dir(void);

// Remove dir and everything under it, then free(dir).
void scn_rm_tree(char *dir);

// json_decref(sum), and remove dir and everything under it (dir is not freed).
void scn_cleanup(const char *dir, json_t *sum);

// Whether dir/file is a regular file of at least one byte.
bool nonempty_file(const char *dir, const char *file);

// dir/file parsed as JSON (asserted).
json_t *load_json_file(const char *dir, const char *file);

// Member key of o, asserted to be a number / a string.
double num(const json_t *o, const char *key);
const char *str(const json_t *o, const char *key);

// Whether a and b agree to tol relative (absolute below 1).
bool close_rel(double a, double b, double tol);

// Median of x[0..n-1] (1 <= n <= 64, asserted), by a naive sort of a copy.
double median(const double *x, int n);

#endif
