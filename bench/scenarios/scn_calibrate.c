// Scenario calibrate: the machine as numatile sees it (kind, domains, nodes, cpus, distances)
// and the copy bound of every domain pair: a parallel memcpy from a buffer on domain i to a
// buffer on domain j by threads bound to j (the side that runs a copy task in nt_plan_execute).
// Cao et al. 2022 bound a redistribution by the transport bandwidth; on one shared-memory
// machine the transport is the memory system, so this matrix is the ceiling of every migration.
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios.h"
#include "numatile/error.h"
#include "numatile/mem.h"
#include "numatile/topo.h"
#include "scn_util.h"

// The scenario's domains: --domains D, else the physical nodes, else (one node) 2 virtual
// domains so that there is at least one remote pair to look at.
static nt_status load_topo(const bench_run *r, nt_topo_t **out)
{
    nt_topo_opts_t o = {.domains = r->domains};
    nt_status st = nt_topo_load(&o, out);
    if (st == NT_OK && !r->domains && nt_topo_ndomains(*out) < 2) {
        nt_topo_destroy(*out);
        *out = NULL;
        o.domains = 2;
        st = nt_topo_load(&o, out);
    }
    return st;
}

// Copy threads of a domain, as nt_plan_execute chooses them by default: the domain's cpus up to
// 4, one when domains share cpus.
static int copy_threads(const nt_topo_t *topo, int d)
{
    nt_domain_info_t info;
    if (nt_topo_domain(topo, d, &info) != NT_OK || info.ncpus == 0)
        return 0;
    if (nt_topo_oversubscribed(topo))
        return 1;
    return info.ncpus < 4 ? info.ncpus : 4;
}

// One timed parallel memcpy of bytes from a to b by `threads` threads bound to domain d, each
// copying its contiguous share between two barriers. Seconds, or -1 if binding failed.
static double timed_copy(const nt_topo_t *topo, int d, int threads, char *b, const char *a,
                         size_t bytes)
{
    double t0 = 0, t1 = 0;
    int failed = 0;
#pragma omp parallel num_threads(threads)
    {
        cpu_set_t saved;
        bool have = sched_getaffinity(0, sizeof saved, &saved) == 0;
        bool bound = have && nt_bind_domain(topo, d) == NT_OK;
        if (!bound) {
#pragma omp atomic write
            failed = 1;
        }
        size_t k = (size_t)omp_get_thread_num(), n = (size_t)omp_get_num_threads();
        size_t lo = bytes / n * k, hi = k + 1 == n ? bytes : bytes / n * (k + 1);
#pragma omp barrier
#pragma omp master
        t0 = bench_now();
#pragma omp barrier
        memcpy(b + lo, a + lo, hi - lo);
#pragma omp barrier
#pragma omp master
        t1 = bench_now();
        if (have)
            sched_setaffinity(0, sizeof saved, &saved);
    }
    return failed ? -1 : t1 - t0;
}

static json_t *matrix_json(const double *x, int D)
{
    json_t *m = json_array();
    for (int i = 0; i < D; i++) {
        json_t *row = json_array();
        for (int j = 0; j < D; j++)
            json_array_append_new(row, json_real(x[i * D + j]));
        json_array_append_new(m, row);
    }
    return m;
}

static void print_topology(bench_run *r, const nt_topo_t *topo)
{
    int D = nt_topo_ndomains(topo);
    bench_printf(r, "topology: %s, %d domain%s on %d NUMA node%s%s; distances from %s\n",
                 nt_topo_kind_name(nt_topo_get_kind(topo)), D, D == 1 ? "" : "s",
                 nt_topo_nphysical(topo), nt_topo_nphysical(topo) == 1 ? "" : "s",
                 nt_topo_oversubscribed(topo) ? " (oversubscribed: domains share cpus)" : "",
                 nt_topo_dist_source_name(nt_topo_distance_source(topo)));
    bench_printf(r, "%-6s %4s %8s %7s  %s\n", "domain", "node", "threads", "GiB", "cpus");
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        bench_printf(r, "%-6d %4d %8d %7.1f  ", d, info.node, copy_threads(topo, d),
                     (double)info.memory_bytes / (double)(1u << 30));
        for (int k = 0; k < info.ncpus; k++)
            bench_printf(r, "%s%d", k ? "," : "", info.cpus[k]);
        bench_printf(r, "\n");
    }
    const uint32_t *dist = nt_topo_distances(topo);
    bench_printf(r, "distances:\n");
    for (int i = 0; i < D; i++) {
        for (int j = 0; j < D; j++)
            bench_printf(r, " %4u", dist[i * D + j]);
        bench_printf(r, "\n");
    }
}

