// Example: create a badly placed tiled matrix, redistribute it to 2D block-cyclic with the
// labelling that moves the least data, then factor it with the owner-computes tiled QR.
//
// Build against an installed numatile:
//   cc -std=c11 redistribute.c $(pkg-config --cflags --libs numatile) -o redistribute
// Exit status 0 when every check holds: the redistributed matrix equals the source element by
// element, every target tile sits on the domain the plan chose, the optimal labelling moves no
// more than the canonical one, and the QR residuals are small.
#include <float.h>
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

enum { M = 384, N = 384, NB = 64, DOMAINS = 4 };

// The value of element (r,c): any deterministic function works as the oracle.
static double value_at(int64_t r, int64_t c)
{
    return sin(0.37 * (double)r + 1.0) * cos(0.11 * (double)c) + (r == c ? 2.0 : 0.0);
}

static void fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg)
{
    (void)elem_size;
    (void)arg;
    *(double *)elem = value_at(r, c);
}

static double get(const nt_matrix_t *A, int64_t r, int64_t c)
{
    return *(const double *)nt_matrix_elem(A, r, c);
}

// Four domains: the NUMA nodes of this machine when it has at least four, else a virtual split
// of its cores (memory then stays on the one node, but every step is real).
static nt_topo_t *load_four_domains(void)
{
    nt_topo_t *t;
    CHECK(nt_topo_load(NULL, &t));
    if (nt_topo_ndomains(t) < DOMAINS) {
        nt_topo_destroy(t);
        nt_topo_opts_t to = {.domains = DOMAINS};
        CHECK(nt_topo_load(&to, &t));
    }
    printf("topology: %s, %d domains on %d NUMA node(s)\n",
           nt_topo_kind_name(nt_topo_get_kind(t)), nt_topo_ndomains(t), nt_topo_nphysical(t));
    return t;
}

// Plan src -> a bc2d:2x2 target with the given relabelling; returns the plan and its target.
static void plan_to_bc2d(const nt_topo_t *t, const nt_matrix_t *src, nt_match_objective obj,
                         nt_matrix_t **dst, nt_plan_t **plan)
{
    nt_matrix_shape_t sh = {M, N, NB, NB, sizeof(double)};
    CHECK(nt_matrix_create_spec(t, &sh, "bc2d:2x2", 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, dst));
    nt_plan_opts_t po = {.relabel = obj};
    CHECK(nt_plan_create(src, *dst, NULL, &po, plan));
}

// Print what each plan moves; the least-volume labelling must not move more than the canonical
// one. Returns the number of failed checks.
static int compare_labellings(const nt_plan_t *plan_canon, const nt_plan_t *plan)
{
    nt_plan_info_t ic, iv;
    CHECK(nt_plan_info(plan_canon, &ic));
    CHECK(nt_plan_info(plan, &iv));
    int nsig;
    const int *sigma = nt_plan_sigma(plan, &nsig);
    printf("canonical labelling: %lld of %lld bytes move, %lld steps\n",
           (long long)ic.bytes_moved, (long long)ic.bytes, (long long)ic.steps);
    printf("volume labelling:    %lld of %lld bytes move, %lld steps; sigma =",
           (long long)iv.bytes_moved, (long long)iv.bytes, (long long)iv.steps);
    for (int j = 0; j < nsig; j++)
        printf(" %d", sigma[j]);
    printf("\n");
    if (iv.bytes_moved > ic.bytes_moved) {
        fprintf(stderr, "FAIL: the optimal labelling moves more than the canonical one\n");
        return 1;
    }
    return 0;
}

// After the execution: every element equals the value it was created with, and every target
// tile is on the domain the plan gave it. Returns the number of failed checks.
static int check_redistribution(const nt_matrix_t *dst, const nt_plan_t *plan)
{
    int64_t bad = 0;
    for (int64_t c = 0; c < N; c++)
        for (int64_t r = 0; r < M; r++)
            bad += get(dst, r, c) != value_at(r, c);
    const int *want = nt_plan_dst_owner(plan);
    int64_t misplaced = 0;
    for (int64_t i = 0; i < dst->mt; i++)
        for (int64_t j = 0; j < dst->nt; j++)
            misplaced += nt_matrix_tile_domain(dst, i, j) != want[i * dst->nt + j];
    printf("check: %lld wrong elements, %lld misplaced tiles\n", (long long)bad,
           (long long)misplaced);
    return (bad != 0) + (misplaced != 0);
}

