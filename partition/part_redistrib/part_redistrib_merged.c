// Part&Redistrib, the merged family: the runs of the initial distribution on the ring, short
// runs absorbed by their neighbours, one candidate per length threshold.
#include <stdlib.h>

#include "part_redistrib_int.h"

enum { MERGE_THRESHOLDS = 12 };

// Runs of the ring being merged: per run its length, ring links and absorption parent; runs
// shorter than tmax wait in buckets by length, taken from a pool of 2m entries (every merge
// re-files at most one run).
typedef struct merger {
    int64_t m, tmax;
    int64_t *len, *prv, *nxt, *parent;
    int64_t *pool_run, *pool_next, *head; // head[l]: first pool entry of length l, -1 if none
    int64_t used;                         // pool entries taken
    const int *lab;                       // domain of each run
    int64_t left;                         // live runs
} merger;

// Root of a run in the absorption forest (path halving): the live run whose domain it takes.
static int64_t root_of(int64_t *parent, int64_t k)
{
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

// Paint the merged runs and score them as the candidate of one threshold.
static nt_status merge_emit(pr_ws *w, const pr_arcs *a, int64_t *parent, int64_t threshold)
{
    for (int64_t k = 0; k < a->m; k++) {
        int d = a->comp[root_of(parent, k)];
        for (int64_t y = a->start[k]; y < a->start[k + 1]; y++)
            w->part[pr_wrap(y, w->n)] = d;
    }
    nt_status st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
    if (st == NT_OK)
        st = nt_pr_consider(w, NT_STENCIL_MERGED, threshold);
    return st;
}

// Thresholds 2, 3, 4, 6, 8, 12, ... (each of the pair doubles) up to max(2, B); returns the
// count (>= 1).
static int thresholds(const pr_ws *w, int64_t thr[MERGE_THRESHOLDS])
{
    int64_t b = (w->n + w->p - 1) / w->p, top = b > 2 ? b : 2;
    int64_t pair[2] = {2, 3};
    int nthr = 0;
    for (int k = 0; k < MERGE_THRESHOLDS && pair[k % 2] <= top; k++) {
        thr[nthr++] = pair[k % 2];
        pair[k % 2] *= 2;
    }
    return nthr;
}

static void file_run(merger *g, int64_t k)
{
    g->pool_run[g->used] = k;
    g->pool_next[g->used] = g->head[g->len[k]];
    g->head[g->len[k]] = g->used++;
}

// One allocation for the runs of a and their buckets; every run starts alone and filed.
static nt_status merger_init(merger *g, const pr_arcs *a, int64_t tmax)
{
    int64_t m = a->m;
    size_t cells, bytes;
    if (!nt_mul_size((size_t)m, 8, &cells) || !nt_add_size(cells, (size_t)tmax + 1, &cells) ||
        !nt_mul_size(cells, sizeof(int64_t), &bytes))
        return nt_fail(NT_ERANGE, "%lld runs: workspace size overflows", (long long)m);
    int64_t *mem = malloc(bytes);
    if (!mem)
        return nt_fail(NT_ENOMEM, "no memory to merge %lld runs", (long long)m);
    *g = (merger){.m = m, .tmax = tmax, .lab = a->comp, .left = m};
    g->len = mem;
    g->prv = mem + m;
    g->nxt = mem + 2 * m;
    g->parent = mem + 3 * m;
    g->pool_run = mem + 4 * m;
    g->pool_next = mem + 6 * m;
    g->head = mem + 8 * m;
    for (int64_t l = 0; l <= tmax; l++)
        g->head[l] = -1;
    for (int64_t k = 0; k < m; k++) {
        g->len[k] = a->start[k + 1] - a->start[k];
        g->prv[k] = k == 0 ? m - 1 : k - 1;
        g->nxt[k] = k == m - 1 ? 0 : k + 1;
        g->parent[k] = k;
        if (g->len[k] < tmax)
            file_run(g, k);
    }
    return NT_OK;
}

// Live run k joins its longer neighbour, or both neighbours join into one when they hold the
// same domain.
static void absorb(merger *g, int64_t k)
{
    int64_t pr = g->prv[k], nx = g->nxt[k];
    bool join3 = pr != nx && g->lab[pr] == g->lab[nx];
    int64_t into = join3 || g->len[pr] >= g->len[nx] ? pr : nx;
    g->len[into] += g->len[k];
    g->parent[k] = into;
    g->left--;
    g->prv[nx] = pr;
    g->nxt[pr] = nx;
    if (join3) {
        // pr and nx touch now and hold the same domain: one run.
        g->len[pr] += g->len[nx];
        g->parent[nx] = pr;
        g->left--;
        g->nxt[pr] = g->nxt[nx];
        g->prv[g->nxt[nx]] = pr;
    }
    if (g->len[into] < g->tmax && g->used < 2 * g->m)
        file_run(g, into);
}

// Runs of ini on the ring, merged shortest first. Runs only grow, so the merges for threshold t
// are a prefix of those for any larger threshold: one pass over the lengths 1, 2, ... emits a
// candidate each time it reaches a threshold. Runs wait in buckets by length (stale entries are
// skipped), so the pass costs O(m + thresholds).
nt_status nt_pr_gen_merged(pr_ws *w)
{
    pr_arcs a;
    merger g;
    int64_t thr[MERGE_THRESHOLDS];
    int nthr = thresholds(w, thr);
    nt_status st = nt_pr_arcs_of(w->ini, w->n, &a);
    if (st != NT_OK || a.m < 2 || (st = merger_init(&g, &a, thr[nthr - 1])) != NT_OK) {
        nt_pr_arcs_free(&a);
        return st;
    }
    int64_t merges = 0;
    int next_thr = 0;
    for (int64_t l = 1; l <= g.tmax && st == NT_OK; l++) {
        // A threshold that merged nothing more than the previous one repeats its candidate.
        if (next_thr < nthr && thr[next_thr] == l && (next_thr == 0 || merges > 0)) {
            st = merge_emit(w, &a, g.parent, thr[next_thr]);
            merges = 0;
        }
        if (next_thr < nthr && thr[next_thr] == l)
            next_thr++;
        if (l == g.tmax)
            break;
        while (g.head[l] >= 0 && g.left > 1 && st == NT_OK) {
            int64_t e = g.head[l], k = g.pool_run[e];
            g.head[l] = g.pool_next[e];
            if (g.parent[k] != k || g.len[k] != l)
                continue; // absorbed or grown since it was filed
            absorb(&g, k);
            merges++;
        }
    }
    free(g.len);
    nt_pr_arcs_free(&a);
    return st;
}
