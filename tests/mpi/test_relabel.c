// test_relabel: distributed domains and relabelling at rank level (libnumatile_mpi).
//
//   mpirun -np R test_relabel [--cases N] [--seed S]
//
// Checks, on every rank:
//   - nt_mpi_topo_create with a different number of virtual domains per rank (1 + rank % 3):
//     the global ids are rank-major and agree with (rank, local) both ways, every rank holds the
//     same global matrix, its own diagonal block is its local nt_topo distances, every entry
//     between ranks is the default (twice the largest intra-rank distance, larger than all of
//     them) or the given value; a given value below an intra-rank distance or different between
//     ranks is refused with NT_EINVAL on every rank;
//   - random block-cyclic geometries (grids of at most R ranks, random rank tables, submatrices):
//     nt_mpi_rank_bytes equals a naive per-element owner count; nt_mpi_relabel under canonical,
//     volume, steps and lex against brute force over the R! rank permutations (volume: least
//     inter-rank bytes; steps: least one-port bound; lex: least bound, then least bytes among
//     those), canonical = gb's table, volume <= canonical, inter + intra = all bytes;
//   - the redistribution into the relabelled grid (nt_mpi_redist, some cases with opts.topo, the
//     unpack threads bound to local domains, half of them through MPI_Alltoallv) element by element against the naive oracle under
//     the relabelled map, and its bytes sent/local summed over ranks equal the relabel costs;
//   - more ranks than NT_MPI_RELABEL_SPARSE (no ranks running; rank 0): the sparse volume
//     relabelling equals the dense optimum on nt_mpi_rank_bytes()'s matrix;
//   - failure injection (NT_MPI_FAIL_RANK) into a relabelled redistribution: every rank gets
//     NT_ESYS, B unchanged.
// Rank 0 prints a summary; exit 0 when every check passed on every rank, 1 otherwise.
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/mpi.h"
#include "test_util.h"

static int me, nranks;
static long failures;

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            if (failures++ < 20) {                                                              \
                fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);                    \
                fprintf(stderr, __VA_ARGS__);                                                   \
                fprintf(stderr, "\n");                                                          \
            }                                                                                   \
        }                                                                                       \
    } while (0)


// ---- distributed topology -------------------------------------------------------------------

