// What the scenarios herrmann-fig2 and herrmann-fig3 share (scn_herrmann_common.c): the
// instances, their costs under every labelling, the table and the plot of a sweep.
#ifndef NUMATILE_BENCH_SCN_HERRMANN_COMMON_H
#define NUMATILE_BENCH_SCN_HERRMANN_COMMON_H

#include "harness.h"

enum { FIG_P = 32 };

// Paper's closed form: P(canonical steps = D) = 1 - (1 - ((P-1)/P)^m)^P, m = D - floor(alpha D)
// of each processor's items placed at random (Fig. 2 text; m = D there).
double fig_p_steps_eq_d(int p, int m);

// One sweep point: reps instances with D items per processor (alpha < 0: random balanced,
// else skewed alpha), a raw row per instance (x column xname = D or alpha); *row gets the
// point's summary row (with the display key "_a" = floor(alpha D)). 0, or 3 after a message.
int fig_point(bench_run *r, const char *xname, int k, int d, double alpha, int reps,
              json_t **row);

// The sweep's table: its header, then one line per point; xcol is the x column.
void fig_table_head(bench_run *r, const bench_col *xcol);
void fig_table_row(bench_run *r, const bench_col *xcol, const json_t *row);

// The two panels of the paper (relative volume, relative steps; mean +- std) from the rows.
void fig_plot(bench_run *r, const char *fig, const char *title, const char *xname,
              const char *xlabel, const json_t *rows);

#endif
