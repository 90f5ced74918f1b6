// Scenario migrate: a whole M x M matrix of doubles, tiles from 32x32 to 2048x2048, moved from
// a random tile map to a 2D block-cyclic one over 2 and 4 domains. For every tile size:
//   - copy mode (nt_plan_execute, default options): bandwidth of the bytes copied and the
//     same-run copy bound (a parallel memcpy of the same bytes by the same threads), their ratio
//     against the targets (>= 0.9 for tiles of 256 KiB or more, >= 0.7 for 8 KiB tiles);
//   - move mode: whole tiles keep their address and their pages migrate (move_pages);
//   - a plain single-threaded loop copying the same segments into a target already placed;
//   - in-place mode: the target reuses the source's blocks (recycled, already faulted in), its
//     peak of extra memory against the matrix, and allocation + copy time against copy mode's.
// Then the plan time for 10^6 tiles (target < 0.5 s).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/error.h"
#include "numatile/matrix.h"
#include "numatile/mem.h"
#include "numatile/plan.h"
#include "numatile/topo.h"
#include "scn_util.h"

enum { MODE_COPY, MODE_MOVE, MODE_LOOP, MODE_INPLACE, NMODES };
static const char *const mode_name[NMODES] = {"copy", "move", "loop", "inplace"};

// Everything one (domains, tile size) configuration measured, over its repetitions.
typedef struct point {
    int D, tile;
    double gbs[NMODES][3];       // median, min, max: copy and loop bandwidth, move logical rate
    double bound[3], ratio[3];   // copy mode: same-run bound and bandwidth / bound
    double seconds[NMODES];      // median time of the timed part
    double total[NMODES];        // copy and in place: median of allocation + timed part
    int64_t inplace_peak, inplace_lb; // in place: extra bytes, all domains; their lower bound
    int64_t bytes_copied, tiles_kept, move_tiles, move_pages, move_node_bytes, move_copied;
    int64_t loop_bytes;
    double on_domain;            // fraction of copy tasks that ran on their domain (copy mode)
} point;

typedef struct setup {
    const nt_topo_t *topo;
    int D;
    int64_t m;
    int tile;
    char src_spec[48], dst_spec[48];
} setup;

// Source (random map, memory on its domains) and target (bc2d; memory only for the loop).
static nt_status make(const setup *s, bool dst_memory, nt_matrix_t **S, nt_matrix_t **T,
                      nt_plan_t **P)
{
    nt_matrix_shape_t sh = {s->m, s->m, s->tile, s->tile, sizeof(double)};
    *S = *T = NULL;
    *P = NULL;
    nt_status st = nt_matrix_create_spec(s->topo, &sh, s->src_spec, s->D, NT_LAYOUT_TILE, 0, S);
    if (st == NT_OK)
        st = nt_matrix_create_spec(s->topo, &sh, s->dst_spec, s->D, NT_LAYOUT_TILE,
                                   dst_memory ? 0 : NT_MATRIX_NOALLOC, T);
    if (st == NT_OK)
        st = nt_plan_create(*S, *T, NULL, NULL, P);
    return st;
}

static void unmake(nt_matrix_t *S, nt_matrix_t *T, nt_plan_t *P)
{
    nt_plan_destroy(P);
    nt_matrix_destroy(T); // first: it may own tiles adopted from S
    nt_matrix_destroy(S);
}

