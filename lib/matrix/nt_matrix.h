// Matrix memory internals: matrix.c shares them with the executors (lib/redist/) and unit tests.
#ifndef NUMATILE_MATRIX_INTERNAL_H
#define NUMATILE_MATRIX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/matrix.h"

// Tiles of at least this many bytes get their own page-aligned mapping (movable, adoptable by
// another matrix); smaller tiles are packed in one buffer per domain.
size_t nt_matrix_big_tile_bytes(void);

// Memory behind a matrix. TILE layout: owned[t] != 0 when this matrix frees tile t's memory:
// NT_TILE_MAPPING when it is one whole mapping of nt_mem_alloc (its huge pages are its own, so
// it may migrate), NT_TILE_PIECE when it is a piece of a larger one (from a pool, or a block an
// in-place execution recycled: a huge page may hold a neighbour too); slab[d] packs domain d's
// small tiles. SCALAPACK: local[d] is domain d's local matrix.
enum { NT_TILE_PIECE = 1, NT_TILE_MAPPING = 2 };
struct nt_matrix_mem {
    unsigned char *owned; // mt*nt (TILE)
    char **slab;          // ndomains (TILE)
    size_t *slab_bytes;
    char **local;         // ndomains (SCALAPACK)
    size_t *local_bytes;
    int64_t *local_cols;  // ndomains (SCALAPACK): columns of each local matrix
    struct nt_mempool *pool; // memory comes from and returns to this pool (NULL: the kernel)
    // The last allocation: bytes taken from the pool, bytes taken fresh from the kernel, and
    // the time the first touch of the fresh bytes took (their page faults).
    int64_t bytes_pooled, bytes_fresh;
    double fault_seconds;
    // During an allocation: the runs still to touch (fresh) or zero (pooled), done together
    // by all threads once every run is mapped.
    struct nt_pending_run *pend;
    size_t npend, cap_pend;
    // During nt_matrix_alloc_cover: the target rectangle (row, col, rows, cols) the caller
    // overwrites, whose pooled memory is not zeroed.
    bool has_cover;
    int64_t cover[4];
    // LAPACK layout allocated by numatile: the one array (lapack_bytes, whole pages), freed
    // with nt_mem_free. Wrapped matrices (wrap.c) have borrowed set: nothing of their element
    // memory is freed (local[] then holds the caller's ScaLAPACK arrays, owned[] is all 0).
    char *lapack;
    size_t lapack_bytes;
    bool borrowed;
};

// Bytes of tile (i,j) as stored (TILE layout: rows x cols x elem_size).
static inline size_t nt_tile_bytes(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return (size_t)nt_matrix_tile_rows(A, i) * (size_t)nt_matrix_tile_cols(A, j) * A->elem_size;
}

// True when tile t of a TILE-layout matrix is a mapping of its own (page-aligned, whole pages).
static inline bool nt_tile_is_big(const nt_matrix_t *A, int64_t i, int64_t j)
{
    return A->layout == NT_LAYOUT_TILE && nt_tile_bytes(A, i, j) >= nt_matrix_big_tile_bytes();
}

// Allocate A's memory, except the tiles listed in skip[] (mt*nt flags, may be NULL) which
// the caller fills by adoption afterwards. Everything taken is released on failure.
nt_status nt_matrix_alloc_except(nt_matrix_t *A, const unsigned char *skip);

// nt_matrix_alloc_except, for a caller that overwrites the rectangle `cover` (its dst_row,
// dst_col, rows, cols) right after and cannot fail before it has: pool memory under it is not
// zeroed (fresh memory is zero anyway), the rest is. cover NULL: nt_matrix_alloc_except.
nt_status nt_matrix_alloc_cover(nt_matrix_t *A, const unsigned char *skip,
                                const nt_sub_t *cover);

// Make dst tile td the owner of src tile ts's mapping; src keeps an alias it will not free.
void nt_matrix_adopt_tile(nt_matrix_t *dst, int64_t td, nt_matrix_t *src, int64_t ts);

// Saved descriptor state for nt_matrix_set_owner() / nt_matrix_owner_restore().
typedef struct nt_owner_state {
    int *owner;
    int ndomains;
    nt_bcgrid_t grid;
    int64_t *lld;
    int64_t *local_cols;
} nt_owner_state_t;

// Give a matrix without memory a new map (owners in 0..ndomains-1), recomputing the layout
// geometry; the previous state goes to *old. On failure A is unchanged.
nt_status nt_matrix_set_owner(nt_matrix_t *A, const int *owner, int ndomains,
                              nt_owner_state_t *old);
