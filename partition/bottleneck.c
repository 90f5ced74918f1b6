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

nt_status nt_match_bottleneck(const int64_t *weight, int p, int *col_to_row,
                              int64_t *bottleneck)
{
    if (!weight || !col_to_row || p < 1)
        return nt_fail(NT_EINVAL, "bottleneck: weight or col_to_row is NULL, or p %d < 1", p);
    // Lower bound: every row and every column needs one edge, so the answer is at least the
    // largest of the row minima and column minima.
    int64_t *colmin = malloc((size_t)p * sizeof *colmin);
    if (!colmin)
        return nt_fail(NT_ENOMEM, "bottleneck: cannot allocate scratch for p = %d", p);
    for (int j = 0; j < p; j++)
        colmin[j] = NT_FORBIDDEN;
    int64_t lb = INT64_MIN, maxw = INT64_MIN;
    for (int i = 0; i < p; i++) {
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
            if (x > maxw)
                maxw = x;
        }
        if (rmin == NT_FORBIDDEN) {
            free(colmin);
            return nt_fail(NT_EINVAL, "bottleneck: no perfect matching (row %d has no allowed "
                           "column)", i);
        }
        if (rmin > lb)
            lb = rmin;
    }
    for (int j = 0; j < p; j++) {
        if (colmin[j] == NT_FORBIDDEN) {
            free(colmin);
            return nt_fail(NT_EINVAL, "bottleneck: no perfect matching (column %d has no "
                           "allowed row)", j);
        }
        if (colmin[j] > lb)
            lb = colmin[j];
    }
    free(colmin);

    nt_bigraph g;
    nt_hk hk;
    nt_status st = nt_bigraph_init(&g, p);
    if (st != NT_OK)
        return st;
    if ((st = nt_hk_init(&hk, p)) != NT_OK) {
        nt_bigraph_free(&g);
        return st;
    }
    int64_t *cand = NULL;
    int64_t answer;
    if (feasible(weight, p, lb, &g, &hk)) {
        answer = lb;
    } else if (!feasible(weight, p, maxw, &g, &hk)) {
        st = nt_fail(NT_EINVAL, "bottleneck: no perfect matching avoids the forbidden pairs");
        goto done;
    } else if ((uint64_t)maxw - (uint64_t)lb <= ((uint64_t)1 << 20)) {
        // Small range: search the integers; the least feasible one is always a weight.
        int64_t lo = lb, hi = maxw;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (feasible(weight, p, mid, &g, &hk))
                hi = mid;
            else
                lo = mid;
        }
        answer = hi;
    } else {
        // Wide range: search the sorted distinct weights in (lb, maxw].
        size_t n = 0;
        cand = malloc((size_t)p * (size_t)p * sizeof *cand);
        if (!cand) {
            st = nt_fail(NT_ENOMEM, "bottleneck: cannot allocate %d x %d weights", p, p);
            goto done;
        }
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
            if (feasible(weight, p, cand[mid], &g, &hk))
                hi = mid;
            else
                lo = mid + 1;
        }
        answer = cand[hi];
    }
    // The last test may have been a failing one: rebuild the matching at the answer.
    if (!feasible(weight, p, answer, &g, &hk)) {
        st = nt_fail(NT_EINVAL, "bottleneck: internal inconsistency at threshold %lld",
                     (long long)answer);
        goto done;
    }
    for (int j = 0; j < p; j++)
        col_to_row[j] = hk.col_match[j];
    if (bottleneck)
        *bottleneck = answer;
done:
    free(cand);
    nt_hk_free(&hk);
    nt_bigraph_free(&g);
    return st;
}
