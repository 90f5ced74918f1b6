// Guest test of "bring your own memory" (numatile/wrap.h) on real NUMA nodes: an application's
// arrays wrapped, placed in place with nt_matrix_place(), or first-touched.
// Oracles, made here without numatile:
// - every page's node asked of the kernel (move_pages status queries, guest_common.h) against
//   the node computed here: a page-granular map puts all of its bytes on one owner; otherwise
//   the node owning most of the page's bytes, counted element by element;
// - the report's local fraction against the bytes counted here on each page's actual node;
// - the elements, which placement must not change, and GEMM and QR on the placed array against
//   the same on a numatile-owned copy.
// Also prints placement time beside copying the array into a new numatile matrix (same run).
#include <math.h>
#include <sys/mman.h>

#include "guest_common.h"
#include "numatile/wrap.h"

static int ndom;
static bool has_cpu[MAXN];

static double *fresh(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

// Node of each page of [a, a + bytes) by move_pages, into st[] (npages entries).
static bool query(const void *a, size_t npages, int *st)
{
    void **pages = malloc(npages * sizeof *pages);
    if (!pages)
        return false;
    for (size_t k = 0; k < npages; k++)
        pages[k] = (char *)a + k * pgsz;
    bool ok = syscall(SYS_move_pages, 0, (unsigned long)npages, pages, NULL, st, 0) == 0;
    free(pages);
    return ok;
}

// For a page-aligned LAPACK array: expected node of every page (most bytes; lowest node on a
// tie) and the bytes of every page on each node, counted element by element.
static void expect_lapack(const nt_matrix_t *A, int64_t lda, size_t npages, int *want,
                          int64_t *bytes_on /* npages x MAXN */)
{
    memset(bytes_on, 0, npages * MAXN * sizeof *bytes_on);
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++) {
            size_t off = (size_t)(r + c * lda) * 8;
            int d = A->owner[(r / A->mb) * A->nt + c / A->nb];
            bytes_on[off / pgsz * MAXN + (size_t)node_of[d]] += 8;
        }
    for (size_t k = 0; k < npages; k++) {
        want[k] = -1;
        for (int n = 0; n < MAXN; n++)
            if (bytes_on[k * MAXN + n] > 0 &&
                (want[k] < 0 || bytes_on[k * MAXN + n] > bytes_on[k * MAXN + want[k]]))
                want[k] = n;
    }
}

