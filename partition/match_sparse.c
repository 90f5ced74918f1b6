// Minimum-volume relabelling from a sparse count matrix: a maximum-weight matching of the
// non-zero entries by successive shortest augmenting paths with potentials.
//
// Why this algorithm: it is exact in integers and needs only O(p + nnz) memory, and on the
// matrices of layout changes most source domains find their largest entry still free, so the
// Dijkstra search of a row usually stops after scanning that row alone. Three warm starts come
// first, each leaving a state the exact searches accept (every arc at reduced cost >= 0, matched
// arcs tight, free columns at potential 0):
// - level 0: every row at its largest count, a maximum matching of the entries equal to it
//   (depth-first passes with lookahead). Block-cyclic count matrices have few distinct values
//   and many ties; this matching often settles every row at once (a product of the two
//   dimensions' ties), where the auction below stalls;
// - the same on the transposed matrix (columns at their largest count), solved instead when the
//   rows' leaves most rows free and it far fewer: which side ties better depends on the grids;
// - a bounded exact auction round (Jonker-Volgenant's augmenting row reduction) for the easy
//   rows left; the ties it cannot resolve go to the exact shortest paths.
// Rows are scanned lazily, by decreasing value, so that a search reads only the entries that
// can still lie on a shortest path.
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

// One entry of a row, for the sorted copies: its count w and key = w - off, an upper bound of
// its value w + pc[col] (off <= -pc[col] when it was stored: potentials only decrease, so the
// bound holds ever after, and capping off keeps it one). base - key is then a lower bound of
// the entry's reduced cost base - (w + pc[col]). 16 bytes: the searches are bound by reading
// these rows.
typedef struct ent {
    int64_t w;
    int col;
    uint32_t off;
} ent;

static inline int64_t key(const ent *e)
{
    return e->w - (int64_t)e->off;
}

// Entries sorted at a time when a row's sorted part runs out (the rest is only partitioned):
// searches read a few of each row's largest entries, rarely the whole row.
// PREFIX: entries of a row's first copy (its best ones) when it has more; the searches of the
// P = 65536 changes measured read past them in a quarter of the rows at most.
enum { SORT_CHUNK = 32, PREFIX = 32 };

// A heap entry: a node's key (a copy of d[v], read without following v) and the node.
typedef struct hnode {
    int64_t d;
    int v;
} hnode;

// Heap nodes: columns 0..pt-1, null (= pt), then one node per row (pt + 1 + i) standing for
// the unscanned entries of a settled row, keyed by a lower bound of what they can offer.
typedef struct ssp {
    const nt_kron_t *k;  // the counts, rows generated from the factors
    int *rc;             // one generated row: columns and counts (k->widest each)
    int64_t *rw;
    int pt, null;        // columns; node id of the null sink (= pt)
    int64_t *pr, *pc;    // potentials of rows and of columns (pc[null] = 0)
    int *x, *y;          // x[row] = column, null, or -1 (not yet routed); y[col] = row or -1
    int64_t *d;          // key of each node: tentative distance of a column / null
    int *pred;           // row before each column / null on its path
    char *state;         // 0 untouched, 1 in the heap, 2 settled (columns, null, rows' nodes)
    hnode *heap;         // 4-ary heap of nodes by d
    int *pos, nh;        // their positions in it, its size
    int *touched, nt;    // nodes with state != 0, to reset
    int *srow, nsr;      // settled rows, their distances in sd
    int64_t *sd;
    int64_t *rd;         // distance of each settled row (for its node's entries)
    int64_t *cur;        // next unscanned entry of each settled row (from its first)
    ent *ent;            // rows sorted by decreasing key, each when first settled
    int64_t *base;       // where each row's entries start in ent
    int64_t arena;       // next free entry of ent's part for whole rows
    char *sorted;        // 0: not filled, 1: its best PREFIX entries only, 2: whole
    int *sl;             // entries of each filled row sorted so far (the first ones)
    int64_t *len;        // their entries (the non-zero counts)
    int *stamp;          // the row last copied whole with each column in its prefix
    ent *tmp;            // one row's entries, for choosing its prefix
    // Rows read from the factors instead (fac, when the second factor is not [1]): the factor
    // rows sorted by decreasing count, and per settled row, for each entry of its shorter
    // factor row (the outer one), how many of the other's it has scanned (maxo slots for each
    // row the present search settled, in order from ptr[0]).
    bool fac;
    nt_sparse_counts_t fa, fb;
    int *ptr, maxo;
    int64_t parena; // slots of ptr used by the present search (cur[row] is a row's first)
} ssp;

