// Scenario lambert-partition: Lambert's thesis (2017), ch. 1, Tables 1.2 and 1.3, and the
// tiled GEMM on heterogeneous partitions of this machine (issue 6, item 7).
//
// Part 1 (exact, no timing): for the thesis platforms Homo-5, Homo-20, Hetero-1 (speeds 50, 1,
// 1, 1, 1) and Hetero-4 (4 x 50, 16 x 1) at N = 50, the communication ratio (tile rows + tile
// columns touched, over N times the lower bound 2 sum sqrt(s_i)) and the makespan ratio of
// every partitioner, discretised by rounding (Table 1.2) and precisely (Table 1.3, the
// thesis's "Accurate"); SFCP needs a power of two and runs at N = 64.
//
// Part 2 (measured): C = A B with A, B and C on one tile map, the heterogeneous partition of
// the domains' speeds (the partitioner of least discrete cost) against bc2d, on virtual
// domains: 4 domains with speeds from their cores and with given speeds 3, 1, 1, 1; and, by
// default, 3 domains, where two domains share a core, with speeds from the cores and with the
// effective speeds (a core's time split among the domains sharing it). The predicted time
// ratio takes the busiest core: sum over the domains on it of tiles / cores of the domain.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/hetero.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"
#include "scn_util.h"

enum { NPLAT = 4, NALGO = 5, MAX_DOM = 64 };

static const char *platforms[NPLAT] = {"homo-5", "homo-20", "hetero-1", "hetero-4"};
static const char *plat_title[NPLAT] = {"Homo-5", "Homo-20", "Hetero-1", "Hetero-4"};
static const nt_hetero_algo algos[NALGO] = {NT_HETERO_COLUMN, NT_HETERO_RRP, NT_HETERO_SNRRP,
                                            NT_HETERO_NRRP, NT_HETERO_SFCP};

// Thesis Tables 1.2 (Rounded) and 1.3 (Accurate): {makespan, communication} for ColumnBased
// and RRP, per platform.
static const double thesis[2][NPLAT][2][2] = {
    {{{1.02, 1.02}, {1.02, 1.02}},
     {{1.04, 1.01}, {1.08, 1.03}},
     {{1.02, 1.04}, {1.12, 1.06}},
     {{1.04, 1.04}, {1.38, 1.00}}},
    {{{1.00, 1.03}, {1.00, 1.03}},
     {{1.00, 1.04}, {1.00, 1.05}},
     {{1.02, 1.07}, {1.02, 1.08}},
     {{1.04, 1.12}, {1.04, 1.05}}}};

// ---- part 1 -------------------------------------------------------------------------------

typedef struct plat_res {
    nt_hetero_eval_t ev[2][NALGO]; // [ROUNDED, PRECISE][algo]
    int64_t n[NALGO];
} plat_res;

static const nt_hetero_round modes[2] = {NT_HETERO_ROUNDED, NT_HETERO_PRECISE};
static const char *mode_name[2] = {"rounded", "precise"};

static int run_thesis(bench_run *r, int64_t N, plat_res *pr)
{
    for (int p = 0; p < NPLAT; p++) {
        double speeds[20];
        int m;
        nt_status st = nt_hetero_platform(platforms[p], 20, &m, speeds);
        for (int md = 0; md < 2 && st == NT_OK; md++)
            for (int a = 0; a < NALGO && st == NT_OK; a++) {
                // SFCP walks a Hilbert curve: a power of two, and no rounding mode.
                int64_t n = algos[a] == NT_HETERO_SFCP ? 64 : N;
                pr[p].n[a] = n;
                nt_hetero_eval_t *ev = &pr[p].ev[md][a];
                if ((st = nt_hetero_evaluate(algos[a], modes[md], m, speeds, n, ev)) != NT_OK)
                    break;
                bench_row(r, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:f, s:f, s:f, s:I, s:f}",
                                       "kind", "partition", "platform", platforms[p], "algo",
                                       nt_hetero_algo_name(algos[a]), "mode", mode_name[md],
                                       "N", (json_int_t)n, "rep", 0, "ratio", ev->ratio,
                                       "makespan_ratio", ev->makespan_ratio,
                                       "continuous_ratio", ev->continuous_ratio, "cost",
                                       (json_int_t)ev->cost, "lower_bound", ev->lower_bound));
            }
        if (st != NT_OK)
            return scn_fail(r, platforms[p], st);
    }
    return 0;
}

