// The public task API (numatile/task.h).
// Oracles: random task programs over a few tiles and handles, with the execution order recorded
// (every conflicting pair -- same tile, at least one write -- must run in program order; two
// readers must be able to run at once); the cpu each task ran on against its domain's cpus;
// remote-traffic and per-domain counts recomputed naively from the accesses.
#include <criterion/criterion.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel_test_util.h"
#include "nt_core.h"
#include "numatile.h"
#include "numatile/task.h"

enum { MAXT = 96, MAXA = 3, MAXREP = 3 };

// One random program: tasks with up to MAXA accesses on the 4 tiles of a 2x2-tile matrix and
// 2 data handles (access targets 0..5).
typedef struct prog {
    int ntask;
    int nacc[MAXT];
    int target[MAXT][MAXA];
    int mode[MAXT][MAXA];
    int domain[MAXT]; // NT_TASK_AUTO_DOMAIN or a domain
} prog;

typedef struct rec {
    _Atomic int64_t clock;
    int64_t start[MAXREP][MAXT], end[MAXREP][MAXT];
    _Atomic int runs[MAXT];
    int ran_domain[MAXREP][MAXT], placed[MAXT], cpu_domain[MAXT];
    bool on_owner[MAXT];
    const nt_topo_t *topo;
} rec;

typedef struct targ {
    rec *r;
    int t;
} targ;

static void spin(int64_t ns)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < ns);
}

static nt_status record(const nt_task_info_t *info, void *arg)
{
    const targ *a = arg;
    rec *r = a->r;
    int64_t rep = info->repetition;
    r->start[rep][a->t] = atomic_fetch_add(&r->clock, 1);
    spin(20000 * (a->t % 3)); // give the others a chance to overlap
    r->ran_domain[rep][a->t] = info->run_domain;
    r->placed[a->t] = info->domain;
    r->on_owner[a->t] = info->on_owner;
    int cpu = sched_getcpu(), cd = -1;
    if (cpu >= 0)
        nt_topo_cpu_domain(r->topo, cpu, &cd);
    r->cpu_domain[a->t] = cd;
    atomic_fetch_add(&r->runs[a->t], 1);
    r->end[rep][a->t] = atomic_fetch_add(&r->clock, 1);
    return NT_OK;
}

static void random_prog(prog *p, uint64_t seed, int D)
{
    nt_rng g = {seed};
    p->ntask = 20 + (int)nt_rng_below(&g, MAXT - 20);
    for (int t = 0; t < p->ntask; t++) {
        p->nacc[t] = 1 + (int)nt_rng_below(&g, MAXA);
        for (int k = 0; k < p->nacc[t]; k++) {
            p->target[t][k] = (int)nt_rng_below(&g, 6);
            p->mode[t][k] = 1 + (int)nt_rng_below(&g, 3);
        }
        p->domain[t] = nt_rng_below(&g, 3) == 0 ? (int)nt_rng_below(&g, (uint64_t)D)
                                                : NT_TASK_AUTO_DOMAIN;
    }
}

static nt_task_access_t access_of(const prog *p, int t, int k, const nt_matrix_t *A,
                                  const int64_t *h)
{
    int x = p->target[t][k];
    nt_task_mode m = (nt_task_mode)p->mode[t][k];
    return x < 4 ? nt_task_tile(m, A, x / 2, x % 2) : nt_task_data(m, h[x - 4]);
}

static bool conflict(const prog *p, int a, int b)
{
    for (int k = 0; k < p->nacc[a]; k++)
        for (int l = 0; l < p->nacc[b]; l++)
            if (p->target[a][k] == p->target[b][l] &&
                ((p->mode[a][k] | p->mode[b][l]) & NT_TASK_WRITE))
                return true;
    return false;
}

