// The block-cyclic matrix of one rank (dmat, see tool.h): its layout, its local part, its
// values and their oracle.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/matrix.h>

#include "tool.h"

bool dmat_double_values;

// Not nt_tilemap_from_spec's DIST grammar: that one builds the tile map of one process's
// domains from many distributions (bc2d:PxQ:SMBxSNB, random, ...), while these layouts are
// ScaLAPACK grids of ranks, and it takes decimal digits where this reader has always taken
// what sscanf takes ("bc2d: 2x2", "+2"): using it would change the input numatile-mpi accepts.
bool dmat_parse_layout(const char *s, dmat *d)
{
    long long mb, nb;
    int p, q, k = 0;
    char tail;
    if (sscanf(s, "%lldx%lld@%n", &mb, &nb, &k) == 2 && k > 0)
        s += k;
    else if (sscanf(s, "%lld@%n", &mb, &k) == 1 && k > 0) {
        nb = mb;
        s += k;
    } else
        return false;
    if (sscanf(s, "bc2d:%dx%d%c", &p, &q, &tail) == 2)
        ;
    else if (sscanf(s, "bc1d:%d%c", &q, &tail) == 1)
        p = 1;
    else
        return false;
    *d = (dmat){.mb = mb, .nb = nb, .p = p, .q = q};
    return mb >= 1 && nb >= 1 && mb <= INT32_MAX && nb <= INT32_MAX && p >= 1 && q >= 1 &&
           p <= 4096 && q <= 4096;
}

static void local_index_to_global(const dmat *d, int64_t li, int64_t lj, int64_t *gi, int64_t *gj)
{
    *gi = (li / d->mb) * d->p * d->mb + d->prow * d->mb + li % d->mb;
    *gj = (lj / d->nb) * d->q * d->nb + d->pcol * d->nb + lj % d->nb;
}

// Element (gi, gj) of the pattern of seed (see dmat_double_values).
static void value(const dmat *d, uint64_t seed, int64_t gi, int64_t gj, char *out, size_t es)
{
    if (dmat_double_values) {
        double v = (double)seed * 1e15 + (double)gi * (double)d->n + (double)gj;
        memcpy(out, &v, sizeof v);
    } else {
        nt_matrix_pattern_value(seed, gi, gj, out, es);
    }
}

bool dmat_alloc_only(dmat *d, size_t es)
{
    int cell = -1;
    for (int c = 0; c < d->p * d->q; c++)
        if ((d->ranks ? d->ranks[c] : c) == tool_rank)
            cell = c;
    d->prow = cell >= 0 ? cell / d->q : -1;
    d->pcol = cell >= 0 ? cell % d->q : -1;
    d->a = NULL;
    d->mloc = d->nloc = 0;
    d->lld = 1;
    if (d->prow < 0)
        return true;
    d->mloc = nt_mpi_numroc(d->m, d->mb, d->prow, 0, d->p);
    d->nloc = nt_mpi_numroc(d->n, d->nb, d->pcol, 0, d->q);
    d->lld = d->mloc > 1 ? d->mloc : 1;
    size_t count = (size_t)d->lld * (size_t)(d->nloc > 1 ? d->nloc : 1);
    d->a = malloc(count * es);
    return d->a != NULL;
}

bool dmat_alloc(dmat *d, size_t es, uint64_t seed)
{
    if (!dmat_alloc_only(d, es))
        return false;
    dmat_fill_cols(d, es, seed, 0, d->nloc);
    return true;
}

void dmat_fill(dmat *d, size_t es, uint64_t seed)
{
    dmat_fill_cols(d, es, seed, 0, d->nloc);
}

void dmat_fill_cols(dmat *d, size_t es, uint64_t seed, int64_t c0, int64_t c1)
{
    for (int64_t lj = c0; lj < c1; lj++)
        for (int64_t li = 0; li < d->mloc; li++) {
            int64_t gi, gj;
            local_index_to_global(d, li, lj, &gi, &gj);
            value(d, seed, gi, gj, d->a + (size_t)(li + lj * d->lld) * es, es);
        }
}

nt_mpi_grid_t dmat_grid(const dmat *d)
{
    return (nt_mpi_grid_t){d->m, d->n, d->mb, d->nb, 0, 0, d->p, d->q, d->ranks};
}

int64_t dmat_check(const dmat *b, size_t es, uint64_t seed, const int64_t *sub)
{
    char want[64], *big = es > sizeof want ? malloc(es) : NULL;
    char *w = big ? big : want;
    int64_t bad = 0;
    for (int64_t lj = 0; lj < b->nloc; lj++)
        for (int64_t li = 0; li < b->mloc; li++) {
            int64_t gi, gj;
            local_index_to_global(b, li, lj, &gi, &gj);
            bool in = gi >= sub[4] && gi < sub[4] + sub[0] && gj >= sub[5] && gj < sub[5] + sub[1];
            if (in)
                value(b, seed, gi - sub[4] + sub[2], gj - sub[5] + sub[3], w, es);
            else
                value(b, seed + 1, gi, gj, w, es);
            bad += memcmp(w, b->a + (size_t)(li + lj * b->lld) * es, es) != 0;
        }
    free(big);
    return bad;
}
