// Internal declarations shared by the partition/ sources, and nt_bcgrid_detect with lib/matrix.c
// (the block-cyclic pattern a matrix map is checked against). Not installed.
#ifndef NUMATILE_PARTITION_H
#define NUMATILE_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"

// Marks a forbidden pair in cost and weight matrices.
#define NT_FORBIDDEN INT64_MAX

// Largest |cost| accepted by the assignment solver for size p (keeps potentials in range).
static inline int64_t nt_assign_cost_limit(int p)
{
    return ((int64_t)1 << 58) / (p > 0 ? p : 1);
}

// Maximum-weight perfect matching of a square matrix without forbidden pairs (the assignment
// solver on the negated weights, without copying them); |weights| <= nt_assign_cost_limit(p).
nt_status nt_assign_max(const int64_t *weight, int p, int *col_to_row, int64_t *total);

// Check grid sizes and allocate a map with owner[] zeroed; the common start of every generator.
nt_status nt_tilemap_alloc(int64_t mt, int64_t nt, int ndomains, nt_tilemap_t **out);

// Shuffle a[0..n-1] uniformly (Fisher-Yates, drawing from the end).
void nt_shuffle_int(int *a, int64_t n, nt_rng *rng);

// Bipartite graph in compressed rows: row r's neighbours (columns) are
// adj[start[r] .. start[r+1]-1]. Rows and columns both number p.
typedef struct nt_bigraph {
    int p;
    int64_t *start; // p + 1 offsets
    int *adj;       // up to p * p columns
} nt_bigraph;

// Scratch and matching state for Hopcroft-Karp; allocate once, reuse for many graphs.
typedef struct nt_hk {
    int p;
    int *row_match; // column of each row, -1 if free
    int *col_match; // row of each column, -1 if free
    int *layer;     // BFS layer of each row
    int *queue;     // BFS queue / DFS stack (rows)
    int64_t *it;    // DFS position in each row's adjacency
} nt_hk;

nt_status nt_bigraph_init(nt_bigraph *g, int p);
void nt_bigraph_free(nt_bigraph *g);

// Allocate the state with an empty matching.
nt_status nt_hk_init(nt_hk *hk, int p);
void nt_hk_free(nt_hk *hk);

// Drop from the current matching every pair that is not an edge of g (keeps the rest as a warm
// start), then grow it to a maximum matching of g. Returns the matching size.
int nt_hk_maximum(nt_hk *hk, const nt_bigraph *g);

// Validate an int64 count matrix (entries >= 0) and return its total in *total.
nt_status nt_counts_total(const int64_t *counts, int p_ini, int p_tar, int64_t *total);

// Check 1 <= p_ini, p_tar <= p_dom (who names the caller in the message).
nt_status nt_shape_check(const char *who, int p_ini, int p_tar, int p_dom);

// Check that sigma[0..p_tar-1] are distinct domains in 0..p_dom-1.
nt_status nt_sigma_check(const char *who, const int *sigma, int p_tar, int p_dom);

// Text scanning (scan.c), the one scanner of the instance and tile-map files and of the DIST
// grammars (the files themselves are read by nt_read_file(), core/nt_core.h).

// Blanks separate tokens within a line: space, \t, \r, \v, \f (not \n, which ends it).
bool nt_scan_is_blank(char c);

// End of the line starting at s: the first '\n' in [s, end), or end.
const char *nt_scan_eol(const char *s, const char *end);

// Next token of the line [*s, eol): blanks skipped, '#' starts a comment to the end of the
// line. On a token, sets *tok and *len, moves *s past it and returns true; false when the line
// holds no more tokens.
bool nt_scan_token(const char **s, const char *eol, const char **tok, size_t *len);

// The decimal digits that start [s, end) (no sign): returns their count (0 = none) and their
// value in *v; *over tells whether the value exceeds max (then *v = max).
size_t nt_scan_digits(const char *s, const char *end, uint64_t max, uint64_t *v, bool *over);

// items[0..n-1] joined by sep, with last before the final item ("a, b or c"), snprintf-style:
// writes at most cap bytes (NUL included) and returns the full length.
size_t nt_text_join(char *buf, size_t cap, const char *const *items, int n, const char *sep,
                    const char *last);

// Validation of stencil model parameters (iters >= 0, finite non-negative taus), shared by the
// cost model and the Part&Redistrib heuristic.
struct nt_stencil_params;
nt_status nt_stencil_check_params(const struct nt_stencil_params *params);

