// Thread counts and stack sizes the machine cannot honour are refused with a message before any
// work: OMP_STACKSIZE x threads larger than the memory left was libgomp's "Thread creation
// failed" with exit 1 (which reads as a failed --verify); threads_per_domain = 1<<20 was a
// SIGSEGV in nt_plan_execute.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile.h"
#include "tool_run.h"

static const char *const redist[] = {"redist", "--m", "1000", "--n", "1000", "--from",
                                     "100@bc2d:1x1", "--to", "200@bc2d:1x1", NULL};

// `env var=value numatile redist ...` exits 2 within a second, naming var.
static void refused_with(const char *var, const char *value)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv(var, value, 1);
    double t0 = nt_now();
    tool_result r = tool_run(redist);
    double dt = nt_now() - t0;
    unsetenv(var);
    cr_assert_eq(r.status, 2, "%s=%s: exit %d, stderr: %s", var, value, r.status, r.err);
    cr_assert_not_null(strstr(r.err, var), "the message names %s: %s", var, r.err);
    cr_assert_null(strstr(r.err, "Thread creation failed"), "%s", r.err);
    cr_assert_lt(dt, 1.0, "took %.2f s", dt);
    tool_result_free(&r);
}

Test(threads, stacks_larger_than_memory_refused)
{
    refused_with("OMP_STACKSIZE", "200G");
    refused_with("OMP_STACKSIZE", "209715200 K");
    refused_with("GOMP_STACKSIZE", "200G");
}

// Stacks that fit run as before: the check does not refuse ordinary settings.
Test(threads, ordinary_stacks_run)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    setenv("OMP_STACKSIZE", "16M", 1);
    tool_result r = tool_run(redist);
    unsetenv("OMP_STACKSIZE");
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    tool_result_free(&r);
}

// The API bounds the copy threads per domain as nt_task_graph_run bounds the kernels'.
Test(threads, threads_per_domain_bounded)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 2}, &t), NT_OK, "%s",
                 nt_last_error());
    nt_matrix_shape_t a = {64, 64, 16, 16, 8}, b = {64, 64, 32, 32, 8};
    nt_matrix_t *S, *T;
    cr_assert_eq(nt_matrix_create_spec(t, &a, "bc2d:1x2", 0, NT_LAYOUT_TILE, 0, &S), NT_OK);
    cr_assert_eq(nt_matrix_create_spec(t, &b, "bc2d:2x1", 0, NT_LAYOUT_TILE, 0, &T), NT_OK);
    nt_plan_t *p;
    cr_assert_eq(nt_plan_create(S, T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    const int bad[] = {1 << 20, 1025, -1};
    for (int k = 0; k < 3; k++) {
        nt_exec_opts_t o = {.threads_per_domain = bad[k]};
        cr_assert_eq(nt_plan_execute(p, S, T, &o, NULL), NT_EINVAL, "%d", bad[k]);
        cr_assert_not_null(strstr(nt_last_error(), "threads_per_domain"), "%s",
                           nt_last_error());
        cr_assert_not_null(strstr(nt_last_error(), "1024"), "%s", nt_last_error());
    }
    cr_assert_eq(nt_plan_execute(p, S, T, &(nt_exec_opts_t){.threads_per_domain = 2}, NULL),
                 NT_OK, "%s", nt_last_error());
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
    nt_topo_destroy(t);
}
