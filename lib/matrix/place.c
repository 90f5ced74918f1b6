// Where a matrix's pages are, page by page, for layouts whose pages may hold elements of
// several owners (LAPACK, wrapped memory): each page belongs on the node whose domains own
// most of its bytes.
#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_matrix.h"

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
