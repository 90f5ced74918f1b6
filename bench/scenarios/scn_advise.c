// Scenario advise: is the advisor right on this machine? The machine is calibrated once
// (nt_calibrate at the scenario's tile size); then, for random placements (SkewedSet, ChunkSet,
// uniform random) and both kernels (QR, GEMM), every candidate of nt_advise() is predicted and
// measured (place, redistribute, run the kernel; median of the repetitions). Reported: Spearman
// rank correlation of predicted vs measured redistribution times and kernel times (pooled over
// every instance and candidate, and per instance), how often the chosen candidate is within
// 10% of the best measured one, and the total time of three policies (the advisor, always
// redistributing to the balanced bc2d grid with the volume labelling, never redistributing)
// against the best measured.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_run.h"
#include "harness.h"
#include "scenarios.h"
#include "scn_util.h"

typedef struct acc {
    double *pr, *mr, *pk, *mk; // pooled redistribution (redistributing candidates) and kernels
    int nr, nk, cap;
    double rho_r_sum, rho_k_sum;
    int rho_r_n, rho_k_n, within, instances;
    double advisor, always, never, best;
    json_t *rows; // one per instance
} acc;

static json_t *num_or_null(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

// One instance: advise, measure every candidate, account.
static int instance(bench_run *r, const nt_topo_t *t, const nt_profile_t *p, acc *a, int idx,
                    const char *spec, nt_advise_kernel k, int64_t n, int64_t nb, int reps)
{
    nt_matrix_shape_t sh = {n, n, nb, nb, 8};
    nt_matrix_t *cur = NULL;
    nt_advice_t *adv = NULL;
    nt_advise_opts_t o = {.kernel = k};
    nt_status st = nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE,
                                         NT_MATRIX_NOALLOC, &cur);
    if (!st)
        st = nt_advise(p, cur, &o, &adv);
    if (st) {
        nt_matrix_destroy(cur);
        return scn_fail(r, spec, st);
    }
    int C = adv->count, P, Q;
    double *meas = calloc((size_t)C, sizeof *meas), *mr = calloc((size_t)C, sizeof *mr);
    double *mk = calloc((size_t)C, sizeof *mk), *tr = calloc((size_t)reps, sizeof *tr);
    double *tk = calloc((size_t)reps, sizeof *tk);
    double *pr = calloc((size_t)C, sizeof *pr), *pk = calloc((size_t)C, sizeof *pk);
    int nred = 0, rc = 0;
    if (!meas || !mr || !mk || !tr || !tk || !pr || !pk)
        rc = scn_fail(r, "memory", NT_ENOMEM);
    nt_tilemap_t from = {cur->mt, cur->nt, cur->ndomains, cur->owner};
    for (int c = 0; c < C && !rc; c++) {
        const nt_candidate_t *cd = &adv->cand[c];
        for (int x = 0; x < reps && !rc; x++) {
            adv_measured m;
            st = adv_run(t, &sh, &from, cd->redistribute ? cd->owner : NULL, k, NT_SCHED_FREE,
                         p->threads_per_domain, r->seed + (uint64_t)idx, &m);
            if (st)
                rc = scn_fail(r, cd->name, st);
            tr[x] = m.redist_seconds;
            tk[x] = m.kernel_seconds;
        }
        if (rc)
            break;
        double s3[3];
        scn_stat3(s3, tr, reps);
        mr[c] = s3[0];
        scn_stat3(s3, tk, reps);
        mk[c] = s3[0];
        meas[c] = mr[c] + mk[c];
        pk[c] = cd->kernel.seconds;
        if (cd->redistribute) {
            pr[nred] = cd->redist_seconds;
            if (a->nr < a->cap) {
                a->pr[a->nr] = cd->redist_seconds;
                a->mr[a->nr++] = mr[c];
            }
            mr[nred++] = mr[c]; // compacted: measured redistribution of redistributing ones
        }
        if (a->nk < a->cap) {
            a->pk[a->nk] = cd->kernel.seconds;
            a->mk[a->nk++] = mk[c];
        }
        bench_row(r, json_pack("{s:i, s:s, s:s, s:s, s:b, s:b, s:f, s:f, s:f, s:f, s:f, s:f}",
                               "instance", idx, "kernel", k == NT_ADVISE_GEMM ? "gemm" : "qr",
                               "from", spec, "candidate", cd->name, "redistribute",
                               cd->redistribute, "chosen", c == 0, "redist_predicted",
                               cd->redist_seconds, "redist_measured", meas[c] - mk[c],
                               "kernel_predicted", cd->kernel.seconds, "kernel_measured", mk[c],
                               "total_predicted", cd->total_seconds, "total_measured",
                               meas[c]));
    }
    if (!rc) {
        double rho_r = bench_spearman(pr, mr, (size_t)nred);
        double rho_k = bench_spearman(pk, mk, (size_t)C), best = INFINITY;
        double never = 0, always = NAN;
        char want[32];
        scn_grid(nt_topo_ndomains(t), &P, &Q);
        snprintf(want, sizeof want, "bc2d:%dx%d/volume", P, Q);
        for (int c = 0; c < C; c++) {
            best = fmin(best, meas[c]);
            if (!adv->cand[c].redistribute)
                never = meas[c];
            if (!strcmp(adv->cand[c].name, want))
                always = meas[c];
        }
        // The volume labelling may equal another (deduplicated): then that map stands for it.
        for (int c = 0; c < C && isnan(always); c++)
            if (!strncmp(adv->cand[c].name, want, strlen(want) - strlen("volume")))
                always = meas[c];
        if (isnan(always))
            always = never;
        a->within += meas[0] <= 1.1 * best;
        a->advisor += meas[0];
        a->always += always;
        a->never += never;
        a->best += best;
        a->instances++;
        if (!isnan(rho_r)) {
            a->rho_r_sum += rho_r;
            a->rho_r_n++;
        }
        if (!isnan(rho_k)) {
            a->rho_k_sum += rho_k;
            a->rho_k_n++;
        }
        json_array_append_new(
            a->rows, json_pack("{s:i, s:s, s:s, s:i, s:s, s:f, s:f, s:o, s:o}", "instance", idx,
                               "kernel", k == NT_ADVISE_GEMM ? "gemm" : "qr", "from", spec,
                               "candidates", C, "choice", adv->cand[0].name, "choice_seconds",
                               meas[0], "best_seconds", best, "spearman_redist",
                               num_or_null(rho_r), "spearman_kernel", num_or_null(rho_k)));
        bench_printf(r, "%3d %-4s %-16s %3d cand.  choice %-24s %8.4f s  best %8.4f s  "
                        "rho redist %5.2f kernel %5.2f\n", idx,
                     k == NT_ADVISE_GEMM ? "gemm" : "qr", spec, C, adv->cand[0].name, meas[0],
                     best, rho_r, rho_k);
    }
    free(meas);
    free(mr);
    free(mk);
    free(tr);
    free(tk);
    free(pr);
    free(pk);
    nt_advice_destroy(adv);
    nt_matrix_destroy(cur);
    return rc;
}