static void heap_up(ssp *S, int k)
{
    hnode v = S->heap[k];
    while (k > 0) {
        int parent = (k - 1) / 4;
        if (S->heap[parent].d <= v.d)
            break;
        S->heap[k] = S->heap[parent];
        S->pos[S->heap[k].v] = k;
        k = parent;
    }
    S->heap[k] = v;
    S->pos[v.v] = k;
}

static int heap_pop(ssp *S)
{
    int top = S->heap[0].v, k = 0;
    hnode v = S->heap[--S->nh];
    for (int c = 1; c < S->nh; c = 4 * k + 1) {
        int m = c, end = c + 4 < S->nh ? c + 4 : S->nh;
        for (int x = c + 1; x < end; x++)
            m = S->heap[x].d < S->heap[m].d ? x : m;
        if (S->heap[m].d >= v.d)
            break;
        S->heap[k] = S->heap[m];
        S->pos[S->heap[k].v] = k;
        k = m;
    }
    if (S->nh > 0) {
        S->heap[k] = v;
        S->pos[v.v] = k;
    }
    return top;
}

// Put node v in the heap with key d (or lower its key).
static void heap_set(ssp *S, int v, int64_t d)
{
    S->d[v] = d;
    if (S->state[v] != 1) {
        if (S->state[v] == 0)
            S->touched[S->nt++] = v;
        S->state[v] = 1;
        S->pos[v] = S->nh;
        S->heap[S->nh++] = (hnode){d, v};
    } else {
        S->heap[S->pos[v]].d = d;
    }
    heap_up(S, S->pos[v]);
}

static bool is_sink(const ssp *S, int v)
{
    return v == S->null || S->y[v] < 0;
}

// Offer distance nd to column / null v from row i; returns true when v is a sink reached at
// distance lim (the current minimum), which ends the search at once.
static bool relax(ssp *S, int v, int i, int64_t nd, int64_t lim)
{
    if (S->state[v] == 2 || nd >= S->d[v])
        return false;
    S->pred[v] = i;
    heap_set(S, v, nd);
    return nd == lim && is_sink(S, v);
}

// Sort a[0..k-1] by decreasing key (quicksort, insertion sort below 16 entries).
static void sort_desc(ent *a, int64_t k)
{
    while (k > 16) {
        int64_t piv = key(&a[k / 2]), lo = 0, hi = k - 1;
        while (lo <= hi) {
            while (key(&a[lo]) > piv)
                lo++;
            while (key(&a[hi]) < piv)
                hi--;
            if (lo <= hi) {
                ent t = a[lo];
                a[lo++] = a[hi];
                a[hi--] = t;
            }
        }
        // Recurse into the smaller part, loop on the larger (O(log k) stack).
        if (hi + 1 < k - lo) {
            sort_desc(a, hi + 1);
            a += lo;
            k -= lo;
        } else {
            sort_desc(a + lo, k - lo);
            k = hi + 1;
        }
    }
    for (int64_t x = 1; x < k; x++) {
        ent v = a[x];
        int64_t y = x;
        for (; y > 0 && key(&a[y - 1]) < key(&v); y--)
            a[y] = a[y - 1];
        a[y] = v;
    }
}

// Reorder a[0..k-1] so that its t largest keys come first (in any order), 0 < t < k.
static void select_top(ent *a, int64_t k, int64_t t)
{
    int64_t lo = 0, hi = k - 1;
    while (lo < hi) {
        int64_t piv = key(&a[lo + (hi - lo) / 2]), l = lo, h = hi;
        while (l <= h) {
            while (key(&a[l]) > piv)
                l++;
            while (key(&a[h]) < piv)
                h--;
            if (l <= h) {
                ent x = a[l];
                a[l++] = a[h];
                a[h--] = x;
            }
        }
        // a[lo..h] >= piv >= a[l..hi], a[h+1..l-1] == piv.
        if (t - 1 <= h)
            hi = h;
        else if (t - 1 >= l)
            lo = l;
        else
            return;
    }
}

// Row i's positive entries, with no offset, into a; returns how many.
static int64_t copy_row(const ssp *S, int i, ent *a)
{
    int64_t m = nt_kron_row(S->k, i, S->rc, S->rw);
    for (int64_t e = 0; e < m; e++)
        a[e] = (ent){S->rw[e], S->rc[e], 0};
    return m;
}

// The keys of a[0..k-1] at the present column potentials (off = -pc, capped to 32 bits: the
// key stays an upper bound of the entry's value).
static void tighten(const ssp *S, ent *a, int64_t k)
{
    for (int64_t e = 0; e < k; e++)
        a[e].off = -S->pc[a[e].col] < UINT32_MAX ? (uint32_t)-S->pc[a[e].col] : UINT32_MAX;
}

