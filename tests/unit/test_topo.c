// Machine layer: topology discovery, virtual splits, synthetic machines, binding, teams.
// Oracles: libnuma's view of this machine, the process affinity mask, and distances derived
// independently from the synthetic description's shape.
#include <criterion/criterion.h>
#include <hwloc.h>
#include <numa.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "numatile.h"
#include "nt_core.h"

static nt_topo_t *load(int domains, const char *synthetic)
{
    nt_topo_opts_t o = {.domains = domains, .synthetic = synthetic};
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(&o, &t);
    cr_assert_eq(st, NT_OK, "nt_topo_load(%d, %s): %s", domains, synthetic ? synthetic : "-",
                 nt_last_error());
    return t;
}

static int allowed_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    cr_assert_eq(sched_getaffinity(0, sizeof *set, set), 0);
    return CPU_COUNT(set);
}

Test(topo, this_machine_matches_libnuma)
{
    nt_topo_t *t = load(0, NULL);
    cr_assert_eq(nt_topo_get_kind(t), NT_TOPO_PHYSICAL);
    cr_assert_eq(nt_topo_oversubscribed(t), false);
    int nodes = numa_available() >= 0 ? numa_num_configured_nodes() : 1;
    cr_assert_eq(nt_topo_nphysical(t), nodes);
    cr_assert_eq(nt_topo_ndomains(t), nodes);
    cpu_set_t set;
    int ncpu = allowed_cpus(&set), seen = 0;
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        cr_assert_eq(nt_topo_domain(t, d, &info), NT_OK);
        cr_assert_eq(info.id, d);
        cr_assert_gt(info.memory_bytes, 0);
        for (int k = 0; k < info.ncpus; k++) {
            cr_assert(CPU_ISSET(info.cpus[k], &set), "cpu %d not allowed", info.cpus[k]);
            if (numa_available() >= 0)
                cr_assert_eq(numa_node_of_cpu(info.cpus[k]), info.node);
            if (k)
                cr_assert_gt(info.cpus[k], info.cpus[k - 1], "cpus not ascending");
            int dom = -1;
            cr_assert_eq(nt_topo_cpu_domain(t, info.cpus[k], &dom), NT_OK);
            cr_assert_eq(dom, d);
        }
        seen += info.ncpus;
    }
    cr_assert_eq(seen, ncpu, "domains cover %d cpus, affinity has %d", seen, ncpu);
    const uint32_t *dist = nt_topo_distances(t);
    int D = nt_topo_ndomains(t);
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) {
            cr_assert_eq(dist[a * D + b], dist[b * D + a]);
            if (numa_available() >= 0 && nt_topo_distance_source(t) == NT_DISTANCE_LIBNUMA) {
                nt_domain_info_t ia, ib;
                nt_topo_domain(t, a, &ia);
                nt_topo_domain(t, b, &ib);
                cr_assert_eq((int)dist[a * D + b], numa_distance(ia.node, ib.node));
            }
        }
    nt_topo_destroy(t);
}

// Virtual splits of this machine: every D from 1 to 8 (this 2-core machine oversubscribes from
// D = 3). Checked: cpus cover the machine, domains are disjoint unless oversubscribed, shares
// within a node differ by at most one core, memory is split, distances are the nodes'.
Test(topo, virtual_splits_1_to_8)
{
    cpu_set_t set;
    int ncpu = allowed_cpus(&set);
    nt_topo_t *phys = load(0, NULL);
    int nodes = nt_topo_nphysical(phys);
    for (int D = nodes; D <= 8; D++) {
        nt_topo_t *t = load(D, NULL);
        cr_assert_eq(nt_topo_ndomains(t), D);
        cr_assert_eq(nt_topo_get_kind(t), D == nodes ? NT_TOPO_PHYSICAL : NT_TOPO_VIRTUAL);
        cr_assert_eq(nt_topo_nphysical(t), nodes);
        int count[CPU_SETSIZE] = {0};
        int minc = 1 << 30, maxc = 0;
        for (int d = 0; d < D; d++) {
            nt_domain_info_t info;
            cr_assert_eq(nt_topo_domain(t, d, &info), NT_OK);
            cr_assert_gt(info.ncpus, 0);
            for (int k = 0; k < info.ncpus; k++) {
                count[info.cpus[k]]++;
                if (numa_available() >= 0)
                    cr_assert_eq(numa_node_of_cpu(info.cpus[k]), info.node);
            }
            minc = info.ncpus < minc ? info.ncpus : minc;
            maxc = info.ncpus > maxc ? info.ncpus : maxc;
        }
        bool shared = false;
        for (int c = 0; c < CPU_SETSIZE; c++) {
            cr_assert_eq(count[c] > 0, CPU_ISSET(c, &set) != 0, "D=%d cpu %d coverage", D, c);
            shared |= count[c] > 1;
        }
        cr_assert_eq(nt_topo_oversubscribed(t), shared, "D=%d", D);
        if (nodes == 1)
            cr_assert_eq(shared, D > ncpu, "D=%d on %d cpus", D, ncpu);
        if (nodes == 1 && !shared)
            cr_assert_leq(maxc - minc, 1, "D=%d unbalanced", D);
        nt_topo_destroy(t);
    }
    nt_topo_destroy(phys);
}

