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

// What every instance shares: the run, the machine and its profile, the sizes.
typedef struct setting {
    bench_run *r;
    const nt_topo_t *t;
    const nt_profile_t *p;
    int64_t n, nb;
    int reps;
} setting;

// One instance: its placement and kernel, the advice, and the times of its candidates.
typedef struct inst {
    int idx;
    const char *spec;
    nt_advise_kernel k;
    nt_matrix_shape_t sh;
    nt_matrix_t *cur;
    nt_advice_t *adv;
    int C;           // candidates
    double *meas;    // measured total of each candidate
    double *mk, *pk; // measured and predicted kernel seconds of each candidate
    double *mr, *pr; // measured (of each candidate, then compacted) and predicted redistribution
                     // seconds of the redistributing candidates
    int nred;        // redistributing candidates
    double *tr, *tk; // one candidate's repetitions: redistribution, kernel
} inst;

static bool inst_alloc(inst *x, int reps)
{
    size_t C = (size_t)x->C;
    x->meas = calloc(C, sizeof *x->meas), x->mr = calloc(C, sizeof *x->mr);
    x->mk = calloc(C, sizeof *x->mk), x->tr = calloc((size_t)reps, sizeof *x->tr);
    x->tk = calloc((size_t)reps, sizeof *x->tk);
    x->pr = calloc(C, sizeof *x->pr), x->pk = calloc(C, sizeof *x->pk);
    return x->meas && x->mr && x->mk && x->tr && x->tk && x->pr && x->pk;
}

static void inst_free(inst *x)
{
    free(x->meas);
    free(x->mr);
    free(x->mk);
    free(x->tr);
    free(x->tk);
    free(x->pr);
    free(x->pk);
    nt_advice_destroy(x->adv);
    nt_matrix_destroy(x->cur);
}

// Candidate c measured (median of the repetitions), pooled into a, and its raw row.
static int measure_candidate(const setting *s, inst *x, acc *a, int c)
{
    bench_run *r = s->r;
    const nt_candidate_t *cd = &x->adv->cand[c];
    nt_tilemap_t from = {x->cur->mt, x->cur->nt, x->cur->ndomains, x->cur->owner};
    for (int k = 0; k < s->reps; k++) {
        adv_measured m;
        nt_status st = adv_run(s->t, &x->sh, &from, cd->redistribute ? cd->owner : NULL, x->k,
                               NT_SCHED_FREE, s->p->threads_per_domain,
                               r->seed + (uint64_t)x->idx, &m);
        if (st)
            return scn_fail(r, cd->name, st);
        x->tr[k] = m.redist_seconds;
        x->tk[k] = m.kernel_seconds;
    }
    double s3[3];
    scn_stat3(s3, x->tr, s->reps);
    x->mr[c] = s3[0];
    scn_stat3(s3, x->tk, s->reps);
    x->mk[c] = s3[0];
    x->meas[c] = x->mr[c] + x->mk[c];
    x->pk[c] = cd->kernel.seconds;
    if (cd->redistribute) {
        x->pr[x->nred] = cd->redist_seconds;
        if (a->nr < a->cap) {
            a->pr[a->nr] = cd->redist_seconds;
            a->mr[a->nr++] = x->mr[c];
        }
        x->mr[x->nred++] = x->mr[c]; // compacted: measured redistribution of redistributing ones
    }
    if (a->nk < a->cap) {
        a->pk[a->nk] = cd->kernel.seconds;
        a->mk[a->nk++] = x->mk[c];
    }
    bench_row(r, json_pack("{s:i, s:s, s:s, s:s, s:b, s:b, s:f, s:f, s:f, s:f, s:f, s:f}",
                           "instance", x->idx, "kernel", nt_advise_kernel_name(x->k), "from",
                           x->spec, "candidate", cd->name, "redistribute", cd->redistribute, "chosen",
                           c == 0, "redist_predicted", cd->redist_seconds, "redist_measured",
                           x->meas[c] - x->mk[c], "kernel_predicted", cd->kernel.seconds,
                           "kernel_measured", x->mk[c], "total_predicted", cd->total_seconds,
                           "total_measured", x->meas[c]));
    return 0;
}

// The measured totals of three policies: the best candidate, never redistributing, and always
// redistributing to the balanced grid with the volume labelling (never's if it is absent).
static void policies(const setting *s, const inst *x, double *best, double *never,
                     double *always)
{
    const nt_advice_t *adv = x->adv;
    int P, Q;
    char want[32];
    scn_grid(nt_topo_ndomains(s->t), &P, &Q);
    snprintf(want, sizeof want, "bc2d:%dx%d/volume", P, Q);
    *best = INFINITY, *never = 0, *always = NAN;
    for (int c = 0; c < x->C; c++) {
        *best = fmin(*best, x->meas[c]);
        if (!adv->cand[c].redistribute)
            *never = x->meas[c];
        if (!strcmp(adv->cand[c].name, want))
            *always = x->meas[c];
    }
    // The volume labelling may equal another (deduplicated): then that map stands for it.
    for (int c = 0; c < x->C && isnan(*always); c++)
        if (!strncmp(adv->cand[c].name, want, strlen(want) - strlen("volume")))
            *always = x->meas[c];
    if (isnan(*always))
        *always = *never;
}

