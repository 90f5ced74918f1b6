// Entry points of the heterogeneous partitioners: names, dispatch, tile maps, evaluation and
// the thesis platforms.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hetero_int.h"

static const char *const names[] = {"column", "rrp", "snrrp", "nrrp", "sfcp", "exact"};

const char *nt_hetero_algo_name(nt_hetero_algo algo)
{
    return (unsigned)algo < sizeof names / sizeof *names ? names[algo] : "unknown";
}

nt_status nt_hetero_algo_parse(const char *name, nt_hetero_algo *out)
{
    if (!name || !out)
        return nt_fail(NT_EINVAL, "hetero: algorithm name or output is NULL");
    for (unsigned k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (nt_hetero_algo)k;
            return NT_OK;
        }
    return nt_fail(NT_EINVAL, "hetero: unknown algorithm '%s' (column, rrp, snrrp, nrrp, sfcp, "
                              "exact)", name);
}

double nt_hetero_guarantee(nt_hetero_algo algo)
{
    switch (algo) {
    case NT_HETERO_COLUMN: return 1.75;
    case NT_HETERO_RRP: return 1.5;
    case NT_HETERO_SNRRP: return sqrt(1.5);
    case NT_HETERO_NRRP: return 2 / sqrt(3.0);
    case NT_HETERO_SFCP: return 3 * sqrt(3.0) / sqrt(11.0);
    case NT_HETERO_EXACT: return 1.5;
    }
    return 0;
}

nt_status nt_hetero_partition(nt_hetero_algo algo, int m, const double *speeds,
                              nt_hetero_zone_t *zones)
{
    if (algo == NT_HETERO_SFCP)
        return nt_fail(NT_ENOTSUP, "hetero: sfcp is discrete only (use nt_hetero_sfcp)");
    if ((unsigned)algo > NT_HETERO_EXACT)
        return nt_fail(NT_EINVAL, "hetero: unknown algorithm %d", (int)algo);
    if (!zones)
        return nt_fail(NT_EINVAL, "hetero: zones is NULL");
    nt_hetero_zone_t *tmp = malloc((size_t)(m > 0 ? m : 1) * sizeof *tmp);
    if (!tmp)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    het_list L;
    nt_status st = nt_het_list_init(m, speeds, tmp, &L);
    if (st) {
        free(tmp);
        return st;
    }
    het_rect unit = {0, 0, 1, 1};
    switch (algo) {
    case NT_HETERO_COLUMN: st = nt_het_column(&L); break;
    case NT_HETERO_RRP: nt_het_rrp(&L, 0, L.m, unit); break;
    case NT_HETERO_SNRRP: nt_het_snrrp(&L, 0, L.m, unit); break;
    case NT_HETERO_NRRP: nt_het_nrrp(&L, 0, L.m, unit); break;
    default: st = nt_het_exact(&L); break;
    }
    if (st == NT_OK)
        memcpy(zones, tmp, (size_t)m * sizeof *zones);
    nt_het_list_free(&L);
    free(tmp);
    return st;
}

// Owner array of an algorithm's tile map (n * n entries, caller's).
static nt_status fill_map(nt_hetero_algo algo, nt_hetero_round mode, int m,
                          const double *speeds, int64_t n, int *owner, double *ccost)
{
    int64_t *counts = malloc((size_t)(m > 0 ? m : 1) * sizeof *counts);
    nt_hetero_zone_t *zones = malloc((size_t)(m > 0 ? m : 1) * sizeof *zones);
    nt_status st = counts && zones ? NT_OK : nt_fail(NT_ENOMEM, "hetero: out of memory");
    if (st == NT_OK)
        st = nt_hetero_counts(m, speeds, n, counts);
    if (st == NT_OK && algo == NT_HETERO_SFCP) {
        st = nt_hetero_sfcp(m, counts, n, owner);
    } else if (st == NT_OK) {
        st = nt_hetero_partition(algo, m, speeds, zones);
        if (st == NT_OK)
            st = nt_hetero_discretize(m, zones, counts, n, mode, owner);
        if (st == NT_OK && ccost)
            *ccost = nt_hetero_continuous_cost(m, zones);
    }
    free(counts), free(zones);
    return st;
}

