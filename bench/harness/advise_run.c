// adv_run(): one measured candidate (see advise_run.h).
#include "advise_run.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "numatile/kernels.h"
#include "numatile/plan.h"

// One operand on `from`, filled when fill, then moved to target (if any); *op gets the result.
static nt_status place(const nt_topo_t *t, const nt_matrix_shape_t *sh, const nt_tilemap_t *from,
                       const int *target, nt_exec_schedule sched, bool fill, uint64_t seed,
                       nt_matrix_t **op, adv_measured *m)
{
    nt_matrix_t *src = NULL, *dst = NULL;
    nt_tilemap_t *map = NULL;
    nt_plan_t *plan = NULL;
    nt_exec_stats_t es = {0};
    nt_status st = nt_matrix_create(t, sh, from, NT_LAYOUT_TILE, 0, &src);
    if (!st && fill)
        st = nt_matrix_fill(src, bench_fill_fn, &seed);
    if (st || !target) {
        if (st)
            nt_matrix_destroy(src);
        else
            *op = src;
        return st;
    }
    nt_plan_opts_t po = {.explicit_segments = true};
    nt_exec_opts_t eo = {.schedule = sched};
    if (!(st = nt_tilemap_create(from->mt, from->nt, nt_topo_ndomains(t), &map))) {
        memcpy(map->owner, target, (size_t)(from->mt * from->nt) * sizeof *target);
        st = nt_matrix_create(t, sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &dst);
    }
    if (!st)
        st = nt_plan_create(src, dst, NULL, &po, &plan);
    if (!st)
        st = nt_plan_execute(plan, src, dst, &eo, &es);
    if (!st) {
        m->redist_seconds += es.alloc_seconds + es.seconds;
        m->bytes_copied += es.bytes_copied;
        *op = dst;
        dst = NULL;
    }
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    nt_tilemap_destroy(map);
    nt_matrix_destroy(dst);
    nt_matrix_destroy(src); // adopted tiles belong to the target now
    return st;
}

nt_status adv_run(const nt_topo_t *t, const nt_matrix_shape_t *sh, const nt_tilemap_t *from,
                  const int *target, nt_advise_kernel k, nt_exec_schedule sched, int threads,
                  uint64_t seed, adv_measured *out)
{
    adv_measured m = {0};
    nt_matrix_t *A = NULL, *B = NULL, *C = NULL;
    nt_kernel_opts_t ko = {.threads_per_domain = threads};
    nt_kernel_stats_t ks = {0};
    nt_status st = place(t, sh, from, target, sched, true, seed, &A, &m);
    if (!st && k == NT_ADVISE_GEMM) {
        if (!(st = place(t, sh, from, target, sched, true, seed + 1, &B, &m)) &&
            !(st = place(t, sh, from, target, sched, false, 0, &C, &m)))
            st = nt_gemm(1.0, A, B, 0.0, C, &ko, &ks);
    } else if (!st) {
        nt_qr_t *qr = NULL;
        st = nt_qr_factor(A, &ko, &qr, &ks);
        nt_qr_destroy(qr);
    }
    m.kernel_seconds = ks.seconds;
    nt_kernel_stats_free(&ks);
    nt_matrix_destroy(C);
    nt_matrix_destroy(B);
    nt_matrix_destroy(A);
    if (!st)
        *out = m;
    return st;
}