// pack:P numa:2 core:C: node n is in package n/2. Distances from the hierarchy: 10 to itself,
// 20 within a package (one level up), 30 across packages (two levels up).
static void check_synthetic(const char *desc, int nnodes, int cores_per_node)
{
    nt_topo_t *t = load(0, desc);
    cr_assert_eq(nt_topo_get_kind(t), NT_TOPO_SYNTHETIC);
    cr_assert_eq(nt_topo_nphysical(t), nnodes);
    cr_assert_eq(nt_topo_ndomains(t), nnodes);
    cr_assert_eq(nt_topo_distance_source(t), NT_DISTANCE_HIERARCHY);
    const uint32_t *dist = nt_topo_distances(t);
    for (int a = 0; a < nnodes; a++) {
        nt_domain_info_t info;
        cr_assert_eq(nt_topo_domain(t, a, &info), NT_OK);
        cr_assert_eq(info.node, a);
        cr_assert_eq(info.ncpus, cores_per_node);
        cr_assert_eq(info.cpus[0], a * cores_per_node);
        for (int b = 0; b < nnodes; b++) {
            uint32_t want = a == b ? 10 : a / 2 == b / 2 ? 20 : 30;
            cr_assert_eq(dist[a * nnodes + b], want, "%s d(%d,%d)", desc, a, b);
        }
    }
    // Planning only: no memory, no binding.
    void *p = NULL;
    cr_assert_eq(nt_mem_alloc(t, 0, 4096, 0, &p), NT_ENOTSUP);
    cr_assert_null(p);
    cr_assert_eq(nt_bind_domain(t, 0), NT_ENOTSUP);
    nt_topo_destroy(t);
}

Test(topo, synthetic_4_nodes) { check_synthetic("pack:2 numa:2 core:4 pu:1", 4, 4); }
Test(topo, synthetic_8_nodes) { check_synthetic("pack:4 numa:2 core:8 pu:1", 8, 8); }

Test(topo, synthetic_virtual_split)
{
    nt_topo_t *t = load(16, "pack:2 numa:2 core:4 pu:2");
    cr_assert_eq(nt_topo_get_kind(t), NT_TOPO_SYNTHETIC);
    cr_assert_eq(nt_topo_ndomains(t), 16);
    cr_assert_eq(nt_topo_oversubscribed(t), false);
    const uint32_t *dist = nt_topo_distances(t);
    for (int d = 0; d < 16; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        cr_assert_eq(info.node, d / 4, "4 domains per node");
        cr_assert_eq(info.ncpus, 2, "one core = 2 PUs per domain");
        cr_assert_eq(info.cpus[1], info.cpus[0] + 1, "PUs of one core stay together");
        for (int e = 0; e < 16; e++) {
            int a = d / 4, b = e / 4;
            uint32_t want = a == b ? 10 : a / 2 == b / 2 ? 20 : 30;
            cr_assert_eq(dist[d * 16 + e], want);
        }
    }
    nt_topo_destroy(t);
}

