// `numatile-mpi redist` (see main.c): the arguments, the target placed by the rank-level
// relabelling, K timed runs of nt_mpi_redist, the check, and rank 0's report.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile/mem.h"
#include "tool.h"

typedef struct redist_args {
    dmat a, b;
    int64_t sub[6];
    bool has_sub, verify, json, steps, a2a;
    long elem, threads, reps, seed, domains; // domains: --domains (0 = not given)
    nt_match_objective match;
    char from[128], to[128];
} redist_args;

// What the options gave besides redist_args: the matrix size, whether --from and --to did.
typedef struct seen {
    long m, n;
    bool from, to;
} seen;

// --from (o is "--from") or --to: the layout v of A or B.
static bool parse_side(const char *o, const char *v, redist_args *r, seen *sn)
{
    bool f = o[2] == 'f';
    bool ok = v && dmat_parse_layout(v, f ? &r->a : &r->b);
    if (ok)
        snprintf(f ? r->from : r->to, sizeof r->from, "%s", v);
    if (f)
        sn->from = ok;
    else
        sn->to = ok;
    return ok;
}

// --sub ROWS,COLS,IA,JA,IB,JB (0-based corners).
static bool parse_sub(const char *v, redist_args *r)
{
    long long s[6];
    char tail;
    bool ok = v && sscanf(v, "%lld,%lld,%lld,%lld,%lld,%lld%c", &s[0], &s[1], &s[2], &s[3],
                          &s[4], &s[5], &tail) == 6;
    for (int k = 0; ok && k < 6; k++)
        ok = s[k] >= 0, r->sub[k] = s[k];
    r->has_sub = ok;
    return ok;
}

// Option o with its value v (NULL after the last argument) into r and sn; *val tells whether
// it took v. 0, or 2 after a message.
static int redist_option(redist_args *r, seen *sn, const char *o, const char *v, bool *val)
{
    bool ok = true;
    *val = true;
    if (!strcmp(o, "--verify"))
        r->verify = true, *val = false;
    else if (!strcmp(o, "--json"))
        r->json = true, *val = false;
    else if (!strcmp(o, "--m"))
        ok = tool_number(v, 1, INT32_MAX, &sn->m);
    else if (!strcmp(o, "--n"))
        ok = tool_number(v, 1, INT32_MAX, &sn->n);
    else if (!strcmp(o, "--elem"))
        ok = tool_number(v, 1, 1 << 20, &r->elem);
    else if (!strcmp(o, "--threads"))
        ok = tool_number(v, 1, 256, &r->threads);
    else if (!strcmp(o, "--reps"))
        ok = tool_number(v, 1, TOOL_MAX_REPS, &r->reps);
    else if (!strcmp(o, "--seed"))
        ok = tool_number(v, 0, INT32_MAX, &r->seed);
    else if (!strcmp(o, "--from") || !strcmp(o, "--to"))
        ok = parse_side(o, v, r, sn);
    else if (!strcmp(o, "--match")) {
        ok = v && nt_match_objective_parse(v, &r->match) == NT_OK &&
             r->match != NT_MATCH_DISTANCE;
        if (!ok)
            return tool_usage("--match: '%s' is not none|canonical|volume|steps|lex (with --mpi)",
                              v ? v : "");
    } else if (!strcmp(o, "--transport")) {
        ok = v && (!strcmp(v, "p2p") || !strcmp(v, "alltoallv"));
        r->a2a = ok && !strcmp(v, "alltoallv");
    } else if (!strcmp(o, "--domains")) {
        ok = tool_number(v, 1, 4096, &r->domains);
    } else if (!strcmp(o, "--schedule")) {
        ok = v && (!strcmp(v, "free") || !strcmp(v, "steps"));
        r->steps = ok && !strcmp(v, "steps");
    } else if (!strcmp(o, "--sub"))
        ok = parse_sub(v, r);
    else if (!strncmp(o, "--", 2))
        return tool_usage("%s: not available with --mpi (see numatile(1), redist --mpi)", o);
    else
        return tool_usage("unexpected argument '%s'", o);
    return ok ? 0 : tool_usage("%s: missing or bad value (see numatile(1))", o);
}

