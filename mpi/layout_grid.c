// A block-cyclic matrix as an any-layout matrix (nt_mpi_layout_from_grid): one tile per block,
// owned by the grid cell of its block row and column (by formula: a copy of the grid, no owner
// table), this rank's tiles inside its local array (local block (li, lj) at rows li*mb,
// columns lj*nb), listed from its cell alone, so building the layout costs O(own tiles +
// cells) and block-cyclic and any-map matrices meet in one nt_mpi_layout_redist().
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_layout.h"

static nt_status fail(const char *why)
{
    return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_from_grid: %s", why);
}

// The grid cell of rank me, -1 if none, -2 if two.
static int64_t cell_of(const nt_mpi_grid_t *g, int me)
{
    int64_t cell = -1, cells = (int64_t)g->nprow * g->npcol;
    for (int64_t c = 0; c < cells; c++)
        if ((g->ranks ? g->ranks[c] : c) == me)
            cell = cell >= 0 ? -2 : c;
    return cell;
}

// The grid with its own copy of ranks[], in one block (freed as one).
static nt_mpi_grid_t *copy_grid(const nt_mpi_grid_t *g)
{
    size_t cells = (size_t)g->nprow * (size_t)g->npcol;
    nt_mpi_grid_t *c = malloc(sizeof *c + (g->ranks ? cells * sizeof(int) : 0));
    if (!c)
        return NULL;
    *c = *g;
    if (g->ranks) {
        int *r = (int *)(c + 1);
        memcpy(r, g->ranks, cells * sizeof *r);
        c->ranks = r;
    }
    return c;
}

nt_status nt_mpi_layout_from_grid(const nt_mpi_grid_t *g, int me, void *local, int64_t lld,
                                  size_t elem_size, nt_mpi_layout_t *out)
{
    if (!g || !out)
        return fail(!g ? "g is NULL" : "out is NULL");
    if (g->m < 0 || g->n < 0 || g->mb < 1 || g->nb < 1 || g->nprow < 1 || g->npcol < 1 ||
        g->nprow > INT32_MAX / g->npcol || g->rsrc < 0 || g->rsrc >= g->nprow || g->csrc < 0 ||
        g->csrc >= g->npcol)
        return fail("a grid field is out of range (m, n >= 0; mb, nb, nprow, npcol >= 1, "
                    "nprow * npcol an int; rsrc, csrc inside the grid)");
    if (elem_size < 1)
        return fail("elem_size = 0");
    int64_t mt = g->m / g->mb + (g->m % g->mb != 0), nt = g->n / g->nb + (g->n % g->nb != 0);
    if (mt > 0 && nt > INT64_MAX / mt)
        return nt_mpi_fail(NT_ERANGE, "nt_mpi_layout_from_grid: %lld x %lld blocks",
                           (long long)mt, (long long)nt);
    int64_t cell = cell_of(g, me);
    if (cell == -2)
        return fail("g->ranks names the calling rank twice");
    // This rank's block rows i0, i0 + nprow, ... and columns j0, j0 + npcol, ...
    int64_t i0 = cell < 0 ? mt : (cell / g->npcol - g->rsrc + g->nprow) % g->nprow;
    int64_t j0 = cell < 0 ? nt : (cell % g->npcol - g->csrc + g->npcol) % g->npcol;
    int64_t lmt = i0 < mt ? (mt - 1 - i0) / g->nprow + 1 : 0;
    int64_t lnt = j0 < nt ? (nt - 1 - j0) / g->npcol + 1 : 0, own = lmt * lnt;
    int64_t ilast = i0 + (lmt - 1) * g->nprow; // its last block row: the local rows
    int64_t lrows = lmt ? (lmt - 1) * g->mb + (g->m - ilast * g->mb < g->mb
                                                   ? g->m - ilast * g->mb : g->mb) : 0;
    if (own > 0 && (!local || lld < (lrows > 1 ? lrows : 1)))
        return fail(!local ? "local is NULL but this rank holds blocks"
                           : "lld is below this rank's local rows");
    nt_mpi_tile_t *tiles = malloc((size_t)(own > 0 ? own : 1) * sizeof *tiles);
    int64_t *mine = malloc((size_t)(own > 0 ? own : 1) * sizeof *mine);
    nt_mpi_grid_t *cyc = copy_grid(g);
    if (!tiles || !mine || !cyc) {
        free(tiles);
        free(mine);
        free(cyc);
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_from_grid: out of memory");
    }
    int64_t k = 0;
    for (int64_t li = 0; li < lmt; li++) // row-major order of the tile grid
        for (int64_t lj = 0; lj < lnt; lj++, k++) {
            mine[k] = (i0 + li * g->nprow) * nt + j0 + lj * g->npcol;
            tiles[k] = (nt_mpi_tile_t){(char *)local + (li * g->mb + lj * g->nb * lld) *
                                                           (int64_t)elem_size, lld};
        }
    *out = (nt_mpi_layout_t){g->m, g->n, mt, nt, NULL, NULL, g->mb, g->nb, NULL, tiles, mine,
                             own, cyc};
    return NT_OK;
}

void nt_mpi_layout_free(nt_mpi_layout_t *L)
{
    if (!L)
        return;
    free((void *)L->owner);
    free((void *)L->tiles);
    free((void *)L->mine);
    free((void *)L->cyclic);
    L->owner = NULL;
    L->tiles = NULL;
    L->mine = NULL;
    L->nmine = 0;
    L->cyclic = NULL;
}
