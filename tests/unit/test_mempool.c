// Memory pools (numatile/pool.h): a matrix destroyed into a pool gives its memory to the next
// one without page faults (counted with getrusage's minor faults), the memory handed out is
// zero, redistributions into pool-backed targets are exact (pattern check) and report where
// their bytes came from, and failures keep the pool's memory.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include "numatile.h"
#include "numa/nt_numa.h"

static nt_topo_t *topo;

static void setup(void)
{
    nt_topo_opts_t o = {.domains = 4};
    cr_assert_eq(nt_topo_load(&o, &topo), NT_OK, "%s", nt_last_error());
}

static void teardown(void)
{
    nt_topo_destroy(topo);
}

TestSuite(mempool, .init = setup, .fini = teardown);

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static nt_matrix_t *pooled(const char *spec, int64_t n, int64_t nb, nt_layout lay,
                           nt_mempool_t *pool)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, 8};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, spec, 0, lay, NT_MATRIX_NOALLOC, &A), NT_OK,
                 "%s", nt_last_error());
    cr_assert_eq(nt_matrix_set_pool(A, pool), NT_OK, "%s", nt_last_error());
    return A;
}

static int64_t nonzero_elements(const nt_matrix_t *A)
{
    int64_t nz = 0;
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            nz += *(const uint64_t *)nt_matrix_elem(A, r, c) != 0;
    return nz;
}

Test(mempool, a_second_matrix_reuses_the_first_ones_pages)
{
    nt_mempool_t *pool;
    cr_assert_eq(nt_mempool_create(topo, &pool), NT_OK);
    nt_matrix_t *A = pooled("bc2d:2x2", 1024, 128, NT_LAYOUT_SCALAPACK, pool);
    cr_assert_eq(nt_matrix_alloc(A), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_fill_pattern(A, 3), NT_OK);
    nt_matrix_destroy(A);
    size_t held = 0;
    for (int d = 0; d < 4; d++) {
        size_t b;
        cr_assert_eq(nt_mempool_bytes(pool, d, &b), NT_OK);
        cr_assert_geq(b, (size_t)512 * 512 * 8, "domain %d holds %zu bytes", d, b);
        held += b;
    }
    // Another layout and tile size, same bytes per domain: served by the pool, zeroed.
    nt_matrix_t *B = pooled("bc1d:4", 1024, 256, NT_LAYOUT_TILE, pool);
    long f0 = minor_faults();
    cr_assert_eq(nt_matrix_alloc(B), NT_OK, "%s", nt_last_error());
    long faults = minor_faults() - f0;
    size_t pages = (size_t)1024 * 1024 * 8 / nt_mem_page_size();
    cr_assert_lt((size_t)faults, pages / 10, "%ld page faults for %zu pages", faults, pages);
    cr_assert_eq(nonzero_elements(B), 0, "pool memory handed out dirty");
    size_t left = 0;
    for (int d = 0; d < 4; d++) {
        size_t b;
        nt_mempool_bytes(pool, d, &b);
        left += b;
    }
    cr_assert_lt(left, held);
    nt_placement_report_t rep;
    cr_assert_eq(nt_matrix_check_placement(B, &rep), NT_OK);
    cr_assert_eq(rep.elsewhere, 0);
    nt_matrix_destroy(B);
    nt_mempool_destroy(pool);
}