static void test_topo(void)
{
    nt_topo_opts_t o = {.domains = 1 + me % 3};
    nt_mpi_topo_t *t = NULL;
    nt_status s = nt_mpi_topo_create(MPI_COMM_WORLD, &o, 0, &t);
    CHECK(s == NT_OK, "nt_mpi_topo_create: %s", nt_mpi_last_error());
    if (s)
        return;
    int nd = nt_mpi_topo_ndomains(t);
    int want = 0;
    for (int r = 0; r < nranks; r++)
        want += 1 + r % 3;
    CHECK(nd == want, "ndomains %d, want %d", nd, want);
    CHECK(nt_mpi_topo_nranks(t) == nranks, "nranks");
    int g = 0;
    for (int r = 0; r < nranks; r++) {
        int first, count;
        CHECK(nt_mpi_topo_rank_domains(t, r, &first, &count) == NT_OK && first == g &&
                  count == 1 + r % 3, "rank %d domains", r);
        for (int l = 0; l < 1 + r % 3; l++, g++) {
            int rr, ll, gg;
            CHECK(nt_mpi_topo_domain(t, g, &rr, &ll) == NT_OK && rr == r && ll == l,
                  "domain %d -> (%d, %d), want (%d, %d)", g, rr, ll, r, l);
            CHECK(nt_mpi_topo_global(t, r, l, &gg) == NT_OK && gg == g, "global (%d, %d)", r, l);
        }
    }
    CHECK(nt_mpi_topo_domain(t, nd, NULL, NULL) == NT_EINVAL, "global id past the end");
    CHECK(nt_mpi_topo_global(t, nranks, 0, &g) == NT_EINVAL, "rank past the end");
    const nt_topo_t *lt = nt_mpi_topo_local(t);
    CHECK(nt_topo_ndomains(lt) == 1 + me % 3, "local domains %d", nt_topo_ndomains(lt));
    const uint32_t *d = nt_mpi_topo_distances(t), *ld = nt_topo_distances(lt);
    int first, cnt;
    nt_mpi_topo_rank_domains(t, me, &first, &cnt);
    uint32_t maxintra = 0, inter = nt_mpi_topo_inter_distance(t);
    for (int i = 0; i < nd; i++)
        for (int k = 0; k < nd; k++) {
            int ri, rk;
            nt_mpi_topo_domain(t, i, &ri, NULL);
            nt_mpi_topo_domain(t, k, &rk, NULL);
            if (ri == rk)
                maxintra = d[(size_t)i * nd + k] > maxintra ? d[(size_t)i * nd + k] : maxintra;
            else
                CHECK(d[(size_t)i * nd + k] == inter, "distance %d-%d between ranks", i, k);
        }
    for (int i = 0; i < cnt; i++)
        for (int k = 0; k < cnt; k++)
            CHECK(d[(size_t)(first + i) * nd + first + k] == ld[i * cnt + k],
                  "own block %d,%d", i, k);
    CHECK(inter == 2 * maxintra && inter > maxintra, "default inter %u, max intra %u", inter,
          maxintra);
    // The same matrix on every rank: compare a checksum's min and max.
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < (size_t)nd * nd; i++)
        h = (h ^ d[i]) * 1099511628211ULL;
    uint64_t lo = h, hi = h;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "ranks see different distance matrices");
    int64_t c0, c1, prev = 0;
    for (int l = 0; l < cnt; l++) {
        CHECK(nt_mpi_topo_columns(t, 10, l, &c0, &c1) == NT_OK && c0 == prev && c1 >= c0,
              "columns of domain %d", l);
        prev = c1;
    }
    CHECK(prev == 10, "columns cover 10: %lld", (long long)prev);
    nt_mpi_topo_destroy(t);

    // Given inter-rank distance; refused ones on every rank.
    t = NULL;
    s = nt_mpi_topo_create(MPI_COMM_WORLD, &o, 1000, &t);
    CHECK(!s && nt_mpi_topo_inter_distance(t) == 1000 &&
              (nranks < 2 || nt_mpi_topo_distances(t)[nt_mpi_topo_ndomains(t) - 1] == 1000),
          "given inter distance: %s", nt_mpi_last_error());
    nt_mpi_topo_destroy(t);
    t = NULL;
    s = nt_mpi_topo_create(MPI_COMM_WORLD, &o, 1, &t);
    CHECK(s == NT_EINVAL && !t, "inter distance 1 below intra: %d", s);
    s = nt_mpi_topo_create(MPI_COMM_WORLD, &o, me == 0 ? 100 : 200, &t);
    CHECK((nranks == 1 ? s == NT_OK : s == NT_EINVAL), "inter distance that differs: %d", s);
    if (nranks == 1)
        nt_mpi_topo_destroy(t);
    nt_topo_opts_t bad = {.domains = me == nranks - 1 ? -1 : 1};
    t = NULL;
    s = nt_mpi_topo_create(MPI_COMM_WORLD, &bad, 0, &t);
    CHECK(s == NT_EINVAL && !t && strstr(nt_mpi_last_error(), "rank"),
          "bad opts on one rank: %d %s", s, nt_mpi_last_error());
}

// ---- relabelling ----------------------------------------------------------------------------

typedef struct geo {
    int64_t rows, cols, ia, ja, ib, jb;
    nt_mpi_grid_t ga, gb;
    int ra[64], rb[64];
} geo;

static void random_grid(nt_mpi_grid_t *g, int *ranks, int64_t m, int64_t n)
{
    int p = uni(1, nranks), q = uni(1, nranks / p);
    int perm[64];
    for (int i = 0; i < nranks; i++)
        perm[i] = i;
    for (int i = nranks - 1; i > 0; i--) {
        int k = uni(0, i), x = perm[i];
        perm[i] = perm[k], perm[k] = x;
    }
    memcpy(ranks, perm, (size_t)(p * q) * sizeof *ranks);
    *g = (nt_mpi_grid_t){m, n, uni(1, 6) * (uni(0, 3) ? 1 : 8), uni(1, 6) * (uni(0, 3) ? 1 : 8),
                         uni(0, p - 1), uni(0, q - 1), p, q, uni(0, 4) ? ranks : NULL};
}

