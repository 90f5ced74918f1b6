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

// Measured runs of one (work, K): owner and block-volume, reps each, interleaved.
typedef struct meas {
    int64_t work, K;
    double sec[2], iter_sec[2]; // medians: whole call, iterations only
    int64_t halo[2];            // halo items of the run
    int64_t pred_halo[2];       // K x the model's halo volume
    int64_t redist;             // items the block map moves
} meas;

static int run_measured(bench_run *r, const nt_topo_t *t, int p, int64_t per_dom,
                        const int64_t *works, int nw, const int64_t *ks, int nks, int reps,
                        meas *out, int64_t *done, int64_t total)
{
    int64_t n = (int64_t)p * per_dom;
    nt_dist1d_t *ini = NULL, *blk = NULL;
    int *part = malloc((size_t)n * sizeof *part), *sigma = malloc((size_t)p * sizeof *sigma);
    double *v = malloc((size_t)n * sizeof *v), *sec = malloc((size_t)reps * 4 * sizeof *sec);
    nt_stencil_cost_t cost[2];
    nt_stencil_params_t prm = {.iters = 1, .tau_comm = 1.0, .tau_calc = 1.0};
    nt_status st = part && sigma && v && sec ? NT_OK : NT_ENOMEM;
    if (st == NT_OK)
        st = nt_dist1d_balanced(n, p, instance_seed(r, 2, 0), &ini);
    if (st == NT_OK)
        st = nt_dist1d_create(n, p, &blk);
    if (st == NT_OK)
        st = nt_stencil_strategy_apply(n, p, ini->owner, &prm, NT_STENCIL_MODEL_VOLUME,
                                       NT_STENCIL_BLOCK_VOLUME, part, sigma, &cost[1]);
    if (st == NT_OK) {
        for (int64_t x = 0; x < n; x++)
            blk->owner[x] = sigma[part[x]];
        st = nt_stencil_evaluate(n, p, ini->owner, ini->owner, NULL, &prm, &cost[0]);
    }
    int rc = st != NT_OK ? scn_fail(r, "measured instance", st) : 0;
    const nt_dist1d_t *maps[2] = {ini, blk};
    static const char *mname[2] = {"owner", "block_volume"};
    for (int w = 0; w < nw && !rc; w++)
        for (int k = 0; k < nks && !rc; k++) {
            meas *me = &out[w * nks + k];
            *me = (meas){.work = works[w], .K = ks[k], .redist = cost[1].redist_volume};
            nt_stencil_opts_t so = {.iters = ks[k], .work = works[w]};
            for (int rep = 0; rep < reps && !rc; rep++)
                for (int s = 0; s < 2 && !rc; s++) {
                    for (int64_t x = 0; x < n; x++)
                        v[x] = (double)((x * 2654435761u) % 1000) / 10.0;
                    nt_stencil_stats_t ss;
                    double t0 = bench_now();
                    if ((st = nt_stencil_run(t, maps[s], v, &so, &ss)) != NT_OK) {
                        rc = scn_fail(r, "nt_stencil_run", st);
                        break;
                    }
                    double wall = bench_now() - t0;
                    sec[(2 * s) * reps + rep] = wall;
                    sec[(2 * s + 1) * reps + rep] = ss.seconds;
                    me->halo[s] = ss.halo_items;
                    me->pred_halo[s] = ks[k] * cost[s].halo_volume;
                    bench_row(r, json_pack("{s:s, s:s, s:I, s:I, s:i, s:f, s:f, s:I, s:I, s:I, "
                                           "s:f}", "kind", "measured", "strategy", mname[s],
                                           "work", (json_int_t)works[w], "K",
                                           (json_int_t)ks[k], "rep", rep, "seconds", wall,
                                           "iter_seconds", ss.seconds, "halo_items",
                                           (json_int_t)ss.halo_items, "halo_predicted",
                                           (json_int_t)me->pred_halo[s], "redist_items",
                                           (json_int_t)(s ? cost[1].redist_volume : 0),
                                           "owner_fraction", ss.owner_fraction));
                    bench_progress(r, ++*done, total, "instances and measured runs");
                }
            for (int s = 0; s < 2 && !rc; s++) {
                me->sec[s] = bench_median(sec + (2 * s) * reps, (size_t)reps);
                me->iter_sec[s] = bench_median(sec + (2 * s + 1) * reps, (size_t)reps);
                if (me->halo[s] != me->pred_halo[s])
                    bench_notice(r, "%s K=%lld: nt_stencil_run counted %lld halo items, the "
                                 "model predicts %lld", mname[s], (long long)ks[k],
                                 (long long)me->halo[s], (long long)me->pred_halo[s]);
            }
        }
    nt_dist1d_destroy(ini);
    nt_dist1d_destroy(blk);
    free(part);
    free(sigma);
    free(v);
    free(sec);
    return rc;
}

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

