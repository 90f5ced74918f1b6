// libFuzzer harness: the command line of the `numatile` tool, run in-process. The tool's
// objects (bench/cli, bench/scenarios, bench/harness) are linked in with main renamed to
// nt_tool_main; the input is argv: tokens separated by newlines, the first one the subcommand
// (so the dispatcher is fuzzed too). It runs in a scratch directory holding a small instance
// file `inst` and tile-map file `map` that tokens may name; tokens with '/' are skipped, so
// nothing outside it is read or written.
//
// What the tool would do after parsing is bounded so that a run stays short (the bounds are
// the harness's, not the tool's: absurd sizes are issue 13's other items): the linker wraps
// (-Wl,--wrap) a few library entry points to refuse, with NT_ENOMEM, matrices of more than
// 2^16 tiles or 2^18 elements with memory, more than 8 domains, synthetic machines of more than
// 4096 objects, 1D maps of more than 2^16 items, stencils of more than 2^24 updates and
// heterogeneous partitions beyond 256 x 256 tiles; scenarios of `bench` are not run (their
// options are parsed); OMP_THREAD_LIMIT caps the threads. exit() inside a subcommand (`--help`
// of the kernels) returns here.
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int nt_tool_main(int argc, char **argv);

#define MAX_ARGS 24
#define MAX_TOKEN 256

// ---- bounds on what the tool runs (linked with -Wl,--wrap=NAME) ------------------------------

_Noreturn void __real_exit(int code);
_Noreturn void __wrap_exit(int code);
int __wrap_bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary);
nt_status __real_nt_topo_load(const nt_topo_opts_t *opts, nt_topo_t **out);
// Calibration measures the machine for seconds with 64 MiB buffers per domain: never from
// fuzzed arguments (advise without --profile then fails as on a calibration error).
nt_status __wrap_nt_calibrate(const nt_topo_t *topo, const nt_calibrate_opts_t *opts,
                              nt_profile_t **out)
{
    (void)topo, (void)opts, (void)out;
    return NT_ENOMEM;
}

// redist --mpi replaces the process by numatile-mpi: the fuzzer must stay in this one.
int __wrap_execv(const char *path, char *const argv[])
{
    (void)path, (void)argv;
    errno = ENOENT;
    return -1;
}

nt_status __wrap_nt_topo_load(const nt_topo_opts_t *opts, nt_topo_t **out);
nt_status __real_nt_tilemap_from_spec(const char *spec, int64_t mt, int64_t nt, int ndomains,
                                      nt_tilemap_t **out);
nt_status __wrap_nt_tilemap_from_spec(const char *spec, int64_t mt, int64_t nt, int ndomains,
                                      nt_tilemap_t **out);
nt_status __real_nt_matrix_create_spec(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                       const char *spec, int ndomains, nt_layout layout,
                                       unsigned flags, nt_matrix_t **out);
nt_status __wrap_nt_matrix_create_spec(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                       const char *spec, int ndomains, nt_layout layout,
                                       unsigned flags, nt_matrix_t **out);
nt_status __real_nt_dist1d_block(int64_t n, int p, nt_dist1d_t **out);
nt_status __wrap_nt_dist1d_block(int64_t n, int p, nt_dist1d_t **out);
nt_status __real_nt_dist1d_balanced(int64_t n, int p, uint64_t seed, nt_dist1d_t **out);
nt_status __wrap_nt_dist1d_balanced(int64_t n, int p, uint64_t seed, nt_dist1d_t **out);
nt_status __real_nt_dist1d_skewed(int p, int64_t d, double alpha, uint64_t seed,
                                  nt_dist1d_t **out);
nt_status __wrap_nt_dist1d_skewed(int p, int64_t d, double alpha, uint64_t seed,
                                  nt_dist1d_t **out);
nt_status __real_nt_stencil_run(const nt_topo_t *topo, const nt_dist1d_t *map, double *values,
                                const nt_stencil_opts_t *opts, nt_stencil_stats_t *stats);
nt_status __wrap_nt_stencil_run(const nt_topo_t *topo, const nt_dist1d_t *map, double *values,
                                const nt_stencil_opts_t *opts, nt_stencil_stats_t *stats);
nt_status __real_nt_hetero_tilemap(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                   const double *speeds, int64_t n, nt_tilemap_t **out);
nt_status __wrap_nt_hetero_tilemap(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                   const double *speeds, int64_t n, nt_tilemap_t **out);
nt_status __real_nt_hetero_evaluate(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                    const double *speeds, int64_t n, nt_hetero_eval_t *out);
nt_status __wrap_nt_hetero_evaluate(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                    const double *speeds, int64_t n, nt_hetero_eval_t *out);

nt_status __wrap_nt_calibrate(const nt_topo_t *topo, const nt_calibrate_opts_t *opts,
                              nt_profile_t **out);
int __wrap_execv(const char *path, char *const argv[]);

static jmp_buf tool_exit;
static int in_tool;

void __wrap_exit(int code)
{
    if (in_tool)
        longjmp(tool_exit, 1); // libFuzzer's own exit() calls go through
    __real_exit(code);
}

int __wrap_bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary)
{
    (void)s, (void)o;
    if (summary)
        *summary = json_null();
    return 0;
}

nt_status __wrap_nt_topo_load(const nt_topo_opts_t *opts, nt_topo_t **out)
{
    if (opts && (opts->domains > 8 ||
                 (opts->synthetic && !fuzz_synthetic_bounded(opts->synthetic, 4096))))
        return NT_ENOMEM;
    return __real_nt_topo_load(opts, out);
}

