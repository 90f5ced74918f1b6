// numatile stencil: a 1D circular stencil on domains, run where the items are or after moving
// them to the block partition, with --verify (bit for bit) and --json.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "numatile/dist.h"
#include "numatile/kernels.h"

static const char *stencil_help =
    "usage: numatile stencil --items N --per-item E --iters K [--from DIST1D] [--strategy S]\n"
    "  3-point circular stencil, K iterations, E extra multiply-adds per item update.\n"
    "  --from DIST1D   initial placement: block (default), balanced:SEED, skewed:ALPHA:SEED\n"
    "                  (skewed needs N divisible by the domain count)\n"
    "  --strategy S    owner: run where the items are (default); canonical: move the items\n"
    "                  to the block partition first (redistribution counted)\n"
    "  --domains D, --threads T, --verify (bit-for-bit vs the sequential loop), --json\n";

typedef struct stencil_opts {
    cli_common co;            // --json, --domains, --verify, --help
    int64_t items, per, iters; // per and iters: -1 until given
    const char *from, *strategy;
    int threads;
} stencil_opts;

enum { O_ITEMS = 1, O_PER, O_ITERS, O_FROM, O_STRAT, O_THR };

static const struct option stencil_options[] = {
    {"items", required_argument, 0, O_ITEMS},
    {"per-item", required_argument, 0, O_PER},
    {"iters", required_argument, 0, O_ITERS},
    {"from", required_argument, 0, O_FROM},
    {"strategy", required_argument, 0, O_STRAT},
    {"domains", required_argument, 0, CLI_OPT_DOMAINS},
    {"threads", required_argument, 0, O_THR},
    {"verify", no_argument, 0, CLI_OPT_VERIFY},
    {"json", no_argument, 0, CLI_OPT_JSON},
    {"help", no_argument, 0, CLI_OPT_HELP},
    {0, 0, 0, 0}};

// One option of the stencil's own (not the common ones); c is its id, its value in optarg.
static int stencil_option(stencil_opts *o, int c, char **argv)
{
    switch (c) {
    case O_ITEMS:
        if (!cli_parse_i64(optarg, 1, INT32_MAX, &o->items))
            return cli_usage("stencil", "--items: '%s' is not an integer in 1..2^31-1", optarg);
        return CLI_OK;
    case O_PER:
        if (!cli_parse_i64(optarg, 0, INT32_MAX, &o->per))
            return cli_usage("stencil", "--per-item: '%s' is not a non-negative integer",
                             optarg);
        return CLI_OK;
    case O_ITERS:
        if (!cli_parse_i64(optarg, 0, INT32_MAX, &o->iters))
            return cli_usage("stencil", "--iters: '%s' is not a non-negative integer", optarg);
        return CLI_OK;
    case O_FROM: o->from = optarg; return CLI_OK;
    case O_STRAT:
        if (strcmp(optarg, "owner") && strcmp(optarg, "canonical"))
            return cli_usage("stencil", "--strategy: '%s' is not owner or canonical", optarg);
        o->strategy = optarg;
        return CLI_OK;
    case O_THR:
        if (!cli_parse_int(optarg, 1, 1024, &o->threads))
            return cli_usage("stencil", "--threads: '%s' is not an integer in 1..1024", optarg);
        return CLI_OK;
    default: return cli_common_option(&o->co, c, argv);
    }
}

static int parse_args(int argc, char **argv, stencil_opts *o)
{
    *o = (stencil_opts){.co = {.cmd = "stencil", .help = stencil_help}, .per = -1, .iters = -1,
                        .from = "block", .strategy = "owner"};
    int c, rc;
    while ((c = cli_getopt(argc, argv, stencil_options)) != -1)
        if ((rc = stencil_option(o, c, argv)) != CLI_OK)
            return rc;
    if ((rc = cli_no_operands("stencil", argc, argv)) != CLI_OK)
        return rc;
    if (!o->items || o->per < 0 || o->iters < 0)
        return cli_usage("stencil", "--items, --per-item and --iters are required");
    return CLI_OK;
}

// DIST1D (nt_dist1d_parse): block | balanced:SEED | skewed:ALPHA:SEED; n = --items.
static int parse_dist1d(const char *spec, int64_t n, int p, nt_dist1d_t **out)
{
    nt_status st = nt_dist1d_parse(spec, n, p, out);
    if (st == NT_EINVAL)
        return cli_usage("stencil", "--from %s", nt_last_error());
    return st ? cli_lib_error("stencil", st) : CLI_OK;
}

// The initial placement (--from) and, for --strategy canonical, the block partition the items
// move to first (*run, NULL otherwise) with the count of items that move.
static int place_items(const stencil_opts *o, int D, nt_dist1d_t **ini, nt_dist1d_t **run,
                       int64_t *moved)
{
    int rc = parse_dist1d(o->from, o->items, D, ini);
    if (rc != CLI_OK || strcmp(o->strategy, "canonical"))
        return rc;
    nt_status st = nt_dist1d_block(o->items, D, run);
    if (st != NT_OK)
        return cli_lib_error("stencil", st);
    for (int64_t x = 0; x < o->items; x++)
        *moved += (*ini)->owner[x] != (*run)->owner[x];
    return CLI_OK;
}