static void print_thesis(bench_run *r, const plat_res *pr, int64_t N)
{
    bench_printf(r, "Lambert 2017 Tables 1.2 (Rounded) and 1.3 (Accurate; ours: Precise), N = "
                 "%lld: ratio to the lower bound,\nmakespan / communication, ours (thesis)\n",
                 (long long)N);
    bench_printf(r, "%-9s | %-22s %-22s | %-22s %-22s\n", "platform", "ColumnBased-Rounded",
                 "RRP-Rounded", "ColumnBased-Precise", "RRP-Precise");
    for (int p = 0; p < NPLAT; p++) {
        bench_printf(r, "%-9s |", plat_title[p]);
        for (int md = 0; md < 2; md++)
            for (int a = 0; a < 2; a++) {
                const nt_hetero_eval_t *ev = &pr[p].ev[md][a];
                bench_printf(r, " %4.2f/%4.2f (%4.2f/%4.2f)%s", ev->makespan_ratio, ev->ratio,
                             thesis[md][p][a][0], thesis[md][p][a][1],
                             md == 0 && a == 1 ? " |" : " ");
            }
        bench_printf(r, "\n");
    }
    bench_printf(r, "\nAll partitioners: communication ratio (makespan ratio)\n%-9s %-6s | %-13s | "
                 "%-13s | %s\n", "platform", "algo", "rounded", "precise", "continuous ratio");
    for (int p = 0; p < NPLAT; p++)
        for (int a = 0; a < NALGO; a++) {
            const nt_hetero_eval_t *e0 = &pr[p].ev[0][a], *e1 = &pr[p].ev[1][a];
            bench_printf(r, "%-9s %-6s | ", plat_title[p], nt_hetero_algo_name(algos[a]));
            if (algos[a] == NT_HETERO_SFCP)
                bench_printf(r, "%-13s | %4.2f (%4.2f)   | - (discrete only, N = %lld)\n", "-",
                             e1->ratio, e1->makespan_ratio, (long long)pr[p].n[a]);
            else
                bench_printf(r, "%4.2f (%4.2f)   | %4.2f (%4.2f)   | %4.2f\n", e0->ratio,
                             e0->makespan_ratio, e1->ratio, e1->makespan_ratio,
                             e1->continuous_ratio);
        }
}

static json_t *thesis_json(const plat_res *pr, int64_t N)
{
    json_t *arr = json_array();
    for (int p = 0; p < NPLAT; p++) {
        json_t *al = json_object();
        for (int a = 0; a < NALGO; a++) {
            json_t *o = json_pack("{s:I}", "N", (json_int_t)pr[p].n[a]);
            for (int md = 0; md < 2; md++) {
                const nt_hetero_eval_t *ev = &pr[p].ev[md][a];
                json_object_set_new(o, mode_name[md],
                                    json_pack("{s:f, s:f, s:f, s:I, s:f}", "ratio", ev->ratio,
                                              "makespan_ratio", ev->makespan_ratio,
                                              "continuous_ratio", ev->continuous_ratio, "cost",
                                              (json_int_t)ev->cost, "lower_bound",
                                              ev->lower_bound));
            }
            json_object_set_new(al, nt_hetero_algo_name(algos[a]), o);
        }
        json_t *th = json_object();
        static const char *tk[2] = {"rounded", "accurate"}, *ta[2] = {"column", "rrp"};
        for (int md = 0; md < 2; md++)
            for (int a = 0; a < 2; a++) {
                char key[32];
                snprintf(key, sizeof key, "%s_%s", ta[a], tk[md]);
                json_object_set_new(th, key, json_pack("{s:f, s:f}", "makespan_ratio",
                                                       thesis[md][p][a][0], "ratio",
                                                       thesis[md][p][a][1]));
            }
        json_array_append_new(arr, json_pack("{s:s, s:I, s:o, s:o}", "platform", platforms[p],
                                             "N", (json_int_t)N, "algos", al, "thesis", th));
    }
    return arr;
}

// ---- part 2 -------------------------------------------------------------------------------

