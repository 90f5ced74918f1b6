// Where a matrix's pages are, page by page, for layouts whose pages may hold elements of
// several owners (LAPACK, wrapped memory): each page belongs on the node whose domains own
// most of its bytes.
#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nt_core.h"
#include "nt_matrix.h"
#include "numa/nt_numa.h"
#include "numatile/wrap.h"

// Pages queried per move_pages call.
#define QUERY_CHUNK 1024

// Query the n pages of pages[] into status[] and count them against want[].
static nt_status count_chunk(void **pages, const int *want, int *status, size_t n,
                             nt_placement_report_t *r)
{
    if (n == 0)
        return NT_OK;
    if (move_pages(0, (unsigned long)n, pages, NULL, status, 0) != 0)
        return nt_fail(NT_ESYS, "nt_matrix_check_placement: move_pages: %s", strerror(errno));
    for (size_t k = 0; k < n; k++) {
        r->pages++;
        if (status[k] == -ENOENT)
            r->absent++;
        else if (status[k] == want[k])
            r->on_domain++;
        else
            r->elsewhere++;
    }
    return NT_OK;
}

nt_status nt_matrix_check_pages(const nt_matrix_t *A, nt_placement_report_t *rep)
{
    nt_page_walk_t w;
    nt_status st = nt_page_walk_init(&w, A);
    if (st)
        return st;
    int64_t *acc = calloc((size_t)w.nnodes, sizeof *acc);
    void **pages = malloc(QUERY_CHUNK * sizeof *pages);
    int *want = malloc(QUERY_CHUNK * sizeof *want), *status = malloc(QUERY_CHUNK * sizeof *status);
    nt_placement_report_t r = {0};
    size_t n = 0;
    uintptr_t page;
    if (!acc || !pages || !want || !status)
        st = nt_fail(NT_ENOMEM, "nt_matrix_check_placement: out of memory");
    while (st == NT_OK && nt_page_walk_next(&w, &page, acc)) {
        pages[n] = (void *)page;
        want[n++] = nt_page_best_node(acc, w.nnodes);
        if (n == QUERY_CHUNK) {
            st = count_chunk(pages, want, status, n, &r);
            n = 0;
        }
    }
    if (st == NT_OK && w.failed)
        st = NT_ENOMEM;
    if (st == NT_OK)
        st = count_chunk(pages, want, status, n, &r);
    free(acc);
    free(pages);
    free(want);
    free(status);
    nt_page_walk_free(&w);
    if (st == NT_OK)
        *rep = r;
    return st;
}

// ---- nt_matrix_place -------------------------------------------------------------------------

// One chunk of pages: their addresses, target nodes and bytes per node (acc, nnodes a page),
// and the lists of the move_pages calls.
typedef struct chunk {
    size_t cap, n;
    int nnodes;
    void **pages, **mpages;
    int *tgt, *cur, *mnode, *mstatus;
    size_t *idx;
    int64_t *acc;
} chunk;

static nt_status chunk_alloc(chunk *c, size_t cap, int nnodes, int64_t *bytes)
{
    *c = (chunk){.cap = cap, .nnodes = nnodes};
    c->pages = malloc(cap * sizeof *c->pages);
    c->mpages = malloc(cap * sizeof *c->mpages);
    c->tgt = malloc(cap * sizeof *c->tgt);
    c->cur = malloc(cap * sizeof *c->cur);
    c->mnode = malloc(cap * sizeof *c->mnode);
    c->mstatus = malloc(cap * sizeof *c->mstatus);
    c->idx = malloc(cap * sizeof *c->idx);
    c->acc = malloc(cap * (size_t)nnodes * sizeof *c->acc);
    *bytes = (int64_t)(cap * (2 * sizeof(void *) + 4 * sizeof(int) + sizeof(size_t) +
                              (size_t)nnodes * sizeof(int64_t)));
    if (!c->pages || !c->mpages || !c->tgt || !c->cur || !c->mnode || !c->mstatus || !c->idx ||
        !c->acc)
        return nt_fail(NT_ENOMEM, "nt_matrix_place: out of memory");
    return NT_OK;
}

static void chunk_free(chunk *c)
{
    free(c->pages);
    free(c->mpages);
    free(c->tgt);
    free(c->cur);
    free(c->mnode);
    free(c->mstatus);
    free(c->idx);
    free(c->acc);
}

