// The time model against hand-computed cases on a 2-domain profile of round numbers, and
// against independent oracles: a generic task-graph evaluator over read/write handles for the
// QR critical path and per-domain work on random maps, and a naive per-tile count of the bytes a
// redistribution copies (tiles that keep their domain and are at least a page are adopted).
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/advise.h"
#include "numatile/dist.h"
#include "numatile/mem.h"
#include "numatile/plan.h"
#include "numatile/profile.h"
#include "numatile/topo.h"

#include "lib/advisor/nt_model.h"

static nt_profile_t *profile2(void)
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(2, &p), NT_OK);
    double copy[4] = {1, 2, 4, 8}, rd[4] = {1, 0.5, 0.5, 1};
    memcpy(p->copy_gbs, copy, sizeof copy);
    memcpy(p->read_gbs, rd, sizeof rd);
    p->concurrent_gbs = 100;
    p->migrate_gbs = 1;
    p->fault_gbs[0] = 1;
    p->fault_gbs[1] = 2;
    for (int k = 0; k < NT_TK_COUNT; k++)
        p->tile_seconds[k][0] = p->tile_seconds[k][1] = 1e-3;
    p->tile_seconds[NT_TK_GEMM][1] = 2e-3;
    p->nb = 10;
    p->ib = 5;
    p->nodes = 1;
    return p;
}

static nt_matrix_t *descriptor(int64_t n, int64_t nb, int D, const int *owner)
{
    nt_tilemap_t *map;
    int64_t nt = (n + nb - 1) / nb;
    cr_assert_eq(nt_tilemap_create(nt, nt, D, &map), NT_OK);
    memcpy(map->owner, owner, (size_t)(nt * nt) * sizeof *owner);
    nt_matrix_shape_t sh = {n, n, nb, nb, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create(NULL, &sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A), NT_OK);
    nt_tilemap_destroy(map);
    return A;
}

#define EQ(a, b) cr_assert(fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(b)), "%.17g != %.17g", \
                           (double)(a), (double)(b))

Test(model, redist_bytes_by_hand)
{
    nt_profile_t *p = profile2();
    // GB: copies 0->0 1, 0->1 2, 1->0 4; fresh 5 on domain 0, 2 on domain 1.
    int64_t copy[4] = {1000000000, 2000000000, 4000000000, 0}, fresh[2] = {5000000000,
                                                                          2000000000};
    nt_redist_pred_t r;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_OK);
    EQ(r.alloc_seconds, 5.0);                 // 5 GB at 1 GB/s on domain 0
    EQ(r.free_seconds, 2.0);                  // domain 0: 1/1 + 4/4; domain 1: 2/2
    cr_assert_eq(r.bytes_copied, 7000000000);
    cr_assert_eq(r.bytes_fresh, 7000000000);
    // One-port: 1->0 (4 GB) runs in every phase; 0->1 (2 GB) beside it: 2/2 + 2/4 = 1.5 s,
    // plus the local copy 1/1, no task overhead.
    EQ(r.steps_seconds, 2.5);
    // The aggregate rate caps the free schedule: 7 GB at 1 GB/s.
    p->concurrent_gbs = 1;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_OK);
    EQ(r.free_seconds, 7.0);
    // Task overhead once per phase.
    p->concurrent_gbs = 100;
    p->task_seconds = 0.25;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_OK);
    EQ(r.steps_seconds, 2.5 + 0.25 * (double)r.phases);
    cr_assert(r.phases >= 1 && r.phases <= 2);
    // The fixed cost of an execution adds to both schedules, not to the allocation.
    p->exec_seconds = 0.5;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_OK);
    EQ(r.free_seconds, 2.5);
    EQ(r.steps_seconds, 3.0 + 0.25 * (double)r.phases);
    EQ(r.alloc_seconds, 5.0);
    copy[2] = -1;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "copy_bytes[1][0]"), "%s", nt_last_error());
    cr_assert_eq(nt_model_redist_bytes(NULL, copy, fresh, &r), NT_EINVAL);
    nt_profile_destroy(p);
}

