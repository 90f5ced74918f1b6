// Scenario stencil: Herrmann et al. 2016, §6.2, Fig. 5 and 6. A 3-point circular 1D stencil on
// 16 domains, 16 items per domain placed by a random balanced distribution, K = 0..9
// iterations, tau_comm/tau_calc = 1 (Fig. 5) and 10 (Fig. 6). Strategies: owner-computes (run
// where the items are), redistribute to the block partition under the canonical, volume- or
// steps-optimal labelling, and the Part&Redistrib heuristic (numatile/stencil_model.h).
//
// Two parts:
//  - model: T_total = Redist * tau_comm + K * T_iter predicted by nt_stencil_compare() for 30
//    instances, in the steps (one-port) and the volume (serialised) models;
//  - measured: nt_stencil_run() on virtual domains, owner-computes against the block partition
//    with the volume-optimal labelling, at a few K and two per-item costs; the halo items it
//    counts must equal K times the model's halo volume.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/dist.h"
#include "numatile/kernels.h"
#include "numatile/stencil_model.h"
#include "scn_util.h"

enum { NSTRAT = 5, NK = 10, NRATIO = 2, NMODEL = 2 };

static const nt_stencil_strategy_t strats[NSTRAT] = {
    NT_STENCIL_OWNER, NT_STENCIL_BLOCK_CANONICAL, NT_STENCIL_BLOCK_VOLUME, NT_STENCIL_BLOCK_STEPS,
    NT_STENCIL_PART_REDISTRIB};
static const char *strat_key[NSTRAT] = {"owner", "canonical", "volume", "steps", "part_redistrib"};
static const double ratios[NRATIO] = {1.0, 10.0};
static const nt_stencil_model_t models[NMODEL] = {NT_STENCIL_MODEL_STEPS,
                                                  NT_STENCIL_MODEL_VOLUME};
static const char *model_name[NMODEL] = {"steps", "volume"};

// Mean predicted totals: [model][ratio][K][strategy].
typedef struct model_res {
    double mean[NMODEL][NRATIO][NK][NSTRAT];
} model_res;

static uint64_t instance_seed(const bench_run *r, int tag, int inst)
{
    return r->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)tag * 1000003ULL + (uint64_t)inst;
}

static int run_model(bench_run *r, int p, int d, int instances, model_res *mr, int64_t *done,
                     int64_t total)
{
    int64_t n = (int64_t)p * d;
    memset(mr, 0, sizeof *mr);
    for (int inst = 0; inst < instances; inst++) {
        nt_dist1d_t *ini = NULL;
        nt_status st = nt_dist1d_balanced(n, p, instance_seed(r, 1, inst), &ini);
        for (int m = 0; m < NMODEL && st == NT_OK; m++)
            for (int q = 0; q < NRATIO && st == NT_OK; q++)
                for (int k = 0; k < NK && st == NT_OK; k++) {
                    nt_stencil_params_t prm = {.iters = k, .tau_comm = 1.0,
                                               .tau_calc = 1.0 / ratios[q]};
                    nt_stencil_cost_t cost[NSTRAT];
                    st = nt_stencil_compare(n, p, ini->owner, &prm, models[m], strats, NSTRAT,
                                            cost);
                    if (st != NT_OK)
                        break;
                    json_t *row = json_pack("{s:s, s:s, s:f, s:i, s:i}", "kind", "model",
                                            "model", model_name[m], "ratio", ratios[q], "K", k,
                                            "rep", inst);
                    for (int s = 0; s < NSTRAT; s++) {
                        double tot = nt_stencil_total(&cost[s], models[m]);
                        mr->mean[m][q][k][s] += tot / instances;
                        json_object_set_new(row, strat_key[s], json_real(tot));
                    }
                    bench_row(r, row);
                }
        nt_dist1d_destroy(ini);
        if (st != NT_OK)
            return scn_fail(r, "model", st);
        bench_progress(r, ++*done, total, "instances and measured runs");
    }
    return 0;
}

// ---- measured part ------------------------------------------------------------------------------

// Measured runs of one (work, K): owner and block-volume, reps each, interleaved.
typedef struct meas {
    int64_t work, K;
    double sec[2], iter_sec[2]; // medians: whole call, iterations only
    int64_t halo[2];            // halo items of the run
    int64_t pred_halo[2];       // K x the model's halo volume
    int64_t redist;             // items the block map moves
} meas;

