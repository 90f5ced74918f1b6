// Impossible requests refused at once (exit 2, a message naming the need, well under a second):
// huge matrices and plans, huge synthetic machines, and binary garbage echoed escaped.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt_core.h"
#include "numatile.h"
#include "tool_run.h"

// Generous bound: the point is "not tens of seconds", not a benchmark on a shared machine.
#define FAST_SECONDS 5.0

static tool_result run_fast(const char *const *args)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    double t0 = nt_now();
    tool_result r = tool_run(args);
    double dt = nt_now() - t0;
    cr_assert_lt(dt, FAST_SECONDS, "%s took %.1f s", args[0], dt);
    return r;
}

static void expect_refused(const char *const *args, const char *needle)
{
    tool_result r = run_fast(args);
    cr_assert_eq(r.status, 2, "%s: exit %d, stderr: %s", args[0], r.status, r.err);
    cr_assert_not_null(strstr(r.err, needle), "stderr lacks '%s': %s", needle, r.err);
    tool_result_free(&r);
}

Test(limits, huge_redist_refused_before_allocating)
{
    expect_refused((const char *const[]){"redist", "--m", "2000000", "--n", "2000000", "--from",
                                         "1000x1000@bc2d:1x1", "--to", "1000x1000@bc1d:2",
                                         NULL},
                   "GiB free");
}

Test(limits, huge_gemm_refused_before_allocating)
{
    expect_refused((const char *const[]){"gemm", "--n", "2000000", "--nb", "1000", "--dist",
                                         "bc2d:1x1", NULL},
                   "needs ");
}

// A map that needs its table (random) is refused; two block-cyclic ones are planned from their
// grids (nt_plan_create_grids) with no table at all: 10^12 source tiles in well under a second.
Test(limits, huge_plan_refused_before_building_maps)
{
    expect_refused((const char *const[]){"plan", "--m", "1000000", "--n", "1000000", "--from",
                                         "1x1@bc2d:1x1", "--to", "2x2@random:2", NULL},
                   "GiB free");
    tool_result r = run_fast((const char *const[]){"plan", "--m", "1000000", "--n", "1000000",
                                                   "--from", "1x1@bc2d:1x1", "--to",
                                                   "2x2@bc1d:2", NULL});
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.out, "periodic"), "%s", r.out);
    tool_result_free(&r);
}

Test(limits, library_matrix_names_need_and_room)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(NULL, &t), NT_OK);
    nt_tilemap_t *map;
    cr_assert_eq(nt_tilemap_from_spec("bc2d:1x1", 1000, 1000, 0, &map), NT_OK);
    nt_matrix_shape_t s = {1000000, 1000000, 1000, 1000, 8};
    nt_matrix_t *A = NULL;
    double t0 = nt_now();
    cr_assert_eq(nt_matrix_create(t, &s, map, NT_LAYOUT_TILE, 0, &A), NT_ENOSPACE);
    cr_assert_lt(nt_now() - t0, FAST_SECONDS);
    cr_assert_null(A);
    cr_assert_not_null(strstr(nt_last_error(), "on domain 0, node"), "%s", nt_last_error());
    cr_assert_str_eq(nt_strerror(NT_ENOSPACE), "not enough memory on this machine");
    uint64_t small[1] = {4096};
    cr_assert_eq(nt_mem_room(t, nt_topo_ndomains(t) == 1 ? small : NULL, 4096, NULL), NT_OK);
    cr_assert_eq(nt_mem_room(NULL, NULL, UINT64_MAX, "x"), NT_ENOSPACE);
    cr_assert_eq(nt_mem_room(NULL, small, 0, "x"), NT_EINVAL);
    nt_tilemap_destroy(map);
    nt_topo_destroy(t);
}

Test(limits, huge_synthetic_machines_refused)
{
    expect_refused((const char *const[]){"topo", "--synthetic", "pack:1000 core:100 pu:1", NULL},
                   "100000 processing units");
    expect_refused((const char *const[]){"topo", "--synthetic", "pack:100 numa:100 core:2 pu:1",
                                         NULL},
                   "10000 NUMA nodes");
    expect_refused((const char *const[]){"plan", "--m", "8", "--n", "8", "--from", "2@bc1d:2",
                                         "--to", "2@bc1d:2", "--synthetic",
                                         "pack:99999999999999999999999 pu:1", NULL},
                   "limits are 4096 nodes");
    nt_topo_opts_t o = {.synthetic = "pack:2 [numa] core:2 pu:2"};
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    cr_assert_eq(nt_topo_ndomains(t), 2);
    nt_topo_destroy(t);
    // Found while fuzzing (corpus/topo_synthetic/regress-bare-arity, -hex-arity): bare arities
    // and hexadecimal ones, which hwloc reads, went past the sizer and hung hwloc.
    expect_refused((const char *const[]){"topo", "--synthetic", "1000000", NULL},
                   "1000000 processing units");
    expect_refused((const char *const[]){"topo", "--synthetic", "5000 2", NULL},
                   "5000 NUMA nodes");
    expect_refused((const char *const[]){"topo", "--synthetic", "pack:0x10000 pu:4", NULL},
                   "262144 processing units");
    o.synthetic = "3 2 2"; // bare arities: hwloc puts the 6 NUMA nodes on the second level
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    cr_assert_eq(nt_topo_ndomains(t), 6);
    nt_topo_destroy(t);
    o.synthetic = "pack:0x3 pu:010"; // hwloc's base 0: 3 x 8 PUs
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK);
    nt_domain_info_t info;
    cr_assert_eq(nt_topo_domain(t, 0, &info), NT_OK);
    cr_assert_eq(info.ncpus, 24);
    nt_topo_destroy(t);
    o = (nt_topo_opts_t){.domains = 4097};
    cr_assert_eq(nt_topo_load(&o, &t), NT_ERANGE);
}