int scn_advise(bench_run *r)
{
    nt_topo_opts_t to = {.domains = r->domains ? r->domains : 2};
    nt_topo_t *t;
    nt_status st = nt_topo_load(&to, &t);
    if (st) {
        int rc = scn_fail(r, "topology", st);
        return st == NT_EINVAL ? 2 : rc;
    }
    int D = nt_topo_ndomains(t), reps = bench_reps(r, 3, 1);
    int64_t nb = r->quick ? 64 : 128, n = r->quick ? 512 : 1024;
    int ninst = r->quick ? 6 : r->full ? 36 : 18;
    scn_note_load(r);
    bench_param(r, "domains", json_integer(D));
    bench_param(r, "n", json_integer(n));
    bench_param(r, "nb", json_integer(nb));
    bench_param(r, "instances", json_integer(ninst));
    bench_param(r, "repetitions", json_integer(reps));
    bench_labels(r, "instance", "candidate", NULL);
    nt_calibrate_opts_t co = {.nb = nb, .quick = r->quick};
    nt_profile_t *p = NULL;
    double t0 = bench_now();
    if ((st = nt_calibrate(t, &co, &p)) != NT_OK) {
        nt_topo_destroy(t);
        return scn_fail(r, "calibrate", st);
    }
    bench_printf(r, "profile: %s, %d domains (%s), calibrated in %.1f s at nb = %lld\n",
                 p->host, D, p->kind, bench_now() - t0, (long long)nb);
    int cap = ninst * 64;
    acc a = {.pr = calloc((size_t)cap, sizeof(double)), .mr = calloc((size_t)cap, sizeof(double)),
             .pk = calloc((size_t)cap, sizeof(double)), .mk = calloc((size_t)cap, sizeof(double)),
             .cap = cap, .rows = json_array()};
    int rc = a.pr && a.mr && a.pk && a.mk ? 0 : scn_fail(r, "memory", NT_ENOMEM);
    int P, Q;
    scn_grid(D, &P, &Q);
    for (int i = 0; i < ninst && !rc; i++) {
        char spec[64];
        uint64_t seed = r->seed * 1000 + (uint64_t)i;
        if (i % 3 == 0)
            snprintf(spec, sizeof spec, "skewed:%dx%d:%llu", P, Q, (unsigned long long)seed);
        else if (i % 3 == 1)
            snprintf(spec, sizeof spec, "chunk:%d:%llu", D, (unsigned long long)seed);
        else
            snprintf(spec, sizeof spec, "random:%llu", (unsigned long long)seed);
        rc = instance(r, t, p, &a, i, spec, (i / 3) % 2 ? NT_ADVISE_GEMM : NT_ADVISE_QR, n, nb,
                      reps);
        bench_progress(r, i + 1, ninst, "instances");
    }
    if (!rc) {
        double rr = bench_spearman(a.pr, a.mr, (size_t)a.nr);
        double rk = bench_spearman(a.pk, a.mk, (size_t)a.nk);
        double frac = a.instances ? (double)a.within / a.instances : NAN;
        bench_printf(r, "\nSpearman predicted vs measured, pooled: redistribution %.3f (%d), "
                        "kernel %.3f (%d); mean per instance: %.3f, %.3f\n", rr, a.nr, rk, a.nk,
                     a.rho_r_n ? a.rho_r_sum / a.rho_r_n : NAN,
                     a.rho_k_n ? a.rho_k_sum / a.rho_k_n : NAN);
        bench_printf(r, "chosen within 10%% of the best measured: %d of %d (%.0f%%)\n", a.within,
                     a.instances, 100 * frac);
        bench_printf(r, "total measured over the instances: advisor %.3f s, always "
                        "redistribute (bc2d:%dx%d/volume) %.3f s, never %.3f s, best %.3f s\n",
                     a.advisor, P, Q, a.always, a.never, a.best);
        scn_note_load_end(r);
        bench_summary(r, json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:i, s:o, s:f, s:f, s:f, "
                                   "s:f, s:s, s:s, s:O}", "domains", D, "instances", a.instances,
                                   "spearman_redist", num_or_null(rr), "spearman_kernel",
                                   num_or_null(rk), "spearman_redist_per_instance",
                                   num_or_null(a.rho_r_n ? a.rho_r_sum / a.rho_r_n : NAN),
                                   "spearman_kernel_per_instance",
                                   num_or_null(a.rho_k_n ? a.rho_k_sum / a.rho_k_n : NAN),
                                   "within_10pct", a.within, "within_10pct_fraction",
                                   num_or_null(frac), "advisor_seconds", a.advisor,
                                   "always_seconds", a.always, "never_seconds", a.never,
                                   "best_seconds", a.best, "topology", p->kind, "profile_date",
                                   p->date, "rows", a.rows));
    }
    json_decref(a.rows);
    free(a.pr);
    free(a.mr);
    free(a.pk);
    free(a.mk);
    nt_profile_destroy(p);
    nt_topo_destroy(t);
    return rc;
}
