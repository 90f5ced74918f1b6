// libFuzzer harness, differential: redistribution plans over random geometries. The input
// chooses two matrices without memory (sizes up to 40 x 40, any tile sizes, block-cyclic or
// arbitrary or generated tile maps, tile or ScaLAPACK layout), a submatrix with displacements
// (sometimes out of bounds), the relabelling objective and whether to build the schedule.
// Every plan is checked against a naive per-element owner oracle written here: the segments
// cover each element of the submatrix exactly once with consistent tiles, offsets and domains;
// bytes and segments per domain pair, the summary, the relabelled owners and the schedule
// agree with it; a relabelling is optimal (brute force over all labellings for up to 7
// domains); and for block-cyclic maps the closed-form communication sets give the oracle's
// element count for every pair.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXDIM 40

// The oracle's view of one plan: per-pair bytes and per (domain, component) bytes.
typedef struct oracle {
    int D;             // domains of the plan
    int ncomp;         // components of the target map
    int64_t *pair;     // D x D bytes (after relabelling)
    int64_t *cnt;      // D x ncomp bytes by source domain and target component
    int64_t elements;
} oracle;

static nt_tilemap_t *make_map(fuzz_in *in, int64_t mt, int64_t nt)
{
    nt_tilemap_t *map = NULL;
    nt_status st;
    switch (fuzz_range(in, 0, 2)) {
    case 0:
        st = nt_tilemap_bc2d(mt, nt, (int)fuzz_range(in, 1, 3), (int)fuzz_range(in, 1, 3),
                             fuzz_range(in, 1, 2), fuzz_range(in, 1, 2), &map);
        break;
    case 1: {
        int nd = (int)fuzz_range(in, 1, 6);
        st = nt_tilemap_create(mt, nt, nd, &map);
        for (int64_t x = 0; st == NT_OK && x < mt * nt; x++)
            map->owner[x] = (int)fuzz_range(in, 0, nd - 1);
        break;
    }
    default: {
        static const char *specs[] = {"random:3", "balanced:5", "chunk:4:7", "skewed:2x2:1",
                                      "band:2:2x1", "bc1d:5"};
        int k = (int)fuzz_range(in, 0, 5);
        st = nt_tilemap_from_spec(specs[k], mt, nt, k < 2 ? (int)fuzz_range(in, 1, 6) : 0,
                                  &map);
    }
    }
    FUZZ_CHECK(st == NT_OK, "generating a %lldx%lld map failed", (long long)mt, (long long)nt);
    return map;
}

static nt_matrix_t *make_matrix(fuzz_in *in, size_t elem)
{
    nt_matrix_shape_t sh = {.m = fuzz_range(in, 1, MAXDIM), .n = fuzz_range(in, 1, MAXDIM),
                            .elem_size = elem};
    sh.mb = fuzz_range(in, 1, sh.m + 2);
    sh.nb = fuzz_range(in, 1, sh.n + 2);
    nt_tilemap_t *map = make_map(in, (sh.m + sh.mb - 1) / sh.mb, (sh.n + sh.nb - 1) / sh.nb);
    nt_layout layout = fuzz_byte(in) & 1 ? NT_LAYOUT_SCALAPACK : NT_LAYOUT_TILE;
    nt_matrix_t *A = NULL;
    nt_status st = nt_matrix_create(NULL, &sh, map, layout, NT_MATRIX_NOALLOC, &A);
    if (st == NT_EINVAL && layout == NT_LAYOUT_SCALAPACK) // not a Cartesian product per domain
        st = nt_matrix_create(NULL, &sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A);
    FUZZ_CHECK(st == NT_OK, "creating a matrix failed");
    nt_tilemap_destroy(map);
    return A;
}

