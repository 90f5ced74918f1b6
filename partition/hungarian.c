// Minimum-cost perfect matching: shortest augmenting paths with potentials (the Hungarian
// method in the Dijkstra form of Jonker and Volgenant), O(p^3), exact in int64, forbidden
// pairs left out. Rows = domains, columns = components; the matrix is read row by row.
#include <stdlib.h>

#include "nt_partition.h"

#define INF INT64_MAX

typedef struct lap {
    int p;
    const int64_t *c;
    int64_t *v;   // column potentials; row potentials are implicit: u_i = c[i][x_i] - v[x_i]
    int *x, *y;   // x[row] = column, y[column] = row, -1 if free
    int *cols;    // column permutation: [0, lo) done, [lo, hi) at the current distance, rest
    int *pred;    // row before each column on its shortest path
    int64_t *d;   // tentative distance of each column
} lap;

// Entry (i,j) of the cost matrix: the stored value, or its negation when maximising (neg is a
// compile-time constant in each instantiation, so the test disappears).
#define COST(x) (neg ? -(x) : (x))
#define FORBID(x) (!neg && (x) == NT_FORBIDDEN)

// The helpers are inlined into each instantiation of solve (neg = 0 or 1).
#define INLINE static inline __attribute__((always_inline))

// Shortest path (reduced costs) from free row s to a free column; returns the column or -1,
// and leaves in *ready the number of columns settled before it (cols[0..*ready-1]); the
// columns of the final level have distance mind, so their potentials need no update.
INLINE int find_path(lap *L, int s, int *ready, int64_t *mind_out, const int neg)
{
    int p = L->p;
    const int64_t *row = L->c + (int64_t)s * p;
    for (int j = 0; j < p; j++) {
        L->cols[j] = j;
        L->pred[j] = s;
        L->d[j] = FORBID(row[j]) ? INF : COST(row[j]) - L->v[j];
    }
    int lo = 0, hi = 0;
    int64_t mind = 0;
    for (;;) {
        if (lo == hi) {
            // Next distance level: gather every column at the minimum; a free one ends it.
            mind = INF;
            for (int k = lo; k < p; k++) {
                int j = L->cols[k];
                int64_t dj = L->d[j];
                if (dj > mind || dj == INF)
                    continue;
                if (dj < mind) {
                    hi = lo;
                    mind = dj;
                }
                L->cols[k] = L->cols[hi];
                L->cols[hi++] = j;
            }
            if (mind == INF)
                return -1;
            for (int k = lo; k < hi; k++)
                if (L->y[L->cols[k]] < 0) {
                    *ready = lo;
                    *mind_out = mind;
                    return L->cols[k];
                }
        }
        // Scan the row matched to one column of the current level.
        int j = L->cols[lo++];
        int i = L->y[j];
        const int64_t *r = L->c + (int64_t)i * p;
        int64_t h = COST(r[j]) - L->v[j] - mind;
        for (int k = hi; k < p; k++) {
            int jj = L->cols[k];
            int64_t cij = r[jj];
            if (FORBID(cij))
                continue;
            int64_t cred = COST(cij) - L->v[jj] - h;
            if (cred < L->d[jj]) {
                L->d[jj] = cred;
                L->pred[jj] = i;
                if (cred == mind) {
                    if (L->y[jj] < 0) {
                        *ready = lo;
                        *mind_out = mind;
                        return jj;
                    }
                    L->cols[k] = L->cols[hi];
                    L->cols[hi++] = jj;
                }
            }
        }
    }
}

// Column reduction (v_j = column minimum) in one row-major pass, with the range check; every
// row and column starts free.
INLINE nt_status reduce_columns(lap *L, const int neg)
{
    int p = L->p;
    const int64_t lim = nt_assign_cost_limit(p);
    for (int j = 0; j < p; j++) {
        L->v[j] = INF;
        L->y[j] = -1;
    }
    for (int i = 0; i < p; i++) {
        L->x[i] = -1;
        const int64_t *row = L->c + (int64_t)i * p;
        for (int j = 0; j < p; j++) {
            if (FORBID(row[j]))
                continue;
            int64_t c = COST(row[j]);
            if (c > lim || c < -lim)
                return nt_fail(NT_ERANGE, "assignment: cost[%d][%d] = %lld is outside +-%lld "
                               "(2^58 / p)", i, j, (long long)c, (long long)lim);
            if (c < L->v[j])
                L->v[j] = c;
        }
    }
    for (int j = 0; j < p; j++)
        if (L->v[j] == INF)
            return nt_fail(NT_EINVAL, "assignment: no perfect matching (column %d has no "
                           "allowed row)", j);
    return NT_OK;
}

