// numatile calibrate [--out FILE] [--quick] [--nb NB] [--domains D] [--json]: measure the
// machine profile the advisor uses (nt_calibrate()) and write it.
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "numatile/profile.h"

static const char *calibrate_help =
    "usage: numatile calibrate [--out FILE] [--quick] [--nb NB] [--domains D] [--json]\n"
    "  Measure the machine profile numatile advise uses: copy and read bandwidth per domain\n"
    "  pair, concurrent copy, page migration, first touch per domain, tile kernels (GEMM,\n"
    "  GEQRT, UNMQR, TSQRT, TSMQR) per domain at NB x NB, task overhead.\n"
    "  --out FILE    write the profile (JSON) to FILE\n"
    "  --quick       smaller buffers, fewer repetitions (a few seconds)\n"
    "  --nb NB       tile size of the kernel timings (default 256; 1..4096)\n"
    "  --domains D   split this machine into D domains (default: one per NUMA node)\n"
    "  --json        print the profile itself (the file format) on stdout\n";

enum { O_OUT = 1, O_QUICK, O_NB };

static const struct option calibrate_options[] = {
    {"out", required_argument, 0, O_OUT},
    {"quick", no_argument, 0, O_QUICK},
    {"nb", required_argument, 0, O_NB},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {0, 0, 0, 0}};

static void print_matrix(const char *title, const double *x, int D)
{
    printf("%s (rows: memory domain, columns: threads' domain)\n", title);
    for (int i = 0; i < D; i++) {
        printf("  %3d ", i);
        for (int j = 0; j < D; j++)
            printf(" %8.2f", x[i * D + j]);
        printf("\n");
    }
}

static void print_profile(const nt_profile_t *p)
{
    printf("profile of %s (%s, %d domain%s on %d node%s), numatile %s, %s, %s\n", p->host,
           p->kind, p->ndomains, p->ndomains == 1 ? "" : "s", p->nodes,
           p->nodes == 1 ? "" : "s", p->version, p->blas, p->date);
    print_matrix("copy GB/s", p->copy_gbs, p->ndomains);
    print_matrix("one-thread read GB/s", p->read_gbs, p->ndomains);
    printf("all domains copying at once: %.2f GB/s; page migration: %.2f GB/s\n",
           p->concurrent_gbs, p->migrate_gbs);
    printf("tile kernels at nb = %lld (ib = %lld), ms per call, one thread; %d thread%s per "
           "domain\n", (long long)p->nb, (long long)p->ib, p->threads_per_domain,
           p->threads_per_domain == 1 ? "" : "s");
    printf("  domain  first-touch GB/s");
    for (int k = 0; k < NT_TK_COUNT; k++)
        printf(" %8s", nt_profile_kernel_name(k));
    printf("\n");
    for (int d = 0; d < p->ndomains; d++) {
        printf("  %6d  %16.2f", d, p->fault_gbs[d]);
        for (int k = 0; k < NT_TK_COUNT; k++)
            printf(" %8.3f", 1e3 * p->tile_seconds[k][d]);
        printf("\n");
    }
    printf("task overhead: %.2f us; fixed cost of a redistribution %.2f ms, of a kernel run "
           "%.2f ms\n", 1e6 * p->task_seconds, 1e3 * p->exec_seconds,
           1e3 * p->kernel_run_seconds);
}

// What nt_calibrate takes, checked before it starts: on each domain a source and a target
// buffer (16 MiB each with --quick, else 64) and the tile kernels' operands; beside them every
// pair's timings (5 rounds at most) and the profile's two pair matrices, and under --json the
// profile as text and as a JSON tree (about 160 bytes a pair).
static int calibrate_room(const nt_topo_t *t, const nt_calibrate_opts_t *o, bool json)
{
    int D = nt_topo_ndomains(t);
    uint64_t nb = (uint64_t)(o->nb ? o->nb : 256), pairs = (uint64_t)D * (uint64_t)D;
    uint64_t buf = ((uint64_t)(o->quick ? 16 : 64) << 21) + 5 * nb * nb * sizeof(double);
    uint64_t *per = calloc((size_t)D, sizeof *per);
    if (!per)
        return cli_usage("calibrate", "out of memory");
    for (int d = 0; d < D; d++)
        per[d] = buf;
    char who[96];
    snprintf(who, sizeof who, "calibrate on %d domain%s", D, D == 1 ? "" : "s");
    nt_status st = nt_mem_room(t, per, pairs * ((5 + 2) * sizeof(double) + (json ? 160 : 0)),
                               who);
    free(per);
    return st == NT_OK ? CLI_OK : cli_lib_error("calibrate", st);
}

int cmd_calibrate(int argc, char **argv)
{
    cli_common co = {.cmd = "calibrate", .help = calibrate_help};
    const char *out = NULL;
    nt_calibrate_opts_t o = {0};
    int c, rc;
    while ((c = cli_getopt(argc, argv, calibrate_options)) != -1) {
        if (c == O_OUT)
            out = optarg;
        else if (c == O_QUICK)
            o.quick = true;
        else if (c == O_NB) {
            if (!cli_parse_i64(optarg, 1, 4096, &o.nb))
                return cli_usage("calibrate", "--nb: '%s' is not an integer in 1..4096", optarg);
        } else if ((rc = cli_common_option(&co, c, argv)) != CLI_OK)
            return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    }
    if ((rc = cli_no_operands("calibrate", argc, argv)) != CLI_OK)
        return rc;
    nt_topo_t *t;
    if ((rc = cli_load_topo("calibrate", co.domains, &t)) != CLI_OK)
        return rc;
    if ((rc = calibrate_room(t, &o, co.json)) != CLI_OK) {
        nt_topo_destroy(t);
        return rc;
    }
    nt_profile_t *p = NULL;
    nt_status st = nt_calibrate(t, &o, &p);
    if (!st && out)
        st = nt_profile_save(p, out);
    if (st) {
        rc = cli_lib_error("calibrate", st);
    } else if (co.json) {
        // The profile as one object through the tool's JSON printer (the file's own format).
        char *text;
        json_t *obj = NULL;
        if ((st = nt_profile_dump(p, &text)) != NT_OK) {
            rc = cli_lib_error("calibrate", st);
        } else {
            obj = json_loads(text, 0, NULL);
            free(text);
            rc = obj ? cli_print_json(obj) : CLI_RUNTIME;
        }
    } else {
        print_profile(p);
        if (out)
            printf("written to %s\n", out);
    }
    nt_profile_destroy(p);
    nt_topo_destroy(t);
    return rc;
}
