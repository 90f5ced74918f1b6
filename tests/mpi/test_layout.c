// nt_mpi_layout_redist and nt_mpi_layout_relabel on random geometries: one to three transfers
// at once between matrices with irregular row and column splits, any owner maps (random,
// block-cyclic, on a subset of the ranks: a matrix of a sub-communicator), tiles stored one by
// one or inside one local array per rank, random submatrices, element sizes 1..16. Oracle:
// every element is a function of (matrix, row, column, byte), so each rank checks each of its
// target elements against the source element the submatrix maps to it, and the elements
// outside the submatrix against their untouched value. The relabelling against brute force over
// every permutation of the ranks with a per-element owner count. Every geometry runs again
// with indexes of the ranks' own tiles (mine[]: all layouts, or some per rank): the same
// pieces as the owner-table scan, field by field, and the same results; the index
// nt_mpi_layout_from_grid() makes against the test's own scan. Bad input (owners, indexes) and
// an injected failure: the same status everywhere, naming the field and the rank, no target
// written.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/mpi.h"
#include "nt_mpi_layout.h" // nt_lay_pieces_make: the pieces with and without an index
#include "test_util.h"

static int me, nranks;
static long failures, bad_runs; // bad owners and indexes tried

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            failures++;                                                                         \
            if (failures < 20) {                                                                \
                fprintf(stderr, "rank %d: ", me);                                               \
                fprintf(stderr, __VA_ARGS__);                                                   \
                fprintf(stderr, "\n");                                                          \
            }                                                                                   \
        }                                                                                       \
    } while (0)

static unsigned char val(int mat, int64_t r, int64_t c, size_t b)
{
    uint64_t z = (uint64_t)mat * 0x9e3779b97f4a7c15ULL ^ (uint64_t)r * 0xbf58476d1ce4e5b9ULL ^
                 (uint64_t)c * 0x94d049bb133111ebULL ^ b;
    z ^= z >> 31;
    z *= 0xd6e8feb86659fd93ULL;
    return (unsigned char)(z >> 32);
}

// A matrix: its description and this rank's memory.
typedef struct mat {
    nt_mpi_layout_t L;
    int64_t *rs, *cs;
    int *owner;
    nt_mpi_tile_t *tiles;
    void **blocks; // what to free
    int nblocks;
    int id;        // value family
    size_t es;
    bool bc;       // from nt_mpi_layout_from_grid()
    nt_mpi_grid_t g;
    int ranks[16];
    int64_t lld, lcols;
    int64_t *idx, nidx;       // this rank's tiles by the test's own scan of owner[]
    const int64_t *lib_mine;  // nt_mpi_layout_from_grid()'s index (block-cyclic)
} mat;

// The test's index of this rank's tiles: a scan of the owner table.
static void own_index(mat *x)
{
    int64_t all = x->L.mt * x->L.nt;
    free(x->idx);
    x->idx = malloc((size_t)(all > 0 ? all : 1) * sizeof *x->idx);
    x->nidx = 0;
    for (int64_t t = 0; t < all; t++)
        if (x->owner[t] == me)
            x->idx[x->nidx++] = t;
}

// Index on (the library's for block-cyclic matrices, the test's for the others) or off.
static void use_index(mat *x, bool on)
{
    x->L.mine = on ? (x->bc ? x->lib_mine : x->idx) : NULL;
    x->L.nmine = on ? x->nidx : 0;
}

static int64_t *random_split(int64_t n, int64_t *count)
{
    int64_t k = uni(1, n < 6 ? (int)n + 1 : 6);
    int64_t *s = malloc((size_t)(k + 1) * sizeof *s);
    s[0] = 0;
    for (int64_t t = 1; t < k; t++)
        s[t] = uni(0, (int)n);
    s[k] = n;
    for (int64_t a = 1; a < k; a++) // sort the cuts
        for (int64_t b = a; b > 0 && s[b - 1] > s[b]; b--) {
            int64_t x = s[b];
            s[b] = s[b - 1];
            s[b - 1] = x;
        }
    if (n > 0) // no empty tile when the matrix has elements
        for (int64_t t = 1; t <= k; t++)
            if (s[t] <= s[t - 1]) {
                memmove(s + t, s + t + 1, (size_t)(k - t) * sizeof *s);
                k--;
                t--;
            }
    *count = k;
    return s;
}