// A submatrix, sometimes out of bounds; *valid says whether nt_plan_create must accept it.
static const nt_sub_t *make_sub(fuzz_in *in, const nt_matrix_t *s, const nt_matrix_t *d,
                                nt_sub_t *sub, bool *valid)
{
    int mode = (int)fuzz_range(in, 0, 7);
    if (mode == 0) {
        *valid = s->m == d->m && s->n == d->n;
        *sub = (nt_sub_t){.rows = s->m, .cols = s->n};
        return NULL;
    }
    int64_t rmax = s->m < d->m ? s->m : d->m, cmax = s->n < d->n ? s->n : d->n;
    sub->rows = fuzz_range(in, 0, rmax);
    sub->cols = fuzz_range(in, 0, cmax);
    if (mode == 7) { // anything, bounds included: -1..MAXDIM+1
        sub->src_row = fuzz_range(in, -1, MAXDIM + 1);
        sub->src_col = fuzz_range(in, -1, MAXDIM + 1);
        sub->dst_row = fuzz_range(in, -1, MAXDIM + 1);
        sub->dst_col = fuzz_range(in, -1, MAXDIM + 1);
    } else {
        sub->src_row = fuzz_range(in, 0, s->m - sub->rows);
        sub->src_col = fuzz_range(in, 0, s->n - sub->cols);
        sub->dst_row = fuzz_range(in, 0, d->m - sub->rows);
        sub->dst_col = fuzz_range(in, 0, d->n - sub->cols);
    }
    *valid = sub->src_row >= 0 && sub->src_col >= 0 && sub->dst_row >= 0 &&
             sub->dst_col >= 0 && sub->src_row + sub->rows <= s->m &&
             sub->src_col + sub->cols <= s->n && sub->dst_row + sub->rows <= d->m &&
             sub->dst_col + sub->cols <= d->n;
    return sub;
}

static int64_t tile_rows(const nt_matrix_t *A, int64_t i)
{
    return A->m - i * A->mb < A->mb ? A->m - i * A->mb : A->mb;
}

static int64_t tile_cols(const nt_matrix_t *A, int64_t j)
{
    return A->n - j * A->nb < A->nb ? A->n - j * A->nb : A->nb;
}

// Per element: where it comes from and goes to, tallied per domain pair.
static void build_oracle(const nt_matrix_t *s, const nt_matrix_t *d, const nt_sub_t *sub,
                         const int *sigma, oracle *o)
{
    o->pair = calloc((size_t)o->D * (size_t)o->D, sizeof(int64_t));
    o->cnt = calloc((size_t)o->D * (size_t)o->ncomp, sizeof(int64_t));
    if (!o->pair || !o->cnt)
        abort();
    int64_t e = (int64_t)s->elem_size;
    for (int64_t x = 0; x < sub->rows; x++)
        for (int64_t y = 0; y < sub->cols; y++) {
            int64_t sr = sub->src_row + x, sc = sub->src_col + y;
            int64_t tr = sub->dst_row + x, tc = sub->dst_col + y;
            int sd = s->owner[(sr / s->mb) * s->nt + sc / s->nb];
            int comp = d->owner[(tr / d->mb) * d->nt + tc / d->nb];
            o->pair[sd * o->D + sigma[comp]] += e;
            o->cnt[sd * o->ncomp + comp] += e;
        }
    o->elements = sub->rows * sub->cols;
}

// One-port steps of a D x D pair matrix: max over domains of max(sent, received), off-diagonal.
static int64_t steps_of(const int64_t *q, int D)
{
    int64_t best = 0;
    for (int k = 0; k < D; k++) {
        int64_t sent = 0, recv = 0;
        for (int i = 0; i < D; i++)
            if (i != k) {
                sent += q[k * D + i];
                recv += q[i * D + k];
            }
        best = sent > best ? sent : best;
        best = recv > best ? recv : best;
    }
    return best;
}

typedef struct seg_tally {
    int64_t *segpair;    // D x D segments
    uint8_t *mark;       // rows x cols coverage counts
    uint8_t *touched;    // per target tile: 1 = receives, 2 = receives from another domain
    bool all_whole;
} seg_tally;