static int parse_redist(int argc, char **argv, redist_args *r)
{
    *r = (redist_args){.elem = 8, .reps = 1, .seed = 1};
    seen sn = {0};
    for (int i = 2; i < argc; i++) {
        bool val;
        int rc = redist_option(r, &sn, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &val);
        if (rc)
            return rc;
        i += val;
    }
    if (!sn.m || !sn.n)
        return tool_usage("%s", "--m and --n are required");
    if (!sn.from || !sn.to)
        return tool_usage("%s", "--from and --to are required, TILE@bc2d:PxQ or TILE@bc1d:P");
    r->a.m = r->b.m = sn.m;
    r->a.n = r->b.n = sn.n;
    if (!r->has_sub)
        memcpy(r->sub, (int64_t[6]){sn.m, sn.n, 0, 0, 0, 0}, sizeof r->sub);
    const int64_t *s = r->sub;
    if (s[0] + s[2] > sn.m || s[1] + s[3] > sn.n || s[0] + s[4] > sn.m || s[1] + s[5] > sn.n)
        return tool_usage("%s", "--sub: the submatrix is outside the matrix");
    int need = r->a.p * r->a.q > r->b.p * r->b.q ? r->a.p * r->a.q : r->b.p * r->b.q;
    if ((long)r->a.p * r->a.q > tool_nranks || (long)r->b.p * r->b.q > tool_nranks) {
        char msg[160];
        snprintf(msg, sizeof msg, "the grids need %d ranks, %d running (mpirun -np %d)", need,
                 tool_nranks, need);
        return tool_usage("%s", msg);
    }
    return 0;
}

// One run of the subcommand: its arguments, where the target went, what was measured.
typedef struct redist_run {
    redist_args r;
    size_t es;                     // bytes per element
    nt_mpi_grid_t ga, gb;          // A's and B's layouts
    int *bran, *perm;              // the rank of each cell of B's grid; the rank permutation
    nt_mpi_relabel_cost_t can, ch; // costs of the canonical and of the chosen placement
    nt_mpi_topo_t *topo;           // the domains of --domains, else NULL
    double *sec;                   // seconds of each repetition
    nt_mpi_stats_t st;             // this rank's statistics of the last repetition
    int64_t tot[4], bad;           // bytes sent, local, pieces, messages; mismatches: all ranks
    double phase[3];               // plan, exchange, unpack seconds: the slowest rank's
} redist_run;

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Elements of d this rank holds when it is cell `rank` of d's grid (none outside it).
static uint64_t local_elems(const dmat *d)
{
    if (tool_rank >= d->p * d->q)
        return 0;
    return sat_mul((uint64_t)nt_mpi_numroc(d->m, d->mb, tool_rank / d->q, 0, d->p),
                   (uint64_t)nt_mpi_numroc(d->n, d->nb, tool_rank % d->q, 0, d->q));
}

// The whole request, refused on every rank before the first allocation when the ranks of one
// machine together do not fit it: each keeps its parts of A and B and packs the pieces it
// sends or receives (at most its larger part again). 0, or 2 after the message of the lowest
// rank refused.
static int check_room(redist_run *x)
{
    redist_args *r = &x->r;
    uint64_t a = sat_mul(local_elems(&r->a), x->es), b = sat_mul(local_elems(&r->b), x->es);
    uint64_t here = sat_add(sat_add(a, b), a > b ? a : b);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local;
    MPI_Comm_size(node, &local);
    uint64_t *all = malloc((size_t)local * sizeof *all);
    if (all) {
        MPI_Allgather(&here, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, node);
        here = 0;
        for (int k = 0; k < local; k++)
            here = sat_add(here, all[k]);
    }
    free(all);
    MPI_Comm_free(&node);
    char who[96];
    snprintf(who, sizeof who, "redist of %lldx%lld elements of %zu bytes (%d rank%s here)",
             (long long)r->a.m, (long long)r->a.n, x->es, local, local == 1 ? "" : "s");
    nt_status s = nt_mem_room(NULL, NULL, here, who);
    int first = s == NT_OK ? tool_nranks : tool_rank;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == tool_nranks)
        return 0;
    if (first == tool_rank)
        fprintf(stderr, "numatile-mpi redist: %s: %s\n", nt_strerror(s), nt_last_error());
    return 2;
}

