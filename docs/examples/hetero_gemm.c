// Example: a heterogeneous partition (Lambert's NRRP) decides which domain owns which tile of
// C, in proportion to the domains' speeds; the tiled GEMM C = A B then runs owner-computes, one
// task per C tile on the domain that owns it.
//
// Build against an installed numatile:
//   cc -std=c11 hetero_gemm.c $(pkg-config --cflags --libs numatile) -o hetero_gemm
// Exit status 0 when C matches a naive triple loop, every domain ran as many tasks as it owns
// C tiles, and those counts follow the speeds.
#include <math.h>
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

enum { NT = 8, NB = 32, N = NT * NB, P = 3 };

static double a_at(int64_t r, int64_t c)
{
    return (double)((r * 7 + c * 3) % 11) - 5.0;
}

static double b_at(int64_t r, int64_t c)
{
    return (double)((r * 5 + c * 13) % 7) * 0.5 - 1.5;
}

static void fill_a(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    (void)arg;
    *(double *)elem = a_at(r, c);
}

static void fill_b(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    (void)arg;
    *(double *)elem = b_at(r, c);
}

int main(void)
{
    // Three domains of relative speeds 4 : 2 : 1 (on a real machine: nt_hetero_speeds_from_topo
    // gives speeds from the cores of each domain).
    const double speeds[P] = {4, 2, 1};
    nt_topo_t *t;
    CHECK(nt_topo_load(NULL, &t));
    if (nt_topo_ndomains(t) < P) {
        nt_topo_destroy(t);
        nt_topo_opts_t to = {.domains = P};
        CHECK(nt_topo_load(&to, &t));
    }
    printf("topology: %s, %d domains\n", nt_topo_kind_name(nt_topo_get_kind(t)),
           nt_topo_ndomains(t));

    // The partition of the NT x NT tile grid: zones of area proportional to the speeds with a
    // small total half-perimeter (the A rows and B columns each domain must read).
    nt_tilemap_t *map;
    CHECK(nt_hetero_tilemap(NT_HETERO_NRRP, NT_HETERO_PRECISE, P, speeds, NT, &map));
    int64_t want[P];
    CHECK(nt_hetero_counts(P, speeds, NT, want));
    int64_t cost, tiles[P];
    CHECK(nt_hetero_discrete_cost(P, NT, map->owner, &cost, NULL, tiles));
    printf("NRRP map of C (%d x %d tiles), cost %lld tile rows + columns:\n", NT, NT,
           (long long)cost);
    for (int i = 0; i < NT; i++) {
        printf("  ");
        for (int j = 0; j < NT; j++)
            printf("%d", map->owner[i * NT + j]);
        printf("\n");
    }

    // C placed by the partition; A and B on the same map (any map with matching tiles works).
    nt_matrix_shape_t sh = {N, N, NB, NB, sizeof(double)};
    nt_matrix_t *A, *B, *C;
    CHECK(nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, 0, &A));
    CHECK(nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, 0, &B));
    CHECK(nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, 0, &C));
    CHECK(nt_matrix_fill(A, fill_a, NULL));
    CHECK(nt_matrix_fill(B, fill_b, NULL));
    nt_kernel_stats_t ks = {0};
    CHECK(nt_gemm(1.0, A, B, 0.0, C, NULL, &ks));
    printf("GEMM: %.3f s, %.2f GFLOP/s, owner fraction %.3f, %lld remote tile reads\n",
           ks.seconds, ks.seconds > 0 ? ks.flops / ks.seconds / 1e9 : 0.0, ks.owner_fraction,
           (long long)ks.remote_reads);

    int failures = 0;
    for (int d = 0; d < P; d++) {
        printf("domain %d: speed %.0f, %lld C tiles (prefix rounding wants %lld), %lld tasks\n",
               d, speeds[d], (long long)tiles[d], (long long)want[d],
               (long long)ks.tasks_owned[d]);
        if (tiles[d] != want[d] || ks.tasks_owned[d] != tiles[d])
            failures++;
    }
    // Naive product as the oracle (the values are small integers and halves: exact sums).
    int64_t bad = 0;
    for (int64_t r = 0; r < N; r++)
        for (int64_t c = 0; c < N; c++) {
            double s = 0;
            for (int64_t k = 0; k < N; k++)
                s += a_at(r, k) * b_at(k, c);
            bad += fabs(*(double *)nt_matrix_elem(C, r, c) - s) > 1e-9 * (1 + fabs(s));
        }
    printf("check: %lld wrong elements of C\n", (long long)bad);
    failures += bad != 0;

    nt_kernel_stats_free(&ks);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_tilemap_destroy(map);
    nt_topo_destroy(t);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
