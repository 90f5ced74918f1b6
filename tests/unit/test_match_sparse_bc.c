// Sparse count matrices of layout changes: the block-cyclic builder against counts made element
// by element from the owner formula, the tile-map builder against nt_counts_tilemaps(), grid
// changes up to P = 4096 solved sparse and dense (equal optimum), and bad input.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

// Owner of index x along one dimension, from ScaLAPACK's definition.
static int dim_owner(const nt_bc_dim_t *d, int64_t x)
{
    return (int)(((x + d->offset) / d->block + d->src) % d->nprocs);
}

static int layout_owner(const nt_bc_layout_t *l, int64_t x, int64_t y)
{
    int c = dim_owner(&l->rows, x) * l->cols.nprocs + dim_owner(&l->cols, y);
    return l->labels ? l->labels[c] : c;
}

// Dense counts, element by element.
static int64_t *naive_counts(int64_t rows, int64_t cols, const nt_bc_layout_t *s, int pi,
                             const nt_bc_layout_t *t, int pt)
{
    int64_t *n = calloc((size_t)pi * pt, sizeof *n);
    for (int64_t x = 0; x < rows; x++)
        for (int64_t y = 0; y < cols; y++)
            n[(int64_t)layout_owner(s, x, y) * pt + layout_owner(t, x, y)]++;
    return n;
}

static void random_dim(nt_rng *r, nt_bc_dim_t *d, int maxp)
{
    d->nprocs = 1 + (int)nt_rng_below(r, (uint64_t)maxp);
    d->block = 1 + (int64_t)nt_rng_below(r, 7);
    d->offset = nt_rng_below(r, 3) ? 0 : (int64_t)nt_rng_below(r, 20);
    d->src = (int)nt_rng_below(r, (uint64_t)d->nprocs);
}

// A random permutation of 0..p-1 (labels), or NULL.
static int *random_labels(nt_rng *r, int cells, int p)
{
    if (nt_rng_below(r, 2))
        return NULL;
    int *perm = malloc((size_t)p * sizeof *perm);
    for (int k = 0; k < p; k++)
        perm[k] = k;
    for (int k = p - 1; k > 0; k--) {
        int m = (int)nt_rng_below(r, (uint64_t)k + 1), t = perm[k];
        perm[k] = perm[m];
        perm[m] = t;
    }
    (void)cells;
    return perm;
}

static void assert_same_counts(const nt_sparse_counts_t *s, const int64_t *n, const char *what)
{
    int64_t *d = malloc((size_t)s->p_ini * s->p_tar * sizeof *d + 1);
    cr_assert_eq(nt_sparse_counts_dense(s, d), NT_OK, "%s: %s", what, nt_last_error());
    for (int64_t x = 0; x < (int64_t)s->p_ini * s->p_tar; x++)
        cr_assert_eq(d[x], n[x], "%s: entry (%lld,%lld) = %lld, naive %lld", what,
                     (long long)(x / s->p_tar), (long long)(x % s->p_tar), (long long)d[x],
                     (long long)n[x]);
    for (int64_t e = 0; e < s->nnz; e++)
        cr_assert_gt(s->count[e], 0, "%s: a stored zero", what);
    free(d);
}

Test(match_sparse_bc, builder_against_naive)
{
    nt_rng r = {31};
    for (int it = 0; it < 1500 / SCALE; it++) {
        nt_bc_layout_t s, t;
        random_dim(&r, &s.rows, 5);
        random_dim(&r, &s.cols, 5);
        random_dim(&r, &t.rows, 5);
        random_dim(&r, &t.cols, 5);
        int cs = s.rows.nprocs * s.cols.nprocs, ct = t.rows.nprocs * t.cols.nprocs;
        int pi = cs + (int)nt_rng_below(&r, 3), pt = ct + (int)nt_rng_below(&r, 3);
        int *ls = random_labels(&r, cs, pi), *lt = random_labels(&r, ct, pt);
        s.labels = ls;
        t.labels = lt;
        // Extents below and above the period of the pair (the periodic shortcut).
        int64_t rows = (int64_t)nt_rng_below(&r, it % 4 ? 40 : 400);
        int64_t cols = (int64_t)nt_rng_below(&r, it % 4 ? 40 : 400);
        nt_sparse_counts_t sp;
        char what[96];
        snprintf(what, sizeof what, "case %d (%lldx%lld)", it, (long long)rows,
                 (long long)cols);
        cr_assert_eq(nt_sparse_counts_bc(rows, cols, &s, pi, &t, pt, &sp), NT_OK, "%s: %s",
                     what, nt_last_error());
        int64_t *n = naive_counts(rows, cols, &s, pi, &t, pt);
        assert_same_counts(&sp, n, what);
        nt_sparse_counts_free(&sp);
        free(n);
        free(ls);
        free(lt);
    }
}