// Row i whole, at the end of ent: its sorted prefix first, then its other entries (the columns
// not in the prefix, which holds each column at most once).
static void grow(ssp *S, int i)
{
    ent *a = S->ent + S->arena;
    memcpy(a, S->ent + S->base[i], (size_t)S->sl[i] * sizeof *a);
    for (int k = 0; k < S->sl[i]; k++)
        S->stamp[a[k].col] = i;
    int64_t m = S->sl[i], len = nt_kron_row(S->k, i, S->rc, S->rw);
    for (int64_t e = 0; e < len; e++)
        if (S->stamp[S->rc[e]] != i)
            a[m++] = (ent){S->rw[e], S->rc[e], 0};
    S->base[i] = S->arena;
    S->arena += m;
    S->sorted[i] = 2;
}

// Sort the next part of row i after its sorted part: the keys of the rest are first tightened
// to the present potentials, which keeps them below the sorted ones.
static void extend(ssp *S, int i)
{
    if (S->sorted[i] == 1)
        grow(S, i);
    ent *a = S->ent + S->base[i] + S->sl[i];
    int64_t k = S->len[i] - S->sl[i];
    tighten(S, a, k);
    if (k > 2 * SORT_CHUNK) {
        select_top(a, k, SORT_CHUNK);
        k = SORT_CHUNK;
    }
    sort_desc(a, k);
    S->sl[i] += (int)k;
}

// Scan the entries of settled row i from its cursor while their lower bound di + pr[i] - key
// is at most lim; the rest wait in the heap under the row's node,
// keyed by the next bound. Returns a sink reached at distance lim, or -1.
static int scan_fac(ssp *S, int i, int64_t lim);

static int scan_row(ssp *S, int i, int64_t lim)
{
    if (S->fac)
        return scan_fac(S, i, lim);
    int64_t end = S->len[i], base0 = S->rd[i] + S->pr[i];
    const ent *row = S->ent + S->base[i];
    int found = -1;
    for (int64_t e = S->cur[i]; e < end; e++) {
        if (e == S->sl[i]) {
            extend(S, i);
            row = S->ent + S->base[i]; // grow() may have moved it
        }
        const ent *en = &row[e];
        int64_t lb = base0 - key(en);
        if (lb > lim) {
            S->cur[i] = e;
            heap_set(S, S->pt + 1 + i, lb);
            return found;
        }
        int j = en->col;
            if (j != S->x[i] && relax(S, j, i, base0 - en->w - S->pc[j], lim) && found < 0)
            found = j;
    }
    S->cur[i] = end;
    return found;
}

// Row i's entries from its factor rows' sorted copies, by decreasing count w: for each entry of
// its shorter factor row (outer, decreasing), the longer one's (inner, decreasing) from where
// the last scan stopped, while the lower bound di + pr[i] - w of the reduced cost (columns'
// potentials are <= 0) is at most lim. An outer entry that admits none ends the scan (the
// next ones admit fewer). The rest wait under the row's node, keyed by their best bound.
static int scan_fac(ssp *S, int i, int64_t lim)
{
    const nt_kron_t *n = S->k;
    int u = n->ra[i], v = n->rb[i];
    int64_t na = S->fa.start[u + 1] - S->fa.start[u], nb = S->fb.start[v + 1] - S->fb.start[v];
    bool a_out = na <= nb;
    const nt_sparse_counts_t *fo = a_out ? &S->fa : &S->fb, *fi = a_out ? &S->fb : &S->fa;
    int ro = a_out ? u : v, ri = a_out ? v : u;
    const int *oc = fo->col + fo->start[ro], *ic = fi->col + fi->start[ri];
    const int64_t *ow = fo->count + fo->start[ro], *iw = fi->count + fi->start[ri];
    int no = (int)(a_out ? na : nb), ni = (int)(a_out ? nb : na);
    int *p = S->ptr + S->cur[i];
    int64_t base0 = S->rd[i] + S->pr[i], best = -1;
    int found = -1;
    for (int o = 0; o < no; o++) {
        int k = p[o];
        for (; k < ni && base0 - ow[o] * iw[k] <= lim; k++) {
            int j = a_out ? nt_kron_col(n, oc[o], ic[k]) : nt_kron_col(n, ic[k], oc[o]);
            if (j >= 0 && j != S->x[i] &&
                relax(S, j, i, base0 - ow[o] * iw[k] - S->pc[j], lim) && found < 0)
                found = j;
        }
        p[o] = k;
        if (k < ni && ow[o] * iw[k] > best)
            best = ow[o] * iw[k];
        if (k == 0)
            break;
    }
    if (best >= 0)
        heap_set(S, S->pt + 1 + i, base0 - best);
    return found;
}

