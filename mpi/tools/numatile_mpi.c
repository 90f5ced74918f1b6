// numatile-mpi: the MPI side of the numatile tool (which itself never links MPI).
//
//   mpirun -np R numatile-mpi redist --m M --n N --from TILE@DIST --to TILE@DIST [--sub S]
//                                    [--elem B] [--threads T] [--schedule free|steps]
//                                    [--reps K] [--seed S] [--verify] [--json]
//                                    [--match none|volume|steps|lex] [--domains D]
//                                    [--transport p2p|alltoallv]
//   mpirun -np 4 numatile-mpi bench [--n N] [--reps K] [--quick] [--json]
//
// `numatile redist --mpi ...` execs `numatile-mpi redist ...` with the same arguments.
// redist: DIST is bc2d:PxQ or bc1d:P (ScaLAPACK layouts, grid cell (p,q) on rank p*Q + q, as
// numatile's bc2d maps), each rank allocates only its own local arrays, fills A with numatile's
// pattern (nt_matrix_pattern_value of the global coordinates) and B with another one, runs
// nt_mpi_redist K times and (--verify) checks every local element of B. Rank 0 prints.
// bench: pdgemr2d and nt_pdgemr2d on the same geometries, alternating, in the same run; per
// geometry the bytes that cross ranks, the median times (slowest rank, between barriers) and
// their ratio; both results checked against the oracle.
// Exit codes as the numatile tool: 0 success, 1 a check failed, 2 bad arguments, 3 a failure.
#include <errno.h>
#include <jansson.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/matrix.h>

#include "numatile/mpi.h"
#include "mpi/nt_blacs.h"
#include "lib/matrix/nt_lines.h"


enum { MAX_REPS = 1000 };
static int rank, nranks;

// Printed by rank 0 only; every rank returns the same code.
static int usage(const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "numatile-mpi: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n");
    }
    return 2;
}

