// What herrmann-fig2 and herrmann-fig3 share: Herrmann et al. 2016, §4.3. P = 32 processors
// (domains), D items per processor, target = the canonical block partition (component j =
// items j*D .. j*D+D-1); for each random initial distribution, the volume- and steps-optimal
// labellings (and lex) are compared with the canonical labelling sigma[j] = j.
#include "scn_herrmann_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/dist.h"
#include "numatile/match.h"

// One instance's costs under each labelling.
typedef struct costs {
    nt_cost_t can, vol, steps, lex, shift;
    bool vol_is_shift; // the volume-optimal labelling is the shifted one, j -> (j+1) mod P
} costs;

// The ratios optimal / canonical of an instance, and their names in the summary rows.
enum { R_VOL_VOL, R_VOL_STEPS, R_STEPS_VOL, R_STEPS_STEPS, R_LEX_VOL, R_LEX_STEPS, R_SHIFT_VOL,
       R_COUNT };
static const char *const ratio_name[R_COUNT] = {
    "vol_over_can",     "volopt_steps_over_can", "stepsopt_vol_over_can", "steps_over_can",
    "lex_vol_over_can", "lex_steps_over_can",    "shift_vol_over_can"};

// ---- instances ----------------------------------------------------------------------------------

// Seed of instance rep at sweep point k: distinct and reproducible for every (seed, k, rep).
static uint64_t instance_seed(const bench_run *r, int k, int rep)
{
    return r->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)k * 1000003ULL + (uint64_t)rep;
}

// The count matrix of an instance: initial distribution (alpha < 0: random balanced; else
// skewed alpha) against the canonical block partition.
static nt_status instance_counts(int p, int d, double alpha, uint64_t seed, int64_t *counts)
{
    nt_dist1d_t *ini = NULL, *tar = NULL;
    nt_status st = alpha < 0 ? nt_dist1d_balanced((int64_t)p * d, p, seed, &ini)
                             : nt_dist1d_skewed(p, d, alpha, seed, &ini);
    if (st == NT_OK)
        st = nt_dist1d_block((int64_t)p * d, p, &tar);
    if (st == NT_OK)
        st = nt_counts_compute(ini->n, ini->owner, p, tar->owner, p, NULL, counts, NULL);
    nt_dist1d_destroy(ini);
    nt_dist1d_destroy(tar);
    return st;
}

// Costs of every labelling of one instance, and of the shifted one j -> (j+1) mod P.
static nt_status instance_costs(int p, int d, double alpha, uint64_t seed, costs *c)
{
    int64_t *counts = calloc((size_t)p * (size_t)p, sizeof *counts);
    int *sigma = malloc((size_t)p * sizeof *sigma);
    nt_status st = counts && sigma ? NT_OK : NT_ENOMEM;
    if (st == NT_OK)
        st = instance_counts(p, d, alpha, seed, counts);
    nt_match_problem_t prob = {.p_ini = p, .p_tar = p, .p_dom = p, .counts = counts};
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_CANONICAL, sigma, &c->can);
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_STEPS, sigma, &c->steps);
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_LEX, sigma, &c->lex);
    if (st == NT_OK)
        st = nt_match_solve(&prob, NT_MATCH_VOLUME, sigma, &c->vol);
    if (st == NT_OK) {
        c->vol_is_shift = true;
        for (int j = 0; j < p; j++)
            c->vol_is_shift &= sigma[j] == (j + 1) % p;
        for (int j = 0; j < p; j++)
            sigma[j] = (j + 1) % p;
        st = nt_cost_eval(counts, p, p, p, sigma, NULL, &c->shift);
    }
    free(counts);
    free(sigma);
    return st;
}

// ---- measurement --------------------------------------------------------------------------------

static double ratio(int64_t a, int64_t b)
{
    return b ? (double)a / (double)b : 1.0;
}

// The sums of a sweep point over its instances: every ratio, canonical volume, how often the
// canonical steps equal D, how often the volume-optimal labelling is the shifted one.
typedef struct sums {
    double *v[R_COUNT];
    double can, eq_d, shift;
} sums;

