// Redistribution plans. Oracle: a naive per-element computation -- for every element of the
// submatrix, the source tile and domain that hold it and the target tile and domain it goes
// to, found by division -- against which the plan's segments, pair bytes, costs and Cao
// categories are checked; brute-force membership for the closed-form (Guo) sets; exhaustive
// search over labellings for the relabelled volume.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "nt_core.h"

#ifdef __SANITIZE_ADDRESS__
#define NCASES 600
#else
#define NCASES 4000
#endif

static int64_t rnd(nt_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)nt_rng_below(g, (uint64_t)(hi - lo + 1));
}

// A random DIST spec whose domain count is at most D (every kind of DESIGN.md but file:).
static void random_spec(nt_rng *g, int D, char *buf, size_t len, int *ndom)
{
    int p = (int)rnd(g, 1, D), q = (int)rnd(g, 1, D / p);
    uint64_t seed = nt_rng_next(g) % 1000;
    *ndom = 0;
    switch (rnd(g, 0, 7)) {
    case 0: snprintf(buf, len, "bc2d:%dx%d", p, q); break;
    case 1:
        snprintf(buf, len, "bc2d:%dx%d:%dx%d", p, q, (int)rnd(g, 1, 3), (int)rnd(g, 1, 3));
        break;
    case 2: snprintf(buf, len, "bc1d:%d", p); break;
    case 3: snprintf(buf, len, "random:%llu", (unsigned long long)seed); *ndom = D; break;
    case 4: snprintf(buf, len, "balanced:%llu", (unsigned long long)seed); *ndom = D; break;
    case 5: snprintf(buf, len, "skewed:%dx%d:%llu", p, q, (unsigned long long)seed); break;
    case 6: snprintf(buf, len, "chunk:%d:%llu", (int)rnd(g, 1, D), (unsigned long long)seed);
        break;
    default: snprintf(buf, len, "band:%d:%dx%d", (int)rnd(g, 1, 3), p, q); break;
    }
}

// A descriptor-only matrix with random geometry, distribution and layout.
static nt_matrix_t *random_matrix(nt_rng *g, const nt_topo_t *topo, int D, size_t es,
                                  int64_t m, int64_t n)
{
    nt_matrix_shape_t sh = {m, n, rnd(g, 1, 12), rnd(g, 1, 12), es};
    char spec[96];
    int nd;
    random_spec(g, D, spec, sizeof spec, &nd);
    nt_layout lay = rnd(g, 0, 1) ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
    nt_matrix_t *A = NULL;
    nt_status st = nt_matrix_create_spec(topo, &sh, spec, nd, lay, NT_MATRIX_NOALLOC, &A);
    if (st == NT_EINVAL && lay == NT_LAYOUT_SCALAPACK)
        st = nt_matrix_create_spec(topo, &sh, spec, nd, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A);
    cr_assert_eq(st, NT_OK, "%s: %s", spec, nt_last_error());
    return A;
}

// Every segment of a plan, stored or periodic, through nt_plan_foreach_segment() (malloc'd).
typedef struct seg_list {
    nt_segment_t *v;
    int64_t n, cap;
} seg_list;

static int collect_segment(const nt_segment_t *g, void *arg)
{
    seg_list *l = arg;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n++] = *g;
    return 0;
}

static nt_segment_t *plan_segment_list(const nt_plan_t *p, int64_t *n)
{
    seg_list l = {0};
    if (nt_plan_foreach_segment(p, collect_segment, &l) != NT_OK)
        abort();
    *n = l.n;
    return l.v;
}

// sigma of plan p is injective into 0..D-1, one label per target domain, and the plan's target
// owners are T's relabelled by it; returns sigma.
static const int *check_sigma(const nt_plan_t *p, const nt_matrix_t *T, int D)
{
    int nsig;
    const int *sigma = nt_plan_sigma(p, &nsig);
    cr_assert_eq(nsig, T->ndomains);
    unsigned char *used = calloc((size_t)D, 1);
    for (int j = 0; j < nsig; j++) {
        cr_assert(sigma[j] >= 0 && sigma[j] < D);
        cr_assert_eq(used[sigma[j]], 0, "sigma not injective");
        used[sigma[j]] = 1;
    }
    free(used);
    const int *downer = nt_plan_dst_owner(p);
    for (int64_t t = 0; t < T->mt * T->nt; t++)
        cr_assert_eq(downer[t], sigma[T->owner[t]]);
    return sigma;
}