// Wrap an m x n LAPACK array (lda) of doubles, touched by this thread only, place it, and
// check every page and the report against the oracle.
// huge: leave the array open to transparent huge pages (the guests run THP "always"), which
// move whole: then only the report's honesty is checked, not where the pages went.
static void test_place(const nt_topo_t *t, const char *what, int64_t m, int64_t n, int64_t lda,
                       int64_t mb, int64_t nb, const char *spec, bool granular, bool huge)
{
    size_t bytes = (size_t)(lda * n) * 8, npages = (bytes + pgsz - 1) / pgsz;
    double *a = fresh(bytes);
    if (a && !huge) // what an application does for page-exact placement (guide, 7b)
        madvise(a, bytes, MADV_NOHUGEPAGE);
    nt_tilemap_t *map = NULL;
    nt_matrix_shape_t sh = {m, n, mb, nb, 8};
    nt_matrix_t *A = NULL;
    int nd = strncmp(spec, "random", 6) ? 0 : ndom;
    nt_status st = a ? nt_tilemap_from_spec(spec, (m + mb - 1) / mb, (n + nb - 1) / nb, nd, &map)
                     : NT_ENOMEM;
    if (st == NT_OK)
        st = nt_matrix_wrap_lapack(t, &sh, map, a, lda, &A);
    if (!check(st == NT_OK, "%s: wrap %lldx%lld lda %lld %s: %s", what, (long long)m,
               (long long)n, (long long)lda, spec, st ? nt_last_error() : "ok"))
        goto out;
    for (size_t x = 0; x < (size_t)(lda * n); x++)
        a[x] = (double)(x % 1000003);
    nt_place_report_t r;
    st = nt_matrix_place(A, 0, &r);
    int *want = malloc(npages * sizeof *want), *node = malloc(npages * sizeof *node);
    int64_t *bon = malloc(npages * MAXN * sizeof *bon);
    if (!check(st == NT_OK && want && node && bon && query(a, npages, node),
               "%s: place: %s", what, st ? nt_last_error() : "ok"))
        goto out2;
    expect_lapack(A, lda, npages, want, bon);
    int64_t right = 0, pages = 0, local = 0, here[MAXN] = {0}, off = 0;
    for (size_t k = 0; k < npages; k++) {
        if (want[k] < 0)
            continue; // padding only
        pages++;
        right += node[k] == want[k];
        off += node[k] >= 0 && node[k] != want[k];
        if (node[k] >= 0 && node[k] < MAXN) {
            local += bon[k * MAXN + node[k]];
            here[node[k]] += node[k] == want[k];
        }
    }
    if (right == pages)
        for (int d = 0; d < MAXN; d++)
            verified[d] += here[d];
    double frac = (double)local / (double)(m * n * 8);
    if (huge) {
        check(r.pages == pages && r.pages_failed == off && fabs(r.local_fraction - frac) < 1e-12,
              "%s, huge pages allowed: report matches the pages (%lld not on their node, "
              "report %lld; local fraction %.6f, oracle %.6f)", what, (long long)off,
              (long long)r.pages_failed, r.local_fraction, frac);
        goto out2;
    }
    check(right == pages && r.pages == pages && r.pages_failed == 0,
          "%s: %lld of %lld pages on the node owning most of their bytes (report: %lld pages, "
          "%lld moved, %lld failed)", what, (long long)right, (long long)pages,
          (long long)r.pages, (long long)r.pages_moved, (long long)r.pages_failed);
    check(fabs(r.local_fraction - frac) < 1e-12 && (!granular || r.local_fraction == 1.0) &&
              (!granular || r.pages_shared == 0),
          "%s: local fraction %.6f (oracle %.6f)%s, %lld pages shared", what, r.local_fraction,
          frac, granular ? ", page-granular: 1" : "", (long long)r.pages_shared);
    check(r.bytes_copied == 0 && r.peak_extra_bytes * 100 < (int64_t)bytes,
          "%s: bytes copied %lld, peak extra %lld bytes = %.3f%% of the array", what,
          (long long)r.bytes_copied, (long long)r.peak_extra_bytes,
          100.0 * (double)r.peak_extra_bytes / (double)bytes);
    bool same = true;
    for (size_t x = 0; x < (size_t)(lda * n) && same; x++)
        same = a[x] == (double)(x % 1000003);
    check(same, "%s: elements unchanged by placement", what);
out2:
    free(want);
    free(node);
    free(bon);
out:
    nt_matrix_destroy(A);
    nt_tilemap_destroy(map);
    if (a)
        munmap(a, bytes);
}