static void random_dim(int64_t n, int64_t **split, int64_t *count, int64_t *b)
{
    *split = NULL;
    if (n == 0 || uni(0, 1)) {
        *split = random_split(n, count);
        *b = 0;
    } else {
        *b = uni(1, (int)n);
        *count = n / *b + (n % *b != 0);
    }
}

static int64_t lo_of(const int64_t *split, int64_t b, int64_t t)
{
    return split ? split[t] : t * b;
}

static int64_t hi_of(const int64_t *split, int64_t b, int64_t n, int64_t t)
{
    return split ? split[t + 1] : ((t + 1) * b < n ? (t + 1) * b : n);
}

static void random_owners(mat *x)
{
    int64_t nt = x->L.mt * x->L.nt;
    int kind = uni(0, 3), p = uni(1, nranks), q = uni(1, nranks), first = uni(0, nranks - 1);
    int span = uni(1, nranks); // a sub-communicator: ranks first .. first+span-1 (mod)
    for (int64_t t = 0; t < nt; t++) {
        int64_t i = t / x->L.nt, j = t % x->L.nt;
        int r = kind == 0   ? uni(0, nranks - 1)
                : kind == 1 ? (int)(((i % p) * q + j % q) % nranks)
                : kind == 2 ? (first + uni(0, span - 1)) % nranks
                            : first;
        x->owner[t] = r;
    }
}

// Memory: each tile alone (ld = rows + pad), or all of a rank's tiles in one local array
// (rows of the tile rows where it owns a tile, stacked; columns likewise).
static void place(mat *x)
{
    nt_mpi_layout_t *L = &x->L;
    int64_t own = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++)
        own += x->owner[t] == me;
    x->tiles = own ? calloc((size_t)own, sizeof *x->tiles) : NULL;
    x->blocks = calloc((size_t)own + 1, sizeof *x->blocks);
    x->nblocks = 0;
    bool one = uni(0, 1);
    int64_t *ro = calloc((size_t)L->mt + 1, sizeof *ro), *co = calloc((size_t)L->nt + 1, sizeof *co);
    for (int64_t t = 0; t < L->mt * L->nt; t++)
        if (x->owner[t] == me) {
            ro[t / L->nt] = 1;
            co[t % L->nt] = 1;
        }
    int64_t lr = 0, lc = 0, pad = uni(0, 3);
    for (int64_t i = 0; i < L->mt; i++) { // offsets of the rank's tile rows in its array
        int64_t h = hi_of(L->row_split, L->mb, L->m, i) - lo_of(L->row_split, L->mb, i);
        int64_t used = ro[i];
        ro[i] = lr;
        lr += used ? h : 0;
    }
    for (int64_t j = 0; j < L->nt; j++) {
        int64_t w = hi_of(L->col_split, L->nb, L->n, j) - lo_of(L->col_split, L->nb, j);
        int64_t used = co[j];
        co[j] = lc;
        lc += used ? w : 0;
    }
    char *arr = one && own ? malloc((size_t)((lr + pad) * (lc > 0 ? lc : 1)) * x->es + 1) : NULL;
    if (arr)
        x->blocks[x->nblocks++] = arr;
    int64_t k = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++) {
        if (x->owner[t] != me)
            continue;
        int64_t i = t / L->nt, j = t % L->nt;
        int64_t h = hi_of(L->row_split, L->mb, L->m, i) - lo_of(L->row_split, L->mb, i);
        int64_t w = hi_of(L->col_split, L->nb, L->n, j) - lo_of(L->col_split, L->nb, j);
        if (arr) {
            x->tiles[k] = (nt_mpi_tile_t){arr + (ro[i] + co[j] * (lr + pad)) * (int64_t)x->es,
                                          lr + pad > 0 ? lr + pad : 1};
        } else {
            void *b = malloc((size_t)((h + pad) * (w > 0 ? w : 1)) * x->es + 1);
            x->blocks[x->nblocks++] = b;
            x->tiles[k] = (nt_mpi_tile_t){b, h + pad > 0 ? h + pad : 1};
        }
        k++;
    }
    free(ro);
    free(co);
    L->tiles = x->tiles;
    own_index(x);
}

// Element (r, c) of this rank's copy, or NULL when another rank holds it.
static unsigned char *elem(const mat *x, int64_t r, int64_t c)
{
    const nt_mpi_layout_t *L = &x->L;
    int64_t k = 0;
    for (int64_t t = 0; t < L->mt * L->nt; t++) {
        int64_t i = t / L->nt, j = t % L->nt;
        int64_t r0 = lo_of(L->row_split, L->mb, i), c0 = lo_of(L->col_split, L->nb, j);
        bool in = r >= r0 && r < hi_of(L->row_split, L->mb, L->m, i) && c >= c0 &&
                  c < hi_of(L->col_split, L->nb, L->n, j);
        if (in)
            return x->owner[t] == me ? (unsigned char *)L->tiles[k].ptr +
                                           ((r - r0) + (c - c0) * L->tiles[k].ld) * (int64_t)x->es
                                     : NULL;
        k += x->owner[t] == me;
    }
    return NULL;
}

