// Bottleneck perfect matching: the smallest threshold t such that the edges of weight <= t hold
// a perfect matching, by binary search over the weights with Hopcroft-Karp as the test.
#include <stdlib.h>

#include "nt_partition.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

// Graph of the allowed edges with weight <= t, then a maximum matching (warm-started).
static int feasible(const int64_t *w, int p, int64_t t, nt_bigraph *g, nt_hk *hk)
{
    int64_t e = 0;
    for (int i = 0; i < p; i++) {
        g->start[i] = e;
        const int64_t *row = w + (int64_t)i * p;
        for (int j = 0; j < p; j++)
            if (row[j] != NT_FORBIDDEN && row[j] <= t)
                g->adj[e++] = j;
    }
    g->start[p] = e;
    return nt_hk_maximum(hk, g) == p;
}

// Every row and every column needs one edge, so the answer is at least the largest of the row
// minima and column minima (*lb); *maxw is the largest allowed weight.
static nt_status lower_bound(const int64_t *weight, int p, int64_t *lb, int64_t *maxw)
{
    int64_t *colmin = malloc((size_t)p * sizeof *colmin);
    if (!colmin)
        return nt_fail(NT_ENOMEM, "bottleneck: cannot allocate scratch for p = %d", p);
    for (int j = 0; j < p; j++)
        colmin[j] = NT_FORBIDDEN;
    *lb = INT64_MIN;
    *maxw = INT64_MIN;
    nt_status st = NT_OK;
    for (int i = 0; i < p && st == NT_OK; i++) {
        const int64_t *row = weight + (int64_t)i * p;
        int64_t rmin = NT_FORBIDDEN;
        for (int j = 0; j < p; j++) {
            int64_t x = row[j];
            if (x == NT_FORBIDDEN)
                continue;
            if (x < rmin)
                rmin = x;
            if (x < colmin[j])
                colmin[j] = x;
            if (x > *maxw)
                *maxw = x;
        }
        if (rmin == NT_FORBIDDEN)
            st = nt_fail(NT_EINVAL, "bottleneck: no perfect matching (row %d has no allowed "
                         "column)", i);
        else if (rmin > *lb)
            *lb = rmin;
    }
    for (int j = 0; j < p && st == NT_OK; j++) {
        if (colmin[j] == NT_FORBIDDEN)
            st = nt_fail(NT_EINVAL, "bottleneck: no perfect matching (column %d has no allowed "
                         "row)", j);
        else if (colmin[j] > *lb)
            *lb = colmin[j];
    }
    free(colmin);
    return st;
}

// Small range: binary search over the integers in (lb, maxw]; the least feasible one is always
// a weight.
static int64_t search_integers(const int64_t *weight, int p, int64_t lb, int64_t maxw,
                               nt_bigraph *g, nt_hk *hk)
{
    int64_t lo = lb, hi = maxw;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (feasible(weight, p, mid, g, hk))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

// Wide range: binary search over the sorted distinct weights in (lb, maxw].
static nt_status search_weights(const int64_t *weight, int p, int64_t lb, nt_bigraph *g,
                                nt_hk *hk, int64_t *answer)
{
    size_t n = 0;
    int64_t *cand = malloc((size_t)p * (size_t)p * sizeof *cand);
    if (!cand)
        return nt_fail(NT_ENOMEM, "bottleneck: cannot allocate %d x %d weights", p, p);
    for (int64_t x = 0; x < (int64_t)p * p; x++)
        if (weight[x] != NT_FORBIDDEN && weight[x] > lb)
            cand[n++] = weight[x];
    qsort(cand, n, sizeof *cand, cmp_i64);
    size_t m = 0;
    for (size_t x = 0; x < n; x++)
        if (m == 0 || cand[x] != cand[m - 1])
            cand[m++] = cand[x];
    size_t lo = 0, hi = m - 1; // cand[hi] = maxw is feasible
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (feasible(weight, p, cand[mid], g, hk))
            hi = mid;
        else
            lo = mid + 1;
    }
    *answer = cand[hi];
    free(cand);
    return NT_OK;
}

// The least feasible threshold, then the matching rebuilt at it (the last test may have been a
// failing one).
static nt_status threshold(const int64_t *weight, int p, int64_t lb, int64_t maxw,
                           nt_bigraph *g, nt_hk *hk, int64_t *answer)
{
    nt_status st;
    if (feasible(weight, p, lb, g, hk))
        *answer = lb;
    else if (!feasible(weight, p, maxw, g, hk))
        return nt_fail(NT_EINVAL, "bottleneck: no perfect matching avoids the forbidden pairs");
    else if ((uint64_t)maxw - (uint64_t)lb <= ((uint64_t)1 << 20))
        *answer = search_integers(weight, p, lb, maxw, g, hk);
    else if ((st = search_weights(weight, p, lb, g, hk, answer)) != NT_OK)
        return st;
    if (!feasible(weight, p, *answer, g, hk))
        return nt_fail(NT_EINVAL, "bottleneck: internal inconsistency at threshold %lld",
                       (long long)*answer);
    return NT_OK;
}

nt_status nt_match_bottleneck(const int64_t *weight, int p, int *col_to_row,
                              int64_t *bottleneck)
{
    if (!weight || !col_to_row || p < 1)
        return nt_fail(NT_EINVAL, "bottleneck: weight or col_to_row is NULL, or p %d < 1", p);
    int64_t lb = 0, maxw = 0, answer = 0;
    nt_status st = lower_bound(weight, p, &lb, &maxw);
    if (st != NT_OK)
        return st;
    nt_bigraph g;
    nt_hk hk;
    if ((st = nt_bigraph_init(&g, p)) != NT_OK)
        return st;
    if ((st = nt_hk_init(&hk, p)) != NT_OK) {
        nt_bigraph_free(&g);
        return st;
    }
    if ((st = threshold(weight, p, lb, maxw, &g, &hk, &answer)) == NT_OK) {
        for (int j = 0; j < p; j++)
            col_to_row[j] = hk.col_match[j];
        if (bottleneck)
            *bottleneck = answer;
    }
    nt_hk_free(&hk);
    nt_bigraph_free(&g);
    return st;
}
