// The copy kernels (lib/matrix/copy.c) against a naive element loop: every strategy, many shapes,
// element sizes, leading dimensions and misaligned pointers; the bytes around the block must
// stay untouched. Then executions large enough to split segments across a domain's threads
// and to stream, against the pattern oracle.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "nt_core.h"
#include "lib/matrix/nt_copy.h"

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// One block copy with kernel `kind` and `flags`, checked byte for byte against the naive loop
// on the whole destination buffer (so writes outside the block are caught too).
static void check_one(nt_rng *g, int64_t rows, int64_t cols, size_t es, nt_copy_kind kind,
                      unsigned flags)
{
    int64_t lds = rows + (rnd(g, 0, 2) ? rnd(g, 0, 9) : 0);
    int64_t ldd = rows + (rnd(g, 0, 2) ? rnd(g, 0, 9) : 0);
    if (cols == 1 && rnd(g, 0, 3) == 0)
        lds = ldd = 1; // any leading dimension is allowed for one column
    size_t soff = (size_t)rnd(g, 0, 63), doff = (size_t)rnd(g, 0, 63);
    size_t slen = soff + ((size_t)(cols - 1) * (size_t)lds + (size_t)rows) * es + 64;
    size_t dlen = doff + ((size_t)(cols - 1) * (size_t)ldd + (size_t)rows) * es + 64;
    unsigned char *src = malloc(slen), *dst = malloc(dlen), *want = malloc(dlen);
    cr_assert(src && dst && want);
    for (size_t k = 0; k < slen; k++)
        src[k] = (unsigned char)nt_rng_next(g);
    memset(dst, 0xA5, dlen);
    memset(want, 0xA5, dlen);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            for (size_t b = 0; b < es; b++)
                want[doff + ((size_t)j * (size_t)ldd + (size_t)i) * es + b] =
                    src[soff + ((size_t)j * (size_t)lds + (size_t)i) * es + b];
    nt_copy_2d_ex(dst + doff, ldd, src + soff, lds, rows, cols, es, flags, kind);
    cr_assert_eq(memcmp(dst, want, dlen), 0,
                 "kind %d flags %u: %lld x %lld of %zu bytes, lds %lld ldd %lld, offsets %zu %zu",
                 (int)kind, flags, (long long)rows, (long long)cols, es, (long long)lds,
                 (long long)ldd, soff, doff);
    free(src);
    free(dst);
    free(want);
}

static const size_t elem_sizes[] = {1, 2, 4, 8, 16, 24};
static const int64_t col_counts[] = {1, 2, 3, 7, 70};

Test(copy, every_kernel_matches_the_element_loop)
{
    nt_rng g = {2024};
    const nt_copy_kind kinds[] = {NT_COPY_AUTO, NT_COPY_COLUMNS, NT_COPY_BLOCKED, NT_COPY_NT};
    for (int64_t rows = 1; rows <= 70; rows++)
        for (size_t e = 0; e < sizeof elem_sizes / sizeof *elem_sizes; e++)
            for (size_t c = 0; c < sizeof col_counts / sizeof *col_counts; c++)
                for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
                    check_one(&g, rows, col_counts[c], elem_sizes[e], kinds[k],
                              rnd(&g, 0, 1) ? NT_COPY_STREAM : 0);
}

// Random columns 1..70, and the plain entry point.
Test(copy, random_shapes_and_the_plain_entry)
{
    nt_rng g = {77};
    for (int it = 0; it < 3000; it++) {
        int64_t rows = rnd(&g, 1, 70), cols = rnd(&g, 1, 70);
        size_t es = elem_sizes[rnd(&g, 0, 5)];
        check_one(&g, rows, cols, es, (nt_copy_kind)rnd(&g, 0, 3),
                  rnd(&g, 0, 1) ? NT_COPY_STREAM : 0);
    }
    int64_t a[12], b[16] = {0};
    for (int k = 0; k < 12; k++)
        a[k] = k + 1;
    nt_copy_2d(b, 4, a, 3, 3, 4, sizeof *a); // 3 x 4 from ld 3 into ld 4
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            cr_assert_eq(b[j * 4 + i], i < 3 ? a[j * 3 + i] : 0);
}

