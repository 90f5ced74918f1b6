// Scenario adopt: bringing an application's own column-major array to numatile (issue 39).
// An N x N array of doubles (N = 8192; --quick 512) with lda = N and lda = N + 8 is converted
// to the tile layout (NB x NB tiles, NB = 256; --quick 64) and back, side by side in every
// repetition: in the same memory (nt_convert_lapack_to_tile, workspace budget 1% of the array),
// into a new buffer (nt_convert_lapack_to_tile_copy, the out-of-place conversion), and the copy
// bound: a parallel memcpy of the matrix's bytes by the same threads between two buffers. All
// buffers are touched before timing, so no page fault is timed. Every repetition checks the
// in-place result against the out-of-place one byte for byte; the first also checks every
// element against its pattern value (the tile offsets computed here, per element).
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "scn_util.h"

enum { C_BOUND, C_COPY, C_INPLACE, C_COPY_BACK, C_INPLACE_BACK, NCASE };

static const char *const case_name[NCASE] = {"copy_bound", "out_of_place", "in_place",
                                             "out_of_place_back", "in_place_back"};

typedef struct adopt_cfg {
    int64_t n, nb;
    int64_t lda[2];
    int reps, threads;
    size_t budget; // in-place workspace budget, bytes
} adopt_cfg;

// The buffers of one lda: the LAPACK array a, the out-of-place tile buffer t, and b (the copy
// bound's target, then the out-of-place conversion back), each as large as a.
typedef struct adopt_bufs {
    char *a, *t, *b;
    size_t bytes, mbytes; // the LAPACK array's bytes; the matrix's (N*N*8)
    nt_convert_geom_t g;
} adopt_bufs;

// Per-repetition values of one lda: seconds[case][rep], and the in-place stats.
typedef struct adopt_meas {
    double *sec[NCASE];
    nt_convert_stats_t st[2]; // to tile, back
} adopt_meas;

static const bench_col table[] = {
    {.key = "case", .head = "case", .fmt = "%s", .width = -18},
    {.key = "lda", .head = "lda", .fmt = "%-5d"},
    {.key = "seconds,sec_min,sec_max", .head = " ms [min..max]", .fmt = "%.1f [%.1f..%.1f]",
     .width = -22, .scale = 1e3},
    {.key = "gbs", .head = "GB/s", .fmt = "%6.2f"},
    {.key = "ratio_bound", .head = "/bound", .fmt = "%6.2f"},
    {.key = "over_out_of_place", .head = "time/out-of-place", .fmt = "%17.2f"},
    {.key = "extra_bytes", .head = "extra MiB", .fmt = "%10.2f", .scale = 1.0 / (1 << 20)},
    {.key = "extra_fraction", .head = "extra", .fmt = "%7.3f%%", .scale = 100},
    {NULL}};

static void parameters(bench_run *r, adopt_cfg *c)
{
    c->n = r->quick ? 512 : 8192;
    c->nb = r->quick ? 64 : 256;
    c->lda[0] = c->n;
    c->lda[1] = c->n + 8;
    c->reps = bench_reps(r, 5, 2);
    c->threads = omp_get_max_threads();
    c->budget = (size_t)(c->n * c->n) * sizeof(double) / 100;
    bench_param(r, "n", json_integer(c->n));
    bench_param(r, "nb", json_integer(c->nb));
    bench_param(r, "elem_size", json_integer((json_int_t)sizeof(double)));
    bench_param(r, "threads", json_integer(c->threads));
    bench_param(r, "budget_bytes", json_integer((json_int_t)c->budget));
    bench_param(r, "repetitions", json_integer(c->reps));
    bench_labels(r, "case", "lda", NULL);
}

// memcpy of bytes split evenly over the threads: the copy bound.
static void par_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        size_t t = (size_t)omp_get_thread_num(), nth = (size_t)omp_get_num_threads();
        size_t lo = bytes / nth * t, hi = t + 1 == nth ? bytes : bytes / nth * (t + 1);
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

static double value(int64_t r, int64_t c)
{
    return (double)r + 1e-6 * (double)c + 0.5;
}