// Greedy start on the zero reduced costs: with u = 0 every reduced cost is >= 0 and a row's
// matched column is one of its minima, the invariant find_path relies on.
INLINE void greedy_start(lap *L, const int neg)
{
    int p = L->p;
    for (int i = 0; i < p; i++) {
        const int64_t *row = L->c + (int64_t)i * p;
        for (int j = 0; j < p; j++)
            if (L->y[j] < 0 && !FORBID(row[j]) && COST(row[j]) == L->v[j]) {
                L->x[i] = j;
                L->y[j] = i;
                break;
            }
    }
}

// Place every free row along a shortest augmenting path, updating the potentials.
INLINE nt_status augment_all(lap *L, const int neg)
{
    for (int s = 0; s < L->p; s++) {
        if (L->x[s] >= 0)
            continue;
        int ready;
        int64_t mind;
        int j = find_path(L, s, &ready, &mind, neg);
        if (j < 0)
            return nt_fail(NT_EINVAL, "assignment: no perfect matching avoids the forbidden "
                           "pairs (row %d cannot be placed)", s);
        // Potentials of the columns settled before the final level move by their slack.
        for (int k = 0; k < ready; k++) {
            int jj = L->cols[k];
            L->v[jj] += L->d[jj] - mind;
        }
        for (;;) {
            int i = L->pred[j];
            L->y[j] = i;
            int k = L->x[i];
            L->x[i] = j;
            j = k;
            if (i == s)
                break;
        }
    }
    return NT_OK;
}

INLINE nt_status solve(const int64_t *cost, int p, int *col_to_row, int64_t *total, const int neg)
{
    lap L = {p, cost, NULL, NULL, NULL, NULL, NULL, NULL};
    L.v = malloc((size_t)p * sizeof *L.v);
    L.d = malloc((size_t)p * sizeof *L.d);
    L.x = malloc((size_t)p * sizeof *L.x);
    L.y = malloc((size_t)p * sizeof *L.y);
    L.cols = malloc((size_t)p * sizeof *L.cols);
    L.pred = malloc((size_t)p * sizeof *L.pred);
    nt_status st = NT_OK;
    if (!L.v || !L.d || !L.x || !L.y || !L.cols || !L.pred)
        st = nt_fail(NT_ENOMEM, "assignment: cannot allocate scratch for p = %d", p);
    if (st == NT_OK && (st = reduce_columns(&L, neg)) == NT_OK) {
        greedy_start(&L, neg);
        st = augment_all(&L, neg);
    }
    if (st == NT_OK) {
        int64_t sum = 0;
        for (int j = 0; j < p; j++) {
            col_to_row[j] = L.y[j];
            sum += COST(cost[(int64_t)L.y[j] * p + j]);
        }
        if (total)
            *total = sum;
    }
    free(L.v);
    free(L.d);
    free(L.x);
    free(L.y);
    free(L.cols);
    free(L.pred);
    return st;
}

nt_status nt_match_assignment(const int64_t *cost, int p, int *col_to_row, int64_t *total)
{
    if (!cost || !col_to_row || p < 1)
        return nt_fail(NT_EINVAL, "assignment: cost or col_to_row is NULL, or p %d < 1", p);
    return solve(cost, p, col_to_row, total, 0);
}

nt_status nt_assign_max(const int64_t *weight, int p, int *col_to_row, int64_t *total)
{
    int64_t neg_total = 0;
    nt_status st = solve(weight, p, col_to_row, &neg_total, 1);
    if (st == NT_OK && total)
        *total = -neg_total;
    return st;
}
