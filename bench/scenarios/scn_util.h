// Helpers shared by the bench scenarios: machine load, process grids, summary statistics, error
// reporting (reproducible matrix values: bench_value in harness.h).
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

// Print "numatile bench NAME: WHAT: <status>: <last error>" (without "WHAT: " when what is
// NULL) and return the tool's exit code for st (bench_status_exit: 2 for bad input, else 3).
int scn_fail(const bench_run *r, const char *what, nt_status st);

#endif
