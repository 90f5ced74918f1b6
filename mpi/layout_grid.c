// A block-cyclic matrix as an any-layout matrix (nt_mpi_layout_from_grid): one tile per block,
// owned by the grid cell of its block row and column, this rank's tiles inside its local array
// (local block (li, lj) at rows li*mb, columns lj*nb), so block-cyclic and any-map matrices
// meet in one nt_mpi_layout_redist().
#include <stdlib.h>

#include "nt_mpi_layout.h"

static nt_status fail(const char *why)
{
    return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_from_grid: %s", why);
}

nt_status nt_mpi_layout_from_grid(const nt_mpi_grid_t *g, int me, void *local, int64_t lld,
                                  size_t elem_size, nt_mpi_layout_t *out)
{
    if (!g || !out)
        return fail(!g ? "g is NULL" : "out is NULL");
    if (g->m < 0 || g->n < 0 || g->mb < 1 || g->nb < 1 || g->nprow < 1 || g->npcol < 1 ||
        g->rsrc < 0 || g->rsrc >= g->nprow || g->csrc < 0 || g->csrc >= g->npcol)
        return fail("a grid field is out of range (m, n >= 0; mb, nb, nprow, npcol >= 1; "
                    "rsrc, csrc inside the grid)");
    if (elem_size < 1)
        return fail("elem_size = 0");
    int64_t mt = g->m / g->mb + (g->m % g->mb != 0), nt = g->n / g->nb + (g->n % g->nb != 0);
    if (mt > 0 && nt > (INT64_MAX / (int64_t)sizeof(int)) / mt)
        return nt_mpi_fail(NT_ERANGE, "nt_mpi_layout_from_grid: %lld x %lld blocks",
                           (long long)mt, (long long)nt);
    size_t all = (size_t)(mt * nt > 0 ? mt * nt : 1);
    int *owner = malloc(all * sizeof *owner);
    nt_mpi_tile_t *tiles = malloc(all * sizeof *tiles);
    int64_t *mine = malloc(all * sizeof *mine);
    if (!owner || !tiles || !mine) {
        free(owner);
        free(tiles);
        free(mine);
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_from_grid: out of memory");
    }
    int64_t own = 0, lrows = 0;
    for (int64_t i = 0; i < mt; i++)
        for (int64_t j = 0; j < nt; j++) {
            int pr = (int)((i + g->rsrc) % g->nprow), pc = (int)((j + g->csrc) % g->npcol);
            int cell = pr * g->npcol + pc, r = g->ranks ? g->ranks[cell] : cell;
            owner[i * nt + j] = r;
            if (r != me)
                continue;
            int64_t li = i / g->nprow, lj = j / g->npcol;
            int64_t rows = (i + 1) * g->mb < g->m ? g->mb : g->m - i * g->mb;
            lrows = li * g->mb + rows > lrows ? li * g->mb + rows : lrows;
            mine[own] = i * nt + j;
            tiles[own++] = (nt_mpi_tile_t){local ? (char *)local + (li * g->mb + lj * g->nb *
                                                                    lld) * (int64_t)elem_size
                                                 : NULL,
                                           lld};
        }
    if (own > 0 && (!local || lld < (lrows > 1 ? lrows : 1))) {
        free(owner);
        free(tiles);
        free(mine);
        return fail(!local ? "local is NULL but this rank holds blocks"
                           : "lld is below this rank's local rows");
    }
    // Only this rank's tiles are kept (a shrinking realloc that fails keeps the block).
    size_t keep = (size_t)(own > 0 ? own : 1);
    nt_mpi_tile_t *t2 = realloc(tiles, keep * sizeof *tiles);
    int64_t *m2 = realloc(mine, keep * sizeof *mine);
    *out = (nt_mpi_layout_t){g->m, g->n, mt, nt, NULL, NULL, g->mb, g->nb, owner,
                             t2 ? t2 : tiles, m2 ? m2 : mine, own};
    return NT_OK;
}

void nt_mpi_layout_free(nt_mpi_layout_t *L)
{
    if (!L)
        return;
    free((void *)L->owner);
    free((void *)L->tiles);
    free((void *)L->mine);
    L->owner = NULL;
    L->tiles = NULL;
    L->mine = NULL;
    L->nmine = 0;
}