// --verify: run the same iterations sequentially on ref and compare with v bit for bit.
static int reference_check(double *ref, const double *v, const stencil_opts *o)
{
    int64_t items = o->items;
    double *w = malloc((size_t)items * sizeof *w);
    for (int64_t it = 0; it < o->iters && w; it++) {
        for (int64_t x = 0; x < items; x++)
            w[x] = nt_stencil_update(ref[(x + items - 1) % items], ref[x],
                                     ref[(x + 1) % items], o->per);
        memcpy(ref, w, (size_t)items * sizeof *w);
    }
    int vrc = !w || memcmp(ref, v, (size_t)items * sizeof *v) ? CLI_VERIFY_FAILED : CLI_OK;
    free(w);
    return vrc;
}

static int report(const stencil_opts *o, int D, int64_t moved, const nt_stencil_stats_t *ss,
                  int vrc)
{
    if (o->co.json) {
        json_t *j = json_pack(
            "{s:s, s:I, s:I, s:I, s:s, s:s, s:i, s:I, s:I, s:I, s:f, s:f}", "command", "stencil",
            "items", (json_int_t)o->items, "per_item", (json_int_t)o->per, "iters",
            (json_int_t)o->iters, "from", o->from, "strategy", o->strategy, "domains", D,
            "redist_items", (json_int_t)moved, "halo_items", (json_int_t)ss->halo_items,
            "halo_bytes", (json_int_t)ss->halo_bytes, "owner_fraction", ss->owner_fraction,
            "seconds", ss->seconds);
        if (o->co.verify)
            json_object_set_new(j, "verify", json_boolean(vrc == CLI_OK));
        int rc = cli_print_json(j);
        return rc == CLI_OK ? vrc : rc;
    }
    printf("stencil: %lld items on %d domains (%s, strategy %s), %lld iterations, "
           "%lld extra ops per item\n", (long long)o->items, D, o->from, o->strategy,
           (long long)o->iters, (long long)o->per);
    printf("%.4f s, halo items %lld (%lld bytes), owner fraction %.3f, items moved first "
           "%lld\n", ss->seconds, (long long)ss->halo_items, (long long)ss->halo_bytes,
           ss->owner_fraction, (long long)moved);
    if (o->co.verify)
        printf("verify: %s\n", vrc == CLI_OK ? "ok (bit for bit)" : "FAILED");
    return vrc;
}

// Place the items, fill them, run the stencil (and the sequential reference), report.
static int stencil_run(const stencil_opts *o, const nt_topo_t *t)
{
    int D = nt_topo_ndomains(t);
    int64_t items = o->items, moved = 0;
    nt_dist1d_t *ini = NULL, *run = NULL;
    double *v = NULL, *ref = NULL;
    int rc = place_items(o, D, &ini, &run, &moved);
    if (rc != CLI_OK)
        goto out;
    v = malloc((size_t)items * sizeof *v);
    ref = o->co.verify ? malloc((size_t)items * sizeof *ref) : NULL;
    if (!v || (o->co.verify && !ref)) {
        rc = cli_usage("stencil", "out of memory for %lld items", (long long)items);
        goto out;
    }
    for (int64_t x = 0; x < items; x++)
        v[x] = (double)((x * 2654435761u) % 1000) / 10.0;
    if (ref)
        memcpy(ref, v, (size_t)items * sizeof *v);
    nt_stencil_opts_t so = {.iters = o->iters, .work = o->per, .threads_per_domain = o->threads};
    nt_stencil_stats_t ss;
    nt_status st = nt_stencil_run(t, run ? run : ini, v, &so, &ss);
    if (st != NT_OK) {
        rc = cli_lib_error("stencil", st);
        goto out;
    }
    rc = report(o, D, moved, &ss, ref ? reference_check(ref, v, o) : CLI_OK);
out:
    free(v);
    free(ref);
    nt_dist1d_destroy(ini);
    nt_dist1d_destroy(run);
    return rc;
}

// Per item: the values here, the placements (initial and, canonical, the block one), and the
// library's item, source and halo indices and two buffers (measured: --items 10^7 peaks at
// 591 MB). --verify adds the reference and its work array.
enum { STENCIL_ITEM_BYTES = 64, VERIFY_ITEM_BYTES = 16 };

// The whole run must fit before anything is allocated.
static int stencil_room(const stencil_opts *o)
{
    uint64_t per = STENCIL_ITEM_BYTES + (o->co.verify ? VERIFY_ITEM_BYTES : 0);
    char who[96];
    snprintf(who, sizeof who, "stencil of %lld items", (long long)o->items);
    nt_status st = nt_mem_room(NULL, NULL, (uint64_t)o->items * per, who);
    return st == NT_OK ? CLI_OK : cli_lib_error("stencil", st);
}

int cmd_stencil(int argc, char **argv)
{
    stencil_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    if ((rc = stencil_room(&o)) != CLI_OK)
        return rc;
    nt_topo_t *t;
    if ((rc = cli_load_topo("stencil", o.co.domains, &t)) != CLI_OK)
        return rc;
    rc = stencil_run(&o, t);
    nt_topo_destroy(t);
    return rc;
}
