// Periodic plans (plan_periodic.c: block-cyclic maps, ScaLAPACK layouts on both sides). Oracles:
// a naive per-element owner computation (for every element of the submatrix: the source tile
// and domain that hold it, found by division, and the relabelled target domain) against the
// segments nt_plan_foreach_segment() generates and against the plan's counts; the same plan
// built with stored segments (a second, independent construction) for every count.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_util.h"

typedef struct walk {
    const nt_matrix_t *S, *T;
    const nt_sub_t *s;
    const int *sigma;
    unsigned char *cover;
    int64_t *pair, *segpair;
    int D;
    int64_t n;
} walk;

// Every element of a generated segment against the per-element owners.
static int check_segment(const nt_segment_t *g, void *arg)
{
    walk *w = arg;
    const nt_matrix_t *S = w->S, *T = w->T;
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    cr_assert(g->rows >= 1 && g->cols >= 1);
    cr_assert(g->src_row + g->rows <= nt_matrix_tile_rows(S, si));
    cr_assert(g->dst_col + g->cols <= nt_matrix_tile_cols(T, tj));
    for (int32_t v = 0; v < g->cols; v++)
        for (int32_t u = 0; u < g->rows; u++) {
            int64_t x = ti * T->mb + g->dst_row + u - w->s->dst_row;
            int64_t y = tj * T->nb + g->dst_col + v - w->s->dst_col;
            cr_assert(x >= 0 && x < w->s->rows && y >= 0 && y < w->s->cols);
            int64_t sr = w->s->src_row + x, sc = w->s->src_col + y;
            cr_assert_eq(sr, si * S->mb + g->src_row + u);
            cr_assert_eq(sc, sj * S->nb + g->src_col + v);
            int sd = nt_matrix_tile_domain(S, sr / S->mb, sc / S->nb);
            int td = w->sigma[T->owner[ti * T->nt + tj]];
            cr_assert_eq(g->src_dom, sd, "source domain of element (%lld,%lld)",
                         (long long)x, (long long)y);
            cr_assert_eq(g->dst_dom, td);
            w->cover[x * w->s->cols + y]++;
            w->pair[sd * w->D + td] += (int64_t)S->elem_size;
        }
    w->segpair[g->src_dom * w->D + g->dst_dom]++;
    w->n++;
    return 0;
}

// The periodic plan's segments cover every element once with the right owners; its counts are
// the oracle's and those of the same plan built with stored segments.
static void check_periodic(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                           const nt_plan_opts_t *po, int D)
{
    nt_plan_t *p, *q;
    cr_assert_eq(nt_plan_create(S, T, s, po, &p), NT_OK, "%s", nt_last_error());
    nt_plan_opts_t eo = *po;
    eo.explicit_segments = true;
    cr_assert_eq(nt_plan_create(S, T, s, &eo, &q), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I, J;
    nt_plan_info(p, &I);
    nt_plan_info(q, &J);
    cr_assert(I.periodic && !J.periodic);
    cr_assert_null(nt_plan_segments(p));
    walk w = {S, T, s, nt_plan_sigma(p, NULL), calloc((size_t)(s->rows * s->cols) + 1, 1),
              calloc((size_t)(D * D), sizeof(int64_t)), calloc((size_t)(D * D), sizeof(int64_t)),
              D, 0};
    cr_assert_eq(nt_plan_foreach_segment(p, check_segment, &w), NT_OK);
    for (int64_t e = 0; e < s->rows * s->cols; e++)
        cr_assert_eq(w.cover[e], 1, "element %lld covered %d times", (long long)e, w.cover[e]);
    cr_assert_eq(w.n, I.segments);
    cr_assert_eq(memcmp(w.pair, nt_plan_pair_bytes(p), (size_t)(D * D) * sizeof(int64_t)), 0);
    cr_assert_eq(memcmp(w.segpair, nt_plan_pair_segments(p), (size_t)(D * D) * sizeof(int64_t)),
                 0, "segments per pair");
    // Everything counted equals the stored plan's (same sigma: same objective, same counts).
    cr_assert_eq(memcmp(nt_plan_sigma(p, NULL), nt_plan_sigma(q, NULL),
                        (size_t)T->ndomains * sizeof(int)), 0);
    cr_assert_eq(I.segments, J.segments);
    cr_assert_eq(I.tiles, J.tiles);
    cr_assert_eq(I.volume_tiles, J.volume_tiles, "volume tiles %lld vs %lld",
                 (long long)I.volume_tiles, (long long)J.volume_tiles);
    cr_assert_eq(I.steps, J.steps);
    cr_assert_eq(I.steps_bytes, J.steps_bytes);
    cr_assert_eq(I.fast_path, J.fast_path);
    cr_assert_eq(memcmp(I.category_tiles, J.category_tiles, sizeof I.category_tiles), 0);
    cr_assert_eq(memcmp(I.part_segments, J.part_segments, sizeof I.part_segments), 0);
    cr_assert(I.memory_bytes < J.memory_bytes || I.segments == 0);
    free(w.cover);
    free(w.pair);
    free(w.segpair);
    nt_plan_destroy(p);
    nt_plan_destroy(q);
}

Test(periodic_plan, plans_match_the_per_element_oracle)
{
    nt_rng g = {20261124};
    for (int k = 0; k < NPLANS; k++) {
        int64_t m = rnd(&g, 1, 90), n = rnd(&g, 1, 90);
        nt_matrix_t *S = random_bc(&g, NULL, m, n, (size_t)rnd(&g, 1, 16), NT_MATRIX_NOALLOC);
        int64_t mt = rnd(&g, 0, 1) ? m : rnd(&g, 1, 90), ntc = rnd(&g, 0, 1) ? n : rnd(&g, 1, 90);
        nt_matrix_t *T = random_bc(&g, NULL, mt, ntc, S->elem_size, NT_MATRIX_NOALLOC);
        nt_sub_t s = random_sub(&g, S, T);
        int D = S->ndomains > T->ndomains ? S->ndomains : T->ndomains;
        nt_plan_opts_t po = {.relabel = T->ndomains <= D ? (nt_match_objective)rnd(&g, 0, 3)
                                                         : NT_MATCH_CANONICAL};
        check_periodic(S, T, &s, &po, D);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

// The element-cyclic case of issue 12 (4096^2, CYCLIC(1) on 2x2 -> CYCLIC(3) on 4x1): 16.7
// million segments, none stored; the plan stays far below 16 MiB.
Test(periodic_plan, element_cyclic_plan_is_small)
{
    nt_matrix_shape_t a = {4096, 4096, 1, 1, 8}, b = {4096, 4096, 3, 3, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &S), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(NULL, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I;
    nt_plan_info(p, &I);
    cr_assert(I.periodic);
    cr_assert_eq(I.segments, (int64_t)4096 * 4096);
    cr_assert_lt(I.memory_bytes, (int64_t)16 << 20, "plan holds %lld bytes",
                 (long long)I.memory_bytes);
    cr_log_info("element-cyclic 4096^2 plan: %lld bytes, %.4f s", (long long)I.memory_bytes,
                I.seconds);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}
