// Public memory pools (numatile/pool.h): a topology and one internal pool (pool.c) of
// page-aligned runs per domain, which matrices attached to it take from and give back to.
#include <stdlib.h>

#include "nt_core.h"
#include "nt_pool.h"
#include "numatile/mem.h"
#include "numatile/pool.h"

struct nt_mempool {
    const nt_topo_t *topo;
    nt_pool_t *p;
};

nt_status nt_mempool_create(const nt_topo_t *topo, nt_mempool_t **out)
{
    if (!topo || !out)
        return nt_fail(NT_EINVAL, "nt_mempool_create: %s is NULL", topo ? "out" : "topo");
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_mempool_create: a synthetic topology has no memory");
    nt_mempool_t *m = calloc(1, sizeof *m);
    if (!m)
        return nt_fail(NT_ENOMEM, "nt_mempool_create: out of memory");
    nt_status st = nt_pool_create(nt_topo_ndomains(topo), &m->p);
    if (st) {
        free(m);
        return st;
    }
    m->topo = topo;
    *out = m;
    return NT_OK;
}

void nt_mempool_destroy(nt_mempool_t *pool)
{
    if (!pool)
        return;
    nt_pool_destroy(pool->p, true);
    free(pool);
}

nt_status nt_mempool_bytes(const nt_mempool_t *pool, int domain, size_t *bytes)
{
    if (!pool || !bytes)
        return nt_fail(NT_EINVAL, "nt_mempool_bytes: %s is NULL", pool ? "bytes" : "pool");
    if (domain < 0 || domain >= nt_topo_ndomains(pool->topo))
        return nt_fail(NT_EINVAL, "nt_mempool_bytes: domain %d out of range 0..%d", domain,
                       nt_topo_ndomains(pool->topo) - 1);
    *bytes = nt_pool_bytes(pool->p, domain);
    return NT_OK;
}

void *nt_mempool_take(nt_mempool_t *pool, int d, size_t bytes)
{
    return d < nt_topo_ndomains(pool->topo) ? nt_pool_take(pool->p, d, bytes) : NULL;
}

void nt_mempool_give(nt_mempool_t *pool, int d, void *ptr, size_t bytes)
{
    if (d >= nt_topo_ndomains(pool->topo) || nt_pool_give(pool->p, d, ptr, bytes) != NT_OK)
        nt_mem_free(ptr, bytes);
}

const nt_topo_t *nt_mempool_topo(const nt_mempool_t *pool)
{
    return pool->topo;
}