// The plain loop: one thread, every segment copy mode copies (a whole tile that stays on its
// domain is adopted there, not copied), column by column; with `kept`, only the others (to
// complete the target before a check). Returns the bytes copied.
static int64_t loop_copy(const nt_plan_t *P, const nt_matrix_t *S, nt_matrix_t *T, bool kept)
{
    nt_plan_info_t info;
    nt_plan_info(P, &info);
    const nt_segment_t *seg = nt_plan_segments(P);
    int64_t bytes = 0;
    size_t es = S->elem_size;
    for (int64_t x = 0; x < info.segments; x++) {
        const nt_segment_t *g = &seg[x];
        if ((g->whole && g->src_dom == g->dst_dom) != kept)
            continue;
        int64_t si = g->src_tile / S->nt, sj = g->src_tile % S->nt;
        int64_t ti = g->dst_tile / T->nt, tj = g->dst_tile % T->nt;
        size_t lds = (size_t)nt_matrix_tile_ld(S, si, sj);
        size_t ldt = (size_t)nt_matrix_tile_ld(T, ti, tj);
        const char *a = (const char *)nt_matrix_tile(S, si, sj) +
                        ((size_t)g->src_col * lds + (size_t)g->src_row) * es;
        char *b = (char *)nt_matrix_tile(T, ti, tj) +
                  ((size_t)g->dst_col * ldt + (size_t)g->dst_row) * es;
        for (int32_t c = 0; c < g->cols; c++)
            memcpy(b + (size_t)c * ldt * es, a + (size_t)c * lds * es, (size_t)g->rows * es);
        bytes += (int64_t)g->rows * g->cols * (int64_t)es;
    }
    return bytes;
}

// Check the target against the pattern the source was filled with (rep 0 of every mode).
static int verify(const bench_run *r, const setup *s, const nt_matrix_t *T, const char *mode)
{
    int64_t bad = 0;
    nt_status st = nt_matrix_check_pattern(T, r->seed, 0, 0, s->m, s->m, 0, 0, &bad);
    if (st != NT_OK)
        return scn_fail(r, "verify", st);
    if (bad) {
        fprintf(stderr, "numatile bench %s: %s mode, %d domains, tile %d: %lld elements wrong\n",
                r->name, mode, s->D, s->tile, (long long)bad);
        return 3;
    }
    return 0;
}

// The samples of one mode's repetitions: bandwidth (copy and loop) or logical rate (move),
// copy mode's bound and ratio, seconds of the timed part.
typedef struct samples {
    double *g, *bnd, *rat, *sec, *tot;
} samples;

// The plain loop into a placed target; the kept tiles are copied afterwards for the check.
static void loop_rep(const nt_plan_t *P, const nt_matrix_t *S, nt_matrix_t *T, bool check,
                     double *g, double *sec, point *pt, json_t *row)
{
    double t0 = bench_now();
    int64_t bytes = loop_copy(P, S, T, false);
    *sec = bench_now() - t0;
    if (check)
        loop_copy(P, S, T, true);
    *g = (double)bytes / *sec / 1e9;
    pt->loop_bytes = bytes;
    json_object_set_new(row, "bytes_copied", json_integer(bytes));
}

static void copy_stats(const nt_exec_stats_t *es, int rep, const samples *x, point *pt,
                       json_t *row)
{
    x->g[rep] = es->bandwidth_gbs;
    x->bnd[rep] = es->bound_gbs;
    x->rat[rep] = es->bound_gbs > 0 ? es->bandwidth_gbs / es->bound_gbs : 0;
    pt->bytes_copied = es->bytes_copied;
    pt->tiles_kept = es->tiles_kept;
    pt->on_domain = es->tasks ? (double)es->tasks_on_domain / (double)es->tasks : 1;
    json_object_set_new(row, "bound_gbs", json_real(x->bnd[rep]));
    json_object_set_new(row, "ratio", json_real(x->rat[rep]));
    json_object_set_new(row, "tiles_kept", json_integer(es->tiles_kept));
    json_object_set_new(row, "on_domain_fraction", json_real(pt->on_domain));
}

