// bench mpi-redist (bench/scenarios/scn_mpi_redist.c) starts its own ranks with mpirun: run
// under mpirun itself, every rank used to start a nested mpirun that Open MPI refused with a
// message naming neither the scenario nor the fix. It now says so on stderr and exits 2 at once.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "tool_run.h"

Test(scn_mpi_redist, under_mpirun_explains_itself)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    // What Open MPI's mpirun sets in each rank's environment.
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    double t0 = nt_now();
    tool_result r = tool_run((const char *const[]){"bench", "mpi-redist", "--quick", NULL});
    double dt = nt_now() - t0;
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("OMPI_COMM_WORLD_RANK");
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, "rank 1 of 2 under mpirun"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "without mpirun"), "%s", r.err);
    cr_assert_lt(dt, 5.0, "took %.1f s", dt);
    tool_result_free(&r);
}