Test(model, gemm_by_hand)
{
    nt_profile_t *p = profile2();
    nt_kernel_pred_t k;
    // 20 x 20 in 10 x 10 tiles, all on domain 0: 4 tasks of 2 tile products of 1 ms.
    int all0[4] = {0, 0, 0, 0};
    nt_matrix_t *A = descriptor(20, 10, 2, all0);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &k), NT_OK);
    EQ(k.work_seconds, 8e-3);
    EQ(k.path_seconds, 2e-3);
    EQ(k.seconds, 8e-3);
    cr_assert_eq(k.remote_reads, 0);
    cr_assert_eq(k.tasks, 4);
    nt_matrix_destroy(A);
    // Checkerboard: each C tile reads 2 remote tiles of 800 bytes at 0.5 GB/s instead of 1:
    // 800e-9 s more each. Domain 1 (2 ms products) is the slowest: 2 x (2 x 2 ms + 1.6 us).
    int chk[4] = {0, 1, 1, 0};
    A = descriptor(20, 10, 2, chk);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &k), NT_OK);
    cr_assert_eq(k.remote_reads, 8);
    EQ(k.remote_seconds, 8 * 800e-9);
    EQ(k.work_seconds, 2 * (4e-3 + 1.6e-6));
    EQ(k.path_seconds, 4e-3 + 1.6e-6);
    nt_matrix_destroy(A);
    // Edge tiles: 15 x 15 in 10 x 10 tiles on domain 0: sum of r c k / 10^3 = 15^3 / 10^3.
    A = descriptor(15, 10, 2, all0);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &k), NT_OK);
    EQ(k.work_seconds, 3.375e-3);
    // Two threads per domain halve the work, not the longest task (C(0,0): 10 x 10 x (10 + 5)).
    // Tasks are not split: in submission order C(0,0) 1.5 ms on one thread, C(0,1) 0.75 ms then
    // C(1,0) 0.75 ms on the other, then C(1,1) 0.375 ms after C(0,0): 1.875 ms, not 3.375 / 2.
    p->threads_per_domain = 2;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &k), NT_OK);
    EQ(k.work_seconds, 3.375e-3 / 2);
    EQ(k.path_seconds, 1.5e-3);
    EQ(k.seconds, 1.875e-3);
    // With four, the longest task sets the time.
    p->threads_per_domain = 4;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &k), NT_OK);
    EQ(k.seconds, 1.5e-3);
    nt_matrix_destroy(A);
    nt_profile_destroy(p);
}

Test(model, qr_by_hand)
{
    nt_profile_t *p = profile2();
    // GEQRT 1, UNMQR 2, TSQRT 3, TSMQR 4 ms on both domains.
    for (int d = 0; d < 2; d++) {
        p->tile_seconds[NT_TK_GEQRT][d] = 1e-3;
        p->tile_seconds[NT_TK_UNMQR][d] = 2e-3;
        p->tile_seconds[NT_TK_TSQRT][d] = 3e-3;
        p->tile_seconds[NT_TK_TSMQR][d] = 4e-3;
    }
    int all0[4] = {0, 0, 0, 0};
    nt_matrix_t *A = descriptor(20, 10, 2, all0);
    nt_kernel_pred_t k;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
    // Tasks: GEQRT(0), UNMQR(0,1), TSQRT(1,0), TSMQR(1,1), GEQRT(1): 1+2+3+4+1 = 11 ms of work.
    // Path: GEQRT 1, then TSQRT (ends 4) and UNMQR (ends 3), TSMQR after both (ends 8), GEQRT(1)
    // (ends 9).
    cr_assert_eq(k.tasks, 5);
    EQ(k.work_seconds, 11e-3);
    EQ(k.path_seconds, 9e-3);
    EQ(k.seconds, 11e-3);
    p->threads_per_domain = 2;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
    EQ(k.seconds, 9e-3);
    p->kernel_run_seconds = 1e-3; // a fixed cost per run
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
    EQ(k.seconds, 10e-3);
    EQ(k.path_seconds, 9e-3);
    p->kernel_run_seconds = 0;
    p->threads_per_domain = 1;
    nt_matrix_destroy(A);
    // Checkerboard, local and remote reads alike: GEQRT(0) on 0 ends at 1; on domain 1's one
    // thread TSQRT(1,0) (panel priority) runs 1-4, then UNMQR(0,1) 4-6; TSMQR(1,1) on 0 runs
    // 6-10, GEQRT(1) 10-11. Work (6 ms on domain 0) and path (9 ms) both underestimate it.
    int chk[4] = {0, 1, 1, 0};
    p->read_gbs[1] = p->read_gbs[2] = 1;
    A = descriptor(20, 10, 2, chk);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
    EQ(k.work_seconds, 6e-3);
    EQ(k.path_seconds, 9e-3);
    EQ(k.seconds, 11e-3);
    p->read_gbs[1] = p->read_gbs[2] = 0.5;
    nt_matrix_destroy(A);
    // Non-square tiles or a non-square GEMM are refused.
    nt_matrix_shape_t sh = {20, 30, 10, 10, 8};
    nt_matrix_t *R;
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc2d:1x2", 2, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &R), NT_OK);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, R, &k), NT_EINVAL);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, R, &k), NT_OK);
    cr_assert_eq(nt_model_kernel(p, (nt_advise_kernel)7, R, &k), NT_EINVAL);
    nt_matrix_destroy(R);
    nt_profile_destroy(p);
}

