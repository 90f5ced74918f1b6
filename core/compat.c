// The old names of renamed public functions, kept for one release (NEWS.md lists them): each
// forwards to its new name, so programs built against the previous release still link.
#include "numatile/dist.h"
#include "numatile/profile.h"
#include "numatile/topo.h"

const char *nt_topo_dist_source_name(nt_distance_source src)
{
    return nt_topo_distance_source_name(src);
}

nt_status nt_tilemap_from_file(const char *path, int64_t mt, int64_t nt, int ndomains,
                               nt_tilemap_t **out)
{
    return nt_tilemap_read(path, mt, nt, ndomains, out);
}

nt_status nt_cost_transfer(const int64_t *counts, int p_ini, int p_tar, int p_dom,
                           const int *sigma, int64_t *q)
{
    return nt_transfer_matrix(counts, p_ini, p_tar, p_dom, sigma, q);
}

nt_status nt_cost_of_transfer(const int64_t *q, int p, const int64_t *dist, nt_cost_t *out)
{
    return nt_transfer_cost(q, p, dist, out);
}

nt_status nt_profile_load(const char *path, const nt_topo_t *topo, nt_profile_t **out)
{
    return nt_profile_read(path, topo, out);
}