// Segment k (g) inside its tiles, with the owners' domains and its whole flag; each of its
// elements, inside the submatrix, comes from the source tile that holds it (brute force) and
// is counted in cover.
static void check_segment(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                          const int *sigma, const nt_segment_t *g, int64_t k, int *cover)
{
    int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
    int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
    cr_assert(g->rows >= 1 && g->cols >= 1);
    cr_assert(g->src_row + g->rows <= nt_matrix_tile_rows(S, si));
    cr_assert(g->src_col + g->cols <= nt_matrix_tile_cols(S, sj));
    cr_assert(g->dst_row + g->rows <= nt_matrix_tile_rows(T, ti));
    cr_assert(g->dst_col + g->cols <= nt_matrix_tile_cols(T, tj));
    cr_assert_eq(g->src_dom, S->owner[g->src_tile]);
    cr_assert_eq(g->dst_dom, sigma[T->owner[g->dst_tile]]);
    bool whole = g->src_row == 0 && g->src_col == 0 && g->dst_row == 0 && g->dst_col == 0 &&
                 g->rows == nt_matrix_tile_rows(S, si) && g->rows == nt_matrix_tile_rows(T, ti) &&
                 g->cols == nt_matrix_tile_cols(S, sj) && g->cols == nt_matrix_tile_cols(T, tj);
    cr_assert_eq(g->whole, whole);
    for (int32_t v = 0; v < g->cols; v++)
        for (int32_t u = 0; u < g->rows; u++) {
            int64_t tr = ti * T->mb + g->dst_row + u, tc = tj * T->nb + g->dst_col + v;
            int64_t x = tr - s->dst_row, y = tc - s->dst_col;
            cr_assert(x >= 0 && x < s->rows && y >= 0 && y < s->cols,
                      "segment %lld writes outside the submatrix", (long long)k);
            // Brute force: which source tile holds the element that belongs here.
            int64_t sr = s->src_row + x, sc = s->src_col + y;
            cr_assert_eq(sr / S->mb, si);
            cr_assert_eq(sc / S->nb, sj);
            cr_assert_eq(si * S->mb + g->src_row + u, sr);
            cr_assert_eq(sj * S->nb + g->src_col + v, sc);
            cover[x * s->cols + y]++;
        }
}

// The per-element oracle of a plan: bytes per domain pair, and per target tile whether the
// submatrix touches it, whether any of its elements comes from another domain, and the range
// of source tile rows and columns its elements come from.
typedef struct tile_oracle {
    int64_t *pair, *remote, *touched, *rmin, *rmax, *cmin, *cmax;
    size_t ntt;
} tile_oracle;

static void oracle_build(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                         const int *sigma, int D, tile_oracle *o)
{
    size_t ntt = (size_t)(T->mt * T->nt);
    *o = (tile_oracle){calloc((size_t)D * (size_t)D, sizeof *o->pair),
                       calloc(ntt, sizeof *o->remote), calloc(ntt, sizeof *o->touched),
                       malloc(ntt * sizeof *o->rmin), calloc(ntt, sizeof *o->rmax),
                       malloc(ntt * sizeof *o->cmin), calloc(ntt, sizeof *o->cmax), ntt};
    for (size_t t = 0; t < ntt; t++)
        o->rmin[t] = o->cmin[t] = INT64_MAX;
    for (int64_t x = 0; x < s->rows; x++)
        for (int64_t y = 0; y < s->cols; y++) {
            int64_t sr = s->src_row + x, sc = s->src_col + y;
            int64_t tr = s->dst_row + x, tc = s->dst_col + y;
            int sd = nt_matrix_tile_domain(S, sr / S->mb, sc / S->nb);
            size_t tt = (size_t)((tr / T->mb) * T->nt + tc / T->nb);
            int td = sigma[T->owner[tt]];
            o->pair[sd * D + td] += (int64_t)S->elem_size;
            o->touched[tt] = 1;
            o->remote[tt] |= sd != td;
            int64_t a = sr / S->mb, b = sc / S->nb;
            o->rmin[tt] = a < o->rmin[tt] ? a : o->rmin[tt];
            o->rmax[tt] = a > o->rmax[tt] ? a : o->rmax[tt];
            o->cmin[tt] = b < o->cmin[tt] ? b : o->cmin[tt];
            o->cmax[tt] = b > o->cmax[tt] ? b : o->cmax[tt];
        }
}

static void oracle_free(tile_oracle *o)
{
    free(o->pair);
    free(o->remote);
    free(o->touched);
    free(o->rmin);
    free(o->rmax);
    free(o->cmin);
    free(o->cmax);
}

// The plan's bytes per pair are the oracle's; so are the bytes moved, kept local, of the
// busiest one-port step, and in all.
static void check_pair_bytes(const nt_plan_t *p, const nt_plan_info_t *I, const int64_t *pair,
                             int D, const nt_matrix_t *S, const nt_sub_t *s)
{
    const int64_t *pb = nt_plan_pair_bytes(p);
    int64_t moved = 0, local = 0, steps_b = 0;
    for (int i = 0; i < D; i++) {
        int64_t snt = 0, rcv = 0;
        for (int j = 0; j < D; j++) {
            cr_assert_eq(pb[i * D + j], pair[i * D + j], "pair (%d,%d): plan %lld, oracle %lld",
                         i, j, (long long)pb[i * D + j], (long long)pair[i * D + j]);
            if (i == j) {
                local += pair[i * D + j];
            } else {
                moved += pair[i * D + j];
                snt += pair[i * D + j];
                rcv += pair[j * D + i];
            }
        }
        int64_t mx = snt > rcv ? snt : rcv;
        steps_b = mx > steps_b ? mx : steps_b;
    }
    cr_assert_eq(I->bytes_moved, moved);
    cr_assert_eq(I->bytes_local, local);
    cr_assert_eq(I->steps_bytes, steps_b);
    cr_assert_eq(I->bytes, s->rows * s->cols * (int64_t)S->elem_size);
}

