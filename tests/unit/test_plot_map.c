// docs/plot_map.sh (lab 3, step 4) run with gnuplot: the data file it draws must be the tile
// map the tool computes, N rows of N cells, cell for cell (the JSON "map" is the reference),
// in each form of the text dump it reads: one character per tile, letters beyond domain 9,
// numbers beyond domain 61.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool_run.h"

// The script beside the man page (NT_MANPAGE, exported by `make test-unit`), else from the
// source root, where the unit tests run.
static void script_path(char *buf, size_t cap)
{
    const char *man = getenv("NT_MANPAGE");
    const char *slash = man ? strrchr(man, '/') : NULL;
    if (slash)
        snprintf(buf, cap, "%.*s/plot_map.sh", (int)(slash - man), man);
    else
        snprintf(buf, cap, "docs/plot_map.sh");
}

// Run `TOOL=$NT_TOOL OUT=dir sh plot_map.sh speeds n algo`; its exit status, stderr in err.
static int run_script(const char *script, const char *dir, const char *speeds, const char *n,
                      const char *algo, char *err, size_t cap)
{
    FILE *e = tmpfile();
    cr_assert_not_null(e);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TOOL", tool_path(), 1);
        setenv("OUT", dir, 1);
        dup2(fileno(e), 1); // the PNG's path; not needed
        dup2(fileno(e), 2);
        execlp("sh", "sh", script, speeds, n, algo, (char *)NULL);
        _exit(127);
    }
    int ws, status = -1;
    if (pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws))
        status = WEXITSTATUS(ws);
    rewind(e);
    size_t len = fread(err, 1, cap - 1, e);
    err[len] = '\0';
    fclose(e);
    return status;
}

// The data file against the JSON map: n lines of n integers each, equal cell for cell.
static void check_data(const char *path, json_t *map, int n)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no data file %s", path);
    char line[65536];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cr_assert_lt(rows, n, "%s: more than %d rows", path, n);
        json_t *want = json_array_get(map, (size_t)rows);
        int cols = 0;
        char *p = line, *end;
        for (long v; (v = strtol(p, &end, 10)), end != p; p = end, cols++) {
            cr_assert_lt(cols, n, "%s row %d: more than %d cells", path, rows, n);
            cr_expect_eq(v, json_integer_value(json_array_get(want, (size_t)cols)),
                         "%s: cell (%d, %d) is %ld, the tool says %lld", path, rows, cols, v,
                         (long long)json_integer_value(json_array_get(want, (size_t)cols)));
        }
        cr_assert_eq(cols, n, "%s row %d: %d cells, want %d", path, rows, cols, n);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, n, "%s: %d rows, want %d", path, rows, n);
}

static void check_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "no picture %s", path);
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    cr_expect(got == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", path);
}

static void plot_and_check(const char *speeds, int n, const char *algo)
{
    char script[4096], dir[] = "/tmp/nt_plot_map_XXXXXX", ns[16], err[4096], path[4200];
    script_path(script, sizeof script);
    if (access(script, R_OK) != 0)
        cr_skip("%s not found (run from the source root)", script);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(ns, sizeof ns, "%d", n);
    int st = run_script(script, dir, speeds, ns, algo, err, sizeof err);
    cr_assert_eq(st, 0, "plot_map.sh %s %d %s: exit %d: %s", speeds, n, algo, st, err);
    json_t *j = tool_json((const char *[]){"partition", "--speeds", speeds, "--n", ns,
                                           "--algo", algo, "--dump", "--json", NULL});
    snprintf(path, sizeof path, "%s/partition-%s.dat", dir, algo);
    check_data(path, json_object_get(j, "map"), n);
    unlink(path);
    snprintf(path, sizeof path, "%s/partition-%s.png", dir, algo);
    check_png(path);
    unlink(path);
    json_decref(j);
    cr_expect_eq(rmdir(dir), 0, "%s: the script left files behind", dir);
}

static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

// The lab's own command: three domains, one character per tile.
Test(plot_map, lab3_map_is_drawn_cell_for_cell)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    if (!have_gnuplot())
        cr_skip("gnuplot not installed");
    plot_and_check("4,2,1", 24, "nrrp");
}

// Twelve domains: ids 10 and 11 are the letters a and b in the dump.
Test(plot_map, letters_beyond_domain_9)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    if (!have_gnuplot())
        cr_skip("gnuplot not installed");
    plot_and_check("1,2,3,4,5,6,7,8,9,10,11,12", 12, "rrp");
}

// Seventy domains: the dump switches to space-separated numbers.
Test(plot_map, numbers_beyond_domain_61)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    if (!have_gnuplot())
        cr_skip("gnuplot not installed");
    char speeds[512] = "";
    for (int i = 0; i < 70; i++)
        snprintf(speeds + strlen(speeds), sizeof speeds - strlen(speeds), "%s%d", i ? "," : "",
                 1 + i % 5);
    plot_and_check(speeds, 16, "column");
}
