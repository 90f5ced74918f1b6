// Run the built `numatile` tool (path in $NT_TOOL, exported by `make test-unit`) and capture
// its exit status, stdout and stderr. For CLI tests.
#ifndef NUMATILE_TEST_TOOL_RUN_H
#define NUMATILE_TEST_TOOL_RUN_H

typedef struct tool_result {
    int status;   // exit status, or -1 if the tool could not run
    char *out;    // stdout, NUL-terminated, caller frees
    char *err;    // stderr, NUL-terminated, caller frees
} tool_result;

// Path of the tool, or NULL when NT_TOOL is not set (callers then cr_skip).
const char *tool_path(void);

// Run `numatile ARGS...` (args NULL-terminated). Never returns NULL buffers.
tool_result tool_run(const char *const *args);

void tool_result_free(tool_result *r);

// Run the tool, assert (Criterion) that it exits 0 and prints one JSON object; return it
// (caller json_decref()s).
struct json_t;
struct json_t *tool_json(const char *const *args);

#endif