// An hwloc XML file of `numa` packages, each a NUMA node and `pus` PUs (type spelled `pu`).
static void write_xml(char *path, int numa, int pus, const char *pu)
{
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\">\n", f);
    for (int i = 0, p = 0; i < numa; i++) {
        fprintf(f, "<object type=\"Package\" os_index=\"%d\"><object subtype=\"PU\" "
                   "type=\"NUMANode\" os_index=\"%d\"/>", i, i);
        for (int k = 0; k < pus; k++, p++)
            fprintf(f, "<object os_index='%d'\ntype = '%s'/>", p, pu);
        fputs("</object>\n", f);
    }
    fputs("</object>\n</topology>\n", f);
    fclose(f);
}

Test(limits, huge_xml_machines_refused)
{
    char numa[] = "/tmp/nt_limits_XXXXXX.xml", pus[] = "/tmp/nt_limits_XXXXXX.xml";
    char ent[] = "/tmp/nt_limits_XXXXXX.xml", big[] = "/tmp/nt_limits_XXXXXX.xml";
    // Minimal objects (no cpusets): hwloc could not load these, but they are refused first.
    write_xml(numa, 5000, 1, "PU");
    write_xml(pus, 2, 40000, "pu");
    write_xml(ent, 2, 40000, "&#80;U"); // an entity may spell any type: counted as both
    int fd = mkstemps(big, 4);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, NT_TOPO_MAX_XML_BYTES + 1), 0); // sparse: nothing written
    close(fd);
    expect_refused((const char *const[]){"topo", "--synthetic", numa, NULL},
                   "5000 NUMA nodes and 5000 processing units; the limits are 4096 nodes");
    expect_refused((const char *const[]){"topo", "--synthetic", pus, NULL},
                   "2 NUMA nodes and 80000 processing units");
    expect_refused((const char *const[]){"topo", "--synthetic", ent, NULL},
                   "80002 NUMA nodes and 80000 processing units");
    expect_refused((const char *const[]){"topo", "--synthetic", big, NULL},
                   "is 64.0 MiB; the limit for an XML topology is 64 MiB");
    nt_topo_opts_t o = {.synthetic = big};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_ERANGE);
    cr_assert_null(t);
    unlink(numa);
    unlink(pus);
    unlink(ent);
    unlink(big);
}

