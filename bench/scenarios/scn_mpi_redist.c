// Scenario mpi-redist: numatile's distributed redistribution (libnumatile_mpi) against
// ScaLAPACK's pdgemr2d, across 4 MPI ranks, on the same geometries in the same run (issue 15):
// N x N doubles (N = 4096; --quick 2048), nb from 1 to 512, grid changes 2x2 -> 4x1, equal
// grids with a block-size change, a submatrix with displacements onto another grid. The
// numatile tool never links MPI: this scenario runs the MPI program numatile-mpi (`bench`
// mode, mpi/tools/) under `mpirun --oversubscribe -np 4` and reports its rows: bytes that
// cross ranks, median times (slowest rank, between barriers) of both, the speed-up, both
// results checked element by element, and the copy floor measured in the same repetitions:
// each rank's bytes of the call (twice every byte it sends or receives, once its own part) in
// one contiguous streaming copy, with the speed-up it allows over pdgemr2d (the ceiling); and
// numatile with the shared window off (issue 38's path between nodes), through datatypes (the
// default there) and packed.
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "scenarios.h"
#include "scn_util.h"

// numatile-mpi in $NUMATILE_PEER_DIR, else beside this program; false (why filled) if absent.
static bool find_tool(char *path, size_t len, char *why, size_t wlen)
{
    if (!bench_sibling("numatile-mpi", path, len)) {
        snprintf(why, wlen, "no numatile-mpi at %s (built by make when mpicc and "
                 "libscalapack-openmpi-dev are installed; or set NUMATILE_PEER_DIR)", path);
        return false;
    }
    if (!bench_have_program("mpirun")) {
        snprintf(why, wlen, "mpirun is not on PATH (Debian: openmpi-bin)");
        return false;
    }
    return true;
}

// Started by mpirun, every rank would launch its own mpirun, which Open MPI refuses with a
// message that says nothing of this scenario: say what to do instead, on stderr, at once.
static bool under_mpirun(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!size && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
        return false;
    fprintf(stderr, "numatile bench mpi-redist: this process is rank %s of %s under mpirun, "
            "but the scenario starts its own 4 ranks (mpirun -np 4 numatile-mpi bench): run "
            "`numatile bench mpi-redist` without mpirun\n", rank ? rank : "?", size ? size : "?");
    return true;
}

static const bench_col COLS[] = {
    {"geometry", "geometry", "%s", -26, NULL, 0, NULL},
    {"bytes_crossing", "crossing\nMB", "%.1f", 9, NULL, 1e-6, NULL},
    {"pdgemr2d_seconds", "pdgemr2d\ns", "%.4f", 9, NULL, 0, NULL},
    {"numatile_seconds", "numatile\ns", "%.4f", 9, NULL, 0, NULL},
    {"speedup", "speed-up\npd/nt", "%.2f", 8, NULL, 0, NULL},
    {"alltoallv_seconds", "alltoallv\ns", "%.4f", 9, NULL, 0, NULL},
    {"floor_seconds", "copy floor\ns", "%.4f", 10, NULL, 0, NULL},
    {"speedup_ceiling", "ceiling\npd/floor", "%.2f", 9, NULL, 0, NULL},
    {"floor_ratio", "floor/nt", "%.2f", 8, NULL, 0, NULL},
    {"p2p_seconds", "window off\np2p s", "%.4f", 10, NULL, 0, NULL},
    {"p2p_speedup", "off\npd/p2p", "%.2f", 7, NULL, 0, NULL},
    {"p2p_floor_ratio", "off\nfloor/p2p", "%.2f", 9, NULL, 0, NULL},
    {"packed_seconds", "off, packed\ns", "%.4f", 11, NULL, 0, NULL},
    {"_verify", "verify pd/nt/\na2a/p2p/packed", "%s", 20, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, 0, NULL}};

// The operation rows: pdtrmr2d, pdtran and pztranc against nt_ptrmr2d and nt_ptran.
static const bench_col OP_COLS[] = {
    {"geometry", "operation, geometry", "%s", -32, NULL, 0, NULL},
    {"scalapack_seconds", "ScaLAPACK\ns", "%.4f", 9, NULL, 0, NULL},
    {"numatile_seconds", "numatile\ns", "%.4f", 9, NULL, 0, NULL},
    {"speedup", "speed-up\nsl/nt", "%.2f", 8, NULL, 0, NULL},
    {"_verify", "equal", "%s", 5, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, 0, NULL}};

