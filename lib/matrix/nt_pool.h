// Per-domain pools of page-aligned memory: the in-place executor (exec_inplace.c) recycles the
// blocks of source tiles into target tiles through them; test_pool.c checks them.
//
// A pool keeps, for every domain, the free runs [p, p + len) it was given (page-aligned, whole
// pages, from nt_mem_alloc() on that domain: their pages are bound to the domain's node and
// already faulted in). Runs are kept sorted by address and adjacent runs coalesce, so a pool
// is not limited to size classes: a run is carved (best fit, from its start) for a request of
// any size, and pieces of neighbouring tiles merge back into larger ones. A piece taken from
// a run is itself a valid nt_mem_free() range (munmap works on any page range of a mapping).
//
// The pool never touches the memory it holds: the executor can simulate an order on the real
// addresses of tiles that are still in use, then forget the runs (nt_pool_clear(p, false)).
#ifndef NUMATILE_POOL_INTERNAL_H
#define NUMATILE_POOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"
#include "numatile/topo.h"

typedef struct nt_pool nt_pool_t;

// An empty pool over ndomains domains (>= 1); free with nt_pool_destroy().
nt_status nt_pool_create(int ndomains, nt_pool_t **out);

// Clear (unmapping the runs when unmap) and free the pool; NULL does nothing.
void nt_pool_destroy(nt_pool_t *p, bool unmap);

// Hand back [ptr, ptr + bytes) on domain d (ptr page-aligned; bytes rounded up to pages).
// Fails only when the run table cannot grow (NT_ENOMEM; the pool is unchanged then).
nt_status nt_pool_give(nt_pool_t *p, int d, void *ptr, size_t bytes);

// A run of bytes (rounded up to pages) from domain d's pool, carved from the smallest run
// that fits (lowest address on ties); NULL when none fits. Never allocates.
void *nt_pool_take(nt_pool_t *p, int d, size_t bytes);

// True when nt_pool_take(p, d, bytes) would succeed.
bool nt_pool_fits(const nt_pool_t *p, int d, size_t bytes);

// From the pool, else from the kernel on the domain's node (nt_mem_alloc(), zero-filled and
// touched); *fresh says which. The pool's runs keep their old contents.
nt_status nt_pool_get(nt_pool_t *p, const nt_topo_t *topo, int d, size_t bytes, void **out,
                      bool *fresh);

// Bytes and runs held for domain d.
size_t nt_pool_bytes(const nt_pool_t *p, int d);
int64_t nt_pool_runs(const nt_pool_t *p, int d);

// Run k (0..nt_pool_runs()-1, by address) of domain d.
void nt_pool_run(const nt_pool_t *p, int d, int64_t k, void **ptr, size_t *bytes);

// Empty every domain's pool: unmap the runs (unmap), or only forget them (a simulation).
void nt_pool_clear(nt_pool_t *p, bool unmap);

// Bytes rounded up to whole pages (false on overflow).
bool nt_pool_round(size_t bytes, size_t *out);

struct nt_mempool;

// The public pools (numatile/pool.h, mempool.c) over these: a run of domain d for a matrix
// (NULL when none fits), and a matrix's memory handed back (to the kernel when the pool's
// table cannot grow).
void *nt_mempool_take(struct nt_mempool *pool, int d, size_t bytes);
void nt_mempool_give(struct nt_mempool *pool, int d, void *ptr, size_t bytes);
const nt_topo_t *nt_mempool_topo(const struct nt_mempool *pool);

#endif