// A machine description with a real distance matrix (an XML export with hwloc distances)
// takes its distances from hwloc.
Test(topo, xml_with_hwloc_distances)
{
    hwloc_topology_t h;
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_set_synthetic(h, "pack:3 numa:1 core:2 pu:1"), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    hwloc_obj_t objs[3];
    hwloc_uint64_t values[9] = {10, 21, 32, 21, 10, 17, 32, 17, 10};
    for (unsigned i = 0; i < 3; i++)
        objs[i] = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, i);
    hwloc_distances_add_handle_t hd = hwloc_distances_add_create(
        h, "test", HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
    cr_assert_not_null(hd);
    cr_assert_eq(hwloc_distances_add_values(h, hd, 3, objs, values, 0), 0);
    cr_assert_eq(hwloc_distances_add_commit(h, hd, 0), 0);
    char path[] = "/tmp/nt_topo_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(hwloc_topology_export_xml(h, path, 0), 0);
    hwloc_topology_destroy(h);

    nt_topo_t *t = load(0, path);
    cr_assert_eq(nt_topo_distance_source(t), NT_DISTANCE_HWLOC);
    cr_assert_eq(nt_topo_ndomains(t), 3);
    const uint32_t *dist = nt_topo_distances(t);
    for (int k = 0; k < 9; k++)
        cr_assert_eq(dist[k], (uint32_t)values[k]);
    nt_topo_destroy(t);
    // Splitting keeps the node distances: 6 domains, two per node.
    t = load(6, path);
    dist = nt_topo_distances(t);
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            cr_assert_eq(dist[a * 6 + b], (uint32_t)values[(a / 2) * 3 + b / 2]);
    nt_topo_destroy(t);
    unlink(path);
}

Test(topo, errors_name_the_argument)
{
    nt_topo_t *t = (nt_topo_t *)0x1;
    nt_topo_opts_t o = {.domains = -1};
    cr_assert_eq(nt_topo_load(NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "domains"));
    cr_assert_eq(t, (nt_topo_t *)0x1, "out untouched on failure");
    o = (nt_topo_opts_t){.synthetic = "pack:x"};
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "synthetic"), "%s", nt_last_error());
    o = (nt_topo_opts_t){.synthetic = ""};
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL);
    o = (nt_topo_opts_t){.synthetic = "/nonexistent/machine.xml"};
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "/nonexistent/machine.xml"));
    o = (nt_topo_opts_t){.domains = 2, .synthetic = "pack:4 numa:1 core:1 pu:1"};
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL, "fewer domains than nodes");
    cr_assert(strstr(nt_last_error(), "domains"));
    cr_assert_eq(t, (nt_topo_t *)0x1);

    t = load(0, NULL);
    nt_domain_info_t info;
    int d;
    cr_assert_eq(nt_topo_domain(NULL, 0, &info), NT_EINVAL);
    cr_assert_eq(nt_topo_domain(t, 0, NULL), NT_EINVAL);
    cr_assert_eq(nt_topo_domain(t, -1, &info), NT_EINVAL);
    cr_assert_eq(nt_topo_domain(t, nt_topo_ndomains(t), &info), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "domain"));
    cr_assert_eq(nt_topo_cpu_domain(NULL, 0, &d), NT_EINVAL);
    cr_assert_eq(nt_topo_cpu_domain(t, 0, NULL), NT_EINVAL);
    cr_assert_eq(nt_topo_cpu_domain(t, 1 << 20, &d), NT_ERANGE);
    cr_assert_eq(nt_bind_domain(NULL, 0), NT_EINVAL);
    cr_assert_eq(nt_bind_domain(t, 99), NT_EINVAL);
    cr_assert_null(nt_topo_distances(NULL));
    nt_topo_destroy(t);
    nt_topo_destroy(NULL);
    cr_assert_str_eq(nt_strerror(NT_OK), "success");
    cr_assert_str_eq(nt_strerror(12345), "unknown status");
    for (int c = NT_ENOSPACE; c <= NT_OK; c++)
        cr_assert_str_neq(nt_strerror(c), "unknown status");
    cr_assert_str_eq(nt_topo_kind_name(NT_TOPO_VIRTUAL), "virtual");
    cr_assert_str_eq(nt_topo_distance_source_name(NT_DISTANCE_FLAT), "flat");
}

