// One-port step schedule (König / Birkhoff-von Neumann): pad the off-diagonal transfers with
// dummy units to a regular bipartite multigraph, then peel perfect matchings, each with the
// largest multiplicity its smallest entry allows; dummy pairs are dropped from the phases.
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"
#include "numatile/sched.h"

void nt_sched_destroy(nt_schedule_t *s)
{
    if (!s)
        return;
    free(s->count);
    free(s->first);
    free(s->src);
    free(s->dst);
    free(s);
}

// Growable phase storage.
typedef struct builder {
    nt_schedule_t *s;
    int cap_phases;
    int64_t cap_pairs;
} builder;

static nt_status add_phase(builder *b, int64_t count, const int *src, const int *dst, int n)
{
    nt_schedule_t *s = b->s;
    if (s->nphases + 1 >= b->cap_phases) {
        int cap = b->cap_phases * 2;
        int64_t *c = realloc(s->count, (size_t)cap * sizeof *c);
        if (c)
            s->count = c;
        int64_t *f = realloc(s->first, ((size_t)cap + 1) * sizeof *f);
        if (f)
            s->first = f;
        if (!c || !f)
            return nt_fail(NT_ENOMEM, "schedule: cannot grow to %d phases", cap);
        b->cap_phases = cap;
    }
    if (s->npairs + n > b->cap_pairs) {
        int64_t cap = (b->cap_pairs + n) * 2;
        int *a = realloc(s->src, (size_t)cap * sizeof *a);
        if (a)
            s->src = a;
        int *d = realloc(s->dst, (size_t)cap * sizeof *d);
        if (d)
            s->dst = d;
        if (!a || !d)
            return nt_fail(NT_ENOMEM, "schedule: cannot grow to %lld pairs", (long long)cap);
        b->cap_pairs = cap;
    }
    memcpy(s->src + s->npairs, src, (size_t)n * sizeof *src);
    memcpy(s->dst + s->npairs, dst, (size_t)n * sizeof *dst);
    s->count[s->nphases] = count;
    s->npairs += n;
    s->first[++s->nphases] = s->npairs;
    s->steps += count;
    return NT_OK;
}

// Degrees of the off-diagonal multigraph; NT_ERANGE if a sum overflows.
static nt_status degrees(const int64_t *q, int p, int64_t *out_deg, int64_t *in_deg)
{
    memset(out_deg, 0, (size_t)p * sizeof *out_deg);
    memset(in_deg, 0, (size_t)p * sizeof *in_deg);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < p; k++) {
            int64_t x = q[(int64_t)i * p + k];
            if (x < 0)
                return nt_fail(NT_EINVAL, "schedule: q[%d][%d] = %lld is negative", i, k,
                               (long long)x);
            if (i != k && (__builtin_add_overflow(out_deg[i], x, &out_deg[i]) ||
                           __builtin_add_overflow(in_deg[k], x, &in_deg[k])))
                return nt_fail(NT_ERANGE, "schedule: the transfers of domain %d or %d overflow",
                               i, k);
        }
    return NT_OK;
}

// The padded multigraph as a list of cells (row-major, never grows): real units, dummy units.
typedef struct cells {
    int p;
    int64_t n;
    int64_t *start; // p + 1 row offsets
    int *row, *col;
    int64_t *real, *dummy;
} cells;

static int alive(const cells *C, int64_t e)
{
    return C->real[e] > 0 || C->dummy[e] > 0;
}

// Repair state: match_cell[row] = matched cell or -1, col_row[col] = matched row or -1.
typedef struct repair {
    int64_t *match_cell;
    int *col_row;
    int *queue;
    int64_t *via;   // cell that reached each column in the current search
    int64_t *seen;  // search stamp per column
    int64_t stamp;
} repair;

// Breadth-first augmenting path from free row r over the live cells; 1 on success. In a
// regular multigraph one always exists.
static int augment(const cells *C, repair *R, int r)
{
    int head = 0, tail = 0;
    R->stamp++;
    R->queue[tail++] = r;
    while (head < tail) {
        int x = R->queue[head++];
        for (int64_t e = C->start[x]; e < C->start[x + 1]; e++) {
            int k = C->col[e];
            if (!alive(C, e) || R->seen[k] == R->stamp)
                continue;
            R->seen[k] = R->stamp;
            R->via[k] = e;
            int y = R->col_row[k];
            if (y >= 0) {
                R->queue[tail++] = y;
                continue;
            }
            // Flip the path back to r: each row takes the column it reached.
            for (;;) {
                int64_t ce = R->via[k];
                int row = C->row[ce];
                int64_t prev = R->match_cell[row];
                R->match_cell[row] = ce;
                R->col_row[k] = row;
                if (prev < 0)
                    return 1;
                k = C->col[prev];
            }
        }
    }
    return 0;
}

