// numatile match --instance FILE [--objective volume|steps|lex] [--ranks R [--split-groups]]
//                [--json]
// numatile match --m M --n N --from TILE@bc2d:.. --to TILE@bc2d:.. (cmd_match_grid.c)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "harness.h"
#include "cli_inst.h"

static const char *match_help =
    "usage: numatile match --instance FILE [--objective volume|steps|lex]\n"
    "                      [--ranks R [--split-groups]] [--json]\n"
    "  --instance FILE   instance file: '#' comments; first line 'P N'; then N lines 'd p [w]'\n"
    "                    (initial domain, target component, optional positive size)\n"
    "  --objective OBJ   volume (default): least data moved; steps: fewest one-port steps;\n"
    "                    lex: fewest steps, then least volume among those; canonical: identity\n"
    "  --ranks R         hierarchical relabelling on R ranks of P/R consecutive domains (R\n"
    "                    divides P): the objective places whole target rank-groups (the\n"
    "                    components canonically on one rank) on ranks, then volume places\n"
    "                    each group's components on its rank's domains; reports inter-rank\n"
    "                    and intra-rank volume\n"
    "  --split-groups    with --ranks: each component may go to any rank (least inter-rank\n"
    "                    volume over all labellings; objective volume or canonical)\n"
    "  --json            one JSON object: objective, domains, items, total, sigma, volume,\n"
    "                    steps, canonical_volume, canonical_steps, seconds; with --ranks also\n"
    "                    ranks, split_groups, rank_sigma (without --split-groups), inter_volume,\n"
    "                    intra_volume, inter_steps, their canonical_ and flat_ (the one-level\n"
    "                    matching's) counterparts, and flat_volume\n"
    "sigma[j] is the domain of component j; volume and steps are in units of the sizes.\n"
    "seconds = the matching (count matrix and weights included, file reading excluded).\n"
    "\n"
    "usage: numatile match --m M --n N --from TILE@bc2d:PxQ[:SMBxSNB]\n"
    "                      --to TILE@bc2d:PxQ[:SMBxSNB] [--objective volume|canonical]\n"
    "                      [--verify] [--json]\n"
    "  a block-cyclic grid change of an M x N matrix (TILE = MB or MBxNB, bc1d:P = bc2d:1xP;\n"
    "  sizes in elements), relabelled from the sparse count matrix: grids of up to 4194304\n"
    "  domains, no P x P table\n"
    "  --verify          also run the dense solver (at most 4096 domains) and check that it\n"
    "                    finds the same volume (exit 1 if not)\n"
    "  --json            objective, kind (grid), m, n, from, to, p_ini, p_tar, domains, items,\n"
    "                    total (elements), nnz, sigma, volume, steps, local, canonical_volume,\n"
    "                    canonical_steps, count_seconds, solve_seconds, seconds (their sum),\n"
    "                    peak_rss_bytes; with --verify dense_volume, dense_seconds, verify\n";

// The hierarchical relabelling of --ranks R, beside its canonical and flat counterparts.
typedef struct hier_result {
    int ranks;       // 0 = no --ranks
    bool split;      // --split-groups
    int *rank_of;    // P entries: domain -> rank
    int *sigma;      // P entries: the hierarchical labelling
    int *group_rank; // R entries: target rank-group -> rank
    nt_match_hier_cost_t cost, canonical, flat;
    double seconds;
} hier_result;

static void hier_free(hier_result *h)
{
    free(h->rank_of);
    free(h->sigma);
    free(h->group_rank);
}

// Take "--ranks R", "--ranks=R" and "--split-groups" out of argv (the instance options shared
// with schedule do not know them) into h; *out is argv without them, to free. Stops at "--".
static int take_hier_options(int argc, char **argv, hier_result *h, int *out_argc,
                             char ***out)
{
    char **v = malloc((size_t)(argc + 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "numatile match: out of memory\n");
        return CLI_RUNTIME;
    }
    int n = 0;
    bool after_dashes = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        if (i > 0 && !after_dashes && strcmp(arg, "--split-groups") == 0) {
            h->split = true;
            continue;
        }
        if (i == 0 || after_dashes || strncmp(arg, "--ranks", 7) != 0 ||
            (arg[7] != 0 && arg[7] != '=')) {
            after_dashes |= i > 0 && strcmp(arg, "--") == 0;
            v[n++] = argv[i];
            continue;
        }
        if (arg[7] == '=')
            val = arg + 8;
        else if (i + 1 < argc && argv[i + 1][0] != '-')
            val = argv[++i];
        if (!val || !cli_parse_int(val, 1, NT_MATCH_MAX_P, &h->ranks)) {
            free(v);
            if (val)
                return cli_usage("match", "--ranks: '%s' is not a rank count in 1..%d", val,
                                 NT_MATCH_MAX_P);
            if (i + 1 < argc)
                return cli_usage("match", "option '--ranks' needs a value ('%s' is an option)",
                                 argv[i + 1]);
            return cli_usage("match", "option '--ranks' needs a value");
        }
    }
    v[n] = NULL;
    *out_argc = n;
    *out = v;
    return CLI_OK;
}