// Cao's category of target tile tt: by how many source tile rows and columns (1, 2, 3+) its
// elements come from.
static int64_t tile_category(const tile_oracle *o, size_t tt)
{
    int64_t nr = o->rmax[tt] - o->rmin[tt] + 1, nc = o->cmax[tt] - o->cmin[tt] + 1;
    return 3 * (nr >= 3 ? 2 : nr - 1) + (nc >= 3 ? 2 : nc - 1);
}

// Tiles touched, remote tiles and tiles per category as the oracle counts them; every
// segment's category is its target tile's, its part its position there; the fast path exactly
// when every segment is a whole tile.
static void check_categories(const nt_plan_info_t *I, const tile_oracle *o,
                             const nt_segment_t *seg, const nt_matrix_t *S)
{
    int64_t ntouched = 0, nremote = 0, cat[9] = {0};
    for (size_t t = 0; t < o->ntt; t++) {
        if (!o->touched[t])
            continue;
        ntouched++;
        nremote += o->remote[t];
        cat[tile_category(o, t)]++;
    }
    cr_assert_eq(I->tiles, ntouched);
    cr_assert_eq(I->volume_tiles, nremote);
    for (int c = 0; c < 9; c++)
        cr_assert_eq(I->category_tiles[c], cat[c], "category %d", c);
    int64_t parts[9] = {0};
    for (int64_t k = 0; k < I->segments; k++) {
        const nt_segment_t *g = &seg[k];
        size_t tt = (size_t)g->dst_tile;
        int64_t nr = o->rmax[tt] - o->rmin[tt] + 1, nc = o->cmax[tt] - o->cmin[tt] + 1;
        cr_assert_eq(g->category, tile_category(o, tt));
        int64_t a = g->src_tile / S->nt - o->rmin[tt], b = g->src_tile % S->nt - o->cmin[tt];
        int pr = nr == 1 ? 1 : a == 0 ? 0 : a == nr - 1 ? 2 : 1;
        int pc = nc == 1 ? 1 : b == 0 ? 0 : b == nc - 1 ? 2 : 1;
        cr_assert_eq(g->part, 3 * pr + pc);
        parts[g->part]++;
    }
    for (int c = 0; c < 9; c++)
        cr_assert_eq(I->part_segments[c], parts[c]);
    bool fast = I->segments > 0;
    for (int64_t k = 0; k < I->segments; k++)
        fast = fast && seg[k].whole;
    cr_assert_eq(I->fast_path, fast);
}

// The full per-element check of one plan.
static void check_plan(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s,
                       const nt_plan_t *p, int D)
{
    nt_plan_info_t I;
    cr_assert_eq(nt_plan_info(p, &I), NT_OK);
    // Stored or periodic, the segments come through the enumeration; a stored list must be
    // the same, in the same order.
    int64_t nlisted;
    nt_segment_t *seg = plan_segment_list(p, &nlisted);
    cr_assert_eq(nlisted, I.segments);
    if (I.periodic)
        cr_assert_null(nt_plan_segments(p));
    if (!I.periodic && I.segments > 0)
        cr_assert_eq(memcmp(seg, nt_plan_segments(p), (size_t)I.segments * sizeof *seg), 0);
    const int *sigma = check_sigma(p, T, D);
    size_t ne = (size_t)(s->rows * s->cols);
    int *cover = calloc(ne ? ne : 1, sizeof *cover);
    for (int64_t k = 0; k < I.segments; k++)
        check_segment(S, T, s, sigma, &seg[k], k, cover);
    for (size_t e = 0; e < ne; e++)
        cr_assert_eq(cover[e], 1, "element %zu covered %d times", e, cover[e]);
    free(cover);
    // Per-element oracle of the bytes per pair, the costs, and the Cao categories.
    tile_oracle o;
    oracle_build(S, T, s, sigma, D, &o);
    check_pair_bytes(p, &I, o.pair, D, S, s);
    check_categories(&I, &o, seg, S);
    oracle_free(&o);
    free(seg);
}