// The measured instance: a random balanced map (owner-computes) and the block partition with
// the volume-optimal labelling, their model costs, the item values, the repetitions' times.
typedef struct measured {
    int p, reps;
    int64_t n;
    nt_dist1d_t *maps[2]; // owner, block
    nt_stencil_cost_t cost[2];
    double *v, *sec;
} measured;

static const char *const meas_name[2] = {"owner", "block_volume"};

static nt_status measured_maps(const bench_run *r, measured *m)
{
    int p = m->p;
    int64_t n = m->n;
    int *part = malloc((size_t)n * sizeof *part), *sigma = malloc((size_t)p * sizeof *sigma);
    m->v = malloc((size_t)n * sizeof *m->v);
    m->sec = malloc((size_t)m->reps * 4 * sizeof *m->sec);
    nt_stencil_params_t prm = {.iters = 1, .tau_comm = 1.0, .tau_calc = 1.0};
    nt_status st = part && sigma && m->v && m->sec ? NT_OK : NT_ENOMEM;
    if (st == NT_OK)
        st = nt_dist1d_balanced(n, p, instance_seed(r, 2, 0), &m->maps[0]);
    if (st == NT_OK)
        st = nt_dist1d_create(n, p, &m->maps[1]);
    if (st == NT_OK)
        st = nt_stencil_strategy_apply(n, p, m->maps[0]->owner, &prm, NT_STENCIL_MODEL_VOLUME,
                                       NT_STENCIL_BLOCK_VOLUME, part, sigma, &m->cost[1]);
    if (st == NT_OK) {
        for (int64_t x = 0; x < n; x++)
            m->maps[1]->owner[x] = sigma[part[x]];
        st = nt_stencil_evaluate(n, p, m->maps[0]->owner, m->maps[0]->owner, NULL, &prm,
                                 &m->cost[0]);
    }
    free(part);
    free(sigma);
    return st;
}

static void measured_free(measured *m)
{
    nt_dist1d_destroy(m->maps[0]);
    nt_dist1d_destroy(m->maps[1]);
    free(m->v);
    free(m->sec);
}

// One run of strategy s: a raw row, times into the repetition's slots.
static int measure_run(bench_run *r, const nt_topo_t *t, measured *m, int s, int rep,
                       meas *me)
{
    int reps = m->reps;
    nt_stencil_opts_t so = {.iters = me->K, .work = me->work};
    for (int64_t x = 0; x < m->n; x++)
        m->v[x] = (double)((x * 2654435761u) % 1000) / 10.0;
    nt_stencil_stats_t ss;
    double t0 = bench_now();
    nt_status st = nt_stencil_run(t, m->maps[s], m->v, &so, &ss);
    if (st != NT_OK)
        return scn_fail(r, "nt_stencil_run", st);
    double wall = bench_now() - t0;
    m->sec[(2 * s) * reps + rep] = wall;
    m->sec[(2 * s + 1) * reps + rep] = ss.seconds;
    me->halo[s] = ss.halo_items;
    me->pred_halo[s] = me->K * m->cost[s].halo_volume;
    bench_row(r, json_pack("{s:s, s:s, s:I, s:I, s:i, s:f, s:f, s:I, s:I, s:I, s:f}", "kind",
                           "measured", "strategy", meas_name[s], "work", (json_int_t)me->work,
                           "K", (json_int_t)me->K, "rep", rep, "seconds", wall, "iter_seconds",
                           ss.seconds, "halo_items", (json_int_t)ss.halo_items,
                           "halo_predicted", (json_int_t)me->pred_halo[s], "redist_items",
                           (json_int_t)(s ? m->cost[1].redist_volume : 0), "owner_fraction",
                           ss.owner_fraction));
    return 0;
}