static void check_segment(const nt_segment_t *g, const nt_matrix_t *s, const nt_matrix_t *d,
                          const nt_sub_t *sub, const int *sigma, const int *dst_owner,
                          seg_tally *t, int D)
{
    FUZZ_CHECK(g->rows >= 1 && g->cols >= 1 && g->src_tile >= 0 &&
                   g->src_tile < s->mt * s->nt && g->dst_tile >= 0 &&
                   g->dst_tile < d->mt * d->nt && g->part <= 8 && g->category <= 8,
               "segment fields out of range");
    int64_t si = g->src_tile / s->nt, sj = g->src_tile % s->nt;
    int64_t ti = g->dst_tile / d->nt, tj = g->dst_tile % d->nt;
    FUZZ_CHECK(g->src_row >= 0 && g->src_col >= 0 && g->src_row + g->rows <= tile_rows(s, si) &&
                   g->src_col + g->cols <= tile_cols(s, sj) && g->dst_row >= 0 &&
                   g->dst_col >= 0 && g->dst_row + g->rows <= tile_rows(d, ti) &&
                   g->dst_col + g->cols <= tile_cols(d, tj),
               "segment outside its tiles");
    int64_t x0 = ti * d->mb + g->dst_row - sub->dst_row, y0 = tj * d->nb + g->dst_col - sub->dst_col;
    FUZZ_CHECK(x0 >= 0 && y0 >= 0 && x0 + g->rows <= sub->rows && y0 + g->cols <= sub->cols,
               "segment outside the submatrix");
    FUZZ_CHECK(si * s->mb + g->src_row == sub->src_row + x0 &&
                   sj * s->nb + g->src_col == sub->src_col + y0,
               "segment's source is not where its target elements come from");
    int comp = d->owner[g->dst_tile];
    FUZZ_CHECK(g->src_dom == s->owner[g->src_tile] && g->dst_dom == sigma[comp] &&
                   dst_owner[g->dst_tile] == sigma[comp],
               "segment domains %d -> %d, oracle %d -> %d", g->src_dom, g->dst_dom,
               s->owner[g->src_tile], sigma[comp]);
    if (g->whole)
        FUZZ_CHECK(g->src_row == 0 && g->src_col == 0 && g->dst_row == 0 && g->dst_col == 0 &&
                       g->rows == tile_rows(s, si) && g->rows == tile_rows(d, ti) &&
                       g->cols == tile_cols(s, sj) && g->cols == tile_cols(d, tj),
                   "segment marked whole is not a whole tile on both sides");
    t->all_whole &= g->whole != 0;
    t->segpair[g->src_dom * D + g->dst_dom]++;
    t->touched[g->dst_tile] |= (uint8_t)(1 | (g->src_dom != g->dst_dom ? 2 : 0));
    for (int64_t x = x0; x < x0 + g->rows; x++)
        for (int64_t y = y0; y < y0 + g->cols; y++)
            t->mark[x * sub->cols + y]++;
}

static void check_info(const nt_plan_t *plan, const nt_matrix_t *s, const nt_matrix_t *d,
                       const oracle *o, const seg_tally *t, int64_t nseg)
{
    nt_plan_info_t info;
    FUZZ_CHECK(nt_plan_info(plan, &info) == NT_OK, "nt_plan_info failed");
    int D = o->D;
    int64_t moved = 0, local = 0, tiles = 0, vol_tiles = 0, cat = 0;
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++)
            *(a == b ? &local : &moved) += o->pair[a * D + b];
    for (int64_t x = 0; x < d->mt * d->nt; x++) {
        tiles += t->touched[x] != 0;
        vol_tiles += (t->touched[x] & 2) != 0;
    }
    for (int k = 0; k < 9; k++)
        cat += info.category_tiles[k];
    FUZZ_CHECK(info.ndomains == D && info.segments == nseg && info.elements == o->elements &&
                   info.bytes == o->elements * (int64_t)s->elem_size,
               "info: %d domains, %lld segments, %lld elements (oracle %d, %lld, %lld)",
               info.ndomains, (long long)info.segments, (long long)info.elements, D,
               (long long)nseg, (long long)o->elements);
    FUZZ_CHECK(info.bytes_moved == moved && info.bytes_local == local,
               "info: %lld bytes moved, %lld local (oracle %lld, %lld)",
               (long long)info.bytes_moved, (long long)info.bytes_local, (long long)moved,
               (long long)local);
    FUZZ_CHECK(info.tiles == tiles && info.volume_tiles == vol_tiles && cat == tiles,
               "info: %lld tiles, %lld volume tiles, categories add to %lld (oracle %lld, %lld)",
               (long long)info.tiles, (long long)info.volume_tiles, (long long)cat,
               (long long)tiles, (long long)vol_tiles);
    FUZZ_CHECK(info.steps_bytes == steps_of(o->pair, D) &&
                   info.steps == steps_of(t->segpair, D),
               "info: steps %lld (%lld bytes), oracle %lld (%lld bytes)", (long long)info.steps,
               (long long)info.steps_bytes, (long long)steps_of(t->segpair, D),
               (long long)steps_of(o->pair, D));
    FUZZ_CHECK(nseg == 0 || info.fast_path == t->all_whole, "fast_path %d, all whole %d",
               info.fast_path, t->all_whole);
    (void)s;
}

// Every labelling of ncomp components onto D domains, injective: the best volume, steps and
// (steps, volume) pair, for D <= 7.
typedef struct best {
    int64_t volume, steps, lex_steps, lex_volume;
} best;

