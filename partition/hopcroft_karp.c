// Maximum bipartite matching (Hopcroft-Karp, O(E sqrt V)) on compressed-row graphs, with a warm
// start from the previous matching so that repeated calls on similar graphs are cheap.
#include <stdlib.h>

#include "nt_partition.h"

nt_status nt_bigraph_init(nt_bigraph *g, int p)
{
    size_t cells;
    g->p = p;
    g->start = malloc(((size_t)p + 1) * sizeof *g->start);
    g->adj = nt_mul_size((size_t)p, (size_t)p, &cells) && cells <= SIZE_MAX / sizeof(int)
                 ? malloc(cells * sizeof *g->adj)
                 : NULL;
    if (!g->start || !g->adj) {
        nt_bigraph_free(g);
        return nt_fail(NT_ENOMEM, "matching: cannot allocate a %d x %d graph", p, p);
    }
    return NT_OK;
}

void nt_bigraph_free(nt_bigraph *g)
{
    free(g->start);
    free(g->adj);
    g->start = NULL;
    g->adj = NULL;
}

nt_status nt_hk_init(nt_hk *hk, int p)
{
    hk->p = p;
    hk->row_match = malloc((size_t)p * sizeof(int));
    hk->col_match = malloc((size_t)p * sizeof(int));
    hk->layer = malloc((size_t)p * sizeof(int));
    hk->queue = malloc((size_t)p * sizeof(int));
    hk->it = malloc((size_t)p * sizeof(int64_t));
    if (!hk->row_match || !hk->col_match || !hk->layer || !hk->queue || !hk->it) {
        nt_hk_free(hk);
        return nt_fail(NT_ENOMEM, "matching: cannot allocate scratch for p = %d", p);
    }
    for (int i = 0; i < p; i++)
        hk->row_match[i] = hk->col_match[i] = -1;
    return NT_OK;
}

void nt_hk_free(nt_hk *hk)
{
    free(hk->row_match);
    free(hk->col_match);
    free(hk->layer);
    free(hk->queue);
    free(hk->it);
    hk->row_match = hk->col_match = hk->layer = hk->queue = NULL;
    hk->it = NULL;
}

// BFS layers from the free rows over alternating paths; true if a free column is reachable.
static int bfs(nt_hk *hk, const nt_bigraph *g)
{
    int p = hk->p, head = 0, tail = 0, found = 0;
    for (int i = 0; i < p; i++) {
        if (hk->row_match[i] < 0) {
            hk->layer[i] = 0;
            hk->queue[tail++] = i;
        } else {
            hk->layer[i] = -1;
        }
    }
    while (head < tail) {
        int r = hk->queue[head++];
        for (int64_t e = g->start[r]; e < g->start[r + 1]; e++) {
            int w = hk->col_match[g->adj[e]];
            if (w < 0)
                found = 1;
            else if (hk->layer[w] < 0) {
                hk->layer[w] = hk->layer[r] + 1;
                hk->queue[tail++] = w;
            }
        }
    }
    return found;
}

// Iterative DFS along the layers from free row r; augments and returns 1 on success.
static int dfs(nt_hk *hk, const nt_bigraph *g, int r)
{
    int *stack = hk->queue, top = 0;
    stack[top++] = r;
    while (top > 0) {
        int x = stack[top - 1];
        if (hk->it[x] == g->start[x + 1]) {
            hk->layer[x] = -1; // dead end for the rest of this phase
            top--;
            continue;
        }
        int c = g->adj[hk->it[x]];
        int w = hk->col_match[c];
        if (w < 0) {
            // Flip the path: every row on the stack takes the column it points at.
            for (int t = top - 1; t >= 0; t--) {
                int y = stack[t], cy = g->adj[hk->it[y]];
                hk->row_match[y] = cy;
                hk->col_match[cy] = y;
            }
            return 1;
        }
        if (hk->layer[w] == hk->layer[x] + 1 && w != x) {
            stack[top++] = w;
        } else {
            hk->it[x]++;
        }
    }
    return 0;
}

int nt_hk_maximum(nt_hk *hk, const nt_bigraph *g)
{
    int p = hk->p, size = 0;
    // Keep only the pairs that are still edges (adjacency lists are short scans).
    for (int i = 0; i < p; i++) {
        int c = hk->row_match[i];
        if (c < 0)
            continue;
        int keep = 0;
        for (int64_t e = g->start[i]; e < g->start[i + 1] && !keep; e++)
            keep = g->adj[e] == c;
        if (keep) {
            size++;
        } else {
            hk->row_match[i] = -1;
            hk->col_match[c] = -1;
        }
    }
    while (size < p && bfs(hk, g)) {
        for (int i = 0; i < p; i++)
            hk->it[i] = g->start[i];
        for (int i = 0; i < p; i++)
            if (hk->row_match[i] < 0 && hk->layer[i] == 0)
                size += dfs(hk, g, i);
    }
    return size;
}
