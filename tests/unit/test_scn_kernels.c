// `numatile bench kernels` (scn_kernels.c) end to end with --quick --json, and its flat
// OpenBLAS peer (issue 17). The quickest run: the best nb, tiled and flat GFLOP/s and ratios
// recomputed from the raw rows' medians, tiled and flat results agreeing. With
// build/bin/flat_openblas beside the tool, the run reports the peer's columns, recomputed here
// from the raw rows (median GFLOP/s, ratios, which flat library was fastest); without it (or
// when it fails) the run says so and compares with this build's libraries only. The peer
// program itself: one JSON line with its fields, exit 2 on bad arguments.
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn_test.h"

// flat_openblas in the tool's directory (where one build puts both) into path; false if absent.
static bool peer_beside_tool(char *path, size_t len)
{
    char dir[PATH_MAX - 32];
    snprintf(dir, sizeof dir, "%s", tool_path());
    char *slash = strrchr(dir, '/');
    snprintf(path, len, "%s/flat_openblas", slash ? (*slash = '\0', dir) : ".");
    return access(path, X_OK) == 0;
}

static double knum(const json_t *o, const char *kernel, const char *what)
{
    char key[64];
    snprintf(key, sizeof key, "%s_%s", kernel, what);
    return num(o, key);
}

static json_t *kget(const json_t *o, const char *kernel, const char *what)
{
    char key[64];
    snprintf(key, sizeof key, "%s_%s", kernel, what);
    return json_object_get(o, key);
}

// `bench kernels --quick --json --out DIR`: the summary; *doc gets kernels.json.
static json_t *run_kernels(char *dir, json_t **doc)
{
    cr_assert_not_null(mkdtemp(dir));
    json_t *sum = tool_json((const char *[]){"bench", "kernels", "--quick", "--json", "--out", dir,
#ifdef __SANITIZE_ADDRESS__
                                             "--repeat", "1",
#endif
                                             NULL});
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/kernels.json", dir);
    json_error_t e;
    *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(*doc, "%s: %s", path, e.text);
    return sum;
}

static void done(char *dir, json_t *sum, json_t *doc)
{
    json_decref(doc);
    scn_cleanup(dir, sum);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median GFLOP/s of the peer's raw rows of one kernel, from their seconds; *cnt rows.
static double peer_median(const json_t *raw, const char *kernel, int64_t n, int *cnt)
{
    double g[64];
    int k = 0;
    size_t i;
    json_t *row;
    json_array_foreach(raw, i, row) {
        if (strcmp(json_string_value(json_object_get(row, "impl")), "flat_openblas") ||
            strcmp(json_string_value(json_object_get(row, "kernel")), kernel))
            continue;
        cr_assert_lt(k, 64);
        cr_assert_eq((int64_t)num(row, "n"), n);
        double x = (double)n, f = !strcmp(kernel, "gemm") ? 2 * x * x * x : 4.0 / 3 * x * x * x;
        g[k++] = f / num(row, "seconds") / 1e9;
    }
    *cnt = k;
    if (!k)
        return 0;
    qsort(g, (size_t)k, sizeof *g, cmp);
    return k % 2 ? g[k / 2] : 0.5 * (g[k / 2 - 1] + g[k / 2]);
}

// The best-flat columns of one kernel in o (a summary or one of its sizes): the fastest of
// this build's flat runs and the peer's (peer = 0: none), its library, the ratio to it.
static void check_best(const json_t *o, const char *k, double peer)
{
    double tiled = knum(o, k, "tiled_gflops"), f1 = knum(o, k, "flat_1t_gflops");
    double fm = kget(o, k, "flat_mt_gflops") ? knum(o, k, "flat_mt_gflops") : 0;
    double best = fmax(fmax(f1, fm), peer);
    bool from_peer = peer > fmax(f1, fm);
    cr_assert(close_rel(knum(o, k, "best_flat_gflops"), best, TOL), "%s best %g vs %g", k,
              knum(o, k, "best_flat_gflops"), best);
    cr_assert_eq(json_is_true(kget(o, k, "best_flat_peer")), from_peer, "%s", k);
    const char *lib = json_string_value(kget(o, k, "best_flat_lib"));
    const char *own = json_string_value(kget(o, k, "flat_lib"));
    cr_assert_not_null(lib);
    cr_assert_not_null(own);
    cr_assert_str_eq(lib, from_peer ? "openblas" : own, "%s", k);
    cr_assert(close_rel(knum(o, k, "ratio_best"), tiled / best, TOL), "%s ratio_best", k);
    cr_assert_leq(knum(o, k, "ratio_best"), knum(o, k, "ratio") * (1 + 1e-9),
                  "the best flat library is at least this build's best flat run");
    if (peer > 0) {
        cr_assert(close_rel(knum(o, k, "openblas_gflops"), peer, TOL), "%s peer", k);
        cr_assert(close_rel(knum(o, k, "ratio_openblas"), tiled / peer, TOL), "%s", k);
    } else {
        cr_assert_null(kget(o, k, "openblas_gflops"), "%s: peer column without a peer", k);
        cr_assert_null(kget(o, k, "ratio_openblas"));
    }
}

static bool has_notice(const json_t *doc, const char *text)
{
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(doc, "notices"), i, n)
        if (strstr(json_string_value(n), text))
            return true;
    return false;
}

