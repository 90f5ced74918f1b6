// Tier placements (numatile/tiers.h) checked by invariants against tiers written down here
// from the fixtures' attributes: only candidate domains hold tiles, no domain past its room,
// tiers filled in order (a tile reaches tier k only when every domain of the earlier tiers has
// less room left than it needs), round-robin balance inside a tier; and the spec grammar,
// the interleave weights and bad input.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"

#define CXL "tests/topologies/cxl-memory-only.xml"
#define GH "tests/topologies/grace-hopper-like.xml"
#define SLIT "tests/topologies/slit-hmat-disagree.xml"

static nt_topo_t *load(const char *xml)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = xml}, &t), NT_OK, "%s",
                 nt_last_error());
    return t;
}

static uint64_t tile_bytes(const nt_matrix_shape_t *s, int64_t i, int64_t j)
{
    int64_t r = s->m - i * s->mb < s->mb ? s->m - i * s->mb : s->mb;
    int64_t c = s->n - j * s->nb < s->nb ? s->n - j * s->nb : s->nb;
    uint64_t b = (uint64_t)r * (uint64_t)c * s->elem_size, pg = nt_mem_page_size();
    return (b + pg - 1) / pg * pg;
}

// The invariants of a tier map; tier_of[d] < 0: not a candidate. Returns the tiers used.
static int check_map(const nt_topo_t *t, const nt_matrix_shape_t *s, const char *spec,
                     const int *tier_of)
{
    nt_tier_opts_t o;
    cr_assert_eq(nt_tier_parse(spec, &o), NT_OK, "%s", nt_last_error());
    nt_tilemap_t *m;
    cr_assert_eq(nt_tier_tilemap(t, s, &o, &m), NT_OK, "%s: %s", spec, nt_last_error());
    int D = nt_topo_ndomains(t), top = 0, used_tiers = 0;
    uint64_t room[16], left[16];
    int64_t count[16] = {0};
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        room[d] = o.limit_bytes && o.limit_bytes < info.memory_bytes ? o.limit_bytes
                                                                      : info.memory_bytes;
        left[d] = room[d];
    }
    for (int64_t x = 0; x < m->mt * m->nt; x++) {
        int d = m->owner[x];
        cr_assert(tier_of[d] >= 0, "%s: tile %lld on domain %d, not a candidate", spec,
                  (long long)x, d);
        cr_assert_geq(tier_of[d], top, "%s: tile %lld back on tier %d after %d", spec,
                      (long long)x, tier_of[d], top);
        top = tier_of[d];
        used_tiers |= 1 << top;
        uint64_t b = tile_bytes(s, x / m->nt, x % m->nt);
        cr_assert_geq(left[d], b, "%s: domain %d over its room", spec, d);
        left[d] -= b;
        count[d]++;
    }
    // Spill only when full: every domain of an earlier tier has less room left than the tile.
    for (int64_t x = 0; x < m->mt * m->nt; x++)
        for (int e = 0; e < D; e++)
            if (tier_of[e] >= 0 && tier_of[e] < tier_of[m->owner[x]])
                cr_assert_lt(left[e], tile_bytes(s, x / m->nt, x % m->nt),
                             "%s: tile %lld spilled while domain %d had room", spec,
                             (long long)x, e);
    // Round robin: the domains of the first tier differ by at most one tile.
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++)
            if (tier_of[a] == 0 && tier_of[b] == 0)
                cr_assert_leq(llabs(count[a] - count[b]), 1, "%s: %d vs %d", spec, a, b);
    nt_tilemap_destroy(m);
    return used_tiers;
}

static const nt_matrix_shape_t big = {100000, 100000, 10000, 10000, 8}; // 80 GB
static const nt_matrix_shape_t small = {20000, 20000, 10000, 10000, 8}; // 3.2 GB