// An empty schedule with room for the first phases.
static nt_status sched_alloc(int p, builder *b)
{
    nt_schedule_t *s = calloc(1, sizeof *s);
    b->s = s;
    b->cap_phases = 16;
    b->cap_pairs = 64;
    if (!s)
        return nt_fail(NT_ENOMEM, "schedule: cannot allocate scratch for p = %d", p);
    s->p = p;
    s->count = malloc((size_t)b->cap_phases * sizeof *s->count);
    s->first = malloc(((size_t)b->cap_phases + 1) * sizeof *s->first);
    s->src = malloc((size_t)b->cap_pairs * sizeof *s->src);
    s->dst = malloc((size_t)b->cap_pairs * sizeof *s->dst);
    if (!s->count || !s->first || !s->src || !s->dst)
        return nt_fail(NT_ENOMEM, "schedule: cannot allocate the phase lists");
    s->first[0] = 0;
    return NT_OK;
}

static int64_t max_degree(const int64_t *sdeg, const int64_t *rdeg, int p)
{
    int64_t delta = 0;
    for (int i = 0; i < p; i++) {
        if (sdeg[i] > delta)
            delta = sdeg[i];
        if (rdeg[i] > delta)
            delta = rdeg[i];
    }
    return delta;
}

// Dummy units fill every row and column up to delta (north-west corner rule: at most 2p - 1
// dummy cells). A domain of degree delta gets none, so every perfect matching gives it a real
// pair and no phase is empty.
static void pad(int p, int64_t delta, int64_t *sdeg, int64_t *rdeg, int64_t *dummy)
{
    for (int i = 0, k = 0; i < p && k < p;) {
        int64_t a = delta - sdeg[i], c = delta - rdeg[k];
        int64_t t = a < c ? a : c;
        dummy[(int64_t)i * p + k] += t;
        sdeg[i] += t;
        rdeg[k] += t;
        if (sdeg[i] == delta)
            i++;
        if (rdeg[k] == delta)
            k++;
    }
}

static void cells_free(cells *C)
{
    free(C->start);
    free(C->row);
    free(C->col);
    free(C->real);
    free(C->dummy);
}

// Only the non-empty cells are kept, so sparse transfers cost O(cells), not O(p^2).
static nt_status cells_build(const int64_t *q, const int64_t *dummy, int p, cells *C)
{
    C->p = p;
    C->n = 0;
    for (int64_t x = 0; x < (int64_t)p * p; x++)
        C->n += (x / p != x % p && q[x] > 0) || dummy[x] > 0;
    C->start = malloc(((size_t)p + 1) * sizeof *C->start);
    C->row = malloc((size_t)C->n * sizeof *C->row);
    C->col = malloc((size_t)C->n * sizeof *C->col);
    C->real = malloc((size_t)C->n * sizeof *C->real);
    C->dummy = malloc((size_t)C->n * sizeof *C->dummy);
    if (!C->start || !C->row || !C->col || !C->real || !C->dummy)
        return nt_fail(NT_ENOMEM, "schedule: cannot allocate %lld cells", (long long)C->n);
    int64_t e = 0;
    for (int i = 0; i < p; i++) {
        C->start[i] = e;
        for (int k = 0; k < p; k++) {
            int64_t x = (int64_t)i * p + k, r = i != k ? q[x] : 0;
            if (r > 0 || dummy[x] > 0) {
                C->row[e] = i;
                C->col[e] = k;
                C->real[e] = r;
                C->dummy[e++] = dummy[x];
            }
        }
    }
    C->start[p] = e;
    return NT_OK;
}

static void repair_free(repair *R)
{
    free(R->match_cell);
    free(R->col_row);
    free(R->queue);
    free(R->via);
    free(R->seen);
}

// The first perfect matching by Hopcroft-Karp, as matched cells; later ones are repaired path
// by path.
static nt_status first_matching(const cells *C, repair *R)
{
    int p = C->p;
    R->match_cell = malloc((size_t)p * sizeof *R->match_cell);
    R->col_row = malloc((size_t)p * sizeof *R->col_row);
    R->queue = malloc((size_t)p * sizeof *R->queue);
    R->via = malloc((size_t)p * sizeof *R->via);
    R->seen = calloc((size_t)p, sizeof *R->seen);
    R->stamp = 0;
    nt_bigraph g = {p, NULL, NULL};
    g.start = malloc(((size_t)p + 1) * sizeof *g.start);
    g.adj = malloc((size_t)C->n * sizeof *g.adj);
    nt_hk hk = {0, NULL, NULL, NULL, NULL, NULL};
    nt_status st = NT_OK;
    if (!R->match_cell || !R->col_row || !R->queue || !R->via || !R->seen || !g.start ||
        !g.adj) {
        st = nt_fail(NT_ENOMEM, "schedule: cannot allocate %lld cells", (long long)C->n);
        goto done;
    }
    memcpy(g.start, C->start, ((size_t)p + 1) * sizeof *g.start);
    memcpy(g.adj, C->col, (size_t)C->n * sizeof *g.adj);
    if ((st = nt_hk_init(&hk, p)) != NT_OK)
        goto done;
    if (nt_hk_maximum(&hk, &g) != p) {
        st = nt_fail(NT_EINVAL, "schedule: internal error, the padded graph is not regular");
        goto done;
    }
    for (int i = 0; i < p; i++) {
        int k = hk.row_match[i];
        int64_t c = C->start[i];
        while (C->col[c] != k)
            c++;
        R->match_cell[i] = c;
        R->col_row[k] = i;
    }
done:
    nt_hk_free(&hk);
    nt_bigraph_free(&g);
    return st;
}