Test(match_sparse_bc, tilemaps_against_dense_counts)
{
    nt_rng r = {8};
    for (int it = 0; it < 200 / SCALE; it++) {
        int64_t mt = 1 + (int64_t)nt_rng_below(&r, 12), nt = 1 + (int64_t)nt_rng_below(&r, 12);
        int pi = 1 + (int)nt_rng_below(&r, 9), pt = 1 + (int)nt_rng_below(&r, 9);
        nt_tilemap_t *a, *b;
        cr_assert_eq(nt_tilemap_random(mt, nt, pi, 100 + it, &a), NT_OK);
        cr_assert_eq(nt_tilemap_random(mt, nt, pt, 900 + it, &b), NT_OK);
        int64_t *size = NULL;
        if (it % 2) {
            size = malloc((size_t)(mt * nt) * sizeof *size);
            for (int64_t x = 0; x < mt * nt; x++)
                size[x] = 1 + (int64_t)nt_rng_below(&r, 50);
        }
        int64_t *n = malloc((size_t)pi * pt * sizeof *n);
        cr_assert_eq(nt_counts_tilemaps(a, b, size, NULL, n), NT_OK);
        nt_sparse_counts_t sp;
        cr_assert_eq(nt_sparse_counts_tilemaps(a, b, size, &sp), NT_OK, "%s", nt_last_error());
        char what[32];
        snprintf(what, sizeof what, "tile maps %d", it);
        assert_same_counts(&sp, n, what);
        nt_sparse_counts_free(&sp);
        nt_tilemap_destroy(a);
        nt_tilemap_destroy(b);
        free(size);
        free(n);
    }
}

// bc2d grids P x Q -> P' x Q' with blocks mb, nb (source) and mb2, nb2 (target), labels
// row-major as numatile's bc2d.
static nt_bc_layout_t bc2d(int p, int q, int64_t mb, int64_t nb)
{
    return (nt_bc_layout_t){{mb, 0, p, 0}, {nb, 0, q, 0}, NULL};
}

// Solve a grid change sparse and dense: equal volume, and the sparse costs equal the dense
// evaluation of the sparse labelling.
static void grid_change(int64_t m, int64_t n, nt_bc_layout_t s, nt_bc_layout_t t)
{
    int pi = s.rows.nprocs * s.cols.nprocs, pt = t.rows.nprocs * t.cols.nprocs;
    int pd = pi > pt ? pi : pt;
    char what[128];
    snprintf(what, sizeof what, "%lldx%lld %dx%d:%lldx%lld -> %dx%d:%lldx%lld", (long long)m,
             (long long)n, s.rows.nprocs, s.cols.nprocs, (long long)s.rows.block,
             (long long)s.cols.block, t.rows.nprocs, t.cols.nprocs, (long long)t.rows.block,
             (long long)t.cols.block);
    nt_sparse_counts_t sp;
    cr_assert_eq(nt_sparse_counts_bc(m, n, &s, pi, &t, pt, &sp), NT_OK, "%s: %s", what,
                 nt_last_error());
    int64_t *dense = malloc((size_t)pi * pt * sizeof *dense);
    cr_assert_eq(nt_sparse_counts_dense(&sp, dense), NT_OK);
    int *ss = malloc((size_t)pt * sizeof *ss), *ds = malloc((size_t)pt * sizeof *ds);
    nt_cost_t sc, dc, ec;
    cr_assert_eq(nt_match_sparse_volume(&sp, 0, ss, &sc), NT_OK, "%s: %s", what,
                 nt_last_error());
    nt_match_problem_t prob = {.p_ini = pi, .p_tar = pt, .counts = dense};
    cr_assert_eq(nt_match_solve(&prob, NT_MATCH_VOLUME, ds, &dc), NT_OK, "%s: %s", what,
                 nt_last_error());
    cr_assert_eq(nt_cost_eval(dense, pi, pt, pd, ss, NULL, &ec), NT_OK);
    cr_assert_eq(sc.volume, dc.volume, "%s: sparse %lld, dense %lld", what,
                 (long long)sc.volume, (long long)dc.volume);
    cr_assert(sc.volume == ec.volume && sc.local == ec.local && sc.steps == ec.steps,
              "%s: sparse costs differ from nt_cost_eval", what);
    cr_assert_eq(sc.volume + sc.local, m * n, "%s: total", what);
    // The same change solved from the factors of its counts (never stored).
    int64_t nnz = -1;
    cr_assert_eq(nt_match_bc_volume(m, n, &s, pi, &t, pt, 0, ss, &sc, &nnz), NT_OK, "%s: %s",
                 what, nt_last_error());
    cr_assert_eq(nt_cost_eval(dense, pi, pt, pd, ss, NULL, &ec), NT_OK);
    cr_assert_eq(sc.volume, dc.volume, "%s: from the factors %lld, dense %lld", what,
                 (long long)sc.volume, (long long)dc.volume);
    cr_assert(sc.volume == ec.volume && sc.local == ec.local && sc.steps == ec.steps,
              "%s: the factors' costs differ from nt_cost_eval", what);
    cr_assert_eq(nnz, sp.nnz, "%s: entries", what);
    nt_sparse_counts_free(&sp);
    free(dense);
    free(ss);
    free(ds);
}