static void fill(const mat *x, int id)
{
    for (int64_t r = 0; r < x->L.m; r++)
        for (int64_t c = 0; c < x->L.n; c++) {
            unsigned char *e = elem(x, r, c);
            for (size_t b = 0; e && b < x->es; b++)
                e[b] = val(id, r, c, b);
        }
}

static void make_mat(mat *x, int64_t m, int64_t n, size_t es, int id)
{
    *x = (mat){.es = es, .id = id};
    x->L.m = m;
    x->L.n = n;
    random_dim(m, &x->rs, &x->L.mt, &x->L.mb);
    random_dim(n, &x->cs, &x->L.nt, &x->L.nb);
    x->L.row_split = x->rs;
    x->L.col_split = x->cs;
    x->owner = malloc((size_t)(x->L.mt * x->L.nt > 0 ? x->L.mt * x->L.nt : 1) * sizeof(int));
    x->L.owner = x->owner;
    random_owners(x);
    place(x);
}

// Rows of dimension n (blocks of b over p processes, the first on src) that process k holds.
static int64_t local_count(int64_t n, int64_t b, int k, int src, int p)
{
    int64_t c = 0;
    for (int64_t i = 0; i * b < n; i++)
        if ((int)((i + src) % p) == k)
            c += (i + 1) * b < n ? b : n - i * b;
    return c;
}

// nt_mpi_layout_from_grid() refuses an lld below the lr local rows and a grid that names this
// rank twice, and leaves out untouched.
static void bad_grids(const mat *x, int64_t lr)
{
    nt_mpi_layout_t L = {.m = -7};
    int ranks[32];
    nt_mpi_grid_t g = x->g;
    nt_status st;
    if (lr > 1 && x->lcols > 0) {
        st = nt_mpi_layout_from_grid(&g, me, x->blocks[0], lr - 1, x->es, &L);
        CHECK(st == NT_EINVAL && strstr(nt_mpi_last_error(), "lld") && L.m == -7,
              "from_grid with lld %lld < %lld: %d %s", (long long)(lr - 1), (long long)lr, st,
              nt_mpi_last_error());
    }
    g.nprow = 1;
    g.npcol = 2;
    g.rsrc = g.csrc = 0;
    ranks[0] = ranks[1] = me;
    g.ranks = ranks;
    st = nt_mpi_layout_from_grid(&g, me, x->blocks[0], x->lld, x->es, &L);
    CHECK(st == NT_EINVAL && strstr(nt_mpi_last_error(), "twice") && L.m == -7,
          "from_grid with this rank twice: %d %s", st, nt_mpi_last_error());
}