static void random_geo(geo *x)
{
    int64_t m = uni(1, 90), n = uni(1, 90);
    random_grid(&x->ga, x->ra, m, n);
    random_grid(&x->gb, x->rb, m, n);
    x->rows = uni(0, (int)m);
    x->cols = uni(0, (int)n);
    x->ia = uni(0, (int)(m - x->rows));
    x->ja = uni(0, (int)(n - x->cols));
    x->ib = uni(0, (int)(m - x->rows));
    x->jb = uni(0, (int)(n - x->cols));
}

static int owner(const nt_mpi_grid_t *g, int64_t i, int64_t j)
{
    int pr = (int)((i / g->mb + g->rsrc) % g->nprow), pc = (int)((j / g->nb + g->csrc) % g->npcol);
    int c = pr * g->npcol + pc;
    return g->ranks ? g->ranks[c] : c;
}

// Naive byte matrix: every element of the submatrix from its owner in A to its owner in B.
static void naive_bytes(const geo *x, const nt_mpi_grid_t *gb, int64_t *q)
{
    memset(q, 0, (size_t)nranks * nranks * sizeof *q);
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t j = 0; j < x->cols; j++)
            q[(size_t)owner(&x->ga, x->ia + i, x->ja + j) * nranks +
              owner(gb, x->ib + i, x->jb + j)] += 8;
}

static void cost_of(const int64_t *q, const int *perm, nt_mpi_relabel_cost_t *c)
{
    int64_t snd[64] = {0}, rcv[64] = {0};
    *c = (nt_mpi_relabel_cost_t){0};
    for (int s = 0; s < nranks; s++)
        for (int k = 0; k < nranks; k++) {
            int64_t v = q[(size_t)s * nranks + k];
            if (perm[k] == s) {
                c->intra_bytes += v;
            } else {
                c->inter_bytes += v;
                snd[s] += v;
                rcv[perm[k]] += v;
            }
        }
    for (int r = 0; r < nranks; r++) {
        int64_t m = snd[r] > rcv[r] ? snd[r] : rcv[r];
        c->inter_steps = m > c->inter_steps ? m : c->inter_steps;
    }
}

// Brute force over every permutation: least volume; least steps and least volume among them.
static void brute(const int64_t *q, int64_t *minvol, int64_t *minsteps, int64_t *lexvol)
{
    int perm[8], c[8] = {0};
    for (int i = 0; i < nranks; i++)
        perm[i] = i;
    *minvol = *minsteps = *lexvol = INT64_MAX;
    // Heap's algorithm.
    for (int i = 0;;) {
        nt_mpi_relabel_cost_t k;
        cost_of(q, perm, &k);
        *minvol = k.inter_bytes < *minvol ? k.inter_bytes : *minvol;
        if (k.inter_steps < *minsteps || (k.inter_steps == *minsteps && k.inter_bytes < *lexvol))
            *minsteps = k.inter_steps, *lexvol = k.inter_bytes;
        while (i < nranks && c[i] >= i)
            c[i++] = 0;
        if (i >= nranks)
            break;
        int a = i % 2 ? c[i] : 0, x = perm[a];
        perm[a] = perm[i], perm[i] = x;
        c[i]++;
        i = 0;
    }
}

static uint64_t value(int64_t i, int64_t j)
{
    return (uint64_t)i * 1000003u + (uint64_t)j + 7;
}

typedef struct local {
    int prow, pcol;
    int64_t lr, lc, ld;
    uint64_t *v;
} local;

