// numatile advise --m M --n N --from TILE@DIST --kernel qr|gemm [--profile FILE] [--run]:
// rank "compute where the data are" against "redistribute, then compute" (nt_advise()), and
// with --run measure the choice and the runner-up.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_run.h"
#include "cli.h"
#include "cli_kern.h"
#include "commands.h"
#include "numatile/advise.h"
#include "numatile/profile.h"

static const char *advise_help =
    "usage: numatile advise --m M --n N --from TILE@DIST --kernel qr|gemm [options]\n"
    "  Predict, from a machine profile, the time of the kernel on the current placement\n"
    "  (owner) and of redistributing first to each candidate (bc2d:PxQ for every P x Q = D\n"
    "  with the labellings canonical, volume, steps, lex, distance; heterogeneous partitions\n"
    "  column, nrrp, snrrp from the measured speeds), ranked; the first is the choice.\n"
    "  --m M, --n N       matrix size in elements (gemm: n x n, give --m = --n)\n"
    "  --from TILE@DIST   current placement: MBxNB (or NB) tiles on DIST (see numatile plan)\n"
    "  --kernel K         qr or gemm (C = A B, A, B, C placed alike)\n"
    "  --profile FILE     the profile from numatile calibrate (default: calibrate now, quick)\n"
    "  --schedule S       free (default) or steps: schedule of the redistributions\n"
    "  --no-hetero        leave out the heterogeneous partitions\n"
    "  --run              execute the choice and the runner-up; predicted against measured\n"
    "  --domains D        split this machine into D domains (default: one per NUMA node)\n"
    "  --seed S           seed of the matrix values under --run (default 1)\n"
    "  --json             one JSON object: candidates (name, redistribute, bytes_copied,\n"
    "                     redist_seconds, kernel_seconds, total_seconds, ...), choice, runs\n";

enum { O_M = 1, O_N, O_FROM, O_KERNEL, O_PROFILE, O_SCHEDULE, O_NOHET, O_RUN };

static const struct option advise_options[] = {
    {"m", required_argument, 0, O_M},
    {"n", required_argument, 0, O_N},
    {"from", required_argument, 0, O_FROM},
    {"kernel", required_argument, 0, O_KERNEL},
    {"profile", required_argument, 0, O_PROFILE},
    {"schedule", required_argument, 0, O_SCHEDULE},
    {"no-hetero", no_argument, 0, O_NOHET},
    {"run", no_argument, 0, O_RUN},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"seed", required_argument, 0, CLI_OPT_SEED},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {0, 0, 0, 0}};

typedef struct aargs {
    cli_common co;
    int64_t m, n, mb, nb;
    const char *from, *dist, *profile;
    nt_advise_opts_t o;
    bool kernel_set, run;
} aargs;

// TILE@DIST with TILE = MBxNB or NB.
static bool tile_dist(const char *s, int64_t *mb, int64_t *nb, const char **dist)
{
    const char *at = strchr(s, '@');
    char tile[32];
    if (!at || at == s || !at[1] || (size_t)(at - s) >= sizeof tile)
        return false;
    memcpy(tile, s, (size_t)(at - s));
    tile[at - s] = 0;
    char *x = strchr(tile, 'x');
    if (x)
        *x = 0;
    *dist = at + 1;
    return cli_parse_i64(tile, 1, INT32_MAX, mb) &&
           cli_parse_i64(x ? x + 1 : tile, 1, INT32_MAX, nb);
}