// Block-cyclic parameters of a tile map owner[mt*nt] with labels in 0..ndomains-1 (p = 0 when
// it is not block-cyclic). nt_bcgrid_t is defined in numatile/matrix.h.
struct nt_bcgrid;
struct nt_bcgrid nt_bcgrid_detect(const int *owner, int64_t mt, int64_t nt, int ndomains);

// Sparse count matrices (sparse_counts.c): check n (offsets, columns in range and once per row,
// counts >= 0, total <= 2^60; who names the caller) and resolve p_dom (0 = max(p_ini, p_tar))
// into *pd; *total is the sum of the counts.
nt_status nt_sparse_check(const char *who, const nt_sparse_counts_t *n, int p_dom, int *pd,
                          int64_t *total);

// The sparse matrix of n (row[x], col[x], w[x]) triples (w NULL: 1 each; else >= 1), repeated
// pairs summed (sparse_build.c). who and what name the caller and the triples in messages.
nt_status nt_sparse_from_triples(const char *who, const char *what, int p_rows, int p_cols,
                                 int64_t n, const int *row, const int *col, const int64_t *w,
                                 nt_sparse_counts_t *out);

// A count matrix as a Kronecker product of two factors with relabelled rows and columns
// (sparse_kron.c): row i (a source domain) holds a.count[x] * b.count[y] in column
// colid[a.col[x] * b.p_tar + b.col[y]] (colid NULL: that index itself, nt_kron_col()) for x in
// a's row ra[i] and y in b's row rb[i] (ra[i] < 0: an empty row; a column < 0: no entry). Rows
// and columns may be numbered apart from the domains: rdom and cdom give their domains (NULL:
// the same numbers); nt_kron_match() and nt_kron_cost() take and give labellings of domains. The counts of a block-cyclic change are one (row pairs
// x column pairs), and a plain sparse matrix n is n x [1]: the solver reads rows from the
// factors, so the product is never stored.
typedef struct nt_kron {
    int p_ini, p_tar;
    nt_sparse_counts_t a, b; // the factors (a's arrays borrowed when own_a is false)
    int *ra, *rb;            // factor rows of each row, p_ini of each
    int *colid;              // columns of the product, a.p_tar * b.p_tar, or NULL
    int *rdom, *cdom;        // domains of the rows and of the columns, or NULL
    int64_t nnz;             // entries (the products of the factor rows' lengths)
    int64_t widest;          // most entries of one row
    bool own_a;
} nt_kron_t;

static inline int nt_kron_col(const nt_kron_t *k, int x, int y)
{
    int c = x * k->b.p_tar + y;
    return k->colid ? k->colid[c] : c;
}

// n as n x [1], borrowing n's arrays (n checked by the caller).
nt_status nt_kron_of_sparse(const nt_sparse_counts_t *n, nt_kron_t *k);
// The counts of a block-cyclic layout change as row pairs x column pairs (sparse_bc.c; the
// same checks as nt_sparse_counts_bc()).
nt_status nt_kron_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                     const nt_bc_layout_t *dst, int p_tar, nt_kron_t *k);
// The transposed product (components as rows), its factors transposed.
nt_status nt_kron_transpose(const nt_kron_t *k, nt_kron_t *t);
// k->nnz and k->widest from the factor rows' lengths.
void nt_kron_sizes(nt_kron_t *k);
// Row i's positive entries into col[] and w[] (k->widest room each); returns how many.
int64_t nt_kron_row(const nt_kron_t *k, int i, int *col, int64_t *w);
// Costs of sigma (as nt_sparse_cost(); total = the sum of the counts).
nt_status nt_kron_cost(const nt_kron_t *k, int pd, const int *sigma, int64_t total,
                       nt_cost_t *cost);
void nt_kron_free(nt_kron_t *k);
// The least-volume labelling of k (match_sparse.c), sigma and cost as nt_match_sparse_volume()
// (pd resolved, total the sum of the counts, <= 2^60).
nt_status nt_kron_match(const nt_kron_t *k, int pd, int64_t total, int *sigma, nt_cost_t *cost);

// A large array (bytes >= 8 MiB) in transparent huge pages where the kernel grants them, else
// malloc(); release it with free() (sparse_mem.c). NULL when out of memory.
void *nt_sparse_alloc(size_t bytes);

#endif
