// Machine layer: node-bound allocation, page-location histograms, page migration.
// Oracle: move_pages(2) status queries made directly by the test.
#include <criterion/criterion.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "../../numa/nt_numa.h"

static nt_topo_t *topo;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 3};
    cr_assert_eq(nt_topo_load(&o, &topo), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_mem_test_fail_after(-1);
    nt_topo_destroy(topo);
}

// Node of every page of [p, p+bytes) by a direct move_pages query.
static void direct_nodes(void *p, size_t bytes, int64_t *per_node, int64_t *absent)
{
    size_t pg = nt_mem_page_size(), n = (bytes + pg - 1) / pg;
    void **pages = malloc(n * sizeof *pages);
    int *status = malloc(n * sizeof *status);
    for (size_t k = 0; k < n; k++)
        pages[k] = (char *)p + k * pg;
    cr_assert_eq(move_pages(0, n, pages, NULL, status, 0), 0);
    for (size_t k = 0; k < n; k++) {
        if (status[k] == -ENOENT)
            (*absent)++;
        else {
            cr_assert_geq(status[k], 0);
            per_node[status[k]]++;
        }
    }
    free(pages);
    free(status);
}

TestSuite(mem, .init = setup, .fini = teardown);

Test(mem, alloc_places_every_page_on_the_domain_node)
{
    size_t sizes[] = {1, 4096, 4097, 1 << 20, (3 << 20) + 123};
    for (int d = 0; d < nt_topo_ndomains(topo); d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            void *p = NULL;
            cr_assert_eq(nt_mem_alloc(topo, d, sizes[s], NT_MEM_STRICT, &p), NT_OK, "%s",
                         nt_last_error());
            cr_assert_eq((uintptr_t)p % nt_mem_page_size(), 0, "page aligned");
            for (size_t k = 0; k < sizes[s]; k++)
                cr_assert_eq(((unsigned char *)p)[k], 0, "zero-filled");
            memset(p, 0xab, sizes[s]);
            nt_page_hist_t h;
            cr_assert_eq(nt_mem_where(p, sizes[s], &h), NT_OK);
            int64_t want = (int64_t)((sizes[s] + 4095) / 4096);
            cr_assert_eq(h.pages, want);
            cr_assert_eq(h.per_node[info.node], want);
            cr_assert_eq(h.absent + h.errors, 0);
            int64_t direct[64] = {0}, absent = 0;
            direct_nodes(p, sizes[s], direct, &absent);
            cr_assert_eq(direct[info.node], want);
            for (int n = 0; n < h.nnodes; n++)
                cr_assert_eq(h.per_node[n], direct[n]);
            nt_mem_free(p, sizes[s]);
        }
    }
}

Test(mem, notouch_leaves_pages_absent_until_written)
{
    size_t bytes = 8 * nt_mem_page_size();
    void *p;
    cr_assert_eq(nt_mem_alloc(topo, 0, bytes, NT_MEM_NOTOUCH, &p), NT_OK);
    nt_page_hist_t h;
    cr_assert_eq(nt_mem_where(p, bytes, &h), NT_OK);
    cr_assert_eq(h.pages, 8);
    cr_assert_eq(h.absent, 8);
    ((char *)p)[0] = 1;
    ((char *)p)[5 * nt_mem_page_size()] = 1;
    cr_assert_eq(nt_mem_where(p, bytes, &h), NT_OK);
    cr_assert_eq(h.absent, 6);
    // An unaligned sub-range widens to its pages.
    cr_assert_eq(nt_mem_where((char *)p + 10, nt_mem_page_size(), &h), NT_OK);
    cr_assert_eq(h.pages, 2);
    nt_mem_free(p, bytes);
}

// With one node, migration to it is a no-op whose accounting must still be exact.
Test(mem, migrate_to_same_node_is_accounted)
{
    nt_domain_info_t info;
    nt_topo_domain(topo, 1, &info);
    size_t pg = nt_mem_page_size(), bytes = 10 * pg;
    void *p;
    cr_assert_eq(nt_mem_alloc(topo, 1, bytes, NT_MEM_NOTOUCH, &p), NT_OK);
    for (int k = 0; k < 7; k++)
        ((char *)p)[k * pg] = (char)k;
    nt_migrate_report_t r;
    cr_assert_eq(nt_mem_migrate(p, bytes, info.node, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq(r.pages, 10);
    cr_assert_eq(r.already, 7);
    cr_assert_eq(r.absent, 3);
    cr_assert_eq(r.moved, 0);
    cr_assert_eq(r.failed, 0);
    cr_assert_eq(r.first_error, 0);
    for (int k = 0; k < 7; k++)
        cr_assert_eq(((char *)p)[k * pg], (char)k, "contents kept");
    nt_mem_free(p, bytes);
}

Test(mem, errors_name_the_argument)
{
    void *p = (void *)0x1;
    cr_assert_eq(nt_mem_alloc(NULL, 0, 64, 0, &p), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc(topo, 0, 64, 0, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc(topo, -1, 64, 0, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "domain"));
    cr_assert_eq(nt_mem_alloc(topo, 3, 64, 0, &p), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc(topo, 0, 0, 0, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "bytes"));
    cr_assert_eq(nt_mem_alloc(topo, 0, 64, 0x80, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "flags"));
    cr_assert_eq(nt_mem_alloc(topo, 0, SIZE_MAX - 5, 0, &p), NT_ERANGE);
    cr_assert_eq(nt_mem_alloc(topo, 0, SIZE_MAX / 2, NT_MEM_NOTOUCH, &p), NT_ENOMEM);
    cr_assert_eq(p, (void *)0x1, "out untouched on failure");

    nt_page_hist_t h;
    char buf[16];
    cr_assert_eq(nt_mem_where(NULL, 16, &h), NT_EINVAL);
    cr_assert_eq(nt_mem_where(buf, 16, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_where(buf, 0, &h), NT_EINVAL);
    cr_assert_eq(nt_mem_where((void *)(UINTPTR_MAX - 8), 64, &h), NT_ERANGE);

    nt_migrate_report_t r;
    cr_assert_eq(nt_mem_migrate(NULL, 16, 0, &r), NT_EINVAL);
    cr_assert_eq(nt_mem_migrate(buf, 16, 0, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_migrate(buf, 0, 0, &r), NT_EINVAL);
    if (numa_available() >= 0) {
        cr_assert_eq(nt_mem_migrate(buf, 16, -1, &r), NT_EINVAL);
        cr_assert_eq(nt_mem_migrate(buf, 16, numa_max_node() + 1, &r), NT_EINVAL);
        cr_assert(strstr(nt_last_error(), "node"));
    }
    nt_mem_free(NULL, 16);
}

Test(mem, injected_failure_fires_after_n_allocations)
{
    void *a, *b, *c;
    nt_mem_test_fail_after(2);
    cr_assert_eq(nt_mem_alloc(topo, 0, 100, 0, &a), NT_OK);
    cr_assert_eq(nt_mem_alloc(topo, 1, 100, 0, &b), NT_OK);
    cr_assert_eq(nt_mem_alloc(topo, 2, 100, 0, &c), NT_ENOMEM);
    cr_assert(strstr(nt_last_error(), "injected"));
    nt_mem_test_fail_after(-1);
    cr_assert_eq(nt_mem_alloc(topo, 2, 100, 0, &c), NT_OK);
    nt_mem_free(a, 100);
    nt_mem_free(b, 100);
    nt_mem_free(c, 100);
}