Test(tiers_place, cxl_policies)
{
    nt_topo_t *t = load(CXL);
    // DRAM (domains 0, 1: 100 GB/s) before CXL (2, 3: 30 GB/s); capacity: CXL's 64 GiB first.
    cr_assert_eq(check_map(t, &big, "tier:bandwidth", (int[]){0, 0, 1, 1}), 3, "spills");
    cr_assert_eq(check_map(t, &small, "tier:bandwidth", (int[]){0, 0, 1, 1}), 1, "fits");
    cr_assert_eq(check_map(t, &small, "tier:bandwidth:1G", (int[]){0, 0, 1, 1}), 3);
    cr_assert_eq(check_map(t, &big, "tier:capacity", (int[]){1, 1, 0, 0}), 1);
    cr_assert_eq(check_map(t, &small, "tier:dram", (int[]){0, 0, -1, -1}), 1);
    // DRAM only cannot hold 80 GB: refused, the output untouched.
    nt_tilemap_t *m = (nt_tilemap_t *)&m;
    nt_tier_opts_t o = {.policy = NT_TIER_DRAM};
    cr_assert_eq(nt_tier_tilemap(t, &big, &o, &m), NT_ENOSPACE);
    cr_assert_eq(m, (nt_tilemap_t *)&m);
    cr_assert(strstr(nt_last_error(), "tier:dram"), "%s", nt_last_error());
    nt_topo_destroy(t);
}

// GPU memory never holds tiles unless asked, whatever its bandwidth (here above DRAM's).
Test(tiers_place, grace_hopper_gpu_memory_only_when_asked)
{
    nt_topo_t *t = load(GH);
    const char *specs[] = {"tier:bandwidth", "tier:capacity", "tier:dram"};
    for (int k = 0; k < 3; k++)
        check_map(t, &big, specs[k], (int[]){0, -1, 0, -1});
    cr_assert_eq(check_map(t, &big, "tier:bandwidth+gpu", (int[]){1, 0, 1, 0}), 1);
    cr_assert_eq(check_map(t, &big, "tier:capacity+gpu:30G", (int[]){0, 1, 0, 1}), 3);
    nt_topo_destroy(t);
}

// Equal bandwidths (one tier), and a description without attributes (the kinds rank: all
// DRAM, one tier): plain round robin.
Test(tiers_place, one_tier_is_round_robin)
{
    nt_topo_t *t = load(SLIT);
    cr_assert_eq(check_map(t, &small, "tier:bandwidth", (int[]){0, 0, 0, 0}), 1);
    nt_topo_destroy(t);
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = "pack:2 numa:2 core:1 pu:1"}, &t),
                 NT_OK);
    nt_matrix_shape_t s = {1000, 1000, 100, 100, 8};
    cr_assert_eq(check_map(t, &s, "tier:bandwidth", (int[]){0, 0, 0, 0}), 1);
    nt_topo_destroy(t);
}

// Through the matrix constructor, as the tool's --to/--dist specs reach it.
Test(tiers_place, matrix_spec_takes_tier)
{
    nt_topo_t *t = load(CXL);
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(t, &small, "tier:bandwidth", 0, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_OK, "%s", nt_last_error());
    for (int64_t x = 0; x < A->mt * A->nt; x++)
        cr_assert(A->owner[x] == 0 || A->owner[x] == 1);
    nt_matrix_destroy(A);
    cr_assert_eq(nt_matrix_create_spec(NULL, &small, "tier:bandwidth", 4, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, &A), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "needs a topology"));
    nt_topo_destroy(t);
}

