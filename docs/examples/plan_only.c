// Example: plan a redistribution for a machine that is not this one (an hwloc synthetic
// description), without allocating any matrix memory, and compare the relabellings.
//
// Build against an installed numatile:
//   cc -std=c11 plan_only.c $(pkg-config --cflags --libs numatile) -o plan_only
// Usage: plan_only [SYNTHETIC-DESCRIPTION]   (default "pack:2 numa:2 core:4 pu:1")
// Exit status 0 when the plans agree with a brute-force search over every labelling.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile.h>

#define CHECK(call)                                                                           \
    do {                                                                                      \
        nt_status st_ = (call);                                                               \
        if (st_ != NT_OK) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    nt_strerror(st_), nt_last_error());                                       \
            exit(2);                                                                          \
        }                                                                                     \
    } while (0)

// Whole tiles only (M, N multiples of TILE), so bytes moved = tiles moved x tile bytes.
enum { M = 4096, N = 4096, TILE = 256, MAXD = 8 };

// Tiles whose source domain differs from sigma[target component]: the volume of a labelling,
// computed from the two maps alone (the oracle).
static int64_t volume_of(const nt_matrix_t *src, const nt_matrix_t *dst, const int *sigma)
{
    int64_t v = 0;
    for (int64_t x = 0; x < src->mt * src->nt; x++)
        v += src->owner[x] != sigma[dst->owner[x]];
    return v;
}

// Least volume over all labellings: permutations of perm[k..d-1], by swapping.
static int64_t best_volume(const nt_matrix_t *src, const nt_matrix_t *dst, int *perm, int k,
                           int d)
{
    if (k == d)
        return volume_of(src, dst, perm);
    int64_t best = INT64_MAX;
    for (int i = k; i < d; i++) {
        int tmp = perm[k];
        perm[k] = perm[i];
        perm[i] = tmp;
        int64_t v = best_volume(src, dst, perm, k + 1, d);
        best = v < best ? v : best;
        perm[i] = perm[k];
        perm[k] = tmp;
    }
    return best;
}

// The labellings compared, in the order of the table (the checks below index it).
static const nt_match_objective objs[] = {NT_MATCH_CANONICAL, NT_MATCH_VOLUME, NT_MATCH_STEPS,
                                          NT_MATCH_LEX, NT_MATCH_DISTANCE};
enum { NOBJ = sizeof objs / sizeof objs[0] };

static void print_machine(const nt_topo_t *t, const char *desc)
{
    int D = nt_topo_ndomains(t);
    printf("machine \"%s\": %s, %d domains\n", desc, nt_topo_kind_name(nt_topo_get_kind(t)),
           D);
    const uint32_t *dist = nt_topo_distances(t);
    for (int a = 0; a < D; a++) {
        printf("  ");
        for (int b = 0; b < D; b++)
            printf(" %3u", dist[a * D + b]);
        printf("\n");
    }
}

// Plan src -> dst with one labelling, print its row of the table, and check that the plan's
// count agrees with the maps: tiles moved = volume of its sigma. Returns failed checks.
static int plan_one(const nt_matrix_t *src, const nt_matrix_t *dst, nt_match_objective obj,
                    nt_plan_info_t *info)
{
    nt_plan_opts_t po = {.relabel = obj};
    nt_plan_t *p;
    CHECK(nt_plan_create(src, dst, NULL, &po, &p));
    CHECK(nt_plan_info(p, info));
    int nsig;
    const int *sigma = nt_plan_sigma(p, &nsig);
    printf("%-10s %12lld %8lld %10lld %14lld  ", nt_match_objective_name(obj),
           (long long)info->bytes_moved, (long long)info->volume_tiles, (long long)info->steps,
           (long long)info->dist_volume);
    for (int j = 0; j < nsig; j++)
        printf("%s%d", j ? "," : "", sigma[j]);
    printf("\n");
    int failures = 0;
    int64_t v = volume_of(src, dst, sigma);
    if (v != info->volume_tiles) {
        fprintf(stderr, "FAIL: %s: plan says %lld tiles move, the maps say %lld\n",
                nt_match_objective_name(obj), (long long)info->volume_tiles, (long long)v);
        failures++;
    }
    nt_plan_destroy(p);
    return failures;
}

// Oracle: brute force over all D! labellings for the least volume, then the plans of every
// labelling (info, in the order of objs) against it. Returns failed checks.
static int check_optimal(const nt_matrix_t *src, const nt_matrix_t *dst, int D,
                         const nt_plan_info_t *info)
{
    int failures = 0;
    int perm[MAXD];
    for (int j = 0; j < D; j++)
        perm[j] = j;
    int64_t best = best_volume(src, dst, perm, 0, D);
    printf("brute force over %d! labellings: least volume %lld tiles\n", D, (long long)best);
    if (info[1].volume_tiles != best) {
        fprintf(stderr, "FAIL: volume labelling moves %lld tiles, the optimum is %lld\n",
                (long long)info[1].volume_tiles, (long long)best);
        failures++;
    }
    // Steps and lex cannot beat the volume labelling on volume, nor lose to it on steps.
    for (int k = 0; k < NOBJ; k++)
        if (info[k].volume_tiles < best) {
            fprintf(stderr, "FAIL: %s moves less than the optimum\n",
                    nt_match_objective_name(objs[k]));
            failures++;
        }
    if (info[2].steps > info[1].steps || info[3].steps != info[2].steps) {
        fprintf(stderr, "FAIL: steps/lex labellings do not have the fewest steps\n");
        failures++;
    }
    return failures;
}

int main(int argc, char **argv)
{
    nt_topo_opts_t to = {.synthetic = argc > 1 ? argv[1] : "pack:2 numa:2 core:4 pu:1"};
    nt_topo_t *t;
    CHECK(nt_topo_load(&to, &t));
    int D = nt_topo_ndomains(t);
    if (D > MAXD) {
        fprintf(stderr, "plan_only: %d domains; the brute force stops at %d\n", D, MAXD);
        return 2;
    }
    print_machine(t, to.synthetic);

    // Source: ChunkSet on the D domains; target: 1D block-cyclic over the D domains. The
    // matrices have no memory (NT_MATRIX_NOALLOC): planning reads only their tile maps.
    char spec_src[64], spec_dst[64];
    snprintf(spec_src, sizeof spec_src, "chunk:%d:3", D);
    snprintf(spec_dst, sizeof spec_dst, "bc1d:%d", D);
    nt_matrix_shape_t sh = {M, N, TILE, TILE, sizeof(double)};
    nt_matrix_t *src, *dst;
    CHECK(nt_matrix_create_spec(t, &sh, spec_src, 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &src));
    CHECK(nt_matrix_create_spec(t, &sh, spec_dst, 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &dst));
    printf("%lld x %lld tiles, %s -> %s\n", (long long)src->mt, (long long)src->nt, spec_src,
           spec_dst);

    nt_plan_info_t info[NOBJ];
    int failures = 0;
    printf("%-10s %12s %8s %10s %14s  %s\n", "labelling", "bytes moved", "tiles", "steps",
           "dist-volume", "sigma");
    for (int k = 0; k < NOBJ; k++)
        failures += plan_one(src, dst, objs[k], &info[k]);
    failures += check_optimal(src, dst, D, info);

    nt_matrix_destroy(src);
    nt_matrix_destroy(dst);
    nt_topo_destroy(t);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
