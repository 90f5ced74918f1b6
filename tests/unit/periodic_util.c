// Shared helpers of the periodic tests (test_periodic_*.c): random ScaLAPACK matrices and
// submatrices, the 16-domain topology of their suites, element checks, guarded source columns
// and the run patterns of periodic_runs.c; documented in periodic_util.h.
#include "periodic_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

nt_topo_t *topo4;

int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

nt_matrix_t *random_bc(nt_rng *g, const nt_topo_t *t, int64_t m, int64_t n, size_t es,
                       unsigned flags)
{
    int p = (int)rnd(g, 1, 4), q = (int)rnd(g, 1, 4);
    int64_t mb = rnd(g, 0, 2) ? rnd(g, 1, 8) : rnd(g, 1, 64);
    int64_t nb = rnd(g, 0, 2) ? rnd(g, 1, 8) : rnd(g, 1, 64);
    char spec[64];
    if (rnd(g, 0, 3) == 0)
        snprintf(spec, sizeof spec, "bc2d:%dx%d:%dx%d", p, q, (int)rnd(g, 1, 3),
                 (int)rnd(g, 1, 3));
    else
        snprintf(spec, sizeof spec, "bc2d:%dx%d", p, q);
    nt_matrix_shape_t sh = {m, n, mb, nb, es};
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, 0, NT_LAYOUT_SCALAPACK, flags, &A), NT_OK,
                 "%s: %s", spec, nt_last_error());
    return A;
}

nt_sub_t random_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T)
{
    nt_sub_t s;
    int64_t mr = S->m < T->m ? S->m : T->m, mc = S->n < T->n ? S->n : T->n;
    s.rows = rnd(g, 0, 3) ? rnd(g, 1, mr) : mr;
    s.cols = rnd(g, 0, 3) ? rnd(g, 1, mc) : mc;
    s.src_row = rnd(g, 0, S->m - s.rows);
    s.src_col = rnd(g, 0, S->n - s.cols);
    s.dst_row = rnd(g, 0, T->m - s.rows);
    s.dst_col = rnd(g, 0, T->n - s.cols);
    return s;
}

void exec_setup(void)
{
    nt_topo_opts_t o = {.domains = 16};
    cr_assert_eq(nt_topo_load(&o, &topo4), NT_OK, "%s", nt_last_error());
}

void exec_teardown(void)
{
    nt_topo_destroy(topo4);
}

int64_t nonzero_outside(const nt_matrix_t *T, const nt_sub_t *s)
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

void check_and_free(nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *p, const nt_sub_t *s,
                    uint64_t seed, int k)
{
    int64_t bad;
    cr_assert_eq(nt_matrix_check_pattern(T, seed, s->dst_row, s->dst_col, s->rows, s->cols,
                                         s->src_row - s->dst_row, s->src_col - s->dst_col,
                                         &bad), NT_OK);
    cr_assert_eq(bad, 0, "case %d: %lld target elements differ from the source", k,
                 (long long)bad);
    cr_assert_eq(nonzero_outside(T, s), 0, "case %d: target written outside", k);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

void bench_grids(int64_t m, int64_t n, int64_t smb, int64_t snb, int64_t tmb, int64_t tnb,
                 nt_matrix_t **S, nt_matrix_t **T)
{
    nt_matrix_shape_t a = {m, n, smb, snb, 8}, b = {m, n, tmb, tnb, 8};
    cr_assert_eq(nt_matrix_create_spec(topo4, &a, "bc2d:2x2", 0, NT_LAYOUT_SCALAPACK, 0, S),
                 NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(topo4, &b, "bc2d:4x1", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, T),
                 NT_OK, "%s", nt_last_error());
}

nt_plan_t *global_exec(nt_rng *g, nt_matrix_t *S, nt_matrix_t *T, const nt_sub_t *s,
                       uint64_t seed)
{
    cr_assert_eq(nt_matrix_fill_pattern(S, seed), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, s, NULL, &p), NT_OK, "%s", nt_last_error());
    nt_exec_opts_t eo = {.order = NT_ORDER_GLOBAL, .threads_per_domain = (int)rnd(g, 0, 2)};
    cr_assert_eq(nt_plan_execute(p, S, T, &eo, NULL), NT_OK, "%s", nt_last_error());
    return p;
}