static int option(aargs *a, int c, char **argv)
{
    switch (c) {
    case O_M:
    case O_N:
        if (!cli_parse_i64(optarg, 1, INT32_MAX, c == O_M ? &a->m : &a->n))
            return cli_usage("advise", "--%s: '%s' is not an integer in 1..2^31-1",
                             c == O_M ? "m" : "n", optarg);
        return CLI_OK;
    case O_FROM:
        a->from = optarg;
        if (!tile_dist(optarg, &a->mb, &a->nb, &a->dist))
            return cli_usage("advise", "--from: '%s' is not TILE@DIST (e.g. 256@bc2d:2x1)",
                             optarg);
        return CLI_OK;
    case O_KERNEL:
        a->kernel_set = true;
        if (!strcmp(optarg, "qr"))
            a->o.kernel = NT_ADVISE_QR;
        else if (!strcmp(optarg, "gemm"))
            a->o.kernel = NT_ADVISE_GEMM;
        else
            return cli_usage("advise", "--kernel: '%s' is not qr or gemm", optarg);
        return CLI_OK;
    case O_PROFILE: a->profile = optarg; return CLI_OK;
    case O_SCHEDULE:
        if (!strcmp(optarg, "free"))
            a->o.schedule = NT_SCHED_FREE;
        else if (!strcmp(optarg, "steps"))
            a->o.schedule = NT_SCHED_STEPS;
        else
            return cli_usage("advise", "--schedule: '%s' is not free or steps", optarg);
        return CLI_OK;
    case O_NOHET: a->o.no_hetero = true; return CLI_OK;
    case O_RUN: a->run = true; return CLI_OK;
    default: return cli_common_option(&a->co, c, argv);
    }
}

static int parse(int argc, char **argv, aargs *a)
{
    *a = (aargs){.co = {.cmd = "advise", .help = advise_help, .seed = 1}};
    int c, rc;
    while ((c = cli_getopt(argc, argv, advise_options)) != -1)
        if ((rc = option(a, c, argv)) != CLI_OK)
            return rc;
    if ((rc = cli_no_operands("advise", argc, argv)) != CLI_OK)
        return rc;
    if (!a->m || !a->n || !a->from || !a->kernel_set)
        return cli_usage("advise", "--m, --n, --from and --kernel are required");
    if (a->mb != a->nb)
        return cli_usage("advise", "--from: the kernels need square tiles (MB = NB)");
    if (a->o.kernel == NT_ADVISE_GEMM && a->m != a->n)
        return cli_usage("advise", "--kernel gemm: C = A B with n x n matrices, --m must "
                                   "equal --n");
    return CLI_OK;
}

static json_t *cand_json(const nt_candidate_t *c, int rank)
{
    return json_pack("{s:i, s:s, s:b, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "rank", rank,
                     "name", c->name, "redistribute", c->redistribute, "bytes_copied",
                     (json_int_t)c->redist.bytes_copied, "redist_seconds", c->redist_seconds,
                     "kernel_seconds", c->kernel.seconds, "total_seconds", c->total_seconds,
                     "work_seconds", c->kernel.work_seconds, "path_seconds",
                     c->kernel.path_seconds, "remote_seconds", c->kernel.remote_seconds,
                     "remote_reads", (json_int_t)c->kernel.remote_reads);
}

static void print_advice(const aargs *a, const nt_profile_t *p, const nt_advice_t *adv)
{
    printf("advice for %s on %lld x %lld in %lld x %lld tiles from %s (%lld x %lld tiles)\n",
           nt_advise_kernel_name(a->o.kernel), (long long)a->m, (long long)a->n,
           (long long)a->mb, (long long)a->nb, a->dist, (long long)adv->mt, (long long)adv->nt);
    printf("profile: %s, %d domains, %s, nb = %lld\n", p->host, p->ndomains, p->date,
           (long long)p->nb);
    if (p->nb != a->nb)
        printf("note: the profile's kernel times are for nb = %lld, scaled by flops to %lld\n",
               (long long)p->nb, (long long)a->nb);
    printf("%4s  %-28s %12s %12s %12s %12s\n", "rank", "candidate", "MiB copied", "redist s",
           "kernel s", "total s");
    for (int k = 0; k < adv->count; k++) {
        const nt_candidate_t *c = &adv->cand[k];
        printf("%4d  %-28s %12.1f %12.4f %12.4f %12.4f\n", k + 1, c->name,
               (double)c->redist.bytes_copied / (1 << 20), c->redist_seconds, c->kernel.seconds,
               c->total_seconds);
    }
    printf("choice: %s\n", adv->cand[0].name);
}

