// The old names kept for one release after a rename (NEWS.md): each must still compile, link
// and give exactly what its new name gives.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numatile/dist.h"
#include "numatile/plan.h"
#include "numatile/profile.h"
#include "numatile/topo.h"

// The point of this file is calling the deprecated names.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

Test(compat, distance_names_equal_new_ones)
{
    cr_assert_eq(NT_DIST_HWLOC, NT_DISTANCE_HWLOC);
    cr_assert_eq(NT_DIST_LIBNUMA, NT_DISTANCE_LIBNUMA);
    cr_assert_eq(NT_DIST_HIERARCHY, NT_DISTANCE_HIERARCHY);
    cr_assert_eq(NT_DIST_FLAT, NT_DISTANCE_FLAT);
    for (int s = NT_DISTANCE_HWLOC; s <= NT_DISTANCE_FLAT + 1; s++) {
        nt_dist_source old = (nt_dist_source)s;
        cr_assert_str_eq(nt_topo_dist_source_name(old), nt_topo_distance_source_name(old));
    }
}

Test(compat, cost_functions_forward)
{
    // 2 sources x 3 components on 3 domains, a labelling and distances.
    const int64_t counts[6] = {5, 0, 7, 1, 9, 2};
    const int sigma[3] = {2, 0, 1};
    const int64_t dist[9] = {0, 3, 5, 3, 0, 4, 5, 4, 0};
    int64_t q_new[9], q_old[9];
    cr_assert_eq(nt_transfer_matrix(counts, 2, 3, 3, sigma, q_new), NT_OK);
    cr_assert_eq(nt_cost_transfer(counts, 2, 3, 3, sigma, q_old), NT_OK);
    cr_assert_arr_eq(q_new, q_old, sizeof q_new);
    nt_cost_t c_new, c_old;
    cr_assert_eq(nt_transfer_cost(q_new, 3, dist, &c_new), NT_OK);
    cr_assert_eq(nt_cost_of_transfer(q_old, 3, dist, &c_old), NT_OK);
    cr_assert_eq(c_new.volume, c_old.volume);
    cr_assert_eq(c_new.steps, c_old.steps);
    cr_assert_eq(c_new.dist_volume, c_old.dist_volume);
    // Bad input is refused the same way under both names.
    cr_assert_eq(nt_cost_transfer(NULL, 2, 3, 3, sigma, q_old), NT_EINVAL);
}

Test(compat, tilemap_reader_forwards)
{
    char path[] = "/tmp/nt_compat_mapXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("0 1\n1 0\n", f);
    fclose(f);
    nt_tilemap_t *a = NULL, *b = NULL;
    cr_assert_eq(nt_tilemap_read(path, 2, 2, 0, &a), NT_OK);
    cr_assert_eq(nt_tilemap_from_file(path, 2, 2, 0, &b), NT_OK);
    cr_assert_eq(a->ndomains, b->ndomains);
    cr_assert_arr_eq(a->owner, b->owner, 4 * sizeof a->owner[0]);
    nt_tilemap_destroy(a);
    nt_tilemap_destroy(b);
    cr_assert_eq(nt_tilemap_from_file(path, 3, 2, 0, &b), NT_EINVAL);
    unlink(path);
}

Test(compat, stats_field_names_alias)
{
    nt_exec_stats_t s;
    memset(&s, 0, sizeof s);
    s.alloc_seconds = 1.5;
    s.fault_seconds = 0.25;
    cr_assert_eq(s.seconds_alloc, 1.5);
    cr_assert_eq(s.seconds_fault, 0.25);
    nt_exec_stats_t t = {.seconds_alloc = 2.0};
    cr_assert_eq(t.alloc_seconds, 2.0);
}

Test(compat, profile_reader_forwards)
{
    // Both names refuse the same unreadable file the same way.
    nt_profile_t *a = NULL, *b = NULL;
    nt_status sa = nt_profile_read("/nonexistent/p.json", NULL, &a);
    nt_status sb = nt_profile_load("/nonexistent/p.json", NULL, &b);
    cr_assert_neq(sa, NT_OK);
    cr_assert_eq(sa, sb);
    cr_assert_null(a);
    cr_assert_null(b);
}