Test(topo, bind_keeps_thread_on_domain)
{
    nt_topo_t *t = load(2, NULL);
    cpu_set_t saved;
    sched_getaffinity(0, sizeof saved, &saved);
    for (int d = 0; d < 2; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        cr_assert_eq(nt_bind_domain(t, d), NT_OK, "%s", nt_last_error());
        cpu_set_t now;
        sched_getaffinity(0, sizeof now, &now);
        cr_assert_eq(CPU_COUNT(&now), info.ncpus);
        for (int k = 0; k < info.ncpus; k++)
            cr_assert(CPU_ISSET(info.cpus[k], &now));
        int cpu = sched_getcpu(), dom = -1;
        cr_assert_eq(nt_topo_cpu_domain(t, cpu, &dom), NT_OK);
        cr_assert_eq(dom, d, "running on cpu %d of domain %d, bound to %d", cpu, dom, d);
    }
    sched_setaffinity(0, sizeof saved, &saved);
    nt_topo_destroy(t);
}

typedef struct team_probe {
    const nt_topo_t *t;
    int hits[16][4];
    int wrong;
    int fail_domain;
} team_probe;

static nt_status probe_fn(int domain, int rank, void *arg)
{
    team_probe *p = arg;
    nt_domain_info_t info;
    nt_topo_domain(p->t, domain, &info);
    int cpu = sched_getcpu();
    bool ok = false;
    for (int k = 0; k < info.ncpus; k++)
        ok |= info.cpus[k] == cpu;
#pragma omp atomic
    p->wrong += !ok;
#pragma omp atomic
    p->hits[domain][rank]++;
    if (domain == p->fail_domain)
        return nt_fail(NT_ERANGE, "probe: domain %d asked to fail", domain);
    return NT_OK;
}

Test(topo, team_threads_run_on_their_domain)
{
    for (int D = 1; D <= 8; D *= 2) {
        nt_topo_t *t = load(D, NULL);
        team_probe p = {.t = t, .fail_domain = -1};
        cr_assert_eq(nt_team_run(t, 2, probe_fn, &p), NT_OK, "%s", nt_last_error());
        cr_assert_eq(p.wrong, 0);
        for (int d = 0; d < D; d++)
            for (int r = 0; r < 2; r++)
                cr_assert_eq(p.hits[d][r], 1, "D=%d domain %d rank %d", D, d, r);
        // An error inside the team comes back to the caller with its message.
        team_probe q = {.t = t, .fail_domain = D - 1};
        cr_assert_eq(nt_team_run(t, 1, probe_fn, &q), NT_ERANGE);
        cr_assert(strstr(nt_last_error(), "asked to fail"), "%s", nt_last_error());
        nt_topo_destroy(t);
    }
}

Test(topo, team_restores_affinity_and_checks_args)
{
    nt_topo_t *t = load(2, NULL);
    team_probe p = {.t = t, .fail_domain = -1};
    cr_assert_eq(nt_team_run(NULL, 1, probe_fn, &p), NT_EINVAL);
    cr_assert_eq(nt_team_run(t, 1, NULL, &p), NT_EINVAL);
    cr_assert_eq(nt_team_run(t, 0, probe_fn, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "threads_per_domain"));
    cpu_set_t before, after;
    sched_getaffinity(0, sizeof before, &before);
    cr_assert_eq(nt_team_run(t, 1, probe_fn, &p), NT_OK);
    sched_getaffinity(0, sizeof after, &after);
    cr_assert(CPU_EQUAL(&before, &after), "caller's affinity restored");
    nt_topo_destroy(t);
    nt_topo_t *s = load(0, "pack:2 numa:1 core:1 pu:1");
    cr_assert_eq(nt_team_run(s, 1, probe_fn, &p), NT_ENOTSUP);
    nt_topo_destroy(s);
}