// partition/ has no topology to ask for room: its maps and the matching have fixed caps,
// refused before anything proportional is allocated (dist.h, match.h).
Test(limits, partition_caps_refuse_before_allocating)
{
    double t0 = nt_now();
    nt_tilemap_t *map = NULL;
    nt_dist1d_t *d1 = NULL;
    cr_assert_eq(nt_tilemap_create((1 << 14) + 1, 1 << 14, 1, &map), NT_ERANGE);
    cr_assert_not_null(strstr(nt_last_error(), "16385x16384 is more than the limit of 268435456"),
                       "%s", nt_last_error());
    cr_assert_eq(nt_tilemap_from_spec("bc2d:2x2", 100000, 100000, 0, &map), NT_ERANGE);
    // Found by fuzz_dist (corpus/dist/regress-skewed-derange-labels): 988888882 labels made the
    // derangement allocate 3.9 GB for a 1x1 grid.
    cr_assert_eq(nt_tilemap_from_spec("skewed:1x988888882:2:derange", 1, 1, 0, &map), NT_ERANGE);
    cr_assert_not_null(strstr(nt_last_error(), "988888882 domains is more than the limit of"),
                       "%s", nt_last_error());
    cr_assert_eq(nt_tilemap_create(1, 1, NT_TILEMAP_MAX_LABELS, &map), NT_OK);
    nt_tilemap_destroy(map);
    map = NULL;
    cr_assert_eq(nt_dist1d_create(4, NT_TILEMAP_MAX_LABELS + 1, &d1), NT_ERANGE);
    double speeds[2] = {1, 2};
    cr_assert_eq(nt_hetero_tilemap(NT_HETERO_COLUMN, NT_HETERO_PRECISE, 2, speeds, 20000, &map),
                 NT_ERANGE);
    nt_hetero_eval_t e;
    cr_assert_eq(nt_hetero_evaluate(NT_HETERO_COLUMN, NT_HETERO_PRECISE, 2, speeds, 1 << 20, &e),
                 NT_ERANGE);
    cr_assert_null(map);
    nt_dist1d_t *d = NULL;
    cr_assert_eq(nt_dist1d_create((int64_t)NT_TILEMAP_MAX_TILES + 1, 2, &d), NT_ERANGE);
    cr_assert_null(d);
    int64_t counts[1] = {1};
    int sigma[1] = {-1};
    nt_match_problem_t pb = {.p_ini = 1, .p_tar = 1, .p_dom = NT_MATCH_MAX_P + 1,
                             .counts = counts};
    cr_assert_eq(nt_match_solve(&pb, NT_MATCH_VOLUME, sigma, NULL), NT_ERANGE);
    cr_assert_not_null(strstr(nt_last_error(), "limit of 16384"), "%s", nt_last_error());
    cr_assert_eq(sigma[0], -1);
    pb.p_dom = 3;
    cr_assert_eq(nt_match_solve(&pb, NT_MATCH_VOLUME, sigma, NULL), NT_OK);
    cr_assert_lt(nt_now() - t0, FAST_SECONDS);
}

// No byte below 0x20 (but the newlines between lines) and no DEL reaches stderr.
static void assert_printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        cr_assert(*p == '\n' || (*p >= 0x20 && *p != 0x7f), "raw byte 0x%02x in: %s", *p, s);
}

Test(limits, binary_garbage_escaped)
{
    tool_result r = run_fast((const char *const[]){"plan", "--m", "8", "--n", "8", "--from",
                                                   "2@bc1d\x01\x1b[2J:2", "--to", "2@bc1d:2",
                                                   NULL});
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "\\x01\\x1b[2J"), "%s", r.err);
    assert_printable(r.err);
    tool_result_free(&r);

    r = run_fast((const char *const[]){"\x07\xff\xfe", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "\\x07\\xff\\xfe"), "%s", r.err);
    assert_printable(r.err);
    tool_result_free(&r);

    char path[] = "/tmp/nt_limits_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("2 2\n0 1\n1 \x01\x9b\x1b]0;x\x07\n", f);
    fclose(f);
    r = run_fast((const char *const[]){"match", "--instance", path, NULL});
    unlink(path);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "\\x01\\x9b\\x1b]0;x\\x07"), "%s", r.err);
    assert_printable(r.err);
    tool_result_free(&r);
}

// The bench harness echoes --out in its messages: escaped like every other echo.
Test(limits, bench_out_path_escaped)
{
    tool_result r = run_fast((const char *const[]){"bench", "herrmann-fig2", "--quick", "--out",
                                                   "/proc/nt\x01\x1b[2J", NULL});
    cr_assert_eq(r.status, 3, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "directory /proc/nt\\x01\\x1b[2J"), "%s", r.err);
    assert_printable(r.err);
    tool_result_free(&r);
    char base[] = "/tmp/nt_limits_XXXXXX", out[64];
    cr_assert_not_null(mkdtemp(base));
    snprintf(out, sizeof out, "%s/run\x1b]0;x\x07", base);
    r = run_fast((const char *const[]){"bench", "herrmann-fig2", "--quick", "--out", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "/run\\x1b]0;x\\x07 ("), "%s", r.err);
    assert_printable(r.err);
    tool_result_free(&r);
}

Test(limits, escape_keeps_utf8_and_truncates_whole)
{
    char out[16];
    cr_assert_eq(nt_escape("a\xc3\xa9\n", out, sizeof out), 7);
    cr_assert_str_eq(out, "a\xc3\xa9\\x0a");
    cr_assert_eq(nt_escape("\xc3(", out, sizeof out), 5);
    cr_assert_str_eq(out, "\\xc3(");
    cr_assert_eq(nt_escape("abc\x01", out, 6), 3);
    cr_assert_str_eq(out, "abc");
    cr_assert_eq(nt_escape("x", out, 0), 0);
}

// Found by the cli fuzzer: a target announcing more labels than the machine has domains, the
// extra ones unused, under the canonical labelling (wrote past the per-pair byte table).
Test(limits, canonical_plan_with_unused_labels_beyond_the_machine)
{
    tool_result r = run_fast((const char *const[]){"redist", "--m", "29", "--n", "47", "--from",
                                                   "8x4@random:1", "--to", "686@bc2d:1x2",
                                                   "--domains", "1", "--verify", NULL});
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    tool_result_free(&r);
}
