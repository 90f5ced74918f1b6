// Periodic plans' runs (periodic_runs.c), copy kernels (periodic_copy.c), pair programs
// (periodic_pairs.c) and unit programs (periodic_unit.c), shared with their executor
// (exec_periodic.c).
#ifndef NUMATILE_PERIODIC_INTERNAL_H
#define NUMATILE_PERIODIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/redist/nt_plan.h"

// Local indices [sl, sl + len) of the source map to [tl, tl + len) of the target; u = number
// of indices in the list before this run (the position of the run in its list).
typedef struct prun {
    int64_t sl, tl, len, u;
    int64_t x; // position in the submatrix (global order)
    int a, b;  // source and target grid coordinates (merged lists mix them)
} prun;

// A list of runs as a pattern of npat runs repeated reps times, each repetition shifted by
// (ds, dt) local indices, then the first rem runs once more: short runs of a block-cyclic pair
// repeat with the period of the two distributions, so the copy loop reads a few runs per
// column instead of one per element.
typedef struct plist {
    int64_t npat, reps, rem, ds, dt;
    bool unit; // every run is one element long (CYCLIC(1) on one side, small blocks on both)
} plist;

// Runs of one dimension by (source coordinate a, target coordinate b): list k = a * nb + b is
// r[first[k] .. first[k] + cnt[k]), holds total[k] indices and repeats as pat[k].
typedef struct runs {
    prun *r;
    int64_t *first, *cnt, *total;
    plist *pat;
    int na, nb;
} runs;

// Longest pattern period tried (in runs); lists without a shorter one are copied run by run.
#define MAX_PERIOD 64

// How nt_merge_runs() groups the lists.
typedef enum merge_by { BY_TARGET, BY_SOURCE, BY_NONE } merge_by;

// The runs of one dimension (rows when `rows`) from its pieces, by (source, target) pair.
nt_status nt_runs_build(const nt_plan_geo_t *g, const nt_dim_t *d, bool rows, runs *R);
void nt_runs_free(runs *R);
// The lists of R merged (see periodic_runs.c).
nt_status nt_merge_runs(const runs *R, merge_by by, runs *M);
// First run of list k whose positions reach past u.
int64_t nt_run_at(const runs *R, size_t k, int64_t u);

// Runs of at least this many bytes are written with non-temporal stores when the whole move
// is large (see prepare()): a cached store first reads the line it writes, so a copy far
// larger than the caches moves 3 bytes per byte instead of 2. Shorter runs stay cached: mixing
// streamed and cached stores in one target column measured slower (nb 64 -> 100 with 512-byte
// streamed runs: 0.030 s against 0.014 s cached).
#define NT_STREAM_RUN 2048

// Copies of one column (periodic_copy.c): the pattern of list r/L, source column src[a] and
// target column dst[b] of each run; `stream`: non-temporal stores for long runs (then call
// nt_stream_fence() before the copies must be visible).
void nt_copy_column(char *const *dst, const char *const *src, const prun *r, const plist *L,
                 size_t es, bool stream);
void nt_stream_fence(void);

// Test hook of exec_periodic.c: mode -1 (default) writes through line writers when runs are
// long enough on average, 0 never, 1 whenever the order and element size allow (and each
// target's runs in a column follow each other, and they pack as lrun), 2 the same
// without the AVX-512 loop, 4 with it but never by whole halves (nt_lines_put4_avx512());
// returns how many executions used line writers since the previous call.
int64_t nt_exec_test_lines(int mode);
// How many of those wrote every run by whole halves of lines, since the previous call.
int64_t nt_exec_test_halves(void);
// Pair programs (periodic_pairs.c): mode -1 (default) where the whole-halves runs average a
// line or less, 0 never, 1 whenever the pattern fits; returns how many executions used them
// since the previous call.
int64_t nt_exec_test_pairs(int mode);
// Reads one column ahead (see ahead_init() in exec_periodic.c): mode -1 (default) wherever the
// writers' masked loop runs, and where mask programs read sources in pieces, 0 never, 1
// whenever either runs; returns how many executions read ahead since the previous call.
int64_t nt_exec_test_ahead(int mode);

struct nt_lines;
// The same for 8-byte elements in global order, through line writers (nt_lines.h): w[b]
// writes target grid row b's column, started by the caller at the column's first element of
// b (the runs of each target continue each other, so each target column is written in order
// and its whole lines are streamed). The caller flushes the writers after the column.
// avx512: the AVX-512 loop (only where nt_lines_avx512()); quad (with avx512): every run and
// every writer's start are whole halves of lines (4 elements, 32-byte aligned). The runs come
// as lrun, four to a cache line: the columns streamed through the first-level cache evict
// the list between two columns, and 48-byte prun then cost nb 64 -> 100 (204 runs a column at
// N = 8192) 3% of its copy. nt_lrun_pack() fills q from r (false when a run does not fit).
// ahead (with avx512, not quad; NULL: none): before each run, ask for the same rows of the
// next column of its source grid row a, ahead[a * stride] bytes further (see ahead_init() in
// exec_periodic.c for where that pays).
typedef struct lrun {
    int64_t sl;   // first source index
    int32_t len;  // elements
    uint16_t a, b; // source and target grid rows
} lrun;
bool nt_lrun_pack(const prun *r, int64_t n, lrun *q);
void nt_copy_column_lines(struct nt_lines *w, const char *const *src, const lrun *q,
                       const plist *L, bool avx512, bool quad, const int64_t *ahead, int stride);