static void cost_of(const oracle *o, const int *sig, int64_t *vol, int64_t *steps)
{
    int D = o->D, C = o->ncomp;
    int64_t *q = calloc((size_t)D * (size_t)D, sizeof *q);
    if (!q)
        abort();
    for (int i = 0; i < D; i++)
        for (int j = 0; j < C; j++)
            q[i * D + sig[j]] += o->cnt[i * C + j];
    *vol = 0;
    for (int i = 0; i < D; i++)
        for (int k = 0; k < D; k++)
            *vol += i != k ? q[i * D + k] : 0;
    *steps = steps_of(q, D);
    free(q);
}

static void search(const oracle *o, int *sig, int j, unsigned used, best *b)
{
    if (j == o->ncomp) {
        int64_t v, s;
        cost_of(o, sig, &v, &s);
        b->volume = v < b->volume ? v : b->volume;
        b->steps = s < b->steps ? s : b->steps;
        if (s < b->lex_steps || (s == b->lex_steps && v < b->lex_volume)) {
            b->lex_steps = s;
            b->lex_volume = v;
        }
        return;
    }
    for (int k = 0; k < o->D; k++)
        if (!(used & (1u << k))) {
            sig[j] = k;
            search(o, sig, j + 1, used | (1u << k), b);
        }
}

static void check_optimal(const nt_plan_t *plan, const oracle *o, nt_match_objective obj)
{
    if (obj == NT_MATCH_CANONICAL || o->D > 7)
        return;
    best b = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    int sig[8];
    search(o, sig, 0, 0, &b);
    nt_plan_info_t info;
    nt_plan_info(plan, &info);
    if (obj == NT_MATCH_VOLUME)
        FUZZ_CHECK(info.bytes_moved == b.volume, "volume relabelling moves %lld, optimum %lld",
                   (long long)info.bytes_moved, (long long)b.volume);
    if (obj == NT_MATCH_STEPS)
        FUZZ_CHECK(info.steps_bytes == b.steps, "steps relabelling: %lld, optimum %lld",
                   (long long)info.steps_bytes, (long long)b.steps);
    if (obj == NT_MATCH_LEX)
        FUZZ_CHECK(info.steps_bytes == b.lex_steps && info.bytes_moved == b.lex_volume,
                   "lex relabelling: (%lld, %lld), optimum (%lld, %lld)",
                   (long long)info.steps_bytes, (long long)info.bytes_moved,
                   (long long)b.lex_steps, (long long)b.lex_volume);
}

