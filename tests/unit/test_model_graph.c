// The advisor's model and the kernels agree: the graph nt_model_kernel() prices is the graph the
// runtime builds from the same builder (tasks, domains, priorities, dependencies), with the
// tasks per tile kernel the algorithm has; the tile-kernel calls a builder names cover its
// accesses and add up to GEMM's flops; the shared ready-queue heap pops in the one order.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "lib/advisor/nt_model.h"
#include "lib/kernels/nt_graph_sink.h"
#include "lib/kernels/nt_task_heap.h"
#include "lib/kernels/tile/nt_tile_registry.h"
#include "lib/matrix/nt_matrix.h"

// A profile that nt_profile_check() accepts (the graph does not depend on its values).
static nt_profile_t *any_profile(int D)
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(D, &p), NT_OK);
    for (int x = 0; x < D * D; x++)
        p->copy_gbs[x] = p->read_gbs[x] = 1 + x % 3;
    p->concurrent_gbs = p->migrate_gbs = 1;
    for (int d = 0; d < D; d++) {
        p->fault_gbs[d] = 1;
        for (int k = 0; k < NT_TK_COUNT; k++)
            p->tile_seconds[k][d] = 1e-3 * (1 + k + d);
    }
    p->nb = 8;
    p->ib = 4;
    p->nodes = 1;
    return p;
}

static nt_matrix_t *placed(const nt_topo_t *t, int64_t m, int64_t n, int64_t nb, const char *spec)
{
    nt_matrix_shape_t sh = {m, n, nb, nb, sizeof(double)};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE, 0, &A),
                 NT_OK, "%s", nt_last_error());
    return A;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

// The model's task list against the runtime graph g: same tasks, domains, priorities, and
// predecessor sets.
static void same_graph(const nt_task_graph_t *g, const nt_sim_task_t *t, int64_t n)
{
    cr_assert_eq(nt_task_graph_ntasks(g), n);
    for (int64_t x = 0; x < n; x++) {
        int dom, prio, np;
        int64_t pred[16], mine[NT_SIM_MAXPRED];
        cr_assert_eq(nt_task_graph_peek(g, x, &dom, &prio, pred, 16, &np), NT_OK);
        cr_assert_eq(dom, t[x].domain, "task %lld", (long long)x);
        cr_assert_eq(prio, t[x].prio, "task %lld", (long long)x);
        cr_assert_eq(np, t[x].npred, "task %lld: %d predecessors, the model %d", (long long)x,
                     np, t[x].npred);
        memcpy(mine, t[x].pred, (size_t)np * sizeof *mine);
        qsort(pred, (size_t)np, sizeof *pred, cmp64);
        qsort(mine, (size_t)np, sizeof *mine, cmp64);
        for (int k = 0; k < np; k++)
            cr_assert_eq(pred[k], mine[k], "task %lld", (long long)x);
    }
}

// Tasks per tile kernel of the tile QR of mt x nt tiles / of the tiled GEMM.
static void expected_counts(bool qr, int64_t mt, int64_t nt, int64_t *want)
{
    memset(want, 0, NT_TK_COUNT * sizeof *want);
    if (!qr) {
        want[NT_TK_GEMM] = mt * nt;
        return;
    }
    for (int64_t k = 0; k < (mt < nt ? mt : nt); k++) {
        want[NT_TK_GEQRT]++;
        want[NT_TK_UNMQR] += nt - k - 1;
        want[NT_TK_TSQRT] += mt - k - 1;
        want[NT_TK_TSMQR] += (mt - k - 1) * (nt - k - 1);
    }
}

static void check_case(const nt_topo_t *topo, bool qr, int64_t m, int64_t n, int64_t nb,
                       const char *spec)
{
    int D = nt_topo_ndomains(topo);
    nt_profile_t *p = any_profile(D);
    nt_matrix_t *A = placed(topo, m, n, nb, spec), *B = placed(topo, m, n, nb, spec);
    nt_matrix_t *C = placed(topo, m, n, nb, spec);
    nt_task_graph_t *g;
    cr_assert_eq(nt_task_graph_create(topo, &g), NT_OK);
    nt_graph_sink_t s = nt_graph_sink_runtime(g);
    if (qr)
        cr_assert_eq(nt_qr_factor_build(&s, A, p->ib), NT_OK, "%s", nt_last_error());
    else
        cr_assert_eq(nt_gemm_build(&s, 1.0, 0.0, A, B, C), NT_OK, "%s", nt_last_error());
    nt_sim_task_t *t;
    int64_t nt_, want[NT_TK_COUNT], got[NT_TK_COUNT] = {0};
    cr_assert_eq(nt_model_graph(p, qr ? NT_ADVISE_QR : NT_ADVISE_GEMM, A, &t, &nt_), NT_OK,
                 "%s", nt_last_error());
    same_graph(g, t, nt_);
    expected_counts(qr, A->mt, A->nt, want);
    for (int64_t x = 0; x < nt_; x++) {
        cr_assert(t[x].kernel >= 0 && t[x].kernel < NT_TK_COUNT);
        got[t[x].kernel]++;
    }
    for (int k = 0; k < NT_TK_COUNT; k++)
        cr_assert_eq(got[k], want[k], "%s %lldx%lld/%lld on %d: %lld %s tasks, want %lld",
                     qr ? "qr" : "gemm", (long long)m, (long long)n, (long long)nb, D,
                     (long long)got[k], nt_tk_name(k), (long long)want[k]);
    free(t);
    nt_task_graph_destroy(g);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_profile_destroy(p);
}