Test(tiers_place, spec_grammar)
{
    static const struct {
        const char *s;
        nt_tier_policy p;
        unsigned flags;
        uint64_t limit;
    } ok[] = {{"tier:bandwidth", NT_TIER_BANDWIDTH, 0, 0},
              {"tier:capacity+gpu", NT_TIER_CAPACITY, NT_TIER_ALLOW_GPU, 0},
              {"tier:dram:512M", NT_TIER_DRAM, 0, 512ull << 20},
              {"tier:bandwidth+gpu:3G", NT_TIER_BANDWIDTH, NT_TIER_ALLOW_GPU, 3ull << 30},
              {"tier:bandwidth:4096", NT_TIER_BANDWIDTH, 0, 4096}};
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
        nt_tier_opts_t o;
        cr_assert_eq(nt_tier_parse(ok[k].s, &o), NT_OK, "%s: %s", ok[k].s, nt_last_error());
        cr_assert_eq(o.policy, ok[k].p);
        cr_assert_eq(o.flags, ok[k].flags);
        cr_assert_eq(o.limit_bytes, ok[k].limit);
    }
    const char *bad[] = {"tier:", "tier:fast", "tier:bandwidth+cpu", "tier:bandwidth:0",
                         "tier:bandwidth:12X", "tier:bandwidth:", "bc2d:2x2", "tier:dram+gpux",
                         "tier:bandwidth:99999999999999999999G", "tier:bandwidth:-5"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        nt_tier_opts_t o = {.limit_bytes = 7};
        cr_assert_eq(nt_tier_parse(bad[k], &o), NT_EINVAL, "%s accepted", bad[k]);
        cr_assert_eq(o.limit_bytes, 7, "%s: output touched", bad[k]);
    }
    cr_assert_eq(nt_tier_parse(NULL, &(nt_tier_opts_t){0}), NT_EINVAL);
    cr_assert_str_eq(nt_tier_policy_name(NT_TIER_CAPACITY), "capacity");
    cr_assert_str_eq(nt_tier_policy_name((nt_tier_policy)9), "unknown");
}

Test(tiers_place, bad_arguments)
{
    nt_topo_t *t = load(CXL);
    nt_tilemap_t *m;
    nt_tier_opts_t o = {.policy = (nt_tier_policy)7};
    cr_assert_eq(nt_tier_tilemap(t, &small, &o, &m), NT_EINVAL);
    o = (nt_tier_opts_t){.flags = 8};
    cr_assert_eq(nt_tier_tilemap(t, &small, &o, &m), NT_EINVAL);
    cr_assert_eq(nt_tier_tilemap(NULL, &small, NULL, &m), NT_EINVAL);
    cr_assert_eq(nt_tier_tilemap(t, NULL, NULL, &m), NT_EINVAL);
    nt_matrix_shape_t s = {0, 10, 1, 1, 8};
    cr_assert_eq(nt_tier_tilemap(t, &s, NULL, &m), NT_EINVAL);
    double w[4];
    cr_assert_eq(nt_tier_weights(t, 2, 0, w), NT_EINVAL, "domain 2 has no cpus");
    cr_assert_eq(nt_tier_weights(t, 9, 0, w), NT_EINVAL);
    cr_assert_eq(nt_tier_weights(t, 0, 4, w), NT_EINVAL);
    nt_topo_destroy(t);
}

// Weights are the bandwidths from the initiator as shares; GPU memory only when asked.
Test(tiers_place, interleave_weights_by_bandwidth)
{
    const char *files[] = {CXL, GH};
    for (int f = 0; f < 2; f++) {
        nt_topo_t *t = load(files[f]);
        for (unsigned flags = 0; flags < 2; flags++) {
            double w[4], bw[4], sum = 0;
            int init = f == 0 ? 1 : 2; // a domain with cpus of each fixture
            cr_assert_eq(nt_tier_weights(t, init, flags, w), NT_OK);
            for (int d = 0; d < 4; d++) {
                uint64_t b;
                nt_domain_memory_t m;
                nt_topo_pair_memattr(t, init, d, &b, NULL);
                nt_topo_domain_memory(t, d, &m);
                bw[d] = m.kind == NT_MEMKIND_GPU && !flags ? 0 : (double)b;
                sum += bw[d];
            }
            for (int d = 0; d < 4; d++)
                cr_assert_float_eq(w[d], bw[d] / sum, 1e-12, "%s flags %u domain %d",
                                   files[f], flags, d);
        }
        nt_topo_destroy(t);
    }
}