// Blocks large enough for the streaming path under AUTO + NT_COPY_STREAM (whole lines,
// partial ends, misaligned sides), and empty blocks copy nothing.
Test(copy, large_blocks_stream_correctly)
{
    nt_rng g = {5};
    for (int it = 0; it < 24; it++) {
        int64_t rows = rnd(&g, 100, 3000), cols = rnd(&g, 1, 40);
        size_t es = elem_sizes[rnd(&g, 0, 5)];
        check_one(&g, rows, cols, es, NT_COPY_AUTO, NT_COPY_STREAM);
        check_one(&g, rows, cols, es, NT_COPY_NT, 0);
    }
    char x = 1, y = 2;
    nt_copy_2d(&y, 1, &x, 1, 0, 5, 1);
    nt_copy_2d(&y, 1, &x, 1, 5, 0, 1);
    cr_assert_eq(y, 2);
}

// An execution whose segments exceed twice the split size (column shares on two threads of
// one domain, and on one thread of each of two domains) and whose volume streams.
Test(copy, large_execution_splits_and_streams)
{
    for (int D = 1; D <= 2; D++) {
        nt_topo_t *t = NULL;
        cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = D}, &t), NT_OK, "%s",
                     nt_last_error());
        nt_matrix_shape_t ss = {3000, 2900, 1500, 1450, 8}, ts = {3000, 2900, 1000, 1000, 8};
        nt_matrix_t *S = NULL, *T = NULL;
        nt_plan_t *p = NULL;
        cr_assert_eq(nt_matrix_create_spec(t, &ss, "random:3", D, NT_LAYOUT_TILE, 0, &S), NT_OK);
        cr_assert_eq(nt_matrix_create_spec(t, &ts, D == 1 ? "bc2d:1x1" : "bc2d:1x2", 0,
                                           NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T),
                     NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_matrix_fill_pattern(S, 99), NT_OK);
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
        nt_exec_opts_t o = {.threads_per_domain = 3 - D, .no_keep = true, .measure_bound = true};
        nt_exec_stats_t st;
        cr_assert_eq(nt_plan_execute(p, S, T, &o, &st), NT_OK, "%s", nt_last_error());
        int64_t bad = -1;
        cr_assert_eq(nt_matrix_check_pattern(T, 99, 0, 0, 3000, 2900, 0, 0, &bad), NT_OK);
        cr_assert_eq(bad, 0);
        cr_assert_eq(st.bytes_copied, (int64_t)3000 * 2900 * 8);
        // More tasks than segments: the large ones were split.
        nt_plan_info_t info;
        cr_assert_eq(nt_plan_info(p, &info), NT_OK);
        cr_assert_gt(st.tasks, info.segments);
        cr_assert_gt(st.bound_seconds, 0);
        nt_exec_stats_free(&st);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
        nt_topo_destroy(t);
    }
}

static nt_matrix_t *random_matrix(nt_rng *g, const nt_topo_t *t, int D, int64_t m, int64_t n,
                                  size_t es, unsigned flags)
{
    nt_matrix_shape_t sh = {m, n, rnd(g, 1, 40), rnd(g, 1, 40), es};
    char spec[32];
    if (rnd(g, 0, 1))
        snprintf(spec, sizeof spec, "random:%d", (int)rnd(g, 0, 99));
    else
        snprintf(spec, sizeof spec, "bc2d:1x%d", D);
    nt_layout lay = rnd(g, 0, 2) == 0 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
    nt_matrix_t *A = NULL;
    nt_status st = nt_matrix_create_spec(t, &sh, spec, D, lay, flags, &A);
    if (st == NT_EINVAL && lay == NT_LAYOUT_SCALAPACK)
        st = nt_matrix_create_spec(t, &sh, spec, D, NT_LAYOUT_TILE, flags, &A);
    cr_assert_eq(st, NT_OK, "%s: %s", spec, nt_last_error());
    return A;
}

