// Placing a heterogeneous partition: a component built for one speed may only go to a domain
// of that speed, so relabelling is a matching with forbidden pairs (numatile/match.h).
#include <math.h>
#include <stdlib.h>

#include "hetero_int.h"

nt_status nt_hetero_allowed(int p_dom, const double *dom_speeds, int p_tar,
                            const double *comp_speeds, unsigned char *allowed)
{
    if (!dom_speeds || !comp_speeds || !allowed)
        return nt_fail(NT_EINVAL, "hetero: NULL speeds or mask");
    if (p_dom < 1 || p_tar < 1 || p_tar > p_dom)
        return nt_fail(NT_EINVAL, "hetero: need 1 <= p_tar (%d) <= p_dom (%d)", p_tar, p_dom);
    for (int k = 0; k < p_dom; k++)
        for (int j = 0; j < p_tar; j++) {
            double a = dom_speeds[k], b = comp_speeds[j];
            allowed[(size_t)k * (size_t)p_tar + (size_t)j] =
                fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
        }
    return NT_OK;
}

nt_status nt_hetero_place(const nt_tilemap_t *current, const nt_tilemap_t *partition,
                          const double *speeds, nt_match_objective obj, int *sigma,
                          nt_cost_t *cost)
{
    if (!current || !partition || !speeds || !sigma)
        return nt_fail(NT_EINVAL, "hetero: NULL map, speeds or sigma");
    int p_ini = current->ndomains, p = partition->ndomains;
    if (p_ini > p)
        return nt_fail(NT_EINVAL, "hetero: the current map uses %d domains, the partition "
                                  "only %d", p_ini, p);
    size_t np;
    if (!nt_mul_size((size_t)p, (size_t)p, &np))
        return nt_fail(NT_ERANGE, "hetero: %d domains overflow", p);
    int64_t *counts = malloc(np * sizeof *counts);
    unsigned char *allowed = malloc(np);
    nt_status st = counts && allowed ? NT_OK : nt_fail(NT_ENOMEM, "hetero: out of memory");
    if (st == NT_OK)
        st = nt_counts_tilemaps(current, partition, NULL, counts, NULL);
    if (st == NT_OK)
        st = nt_hetero_allowed(p, speeds, p, speeds, allowed);
    if (st == NT_OK) {
        nt_match_problem_t prob = {.p_ini = p_ini, .p_tar = p, .p_dom = p, .counts = counts,
                                   .allowed = allowed};
        st = nt_match_solve(&prob, obj, sigma, cost);
    }
    free(counts), free(allowed);
    return st;
}
