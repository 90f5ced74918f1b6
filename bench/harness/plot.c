// Plots of the harness (see harness.h): running gnuplot on a script in the output directory.
#include "harness_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool bench_have_program(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || strchr(prog, '/'))
        return strchr(prog, '/') && access(prog, X_OK) == 0;
    for (const char *p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? p : ".", prog);
        if (access(buf, X_OK) == 0)
            return true;
        p += len + (colon != NULL);
    }
    return false;
}

bool bench_plot(bench_run *r, const char *script)
{
    static bool told; // one notice per process is enough when gnuplot is missing
    if (!bench_have_program("gnuplot")) {
        if (!told)
            bench_notice(r, "gnuplot is not on PATH: no PNG made (scripts are in %s)", r->dir);
        told = true;
        return false;
    }
    bench_close_bar(r);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(r->dir) != 0)
            _exit(127);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        bench_notice(r, "gnuplot %s failed in %s: no PNG", script, r->dir);
        return false;
    }
    return true;
}