// Logical rate: bytes that changed domain per second (pages may stay put when the domains
// share a node).
static void move_stats(const nt_exec_stats_t *es, int rep, const samples *x, point *pt,
                       json_t *row)
{
    x->g[rep] = es->seconds > 0 ? (double)es->bytes_moved / es->seconds / 1e9 : 0;
    pt->move_tiles = es->tiles_migrated;
    pt->move_pages = es->pages_migrated;
    pt->move_node_bytes = es->bytes_node_changed;
    pt->move_copied = es->bytes_copied;
    json_object_set_new(row, "tiles_migrated", json_integer(es->tiles_migrated));
    json_object_set_new(row, "pages_migrated", json_integer(es->pages_migrated));
    json_object_set_new(row, "pages_failed", json_integer(es->pages_failed));
    json_object_set_new(row, "bytes_node_changed", json_integer(es->bytes_node_changed));
    json_object_set_new(row, "physical_gbs", json_real(es->bandwidth_gbs));
}

// In place: the bandwidth of its copies and the extra memory of all domains together.
static void inplace_stats(const nt_exec_stats_t *es, int rep, const samples *x, point *pt,
                          json_t *row)
{
    int64_t peak = 0;
    for (int d = 0; d < es->ndomains; d++)
        peak += es->peak_extra_bytes[d];
    x->g[rep] = es->bandwidth_gbs;
    pt->inplace_peak = peak;
    pt->inplace_lb = es->peak_lower_bound_total;
    json_object_set_new(row, "peak_extra_bytes", json_integer(peak));
    json_object_set_new(row, "peak_lower_bound_bytes", json_integer(es->peak_lower_bound_total));
    json_object_set_new(row, "bytes_recycled", json_integer(es->bytes_recycled));
    json_object_set_new(row, "waves", json_integer(es->waves));
}

// Repetition rep of copy, move or in-place mode through nt_plan_execute.
static nt_status exec_rep(nt_plan_t *P, nt_matrix_t *S, nt_matrix_t *T, int mode, int rep,
                          const samples *x, point *pt, json_t *row)
{
    nt_exec_opts_t o = {.mode = mode == MODE_MOVE ? NT_EXEC_MOVE : NT_EXEC_COPY,
                        .measure_bound = mode == MODE_COPY, .inplace = mode == MODE_INPLACE};
    nt_exec_stats_t es;
    nt_status st = nt_plan_execute(P, S, T, &o, &es);
    if (st != NT_OK)
        return st;
    x->sec[rep] = es.seconds;
    x->tot[rep] = es.alloc_seconds + es.seconds;
    if (mode == MODE_COPY)
        copy_stats(&es, rep, x, pt, row);
    else if (mode == MODE_MOVE)
        move_stats(&es, rep, x, pt, row);
    else
        inplace_stats(&es, rep, x, pt, row);
    json_object_set_new(row, "alloc_seconds", json_real(es.alloc_seconds));
    json_object_set_new(row, "bytes_copied", json_integer(es.bytes_copied));
    nt_exec_stats_free(&es);
    return NT_OK;
}

// One repetition on a fresh source (adopted tiles leave the source): a raw row, and the
// target checked after the first.
static int one_rep(bench_run *r, const setup *s, int mode, int rep, const samples *x,
                   point *pt)
{
    nt_matrix_t *S, *T;
    nt_plan_t *P;
    nt_status st = make(s, mode == MODE_LOOP, &S, &T, &P);
    if (st == NT_OK && rep == 0)
        st = nt_matrix_fill_pattern(S, r->seed);
    if (st != NT_OK) {
        int rc = scn_fail(r, "matrices and plan", st);
        unmake(S, T, P);
        return rc;
    }
    json_t *row = json_pack("{s:i, s:i, s:s, s:i}", "D", s->D, "tile", s->tile, "mode",
                            mode_name[mode], "rep", rep);
    if (mode == MODE_LOOP)
        loop_rep(P, S, T, rep == 0, &x->g[rep], &x->sec[rep], pt, row);
    else if ((st = exec_rep(P, S, T, mode, rep, x, pt, row)) != NT_OK) {
        int rc = scn_fail(r, mode_name[mode], st);
        json_decref(row);
        unmake(S, T, P);
        return rc;
    }
    json_object_set_new(row, "seconds", json_real(x->sec[rep]));
    json_object_set_new(row, "gbs", json_real(x->g[rep]));
    bench_row(r, row);
    int rc = rep == 0 ? verify(r, s, T, mode_name[mode]) : 0;
    unmake(S, T, P);
    return rc;
}

