#include "tool_run.h"

#include <criterion/criterion.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tool_path(void)
{
    const char *p = getenv("NT_TOOL");
    return p && *p ? p : NULL;
}

static char *slurp(FILE *f)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    rewind(f);
    for (size_t n; (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    return buf;
}

tool_result tool_run(const char *const *args)
{
    tool_result r = {.status = -1};
    FILE *out = tmpfile(), *err = tmpfile();
    pid_t pid = fork();
    if (pid == 0) {
        int argc = 0;
        while (args[argc])
            argc++;
        char **argv = calloc((size_t)argc + 2, sizeof *argv);
        argv[0] = (char *)tool_path();
        for (int i = 0; i < argc; i++)
            argv[i + 1] = (char *)args[i];
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int ws;
    if (pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws))
        r.status = WEXITSTATUS(ws);
    r.out = slurp(out);
    r.err = slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

void tool_result_free(tool_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

json_t *tool_json(const char *const *args)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    cr_assert_not_null(j, "not one JSON object (%s): %s", e.text, r.out);
    tool_result_free(&r);
    return j;
}
