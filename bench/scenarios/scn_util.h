// Helpers shared by the bench scenarios: machine load, process grids, reproducible matrix
// values, summary statistics, error reporting.
#ifndef NUMATILE_BENCH_SCN_UTIL_H
#define NUMATILE_BENCH_SCN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "numatile.h"

// The 1-minute load average of this machine, or -1 if /proc/loadavg cannot be read.
double scn_loadavg(void);

// Record the load average at the start of a timed scenario (parameter "loadavg_start") and
// add a notice when the machine is busy: timings are then not from a quiet machine.
void scn_note_load(bench_run *r);

// Record the load average at the end (parameter "loadavg_end"), with a notice if busy.
void scn_note_load_end(bench_run *r);

// A p x q grid with p * q = d and p <= q as close as possible (d >= 1): p is the largest
// divisor of d not above sqrt(d).
void scn_grid(int d, int *p, int *q);

// The tile map spec "bc2d:PxQ" of that grid for d domains, written to out (cap bytes).
void scn_bc2d_spec(char *out, size_t cap, int d);

// out[0..2] = median, min and max of x[0..n-1] (n >= 1).
void scn_stat3(double out[3], const double *x, int n);

// Element (r, c) of matrix number seed: uniform in [-1, 1), a splitmix64 function of its
// arguments (the same values for a tiled matrix and a flat array). Not the library's
// nt_matrix_pattern_value, which fills an element with raw random bytes (any double, NaN and
// huge values included): fine to check that copies arrive, not to feed GEMM and QR.
double scn_value(uint64_t seed, int64_t r, int64_t c);

// nt_matrix_value_fn filling a matrix with scn_value; arg points to a uint64_t seed.
void scn_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg);

// Print "numatile bench NAME: WHAT: <status>: <last error>" (without "WHAT: " when what is
// NULL) and return the tool's exit code for st (cli_status_exit: 2 for bad input, else 3).
int scn_fail(const bench_run *r, const char *what, nt_status st);

#endif