// A and B allocated and filled from their patterns: 0, or 3 after a message.
static int alloc_operands(redist_run *x)
{
    redist_args *r = &x->r;
    int ok = dmat_alloc(&r->a, x->es, (uint64_t)r->seed) &&
             dmat_alloc(&r->b, x->es, (uint64_t)r->seed + 1);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (ok)
        return 0;
    if (tool_rank == 0)
        fprintf(stderr, "numatile-mpi redist: cannot allocate the local arrays\n");
    free(r->a.a);
    free(r->b.a);
    return 3;
}

// Where the target lives is ours to choose: the rank-level relabelling permutes its rank
// table (the same result on every rank), and B is allocated on the ranks it names. Then the
// domains of --domains. 0, or the exit code after a message (the arrays freed).
static int place_target(redist_run *x)
{
    redist_args *r = &x->r;
    x->ga = dmat_grid(&r->a);
    x->gb = dmat_grid(&r->b);
    x->bran = malloc((size_t)tool_nranks * sizeof *x->bran);
    x->perm = malloc((size_t)tool_nranks * sizeof *x->perm);
    nt_status s = x->bran && x->perm ? NT_OK : NT_ENOMEM;
    if (!s)
        s = nt_mpi_relabel(tool_nranks, r->sub[0], r->sub[1], x->es, r->sub[2], r->sub[3], &x->ga,
                           r->sub[4], r->sub[5], &x->gb, r->match, x->bran, x->perm, &x->can,
                           &x->ch);
    if (!s && r->domains) {
        nt_topo_opts_t to = {.domains = (int)r->domains};
        s = nt_mpi_topo_create(MPI_COMM_WORLD, &to, 0, &x->topo);
    }
    if (!s)
        return 0;
    if (tool_rank == 0)
        fprintf(stderr, "numatile-mpi redist: %s: %s\n", nt_strerror(s), nt_mpi_last_error());
    free(x->bran), free(x->perm), free(r->a.a), free(r->b.a);
    return s == NT_EINVAL ? 2 : 3;
}

typedef struct fill_arg {
    dmat *d;
    size_t es;
    uint64_t seed;
    const nt_mpi_topo_t *topo;
} fill_arg;

static nt_status fill_domain(int domain, int thread, void *arg)
{
    (void)thread;
    fill_arg *f = arg;
    int64_t c0, c1;
    nt_status s = nt_mpi_topo_columns(f->topo, f->d->nloc, domain, &c0, &c1);
    if (!s)
        dmat_fill_cols(f->d, f->es, f->seed, c0, c1);
    return s;
}

// B again, on the ranks the relabelling chose, filled from its pattern. With --domains, its
// columns are first touched by a thread bound to the local domain that later writes them
// (nt_mpi_topo_columns), so its pages are on that domain. True on every rank if all went well.
static int place_b(redist_run *x)
{
    redist_args *r = &x->r;
    free(r->b.a);
    r->b.ranks = x->bran;
    int ok = dmat_alloc_only(&r->b, x->es);
    fill_arg fa = {&r->b, x->es, (uint64_t)r->seed + 1, x->topo};
    if (ok &&
        (!x->topo || nt_team_run(nt_mpi_topo_local(x->topo), 1, fill_domain, &fa) != NT_OK))
        dmat_fill(&r->b, x->es, (uint64_t)r->seed + 1);
    else if (ok) // nt_team_run gives no thread to a domain without cpus
        for (int d = 0; d < nt_topo_ndomains(nt_mpi_topo_local(x->topo)); d++) {
            nt_domain_info_t info;
            if (nt_topo_domain(nt_mpi_topo_local(x->topo), d, &info) == NT_OK && !info.ncpus)
                fill_domain(d, 0, &fa);
        }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    x->gb = dmat_grid(&r->b);
    return ok;
}