// Put the previous state back (dropping the new one), or drop the previous state for good.
void nt_matrix_owner_restore(nt_matrix_t *A, nt_owner_state_t *old);
void nt_matrix_owner_discard(nt_owner_state_t *old);

// Release all memory of A and return it to the "no memory" state.
void nt_matrix_release(nt_matrix_t *A);

// In-place execution (exec_inplace.c) hands memory from one matrix to another without
// allocating through them; these five calls are its only access to the tables.
// Tables of a TILE-layout matrix without memory (tile addresses, ownership, slabs), all empty;
// A->allocated stays false until the caller has placed every tile. On failure A is unchanged.
nt_status nt_matrix_alloc_tables(nt_matrix_t *A);
// Bytes of the slab nt_matrix_alloc() would give each domain for its small tiles (packed as
// it packs them), into bytes[A->ndomains]; NT_ERANGE on overflow.
nt_status nt_matrix_slab_sizes(const nt_matrix_t *A, size_t *bytes);
// Domain d's small tiles point into p (bytes as nt_matrix_slab_sizes() says), which A frees.
void nt_matrix_place_slab(nt_matrix_t *A, int d, char *p, size_t bytes);
// Big tile t becomes the page-aligned range p (nt_tile_bytes of it, whole pages), which A frees.
void nt_matrix_place_tile(nt_matrix_t *A, int64_t t, char *p, bool mapping);
// Drop A's memory without freeing it (its ranges now belong to another matrix or a pool): A
// ends without memory, its descriptor valid.
void nt_matrix_forget_memory(nt_matrix_t *A);

// ---- LAPACK layout (lapack.c) and pages of a matrix's memory (pages.c) ----------------------

// LAPACK layout: lld[] (ndomains entries) all set to lda, replacing the old table.
nt_status nt_lapack_set_lld(nt_matrix_t *A, int64_t lda);
// LAPACK layout: tile (i,j) at base + (i*mb + j*nb*lda) * elem_size.
void nt_lapack_point_tiles(nt_matrix_t *A, char *base, int64_t lda);
// Allocate a LAPACK-layout matrix's array (lda = m): each page bound to the node holding most
// of its bytes, then faulted in. On failure nothing is kept.
nt_status nt_matrix_alloc_lapack(nt_matrix_t *A);

// SCALAPACK layout: point every tile into its domain's local matrix (mem->local[], lld[]).
nt_status nt_matrix_point_local_tiles(nt_matrix_t *A);

// A walk over the pages holding A's elements, in address order, each with the element bytes
// of every node's domains in it (nodes: the OS nodes of A's topology's domains; a matrix
// without topology counts everything on node 0). Only pages holding elements are visited.
// LAPACK layout: computed from the array's geometry, no memory; others: one index per tile.
typedef struct nt_page_walk {
    const nt_matrix_t *A;
    size_t pg;
    int nnodes;       // entries of acc: highest node of a domain + 1
    int *dnode;       // node of each domain (A->ndomains)
    uintptr_t page;   // the current page
    uintptr_t first;  // after nt_page_walk_next: the first element byte in the page returned
    uintptr_t end;    // LAPACK: end of the array's elements
    int64_t *order;   // others: tiles by start address
    int64_t next;     // first tile of order[] not yet active
    int64_t *active;  // tiles that may reach into the current page
    int64_t nactive, cap_active;
    bool started;
    bool failed;      // the walk stopped early: out of memory (nt_fail was called)
    size_t scratch;   // bytes this walk allocated (peak)
} nt_page_walk_t;

nt_status nt_page_walk_init(nt_page_walk_t *w, const nt_matrix_t *A);
// The next page (*page) and its bytes per node (acc[nnodes], overwritten); false at the end
// or when w->failed.
bool nt_page_walk_next(nt_page_walk_t *w, uintptr_t *page, int64_t *acc);
void nt_page_walk_free(nt_page_walk_t *w);
// nt_matrix_check_placement() page by page (place.c): each page counted on_domain when it is
// on the node holding most of its bytes. For the LAPACK layout and wrapped matrices.
nt_status nt_matrix_check_pages(const nt_matrix_t *A, nt_placement_report_t *rep);

// Advise the pages of A's elements against transparent huge pages (place.c): each base page
// can then go to its own node. Only advice; always NT_OK.
nt_status nt_matrix_advise_no_huge(const nt_matrix_t *A);

// The node holding most of acc's bytes (the lowest on a tie), -1 when acc is all 0.
int nt_page_best_node(const int64_t *acc, int nnodes);

#endif