// Fill the LAPACK array with value(r,c) and touch every buffer (first touch by the threads
// that copy, as the conversions split the work).
static void fill(adopt_bufs *B, int threads)
{
    const nt_convert_geom_t *g = &B->g;
#pragma omp parallel for num_threads(threads)
    for (int64_t c = 0; c < g->n; c++) {
        double *col = (double *)(void *)(B->a + (size_t)(c * g->lda) * sizeof(double));
        for (int64_t r = 0; r < g->lda && (c < g->n - 1 || r < g->m); r++)
            col[r] = r < g->m ? value(r, c) : -1.0;
    }
    par_memcpy(B->t, B->a, B->mbytes, threads);
    par_memcpy(B->b, B->a, B->bytes, threads);
}

// Elements of the tile layout at p that differ from value(r,c), by the per-element offset
// (tile column after tile column, tiles down each one, column-major inside).
static int64_t check_tiles(const char *p, const nt_convert_geom_t *g)
{
    const double *t = (const double *)(const void *)p;
    int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int64_t c = 0; c < g->n; c++) {
        int64_t j = c / g->nb, nj = g->n - j * g->nb < g->nb ? g->n - j * g->nb : g->nb;
        for (int64_t r = 0; r < g->m; r++) {
            int64_t i = r / g->mb, mi = g->m - i * g->mb < g->mb ? g->m - i * g->mb : g->mb;
            int64_t e = j * g->nb * g->m + i * g->mb * nj + (c - j * g->nb) * mi + r % g->mb;
            bad += t[e] != value(r, c);
        }
    }
    return bad;
}

// Elements (r,c) of the LAPACK array at p that differ from value(r,c).
static int64_t check_lapack(const char *p, const nt_convert_geom_t *g)
{
    const double *a = (const double *)(const void *)p;
    int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int64_t c = 0; c < g->n; c++)
        for (int64_t r = 0; r < g->m; r++)
            bad += a[c * g->lda + r] != value(r, c);
    return bad;
}

static int wrong(bench_run *r, const char *what, int64_t bad, int64_t lda)
{
    fprintf(stderr, "numatile bench %s: lda %lld: %s: %lld elements wrong\n", r->name,
            (long long)lda, what, (long long)bad);
    return 3;
}

// The checks after the conversion to tiles: the in-place result equals the out-of-place one;
// in the first repetition, every element equals its value.
static int check_to_tile(bench_run *r, const adopt_bufs *B, int rep)
{
    if (memcmp(B->a, B->t, B->mbytes))
        return wrong(r, "in place differs from out of place", 1, B->g.lda);
    int64_t bad = rep == 0 ? check_tiles(B->a, &B->g) : 0;
    return bad ? wrong(r, "tile layout", bad, B->g.lda) : 0;
}

// The same after the conversions back (b holds the out-of-place one).
static int check_back(bench_run *r, const adopt_bufs *B, int rep)
{
    const nt_convert_geom_t *g = &B->g;
    for (int64_t c = 0; c < g->n; c++) {
        size_t off = (size_t)(c * g->lda) * sizeof(double);
        if (memcmp(B->a + off, B->b + off, (size_t)g->m * sizeof(double)))
            return wrong(r, "in place back differs from out of place back", 1, g->lda);
    }
    int64_t bad = rep == 0 ? check_lapack(B->a, g) : 0;
    return bad ? wrong(r, "back to LAPACK", bad, g->lda) : 0;
}

