// test_pgemr2d: libnumatile_mpi against ScaLAPACK's own pdgemr2d and a naive owner oracle.
//
//   mpirun -np R test_pgemr2d [--cases N] [--seed S] [--verbose]
//
// Every case draws (from one seed, the same on every rank) two BLACS grids of 1..4 x 1..4
// processes placed on random ranks (Cblacs_gridmap: ranks outside a grid, grids in any order),
// global sizes up to 300, block sizes 1..64 (sometimes up to 300), RSRC/CSRC displacements,
// padded leading dimensions and a random submatrix (sometimes empty). A holds a value unique to
// each global element, B a distinct initial value per element and a sentinel in its padding.
// Checks, element by element on every rank:
//   - nt_pdgemr2d's B equals pdgemr2d's B (both called on copies of the same B);
//   - nt_pdgemr2d's B equals the oracle: the submatrix from A's global coordinates, everything
//     else (padding included) as it was; A unchanged;
//   - some cases run with 16-byte elements through nt_pgemr2d (oracle only);
//   - failure injection (NT_MPI_FAIL_RANK) on one rank: every rank returns NT_ESYS with the same
//     message, B and A unchanged;
//   - a bad leading dimension on one rank: every rank returns NT_EINVAL, B unchanged;
//   - some cases run with 3-byte elements through nt_mpi_redist itself, the grids given by
//     their rank tables, 1 to 3 OpenMP threads, half of them in one-port steps (oracle only);
//   - those cases import both grids from the descriptors (nt_mpi_grid_from_desc) and must
//     get the drawn grids and rank tables back;
//   - nt_mpi_matrix_desc: every domain of numatile ScaLAPACK-layout matrices, read through the
//     exported descriptor and local address, against the matrix's own elements (rank 0);
//   - grids nt_mpi_redist must refuse (a rank twice, a rank outside the communicator, block
//     size 0, RSRC outside the grid, no grid): NT_EINVAL on every rank, B untouched.
// Rank 0 prints a summary; exit 0 when every check passed on every rank, 1 otherwise.
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/matrix.h>
#include <numatile/topo.h>

#include "numatile/mpi.h"
#include "mpi/nt_blacs.h"
#include "test_util.h"



static const double SENTINEL = -7.25;

static double a_value(int64_t gi, int64_t gj)
{
    return (double)(gi * 100000 + gj + 1);
}
static double b_value(int64_t gi, int64_t gj)
{
    return -(double)(gi * 100000 + gj + 1) - 0.5;
}

typedef struct mat {
    int M, N, mb, nb, p, q, rsrc, csrc;
    int map[16];
    int ctxt, myrow, mycol, mloc, nloc, lld;
    int desc[9];
    size_t count; // lld * max(1, nloc)
} mat;

typedef struct geom {
    mat A, B;
    int m, n, ia, ja, ib, jb; // 1-based corners
    int kind;                 // 0 normal, 1 elem 16, 2 injection, 3 bad lld
    int fail_rank;
} geom;