// Domain a task of p lands on (the oracle of NT_TASK_AUTO_DOMAIN).
static int expected_domain(const prog *p, int t, const nt_matrix_t *A, const int *hdom)
{
    if (p->domain[t] != NT_TASK_AUTO_DOMAIN)
        return p->domain[t];
    int k = 0;
    for (int l = p->nacc[t] - 1; l >= 0; l--)
        if (p->mode[t][l] & NT_TASK_WRITE)
            k = l;
    int x = p->target[t][k];
    return x < 4 ? nt_matrix_tile_domain(A, x / 2, x % 2) : hdom[x - 4];
}

static nt_matrix_t *tiles2x2(const nt_topo_t *t, const char *spec)
{
    nt_matrix_shape_t sh = {6, 5, 3, 3, 8}; // tiles 3x3, 3x2, 3x3, 3x2
    nt_matrix_t *A = NULL;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, spec, nt_topo_ndomains(t), NT_LAYOUT_TILE, 0, &A),
                 NT_OK, "%s", nt_last_error());
    return A;
}

// Build p on a graph, run it, and check order, placement and counts.
static void run_prog(const nt_topo_t *topo, const prog *p, uint64_t seed, int tpd,
                     nt_kernel_sched sched, int64_t repeat)
{
    int D = nt_topo_ndomains(topo);
    char spec[32];
    snprintf(spec, sizeof spec, "random:%llu", (unsigned long long)seed);
    nt_matrix_t *A = tiles2x2(topo, spec);
    nt_task_graph_t *g;
    cr_assert_eq(nt_task_graph_create(topo, &g), NT_OK, "%s", nt_last_error());
    int64_t h[2];
    int hdom[2] = {(int)(seed % (uint64_t)D), (int)((seed / 3) % (uint64_t)D)};
    int64_t hbytes[2] = {100, 7};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(nt_task_data_register(g, hdom[k], hbytes[k], &h[k]), NT_OK);
        cr_assert_eq(h[k], k);
    }
    rec *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    r->topo = topo;
    // The naive counts.
    int64_t rr = 0, rrb = 0, rw = 0, rwb = 0, owned[8] = {0};
    for (int t = 0; t < p->ntask; t++) {
        nt_task_access_t acc[MAXA];
        int d = expected_domain(p, t, A, hdom);
        owned[d]++;
        for (int k = 0; k < p->nacc[t]; k++) {
            acc[k] = access_of(p, t, k, A, h);
            int x = p->target[t][k];
            int xd = x < 4 ? nt_matrix_tile_domain(A, x / 2, x % 2) : hdom[x - 4];
            int64_t xb = x < 4 ? nt_matrix_tile_rows(A, x / 2) * nt_matrix_tile_cols(A, x % 2) * 8
                               : hbytes[x - 4];
            if (xd != d && (p->mode[t][k] & NT_TASK_READ)) {
                rr++;
                rrb += xb;
            }
            if (xd != d && (p->mode[t][k] & NT_TASK_WRITE)) {
                rw++;
                rwb += xb;
            }
        }
        targ a = {r, t};
        cr_assert_eq(nt_task_submit(g, record, &a, sizeof a, p->nacc[t], acc, p->domain[t],
                                    (int)(t % 4)), NT_OK, "%s", nt_last_error());
    }
    cr_assert_eq(nt_task_graph_ntasks(g), p->ntask);
    nt_task_run_opts_t ro = {.threads_per_domain = tpd, .sched = sched, .repeat = repeat};
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_task_graph_run(g, &ro, &s), NT_OK, "%s", nt_last_error());
    int64_t R = repeat ? repeat : 1;
    bool bound = !nt_topo_oversubscribed(topo);
    int64_t run_by[8] = {0};
    for (int t = 0; t < p->ntask; t++) {
        cr_assert_eq(atomic_load(&r->runs[t]), R, "task %d ran %d times", t,
                     atomic_load(&r->runs[t]));
        int d = expected_domain(p, t, A, hdom);
        cr_assert_eq(r->placed[t], d, "task %d placed on %d, expected %d", t, r->placed[t], d);
        for (int64_t q = 0; q < R; q++)
            run_by[r->ran_domain[q][t]]++;
        if (sched == NT_KERNEL_OWNER) {
            cr_assert_eq(r->ran_domain[0][t], d);
            if (bound) {
                cr_assert_eq(r->cpu_domain[t], d, "task %d ran on a cpu of domain %d, not %d", t,
                             r->cpu_domain[t], d);
                cr_assert(r->on_owner[t]);
            }
        } else if (bound) {
            cr_assert_eq(r->on_owner[t], r->cpu_domain[t] == d && r->ran_domain[R - 1][t] == d);
        }
        for (int u = 0; u < t; u++)
            if (conflict(p, u, t))
                for (int64_t q = 0; q < R; q++)
                    cr_assert_lt(r->end[q][u], r->start[q][t],
                                 "seed %llu rep %lld: task %d conflicts with earlier task %d "
                                 "but started before it ended", (unsigned long long)seed,
                                 (long long)q, t, u);
    }
    // Repetitions follow each other.
    for (int64_t q = 1; q < R; q++)
        for (int t = 0; t < p->ntask; t++)
            for (int u = 0; u < p->ntask; u++)
                cr_assert_lt(r->end[q - 1][u], r->start[q][t]);
    cr_assert_eq(s.tasks, p->ntask * R);
    cr_assert_eq(s.remote_reads, rr * R);
    cr_assert_eq(s.remote_read_bytes, rrb * R);
    cr_assert_eq(s.remote_writes, rw * R);
    cr_assert_eq(s.remote_write_bytes, rwb * R);
    for (int d = 0; d < D; d++) {
        cr_assert_eq(s.tasks_owned[d], owned[d] * R, "domain %d", d);
        cr_assert_eq(s.tasks_run[d], run_by[d], "domain %d", d);
    }
    if (sched == NT_KERNEL_OWNER && bound) {
        cr_assert_eq(s.owner_tasks, p->ntask * R);
        cr_assert_float_eq(s.owner_fraction, 1.0, 1e-12);
    }
    nt_kernel_stats_free(&s);
    nt_task_graph_destroy(g);
    nt_matrix_destroy(A);
    free(r);
}