// An untouched array first-touched by bound threads: every page on its node, and only the
// pages of domains without cpus needed a migration.
static void test_first_touch(const nt_topo_t *t)
{
    int64_t m = 512, n = 64 * ndom, nb = 64; // one column = one page: page-granular
    size_t bytes = (size_t)(m * n) * 8, npages = bytes / pgsz;
    double *a = fresh(bytes);
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:1x%d", ndom);
    nt_tilemap_t *map = NULL;
    nt_matrix_shape_t sh = {m, n, m, nb, 8};
    nt_matrix_t *A = NULL;
    nt_status st = a ? nt_tilemap_from_spec(spec, 1, n / nb, 0, &map) : NT_ENOMEM;
    if (st == NT_OK)
        st = nt_matrix_wrap_lapack(t, &sh, map, a, m, &A);
    nt_place_report_t r;
    if (st == NT_OK)
        st = nt_matrix_first_touch(A, 1, &r);
    int *node = malloc(npages * sizeof *node);
    if (check(st == NT_OK && node && query(a, npages, node), "first touch: %s",
              st ? nt_last_error() : "ok")) {
        int64_t right = 0, cpuless = 0, absent = 0, on[MAXN] = {0};
        for (size_t k = 0; k < npages; k++) {
            int d = (int)(k / (size_t)nb) % ndom;
            right += node[k] == node_of[d];
            cpuless += !has_cpu[d];
            absent += node[k] < 0;
            if (node[k] >= 0 && node[k] < MAXN)
                on[node[k]]++;
        }
        check(right == (int64_t)npages && r.pages_moved <= cpuless && r.local_fraction == 1.0,
              "first touch: %lld of %zu pages on their node, %lld migrated (%lld on domains "
              "without cpus); report: %lld already, %lld absent; oracle: %lld absent, node0..3 "
              "%lld %lld %lld %lld", (long long)right, npages, (long long)r.pages_moved,
              (long long)cpuless, (long long)r.pages_already, (long long)r.pages_absent,
              (long long)absent, (long long)on[0], (long long)on[1], (long long)on[2],
              (long long)on[3]);
        bool zero = true;
        for (size_t x = 0; x < (size_t)(m * n) && zero; x++)
            zero = a[x] == 0.0;
        check(zero, "first touch: elements still zero");
    }
    free(node);
    nt_matrix_destroy(A);
    nt_tilemap_destroy(map);
    if (a)
        munmap(a, bytes);
}

// An m x n wrapped LAPACK array of doubles (lda = m, page-aligned, m a multiple of 512), nb x
// nb tiles whose tile columns are dealt to the domains (so each page, part of one column, has
// one owner), filled with small integers.
static nt_matrix_t *column_blocks(const nt_topo_t *t, int64_t m, int64_t n, int64_t nb,
                                  uint64_t seed, double **out, nt_tilemap_t **map)
{
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:1x%d", ndom);
    *out = fresh((size_t)(m * n) * 8);
    if (*out)
        madvise(*out, (size_t)(m * n) * 8, MADV_NOHUGEPAGE);
    nt_matrix_shape_t sh = {m, n, nb, nb, 8};
    nt_matrix_t *A = NULL;
    if (!*out ||
        nt_tilemap_from_spec(spec, (m + nb - 1) / nb, (n + nb - 1) / nb, 0, map) != NT_OK ||
        nt_matrix_wrap_lapack(t, &sh, *map, *out, m, &A) != NT_OK)
        return NULL;
    for (int64_t x = 0; x < m * n; x++)
        (*out)[x] = (double)((int64_t)(mix(seed + (uint64_t)x) % 15) - 7);
    return A;
}

// The numatile-owned TILE copy of a wrapped matrix under the same tiles and map.
static nt_matrix_t *owned_copy(const nt_topo_t *t, nt_matrix_t *W)
{
    nt_matrix_shape_t sh = {W->m, W->n, W->mb, W->nb, 8};
    nt_tilemap_t map = {.mt = W->mt, .nt = W->nt, .ndomains = W->ndomains, .owner = W->owner};
    nt_matrix_t *C = NULL;
    nt_plan_t *p = NULL;
    if (nt_matrix_create(t, &sh, &map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &C) ||
        nt_plan_create(W, C, NULL, NULL, &p) || nt_plan_execute(p, W, C, NULL, NULL)) {
        nt_matrix_destroy(C);
        C = NULL;
    }
    nt_plan_destroy(p);
    return C;
}

static bool equal(const nt_matrix_t *X, const double *a, double tol)
{
    for (int64_t c = 0; c < X->n; c++)
        for (int64_t r = 0; r < X->m; r++)
            if (fabs(*(const double *)nt_matrix_elem(X, r, c) - a[r + c * X->m]) > tol)
                return false;
    return true;
}

static bool all_cpu(void)
{
    for (int d = 0; d < ndom; d++)
        if (!has_cpu[d])
            return false;
    return true;
}