// Smallest volume over all injective labellings (exhaustive), in bytes.
static int64_t best_volume(const nt_matrix_t *S, const nt_matrix_t *T, const nt_sub_t *s, int D)
{
    int C = T->ndomains;
    int64_t *cnt = calloc((size_t)D * (size_t)C, sizeof *cnt);
    for (int64_t x = 0; x < s->rows; x++)
        for (int64_t y = 0; y < s->cols; y++) {
            int sd = nt_matrix_tile_domain(S, (s->src_row + x) / S->mb, (s->src_col + y) / S->nb);
            int tc = nt_matrix_tile_domain(T, (s->dst_row + x) / T->mb, (s->dst_col + y) / T->nb);
            cnt[sd * C + tc] += (int64_t)S->elem_size;
        }
    int64_t total = s->rows * s->cols * (int64_t)S->elem_size, best = INT64_MAX;
    int sig[8];
    // enumerate injections C -> D by odometer
    int64_t space = 1;
    for (int j = 0; j < C; j++)
        space *= D;
    for (int64_t code = 0; code < space; code++) {
        int64_t v = code;
        unsigned mask = 0;
        bool ok = true;
        for (int j = 0; j < C; j++) {
            sig[j] = (int)(v % D);
            v /= D;
            if (mask & (1u << sig[j]))
                ok = false;
            mask |= 1u << sig[j];
        }
        if (!ok)
            continue;
        int64_t keep = 0;
        for (int j = 0; j < C; j++)
            keep += cnt[sig[j] * C + j];
        if (total - keep < best)
            best = total - keep;
    }
    free(cnt);
    return best;
}

Test(plan, random_cases_match_the_per_element_oracle)
{
    nt_rng g = {20240501};
    nt_topo_t *syn;
    nt_topo_opts_t so = {.synthetic = "pack:2 numa:4 core:1 pu:1"};
    cr_assert_eq(nt_topo_load(&so, &syn), NT_OK, "%s", nt_last_error());
    int64_t closed = 0, relabelled = 0, brute = 0;
    for (int it = 0; it < NCASES; it++) {
        bool use_topo = it % 5 == 0;
        int D = use_topo ? 8 : (int)rnd(&g, 1, 16);
        const nt_topo_t *topo = use_topo ? syn : NULL;
        size_t es = (size_t)rnd(&g, 1, 3) * 4;
        int64_t ms = rnd(&g, 1, 60), ns = rnd(&g, 1, 60), mt = rnd(&g, 1, 60),
                nt = rnd(&g, 1, 60);
        nt_matrix_t *S = random_matrix(&g, topo, D, es, ms, ns);
        nt_matrix_t *T = random_matrix(&g, topo, D, es, mt, nt);
        nt_sub_t s;
        s.rows = rnd(&g, 0, ms < mt ? ms : mt);
        s.cols = rnd(&g, 0, ns < nt ? ns : nt);
        if (rnd(&g, 0, 9) == 0)
            s.rows = 0;
        s.src_row = rnd(&g, 0, ms - s.rows);
        s.src_col = rnd(&g, 0, ns - s.cols);
        s.dst_row = rnd(&g, 0, mt - s.rows);
        s.dst_col = rnd(&g, 0, nt - s.cols);
        int Dp = topo ? nt_topo_ndomains(topo)
                      : (S->ndomains > T->ndomains ? S->ndomains : T->ndomains);
        nt_plan_opts_t po = {.relabel = (nt_match_objective)rnd(&g, 0, topo ? 4 : 3)};
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, &s, &po, &p), NT_OK, "%s", nt_last_error());
        check_plan(S, T, &s, p, Dp);
        nt_plan_info_t I;
        nt_plan_info(p, &I);
        closed += I.closed_form;
        relabelled += po.relabel != NT_MATCH_CANONICAL;
        if (po.relabel == NT_MATCH_VOLUME && T->ndomains <= 6 && Dp <= 6) {
            cr_assert_eq(I.bytes_moved, best_volume(S, T, &s, Dp));
            brute++;
        }
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
    cr_assert(closed > NCASES / 20, "closed form exercised %lld times", (long long)closed);
    cr_assert(relabelled > NCASES / 3);
    cr_assert(brute > 10, "volume optimum brute-forced %lld times", (long long)brute);
    nt_topo_destroy(syn);
}

// Brute-force membership of a CYCLIC(r) process.
static bool holds(const nt_cyclic_t *c, int k, int64_t x)
{
    return ((x + c->off) / c->r) % c->p == k;
}

