// Strided groups of a column walk's steps: the short pieces of small blocks (an element-cyclic
// layout gives one-element pieces that alternate between messages) copied by one loop per group
// with the piece's size known to the compiler, instead of a loop per piece that reloads the
// step and dispatches on its length. Within a column the groups of different lists are copied
// one after the other: the column is read (pack) or written (unpack) once per list, from cache
// while it is small enough (NT_MPI_GROUP_COLUMN; with one list, once in all).
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_copy.h"
#include "nt_mpi_int.h"

// Whether step e continues group g (its second step fixes the spacing).
static bool extends(const nt_mpi_group *g, const nt_mpi_step *e)
{
    if (e->len != g->len || (e->msg == NULL) != (g->msg == NULL))
        return false;
    int64_t k = g->count;
    int64_t ms = e->msg ? e->msg - g->msg : 0;
    if (k == 1)
        return true;
    return e->s - g->s == k * g->ss && e->d - g->d == k * g->ds && ms == k * g->mstep;
}

static void start(nt_mpi_group *g, const nt_mpi_step *e)
{
    *g = (nt_mpi_group){e->msg, e->stride, 0, e->s, 0, e->d, 0, e->len, 1};
}

static void add(nt_mpi_group *g, const nt_mpi_step *e)
{
    if (g->count == 1) {
        g->ss = e->s - g->s;
        g->ds = e->d - g->d;
        g->mstep = e->msg ? e->msg - g->msg : 0;
    }
    g->count++;
}

// Whether grouping can pay: a column read or written once per message stays in cache only
// while it is small (one message: read once anyway).
static bool worth(const nt_mpi_steps *st, size_t es)
{
    int lists = 0;
    for (int k = 0; k < st->nl; k++)
        lists += st->first[k] >= 0;
    return st->n >= NT_MPI_GROUP_MIN &&
           (lists == 1 || st->elems * (int64_t)es <= NT_MPI_GROUP_COLUMN);
}

void nt_mpi_steps_group(nt_mpi_steps *st, size_t es)
{
    st->g = NULL;
    st->ng = 0;
    if (!worth(st, es))
        return;
    // One pass in st's order, each list's open group in open[list]; given up as soon as the
    // groups cannot average NT_MPI_GROUP_MIN steps.
    nt_mpi_group *g = malloc((size_t)st->n * sizeof *g);
    int64_t *open = malloc((size_t)st->nl * sizeof *open);
    int64_t ng = 0;
    bool ok = g && open;
    for (int k = 0; ok && k < st->nl; k++)
        open[k] = -1;
    for (int64_t e = 0; ok && e < st->n && ng * NT_MPI_GROUP_MIN <= st->n; e++) {
        const nt_mpi_step *v = &st->v[e];
        int64_t o = open[v->list];
        if (o >= 0 && extends(&g[o], v)) {
            add(&g[o], v);
            continue;
        }
        open[v->list] = ng;
        start(&g[ng++], v);
    }
    free(open);
    if (!ok || ng * NT_MPI_GROUP_MIN > st->n) {
        free(g);
        return;
    }
    nt_mpi_group *fit = realloc(g, (size_t)(ng ? ng : 1) * sizeof *g);
    st->g = fit ? fit : g;
    st->ng = ng;
}

// count pieces of len elements, dstep and sstep bytes apart: the common sizes as fixed-size
// moves (one load and one store each), the others by the copy of one piece.
static inline void strided(char *d, int64_t dstep, const char *s, int64_t sstep, int64_t count,
                           int64_t len, size_t es)
{
    switch ((size_t)len * es) {
    case 4:
        for (int64_t k = 0; k < count; k++)
            memcpy(d + k * dstep, s + k * sstep, 4);
        break;
    case 8:
        for (int64_t k = 0; k < count; k++)
            memcpy(d + k * dstep, s + k * sstep, 8);
        break;
    case 16:
        for (int64_t k = 0; k < count; k++)
            memcpy(d + k * dstep, s + k * sstep, 16);
        break;
    case 32:
        for (int64_t k = 0; k < count; k++)
            memcpy(d + k * dstep, s + k * sstep, 32);
        break;
    default:
        for (int64_t k = 0; k < count; k++)
            nt_mpi_copy_elems(d + k * dstep, s + k * sstep, len, es);
    }
}

void nt_mpi_groups_pack(const nt_mpi_steps *st, const char *scol, int64_t c, size_t es)
{
    int64_t e = (int64_t)es;
    for (int64_t i = 0; i < st->ng; i++) {
        const nt_mpi_group *g = &st->g[i];
        strided((char *)g->msg + c * g->stride, g->mstep, scol + g->s * e, g->ss * e, g->count,
                g->len, es);
    }
}

void nt_mpi_groups_unpack(const nt_mpi_steps *st, char *dcol, const char *scol, int64_t c,
                          size_t es)
{
    int64_t e = (int64_t)es;
    for (int64_t i = 0; i < st->ng; i++) {
        const nt_mpi_group *g = &st->g[i];
        const char *src = g->msg ? g->msg + c * g->stride : scol + g->s * e;
        strided(dcol + g->d * e, g->ds * e, src, g->msg ? g->mstep : g->ss * e, g->count,
                g->len, es);
    }
}