// A block-cyclic matrix on a random grid of distinct ranks, as an any-layout matrix.
static void make_bc(mat *x, int64_t m, int64_t n, size_t es, int id)
{
    *x = (mat){.es = es, .id = id, .bc = true};
    int p = uni(1, nranks), q = uni(1, nranks / p);
    int perm[16];
    for (int r = 0; r < nranks; r++)
        perm[r] = r;
    for (int r = nranks - 1; r > 0; r--) {
        int k = uni(0, r), t = perm[r];
        perm[r] = perm[k];
        perm[k] = t;
    }
    for (int c = 0; c < p * q; c++)
        x->ranks[c] = perm[c];
    x->g = (nt_mpi_grid_t){m, n, uni(1, 9), uni(1, 9), uni(0, p - 1), uni(0, q - 1), p, q,
                           x->ranks};
    int cell = -1;
    for (int c = 0; c < p * q; c++)
        cell = x->ranks[c] == me ? c : cell;
    int64_t lr = cell < 0 ? 0 : local_count(m, x->g.mb, cell / q, x->g.rsrc, p);
    x->lcols = cell < 0 ? 0 : local_count(n, x->g.nb, cell % q, x->g.csrc, q);
    x->lld = lr + uni(0, 2) + (lr == 0);
    x->blocks = calloc(1, sizeof *x->blocks);
    x->blocks[0] = malloc((size_t)(x->lld * (x->lcols > 0 ? x->lcols : 1)) * es);
    x->nblocks = 1;
    if (nt_mpi_layout_from_grid(&x->g, me, x->blocks[0], x->lld, es, &x->L) != NT_OK) {
        CHECK(0, "nt_mpi_layout_from_grid: %s", nt_mpi_last_error());
        exit(1);
    }
    // The owners by the block-cyclic definition; the library's layout has them by formula
    // (cyclic, no table): some ranks give it this table instead.
    CHECK(!x->L.owner && x->L.cyclic, "nt_mpi_layout_from_grid: an owner table");
    int64_t all = x->L.mt * x->L.nt;
    x->owner = malloc((size_t)(all > 0 ? all : 1) * sizeof *x->owner);
    bad_grids(x, lr);
    for (int64_t t = 0; t < all; t++)
        x->owner[t] = x->ranks[((t / x->L.nt + x->g.rsrc) % p) * q +
                               (t % x->L.nt + x->g.csrc) % q];
    x->L.owner = ((unsigned)me * 7 + (unsigned)id * 3 + (unsigned)x->g.mb) % 2 ? x->owner : NULL;
    own_index(x);
    x->lib_mine = x->L.mine;
    bool same = x->L.nmine == x->nidx && x->L.mine;
    for (int64_t e = 0; same && e < x->nidx; e++)
        same = x->L.mine[e] == x->idx[e];
    CHECK(same, "nt_mpi_layout_from_grid: its index of %lld tiles differs from the scan's %lld",
          (long long)x->L.nmine, (long long)x->nidx);
}

static void free_mat(mat *x)
{
    free(x->idx);
    if (x->bc) {
        x->L.mine = x->lib_mine;
        x->L.owner = NULL; // the test's
        nt_mpi_layout_free(&x->L);
        free(x->owner);
        CHECK(!x->L.mine && !x->L.owner && !x->L.tiles && !x->L.nmine, "nt_mpi_layout_free");
        free(x->blocks[0]);
        free(x->blocks);
        return;
    }
    for (int k = 0; k < x->nblocks; k++)
        free(x->blocks[k]);
    free(x->blocks);
    free(x->tiles);
    free(x->owner);
    free(x->rs);
    free(x->cs);
}

enum { MAXX = 3 };

typedef struct geo {
    int count;
    mat a[MAXX], b[MAXX];
    nt_mpi_transfer_t x[MAXX];
} geo;

static void random_geo(geo *g)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16, 3};
    g->count = uni(1, MAXX);
    for (int k = 0; k < g->count; k++) {
        size_t es = sizes[uni(0, 5)];
        int64_t m = uni(0, 40), n = uni(0, 40), m2 = uni(0, 40), n2 = uni(0, 40);
        // A third of the sides block-cyclic (ScaLAPACK's layout), the others any map.
        if (uni(0, 2) == 0)
            make_bc(&g->a[k], m, n, es, 2 * k);
        else
            make_mat(&g->a[k], m, n, es, 2 * k);
        if (uni(0, 2) == 0)
            make_bc(&g->b[k], m2, n2, es, 2 * k + 1);
        else
            make_mat(&g->b[k], m2, n2, es, 2 * k + 1);
        nt_mpi_transfer_t *x = &g->x[k];
        x->rows = uni(0, (int)(m < m2 ? m : m2));
        x->cols = uni(0, (int)(n < n2 ? n : n2));
        x->ia = uni(0, (int)(m - x->rows));
        x->ja = uni(0, (int)(n - x->cols));
        x->ib = uni(0, (int)(m2 - x->rows));
        x->jb = uni(0, (int)(n2 - x->cols));
        x->elem_size = es;
        x->a = &g->a[k].L;
        x->b = &g->b[k].L;
        fill(&g->a[k], g->a[k].id);
        fill(&g->b[k], g->b[k].id);
    }
}

// Indexes: mode 0 none (the owner-table scan), 1 every layout, 2 some layouts, chosen per
// rank and case (a hash: the random stream stays the same on every rank).
static void index_mode(geo *g, int mode, int k0)
{
    for (int k = 0; k < g->count; k++) {
        uint64_t h = ((uint64_t)k0 * 131 + (uint64_t)k * 7 + (uint64_t)me * 29) * 0x9e3779b9u;
        use_index(&g->a[k], mode == 1 || (mode == 2 && (h >> 7) % 2));
        use_index(&g->b[k], mode == 1 || (mode == 2 && (h >> 9) % 2));
    }
}