// Row i's first copy: whole when it has at most PREFIX entries, else its PREFIX best keys
// only, sorted (most searches read no further; grow() copies the rest when one does).
static void fill(ssp *S, int i)
{
    ent *a = S->tmp;
    int64_t m = copy_row(S, i, a);
    S->len[i] = m;
    S->sl[i] = 0;
    S->sorted[i] = 2;
    if (m <= PREFIX) {
        memcpy(S->ent + S->base[i], a, (size_t)m * sizeof *a);
        return;
    }
    tighten(S, a, m);
    select_top(a, m, PREFIX);
    sort_desc(a, PREFIX);
    memcpy(S->ent + S->base[i], a, PREFIX * sizeof *a);
    S->sl[i] = PREFIX;
    S->sorted[i] = 1;
}

// Settle row i at distance di: its arc to null, then its entries by decreasing count (sorted
// on first use). Returns a sink reached at distance di, or -1.
static int settle_row(ssp *S, int i, int64_t di)
{
    S->srow[S->nsr] = i;
    S->sd[S->nsr++] = di;
    S->rd[i] = di;
    S->cur[i] = 0;
    if (S->fac) { // its scan positions: the next slots of the search's arena, kept in cache
        S->cur[i] = S->parena;
        S->parena += S->maxo;
        memset(S->ptr + S->cur[i], 0, (size_t)S->maxo * sizeof *S->ptr);
    } else if (!S->sorted[i]) {
        fill(S, i);
    }
    int found = relax(S, S->null, i, di + S->pr[i], di) ? S->null : -1;
    int f = scan_row(S, i, di);
    return found >= 0 ? found : f;
}

// Start loading what the heap's top will need when popped next: the row settled behind a
// matched column, or a row's waiting entries. A settled row's first entries are a cache miss
// (random rows of a large array) that otherwise stalls the search; this overlaps it with the
// node being processed.
static void prefetch_top(const ssp *S)
{
    if (S->nh == 0 || S->fac)
        return;
    int v = S->heap[0].v, i = v > S->null ? v - S->null - 1 : v < S->null ? S->y[v] : -1;
    if (i < 0)
        return;
    if (v > S->null || S->sorted[i])
        __builtin_prefetch(&S->ent[S->base[i] + (v > S->null ? S->cur[i] : 0)]);
}