// GEMM and QR on placed wrapped arrays equal the same on owned copies; with every domain
// having cpus, every task runs on its owner.
static void test_kernels(const nt_topo_t *t)
{
    int64_t m = 512, k = 256, n = 64 * ndom, nb = 64;
    double *a = NULL, *b = NULL, *c = NULL;
    nt_tilemap_t *ma = NULL, *mb = NULL, *mc = NULL;
    nt_matrix_t *A = column_blocks(t, m, k, nb, 1, &a, &ma);
    nt_matrix_t *B = column_blocks(t, k, n, nb, 2, &b, &mb);
    nt_matrix_t *C = column_blocks(t, m, n, nb, 3, &c, &mc);
    nt_place_report_t ra, rb, rc;
    bool ok = A && B && C && !nt_matrix_place(A, 0, &ra) && !nt_matrix_place(B, 0, &rb) &&
              !nt_matrix_place(C, 0, &rc);
    if (check(ok, "gemm: wrap and place: %s", ok ? "ok" : nt_last_error())) {
        check(ra.local_fraction == 1.0 && rb.local_fraction == 1.0 && rc.local_fraction == 1.0,
              "gemm: operands all local after placement (%.3f %.3f %.3f; A: %lld pages, %lld "
              "moved, %lld failed, %lld absent, error %d)", ra.local_fraction,
              rb.local_fraction, rc.local_fraction, (long long)ra.pages,
              (long long)ra.pages_moved, (long long)ra.pages_failed, (long long)ra.pages_absent,
              ra.first_error);
        nt_matrix_t *A2 = owned_copy(t, A), *B2 = owned_copy(t, B), *C2 = owned_copy(t, C);
        nt_kernel_stats_t s = {0};
        nt_status st = A2 && B2 && C2 ? nt_gemm(1.5, A, B, -1.0, C, NULL, &s) : NT_ENOMEM;
        if (st == NT_OK)
            st = nt_gemm(1.5, A2, B2, -1.0, C2, NULL, NULL);
        check(st == NT_OK && equal(C2, c, 0.0), "gemm: wrapped result equals the owned "
              "copy's: %s", st ? nt_last_error() : "ok");
        check(!all_cpu() || s.owner_fraction == 1.0, "gemm: owner fraction %.3f",
              s.owner_fraction);
        nt_kernel_stats_free(&s);
        nt_matrix_destroy(A2);
        nt_matrix_destroy(B2);
        nt_matrix_destroy(C2);
        // QR of the placed A against its owned copy's.
        nt_matrix_t *Q2 = owned_copy(t, A);
        nt_qr_t *q1 = NULL, *q2 = NULL;
        st = Q2 ? nt_qr_factor(A, NULL, &q1, NULL) : NT_ENOMEM;
        if (st == NT_OK)
            st = nt_qr_factor(Q2, NULL, &q2, NULL);
        check(st == NT_OK && equal(Q2, a, 1e-10), "qr: wrapped factor equals the owned "
              "copy's: %s", st ? nt_last_error() : "ok");
        nt_qr_destroy(q1);
        nt_qr_destroy(q2);
        nt_matrix_destroy(Q2);
    }
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_tilemap_destroy(ma);
    nt_tilemap_destroy(mb);
    nt_tilemap_destroy(mc);
    if (a)
        munmap(a, (size_t)(m * k) * 8);
    if (b)
        munmap(b, (size_t)(k * n) * 8);
    if (c)
        munmap(c, (size_t)(m * n) * 8);
}