// Closed-form sets: for block-cyclic maps on both sides, |rows| x |cols| of every pair equals
// the oracle's element count.
static void check_commset(const nt_matrix_t *s, const nt_matrix_t *d, const nt_sub_t *sub,
                          const nt_sub_t *whole, const oracle *o)
{
    if (s->grid.p == 0 || d->grid.p == 0)
        return;
    nt_run_t rows[256], cols[256];
    for (int a = 0; a < s->ndomains; a++)
        for (int c = 0; c < d->ndomains; c++) {
            int64_t nr = 0, nc = 0;
            nt_status st = nt_plan_commset(s, d, sub, a, c, rows, 256, &nr, cols, 256, &nc);
            FUZZ_CHECK(st == NT_OK && nr <= 256 && nc <= 256, "nt_plan_commset(%d, %d): %d", a,
                       c, st);
            int64_t er = 0, ec = 0;
            for (int64_t r = 0; r < nr; r++) {
                FUZZ_CHECK(rows[r].start >= 0 && rows[r].count >= 1 && rows[r].len >= 1 &&
                               rows[r].start + (rows[r].count - 1) * rows[r].stride +
                                       rows[r].len <= whole->rows,
                           "row run outside the submatrix");
                er += rows[r].count * rows[r].len;
            }
            for (int64_t r = 0; r < nc; r++) {
                FUZZ_CHECK(cols[r].start >= 0 && cols[r].count >= 1 && cols[r].len >= 1 &&
                               cols[r].start + (cols[r].count - 1) * cols[r].stride +
                                       cols[r].len <= whole->cols,
                           "column run outside the submatrix");
                ec += cols[r].count * cols[r].len;
            }
            int64_t want = o->cnt[a * o->ncomp + c] / (int64_t)s->elem_size;
            FUZZ_CHECK(er * ec == want, "commset(%d, %d): %lld x %lld elements, oracle %lld", a,
                       c, (long long)er, (long long)ec, (long long)want);
        }
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

static void check_plan(nt_plan_t *plan, const nt_matrix_t *s, const nt_matrix_t *d,
                       const nt_sub_t *sub_arg, const nt_sub_t *sub, bool schedule,
                       nt_match_objective obj)
{
    int ncomp = -1;
    const int *sigma = nt_plan_sigma(plan, &ncomp);
    oracle o = {.D = s->ndomains > d->ndomains ? s->ndomains : d->ndomains, .ncomp = ncomp};
    FUZZ_CHECK(sigma && ncomp == d->ndomains, "sigma of %d entries for %d components", ncomp,
               d->ndomains);
    unsigned used = 0;
    for (int j = 0; j < ncomp; j++) {
        FUZZ_CHECK(sigma[j] >= 0 && sigma[j] < o.D && !(used & (1u << sigma[j])) &&
                       (obj != NT_MATCH_CANONICAL || sigma[j] == j),
                   "sigma[%d] = %d", j, sigma[j]);
        used |= 1u << sigma[j];
    }
    build_oracle(s, d, sub, sigma, &o);
    nt_plan_info_t info;
    nt_plan_info(plan, &info);
    int64_t nlisted;
    nt_segment_t *segs = plan_segment_list(plan, &nlisted);
    FUZZ_CHECK(nlisted == info.segments, "%lld segments listed, info says %lld",
               (long long)nlisted, (long long)info.segments);
    const int *dst_owner = nt_plan_dst_owner(plan);
    seg_tally t = {calloc((size_t)o.D * (size_t)o.D, sizeof(int64_t)),
                   calloc((size_t)(sub->rows * sub->cols) + 1, 1),
                   calloc((size_t)(d->mt * d->nt), 1), true};
    if (!t.segpair || !t.mark || !t.touched)
        abort();
    FUZZ_CHECK(dst_owner && (info.segments == 0 || segs), "missing plan arrays");
    for (int64_t k = 0; k < info.segments; k++)
        check_segment(&segs[k], s, d, sub, sigma, dst_owner, &t, o.D);
    for (int64_t x = 0; x < sub->rows * sub->cols; x++)
        FUZZ_CHECK(t.mark[x] == 1, "element (%lld, %lld) covered %d times",
                   (long long)(x / sub->cols), (long long)(x % sub->cols), t.mark[x]);
    FUZZ_CHECK(!memcmp(nt_plan_pair_bytes(plan), o.pair, (size_t)(o.D * o.D) * sizeof(int64_t)),
               "bytes per domain pair differ from the oracle");
    FUZZ_CHECK(!memcmp(nt_plan_pair_segments(plan), t.segpair,
                       (size_t)(o.D * o.D) * sizeof(int64_t)),
               "segments per domain pair differ from the segment list");
    check_info(plan, s, d, &o, &t, info.segments);
    check_optimal(plan, &o, obj);
    if (obj == NT_MATCH_CANONICAL)
        check_commset(s, d, sub_arg, sub, &o);
    if (schedule) {
        const nt_schedule_t *sched = NULL;
        FUZZ_CHECK(nt_plan_schedule(plan, &sched) == NT_OK && sched, "no schedule");
        FUZZ_CHECK(sched->p == o.D && sched->steps == steps_of(o.pair, o.D) &&
                       nt_sched_verify(sched, o.pair) == NT_OK,
                   "schedule of %lld steps, oracle %lld", (long long)sched->steps,
                   (long long)steps_of(o.pair, o.D));
    }
    free(segs);
    free(t.segpair);
    free(t.mark);
    free(t.touched);
    free(o.pair);
    free(o.cnt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    size_t elem = (size_t)fuzz_range(&in, 1, 16);
    nt_matrix_t *s = make_matrix(&in, elem), *d = make_matrix(&in, elem);
    nt_sub_t sub;
    bool valid;
    const nt_sub_t *sub_arg = make_sub(&in, s, d, &sub, &valid);
    nt_plan_opts_t opts = {.relabel = (nt_match_objective)fuzz_range(&in, 0, 3),
                           .schedule = fuzz_byte(&in) & 1};
    nt_plan_t *sentinel = (nt_plan_t *)&in, *plan = sentinel;
    nt_status st = nt_plan_create(s, d, sub_arg, &opts, &plan);
    if (!valid) {
        FUZZ_CHECK(st == NT_EINVAL && plan == sentinel, "out-of-bounds submatrix: status %d", st);
    } else {
        FUZZ_CHECK(st == NT_OK, "nt_plan_create failed: %d", st);
        check_plan(plan, s, d, sub_arg, &sub, opts.schedule, opts.relabel);
        nt_plan_destroy(plan);
    }
    nt_matrix_destroy(s);
    nt_matrix_destroy(d);
    return 0;
}