// Move the chunk's misplaced pages (unless query only), then count where every page is.
static nt_status chunk_place(chunk *c, unsigned flags, nt_place_report_t *r)
{
    if (move_pages(0, (unsigned long)c->n, c->pages, NULL, c->cur, 0) != 0)
        return nt_fail(NT_ESYS, "nt_matrix_place: move_pages query: %s", strerror(errno));
    size_t nm = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (c->cur[k] == -ENOENT)
            r->pages_absent++;
        else if (c->cur[k] == c->tgt[k])
            r->pages_already++;
        else if (!(flags & NT_PLACE_QUERY)) {
            c->mpages[nm] = c->pages[k];
            c->mnode[nm] = c->tgt[k];
            c->idx[nm++] = k;
        }
    }
    if (nm > 0 && move_pages(0, (unsigned long)nm, c->mpages, c->mnode, c->mstatus,
                             MPOL_MF_MOVE) < 0)
        return nt_fail(NT_ESYS, "nt_matrix_place: move_pages: %s", strerror(errno));
    // Where they are now, asked again: a huge page moves whole for its first address and
    // reports the others busy, though they moved with it.
    int *err = c->mnode; // the targets' copy is no longer needed: keep the move's statuses
    for (size_t q = 0; q < nm; q++)
        err[q] = c->mstatus[q];
    if (nm > 0 && move_pages(0, (unsigned long)nm, c->mpages, NULL, c->mstatus, 0) != 0)
        return nt_fail(NT_ESYS, "nt_matrix_place: move_pages query: %s", strerror(errno));
    for (size_t q = 0; q < nm; q++) {
        size_t k = c->idx[q];
        if (c->mstatus[q] == c->tgt[k]) {
            r->pages_moved++;
        } else {
            r->pages_failed++;
            if (!r->first_error)
                r->first_error = err[q] < 0 ? -err[q] : EAGAIN;
        }
        if (c->mstatus[q] >= 0)
            c->cur[k] = c->mstatus[q];
    }
    for (size_t k = 0; k < c->n; k++) {
        int f = c->cur[k];
        if (f >= 0 && f < 64)
            r->pages_per_node[f]++;
        if (f >= 0 && f < c->nnodes)
            r->bytes_local += c->acc[k * (size_t)c->nnodes + (size_t)f];
    }
    c->n = 0;
    return NT_OK;
}