typedef struct mach_res {
    int domains;
    char kind[16];           // "cores", "given", "effective"
    double speeds[MAX_DOM];  // normalised
    double raw[MAX_DOM];     // as given (exact in JSON for the test's rebuild)
    nt_hetero_algo algo;
    int64_t N, nb;
    double sec[2];           // medians: hetero, bc2d
    int64_t rr[2];           // remote reads
    int64_t cost[2];         // discrete PERI-SUM cost
    int64_t tiles[2][MAX_DOM];
    double load[2];          // busiest core: sum of tiles / cores over its domains
    double owner_fraction[2];
    char bc2d[24];
} mach_res;

// Effective speeds: each core's time split evenly among the domains that share it.
static void effective_speeds(const nt_topo_t *t, double *s)
{
    int D = nt_topo_ndomains(t);
    int share[1024] = {0};
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        if (nt_topo_domain(t, d, &info) == NT_OK)
            for (int c = 0; c < info.ncpus; c++)
                if (info.cpus[c] >= 0 && info.cpus[c] < 1024)
                    share[info.cpus[c]]++;
    }
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        s[d] = 0;
        if (nt_topo_domain(t, d, &info) == NT_OK)
            for (int c = 0; c < info.ncpus; c++)
                if (info.cpus[c] >= 0 && info.cpus[c] < 1024 && share[info.cpus[c]])
                    s[d] += 1.0 / share[info.cpus[c]];
    }
}

// Predicted time of a tile distribution: the busiest core's share of tiles.
static double busiest_core(const nt_topo_t *t, const int64_t *tiles)
{
    double load[1024] = {0}, mx = 0;
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        if (nt_topo_domain(t, d, &info) != NT_OK || info.ncpus <= 0)
            continue;
        for (int c = 0; c < info.ncpus; c++)
            if (info.cpus[c] >= 0 && info.cpus[c] < 1024)
                load[info.cpus[c]] += (double)tiles[d] / info.ncpus;
    }
    for (int c = 0; c < 1024; c++)
        mx = fmax(mx, load[c]);
    return mx;
}

// The partitioner of least discrete cost (PRECISE) for these speeds.
static nt_status best_map(int m, const double *speeds, int64_t N, nt_hetero_algo *algo,
                          nt_tilemap_t **out)
{
    static const nt_hetero_algo cand[] = {NT_HETERO_COLUMN, NT_HETERO_RRP, NT_HETERO_SNRRP,
                                          NT_HETERO_NRRP, NT_HETERO_EXACT};
    nt_tilemap_t *best = NULL;
    int64_t best_cost = 0;
    nt_status st = NT_OK;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        nt_tilemap_t *map = NULL;
        int64_t cost;
        if (cand[i] == NT_HETERO_EXACT && m > 3)
            continue;
        if ((st = nt_hetero_tilemap(cand[i], NT_HETERO_PRECISE, m, speeds, N, &map)) != NT_OK)
            break;
        if ((st = nt_hetero_discrete_cost(m, N, map->owner, &cost, NULL, NULL)) != NT_OK) {
            nt_tilemap_destroy(map);
            break;
        }
        if (!best || cost < best_cost) {
            nt_tilemap_destroy(best);
            best = map;
            best_cost = cost;
            *algo = cand[i];
        } else {
            nt_tilemap_destroy(map);
        }
    }
    if (st != NT_OK) {
        nt_tilemap_destroy(best);
        return st;
    }
    *out = best;
    return NT_OK;
}

static nt_status make_op(const nt_topo_t *t, const nt_tilemap_t *map, int64_t nb, uint64_t seed,
                         bool fill, nt_matrix_t **out)
{
    nt_matrix_shape_t sh = {map->mt * nb, map->nt * nb, nb, nb, sizeof(double)};
    nt_status st = nt_matrix_create(t, &sh, map, NT_LAYOUT_TILE, 0, out);
    if (st == NT_OK && fill && (st = nt_matrix_fill(*out, scn_fill_fn, &seed)) != NT_OK) {
        nt_matrix_destroy(*out);
        *out = NULL;
    }
    return st;
}