nt_matrix_t *rows_bc(nt_rng *g, int64_t m, int64_t n, int64_t mb, int nbmax, unsigned flags)
{
    char spec[32];
    snprintf(spec, sizeof spec, "bc2d:%dx%d", (int)rnd(g, 1, 4), (int)rnd(g, 1, 4));
    nt_matrix_shape_t sh = {m, n, mb, rnd(g, 1, nbmax), 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(topo4, &sh, spec, 0, NT_LAYOUT_SCALAPACK, flags, &A),
                 NT_OK, "%s: %s", spec, nt_last_error());
    return A;
}

int64_t cyc_local(int64_t g, int64_t r, int p)
{
    return g / (r * p) * r + g % r;
}

void guard_map(char **base, int n)
{
    for (int a = 0; a < n; a++) {
        base[a] = mmap(NULL, 2 * GUARD_PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        cr_assert_neq(base[a], MAP_FAILED);
        cr_assert_eq(mprotect(base[a] + GUARD_PG, GUARD_PG, PROT_NONE), 0);
    }
}

void guard_unmap(char **base, int n)
{
    for (int a = 0; a < n; a++)
        munmap(base[a], 2 * GUARD_PG);
}

const char *guard_column(char *base, int a, int64_t len)
{
    double *c = (double *)(void *)(base + GUARD_PG) - len;
    for (int64_t e = 0; e < len; e++)
        c[e] = 1000.0 * a + (double)e;
    return (const char *)c;
}

bool find_pattern(const prun *r, int n, bool unit, plist *L)
{
    for (int k = 1; k <= MAX_PERIOD && k < n; k++) {
        int64_t ds = r[k].sl - r[0].sl, dt = r[k].tl - r[0].tl;
        int e = 0;
        while (e + k < n && r[e + k].a == r[e].a && r[e + k].b == r[e].b &&
               r[e + k].len == r[e].len && r[e + k].sl - r[e].sl == ds &&
               r[e + k].tl - r[e].tl == dt)
            e++;
        if (e + k == n) {
            *L = (plist){k, n / k, n % k, ds, dt, unit};
            return true;
        }
    }
    return false;
}

void check_rows(char *const *dcol, int S, int smb, int P, int tmb, int os, int m, int shift)
{
    nt_copy_fence();
    for (int x = 0; x < m; x++) {
        int64_t g = os + x;
        double want = 1000.0 * (double)(g / smb % S) + (double)cyc_local(g, smb, S);
        double got = ((double *)(void *)dcol[x / tmb % P])[cyc_local(x, tmb, P)];
        cr_assert_eq(got, want, "S %d smb %d P %d tmb %d os %d m %d shift %d row %d", S, smb,
                     P, tmb, os, m, shift, x);
    }
}

int64_t lcm(int64_t a, int64_t b)
{
    return a / nt_gcd64(a, b) * b;
}

bool block_rows(int S, int smb, int P, int tmb, int os, int m, prun *r, int *nr, plist *L)
{
    int n = 0;
    for (int x = 0; x < m; x++) {
        int a = (os + x) / smb % S, b = x / tmb % P;
        int64_t sl = cyc_local(os + x, smb, S), tl = cyc_local(x, tmb, P);
        if (n > 0 && r[n - 1].a == a && r[n - 1].b == b && r[n - 1].sl + r[n - 1].len == sl &&
            r[n - 1].tl + r[n - 1].len == tl)
            r[n - 1].len++;
        else
            r[n++] = (prun){sl, tl, 1, x, x, a, b};
    }
    *nr = n;
    return find_pattern(r, n, false, L);
}

nt_sub_t half_sub(nt_rng *g, const nt_matrix_t *S, const nt_matrix_t *T, int64_t min4,
                  bool quad)
{
    int64_t mr = S->m < T->m ? S->m : T->m, mc = S->n < T->n ? S->n : T->n;
    nt_sub_t s = {4 * rnd(g, min4, mr / 4), rnd(g, 1, mc), 0, 0, 0, 0};
    s.src_row = 4 * rnd(g, 0, (S->m - s.rows) / 4);
    s.dst_row = 4 * rnd(g, 0, (T->m - s.rows) / 4);
    s.src_col = rnd(g, 0, S->n - s.cols);
    s.dst_col = rnd(g, 0, T->n - s.cols);
    if (!quad && s.rows > 1)
        s.rows -= rnd(g, 1, 3) % s.rows;
    return s;
}