// Solve the hierarchical problem on the instance's counts (m) with the rank objective obj.
static int hier_match(const inst_args *a, const inst_matched *m, hier_result *h)
{
    int p = m->inst->p, r = h->ranks;
    if (p % r)
        return cli_usage("match", "--ranks %d: %s has P = %d domains, which do not split into "
                         "%d equal ranks", r, a->instance, p, r);
    if (h->split && a->obj != NT_MATCH_VOLUME && a->obj != NT_MATCH_CANONICAL)
        return cli_usage("match", "--split-groups takes --objective volume or canonical, not "
                         "%s", nt_match_objective_name(a->obj));
    h->rank_of = malloc((size_t)p * sizeof *h->rank_of);
    h->sigma = malloc((size_t)p * sizeof *h->sigma);
    h->group_rank = malloc((size_t)r * sizeof *h->group_rank);
    int *id = malloc((size_t)p * sizeof *id);
    int64_t *counts = malloc((size_t)p * (size_t)p * sizeof *counts);
    nt_status st = !h->rank_of || !h->sigma || !h->group_rank || !id || !counts ? NT_ENOMEM
                                                                                : NT_OK;
    if (st == NT_OK)
        st = nt_match_hier_ranks(p, r, h->rank_of);
    nt_match_hier_problem_t pr = {.p_ini = p, .p_tar = p, .p_dom = p, .counts = counts,
                                  .nranks = r, .rank_of = h->rank_of,
                                  .split_groups = h->split};
    // Timed as the flat matching is: count matrix, weights and solve.
    double t0 = bench_now();
    if (st == NT_OK)
        st = nt_instance_counts(m->inst, NULL, counts);
    if (st == NT_OK)
        st = nt_match_hier_solve(&pr, a->obj, NT_MATCH_VOLUME, h->sigma, h->group_rank,
                                 &h->cost);
    h->seconds = bench_now() - t0;
    for (int j = 0; st == NT_OK && j < p; j++)
        id[j] = j;
    if (st == NT_OK)
        st = nt_match_hier_cost(&pr, id, &h->canonical);
    if (st == NT_OK)
        st = nt_match_hier_cost(&pr, m->sigma, &h->flat);
    free(id);
    free(counts);
    if (st == NT_ENOMEM) {
        fprintf(stderr, "numatile match: out of memory for P = %d\n", p);
        return CLI_RUNTIME;
    }
    return st == NT_OK ? CLI_OK : cli_lib_error("match", st);
}

static double pct(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 100.0;
}

static void hier_json(json_t *o, const hier_result *h)
{
    json_object_set_new(o, "ranks", json_integer(h->ranks));
    json_object_set_new(o, "split_groups", json_boolean(h->split));
    if (!h->split)
        json_object_set_new(o, "rank_sigma", inst_sigma_json(h->group_rank, h->ranks));
    const struct {
        const char *prefix;
        const nt_match_hier_cost_t *c;
    } rows[] = {{"", &h->cost}, {"canonical_", &h->canonical}, {"flat_", &h->flat}};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        char key[48];
        snprintf(key, sizeof key, "%sinter_volume", rows[k].prefix);
        json_object_set_new(o, key, json_integer(rows[k].c->inter_volume));
        snprintf(key, sizeof key, "%sintra_volume", rows[k].prefix);
        json_object_set_new(o, key, json_integer(rows[k].c->intra_volume));
        snprintf(key, sizeof key, "%sinter_steps", rows[k].prefix);
        json_object_set_new(o, key, json_integer(rows[k].c->inter_steps));
    }
    json_object_set_new(o, "flat_volume", json_integer(h->flat.total.volume));
}

static json_t *match_json(const inst_args *a, const inst_matched *m, const hier_result *h)
{
    int p = m->inst->p;
    // With --ranks, sigma and its costs are the hierarchical labelling's.
    const int *sigma = h->ranks ? h->sigma : m->sigma;
    const nt_cost_t *c = h->ranks ? &h->cost.total : &m->cost;
    json_t *o = json_pack("{s:s, s:i, s:I, s:I, s:b, s:o, s:I, s:I, s:I, s:I, s:I, s:f}",
                          "objective", nt_match_objective_name(a->obj), "domains", p, "items",
                          (json_int_t)m->inst->n, "total", (json_int_t)m->inst->total,
                          "weighted", m->inst->weighted, "sigma", inst_sigma_json(sigma, p),
                          "volume", (json_int_t)c->volume, "steps", (json_int_t)c->steps,
                          "local", (json_int_t)c->local, "canonical_volume",
                          (json_int_t)m->canonical.volume, "canonical_steps",
                          (json_int_t)m->canonical.steps, "seconds",
                          h->ranks ? h->seconds : m->seconds);
    if (o && h->ranks)
        hier_json(o, h);
    return o;
}