Test(task, random_programs_follow_program_order_on_owners)
{
    nt_topo_t *t = kt_topo(2);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        prog p;
        random_prog(&p, seed * 7919, 2);
        run_prog(t, &p, seed, 1, NT_KERNEL_OWNER, 0);
        run_prog(t, &p, seed, 2, NT_KERNEL_OWNER, seed % 3 == 0 ? 3 : 1);
        run_prog(t, &p, seed, 1, NT_KERNEL_OMP, seed % 4 == 0 ? 2 : 1);
    }
    nt_topo_destroy(t);
}

Test(task, one_domain_and_physical_topology)
{
    nt_topo_opts_t o = {0};
    nt_topo_t *t = NULL;
    cr_assert_eq(nt_topo_load(&o, &t), NT_OK, "%s", nt_last_error());
    prog p;
    random_prog(&p, 4242, nt_topo_ndomains(t));
    run_prog(t, &p, 5, 0, NT_KERNEL_OWNER, 0);
    nt_topo_destroy(t);
}

// Two tasks that only read the same tile, on different domains, must be able to run at once:
// each waits (with a time limit) until the other has started.
typedef struct meet {
    _Atomic int arrived;
    _Atomic int missed;
} meet;

static nt_status rendezvous(const nt_task_info_t *info, void *arg)
{
    (void)info;
    meet *m = arg;
    atomic_fetch_add(&m->arrived, 1);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    while (atomic_load(&m->arrived) < 2) {
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (b.tv_sec - a.tv_sec > 20) {
            atomic_store(&m->missed, 1);
            break;
        }
        sched_yield();
    }
    return NT_OK;
}