static void expand_check(int64_t n, const nt_cyclic_t *s, int ks, const nt_cyclic_t *t, int kt)
{
    int64_t nr, total;
    cr_assert_eq(nt_cyclic_intersect(n, s, ks, t, kt, NULL, 0, &nr, &total), NT_OK);
    nt_run_t *runs = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *runs);
    int64_t nr2;
    cr_assert_eq(nt_cyclic_intersect(n, s, ks, t, kt, runs, nr, &nr2, NULL), NT_OK);
    cr_assert_eq(nr, nr2);
    unsigned char *hit = calloc((size_t)(n > 0 ? n : 1), 1);
    int64_t cnt = 0;
    for (int64_t e = 0; e < nr; e++) {
        cr_assert(runs[e].count >= 1 && runs[e].len >= 1);
        for (int64_t k = 0; k < runs[e].count; k++)
            for (int64_t u = 0; u < runs[e].len; u++) {
                int64_t x = runs[e].start + k * runs[e].stride + u;
                cr_assert(x >= 0 && x < n, "index %lld outside 0..%lld", (long long)x,
                          (long long)n - 1);
                cr_assert_eq(hit[x], 0, "index %lld listed twice", (long long)x);
                hit[x] = 1;
                cnt++;
            }
    }
    for (int64_t x = 0; x < n; x++)
        cr_assert_eq(hit[x], holds(s, ks, x) && holds(t, kt, x), "index %lld", (long long)x);
    cr_assert_eq(cnt, total);
    free(hit);
    free(runs);
}

Test(plan, cyclic_intersections_match_brute_force)
{
    nt_rng g = {77};
    for (int it = 0; it < 3000; it++) {
        nt_cyclic_t s = {rnd(&g, 1, 9), (int)rnd(&g, 1, 6), rnd(&g, 0, 25)};
        nt_cyclic_t t = {rnd(&g, 1, 9), (int)rnd(&g, 1, 6), rnd(&g, 0, 25)};
        int64_t n = rnd(&g, 0, 150);
        expand_check(n, &s, (int)rnd(&g, 0, s.p - 1), &t, (int)rnd(&g, 0, t.p - 1));
    }
}

// One progression (Guo's per-dimension triple, 0-based here) as the only run.
static void expect_triple(int64_t n, nt_cyclic_t s, int ks, nt_cyclic_t t, int kt,
                          int64_t origin, int64_t stride, int64_t count)
{
    nt_run_t r[4];
    int64_t nr;
    cr_assert_eq(nt_cyclic_intersect(n, &s, ks, &t, kt, r, 4, &nr, NULL), NT_OK);
    cr_assert_eq(nr, 1, "expected one progression, got %lld", (long long)nr);
    // A contiguous block may come back as one run of length count (stride 1).
    if (r[0].len > 1) {
        cr_assert_eq(stride, 1);
        cr_assert_eq(r[0].count, 1);
        cr_assert_eq(r[0].start, origin);
        cr_assert_eq(r[0].len, count);
        return;
    }
    cr_assert_eq(r[0].start, origin, "origin %lld, expected %lld", (long long)r[0].start,
                 (long long)origin);
    cr_assert_eq(r[0].count, count);
    if (count > 1)
        cr_assert_eq(r[0].stride, stride);
}

// Guo's worked 8x8 examples (DIGEST.md §3), in 0-based coordinates.
Test(plan, guo_worked_examples_and_erratum)
{
    nt_cyclic_t block2 = {4, 2, 0}, cyc2 = {1, 2, 0}, block4 = {2, 4, 0}, star = {8, 1, 0};
    // (BLOCK,BLOCK) 2x2 -> (CYCLIC,CYCLIC) 2x2: <(4k1+t1, 4k2+t2), 2, 2, 2, 2>.
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < 2; t++)
            expect_triple(8, block2, k, cyc2, t, 4 * k + t, 2, 2);
    // Erratum: D'_00 ∩ D''_01 = <(1,2),2,2,2,2> (1-based) = rows {0,2}, columns {1,3}.
    expect_triple(8, block2, 0, cyc2, 0, 0, 2, 2);
    expect_triple(8, block2, 0, cyc2, 1, 1, 2, 2);
    // (CYCLIC,CYCLIC) -> (CYCLIC,BLOCK): rows non-empty only when k1 = t1, <(k1, 4t2+k2),2,4,2,2>
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < 2; t++) {
            if (k == t) {
                expect_triple(8, cyc2, k, cyc2, t, k, 2, 4);
            } else {
                int64_t nr, tot;
                cr_assert_eq(nt_cyclic_intersect(8, &cyc2, k, &cyc2, t, NULL, 0, &nr, &tot),
                             NT_OK);
                cr_assert_eq(nr, 0);
                cr_assert_eq(tot, 0);
            }
            expect_triple(8, cyc2, k, block2, t, 4 * t + k, 2, 2);
        }
    // (BLOCK,*) 4x1 -> (*,BLOCK) 1x4: <(2i, 2j), 1, 2, 1, 2>.
    for (int i = 0; i < 4; i++) {
        expect_triple(8, block4, i, star, 0, 2 * i, 1, 2);
        expect_triple(8, star, 0, block4, i, 2 * i, 1, 2);
    }
}