static json_t *instance_row(const char *xname, int d, double alpha, int rep, const costs *c,
                            const double *x)
{
    json_t *row = json_object();
    json_object_set_new(row, xname, alpha < 0 ? json_integer(d) : json_real(alpha));
    json_object_set_new(row, "rep", json_integer(rep));
    json_object_set_new(row, "can_volume", json_integer(c->can.volume));
    json_object_set_new(row, "can_steps", json_integer(c->can.steps));
    json_object_set_new(row, "volopt_volume", json_integer(c->vol.volume));
    json_object_set_new(row, "volopt_steps", json_integer(c->vol.steps));
    json_object_set_new(row, "stepsopt_volume", json_integer(c->steps.volume));
    json_object_set_new(row, "stepsopt_steps", json_integer(c->steps.steps));
    json_object_set_new(row, "lex_volume", json_integer(c->lex.volume));
    json_object_set_new(row, "lex_steps", json_integer(c->lex.steps));
    json_object_set_new(row, "shift_volume", json_integer(c->shift.volume));
    json_object_set_new(row, "vol_over_can", json_real(x[R_VOL_VOL]));
    json_object_set_new(row, "steps_over_can", json_real(x[R_STEPS_STEPS]));
    return row;
}

// Solve reps instances, add their raw rows and sum their ratios into s.
static int measure(bench_run *r, const char *xname, int k, int d, double alpha, int reps,
                   sums *s)
{
    for (int rep = 0; rep < reps; rep++) {
        costs c;
        nt_status st = instance_costs(FIG_P, d, alpha, instance_seed(r, k, rep), &c);
        if (st != NT_OK) {
            fprintf(stderr, "numatile bench %s: %s: %s\n", r->name, nt_strerror(st),
                    nt_last_error());
            return 3;
        }
        double x[R_COUNT] = {
            ratio(c.vol.volume, c.can.volume),   ratio(c.vol.steps, c.can.steps),
            ratio(c.steps.volume, c.can.volume), ratio(c.steps.steps, c.can.steps),
            ratio(c.lex.volume, c.can.volume),   ratio(c.lex.steps, c.can.steps),
            ratio(c.shift.volume, c.can.volume)};
        for (int q = 0; q < R_COUNT; q++)
            s->v[q][rep] = x[q];
        s->can += (double)c.can.volume;
        s->eq_d += c.can.steps == d;
        s->shift += c.vol_is_shift;
        bench_row(r, instance_row(xname, d, alpha, rep, &c, x));
    }
    return 0;
}

// ---- report -------------------------------------------------------------------------------------

double fig_p_steps_eq_d(int p, int m)
{
    return 1.0 - pow(1.0 - pow((double)(p - 1) / p, m), p);
}

// The summary row of a point: mean and std of every ratio, canonical volume and steps against
// the paper's expectations.
static json_t *point_row(const char *xname, int d, double alpha, int reps, const sums *s)
{
    json_t *o = json_object();
    char key[64];
    bool fig2 = alpha < 0; // the shifted labelling only means something in Fig. 3
    int a = fig2 ? 0 : (int)floor(alpha * d);
    json_object_set_new(o, xname, fig2 ? json_integer(d) : json_real(alpha));
    for (int q = 0; q < (fig2 ? R_SHIFT_VOL : R_COUNT); q++) {
        snprintf(key, sizeof key, "%s_mean", ratio_name[q]);
        json_object_set_new(o, key, json_real(bench_mean(s->v[q], (size_t)reps)));
        snprintf(key, sizeof key, "%s_std", ratio_name[q]);
        json_object_set_new(o, key, json_real(bench_stddev(s->v[q], (size_t)reps)));
    }
    json_object_set_new(o, "can_volume_mean", json_real(s->can / reps));
    json_object_set_new(o, "can_volume_expected", json_integer((json_int_t)d * (FIG_P - 1) + a));
    json_object_set_new(o, "can_steps_eq_D_fraction", json_real(s->eq_d / reps));
    json_object_set_new(o, "can_steps_eq_D_formula", json_real(fig_p_steps_eq_d(FIG_P, d - a)));
    if (!fig2)
        json_object_set_new(o, "volopt_is_shift_fraction", json_real(s->shift / reps));
    json_object_set_new(o, "_a", json_integer(a));
    return o;
}