static void alloc_local(const nt_mpi_grid_t *g, local *l, bool src)
{
    *l = (local){-1, -1, 0, 0, 1, NULL};
    for (int c = 0; c < g->nprow * g->npcol; c++)
        if ((g->ranks ? g->ranks[c] : c) == me)
            l->prow = c / g->npcol, l->pcol = c % g->npcol;
    if (l->prow >= 0) {
        l->lr = nt_mpi_numroc(g->m, g->mb, l->prow, g->rsrc, g->nprow);
        l->lc = nt_mpi_numroc(g->n, g->nb, l->pcol, g->csrc, g->npcol);
        l->ld = l->lr > 1 ? l->lr : 1;
    }
    l->v = malloc((size_t)(l->ld * (l->lc > 1 ? l->lc : 1)) * sizeof *l->v);
    for (int64_t lj = 0; lj < l->lc; lj++)
        for (int64_t li = 0; li < l->lr; li++) {
            int64_t gi = l2g(li, g->mb, l->prow, g->rsrc, g->nprow);
            int64_t gj = l2g(lj, g->nb, l->pcol, g->csrc, g->npcol);
            l->v[li + lj * l->ld] = src ? value(gi, gj) : ~value(gi, gj);
        }
}

// Every element of this rank's B: A's value inside the submatrix, its own outside.
static long check_b(const geo *x, const nt_mpi_grid_t *g, const local *l)
{
    long bad = 0;
    for (int64_t lj = 0; lj < l->lc; lj++)
        for (int64_t li = 0; li < l->lr; li++) {
            int64_t gi = l2g(li, g->mb, l->prow, g->rsrc, g->nprow);
            int64_t gj = l2g(lj, g->nb, l->pcol, g->csrc, g->npcol);
            bool in = gi >= x->ib && gi < x->ib + x->rows && gj >= x->jb && gj < x->jb + x->cols;
            uint64_t want = in ? value(gi - x->ib + x->ia, gj - x->jb + x->ja) : ~value(gi, gj);
            bad += l->v[li + lj * l->ld] != want;
        }
    return bad;
}

static const nt_match_objective OBJ[4] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME, NT_MATCH_STEPS,
                                          NT_MATCH_LEX};