// The instance's correlations and policies, into a, its summary row and its text line.
static void account(const setting *s, const inst *x, acc *a)
{
    double rho_r = bench_spearman(x->pr, x->mr, (size_t)x->nred);
    double rho_k = bench_spearman(x->pk, x->mk, (size_t)x->C);
    double best, never, always, chosen = x->meas[0];
    policies(s, x, &best, &never, &always);
    a->within += chosen <= 1.1 * best;
    a->advisor += chosen;
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
    const char *name = x->adv->cand[0].name;
    json_array_append_new(
        a->rows, json_pack("{s:i, s:s, s:s, s:i, s:s, s:f, s:f, s:o, s:o}", "instance", x->idx,
                           "kernel", nt_advise_kernel_name(x->k), "from", x->spec, "candidates",
                           x->C, "choice", name, "choice_seconds", chosen, "best_seconds", best,
                           "spearman_redist", num_or_null(rho_r), "spearman_kernel",
                           num_or_null(rho_k)));
    bench_printf(s->r, "%3d %-4s %-16s %3d cand.  choice %-24s %8.4f s  best %8.4f s  "
                       "rho redist %5.2f kernel %5.2f\n", x->idx, nt_advise_kernel_name(x->k),
                 x->spec, x->C, name, chosen, best, rho_r, rho_k);
}

// One instance: advise, measure every candidate, account.
static int instance(const setting *s, acc *a, int idx, const char *spec, nt_advise_kernel k)
{
    inst x = {.idx = idx, .spec = spec, .k = k, .sh = {s->n, s->n, s->nb, s->nb, 8}};
    nt_advise_opts_t o = {.kernel = k};
    nt_status st = nt_matrix_create_spec(s->t, &x.sh, spec, nt_topo_ndomains(s->t),
                                         NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &x.cur);
    if (!st)
        st = nt_advise(s->p, x.cur, &o, &x.adv);
    if (st) {
        nt_matrix_destroy(x.cur);
        return scn_fail(s->r, spec, st);
    }
    x.C = x.adv->count;
    int rc = inst_alloc(&x, s->reps) ? 0 : scn_fail(s->r, "memory", NT_ENOMEM);
    for (int c = 0; c < x.C && !rc; c++)
        rc = measure_candidate(s, &x, a, c);
    if (!rc)
        account(s, &x, a);
    inst_free(&x);
    return rc;
}

// The pooled correlations, the policies' totals and the summary.
static void report(bench_run *r, const nt_profile_t *p, int D, acc *a)
{
    int P, Q;
    scn_grid(D, &P, &Q);
    double rr = bench_spearman(a->pr, a->mr, (size_t)a->nr);
    double rk = bench_spearman(a->pk, a->mk, (size_t)a->nk);
    double frac = a->instances ? (double)a->within / a->instances : NAN;
    double rr_mean = a->rho_r_n ? a->rho_r_sum / a->rho_r_n : NAN;
    double rk_mean = a->rho_k_n ? a->rho_k_sum / a->rho_k_n : NAN;
    bench_printf(r, "\nSpearman predicted vs measured, pooled: redistribution %.3f (%d), "
                    "kernel %.3f (%d); mean per instance: %.3f, %.3f\n", rr, a->nr, rk, a->nk,
                 rr_mean, rk_mean);
    bench_printf(r, "chosen within 10%% of the best measured: %d of %d (%.0f%%)\n", a->within,
                 a->instances, 100 * frac);
    bench_printf(r, "total measured over the instances: advisor %.3f s, always "
                    "redistribute (bc2d:%dx%d/volume) %.3f s, never %.3f s, best %.3f s\n",
                 a->advisor, P, Q, a->always, a->never, a->best);
    scn_note_load_end(r);
    bench_summary(r, json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:i, s:o, s:f, s:f, s:f, "
                               "s:f, s:s, s:s, s:O}", "domains", D, "instances", a->instances,
                               "spearman_redist", num_or_null(rr), "spearman_kernel",
                               num_or_null(rk), "spearman_redist_per_instance",
                               num_or_null(rr_mean), "spearman_kernel_per_instance",
                               num_or_null(rk_mean), "within_10pct", a->within,
                               "within_10pct_fraction", num_or_null(frac), "advisor_seconds",
                               a->advisor, "always_seconds", a->always, "never_seconds",
                               a->never, "best_seconds", a->best, "topology", p->kind,
                               "profile_date", p->date, "rows", a->rows));
}

// Instance i's placement: SkewedSet, ChunkSet and uniform random in turn.
static void instance_spec(const bench_run *r, int D, int i, char *spec, size_t cap)
{
    int P, Q;
    scn_grid(D, &P, &Q);
    uint64_t seed = r->seed * 1000 + (uint64_t)i;
    if (i % 3 == 0)
        snprintf(spec, cap, "skewed:%dx%d:%llu", P, Q, (unsigned long long)seed);
    else if (i % 3 == 1)
        snprintf(spec, cap, "chunk:%d:%llu", D, (unsigned long long)seed);
    else
        snprintf(spec, cap, "random:%llu", (unsigned long long)seed);
}

// The instances, QR and GEMM three by three, pooled into a.
static int instances(const setting *s, int ninst, acc *a)
{
    int rc = 0;
    for (int i = 0; i < ninst && !rc; i++) {
        char spec[64];
        instance_spec(s->r, nt_topo_ndomains(s->t), i, spec, sizeof spec);
        rc = instance(s, a, i, spec, (i / 3) % 2 ? NT_ADVISE_GEMM : NT_ADVISE_QR);
        bench_progress(s->r, i + 1, ninst, "instances");
    }
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
    setting s = {r, t, p, n, nb, reps};
    if (!rc)
        rc = instances(&s, ninst, &a);
    if (!rc)
        report(r, p, D, &a);
    json_decref(a.rows);
    free(a.pr);
    free(a.mr);
    free(a.pk);
    free(a.mk);
    nt_profile_destroy(p);
    nt_topo_destroy(t);
    return rc;
}