Test(model_graph, model_prices_the_runtime_graph)
{
    for (int D = 1; D <= 3; D++) {
        nt_topo_t *topo = kt_topo(D);
        char bc[32];
        snprintf(bc, sizeof bc, "bc2d:%dx1", D);
        const char *specs[] = {bc, "random:5"};
        for (int s = 0; s < 2; s++) {
            check_case(topo, true, 40, 40, 8, specs[s]);
            check_case(topo, true, 53, 29, 8, specs[s]); // tall, edge tiles
            check_case(topo, true, 21, 45, 10, specs[s]); // wide
            check_case(topo, false, 36, 36, 8, specs[s]);
            check_case(topo, false, 17, 17, 5, specs[s]);
        }
        nt_topo_destroy(topo);
    }
}

// A sink that keeps the calls of every task: their sizes summed into flops, and how many
// accesses they stand for against how many the task has.
typedef struct call_count {
    double flops;
    int64_t tasks, uncovered;
} call_count;

static nt_status cc_data(nt_graph_sink_t *s, int domain, int64_t bytes,
                         const nt_task_access_t *part_of, int64_t *handle)
{
    (void)s, (void)domain, (void)bytes, (void)part_of;
    *handle = 0;
    return NT_OK;
}

static nt_status cc_submit(nt_graph_sink_t *s, const nt_graph_task_t *t)
{
    call_count *c = s->ctx;
    int covered = 0;
    for (int k = 0; k < t->ncalls; k++) {
        const nt_tk_call_t *x = &t->call[k];
        c->flops += nt_tile_kernel_info(x->kernel)->flops((double)x->m, (double)x->n,
                                                          (double)x->k);
        covered += x->nacc;
    }
    c->uncovered += t->naccess - covered;
    c->tasks++;
    return NT_OK;
}

Test(model_graph, calls_cover_accesses_and_flops)
{
    nt_topo_t *topo = kt_topo(2);
    nt_matrix_t *A = placed(topo, 27, 27, 8, "random:3"), *B = placed(topo, 27, 27, 8, "bc2d:2x1");
    nt_matrix_t *C = placed(topo, 27, 27, 8, "bc2d:1x2");
    call_count c = {0};
    nt_graph_sink_t s = {cc_data, cc_submit, &c};
    cr_assert_eq(nt_gemm_build(&s, 1.0, 0.0, A, B, C), NT_OK);
    cr_assert_eq(c.tasks, 16);
    cr_assert_eq(c.uncovered, 0);
    cr_assert_eq(c.flops, 2.0 * 27 * 27 * 27);
    c = (call_count){0};
    cr_assert_eq(nt_qr_factor_build(&s, A, 4), NT_OK);
    cr_assert_eq(c.tasks, 4 + 6 + 6 + 14);
    cr_assert_eq(c.uncovered, 0);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_topo_destroy(topo);
}

// Every row complete, names distinct, the public name the registry's; the kernels of today
// under the names the profile files use (a new row needs no change here).
Test(model_graph, registry_rows)
{
    for (int k = 0; k < NT_TK_COUNT; k++) {
        const nt_tile_kernel_info_t *r = nt_tile_kernel_info(k);
        cr_assert(r && r->name && r->name[0] && r->flops && r->calibrate, "kernel %d", k);
        cr_assert_str_eq(nt_profile_kernel_name(k), r->name);
        cr_assert(r->flops(8, 8, 8) > 0);
        for (int e = 0; e < k; e++)
            cr_assert_str_neq(nt_tk_name(e), r->name);
    }
    const struct {
        int id;
        const char *name;
    } known[] = {{NT_TK_GEMM, "gemm"}, {NT_TK_GEQRT, "geqrt"}, {NT_TK_UNMQR, "unmqr"},
                 {NT_TK_TSQRT, "tsqrt"}, {NT_TK_TSMQR, "tsmqr"}};
    for (size_t x = 0; x < sizeof known / sizeof known[0]; x++)
        cr_assert_str_eq(nt_tk_name(known[x].id), known[x].name);
    cr_assert_null(nt_tile_kernel_info(NT_TK_COUNT));
    cr_assert_str_eq(nt_profile_kernel_name(-1), "unknown");
    cr_assert_str_eq(nt_advise_kernel_name(NT_ADVISE_GEMM), "gemm");
    cr_assert_str_eq(nt_advise_kernel_name(NT_ADVISE_QR), "qr");
    cr_assert_str_eq(nt_advise_kernel_name((nt_advise_kernel)9), "unknown");
}

// Pushed in a scrambled order, items come out by key (higher first), then id (lower first).
Test(model_graph, heap_order)
{
    enum { N = 200 };
    nt_heap_item_t h[N], prev = {0};
    int64_t n = 0;
    for (int64_t x = 0; x < N; x++) {
        int64_t id = (x * 73) % N;
        nt_heap_push(h, &n, (nt_heap_item_t){(double)(id % 7) - 3, id});
    }
    for (int64_t x = 0; x < N; x++) {
        nt_heap_item_t it = nt_heap_pop(h, &n);
        if (x > 0)
            cr_assert(nt_heap_before(prev, it), "item %lld out of order", (long long)x);
        prev = it;
    }
    cr_assert_eq(n, 0);
}