// Route row s: Dijkstra to the nearest sink, new potentials, then the augmentation.
static void route(ssp *S, int s)
{
    int64_t top = 0, m = nt_kron_row(S->k, s, S->rc, S->rw);
    for (int64_t e = 0; e < m; e++)
        if (S->pc[S->rc[e]] + S->rw[e] > top)
            top = S->pc[S->rc[e]] + S->rw[e];
    S->pr[s] = top; // every arc out of s has reduced cost >= 0
    int sink = settle_row(S, s, 0);
    while (sink < 0) {
        int u = heap_pop(S); // null is always in the heap, so the heap is never empty here
        S->state[u] = 2;
        prefetch_top(S);
        if (u > S->null) // a row's waiting entries: the next ones at this bound
            sink = scan_row(S, u - S->null - 1, S->d[u]);
        else if (is_sink(S, u))
            sink = u;
        else
            sink = settle_row(S, S->y[u], S->d[u]);
    }
    int64_t D = S->d[sink];
    // pi += min(d, D), shifted by -D: settled nodes move down by D - d, the others (every sink
    // but this one) stay. Matched arcs stay tight: a matched column and its row settle at the
    // same distance.
    for (int k = 0; k < S->nsr; k++)
        S->pr[S->srow[k]] -= D - S->sd[k];
    for (int k = 0; k < S->nt; k++) {
        int v = S->touched[k];
        if (v < S->null && S->state[v] == 2)
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
    S->parena = 0;
}

// One bid of free row i (a Jonker-Volgenant "augmenting row reduction" step, with no
// tolerance: exact): it takes the column of largest value count + pc (null is worth 0 and
// unlimited) and lowers that column's potential by the gap to its second-best value, which
// keeps every arc of every routed row at reduced cost >= 0 and its matched arc tight. Returns
// the row it displaced, or -1.
static int bid(ssp *S, int i)
{
    int64_t b1 = 0, b2 = -1, m = nt_kron_row(S->k, i, S->rc, S->rw);
    int j1 = S->null, j2 = -1;
    for (int64_t e = 0; e < m; e++) {
        int j = S->rc[e];
        int64_t val = S->rw[e] + S->pc[j];
        // Among equal values a free column wins: it ends the competition.
        if (val > b1 || (val == b1 && S->y[j] < 0 && j1 != S->null && S->y[j1] >= 0)) {
            b2 = b1;
            j2 = j1;
            b1 = val;
            j1 = j;
        } else if (val > b2) {
            b2 = val;
            j2 = j;
        }
    }
    (void)j2;
    if (j1 == S->null) {
        S->x[i] = S->null;
        S->pr[i] = 0;
        return -1;
    }
    int k = S->y[j1];
    S->pc[j1] -= b1 - b2;
    S->pr[i] = b2;
    S->x[i] = j1;
    S->y[j1] = i;
    if (k >= 0)
        S->x[k] = -1;
    return k;
}

// Bids of the free rows, in rounds, for at most about 2 bids per free row (ties can make rows
// displace each other without end); the rows still free are then routed by route().
static nt_status auction(ssp *S)
{
    int p = S->k->p_ini;
    int *queue = malloc((size_t)p * sizeof *queue);
    if (!queue)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d rows of scratch", p);
    int head = 0, count = 0;
    for (int i = 0; i < p; i++)
        if (S->x[i] < 0)
            queue[count++] = i;
    for (int64_t bids = 0, most = 2 * (int64_t)count; count > 0 && bids < most; bids++) {
        int i = queue[head];
        head = head + 1 == p ? 0 : head + 1;
        count--;
        int k = bid(S, i);
        if (k >= 0) {
            queue[(head + count) % p] = k;
            count++;
        }
    }
    free(queue);
    return NT_OK;
}

// The tight entries of one factor: each row's columns at its largest positive count (off[],
// col[]), and that count (top, 0 when the row has none).
typedef struct ftight {
    int64_t *off, *top;
    int *col;
} ftight;

// Level 0's tight entries, never stored: row i's are the products of its factor rows' tight
// columns (a product is largest exactly when both factors are), numbered 0..end[i]-1 by
// tight_col(). Per-row cursors (look: the lookahead, cur: the search), the path of rows being
// grown, the pass that last entered each column.
typedef struct tight {
    ftight a, b;
    int64_t *end, *look, *cur;
    int *stack, *seen;
} tight;

static void ftight_free(ftight *f)
{
    free(f->off);
    free(f->top);
    free(f->col);
}

static void tight_free(tight *t)
{
    ftight_free(&t->a);
    ftight_free(&t->b);
    free(t->end);
    free(t->look);
    free(t->cur);
    free(t->stack);
    free(t->seen);
}

// Factor f's tight entries.
static nt_status ftight_make(const nt_sparse_counts_t *f, ftight *t)
{
    int64_t n = 0;
    t->off = malloc(((size_t)f->p_ini + 1) * sizeof *t->off);
    t->top = malloc(((size_t)f->p_ini + 1) * sizeof *t->top);
    for (int u = 0; t->off && t->top && u < f->p_ini; u++) {
        int64_t top = 0;
        for (int64_t e = f->start[u]; e < f->start[u + 1]; e++)
            top = f->count[e] > top ? f->count[e] : top;
        t->top[u] = top;
        for (int64_t e = f->start[u]; e < f->start[u + 1]; e++)
            n += top > 0 && f->count[e] == top;
    }
    t->col = malloc((size_t)(n ? n : 1) * sizeof *t->col);
    if (!t->off || !t->top || !t->col)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %lld tight entries",
                       (long long)n);
    t->off[0] = 0;
    for (int u = 0; u < f->p_ini; u++) {
        int64_t k = t->off[u];
        for (int64_t e = f->start[u]; e < f->start[u + 1]; e++)
            if (t->top[u] > 0 && f->count[e] == t->top[u])
                t->col[k++] = f->col[e];
        t->off[u + 1] = k;
    }
    return NT_OK;
}

// Row i's tight entry number k (0 <= k < end[i]): the column of the k-th pair of its factor
// rows' tight columns, or -1 when no column has those factor columns.
static inline int tight_col(const ssp *S, const tight *t, int i, int64_t k)
{
    const nt_kron_t *n = S->k;
    int64_t a0 = t->a.off[n->ra[i]], b0 = t->b.off[n->rb[i]];
    int64_t nb = t->b.off[n->rb[i] + 1] - b0;
    return nt_kron_col(n, t->a.col[a0 + k / nb], t->b.col[b0 + k % nb]);
}

// One depth-first search from free row r along tight entries, each column entered once per
// pass; augments and returns true when it reaches a free column.
static bool tight_augment(ssp *S, tight *t, int r, int pass)
{
    int top = 0, found = -1;
    t->stack[0] = r;
    t->cur[r] = 0;
    while (top >= 0 && found < 0) {
        int i = t->stack[top], next = -1;
        // A column matched once stays matched, so the lookahead never moves back.
        for (; t->look[i] < t->end[i] && found < 0; t->look[i]++) {
            int j = tight_col(S, t, i, t->look[i]);
            if (j >= 0 && S->y[j] < 0)
                found = j;
        }
        while (found < 0 && next < 0 && t->cur[i] < t->end[i]) {
            int j = tight_col(S, t, i, t->cur[i]++);
            if (j >= 0 && t->seen[j] != pass) {
                t->seen[j] = pass;
                next = S->y[j];
            }
        }
        if (found >= 0)
            break;
        if (next >= 0) {
            t->cur[next] = 0;
            t->stack[++top] = next;
        } else {
            top--;
        }
    }
    if (found < 0)
        return false;
    for (int j = found; top >= 0; top--) {
        int i = t->stack[top], old = S->x[i];
        S->x[i] = j;
        S->y[j] = i;
        j = old;
    }
    return true;
}

