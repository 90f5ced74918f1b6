// Relabelling at rank level: the bytes between ranks from the closed-form communication sets,
// and the permutation of the target's ranks chosen by nt_match_hier_solve() (numatile/mpi.h).
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_int.h"

static int cell_rank(const nt_mpi_grid_t *g, int cell)
{
    return g->ranks ? g->ranks[cell] : cell;
}

static nt_status check_grid(const char *name, const nt_mpi_grid_t *g, int nranks)
{
    if (!g)
        return nt_mpi_fail(NT_EINVAL, "%s: NULL grid", name);
    if (g->m < 0 || g->n < 0 || g->mb < 1 || g->nb < 1 || g->nprow < 1 || g->npcol < 1 ||
        (int64_t)g->nprow * g->npcol > nranks || g->rsrc < 0 || g->rsrc >= g->nprow ||
        g->csrc < 0 || g->csrc >= g->npcol)
        return nt_mpi_fail(NT_EINVAL, "%s: bad sizes or grid (m, n >= 0, mb, nb >= 1, a grid of "
                           "at most %d ranks, rsrc/csrc inside it)", name, nranks);
    // Distinct ranks of the communicator.
    char *seen = calloc((size_t)nranks, 1);
    if (!seen)
        return nt_mpi_fail(NT_ENOMEM, "out of memory");
    nt_status s = NT_OK;
    for (int c = 0; c < g->nprow * g->npcol && !s; c++) {
        int r = cell_rank(g, c);
        if (r < 0 || r >= nranks || seen[r]++)
            s = nt_mpi_fail(NT_EINVAL, "%s: ranks[%d] = %d is not a distinct rank of the %d", name,
                            c, r, nranks);
    }
    free(seen);
    return s;
}

// The arguments of nt_mpi_rank_bytes() and nt_mpi_relabel(), checked alike.
static nt_status check_call(int nranks, int64_t rows, int64_t cols, size_t es, int64_t ia,
                            int64_t ja, const nt_mpi_grid_t *ga, int64_t ib, int64_t jb,
                            const nt_mpi_grid_t *gb)
{
    nt_status s = check_grid("ga", ga, nranks);
    if (!s)
        s = check_grid("gb", gb, nranks);
    if (s)
        return s;
    if (rows < 0 || cols < 0 || es < 1)
        return nt_mpi_fail(NT_EINVAL, "rows = %lld, cols = %lld (>= 0), elem_size = %zu (>= 1)",
                           (long long)rows, (long long)cols, es);
    if (rows > 0 && cols > 0 &&
        (ia < 0 || ja < 0 || ia > ga->m - rows || ja > ga->n - cols || ib < 0 || jb < 0 ||
         ib > gb->m - rows || jb > gb->n - cols))
        return nt_mpi_fail(NT_EINVAL, "the %lld x %lld submatrix at (%lld, %lld) of A or at "
                           "(%lld, %lld) of B is outside its matrix", (long long)rows,
                           (long long)cols, (long long)ia, (long long)ja, (long long)ib,
                           (long long)jb);
    return NT_OK;
}

nt_status nt_mpi_rank_bytes(int nranks, int64_t rows, int64_t cols, size_t es, int64_t ia,
                            int64_t ja, const nt_mpi_grid_t *ga, int64_t ib, int64_t jb,
                            const nt_mpi_grid_t *gb, int64_t *bytes)
{
    if (nranks < 1 || !bytes)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_rank_bytes: nranks = %d (>= 1), bytes %s", nranks,
                           bytes ? "given" : "NULL");
    if (nranks > NT_MATCH_MAX_P)
        return nt_mpi_fail(NT_ERANGE, "nranks = %d above %d", nranks, NT_MATCH_MAX_P);
    nt_status s = check_call(nranks, rows, cols, es, ia, ja, ga, ib, jb, gb);
    if (s)
        return s;
    size_t n2 = (size_t)nranks * (size_t)nranks;
    int64_t *q = calloc(n2, sizeof *q);
    int64_t *rt = malloc((size_t)ga->nprow * (size_t)gb->nprow * sizeof *rt);
    int64_t *ct = malloc((size_t)ga->npcol * (size_t)gb->npcol * sizeof *ct);
    if (!q || !rt || !ct) {
        free(q), free(rt), free(ct);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the %d x %d byte matrix", nranks,
                           nranks);
    }
    if (rows > 0 && cols > 0) {
        nt_mpi_dim ds[2] = {{ga->mb, ia, ga->nprow, ga->rsrc}, {ga->nb, ja, ga->npcol, ga->csrc}};
        nt_mpi_dim dt[2] = {{gb->mb, ib, gb->nprow, gb->rsrc}, {gb->nb, jb, gb->npcol, gb->csrc}};
        for (int i = 0; i < ga->nprow && !s; i++)
            for (int j = 0; j < gb->nprow && !s; j++)
                s = nt_mpi_dim_count(rows, &ds[0], i, &dt[0], j, &rt[i * gb->nprow + j]);
        for (int i = 0; i < ga->npcol && !s; i++)
            for (int j = 0; j < gb->npcol && !s; j++)
                s = nt_mpi_dim_count(cols, &ds[1], i, &dt[1], j, &ct[i * gb->npcol + j]);
        for (int ca = 0; ca < ga->nprow * ga->npcol && !s; ca++)
            for (int cb = 0; cb < gb->nprow * gb->npcol && !s; cb++) {
                int64_t v;
                int64_t *e = &q[(size_t)cell_rank(ga, ca) * nranks + cell_rank(gb, cb)];
                if (__builtin_mul_overflow(rt[(ca / ga->npcol) * gb->nprow + cb / gb->npcol],
                                           ct[(ca % ga->npcol) * gb->npcol + cb % gb->npcol],
                                           &v) ||
                    __builtin_mul_overflow(v, (int64_t)es, &v) ||
                    __builtin_add_overflow(*e, v, e))
                    s = nt_mpi_fail(NT_ERANGE, "bytes between ranks overflow int64");
            }
    }
    if (!s)
        memcpy(bytes, q, n2 * sizeof *q);
    free(q), free(rt), free(ct);
    return s;
}