// The operation rows as a second table (their own columns; not raw rows of the copy's
// statistics).
static void op_table(bench_run *r, json_t *op_rows)
{
    if (!json_is_array(op_rows) || json_array_size(op_rows) == 0)
        return;
    json_t *shown = json_array(), *row;
    size_t i;
    json_array_foreach(op_rows, i, row) {
        json_t *copy = json_deep_copy(row);
        json_object_set_new(copy, "_verify",
                            json_string(json_is_true(json_object_get(row, "verify")) ? "ok"
                                                                                     : "FAIL"));
        json_array_append_new(shown, copy);
    }
    bench_printf(r, "\n");
    bench_table(r, OP_COLS, shown);
    json_decref(shown);
}

int scn_mpi_redist(bench_run *r)
{
    char tool[PATH_MAX + 16], why[PATH_MAX + 160];
    int n = r->quick ? 2048 : 4096, reps = bench_reps(r, 5, 3);
    bench_param(r, "n", json_integer(n));
    bench_param(r, "ranks", json_integer(4));
    bench_param(r, "repetitions", json_integer(reps));
    bench_labels(r, "geometry", NULL);
    if (under_mpirun())
        return 2;
    if (!find_tool(tool, sizeof tool, why, sizeof why)) {
        bench_printf(r, "mpi-redist: not run: %s\n", why);
        bench_notice(r, "mpi-redist not run: %s", why);
        return 0;
    }
    scn_note_load(r);
    char cmd[2 * PATH_MAX + 512];
    // Four ranks on however many cpus: oversubscribed, so idle ranks yield; one OpenMP
    // thread per rank. Open MPI refuses to start as root unless told twice.
    snprintf(cmd, sizeof cmd, "%sOMP_NUM_THREADS=1 mpirun --oversubscribe --mca "
             "mpi_yield_when_idle 1 -np 4 '%s' bench --json --n %d --reps %d "
             "2>>'%s/numatile-mpi.stderr'",
             geteuid() == 0 ? "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " : "",
             tool, n, reps, r->dir);
    bench_printf(r, "mpi-redist: N x N doubles, N = %d, pdgemr2d vs numatile (libnumatile_mpi) "
                 "on 4 MPI ranks of this machine (mpirun --oversubscribe), %d repetitions, "
                 "median of the slowest rank; load average %.2f at the start\n", n, reps,
                 scn_loadavg());
    FILE *p = popen(cmd, "r");
    char line[1 << 16];
    json_t *out = NULL;
    while (p && fgets(line, sizeof line, p))
        if (line[0] == '{' && !out)
            out = json_loads(line, 0, NULL);
    int st = p ? pclose(p) : -1;
    json_t *rows = json_object_get(out, "rows");
    if (!json_is_array(rows)) {
        bench_notice(r, "numatile-mpi bench failed (status %d; its stderr is in "
                     "numatile-mpi.stderr): %s", st, cmd);
        json_decref(out);
        return 3;
    }
    bench_param(r, "mpi", json_incref(json_object_get(out, "mpi")));
    size_t i;
    json_t *row;
    json_t *shown = json_array();
    json_array_foreach(rows, i, row) {
        json_t *copy = json_deep_copy(row);
        char v[40];
        snprintf(v, sizeof v, "%s/%s/%s/%s/%s",
                 json_is_true(json_object_get(row, "pdgemr2d_verify")) ? "ok" : "FAIL",
                 json_is_true(json_object_get(row, "numatile_verify")) ? "ok" : "FAIL",
                 json_is_true(json_object_get(row, "alltoallv_verify")) ? "ok" : "FAIL",
                 json_is_true(json_object_get(row, "p2p_verify")) ? "ok" : "FAIL",
                 json_is_true(json_object_get(row, "packed_verify")) ? "ok" : "FAIL");
        json_object_set_new(copy, "_verify", json_string(v));
        json_array_append(shown, copy);
        bench_row(r, copy);
    }
    bench_table(r, COLS, shown);
    json_decref(shown);
    json_t *op_rows = json_object_get(out, "op_rows");
    op_table(r, op_rows);
    scn_note_load_end(r);
    bool ok = json_is_true(json_object_get(out, "verify"));
    json_t *sum = json_pack("{s:i, s:O, s:b}", "ranks", 4, "rows", rows, "verify", ok);
    if (json_is_array(op_rows))
        json_object_set(sum, "op_rows", op_rows);
    bench_summary(r, sum);
    json_decref(out);
    // Exit 1 is a failed check (the rows say which).
    return ok && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