// The same examples at matrix level: the closed-form bytes per domain pair.
Test(plan, guo_examples_as_matrices)
{
    struct {
        int64_t smb, snb, tmb, tnb;
        const char *sd, *td;
        int per_pair; // elements per (source, target) pair; -1: check k1 = t1 rule
    } ex[] = {
        {4, 4, 1, 1, "bc2d:2x2", "bc2d:2x2", 16 / 4 * 1},
        {1, 1, 1, 4, "bc2d:2x2", "bc2d:2x2", -1},
        {2, 8, 8, 2, "bc2d:4x1", "bc2d:1x4", 4},
    };
    for (int e = 0; e < 3; e++) {
        nt_matrix_shape_t a = {8, 8, ex[e].smb, ex[e].snb, 8}, b = {8, 8, ex[e].tmb, ex[e].tnb, 8};
        nt_matrix_t *S, *T;
        cr_assert_eq(nt_matrix_create_spec(NULL, &a, ex[e].sd, 0, NT_LAYOUT_SCALAPACK,
                                           NT_MATRIX_NOALLOC, &S), NT_OK, "%s", nt_last_error());
        cr_assert_eq(nt_matrix_create_spec(NULL, &b, ex[e].td, 0, NT_LAYOUT_SCALAPACK,
                                           NT_MATRIX_NOALLOC, &T), NT_OK, "%s", nt_last_error());
        cr_assert_gt(S->grid.p, 0);
        cr_assert_gt(T->grid.p, 0);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
        nt_plan_info_t I;
        nt_plan_info(p, &I);
        cr_assert(I.closed_form);
        const int64_t *pb = nt_plan_pair_bytes(p);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                int64_t want = ex[e].per_pair >= 0 ? ex[e].per_pair
                               : (i / 2 == j / 2 ? 8 : 0); // k1 = t1: 4 rows x 2 columns
                cr_assert_eq(pb[i * 4 + j], want * 8, "example %d pair (%d,%d): %lld bytes", e,
                             i, j, (long long)pb[i * 4 + j]);
            }
        check_plan(S, T, &(nt_sub_t){8, 8, 0, 0, 0, 0}, p, 4);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

// Cao's nine categories: target tile = source tile scaled by (cid/3+1, cid%3+1).
Test(plan, nine_categories)
{
    static const int parts[9][9] = {
        // NW N NE W I E SW S SE
        {0, 0, 0, 0, 1, 0, 0, 0, 0}, {0, 0, 0, 1, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 1, 1, 0, 0, 0},
        {0, 1, 0, 0, 0, 0, 0, 1, 0}, {1, 0, 1, 0, 0, 0, 1, 0, 1}, {1, 1, 1, 0, 0, 0, 1, 1, 1},
        {0, 1, 0, 0, 1, 0, 0, 1, 0}, {1, 0, 1, 1, 0, 1, 1, 0, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
    };
    for (int cid = 0; cid < 9; cid++) {
        int64_t mbs = 5, nbs = 7, mbt = mbs * (cid / 3 + 1), nbt = nbs * (cid % 3 + 1);
        int64_t m = mbt * 4, n = nbt * 3;
        nt_matrix_shape_t a = {m, n, mbs, nbs, 8}, b = {m, n, mbt, nbt, 8};
        nt_matrix_t *S, *T;
        cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x2", 0, NT_LAYOUT_TILE,
                                           NT_MATRIX_NOALLOC, &S), NT_OK);
        cr_assert_eq(nt_matrix_create_spec(NULL, &b, "random:1", 4, NT_LAYOUT_TILE,
                                           NT_MATRIX_NOALLOC, &T), NT_OK);
        nt_plan_t *p;
        cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK);
        nt_plan_info_t I;
        nt_plan_info(p, &I);
        cr_assert_eq(I.category_tiles[cid], T->mt * T->nt, "cid %d", cid);
        for (int q = 0; q < 9; q++)
            cr_assert_eq(I.part_segments[q] > 0, parts[cid][q] == 1, "cid %d part %d", cid, q);
        check_plan(S, T, &(nt_sub_t){m, n, 0, 0, 0, 0}, p, 4);
        cr_assert_eq(I.fast_path, cid == 0);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}