// One repetition: the five cases in order, timed, with their checks (untimed).
static int one_rep(bench_run *r, const adopt_cfg *c, adopt_bufs *B, adopt_meas *M, int rep)
{
    const nt_convert_geom_t *g = &B->g;
    nt_convert_opts_t o = {.budget_bytes = c->budget, .threads = c->threads};
    double sec[NCASE], t0 = bench_now();
    par_memcpy(B->b, B->a, B->mbytes, c->threads);
    sec[C_BOUND] = bench_now() - t0;
    t0 = bench_now();
    nt_status st = nt_convert_lapack_to_tile_copy(B->a, B->t, g, c->threads);
    sec[C_COPY] = bench_now() - t0;
    t0 = bench_now();
    if (st == NT_OK)
        st = nt_convert_lapack_to_tile(B->a, g, &o, &M->st[0]);
    sec[C_INPLACE] = bench_now() - t0;
    if (st != NT_OK)
        return scn_fail(r, "LAPACK -> tile", st);
    int rc = check_to_tile(r, B, rep);
    if (rc)
        return rc;
    t0 = bench_now();
    st = nt_convert_tile_to_lapack_copy(B->t, B->b, g, c->threads);
    sec[C_COPY_BACK] = bench_now() - t0;
    t0 = bench_now();
    if (st == NT_OK)
        st = nt_convert_tile_to_lapack(B->a, g, &o, &M->st[1]);
    sec[C_INPLACE_BACK] = bench_now() - t0;
    if (st != NT_OK)
        return scn_fail(r, "tile -> LAPACK", st);
    for (int k = 0; k < NCASE; k++) {
        M->sec[k][rep] = sec[k];
        bench_row(r, json_pack("{s:s, s:I, s:i, s:f, s:f}", "case", case_name[k], "lda",
                               (json_int_t)g->lda, "rep", rep, "seconds", sec[k],
                               "gbs", (double)B->mbytes / sec[k] * 1e-9));
    }
    return check_back(r, B, rep);
}

// Median over the repetitions of num[k] / den[k].
static double ratio_median(const double *num, const double *den, int n)
{
    double *x = malloc((size_t)n * sizeof *x);
    if (!x)
        return 0;
    for (int k = 0; k < n; k++)
        x[k] = den[k] > 0 ? num[k] / den[k] : 0;
    double m = bench_median(x, (size_t)n);
    free(x);
    return m;
}

// The row of case k: median and range of the seconds, bandwidth over the matrix's bytes,
// ratios to the bound and (in place) to the out-of-place conversion, the extra memory.
static json_t *case_row(const adopt_cfg *c, const adopt_bufs *B, const adopt_meas *M, int k)
{
    double s3[3], mb = (double)B->mbytes;
    scn_stat3(s3, M->sec[k], c->reps);
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f}", "case",
                          case_name[k], "lda", (json_int_t)B->g.lda, "n", (json_int_t)c->n,
                          "nb", (json_int_t)c->nb, "seconds", s3[0], "sec_min", s3[1],
                          "sec_max", s3[2], "gbs", mb / s3[0] * 1e-9, "ratio_bound",
                          ratio_median(M->sec[C_BOUND], M->sec[k], c->reps));
    bool inplace = k == C_INPLACE || k == C_INPLACE_BACK;
    // The bound and the out-of-place conversions need a second array; the way back a whole
    // LAPACK one.
    double extra = inplace ? (double)M->st[k == C_INPLACE_BACK].workspace_bytes
                   : k == C_COPY_BACK ? (double)B->bytes : mb;
    json_object_set_new(o, "over_out_of_place",
                        inplace ? json_real(ratio_median(M->sec[k], M->sec[k - 1], c->reps))
                                : json_null());
    json_object_set_new(o, "extra_bytes", json_integer((json_int_t)extra));
    json_object_set_new(o, "extra_fraction", json_real(extra / mb));
    if (inplace) {
        const nt_convert_stats_t *st = &M->st[k == C_INPLACE_BACK];
        json_object_set_new(o, "budget_bytes", json_integer((json_int_t)st->budget_bytes));
        json_object_set_new(o, "passes", json_integer(st->passes));
        json_object_set_new(o, "threads", json_integer(st->threads));
    }
    return o;
}

static void bufs_free(adopt_bufs *B, adopt_meas *M)
{
    free(B->a);
    free(B->t);
    free(B->b);
    for (int k = 0; k < NCASE; k++)
        free(M->sec[k]);
}

