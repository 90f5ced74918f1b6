// The scenario table of `numatile bench` (see harness.h): adding a scenario is one file
// bench/scenarios/scn_NAME.c, its prototype in scenarios.h and one line here. Kept apart from
// bench/harness/ so that the harness can be linked into the unit tests without the scenarios.
#include <string.h>

#include "harness.h"
#include "scenarios.h"

static const bench_scenario registry[] = {
    {"match", "matching and counting time, P = 8..1024 (scipy side by side if present)",
     scn_match},
    {"herrmann-fig2", "optimal/canonical volume and steps, random balanced, P = 32, D = 1..20",
     scn_herrmann_fig2},
    {"herrmann-fig3", "optimal/canonical volume and steps, skewed alpha = 0..1, P = 32, D = 20",
     scn_herrmann_fig3},
    {"calibrate", "topology and the copy bound per domain pair", scn_calibrate},
    {"migrate", "redistribution bandwidth / copy bound over tile sizes, copy vs move vs loop",
     scn_migrate},
    {"cao-categories", "the nine segment categories (Cao 2022) over tile sizes, ratio to bound",
     scn_cao_categories},
    {"guo-tables", "closed-form communication sets vs naive per-element (Guo Tables 1-3)",
     scn_guo_tables},
    {"herrmann-table1", "SkewedSet/ChunkSet: redistribution then QR (Herrmann 2016 Table 1)",
     scn_herrmann_table1},
    {"stencil", "1D stencil: owner-computes vs repartitioning (Herrmann Fig. 5/6)", scn_stencil},
    {"kernels", "tiled GEMM and QR vs flat multithreaded BLIS / libFLAME", scn_kernels},
    {"lambert-partition",
     "heterogeneous GEMM partitions vs the lower bound (Lambert Tables 1.2-1.3)",
     scn_lambert_partition},
    {"scalapack", "numatile vs ScaLAPACK pdgemr2d (under mpirun) on block-cyclic grid changes",
     scn_scalapack},
    {"mpi-redist", "libnumatile_mpi vs pdgemr2d across 4 MPI ranks (under mpirun), nb 1..512",
     scn_mpi_redist},
    {"advise", "the advisor's predictions vs measurements: rank correlation, choice quality",
     scn_advise},
    {"adopt", "a LAPACK array to tiles and back: in place vs out of place vs the copy bound",
     scn_adopt},
};

const bench_scenario *bench_registry(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

const bench_scenario *bench_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i].name, name))
            return &registry[i];
    return NULL;
}