Test(plan, empty_submatrix_and_identical_layouts)
{
    nt_matrix_shape_t a = {50, 40, 8, 6, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x3", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x3", 0, NT_LAYOUT_SCALAPACK,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_t *p;
    nt_plan_info_t I;
    cr_assert_eq(nt_plan_create(S, T, &(nt_sub_t){0, 7, 3, 3, 9, 9}, NULL, &p), NT_OK);
    nt_plan_info(p, &I);
    cr_assert_eq(I.segments, 0);
    cr_assert_eq(I.bytes, 0);
    cr_assert_eq(I.bytes_moved, 0);
    cr_assert_eq(I.steps, 0);
    cr_assert_eq(I.tiles, 0);
    cr_assert_not(I.fast_path);
    nt_plan_destroy(p);
    // Same geometry and map: nothing moves, every segment is a whole tile, one per tile.
    for (int obj = 0; obj <= 3; obj++) {
        nt_plan_opts_t po = {.relabel = (nt_match_objective)obj};
        cr_assert_eq(nt_plan_create(S, T, NULL, &po, &p), NT_OK);
        nt_plan_info(p, &I);
        cr_assert_eq(I.bytes_moved, 0);
        cr_assert_eq(I.bytes_local, 50 * 40 * 8);
        cr_assert_eq(I.volume_tiles, 0);
        cr_assert_eq(I.steps, 0);
        cr_assert_eq(I.segments, S->mt * S->nt);
        cr_assert(I.fast_path);
        cr_assert(I.closed_form);
        check_plan(S, T, &(nt_sub_t){50, 40, 0, 0, 0, 0}, p, 6);
        nt_plan_destroy(p);
    }
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

Test(plan, bad_input_is_rejected)
{
    nt_matrix_shape_t a = {20, 20, 4, 4, 8}, b = {20, 20, 4, 4, 4};
    nt_matrix_t *S, *T, *U;
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc2d:2x2", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc1d:3", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &b, "bc1d:3", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &U), NT_OK);
    nt_plan_t *p = (nt_plan_t *)0x1;
    cr_assert_eq(nt_plan_create(S, U, NULL, NULL, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "element sizes"));
    cr_assert_eq(nt_plan_create(S, T, &(nt_sub_t){10, 10, 11, 0, 0, 0}, NULL, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "source"));
    cr_assert_eq(nt_plan_create(S, T, &(nt_sub_t){10, 10, 0, 0, 0, 15}, NULL, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "target"));
    cr_assert_eq(nt_plan_create(S, T, &(nt_sub_t){-1, 10, 0, 0, 0, 0}, NULL, &p), NT_EINVAL);
    cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = 9}, &p), NT_EINVAL);
    cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_DISTANCE},
                                &p), NT_EINVAL);
    cr_assert_eq(nt_plan_create(NULL, T, NULL, NULL, &p), NT_EINVAL);
    cr_assert_eq(p, (nt_plan_t *)0x1, "out-parameter written on failure");
    // Domain out of range: a map naming a domain the machine lacks.
    nt_topo_t *syn;
    nt_topo_opts_t so = {.synthetic = "pack:2 numa:1 core:1 pu:1"};
    cr_assert_eq(nt_topo_load(&so, &syn), NT_OK);
    nt_matrix_t *V = NULL;
    cr_assert_eq(nt_matrix_create_spec(syn, &a, "bc2d:2x2", 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &V), NT_EINVAL);
    cr_assert_null(V);
    cr_assert(strstr(nt_last_error(), "domain"));
    // More target components than domains cannot be relabelled.
    nt_matrix_t *W, *X;
    cr_assert_eq(nt_matrix_create_spec(syn, &a, "bc1d:2", 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &W), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "bc1d:3", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &X), NT_OK);
    cr_assert_eq(nt_plan_create(W, X, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_VOLUME}, &p),
                 NT_EINVAL);
    nt_matrix_destroy(W);
    nt_matrix_destroy(X);
    nt_topo_destroy(syn);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_matrix_destroy(U);
}

// The schedule of a plan is a valid one-port schedule of its pair bytes.
Test(plan, schedule_of_a_plan_is_valid)
{
    nt_matrix_shape_t a = {64, 64, 8, 8, 8}, b = {64, 64, 16, 4, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(NULL, &a, "random:3", 5, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &b, "bc2d:1x5", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &T), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_STEPS,
                                                              .schedule = true}, &p), NT_OK);
    const nt_schedule_t *sc;
    cr_assert_eq(nt_plan_schedule(p, &sc), NT_OK);
    cr_assert_eq(nt_sched_verify(sc, nt_plan_pair_bytes(p)), NT_OK, "%s", nt_last_error());
    nt_plan_info_t I;
    nt_plan_info(p, &I);
    cr_assert_eq(sc->steps, I.steps_bytes);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

// Expand a run list into a membership array of n indices (each index at most once).
static void mark_runs(const nt_run_t *r, int64_t nr, int64_t n, unsigned char *in)
{
    memset(in, 0, (size_t)(n > 0 ? n : 1));
    for (int64_t e = 0; e < nr; e++)
        for (int64_t k = 0; k < r[e].count; k++)
            for (int64_t u = 0; u < r[e].len; u++) {
                int64_t x = r[e].start + k * r[e].stride + u;
                cr_assert(x >= 0 && x < n);
                cr_assert_eq(in[x], 0);
                in[x] = 1;
            }
}