static void test_case(const geo *x, int k, const nt_mpi_topo_t *topo, long *improved)
{
    int64_t *q = malloc((size_t)nranks * nranks * sizeof *q);
    int64_t *nq = malloc((size_t)nranks * nranks * sizeof *nq);
    nt_status s = nt_mpi_rank_bytes(nranks, x->rows, x->cols, 8, x->ia, x->ja, &x->ga, x->ib,
                                    x->jb, &x->gb, q);
    CHECK(!s, "nt_mpi_rank_bytes case %d: %s", k, nt_mpi_last_error());
    naive_bytes(x, &x->gb, nq);
    CHECK(!memcmp(q, nq, (size_t)nranks * nranks * sizeof *q), "case %d: byte matrix differs "
          "from the naive count", k);
    int64_t minvol, minsteps, lexvol;
    brute(nq, &minvol, &minsteps, &lexvol);
    int64_t total = 8 * x->rows * x->cols;
    for (int o = 0; o < 4; o++) {
        int ranks[64], perm[64];
        nt_mpi_relabel_cost_t can, ch;
        s = nt_mpi_relabel(nranks, x->rows, x->cols, 8, x->ia, x->ja, &x->ga, x->ib, x->jb,
                           &x->gb, OBJ[o], ranks, perm, &can, &ch);
        CHECK(!s, "relabel case %d %s: %s", k, nt_match_objective_name(OBJ[o]),
              nt_mpi_last_error());
        if (s)
            continue;
        nt_mpi_grid_t gr = x->gb;
        gr.ranks = ranks;
        int64_t rq[64 * 64];
        naive_bytes(x, &gr, rq);
        nt_mpi_relabel_cost_t nc, nr;
        int id[64];
        for (int i = 0; i < nranks; i++)
            id[i] = i;
        cost_of(nq, id, &nc);
        cost_of(rq, id, &nr);
        CHECK(!memcmp(&can, &nc, sizeof nc), "case %d: canonical costs", k);
        CHECK(!memcmp(&ch, &nr, sizeof nr), "case %d %s: chosen costs %lld/%lld/%lld, naive under "
              "the relabelled map %lld/%lld/%lld", k, nt_match_objective_name(OBJ[o]),
              (long long)ch.inter_bytes, (long long)ch.intra_bytes, (long long)ch.inter_steps,
              (long long)nr.inter_bytes, (long long)nr.intra_bytes, (long long)nr.inter_steps);
        CHECK(ch.inter_bytes + ch.intra_bytes == total, "case %d: bytes add up", k);
        if (OBJ[o] == NT_MATCH_CANONICAL)
            for (int c = 0; c < x->gb.nprow * x->gb.npcol; c++)
                CHECK(ranks[c] == (x->gb.ranks ? x->gb.ranks[c] : c), "canonical table");
        if (OBJ[o] == NT_MATCH_VOLUME) {
            CHECK(ch.inter_bytes == minvol && ch.inter_bytes <= can.inter_bytes,
                  "case %d volume: %lld, brute force %lld, canonical %lld", k,
                  (long long)ch.inter_bytes, (long long)minvol, (long long)can.inter_bytes);
            *improved += ch.inter_bytes < can.inter_bytes;
        }
        if (OBJ[o] == NT_MATCH_STEPS)
            CHECK(ch.inter_steps == minsteps, "case %d steps: %lld, brute force %lld", k,
                  (long long)ch.inter_steps, (long long)minsteps);
        if (OBJ[o] == NT_MATCH_LEX) {
            CHECK(ch.inter_steps == minsteps && ch.inter_bytes == lexvol,
                  "case %d lex: %lld/%lld, brute force %lld/%lld", k, (long long)ch.inter_steps,
                  (long long)ch.inter_bytes, (long long)minsteps, (long long)lexvol);
            if (can.inter_steps == minsteps)
                CHECK(ch.inter_bytes <= can.inter_bytes, "case %d lex above canonical", k);
        }
        // The redistribution into the relabelled grid, against the oracle.
        local a, b;
        alloc_local(&x->ga, &a, true);
        alloc_local(&gr, &b, false);
        nt_mpi_opts_t opt = {.threads = 1 + (k + o) % 2, .topo = (k + o) % 3 == 0 ? topo : NULL,
                             .alltoallv = (k + o) % 4 >= 2};
        nt_mpi_stats_t st;
        s = nt_mpi_redist(MPI_COMM_WORLD, x->rows, x->cols, 8, a.v, a.ld, x->ia, x->ja, &x->ga,
                          b.v, b.ld, x->ib, x->jb, &gr, &opt, &st);
        CHECK(!s, "redist case %d: %s", k, nt_mpi_last_error());
        long bad = s ? 0 : check_b(x, &gr, &b);
        CHECK(bad == 0, "case %d %s: %ld elements differ from the oracle", k,
              nt_match_objective_name(OBJ[o]), bad);
        int64_t sums[2] = {st.bytes_sent, st.bytes_local};
        MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(s || (sums[0] == ch.inter_bytes && sums[1] == ch.intra_bytes),
              "case %d: sent %lld local %lld, relabel says %lld %lld", k, (long long)sums[0],
              (long long)sums[1], (long long)ch.inter_bytes, (long long)ch.intra_bytes);
        // Failure injection on one rank, the relabelled grid: same error, B unchanged.
        if (OBJ[o] == NT_MATCH_LEX && k % 4 == 0 && total > 0) {
            char fr[16];
            snprintf(fr, sizeof fr, "%d", k % nranks);
            setenv("NT_MPI_FAIL_RANK", fr, 1);
            local b2;
            alloc_local(&gr, &b2, false);
            s = nt_mpi_redist(MPI_COMM_WORLD, x->rows, x->cols, 8, a.v, a.ld, x->ia, x->ja,
                              &x->ga, b2.v, b2.ld, x->ib, x->jb, &gr, &opt, NULL);
            unsetenv("NT_MPI_FAIL_RANK");
            CHECK(s == NT_ESYS && strstr(nt_mpi_last_error(), "injected"),
                  "case %d injected: %d %s", k, s, nt_mpi_last_error());
            geo none = *x;
            none.rows = 0; // the oracle's "outside the submatrix" everywhere
            CHECK(check_b(&none, &gr, &b2) == 0, "case %d: B changed by a failed call", k);
            free(b2.v);
        }
        free(a.v);
        free(b.v);
    }
    free(q);
    free(nq);
}

