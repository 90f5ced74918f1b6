// Minimum-volume relabelling from a sparse count matrix: a maximum-weight matching of the
// non-zero entries by successive shortest augmenting paths with potentials.
//
// Why this algorithm: it is exact in integers and needs only O(p + nnz) memory, and on the
// matrices of layout changes most source domains find their largest entry still free, so the
// Dijkstra search of a row usually stops after scanning that row alone. An auction would need
// epsilon scaling to be exact and is slower on the many equal weights of block-cyclic counts.
//
// The flow model: every row (source domain) is routed either to a column (component) it has an
// entry in, at cost -count, or to a "null" sink of unlimited capacity at cost 0 (the domain
// keeps no component of its own: with counts >= 0 the unmatched rows and columns are paired
// afterwards at no loss). Rows are added one at a time; each is routed along a shortest path of
// the residual graph in reduced costs c(a,b) + pi(a) - pi(b) >= 0, ending at a free column or at
// null. Free columns and null keep potential 0 (only nodes settled before the final distance
// change), so the first sink popped is a true shortest path. A row routed to null is never
// reached again (no column leads to it), so the residual arcs from null are left out.
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

#define INF INT64_MAX

typedef struct ssp {
    const nt_sparse_counts_t *n;
    int pt, null;        // columns; node id of the null sink (= pt)
    int64_t *pr, *pc;    // potentials of rows and of columns (pc[null] = 0)
    int *x, *y;          // x[row] = column, null, or -1 (not yet routed); y[col] = row or -1
    int64_t *d;          // tentative distance of each column / null
    int *pred;           // row before each column / null on its path
    char *state;         // 0 untouched, 1 in the heap, 2 settled
    int *heap, *pos, nh; // binary heap of columns / null by d, positions
    int *touched, nt;    // columns / null with state != 0, to reset
    int *srow, nsr;      // settled rows (their distance in sd)
    int64_t *sd;
} ssp;

static void heap_up(ssp *S, int k)
{
    int v = S->heap[k];
    while (k > 0) {
        int parent = (k - 1) / 2, u = S->heap[parent];
        if (S->d[u] <= S->d[v])
            break;
        S->heap[k] = u;
        S->pos[u] = k;
        k = parent;
    }
    S->heap[k] = v;
    S->pos[v] = k;
}

static int heap_pop(ssp *S)
{
    int top = S->heap[0], v = S->heap[--S->nh], k = 0;
    while (2 * k + 1 < S->nh) {
        int c = 2 * k + 1;
        if (c + 1 < S->nh && S->d[S->heap[c + 1]] < S->d[S->heap[c]])
            c++;
        if (S->d[S->heap[c]] >= S->d[v])
            break;
        S->heap[k] = S->heap[c];
        S->pos[S->heap[k]] = k;
        k = c;
    }
    if (S->nh > 0) {
        S->heap[k] = v;
        S->pos[v] = k;
    }
    return top;
}

static bool is_sink(const ssp *S, int v)
{
    return v == S->null || S->y[v] < 0;
}

// Offer distance nd to node v from row i; returns true when v is a sink reached at distance
// lim (the current minimum), which ends the search at once.
static bool relax(ssp *S, int v, int i, int64_t nd, int64_t lim)
{
    if (S->state[v] == 2 || nd >= S->d[v])
        return false;
    S->d[v] = nd;
    S->pred[v] = i;
    if (S->state[v] == 0) {
        S->state[v] = 1;
        S->touched[S->nt++] = v;
        S->pos[v] = S->nh;
        S->heap[S->nh++] = v;
    }
    heap_up(S, S->pos[v]);
    return nd == lim && is_sink(S, v);
}

// Settle row i at distance di: relax its entries and its arc to null. Returns a sink reached
// at distance di, or -1.
static int settle_row(ssp *S, int i, int64_t di)
{
    const nt_sparse_counts_t *n = S->n;
    S->srow[S->nsr] = i;
    S->sd[S->nsr++] = di;
    int found = -1;
    for (int64_t e = n->start[i]; e < n->start[i + 1]; e++) {
        int j = n->col[e];
        if (n->count[e] == 0 || j == S->x[i])
            continue;
        if (relax(S, j, i, di - n->count[e] + S->pr[i] - S->pc[j], di) && found < 0)
            found = j;
    }
    if (relax(S, S->null, i, di + S->pr[i], di) && found < 0)
        found = S->null;
    return found;
}