static void free_geo(geo *g)
{
    for (int k = 0; k < g->count; k++) {
        free_mat(&g->a[k]);
        free_mat(&g->b[k]);
    }
}

// Every target element this rank holds: the source element the submatrix maps onto it, or its
// own value outside the submatrix (or everywhere when written is false).
static void check_targets(const geo *g, bool written, int k0, const char *what)
{
    for (int k = 0; k < g->count; k++) {
        const mat *b = &g->b[k];
        const nt_mpi_transfer_t *x = &g->x[k];
        for (int64_t r = 0; r < b->L.m; r++)
            for (int64_t c = 0; c < b->L.n; c++) {
                const unsigned char *e = elem(b, r, c);
                if (!e)
                    continue;
                bool in = written && r >= x->ib && r < x->ib + x->rows && c >= x->jb &&
                          c < x->jb + x->cols;
                bool ok = true;
                for (size_t y = 0; y < b->es; y++)
                    ok = ok && e[y] == (in ? val(g->a[k].id, r - x->ib + x->ia,
                                                 c - x->jb + x->ja, y)
                                           : val(b->id, r, c, y));
                CHECK(ok, "%s case %d transfer %d: target (%lld,%lld) %s", what, k0, k,
                      (long long)r, (long long)c, in ? "not the source's" : "was written");
            }
    }
}

// Owner of element (r, c) of a layout, found by scanning its splits (the oracle's way).
static int owner_at(const nt_mpi_layout_t *L, const int *owner, int64_t r, int64_t c)
{
    int64_t i = 0, j = 0;
    while (hi_of(L->row_split, L->mb, L->m, i) <= r)
        i++;
    while (hi_of(L->col_split, L->nb, L->n, j) <= c)
        j++;
    return owner[i * L->nt + j];
}

// The least bytes between ranks over all permutations of the target ranks (nranks <= 4).
static int64_t brute_moved(const geo *g, int64_t *canonical)
{
    int64_t cnt[16] = {0};
    for (int k = 0; k < g->count; k++) {
        const nt_mpi_transfer_t *x = &g->x[k];
        for (int64_t r = 0; r < x->rows; r++)
            for (int64_t c = 0; c < x->cols; c++)
                cnt[owner_at(x->a, g->a[k].owner, x->ia + r, x->ja + c) * nranks +
                    owner_at(x->b, g->b[k].owner, x->ib + r, x->jb + c)] +=
                    (int64_t)x->elem_size;
    }
    int perm[4] = {0, 1, 2, 3};
    int64_t best = INT64_MAX;
    *canonical = -1;
    for (int code = 0; code < 256; code++) { // every map of 4 digits; keep the permutations
        int used = 0;
        for (int d = 0; d < nranks; d++) {
            perm[d] = (code >> (2 * d)) & 3;
            used |= perm[d] < nranks ? 1 << perm[d] : 1 << 8;
        }
        if (used != (1 << nranks) - 1 || code >> (2 * nranks))
            continue;
        int64_t moved = 0;
        bool id = true;
        for (int s = 0; s < nranks; s++)
            for (int d = 0; d < nranks; d++)
                moved += s != perm[d] ? cnt[s * nranks + d] : 0;
        for (int d = 0; d < nranks; d++)
            id = id && perm[d] == d;
        if (id)
            *canonical = moved;
        best = moved < best ? moved : best;
    }
    return best;
}

static void test_relabel(geo *g, int k0)
{
    int perm[8];
    int64_t moved[2];
    index_mode(g, k0 / 10 % 3, k0);
    nt_status st = nt_mpi_layout_relabel(MPI_COMM_WORLD, g->count, g->x, NT_MATCH_VOLUME, perm,
                                         moved);
    CHECK(st == NT_OK, "case %d: relabel: %s", k0, nt_mpi_last_error());
    if (st)
        return;
    int64_t canonical, best = brute_moved(g, &canonical);
    CHECK(moved[0] == canonical, "case %d: canonical %lld, oracle %lld", k0,
          (long long)moved[0], (long long)canonical);
    CHECK(moved[1] == best, "case %d: relabelled %lld, brute force %lld", k0,
          (long long)moved[1], (long long)best);
    // The relabelled targets: every tile to perm[owner], memory there, then the exchange
    // (block-cyclic targets are checked for the counts only).
    for (int k = 0; k < g->count; k++)
        if (g->b[k].bc)
            return;
    for (int k = 0; k < g->count; k++) {
        mat *b = &g->b[k];
        for (int64_t t = 0; t < b->L.mt * b->L.nt; t++)
            b->owner[t] = perm[b->owner[t]];
        for (int i = 0; i < b->nblocks; i++)
            free(b->blocks[i]);
        free(b->blocks);
        free(b->tiles);
        place(b);
        fill(b, b->id);
    }
    index_mode(g, k0 / 10 % 3, k0); // the new owners' indexes
    nt_mpi_stats_t s;
    st = nt_mpi_layout_redist(MPI_COMM_WORLD, g->count, g->x, NULL, &s);
    CHECK(st == NT_OK, "case %d: relabelled redist: %s", k0, nt_mpi_last_error());
    int64_t sent = s.bytes_sent;
    MPI_Allreduce(MPI_IN_PLACE, &sent, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sent == best, "case %d: %lld bytes sent after relabelling, %lld expected", k0,
          (long long)sent, (long long)best);
    check_targets(g, true, k0, "relabelled");
}