// Level 0: every row's potential at its largest count (columns at 0), and a maximum matching of
// the tight entries (count = that largest one) by passes of depth-first searches from the free
// rows, each first looking for a free tight column (Pothen and Fan's lookahead); passes repeat
// until one augments nothing. Rows without a positive count go to null. *left: rows left free.
static nt_status level0(ssp *S, int *left)
{
    const nt_kron_t *n = S->k;
    int p = n->p_ini;
    tight t = {{0}, {0}, malloc((size_t)p * sizeof *t.end), malloc((size_t)p * sizeof *t.look),
               malloc((size_t)p * sizeof *t.cur), malloc((size_t)p * sizeof *t.stack),
               calloc((size_t)S->pt, sizeof *t.seen)};
    nt_status st = ftight_make(&n->a, &t.a);
    if (st == NT_OK)
        st = ftight_make(&n->b, &t.b);
    if (st == NT_OK && (!t.end || !t.look || !t.cur || !t.stack || !t.seen))
        st = nt_fail(NT_ENOMEM, "sparse match: cannot allocate the scratch of %d rows", p);
    if (st != NT_OK) {
        tight_free(&t);
        return st;
    }
    for (int i = 0; i < p; i++) {
        int u = n->ra[i], v = n->rb[i];
        S->pr[i] = u < 0 ? 0 : t.a.top[u] * t.b.top[v];
        t.end[i] = S->pr[i] == 0 ? 0 : (t.a.off[u + 1] - t.a.off[u]) * (t.b.off[v + 1] -
                                                                          t.b.off[v]);
        t.look[i] = 0;
        if (S->pr[i] == 0)
            S->x[i] = S->null;
    }
    for (int pass = 1, aug = 1; aug > 0; pass++) {
        aug = 0;
        for (int r = 0; r < p; r++)
            if (S->x[r] < 0)
                aug += tight_augment(S, &t, r, pass);
    }
    *left = 0;
    for (int i = 0; i < p; i++)
        *left += S->x[i] < 0;
    tight_free(&t);
    return NT_OK;
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
    free(S->rd);
    free(S->cur);
    free(S->len);
    free(S->ent);
    free(S->base);
    free(S->stamp);
    free(S->tmp);
    free(S->sorted);
    free(S->sl);
    free(S->rc);
    free(S->rw);
    nt_sparse_counts_free(&S->fa);
    nt_sparse_counts_free(&S->fb);
    free(S->ptr);
    *S = (ssp){0};
}

static nt_status ssp_init(ssp *S, const nt_kron_t *n)
{
    // v: columns and null; nodes: those and one per row.
    size_t pi = (size_t)n->p_ini, v = (size_t)n->p_tar + 1, nodes = v + pi;
    size_t wide = (size_t)(n->widest ? n->widest : 1);
    *S = (ssp){.k = n, .pt = n->p_tar, .null = n->p_tar, .fac = n->b.p_ini > 1 || n->b.p_tar > 1};
    S->rc = malloc(wide * sizeof *S->rc);
    S->rw = malloc(wide * sizeof *S->rw);
    S->pr = calloc(pi, sizeof *S->pr);
    S->pc = calloc(v, sizeof *S->pc);
    S->x = malloc(pi * sizeof *S->x);
    S->y = malloc(v * sizeof *S->y);
    S->d = malloc(nodes * sizeof *S->d);
    S->pred = malloc(v * sizeof *S->pred);
    S->state = calloc(nodes, 1);
    S->heap = malloc(nodes * sizeof *S->heap);
    S->pos = malloc(nodes * sizeof *S->pos);
    S->touched = malloc(nodes * sizeof *S->touched);
    S->srow = malloc(pi * sizeof *S->srow);
    S->sd = malloc(pi * sizeof *S->sd);
    S->rd = malloc(pi * sizeof *S->rd);
    S->cur = malloc(pi * sizeof *S->cur);
    S->len = malloc(pi * sizeof *S->len);
    S->sorted = calloc(pi, 1);
    S->sl = malloc(pi * sizeof *S->sl);
    if (!S->pr || !S->pc || !S->x || !S->y || !S->d || !S->pred || !S->state || !S->heap ||
        !S->pos || !S->touched || !S->srow || !S->sd || !S->rd || !S->cur || !S->len ||
        !S->sorted || !S->sl || !S->rc || !S->rw) {
        ssp_free(S);
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate scratch for %d x %d",
                       n->p_ini, n->p_tar);
    }
    for (size_t i = 0; i < pi; i++)
        S->x[i] = -1;
    for (size_t j = 0; j < v; j++)
        S->y[j] = -1;
    for (size_t j = 0; j < nodes; j++)
        S->d[j] = INF;
    return NT_OK;
}

