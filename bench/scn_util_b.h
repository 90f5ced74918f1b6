// Helpers shared by the kernel scenarios (kernels, herrmann-table1, stencil, lambert-partition):
// machine load, process grids, reproducible matrix values, error reporting.
#ifndef NUMATILE_BENCH_SCN_UTIL_B_H
#define NUMATILE_BENCH_SCN_UTIL_B_H

#include <stdint.h>

#include "harness.h"
#include "numatile.h"

// The 1-minute load average of this machine, or -1 if /proc/loadavg cannot be read.
double scnb_loadavg(void);

// Record the load average at the start of a timed scenario (parameter "loadavg_start") and
// add a notice when the machine is busy: timings are then not from a quiet machine.
void scnb_note_load(bench_run *r);

// Record the load average at the end (parameter "loadavg_end"), with a notice if busy.
void scnb_note_load_end(bench_run *r);

// A p x q grid with p * q = d and p <= q as close as possible (d >= 1).
void scnb_grid(int d, int *p, int *q);

// Element (r, c) of matrix number seed: uniform in [-1, 1), a splitmix64 function of its
// arguments (the same values for a tiled matrix and a flat array).
double scnb_value(uint64_t seed, int64_t r, int64_t c);

// nt_matrix_value_fn filling a matrix with scnb_value; arg points to a uint64_t seed.
void scnb_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg);

// Threads the kernels use on topo by default: domains with cpus x the smallest cpu count
// among them (nt_kernel_opts_t threads_per_domain = 0). *tpd (if not NULL) gets the latter.
int scnb_kernel_threads(const nt_topo_t *topo, int *tpd);

// Print "numatile bench NAME: WHAT: <status>: <last error>" and return the tool's exit code
// for a run-time failure (3).
int scnb_fail(const bench_run *r, const char *what, nt_status st);

#endif