// ||A - QR|| / (||A|| n eps) and ||Q^T Q - I|| / (n eps), with A given by value_at and R the
// upper triangle of the factored matrix.
static void qr_residuals(const nt_matrix_t *Q, const nt_matrix_t *R, double *r1, double *r2)
{
    double res = 0, norm = 0, orth = 0;
    for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < M; i++) {
            double d = value_at(i, j);
            norm += d * d;
            for (int64_t l = 0; l <= j && l < M; l++)
                d -= get(Q, i, l) * get(R, l, j);
            res += d * d;
        }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < M; j++) {
            double d = -(double)(i == j);
            for (int64_t l = 0; l < M; l++)
                d += get(Q, l, i) * get(Q, l, j);
            orth += d * d;
        }
    *r1 = sqrt(res) / (sqrt(norm) * M * DBL_EPSILON);
    *r2 = sqrt(orth) / (M * DBL_EPSILON);
}

// QR in place on the redistributed matrix, each task on the domain of the tile it writes; then
// Q explicitly (M x M, same row tiling) to check the factorisation. Returns failed checks.
static int factor_and_check(const nt_topo_t *t, nt_matrix_t *A)
{
    nt_qr_t *qr;
    nt_kernel_stats_t ks = {0};
    CHECK(nt_qr_factor(A, NULL, &qr, &ks));
    printf("QR: %lld tasks, %.3f s, owner fraction %.3f\n", (long long)ks.tasks, ks.seconds,
           ks.owner_fraction);
    nt_matrix_shape_t qs = {M, M, NB, NB, sizeof(double)};
    nt_matrix_t *Q;
    CHECK(nt_matrix_create_spec(t, &qs, "bc2d:2x2", 0, NT_LAYOUT_TILE, 0, &Q));
    CHECK(nt_qr_form_q(qr, Q, NULL, NULL));
    double r1, r2;
    qr_residuals(Q, A, &r1, &r2);
    printf("QR residuals: ||A-QR||/(||A|| n eps) = %.3g, ||Q^TQ-I||/(n eps) = %.3g\n", r1, r2);
    int failures = 0;
    if (!(r1 < 10 && r2 < 10)) {
        fprintf(stderr, "FAIL: QR residuals too large\n");
        failures++;
    }
    nt_kernel_stats_free(&ks);
    nt_qr_destroy(qr);
    nt_matrix_destroy(Q);
    return failures;
}

int main(void)
{
    nt_topo_t *t = load_four_domains();

    // The source: SkewedSet, a 2x2 block-cyclic map where half of the tiles drifted away.
    nt_matrix_shape_t sh = {M, N, NB, NB, sizeof(double)};
    nt_matrix_t *src;
    CHECK(nt_matrix_create_spec(t, &sh, "skewed:2x2:7", 0, NT_LAYOUT_TILE, 0, &src));
    CHECK(nt_matrix_fill(src, fill_fn, NULL));

    // Plan twice: keep the target map as it is (canonical), or relabel it (least volume).
    nt_matrix_t *dst_canon, *dst;
    nt_plan_t *plan_canon, *plan;
    plan_to_bc2d(t, src, NT_MATCH_CANONICAL, &dst_canon, &plan_canon);
    plan_to_bc2d(t, src, NT_MATCH_VOLUME, &dst, &plan);
    int failures = compare_labellings(plan_canon, plan);

    // Execute the relabelled plan: dst gets memory on its tiles' domains.
    nt_exec_stats_t es = {0};
    CHECK(nt_plan_execute(plan, src, dst, NULL, &es));
    printf("executed: %lld bytes copied, %lld tiles kept in place, %.2f GB/s\n",
           (long long)es.bytes_copied, (long long)es.tiles_kept, es.bandwidth_gbs);
    nt_exec_stats_free(&es);
    failures += check_redistribution(dst, plan);
    failures += factor_and_check(t, dst);

    nt_plan_destroy(plan);
    nt_plan_destroy(plan_canon);
    nt_matrix_destroy(dst);
    nt_matrix_destroy(dst_canon);
    nt_matrix_destroy(src);
    nt_topo_destroy(t);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