// One mode, reps repetitions; the point gets their median/min/max.
static int run_mode(bench_run *r, const setup *s, int mode, int reps, point *pt)
{
    double *g = calloc((size_t)reps * 5, sizeof *g);
    if (!g)
        return scn_fail(r, "repetitions", NT_ENOMEM);
    samples x = {g, g + reps, g + 2 * reps, g + 3 * reps, g + 4 * reps};
    int rc = 0;
    for (int rep = 0; rep < reps && !rc; rep++)
        rc = one_rep(r, s, mode, rep, &x, pt);
    if (!rc) {
        scn_stat3(pt->gbs[mode], x.g, reps);
        pt->seconds[mode] = bench_median(x.sec, (size_t)reps);
        pt->total[mode] = bench_median(x.tot, (size_t)reps);
        if (mode == MODE_COPY) {
            scn_stat3(pt->bound, x.bnd, reps);
            scn_stat3(pt->ratio, x.rat, reps);
        }
    }
    free(g);
    return rc;
}

// Ratio target of a tile size: 0.9 from 256 KiB, 0.7 at 8 KiB, none between.
static double target_of(int tile)
{
    int64_t b = (int64_t)tile * tile * (int64_t)sizeof(double);
    return b >= 256 * 1024 ? 0.9 : b == 8 * 1024 ? 0.7 : 0;
}

// Plan time of a random -> bc2d plan with side x side tiles of 32 x 32 (descriptors only).
static int plan_time(bench_run *r, const nt_topo_t *topo, int D, int64_t side, int reps,
                     double *med, double *lo, double *hi)
{
    double *t = calloc((size_t)reps, sizeof *t);
    nt_matrix_shape_t sh = {side * 32, side * 32, 32, 32, sizeof(double)};
    char src[48], dst[48];
    snprintf(src, sizeof src, "random:%llu", (unsigned long long)r->seed);
    scn_bc2d_spec(dst, sizeof dst, D);
    nt_matrix_t *S = NULL, *T = NULL;
    nt_status st = t ? NT_OK : NT_ENOMEM;
    if (st == NT_OK)
        st = nt_matrix_create_spec(topo, &sh, src, D, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &S);
    if (st == NT_OK)
        st = nt_matrix_create_spec(topo, &sh, dst, D, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T);
    for (int rep = 0; rep < reps && st == NT_OK; rep++) {
        nt_plan_t *P = NULL;
        double t0 = bench_now();
        st = nt_plan_create(S, T, NULL, NULL, &P);
        t[rep] = bench_now() - t0;
        nt_plan_destroy(P);
        if (st == NT_OK)
            bench_row(r, json_pack("{s:i, s:i, s:s, s:i, s:I, s:f, s:f}", "D", D, "tile", 32,
                                   "mode", "plan", "rep", rep, "tiles",
                                   (json_int_t)(side * side), "seconds", t[rep], "ns_per_tile",
                                   1e9 * t[rep] / (double)(side * side)));
    }
    if (st == NT_OK) {
        *med = bench_median(t, (size_t)reps);
        *lo = bench_min(t, (size_t)reps);
        *hi = bench_max(t, (size_t)reps);
    }
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    free(t);
    return st == NT_OK ? 0 : scn_fail(r, "plan time", st);
}

// ---- report -------------------------------------------------------------------------------------