static void hier_print(const inst_args *a, const hier_result *h, int p)
{
    printf("ranks: %d of %d domains each (rank r holds domains %d*r..%d*r+%d)\n", h->ranks,
           p / h->ranks, p / h->ranks, p / h->ranks, p / h->ranks - 1);
    if (h->split) {
        printf("split groups: each component may go to any rank\n");
    } else {
        printf("rank_sigma (target rank-group -> rank):");
        for (int g = 0; g < h->ranks; g++)
            printf("%s%d", g % 16 ? " " : "\n  ", h->group_rank[g]);
        printf("\n");
    }
    printf("%-16s %14s %14s %14s\n", "labelling", "inter-rank", "intra-rank", "rank steps");
    char name[32];
    snprintf(name, sizeof name, "%s+volume", nt_match_objective_name(a->obj));
    const struct {
        const char *name;
        const nt_match_hier_cost_t *c;
    } rows[] = {{name, &h->cost}, {"canonical", &h->canonical}, {"flat", &h->flat}};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        printf("%-16s %14lld %14lld %14lld\n", rows[k].name,
               (long long)rows[k].c->inter_volume, (long long)rows[k].c->intra_volume,
               (long long)rows[k].c->inter_steps);
    printf("inter-rank ratio %13.1f%%   (%s / canonical; flat = the one-level %s matching)\n",
           pct(h->cost.inter_volume, h->canonical.inter_volume), name,
           nt_match_objective_name(a->obj));
}

static void match_print(const inst_args *a, const inst_matched *m, const hier_result *h)
{
    const char *name = nt_match_objective_name(a->obj);
    int p = m->inst->p;
    const int *sigma = h->ranks ? h->sigma : m->sigma;
    const nt_cost_t *c = h->ranks ? &h->cost.total : &m->cost;
    printf("instance %s: P = %d, N = %lld items, total size %lld%s\n", a->instance, p,
           (long long)m->inst->n, (long long)m->inst->total,
           m->inst->weighted ? " (weighted)" : "");
    printf("objective: %s%s\n", name, h->ranks ? " (rank level; volume inside each rank)" : "");
    inst_sigma_print(sigma, p);
    printf("%-10s %14s %14s\n", "labelling", "volume", "steps");
    printf("%-10s %14lld %14lld\n", name, (long long)c->volume, (long long)c->steps);
    printf("%-10s %14lld %14lld\n", "canonical", (long long)m->canonical.volume,
           (long long)m->canonical.steps);
    printf("ratio      %13.1f%% %13.1f%%   (%s / canonical)\n",
           pct(c->volume, m->canonical.volume), pct(c->steps, m->canonical.steps), name);
    if (h->ranks)
        hier_print(a, h, p);
    printf("matching time: %.3f ms (count matrix and weights included, file reading "
           "excluded)\n", 1e3 * (h->ranks ? h->seconds : m->seconds));
}

// Is this the grid-change form (an option --from or --to)?
static bool grid_form(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], "--from", 6) == 0 || strncmp(argv[i], "--to", 4) == 0)
            return true;
    return false;
}

int cmd_match(int argc, char **argv)
{
    if (grid_form(argc, argv))
        return match_grid(argc, argv, match_help);
    hier_result h = {0};
    int nargc = 0;
    char **nargv = NULL;
    int rc = take_hier_options(argc, argv, &h, &nargc, &nargv);
    if (rc != CLI_OK)
        return rc;
    if (h.split && !h.ranks) {
        free(nargv);
        return cli_usage("match", "--split-groups needs --ranks R");
    }
    inst_args a;
    rc = inst_parse("match", match_help, false, nargc, nargv, &a);
    if (rc != CLI_OK) {
        free(nargv);
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    }
    inst_matched m;
    if ((rc = inst_match("match", &a, &m)) != CLI_OK) {
        free(nargv);
        return rc;
    }
    if (h.ranks)
        rc = hier_match(&a, &m, &h);
    if (rc == CLI_OK && a.co.json)
        rc = cli_print_json(match_json(&a, &m, &h));
    else if (rc == CLI_OK)
        match_print(&a, &m, &h);
    hier_free(&h);
    inst_matched_free(&m);
    free(nargv);
    return rc;
}