// Costs of bytes[s][k] when what gb puts on rank k goes to rank perm[k] (NULL: k); snd and rcv
// are n entries of scratch.
static void costs(int n, const int64_t *q, const int *perm, int64_t *snd, int64_t *rcv,
                  nt_mpi_relabel_cost_t *c)
{
    memset(snd, 0, (size_t)n * sizeof *snd);
    memset(rcv, 0, (size_t)n * sizeof *rcv);
    *c = (nt_mpi_relabel_cost_t){0};
    for (int s = 0; s < n; s++)
        for (int k = 0; k < n; k++) {
            int64_t v = q[(size_t)s * n + k];
            int to = perm ? perm[k] : k;
            if (to == s) {
                c->intra_bytes += v;
            } else {
                c->inter_bytes += v;
                snd[s] += v;
                rcv[to] += v;
            }
        }
    for (int r = 0; r < n; r++) {
        int64_t m = snd[r] > rcv[r] ? snd[r] : rcv[r];
        c->inter_steps = m > c->inter_steps ? m : c->inter_steps;
    }
}

// Bytes of element costs (volume -> inter, local -> intra, steps -> inter_steps).
static nt_status to_bytes(const nt_cost_t *c, size_t es, nt_mpi_relabel_cost_t *out)
{
    nt_mpi_relabel_cost_t b;
    if (__builtin_mul_overflow(c->volume, (int64_t)es, &b.inter_bytes) ||
        __builtin_mul_overflow(c->local, (int64_t)es, &b.intra_bytes) ||
        __builtin_mul_overflow(c->steps, (int64_t)es, &b.inter_steps))
        return nt_mpi_fail(NT_ERANGE, "bytes between ranks overflow int64");
    *out = b;
    return NT_OK;
}