// Medians of one (work, K), and a notice if a run's halo differs from the model's.
static void measure_stats(bench_run *r, const measured *m, meas *me)
{
    int reps = m->reps;
    for (int s = 0; s < 2; s++) {
        me->sec[s] = bench_median(m->sec + (2 * s) * reps, (size_t)reps);
        me->iter_sec[s] = bench_median(m->sec + (2 * s + 1) * reps, (size_t)reps);
        if (me->halo[s] != me->pred_halo[s])
            bench_notice(r, "%s K=%lld: nt_stencil_run counted %lld halo items, the model "
                         "predicts %lld", meas_name[s], (long long)me->K,
                         (long long)me->halo[s], (long long)me->pred_halo[s]);
    }
}

// The run's sizes: model and measured parts, progress.
typedef struct config {
    const int64_t *works, *ks;
    int nw, nks, p, d, instances, reps;
    int64_t per_dom, done, total;
} config;

static int run_measured(bench_run *r, const nt_topo_t *t, config *c, meas *out)
{
    measured m = {.p = c->p, .reps = c->reps, .n = (int64_t)c->p * c->per_dom};
    nt_status st = measured_maps(r, &m);
    int rc = st != NT_OK ? scn_fail(r, "measured instance", st) : 0;
    for (int w = 0; w < c->nw && !rc; w++)
        for (int k = 0; k < c->nks && !rc; k++) {
            meas *me = &out[w * c->nks + k];
            *me = (meas){.work = c->works[w], .K = c->ks[k], .redist = m.cost[1].redist_volume};
            for (int rep = 0; rep < c->reps && !rc; rep++)
                for (int s = 0; s < 2 && !rc; s++) {
                    rc = measure_run(r, t, &m, s, rep, me);
                    bench_progress(r, ++c->done, c->total, "instances and measured runs");
                }
            if (!rc)
                measure_stats(r, &m, me);
        }
    measured_free(&m);
    return rc;
}

// ---- report -------------------------------------------------------------------------------------

// First K from which owner-computes stays above the best block labelling (vol or steps); -1
// if it never does within 0..9.
static int owner_loses_from(const double (*mean)[NSTRAT])
{
    int from = -1;
    for (int k = NK - 1; k >= 0; k--) {
        if (mean[k][0] > fmin(mean[k][2], mean[k][3]))
            from = k;
        else
            break;
    }
    return from;
}

static const bench_col model_cols[] = {
    {.key = "K", .head = "K", .fmt = "%2d", .sep = "  "},
    {.key = "owner", .head = "owner", .fmt = "%9.2f"},
    {.key = "canonical", .head = "canonical", .fmt = "%9.2f"},
    {.key = "volume", .head = "volume", .fmt = "%9.2f"},
    {.key = "steps", .head = "steps", .fmt = "%9.2f"},
    {.key = "part_redistrib", .head = "P&R", .fmt = "%9.2f"},
    {.key = "_vol_can", .head = "vol/can", .fmt = "%7.3f", .sep = " | "},
    {.key = "_steps_can", .head = "steps/can", .fmt = "%9.3f"},
    {NULL}};

static const bench_col meas_cols[] = {
    {.key = "work", .head = "work", .fmt = "%6d", .sep = "  "},
    {.key = "K", .head = "K", .fmt = "%2d"},
    {.key = "owner_seconds", .head = "owner s", .fmt = "%9.4f", .sep = " | "},
    {.key = "owner_iter_seconds", .head = "iter", .fmt = "%9.4f"},
    {.key = "owner_halo", .head = "halo", .fmt = "%9d"},
    {.key = "block_seconds", .head = "block s", .fmt = "%9.4f", .sep = " | "},
    {.key = "block_iter_seconds", .head = "iter", .fmt = "%9.4f"},
    {.key = "block_halo", .head = "halo", .fmt = "%9d"},
    {.key = "_s_ratio,_iter_ratio", .head = "owner/block: s, iter", .fmt = "%.3f %.3f",
     .sep = " | "},
    {NULL}};

static const bench_plot_spec plot = {
    .name = "stencil",
    .title = "Herrmann 2016 Fig. 5/6 setting, steps model: predicted T\\_total (mean)",
    .width = 1100, .height = 450, .x = "K", .xlabel = "K (iterations)", .block = "_ratio",
    .panel_per_block = true, .set = "set grid\nset key top left",
    .panel = {{.title = "tau\\_comm/tau\\_calc = %s", .ylabel = "tau\\_comm units",
               .series = {{.y = "owner", .title = "owner"},
                          {.y = "canonical", .title = "canonical"},
                          {.y = "volume", .title = "volume"},
                          {.y = "steps", .title = "steps"},
                          {.y = "part_redistrib", .title = "Part\\&Redistrib"}}}}};

