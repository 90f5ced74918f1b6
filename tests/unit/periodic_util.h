// Shared helpers of the periodic tests, one file per source of lib/redist/periodic/ and
// plan_periodic.c (test_periodic_<name>.c): random ScaLAPACK matrices and submatrices, the
// 16-domain topology of their suites, element-by-element checks of an execution, and the
// guarded source columns and row patterns that the program tests (unit, pairs, masks) build
// by hand as periodic_runs.c would.
#ifndef NUMATILE_TEST_PERIODIC_UTIL_H
#define NUMATILE_TEST_PERIODIC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "nt_core.h"
#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_lines.h"
#include "lib/redist/periodic/nt_periodic.h"
#include "numa/nt_numa.h"

// Random cases per test: fewer under ASan, which is several times slower.
#ifdef __SANITIZE_ADDRESS__
#define NPLANS 500
#define NEXEC 60
#else
#define NPLANS 3000
#define NEXEC 300
#endif

// The 16-domain topology of the execution suites, loaded by exec_setup() (every suite with
// executions names it as .init) and freed by exec_teardown() (its .fini).
extern nt_topo_t *topo4;
void exec_setup(void);
void exec_teardown(void);

// A uniform integer in lo..hi.
int64_t rnd(nt_rng *g, int64_t lo, int64_t hi);

// A random block-cyclic ScaLAPACK matrix: tile sizes 1..64 (small ones often), grid 1..4 x
// 1..4, sometimes super-blocks.
nt_matrix_t *random_bc(nt_rng *g, const nt_topo_t *t, int64_t m, int64_t n, size_t es,
                       unsigned flags);

// A random submatrix that fits both S and T (often all the rows or columns they share).
nt_sub_t random_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T);

// A ScaLAPACK matrix of doubles on a random grid with row blocks of mb and column blocks of
// 1..nbmax.
nt_matrix_t *rows_bc(nt_rng *g, int64_t m, int64_t n, int64_t mb, int nbmax, unsigned flags);

// A random submatrix of S and T whose rows (at least 4 * min4) and row offsets are multiples
// of 4 (quad), or the same with 1-2 rows fewer (not quad).
nt_sub_t half_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T, int64_t min4,
                  bool quad);

// bench scalapack's grids: S m x n doubles on bc2d:2x2 with blocks smb x snb (allocated), T on
// bc2d:4x1 with blocks tmb x tnb (fresh: no memory), both ScaLAPACK layout on 4 domains.
void bench_grids(int64_t m, int64_t n, int64_t smb, int64_t snb, int64_t tmb, int64_t tnb,
                 nt_matrix_t **S, nt_matrix_t **T);

// Target elements outside the submatrix that are not zero (a fresh target starts at zero).
int64_t nonzero_outside(const nt_matrix_t *T, const nt_sub_t *s);

// Case k's target against the source pattern (seed) element by element, and zero outside the
// submatrix (lines shared with elements outside it were not overwritten); then S, T and p go.
void check_and_free(nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *p, const nt_sub_t *s,
                    uint64_t seed, int k);

// S filled with the pattern of seed, s planned from S to T and executed in global order with
// 0-2 threads per domain (the forced-path tests set their hooks before); returns the plan.
nt_plan_t *global_exec(nt_rng *g, nt_matrix_t *S, nt_matrix_t *T, const nt_sub_t *s,
                       uint64_t seed);

// Local index of global index g in CYCLIC(r) over p processes.
int64_t cyc_local(int64_t g, int64_t r, int p);

// Least common multiple of a and b.
int64_t lcm(int64_t a, int64_t b);

// n source columns, each in a page followed by an inaccessible one (base[a]), so that reading
// past a column's end faults; guard_column() puts column a's len elements (1000 a + e) right
// before the inaccessible page; guard_unmap() frees them.
enum { GUARD_PG = 4096 };
void guard_map(char **base, int n);
void guard_unmap(char **base, int n);
const char *guard_column(char *base, int a, int64_t len);

// The shortest pattern of at most MAX_PERIOD runs that list r of n runs repeats (false: none).
bool find_pattern(const prun *r, int n, bool unit, plist *L);

// The rows list of m rows in global order from S source grid rows of blocks smb (from source
// row os) and P target grid rows of blocks tmb (from row 0), runs merged, as a pattern (false:
// none found).
bool block_rows(int S, int smb, int P, int tmb, int os, int m, prun *r, int *nr, plist *L);

// After a program wrote m rows (source rows from os, target rows from 0; grid rows S and P,
// blocks smb and tmb) into the target columns dcol from guard_column() sources: every target
// element against the per-element owner formula.
void check_rows(char *const *dcol, int S, int smb, int P, int tmb, int os, int m, int shift);

#endif
