// Guest test of the advisor on a real multi-node kernel: nt_calibrate() on the guest's NUMA
// nodes (a domain without cpus is refused by name), the profile's checks, then for a few
// placements nt_advise() for QR and every candidate measured (place, redistribute, QR; medians
// of rounds that run each candidate once). Checks what must hold anywhere (a usable profile, a
// ranked advice containing "owner", every candidate runs); prints predicted against measured
// times and their rank correlation, which are numbers to read, not to assert (the guest is
// emulated, its timings are not a machine's).
#include <math.h>

#include "guest_common.h"
#include "harness.h"

static void value(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    (void)es;
    uint64_t z = mix(*(const uint64_t *)arg * 0x9e3779b97f4a7c15ull + (uint64_t)r * 7919 +
                     (uint64_t)c * 104729);
    *(double *)elem = (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

// Place a QR operand on `from`, move it to `target` (NULL = stay), factor it (unless kernel is
// NULL): seconds of the move (allocation + copies) and of the factorisation.
static nt_status measure(const nt_topo_t *t, const nt_matrix_shape_t *sh, const nt_tilemap_t *from,
                         const int *target, int threads, double *redist, double *kernel)
{
    nt_matrix_t *A = NULL, *B = NULL;
    nt_tilemap_t *map = NULL;
    nt_plan_t *plan = NULL;
    nt_exec_stats_t es = {0};
    nt_kernel_stats_t ks = {0};
    nt_qr_t *qr = NULL;
    uint64_t seed = 5;
    *redist = 0;
    nt_status st = nt_matrix_create(t, sh, from, NT_LAYOUT_TILE, 0, &A);
    if (!st)
        st = nt_matrix_fill(A, value, &seed);
    if (!st && target) {
        nt_plan_opts_t po = {.explicit_segments = true};
        if (!(st = nt_tilemap_create(from->mt, from->nt, from->ndomains, &map))) {
            memcpy(map->owner, target, (size_t)(from->mt * from->nt) * sizeof(int));
            st = nt_matrix_create(t, sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &B);
        }
        if (!st)
            st = nt_plan_create(A, B, NULL, &po, &plan);
        if (!st)
            st = nt_plan_execute(plan, A, B, NULL, &es);
        *redist = es.alloc_seconds + es.seconds;
    }
    nt_kernel_opts_t ko = {.threads_per_domain = threads};
    if (!st && kernel)
        st = nt_qr_factor(target ? B : A, &ko, &qr, &ks);
    if (kernel)
        *kernel = ks.seconds;
    nt_qr_destroy(qr);
    nt_kernel_stats_free(&ks);
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    nt_tilemap_destroy(map);
    nt_matrix_destroy(B);
    nt_matrix_destroy(A);
    return st;
}

// QR size, tile size and repetitions: 256, 32, 1 (the test suite), or nt.advise=N:NB:REPS on
// the kernel command line (NT_ADVISE; a longer measurement, REPS odd, at most MAX_REPS).
enum { MAX_REPS = 15, REDIST_X = 4 };
static int64_t qr_n = 256, qr_nb = 32;
// Moves measured redist_x times as often as the factorisation: REDIST_X in the measurement
// mode, 1 in the test suite (whose time in the flat4 guest is close to run.sh's timeout).
// The test suite asserts only what holds anywhere (every candidate runs) and its timings are
// not read: one repetition of two placements (a chunk and a random one; 161 s of flat4's 224 s
// went here with three repetitions of six, 2026-12-02), all six in the measurement mode.
static int reps = 1, redist_x = 1;

static void read_sizes(void)
{
    const char *e = getenv("NT_ADVISE");
    long long n, nb;
    int r, used = 0;
    if (!e || !*e)
        return;
    if (sscanf(e, "%lld:%lld:%d%n", &n, &nb, &r, &used) == 3 && !e[used] && n >= 32 &&
        n <= 8192 && nb >= 8 && nb <= n && r >= 1 && r <= MAX_REPS && r % 2 == 1) {
        qr_n = n;
        qr_nb = nb;
        reps = r;
        redist_x = REDIST_X;
    }
    check(qr_n == n && qr_nb == nb && reps == r,
          "advise: nt.advise=%s read as N:NB:REPS (N 32..8192, NB 8..N, REPS odd <= %d)", e,
          MAX_REPS);
}

static double median(const double *v, int n)
{
    double s[MAX_REPS * REDIST_X];
    memcpy(s, v, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return s[n / 2];
}

// The measured times are summarised two ways: the median (the choice and the totals use it)
// and the minimum, the time of a run that no slow spell of the emulation hit, which is what
// the model predicts. Both correlations are printed, the median's first.
enum { MED, MIN, NEST };

// Pooled over the placements: predicted and measured times of every candidate, and the totals
// of the advisor's choice, of never redistributing (owner) and of always (the best-predicted
// bc2d map), as bench advise reports them.
typedef struct pool {
    double pr[512], mr[NEST][512], pk[512], mk[NEST][512];
    int nr, nk;
    double sr[NEST][64], sk[NEST][64]; // per placement: Spearman of the moves and of the kernels
    int ns;
    double advisor, never, always;
} pool;

static void advise_one(const nt_topo_t *t, const nt_profile_t *p, const char *spec,
                       int *within, int *runs, pool *pl)
{
    nt_matrix_shape_t sh = {qr_n, qr_n, qr_nb, qr_nb, 8};
    nt_matrix_t *cur = NULL;
    nt_advice_t *adv = NULL;
    nt_advise_opts_t o = {.kernel = NT_ADVISE_QR};
    nt_status st = nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE,
                                         NT_MATRIX_NOALLOC, &cur);
    if (!st)
        st = nt_advise(p, cur, &o, &adv);
    if (!check(st == NT_OK, "advise: QR %lld in %lld tiles from %s: %s", (long long)qr_n,
               (long long)qr_nb, spec, st ? nt_last_error() : "ok")) {
        nt_matrix_destroy(cur);
        return;
    }
    bool sorted = true, owner = false;
    for (int c = 0; c < adv->count; c++) {
        sorted = sorted && (c == 0 || adv->cand[c - 1].total_seconds <= adv->cand[c].total_seconds);
        owner = owner || !strcmp(adv->cand[c].name, "owner");
    }
    int D = nt_topo_ndomains(t);
    check(sorted && owner && adv->count >= (D > 1 ? 2 : 1),
          "advise: %d candidates ranked, owner among them", adv->count);
    nt_tilemap_t from = {cur->mt, cur->nt, cur->ndomains, cur->owner};
    int n = adv->count < 64 ? adv->count : 64, ok = 0;
    double pr[64], mr[NEST][64], pk[64], mk[NEST][64], best = INFINITY, total[64] = {0};
    int nr = 0;
    // Rounds: every candidate once per round, so that a slow spell of the emulation (seconds
    // long on a shared host) lands on all candidates instead of on the one measured then.
    // Medians: one emulated run varies by more than the candidates differ. A move costs
    // milliseconds where the factorisation costs a second, so in the measurement mode moves are
    // measured redist_x times as often (rounds after the first reps move without factoring).
    static double rs[64][MAX_REPS * REDIST_X], ks[64][MAX_REPS];
    bool failed[64] = {false};
    for (int rep = 0; rep < reps * redist_x; rep++)
        for (int c = 0; c < n; c++) {
            const nt_candidate_t *cd = &adv->cand[c];
            if (failed[c] || (rep >= reps && !cd->redistribute))
                continue;
            failed[c] = measure(t, &sh, &from, cd->redistribute ? cd->owner : NULL,
                                p->threads_per_domain, &rs[c][rep],
                                rep < reps ? &ks[c][rep] : NULL) != NT_OK;
        }
    for (int c = 0; c < n; c++) {
        const nt_candidate_t *cd = &adv->cand[c];
        int nrs = cd->redistribute ? reps * redist_x : reps;
        double r = median(rs[c], nrs), k = median(ks[c], reps);
        double rmin = bench_min(rs[c], (size_t)nrs);
        ok += !failed[c];
        pk[c] = cd->kernel.seconds;
        mk[MED][c] = k;
        mk[MIN][c] = bench_min(ks[c], (size_t)reps);
        total[c] = r + k;
        best = fmin(best, total[c]);
        if (cd->redistribute) {
            pr[nr] = cd->redist_seconds;
            mr[MIN][nr] = rmin;
            mr[MED][nr++] = r;
        }
        printf("advise:   %-26s predicted %.4f + %.4f s, measured %.4f + %.4f s (min %.4f + "
               "%.4f)\n", cd->name, cd->redist_seconds, cd->kernel.seconds, r, k,
               rmin, mk[MIN][c]);
    }
    check(ok == n, "advise: %d of %d candidates ran", ok, n);
    (*runs)++;
    *within += total[0] <= 1.1 * best;
    double never = NAN, always = NAN;
    for (int c = 0, nrc = 0; c < n; c++) {
        const nt_candidate_t *cd = &adv->cand[c];
        if (!strcmp(cd->name, "owner"))
            never = total[c];
        else if (isnan(always) && !strncmp(cd->name, "bc2d:", 5))
            always = total[c];
        if (pl->nk < 512) {
            pl->pk[pl->nk] = pk[c];
            for (int e = 0; e < NEST; e++)
                pl->mk[e][pl->nk] = mk[e][c];
            pl->nk++;
        }
        if (cd->redistribute && pl->nr < 512) {
            pl->pr[pl->nr] = pr[nrc];
            for (int e = 0; e < NEST; e++)
                pl->mr[e][pl->nr] = mr[e][nrc];
            pl->nr++;
        }
        nrc += cd->redistribute;
    }
    if (pl->ns < 64) {
        for (int e = 0; e < NEST; e++) {
            pl->sr[e][pl->ns] = bench_spearman(pr, mr[e], (size_t)nr);
            pl->sk[e][pl->ns] = bench_spearman(pk, mk[e], (size_t)n);
        }
        pl->ns++;
    }
    pl->advisor += total[0];
    pl->never += never;
    pl->always += always;
    printf("advise: %s: choice %s measured %.4f s, best %.4f s; Spearman redistribution %.2f, "
           "kernel %.2f (minima: %.2f, %.2f)\n", spec, adv->cand[0].name, total[0], best,
           pl->sr[MED][pl->ns - 1], pl->sk[MED][pl->ns - 1], pl->sr[MIN][pl->ns - 1],
           pl->sk[MIN][pl->ns - 1]);
    nt_advice_destroy(adv);
    nt_matrix_destroy(cur);
}

int main(void)
{
    int nodes = guest_start("guest_advise");
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(NULL, &t);
    if (!check(st == NT_OK, "topo: load: %s", st ? nt_last_error() : "ok"))
        return guest_summary("advise");
    int D = nt_topo_ndomains(t), nocpu = -1;
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (info.ncpus == 0 && nocpu < 0)
            nocpu = d;
    }
    read_sizes();
    // The test suite calibrates quickly; the measurement mode takes the full calibration (more
    // repetitions, larger buffers), whose profile a slow spell of the emulation skews less.
    nt_calibrate_opts_t co = {.nb = qr_nb, .quick = redist_x == 1};
    nt_profile_t *p = NULL;
    double t0 = now();
    st = nt_calibrate(t, &co, &p);
    if (nocpu >= 0) {
        char want[64];
        snprintf(want, sizeof want, "domain %d has no cpus", nocpu);
        check(st == NT_ENOTSUP && strstr(nt_last_error(), want),
              "calibrate: refused with a memory-only domain (%s)", nt_last_error());
        nt_topo_destroy(t);
        return guest_summary("advise");
    }
    if (!check(st == NT_OK, "calibrate: %d domains (%d nodes) in %.1f s: %s", D, nodes,
               now() - t0, st ? nt_last_error() : "ok")) {
        nt_topo_destroy(t);
        return guest_summary("advise");
    }
    check(nt_profile_check(p, t) == NT_OK && p->ndomains == D && p->nodes == nodes,
          "calibrate: profile usable, %d domains on %d nodes", p->ndomains, p->nodes);
    printf("advise: copy GB/s (row: memory domain):");
    for (int i = 0; i < D * D; i++)
        printf("%s%.2f", i % D ? " " : "\nadvise:   ", p->copy_gbs[i]);
    printf("\nadvise: read GB/s (row: memory domain):");
    for (int i = 0; i < D * D; i++)
        printf("%s%.2f", i % D ? " " : "\nadvise:   ", p->read_gbs[i]);
    printf("\nadvise: concurrent %.2f GB/s, migrate %.2f GB/s, gemm tile 32 %.3f ms, task %.2f us\n",
           p->concurrent_gbs, p->migrate_gbs, 1e3 * p->tile_seconds[NT_TK_GEMM][0],
           1e6 * p->task_seconds);
    int within = 0, runs = 0;
    static pool pl;
    const char *specs[] = {"chunk:%d:1", "random:2", "chunk:%d:3", "random:4", "chunk:%d:5",
                           "random:6"};
    int nspecs = redist_x == 1 ? 2 : (int)(sizeof specs / sizeof *specs);
    for (int s = 0; s < nspecs; s++) {
        char spec[32];
        snprintf(spec, sizeof spec, specs[s], D);
        advise_one(t, p, spec, &within, &runs, &pl);
    }
    printf("advise: choice within 10%% of the best measured in %d of %d placements\n", within,
           runs);
    static const char *est[NEST] = {"medians", "minima"};
    for (int e = 0; e < NEST; e++) {
        int ns = 0;
        double sr[64], sk[64];
        for (int i = 0; i < pl.ns; i++)
            if (!isnan(pl.sr[e][i]) && !isnan(pl.sk[e][i])) {
                sr[ns] = pl.sr[e][i];
                sk[ns++] = pl.sk[e][i];
            }
        if (ns > 0 && ns <= MAX_REPS * REDIST_X)
            printf("advise: per placement Spearman (%s), median of %d: redistribution %.2f, "
                   "kernel %.2f\n", est[e], ns, median(sr, ns), median(sk, ns));
        printf("advise: pooled Spearman (%s) redistribution %.2f (%d), kernel %.2f (%d)\n",
               est[e], bench_spearman(pl.pr, pl.mr[e], (size_t)pl.nr), pl.nr,
               bench_spearman(pl.pk, pl.mk[e], (size_t)pl.nk), pl.nk);
    }
    printf("advise: measured totals (medians): advisor %.3f s, never redistribute %.3f s, always "
           "(best-predicted bc2d) %.3f s\n", pl.advisor, pl.never, pl.always);
    nt_profile_destroy(p);
    nt_topo_destroy(t);
    return guest_summary("advise");
}
