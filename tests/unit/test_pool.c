// Per-domain pools of page-aligned runs (lib/matrix/nt_pool.h): coalescing, best-fit carving, reuse
// without page faults (oracle: the process's minor-fault counter), fresh allocation.
#include <criterion/criterion.h>
#include <string.h>
#include <sys/resource.h>

#include "numatile.h"
#include "lib/matrix/nt_pool.h"
#include "numa/nt_numa.h"

static nt_topo_t *topo;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 2};
    cr_assert_eq(nt_topo_load(&o, &topo), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_mem_test_fail_after(-1);
    nt_topo_destroy(topo);
}

TestSuite(pool, .init = setup, .fini = teardown);

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

// Pieces given back in any order merge into one run; a take carves from the best fit.
Test(pool, coalesce_and_carve)
{
    size_t pg = nt_mem_page_size();
    char *a;
    cr_assert_eq(nt_mem_alloc(topo, 1, 8 * pg, 0, (void **)&a), NT_OK);
    nt_pool_t *p;
    cr_assert_eq(nt_pool_create(2, &p), NT_OK);
    int order[8] = {3, 0, 7, 5, 1, 6, 2, 4};
    for (int k = 0; k < 8; k++)
        cr_assert_eq(nt_pool_give(p, 1, a + (size_t)order[k] * pg, pg), NT_OK);
    cr_assert_eq(nt_pool_runs(p, 1), 1);
    cr_assert_eq(nt_pool_bytes(p, 1), 8 * pg);
    cr_assert_eq(nt_pool_give(p, 1, a + 2 * pg, pg), NT_EINVAL, "given twice");
    cr_assert_eq(nt_pool_bytes(p, 1), 8 * pg);
    cr_assert_eq(nt_pool_runs(p, 0), 0);
    cr_assert_null(nt_pool_take(p, 0, pg), "domain 0's pool is empty");
    cr_assert_null(nt_pool_take(p, 1, 9 * pg));
    char *x = nt_pool_take(p, 1, 3 * pg - 100); // rounded up to 3 pages
    cr_assert_eq(x, a);
    cr_assert_eq(nt_pool_bytes(p, 1), 5 * pg);
    // Give back a piece that is not adjacent: two runs; best fit picks the smaller one.
    cr_assert_eq(nt_pool_give(p, 1, a, pg), NT_OK);
    cr_assert_eq(nt_pool_runs(p, 1), 2);
    cr_assert_eq(nt_pool_take(p, 1, pg), a, "best fit: the one-page run");
    cr_assert_eq(nt_pool_take(p, 1, 5 * pg), a + 3 * pg);
    cr_assert_eq(nt_pool_runs(p, 1), 0);
    // The pieces are valid nt_mem_free ranges: give everything back and unmap it.
    cr_assert_eq(nt_pool_give(p, 1, a, 8 * pg), NT_OK);
    nt_pool_destroy(p, true);
}

// A run that was faulted in is reused without page faults; a fresh block pays one per page.
Test(pool, reuse_without_page_faults)
{
    size_t pg = nt_mem_page_size(), n = 256, bytes = n * pg;
    nt_pool_t *p;
    cr_assert_eq(nt_pool_create(2, &p), NT_OK);
    void *a, *b;
    bool fresh;
    long f0 = minor_faults();
    cr_assert_eq(nt_pool_get(p, topo, 0, bytes, &a, &fresh), NT_OK);
    long f1 = minor_faults();
    cr_assert(fresh);
    cr_assert_geq(f1 - f0, (long)n / 2, "fresh: %ld faults for %zu pages", f1 - f0, n);
    cr_assert_eq(nt_pool_give(p, 0, a, bytes), NT_OK);
    long f2 = minor_faults();
    cr_assert_eq(nt_pool_get(p, topo, 0, bytes, &b, &fresh), NT_OK);
    cr_assert_not(fresh);
    cr_assert_eq(a, b);
    memset(b, 7, bytes);
    long f3 = minor_faults();
    cr_assert_leq(f3 - f2, 2, "recycled: %ld faults", f3 - f2);
    cr_assert_eq(nt_pool_give(p, 0, b, bytes), NT_OK);
    nt_pool_destroy(p, true);
}

// nt_pool_get reports the allocator's failure and keeps the pool as it was.
Test(pool, fresh_allocation_failure)
{
    nt_pool_t *p;
    cr_assert_eq(nt_pool_create(1, &p), NT_OK);
    void *a = NULL;
    bool fresh;
    nt_mem_test_fail_after(0);
    cr_assert_eq(nt_pool_get(p, topo, 0, 1, &a, &fresh), NT_ENOMEM);
    nt_mem_test_fail_after(-1);
    cr_assert_null(a);
    cr_assert_eq(nt_pool_bytes(p, 0), 0);
    cr_assert_eq(nt_pool_give(p, 0, NULL, 1), NT_EINVAL);
    cr_assert_eq(nt_pool_give(p, 5, &a, 1), NT_EINVAL);
    nt_pool_destroy(p, true);
    nt_pool_destroy(NULL, true);
}