// The summary row of a point, with display values for the table and the plot.
static json_t *point_json(const point *p)
{
    double tgt = target_of(p->tile);
    json_t *o = json_object();
    json_object_set_new(o, "D", json_integer(p->D));
    json_object_set_new(o, "tile", json_integer(p->tile));
    json_object_set_new(o, "tile_bytes",
                        json_integer((json_int_t)p->tile * p->tile * (json_int_t)sizeof(double)));
    json_object_set_new(o, "copy_gbs", json_real(p->gbs[MODE_COPY][0]));
    json_object_set_new(o, "bound_gbs", json_real(p->bound[0]));
    json_object_set_new(o, "ratio", json_real(p->ratio[0]));
    json_object_set_new(o, "ratio_min", json_real(p->ratio[1]));
    json_object_set_new(o, "ratio_max", json_real(p->ratio[2]));
    json_object_set_new(o, "ratio_target", tgt > 0 ? json_real(tgt) : json_null());
    json_object_set_new(o, "target_met", tgt > 0 ? json_boolean(p->ratio[0] >= tgt)
                                                 : json_null());
    json_object_set_new(o, "bytes_copied", json_integer(p->bytes_copied));
    json_object_set_new(o, "tiles_kept", json_integer(p->tiles_kept));
    json_object_set_new(o, "on_domain_fraction", json_real(p->on_domain));
    json_object_set_new(o, "copy_seconds", json_real(p->seconds[MODE_COPY]));
    json_object_set_new(o, "move_seconds", json_real(p->seconds[MODE_MOVE]));
    json_object_set_new(o, "move_logical_gbs", json_real(p->gbs[MODE_MOVE][0]));
    json_object_set_new(o, "move_tiles_migrated", json_integer(p->move_tiles));
    json_object_set_new(o, "move_pages_migrated", json_integer(p->move_pages));
    json_object_set_new(o, "move_bytes_node_changed", json_integer(p->move_node_bytes));
    json_object_set_new(o, "move_bytes_copied", json_integer(p->move_copied));
    json_object_set_new(o, "loop_gbs", json_real(p->gbs[MODE_LOOP][0]));
    json_object_set_new(o, "loop_seconds", json_real(p->seconds[MODE_LOOP]));
    json_object_set_new(o, "loop_bytes", json_integer(p->loop_bytes));
    json_object_set_new(o, "copy_over_loop",
                        json_real(p->gbs[MODE_COPY][0] / p->gbs[MODE_LOOP][0]));
    double matrix = (double)p->bytes_copied + (double)p->tiles_kept * (double)p->tile * p->tile * 8;
    json_object_set_new(o, "copy_total_seconds", json_real(p->total[MODE_COPY]));
    json_object_set_new(o, "inplace_seconds", json_real(p->seconds[MODE_INPLACE]));
    json_object_set_new(o, "inplace_total_seconds", json_real(p->total[MODE_INPLACE]));
    json_object_set_new(o, "inplace_gbs", json_real(p->gbs[MODE_INPLACE][0]));
    json_object_set_new(o, "inplace_peak_extra_bytes", json_integer(p->inplace_peak));
    json_object_set_new(o, "inplace_peak_lower_bound_bytes", json_integer(p->inplace_lb));
    json_object_set_new(o, "inplace_peak_fraction",
                        json_real(matrix > 0 ? (double)p->inplace_peak / matrix : 0));
    json_object_set_new(o, "copy_total_over_inplace_total",
                        json_real(p->total[MODE_INPLACE] > 0
                                      ? p->total[MODE_COPY] / p->total[MODE_INPLACE] : 0));
    char tg[24] = "-";
    if (tgt > 0)
        snprintf(tg, sizeof tg, ">=%.1f %s", tgt, p->ratio[0] >= tgt ? "met" : "NOT");
    json_object_set_new(o, "_target", json_string(tg));
    json_object_set_new(o, "_copy_gbs_min", json_real(p->gbs[MODE_COPY][1]));
    json_object_set_new(o, "_copy_gbs_max", json_real(p->gbs[MODE_COPY][2]));
    json_object_set_new(o, "_tile_kib", json_real((double)p->tile * p->tile * 8 / 1024));
    return o;
}