static int by_count_desc(const void *x, const void *y)
{
    const ent *a = x, *b = y;
    return a->w < b->w ? 1 : a->w > b->w ? -1 : (a->col > b->col) - (a->col < b->col);
}

// f's rows sorted by decreasing count into c, positive counts only.
static nt_status sort_factor(const nt_sparse_counts_t *f, nt_sparse_counts_t *c)
{
    size_t m = (size_t)(f->nnz ? f->nnz : 1);
    *c = (nt_sparse_counts_t){f->p_ini, f->p_tar, 0, malloc(((size_t)f->p_ini + 1) *
                                                            sizeof *c->start),
                              malloc(m * sizeof *c->col), malloc(m * sizeof *c->count)};
    ent *t = malloc(m * sizeof *t);
    if (!c->start || !c->col || !c->count || !t) {
        free(t);
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate a factor of %lld entries",
                       (long long)f->nnz);
    }
    c->start[0] = 0;
    for (int u = 0; u < f->p_ini; u++) {
        int64_t k = 0;
        for (int64_t e = f->start[u]; e < f->start[u + 1]; e++)
            if (f->count[e] > 0)
                t[k++] = (ent){f->count[e], f->col[e], 0};
        qsort(t, (size_t)k, sizeof *t, by_count_desc);
        for (int64_t e = 0; e < k; e++) {
            c->col[c->nnz + e] = t[e].col;
            c->count[c->nnz + e] = t[e].w;
        }
        c->nnz += k;
        c->start[u + 1] = c->nnz;
    }
    free(t);
    return NT_OK;
}

// The factors' sorted copies and the scan positions of the rows (scan_fac()).
static nt_status fac_alloc(ssp *S)
{
    const nt_kron_t *n = S->k;
    nt_status st = sort_factor(&n->a, &S->fa);
    if (st == NT_OK)
        st = sort_factor(&n->b, &S->fb);
    if (st != NT_OK)
        return st;
    S->maxo = 1;
    for (int i = 0; i < n->p_ini; i++) {
        if (n->ra[i] < 0)
            continue;
        int64_t na = S->fa.start[n->ra[i] + 1] - S->fa.start[n->ra[i]];
        int64_t nb = S->fb.start[n->rb[i] + 1] - S->fb.start[n->rb[i]];
        int64_t m = na < nb ? na : nb;
        S->maxo = m > S->maxo ? (int)m : S->maxo;
    }
    S->ptr = malloc((size_t)n->p_ini * (size_t)S->maxo * sizeof *S->ptr);
    if (!S->ptr)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d x %d scan positions",
                       n->p_ini, S->maxo);
    return NT_OK;
}

// The sorted copies of the rows, allocated once the warm starts are done: first each row's
// prefix (up to PREFIX entries), then room for the rows grown whole. Pages are touched only
// for the rows a search settles, and of the second part only for those it reads past their
// prefix: in the P = 65536 changes measured, that halves the fresh pages (each costs more to
// fault in, in this VM, than to fill).
static nt_status fac_alloc(ssp *S);

static nt_status ssp_alloc_ent(ssp *S)
{
    if (S->fac)
        return fac_alloc(S);
    const nt_kron_t *n = S->k;
    size_t pi = (size_t)n->p_ini;
    int64_t most = 0, pre = 0;
    S->base = malloc(pi * sizeof *S->base);
    S->stamp = malloc(((size_t)n->p_tar + 1) * sizeof *S->stamp);
    for (int i = 0; S->base && i < n->p_ini; i++) {
        int64_t k = n->ra[i] < 0 ? 0
                                 : (n->a.start[n->ra[i] + 1] - n->a.start[n->ra[i]]) *
                                       (n->b.start[n->rb[i] + 1] - n->b.start[n->rb[i]]);
        most = k > most ? k : most;
        S->base[i] = pre;
        pre += k < PREFIX ? k : PREFIX;
    }
    S->arena = pre;
    S->ent = nt_sparse_alloc((size_t)(pre + n->nnz) * sizeof *S->ent);
    S->tmp = malloc((size_t)(most ? most : 1) * sizeof *S->tmp);
    if (!S->base || !S->stamp || !S->ent || !S->tmp)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %lld sorted entries",
                       (long long)(pre + n->nnz));
    for (int j = 0; j <= n->p_tar; j++)
        S->stamp[j] = -1;
    return NT_OK;
}