nt_status nt_hetero_tilemap(nt_hetero_algo algo, nt_hetero_round mode, int m,
                            const double *speeds, int64_t n, nt_tilemap_t **out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "hetero: out is NULL");
    if (m < 1)
        return nt_fail(NT_EINVAL, "hetero: m = %d, need at least one speed", m);
    nt_tilemap_t *map;
    nt_status st = nt_tilemap_create(n, n, m, &map);
    if (st)
        return st;
    st = fill_map(algo, mode, m, speeds, n, map->owner, NULL);
    if (st) {
        nt_tilemap_destroy(map);
        return st;
    }
    *out = map;
    return NT_OK;
}

nt_status nt_hetero_evaluate(nt_hetero_algo algo, nt_hetero_round mode, int m,
                             const double *speeds, int64_t n, nt_hetero_eval_t *out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "hetero: out is NULL");
    nt_tilemap_t *map;
    nt_status st = nt_tilemap_create(n, n, m > 0 ? m : 1, &map);
    if (st)
        return st;
    double *s = malloc((size_t)(m > 0 ? m : 1) * sizeof *s);
    int64_t *tiles = malloc((size_t)(m > 0 ? m : 1) * sizeof *tiles);
    nt_hetero_eval_t e = {0};
    st = s && tiles ? NT_OK : nt_fail(NT_ENOMEM, "hetero: out of memory");
    if (st == NT_OK)
        st = nt_hetero_normalize(m, speeds, s);
    if (st == NT_OK)
        st = fill_map(algo, mode, m, speeds, n, map->owner, &e.continuous_cost);
    if (st == NT_OK)
        st = nt_hetero_discrete_cost(m, n, map->owner, &e.cost, NULL, tiles);
    if (st == NT_OK) {
        double n2 = (double)n * (double)n;
        for (int i = 0; i < m; i++) {
            e.lower_bound += 2 * sqrt(s[i]);
            if (s[i] > 0 && tiles[i] / (s[i] * n2) > e.makespan_ratio)
                e.makespan_ratio = (double)tiles[i] / (s[i] * n2);
        }
        if (algo == NT_HETERO_SFCP)
            e.continuous_cost = (double)e.cost / (double)n;
        e.continuous_ratio = e.continuous_cost / e.lower_bound;
        e.ratio = (double)e.cost / ((double)n * e.lower_bound);
        *out = e;
    }
    free(s), free(tiles);
    nt_tilemap_destroy(map);
    return st;
}

nt_status nt_hetero_platform(const char *name, int cap, int *m, double *speeds)
{
    if (!name || !m || !speeds)
        return nt_fail(NT_EINVAL, "hetero: platform name or outputs NULL");
    int fast, slow;
    if (strcasecmp(name, "homo-5") == 0)
        fast = 0, slow = 5;
    else if (strcasecmp(name, "homo-20") == 0)
        fast = 0, slow = 20;
    else if (strcasecmp(name, "hetero-1") == 0)
        fast = 1, slow = 4;
    else if (strcasecmp(name, "hetero-4") == 0)
        fast = 4, slow = 16;
    else
        return nt_fail(NT_EINVAL, "hetero: unknown platform '%s' (homo-5, homo-20, hetero-1, "
                                  "hetero-4)", name);
    if (cap < fast + slow)
        return nt_fail(NT_EINVAL, "hetero: platform %s has %d domains, cap is %d", name,
                       fast + slow, cap);
    // A GPU is 50 times a CPU core (Lambert §1.3.1).
    for (int i = 0; i < fast + slow; i++)
        speeds[i] = i < fast ? 50 : 1;
    *m = fast + slow;
    return NT_OK;
}

nt_status nt_hetero_speeds_from_cpus(int m, const int *ncpus, double *speeds)
{
    if (m < 1 || !ncpus || !speeds)
        return nt_fail(NT_EINVAL, "hetero: m = %d < 1 or a NULL array", m);
    double *tmp = malloc((size_t)m * sizeof *tmp);
    if (!tmp)
        return nt_fail(NT_ENOMEM, "hetero: out of memory");
    for (int i = 0; i < m; i++)
        tmp[i] = ncpus[i];
    nt_status st = nt_hetero_normalize(m, tmp, tmp);
    if (st == NT_OK)
        memcpy(speeds, tmp, (size_t)m * sizeof *speeds);
    free(tmp);
    return st;
}