// Virtual splits of described machines with several cores per node, for every D from the node
// count to past the core count: cpus of each node are covered, domains are disjoint until D
// exceeds the cores, each node gets domains in proportion to its cores, and the cores of one
// node are shared out evenly (PUs of a core stay together).
Test(topo, virtual_splits_are_balanced_on_bigger_machines)
{
    const struct { const char *desc; int nodes, cores_per_node, pus_per_core; } m[] = {
        {"pack:1 numa:2 core:6 pu:1", 2, 6, 1},
        {"pack:2 numa:1 core:5 pu:2", 2, 5, 2},
        {"pack:3 numa:1 core:3 pu:1", 3, 3, 1},
    };
    for (size_t k = 0; k < sizeof m / sizeof *m; k++) {
        int cores = m[k].nodes * m[k].cores_per_node;
        int npu = cores * m[k].pus_per_core;
        for (int D = m[k].nodes; D <= cores + 3; D++) {
            nt_topo_t *t = load(D, m[k].desc);
            cr_assert_eq(nt_topo_ndomains(t), D);
            int *cover = calloc((size_t)npu, sizeof *cover);
            int per_node[8] = {0}, minc[8], maxc[8];
            for (int n = 0; n < 8; n++)
                minc[n] = 1 << 30, maxc[n] = 0;
            for (int d = 0; d < D; d++) {
                nt_domain_info_t info;
                nt_topo_domain(t, d, &info);
                int n = info.node;
                per_node[n]++;
                cr_assert_eq(info.ncpus % m[k].pus_per_core, 0, "whole cores");
                int c = info.ncpus / m[k].pus_per_core;
                minc[n] = c < minc[n] ? c : minc[n];
                maxc[n] = c > maxc[n] ? c : maxc[n];
                for (int j = 0; j < info.ncpus; j++) {
                    int cpu = info.cpus[j];
                    cr_assert_eq(cpu / (m[k].cores_per_node * m[k].pus_per_core), n,
                                 "%s D=%d: cpu %d not on node %d", m[k].desc, D, cpu, n);
                    cover[cpu]++;
                }
            }
            for (int c = 0; c < npu; c++) {
                cr_assert_gt(cover[c], 0, "%s D=%d cpu %d uncovered", m[k].desc, D, c);
                if (D <= cores)
                    cr_assert_eq(cover[c], 1, "%s D=%d cpu %d shared", m[k].desc, D, c);
            }
            cr_assert_eq(nt_topo_oversubscribed(t), D > cores);
            for (int n = 0; n < m[k].nodes; n++) {
                // equal nodes: domain counts differ by at most one
                for (int o = 0; o < m[k].nodes; o++)
                    cr_assert_leq(abs(per_node[n] - per_node[o]), 1, "%s D=%d", m[k].desc, D);
                if (D <= cores)
                    cr_assert_leq(maxc[n] - minc[n], 1, "%s D=%d node %d", m[k].desc, D, n);
            }
            free(cover);
            nt_topo_destroy(t);
        }
    }
}

// nt_kernel_default_threads: domains with cpus x the smallest cpu count among them, counted
// independently here from each domain's description.
Test(topo, kernel_default_threads)
{
    cr_assert_eq(nt_kernel_default_threads(NULL, NULL), 0);
    const char *descs[] = {"pack:2 numa:2 core:4 pu:1", "pack:3 numa:1 core:3 pu:2", NULL};
    const int doms[] = {0, 4, 6, 8};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 4; k++) {
            if (!descs[s] && doms[k] > 4)
                continue; // this machine: at most a few virtual domains
            nt_topo_t *t = load(doms[k], descs[s]);
            int with = 0, minc = 0;
            for (int d = 0; d < nt_topo_ndomains(t); d++) {
                nt_domain_info_t info;
                cr_assert_eq(nt_topo_domain(t, d, &info), NT_OK);
                if (info.ncpus > 0) {
                    with++;
                    minc = !minc || info.ncpus < minc ? info.ncpus : minc;
                }
            }
            int tpd = -1;
            cr_assert_eq(nt_kernel_default_threads(t, &tpd), with * minc, "%s, %d domains",
                         descs[s] ? descs[s] : "this machine", doms[k]);
            cr_assert_eq(tpd, minc);
            cr_assert_eq(nt_kernel_default_threads(t, NULL), with * minc);
            nt_topo_destroy(t);
        }
}