// ---- an independent task-graph evaluator -------------------------------------------------------

// Handles: tile (i,j) -> i*nt+j; R(k) -> mt*nt + k (the triangle TSQRT chains on, kept apart
// from tile (k,k) as lib/qr.c does). A task starts when the last writers of every handle it
// touches have finished.
typedef struct graph {
    const nt_profile_t *p;
    const nt_matrix_t *A;
    double *fin, *busy, path, remote;
    int64_t reads;
} graph;

static double tile_bytes(const nt_matrix_t *A, int64_t h)
{
    int64_t i = h / A->nt, j = h % A->nt;
    return (double)(nt_matrix_tile_rows(A, i) * nt_matrix_tile_cols(A, j)) * 8;
}

// touch[]: handles; loc[]: the tile whose domain holds each handle (for remote pricing).
static void run_task(graph *g, int k, int64_t wtile, double flops_scale, int n,
                     const int64_t *touch, const int64_t *loc, const bool *writes)
{
    const nt_profile_t *p = g->p;
    int d = g->A->owner[wtile], D = p->ndomains;
    double t = p->tile_seconds[k][d] * flops_scale + p->task_seconds, start = 0;
    for (int x = 0; x < n; x++) {
        start = fmax(start, g->fin[touch[x]]);
        int o = g->A->owner[loc[x]];
        if (loc[x] != wtile && o != d) {
            double s = tile_bytes(g->A, loc[x]) / 1e9 * (1 / p->read_gbs[o * D + d] -
                                                          1 / p->read_gbs[d * D + d]);
            t += fmax(s, 0);
            g->remote += fmax(s, 0);
            g->reads++;
        }
    }
    for (int x = 0; x < n; x++)
        if (writes[x])
            g->fin[touch[x]] = start + t;
    g->busy[d] += t;
    g->path = fmax(g->path, start + t);
}

static void oracle_qr(const nt_profile_t *p, const nt_matrix_t *A, nt_kernel_pred_t *out)
{
    int64_t mt = A->mt, nt = A->nt;
    graph g = {p, A, calloc((size_t)(mt * nt + nt), sizeof(double)),
               calloc((size_t)p->ndomains, sizeof(double)), 0, 0, 0};
    double nb3 = (double)(p->nb * p->nb * p->nb);
#define R(i) ((double)nt_matrix_tile_rows(A, i))
#define C(j) ((double)nt_matrix_tile_cols(A, j))
    for (int64_t k = 0; k < (mt < nt ? mt : nt); k++) {
        int64_t kk = k * nt + k, rk = mt * nt + k;
        run_task(&g, NT_TK_GEQRT, kk, R(k) * C(k) * C(k) / nb3, 2, (int64_t[]){kk, rk},
                 (int64_t[]){kk, kk}, (bool[]){true, true});
        for (int64_t j = k + 1; j < nt; j++)
            run_task(&g, NT_TK_UNMQR, k * nt + j, R(k) * C(j) * C(k) / nb3, 2,
                     (int64_t[]){kk, k * nt + j}, (int64_t[]){kk, k * nt + j},
                     (bool[]){false, true});
        for (int64_t i = k + 1; i < mt; i++) {
            int64_t ik = i * nt + k;
            run_task(&g, NT_TK_TSQRT, ik, R(i) * C(k) * C(k) / nb3, 2, (int64_t[]){rk, ik},
                     (int64_t[]){kk, ik}, (bool[]){true, true});
            for (int64_t j = k + 1; j < nt; j++)
                run_task(&g, NT_TK_TSMQR, i * nt + j, R(i) * C(j) * C(k) / nb3, 3,
                         (int64_t[]){ik, k * nt + j, i * nt + j},
                         (int64_t[]){ik, k * nt + j, i * nt + j}, (bool[]){false, true, true});
        }
    }
#undef R
#undef C
    out->path_seconds = g.path;
    out->work_seconds = 0;
    for (int d = 0; d < p->ndomains; d++)
        out->work_seconds = fmax(out->work_seconds, g.busy[d] / p->threads_per_domain);
    out->remote_seconds = g.remote;
    out->remote_reads = g.reads;
    free(g.fin);
    free(g.busy);
}