// Median GFLOP/s of the raw rows of one configuration, recomputed from their seconds.
static double raw_gflops(json_t *raw, const char *kernel, const char *impl, int64_t nb,
                         int threads, int64_t n, int *count)
{
    double sec[64];
    int k = 0;
    size_t i;
    json_t *row;
    json_array_foreach(raw, i, row) {
        if (strcmp(str(row, "kernel"), kernel) || strcmp(str(row, "impl"), impl) ||
            (int64_t)num(row, "nb") != nb || (int)num(row, "threads") != threads ||
            (int64_t)num(row, "n") != n)
            continue;
        cr_assert_lt(k, 64);
        sec[k++] = num(row, "seconds");
        if (!strcmp(impl, "tiled"))
            cr_assert_eq(num(row, "owner_fraction"), 1.0, "owner-computes ran elsewhere");
    }
    *count = k;
    if (!k)
        return 0;
    double x = (double)n, flops = !strcmp(kernel, "gemm") ? 2 * x * x * x : 4.0 / 3 * x * x * x;
    return flops / median(sec, k) / 1e9;
}

Test(scn_kernels, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *dir = scn_temp_dir();
    json_t *doc, *sum = scn_run_doc("kernels", dir, &doc);
    json_t *raw = json_object_get(doc, "raw");
    int64_t n = (int64_t)num(sum, "n");
    int threads = (int)num(sum, "threads"), reps = (int)num(sum, "repetitions");
    cr_assert_eq(n, 512);
    cr_assert_geq(threads, 1);
    cr_assert_eq(num(sum, "nb"), num(sum, "gemm_nb"));
    const char *kern[2] = {"gemm", "qr"};
    for (int k = 0; k < 2; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_nb", kern[k]);
        int64_t best = (int64_t)num(sum, key);
        cr_assert(best == 128 || best == 256, "%s nb %lld", kern[k], (long long)best);
        // The best nb really is the best of the recomputed medians.
        int cnt;
        double g128 = raw_gflops(raw, kern[k], "tiled", 128, threads, n, &cnt);
        cr_assert_eq(cnt, reps);
        double g256 = raw_gflops(raw, kern[k], "tiled", 256, threads, n, &cnt);
        cr_assert_eq(cnt, reps);
        double tiled = fmax(g128, g256);
        cr_assert_eq(best, g128 >= g256 ? 128 : 256);
        snprintf(key, sizeof key, "%s_tiled_gflops", kern[k]);
        cr_assert(close_rel(num(sum, key), tiled, TOL), "%s: %g vs %g", key, num(sum, key),
                  tiled);
        double f1 = raw_gflops(raw, kern[k], "flat", 0, 1, n, &cnt);
        cr_assert_eq(cnt, reps);
        double fm = threads > 1 ? raw_gflops(raw, kern[k], "flat", 0, threads, n, &cnt) : 0;
        snprintf(key, sizeof key, "%s_ratio", kern[k]);
        cr_assert(close_rel(num(sum, key), tiled / fmax(f1, fm), TOL), "%s", key);
        snprintf(key, sizeof key, "%s_ratio_flat_1t", kern[k]);
        cr_assert(close_rel(num(sum, key), tiled / f1, TOL), "%s", key);
        // The tiled and the flat results agree (all of C, |diag R|).
        snprintf(key, sizeof key, "%s_check", kern[k]);
        cr_assert_lt(num(sum, key), 1e-10, "%s = %g", key, num(sum, key));
    }
    cr_assert_eq(json_array_size(json_object_get(sum, "rows")), 1);
    json_decref(sum);
    json_decref(doc);
    scn_rm_tree(dir);
}