// The K runs of nt_mpi_redist between barriers (none if ok is false), then the check under
// --verify and the totals over the ranks.
static nt_status measure(redist_run *x, int ok)
{
    redist_args *r = &x->r;
    nt_mpi_opts_t opts = {.threads = (int)r->threads, .steps = r->steps, .alltoallv = r->a2a,
                          .topo = x->topo};
    x->sec = malloc((size_t)r->reps * sizeof *x->sec);
    nt_status s = x->sec && ok ? NT_OK : NT_ENOMEM;
    for (long k = 0; k < r->reps && !s; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        s = nt_mpi_redist(MPI_COMM_WORLD, r->sub[0], r->sub[1], x->es, r->a.a, r->a.lld,
                          r->sub[2], r->sub[3], &x->ga, r->b.a, r->b.lld, r->sub[4], r->sub[5],
                          &x->gb, &opts, &x->st);
        MPI_Barrier(MPI_COMM_WORLD);
        x->sec[k] = MPI_Wtime() - t0;
    }
    int64_t tot[4] = {x->st.bytes_sent, x->st.bytes_local, x->st.pieces, x->st.messages_sent};
    memcpy(x->tot, tot, sizeof tot);
    x->bad = !s && r->verify ? dmat_check(&r->b, x->es, (uint64_t)r->seed, r->sub) : 0;
    MPI_Allreduce(MPI_IN_PLACE, x->tot, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &x->bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    double phase[3] = {x->st.seconds_plan, x->st.seconds_exchange, x->st.seconds_unpack};
    memcpy(x->phase, phase, sizeof phase);
    MPI_Allreduce(MPI_IN_PLACE, x->phase, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return s;
}

// The --json object of a run whose median is med seconds for bytes bytes.
static json_t *redist_json(const redist_run *x, double med, int64_t bytes)
{
    const redist_args *r = &x->r;
    const int64_t *tot = x->tot;
    json_t *o = json_pack(
        "{s:b, s:i, s:I, s:I, s:s, s:s, s:[IIIIII], s:I, s:I, s:I, s:I, s:I, s:I, s:i, "
        "s:f, s:f, s:f, s:f}", "mpi", 1, "ranks", tool_nranks, "m", (json_int_t)r->a.m, "n",
        (json_int_t)r->a.n, "from", r->from, "to", r->to, "sub", (json_int_t)r->sub[0],
        (json_int_t)r->sub[1], (json_int_t)r->sub[2], (json_int_t)r->sub[3],
        (json_int_t)r->sub[4], (json_int_t)r->sub[5], "tiles",
        (json_int_t)(((r->a.m + r->a.mb - 1) / r->a.mb) * ((r->a.n + r->a.nb - 1) / r->a.nb)),
        "segments", (json_int_t)tot[2], "bytes", (json_int_t)bytes, "bytes_moved",
        (json_int_t)tot[0], "bytes_local", (json_int_t)tot[1], "messages",
        (json_int_t)tot[3], "reps", (int)r->reps, "seconds", med, "seconds_min", x->sec[0],
        "seconds_max", x->sec[r->reps - 1], "bandwidth_gbs", med > 0 ? bytes / med / 1e9 : 0.0);
    // The phases of the last repetition, slowest rank of each.
    json_object_set_new(o, "schedule", json_string(r->steps ? "steps" : "free"));
    json_t *pj = json_array(), *tj = json_array();
    for (int k = 0; k < tool_nranks; k++)
        json_array_append_new(pj, json_integer(x->perm[k]));
    for (int c = 0; c < r->b.p * r->b.q; c++)
        json_array_append_new(tj, json_integer(x->bran[c]));
    json_object_set_new(o, "transport", json_string(r->a2a && !r->steps ? "alltoallv" : "p2p"));
    json_object_set_new(o, "match", json_string(nt_match_objective_name(r->match)));
    json_object_set_new(o, "rank_perm", pj);
    json_object_set_new(o, "target_ranks", tj);
    json_object_set_new(o, "inter_rank_bytes", json_integer(x->ch.inter_bytes));
    json_object_set_new(o, "intra_rank_bytes", json_integer(x->ch.intra_bytes));
    json_object_set_new(o, "inter_rank_steps", json_integer(x->ch.inter_steps));
    json_object_set_new(o, "canonical_inter_rank_bytes", json_integer(x->can.inter_bytes));
    json_object_set_new(o, "canonical_intra_rank_bytes", json_integer(x->can.intra_bytes));
    json_object_set_new(o, "canonical_inter_rank_steps", json_integer(x->can.inter_steps));
    if (x->topo) {
        json_object_set_new(o, "domains", json_integer(nt_mpi_topo_ndomains(x->topo)));
        json_object_set_new(o, "inter_rank_distance",
                            json_integer(nt_mpi_topo_inter_distance(x->topo)));
    }
    json_object_set_new(o, "plan_seconds", json_real(x->phase[0]));
    json_object_set_new(o, "exchange_seconds", json_real(x->phase[1]));
    json_object_set_new(o, "unpack_seconds", json_real(x->phase[2]));
    if (o && r->verify)
        json_object_set_new(o, "verify", json_boolean(x->bad == 0));
    if (o && r->verify)
        json_object_set_new(o, "mismatches", json_integer(x->bad));
    return o;
}

// The text report of the same run.
static void redist_text(const redist_run *x, double med, int64_t bytes)
{
    const redist_args *r = &x->r;
    const int64_t *tot = x->tot;
    printf("redist --mpi: %d ranks, %s -> %s, %lld bytes: %lld crossed ranks in %lld "
           "messages, %lld stayed; %.6f s (median of %ld), %.2f GB/s%s\n", tool_nranks,
           r->from, r->to, (long long)bytes, (long long)tot[0], (long long)tot[3],
           (long long)tot[1], med, r->reps, med > 0 ? bytes / med / 1e9 : 0.0,
           r->verify ? (x->bad ? "; verify FAILED" : "; verify ok") : "");
    printf("match %s: %lld bytes between ranks, %lld within them, one-port bound %lld "
           "(canonical: %lld, %lld, %lld); target ranks", nt_match_objective_name(r->match),
           (long long)x->ch.inter_bytes, (long long)x->ch.intra_bytes,
           (long long)x->ch.inter_steps, (long long)x->can.inter_bytes,
           (long long)x->can.intra_bytes, (long long)x->can.inter_steps);
    for (int c = 0; c < r->b.p * r->b.q; c++)
        printf(" %d", x->bran[c]);
    if (x->topo)
        printf("; %d domains over the ranks (inter-rank distance %u)",
               nt_mpi_topo_ndomains(x->topo), nt_mpi_topo_inter_distance(x->topo));
    printf("\n");
}

// Rank 0's report: 0, or 3 if the JSON could not be written.
static int report(redist_run *x)
{
    double med = tool_median(x->sec, (int)x->r.reps);
    int64_t bytes = x->r.sub[0] * x->r.sub[1] * (int64_t)x->es;
    json_t *o = redist_json(x, med, bytes);
    if (x->r.json)
        return tool_print_json(o) ? 3 : 0;
    redist_text(x, med, bytes);
    json_decref(o);
    return 0;
}

int tool_redist(int argc, char **argv)
{
    redist_run x = {0};
    int rc = parse_redist(argc, argv, &x.r);
    if (rc)
        return rc;
    x.es = (size_t)x.r.elem;
    if ((rc = check_room(&x)) || (rc = alloc_operands(&x)) || (rc = place_target(&x)))
        return rc;
    nt_status s = measure(&x, place_b(&x));
    rc = s ? 3 : x.bad ? 1 : 0;
    if (s && tool_rank == 0)
        fprintf(stderr, "numatile-mpi redist: %s: %s\n", nt_strerror(s), nt_mpi_last_error());
    if (!s && tool_rank == 0 && report(&x))
        rc = 3;
    free(x.sec);
    free(x.r.a.a);
    free(x.r.b.a);
    free(x.bran);
    free(x.perm);
    nt_mpi_topo_destroy(x.topo);
    return rc;
}