static bool tiles_ok(int64_t mt, int64_t nt) { return mt <= 65536 && nt <= 65536 / mt; }

nt_status __wrap_nt_tilemap_from_spec(const char *spec, int64_t mt, int64_t nt, int ndomains,
                                      nt_tilemap_t **out)
{
    if (mt >= 1 && nt >= 1 && !tiles_ok(mt, nt))
        return NT_ENOMEM;
    return __real_nt_tilemap_from_spec(spec, mt, nt, ndomains, out);
}

nt_status __wrap_nt_matrix_create_spec(const nt_topo_t *topo, const nt_matrix_shape_t *shape,
                                       const char *spec, int ndomains, nt_layout layout,
                                       unsigned flags, nt_matrix_t **out)
{
    if (shape && shape->m >= 1 && shape->n >= 1 && shape->mb >= 1 && shape->nb >= 1) {
        int64_t mt = (shape->m + shape->mb - 1) / shape->mb;
        int64_t nt = (shape->n + shape->nb - 1) / shape->nb;
        if (!tiles_ok(mt, nt))
            return NT_ENOMEM;
        if (!(flags & NT_MATRIX_NOALLOC) &&
            (shape->m > 1 << 18 || shape->n > (1 << 18) / shape->m))
            return NT_ENOMEM;
    }
    return __real_nt_matrix_create_spec(topo, shape, spec, ndomains, layout, flags, out);
}

nt_status __wrap_nt_dist1d_block(int64_t n, int p, nt_dist1d_t **out)
{
    return n > 65536 ? NT_ENOMEM : __real_nt_dist1d_block(n, p, out);
}

nt_status __wrap_nt_dist1d_balanced(int64_t n, int p, uint64_t seed, nt_dist1d_t **out)
{
    return n > 65536 ? NT_ENOMEM : __real_nt_dist1d_balanced(n, p, seed, out);
}

nt_status __wrap_nt_dist1d_skewed(int p, int64_t d, double alpha, uint64_t seed,
                                  nt_dist1d_t **out)
{
    if (p >= 1 && d > 65536 / p)
        return NT_ENOMEM;
    return __real_nt_dist1d_skewed(p, d, alpha, seed, out);
}

nt_status __wrap_nt_stencil_run(const nt_topo_t *topo, const nt_dist1d_t *map, double *values,
                                const nt_stencil_opts_t *opts, nt_stencil_stats_t *stats)
{
    if (map && opts && opts->iters >= 0 && opts->work >= 0) {
        double updates = (double)map->n * (double)opts->iters * (1.0 + (double)opts->work);
        if (updates > (double)(1 << 24))
            return NT_ENOMEM;
    }
    return __real_nt_stencil_run(topo, map, values, opts, stats);
}

nt_status __wrap_nt_hetero_tilemap(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                   const double *speeds, int64_t n, nt_tilemap_t **out)
{
    return n > 256 ? NT_ENOMEM : __real_nt_hetero_tilemap(algo, mode, m, speeds, n, out);
}

nt_status __wrap_nt_hetero_evaluate(nt_hetero_algo algo, nt_hetero_round mode, int m,
                                    const double *speeds, int64_t n, nt_hetero_eval_t *out)
{
    return n > 256 ? NT_ENOMEM : __real_nt_hetero_evaluate(algo, mode, m, speeds, n, out);
}

// ---- the harness ---------------------------------------------------------------------------

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    setenv("OMP_THREAD_LIMIT", "8", 0);
    setenv("NO_COLOR", "1", 1);
    if (chdir(fuzz_scratch_dir()) != 0)
        abort();
    static const char inst[] = "# 4 domains, 8 items\n4 8\n0 1\n1 2\n2 3\n3 0\n0 0\n1 1 5\n"
                               "2 3 2\n3 2\n";
    static const char map[] = "0 1 2 3\n1 2 3 0\n2 3 0 1\n3 0 1 2\n";
    if (!fuzz_scratch_file("inst", inst, sizeof inst - 1) ||
        !fuzz_scratch_file("map", map, sizeof map - 1))
        abort();
    if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

// glibc's getopt keeps a pointer into the previous argv between calls: start it afresh (a
// scan of an empty command line with optind = 0 reinitialises it and leaves nothing behind).
static void reset_getopt(void)
{
    static char name[] = "numatile";
    char *none[] = {name, NULL};
    optind = 0;
    opterr = 0;
    (void)getopt(1, none, "");
    optind = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char name[] = "numatile";
    char *argv[MAX_ARGS + 2] = {name};
    int argc = 1;
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    if (memchr(data, '\0', size) || memchr(data, '/', size)) {
        free(text);
        return -1;
    }
    for (char *tok = text, *nl; tok && argc <= MAX_ARGS; tok = nl) {
        nl = strchr(tok, '\n');
        if (nl)
            *nl++ = '\0';
        if (strlen(tok) > MAX_TOKEN) {
            free(text);
            return -1;
        }
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    reset_getopt();
    volatile int rc = 0;
    in_tool = 1;
    if (setjmp(tool_exit) == 0)
        rc = nt_tool_main(argc, argv);
    in_tool = 0;
    fflush(stdout);
    FUZZ_CHECK(rc >= 0 && rc <= 3, "exit status %d", rc);
    free(text);
    return 0;
}
