// 1D 3-point circular stencil on domains.
// Oracles: the sequential double-buffered loop with the same update function (compared bit for
// bit), and the halo volume recomputed per item from its neighbours' domains.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile.h"
#include "numatile/dist.h"
#include "numatile/kernels.h"

static void reference(double *v, int64_t n, int64_t iters, int64_t work)
{
    double *w = malloc((size_t)n * sizeof *w);
    cr_assert_not_null(w);
    for (int64_t it = 0; it < iters; it++) {
        for (int64_t x = 0; x < n; x++)
            w[x] = nt_stencil_update(v[(x + n - 1) % n], v[x], v[(x + 1) % n], work);
        memcpy(v, w, (size_t)n * sizeof *v);
    }
    free(w);
}

// Halo items per iteration: item y is pulled once by every other domain owning one of its
// neighbours.
static int64_t expected_halo(const nt_dist1d_t *m)
{
    int64_t h = 0, n = m->n;
    for (int64_t y = 0; y < n; y++) {
        int a = m->owner[(y + n - 1) % n], b = m->owner[(y + 1) % n], o = m->owner[y];
        h += (a != o) + (b != o && b != a);
    }
    return h;
}

static nt_topo_t *topo_of(int D)
{
    nt_topo_opts_t o = {.domains = D};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    return t;
}

static void run_case(const nt_topo_t *t, const nt_dist1d_t *map, int64_t iters, int64_t work,
                     int tpd)
{
    int64_t n = map->n;
    double *v = malloc((size_t)n * sizeof *v), *ref = malloc((size_t)n * sizeof *ref);
    nt_rng r = {(uint64_t)(n * 31 + iters)};
    for (int64_t x = 0; x < n; x++)
        v[x] = ref[x] = nt_rng_unit(&r) * 100.0 - 50.0;
    reference(ref, n, iters, work);
    nt_stencil_opts_t o = {.iters = iters, .work = work, .threads_per_domain = tpd};
    nt_stencil_stats_t s;
    cr_assert_eq(nt_stencil_run(t, map, v, &o, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(memcmp(v, ref, (size_t)n * sizeof *v), 0,
                 "n %lld iters %lld: result differs from the sequential loop", (long long)n,
                 (long long)iters);
    cr_assert_eq(s.halo_items, expected_halo(map) * iters);
    cr_assert_eq(s.halo_bytes, 8 * s.halo_items);
    cr_assert_eq(s.updates, n * iters);
    cr_assert_eq(s.owner_fraction, 1.0, "owner fraction %g", s.owner_fraction);
    free(v);
    free(ref);
}

Test(stencil, equals_sequential_loop_bit_for_bit_1_to_8_domains)
{
    for (int D = 1; D <= 8; D++) {
        nt_topo_t *t = topo_of(D);
        int64_t sizes[] = {1, 2, 3, 17, 500};
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int64_t n = sizes[s];
            nt_dist1d_t *blk = NULL, *bal = NULL, *rnd = NULL;
            cr_assert_eq(nt_dist1d_block(n, D, &blk), NT_OK);
            cr_assert_eq(nt_dist1d_balanced(n, D, (uint64_t)D, &bal), NT_OK);
            cr_assert_eq(nt_dist1d_create(n, D, &rnd), NT_OK);
            nt_rng r = {(uint64_t)(D * 100 + n)};
            for (int64_t x = 0; x < n; x++)
                rnd->owner[x] = (int)nt_rng_below(&r, (uint64_t)D);
            run_case(t, blk, 3, 0, 0);
            run_case(t, bal, 4, 2, 0);
            run_case(t, rnd, 5, 0, D <= 2 ? 2 : 1);
            nt_dist1d_destroy(blk);
            nt_dist1d_destroy(bal);
            nt_dist1d_destroy(rnd);
        }
        if (D >= 2) {
            nt_dist1d_t *skw = NULL;
            cr_assert_eq(nt_dist1d_skewed(D, 20, 0.5, 3, &skw), NT_OK);
            run_case(t, skw, 9, 1, 0);
            run_case(t, skw, 0, 0, 0);
            nt_dist1d_destroy(skw);
        }
        nt_topo_destroy(t);
    }
}

Test(stencil, map_with_fewer_domains_than_the_topology)
{
    nt_topo_t *t = topo_of(4);
    nt_dist1d_t *m = NULL;
    cr_assert_eq(nt_dist1d_block(40, 2, &m), NT_OK);
    run_case(t, m, 6, 0, 0);
    nt_dist1d_destroy(m);
    nt_topo_destroy(t);
}

Test(stencil, invalid_input_is_rejected_and_values_untouched)
{
    nt_topo_t *t = topo_of(2);
    nt_dist1d_t *m = NULL;
    cr_assert_eq(nt_dist1d_block(10, 2, &m), NT_OK);
    double v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, v0[10];
    memcpy(v0, v, sizeof v);
    nt_stencil_opts_t o = {.iters = 2};
    cr_assert_eq(nt_stencil_run(NULL, m, v, &o, NULL), NT_EINVAL);
    cr_assert_eq(nt_stencil_run(t, NULL, v, &o, NULL), NT_EINVAL);
    cr_assert_eq(nt_stencil_run(t, m, NULL, &o, NULL), NT_EINVAL);
    cr_assert_eq(nt_stencil_run(t, m, v, NULL, NULL), NT_EINVAL);
    nt_stencil_opts_t bad = {.iters = -1};
    cr_assert_eq(nt_stencil_run(t, m, v, &bad, NULL), NT_EINVAL);
    bad = (nt_stencil_opts_t){.iters = 1, .work = -3};
    cr_assert_eq(nt_stencil_run(t, m, v, &bad, NULL), NT_EINVAL);
    m->owner[4] = 2;
    cr_assert_eq(nt_stencil_run(t, m, v, &o, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "item 4"), "%s", nt_last_error());
    m->owner[4] = 0;
    nt_dist1d_t *m3 = NULL;
    cr_assert_eq(nt_dist1d_block(10, 3, &m3), NT_OK);
    cr_assert_eq(nt_stencil_run(t, m3, v, &o, NULL), NT_EINVAL);
    cr_assert_eq(memcmp(v, v0, sizeof v), 0);
    nt_dist1d_destroy(m);
    nt_dist1d_destroy(m3);
    nt_topo_destroy(t);
}