// Route row s: Dijkstra to the nearest sink, new potentials, then the augmentation.
static void route(ssp *S, int s)
{
    const nt_sparse_counts_t *n = S->n;
    int64_t top = 0;
    for (int64_t e = n->start[s]; e < n->start[s + 1]; e++)
        if (n->count[e] > 0 && S->pc[n->col[e]] + n->count[e] > top)
            top = S->pc[n->col[e]] + n->count[e];
    S->pr[s] = top; // every arc out of s has reduced cost >= 0
    int sink = settle_row(S, s, 0);
    int64_t D = 0;
    while (sink < 0) {
        int u = heap_pop(S); // null is always in the heap, so the heap is never empty here
        S->state[u] = 2;
        D = S->d[u];
        if (is_sink(S, u)) {
            sink = u;
            break;
        }
        sink = settle_row(S, S->y[u], D);
    }
    D = S->d[sink];
    // pi += min(d, D), shifted by -D: settled nodes move down by D - d, the others (every sink
    // but this one) stay. Matched arcs stay tight: a matched column and its row settle at the
    // same distance.
    for (int k = 0; k < S->nsr; k++)
        S->pr[S->srow[k]] -= D - S->sd[k];
    for (int k = 0; k < S->nt; k++) {
        int v = S->touched[k];
        if (S->state[v] == 2 && v != sink)
            S->pc[v] -= D - S->d[v];
    }
    for (int j = sink;;) {
        int i = S->pred[j], old = S->x[i];
        S->x[i] = j;
        if (j != S->null)
            S->y[j] = i;
        if (i == s)
            break;
        j = old;
    }
    for (int k = 0; k < S->nt; k++) {
        int v = S->touched[k];
        S->state[v] = 0;
        S->d[v] = INF;
    }
    S->nt = S->nh = S->nsr = 0;
}

static void ssp_free(ssp *S)
{
    free(S->pr);
    free(S->pc);
    free(S->x);
    free(S->y);
    free(S->d);
    free(S->pred);
    free(S->state);
    free(S->heap);
    free(S->pos);
    free(S->touched);
    free(S->srow);
    free(S->sd);
}

static nt_status ssp_init(ssp *S, const nt_sparse_counts_t *n)
{
    size_t pi = (size_t)n->p_ini, v = (size_t)n->p_tar + 1;
    *S = (ssp){.n = n, .pt = n->p_tar, .null = n->p_tar};
    S->pr = calloc(pi, sizeof *S->pr);
    S->pc = calloc(v, sizeof *S->pc);
    S->x = malloc(pi * sizeof *S->x);
    S->y = malloc(v * sizeof *S->y);
    S->d = malloc(v * sizeof *S->d);
    S->pred = malloc(v * sizeof *S->pred);
    S->state = calloc(v, 1);
    S->heap = malloc(v * sizeof *S->heap);
    S->pos = malloc(v * sizeof *S->pos);
    S->touched = malloc(v * sizeof *S->touched);
    S->srow = malloc(pi * sizeof *S->srow);
    S->sd = malloc(pi * sizeof *S->sd);
    if (!S->pr || !S->pc || !S->x || !S->y || !S->d || !S->pred || !S->state || !S->heap ||
        !S->pos || !S->touched || !S->srow || !S->sd) {
        ssp_free(S);
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate scratch for %d x %d",
                       n->p_ini, n->p_tar);
    }
    for (size_t i = 0; i < pi; i++)
        S->x[i] = -1;
    for (size_t j = 0; j < v; j++) {
        S->y[j] = -1;
        S->d[j] = INF;
    }
    return NT_OK;
}

// sigma from the matching: matched components on their row's domain, the others on the
// unused domains in increasing order.
static nt_status complete(const ssp *S, int pd, int *sigma)
{
    char *used = calloc((size_t)pd, 1);
    if (!used)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d flags", pd);
    for (int j = 0; j < S->pt; j++)
        if (S->y[j] >= 0)
            used[S->y[j]] = 1;
    int k = 0;
    for (int j = 0; j < S->pt; j++) {
        if (S->y[j] >= 0) {
            sigma[j] = S->y[j];
            continue;
        }
        while (used[k])
            k++;
        sigma[j] = k++;
    }
    free(used);
    return NT_OK;
}

nt_status nt_match_sparse_volume(const nt_sparse_counts_t *n, int p_dom, int *sigma,
                                 nt_cost_t *cost)
{
    int pd;
    int64_t total;
    nt_status st = nt_sparse_check("sparse match", n, p_dom, &pd, &total);
    if (st != NT_OK)
        return st;
    if (!sigma)
        return nt_fail(NT_EINVAL, "sparse match: sigma is NULL");
    ssp S;
    if ((st = ssp_init(&S, n)) != NT_OK)
        return st;
    for (int s = 0; s < n->p_ini; s++)
        route(&S, s);
    int *res = malloc((size_t)n->p_tar * sizeof *res);
    if (!res)
        st = nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d entries", n->p_tar);
    if (st == NT_OK)
        st = complete(&S, pd, res);
    ssp_free(&S);
    nt_cost_t c;
    if (st == NT_OK && cost)
        st = nt_sparse_cost(n, pd, res, &c);
    if (st == NT_OK) {
        memcpy(sigma, res, (size_t)n->p_tar * sizeof *sigma);
        if (cost)
            *cost = c;
    }
    free(res);
    return st;
}