// Automatic NUMA balancing (/proc/sys/kernel/numa_balancing): it migrates pages toward the
// threads that use them, on its own schedule, so the timing line says whether it was on.
static int numa_balancing(void)
{
    FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

// Set automatic NUMA balancing (0 or 1) and return the previous value (-1: unknown). While on,
// its scans turn whole ranges of PTEs into PROT_NONE hints, which move_pages(2) of this kernel
// (6.1) reports as absent (-ENOENT) and does not move: placement and its oracle then disagree
// with reality for a moment, and the kernel later migrates pages toward the threads using
// them. The guests run it on; this program turns it off while it checks pages, and back on.
static int set_numa_balancing(int v)
{
    int old = numa_balancing();
    FILE *f = old >= 0 ? fopen("/proc/sys/kernel/numa_balancing", "w") : NULL;
    if (f) {
        fprintf(f, "%d\n", v);
        fclose(f);
    }
    return old;
}

// Placement in place beside copying the array into a new numatile matrix, same run, two equal
// arrays written by this thread only (so most of each is on the wrong node), placed first:
// the copy's threads reading the other array cannot have moved its pages already.
static void time_place_vs_copy(const nt_topo_t *t, int64_t m)
{
    double *a = NULL, *b = NULL;
    nt_tilemap_t *ma = NULL, *mb = NULL;
    int64_t n = m / 4 / ndom * ndom;
    nt_matrix_t *A = column_blocks(t, m, n, n / ndom / 4, 4, &a, &ma);
    nt_matrix_t *B = column_blocks(t, m, n, n / ndom / 4, 4, &b, &mb);
    if (!check(A && B, "timing: wrap two %lldx%lld arrays", (long long)m, (long long)n))
        return;
    nt_place_report_t r;
    nt_status st = nt_matrix_place(A, 0, &r);
    double t0 = now();
    nt_matrix_t *C = owned_copy(t, B);
    double copy = now() - t0;
    double mbytes = (double)(m * n * 8) / 1e6;
    if (check(C && st == NT_OK, "timing: place one, copy the other"))
        printf("guest_byom: timing %.1f MB: place in place %.3f s (%lld pages moved, %.0f MB/s, "
               "peak extra %.3f%%), copy into a new matrix %.3f s (%.0f MB/s, +100%% memory); "
               "place / copy time %.2f; numa_balancing %d\n", mbytes, r.seconds,
               (long long)r.pages_moved, (double)r.bytes_moved / 1e6 / r.seconds,
               100.0 * (double)r.peak_extra_bytes / (double)(m * n * 8), copy, mbytes / copy,
               r.seconds / copy, numa_balancing());
    nt_matrix_destroy(C);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_tilemap_destroy(ma);
    nt_tilemap_destroy(mb);
    munmap(a, (size_t)(m * n) * 8);
    munmap(b, (size_t)(m * n) * 8);
}

int main(void)
{
    double t_start = now();
    int nodes = guest_start("guest_byom");
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(NULL, &t);
    if (!check(st == NT_OK, "topo: load this machine: %s", st ? nt_last_error() : "ok"))
        return guest_summary("byom");
    ndom = nt_topo_ndomains(t);
    if (!check(nt_topo_get_kind(t) == NT_TOPO_PHYSICAL && ndom == nodes && ndom >= 2 &&
                   ndom <= MAXN, "topo: physical, %d domains (shape: %d nodes)", ndom, nodes)) {
        nt_topo_destroy(t);
        return guest_summary("byom");
    }
    for (int d = 0; d < ndom; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        node_of[d] = info.node;
        has_cpu[d] = info.ncpus > 0;
    }
    int balancing = set_numa_balancing(0);
    printf("guest_byom: automatic NUMA balancing was %d, off for these checks\n", balancing);
    char cb[32], bc[32];
    snprintf(cb, sizeof cb, "bc2d:1x%d", ndom);
    snprintf(bc, sizeof bc, "bc2d:%dx%d", ndom, 1);
    // Page-granular: columns of 512 doubles are pages, tiles are column blocks.
    test_place(t, "column blocks", 512, 96 * ndom, 512, 512, 32, cb, true, false);
    test_place(t, "column blocks, 2 pages a column", 1024, 40 * ndom, 1024, 256, 16, cb, true,
               false);
    // Not page-granular: 2-D tiles of 100 rows (800 bytes), a padded lda, partial tiles.
    test_place(t, "2-D tiles", 1000, 300, 1003, 100, 100, bc, false, false);
    test_place(t, "random tiles", 700, 500, 700, 64, 48, "random:5", false, false);
    test_place(t, "column blocks", 512, 1024, 512, 512, 32, cb, true, true);
    test_first_touch(t);
    test_kernels(t);
    time_place_vs_copy(t, 2048);
    nt_topo_destroy(t);
    if (balancing >= 0)
        set_numa_balancing(balancing);
    guest_print_verified("guest_byom", ndom);
    printf("guest_byom: %.1f s\n", now() - t_start);
    return guest_summary("byom");
}