static int run_machine(bench_run *r, const nt_topo_t *t, const char *kind, const double *raw,
                       int64_t N, int64_t nb, int reps, mach_res *mr, int64_t *done,
                       int64_t total)
{
    int D = nt_topo_ndomains(t), p, q;
    nt_tilemap_t *maps[2] = {NULL, NULL};
    nt_matrix_t *op[2][3] = {{NULL}};
    double *sec = malloc((size_t)reps * 2 * sizeof *sec);
    *mr = (mach_res){.domains = D, .N = N, .nb = nb};
    snprintf(mr->kind, sizeof mr->kind, "%s", kind);
    memcpy(mr->raw, raw, (size_t)D * sizeof *raw);
    scn_grid(D, &p, &q);
    snprintf(mr->bc2d, sizeof mr->bc2d, "bc2d:%dx%d", p, q);
    nt_status st = sec ? nt_hetero_normalize(D, raw, mr->speeds) : NT_ENOMEM;
    if (st == NT_OK)
        st = best_map(D, mr->speeds, N, &mr->algo, &maps[0]);
    if (st == NT_OK)
        st = nt_tilemap_bc2d(N, N, p, q, 1, 1, &maps[1]);
    for (int k = 0; k < 2 && st == NT_OK; k++) {
        if ((st = nt_hetero_discrete_cost(D, N, maps[k]->owner, &mr->cost[k], NULL,
                                          mr->tiles[k])) != NT_OK)
            break;
        mr->load[k] = busiest_core(t, mr->tiles[k]);
        for (int o = 0; o < 3 && st == NT_OK; o++)
            st = make_op(t, maps[k], nb, r->seed + (uint64_t)o, o < 2, &op[k][o]);
    }
    int rc = st != NT_OK ? scn_fail(r, "heterogeneous partition", st) : 0;
    static const char *mname[2] = {"hetero", "bc2d"};
    for (int rep = 0; rep < reps && !rc; rep++)
        for (int k = 0; k < 2 && !rc; k++) {
            nt_kernel_stats_t ks = {0};
            double t0 = bench_now();
            st = nt_gemm(1.0, op[k][0], op[k][1], 0.0, op[k][2], NULL, &ks);
            double s = bench_now() - t0;
            if (st != NT_OK) {
                nt_kernel_stats_free(&ks);
                rc = scn_fail(r, "nt_gemm", st);
                break;
            }
            sec[k * reps + rep] = s;
            mr->rr[k] = ks.remote_reads;
            mr->owner_fraction[k] = ks.owner_fraction;
            nt_kernel_stats_free(&ks);
            bench_row(r, json_pack("{s:s, s:i, s:s, s:s, s:I, s:i, s:f, s:I, s:f}", "kind",
                                   "gemm", "domains", D, "speeds", kind, "map", mname[k], "N",
                                   (json_int_t)N, "rep", rep, "seconds", s, "remote_reads",
                                   (json_int_t)mr->rr[k], "owner_fraction",
                                   mr->owner_fraction[k]));
            bench_progress(r, ++*done, total, "GEMM runs");
        }
    for (int k = 0; k < 2 && !rc; k++)
        mr->sec[k] = bench_median(sec + k * reps, (size_t)reps);
    for (int k = 0; k < 2; k++) {
        for (int o = 0; o < 3; o++)
            nt_matrix_destroy(op[k][o]);
        nt_tilemap_destroy(maps[k]);
    }
    free(sec);
    return rc;
}

static void print_machine(bench_run *r, const mach_res *m)
{
    bench_printf(r, "%2d %-9s", m->domains, m->kind);
    char sp[96] = "", *e = sp;
    for (int d = 0; d < m->domains && e < sp + sizeof sp - 8; d++)
        e += snprintf(e, (size_t)(sp + sizeof sp - e), "%s%.2f", d ? "," : "", m->speeds[d]);
    bench_printf(r, " %-20s %-6s |", sp, nt_hetero_algo_name(m->algo));
    for (int k = 0; k < 2; k++)
        bench_printf(r, " %7.3f %8lld %5lld %6.1f |", m->sec[k], (long long)m->rr[k],
                     (long long)m->cost[k], m->load[k]);
    bench_printf(r, " %6.3f %6.3f\n", m->sec[0] / m->sec[1], m->load[0] / m->load[1]);
}