Test(task, readers_and_independent_writers_run_concurrently)
{
    nt_topo_t *t = kt_topo(2);
    nt_matrix_t *A = tiles2x2(t, "bc2d:1x2");
    for (int kind = 0; kind < 2; kind++) {
        meet m = {0};
        nt_task_graph_t *g;
        cr_assert_eq(nt_task_graph_create(t, &g), NT_OK);
        for (int d = 0; d < 2; d++) {
            // kind 0: both read tile (0,0); kind 1: each writes its own tile.
            nt_task_access_t acc = kind == 0 ? nt_task_tile(NT_TASK_READ, A, 0, 0)
                                             : nt_task_tile(NT_TASK_WRITE, A, 1, d);
            cr_assert_eq(nt_task_submit(g, rendezvous, &m, 0, 1, &acc, d, 0), NT_OK);
        }
        nt_task_run_opts_t ro = {.threads_per_domain = 1};
        cr_assert_eq(nt_task_graph_run(g, &ro, NULL), NT_OK, "%s", nt_last_error());
        cr_assert_eq(atomic_load(&m.missed), 0, "kind %d: the two tasks did not overlap", kind);
        nt_task_graph_destroy(g);
    }
    nt_matrix_destroy(A);
    nt_topo_destroy(t);
}

// A chain of tasks on one tile: task `fail_at` fails, a later one would fail differently.
typedef struct chain {
    _Atomic int ran[16];
    int fail_at, fail2_at;
    bool with_message;
} chain;

typedef struct carg {
    chain *c;
    int t;
} carg;

static nt_status link_fn(const nt_task_info_t *info, void *arg)
{
    (void)info;
    const carg *a = arg;
    atomic_fetch_add(&a->c->ran[a->t], 1);
    if (a->t == a->c->fail_at)
        return a->c->with_message ? nt_fail(NT_ERANGE, "link %d broke", a->t) : NT_ERANGE;
    if (a->t == a->c->fail2_at)
        return nt_fail(NT_EIO, "second failure");
    return NT_OK;
}

Test(task, first_error_wins_and_later_tasks_are_skipped)
{
    nt_topo_t *t = kt_topo(2);
    nt_matrix_t *A = tiles2x2(t, "bc2d:2x1");
    for (int msg = 0; msg < 2; msg++)
        for (int sched = 0; sched < 2; sched++) {
            chain c = {.fail_at = 5, .fail2_at = 9, .with_message = msg};
            nt_task_graph_t *g;
            cr_assert_eq(nt_task_graph_create(t, &g), NT_OK);
            for (int k = 0; k < 12; k++) {
                carg a = {&c, k};
                nt_task_access_t acc = nt_task_tile(NT_TASK_READWRITE, A, k % 2, 0);
                nt_task_access_t two[2] = {acc, nt_task_tile(NT_TASK_READWRITE, A, 1 - k % 2, 0)};
                cr_assert_eq(nt_task_submit(g, link_fn, &a, sizeof a, 2, two,
                                            NT_TASK_AUTO_DOMAIN, 0), NT_OK);
            }
            nt_task_run_opts_t ro = {.sched = (nt_kernel_sched)sched, .repeat = 2};
            nt_kernel_stats_t s = {0};
            cr_assert_eq(nt_task_graph_run(g, &ro, &s), NT_ERANGE);
            if (msg)
                cr_assert(strstr(nt_last_error(), "link 5 broke"), "%s", nt_last_error());
            else
                cr_assert(strstr(nt_last_error(), "task 5 failed"), "%s", nt_last_error());
            for (int k = 0; k < 12; k++)
                cr_assert_eq(atomic_load(&c.ran[k]), k <= 5 ? 1 : 0, "task %d ran %d times",
                             k, atomic_load(&c.ran[k]));
            cr_assert_eq(s.tasks, 0, "stats are updated only on success");
            nt_kernel_stats_free(&s);
            nt_task_graph_destroy(g);
        }
    nt_matrix_destroy(A);
    nt_topo_destroy(t);
}

typedef struct big {
    double v[20];
    int64_t tag;
} big;

static nt_status check_arg(const nt_task_info_t *info, void *arg)
{
    const big *b = arg;
    if ((uintptr_t)arg % _Alignof(max_align_t) != 0)
        return nt_fail(NT_EINVAL, "argument copy misaligned");
    for (int k = 0; k < 20; k++)
        if (b->v[k] != (double)(k + b->tag))
            return nt_fail(NT_EINVAL, "argument copy altered");
    if (!info->workspace || info->workspace_bytes != 4096)
        return nt_fail(NT_EINVAL, "no workspace");
    memset(info->workspace, 0xab, info->workspace_bytes);
    return NT_OK;
}

