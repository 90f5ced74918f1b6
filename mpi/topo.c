// Distributed domains: every rank's own topology, all-gathered into one rank-major list of
// global domains with an inter-rank distance level (see numatile/mpi.h).
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_int.h"

struct nt_mpi_topo {
    nt_topo_t *local;
    int nranks, me, ndomains;
    int *first;     // nranks + 1 entries: rank r's domains are first[r] .. first[r + 1] - 1
    int *owner;     // global id -> rank
    uint32_t *dist; // ndomains^2
    uint32_t inter;
};

void nt_mpi_topo_destroy(nt_mpi_topo_t *t)
{
    if (!t)
        return;
    nt_topo_destroy(t->local);
    free(t->first);
    free(t->owner);
    free(t->dist);
    free(t);
}

static nt_status gather(MPI_Comm comm, nt_mpi_topo_t *t, uint32_t inter)
{
    int nd = nt_topo_ndomains(t->local);
    int *counts = malloc((size_t)t->nranks * sizeof *counts);
    int *sq = malloc((size_t)t->nranks * sizeof *sq), *off = malloc((size_t)t->nranks * sizeof *off);
    t->first = malloc(((size_t)t->nranks + 1) * sizeof *t->first);
    nt_status s = counts && sq && off && t->first ? NT_OK
                                                   : nt_mpi_fail(NT_ENOMEM, "out of memory");
    if (!s && MPI_Allgather(&nd, 1, MPI_INT, counts, 1, MPI_INT, comm) != MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allgather of the domain counts failed");
    int64_t total = 0, sqtot = 0;
    for (int r = 0; !s && r < t->nranks; r++) {
        t->first[r] = (int)total;
        off[r] = (int)sqtot;
        sq[r] = counts[r] * counts[r];
        total += counts[r];
        sqtot += sq[r];
        if (total > INT_MAX / 2 || sqtot > INT_MAX || total > NT_MATCH_MAX_P)
            s = nt_mpi_fail(NT_ERANGE, "%lld global domains: too many", (long long)total);
    }
    uint32_t *blocks = NULL;
    if (!s) {
        t->first[t->nranks] = t->ndomains = (int)total;
        blocks = malloc((size_t)(sqtot ? sqtot : 1) * sizeof *blocks);
        t->owner = malloc((size_t)total * sizeof *t->owner);
        t->dist = malloc((size_t)total * (size_t)total * sizeof *t->dist);
        if (!blocks || !t->owner || !t->dist)
            s = nt_mpi_fail(NT_ENOMEM, "out of memory for %lld global domains", (long long)total);
    }
    if (!s && MPI_Allgatherv(nt_topo_distances(t->local), nd * nd, MPI_UINT32_T, blocks, sq, off,
                             MPI_UINT32_T, comm) != MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allgatherv of the distance matrices failed");
    uint32_t maxd = 0;
    for (int64_t i = 0; !s && i < sqtot; i++)
        maxd = blocks[i] > maxd ? blocks[i] : maxd;
    if (!s && inter == 0)
        inter = maxd > UINT32_MAX / 2 ? UINT32_MAX : (maxd ? 2 * maxd : 20);
    else if (!s && inter < maxd)
        s = nt_mpi_fail(NT_EINVAL, "inter_distance = %u is below the largest distance inside "
                        "a rank (%u)", inter, maxd);
    if (!s) {
        t->inter = inter;
        int64_t D = total;
        for (int r = 0; r < t->nranks; r++)
            for (int i = 0; i < counts[r]; i++) {
                t->owner[t->first[r] + i] = r;
                uint32_t *row = t->dist + (size_t)(t->first[r] + i) * (size_t)D;
                for (int64_t k = 0; k < D; k++)
                    row[k] = inter;
                memcpy(row + t->first[r], blocks + off[r] + (size_t)i * counts[r],
                       (size_t)counts[r] * sizeof *row);
            }
    }
    free(blocks);
    free(counts);
    free(sq);
    free(off);
    return s;
}

nt_status nt_mpi_topo_create(MPI_Comm comm, const nt_topo_opts_t *opts, uint32_t inter_distance,
                             nt_mpi_topo_t **out)
{
    if (comm == MPI_COMM_NULL)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_create: comm is MPI_COMM_NULL");
    int me, size;
    if (MPI_Comm_rank(comm, &me) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return nt_mpi_fail(NT_ESYS, "nt_mpi_topo_create: MPI_Comm_rank/size failed");
    nt_mpi_topo_t *t = calloc(1, sizeof *t);
    nt_status s = t ? NT_OK : nt_mpi_fail(NT_ENOMEM, "out of memory");
    if (!s && !out)
        s = nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_create: out is NULL");
    // The same inter_distance everywhere, or the ranks would build different matrices.
    unsigned v[2] = {inter_distance, ~inter_distance};
    if (!s && MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UNSIGNED, MPI_MAX, comm) != MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allreduce failed");
    if (!s && v[0] != ~v[1])
        s = nt_mpi_fail(NT_EINVAL, "inter_distance differs between ranks");
    if (!s) {
        t->nranks = size;
        t->me = me;
        nt_status ls = nt_topo_load(opts, &t->local);
        if (ls)
            s = nt_mpi_fail(ls, "nt_topo_load: %s", nt_last_error());
    }
    s = nt_mpi_agree(comm, s, me, NULL);
    if (!s)
        s = nt_mpi_agree(comm, gather(comm, t, inter_distance), me, NULL);
    if (s) {
        nt_mpi_topo_destroy(t);
        return s;
    }
    *out = t;
    return NT_OK;
}

int nt_mpi_topo_nranks(const nt_mpi_topo_t *t)
{
    return t ? t->nranks : -1;
}

int nt_mpi_topo_ndomains(const nt_mpi_topo_t *t)
{
    return t ? t->ndomains : -1;
}

nt_status nt_mpi_topo_rank_domains(const nt_mpi_topo_t *t, int rank, int *first, int *count)
{
    if (!t || rank < 0 || rank >= t->nranks)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_rank_domains: %s", t ? "rank out of range"
                                                                         : "topo is NULL");
    if (first)
        *first = t->first[rank];
    if (count)
        *count = t->first[rank + 1] - t->first[rank];
    return NT_OK;
}

nt_status nt_mpi_topo_domain(const nt_mpi_topo_t *t, int global, int *rank, int *local)
{
    if (!t || global < 0 || global >= t->ndomains)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_domain: %s", t ? "global out of range"
                                                                  : "topo is NULL");
    int r = t->owner[global];
    if (rank)
        *rank = r;
    if (local)
        *local = global - t->first[r];
    return NT_OK;
}

nt_status nt_mpi_topo_global(const nt_mpi_topo_t *t, int rank, int local, int *global)
{
    if (!t || !global)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_global: NULL %s", t ? "global" : "topo");
    if (rank < 0 || rank >= t->nranks || local < 0 || local >= t->first[rank + 1] - t->first[rank])
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_global: (rank %d, local %d) out of range",
                           rank, local);
    *global = t->first[rank] + local;
    return NT_OK;
}

const uint32_t *nt_mpi_topo_distances(const nt_mpi_topo_t *t)
{
    return t ? t->dist : NULL;
}

uint32_t nt_mpi_topo_inter_distance(const nt_mpi_topo_t *t)
{
    return t ? t->inter : 0;
}

const nt_topo_t *nt_mpi_topo_local(const nt_mpi_topo_t *t)
{
    return t ? t->local : NULL;
}

nt_status nt_mpi_topo_columns(const nt_mpi_topo_t *t, int64_t ncols, int domain, int64_t *c0,
                              int64_t *c1)
{
    if (!t || !c0 || !c1 || ncols < 0)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_columns: NULL pointer or ncols < 0");
    int d = nt_topo_ndomains(t->local);
    if (domain < 0 || domain >= d)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_topo_columns: domain %d outside 0..%d", domain,
                           d - 1);
    // ncols * d fits: ncols is a local column count of an allocated array, d is small.
    *c0 = ncols / d * domain + ncols % d * domain / d;
    *c1 = ncols / d * (domain + 1) + ncols % d * (domain + 1) / d;
    return NT_OK;
}
