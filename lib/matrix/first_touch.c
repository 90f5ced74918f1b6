// First touch of an untouched array by threads bound to the domains that own it
// (nt_matrix_first_touch, numatile/wrap.h): each page is written first on the node that
// nt_matrix_place() would choose, so the default local policy needs no migration.
#include <stdlib.h>

#include "nt_core.h"
#include "nt_matrix.h"
#include "numatile/wrap.h"

typedef struct touch_ctx {
    nt_matrix_t *A;
    int tpd;
    int *dnode;   // node of each topology domain
    int *first;   // per domain: its first worker's index among its node's workers
    int *workers; // per node: touching threads on it (0: nobody, the node has no cpus)
    int nnodes;
    int fallback; // the first domain with cpus: touches the pages of nodes without workers
} touch_ctx;

// Workers per node: the threads of the domains with cpus (nt_team_run gives those tpd each).
static nt_status count_workers(touch_ctx *x)
{
    const nt_topo_t *t = x->A->topo;
    int D = nt_topo_ndomains(t);
    x->nnodes = 1;
    x->dnode = calloc((size_t)D, sizeof *x->dnode);
    x->first = calloc((size_t)D, sizeof *x->first);
    for (int d = 0; x->dnode && d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        x->dnode[d] = info.node >= 0 ? info.node : 0;
        x->nnodes = x->dnode[d] + 1 > x->nnodes ? x->dnode[d] + 1 : x->nnodes;
    }
    x->workers = calloc((size_t)x->nnodes, sizeof *x->workers);
    if (!x->dnode || !x->first || !x->workers)
        return nt_fail(NT_ENOMEM, "nt_matrix_first_touch: out of memory");
    x->fallback = -1;
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (info.ncpus == 0)
            continue;
        x->fallback = x->fallback < 0 ? d : x->fallback;
        x->first[d] = x->workers[x->dnode[d]];
        x->workers[x->dnode[d]] += x->tpd;
    }
    return NT_OK;
}

// One bound thread: walk every page, touch the pages of its node that fall to it (the node's
// pages dealt round-robin to the node's workers). The pages of a node without cpus are touched
// by the first thread of the first domain with cpus, for nt_matrix_place() to move.
static nt_status touch_fn(int domain, int rank, void *arg)
{
    const touch_ctx *x = arg;
    nt_page_walk_t w;
    nt_status st = nt_page_walk_init(&w, x->A);
    if (st)
        return st;
    int64_t *acc = calloc((size_t)w.nnodes, sizeof *acc);
    if (!acc) {
        nt_page_walk_free(&w);
        return nt_fail(NT_ENOMEM, "nt_matrix_first_touch: out of memory");
    }
    int me = x->first[domain] + rank, node = x->dnode[domain];
    int64_t seen = 0; // pages of this node so far
    uintptr_t page;
    while (nt_page_walk_next(&w, &page, acc)) {
        int best = nt_page_best_node(acc, w.nnodes);
        bool orphan = x->workers[best] == 0 && domain == x->fallback && rank == 0;
        if (orphan || (best == node && seen++ % x->workers[node] == me)) {
            // Write back what the element holds: no element changes, the page gets mapped.
            volatile unsigned char *e = (volatile unsigned char *)w.first;
            *e = *e;
        }
    }
    st = w.failed ? NT_ENOMEM : NT_OK;
    free(acc);
    nt_page_walk_free(&w);
    return st;
}

nt_status nt_matrix_first_touch(nt_matrix_t *A, int threads_per_domain, nt_place_report_t *rep)
{
    if (!A)
        return nt_fail(NT_EINVAL, "nt_matrix_first_touch: A is NULL");
    if (!A->allocated || !A->tile || !A->topo)
        return nt_fail(NT_EINVAL, "nt_matrix_first_touch: the matrix has no memory");
    if (threads_per_domain < 1)
        return nt_fail(NT_EINVAL, "nt_matrix_first_touch: threads_per_domain = %d must be >= 1",
                       threads_per_domain);
    if (nt_topo_get_kind(A->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_matrix_first_touch: a synthetic topology has no memory");
    double t0 = nt_now();
    touch_ctx x = {.A = A, .tpd = threads_per_domain};
    // A huge page would be faulted whole by the first thread to touch it, for every owner.
    nt_matrix_advise_no_huge(A);
    nt_status st = count_workers(&x);
    if (st == NT_OK)
        st = nt_team_run(A->topo, threads_per_domain, touch_fn, &x);
    free(x.dnode);
    free(x.first);
    free(x.workers);
    // What the touch could not put in place (a node without cpus, a process policy other than
    // local allocation) is moved now; usually nothing.
    nt_place_report_t r;
    if (st == NT_OK)
        st = nt_matrix_place(A, 0, &r);
    if (st)
        return st;
    r.seconds = nt_now() - t0;
    if (rep)
        *rep = r;
    return NT_OK;
}
