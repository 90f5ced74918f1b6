// Count matrices as Kronecker products of two factors (nt_kron_t): rows generated on demand
// from the factors' rows, so that a block-cyclic change's P x (row pairs x column pairs)
// entries are never stored (at P = 65536 they reach 38 M entries, 450 MB, whose pages cost
// more to fault in than the solver takes to read them).
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

void nt_kron_free(nt_kron_t *k)
{
    if (!k)
        return;
    if (k->own_a)
        nt_sparse_counts_free(&k->a);
    nt_sparse_counts_free(&k->b);
    free(k->ra);
    free(k->rb);
    free(k->colid);
    free(k->rdom);
    free(k->cdom);
    *k = (nt_kron_t){0};
}

// The entries and the widest row, from the factor rows' lengths.
void nt_kron_sizes(nt_kron_t *k)
{
    k->nnz = k->widest = 0;
    for (int i = 0; i < k->p_ini; i++) {
        if (k->ra[i] < 0)
            continue;
        int64_t m = (k->a.start[k->ra[i] + 1] - k->a.start[k->ra[i]]) *
                    (k->b.start[k->rb[i] + 1] - k->b.start[k->rb[i]]);
        k->nnz += m;
        k->widest = m > k->widest ? m : k->widest;
    }
}

// The 1 x 1 factor [1].
static nt_status unit(nt_sparse_counts_t *b)
{
    *b = (nt_sparse_counts_t){1, 1, 1, calloc(2, sizeof(int64_t)), calloc(1, sizeof(int)),
                              malloc(sizeof(int64_t))};
    if (!b->start || !b->col || !b->count) {
        nt_sparse_counts_free(b);
        return nt_fail(NT_ENOMEM, "sparse counts: cannot allocate a unit factor");
    }
    b->start[1] = 1;
    b->count[0] = 1;
    return NT_OK;
}

nt_status nt_kron_of_sparse(const nt_sparse_counts_t *n, nt_kron_t *k)
{
    *k = (nt_kron_t){.p_ini = n->p_ini, .p_tar = n->p_tar, .a = *n};
    k->ra = malloc((size_t)n->p_ini * sizeof *k->ra);
    k->rb = calloc((size_t)n->p_ini, sizeof *k->rb);
    nt_status st = unit(&k->b);
    if (st == NT_OK && (!k->ra || !k->rb))
        st = nt_fail(NT_ENOMEM, "sparse match: cannot allocate the rows of %d x %d", n->p_ini,
                     n->p_tar);
    if (st != NT_OK) {
        nt_kron_free(k);
        return st;
    }
    for (int i = 0; i < n->p_ini; i++)
        k->ra[i] = i;
    nt_kron_sizes(k);
    return NT_OK;
}

// The transpose of factor f, positive counts only.
static nt_status factor_transpose(const nt_sparse_counts_t *f, nt_sparse_counts_t *t)
{
    int64_t nnz = 0;
    for (int64_t e = 0; e < f->nnz; e++)
        nnz += f->count[e] > 0;
    *t = (nt_sparse_counts_t){f->p_tar, f->p_ini, nnz, NULL, NULL, NULL};
    t->start = calloc((size_t)f->p_tar + 1, sizeof *t->start);
    t->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *t->col);
    t->count = malloc((size_t)(nnz ? nnz : 1) * sizeof *t->count);
    if (!t->start || !t->col || !t->count) {
        nt_sparse_counts_free(t);
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate the transposed %lld entries",
                       (long long)nnz);
    }
    for (int64_t e = 0; e < f->nnz; e++)
        if (f->count[e] > 0)
            t->start[f->col[e] + 1]++;
    for (int j = 0; j < f->p_tar; j++)
        t->start[j + 1] += t->start[j];
    int64_t *fill = malloc(((size_t)f->p_tar + 1) * sizeof *fill);
    if (!fill) {
        nt_sparse_counts_free(t);
        return nt_fail(NT_ENOMEM, "sparse match: cannot allocate %d offsets", f->p_tar);
    }
    memcpy(fill, t->start, ((size_t)f->p_tar + 1) * sizeof *fill);
    for (int i = 0; i < f->p_ini; i++)
        for (int64_t e = f->start[i]; e < f->start[i + 1]; e++)
            if (f->count[e] > 0) {
                int64_t x = fill[f->col[e]]++;
                t->col[x] = i;
                t->count[x] = f->count[e];
            }
    free(fill);
    return NT_OK;
}