// The summary of a (model, ratio): per K the mean totals (and the ratios to canonical, shown
// in the table).
static json_t *model_json(const model_res *mr, int m, int q)
{
    const double(*mean)[NSTRAT] = mr->mean[m][q];
    json_t *rows = json_array();
    for (int k = 0; k < NK; k++) {
        json_t *o = json_pack("{s:i}", "K", k);
        for (int s = 0; s < NSTRAT; s++)
            json_object_set_new(o, strat_key[s], json_real(mean[k][s]));
        json_object_set_new(o, "_vol_can", json_real(mean[k][2] / mean[k][1]));
        json_object_set_new(o, "_steps_can", json_real(mean[k][3] / mean[k][1]));
        json_object_set_new(o, "_ratio", json_real(ratios[q]));
        json_array_append_new(rows, o);
    }
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:o}", "model", model_name[m], "ratio",
                     ratios[q], "vol_over_can_K0", mean[0][2] / mean[0][1],
                     "steps_over_can_K0", mean[0][3] / mean[0][1], "owner_loses_from_K",
                     owner_loses_from(mean), "mean_total", rows);
}

static json_t *meas_json(const meas *me)
{
    return json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
                     "work", (json_int_t)me->work, "K", (json_int_t)me->K, "owner_seconds",
                     me->sec[0], "owner_iter_seconds", me->iter_sec[0], "block_seconds",
                     me->sec[1], "block_iter_seconds", me->iter_sec[1], "owner_halo",
                     (json_int_t)me->halo[0], "block_halo", (json_int_t)me->halo[1],
                     "owner_halo_predicted", (json_int_t)me->pred_halo[0],
                     "block_halo_predicted", (json_int_t)me->pred_halo[1],
                     "block_redist_items", (json_int_t)me->redist, "_s_ratio",
                     me->sec[0] / me->sec[1], "_iter_ratio", me->iter_sec[0] / me->iter_sec[1]);
}

// The model tables, one per (model, ratio); their summaries into jmodel.
static void print_models(bench_run *r, const config *c, const model_res *mr, json_t *jmodel)
{
    bench_printf(r, "model: %d items per domain (%d items), %d instances; P&R = "
                 "nt_stencil_part_redistrib for the model\n", c->d, c->d * c->p, c->instances);
    for (int m = 0; m < NMODEL; m++)
        for (int q = 0; q < NRATIO; q++) {
            json_t *o = model_json(mr, m, q);
            bench_printf(r, "\n%s model, tau_comm/tau_calc = %g: mean predicted T_total (units "
                         "of tau_comm), %d instances\n", model_name[m], ratios[q], c->instances);
            bench_table(r, model_cols, json_object_get(o, "mean_total"));
            bench_printf(r, "  owner-computes is slower than the best block labelling from K = "
                         "%d on (paper: K > 1)\n", owner_loses_from(mr->mean[m][q]));
            json_array_append_new(jmodel, o);
        }
    bench_printf(r,
        "\npaper (Fig. 5, ratio 1): at K = 0 (a redistribution and back) D_vol and D_steps are "
        "~20%% faster than\n  D_can (vol/can ~ 0.8); owner-computes loses as soon as K > 1; "
        "D_vol and D_steps indistinguishable.\n  (Fig. 6, ratio 10): owner still loses for "
        "K > 1; can/vol/steps differ less in percentage.\n");
}

static void print_measured(bench_run *r, const config *c, const meas *ms, json_t *jm)
{
    for (int i = 0; i < c->nw * c->nks; i++)
        json_array_append_new(jm, meas_json(&ms[i]));
    bench_printf(r, "\nmeasured: nt_stencil_run, %lld items per domain (%lld items), median of "
                 "%d; block = block partition with\n  the volume-optimal labelling (moves %lld "
                 "items first); s = wall time of the call (places the items\n  in per-domain "
                 "buffers, then iterates), iter = the iterations; halo = items read across "
                 "domains\n", (long long)c->per_dom, (long long)c->per_dom * c->p, c->reps,
                 (long long)ms[0].redist);
    bench_table(r, meas_cols, jm);
}