Test(model, qr_against_graph_oracle)
{
    nt_profile_t *p = profile2();
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < NT_TK_COUNT; k++)
            p->tile_seconds[k][d] = (1 + k) * (1 + 2 * d) * 1e-4;
    p->task_seconds = 3e-6;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        int64_t n = 17 + 9 * (int64_t)seed; // 26 .. 71: edge tiles of every size
        nt_matrix_shape_t sh = {n + 13 * (int64_t)(seed % 2), n, 10, 10, 8};
        nt_matrix_t *A;
        cr_assert_eq(nt_matrix_create_spec(NULL, &sh, seed % 3 ? "random:7" : "bc2d:2x1", 2,
                                           NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A), NT_OK);
        nt_kernel_pred_t k, o;
        cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
        oracle_qr(p, A, &o);
        EQ(k.path_seconds, o.path_seconds);
        EQ(k.work_seconds, o.work_seconds);
        EQ(k.remote_seconds, o.remote_seconds);
        cr_assert_eq(k.remote_reads, o.remote_reads);
        // The schedule is bounded below by both; with a thread per task nothing waits for a
        // thread, so it is the critical path exactly.
        cr_assert(k.seconds >= fmax(o.work_seconds, o.path_seconds) * (1 - 1e-12));
        p->threads_per_domain = 1000;
        cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
        EQ(k.seconds, o.path_seconds);
        p->threads_per_domain = 1;
        nt_matrix_destroy(A);
    }
    nt_profile_destroy(p);
}

// On one domain with one thread some task is always ready until all are done: the schedule is
// the sum of the task times, whatever the graph.
Test(model, qr_one_thread_is_the_work)
{
    nt_profile_t *p = profile2();
    for (int k = 0; k < NT_TK_COUNT; k++)
        p->tile_seconds[k][0] = (1 + k) * 1e-4;
    p->task_seconds = 3e-6;
    int zero[25] = {0}; // 47 x 47 in 10 x 10 tiles (edge tiles of 7), all on domain 0
    nt_matrix_t *A = descriptor(47, 10, 2, zero);
    nt_kernel_pred_t k, o;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &k), NT_OK);
    oracle_qr(p, A, &o);
    EQ(k.seconds, o.work_seconds);
    cr_assert(k.seconds > k.path_seconds);
    nt_matrix_destroy(A);
    nt_profile_destroy(p);
}

// ---- the list schedule on hand-made graphs ---------------------------------------------------

static double makespan(const nt_sim_task_t *t, int64_t n, int D, int threads)
{
    double ms = -1;
    cr_assert_eq(nt_model_schedule(t, n, D, threads, &ms), NT_OK, "%s", nt_last_error());
    return ms;
}

#define T(d_, prio_, s_, np_, ...)                                                           \
    ((nt_sim_task_t){.domain = d_, .prio = prio_, .seconds = s_, .npred = np_,                \
                     .pred = {__VA_ARGS__}})