static const bench_col table[] = {
    {.key = "D", .head = "D", .fmt = "%-2d"},
    {.key = "tile", .head = "tile", .fmt = "%5d"},
    {.key = "tile_bytes", .head = "tile KiB", .fmt = "%8.0f", .scale = 1.0 / 1024},
    {.key = "bytes_copied", .head = "MiB copied", .fmt = "%10.1f", .scale = 1.0 / (1 << 20)},
    {.key = "copy_gbs,_copy_gbs_min,_copy_gbs_max", .head = " copy GB/s",
     .fmt = "%.2f [%.2f..%.2f]", .width = -20, .sep = " | "},
    {.key = "bound_gbs", .head = "bound", .fmt = "%-7.2f"},
    {.key = "ratio,ratio_min,ratio_max", .head = " ratio [min..max]",
     .fmt = "%.3f [%.2f..%.2f]", .width = -18},
    {.key = "_target", .head = "target", .fmt = "%-9s"},
    {.key = "move_seconds", .head = "move ms", .fmt = "%9.3f", .sep = " | ", .scale = 1e3},
    {.key = "move_pages_migrated", .head = "pages", .fmt = "%6d"},
    {.key = "loop_gbs", .head = "loop", .fmt = "%-6.2f", .sep = " | "},
    {.key = "copy_over_loop", .head = "c/l", .fmt = "%5.2f"},
    {.key = "inplace_total_seconds", .head = "in place ms", .fmt = "%11.2f", .sep = " | ",
     .scale = 1e3},
    {.key = "copy_total_over_inplace_total", .head = "speed-up", .fmt = "%8.2f"},
    {.key = "inplace_peak_fraction", .head = "peak %", .fmt = "%6.2f", .scale = 100},
    {NULL}};

static const bench_plot_spec plot = {
    .name = "migrate",
    .title = "random -> bc2d, doubles: copy mode vs same-run bound vs single-threaded loop "
             "(medians)",
    .width = 1200, .height = 480, .x = "_tile_kib", .xlabel = "tile size (KiB)", .block = "D",
    .set = "set logscale x 2\nset grid\nset key top left",
    .panel = {{.title = "bandwidth", .ylabel = "GB/s",
               .series = {{.y = "copy_gbs", .title = "copy, D=%s"},
                          {.y = "bound_gbs", .title = "bound, D=%s", .with = "l dt 2"},
                          {.y = "loop_gbs", .title = "loop, D=%s"}}},
              {.title = "ratio to the same-run copy bound", .ylabel = "bandwidth / bound",
               .set = "set yrange [0:*]",
               .series = {{.y = "ratio,ratio_min,ratio_max", .title = "D=%s",
                           .with = "yerrorlines"},
                          {.y = "0.9", .title = "target >= 256 KiB",
                           .with = "l dt 3 lc 'black'"},
                          {.y = "0.7", .title = "target 8 KiB", .with = "l dt 4 lc 'gray'"}}}}};

// ---- the scenario -------------------------------------------------------------------------------

typedef struct config {
    const int *tiles;
    int ntiles, ndoms, doms[2], reps, plan_reps;
    int64_t m, side;            // matrix side; plan time: side^2 tiles
    double pmed[2], plo[2], phi[2]; // plan seconds per domain count
} config;