static void draw_grid(mat *x, int R)
{
    do {
        x->p = uni(1, 4);
        x->q = uni(1, 4);
    } while (x->p * x->q > R);
    int perm[16];
    for (int i = 0; i < R; i++)
        perm[i] = i;
    for (int i = R - 1; i > 0; i--) {
        int j = uni(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    memcpy(x->map, perm, sizeof perm);
    x->M = uni(1, 300);
    x->N = uni(1, 300);
    x->mb = uni(0, 9) ? uni(1, 64) : uni(65, 300);
    x->nb = uni(0, 9) ? uni(1, 64) : uni(65, 300);
    x->rsrc = uni(0, x->p - 1);
    x->csrc = uni(0, x->q - 1);
}

static int numroc(int n, int nb, int iproc, int isrc, int nprocs)
{
    return (int)nt_mpi_numroc(n, nb, iproc, isrc, nprocs);
}

// The BLACS grid (collective over every rank) and this rank's part.
static void make_grid(mat *x, int pad)
{
    int usermap[16];
    for (int i = 0; i < x->p; i++)
        for (int j = 0; j < x->q; j++)
            usermap[i + j * x->p] = x->map[i * x->q + j]; // row-major cells, column-major map
    Cblacs_get(-1, 0, &x->ctxt);
    Cblacs_gridmap(&x->ctxt, usermap, x->p, x->p, x->q);
    int np, nq;
    x->myrow = x->mycol = -1;
    if (x->ctxt >= 0)
        Cblacs_gridinfo(x->ctxt, &np, &nq, &x->myrow, &x->mycol);
    memset(x->desc, 0, sizeof x->desc);
    x->desc[1] = -1;
    x->mloc = x->nloc = 0;
    x->lld = 1;
    x->count = 1;
    if (x->myrow < 0)
        return;
    x->mloc = numroc(x->M, x->mb, x->myrow, x->rsrc, x->p);
    x->nloc = numroc(x->N, x->nb, x->mycol, x->csrc, x->q);
    x->lld = (x->mloc > 1 ? x->mloc : 1) + pad;
    x->count = (size_t)x->lld * (size_t)(x->nloc > 1 ? x->nloc : 1);
    int d[9] = {1, x->ctxt, x->M, x->N, x->mb, x->nb, x->rsrc, x->csrc, x->lld};
    memcpy(x->desc, d, sizeof d);
}

static void fill(const mat *x, double *v, int comps, bool is_a)
{
    for (size_t k = 0; k < x->count * comps; k++)
        v[k] = SENTINEL;
    for (int lj = 0; lj < x->nloc; lj++) {
        int64_t gj = l2g(lj, x->nb, x->mycol, x->csrc, x->q);
        for (int li = 0; li < x->mloc; li++) {
            int64_t gi = l2g(li, x->mb, x->myrow, x->rsrc, x->p);
            double val = is_a ? a_value(gi, gj) : b_value(gi, gj);
            for (int c = 0; c < comps; c++)
                v[((size_t)li + (size_t)lj * x->lld) * comps + c] = c ? -val : val;
        }
    }
}

// Elements of B (comps doubles each) that differ from what a correct redistribution leaves.
static int64_t oracle_mismatches(const geom *g, const double *b, int comps)
{
    const mat *x = &g->B;
    if (x->myrow < 0)
        return 0;
    int64_t bad = 0;
    for (int lj = 0; lj < (x->nloc > 1 ? x->nloc : 1); lj++) {
        int64_t gj = l2g(lj, x->nb, x->mycol, x->csrc, x->q);
        for (int li = 0; li < x->lld; li++) {
            double want = SENTINEL;
            if (li < x->mloc && lj < x->nloc) {
                int64_t gi = l2g(li, x->mb, x->myrow, x->rsrc, x->p);
                bool in = gi >= g->ib - 1 && gi < g->ib - 1 + g->m && gj >= g->jb - 1 &&
                          gj < g->jb - 1 + g->n;
                want = in ? a_value(gi - (g->ib - 1) + (g->ia - 1), gj - (g->jb - 1) + (g->ja - 1))
                          : b_value(gi, gj);
            }
            for (int c = 0; c < comps; c++) {
                double w = want == SENTINEL ? SENTINEL : (c ? -want : want);
                bad += b[((size_t)li + (size_t)lj * x->lld) * comps + c] != w;
            }
        }
    }
    return bad;
}

static void draw(geom *g, int R)
{
    draw_grid(&g->A, R);
    draw_grid(&g->B, R);
    int mmax = g->A.M < g->B.M ? g->A.M : g->B.M, nmax = g->A.N < g->B.N ? g->A.N : g->B.N;
    g->m = uni(0, 49) ? uni(1, mmax) : 0;
    g->n = uni(0, 49) ? uni(1, nmax) : uni(0, nmax);
    g->ia = uni(1, g->A.M - g->m + 1);
    g->ja = uni(1, g->A.N - g->n + 1);
    g->ib = uni(1, g->B.M - g->m + 1);
    g->jb = uni(1, g->B.N - g->n + 1);
    int k = uni(0, 99);
    g->kind = k < 8 ? 1 : k < 13 ? 2 : k < 16 ? 3 : k < 24 ? 4 : 0;
    g->fail_rank = uni(0, R - 1);
}

typedef struct tally {
    int64_t cases, vs_pdgemr2d, vs_oracle, pdgemr2d_vs_oracle, a_changed, status, injected,
        badarg, elem16, empty, direct3, steps;
} tally;
enum { TALLY = 12 };

static bool all_same(nt_status s, nt_status want);

// 3 bytes of element (gi, gj) of matrix `which` (0 = A, 1 = B's initial value).
static void bytes3(int which, int64_t gi, int64_t gj, unsigned char *out)
{
    uint64_t h = (uint64_t)gi * 0x9e3779b97f4a7c15ULL ^ (uint64_t)gj * 0xc2b2ae3d27d4eb4fULL ^
                 (uint64_t)which * 0x165667b19e3779f9ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    out[0] = (unsigned char)h;
    out[1] = (unsigned char)(h >> 8);
    out[2] = (unsigned char)(h >> 16);
}

static void fill3(const mat *x, unsigned char *v, int which)
{
    memset(v, 0x5a, x->count * 3);
    for (int lj = 0; lj < x->nloc; lj++)
        for (int li = 0; li < x->mloc; li++)
            bytes3(which, l2g(li, x->mb, x->myrow, x->rsrc, x->p),
                   l2g(lj, x->nb, x->mycol, x->csrc, x->q),
                   v + ((size_t)li + (size_t)lj * x->lld) * 3);
}

static int64_t oracle3(const geom *g, const unsigned char *b)
{
    const mat *x = &g->B;
    int64_t bad = 0;
    for (int lj = 0; x->myrow >= 0 && lj < (x->nloc > 1 ? x->nloc : 1); lj++)
        for (int li = 0; li < x->lld; li++) {
            unsigned char want[3] = {0x5a, 0x5a, 0x5a};
            if (li < x->mloc && lj < x->nloc) {
                int64_t gi = l2g(li, x->mb, x->myrow, x->rsrc, x->p);
                int64_t gj = l2g(lj, x->nb, x->mycol, x->csrc, x->q);
                bool in = gi >= g->ib - 1 && gi < g->ib - 1 + g->m && gj >= g->jb - 1 &&
                          gj < g->jb - 1 + g->n;
                if (in)
                    bytes3(0, gi - (g->ib - 1) + (g->ia - 1), gj - (g->jb - 1) + (g->ja - 1),
                           want);
                else
                    bytes3(1, gi, gj, want);
            }
            bad += memcmp(want, b + ((size_t)li + (size_t)lj * x->lld) * 3, 3) != 0;
        }
    return bad;
}

static nt_mpi_grid_t grid_of(const mat *x)
{
    return (nt_mpi_grid_t){x->M, x->N, x->mb, x->nb, x->rsrc, x->csrc, x->p, x->q, x->map};
}

// 3-byte elements through nt_mpi_redist itself, the grids given by their rank tables (the
// BLACS maps: a permuted table is what a relabelling of the target does).
static bool same_grid(const nt_mpi_grid_t *x, const nt_mpi_grid_t *y)
{
    bool same = x->m == y->m && x->n == y->n && x->mb == y->mb && x->nb == y->nb &&
                x->rsrc == y->rsrc && x->csrc == y->csrc && x->nprow == y->nprow &&
                x->npcol == y->npcol;
    for (int c = 0; same && c < x->nprow * x->npcol; c++)
        same = x->ranks[c] == y->ranks[c];
    return same;
}

static void direct3(const geom *g, int ictxt, int rank, tally *t, bool verbose)
{
    unsigned char *a = malloc(g->A.count * 3), *a0 = malloc(g->A.count * 3);
    unsigned char *b = malloc(g->B.count * 3);
    if (!a || !a0 || !b) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    fill3(&g->A, a, 0);
    fill3(&g->B, b, 1);
    memcpy(a0, a, g->A.count * 3);
    // The grids imported from the descriptors (BLACS numbers = world ranks) must be the
    // ones the case drew.
    nt_mpi_grid_t ga, gb, wa = grid_of(&g->A), wb = grid_of(&g->B);
    int ra[16], rb[16];
    nt_status si = nt_mpi_grid_from_desc(g->A.desc, ictxt, &ga, ra, 16);
    if (!si)
        si = nt_mpi_grid_from_desc(g->B.desc, ictxt, &gb, rb, 16);
    if (si || !same_grid(&ga, &wa) || !same_grid(&gb, &wb)) {
        if (verbose)
            fprintf(stderr, "rank %d: nt_mpi_grid_from_desc: %s\n", rank,
                    si ? nt_mpi_last_error() : "another grid");
        t->status++;
        ga = wa;
        gb = wb;
    }
    nt_mpi_opts_t o = {.threads = 1 + (int)(next() % 3), .steps = (int)(next() % 2)};
    t->steps += o.steps;
    nt_status s = nt_mpi_redist(MPI_COMM_WORLD, g->m, g->n, 3, g->A.myrow >= 0 ? a : NULL,
                                g->A.lld, g->ia - 1, g->ja - 1, &ga, g->B.myrow >= 0 ? b : NULL,
                                g->B.lld, g->ib - 1, g->jb - 1, &gb, &o, NULL);
    if (s && verbose)
        fprintf(stderr, "rank %d: direct3: %s\n", rank, nt_mpi_last_error());
    t->direct3++;
    t->status += !all_same(s, NT_OK);
    t->vs_oracle += oracle3(g, b);
    t->a_changed += memcmp(a, a0, g->A.count * 3) != 0;
    free(a);
    free(a0);
    free(b);
}

// nt_mpi_matrix_desc: every domain's local matrix, read through its descriptor, holds A's
// elements where ScaLAPACK's index arithmetic says; other maps and layouts refused.
static int64_t matrix_export(void)
{
    static const int C[][6] = {{100, 77, 8, 5, 2, 3}, {33, 200, 64, 7, 1, 4},
                               {5, 5, 10, 10, 2, 2},  {128, 128, 16, 16, 3, 1}};
    int64_t bad = 0;
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        const int *c = C[k];
        nt_topo_t *topo = NULL;
        nt_matrix_t *A = NULL, *T = NULL;
        nt_matrix_shape_t sh = {c[0], c[1], c[2], c[3], 8};
        char spec[32];
        snprintf(spec, sizeof spec, "bc2d:%dx%d", c[4], c[5]);
        if (nt_topo_load(&(nt_topo_opts_t){.domains = c[4] * c[5]}, &topo) ||
            nt_matrix_create_spec(topo, &sh, spec, 0, NT_LAYOUT_SCALAPACK, 0, &A) ||
            nt_matrix_fill_pattern(A, 7) ||
            nt_matrix_create_spec(topo, &sh, spec, 0, NT_LAYOUT_TILE, 0, &T)) {
            bad++;
        } else {
            for (int d = 0; d < c[4] * c[5]; d++) {
                int desc[9];
                void *loc;
                if (nt_mpi_matrix_desc(A, c[4], c[5], d, 42, desc, &loc)) {
                    bad++;
                    continue;
                }
                int pr = d / c[5], pc = d % c[5];
                int mloc = numroc(c[0], c[2], pr, 0, c[4]), nloc = numroc(c[1], c[3], pc, 0, c[5]);
                int64_t b0 = bad;
                bad += desc[0] != 1 || desc[1] != 42 || desc[2] != c[0] || desc[3] != c[1] ||
                       desc[4] != c[2] || desc[5] != c[3] || desc[8] < (mloc > 1 ? mloc : 1) ||
                       ((mloc == 0 || nloc == 0) != (loc == NULL));
                if (bad != b0)
                    fprintf(stderr, "matrix_export case %zu domain %d: descriptor {%d %d %d %d "
                            "%d %d %d %d %d}, local rows %d cols %d, local %p\n", k, d, desc[0],
                            desc[1], desc[2], desc[3], desc[4], desc[5], desc[6], desc[7],
                            desc[8], mloc, nloc, loc);
                for (int lj = 0; loc && lj < nloc; lj++)
                    for (int li = 0; li < mloc; li++)
                        bad += memcmp((char *)loc + ((size_t)li + (size_t)lj * desc[8]) * 8,
                                      nt_matrix_elem(A, l2g(li, c[2], pr, 0, c[4]),
                                                     l2g(lj, c[3], pc, 0, c[5])), 8) != 0;
            }
            int desc[9];
            void *loc;
            bad += nt_mpi_matrix_desc(T, c[4], c[5], 0, 0, desc, &loc) != NT_EINVAL;
            bad += nt_mpi_matrix_desc(A, c[4], c[5], c[4] * c[5], 0, desc, &loc) != NT_EINVAL;
        }
        nt_matrix_destroy(A);
        nt_matrix_destroy(T);
        nt_topo_destroy(topo);
    }
    // A map of another grid than the one asked for.
    nt_topo_t *topo = NULL;
    nt_matrix_t *R = NULL;
    nt_matrix_shape_t sh = {64, 64, 8, 8, 8};
    if (nt_topo_load(&(nt_topo_opts_t){.domains = 3}, &topo) ||
        nt_matrix_create_spec(topo, &sh, "bc2d:3x1", 3, NT_LAYOUT_SCALAPACK, 0, &R)) {
        bad++;
    } else {
        int desc[9];
        void *loc;
        bad += nt_mpi_matrix_desc(R, 1, 3, 0, 0, desc, &loc) != NT_ENOTSUP;
    }
    nt_matrix_destroy(R);
    nt_topo_destroy(topo);
    return bad;
}

// Grids that nt_mpi_redist must refuse on every rank, with B untouched.
static int64_t bad_grids(int R)
{
    int64_t bad = 0;
    int dup[4] = {0, 0, 1, 1}, out_of_range[2] = {0, R};
    double x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
    nt_mpi_grid_t ok = {2, 2, 1, 1, 0, 0, 1, 1, NULL};
    nt_mpi_grid_t cases[4] = {
        {2, 2, 1, 1, 0, 0, 2, 2, dup},          // a rank twice
        {2, 2, 1, 1, 0, 0, 1, 2, out_of_range}, // a rank outside the communicator
        {2, 2, 0, 1, 0, 0, 1, 1, NULL},         // block size 0
        {2, 2, 1, 1, 1, 0, 1, 1, NULL},         // RSRC outside the grid
    };
    for (int k = 0; k < 4; k++) {
        if (k == 0 && R < 4)
            continue;
        nt_status s = nt_mpi_redist(MPI_COMM_WORLD, 2, 2, 8, x, 2, 0, 0, &ok, y, 2, 0, 0,
                                    &cases[k], NULL, NULL);
        bad += !all_same(s, NT_EINVAL) || y[0] != 5 || y[3] != 8;
    }
    nt_status s = nt_mpi_redist(MPI_COMM_WORLD, 2, 2, 8, x, 2, 0, 0, NULL, y, 2, 0, 0, &ok,
                                NULL, NULL);
    bad += !all_same(s, NT_EINVAL) || y[0] != 5;
    return bad;
}

static int64_t differ(const double *x, const double *y, size_t n)
{
    int64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += memcmp(&x[i], &y[i], sizeof *x) != 0;
    return d;
}

// Every rank's status, and whether they (and their messages) agree.
static bool all_same(nt_status s, nt_status want)
{
    unsigned h = 5381;
    for (const char *p = s ? nt_mpi_last_error() : ""; *p; p++)
        h = h * 33 + (unsigned char)*p;
    int v[4] = {s, -s, (int)(h & 0x7fffffff), -(int)(h & 0x7fffffff)};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return v[0] == -v[1] && v[2] == -v[3] && v[0] == (int)want;
}

static void run_case(const geom *g0, int ictxt, int rank, tally *t, bool verbose)
{
    geom g = *g0;
    make_grid(&g.A, uni(0, 3));
    make_grid(&g.B, uni(0, 3));
    int comps = g.kind == 1 ? 2 : 1;
    double *a = malloc(g.A.count * comps * sizeof *a), *a0 = malloc(g.A.count * comps * sizeof *a);
    double *b1 = malloc(g.B.count * comps * sizeof *a), *b2 = malloc(g.B.count * comps * sizeof *a);
    double *b0 = malloc(g.B.count * comps * sizeof *a);
    if (!a || !a0 || !b1 || !b2 || !b0) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    fill(&g.A, a, comps, true);
    fill(&g.B, b0, comps, false);
    memcpy(a0, a, g.A.count * comps * sizeof *a);
    memcpy(b1, b0, g.B.count * comps * sizeof *a);
    memcpy(b2, b0, g.B.count * comps * sizeof *a);
    bool empty = g.m == 0 || g.n == 0;
    int64_t bad_pd = 0, bad_or = 0, bad_pdor = 0, bad_a = 0;
    bool st_ok = true;
    t->cases++;
    t->empty += empty;
    if (g.kind == 4) {
        direct3(&g, ictxt, rank, t, verbose);
    } else if (g.kind == 0 || g.kind == 1) {
        nt_status s;
        if (g.kind == 0) {
            if (!empty) {
                pdgemr2d_(&g.m, &g.n, a, &g.ia, &g.ja, g.A.desc, b1, &g.ib, &g.jb, g.B.desc,
                          &ictxt);
                bad_pdor = oracle_mismatches(&g, b1, 1);
            }
            s = nt_pdgemr2d(g.m, g.n, a, g.ia, g.ja, g.A.desc, b2, g.ib, g.jb, g.B.desc, ictxt);
            bad_pd = empty ? 0 : differ(b1, b2, g.B.count);
        } else {
            t->elem16++;
            s = nt_pgemr2d(16, g.m, g.n, a, g.ia, g.ja, g.A.desc, b2, g.ib, g.jb, g.B.desc, ictxt,
                           NULL);
        }
        st_ok = all_same(s, NT_OK);
        if (s && verbose)
            fprintf(stderr, "rank %d: %s\n", rank, nt_mpi_last_error());
        bad_or = oracle_mismatches(&g, b2, comps);
    } else if (g.kind == 2) {
        t->injected++;
        char v[16];
        snprintf(v, sizeof v, "%d", g.fail_rank);
        setenv("NT_MPI_FAIL_RANK", v, 1);
        nt_status s = nt_pdgemr2d(g.m, g.n, a, g.ia, g.ja, g.A.desc, b2, g.ib, g.jb, g.B.desc,
                                  ictxt);
        unsetenv("NT_MPI_FAIL_RANK");
        st_ok = all_same(s, empty ? NT_OK : NT_ESYS);
        bad_or = differ(b0, b2, g.B.count);
    } else {
        // The chosen rank, if it holds more than one local row of B, passes too small an LLD.
        int corrupt = rank == g.fail_rank && g.B.myrow >= 0 && g.B.mloc >= 2 && !empty;
        int any = corrupt;
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        t->badarg += any;
        int desc[9];
        memcpy(desc, g.B.desc, sizeof desc);
        if (corrupt)
            desc[8] = g.B.mloc - 1;
        nt_status s = nt_pdgemr2d(g.m, g.n, a, g.ia, g.ja, g.A.desc, b2, g.ib, g.jb, desc, ictxt);
        st_ok = all_same(s, any ? NT_EINVAL : NT_OK);
        if (any)
            bad_or = differ(b0, b2, g.B.count);
        else
            bad_or = oracle_mismatches(&g, b2, 1);
    }
    bad_a = differ(a0, a, g.A.count * comps);
    t->vs_pdgemr2d += bad_pd;
    t->vs_oracle += bad_or;
    t->pdgemr2d_vs_oracle += bad_pdor;
    t->a_changed += bad_a;
    t->status += !st_ok;
    if ((bad_pd || bad_or || bad_a || !st_ok) && verbose)
        fprintf(stderr, "rank %d case kind %d: m %d n %d ia %d ja %d ib %d jb %d A %dx%d mb %d "
                "nb %d %dx%d src %d,%d B %dx%d mb %d nb %d %dx%d src %d,%d: vs pdgemr2d %lld, "
                "vs oracle %lld, A %lld, status %s\n", rank, g.kind, g.m, g.n, g.ia, g.ja, g.ib,
                g.jb, g.A.M, g.A.N, g.A.mb, g.A.nb, g.A.p, g.A.q, g.A.rsrc, g.A.csrc, g.B.M,
                g.B.N, g.B.mb, g.B.nb, g.B.p, g.B.q, g.B.rsrc, g.B.csrc, (long long)bad_pd,
                (long long)bad_or, (long long)bad_a, st_ok ? "agreed" : "WRONG");
    free(a);
    free(a0);
    free(b0);
    free(b1);
    free(b2);
    if (g.A.ctxt >= 0)
        Cblacs_gridexit(g.A.ctxt);
    if (g.B.ctxt >= 0)
        Cblacs_gridexit(g.B.ctxt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, R, cases = 300;
    long seed = 1;
    bool verbose = false;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np R test_pgemr2d [--cases N] [--seed S] "
                        "[--verbose]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (R > 16) {
        if (rank == 0)
            fprintf(stderr, "test_pgemr2d: at most 16 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int me, np, ictxt;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ictxt);
    Cblacs_gridinit(&ictxt, "Row", 1, R);
    rng_state = (uint64_t)seed * 0x2545F4914F6CDD1DULL;
    tally t = {0};
    double t0 = MPI_Wtime();
    for (int c = 0; c < cases; c++) {
        geom g;
        draw(&g, R);
        run_case(&g, ictxt, rank, &t, verbose);
    }
    int64_t badgrid = bad_grids(R);
    int64_t badexport = rank == 0 ? matrix_export() : 0;
    MPI_Allreduce(MPI_IN_PLACE, &badexport, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t sum[TALLY];
    memcpy(sum, &t, sizeof sum);
    MPI_Allreduce(MPI_IN_PLACE, sum, TALLY, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &badgrid, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    tally all;
    memcpy(&all, sum, sizeof all);
    bool ok = !all.vs_pdgemr2d && !all.vs_oracle && !all.a_changed && !all.status && !badgrid &&
              !badexport;
    if (rank == 0)
        printf("test_pgemr2d: %d ranks, %d cases (seed %ld, %lld empty, %lld with 16-byte "
               "elements, %lld with 3-byte elements through nt_mpi_redist (%lld in one-port steps), "
               "%lld failure "
               "injections, %lld bad-argument cases, bad grids refused: %s, matrix export: %s) in "
               "%.1f s: "
               "mismatches vs pdgemr2d %lld, vs oracle %lld (pdgemr2d itself vs oracle %lld), "
               "source changed %lld, status disagreements %lld: %s\n",
               R, cases, seed, (long long)all.empty / R, (long long)all.elem16 / R,
               (long long)all.direct3 / R, (long long)all.steps / R, (long long)all.injected / R,
               (long long)all.badarg / R, badgrid ? "NO" : "yes", badexport ? "WRONG" : "ok",
               MPI_Wtime() - t0,
               (long long)all.vs_pdgemr2d, (long long)all.vs_oracle,
               (long long)all.pdgemr2d_vs_oracle, (long long)all.a_changed,
               (long long)all.status / R, ok ? "PASS" : "FAIL");
    Cblacs_gridexit(ictxt);
    Cblacs_exit(1);
    MPI_Finalize();
    return ok ? 0 : 1;
}