nt_status nt_kron_transpose(const nt_kron_t *k, nt_kron_t *t)
{
    *t = (nt_kron_t){.p_ini = k->p_tar, .p_tar = k->p_ini, .own_a = true};
    nt_status st = factor_transpose(&k->a, &t->a);
    if (st == NT_OK)
        st = factor_transpose(&k->b, &t->b);
    size_t cells = (size_t)k->a.p_ini * (size_t)k->b.p_ini;
    if (st == NT_OK) {
        t->ra = malloc((size_t)k->p_tar * sizeof *t->ra);
        t->rb = calloc((size_t)k->p_tar, sizeof *t->rb);
        t->colid = malloc((cells ? cells : 1) * sizeof *t->colid);
        if (!t->ra || !t->rb || !t->colid)
            st = nt_fail(NT_ENOMEM, "sparse match: cannot allocate the transposed rows");
    }
    if (st != NT_OK) {
        nt_kron_free(t);
        return st;
    }
    // Column (x, y) of k is row colid[x * b.p_tar + y] of t, whose factor rows are x and y;
    // row i of k (factor rows ra[i], rb[i]) is t's column there.
    for (int j = 0; j < k->p_tar; j++)
        t->ra[j] = -1;
    for (int x = 0; x < k->a.p_tar; x++)
        for (int y = 0; y < k->b.p_tar; y++) {
            int j = nt_kron_col(k, x, y);
            if (j >= 0) {
                t->ra[j] = x;
                t->rb[j] = y;
            }
        }
    for (size_t c = 0; c < cells; c++)
        t->colid[c] = -1;
    bool same = true; // rows numbered as their factor rows' pairs: no table
    for (int i = 0; i < k->p_ini; i++)
        if (k->ra[i] >= 0) {
            size_t c = (size_t)k->ra[i] * k->b.p_ini + k->rb[i];
            t->colid[c] = i;
            same = same && c == (size_t)i;
        }
    for (size_t c = 0; same && c < cells; c++)
        same = t->colid[c] == (int)c;
    if (same) {
        free(t->colid);
        t->colid = NULL;
    }
    nt_kron_sizes(t);
    return NT_OK;
}

int64_t nt_kron_row(const nt_kron_t *k, int i, int *col, int64_t *w)
{
    if (k->ra[i] < 0)
        return 0;
    const nt_sparse_counts_t *a = &k->a, *b = &k->b;
    int64_t m = 0, b0 = b->start[k->rb[i]], b1 = b->start[k->rb[i] + 1];
    for (int64_t x = a->start[k->ra[i]]; x < a->start[k->ra[i] + 1]; x++) {
        int64_t ax = a->count[x];
        for (int64_t y = b0; y < b1; y++) {
            int j = nt_kron_col(k, a->col[x], b->col[y]);
            int64_t v = ax * b->count[y];
            col[m] = j;
            w[m] = v;
            m += v > 0 && j >= 0;
        }
    }
    return m;
}

// Factor f's count in row u, column x (0 when absent).
static int64_t factor_at(const nt_sparse_counts_t *f, int u, int x)
{
    for (int64_t e = f->start[u]; e < f->start[u + 1]; e++)
        if (f->col[e] == x)
            return f->count[e];
    return 0;
}

// Sums of f's rows (rs, f->p_ini) and columns (cs, f->p_tar).
static void factor_sums(const nt_sparse_counts_t *f, int64_t *rs, int64_t *cs)
{
    for (int u = 0; u < f->p_ini; u++) {
        rs[u] = 0;
        for (int64_t e = f->start[u]; e < f->start[u + 1]; e++) {
            rs[u] += f->count[e];
            cs[f->col[e]] += f->count[e];
        }
    }
}