static void parameters(bench_run *r, config *c)
{
    static const int full_tiles[] = {32, 64, 128, 256, 512, 1024, 2048};
    static const int quick_tiles[] = {32, 256, 512};
    *c = (config){.tiles = r->quick ? quick_tiles : full_tiles, .ntiles = r->quick ? 3 : 7,
                  .m = r->quick ? 1536 : 8192, .side = r->quick ? 316 : 1000,
                  .doms = {2, 4}, .ndoms = 2, .reps = bench_reps(r, 5, 2),
                  .plan_reps = bench_reps(r, 5, 2)};
    if (r->domains) {
        c->doms[0] = r->domains;
        c->ndoms = 1;
    }
    json_t *jt = json_array(), *jd = json_array();
    for (int i = 0; i < c->ntiles; i++)
        json_array_append_new(jt, json_integer(c->tiles[i]));
    for (int k = 0; k < c->ndoms; k++)
        json_array_append_new(jd, json_integer(c->doms[k]));
    bench_param(r, "m", json_integer(c->m));
    bench_param(r, "tiles", jt);
    bench_param(r, "domains", jd);
    bench_param(r, "repetitions", json_integer(c->reps));
    bench_param(r, "source", json_string("random:SEED tile map (SEED = --seed), TILE layout"));
    bench_param(r, "target", json_string("bc2d:PxQ with P*Q = D, P <= Q, TILE layout"));
    bench_param(r, "plan_tiles", json_integer((json_int_t)(c->side * c->side)));
    bench_labels(r, "D", "tile", "mode", NULL);
}

// Every tile size on domain count k (topology topo): the three modes, then the plan time.
static int measure_domains(bench_run *r, config *c, int k, const nt_topo_t *topo, point *pts,
                           int *npts)
{
    int rc = 0;
    for (int i = 0; i < c->ntiles && !rc; i++) {
        setup s = {.topo = topo, .D = c->doms[k], .m = c->m, .tile = c->tiles[i]};
        snprintf(s.src_spec, sizeof s.src_spec, "random:%llu", (unsigned long long)r->seed);
        scn_bc2d_spec(s.dst_spec, sizeof s.dst_spec, s.D);
        point *p = &pts[*npts];
        p->D = s.D;
        p->tile = s.tile;
        for (int mode = 0; mode < NMODES && !rc; mode++)
            rc = run_mode(r, &s, mode, c->reps, p);
        *npts += !rc;
        bench_progress(r, k * c->ntiles + i + 1, c->ndoms * c->ntiles, "configurations");
    }
    if (!rc)
        rc = plan_time(r, topo, c->doms[k], c->side, c->plan_reps, &c->pmed[k], &c->plo[k],
                       &c->phi[k]);
    return rc;
}

static int measure(bench_run *r, config *c, point *pts, int *npts)
{
    int rc = 0;
    for (int k = 0; k < c->ndoms && !rc; k++) {
        nt_topo_t *topo = NULL;
        nt_status st = nt_topo_load(&(nt_topo_opts_t){.domains = c->doms[k]}, &topo);
        if (st != NT_OK)
            return scn_fail(r, "topology", st);
        if (k == 0)
            bench_printf(r, "machine: %d NUMA node%s; %s domains%s\n", nt_topo_nphysical(topo),
                         nt_topo_nphysical(topo) == 1 ? "" : "s",
                         nt_topo_kind_name(nt_topo_get_kind(topo)),
                         nt_topo_oversubscribed(topo) ? " (4 share cpus)" : "");
        rc = measure_domains(r, c, k, topo, pts, npts);
        nt_topo_destroy(topo);
    }
    return rc;
}

// The targets line: *large and *small say whether every tile size of the kind met its ratio.
static void print_targets(bench_run *r, const point *pts, int n, bool *large, bool *small)
{
    *large = *small = true;
    for (int i = 0; i < n; i++) {
        double tgt = target_of(pts[i].tile);
        if (tgt >= 0.9)
            *large &= pts[i].ratio[0] >= tgt;
        else if (tgt > 0)
            *small &= pts[i].ratio[0] >= tgt;
    }
    bench_printf(r, "targets: ratio >= 0.9 for tiles >= 256 KiB: %s; >= 0.7 for 8 KiB "
                    "tiles: %s\n", *large ? "met" : "NOT met", *small ? "met" : "NOT met");
}