Test(scn_kernels, quick_reports_the_openblas_peer_when_built)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    unsetenv("NUMATILE_FLAT_PEER");
    char peer[PATH_MAX], dir[] = "/tmp/nt-bench-peer-XXXXXX";
    if (!peer_beside_tool(peer, sizeof peer))
        cr_skip("no %s (OpenBLAS not installed): the peer columns cannot appear", peer);
    json_t *doc, *sum = run_kernels(dir, &doc);
    const char *p = json_string_value(json_object_get(sum, "openblas_peer"));
    cr_assert_not_null(p, "openblas_peer missing although %s exists", peer);
    char a[PATH_MAX], b[PATH_MAX];
    cr_assert(realpath(p, a) && realpath(peer, b) && !strcmp(a, b), "%s vs %s", p, peer);
    const char *blas = json_string_value(json_object_get(sum, "openblas_peer_blas"));
    cr_assert(blas && !strncmp(blas, "openblas ", 9), "peer library '%s'", blas ? blas : "");
    int64_t n = (int64_t)num(sum, "n");
    int reps = (int)num(sum, "repetitions");
    const char *kern[2] = {"gemm", "qr"};
    for (int k = 0; k < 2; k++) {
        int cnt;
        double g = peer_median(json_object_get(doc, "raw"), kern[k], n, &cnt);
        cr_assert_eq(cnt, reps, "%s: one peer run per round", kern[k]);
        cr_assert_gt(g, 0);
        check_best(sum, kern[k], g);
        check_best(json_array_get(json_object_get(sum, "rows"), 0), kern[k], g);
    }
    done(dir, sum, doc);
}

Test(scn_kernels, quick_without_a_peer_compares_with_this_build_only)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv("NUMATILE_FLAT_PEER", "", 1);
    char dir[] = "/tmp/nt-bench-peer-XXXXXX";
    json_t *doc, *sum = run_kernels(dir, &doc);
    cr_assert(json_is_null(json_object_get(sum, "openblas_peer")));
    cr_assert(has_notice(doc, "no flat OpenBLAS peer"));
    int cnt;
    cr_assert_eq(peer_median(json_object_get(doc, "raw"), "gemm", 512, &cnt), 0);
    cr_assert_eq(cnt, 0);
    check_best(sum, "gemm", 0);
    check_best(sum, "qr", 0);
    done(dir, sum, doc);
}

Test(scn_kernels, a_failing_peer_is_reported_and_left_out)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv("NUMATILE_FLAT_PEER", "/bin/false", 1);
    char dir[] = "/tmp/nt-bench-peer-XXXXXX";
    json_t *doc, *sum = run_kernels(dir, &doc);
    cr_assert(json_is_null(json_object_get(sum, "openblas_peer")));
    cr_assert(has_notice(doc, "/bin/false failed"));
    check_best(sum, "gemm", 0);
    check_best(sum, "qr", 0);
    done(dir, sum, doc);
}

// Run the peer with args (NULL-terminated, after the program); its stdout into out (len).
static int run_peer(const char *peer, const char *const *args, char *out, size_t len)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[16] = {peer};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        dup2(fd[1], 1);
        close(fd[0]);
        // The usage errors the test provokes are expected: keep them off the test's output.
        if (!freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(peer, (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    for (ssize_t r; got + 1 < len && (r = read(fd[0], out + got, len - 1 - got)) > 0;)
        got += (size_t)r;
    out[got] = '\0';
    close(fd[0]);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

Test(scn_kernels, flat_openblas_prints_one_json_line)
{
    char peer[PATH_MAX], out[4096];
    if (!tool_path() || !peer_beside_tool(peer, sizeof peer))
        cr_skip("no flat_openblas beside $NT_TOOL");
    int rc = run_peer(peer, (const char *[]){"--n", "96", "--threads", "1", "--reps", "3", NULL},
                      out, sizeof out);
    cr_assert_eq(rc, 0, "exit %d", rc);
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
    json_error_t e;
    json_t *o = json_loads(out, 0, &e);
    cr_assert_not_null(o, "%s: %s", e.text, out);
    cr_assert_eq(num(o, "n"), 96);
    cr_assert_eq(num(o, "threads"), 1);
    cr_assert_eq(num(o, "reps"), 3);
    for (int k = 0; k < 2; k++) {
        const char *kn = k ? "qr" : "gemm";
        double g = knum(o, kn, "gflops"), lo = knum(o, kn, "gflops_min");
        cr_assert(lo > 0 && lo <= g && g <= knum(o, kn, "gflops_max"), "%s", kn);
        double x = 96, f = k ? 4.0 / 3 * x * x * x : 2 * x * x * x;
        cr_assert(fabs(f / knum(o, kn, "seconds") / 1e9 - g) <= 1e-4 * g, "%s", kn);
    }
    json_decref(o);
    cr_assert_eq(run_peer(peer, (const char *[]){"--n", "0", NULL}, out, sizeof out), 2);
    cr_assert_eq(run_peer(peer, (const char *[]){"--kernel", "lu", "--n", "8", NULL}, out,
                          sizeof out), 2);
}