// Peel the matching with the largest multiplicity its smallest cell allows (real units if a
// cell has any, else its dummy units): one phase of the real pairs. src and dst: p scratch.
static nt_status peel(cells *C, const repair *R, builder *b, int *src, int *dst, int64_t *c_out)
{
    int p = C->p;
    int64_t c = INT64_MAX;
    for (int i = 0; i < p; i++) {
        int64_t x = R->match_cell[i];
        int64_t a = C->real[x] > 0 ? C->real[x] : C->dummy[x];
        if (a < c)
            c = a;
    }
    int n = 0;
    for (int i = 0; i < p; i++) {
        int64_t x = R->match_cell[i];
        if (C->real[x] > 0) {
            C->real[x] -= c;
            src[n] = i;
            dst[n++] = C->col[x];
        } else {
            C->dummy[x] -= c;
        }
    }
    *c_out = c;
    return add_phase(b, c, src, dst, n);
}

// Cells that emptied leave the matching; the rest of it is kept and made perfect again.
static nt_status repair_matching(const cells *C, repair *R)
{
    for (int i = 0; i < C->p; i++) {
        int64_t x = R->match_cell[i];
        if (!alive(C, x)) {
            R->col_row[C->col[x]] = -1;
            R->match_cell[i] = -1;
        }
    }
    for (int i = 0; i < C->p; i++)
        if (R->match_cell[i] < 0 && !augment(C, R, i))
            return nt_fail(NT_EINVAL, "schedule: internal error, no augmenting path");
    return NT_OK;
}

// The phases of the padded multigraph: delta units per domain, peeled matching by matching.
static nt_status phases(cells *C, int64_t delta, builder *b)
{
    repair R = {NULL, NULL, NULL, NULL, NULL, 0};
    int *src = malloc((size_t)C->p * sizeof *src), *dst = malloc((size_t)C->p * sizeof *dst);
    nt_status st = src && dst ? first_matching(C, &R)
                              : nt_fail(NT_ENOMEM, "schedule: cannot allocate scratch for p = %d",
                                        C->p);
    for (int64_t done = 0; st == NT_OK;) {
        int64_t c;
        if ((st = peel(C, &R, b, src, dst, &c)) != NT_OK)
            break;
        done += c;
        if (done == delta)
            break;
        st = repair_matching(C, &R);
    }
    repair_free(&R);
    free(src);
    free(dst);
    return st;
}

nt_status nt_sched_build(const int64_t *q, int p, nt_schedule_t **out)
{
    if (!q || !out || p < 1)
        return nt_fail(NT_EINVAL, "schedule: q or out is NULL, or p %d < 1", p);
    size_t cells_max;
    if (!nt_mul_size((size_t)p, (size_t)p, &cells_max) || cells_max > SIZE_MAX / 32)
        return nt_fail(NT_ERANGE, "schedule: p %d is too large", p);
    int64_t *sdeg = malloc((size_t)p * sizeof *sdeg), *rdeg = malloc((size_t)p * sizeof *rdeg);
    int64_t *dummy = calloc(cells_max, sizeof *dummy);
    builder b = {NULL, 0, 0};
    cells C = {p, 0, NULL, NULL, NULL, NULL, NULL};
    nt_status st = NT_OK;
    if (!sdeg || !rdeg || !dummy)
        st = nt_fail(NT_ENOMEM, "schedule: cannot allocate scratch for p = %d", p);
    if (st == NT_OK)
        st = sched_alloc(p, &b);
    if (st == NT_OK)
        st = degrees(q, p, sdeg, rdeg);
    int64_t delta = st == NT_OK ? max_degree(sdeg, rdeg, p) : 0;
    if (st == NT_OK && delta > 0) {
        pad(p, delta, sdeg, rdeg, dummy);
        st = cells_build(q, dummy, p, &C);
        if (st == NT_OK)
            st = phases(&C, delta, &b);
    }
    if (st == NT_OK) {
        *out = b.s;
        b.s = NULL;
    }
    nt_sched_destroy(b.s);
    cells_free(&C);
    free(sdeg);
    free(rdeg);
    free(dummy);
    return st;
}