// Block-cyclic to block-cyclic transfers done again by nt_mpi_redist() (the block-cyclic
// engine) into a second target with the same grid and values: the local arrays agree byte for
// byte.
static void against_redist(const geo *g, int k0)
{
    for (int k = 0; k < g->count; k++) {
        const mat *a = &g->a[k], *b = &g->b[k];
        const nt_mpi_transfer_t *x = &g->x[k];
        if (!a->bc || !b->bc)
            continue;
        mat c = *b;
        size_t bytes = (size_t)(b->lld * (b->lcols > 0 ? b->lcols : 1)) * b->es;
        char *two = malloc(bytes);
        nt_mpi_layout_t L;
        CHECK(nt_mpi_layout_from_grid(&b->g, me, two, b->lld, b->es, &L) == NT_OK, "grid");
        c.L = L;
        fill(&c, b->id);
        nt_status st = nt_mpi_redist(MPI_COMM_WORLD, x->rows, x->cols, x->elem_size,
                                     a->blocks[0], a->lld, x->ia, x->ja, &a->g, two, b->lld,
                                     x->ib, x->jb, &b->g, NULL, NULL);
        CHECK(st == NT_OK, "case %d: nt_mpi_redist: %s", k0, nt_mpi_last_error());
        for (int64_t r = 0; r < b->L.m; r++)
            for (int64_t col = 0; col < b->L.n; col++) {
                const unsigned char *e = elem(b, r, col), *f = elem(&c, r, col);
                CHECK(!e == !f && (!e || !memcmp(e, f, b->es)), "case %d transfer %d: (%lld,"
                      "%lld) differs from nt_mpi_redist's", k0, k, (long long)r, (long long)col);
            }
        nt_mpi_layout_free(&L);
        free(two);
    }
}

// The pieces this rank sends and receives, planned with the indexes of mode and by the
// owner-table scan: the same, field by field.
static void same_pieces(geo *g, int mode, int k0)
{
    for (int send = 0; send < 2; send++) {
        nt_lay_pieces p[2] = {{0}, {0}};
        nt_status st[2];
        for (int v = 0; v < 2; v++) {
            index_mode(g, v ? mode : 0, k0);
            st[v] = nt_lay_pieces_make(g->count, g->x, me, nranks, send, &p[v]);
        }
        CHECK(!st[0] && !st[1] && p[0].n == p[1].n, "case %d: %lld pieces by the scan, %lld "
              "with indexes (mode %d)", k0, (long long)p[0].n, (long long)p[1].n, mode);
        for (int64_t q = 0; !st[0] && !st[1] && q < p[0].n && q < p[1].n; q++) {
            const nt_lay_piece *u = &p[0].v[q], *w = &p[1].v[q];
            CHECK(u->peer == w->peer && u->xfer == w->xfer && u->src_tile == w->src_tile &&
                  u->dst_tile == w->dst_tile && u->rows == w->rows && u->cols == w->cols &&
                  u->at == w->at && u->ld == w->ld && u->es == w->es,
                  "case %d: %s piece %lld differs with indexes (mode %d)", k0,
                  send ? "sent" : "received", (long long)q, mode);
        }
        nt_lay_pieces_free(&p[0]);
        nt_lay_pieces_free(&p[1]);
    }
}