// NT_MATCH_VOLUME on many ranks: the sparse count matrix (elements) and the sparse exact
// matching, no nranks x nranks table.
static nt_status relabel_sparse(int nranks, int64_t rows, int64_t cols, size_t es, int64_t ia,
                                int64_t ja, const nt_mpi_grid_t *ga, int64_t ib, int64_t jb,
                                const nt_mpi_grid_t *gb, int *ranks, int *perm,
                                nt_mpi_relabel_cost_t *canonical, nt_mpi_relabel_cost_t *chosen)
{
    nt_status s = check_call(nranks, rows, cols, es, ia, ja, ga, ib, jb, gb);
    if (s)
        return s;
    // An empty submatrix has no offsets to honour (they are not checked then).
    bool empty = rows == 0 || cols == 0;
    nt_bc_layout_t la = {{ga->mb, empty ? 0 : ia, ga->nprow, ga->rsrc},
                         {ga->nb, empty ? 0 : ja, ga->npcol, ga->csrc}, ga->ranks};
    nt_bc_layout_t lb = {{gb->mb, empty ? 0 : ib, gb->nprow, gb->rsrc},
                         {gb->nb, empty ? 0 : jb, gb->npcol, gb->csrc}, gb->ranks};
    nt_sparse_counts_t n = {0};
    int *sigma = malloc((size_t)nranks * sizeof *sigma);
    int *id = malloc((size_t)nranks * sizeof *id);
    nt_cost_t cc, cs;
    s = sigma && id ? NT_OK : nt_mpi_fail(NT_ENOMEM, "out of memory");
    if (!s && (s = nt_sparse_counts_bc(empty ? 0 : rows, empty ? 0 : cols, &la, nranks, &lb,
                                       nranks, &n)) != NT_OK)
        s = nt_mpi_fail(s, "nt_sparse_counts_bc: %s", nt_last_error());
    if (!s && (s = nt_match_sparse_volume(&n, nranks, sigma, &cs)) != NT_OK)
        s = nt_mpi_fail(s, "nt_match_sparse_volume: %s", nt_last_error());
    for (int r = 0; !s && r < nranks; r++)
        id[r] = r;
    if (!s && (s = nt_sparse_cost(&n, nranks, id, &cc)) != NT_OK)
        s = nt_mpi_fail(s, "nt_sparse_cost: %s", nt_last_error());
    nt_mpi_relabel_cost_t bc = {0}, bs = {0};
    if (!s)
        s = to_bytes(&cc, es, &bc);
    if (!s)
        s = to_bytes(&cs, es, &bs);
    if (!s) {
        for (int c = 0; c < gb->nprow * gb->npcol; c++)
            ranks[c] = sigma[cell_rank(gb, c)];
        if (perm)
            memcpy(perm, sigma, (size_t)nranks * sizeof *perm);
        if (canonical)
            *canonical = bc;
        if (chosen)
            *chosen = bs;
    }
    nt_sparse_counts_free(&n);
    free(sigma), free(id);
    return s;
}

nt_status nt_mpi_relabel(int nranks, int64_t rows, int64_t cols, size_t es, int64_t ia,
                         int64_t ja, const nt_mpi_grid_t *ga, int64_t ib, int64_t jb,
                         const nt_mpi_grid_t *gb, nt_match_objective obj, int *ranks, int *perm,
                         nt_mpi_relabel_cost_t *canonical, nt_mpi_relabel_cost_t *chosen)
{
    if (!ranks)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_relabel: ranks is NULL");
    if (obj != NT_MATCH_CANONICAL && obj != NT_MATCH_VOLUME && obj != NT_MATCH_STEPS &&
        obj != NT_MATCH_LEX)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_relabel: objective %s not canonical, volume, steps "
                           "or lex", nt_match_objective_name(obj));
    if (obj == NT_MATCH_VOLUME && nranks > NT_MPI_RELABEL_SPARSE)
        return relabel_sparse(nranks, rows, cols, es, ia, ja, ga, ib, jb, gb, ranks, perm,
                              canonical, chosen);
    if (nranks < 1 || nranks > NT_MATCH_MAX_P)
        return nt_mpi_fail(nranks < 1 ? NT_EINVAL : NT_ERANGE, "nranks = %d outside 1..%d",
                           nranks, NT_MATCH_MAX_P);
    size_t n2 = (size_t)nranks * (size_t)nranks;
    int64_t *q = malloc(n2 * sizeof *q);
    int *rank_of = malloc((size_t)nranks * sizeof *rank_of);
    int *sigma = malloc((size_t)nranks * sizeof *sigma);
    int64_t *scratch = malloc(2 * (size_t)nranks * sizeof *scratch);
    nt_status s = q && rank_of && sigma && scratch ? NT_OK
                                                  : nt_mpi_fail(NT_ENOMEM, "out of memory");
    if (!s)
        s = nt_mpi_rank_bytes(nranks, rows, cols, es, ia, ja, ga, ib, jb, gb, q);
    if (!s) {
        // One domain per rank: the rank level is the whole problem, component k = what gb's
        // table puts on rank k (its canonical group is rank k).
        for (int r = 0; r < nranks; r++)
            rank_of[r] = r;
        nt_match_hier_problem_t prob = {.p_ini = nranks, .p_tar = nranks, .p_dom = nranks,
                                        .counts = q, .nranks = nranks, .rank_of = rank_of};
        nt_status ms = nt_match_hier_solve(&prob, obj, NT_MATCH_CANONICAL, sigma, NULL, NULL);
        if (ms)
            s = nt_mpi_fail(ms, "nt_match_hier_solve: %s", nt_last_error());
    }
    if (!s) {
        for (int c = 0; c < gb->nprow * gb->npcol; c++)
            ranks[c] = sigma[cell_rank(gb, c)];
        if (perm)
            memcpy(perm, sigma, (size_t)nranks * sizeof *perm);
        if (canonical)
            costs(nranks, q, NULL, scratch, scratch + nranks, canonical);
        if (chosen)
            costs(nranks, q, sigma, scratch, scratch + nranks, chosen);
    }
    free(q), free(rank_of), free(sigma), free(scratch);
    return s;
}
