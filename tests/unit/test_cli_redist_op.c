// `numatile plan/redist --op --alpha --beta --uplo --diag --type`: executions verified by the
// tool's per-element check, the JSON fields of the operation, and argument errors (exit 2,
// the option named).
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tool_run.h"

static void need_tool(void)
{
    if (!tool_path())
        cr_skip_test("NT_TOOL not set");
}

Test(cli_redist_op, operations_verify_and_report_their_fields)
{
    need_tool();
    const char *const cases[][12] = {
        {"--op", "T", NULL},
        {"--op", "T", "--alpha", "2", "--beta", "-0.5", NULL},
        {"--op", "C", "--type", "z", "--alpha", "1,2", "--beta", "0.5,-1", NULL},
        {"--op", "N", "--uplo", "U", "--diag", "U", "--type", "s", NULL},
        {"--op", "T", "--uplo", "L", "--type", "c", "--alpha", "0,1", NULL},
        {"--op", "C", "--from-layout", "scalapack", "--to-layout", "scalapack", "--type", "c",
         NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *args[32] = {"redist", "--m", "90", "--n", "70", "--from", "16x12@bc2d:2x1",
                                "--to", "10x13@bc2d:1x2", "--verify", "--json"};
        size_t n = 11;
        for (size_t a = 0; cases[k][a]; a++)
            args[n++] = cases[k][a];
        args[n] = NULL;
        json_t *j = tool_json(args);
        cr_assert(json_is_true(json_object_get(j, "verify")), "case %zu not verified", k);
        cr_assert_str_eq(json_string_value(json_object_get(j, "op")), cases[k][1]);
        cr_assert(json_is_array(json_object_get(j, "alpha")));
        cr_assert(json_is_array(json_object_get(j, "beta")));
        cr_assert_not_null(json_object_get(j, "uplo"));
        // Transposed, the target is N x M: 70 x 90 elements, all copied (beta = 0 or not).
        if (strcmp(cases[k][1], "N") != 0)
            cr_assert_eq(json_integer_value(json_object_get(j, "bytes")),
                         90 * 70 * (json_integer_value(json_object_get(j, "elem_size"))));
        json_decref(j);
    }
}

Test(cli_redist_op, bad_operation_arguments_exit_2)
{
    need_tool();
    const char *const cases[][6] = {
        {"--op", "X", NULL, NULL, "--op"},
        {"--alpha", "two", NULL, NULL, "--alpha"},
        {"--beta", "1,x", NULL, NULL, "--beta"},
        {"--uplo", "Q", NULL, NULL, "--uplo"},
        {"--diag", "U", NULL, NULL, "--diag"},
        {"--type", "q", NULL, NULL, "--type"},
        {"--op", "T", "--inplace", NULL, "--inplace"},
        {"--alpha", "2", "--mode", "move", "mode move"},
        {"--alpha", "2", "--elem", "4", "--type"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *args[20] = {"redist", "--m", "32", "--n", "32", "--from", "8@bc2d:2x1",
                                "--to", "8@bc2d:1x2"};
        size_t n = 9;
        for (size_t a = 0; a < 4 && cases[k][a]; a++)
            args[n++] = cases[k][a];
        args[n] = NULL;
        tool_result r = tool_run(args);
        cr_assert_eq(r.status, 2, "case %zu: exit %d (%s)", k, r.status, r.err);
        cr_assert(strstr(r.err, cases[k][4]), "case %zu: '%s' does not name %s", k, r.err,
                  cases[k][4]);
        tool_result_free(&r);
    }
}