static json_t *machine_json(const mach_res *m)
{
    json_t *sp = json_array(), *spr = json_array(), *maps[2];
    for (int d = 0; d < m->domains; d++) {
        json_array_append_new(sp, json_real(m->speeds[d]));
        json_array_append_new(spr, json_real(m->raw[d]));
    }
    for (int k = 0; k < 2; k++) {
        json_t *tl = json_array();
        for (int d = 0; d < m->domains; d++)
            json_array_append_new(tl, json_integer((json_int_t)m->tiles[k][d]));
        maps[k] = json_pack("{s:f, s:I, s:I, s:o, s:f, s:f}", "seconds", m->sec[k],
                            "remote_reads", (json_int_t)m->rr[k], "cost",
                            (json_int_t)m->cost[k], "tiles", tl, "busiest_core_tiles",
                            m->load[k], "owner_fraction", m->owner_fraction[k]);
    }
    return json_pack("{s:i, s:s, s:o, s:o, s:s, s:s, s:I, s:I, s:o, s:o, s:f, s:f}",
                     "domains", m->domains, "speeds_kind", m->kind, "speeds", sp, "speeds_raw",
                     spr, "algo",
                     nt_hetero_algo_name(m->algo), "bc2d", m->bc2d, "N", (json_int_t)m->N,
                     "nb", (json_int_t)m->nb, "hetero", maps[0], "bc2d_run", maps[1],
                     "time_ratio", m->sec[0] / m->sec[1], "predicted_time_ratio",
                     m->load[0] / m->load[1]);
}

static void plot(bench_run *r, const mach_res *ms, int nm)
{
    FILE *f = bench_fopen(r, "lambert-partition.dat");
    if (!f)
        return;
    fprintf(f, "# config measured_time_ratio predicted_time_ratio remote_reads_ratio\n");
    for (int i = 0; i < nm; i++)
        fprintf(f, "%dd-%s %g %g %g\n", ms[i].domains, ms[i].kind, ms[i].sec[0] / ms[i].sec[1],
                ms[i].load[0] / ms[i].load[1],
                ms[i].rr[1] ? (double)ms[i].rr[0] / (double)ms[i].rr[1] : 1.0);
    fclose(f);
    if (!(f = bench_fopen(r, "lambert-partition.gp")))
        return;
    fprintf(f, "set terminal pngcairo size 900,450\nset output 'lambert-partition.png'\n"
               "set title 'tiled GEMM, heterogeneous partition / bc2d (median times)'\n"
               "set style data histograms\nset style histogram clustered\n"
               "set style fill solid 0.8\nset grid ytics\nset yrange [0:*]\nset key top left\n"
               "plot 'lambert-partition.dat' u 2:xtic(1) t 'measured time ratio', '' u 3 t "
               "'predicted (busiest core)', '' u 4 t 'remote reads ratio'\n");
    fclose(f);
    bench_plot(r, "lambert-partition.gp");
}