static nt_status check_place_args(const char *who, const nt_matrix_t *A)
{
    if (!A)
        return nt_fail(NT_EINVAL, "%s: A is NULL", who);
    if (!A->allocated || !A->tile || !A->topo)
        return nt_fail(NT_EINVAL, "%s: the matrix has no memory", who);
    if (nt_topo_get_kind(A->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "%s: a synthetic topology has no memory", who);
    return NT_OK;
}

// Chunk length: at most 1024 pages, and no more than a 64th of the matrix's pages, so that the
// lists stay far below 1% of the array.
static size_t chunk_pages(const nt_matrix_t *A)
{
    size_t pages = (size_t)A->m * (size_t)A->n * A->elem_size / nt_mem_page_size() + 1;
    size_t cap = pages / 64;
    return cap < 16 ? 16 : cap > 1024 ? 1024 : cap;
}

// The walk over every page, chunk by chunk; counts into r.
static nt_status place_walk(nt_page_walk_t *w, chunk *c, unsigned flags, nt_place_report_t *r)
{
    uintptr_t page;
    nt_status st = NT_OK;
    while (st == NT_OK && nt_page_walk_next(w, &page, c->acc + c->n * (size_t)c->nnodes)) {
        const int64_t *a = c->acc + c->n * (size_t)c->nnodes;
        int holders = 0;
        for (int k = 0; k < c->nnodes; k++)
            holders += a[k] > 0;
        r->pages_shared += holders > 1;
        r->pages++;
        c->pages[c->n] = (void *)page;
        c->tgt[c->n++] = nt_page_best_node(a, c->nnodes);
        if (c->n == c->cap)
            st = chunk_place(c, flags, r);
    }
    if (st == NT_OK && w->failed)
        st = NT_ENOMEM;
    if (st == NT_OK && c->n > 0)
        st = chunk_place(c, flags, r);
    return st;
}

// Transparent huge pages move whole (move_pages migrates the compound page of any address in
// it), so one holding elements of several nodes cannot be split among them: advise the
// matrix's pages against new ones (the application's VMAs get the flag; only advice). Huge
// pages that already back the array stay; the final count reports what they leave remote.
static void advise_no_huge(const nt_matrix_t *A)
{
    size_t pg = nt_mem_page_size();
    int64_t n = A->layout == NT_LAYOUT_LAPACK ? 1 : A->mt * A->nt;
    for (int64_t t = 0; t < n; t++) {
        int64_t i = A->layout == NT_LAYOUT_LAPACK ? A->mt - 1 : t / A->nt;
        int64_t j = A->layout == NT_LAYOUT_LAPACK ? A->nt - 1 : t % A->nt;
        // LAPACK: from the first element to the end of the last tile, the whole array.
        uintptr_t lo = (uintptr_t)A->tile[t] / pg * pg;
        uintptr_t hi = (uintptr_t)nt_matrix_tile(A, i, j) +
                       (uintptr_t)((nt_matrix_tile_cols(A, j) - 1) * nt_matrix_tile_ld(A, i, j) +
                                   nt_matrix_tile_rows(A, i)) * A->elem_size;
        (void)madvise((void *)lo, (hi - lo + pg - 1) / pg * pg, MADV_NOHUGEPAGE);
    }
}

nt_status nt_matrix_advise_no_huge(const nt_matrix_t *A)
{
    advise_no_huge(A);
    return NT_OK;
}

// One walk over every page with a fresh chunk: moving (flags without NT_PLACE_QUERY) or
// counting where the pages are.
static nt_status place_pass(const nt_matrix_t *A, unsigned flags, nt_place_report_t *r,
                            int64_t *scratch)
{
    nt_page_walk_t w;
    nt_status st = nt_page_walk_init(&w, A);
    if (st)
        return st;
    chunk c;
    int64_t cbytes = 0;
    st = chunk_alloc(&c, chunk_pages(A), w.nnodes, &cbytes);
    if (st == NT_OK)
        st = place_walk(&w, &c, flags, r);
    *scratch = cbytes + (int64_t)w.scratch;
    chunk_free(&c);
    nt_page_walk_free(&w);
    return st;
}

nt_status nt_matrix_place(nt_matrix_t *A, unsigned flags, nt_place_report_t *rep)
{
    nt_status st = check_place_args("nt_matrix_place", A);
    if (st)
        return st;
    if (flags & ~(unsigned)(NT_PLACE_QUERY | NT_PLACE_STRICT))
        return nt_fail(NT_EINVAL, "nt_matrix_place: unknown flags 0x%x", flags);
    double t0 = nt_now();
    int64_t scratch = 0;
    nt_place_report_t moved = {0};
    if (!(flags & NT_PLACE_QUERY)) {
        advise_no_huge(A);
        st = place_pass(A, flags & NT_PLACE_STRICT, &moved, &scratch);
    }
    // Where every page is now, counted again: a huge page moved for one page of a chunk moves
    // pages counted in earlier chunks too.
    nt_place_report_t r = {.bytes = (int64_t)((size_t)A->m * (size_t)A->n * A->elem_size)};
    int64_t scratch2 = 0;
    if (st == NT_OK)
        st = place_pass(A, NT_PLACE_QUERY, &r, &scratch2);
    if (st)
        return st;
    if (!(flags & NT_PLACE_QUERY)) {
        r.pages_failed = r.pages - r.pages_already - r.pages_absent;
        r.pages_already = moved.pages_already;
        r.pages_moved = moved.pages_moved;
        r.first_error = moved.first_error;
    }
    if ((flags & NT_PLACE_STRICT) && r.pages_failed > 0)
        return nt_fail(NT_ESYS, "nt_matrix_place: %lld pages are not on their node (%s)",
                       (long long)r.pages_failed,
                       r.first_error ? strerror(r.first_error) : "a huge page moved whole");
    r.peak_extra_bytes = scratch > scratch2 ? scratch : scratch2;
    r.bytes_moved = r.pages_moved * (int64_t)nt_mem_page_size();
    r.local_fraction = r.bytes > 0 ? (double)r.bytes_local / (double)r.bytes : 1.0;
    r.nnodes = nt_numa_node_count() < 64 ? nt_numa_node_count() : 64;
    r.seconds = nt_now() - t0;
    if (rep)
        *rep = r;
    return NT_OK;
}