Test(model, schedule_by_hand)
{
    // A chain: the sum, however many threads.
    nt_sim_task_t chain[3] = {T(0, 0, 1, 0, 0), T(0, 0, 2, 1, 0), T(0, 0, 3, 1, 1)};
    EQ(makespan(chain, 3, 1, 1), 6.0);
    EQ(makespan(chain, 3, 1, 2), 6.0);
    // Two independent tasks on one domain: one thread runs them in turn, two at once.
    nt_sim_task_t two[2] = {T(0, 0, 1, 0, 0), T(0, 0, 2, 0, 0)};
    EQ(makespan(two, 2, 1, 1), 3.0);
    EQ(makespan(two, 2, 1, 2), 2.0);
    // The same on two domains, one thread each.
    two[1].domain = 1;
    EQ(makespan(two, 2, 2, 1), 2.0);
    // Fork-join: 0 (1 s) then 1 (2 s) and 2 (3 s), then 3 (1 s) after both.
    nt_sim_task_t fj[4] = {T(0, 0, 1, 0, 0), T(0, 0, 2, 1, 0), T(1, 0, 3, 1, 0),
                           T(1, 0, 1, 2, 1, 2)};
    EQ(makespan(fj, 4, 2, 1), 5.0); // 1 + max(2, 3) + 1
    for (int x = 0; x < 4; x++)
        fj[x].domain = 0;
    EQ(makespan(fj, 4, 1, 1), 7.0); // one thread: all in turn
    EQ(makespan(fj, 4, 1, 2), 5.0);
    // Priority: after 0, domain 0's thread takes 2 (prio 1) before 1, so 3 on domain 1 starts
    // at 2 and ends at 12; with equal priorities the lower id goes first: 3 ends at 13.
    nt_sim_task_t pr[4] = {T(0, 0, 1, 0, 0), T(0, 0, 1, 1, 0), T(0, 1, 1, 1, 0),
                           T(1, 0, 10, 1, 2)};
    EQ(makespan(pr, 4, 2, 1), 12.0);
    pr[2].prio = 0;
    EQ(makespan(pr, 4, 2, 1), 13.0);
    // Nothing to run.
    EQ(makespan(NULL, 0, 1, 1), 0.0);
}

Test(model, schedule_bad_input)
{
    double ms = 42;
    nt_sim_task_t t[2] = {T(0, 0, 1, 0, 0), T(0, 0, 1, 1, 1)}; // 1 waits for itself
    cr_assert_eq(nt_model_schedule(t, 2, 1, 1, &ms), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "task 1"), "%s", nt_last_error());
    t[1].pred[0] = 0;
    t[1].domain = 2;
    cr_assert_eq(nt_model_schedule(t, 2, 2, 1, &ms), NT_EINVAL);
    t[1].domain = 1;
    cr_assert_eq(nt_model_schedule(t, 2, 2, 0, &ms), NT_EINVAL);
    t[1].seconds = -1;
    cr_assert_eq(nt_model_schedule(t, 2, 2, 1, &ms), NT_EINVAL);
    EQ(ms, 42.0); // untouched
    t[1].seconds = 1;
    EQ(makespan(t, 2, 2, 1), 2.0);
}

// nt_model_redist on real plans against a per-tile count (same geometry on both sides, so one
// segment per tile): tiles that keep their domain and have at least a page are adopted.
static void redist_case(int64_t nb)
{
    nt_topo_t *t;
    nt_topo_opts_t to = {.domains = 2};
    cr_assert_eq(nt_topo_load(&to, &t), NT_OK);
    nt_profile_t *p = profile2();
    nt_matrix_shape_t sh = {8 * nb + 3, 6 * nb, nb, nb, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "random:3", 2, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc2d:1x2", 2, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &T), NT_OK);
    nt_plan_opts_t po = {.explicit_segments = true};
    nt_plan_t *plan;
    cr_assert_eq(nt_plan_create(S, T, NULL, &po, &plan), NT_OK);
    int64_t copy[4] = {0}, fresh[2] = {0};
    size_t page = nt_mem_page_size();
    for (int64_t i = 0; i < S->mt; i++)
        for (int64_t j = 0; j < S->nt; j++) {
            int a = nt_matrix_tile_domain(S, i, j), b = nt_matrix_tile_domain(T, i, j);
            int64_t bytes = nt_matrix_tile_rows(S, i) * nt_matrix_tile_cols(S, j) * 8;
            if (a == b && (size_t)bytes >= page)
                continue;
            copy[a * 2 + b] += bytes;
            fresh[b] += bytes;
        }
    nt_redist_pred_t got, want;
    cr_assert_eq(nt_model_redist(p, plan, S, &got), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &want), NT_OK);
    cr_assert_eq(got.bytes_copied, want.bytes_copied, "nb %lld", (long long)nb);
    cr_assert_eq(got.bytes_fresh, want.bytes_fresh);
    EQ(got.free_seconds, want.free_seconds);
    EQ(got.steps_seconds, want.steps_seconds);
    EQ(got.alloc_seconds, want.alloc_seconds);
    nt_plan_destroy(plan);
    nt_matrix_destroy(T);
    nt_matrix_destroy(S);
    nt_profile_destroy(p);
    nt_topo_destroy(t);
}

