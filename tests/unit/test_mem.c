// Machine layer: node-bound allocation, page-location histograms, page migration.
// Oracle: move_pages(2) status queries made directly by the test.
#include <criterion/criterion.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "numa/nt_numa.h"
#include "lib/matrix/nt_matrix.h"

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

// The VmFlags of the mapping that contains p (/proc/self/smaps), into flags.
static bool vm_flags(const void *p, char *flags, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false, found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && !strncmp(line, "VmFlags:", 8)) {
            snprintf(flags, len, "%s", line + 8);
            found = true;
        }
    }
    if (f)
        fclose(f);
    return found;
}

// Whether this kernel has transparent huge pages at all (else madvise refuses the advice).
static bool thp_available(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char s[128] = "";
    if (f) {
        if (!fgets(s, sizeof s, f))
            s[0] = 0;
        fclose(f);
    }
    return f && !strstr(s, "[never]");
}

// Every page of [p, p+bytes) on domain d's node, by direct move_pages queries.
static void assert_on_domain(void *p, size_t bytes, int d)
{
    nt_domain_info_t info;
    nt_topo_domain(topo, d, &info);
    int64_t per_node[64] = {0}, absent = 0;
    direct_nodes(p, bytes, per_node, &absent);
    cr_assert_eq(absent, 0);
    cr_assert_eq(per_node[info.node], (int64_t)(bytes / nt_mem_page_size()));
}

// With NT_MEM_HUGE_PAGES, buffers of 2 MiB or more carry the huge-page advice (VmFlags "hg"),
// smaller ones and buffers without the flag do not, and the pages still land on the domain's
// node; a matrix's memory asks for it.
Test(mem, large_buffers_are_advised_huge_pages)
{
    if (!thp_available())
        cr_skip("no transparent huge pages in this kernel");
    size_t big = (size_t)4 << 20, small = (size_t)1 << 20;
    void *p = NULL, *q = NULL, *r = NULL;
    cr_assert_eq(nt_mem_alloc(topo, 1, big, NT_MEM_HUGE_PAGES, &p), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_mem_alloc(topo, 1, small, NT_MEM_HUGE_PAGES, &q), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_mem_alloc(topo, 1, big, 0, &r), NT_OK, "%s", nt_last_error());
    char fp[512], fq[512], fr[512];
    cr_assert(vm_flags(p, fp, sizeof fp) && vm_flags(q, fq, sizeof fq) &&
                  vm_flags(r, fr, sizeof fr),
              "no smaps entry");
    cr_assert(strstr(fp, " hg"), "4 MiB buffer without the huge-page advice: %s", fp);
    cr_assert(!strstr(fq, " hg"), "1 MiB buffer with the huge-page advice: %s", fq);
    cr_assert(!strstr(fr, " hg"), "advice without NT_MEM_HUGE_PAGES: %s", fr);
    nt_mem_free(r, big);
    nt_matrix_shape_t sh = {1024, 1024, 1024, 1024, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:1x1", 0, NT_LAYOUT_SCALAPACK, 0, &A),
                 NT_OK, "%s", nt_last_error());
    char fa[512];
    // Its middle: the local matrix need not be whole huge pages, so its ends may be off them.
    cr_assert(vm_flags(A->mem->local[0] + A->mem->local_bytes[0] / 2, fa, sizeof fa),
              "no smaps entry for the matrix");
    cr_assert(strstr(fa, " hg"), "an 8 MiB local matrix without the advice: %s", fa);
    nt_matrix_destroy(A);
    assert_on_domain(p, big, 1);
    nt_mem_free(p, big);
    nt_mem_free(q, small);
}

// Each end of [p, p+bytes) that is not on a 2 MiB boundary is advised against huge pages.
static void assert_ends_not_huge(const void *p, size_t bytes)
{
    const size_t H = (size_t)2 << 20;
    const char *end[2] = {(const char *)p, (const char *)p + bytes - 1};
    bool on[2] = {(uintptr_t)p % H == 0, ((uintptr_t)p + bytes) % H == 0};
    char f[512] = "";
    for (int k = 0; k < 2; k++)
        cr_assert(on[k] || (vm_flags(end[k], f, sizeof f) && strstr(f, " nh")),
                  "end %d of %zu bytes at %p: %s", k, bytes, p, f);
}

// No huge page is shared by two mappings (nt_mem_migrate moves huge pages whole): a huge-page
// buffer of whole huge pages starts on a 2 MiB boundary and is advised throughout (VmFlags
// "hg"); one of another length is advised on the whole huge pages inside it and against them
// ("nh") at both ends, like a buffer too small for one and, at its ends off a boundary, a
// buffer without the flag; the pages land on the domain's node all the same.
Test(mem, huge_pages_stay_inside_their_mapping)
{
    if (!thp_available())
        cr_skip("no transparent huge pages in this kernel");
    unsetenv("NT_NO_HUGEPAGES");
    size_t H = (size_t)2 << 20, whole = 2 * H, odd = 3 * H + (768 << 10), small = (size_t)1 << 20;
    void *p = NULL, *o = NULL, *q = NULL, *r = NULL;
    cr_assert_eq(nt_mem_alloc(topo, 1, whole, NT_MEM_HUGE_PAGES, &p), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_mem_alloc(topo, 1, odd, NT_MEM_HUGE_PAGES, &o), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_mem_alloc(topo, 1, small, NT_MEM_HUGE_PAGES, &q), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_mem_alloc(topo, 1, odd, 0, &r), NT_OK, "%s", nt_last_error());
    cr_assert_eq((uintptr_t)p % H, 0, "whole huge pages at %p, not on a 2 MiB boundary", p);
    char f[512];
    cr_assert(vm_flags(p, f, sizeof f) && strstr(f, " hg"), "whole huge pages: %s", f);
    cr_assert(vm_flags((char *)p + whole - 1, f, sizeof f) && strstr(f, " hg"), "%s", f);
    // The odd one: its first whole huge page hg, its ends off a boundary nh; the same ends of
    // a buffer without the flag.
    uintptr_t lo = ((uintptr_t)o + H - 1) / H * H;
    cr_assert(vm_flags((char *)lo, f, sizeof f) && strstr(f, " hg"), "inside: %s", f);
    assert_ends_not_huge(o, odd);
    assert_ends_not_huge(r, odd);
    cr_assert(vm_flags(q, f, sizeof f) && strstr(f, " nh"), "a 1 MiB buffer: %s", f);
    assert_on_domain(o, odd, 1);
    nt_mem_free(p, whole);
    nt_mem_free(o, odd);
    nt_mem_free(q, small);
    nt_mem_free(r, odd);
}

// NT_NO_HUGEPAGES=1 (read at the process's first allocation; each test is its own process).
Test(mem, no_hugepages_leaves_the_advice_out)
{
    setenv("NT_NO_HUGEPAGES", "1", 1);
    size_t big = (size_t)4 << 20;
    void *p = NULL;
    cr_assert_eq(nt_mem_alloc(topo, 0, big, NT_MEM_HUGE_PAGES, &p), NT_OK, "%s",
                 nt_last_error());
    char fp[512];
    cr_assert(vm_flags(p, fp, sizeof fp), "no smaps entry");
    cr_assert(!strstr(fp, " hg"), "advised despite NT_NO_HUGEPAGES=1: %s", fp);
    nt_mem_free(p, big);
}
