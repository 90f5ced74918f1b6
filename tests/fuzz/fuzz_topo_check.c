#include "fuzz_topo_check.h"

static void check_domain(const nt_topo_t *t, int d)
{
    nt_domain_info_t info;
    FUZZ_CHECK(nt_topo_domain(t, d, &info) == NT_OK, "nt_topo_domain(%d) failed", d);
    FUZZ_CHECK(info.id == d && info.ncpus >= 0 && (info.ncpus == 0 || info.cpus),
               "domain %d: id %d, %d cpus", d, info.id, info.ncpus);
    for (int c = 0; c < info.ncpus; c++) {
        FUZZ_CHECK(info.cpus[c] >= 0 && (c == 0 || info.cpus[c] > info.cpus[c - 1]),
                   "domain %d: cpus not ascending at %d", d, c);
        int owner = -1;
        FUZZ_CHECK(nt_topo_cpu_domain(t, info.cpus[c], &owner) == NT_OK && owner >= 0 &&
                       owner <= d,
                   "cpu %d of domain %d: first domain %d", info.cpus[c], d, owner);
    }
}

static void check_topo(const nt_topo_t *t, const nt_topo_opts_t *opts)
{
    int nd = nt_topo_ndomains(t);
    FUZZ_CHECK(nd >= 1 && nt_topo_nphysical(t) >= 1, "%d domains, %d nodes", nd,
               nt_topo_nphysical(t));
    FUZZ_CHECK(opts->domains == 0 || nd == opts->domains, "%d domains, asked %d", nd,
               opts->domains);
    FUZZ_CHECK(nt_topo_get_kind(t) == NT_TOPO_SYNTHETIC, "kind %d", nt_topo_get_kind(t));
    const uint32_t *dist = nt_topo_distances(t);
    FUZZ_CHECK(dist != NULL, "no distance matrix");
    nt_distance_source src = nt_topo_distance_source(t);
    for (int i = 0; i < nd; i++) {
        check_domain(t, i);
        for (int k = 0; k < nd && src != NT_DISTANCE_HWLOC; k++)
            FUZZ_CHECK(dist[i * nd + k] == dist[k * nd + i] && dist[i * nd + k] > 0,
                       "%s distances: d[%d][%d] = %u, d[%d][%d] = %u",
                       nt_topo_distance_source_name(src), i, k, dist[i * nd + k], k, i,
                       dist[k * nd + i]);
    }
    nt_domain_info_t info;
    FUZZ_CHECK(nt_topo_domain(t, nd, &info) == NT_EINVAL, "domain %d past the end accepted", nd);
    FUZZ_CHECK(nt_bind_domain(t, 0) == NT_ENOTSUP, "binding to a synthetic domain accepted");
}

void fuzz_topo_load_and_check(const nt_topo_opts_t *opts)
{
    nt_topo_t *sentinel = (nt_topo_t *)&opts, *t = sentinel;
    nt_status st = nt_topo_load(opts, &t);
    if (st != NT_OK) {
        FUZZ_CHECK(st < 0 && t == sentinel, "status %d, output %p", st, (void *)t);
        const char *msg = nt_last_error();
        FUZZ_CHECK(msg && *msg, "failure without a message");
        return;
    }
    check_topo(t, opts);
    nt_topo_destroy(t);
}