// nt_match_bc_volume() on random layouts (offsets, first processes, labels, more domains than
// cells on either side) against the dense optimum of the counts made element by element; its
// costs and nt_cost_bc()'s (of a random labelling) against nt_cost_eval().
Test(match_sparse_bc, bc_solver_random_layouts)
{
    nt_rng r = {977};
    for (int it = 0; it < 1500 / SCALE; it++) {
        nt_bc_layout_t s, t;
        random_dim(&r, &s.rows, 6);
        random_dim(&r, &s.cols, 6);
        random_dim(&r, &t.rows, 6);
        random_dim(&r, &t.cols, 6);
        int cs = s.rows.nprocs * s.cols.nprocs, ct = t.rows.nprocs * t.cols.nprocs;
        int pi = cs + (int)nt_rng_below(&r, 3), pt = ct + (int)nt_rng_below(&r, 3);
        int pd = (pi > pt ? pi : pt) + (int)nt_rng_below(&r, 2);
        int *ls = random_labels(&r, cs, pi), *lt = random_labels(&r, ct, pt);
        s.labels = ls;
        t.labels = lt;
        int64_t rows = (int64_t)nt_rng_below(&r, it % 4 ? 60 : 400);
        int64_t cols = (int64_t)nt_rng_below(&r, it % 4 ? 60 : 400);
        char what[96];
        snprintf(what, sizeof what, "case %d (%lldx%lld)", it, (long long)rows,
                 (long long)cols);
        int64_t *n = naive_counts(rows, cols, &s, pi, &t, pt);
        int *bs = malloc((size_t)pt * sizeof *bs), *ds = malloc((size_t)pt * sizeof *ds);
        nt_cost_t bc, dc, ec;
        cr_assert_eq(nt_match_bc_volume(rows, cols, &s, pi, &t, pt, pd, bs, &bc, NULL), NT_OK,
                     "%s: %s", what, nt_last_error());
        nt_match_problem_t prob = {.p_ini = pi, .p_tar = pt, .p_dom = pd, .counts = n};
        cr_assert_eq(nt_match_solve(&prob, NT_MATCH_VOLUME, ds, &dc), NT_OK, "%s: %s", what,
                     nt_last_error());
        cr_assert_eq(bc.volume, dc.volume, "%s: from the factors %lld, dense %lld", what,
                     (long long)bc.volume, (long long)dc.volume);
        cr_assert_eq(nt_cost_eval(n, pi, pt, pd, bs, NULL, &ec), NT_OK);
        cr_assert(bc.volume == ec.volume && bc.local == ec.local && bc.steps == ec.steps,
                  "%s: costs differ from nt_cost_eval", what);
        for (int k = pt - 1; k > 0; k--) { // a random labelling for nt_cost_bc()
            int m = (int)nt_rng_below(&r, (uint64_t)k + 1), x = bs[k];
            bs[k] = bs[m];
            bs[m] = x;
        }
        cr_assert_eq(nt_cost_bc(rows, cols, &s, pi, &t, pt, pd, bs, &bc), NT_OK, "%s: %s",
                     what, nt_last_error());
        cr_assert_eq(nt_cost_eval(n, pi, pt, pd, bs, NULL, &ec), NT_OK);
        cr_assert(bc.volume == ec.volume && bc.local == ec.local && bc.steps == ec.steps,
                  "%s: nt_cost_bc differs from nt_cost_eval", what);
        free(n);
        free(bs);
        free(ds);
        free(ls);
        free(lt);
    }
}