Test(task, arguments_are_copied_and_workspaces_given)
{
    nt_topo_t *t = kt_topo(2);
    nt_task_graph_t *g;
    cr_assert_eq(nt_task_graph_create(t, &g), NT_OK);
    big b;
    for (int64_t tag = 0; tag < 10; tag++) {
        for (int k = 0; k < 20; k++)
            b.v[k] = (double)(k + tag);
        b.tag = tag;
        cr_assert_eq(nt_task_submit(g, check_arg, &b, sizeof b, 0, NULL, (int)(tag % 2), 0),
                     NT_OK);
        memset(&b, 0, sizeof b); // the graph kept its own copy
    }
    nt_task_run_opts_t ro = {.workspace_bytes = 4096};
    cr_assert_eq(nt_task_graph_run(g, &ro, NULL), NT_OK, "%s", nt_last_error());
    nt_task_graph_destroy(g);
    nt_topo_destroy(t);
}

static nt_status nop(const nt_task_info_t *info, void *arg)
{
    (void)info;
    (void)arg;
    return NT_OK;
}

Test(task, bad_arguments_are_refused_and_leave_the_graph_as_it_was)
{
    nt_topo_t *t = kt_topo(2), *t2 = kt_topo(2);
    nt_matrix_t *A = tiles2x2(t, "bc2d:1x2"), *O = tiles2x2(t2, "bc2d:1x2"), *N = NULL;
    nt_matrix_shape_t sh = {6, 5, 3, 3, 8};
    cr_assert_eq(nt_matrix_create_spec(t, &sh, "bc2d:1x2", 2, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                       &N), NT_OK);
    nt_task_graph_t *g = NULL;
    cr_assert_eq(nt_task_graph_create(NULL, &g), NT_EINVAL);
    cr_assert_eq(nt_task_graph_create(t, NULL), NT_EINVAL);
    nt_topo_opts_t so = {.synthetic = "pack:2 [numa] core:2 pu:2"};
    nt_topo_t *syn = NULL;
    cr_assert_eq(nt_topo_load(&so, &syn), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_task_graph_create(syn, &g), NT_ENOTSUP);
    cr_assert_null(g);
    cr_assert_eq(nt_task_graph_create(t, &g), NT_OK);

    int64_t h = -5;
    cr_assert_eq(nt_task_data_register(NULL, 0, 8, &h), NT_EINVAL);
    cr_assert_eq(nt_task_data_register(g, 0, 8, NULL), NT_EINVAL);
    cr_assert_eq(nt_task_data_register(g, 2, 8, &h), NT_EINVAL);
    cr_assert_eq(nt_task_data_register(g, -1, 8, &h), NT_EINVAL);
    cr_assert_eq(nt_task_data_register(g, 0, -1, &h), NT_EINVAL);
    cr_assert_eq(h, -5);
    cr_assert_eq(nt_task_data_register(g, 1, 8, &h), NT_OK);

    nt_task_access_t ok = nt_task_tile(NT_TASK_READ, A, 1, 1);
    struct {
        nt_task_access_t acc;
        const char *what;
    } bad[] = {
        {nt_task_tile((nt_task_mode)0, A, 0, 0), "mode"},
        {nt_task_tile((nt_task_mode)4, A, 0, 0), "mode"},
        {nt_task_tile(NT_TASK_READ, A, 2, 0), "outside"},
        {nt_task_tile(NT_TASK_READ, A, 0, -1), "outside"},
        {nt_task_tile(NT_TASK_READ, O, 0, 0), "another topology"},
        {nt_task_tile(NT_TASK_READ, N, 0, 0), "no memory"},
        {nt_task_data(NT_TASK_WRITE, 1), "handle"},
        {nt_task_data(NT_TASK_WRITE, -1), "handle"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        nt_task_access_t two[2] = {ok, bad[k].acc};
        cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 2, two, NT_TASK_AUTO_DOMAIN, 0), NT_EINVAL,
                     "case %zu", k);
        cr_assert(strstr(nt_last_error(), bad[k].what) && strstr(nt_last_error(), "access 1"),
                  "case %zu: %s", k, nt_last_error());
    }
    int x = 0;
    cr_assert_eq(nt_task_submit(NULL, nop, NULL, 0, 1, &ok, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, NULL, NULL, 0, 1, &ok, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 4, 1, &ok, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, &x, NT_TASK_MAX_ARG_BYTES + 1, 1, &ok, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 1, NULL, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, -1, &ok, 0, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, NT_TASK_MAX_ACCESSES + 1, &ok, 0, 0),
                 NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 1, &ok, 2, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 1, &ok, -2, 0), NT_EINVAL);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 0, NULL, NT_TASK_AUTO_DOMAIN, 0), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "give a domain"), "%s", nt_last_error());
    cr_assert_eq(nt_task_graph_ntasks(g), 0);
    cr_assert_eq(nt_task_graph_ntasks(NULL), 0);
    cr_assert_eq(nt_task_submit(g, nop, NULL, 0, 0, NULL, 1, 0), NT_OK);
    cr_assert_eq(nt_task_submit(g, nop, &x, sizeof x, 1, &ok, NT_TASK_AUTO_DOMAIN, 0), NT_OK);
    cr_assert_eq(nt_task_graph_ntasks(g), 2);

    nt_task_run_opts_t bad_opts[] = {{.threads_per_domain = -1}, {.threads_per_domain = 1025},
                                     {.sched = (nt_kernel_sched)7}, {.repeat = -1}};
    for (size_t k = 0; k < sizeof bad_opts / sizeof bad_opts[0]; k++)
        cr_assert_eq(nt_task_graph_run(g, &bad_opts[k], NULL), NT_EINVAL, "case %zu", k);
    cr_assert_eq(nt_task_graph_run(NULL, NULL, NULL), NT_EINVAL);
    nt_task_run_opts_t huge = {.repeat = INT64_MAX};
    cr_assert_eq(nt_task_graph_run(g, &huge, NULL), NT_ERANGE);
    // Stats that counted a run on 3 domains.
    nt_topo_t *t3 = kt_topo(3);
    nt_task_graph_t *g3;
    nt_kernel_stats_t s3 = {0};
    cr_assert_eq(nt_task_graph_create(t3, &g3), NT_OK);
    cr_assert_eq(nt_task_graph_run(g3, NULL, &s3), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_task_graph_run(g, NULL, &s3), NT_EINVAL);
    nt_kernel_stats_free(&s3);
    nt_task_graph_destroy(g3);
    nt_topo_destroy(t3);
    nt_kernel_stats_t s = {0};
    cr_assert_eq(nt_task_graph_run(g, NULL, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(s.tasks, 2);
    cr_assert_eq(s.remote_reads, 0); // the auto task runs on its tile's domain
    nt_kernel_stats_free(&s);
    nt_task_graph_destroy(g);
    nt_task_graph_destroy(NULL);
    nt_matrix_destroy(A);
    nt_matrix_destroy(O);
    nt_matrix_destroy(N);
    nt_topo_destroy(syn);
    nt_topo_destroy(t2);
    nt_topo_destroy(t);
}

Test(task, empty_graph_runs)
{
    nt_topo_t *t = kt_topo(2);
    nt_task_graph_t *g;
    cr_assert_eq(nt_task_graph_create(t, &g), NT_OK);
    nt_kernel_stats_t s = {0};
    nt_task_run_opts_t ro = {.repeat = 5};
    cr_assert_eq(nt_task_graph_run(g, &ro, &s), NT_OK, "%s", nt_last_error());
    cr_assert_eq(s.tasks, 0);
    cr_assert_float_eq(s.owner_fraction, 1.0, 0);
    nt_kernel_stats_free(&s);
    nt_task_graph_destroy(g);
    nt_topo_destroy(t);
}