// The rows left free by the warm starts (level 0, then the auction) in the orientation of n;
// S is left initialised, in that state.
static nt_status start(ssp *S, const nt_kron_t *n, int *left)
{
    nt_status st = ssp_init(S, n);
    if (st == NT_OK && (st = level0(S, left)) == NT_OK && *left > 0 &&
        (st = auction(S)) == NT_OK) {
        *left = 0;
        for (int i = 0; i < n->p_ini; i++)
            *left += S->x[i] < 0;
    }
    if (st != NT_OK)
        ssp_free(S);
    return st;
}

// sigma from the component -> domain pairs of the matching (-1 for none): matched components
// on their domain, the others on the unused domains in increasing order.
static nt_status complete(const int *mate, int pt, int pd, int *sigma)
{
    char *used = calloc((size_t)pd, 1);
    if (!used)
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d flags", pd);
    for (int j = 0; j < pt; j++)
        if (mate[j] >= 0)
            used[mate[j]] = 1;
    int k = 0;
    for (int j = 0; j < pt; j++) {
        if (mate[j] >= 0) {
            sigma[j] = mate[j];
            continue;
        }
        while (used[k])
            k++;
        sigma[j] = k++;
    }
    free(used);
    return NT_OK;
}

// Route every free row of U.
static void route_free(ssp *U)
{
    for (int s = 0; s < U->k->p_ini; s++)
        if (U->x[s] < 0)
            route(U, s);
}

// Solve n; mate[j] (p_tar entries) gets the domain of component j or -1. When the warm starts
// leave most rows free (over half), the transposed problem is warm-started too (a transposed
// copy, two passes over the entries), and solved instead when it leaves at most a sixteenth as
// many: its level 0 may match everything where the rows' does not (columns' maxima tie
// differently). Fewer free rows alone do not predict cheaper searches (measured both ways on
// block-cyclic changes: either side was up to 1.7x cheaper), hence the margin.
static nt_status solve(const nt_kron_t *n, int *mate)
{
    ssp S, T = {0};
    nt_kron_t t = {0};
    int left, tleft = 0;
    nt_status st = start(&S, n, &left);
    bool flip = false;
    if (st == NT_OK && left > n->p_ini / 2 && (st = nt_kron_transpose(n, &t)) == NT_OK &&
        (st = start(&T, &t, &tleft)) == NT_OK)
        flip = tleft <= left / 16;
    if (st != NT_OK) {
        ssp_free(&S);
        nt_kron_free(&t);
        return st;
    }
    ssp *U = flip ? &T : &S;
    ssp_free(flip ? &S : &T);
    if ((st = ssp_alloc_ent(U)) == NT_OK)
        route_free(U);
    if (st == NT_OK && !flip)
        for (int j = 0; j < n->p_tar; j++)
            mate[j] = U->y[j];
    else if (st == NT_OK) // rows of the transposed matrix are the components
        for (int j = 0; j < n->p_tar; j++)
            mate[j] = U->x[j] < U->null ? U->x[j] : -1;
    ssp_free(U);
    nt_kron_free(&t);
    return st;
}

nt_status nt_kron_match(const nt_kron_t *k, int pd, int64_t total, int *sigma, nt_cost_t *cost)
{
    if (!sigma)
        return nt_fail(NT_EINVAL, "sparse match: sigma is NULL");
    int *mate = malloc((size_t)k->p_tar * sizeof *mate);
    int *res = malloc((size_t)k->p_tar * sizeof *res);
    nt_status st = NT_OK;
    if (!mate || !res)
        st = nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d entries", k->p_tar);
    if (st == NT_OK)
        st = solve(k, mate);
    // mate by column number, of row numbers, into res by domain, of domains (res as scratch).
    for (int j = 0; st == NT_OK && j < k->p_tar; j++)
        res[k->cdom ? k->cdom[j] : j] = mate[j] >= 0 && k->rdom ? k->rdom[mate[j]] : mate[j];
    if (st == NT_OK) {
        memcpy(mate, res, (size_t)k->p_tar * sizeof *mate);
        st = complete(mate, k->p_tar, pd, res);
    }
    free(mate);
    nt_cost_t c;
    if (st == NT_OK && cost)
        st = nt_kron_cost(k, pd, res, total, &c);
    if (st == NT_OK) {
        memcpy(sigma, res, (size_t)k->p_tar * sizeof *sigma);
        if (cost)
            *cost = c;
    }
    free(res);
    return st;
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
    nt_kron_t k;
    if ((st = nt_kron_of_sparse(n, &k)) != NT_OK)
        return st;
    st = nt_kron_match(&k, pd, total, sigma, cost);
    nt_kron_free(&k);
    return st;
}
