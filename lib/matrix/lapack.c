// The LAPACK layout: one column-major array whose sub-blocks are the tiles; its geometry and,
// for an array numatile allocates, its memory placed page by page on the owners' nodes.
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_matrix.h"
#include "numa/nt_numa.h"
#include "numatile/mem.h"

nt_status nt_lapack_set_lld(nt_matrix_t *A, int64_t lda)
{
    int64_t *lld = malloc((size_t)A->ndomains * sizeof *lld);
    if (!lld)
        return nt_fail(NT_ENOMEM, "nt_matrix: out of memory");
    // Every domain reads lda: nt_matrix_tile_ld() indexes lld by the tile's owner.
    for (int d = 0; d < A->ndomains; d++)
        lld[d] = lda;
    free(A->lld);
    A->lld = lld;
    return NT_OK;
}

void nt_lapack_point_tiles(nt_matrix_t *A, char *base, int64_t lda)
{
    for (int64_t i = 0; i < A->mt; i++)
        for (int64_t j = 0; j < A->nt; j++)
            A->tile[i * A->nt + j] =
                base + (size_t)(i * A->mb + j * A->nb * lda) * A->elem_size;
}

// Each maximal run of pages whose bytes are mostly on one node is bound to that node, so
// that the first touch puts every page where most of its elements' owners are.
static nt_status bind_runs(nt_matrix_t *A)
{
    nt_page_walk_t w;
    nt_status st = nt_page_walk_init(&w, A);
    if (st)
        return st;
    int64_t *acc = calloc((size_t)w.nnodes, sizeof *acc);
    if (!acc) {
        nt_page_walk_free(&w);
        return nt_fail(NT_ENOMEM, "nt_matrix_alloc: out of memory");
    }
    uintptr_t page, run = 0;
    size_t len = 0;
    int node = -1;
    while (st == NT_OK && nt_page_walk_next(&w, &page, acc)) {
        int best = nt_page_best_node(acc, w.nnodes);
        if (len > 0 && (best != node || page != run + len)) {
            st = nt_mem_prefer_node((void *)run, len, node);
            len = 0;
        }
        if (len == 0) {
            run = page;
            node = best;
        }
        len += w.pg;
    }
    if (st == NT_OK && len > 0)
        st = nt_mem_prefer_node((void *)run, len, node);
    free(acc);
    nt_page_walk_free(&w);
    return st;
}

// First touch of every page, shared by the threads (the node comes from the binding).
static double fault_in(char *p, size_t bytes)
{
    size_t pg = nt_mem_page_size();
    int64_t pages = (int64_t)((bytes + pg - 1) / pg);
    cpu_set_t cpus;
    int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    int nth = omp_get_max_threads() < ncpu ? omp_get_max_threads() : ncpu;
    double t0 = nt_now();
#pragma omp parallel for schedule(static) if (pages > 256) num_threads(nth)
    for (int64_t k = 0; k < pages; k++)
        ((volatile char *)p)[(size_t)k * pg] = 0;
    return nt_now() - t0;
}

nt_status nt_matrix_alloc_lapack(nt_matrix_t *A)
{
    size_t bytes = (size_t)A->m * (size_t)A->n * A->elem_size; // checked at creation
    void *p;
    // Small pages only: a huge page would put 2 MiB of several owners on one node.
    nt_status st = nt_mem_alloc(A->topo, A->owner[0], bytes, NT_MEM_NOTOUCH, &p);
    if (st)
        return st;
    nt_lapack_point_tiles(A, p, A->m);
    if ((st = bind_runs(A)) != NT_OK) {
        nt_mem_free(p, bytes);
        memset(A->tile, 0, (size_t)(A->mt * A->nt) * sizeof *A->tile);
        return st;
    }
    A->mem->lapack = p;
    A->mem->lapack_bytes = bytes;
    A->mem->bytes_fresh = (int64_t)bytes;
    A->mem->fault_seconds = fault_in(p, bytes);
    return NT_OK;
}