// A map where the canonical table is a poor match: the target grid is the source grid with
// its ranks rotated, so the volume relabelling must find zero inter-rank bytes.
static void test_rotated(void)
{
    if (nranks < 2)
        return;
    geo x = {0};
    for (int i = 0; i < nranks; i++)
        x.ra[i] = i, x.rb[i] = (i + 1) % nranks;
    x.ga = (nt_mpi_grid_t){64, 48, 4, 3, 0, 0, 1, nranks, x.ra};
    x.gb = (nt_mpi_grid_t){64, 48, 4, 3, 0, 0, 1, nranks, x.rb};
    x.rows = 64, x.cols = 48;
    int ranks[64];
    nt_mpi_relabel_cost_t can, ch;
    nt_status s = nt_mpi_relabel(nranks, 64, 48, 8, 0, 0, &x.ga, 0, 0, &x.gb, NT_MATCH_VOLUME,
                                 ranks, NULL, &can, &ch);
    CHECK(!s && can.inter_bytes == 64 * 48 * 8 && ch.inter_bytes == 0 &&
              ch.intra_bytes == 64 * 48 * 8, "rotated: canonical %lld, volume %lld",
          (long long)can.inter_bytes, (long long)ch.inter_bytes);
    for (int i = 0; !s && i < nranks; i++)
        CHECK(ranks[i] == i, "rotated: ranks[%d] = %d", i, ranks[i]);
    // Bad arguments are refused.
    CHECK(nt_mpi_relabel(nranks, 64, 48, 8, 0, 0, &x.ga, 0, 0, &x.gb, NT_MATCH_DISTANCE, ranks,
                         NULL, NULL, NULL) == NT_EINVAL, "distance objective refused");
    CHECK(nt_mpi_relabel(nranks, 65, 48, 8, 0, 0, &x.ga, 0, 0, &x.gb, NT_MATCH_VOLUME, ranks,
                         NULL, NULL, NULL) == NT_EINVAL, "submatrix outside refused");
    x.rb[0] = x.rb[1];
    CHECK(nt_mpi_relabel(nranks, 64, 48, 8, 0, 0, &x.ga, 0, 0, &x.gb, NT_MATCH_VOLUME, ranks,
                         NULL, NULL, NULL) == NT_EINVAL, "a rank twice refused");
}