int fig_point(bench_run *r, const char *xname, int k, int d, double alpha, int reps,
              json_t **row)
{
    sums s = {.can = 0};
    bool ok = true;
    for (int q = 0; q < R_COUNT; q++)
        ok &= (s.v[q] = malloc((size_t)reps * sizeof(double))) != NULL;
    int rc = ok ? measure(r, xname, k, d, alpha, reps, &s) : 3;
    if (!ok)
        fprintf(stderr, "numatile bench %s: out of memory\n", r->name);
    *row = rc ? NULL : point_row(xname, d, alpha, reps, &s);
    for (int q = 0; q < R_COUNT; q++)
        free(s.v[q]);
    return rc;
}

// The table after its x column: canonical volume and steps, then a column pair per labelling.
static const bench_col ratio_cols[] = {
    {.key = "_a", .head = "a", .fmt = "%3d"},
    {.key = "can_volume_mean", .head = "can.vol", .fmt = "%8.1f"},
    {.key = "can_volume_expected", .head = "E[can]", .fmt = "%6d"},
    {.key = "can_steps_eq_D_fraction,can_steps_eq_D_formula", .head = "P(st=D)",
     .fmt = "%.2f(%.2f)", .width = -12},
    {.key = "vol_over_can_mean,vol_over_can_std", .head = "volopt vol", .fmt = "%.3f+-%.3f",
     .width = -12, .sep = " | "},
    {.key = "volopt_steps_over_can_mean,volopt_steps_over_can_std", .head = "volopt st",
     .fmt = "%.3f+-%.3f", .width = -12},
    {.key = "stepsopt_vol_over_can_mean,stepsopt_vol_over_can_std", .head = "stepsopt vol",
     .fmt = "%.3f+-%.3f", .width = -12, .sep = " | "},
    {.key = "steps_over_can_mean,steps_over_can_std", .head = "stepsopt st",
     .fmt = "%.3f+-%.3f", .width = -12},
    {.key = "lex_vol_over_can_mean,lex_vol_over_can_std", .head = "lex vol",
     .fmt = "%.3f+-%.3f", .width = -12, .sep = " | "},
    {.key = "lex_steps_over_can_mean,lex_steps_over_can_std", .head = "lex st",
     .fmt = "%.3f+-%.3f", .width = -12},
    {NULL}};

enum { NCOLS = sizeof ratio_cols / sizeof ratio_cols[0] + 1 };

static void table_cols(bench_col *cols, const bench_col *xcol)
{
    cols[0] = *xcol;
    memcpy(cols + 1, ratio_cols, sizeof ratio_cols);
}

void fig_table_head(bench_run *r, const bench_col *xcol)
{
    bench_col cols[NCOLS];
    table_cols(cols, xcol);
    bench_table_head(r, cols);
}

void fig_table_row(bench_run *r, const bench_col *xcol, const json_t *row)
{
    bench_col cols[NCOLS];
    table_cols(cols, xcol);
    bench_table_row(r, cols, row);
}

void fig_plot(bench_run *r, const char *fig, const char *title, const char *xname,
              const char *xlabel, const json_t *rows)
{
    bench_plot_spec p = {
        .width = 1100, .height = 450, .set = "set yrange [0:1.05]\nset grid\nset key bottom left",
        .panel = {{.title = "relative volume",
                   .series = {{.y = "vol_over_can_mean,vol_over_can_std",
                               .title = "volume-optimal", .with = "yerrorlines"},
                              {.y = "stepsopt_vol_over_can_mean,stepsopt_vol_over_can_std",
                               .title = "steps-optimal", .with = "yerrorlines"}}},
                  {.title = "relative steps",
                   .series = {{.y = "volopt_steps_over_can_mean,volopt_steps_over_can_std",
                               .title = "volume-optimal", .with = "yerrorlines"},
                              {.y = "steps_over_can_mean,steps_over_can_std",
                               .title = "steps-optimal", .with = "yerrorlines"}}}}};
    p.name = fig;
    p.title = title;
    p.x = xname;
    p.xlabel = xlabel;
    bench_plot_rows(r, &p, rows);
}