// The plan time per domain count: a line each, and their JSON.
static json_t *print_plan_time(bench_run *r, const config *c)
{
    json_t *plan = json_array();
    int64_t tiles = c->side * c->side;
    bench_printf(r, "\nplan time, random -> bc2d, %lld tiles of 32x32 (descriptors only), "
                    "median [min..max] of %d:\n", (long long)tiles, c->plan_reps);
    for (int k = 0; k < c->ndoms; k++) {
        double per = c->pmed[k] / (double)tiles;
        bench_printf(r, "  D = %d: %.4f s [%.4f..%.4f], %.0f ns per tile, 10^6 tiles: "
                        "%.3f s (target < 0.5 s: %s)\n", c->doms[k], c->pmed[k], c->plo[k],
                     c->phi[k], 1e9 * per, 1e6 * per, 1e6 * per < 0.5 ? "met" : "NOT met");
        json_array_append_new(plan, json_pack("{s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:b}", "D",
                                              c->doms[k], "tiles", (json_int_t)tiles, "seconds",
                                              c->pmed[k], "seconds_min", c->plo[k],
                                              "seconds_max", c->phi[k], "ns_per_tile",
                                              1e9 * per, "seconds_per_1e6_tiles", 1e6 * per,
                                              "target_met", 1e6 * per < 0.5));
    }
    return plan;
}

static void report(bench_run *r, const config *c, const point *pts, int npts)
{
    json_t *rows = json_array();
    for (int i = 0; i < npts; i++)
        json_array_append_new(rows, point_json(&pts[i]));
    bench_printf(r, "\n");
    bench_table(r, table, rows);
    bench_printf(r, "(GB/s = bytes copied / time; bound = same-run parallel memcpy of the "
                    "same bytes by the same threads;\n move ms = move mode's timed part, "
                    "pages = pages it migrated; loop = one unbound thread copying the\n same "
                    "segments into a target already placed; c/l = copy GB/s / loop GB/s;\n in "
                    "place ms = in-place allocation + copy time, speed-up = copy mode's "
                    "allocation + copy time\n over it, peak %% = in place's extra memory "
                    "(all domains) / the matrix)\n");
    bool large, small;
    print_targets(r, pts, npts, &large, &small);
    json_t *plan = print_plan_time(r, c);
    bench_printf(r,
        "\nReference (issue 4 targets; Cao et al. 2022 reach > 80%% of their bound for "
        "tiles >= 400x400 doubles).\nSetting: Cao's bound combines a cluster network and "
        "memcpy; here every domain is a virtual\n  domain of one NUMA node of a 2-cpu VM, "
        "so the bound is the memory system alone, domains share\n  one memory controller "
        "(and with 4 domains, cpus), and move mode migrates no page (same node):\n  its "
        "time is bookkeeping, and its GB/s in the JSON is logical (bytes that changed "
        "domain / time).\n");
    bench_plot_rows(r, &plot, rows);
    bench_summary(r, json_pack("{s:I, s:o, s:o, s:b, s:b}", "m", (json_int_t)c->m, "rows", rows,
                               "plan", plan, "large_tiles_target_met", large,
                               "small_tiles_target_met", small));
}

int scn_migrate(bench_run *r)
{
    config c;
    parameters(r, &c);
    point *pts = calloc((size_t)(c.ntiles * c.ndoms), sizeof *pts);
    int npts = 0, rc = pts ? 0 : scn_fail(r, "points", NT_ENOMEM);
    bench_printf(r, "migrate: %lldx%lld doubles (%lld MiB), random -> bc2d, %d repetitions, "
                    "a fresh source each\n", (long long)c.m, (long long)c.m,
                 (long long)(c.m * c.m * 8 >> 20), c.reps);
    if (!rc)
        rc = measure(r, &c, pts, &npts);
    if (!rc)
        report(r, &c, pts, npts);
    free(pts);
    return rc;
}
