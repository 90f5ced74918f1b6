// Inputs read from files are bounded before they are read (core/file.c): devices, FIFOs and
// directories are refused at once, a file larger than what it can describe too; XML that
// would crash hwloc is refused before hwloc parses it; thread counts the machine cannot
// honour do not crash the library. Each case was a crash, a hang or gigabytes before.
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt_core.h"
#include "numatile.h"
#include "tool_run.h"

#define FAST_SECONDS 1.0

// The tool exits 2 within a second with needle in its message.
static void refused(const char *const *args, const char *needle)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    double t0 = nt_now();
    tool_result r = tool_run(args);
    double dt = nt_now() - t0;
    cr_assert_eq(r.status, 2, "%s %s: exit %d, stderr: %s", args[0], args[1], r.status, r.err);
    cr_assert_not_null(strstr(r.err, needle), "stderr lacks '%s': %s", needle, r.err);
    cr_assert_lt(dt, FAST_SECONDS, "%s took %.2f s", args[0], dt);
    tool_result_free(&r);
}

static char fifo[64];

static void make_fifo(void)
{
    snprintf(fifo, sizeof fifo, "/tmp/nt_fifo_%d", (int)getpid());
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
}

Test(inputs, tile_map_from_devices_fifos_and_directories)
{
    make_fifo();
    const char *srcs[3][2] = {{"10@file:/dev/zero", "not a regular file"},
                              {NULL, "not a regular file"},
                              {"10@file:/tmp", "is a directory"}};
    char spec[96];
    snprintf(spec, sizeof spec, "10@file:%s", fifo);
    srcs[1][0] = spec;
    for (int k = 0; k < 3; k++)
        refused((const char *const[]){"plan", "--m", "100", "--n", "100", "--from", srcs[k][0],
                                      "--to", "10@bc2d:1x1", NULL},
                srcs[k][1]);
    unlink(fifo);
}

Test(inputs, instances_from_devices_fifos_and_directories)
{
    make_fifo();
    refused((const char *const[]){"match", "--instance", "/dev/zero", NULL},
            "not a regular file");
    refused((const char *const[]){"match", "--instance", fifo, NULL}, "not a regular file");
    refused((const char *const[]){"match", "--instance", "/tmp", NULL}, "is a directory");
    unlink(fifo);
}

// A tile-map file larger than its grid's ids can take is refused before it is read: a
// sparse 64 MiB file for a 2 x 2 map.
Test(inputs, oversized_tile_map_refused_unread)
{
    char path[] = "/tmp/nt_bigmapXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)64 << 20), 0);
    close(fd);
    char spec[64];
    snprintf(spec, sizeof spec, "2x2@file:%s", path);
    refused((const char *const[]){"plan", "--m", "20", "--n", "20", "--from", spec, "--to",
                                  "10@bc2d:1x1", NULL},
            "is 64.0 MiB");
    nt_tilemap_t *m = NULL;
    cr_assert_eq(nt_tilemap_read(path, 2, 2, 0, &m), NT_ERANGE);
    cr_assert_null(m);
    unlink(path);
}

Test(inputs, read_file_bounds)
{
    char path[] = "/tmp/nt_readXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "0123456789", 10), 10);
    close(fd);
    char *text = NULL;
    size_t len = 0;
    cr_assert_eq(nt_read_file(path, 10, "t", &text, &len), NT_OK);
    cr_assert_eq(len, 10);
    cr_assert_str_eq(text, "0123456789");
    free(text);
    text = NULL;
    cr_assert_eq(nt_read_file(path, 9, "t", &text, &len), NT_ERANGE);
    cr_assert_null(text);
    cr_assert_eq(nt_read_file("/nonexistent/x", 9, "t", &text, &len), NT_EIO);
    cr_assert_eq(nt_read_file("/dev/null", 9, "t", &text, &len), NT_EINVAL);
    unlink(path);
}

// hwloc 2.9 dereferences a NUMANode's complete_nodeset unchecked: this file was a SIGSEGV.
Test(inputs, xml_that_crashes_hwloc_refused)
{
    refused((const char *const[]){"topo", "--synthetic",
                                  "tests/fuzz/hwloc-xml-crashes/hwloc-null-nodeset.xml", NULL},
            "has no complete_nodeset");
    nt_topo_opts_t o = {.synthetic = "tests/fuzz/hwloc-xml-crashes/hwloc-null-nodeset.xml"};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_EINVAL);
    cr_assert_null(t);
}

// OMP_NUM_THREADS=100000 crashed libgomp inside the matrix allocation's first touch.
Test(inputs, huge_omp_num_threads_runs)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv("OMP_NUM_THREADS", "100000", 1);
    tool_result r = tool_run((const char *const[]){"redist", "--m", "600", "--n", "600",
                                                   "--from", "100@bc2d:1x1", "--to",
                                                   "200@bc2d:1x1", "--verify", NULL});
    unsetenv("OMP_NUM_THREADS");
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    tool_result_free(&r);
}

// hwloc's time is far from linear in a description's counts: "numa:1 pu:8192" is within every
// count cap and took hwloc over 30 s; it is now refused after NT_TOPO_MAX_LOAD_SECONDS, while
// a larger but well-shaped machine still loads.
Test(inputs, synthetic_capped_by_hwloc_time, .timeout = 60)
{
    nt_topo_opts_t o = {.synthetic = "numa:1 pu:8192"};
    nt_topo_t *t = NULL;
    double t0 = nt_now();
    cr_assert_eq(nt_topo_load(&o, &t), NT_ERANGE);
    double dt = nt_now() - t0;
    cr_assert_null(t);
    cr_assert_not_null(strstr(nt_last_error(), "hwloc takes more than"), "%s", nt_last_error());
    cr_assert_lt(dt, NT_TOPO_MAX_LOAD_SECONDS + 3.0, "refused after %.1f s", dt);
    o.synthetic = "pack:4 numa:64 pu:8";
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_topo_ndomains(t), 256);
    nt_topo_destroy(t);
}

// HWLOC_FSROOT pointing nowhere gave an empty machine (no memory) and exit 0.
Test(inputs, hwloc_fsroot_nowhere_refused)
{
    setenv("HWLOC_FSROOT", "/nonexistent/nt_fsroot", 1);
    refused((const char *const[]){"topo", NULL}, "HWLOC_FSROOT=/nonexistent/nt_fsroot");
    setenv("HWLOC_FSROOT", "/tmp", 1);
    refused((const char *const[]){"topo", NULL}, "holds no sys/devices/system");
    unsetenv("HWLOC_FSROOT");
}

// Speeds whose sum overflows a double were refused ("add up to inf"): only their ratios
// matter, so 1e308,1e308 partitions as 1,1 does.
Test(inputs, huge_speeds_are_ratios)
{
    const double big[2] = {1e308, 1e308}, one[2] = {1, 1};
    double a[2], b[2];
    cr_assert_eq(nt_hetero_normalize(2, big, a), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_hetero_normalize(2, one, b), NT_OK);
    cr_assert_eq(a[0], b[0]);
    cr_assert_eq(a[1], b[1]);
}
