// The thread-safety claims of the public headers: two threads planning and executing on distinct
// matrices at once, and the same work called from inside the caller's OpenMP parallel region.
// Results are collected per thread and asserted on the main thread (Criterion's asserts are not
// for other threads).
#include <criterion/criterion.h>
#include <omp.h>
#include <pthread.h>
#include <string.h>

#include "numatile.h"

typedef struct job {
    const nt_topo_t *topo;
    uint64_t seed;
    const char *from, *to;
    nt_status st;       // first failure, NT_OK if none
    char msg[256];      // its nt_last_error()
    int64_t bad;        // target elements that differ from the source
    nt_status enospace; // a refused huge matrix on this thread: NT_ENOSPACE expected
} job;

static nt_status fail(job *j, nt_status st)
{
    j->st = st;
    strncpy(j->msg, nt_last_error(), sizeof j->msg - 1);
    return st;
}

// Create, fill, plan, execute and check one redistribution of a 96 x 80 matrix.
static void run_job(job *j)
{
    nt_matrix_shape_t ss = {96, 80, 12, 10, 8}, ts = {96, 80, 16, 8, 8};
    nt_matrix_t *S = NULL, *T = NULL;
    nt_plan_t *p = NULL;
    nt_status st;
    j->bad = -1;
    if ((st = nt_matrix_create_spec(j->topo, &ss, j->from, 0, NT_LAYOUT_TILE, 0, &S)) ||
        (st = nt_matrix_create_spec(j->topo, &ts, j->to, 0, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                    &T)) ||
        (st = nt_matrix_fill_pattern(S, j->seed)) ||
        (st = nt_plan_create(S, T, NULL, NULL, &p)) ||
        (st = nt_plan_execute(p, S, T, NULL, NULL)) ||
        (st = nt_matrix_check_pattern(T, j->seed, 0, 0, 96, 80, 0, 0, &j->bad)))
        fail(j, st);
    // A refusal on this thread leaves its own message, not another thread's.
    nt_matrix_shape_t huge = {1 << 22, 1 << 22, 1 << 15, 1 << 15, 8};
    nt_matrix_t *H = NULL;
    j->enospace = nt_matrix_create_spec(j->topo, &huge, "bc2d:1x1", 0, NT_LAYOUT_TILE, 0, &H);
    if (j->enospace == NT_ENOSPACE && !strstr(nt_last_error(), "GiB free"))
        j->enospace = NT_EINVAL;
    nt_matrix_destroy(H);
    nt_plan_destroy(p);
    nt_matrix_destroy(S);
    nt_matrix_destroy(T);
}

static void *thread_main(void *arg)
{
    run_job(arg);
    return NULL;
}

static void check_job(const job *j)
{
    cr_assert_eq(j->st, NT_OK, "seed %llu: %s", (unsigned long long)j->seed, j->msg);
    cr_assert_eq(j->bad, 0, "%lld elements differ", (long long)j->bad);
    cr_assert_eq(j->enospace, NT_ENOSPACE);
}

static const char *const specs[][2] = {{"bc2d:2x1", "bc1d:2"}, {"bc1d:2", "bc2d:1x2"}};

Test(concurrency, two_pthreads_plan_and_execute)
{
    nt_topo_opts_t o = {.domains = 2};
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    job jobs[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        jobs[k] = (job){.topo = t, .seed = 100 + (uint64_t)k, .from = specs[k][0],
                        .to = specs[k][1]};
        cr_assert_eq(pthread_create(&th[k], NULL, thread_main, &jobs[k]), 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++)
        check_job(&jobs[k]);
    nt_topo_destroy(t);
}

Test(concurrency, called_inside_an_openmp_parallel_region)
{
    nt_topo_opts_t o = {.domains = 2};
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    job jobs[2];
    for (int k = 0; k < 2; k++)
        jobs[k] = (job){.topo = t, .seed = 200 + (uint64_t)k, .from = specs[k][0],
                        .to = specs[k][1]};
#pragma omp parallel num_threads(2)
    {
        int k = omp_get_thread_num();
        if (k < 2)
            run_job(&jobs[k]);
    }
    for (int k = 0; k < 2; k++)
        check_job(&jobs[k]);
    nt_topo_destroy(t);
}