static void report(bench_run *r, const nt_topo_t *t, const config *c, const model_res *mr,
                   const meas *ms)
{
    json_t *jmodel = json_array(), *jm = json_array(), *steps_rows = json_array();
    print_models(r, c, mr, jmodel);
    print_measured(r, c, ms, jm);
    bench_printf(r,
        "\nSetting: the paper ran PaRSEC on 16 nodes x 8 cores with InfiniBand, items of 1.6e6 "
        "doubles (100 ms\n  to send); here %d virtual domains%s share the 2 cores and one "
        "memory node\n  of a VM, an item is one double and a halo read is a cache miss, not a "
        "message: the measured\n  owner/block ratios show what scattered items and halos cost "
        "in shared memory (s includes\n  building the per-domain buffers and halo lists, "
        "dearer for scattered items), not Fig. 5/6's\n  ratios. The model tables are exact "
        "for their model; the paper's times include PaRSEC's\n  overlap of the redistribution "
        "with the computation and 8 cores per node.\n",
        c->p, nt_topo_oversubscribed(t) ? " (oversubscribed)" : "");
    for (int q = 0; q < NRATIO; q++) // the steps model comes first in jmodel
        json_array_extend(steps_rows, json_object_get(json_array_get(jmodel, (size_t)q),
                                                      "mean_total"));
    bench_plot_rows(r, &plot, steps_rows);
    json_decref(steps_rows);
    bench_summary(r, json_pack("{s:i, s:i, s:i, s:o, s:o}", "domains", c->p, "items_per_domain",
                               c->d, "instances", c->instances, "model", jmodel, "rows", jm));
}

// ---- the scenario -------------------------------------------------------------------------------

static void parameters(bench_run *r, const nt_topo_t *t, config *c)
{
    static const int64_t works[] = {0, 100}, ks_dflt[] = {0, 1, 3, 9}, ks_quick[] = {1, 3};
    *c = (config){.works = works, .ks = r->quick ? ks_quick : ks_dflt, .nw = 2,
                  .nks = r->quick ? 2 : 4, .p = nt_topo_ndomains(t), .d = 16,
                  .instances = r->quick ? 5 : r->full ? 120 : 30,
                  .per_dom = r->quick ? 512 : 4096, .reps = bench_reps(r, 5, 2)};
    c->total = c->instances + (int64_t)c->nw * c->nks * c->reps * 2;
    scn_note_load(r);
    bench_param(r, "domains", json_integer(c->p));
    bench_param(r, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
    bench_param(r, "oversubscribed", json_boolean(nt_topo_oversubscribed(t)));
    bench_param(r, "items_per_domain_model", json_integer(c->d));
    bench_param(r, "instances", json_integer(c->instances));
    bench_param(r, "items_per_domain_measured", json_integer((json_int_t)c->per_dom));
    bench_param(r, "repetitions", json_integer(c->reps));
    json_t *jk = json_array(), *jw = json_array();
    for (int i = 0; i < c->nks; i++)
        json_array_append_new(jk, json_integer((json_int_t)c->ks[i]));
    for (int i = 0; i < c->nw; i++)
        json_array_append_new(jw, json_integer((json_int_t)c->works[i]));
    bench_param(r, "measured_K", jk);
    bench_param(r, "measured_work", jw);
    bench_labels(r, "kind", "model", "ratio", "K", "strategy", "work", NULL);
}

int scn_stencil(bench_run *r)
{
    nt_topo_opts_t to = {.domains = r->domains ? r->domains : 16};
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&to, &t);
    if (st != NT_OK)
        return scn_fail(r, "loading the topology", st);
    config c;
    parameters(r, t, &c);
    bench_printf(r, "Herrmann 2016 Fig. 5/6: 1D 3-point circular stencil on %d domains, random "
                 "balanced initial distribution\n", c.p);
    model_res mr;
    meas ms[8];
    int rc = run_model(r, c.p, c.d, c.instances, &mr, &c.done, c.total);
    if (!rc)
        rc = run_measured(r, t, &c, ms);
    if (!rc) {
        scn_note_load_end(r);
        report(r, t, &c, &mr, ms);
    }
    nt_topo_destroy(t);
    return rc;
}