// Every rank fails with NT_EINVAL, the message naming want and rank bad.
static void expect_bad(geo *g, int k0, const char *what, const char *want, int bad)
{
    char rk[24];
    snprintf(rk, sizeof rk, "(rank %d)", bad);
    nt_status st = nt_mpi_layout_redist(MPI_COMM_WORLD, g->count, g->x, NULL, NULL);
    bad_runs++;
    CHECK(st == NT_EINVAL && strstr(nt_mpi_last_error(), want) &&
              strstr(nt_mpi_last_error(), rk),
          "case %d: %s: %d \"%s\", expected %s %s", k0, what, st, nt_mpi_last_error(), want,
          rk);
}

// An owner entry this rank reads only as a piece meets it: the source tile of the submatrix's
// first element, on the rank that receives it, with every layout indexed.
static void bad_read_owner(geo *g, int k0)
{
    const nt_mpi_transfer_t *x = &g->x[0];
    if (x->rows == 0 || x->cols == 0)
        return;
    index_mode(g, 1, k0);
    int r = owner_at(x->b, g->b[0].owner, x->ib, x->jb);
    const nt_mpi_layout_t *A = x->a;
    int64_t i = 0, j = 0;
    while (hi_of(A->row_split, A->mb, A->m, i) <= x->ia)
        i++;
    while (hi_of(A->col_split, A->nb, A->n, j) <= x->ja)
        j++;
    int *o = &g->a[0].owner[i * A->nt + j], keep = *o;
    if (me == r)
        *o = nranks + 1;
    char want[64];
    snprintf(want, sizeof want, "a->owner[%lld]", (long long)(i * A->nt + j));
    expect_bad(g, k0, "bad owner read by a piece", want, r);
    *o = keep;
}

// A bad index on the last rank: decreasing, a tile another rank owns, one tile missing (found
// only by the collective count), an entry outside the tiles, mine NULL, or a tile twice (and
// one missing: the counts still add up).
static void bad_index(geo *g, int k0)
{
    mat *x = k0 / 10 % 2 ? &g->a[0] : &g->b[0];
    const char *side = x == &g->a[0] ? "a" : "b";
    int last = nranks - 1, kind = k0 / 20 % 6;
    int64_t all = x->L.mt * x->L.nt, n = 0, other = -1;
    for (int64_t t = 0; t < all; t++) { // the last rank's tiles, and one it does not own
        n += x->owner[t] == last;
        other = other < 0 && x->owner[t] != last ? t : other;
    }
    if (((kind == 0 || kind == 5) && n < 2) || (kind == 1 && other < 0) || (kind >= 2 && n < 1))
        return;
    index_mode(g, 1, k0);
    int64_t *v = malloc((size_t)(n + 1) * sizeof *v), nv = 0;
    for (int64_t t = 0; t < all; t++)
        if (x->owner[t] == last || (kind == 1 && t == other))
            v[nv++] = t;
    if (kind == 0) {
        int64_t y = v[0];
        v[0] = v[1];
        v[1] = y;
    }
    if (kind == 5)
        v[1] = v[0];
    if (kind == 3)
        v[nv - 1] = all;
    nv -= kind == 2;
    char want[64];
    snprintf(want, sizeof want, "%s->%s", side,
             kind == 0 || kind == 5 ? "mine[1]" : kind == 1 ? "owner[" : kind == 2 ? "nmine" :
             kind == 3 ? "mine[" : "nmine");
    if (kind == 1)
        snprintf(want, sizeof want, "%s->owner[%lld]", side, (long long)other);
    if (me == last) {
        x->L.mine = kind == 4 ? NULL : v;
        x->L.nmine = nv;
    }
    expect_bad(g, k0, "bad index", want, last);
    free(v);
    index_mode(g, 0, k0);
}

// Owners by formula that are bad on the last rank: a grid out of range (with or without
// indexes), or ranks[] naming no rank (found as owners are read: all of them by the scan; an
// index reads only those its pieces meet).
static void bad_cyclic(geo *g, int k0)
{
    mat *x = &g->b[0];
    if (!x->bc || x->L.mt * x->L.nt == 0)
        return;
    bool grid = k0 / 10 % 2;
    index_mode(g, grid ? k0 / 20 % 3 : 0, k0);
    nt_mpi_grid_t bad = x->g;
    int ranks[16];
    for (int c = 0; c < 16; c++)
        ranks[c] = nranks + c;
    if (grid)
        bad.rsrc = bad.nprow;
    else
        bad.ranks = ranks;
    const int *keep = x->L.owner;
    const nt_mpi_grid_t *kc = x->L.cyclic;
    if (me == nranks - 1) {
        x->L.owner = NULL;
        x->L.cyclic = &bad;
    }
    expect_bad(g, k0, "bad cyclic grid", grid ? "b->cyclic: nprow" : "b->cyclic->ranks[",
               nranks - 1);
    x->L.owner = keep;
    x->L.cyclic = kc;
    index_mode(g, 0, k0);
}