Test(model, redist_against_tile_count)
{
    redist_case(4);  // 128-byte tiles: nothing adopted
    redist_case(64); // 32 KiB tiles: the ones that stay are adopted
}

Test(model, stencil_by_hand)
{
    nt_profile_t *p = profile2(); // reads: local 1 GB/s, remote 0.5 GB/s
    p->stencil_item_seconds = 1e-6;
    p->stencil_round_seconds = 1e-7;
    p->kernel_run_seconds = 5e-3;
    nt_dist1d_t *m;
    cr_assert_eq(nt_dist1d_create(8, 2, &m), NT_OK);
    for (int x = 4; x < 8; x++)
        m->owner[x] = 1; // 0 0 0 0 1 1 1 1 on a ring
    nt_stencil_pred_t r;
    cr_assert_eq(nt_model_stencil(p, m, 10, 3, &r), NT_OK);
    // Each domain: 4 items of 1 us + 10 x 0.1 us, and 2 halo items (its ring neighbours) of
    // 8 bytes at 0.5 GB/s instead of 1: 8 ns more each.
    cr_assert_eq(r.halo_items, 4);
    cr_assert_eq(r.max_items, 4);
    EQ(r.iter_seconds, 4 * 2e-6 + 2 * 8e-9);
    EQ(r.seconds, 3 * (4 * 2e-6 + 2 * 8e-9) + 5e-3);
    p->threads_per_domain = 2;
    p->task_seconds = 1e-6;
    cr_assert_eq(nt_model_stencil(p, m, 10, 3, &r), NT_OK);
    EQ(r.iter_seconds, 4 * 1e-6 + 2 * 8e-9 + 1e-6);
    cr_assert_eq(nt_model_stencil(p, m, -1, 3, &r), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "work"));
    nt_dist1d_destroy(m);
    nt_profile_destroy(p);
}

// The halo from the receiving side: domain e reads every foreign item next to one of its own.
Test(model, stencil_halo_against_receivers)
{
    nt_profile_t *p = profile2();
    p->stencil_item_seconds = 1e-7;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        int64_t n = 1 + (int64_t)(seed * 7 % 23);
        nt_dist1d_t *m;
        cr_assert_eq(nt_dist1d_balanced(n, 2, seed, &m), NT_OK);
        for (int64_t x = 0; x < n; x++)
            if ((seed + (uint64_t)x) % 5 == 0)
                m->owner[x] = 1 - m->owner[x]; // break the balance
        int64_t halo = 0, own[2] = {0, 0}, in[2] = {0, 0};
        for (int e = 0; e < 2; e++)
            for (int64_t y = 0; y < n; y++) {
                own[e] += m->owner[y] == e;
                if (n > 1 && m->owner[y] != e &&
                    (m->owner[(y + n - 1) % n] == e || m->owner[(y + 1) % n] == e)) {
                    halo++;
                    in[e]++;
                }
            }
        nt_stencil_pred_t r;
        cr_assert_eq(nt_model_stencil(p, m, 0, 1, &r), NT_OK);
        cr_assert_eq(r.halo_items, halo, "seed %llu", (unsigned long long)seed);
        double want = fmax(own[0] * 1e-7 + in[0] * 8e-9, own[1] * 1e-7 + in[1] * 8e-9);
        EQ(r.iter_seconds, want);
        nt_dist1d_destroy(m);
    }
    nt_profile_destroy(p);
}