static void print_model(bench_run *r, const model_res *mr, int m, int q, int instances)
{
    const double(*mean)[NSTRAT] = mr->mean[m][q];
    bench_printf(r, "\n%s model, tau_comm/tau_calc = %g: mean predicted T_total (units of "
                 "tau_comm), %d instances\n  %2s %9s %9s %9s %9s %9s | %7s %9s\n",
                 model_name[m], ratios[q], instances, "K", "owner", "canonical", "volume",
                 "steps", "P&R", "vol/can", "steps/can");
    for (int k = 0; k < NK; k++)
        bench_printf(r, "  %2d %9.2f %9.2f %9.2f %9.2f %9.2f | %7.3f %9.3f\n", k, mean[k][0],
                     mean[k][1], mean[k][2], mean[k][3], mean[k][4], mean[k][2] / mean[k][1],
                     mean[k][3] / mean[k][1]);
    int from = owner_loses_from(mean);
    bench_printf(r, "  owner-computes is slower than the best block labelling from K = %d on "
                 "(paper: K > 1)\n", from);
}

static json_t *model_json(const model_res *mr, int m, int q)
{
    const double(*mean)[NSTRAT] = mr->mean[m][q];
    json_t *rows = json_array();
    for (int k = 0; k < NK; k++) {
        json_t *o = json_pack("{s:i}", "K", k);
        for (int s = 0; s < NSTRAT; s++)
            json_object_set_new(o, strat_key[s], json_real(mean[k][s]));
        json_array_append_new(rows, o);
    }
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:o}", "model", model_name[m], "ratio",
                     ratios[q], "vol_over_can_K0", mean[0][2] / mean[0][1],
                     "steps_over_can_K0", mean[0][3] / mean[0][1], "owner_loses_from_K",
                     owner_loses_from(mean), "mean_total", rows);
}