// Bad owners and indexes on one rank's description, then an injected failure: the same status
// on every rank and no target written.
static void test_failures(geo *g, int k0)
{
    bad_cyclic(g, k0);
    for (int k = 0; k < g->count; k++) { // owner tables, where the next tests change owners
        g->a[k].L.owner = g->a[k].owner;
        g->b[k].L.owner = g->b[k].owner;
    }
    bad_read_owner(g, k0);
    bad_index(g, k0);
    index_mode(g, 0, k0); // the scan reads every owner entry
    mat *b = &g->b[0];
    if (b->L.mt * b->L.nt > 0 && me == nranks - 1) {
        int keep = b->owner[0];
        b->owner[0] = nranks;
        nt_status st = nt_mpi_layout_redist(MPI_COMM_WORLD, g->count, g->x, NULL, NULL);
        b->owner[0] = keep;
        CHECK(st == NT_EINVAL && strstr(nt_mpi_last_error(), "b->owner[0]"),
              "case %d: bad owner: %d %s", k0, st, nt_mpi_last_error());
    } else if (b->L.mt * b->L.nt > 0) {
        nt_status st = nt_mpi_layout_redist(MPI_COMM_WORLD, g->count, g->x, NULL, NULL);
        CHECK(st == NT_EINVAL && strstr(nt_mpi_last_error(), "b->owner[0]"),
              "case %d: others of a bad owner: %d %s", k0, st, nt_mpi_last_error());
    }
    char rank[16];
    snprintf(rank, sizeof rank, "%d", nranks - 1);
    setenv("NT_MPI_FAIL_RANK", rank, 1);
    nt_status st = nt_mpi_layout_redist(MPI_COMM_WORLD, g->count, g->x, NULL, NULL);
    unsetenv("NT_MPI_FAIL_RANK");
    CHECK(st == NT_ESYS, "case %d: injected failure gave %d", k0, st);
    check_targets(g, false, k0, "failed");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long cases = 500, seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cases"))
            cases = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = atol(argv[i + 1]);
    }
    if (nranks > 4) {
        if (me == 0)
            fprintf(stderr, "test_layout: at most 4 ranks (brute force over the ranks)\n");
        MPI_Finalize();
        return 1;
    }
    rng_state = (uint64_t)seed;
    int64_t bytes = 0;
    for (long k = 0; k < cases; k++) {
        geo g;
        random_geo(&g);
        if (k % 10 == 9) {
            test_failures(&g, (int)k);
        } else if (k % 10 == 8) {
            test_relabel(&g, (int)k);
        } else {
            nt_mpi_stats_t s, si;
            index_mode(&g, 0, (int)k);
            nt_status st = nt_mpi_layout_redist(MPI_COMM_WORLD, g.count, g.x, NULL, &s);
            CHECK(st == NT_OK, "case %d: %s", (int)k, nt_mpi_last_error());
            check_targets(&g, st == NT_OK, (int)k, "redist");
            against_redist(&g, (int)k);
            bytes += s.bytes_sent + s.bytes_local;
            // Again with indexes: the same pieces, the same statistics, the same targets.
            int mode = 1 + (int)(k % 2);
            same_pieces(&g, mode, (int)k);
            for (int q = 0; q < g.count; q++)
                fill(&g.b[q], g.b[q].id);
            index_mode(&g, mode, (int)k);
            st = nt_mpi_layout_redist(MPI_COMM_WORLD, g.count, g.x, NULL, &si);
            CHECK(st == NT_OK, "case %d, indexes: %s", (int)k, nt_mpi_last_error());
            CHECK(si.pieces == s.pieces && si.bytes_sent == s.bytes_sent &&
                      si.bytes_local == s.bytes_local && si.bytes_received == s.bytes_received,
                  "case %d: statistics differ with indexes", (int)k);
            check_targets(&g, st == NT_OK, (int)k, "redist with indexes");
        }
        free_geo(&g);
    }
    long f = failures;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_layout: %d ranks, %ld geometries (1-3 transfers each, again with indexes; "
               "every 10th a relabelling, every 10th failures: %ld bad owners and indexes), "
               "%lld bytes checked: %s (%ld failed checks)\n",
               nranks, cases, bad_runs, (long long)bytes, f ? "FAILED" : "ok", f);
    MPI_Finalize();
    return f ? 1 : 0;
}