// The costs from the factors' row and column sums: every domain d keeps the entry of its row
// in the column placed on it (kept[d]), sends the rest of its row and receives the rest of
// that column. O(p + factor entries + the rows' lookups), no pass over the product.
static void kron_costs(const nt_kron_t *k, const int *sigma, int64_t *const sc[5], int *cx,
                       int *cy, int *rowof, int64_t *sent, int64_t *recv, int64_t *local)
{
    int64_t *ra = sc[0], *ca = sc[1], *rb = sc[2], *cb = sc[3], *kept = sc[4];
    factor_sums(&k->a, ra, ca);
    factor_sums(&k->b, rb, cb);
    for (int c = 0; c < k->p_tar; c++)
        cx[c] = -1;
    for (int x = 0; x < k->a.p_tar; x++)
        for (int y = 0; y < k->b.p_tar; y++) {
            int c = nt_kron_col(k, x, y);
            if (c >= 0) {
                cx[c] = x;
                cy[c] = y;
            }
        }
    for (int i = 0; i < k->p_ini; i++)
        rowof[k->rdom ? k->rdom[i] : i] = i;
    for (int c = 0; c < k->p_tar; c++) {
        int d = sigma[k->cdom ? k->cdom[c] : c], i = d < k->p_ini ? rowof[d] : -1;
        int64_t total = cx[c] < 0 ? 0 : ca[cx[c]] * cb[cy[c]], e = 0;
        if (i >= 0 && k->ra[i] >= 0 && cx[c] >= 0)
            e = factor_at(&k->a, k->ra[i], cx[c]) * factor_at(&k->b, k->rb[i], cy[c]);
        kept[d] = e;
        *local += e;
        recv[d] = total - e;
    }
    for (int i = 0; i < k->p_ini; i++) {
        int d = k->rdom ? k->rdom[i] : i;
        sent[d] = (k->ra[i] < 0 ? 0 : ra[k->ra[i]] * rb[k->rb[i]]) - kept[d];
    }
}

nt_status nt_kron_cost(const nt_kron_t *k, int pd, const int *sigma, int64_t total,
                       nt_cost_t *cost)
{
    size_t p = (size_t)pd;
    int64_t *sent = calloc(p, sizeof *sent), *recv = calloc(p, sizeof *recv);
    int64_t *sc[5] = {malloc(((size_t)k->a.p_ini + 1) * sizeof(int64_t)),
                      calloc((size_t)k->a.p_tar + 1, sizeof(int64_t)),
                      malloc(((size_t)k->b.p_ini + 1) * sizeof(int64_t)),
                      calloc((size_t)k->b.p_tar + 1, sizeof(int64_t)),
                      calloc(p, sizeof(int64_t))};
    int *cx = malloc(((size_t)k->p_tar + 1) * sizeof *cx);
    int *cy = malloc(((size_t)k->p_tar + 1) * sizeof *cy), *rowof = malloc(p * sizeof *rowof);
    bool ok = sent && recv && cx && cy && rowof;
    for (int x = 0; x < 5; x++)
        ok = ok && sc[x];
    int64_t local = 0, steps = 0;
    if (ok) {
        for (size_t d = 0; d < p; d++)
            rowof[d] = -1;
        kron_costs(k, sigma, sc, cx, cy, rowof, sent, recv, &local);
        for (size_t d = 0; d < p; d++) {
            int64_t m = sent[d] > recv[d] ? sent[d] : recv[d];
            steps = m > steps ? m : steps;
        }
    }
    free(sent);
    free(recv);
    for (int x = 0; x < 5; x++)
        free(sc[x]);
    free(cx);
    free(cy);
    free(rowof);
    if (!ok)
        return nt_fail(NT_ENOMEM, "sparse cost: cannot allocate scratch for p_dom = %d", pd);
    *cost = (nt_cost_t){.volume = total - local, .local = local, .steps = steps};
    return NT_OK;
}