// --run: the choice and the runner-up, measured.
static int run(const aargs *a, const nt_topo_t *t, const nt_profile_t *p,
               const nt_matrix_t *cur, const nt_advice_t *adv, json_t *runs)
{
    nt_matrix_shape_t sh = {a->m, a->n, a->mb, a->nb, 8};
    nt_tilemap_t from = {cur->mt, cur->nt, cur->ndomains, cur->owner};
    int n = adv->count < 2 ? adv->count : 2;
    if (!a->co.json)
        printf("\n%-28s %12s %12s %12s %12s %12s %12s\n", "measured", "redist pred",
               "redist meas", "kernel pred", "kernel meas", "total pred", "total meas");
    for (int k = 0; k < n; k++) {
        const nt_candidate_t *c = &adv->cand[k];
        adv_measured m;
        nt_status st = adv_run(t, &sh, &from, c->redistribute ? c->owner : NULL, a->o.kernel,
                               a->o.schedule, p->threads_per_domain, a->co.seed, &m);
        if (st)
            return cli_lib_error("advise", st);
        double tot = m.redist_seconds + m.kernel_seconds;
        json_array_append_new(runs, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f}", "name",
                                              c->name, "redist_predicted", c->redist_seconds,
                                              "redist_measured", m.redist_seconds,
                                              "kernel_predicted", c->kernel.seconds,
                                              "kernel_measured", m.kernel_seconds,
                                              "total_predicted", c->total_seconds,
                                              "total_measured", tot));
        if (!a->co.json)
            printf("%-28s %12.4f %12.4f %12.4f %12.4f %12.4f %12.4f\n", c->name,
                   c->redist_seconds, m.redist_seconds, c->kernel.seconds, m.kernel_seconds,
                   c->total_seconds, tot);
    }
    return CLI_OK;
}

static int advise(const aargs *a, const nt_topo_t *t)
{
    nt_profile_t *p = NULL;
    nt_matrix_t *cur = NULL;
    nt_advice_t *adv = NULL;
    nt_matrix_shape_t sh = {a->m, a->n, a->mb, a->nb, 8};
    nt_status st;
    if (a->profile) {
        st = nt_profile_read(a->profile, t, &p);
    } else {
        if (!a->co.json)
            printf("no --profile: calibrating this machine first (quick; numatile calibrate "
                   "--out FILE keeps a profile)\n");
        nt_calibrate_opts_t co = {.nb = a->nb <= 4096 ? a->nb : 0, .quick = true};
        st = nt_calibrate(t, &co, &p);
    }
    if (!st)
        st = nt_matrix_create_spec(t, &sh, a->dist, nt_topo_ndomains(t), NT_LAYOUT_TILE,
                                   NT_MATRIX_NOALLOC, &cur);
    if (!st)
        st = nt_advise(p, cur, &a->o, &adv);
    int rc = st ? cli_lib_error("advise", st) : CLI_OK;
    json_t *runs = json_array();
    if (!rc && !a->co.json)
        print_advice(a, p, adv);
    if (!rc && a->run)
        rc = run(a, t, p, cur, adv, runs);
    if (!rc && a->co.json) {
        json_t *cands = json_array();
        for (int k = 0; k < adv->count; k++)
            json_array_append_new(cands, cand_json(&adv->cand[k], k + 1));
        rc = cli_print_json(json_pack(
            "{s:s, s:I, s:I, s:I, s:s, s:i, s:s, s:{s:s, s:s, s:I}, s:o, s:s, s:O}", "kernel",
            nt_advise_kernel_name(a->o.kernel), "m", (json_int_t)a->m, "n",
            (json_int_t)a->n, "nb", (json_int_t)a->nb, "from", a->dist, "domains",
            nt_topo_ndomains(t), "schedule", a->o.schedule == NT_SCHED_STEPS ? "steps" : "free",
            "profile", "host", p->host, "date", p->date, "nb", (json_int_t)p->nb, "candidates",
            cands, "choice", adv->cand[0].name, "runs", runs));
    }
    json_decref(runs);
    nt_advice_destroy(adv);
    nt_matrix_destroy(cur);
    nt_profile_destroy(p);
    return rc;
}

int cmd_advise(int argc, char **argv)
{
    aargs a;
    int rc = parse(argc, argv, &a);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    nt_topo_t *t;
    int64_t mt = (a.m + a.mb - 1) / a.mb, nt = (a.n + a.nb - 1) / a.nb;
    if ((rc = cli_topo_for_dists("advise", a.co.domains, &a.dist, 1, &mt, &nt, &t)) != CLI_OK)
        return rc;
    rc = advise(&a, t);
    nt_topo_destroy(t);
    return rc;
}
