// The pieces of one dimension that go from one process to another, from numatile's closed-form
// communication sets (nt_cyclic_intersect() of numatile/plan.h, the runs periodic plans are
// made of), turned into local indices on both sides.
#include <stdlib.h>

#include <numatile/plan.h>

#include "nt_mpi_int.h"

typedef struct xpiece {
    int64_t x, len;
} xpiece;

static int by_x(const void *p, const void *q)
{
    int64_t a = ((const xpiece *)p)->x, b = ((const xpiece *)q)->x;
    return (a > b) - (a < b);
}

static void to_cyclic(const nt_mpi_dim *d, int k, nt_cyclic_t *c, int *nk)
{
    // numatile's CYCLIC(r) puts block k on process k mod p; ScaLAPACK puts it on
    // (k + src) mod p, so ScaLAPACK's process k is numatile's (k - src) mod p.
    *c = (nt_cyclic_t){d->b, d->p, d->off};
    *nk = ((k - d->src) % d->p + d->p) % d->p;
}

nt_status nt_mpi_dim_count(int64_t count, const nt_mpi_dim *s, int ks, const nt_mpi_dim *t,
                           int kt, int64_t *total)
{
    nt_cyclic_t cs, ct;
    int ns, nt;
    to_cyclic(s, ks, &cs, &ns);
    to_cyclic(t, kt, &ct, &nt);
    int64_t nruns;
    *total = 0;
    nt_status st = count ? nt_cyclic_intersect(count, &cs, ns, &ct, nt, NULL, 0, &nruns, total)
                         : NT_OK;
    return st ? nt_mpi_fail(st, "nt_cyclic_intersect: %s", nt_last_error()) : NT_OK;
}

nt_status nt_mpi_dim_pieces(int64_t count, const nt_mpi_dim *s, int ks, const nt_mpi_dim *t,
                            int kt, nt_mpi_pieces *out)
{
    *out = (nt_mpi_pieces){0};
    if (count == 0)
        return NT_OK;
    nt_cyclic_t cs, ct;
    int ns, nt;
    to_cyclic(s, ks, &cs, &ns);
    to_cyclic(t, kt, &ct, &nt);
    int64_t nruns = 0, total = 0;
    nt_status st = nt_cyclic_intersect(count, &cs, ns, &ct, nt, NULL, 0, &nruns, &total);
    if (st)
        return nt_mpi_fail(st, "nt_cyclic_intersect: %s", nt_last_error());
    if (total == 0)
        return NT_OK;
    nt_run_t *runs = malloc((size_t)nruns * sizeof *runs);
    if (!runs)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for %lld runs", (long long)nruns);
    st = nt_cyclic_intersect(count, &cs, ns, &ct, nt, runs, nruns, &nruns, &total);
    if (st) {
        free(runs);
        return nt_mpi_fail(st, "nt_cyclic_intersect: %s", nt_last_error());
    }
    int64_t np = 0;
    for (int64_t i = 0; i < nruns; i++)
        np += runs[i].count;
    xpiece *xp = malloc((size_t)np * sizeof *xp);
    nt_mpi_piece *v = malloc((size_t)np * sizeof *v);
    if (!xp || !v) {
        free(runs);
        free(xp);
        free(v);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for %lld pieces", (long long)np);
    }
    np = 0;
    for (int64_t i = 0; i < nruns; i++)
        for (int64_t k = 0; k < runs[i].count; k++)
            xp[np++] = (xpiece){runs[i].start + k * runs[i].stride, runs[i].len};
    free(runs);
    // Sender and receiver compute the same list, so any fixed order works; increasing x
    // reads and writes the local arrays forward and lets neighbours merge.
    qsort(xp, (size_t)np, sizeof *xp, by_x);
    int64_t n = 0;
    for (int64_t i = 0; i < np; i++) {
        int64_t gs = s->off + xp[i].x, gd = t->off + xp[i].x;
        nt_mpi_piece p = {nt_mpi_local(gs, s->b, s->p), nt_mpi_local(gd, t->b, t->p),
                          xp[i].len};
        if (n > 0 && v[n - 1].s + v[n - 1].len == p.s && v[n - 1].d + v[n - 1].len == p.d)
            v[n - 1].len += p.len;
        else
            v[n++] = p;
    }
    free(xp);
    *out = (nt_mpi_pieces){v, n, total};
    return NT_OK;
}
