// The benchmark scenarios of `numatile bench`, one file each in bench/scenarios/; registry.c's
// table lists them. Each runs one scenario on the harness's run object (harness.h) and returns
// the tool's exit code.
#ifndef NUMATILE_BENCH_SCENARIOS_H
#define NUMATILE_BENCH_SCENARIOS_H

#include "harness.h"

int scn_match(bench_run *r);
int scn_herrmann_fig2(bench_run *r);
int scn_herrmann_fig3(bench_run *r);
int scn_calibrate(bench_run *r);
int scn_migrate(bench_run *r);
int scn_cao_categories(bench_run *r);
int scn_guo_tables(bench_run *r);
int scn_herrmann_table1(bench_run *r);
int scn_stencil(bench_run *r);
int scn_kernels(bench_run *r);
int scn_lambert_partition(bench_run *r);
int scn_scalapack(bench_run *r);
int scn_mpi_redist(bench_run *r);
int scn_advise(bench_run *r);
int scn_adopt(bench_run *r);

#endif
