// Example: your own kernel, owner-computes. A 2D Jacobi sweep (each interior point becomes
// the mean of its four neighbours; the boundary stays fixed) on an N x N grid cut in tiles and
// placed block-cyclically on the domains. Every tile of every sweep is one task that writes its
// tile of the new grid and reads its tile and the neighbouring tiles of the old one; the task
// graph orders the sweeps from those accesses alone (no barrier) and runs each task on the
// domain that owns the tile it writes. The result is checked against the same sweeps on a
// plain array, bit for bit, and the remote reads against a count from the tile map.
//
// Build against an installed numatile:
//   cc -std=c11 owner_stencil2d.c $(pkg-config --cflags --libs numatile) -o owner_stencil2d
// Usage: owner_stencil2d [DOMAINS]   (virtual domains on this machine, default 2)
// Exit status 0 when the tiled result equals the flat one.
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum { N = 300, TILE = 64, SWEEPS = 12 };

static double initial(int64_t r, int64_t c)
{
    return (double)((r * 7 + c * 13) % 17) + (r == 0 ? 100.0 : 0.0);
}

static void fill(int64_t r, int64_t c, void *elem, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    *(double *)elem = initial(r, c);
}

// The one update rule, shared by the tiled and the flat sweeps (same operations, same bits).
static double jacobi(double up, double down, double left, double right)
{
    return 0.25 * ((up + down) + (left + right));
}

static double at(const nt_matrix_t *A, int64_t r, int64_t c)
{
    return *(const double *)nt_matrix_elem(A, r, c);
}

// A task: tile (i, j) of dst from src.
typedef struct sweep {
    const nt_matrix_t *src;
    nt_matrix_t *dst;
    int64_t i, j;
} sweep;

static nt_status sweep_tile(const nt_task_info_t *info, void *arg)
{
    (void)info;
    const sweep *s = arg;
    int64_t m = nt_matrix_tile_rows(s->dst, s->i), n = nt_matrix_tile_cols(s->dst, s->j);
    int64_t ld = nt_matrix_tile_ld(s->dst, s->i, s->j);
    double *out = nt_matrix_tile(s->dst, s->i, s->j);
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < m; x++) {
            int64_t r = s->i * s->dst->mb + x, c = s->j * s->dst->nb + y;
            bool edge = r == 0 || c == 0 || r == N - 1 || c == N - 1;
            out[x + y * ld] = edge ? at(s->src, r, c)
                                   : jacobi(at(s->src, r - 1, c), at(s->src, r + 1, c),
                                            at(s->src, r, c - 1), at(s->src, r, c + 1));
        }
    return NT_OK;
}

// Submit every sweep in program order; a tile's task reads up to 5 tiles of the old grid.
// Returns the oracle of the remote reads: reads of a tile on another domain than the task's.
static int64_t submit_sweeps(nt_task_graph_t *g, nt_matrix_t *U[2])
{
    const int64_t T = U[0]->mt, di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
    int64_t remote = 0;
    for (int k = 0; k < SWEEPS; k++) {
        const nt_matrix_t *src = U[k % 2];
        nt_matrix_t *dst = U[1 - k % 2];
        for (int64_t i = 0; i < T; i++)
            for (int64_t j = 0; j < T; j++) {
                nt_task_access_t acc[6];
                int nacc = 0;
                acc[nacc++] = nt_task_tile(NT_TASK_WRITE, dst, i, j);
                for (int x = 0; x < 5; x++) {
                    int64_t a = i + di[x], b = j + dj[x];
                    if (a < 0 || b < 0 || a >= T || b >= T)
                        continue;
                    acc[nacc++] = nt_task_tile(NT_TASK_READ, src, a, b);
                    remote += nt_matrix_tile_domain(src, a, b) != nt_matrix_tile_domain(dst, i, j);
                }
                sweep s = {src, dst, i, j};
                CHECK(nt_task_submit(g, sweep_tile, &s, sizeof s, nacc, acc,
                                     NT_TASK_AUTO_DOMAIN, 0));
            }
    }
    return remote;
}

// The flat reference: the same sweeps on a plain N x N array (column-major), or NULL when out
// of memory.
static double *flat_sweeps(void)
{
    double *a = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N * N);
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (int64_t r = 0; r < N; r++)
        for (int64_t c = 0; c < N; c++)
            a[r + c * N] = initial(r, c);
    for (int k = 0; k < SWEEPS; k++) {
        for (int64_t c = 0; c < N; c++)
            for (int64_t r = 0; r < N; r++)
                b[r + c * N] = r == 0 || c == 0 || r == N - 1 || c == N - 1
                                   ? a[r + c * N]
                                   : jacobi(a[r - 1 + c * N], a[r + 1 + c * N],
                                            a[r + (c - 1) * N], a[r + (c + 1) * N]);
        double *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

// Points of the tiled result that differ from the flat one, bit for bit.
static int64_t differences(const nt_matrix_t *res, const double *flat)
{
    int64_t bad = 0;
    for (int64_t r = 0; r < N; r++)
        for (int64_t c = 0; c < N; c++)
            bad += memcmp(&flat[r + c * N], nt_matrix_elem(res, r, c), sizeof(double)) != 0;
    return bad;
}

int main(int argc, char **argv)
{
    nt_topo_opts_t to = {.domains = argc > 1 ? atoi(argv[1]) : 2};
    nt_topo_t *topo;
    CHECK(nt_topo_load(&to, &topo));
    int D = nt_topo_ndomains(topo);
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:%dx1", D);
    nt_matrix_shape_t shape = {N, N, TILE, TILE, sizeof(double)};
    nt_matrix_t *U[2];
    for (int k = 0; k < 2; k++) {
        CHECK(nt_matrix_create_spec(topo, &shape, spec, D, NT_LAYOUT_TILE, 0, &U[k]));
        CHECK(nt_matrix_fill(U[k], fill, NULL));
    }
    nt_task_graph_t *g;
    CHECK(nt_task_graph_create(topo, &g));
    int64_t remote = submit_sweeps(g, U), T = U[0]->mt;
    nt_kernel_stats_t stats = {0};
    CHECK(nt_task_graph_run(g, NULL, &stats));

    double *flat = flat_sweeps();
    if (!flat)
        return 2;
    int64_t bad = differences(U[SWEEPS % 2], flat);
    printf("owner_stencil2d: %dx%d grid, %lldx%lld tiles on %d domains (%s), %d sweeps\n", N,
           N, (long long)T, (long long)T, D, spec, SWEEPS);
    printf("tasks %lld, owner fraction %.3f, remote tile reads %lld (expected %lld)\n",
           (long long)stats.tasks, stats.owner_fraction, (long long)stats.remote_reads,
           (long long)remote);
    for (int d = 0; d < D; d++)
        printf("  domain %d: owns %lld tasks, ran %lld\n", d, (long long)stats.tasks_owned[d],
               (long long)stats.tasks_run[d]);
    printf("verify: %s (%lld of %d points differ from the flat sweeps)\n",
           bad ? "FAILED" : "ok", (long long)bad, N * N);
    int rc = bad || stats.remote_reads != remote || stats.tasks != SWEEPS * T * T;
    nt_kernel_stats_free(&stats);
    nt_task_graph_destroy(g);
    nt_matrix_destroy(U[0]);
    nt_matrix_destroy(U[1]);
    nt_topo_destroy(topo);
    free(flat);
    return rc;
}
