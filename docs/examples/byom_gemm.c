// Example: bring your own array. A program holds three malloc'ed column-major matrices and
// multiplies them with one threaded BLAS call, as many OpenMP codes do. The lines marked
// "numatile:" run the same GEMM owner-computes on tiles of those very arrays: wrap them (no
// copy), move their pages to the nodes of the domains that own them (no copy either), run the
// tiled GEMM. It prints both times, the page histogram before and after placement, and the
// time placement took beside copying the array into a new numatile matrix.
//
// Build against an installed numatile:
//   cc -std=c11 byom_gemm.c $(pkg-config --cflags --libs numatile) -o byom_gemm
// Usage: byom_gemm [N]   (N x N doubles, default 1024). Exit status 0 when the tiled result
// equals the program's own GEMM (to rounding) and every byte is local after placement.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include <numatile.h>

#define CHECK(call)                                                                           \
    do {                                                                                      \
        nt_status st_ = (call);                                                               \
        if (st_ != NT_OK) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    nt_strerror(st_), nt_last_error());                                       \
            exit(2);                                                                          \
        }                                                                                     \
    } while (0)

static void histogram(const char *when, const nt_place_report_t *r)
{
    printf("%-18s pages per node:", when);
    for (int k = 0; k < r->nnodes; k++)
        printf(" %lld", (long long)r->pages_per_node[k]);
    printf("  (never touched %lld, local %.1f%%)\n", (long long)r->pages_absent,
           100.0 * r->local_fraction);
}

// numatile: wrap one of the program's arrays; tile columns of nb dealt round-robin to the
// domains, so each page (part of one column) belongs to one domain.
static nt_matrix_t *wrap(const nt_topo_t *topo, double *a, int64_t n, int64_t nb,
                         nt_tilemap_t **map)
{
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:1x%d", nt_topo_ndomains(topo));
    nt_matrix_shape_t shape = {n, n, nb, nb, sizeof(double)};
    CHECK(nt_tilemap_from_spec(spec, (n + nb - 1) / nb, (n + nb - 1) / nb, 0, map));
    nt_matrix_t *A;
    CHECK(nt_matrix_wrap_lapack(topo, &shape, *map, a, n, &A));
    return A;
}

// For comparison: the time to copy A into a new numatile matrix instead (twice the memory).
static double time_copy(const nt_topo_t *topo, nt_matrix_t *A, const nt_tilemap_t *map)
{
    nt_matrix_t *copy;
    nt_plan_t *plan;
    nt_matrix_shape_t shape = {A->m, A->n, A->mb, A->nb, sizeof(double)};
    CHECK(nt_matrix_create(topo, &shape, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &copy));
    CHECK(nt_plan_create(A, copy, NULL, NULL, &plan));
    double t0 = omp_get_wtime();
    CHECK(nt_plan_execute(plan, A, copy, NULL, NULL));
    double t = omp_get_wtime() - t0;
    nt_plan_destroy(plan);
    nt_matrix_destroy(copy);
    return t;
}

// numatile: one domain per NUMA node (at least 2: virtual ones on a one-node machine).
static nt_topo_t *load_topo(void)
{
    nt_topo_t *topo;
    nt_topo_opts_t o = {.domains = 0};
    CHECK(nt_topo_load(&o, &topo));
    if (nt_topo_ndomains(topo) < 2) {
        nt_topo_destroy(topo);
        o.domains = 2;
        CHECK(nt_topo_load(&o, &topo));
    }
    return topo;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 1024, nb = 256;
    if (n < 1 || n > 16384) {
        fprintf(stderr, "usage: byom_gemm [N], 1 <= N <= 16384\n");
        return 2;
    }
    int nth = omp_get_max_threads();
    // The program as it was: three arrays, filled by one thread, one threaded GEMM.
    size_t bytes = (size_t)(n * n) * sizeof(double);
    double *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *ref = malloc(bytes);
    if (!a || !b || !c || !ref)
        return 2;
    for (int64_t x = 0; x < n * n; x++) {
        a[x] = (double)(x % 7) - 3.0;
        b[x] = (double)(x % 5) * 0.5;
        c[x] = ref[x] = 1.0;
    }
    double t0 = omp_get_wtime();
    CHECK(nt_gemm_flat(nth, n, n, n, 1.0, a, n, b, n, 1.0, ref, n));
    double t_flat = omp_get_wtime() - t0;

    nt_topo_t *topo = load_topo();
    nt_tilemap_t *ma, *mb, *mc;
    nt_matrix_t *A = wrap(topo, a, n, nb, &ma), *B = wrap(topo, b, n, nb, &mb);
    nt_matrix_t *C = wrap(topo, c, n, nb, &mc);
    nt_place_report_t before, ra, rb, rc;
    CHECK(nt_matrix_place(A, NT_PLACE_QUERY, &before));
    double t_copy = time_copy(topo, A, ma);
    // numatile: the pages of the three arrays to their owners' nodes, in place.
    CHECK(nt_matrix_place(A, 0, &ra));
    CHECK(nt_matrix_place(B, 0, &rb));
    CHECK(nt_matrix_place(C, 0, &rc));
    // numatile: the GEMM, each C tile computed by a thread of the domain that owns it.
    nt_kernel_stats_t stats = {0};
    t0 = omp_get_wtime();
    CHECK(nt_gemm(1.0, A, B, 1.0, C, NULL, &stats));
    double t_tiled = omp_get_wtime() - t0;

    double worst = 0;
    for (int64_t x = 0; x < n * n; x++)
        worst = fmax(worst, fabs(c[x] - ref[x]) / (1.0 + fabs(ref[x])));
    printf("byom_gemm: N = %lld, %d domains, %d threads\n", (long long)n,
           nt_topo_ndomains(topo), nth);
    histogram("A before placement", &before);
    histogram("A after placement", &ra);
    printf("placement of A: %.4f s, %lld pages moved, %lld bytes copied, peak extra %.3f%% of "
           "the array; copying A into a new matrix: %.4f s (place / copy %.2f)\n", ra.seconds,
           (long long)ra.pages_moved, (long long)ra.bytes_copied,
           100.0 * (double)ra.peak_extra_bytes / (double)bytes, t_copy, ra.seconds / t_copy);
    printf("GEMM: the program's own %.4f s, owner-computes on its placed arrays %.4f s (owner "
           "fraction %.3f); largest difference %.1e\n", t_flat, t_tiled, stats.owner_fraction,
           worst);
    int ok = worst < 1e-12 && ra.local_fraction == 1.0 && rb.local_fraction == 1.0 &&
             rc.local_fraction == 1.0 && ra.bytes_copied == 0;
    nt_kernel_stats_free(&stats);
    nt_matrix_destroy(A); // the arrays stay the program's
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_tilemap_destroy(ma);
    nt_tilemap_destroy(mb);
    nt_tilemap_destroy(mc);
    nt_topo_destroy(topo);
    free(a);
    free(b);
    free(c);
    free(ref);
    return ok ? 0 : 1;
}