static bool number(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

// One block-cyclic matrix over the first P*Q ranks, row-major.
typedef struct dmat {
    int64_t m, n, mb, nb;
    int p, q, prow, pcol; // prow = -1 outside the grid
    const int *ranks;     // the rank of each cell (row-major), NULL = cell number
    int64_t mloc, nloc, lld;
    char *a;
} dmat;

// TILE@DIST with TILE = MBxNB or MB and DIST = bc2d:PxQ or bc1d:P.
static bool parse_layout(const char *s, dmat *d)
{
    long long mb, nb;
    int p, q, k = 0;
    char tail;
    if (sscanf(s, "%lldx%lld@%n", &mb, &nb, &k) == 2 && k > 0)
        s += k;
    else if (sscanf(s, "%lld@%n", &mb, &k) == 1 && k > 0) {
        nb = mb;
        s += k;
    } else
        return false;
    if (sscanf(s, "bc2d:%dx%d%c", &p, &q, &tail) == 2)
        ;
    else if (sscanf(s, "bc1d:%d%c", &q, &tail) == 1)
        p = 1;
    else
        return false;
    *d = (dmat){.mb = mb, .nb = nb, .p = p, .q = q};
    return mb >= 1 && nb >= 1 && mb <= INT32_MAX && nb <= INT32_MAX && p >= 1 && q >= 1 &&
           p <= 4096 && q <= 4096;
}

static void local_index_to_global(const dmat *d, int64_t li, int64_t lj, int64_t *gi, int64_t *gj)
{
    *gi = (li / d->mb) * d->p * d->mb + d->prow * d->mb + li % d->mb;
    *gj = (lj / d->nb) * d->q * d->nb + d->pcol * d->nb + lj % d->nb;
}

// Element (gi, gj) of the pattern of seed: numatile's pattern bytes, or for the bench (which
// hands them to pdgemr2d as doubles) a finite double exact below 2^53.
static bool bench_values;
static void value(const dmat *d, uint64_t seed, int64_t gi, int64_t gj, char *out, size_t es)
{
    if (bench_values) {
        double v = (double)seed * 1e15 + (double)gi * (double)d->n + (double)gj;
        memcpy(out, &v, sizeof v);
    } else {
        nt_matrix_pattern_value(seed, gi, gj, out, es);
    }
}

static void fill_cols(dmat *d, size_t es, uint64_t seed, int64_t c0, int64_t c1);

// This rank's part, not filled (its pages untouched).
static bool alloc_dmat_only(dmat *d, size_t es)
{
    int cell = -1;
    for (int c = 0; c < d->p * d->q; c++)
        if ((d->ranks ? d->ranks[c] : c) == rank)
            cell = c;
    d->prow = cell >= 0 ? cell / d->q : -1;
    d->pcol = cell >= 0 ? cell % d->q : -1;
    d->a = NULL;
    d->mloc = d->nloc = 0;
    d->lld = 1;
    if (d->prow < 0)
        return true;
    d->mloc = nt_mpi_numroc(d->m, d->mb, d->prow, 0, d->p);
    d->nloc = nt_mpi_numroc(d->n, d->nb, d->pcol, 0, d->q);
    d->lld = d->mloc > 1 ? d->mloc : 1;
    size_t count = (size_t)d->lld * (size_t)(d->nloc > 1 ? d->nloc : 1);
    d->a = malloc(count * es);
    return d->a != NULL;
}

// This rank's part, filled from pattern seed (every element).
static bool alloc_dmat(dmat *d, size_t es, uint64_t seed)
{
    if (!alloc_dmat_only(d, es))
        return false;
    fill_cols(d, es, seed, 0, d->nloc);
    return true;
}

static void fill_dmat(dmat *d, size_t es, uint64_t seed)
{
    fill_cols(d, es, seed, 0, d->nloc);
}

// Local columns [c0, c1) of this rank's part from pattern seed.
static void fill_cols(dmat *d, size_t es, uint64_t seed, int64_t c0, int64_t c1)
{
    for (int64_t lj = c0; lj < c1; lj++)
        for (int64_t li = 0; li < d->mloc; li++) {
            int64_t gi, gj;
            local_index_to_global(d, li, lj, &gi, &gj);
            value(d, seed, gi, gj, d->a + (size_t)(li + lj * d->lld) * es, es);
        }
}

static nt_mpi_grid_t grid_of(const dmat *d)
{
    return (nt_mpi_grid_t){d->m, d->n, d->mb, d->nb, 0, 0, d->p, d->q, d->ranks};
}

// Elements of B that differ from the oracle: A's pattern inside the submatrix, B's own outside.
static int64_t check(const dmat *b, size_t es, uint64_t seed, const int64_t *sub)
{
    char want[64], *big = es > sizeof want ? malloc(es) : NULL;
    char *w = big ? big : want;
    int64_t bad = 0;
    for (int64_t lj = 0; lj < b->nloc; lj++)
        for (int64_t li = 0; li < b->mloc; li++) {
            int64_t gi, gj;
            local_index_to_global(b, li, lj, &gi, &gj);
            bool in = gi >= sub[4] && gi < sub[4] + sub[0] && gj >= sub[5] && gj < sub[5] + sub[1];
            if (in)
                value(b, seed, gi - sub[4] + sub[2], gj - sub[5] + sub[3], w, es);
            else
                value(b, seed + 1, gi, gj, w, es);
            bad += memcmp(w, b->a + (size_t)(li + lj * b->lld) * es, es) != 0;
        }
    free(big);
    return bad;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int print_json(json_t *o)
{
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
    int ok = t && printf("%s\n", t) > 0 && fflush(stdout) == 0;
    free(t);
    json_decref(o);
    return ok ? 0 : 3;
}

// ---- redist ------------------------------------------------------------------------------

typedef struct redist_args {
    dmat a, b;
    int64_t sub[6];
    bool has_sub, verify, json, steps, a2a;
    long elem, threads, reps, seed, domains; // domains: --domains (0 = not given)
    nt_match_objective match;
    char from[128], to[128];
} redist_args;

static int parse_redist(int argc, char **argv, redist_args *r)
{
    *r = (redist_args){.elem = 8, .reps = 1, .seed = 1};
    long m = 0, n = 0;
    bool from = false, to = false;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool val = true, ok = true;
        if (!strcmp(o, "--verify"))
            r->verify = true, val = false;
        else if (!strcmp(o, "--json"))
            r->json = true, val = false;
        else if (!strcmp(o, "--m"))
            ok = number(v, 1, INT32_MAX, &m);
        else if (!strcmp(o, "--n"))
            ok = number(v, 1, INT32_MAX, &n);
        else if (!strcmp(o, "--elem"))
            ok = number(v, 1, 1 << 20, &r->elem);
        else if (!strcmp(o, "--threads"))
            ok = number(v, 1, 256, &r->threads);
        else if (!strcmp(o, "--reps"))
            ok = number(v, 1, MAX_REPS, &r->reps);
        else if (!strcmp(o, "--seed"))
            ok = number(v, 0, INT32_MAX, &r->seed);
        else if (!strcmp(o, "--from") || !strcmp(o, "--to")) {
            bool f = o[2] == 'f';
            ok = v && parse_layout(v, f ? &r->a : &r->b);
            if (ok)
                snprintf(f ? r->from : r->to, sizeof r->from, "%s", v);
            if (f)
                from = ok;
            else
                to = ok;
        } else if (!strcmp(o, "--match")) {
            ok = v && nt_match_objective_parse(v, &r->match) == NT_OK &&
                 r->match != NT_MATCH_DISTANCE;
            if (!ok)
                return usage("--match: '%s' is not none|canonical|volume|steps|lex (with --mpi)",
                             v ? v : "");
        } else if (!strcmp(o, "--transport")) {
            ok = v && (!strcmp(v, "p2p") || !strcmp(v, "alltoallv"));
            r->a2a = ok && !strcmp(v, "alltoallv");
        } else if (!strcmp(o, "--domains")) {
            ok = number(v, 1, 4096, &r->domains);
        } else if (!strcmp(o, "--schedule")) {
            ok = v && (!strcmp(v, "free") || !strcmp(v, "steps"));
            r->steps = ok && !strcmp(v, "steps");
        } else if (!strcmp(o, "--sub")) {
            long long s[6];
            char tail;
            ok = v && sscanf(v, "%lld,%lld,%lld,%lld,%lld,%lld%c", &s[0], &s[1], &s[2], &s[3],
                             &s[4], &s[5], &tail) == 6;
            for (int k = 0; ok && k < 6; k++)
                ok = s[k] >= 0, r->sub[k] = s[k];
            r->has_sub = ok;
        } else if (!strncmp(o, "--", 2))
            return usage("%s: not available with --mpi (see numatile(1), redist --mpi)", o);
        else
            return usage("unexpected argument '%s'", o);
        if (!ok)
            return usage("%s: missing or bad value (see numatile(1))", o);
        i += val;
    }
    if (!m || !n)
        return usage("%s", "--m and --n are required");
    if (!from || !to)
        return usage("%s", "--from and --to are required, TILE@bc2d:PxQ or TILE@bc1d:P");
    r->a.m = r->b.m = m;
    r->a.n = r->b.n = n;
    if (!r->has_sub)
        memcpy(r->sub, (int64_t[6]){m, n, 0, 0, 0, 0}, sizeof r->sub);
    const int64_t *s = r->sub;
    if (s[0] + s[2] > m || s[1] + s[3] > n || s[0] + s[4] > m || s[1] + s[5] > n)
        return usage("%s", "--sub: the submatrix is outside the matrix");
    int need = r->a.p * r->a.q > r->b.p * r->b.q ? r->a.p * r->a.q : r->b.p * r->b.q;
    if ((long)r->a.p * r->a.q > nranks || (long)r->b.p * r->b.q > nranks) {
        char msg[160];
        snprintf(msg, sizeof msg, "the grids need %d ranks, %d running (mpirun -np %d)", need,
                 nranks, need);
        return usage("%s", msg);
    }
    return 0;
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
        fill_cols(f->d, f->es, f->seed, c0, c1);
    return s;
}

static int cmd_redist(int argc, char **argv)
{
    redist_args r;
    int rc = parse_redist(argc, argv, &r);
    if (rc)
        return rc;
    size_t es = (size_t)r.elem;
    int ok = alloc_dmat(&r.a, es, (uint64_t)r.seed) && alloc_dmat(&r.b, es, (uint64_t)r.seed + 1);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        if (rank == 0)
            fprintf(stderr, "numatile-mpi redist: cannot allocate the local arrays\n");
        free(r.a.a);
        free(r.b.a);
        return 3;
    }
    nt_mpi_grid_t ga = grid_of(&r.a), gb = grid_of(&r.b);
    // Where the target lives is ours to choose: the rank-level relabelling permutes its rank
    // table (the same result on every rank), and B is allocated on the ranks it names.
    int *bran = malloc((size_t)nranks * sizeof *bran), *perm = malloc((size_t)nranks * sizeof *perm);
    nt_mpi_relabel_cost_t can = {0}, ch = {0};
    nt_status s = bran && perm ? NT_OK : NT_ENOMEM;
    if (!s)
        s = nt_mpi_relabel(nranks, r.sub[0], r.sub[1], es, r.sub[2], r.sub[3], &ga, r.sub[4],
                           r.sub[5], &gb, r.match, bran, perm, &can, &ch);
    nt_mpi_topo_t *topo = NULL;
    if (!s && r.domains) {
        nt_topo_opts_t to = {.domains = (int)r.domains};
        s = nt_mpi_topo_create(MPI_COMM_WORLD, &to, 0, &topo);
    }
    if (s) {
        if (rank == 0)
            fprintf(stderr, "numatile-mpi redist: %s: %s\n", nt_strerror(s), nt_mpi_last_error());
        free(bran), free(perm), free(r.a.a), free(r.b.a);
        return s == NT_EINVAL ? 2 : 3;
    }
    free(r.b.a);
    r.b.ranks = bran;
    ok = alloc_dmat_only(&r.b, es);
    // With --domains, B's columns are first touched by a thread bound to the local domain
    // that later writes them (nt_mpi_topo_columns), so its pages are on that domain.
    fill_arg fa = {&r.b, es, (uint64_t)r.seed + 1, topo};
    if (ok && (!topo || nt_team_run(nt_mpi_topo_local(topo), 1, fill_domain, &fa) != NT_OK))
        fill_dmat(&r.b, es, (uint64_t)r.seed + 1);
    else if (ok) // nt_team_run gives no thread to a domain without cpus
        for (int d = 0; d < nt_topo_ndomains(nt_mpi_topo_local(topo)); d++) {
            nt_domain_info_t info;
            if (nt_topo_domain(nt_mpi_topo_local(topo), d, &info) == NT_OK && !info.ncpus)
                fill_domain(d, 0, &fa);
        }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    gb = grid_of(&r.b);
    nt_mpi_opts_t opts = {.threads = (int)r.threads, .steps = r.steps, .alltoallv = r.a2a,
                          .topo = topo};
    double *sec = malloc((size_t)r.reps * sizeof *sec);
    nt_mpi_stats_t st = {0};
    s = sec && ok ? NT_OK : NT_ENOMEM;
    for (long k = 0; k < r.reps && !s; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        s = nt_mpi_redist(MPI_COMM_WORLD, r.sub[0], r.sub[1], es, r.a.a, r.a.lld, r.sub[2],
                          r.sub[3], &ga, r.b.a, r.b.lld, r.sub[4], r.sub[5], &gb, &opts, &st);
        MPI_Barrier(MPI_COMM_WORLD);
        sec[k] = MPI_Wtime() - t0;
    }
    int64_t bad = 0, tot[4] = {st.bytes_sent, st.bytes_local, st.pieces, st.messages_sent};
    if (!s && r.verify)
        bad = check(&r.b, es, (uint64_t)r.seed, r.sub);
    MPI_Allreduce(MPI_IN_PLACE, tot, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    double phase[3] = {st.seconds_plan, st.seconds_exchange, st.seconds_unpack};
    MPI_Allreduce(MPI_IN_PLACE, phase, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    rc = s ? 3 : bad ? 1 : 0;
    if (s && rank == 0)
        fprintf(stderr, "numatile-mpi redist: %s: %s\n", nt_strerror(s), nt_mpi_last_error());
    if (!s && rank == 0) {
        double med = median(sec, (int)r.reps);
        int64_t bytes = r.sub[0] * r.sub[1] * (int64_t)es;
        json_t *o = json_pack(
            "{s:b, s:i, s:I, s:I, s:s, s:s, s:[IIIIII], s:I, s:I, s:I, s:I, s:I, s:I, s:i, "
            "s:f, s:f, s:f, s:f}", "mpi", 1, "ranks", nranks, "m", (json_int_t)r.a.m, "n",
            (json_int_t)r.a.n, "from", r.from, "to", r.to, "sub", (json_int_t)r.sub[0],
            (json_int_t)r.sub[1], (json_int_t)r.sub[2], (json_int_t)r.sub[3],
            (json_int_t)r.sub[4], (json_int_t)r.sub[5], "tiles",
            (json_int_t)(((r.a.m + r.a.mb - 1) / r.a.mb) * ((r.a.n + r.a.nb - 1) / r.a.nb)),
            "segments", (json_int_t)tot[2], "bytes", (json_int_t)bytes, "bytes_moved",
            (json_int_t)tot[0], "bytes_local", (json_int_t)tot[1], "messages",
            (json_int_t)tot[3], "reps", (int)r.reps, "seconds", med, "seconds_min", sec[0],
            "seconds_max", sec[r.reps - 1], "bandwidth_gbs", med > 0 ? bytes / med / 1e9 : 0.0);
        // The phases of the last repetition, slowest rank of each.
        json_object_set_new(o, "schedule", json_string(r.steps ? "steps" : "free"));
        json_t *pj = json_array(), *tj = json_array();
        for (int k = 0; k < nranks; k++)
            json_array_append_new(pj, json_integer(perm[k]));
        for (int c = 0; c < r.b.p * r.b.q; c++)
            json_array_append_new(tj, json_integer(bran[c]));
        json_object_set_new(o, "transport", json_string(r.a2a && !r.steps ? "alltoallv" : "p2p"));
        json_object_set_new(o, "match", json_string(nt_match_objective_name(r.match)));
        json_object_set_new(o, "rank_perm", pj);
        json_object_set_new(o, "target_ranks", tj);
        json_object_set_new(o, "inter_rank_bytes", json_integer(ch.inter_bytes));
        json_object_set_new(o, "intra_rank_bytes", json_integer(ch.intra_bytes));
        json_object_set_new(o, "inter_rank_steps", json_integer(ch.inter_steps));
        json_object_set_new(o, "canonical_inter_rank_bytes", json_integer(can.inter_bytes));
        json_object_set_new(o, "canonical_intra_rank_bytes", json_integer(can.intra_bytes));
        json_object_set_new(o, "canonical_inter_rank_steps", json_integer(can.inter_steps));
        if (topo) {
            json_object_set_new(o, "domains", json_integer(nt_mpi_topo_ndomains(topo)));
            json_object_set_new(o, "inter_rank_distance",
                                json_integer(nt_mpi_topo_inter_distance(topo)));
        }
        json_object_set_new(o, "plan_seconds", json_real(phase[0]));
        json_object_set_new(o, "exchange_seconds", json_real(phase[1]));
        json_object_set_new(o, "unpack_seconds", json_real(phase[2]));
        if (o && r.verify)
            json_object_set_new(o, "verify", json_boolean(bad == 0));
        if (o && r.verify)
            json_object_set_new(o, "mismatches", json_integer(bad));
        if (r.json) {
            if (print_json(o))
                rc = 3;
        } else {
            printf("redist --mpi: %d ranks, %s -> %s, %lld bytes: %lld crossed ranks in %lld "
                   "messages, %lld stayed; %.6f s (median of %ld), %.2f GB/s%s\n", nranks,
                   r.from, r.to, (long long)bytes, (long long)tot[0], (long long)tot[3],
                   (long long)tot[1], med, r.reps, med > 0 ? bytes / med / 1e9 : 0.0,
                   r.verify ? (bad ? "; verify FAILED" : "; verify ok") : "");
            printf("match %s: %lld bytes between ranks, %lld within them, one-port bound %lld "
                   "(canonical: %lld, %lld, %lld); target ranks", nt_match_objective_name(r.match),
                   (long long)ch.inter_bytes, (long long)ch.intra_bytes,
                   (long long)ch.inter_steps, (long long)can.inter_bytes,
                   (long long)can.intra_bytes, (long long)can.inter_steps);
            for (int c = 0; c < r.b.p * r.b.q; c++)
                printf(" %d", bran[c]);
            if (topo)
                printf("; %d domains over the ranks (inter-rank distance %u)",
                       nt_mpi_topo_ndomains(topo), nt_mpi_topo_inter_distance(topo));
            printf("\n");
            json_decref(o);
        }
    }
    free(sec);
    free(r.a.a);
    free(r.b.a);
    free(bran);
    free(perm);
    nt_mpi_topo_destroy(topo);
    return rc;
}

// ---- bench ---------------------------------------------------------------------------------

typedef struct geom {
    const char *name;
    int mba, pa, qa, mbb, pb, qb;
    bool sub;
} geom;

static const geom GEOMS[] = {
    {"nb 1, 2x2->4x1", 1, 2, 2, 1, 4, 1, false},
    {"nb 2, 2x2->4x1", 2, 2, 2, 2, 4, 1, false},
    {"nb 4, 2x2->4x1", 4, 2, 2, 4, 4, 1, false},
    {"nb 8, 2x2->4x1", 8, 2, 2, 8, 4, 1, false},
    {"nb 32, 2x2->4x1", 32, 2, 2, 32, 4, 1, false},
    {"nb 64, 2x2->4x1", 64, 2, 2, 64, 4, 1, false},
    {"nb 128, 2x2->4x1", 128, 2, 2, 128, 4, 1, false},
    {"nb 512, 2x2->4x1", 512, 2, 2, 512, 4, 1, false},
    {"nb 1->3, 2x2->4x1", 1, 2, 2, 3, 4, 1, false},
    {"nb 8->12, 2x2->4x1", 8, 2, 2, 12, 4, 1, false},
    {"nb 64->100, 2x2->4x1", 64, 2, 2, 100, 4, 1, false},
    {"nb 1->2, 2x2 equal", 1, 2, 2, 2, 2, 2, false},
    {"nb 8->4, 2x2 equal", 8, 2, 2, 4, 2, 2, false},
    {"nb 64->32, 2x2 equal", 64, 2, 2, 32, 2, 2, false},
    {"nb 512->256, 2x2 equal", 512, 2, 2, 256, 2, 2, false},
    {"nb 64->100, 2x2->1x4 sub", 64, 2, 2, 100, 1, 4, true},
};
enum { NGEOMS = sizeof GEOMS / sizeof GEOMS[0] };

// 0-based rows, cols, source corner, target corner of the submatrix case.
static void sub_of(const geom *g, int n, int *s)
{
    int k = g->sub ? n - n / 4 : n;
    int v[6] = {k, k, g->sub ? n / 8 : 0, g->sub ? n / 16 : 0, g->sub ? n / 16 : 0,
                g->sub ? n / 8 : 0};
    memcpy(s, v, sizeof v);
}

typedef struct side {
    int ctxt, desc[9];
    dmat d;
} side;

// The copy floor of one call: this rank's bytes of it (packed, unpacked and copied locally, as
// nt_pgemr2d's statistics count them) in one contiguous copy with streaming stores between the
// same barriers as the calls (glibc's memcpy streams only above its non-temporal threshold,
// 240 MiB on this machine type, and is slower for these sizes: it reads every target line
// before writing it). Between private strided arrays through MPI's shared memory every byte
// that crosses ranks is copied twice (into shared memory, out of it; MPI's single-copy kernel
// paths take contiguous messages only) and every local byte once: pdgemr2d_seconds / floor is
// about the most such a redistribution can gain over pdgemr2d here (a reference, not a strict
// bound: copies of different ranks that do not overlap in time can beat one copy per rank by a
// few percent).
typedef struct floor_buf {
    char *src, *dst;
    size_t bytes;
} floor_buf;

// Allocates and touches (so that no page fault is timed); false on every rank if one failed.
static bool floor_alloc(const nt_mpi_stats_t *ms, floor_buf *f)
{
    f->bytes = (size_t)(ms->bytes_sent + ms->bytes_received + ms->bytes_local);
    size_t alloc = (f->bytes + 63) / 64 * 64 + 64;
    f->src = aligned_alloc(64, alloc);
    f->dst = aligned_alloc(64, alloc);
    int ok = f->src && f->dst;
    if (ok) {
        memset(f->src, 1, f->bytes);
        memset(f->dst, 2, f->bytes);
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        free(f->src);
        free(f->dst);
        *f = (floor_buf){0};
    }
    return ok;
}

static double floor_time(const floor_buf *f)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    size_t body = f->bytes / 64 * 64;
    for (size_t i = 0; i < body; i += 64)
        nt_lines_stream(f->dst + i, f->src + i);
    memcpy(f->dst + body, f->src + body, f->bytes - body);
    nt_lines_fence();
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

static bool make_side(int n, int mb, int p, int q, uint64_t seed, side *s)
{
    s->d = (dmat){.m = n, .n = n, .mb = mb, .nb = mb, .p = p, .q = q};
    Cblacs_get(-1, 0, &s->ctxt);
    Cblacs_gridinit(&s->ctxt, "Row", p, q);
    memset(s->desc, 0, sizeof s->desc);
    s->desc[1] = -1;
    if (!alloc_dmat(&s->d, 8, seed))
        return false;
    if (s->d.prow >= 0) {
        int d[9] = {1, s->ctxt, n, n, mb, mb, 0, 0, (int)s->d.lld};
        memcpy(s->desc, d, sizeof d);
    }
    return true;
}

static void free_side(side *s)
{
    free(s->d.a);
    if (s->ctxt >= 0)
        Cblacs_gridexit(s->ctxt);
}

static json_t *bench_geom(const geom *g, int n, int reps, int gctx, bool *fail)
{
    static double none[1];
    side a, b;
    int ok = make_side(n, g->mba, g->pa, g->qa, 1, &a) & make_side(n, g->mbb, g->pb, g->qb, 2, &b);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double tp[MAX_REPS], tn[MAX_REPS], tv[MAX_REPS], tf[MAX_REPS];
    floor_buf fb = {0};
    bool floor_ok = false;
    // The same copy through one MPI_Alltoallv (opts.alltoallv); the BLACS grids are row-major
    // over ranks 0.., as grid_of() says.
    nt_mpi_grid_t gva = grid_of(&a.d), gvb = grid_of(&b.d);
    nt_mpi_opts_t vopt = {.alltoallv = 1};
    int64_t bad_av = 0;
    int s[6];
    sub_of(g, n, s);
    int ia = s[2] + 1, ja = s[3] + 1, ib = s[4] + 1, jb = s[5] + 1;
    int64_t bad_pd = 0, bad_nt = 0, crossed = 0, local = 0;
    nt_status st = NT_OK;
    int64_t sub64[6] = {s[0], s[1], s[2], s[3], s[4], s[5]};
    for (int k = 0; ok && k < reps && !st; k++) {
        double *ba = a.d.a ? (double *)a.d.a : none, *bb = b.d.a ? (double *)b.d.a : none;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgemr2d_(&s[0], &s[1], ba, &ia, &ja, a.desc, bb, &ib, &jb, b.desc, &gctx);
        MPI_Barrier(MPI_COMM_WORLD);
        tp[k] = MPI_Wtime() - t0;
        if (k == 0 && b.d.a)
            bad_pd = check(&b.d, 8, 1, sub64);
        // B back to its initial values before the first Alltoallv run, so the check sees it.
        if (k == 0 && b.d.a)
            fill_dmat(&b.d, 8, 2);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        st = nt_mpi_redist(MPI_COMM_WORLD, s[0], s[1], 8, a.d.a, a.d.lld, s[2], s[3], &gva,
                           b.d.a, b.d.lld, s[4], s[5], &gvb, &vopt, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        tv[k] = MPI_Wtime() - t0;
        if (k == 0 && b.d.a && !st)
            bad_av = check(&b.d, 8, 1, sub64);
        if (st)
            break;
        if (k == 0 && b.d.a)
            fill_dmat(&b.d, 8, 2);
        nt_mpi_stats_t ms;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        st = nt_pgemr2d(8, s[0], s[1], ba, ia, ja, a.desc, bb, ib, jb, b.desc, gctx, &ms);
        MPI_Barrier(MPI_COMM_WORLD);
        tn[k] = MPI_Wtime() - t0;
        crossed = ms.bytes_sent;
        local = ms.bytes_local;
        if (k == 0)
            floor_ok = floor_alloc(&ms, &fb);
        if (floor_ok)
            tf[k] = floor_time(&fb);
    }
    free(fb.src);
    free(fb.dst);
    // numatile's result is checked after its last run (pdgemr2d's after its first).
    if (ok && !st && b.d.a)
        bad_nt = check(&b.d, 8, 1, sub64);
    int64_t sums[5] = {bad_pd, bad_nt, crossed, local, bad_av};
    MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    free_side(&a);
    free_side(&b);
    if (!ok || st) {
        *fail = true;
        if (rank == 0)
            fprintf(stderr, "numatile-mpi bench: %s: %s\n", g->name,
                    !ok ? "out of memory" : nt_mpi_last_error());
        return NULL;
    }
    if (sums[0] || sums[1] || sums[4])
        *fail = true;
    double pd = median(tp, reps), nt = median(tn, reps), av = median(tv, reps);
    json_t *row = json_pack("{s:s, s:i, s:[iiiiii], s:[iii], s:[iii], s:I, s:I, s:I, s:f, s:f, s:f, "
                     "s:f, s:f, s:f, s:f, s:b, s:b}", "geometry", g->name, "n", n, "sub", s[0],
                     s[1], s[2], s[3], s[4], s[5], "from", g->mba, g->pa, g->qa, "to", g->mbb,
                     g->pb, g->qb, "bytes", (json_int_t)s[0] * s[1] * 8, "bytes_crossing",
                     (json_int_t)sums[2], "bytes_local", (json_int_t)sums[3], "pdgemr2d_seconds",
                     pd, "pdgemr2d_min", tp[0], "pdgemr2d_max", tp[reps - 1], "numatile_seconds",
                     nt, "numatile_min", tn[0], "numatile_max", tn[reps - 1], "speedup",
                     nt > 0 ? pd / nt : 0.0, "pdgemr2d_verify", sums[0] == 0, "numatile_verify",
                     sums[1] == 0);
    json_object_set_new(row, "alltoallv_seconds", json_real(av));
    json_object_set_new(row, "alltoallv_min", json_real(tv[0]));
    json_object_set_new(row, "alltoallv_max", json_real(tv[reps - 1]));
    json_object_set_new(row, "alltoallv_verify", json_boolean(sums[4] == 0));
    if (floor_ok) {
        double fl = median(tf, reps);
        json_object_set_new(row, "floor_seconds", json_real(fl));
        json_object_set_new(row, "floor_min", json_real(tf[0]));
        json_object_set_new(row, "floor_max", json_real(tf[reps - 1]));
        json_object_set_new(row, "floor_ratio", json_real(nt > 0 ? fl / nt : 0.0));
        json_object_set_new(row, "speedup_ceiling", json_real(fl > 0 ? pd / fl : 0.0));
    }
    return row;
}

static int cmd_bench(int argc, char **argv)
{
    long n = 4096, reps = 5;
    bool json = false, quick = false;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--n") && number(i + 1 < argc ? argv[i + 1] : NULL, 1,
                                                     46340, &n))
            i++;
        else if (!strcmp(argv[i], "--reps") && number(i + 1 < argc ? argv[i + 1] : NULL, 1,
                                                        MAX_REPS, &reps))
            i++;
        else
            return usage("bench: bad argument '%s' (--n N, --reps K, --quick, --json)", argv[i]);
    }
    if (quick)
        reps = reps < 3 ? reps : 3;
    if (nranks < 4)
        return usage("%s", "bench: needs 4 ranks (mpirun -np 4)");
    bench_values = true;
    int gctx;
    Cblacs_get(-1, 0, &gctx);
    Cblacs_gridinit(&gctx, "Row", 1, nranks);
    bool fail = false;
    json_t *rows = json_array();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    if (rank == 0 && !json)
        printf("bench mpi-redist: %d ranks, N = %ld doubles, %ld repetitions (median, slowest "
               "rank), %s\n%-26s %12s %11s %11s %8s %11s  verify\n", nranks, n, reps, lib,
               "geometry", "crossing MB", "pdgemr2d s", "numatile s", "speedup", "alltoallv s");
    for (int k = 0; k < NGEOMS; k++) {
        json_t *row = bench_geom(&GEOMS[k], (int)n, (int)reps, gctx, &fail);
        if (!row)
            break;
        if (rank == 0 && !json)
            printf("%-26s %12.1f %11.4f %11.4f %8.2f %11.4f  %s/%s/%s\n", GEOMS[k].name,
                   json_integer_value(json_object_get(row, "bytes_crossing")) / 1e6,
                   json_real_value(json_object_get(row, "pdgemr2d_seconds")),
                   json_real_value(json_object_get(row, "numatile_seconds")),
                   json_real_value(json_object_get(row, "speedup")),
                   json_real_value(json_object_get(row, "alltoallv_seconds")),
                   json_is_true(json_object_get(row, "pdgemr2d_verify")) ? "ok" : "FAIL",
                   json_is_true(json_object_get(row, "numatile_verify")) ? "ok" : "FAIL",
                   json_is_true(json_object_get(row, "alltoallv_verify")) ? "ok" : "FAIL");
        if (rank == 0)
            fflush(stdout);
        json_array_append_new(rows, row);
    }
    int rc = 0;
    if (rank == 0 && json)
        rc = print_json(json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:b}", "scenario", "mpi-redist",
                                  "mpi", lib, "ranks", nranks, "n", (int)n, "reps", (int)reps,
                                  "rows", rows, "verify", !fail));
    else
        json_decref(rows);
    Cblacs_gridexit(gctx);
    return rc ? rc : fail ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc;
    if (argc >= 2 && !strcmp(argv[1], "redist"))
        rc = cmd_redist(argc, argv);
    else if (argc >= 2 && !strcmp(argv[1], "bench"))
        rc = cmd_bench(argc, argv);
    else
        rc = usage("%s", "usage: mpirun -np R numatile-mpi redist|bench [options] (numatile(1))");
    Cblacs_exit(1);
    MPI_Finalize();
    return rc;
}