// Where the elements of a list of runs come from, for the programs below: per target grid row
// b, c[b] its first local row in a column and n[b] its elements per column; ua/ul[b * dt + u]
// the source grid row and local row (period 0) of its element u. nt_psrc_periodic() tables them
// from the whole list r of n runs, each target taking dt elements a period and each source ds
// (a pattern's, or the grids'): the first period of each target tabled, every later element
// checked against it. NT_ENOMEM; *fits false (and nothing held) where a target's runs do not
// follow each other, the list is not so periodic, a target has elements but not a period, or
// a run is not of the quantum: one element (1), whole multiples of quantum from rows of
// multiples of quantum (2 and more), any (0). nt_psrc_free() accepts a zeroed psrc.
typedef struct psrc {
    int64_t ds, dt; // elements per period, each source and each target
    int64_t *c, *n;
    int *ua;
    int64_t *ul;
} psrc;
nt_status nt_psrc_periodic(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                        int quantum, psrc *ps, bool *fits);
void nt_psrc_free(psrc *ps);
// Target b's element rel (from its first in a column): source grid row *a, local row *sl.
static inline void psrc_at(const psrc *ps, int b, int64_t rel, int *a, int64_t *sl)
{
    int64_t p = (int64_t)b * ps->dt + rel % ps->dt;
    *a = ps->ua[p];
    *sl = ps->ul[p] + rel / ps->dt * ps->ds;
}
// Elements rel0 .. rel1 - 1 of target b into d (its first in the column), one by one from
// the source columns src (column ends: one division, then steps).
void nt_psrc_elements(const psrc *ps, int b, uint64_t *d, const uint64_t *const *src, int64_t rel0,
                   int64_t rel1);

// Pair programs (periodic_pairs.c): copies of 8-byte elements in global order whose runs are
// all whole halves of lines (4 elements, from rows of multiples of 4), each target line two
// 32-byte loads joined in a register and streamed (then call nt_stream_fence()). nt_pairs_build()
// tables list r/L (S source and P target grid rows); *out stays NULL where the pattern does not
// fit (no AVX-512, runs not whole halves, no period of at most MAX_PERIOD runs, a target's rows
// not consecutive in the pattern, a cycle of more than 16 lines, more than 16 target grid
// rows). nt_pairs_column() writes one column: dcol[b] the target column of target grid row b
// (NULL: none; not read for targets without elements), scol[a] the source columns; a target
// column whose first element is not on a half is copied element by element.
typedef struct nt_pairs nt_pairs;
nt_status nt_pairs_build(const prun *r, const plist *L, int S, int P, nt_pairs **out);
void nt_pairs_column(const nt_pairs *h, char *const *dcol, const char *const *scol);
void nt_pairs_free(nt_pairs *h);

// Mask programs (periodic_masks.c): copies of 8-byte elements in global order whose runs are
// short and of any length and alignment, each target line at most 4 masked loads (one per
// group of lanes at one distance in one source column) joined in a register and streamed
// (then call nt_stream_fence()). nt_masks_build() tables the whole list r of n runs (S source and P
// target grid rows) whose elements repeat every period of the grids, each target taking dt
// elements a period and each source ds; *out stays NULL where it does not fit (no AVX-512, a
// target's runs not following each other, elements not so periodic, a target with elements but
// not a period, a cycle of more than 16 lines, a line of more than 4 loads, more than 16
// target grid rows). nt_masks_column() writes one column: dcol[b] the target column of target grid
// row b (NULL: none; not read for targets without elements), scol[a] the source columns; ahead
// (NULL: none) as for nt_copy_column_lines().
typedef struct nt_masks nt_masks;
nt_status nt_masks_build(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                      nt_masks **out);
void nt_masks_column(const nt_masks *h, char *const *dcol, const char *const *scol,
                  const int64_t *ahead, int stride);
void nt_masks_free(nt_masks *h);
// Test hook of exec_periodic.c: mode -1 (default) for runs of 12 elements or less on average,
// neither whole halves nor all of one element (see masks_init()), 0 never, 1 whenever the
// order, element size and streaming allow; returns how many executions used them since the
// previous call.
int64_t nt_exec_test_masks(int mode);

// Unit programs (periodic_unit.c): copies of 8-byte elements whose runs are all one element
// long, each whole target line assembled in a register from windows of its sources and
// streamed (then call nt_stream_fence()). nt_unit_build() tables the whole list r of n runs (rows
// in global order: all targets', or one target's; S source and P target grid rows), each
// target taking dt elements a period of the grids and each source ds (nt_psrc_periodic()); *out
// stays NULL where it does not fit (no AVX-512, a run longer than one element, a target's
// runs not following each other, a cycle of more than 1024 elements, a line needing more
// than 4 windows, more than 16 target grid rows). nt_unit_column() writes one column: dcol[b]
// the target column of target grid row b (NULL: none; not read for targets without elements
// in the list), scol[a] the source columns, lld[a * stride] their leading dimensions
// (windows never read past them).
typedef struct nt_unit nt_unit;
nt_status nt_unit_build(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                     nt_unit **out);
void nt_unit_column(const nt_unit *u, char *const *dcol, const char *const *scol,
                 const int64_t *lld, int stride);
void nt_unit_free(nt_unit *u);

// Test hook of exec_periodic.c: mode -1 (default) copies unit patterns through unit programs
// when the move streams, 0 never, 1 whenever the order and element size allow; returns how
// many executions used them since the previous call.
int64_t nt_exec_test_unit(int mode);

#endif
