// What planning an any-layout transfer costs one rank of many, with and without the index of
// its own tiles (nt_mpi_layout_t mine[]): the checks (nt_lay_check) and the pieces it sends and
// receives (nt_lay_pieces_make), for rank --me of a simulated communicator of P x Q ranks
// (no MPI call: planning is local), between two block-cyclic matrices of the same grid with
// different block sizes (so pieces cross ranks). Base: owner tables (built here as
// nt_mpi_layout_from_grid() built them before, timed apart) scanned; new: the index and the
// owners by formula (nt_mpi_layout_from_grid()'s layout as it is). Alternated, --reps each;
// the pieces of both compared field by field. Usage:
//   bench_layout_plan [--p P] [--q Q] [--tiles T] [--me R] [--reps N]
// T x T tiles of 8 x 8 elements in the source, 12 x 12 in the target (its T*2/3 tiles).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numatile/mpi.h"
#include "nt_mpi_layout.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// One planning of transfer x for rank me of size: seconds, pieces sent and received in p.
// The owner table of a layout by the block-cyclic formula: what the base scans.
static int *table(const nt_mpi_layout_t *L)
{
    int *o = malloc((size_t)(L->mt * L->nt) * sizeof *o);
    for (int64_t t = 0; o && t < L->mt * L->nt; t++)
        o[t] = nt_lay_owner(L, t);
    return o;
}

static double plan(const nt_mpi_transfer_t *x, int me, int size, nt_lay_pieces p[2])
{
    int64_t *own;
    double t0 = now();
    nt_status st = nt_lay_check(1, x, me, size, true, &own);
    for (int s = 0; !st && s < 2; s++)
        st = nt_lay_pieces_make(1, x, me, size, s == 0, &p[s]);
    double t = now() - t0;
    free(own);
    if (st) {
        fprintf(stderr, "bench_layout_plan: %s\n", nt_mpi_last_error());
        exit(1);
    }
    return t;
}

static bool same(const nt_lay_pieces *u, const nt_lay_pieces *w)
{
    if (u->n != w->n)
        return false;
    for (int64_t k = 0; k < u->n; k++) {
        const nt_lay_piece *a = &u->v[k], *b = &w->v[k];
        if (a->peer != b->peer || a->xfer != b->xfer || a->src_tile != b->src_tile ||
            a->dst_tile != b->dst_tile || a->rows != b->rows || a->cols != b->cols ||
            a->at != b->at || a->ld != b->ld || a->es != b->es)
            return false;
    }
    return true;
}

// This rank's layout of a block-cyclic matrix (n x n, blocks of nb), its local array in *mem.
static void layout(int64_t n, int64_t nb, int p, int q, int me, char **mem, nt_mpi_layout_t *L)
{
    nt_mpi_grid_t g = {n, n, nb, nb, 0, 0, p, q, NULL};
    int64_t bt = n / nb + (n % nb != 0);
    int64_t lr = (bt / p + 1) * nb, lc = (bt / q + 1) * nb; // at least the local rows, columns
    *mem = calloc((size_t)(lr * lc), 1);
    if (!*mem || nt_mpi_layout_from_grid(&g, me, *mem, lr, 1, L)) {
        fprintf(stderr, "bench_layout_plan: layout: %s\n", nt_mpi_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int p = 64, q = 64, me = 0, reps = 5;
    int64_t tiles = 2048;
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--p"))
            p = v;
        else if (!strcmp(argv[i], "--q"))
            q = v;
        else if (!strcmp(argv[i], "--tiles"))
            tiles = v;
        else if (!strcmp(argv[i], "--me"))
            me = v;
        else if (!strcmp(argv[i], "--reps"))
            reps = v;
    }
    if (p < 1 || q < 1 || tiles < 1 || me < 0 || me >= p * q || reps < 1) {
        fprintf(stderr, "bench_layout_plan: bad arguments\n");
        return 2;
    }
    int64_t n = tiles * 8;
    char *ma, *mb;
    nt_mpi_layout_t a, b;
    double g0 = now();
    layout(n, 8, p, q, me, &ma, &a);
    layout(n, 12, p, q, me, &mb, &b);
    double grid = now() - g0;
    int *tab[2] = {table(&a), table(&b)};
    double tables = now() - g0 - grid;
    if (!tab[0] || !tab[1])
        return 1;
    nt_mpi_transfer_t x = {&a, &b, n, n, 0, 0, 0, 0, 1};
    const int64_t *mine[2] = {a.mine, b.mine};
    int64_t nmine[2] = {a.nmine, b.nmine};
    double *t[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
    bool ok = true;
    int64_t pieces = 0;
    for (int r = 0; r < reps; r++) {
        nt_lay_pieces pc[2][2] = {{{0}, {0}}, {{0}, {0}}};
        for (int v = 0; v < 2; v++) { // 0: the scan (base), 1: the index
            a.mine = v ? mine[0] : NULL;
            b.mine = v ? mine[1] : NULL;
            a.nmine = v ? nmine[0] : 0;
            b.nmine = v ? nmine[1] : 0;
            a.owner = v ? NULL : tab[0];
            b.owner = v ? NULL : tab[1];
            t[v][r] = plan(&x, me, p * q, pc[v]);
        }
        ok = ok && same(&pc[0][0], &pc[1][0]) && same(&pc[0][1], &pc[1][1]);
        pieces = pc[1][0].n + pc[1][1].n;
        for (int v = 0; v < 2; v++)
            for (int s = 0; s < 2; s++)
                nt_lay_pieces_free(&pc[v][s]);
    }
    qsort(t[0], (size_t)reps, sizeof(double), cmp);
    qsort(t[1], (size_t)reps, sizeof(double), cmp);
    printf("bench_layout_plan: %d x %d ranks (rank %d), %lld x %lld source tiles, %lld x %lld "
           "target tiles, own %lld + %lld, %lld pieces; scan median %.6f s (min %.6f), index "
           "median %.6f s (min %.6f), speed-up %.0fx; from_grid %.6f s, owner tables %.3f s (both "
           "matrices); pieces %s\n",
           p, q, me, (long long)a.mt, (long long)a.nt, (long long)b.mt, (long long)b.nt,
           (long long)nmine[0], (long long)nmine[1], (long long)pieces, t[0][reps / 2], t[0][0],
           t[1][reps / 2], t[1][0], t[0][reps / 2] / t[1][reps / 2], grid, tables,
           ok ? "identical" : "DIFFER");
    a.mine = mine[0];
    b.mine = mine[1];
    a.owner = b.owner = NULL;
    free(tab[0]);
    free(tab[1]);
    nt_mpi_layout_free(&a);
    nt_mpi_layout_free(&b);
    free(ma);
    free(mb);
    free(t[0]);
    free(t[1]);
    return ok ? 0 : 1;
}