// 2D communication sets between block-cyclic matrices against the per-element owners.
Test(plan, commsets_match_per_element_owners)
{
    nt_rng g = {4242};
    for (int it = 0; it < 300; it++) {
        int ps = (int)rnd(&g, 1, 3), qs = (int)rnd(&g, 1, 3), pt = (int)rnd(&g, 1, 3),
            qt = (int)rnd(&g, 1, 3);
        char a[64], b[64];
        snprintf(a, sizeof a, "bc2d:%dx%d:%dx%d", ps, qs, (int)rnd(&g, 1, 2), (int)rnd(&g, 1, 2));
        snprintf(b, sizeof b, "bc2d:%dx%d", pt, qt);
        int64_t m = rnd(&g, 1, 50), n = rnd(&g, 1, 50);
        nt_matrix_shape_t sa = {m, n, rnd(&g, 1, 9), rnd(&g, 1, 9), 8};
        nt_matrix_shape_t sb = {m, n, rnd(&g, 1, 9), rnd(&g, 1, 9), 8};
        nt_matrix_t *S, *T;
        cr_assert_eq(nt_matrix_create_spec(NULL, &sa, a, 0, NT_LAYOUT_SCALAPACK,
                                           NT_MATRIX_NOALLOC, &S), NT_OK);
        cr_assert_eq(nt_matrix_create_spec(NULL, &sb, b, 0, NT_LAYOUT_SCALAPACK,
                                           NT_MATRIX_NOALLOC, &T), NT_OK);
        nt_sub_t s = {rnd(&g, 0, m), rnd(&g, 0, n), 0, 0, 0, 0};
        s.src_row = rnd(&g, 0, m - s.rows);
        s.dst_row = rnd(&g, 0, m - s.rows);
        s.src_col = rnd(&g, 0, n - s.cols);
        s.dst_col = rnd(&g, 0, n - s.cols);
        unsigned char *ir = malloc((size_t)s.rows + 1), *ic = malloc((size_t)s.cols + 1);
        nt_run_t rr[64], cc[64];
        for (int sd = 0; sd < S->ndomains; sd++)
            for (int td = 0; td < T->ndomains; td++) {
                int64_t nr, nc;
                cr_assert_eq(nt_plan_commset(S, T, &s, sd, td, rr, 64, &nr, cc, 64, &nc), NT_OK,
                             "%s", nt_last_error());
                cr_assert(nr <= 64 && nc <= 64);
                mark_runs(rr, nr, s.rows, ir);
                mark_runs(cc, nc, s.cols, ic);
                for (int64_t x = 0; x < s.rows; x++)
                    for (int64_t y = 0; y < s.cols; y++) {
                        bool want = nt_matrix_tile_domain(S, (s.src_row + x) / S->mb,
                                                          (s.src_col + y) / S->nb) == sd &&
                                    nt_matrix_tile_domain(T, (s.dst_row + x) / T->mb,
                                                          (s.dst_col + y) / T->nb) == td;
                        cr_assert_eq(ir[x] && ic[y], want, "%s -> %s pair (%d,%d) at (%lld,%lld)",
                                     a, b, sd, td, (long long)x, (long long)y);
                    }
            }
        free(ir);
        free(ic);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
    nt_matrix_t *R, *Q;
    nt_matrix_shape_t sh = {10, 10, 2, 2, 8};
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "random:1", 3, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &R), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(NULL, &sh, "bc1d:3", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &Q), NT_OK);
    int64_t nr, nc;
    cr_assert_eq(nt_plan_commset(R, Q, NULL, 0, 0, NULL, 0, &nr, NULL, 0, &nc), NT_ENOTSUP);
    cr_assert_eq(nt_plan_commset(Q, Q, NULL, 0, 3, NULL, 0, &nr, NULL, 0, &nc), NT_EINVAL);
    nt_matrix_destroy(R);
    nt_matrix_destroy(Q);
}

// Found by fuzz_cli: a canonical plan whose target grid names more components than the machine
// has domains, the extra ones holding no tile (1x4 tiles on bc2d:2x2 use components 0 and 1
// only), indexed the pair matrix past its end. Bytes per pair against the per-element oracle.
Test(plan, canonical_unused_components_beyond_the_domains)
{
    nt_topo_opts_t to = {.domains = 3, .synthetic = "pack:1 numa:3 core:1 pu:1"};
    nt_topo_t *topo;
    cr_assert_eq(nt_topo_load(&to, &topo), NT_OK, "%s", nt_last_error());
    nt_matrix_shape_t a = {5, 24, 8, 8, 8}, b = {5, 24, 6, 6, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(topo, &a, "random:1", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &S), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(topo, &b, "bc2d:2x2", 4, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &T), NT_OK, "%s", nt_last_error());
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    int64_t want[9] = {0};
    for (int64_t r = 0; r < 5; r++)
        for (int64_t c = 0; c < 24; c++) {
            int from = S->owner[(r / 8) * S->nt + c / 8];
            int to_dom = T->owner[(r / 6) * T->nt + c / 6];
            cr_assert_lt(to_dom, 3);
            want[from * 3 + to_dom] += 8;
        }
    const int64_t *pb = nt_plan_pair_bytes(p);
    for (int k = 0; k < 9; k++)
        cr_assert_eq(pb[k], want[k], "pair %d: %lld vs oracle %lld", k, (long long)pb[k],
                     (long long)want[k]);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_topo_destroy(topo);
}
