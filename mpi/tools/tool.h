// numatile-mpi's own header: what its files share. main.c: the entry point, messages, numbers,
// JSON; matrices.c: the block-cyclic matrix of one rank (dmat); redist.c: `numatile-mpi
// redist`; bench.c: `numatile-mpi bench`; bench_ops.c: its operation rows. Program-wide names start with tool_ or dmat_.
#ifndef NUMATILE_MPI_TOOL_H
#define NUMATILE_MPI_TOOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/mpi.h"

enum { TOOL_MAX_REPS = 1000 };

// This process's rank in MPI_COMM_WORLD and the number of ranks (set by main).
extern int tool_rank, tool_nranks;

// ---- main.c ---------------------------------------------------------------------------------

// Print "numatile-mpi: " fmt (with arg) on rank 0 only; every rank returns 2 (bad arguments).
int tool_usage(const char *fmt, const char *arg);

// Parse a whole decimal number in [lo, hi] (s may be NULL: false).
bool tool_number(const char *s, long lo, long hi, long *out);

// The median of v[0..n-1] (n >= 1), which it sorts.
double tool_median(double *v, int n);

// Print o as one compact JSON line on stdout and release it: 0, or 3 if it was not written.
int tool_print_json(json_t *o);

// ---- matrices.c: one block-cyclic matrix over the first P*Q ranks, row-major ----------------

typedef struct dmat {
    int64_t m, n, mb, nb;
    int p, q, prow, pcol; // prow = -1 outside the grid
    const int *ranks;     // the rank of each cell (row-major), NULL = cell number
    int64_t mloc, nloc, lld;
    char *a;
} dmat;

// The elements dmat_fill writes: false, numatile's pattern bytes (nt_matrix_pattern_value of
// the global coordinates); true (bench, which hands them to pdgemr2d as doubles), a finite
// double exact below 2^53.
extern bool dmat_double_values;

// TILE@DIST with TILE = MBxNB or MB and DIST = bc2d:PxQ or bc1d:P into d's block and grid
// sizes (the rest of *d zeroed); false if s is not such a layout.
bool dmat_parse_layout(const char *s, dmat *d);

// This rank's part, not filled (its pages untouched); false if out of memory.
bool dmat_alloc_only(dmat *d, size_t es);

// This rank's part, filled from pattern seed (every element); false if out of memory.
bool dmat_alloc(dmat *d, size_t es, uint64_t seed);

// Local columns [c0, c1) of this rank's part from pattern seed.
void dmat_fill_cols(dmat *d, size_t es, uint64_t seed, int64_t c0, int64_t c1);

// Every local column of this rank's part from pattern seed.
void dmat_fill(dmat *d, size_t es, uint64_t seed);

// d's layout as nt_mpi_redist takes it.
nt_mpi_grid_t dmat_grid(const dmat *d);

// Elements of b that differ from the oracle of a copy of submatrix sub (rows, cols, source
// row, source column, target row, target column) from pattern seed into a matrix holding
// pattern seed + 1: seed's pattern inside the submatrix, seed + 1's outside.
int64_t dmat_check(const dmat *b, size_t es, uint64_t seed, const int64_t *sub);

// ---- the subcommands (argv[1] is their name) -----------------------------------------------

int tool_redist(int argc, char **argv); // redist.c
int tool_bench(int argc, char **argv);  // bench.c

// bench_ops.c: the operation rows of `bench` (p?trmr2d, p?tran, p?tranc against ScaLAPACK's),
// printed as a table on rank 0 when text; *fail set when a check or a call failed.
json_t *tool_bench_ops(int n, int reps, int gctx, bool text, bool *fail);

#endif