static void plot(bench_run *r, const model_res *mr)
{
    FILE *f = bench_fopen(r, "stencil.dat");
    if (!f)
        return;
    for (int q = 0; q < NRATIO; q++) {
        fprintf(f, "# steps model, ratio %g: K owner canonical volume steps P&R\n", ratios[q]);
        for (int k = 0; k < NK; k++) {
            fprintf(f, "%d", k);
            for (int s = 0; s < NSTRAT; s++)
                fprintf(f, " %g", mr->mean[0][q][k][s]);
            fprintf(f, "\n");
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    if (!(f = bench_fopen(r, "stencil.gp")))
        return;
    fprintf(f, "set terminal pngcairo size 1100,450\nset output 'stencil.png'\n"
               "set multiplot layout 1,2 title 'Herrmann 2016 Fig. 5/6 setting, steps model: "
               "predicted T_total (mean)'\nset xlabel 'K (iterations)'\n"
               "set ylabel 'tau_comm units'\nset grid\nset key top left\n");
    for (int q = 0; q < NRATIO; q++)
        fprintf(f, "set title 'tau_comm/tau_calc = %g'\nplot 'stencil.dat' index %d u 1:2 w lp "
                   "t 'owner', '' index %d u 1:3 w lp t 'canonical', '' index %d u 1:4 w lp t "
                   "'volume', '' index %d u 1:5 w lp t 'steps', '' index %d u 1:6 w lp t "
                   "'Part&Redistrib'\n", ratios[q], q, q, q, q, q);
    fprintf(f, "unset multiplot\n");
    fclose(f);
    bench_plot(r, "stencil.gp");
}

int scn_stencil(bench_run *r)
{
    static const int64_t works[] = {0, 100}, ks_dflt[] = {0, 1, 3, 9}, ks_quick[] = {1, 3};
    const int64_t *ks = r->quick ? ks_quick : ks_dflt;
    int nks = r->quick ? 2 : 4, nw = 2;
    int d = 16, instances = r->quick ? 5 : r->full ? 120 : 30;
    int64_t per_dom = r->quick ? 512 : 4096;
    int reps = bench_reps(r, 5, 2);
    nt_topo_opts_t to = {.domains = r->domains ? r->domains : 16};
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&to, &t);
    if (st != NT_OK)
        return scn_fail(r, "loading the topology", st);
    int p = nt_topo_ndomains(t);

    scn_note_load(r);
    bench_param(r, "domains", json_integer(p));
    bench_param(r, "topology", json_string(nt_topo_kind_name(nt_topo_get_kind(t))));
    bench_param(r, "oversubscribed", json_boolean(nt_topo_oversubscribed(t)));
    bench_param(r, "items_per_domain_model", json_integer(d));
    bench_param(r, "instances", json_integer(instances));
    bench_param(r, "items_per_domain_measured", json_integer((json_int_t)per_dom));
    bench_param(r, "repetitions", json_integer(reps));
    json_t *jk = json_array(), *jw = json_array();
    for (int i = 0; i < nks; i++)
        json_array_append_new(jk, json_integer((json_int_t)ks[i]));
    for (int i = 0; i < nw; i++)
        json_array_append_new(jw, json_integer((json_int_t)works[i]));
    bench_param(r, "measured_K", jk);
    bench_param(r, "measured_work", jw);
    bench_labels(r, "kind", "model", "ratio", "K", "strategy", "work", NULL);

    bench_printf(r, "Herrmann 2016 Fig. 5/6: 1D 3-point circular stencil on %d domains, random "
                 "balanced initial distribution\n", p);
    model_res mr;
    meas ms[8];
    int64_t done = 0, total = instances + (int64_t)nw * nks * reps * 2;
    int rc = run_model(r, p, d, instances, &mr, &done, total);
    if (!rc)
        rc = run_measured(r, t, p, per_dom, works, nw, ks, nks, reps, ms, &done, total);
    if (rc) {
        nt_topo_destroy(t);
        return rc;
    }
    scn_note_load_end(r);
    bench_printf(r, "model: %d items per domain (%d items), %d instances; P&R = "
                 "nt_stencil_part_redistrib for the model\n", d, d * p, instances);
    for (int m = 0; m < NMODEL; m++)
        for (int q = 0; q < NRATIO; q++)
            print_model(r, &mr, m, q, instances);
    bench_printf(r,
        "\npaper (Fig. 5, ratio 1): at K = 0 (a redistribution and back) D_vol and D_steps are "
        "~20%% faster than\n  D_can (vol/can ~ 0.8); owner-computes loses as soon as K > 1; "
        "D_vol and D_steps indistinguishable.\n  (Fig. 6, ratio 10): owner still loses for "
        "K > 1; can/vol/steps differ less in percentage.\n");

    bench_printf(r, "\nmeasured: nt_stencil_run, %lld items per domain (%lld items), median of "
                 "%d; block = block partition with\n  the volume-optimal labelling (moves %lld "
                 "items first); s = wall time of the call (places the items\n  in per-domain "
                 "buffers, then iterates), iter = the iterations; halo = items read across "
                 "domains\n  %6s %2s | %9s %9s %9s | %9s %9s %9s | %s\n",
                 (long long)per_dom, (long long)per_dom * p, reps, (long long)ms[0].redist,
                 "work", "K", "owner s", "iter", "halo", "block s", "iter", "halo",
                 "owner/block: s, iter");
    json_t *jm = json_array();
    for (int i = 0; i < nw * nks; i++) {
        const meas *me = &ms[i];
        bench_printf(r, "  %6lld %2lld | %9.4f %9.4f %9lld | %9.4f %9.4f %9lld | %.3f %.3f\n",
                     (long long)me->work, (long long)me->K, me->sec[0], me->iter_sec[0],
                     (long long)me->halo[0], me->sec[1], me->iter_sec[1],
                     (long long)me->halo[1], me->sec[0] / me->sec[1],
                     me->iter_sec[0] / me->iter_sec[1]);
        json_array_append_new(
            jm, json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I}", "work",
                          (json_int_t)me->work, "K", (json_int_t)me->K, "owner_seconds",
                          me->sec[0], "owner_iter_seconds", me->iter_sec[0], "block_seconds",
                          me->sec[1], "block_iter_seconds", me->iter_sec[1], "owner_halo",
                          (json_int_t)me->halo[0], "block_halo", (json_int_t)me->halo[1],
                          "owner_halo_predicted", (json_int_t)me->pred_halo[0],
                          "block_halo_predicted", (json_int_t)me->pred_halo[1],
                          "block_redist_items", (json_int_t)me->redist));
    }
    bench_printf(r,
        "\nSetting: the paper ran PaRSEC on 16 nodes x 8 cores with InfiniBand, items of 1.6e6 "
        "doubles (100 ms\n  to send); here %d virtual domains%s share the 2 cores and one "
        "memory node\n  of a VM, an item is one double and a halo read is a cache miss, not a "
        "message: the measured\n  owner/block ratios show what scattered items and halos cost "
        "in shared memory (s includes\n  building the per-domain buffers and halo lists, "
        "dearer for scattered items), not Fig. 5/6's\n  ratios. The model tables are exact "
        "for their model; the paper's times include PaRSEC's\n  overlap of the redistribution "
        "with the computation and 8 cores per node.\n",
        p, nt_topo_oversubscribed(t) ? " (oversubscribed)" : "");
    json_t *jmodel = json_array();
    for (int m = 0; m < NMODEL; m++)
        for (int q = 0; q < NRATIO; q++)
            json_array_append_new(jmodel, model_json(&mr, m, q));
    bench_summary(r, json_pack("{s:i, s:i, s:i, s:o, s:o}", "domains", p, "items_per_domain", d,
                               "instances", instances, "model", jmodel, "measured", jm));
    plot(r, &mr);
    nt_topo_destroy(t);
    return 0;
}