int scn_lambert_partition(bench_run *r)
{
    const int64_t N = 50, gN = r->quick ? 8 : 16, nb = r->quick ? 64 : 128;
    int reps = bench_reps(r, 5, 2);
    scn_note_load(r);
    bench_param(r, "N", json_integer((json_int_t)N));
    bench_param(r, "gemm_tiles", json_integer((json_int_t)gN));
    bench_param(r, "gemm_nb", json_integer((json_int_t)nb));
    bench_param(r, "repetitions", json_integer(reps));
    bench_labels(r, "kind", "platform", "algo", "mode", "domains", "speeds", "map", NULL);

    plat_res pr[NPLAT];
    int rc = run_thesis(r, N, pr);
    if (rc)
        return rc;
    print_thesis(r, pr, N);

    // Machine configurations: (domains, speeds).
    int doms[2] = {r->domains ? r->domains : 4, 3};
    int ntopo = r->domains ? 1 : 2;
    mach_res ms[6];
    int nm = 0;
    int64_t done = 0, total = 0;
    nt_topo_t *topos[2] = {NULL, NULL};
    double raw[2][3][MAX_DOM];
    const char *kinds[2][3];
    int nk[2] = {0, 0};
    for (int i = 0; i < ntopo && !rc; i++) {
        nt_topo_opts_t to = {.domains = doms[i]};
        nt_status st = nt_topo_load(&to, &topos[i]);
        if (st == NT_OK && nt_topo_ndomains(topos[i]) > MAX_DOM)
            st = NT_EINVAL;
        if (st != NT_OK) {
            rc = scn_fail(r, "loading the topology", st);
            break;
        }
        int D = nt_topo_ndomains(topos[i]), m;
        double cores[MAX_DOM];
        if ((st = nt_hetero_speeds_from_topo(topos[i], MAX_DOM, &m, cores)) != NT_OK) {
            rc = scn_fail(r, "speeds from the cores", st);
            break;
        }
        // The same speeds unnormalised (the cores of each domain), exact in the JSON.
        for (int d = 0; d < D; d++) {
            nt_domain_info_t info;
            raw[i][0][d] = nt_topo_domain(topos[i], d, &info) == NT_OK ? info.ncpus : 0;
        }
        kinds[i][nk[i]++] = "cores";
        double eff[MAX_DOM], effn[MAX_DOM];
        effective_speeds(topos[i], eff);
        bool differs = false;
        if (nt_hetero_normalize(D, eff, effn) == NT_OK)
            for (int d = 0; d < D; d++)
                differs |= fabs(effn[d] - cores[d]) > 1e-9;
        if (differs) {
            memcpy(raw[i][nk[i]], eff, (size_t)D * sizeof(double));
            kinds[i][nk[i]++] = "effective";
        }
        if (i == 0 && D > 1) {
            for (int d = 0; d < D; d++)
                raw[i][nk[i]][d] = d ? 1.0 : 3.0;
            kinds[i][nk[i]++] = "given";
        }
        total += (int64_t)nk[i] * reps * 2;
    }
    for (int i = 0; i < ntopo && !rc; i++)
        for (int k = 0; k < nk[i] && !rc; k++)
            rc = run_machine(r, topos[i], kinds[i][k], raw[i][k], gN, nb, reps, &ms[nm++],
                             &done, total);
    for (int i = 0; i < 2; i++)
        nt_topo_destroy(topos[i]);
    if (rc)
        return rc;
    scn_note_load_end(r);

    bench_printf(r, "\nTiled GEMM, A, B and C on one tile map, %lldx%lld tiles of %lld: the "
                 "heterogeneous partition (algo: least\ndiscrete cost, precise) against bc2d; "
                 "median of %d; rr = remote tile reads; cost = tile rows + columns\ntouched "
                 "(PERI-SUM, per k-layer); core = tiles on the busiest core (predicted time)\n",
                 (long long)gN, (long long)gN, (long long)nb, reps);
    bench_printf(r, "%2s %-9s %-20s %-6s | %-31s | %-31s | %-13s\n", "D", "speeds", "",
                 "algo", "heterogeneous: s, rr, cost, core", "bc2d: s, rr, cost, core",
                 "time ratio: measured, predicted");
    for (int i = 0; i < nm; i++)
        print_machine(r, &ms[i]);
    bench_printf(r,
        "\nThesis: simulated platforms (a GPU = 50 CPUs), N = 50 blocks; its 'Accurate' moves "
        "column and row\n  frontiers, our 'precise' fills inner rectangles then neighbours; "
        "both give every domain round(s_i N^2)\n  tiles. Communication ratios are exact "
        "counts and directly comparable.\n"
        "Machine: virtual domains of one 2-core VM share a memory node, so a remote read costs "
        "a local one\n  (rr is what a NUMA machine would pay for); domains sharing a core "
        "split its time, which the\n  'effective' speeds and the predicted ratio account for. "
        "'given' speeds (first domain 3, the others\n  1) do not match this hardware: the "
        "predicted ratio says by how much the partition should lose.\n  The prediction assumes "
        "the cores are ours: under other load the scheduler shares time per thread,\n  and "
        "domains sharing a core stop being slower (see the load notices).\n");
    json_t *jm = json_array();
    for (int i = 0; i < nm; i++)
        json_array_append_new(jm, machine_json(&ms[i]));
    bench_summary(r, json_pack("{s:I, s:o, s:o}", "N", (json_int_t)N, "platforms",
                               thesis_json(pr, N), "machine", jm));
    plot(r, ms, nm);
    return 0;
}