// Repeated redistributions into new pool-backed targets: exact, and from the second round on
// the target's bytes come from the pool.
Test(mempool, repeated_redistributions_take_the_pools_memory)
{
    nt_mempool_t *pool;
    cr_assert_eq(nt_mempool_create(topo, &pool), NT_OK);
    nt_matrix_shape_t a = {600, 500, 8, 8, 8};
    nt_matrix_t *S;
    cr_assert_eq(nt_matrix_create_spec(topo, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK, 0, &S),
                 NT_OK);
    cr_assert_eq(nt_matrix_fill_pattern(S, 9), NT_OK);
    for (int round = 0; round < 3; round++) {
        nt_matrix_t *T;
        nt_matrix_shape_t b = {600, 500, 12, 12, 8};
        cr_assert_eq(nt_matrix_create_spec(topo, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                           NT_MATRIX_NOALLOC, &T), NT_OK);
        cr_assert_eq(nt_matrix_set_pool(T, pool), NT_OK);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
        nt_exec_stats_t st;
        cr_assert_eq(nt_plan_execute(p, S, T, NULL, &st), NT_OK, "%s", nt_last_error());
        int64_t bad;
        cr_assert_eq(nt_matrix_check_pattern(T, 9, 0, 0, 600, 500, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0);
        int64_t bytes = (int64_t)600 * 500 * 8;
        cr_assert_geq(st.bytes_alloc_fresh + st.bytes_alloc_pooled, bytes);
        if (round == 0) {
            cr_assert_eq(st.bytes_alloc_pooled, 0);
        } else {
            cr_assert_eq(st.bytes_alloc_fresh, 0, "round %d: %lld fresh bytes", round,
                         (long long)st.bytes_alloc_fresh);
            cr_assert_eq(st.fault_seconds, 0);
        }
        nt_exec_stats_free(&st);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
    }
    nt_matrix_destroy(S);
    nt_mempool_destroy(pool);
}

// Redistributions with a submatrix into pooled targets whose memory an earlier matrix left
// full of nonzero values: the submatrix holds the source, everything else is zero. Pool memory
// under the submatrix is not zeroed first (the copies overwrite it), so this checks that
// exactly the right bytes are skipped, in both layouts (tiles of 8 KiB and more are runs of
// their own), for whole matrices, whole columns and rectangles that cut every column.
Test(mempool, pooled_targets_are_zero_outside_the_submatrix)
{
    uint64_t x = 12345;
    for (int round = 0; round < 60; round++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t r = x >> 11;
        // Rounds 36.. and every fourth before: large enough for a domain's memory to span
        // several of the pieces the zeroing is shared out in (1 MiB), so that piece boundaries
        // fall inside kept columns and the gaps between them; from 36 on ScaLAPACK local
        // matrices cut by a rectangle.
        bool big = round % 4 == 3 || round >= 36;
        nt_layout lay = round % 2 && round < 36 ? NT_LAYOUT_TILE : NT_LAYOUT_SCALAPACK;
        int64_t n = (big ? 1100 : 200) + (int64_t)(r % 180);
        int64_t nbs = 16 + (int64_t)(r / 180 % 40);
        int64_t nbt = 32 + (int64_t)(r / 7200 % 40);
        int kind = round < 36 ? round % 3 : 2;
        const char *grid = kind == 2 && round % 2 == 0 ? "bc2d:2x2" : "bc2d:4x1";
        int64_t rows = n, cols = n, sr = 0, sc = 0, dr = 0, dc = 0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        r = x >> 11;
        if (kind == 1) { // whole columns of the target
            cols = 1 + (int64_t)(r % (uint64_t)(n - 1));
            sc = (int64_t)(r / 1000 % (uint64_t)(n - cols + 1));
            dc = (int64_t)(r / 7000 % (uint64_t)(n - cols + 1));
        } else if (kind == 2) { // a rectangle cutting columns
            rows = 1 + (int64_t)(r % (uint64_t)(n - 1));
            cols = 1 + (int64_t)(r / 1000 % (uint64_t)(n - 1));
            sr = (int64_t)(r / 7000 % (uint64_t)(n - rows + 1));
            dr = (int64_t)(r / 13000 % (uint64_t)(n - rows + 1));
            sc = (int64_t)(r / 91000 % (uint64_t)(n - cols + 1));
            dc = (int64_t)(r / 170000 % (uint64_t)(n - cols + 1));
        }
        nt_mempool_t *pool;
        cr_assert_eq(nt_mempool_create(topo, &pool), NT_OK);
        nt_matrix_t *D = pooled(grid, n, nbt, lay, pool);
        cr_assert_eq(nt_matrix_alloc(D), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_matrix_fill_pattern(D, 99), NT_OK);
        nt_matrix_destroy(D);
        nt_matrix_shape_t sh = {n, n, nbs, nbs, 8};
        nt_matrix_t *S, *T = pooled(grid, n, nbt, lay, pool);
        cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc2d:2x2", 0, lay, 0, &S), NT_OK);
        cr_assert_eq(nt_matrix_fill_pattern(S, 5), NT_OK);
        nt_sub_t sub = {rows, cols, sr, sc, dr, dc};
        nt_plan_t *p;
        nt_exec_stats_t st;
        cr_assert_eq(nt_plan_create(S, T, &sub, NULL, &p), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_plan_execute(p, S, T, NULL, &st), NT_OK, "%s", nt_last_error());
        cr_assert_gt(st.bytes_alloc_pooled, st.bytes_alloc_fresh, "round %d: %lld bytes from "
                     "the pool, %lld fresh", round, (long long)st.bytes_alloc_pooled,
                     (long long)st.bytes_alloc_fresh);
        int64_t bad = -1, dirty = 0;
        cr_assert_eq(nt_matrix_check_pattern(T, 5, dr, dc, rows, cols, sr - dr, sc - dc, &bad),
                     NT_OK);
        cr_assert_eq(bad, 0, "round %d: %lld elements of the submatrix wrong", round,
                     (long long)bad);
        for (int64_t c = 0; c < n; c++)
            for (int64_t i = 0; i < n; i++) {
                bool in = i >= dr && i < dr + rows && c >= dc && c < dc + cols;
                dirty += !in && *(const uint64_t *)nt_matrix_elem(T, i, c) != 0;
            }
        cr_assert_eq(dirty, 0, "round %d (n %lld, nb %lld, %s, sub %lld x %lld at %lld,%lld): "
                     "%lld elements outside the submatrix not zero", round, (long long)n,
                     (long long)nbt, lay == NT_LAYOUT_TILE ? "tile" : "scalapack",
                     (long long)rows, (long long)cols, (long long)dr, (long long)dc,
                     (long long)dirty);
        nt_exec_stats_free(&st);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
        nt_mempool_destroy(pool);
    }
}

// Allocation failing at every point: the matrix stays without memory and the pool ends with
// at least what it had (blocks taken before the failure come back).
Test(mempool, failed_allocations_keep_the_pools_memory)
{
    nt_mempool_t *pool;
    cr_assert_eq(nt_mempool_create(topo, &pool), NT_OK);
    nt_matrix_t *A = pooled("bc2d:2x2", 512, 64, NT_LAYOUT_SCALAPACK, pool);
    cr_assert_eq(nt_matrix_alloc(A), NT_OK);
    nt_matrix_destroy(A);
    size_t before = 0, b;
    for (int d = 0; d < 4; d++) {
        nt_mempool_bytes(pool, d, &b);
        before += b;
    }
    // Twice the memory: part from the pool, part fresh, which is made to fail.
    for (int64_t k = 0;; k++) {
        nt_matrix_t *B = pooled("random:5", 1024, 100, NT_LAYOUT_TILE, pool);
        nt_mem_test_fail_after(k);
        nt_status st = nt_matrix_alloc(B);
        nt_mem_test_fail_after(-1);
        if (st == NT_OK) {
            nt_matrix_destroy(B);
            break;
        }
        cr_assert_eq(st, NT_ENOMEM, "%s", nt_last_error());
        cr_assert(!B->allocated);
        nt_matrix_destroy(B);
        size_t now = 0;
        for (int d = 0; d < 4; d++) {
            nt_mempool_bytes(pool, d, &b);
            now += b;
        }
        cr_assert_geq(now, before, "k = %lld: the pool lost memory", (long long)k);
    }
    nt_mempool_destroy(pool);
}

Test(mempool, bad_input_is_refused)
{
    nt_mempool_t *pool;
    size_t b;
    cr_assert_eq(nt_mempool_create(NULL, &pool), NT_EINVAL);
    cr_assert_eq(nt_mempool_create(topo, NULL), NT_EINVAL);
    cr_assert_eq(nt_mempool_create(topo, &pool), NT_OK);
    cr_assert_eq(nt_mempool_bytes(pool, 4, &b), NT_EINVAL);
    cr_assert_eq(nt_mempool_bytes(pool, -1, &b), NT_EINVAL);
    cr_assert_eq(nt_mempool_bytes(NULL, 0, &b), NT_EINVAL);
    cr_assert_eq(nt_matrix_set_pool(NULL, pool), NT_EINVAL);
    nt_matrix_shape_t sh = {64, 64, 8, 8, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(topo, &sh, "bc1d:2", 0, NT_LAYOUT_TILE, 0, &A), NT_OK);
    cr_assert_eq(nt_matrix_set_pool(A, pool), NT_EINVAL, "a matrix with memory");
    nt_matrix_destroy(A);
    nt_topo_t *other, *syn;
    nt_topo_opts_t o = {.domains = 4};
    cr_assert_eq(nt_topo_load(&o, &other), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(other, &sh, "bc1d:2", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_OK);
    cr_assert_eq(nt_matrix_set_pool(A, pool), NT_EINVAL, "a pool of another topology");
    nt_matrix_destroy(A);
    nt_topo_opts_t so = {.synthetic = "pack:2 core:2 pu:1"};
    cr_assert_eq(nt_topo_load(&so, &syn), NT_OK, "%s", nt_last_error());
    nt_mempool_t *q;
    cr_assert_eq(nt_mempool_create(syn, &q), NT_ENOTSUP);
    nt_topo_destroy(syn);
    nt_topo_destroy(other);
    nt_mempool_destroy(pool);
    nt_mempool_destroy(NULL);
}