// Bad input of the factor solver: named in the message, nothing written.
Test(match_sparse_bc, bc_solver_bad_input)
{
    nt_bc_layout_t s = bc2d(2, 2, 3, 3), t = bc2d(4, 1, 2, 5);
    int sigma[4] = {-7, -7, -7, -7};
    nt_cost_t c;
    cr_assert_eq(nt_match_bc_volume(10, 10, &s, 4, &t, 4, 0, NULL, &c, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "sigma"));
    cr_assert_eq(nt_match_bc_volume(10, 10, NULL, 4, &t, 4, 0, sigma, &c, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_bc_volume(10, 10, &s, 3, &t, 4, 0, sigma, &c, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_bc_volume(10, 10, &s, 4, &t, 4, 2, sigma, &c, NULL), NT_EINVAL);
    cr_assert_eq(nt_match_bc_volume((int64_t)1 << 31, (int64_t)1 << 31, &s, 4, &t, 4, 0,
                                    sigma, &c, NULL), NT_ERANGE);
    cr_assert_eq(sigma[0], -7);
    int dup[4] = {0, 0, 1, 2};
    cr_assert_eq(nt_cost_bc(10, 10, &s, 4, &t, 4, 0, dup, &c), NT_EINVAL);
    cr_assert_eq(nt_cost_bc(10, 10, &s, 4, &t, 4, 0, sigma, NULL), NT_EINVAL);
}

Test(match_sparse_bc, grid_changes_small)
{
    nt_rng r = {4096};
    for (int it = 0; it < 300 / SCALE; it++) {
        int p = 1 + (int)nt_rng_below(&r, 8), q = 1 + (int)nt_rng_below(&r, 8);
        int p2 = 1 + (int)nt_rng_below(&r, 8), q2 = 1 + (int)nt_rng_below(&r, 8);
        int64_t b[4];
        for (int k = 0; k < 4; k++)
            b[k] = 1 + (int64_t)nt_rng_below(&r, 9);
        int64_t m = 1 + (int64_t)nt_rng_below(&r, 300), n = 1 + (int64_t)nt_rng_below(&r, 300);
        grid_change(m, n, bc2d(p, q, b[0], b[1]), bc2d(p2, q2, b[2], b[3]));
    }
}

// The acceptance sizes where the dense solver still runs: P = 4096 and near it.
Test(match_sparse_bc, grid_changes_4096, .timeout = 600)
{
    grid_change(4096, 4096, bc2d(64, 64, 8, 8), bc2d(32, 128, 8, 8));
    grid_change(6000, 5000, bc2d(64, 64, 16, 16), bc2d(128, 32, 24, 10));
    if (SCALE == 1) {
        grid_change(4096, 8192, bc2d(64, 64, 3, 5), bc2d(16, 256, 7, 2));
        grid_change(10000, 10000, bc2d(32, 128, 32, 32), bc2d(64, 64, 50, 20));
        grid_change(3000, 3000, bc2d(60, 60, 4, 4), bc2d(64, 64, 4, 4));
    }
}

// Random grid changes of 64 to 1024 domains whose block sizes share factors or not (few
// distinct counts, many ties: the hard case at scale), same or different domain counts.
Test(match_sparse_bc, grid_changes_random_large, .timeout = 600)
{
    nt_rng r = {65536};
    static const int64_t blocks[] = {1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 48, 50};
    for (int it = 0; it < 40 / SCALE; it++) {
        int p = 8 << nt_rng_below(&r, 3), q = 8 << nt_rng_below(&r, 3);
        int p2 = 4 + (int)nt_rng_below(&r, 29), q2 = 4 + (int)nt_rng_below(&r, 29);
        if (nt_rng_below(&r, 2)) { // the same count of domains, another shape
            p2 = p * 2 <= 64 ? p * 2 : p / 2;
            q2 = p * q / p2;
        }
        int64_t b[4];
        for (int k = 0; k < 4; k++)
            b[k] = blocks[nt_rng_below(&r, sizeof blocks / sizeof *blocks)];
        int64_t m = 200 + (int64_t)nt_rng_below(&r, 3000), n = 200 + (int64_t)nt_rng_below(&r, 3000);
        grid_change(m, n, bc2d(p, q, b[0], b[1]), bc2d(p2, q2, b[2], b[3]));
    }
}