// Every repetition at one lda; the rows of its five cases appended to rows.
static int run_lda(bench_run *r, const adopt_cfg *c, int64_t lda, json_t *rows)
{
    adopt_bufs B = {.g = {c->n, c->n, lda, c->nb, c->nb, sizeof(double)}};
    adopt_meas M = {0};
    B.mbytes = (size_t)(c->n * c->n) * sizeof(double);
    B.bytes = (size_t)((c->n - 1) * lda + c->n) * sizeof(double);
    B.a = malloc(B.bytes);
    B.t = malloc(B.mbytes);
    B.b = malloc(B.bytes);
    bool ok = B.a && B.t && B.b;
    for (int k = 0; k < NCASE; k++)
        ok &= (M.sec[k] = calloc((size_t)c->reps, sizeof(double))) != NULL;
    int rc = ok ? 0 : scn_fail(r, "buffers", NT_ENOMEM);
    if (!rc)
        fill(&B, c->threads);
    for (int rep = 0; rep < c->reps && !rc; rep++)
        rc = one_rep(r, c, &B, &M, rep);
    for (int k = 0; k < NCASE && !rc; k++)
        json_array_append_new(rows, case_row(c, &B, &M, k));
    bufs_free(&B, &M);
    return rc;
}

// Issue 39's target at lda = N: in place within 2x of out of place, out of place at >= 0.8
// of the copy bound, extra memory within the budget.
static json_t *acceptance(const adopt_cfg *c, json_t *rows)
{
    json_t *ip = json_array_get(rows, C_INPLACE), *op = json_array_get(rows, C_COPY);
    double over = json_real_value(json_object_get(ip, "over_out_of_place"));
    double ratio = json_real_value(json_object_get(op, "ratio_bound"));
    json_int_t extra = json_integer_value(json_object_get(ip, "extra_bytes"));
    bool met = over <= 2.0 && ratio >= 0.8 && extra <= (json_int_t)c->budget;
    return json_pack("{s:I, s:f, s:f, s:I, s:b}", "lda", (json_int_t)c->n,
                     "in_place_over_out_of_place", over, "out_of_place_ratio_bound", ratio,
                     "extra_bytes", extra, "met", met);
}

static void report(bench_run *r, const adopt_cfg *c, json_t *rows)
{
    bench_printf(r, "\n");
    bench_table(r, table, rows);
    json_t *acc = acceptance(c, rows);
    bench_printf(r,
        "\nratios are medians of per-repetition ratios; time/out-of-place: in place over the "
        "out-of-place\n  conversion of the same repetition; extra: memory besides the array "
        "(a second buffer, or\n  the in-place workspace), %% of the matrix's bytes.\n"
        "Issue 39 (lda = N, to tiles: in place <= 2x out of place, out of place >= 0.8 of the "
        "bound,\n  workspace <= budget): %s (%.2fx, %.2f of the bound).\n",
        json_is_true(json_object_get(acc, "met")) ? "met" : "NOT met",
        json_real_value(json_object_get(acc, "in_place_over_out_of_place")),
        json_real_value(json_object_get(acc, "out_of_place_ratio_bound")));
    bench_summary(r, json_pack("{s:I, s:I, s:i, s:I, s:o, s:o}", "n", (json_int_t)c->n, "nb",
                               (json_int_t)c->nb, "threads", c->threads, "budget_bytes",
                               (json_int_t)c->budget, "rows", rows, "acceptance", acc));
}

int scn_adopt(bench_run *r)
{
    adopt_cfg c;
    parameters(r, &c);
    bench_printf(r, "adopt: a %lld x %lld array of doubles (lda %lld and %lld) to %lld x %lld "
                 "tiles and back: in place (budget %zu bytes, 1%%) vs out of place vs the copy "
                 "bound, %d threads, %d repetitions\n", (long long)c.n, (long long)c.n,
                 (long long)c.lda[0], (long long)c.lda[1], (long long)c.nb, (long long)c.nb,
                 c.budget, c.threads, c.reps);
    scn_note_load(r);
    json_t *rows = json_array();
    for (int k = 0; k < 2; k++) {
        int rc = run_lda(r, &c, c.lda[k], rows);
        if (rc) {
            json_decref(rows);
            return rc;
        }
        bench_progress(r, k + 1, 2, "leading dimensions");
    }
    scn_note_load_end(r);
    report(r, &c, rows);
    return 0;
}