// More ranks than NT_MPI_RELABEL_SPARSE (pure computation, no ranks running): the sparse
// volume relabelling against the dense solver on nt_mpi_rank_bytes()'s matrix (the same least
// volume), its costs against nt_cost_eval() of its permutation. Rank 0 only (a dense matching
// of 1000-2000 ranks).
static void test_many_ranks(int cases)
{
    // Rank 0 alone draws these geometries: the shared generator must stay in step on every
    // rank for the collective cases that follow.
    uint64_t saved = rng_state;
    for (int k = 0; me == 0 && k < cases; k++) {
        int nr = uni(NT_MPI_RELABEL_SPARSE + 1, 2048), p = uni(1, 64), q = uni(1, nr / p);
        int p2 = uni(1, 64), q2 = uni(1, nr / p2);
        int *ra = malloc((size_t)nr * sizeof *ra), *rb = malloc((size_t)nr * sizeof *rb);
        for (int i = 0; i < nr; i++)
            ra[i] = rb[i] = i;
        for (int i = nr - 1; i > 0; i--) {
            int a = uni(0, i), t = rb[i];
            rb[i] = rb[a], rb[a] = t;
        }
        int64_t m = uni(1, 3000), n = uni(1, 3000), rows = uni(0, (int)m), cols = uni(0, (int)n);
        nt_mpi_grid_t ga = {m, n, uni(1, 40), uni(1, 40), uni(0, p - 1), uni(0, q - 1), p, q,
                            uni(0, 1) ? ra : NULL};
        nt_mpi_grid_t gb = {m, n, uni(1, 40), uni(1, 40), uni(0, p2 - 1), uni(0, q2 - 1), p2,
                            q2, uni(0, 1) ? rb : NULL};
        int64_t ia = uni(0, (int)(m - rows)), ja = uni(0, (int)(n - cols));
        int64_t ib = uni(0, (int)(m - rows)), jb = uni(0, (int)(n - cols));
        int64_t *bytes = malloc((size_t)nr * nr * sizeof *bytes);
        int *ranks = malloc((size_t)nr * sizeof *ranks), *perm = malloc((size_t)nr * sizeof *perm);
        int *dsig = malloc((size_t)nr * sizeof *dsig), *id = malloc((size_t)nr * sizeof *id);
        nt_mpi_relabel_cost_t can, ch;
        nt_status s = nt_mpi_relabel(nr, rows, cols, 8, ia, ja, &ga, ib, jb, &gb,
                                     NT_MATCH_VOLUME, ranks, perm, &can, &ch);
        CHECK(!s, "many ranks %d: %s", k, nt_mpi_last_error());
        s = s ? s : nt_mpi_rank_bytes(nr, rows, cols, 8, ia, ja, &ga, ib, jb, &gb, bytes);
        nt_match_problem_t prob = {.p_ini = nr, .p_tar = nr, .counts = bytes};
        nt_cost_t dc, pc, cc;
        for (int i = 0; i < nr; i++)
            id[i] = i;
        if (!s && !nt_match_solve(&prob, NT_MATCH_VOLUME, dsig, &dc) &&
            !nt_cost_eval(bytes, nr, nr, nr, perm, NULL, &pc) &&
            !nt_cost_eval(bytes, nr, nr, nr, id, NULL, &cc)) {
            CHECK(ch.inter_bytes == dc.volume, "many ranks %d (%d ranks): sparse %lld bytes, "
                  "dense optimum %lld", k, nr, (long long)ch.inter_bytes, (long long)dc.volume);
            CHECK(ch.inter_bytes == pc.volume && ch.intra_bytes == pc.local &&
                      ch.inter_steps == pc.steps, "many ranks %d: costs of perm", k);
            CHECK(can.inter_bytes == cc.volume && can.inter_steps == cc.steps,
                  "many ranks %d: canonical costs", k);
            for (int c = 0; c < p2 * q2; c++)
                CHECK(ranks[c] == perm[gb.ranks ? gb.ranks[c] : c], "many ranks %d: table", k);
        } else {
            CHECK(false, "many ranks %d: dense side failed", k);
        }
        free(ra), free(rb), free(bytes), free(ranks), free(perm), free(dsig), free(id);
    }
    rng_state = saved;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long cases = 200, seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cases"))
            cases = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = atol(argv[i + 1]);
    }
    if (nranks > 8) {
        if (me == 0)
            fprintf(stderr, "test_relabel: at most 8 ranks (brute force over R!)\n");
        MPI_Finalize();
        return 1;
    }
    rng_state = (uint64_t)seed;
    test_topo();
    test_rotated();
    test_many_ranks(cases / 20 + 1);
    nt_topo_opts_t o = {.domains = 2};
    nt_mpi_topo_t *topo = NULL;
    CHECK(nt_mpi_topo_create(MPI_COMM_WORLD, &o, 0, &topo) == NT_OK, "topo for the cases");
    long improved = 0;
    for (long k = 0; k < cases; k++) {
        geo x;
        random_geo(&x);
        test_case(&x, (int)k, topo, &improved);
    }
    nt_mpi_topo_destroy(topo);
    long f = failures;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_relabel: %d ranks, %ld geometries x 4 objectives, volume below canonical "
               "in %ld: %s (%ld failed checks)\n", nranks, cases, improved, f ? "FAILED" : "ok",
               f);
    MPI_Finalize();
    return f ? 1 : 0;
}
