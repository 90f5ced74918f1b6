// `numatile topo` on tiers: the JSON fields against the library's answers for the same
// description, this machine's output without attributes (no table, null matrices), the pairs
// of a measured profile, the tier DIST through `plan`, and bad input.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numatile.h"
#include "tool_run.h"

#define CXL "tests/topologies/cxl-memory-only.xml"
#define GH "tests/topologies/grace-hopper-like.xml"

static json_int_t at(json_t *m, int i, int k)
{
    return json_integer_value(json_array_get(json_array_get(m, (size_t)i), (size_t)k));
}

Test(tiers_cli, json_is_the_librarys)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"topo", "--synthetic", CXL, "--json", NULL});
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = CXL}, &t), NT_OK);
    int D = nt_topo_ndomains(t);
    cr_assert_str_eq(json_string_value(json_object_get(j, "memattr_source")), "hwloc");
    cr_assert_str_eq(json_string_value(json_object_get(j, "pair_bandwidth_source")), "hwloc");
    cr_assert_str_eq(json_string_value(json_object_get(j, "cost_source")), "bandwidth");
    json_t *bw = json_object_get(j, "bandwidth_mibs"), *lat = json_object_get(j, "latency_ns");
    json_t *cost = json_object_get(j, "cost_distances");
    const uint32_t *c = nt_topo_cost_distances(t);
    for (int i = 0; i < D; i++) {
        json_t *row = json_array_get(json_object_get(j, "domain_list"), (size_t)i);
        nt_domain_memory_t m;
        nt_topo_domain_memory(t, i, &m);
        cr_assert_str_eq(json_string_value(json_object_get(row, "memory_kind")),
                         nt_mem_kind_name(m.kind));
        cr_assert_eq(json_integer_value(json_object_get(row, "initiator")), m.initiator);
        cr_assert_eq(json_integer_value(json_object_get(row, "bandwidth_mibs")),
                     (json_int_t)m.bandwidth_mibs);
        for (int k = 0; k < D; k++) {
            uint64_t b, l;
            nt_topo_pair_memattr(t, i, k, &b, &l);
            cr_assert_eq(at(bw, i, k), (json_int_t)b, "bandwidth %d->%d", i, k);
            cr_assert_eq(at(lat, i, k), (json_int_t)l);
            cr_assert(b || json_is_null(json_array_get(json_array_get(bw, (size_t)i),
                                                       (size_t)k)));
            cr_assert_eq(at(cost, i, k), (json_int_t)c[i * D + k]);
        }
    }
    nt_topo_destroy(t);
    json_decref(j);
    tool_result r = tool_run((const char *[]){"topo", "--synthetic", GH, NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "gpu") && strstr(r.out, "GPUMemory"), "%s", r.out);
    tool_result_free(&r);
}

// No attributes here: the same text as before (no table), null matrices, SLIT costs.
Test(tiers_cli, this_machine_without_attributes)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"topo", "--json", NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, "memattr_source")), "none");
    cr_assert(json_is_null(json_object_get(j, "bandwidth_mibs")));
    cr_assert(json_is_null(json_object_get(j, "latency_ns")));
    cr_assert_str_eq(json_string_value(json_object_get(j, "cost_source")), "distances");
    cr_assert(json_equal(json_object_get(j, "cost_distances"), json_object_get(j, "distances")));
    json_decref(j);
    tool_result r = tool_run((const char *[]){"topo", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert_null(strstr(r.out, "memory kinds"), "%s", r.out);
    tool_result_free(&r);
}

// A measured profile is the pairs' source without attributes; its matrix transposed
// (initiator x target).
Test(tiers_cli, profile_pairs)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(2, &p), NT_OK);
    for (int x = 0; x < 4; x++) {
        p->copy_gbs[x] = 1 + x;
        p->read_gbs[x] = 10 + x;
    }
    p->concurrent_gbs = p->migrate_gbs = 1;
    for (int d = 0; d < 2; d++) {
        p->fault_gbs[d] = 1;
        for (int k = 0; k < NT_TK_COUNT; k++)
            p->tile_seconds[k][d] = 1e-3;
    }
    p->nb = 64;
    p->ib = 32;
    p->nodes = 1;
    strcpy(p->host, "t");
    strcpy(p->kind, "virtual");
    strcpy(p->date, "2026-01-01T00:00:00Z");
    char path[] = "/tmp/nt_prof_XXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(nt_profile_save(p, path), NT_OK, "%s", nt_last_error());
    json_t *j = tool_json((const char *[]){"topo", "--domains", "2", "--profile", path, "--json",
                                           NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, "pair_bandwidth_source")), "profile");
    json_t *rd = json_object_get(json_object_get(j, "profile_pairs"), "read_gbs");
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            cr_assert_float_eq(json_real_value(json_array_get(json_array_get(rd, (size_t)i),
                                                              (size_t)k)),
                               p->read_gbs[k * 2 + i], 1e-12);
    json_decref(j);
    tool_result r = tool_run((const char *[]){"topo", "--profile", path, NULL});
    cr_assert_eq(r.status, 2, "a 2-domain profile on 1 domain: %s", r.err);
    tool_result_free(&r);
    remove(path);
    nt_profile_destroy(p);
}

// The GPU memory of the Grace Hopper-like machine holds no tile of a default tier plan.
Test(tiers_cli, plan_keeps_tiles_off_gpu_memory)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *specs[] = {"64@tier:bandwidth", "64@tier:bandwidth+gpu"};
    for (int k = 0; k < 2; k++) {
        json_t *j = tool_json((const char *[]){"plan", "--synthetic", GH, "--m", "512", "--n",
                                               "512", "--from", "64@bc2d:2x2", "--to", specs[k],
                                               "--dump", "--json", NULL});
        json_t *dst = json_object_get(j, "dst_map");
        int on_gpu = 0;
        for (size_t i = 0; i < json_array_size(dst); i++)
            for (size_t x = 0; x < json_array_size(json_array_get(dst, i)); x++) {
                json_int_t d = json_integer_value(json_array_get(json_array_get(dst, i), x));
                on_gpu += d == 1 || d == 3;
            }
        cr_assert_eq(on_gpu, k ? 64 : 0, "%s: %d tiles on GPU memory", specs[k], on_gpu);
        json_decref(j);
    }
    tool_result r = tool_run((const char *[]){"plan", "--m", "512", "--n", "512", "--from",
                                              "64@bc1d:1", "--to", "64@tier:fastest", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown policy"), "%s", r.err);
    tool_result_free(&r);
}
