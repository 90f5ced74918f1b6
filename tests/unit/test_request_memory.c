// Every command that allocates adds up the whole request (both matrices, the operands, the
// per-tile and per-item tables, the probe's and the calibration's buffers) and refuses it with
// exit 2 before the first allocation. Before, each matrix was checked alone: a request that
// fitted one matrix and not two filled the first and was refused 20-25 s later, or ran on
// past the machine. The machine is a fake one (NT_FSROOT): a cgroup of 1 GiB of which 256 MiB
// are used leaves 768 MiB, whatever the real machine has.
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt_core.h"
#include "numatile.h"
#include "fsroot_util.h"
#include "tool_run.h"

#define FAST_SECONDS 1.0

// 16 GiB free on node 0 and in MemAvailable, but a v1 memory cgroup of 1 GiB with 256 MiB
// used: 768 MiB of room, the cgroup binding.
static void small_machine(void)
{
    fsroot_cgroup_machine("reqmem");
}

TestSuite(request_memory, .init = small_machine, .fini = fsroot_remove);

// The tool exits 2 within a second, naming the need and the binding limit (and needle).
static void refused(const char *const *args, const char *needle)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    double t0 = nt_now();
    tool_result r = tool_run(args);
    double dt = nt_now() - t0;
    cr_assert_eq(r.status, 2, "%s %s: exit %d, stderr: %s", args[0], args[1], r.status, r.err);
    cr_assert_not_null(strstr(r.err, "needs "), "stderr names no need: %s", r.err);
    cr_assert_not_null(strstr(r.err, "cgroup memory limit"), "stderr names no limit: %s",
                       r.err);
    cr_assert_not_null(strstr(r.err, needle), "stderr lacks '%s': %s", needle, r.err);
    cr_assert_lt(dt, FAST_SECONDS, "%s took %.2f s", args[0], dt);
    tool_result_free(&r);
}

// 8000^2 doubles are 488 MiB: one matrix fits the 768 MiB, two do not.
Test(request_memory, redist_counts_both_matrices)
{
    refused((const char *const[]){"redist", "--m", "8000", "--n", "8000", "--from",
                                  "1000@bc2d:1x1", "--to", "500@bc2d:1x1", NULL},
            "redist of 8000x8000");
    // 20 x 20 elements of 1 MiB: 400 MiB a matrix.
    refused((const char *const[]){"redist", "--m", "20", "--n", "20", "--from", "7x3@random:5",
                                  "--to", "11x13@balanced:3", "--elem", "1048576", NULL},
            "redist of 20x20");
}

// plan keeps no elements: the same geometry is planned; a small redist runs.
Test(request_memory, what_fits_still_runs)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *const runs[][13] = {
        {"plan", "--m", "8000", "--n", "8000", "--from", "1000@bc2d:1x1", "--to",
         "500@bc2d:1x1", NULL},
        {"redist", "--m", "1000", "--n", "1000", "--from", "100@bc2d:1x1", "--to",
         "64@bc2d:1x1", "--verify", NULL},
        {"gemm", "--n", "256", "--nb", "64", "--dist", "bc2d:1x1", "--verify", NULL},
        {"qr", "--m", "256", "--n", "256", "--nb", "64", "--dist", "bc2d:1x1", "--verify",
         NULL},
        {"stencil", "--items", "100000", "--per-item", "0", "--iters", "2", "--verify", NULL},
        {"topo", "--probe", "16", NULL}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        tool_result r = tool_run(runs[k]);
        cr_assert_eq(r.status, 0, "%s: exit %d, stderr: %s", runs[k][0], r.status, r.err);
        tool_result_free(&r);
    }
}

// A, B and C of 8000^2 (3 x 488 MiB); qr's A and its T tiles; --verify's copies.
Test(request_memory, kernels_count_every_operand)
{
    refused((const char *const[]){"gemm", "--n", "8000", "--nb", "8000", "--dist", "bc2d:1x1",
                                  NULL},
            "gemm of 3 matrices");
    refused((const char *const[]){"qr", "--m", "8000", "--n", "8000", "--nb", "1000", "--dist",
                                  "bc2d:1x1", NULL},
            "qr of 2 matrices");
    refused((const char *const[]){"qr", "--m", "4000", "--n", "4000", "--nb", "500", "--dist",
                                  "bc2d:1x1", "--verify", NULL},
            "qr of 9 matrices");
}

// 20M items take about 1.2 GiB (values, placements, indices, two buffers).
Test(request_memory, stencil_counts_its_items)
{
    refused((const char *const[]){"stencil", "--items", "20000000", "--per-item", "0",
                                  "--iters", "1", NULL},
            "stencil of 20000000 items");
}

// Every domain's buffer is taken at once: 2 x 500 MiB on one node.
Test(request_memory, topo_probe_counts_every_domain)
{
    refused((const char *const[]){"topo", "--probe", "500", "--domains", "2", NULL},
            "--probe 500");
}

// 64 domains x 2 buffers of 16 MiB (--quick) are 2 GiB.
Test(request_memory, calibrate_counts_every_domain)
{
    refused((const char *const[]){"calibrate", "--quick", "--domains", "64", NULL},
            "calibrate on 64 domains");
}

// The library's estimate: tables of 24 bytes a tile, the elements, whole pages for tiles of a
// page or more; an invalid or overflowing shape is UINT64_MAX.
Test(request_memory, matrix_bytes_estimate)
{
    nt_matrix_shape_t small = {100, 100, 10, 10, 8};
    cr_assert_eq(nt_matrix_bytes(&small, false), 100 * 24);
    cr_assert_eq(nt_matrix_bytes(&small, true), 100 * 24 + 100 * 100 * 8);
    size_t page = nt_mem_page_size();
    nt_matrix_shape_t big = {(int64_t)page, (int64_t)page, (int64_t)page / 2,
                             (int64_t)page / 2, 8};
    uint64_t data = (uint64_t)page * page * 8;
    cr_assert_eq(nt_matrix_bytes(&big, true), 4 * 24 + data + 4 * page);
    nt_matrix_shape_t huge = {INT64_MAX, INT64_MAX, 1, 1, 8};
    cr_assert_eq(nt_matrix_bytes(&huge, true), UINT64_MAX);
    nt_matrix_shape_t bad = {0, 10, 1, 1, 8};
    cr_assert_eq(nt_matrix_bytes(&bad, true), UINT64_MAX);
    cr_assert_eq(nt_matrix_bytes(NULL, false), UINT64_MAX);
}