// Elements outside the submatrix of a fresh target stay zero.
static int64_t nonzero_outside(const nt_matrix_t *T, const nt_sub_t *s)
{
    int64_t nz = 0;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t r = 0; r < T->m; r++) {
            if (r >= s->dst_row && r < s->dst_row + s->rows && c >= s->dst_col &&
                c < s->dst_col + s->cols)
                continue;
            const unsigned char *e = nt_matrix_elem(T, r, c);
            for (size_t b = 0; b < T->elem_size; b++)
                nz += e[b] != 0;
        }
    return nz;
}

// Small random executions with streaming forced on (streamed segments of every shape,
// submatrices, ScaLAPACK-layout targets, one-port phases, copies on the source side, every
// copy order (source order copies bands of pieces column by column), two threads per domain),
// against the pattern oracle.
Test(copy, streaming_executions_match_the_oracle)
{
    nt_topo_t *topos[5] = {NULL};
    for (int D = 1; D <= 4; D++)
        cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = D}, &topos[D]), NT_OK);
    nt_copy_test_stream_above(0);
    nt_rng g = {4242};
    for (int it = 0; it < 150; it++) {
        int D = (int)rnd(&g, 1, 4);
        size_t es = (size_t)(rnd(&g, 0, 1) ? 8 : rnd(&g, 1, 24));
        int64_t m = rnd(&g, 1, 120), n = rnd(&g, 1, 120);
        nt_matrix_t *S = random_matrix(&g, topos[D], D, m, n, es, 0);
        nt_matrix_t *T = random_matrix(&g, topos[D], D, m, n, es, NT_MATRIX_NOALLOC);
        uint64_t seed = nt_rng_next(&g);
        cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
        nt_sub_t s = {m, n, 0, 0, 0, 0};
        if (rnd(&g, 0, 1)) {
            s.rows = rnd(&g, 0, m);
            s.cols = rnd(&g, 0, n);
            s.src_row = rnd(&g, 0, m - s.rows);
            s.src_col = rnd(&g, 0, n - s.cols);
            s.dst_row = rnd(&g, 0, m - s.rows);
            s.dst_col = rnd(&g, 0, n - s.cols);
        }
        nt_plan_opts_t po = {.schedule = rnd(&g, 0, 3) == 0};
        nt_plan_t *p = NULL;
        cr_assert_eq(nt_plan_create(S, T, &s, &po, &p), NT_OK, "%s", nt_last_error());
        nt_exec_opts_t o = {.threads_per_domain = (int)rnd(&g, 0, 2), .no_keep = true,
                            .on_source = rnd(&g, 0, 3) == 0,
                            .schedule = po.schedule ? NT_SCHED_STEPS : NT_SCHED_FREE,
                            .order = (nt_exec_order)rnd(&g, 0, 3)};
        cr_assert_eq(nt_plan_execute(p, S, T, &o, NULL), NT_OK, "%s", nt_last_error());
        int64_t bad = -1;
        cr_assert_eq(nt_matrix_check_pattern(T, seed, s.dst_row, s.dst_col, s.rows, s.cols,
                                             s.src_row - s.dst_row, s.src_col - s.dst_col,
                                             &bad), NT_OK);
        cr_assert_eq(bad, 0, "case %d: %lld target elements differ", it, (long long)bad);
        cr_assert_eq(nonzero_outside(T, &s), 0, "case %d", it);
        nt_plan_destroy(p);
        nt_matrix_destroy(T);
        nt_matrix_destroy(S);
    }
    nt_copy_test_stream_above(-1);
    for (int D = 1; D <= 4; D++)
        nt_topo_destroy(topos[D]);
}