static void plot(bench_run *r, const double *med, int D)
{
    FILE *f = bench_fopen(r, "calibrate.dat");
    if (!f)
        return;
    fprintf(f, "# median GB/s, row = source domain, column = target domain (copy threads)\n");
    for (int i = 0; i < D; i++) {
        for (int j = 0; j < D; j++)
            fprintf(f, "%s%.3f", j ? " " : "", med[i * D + j]);
        fprintf(f, "\n");
    }
    fclose(f);
    if (!(f = bench_fopen(r, "calibrate.gp")))
        return;
    fprintf(f,
            "set terminal pngcairo size 700,600\nset output 'calibrate.png'\n"
            "set title 'copy bound per domain pair (median GB/s)'\n"
            "set xlabel 'target domain (threads bound here)'\nset ylabel 'source domain'\n"
            "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\n"
            "set xtics 1\nset ytics 1\nset cblabel 'GB/s'\nset palette rgb 33,13,10\n"
            "plot 'calibrate.dat' matrix w image notitle, "
            "'' matrix u 1:2:(sprintf('%%.1f', $3)) w labels notitle\n",
            D - 1, D - 1);
    fclose(f);
    bench_plot(r, "calibrate.gp");
}

int scn_calibrate(bench_run *r)
{
    nt_topo_t *topo = NULL;
    nt_status st = load_topo(r, &topo);
    if (st != NT_OK) {
        int rc = scn_fail(r, "topology", st);
        return st == NT_EINVAL ? 2 : rc;
    }
    int D = nt_topo_ndomains(topo);
    int reps = bench_reps(r, 7, 3);
    size_t bytes = (size_t)(r->quick ? 16 : r->full ? 512 : 128) << 20; // > the LLC
    bench_param(r, "domains", json_integer(D));
    bench_param(r, "bytes_per_copy", json_integer((json_int_t)bytes));
    bench_param(r, "repetitions", json_integer(reps));
    bench_param(r, "method", json_string("parallel memcpy, buffer on the source domain to a "
                                         "buffer on the target domain, threads bound to the "
                                         "target; one untimed warm-up copy per pair"));
    bench_labels(r, "src", "dst", NULL);
    print_topology(r, topo);

    size_t DD = (size_t)D * (size_t)D;
    double *med = calloc(DD, sizeof *med), *lo = calloc(DD, sizeof *lo);
    double *hi = calloc(DD, sizeof *hi), *t = calloc((size_t)reps, sizeof *t);
    char **buf = calloc(2 * (size_t)D, sizeof *buf);
    int rc = med && lo && hi && t && buf ? 0 : 3;
    if (rc)
        fprintf(stderr, "numatile bench %s: out of memory\n", r->name);
    // Two buffers per domain, a source and a target, placed and touched by nt_mem_alloc; pair
    // (i, j) copies source buffer i into target buffer j, so every pair uses two mappings.
    size_t len = bytes;
    for (int d = 0; d < 2 * D && !rc; d++)
        if ((st = nt_mem_alloc(topo, d % D, len, 0, (void **)&buf[d])) != NT_OK) {
            char what[40];
            snprintf(what, sizeof what, "buffer on domain %d", d % D);
            rc = scn_fail(r, what, st);
        }
    for (int i = 0; i < D && !rc; i++)
        for (int j = 0; j < D && !rc; j++) {
            int threads = copy_threads(topo, j);
            if (threads == 0) {
                med[i * D + j] = lo[i * D + j] = hi[i * D + j] = NAN;
                continue;
            }
            char *a = buf[i], *b = buf[D + j];
            for (int k = -1; k < reps && !rc; k++) {
                double s = timed_copy(topo, j, threads, b, a, len);
                if (s < 0) {
                    fprintf(stderr, "numatile bench %s: cannot bind threads to domain %d\n",
                            r->name, j);
                    rc = 3;
                } else if (k >= 0) {
                    t[k] = (double)len / s / 1e9;
                    bench_row(r, json_pack("{s:i, s:i, s:i, s:i, s:f, s:f}", "src", i, "dst", j,
                                           "rep", k, "threads", threads, "seconds", s, "gbs",
                                           t[k]));
                }
            }
            if (!rc) {
                double m3[3];
                scn_stat3(m3, t, reps);
                med[i * D + j] = m3[0];
                lo[i * D + j] = m3[1];
                hi[i * D + j] = m3[2];
            }
            bench_progress(r, i * D + j + 1, (int64_t)DD, "domain pairs");
        }
    for (int d = 0; d < 2 * D && buf; d++)
        nt_mem_free(buf[d], len);

    if (!rc) {
        bench_printf(r, "\ncopy bound per domain pair, GB/s (bytes copied / time), %zu MiB per "
                        "copy, median [min..max] of %d\nrows: source domain, columns: target "
                        "domain (threads bound there)\n", len >> 20, reps);
        bench_printf(r, "%-4s", "");
        for (int j = 0; j < D; j++)
            bench_printf(r, " %-20d", j);
        bench_printf(r, "\n");
        double loc = 0, rem = 0;
        int nloc = 0, nrem = 0;
        for (int i = 0; i < D; i++) {
            bench_printf(r, "%-4d", i);
            for (int j = 0; j < D; j++) {
                char cell[64];
                snprintf(cell, sizeof cell, "%.2f [%.2f..%.2f]", med[i * D + j], lo[i * D + j],
                         hi[i * D + j]);
                bench_printf(r, " %-20s", cell);
                if (isnan(med[i * D + j]))
                    continue;
                if (i == j) {
                    loc += med[i * D + j];
                    nloc++;
                } else {
                    rem += med[i * D + j];
                    nrem++;
                }
            }
            bench_printf(r, "\n");
        }
        loc = nloc ? loc / nloc : NAN;
        rem = nrem ? rem / nrem : NAN;
        bench_printf(r, "mean of medians: same domain %.2f GB/s, other domain %.2f GB/s "
                        "(ratio %.2f)\n", loc, rem, rem / loc);
        bench_printf(r,
            "\nReference: Cao et al. 2022 bound a redistribution by bound = Bnet*Bmemcpy / "
            "((2+r)*Bnet + Bmemcpy)\n  (r = local/remote bytes); their Bnet is a cluster "
            "network. Here the 'network' is the memory system\n  itself, so this matrix is "
            "the ceiling: a migration reads and writes every moved byte once\n  (GB/s counts "
            "bytes copied; memory traffic is 2-3x that with write-allocate).\n"
            "Setting: %s domains of %s (%d cpus in all); domains on one node share its "
            "memory\n  controller, so off-diagonal and diagonal entries differ only by noise "
            "and cache effects there;\n  on a multi-node machine the off-diagonal entries "
            "show the interconnect (compare the distances).\n",
            nt_topo_kind_name(nt_topo_get_kind(topo)),
            nt_topo_nphysical(topo) == 1 ? "one NUMA node" : "several NUMA nodes",
            omp_get_num_procs());

        json_t *dist = json_array(), *cpus = json_array(), *thr = json_array();
        const uint32_t *dm = nt_topo_distances(topo);
        for (int i = 0; i < D; i++) {
            json_t *row = json_array(), *c = json_array();
            for (int j = 0; j < D; j++)
                json_array_append_new(row, json_integer(dm[i * D + j]));
            json_array_append_new(dist, row);
            nt_domain_info_t info;
            nt_topo_domain(topo, i, &info);
            for (int k = 0; k < info.ncpus; k++)
                json_array_append_new(c, json_integer(info.cpus[k]));
            json_array_append_new(cpus, c);
            json_array_append_new(thr, json_integer(copy_threads(topo, i)));
        }
        json_t *s = json_object();
        json_object_set_new(s, "kind", json_string(nt_topo_kind_name(nt_topo_get_kind(topo))));
        json_object_set_new(s, "domains", json_integer(D));
        json_object_set_new(s, "nodes", json_integer(nt_topo_nphysical(topo)));
        json_object_set_new(s, "oversubscribed", json_boolean(nt_topo_oversubscribed(topo)));
        json_object_set_new(s, "distance_source", json_string(nt_topo_dist_source_name(
                                                      nt_topo_distance_source(topo))));
        json_object_set_new(s, "distances", dist);
        json_object_set_new(s, "cpus", cpus);
        json_object_set_new(s, "threads", thr);
        json_object_set_new(s, "bytes", json_integer((json_int_t)len));
        json_object_set_new(s, "repetitions", json_integer(reps));
        json_object_set_new(s, "gbs_median", matrix_json(med, D));
        json_object_set_new(s, "gbs_min", matrix_json(lo, D));
        json_object_set_new(s, "gbs_max", matrix_json(hi, D));
        json_object_set_new(s, "local_gbs", isnan(loc) ? json_null() : json_real(loc));
        json_object_set_new(s, "remote_gbs", isnan(rem) ? json_null() : json_real(rem));
        bench_summary(r, s);
        plot(r, med, D);
    }
    free(med);
    free(lo);
    free(hi);
    free(t);
    free(buf);
    nt_topo_destroy(topo);
    return rc;
}
