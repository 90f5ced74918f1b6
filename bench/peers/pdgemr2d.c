// pdgemr2d_peer: ScaLAPACK's pdgemr2d (the redistribution routine of ScaLAPACK's REDIST) on one
// M x N matrix of doubles, the peer that `numatile bench scalapack` compares numatile's own
// redistribution with. A program of its own, linked with MPI and ScaLAPACK only: MPI stays out
// of libnumatile, and this program does not link libnumatile.
//
//   mpirun -np R pdgemr2d_peer --m M --n N --from MBxNB@PxQ --to MBxNB@PxQ [--reps K]
//                              [--sub ROWS,COLS,SROW,SCOL,TROW,TCOL]
//
// The grids are BLACS grids in row-major order (rank = prow * Q + pcol), the order of numatile's
// bc2d:PxQ maps, on the first P*Q ranks; R must be at least the larger grid. A holds a pattern
// of its global coordinates, B is allocated once; each repetition calls pdgemr2d between two
// barriers and is timed with MPI_Wtime (the slowest rank's time). B is then checked element by
// element: the submatrix must hold A's values, the rest of B its initial value. Rank 0 prints
// one JSON object on one line. Exit 1 when the check fails, 2 on bad arguments, 3 when a run
// fails.
#include <errno.h>
#include <jansson.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The C BLACS interface and the Fortran entry points of ScaLAPACK (Debian's build: 32-bit Int;
// Fortran arguments by address, indices 1-based).
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ctxt);

enum { MAX_REPS = 1000, DESC_CTXT = 1 };
static const double B_INIT = -1.0; // B's initial value; the pattern is never negative

typedef struct layout {
    int mb, nb, p, q;
} layout;

typedef struct opts {
    int m, n, reps;
    layout from, to;
    int sub[6]; // rows, cols, source row, source col, target row, target col (0-based)
    bool has_sub;
} opts;

// One distributed matrix as this rank sees it.
typedef struct dmat {
    int ctxt, myrow, mycol; // ctxt -1 and myrow -1 when this rank is outside the grid
    int mloc, nloc, desc[9];
    double *a;
} dmat;

static const char USAGE[] =
    "usage: mpirun -np R pdgemr2d_peer --m M --n N --from MBxNB@PxQ --to MBxNB@PxQ [--reps K]\n"
    "                                  [--sub ROWS,COLS,SROW,SCOL,TROW,TCOL]\n";

static bool number(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool parse_layout(const char *s, layout *l)
{
    char tail;
    return sscanf(s, "%dx%d@%dx%d%c", &l->mb, &l->nb, &l->p, &l->q, &tail) == 4 && l->mb > 0 &&
           l->nb > 0 && l->p > 0 && l->q > 0 && (long)l->p * l->q <= 65536;
}

static bool parse_sub(const char *s, int *v)
{
    char tail;
    if (sscanf(s, "%d,%d,%d,%d,%d,%d%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
        return false;
    for (int i = 0; i < 6; i++)
        if (v[i] < 0)
            return false;
    return true;
}

// 0 on success, -1 for --help, else 2 (the message printed by the caller's rank 0 only).
static int parse(int argc, char **argv, opts *o, const char **bad)
{
    *o = (opts){.reps = 5};
    bool from = false, to = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return -1;
        bool ok = v != NULL;
        if (ok && !strcmp(a, "--m"))
            ok = number(v, 1, 1 << 30, &o->m);
        else if (ok && !strcmp(a, "--n"))
            ok = number(v, 1, 1 << 30, &o->n);
        else if (ok && !strcmp(a, "--reps"))
            ok = number(v, 1, MAX_REPS, &o->reps);
        else if (ok && !strcmp(a, "--from"))
            ok = from = parse_layout(v, &o->from);
        else if (ok && !strcmp(a, "--to"))
            ok = to = parse_layout(v, &o->to);
        else if (ok && !strcmp(a, "--sub"))
            ok = o->has_sub = parse_sub(v, o->sub);
        else
            ok = false;
        if (!ok) {
            *bad = a;
            return 2;
        }
        i++;
    }
    *bad = "--m, --n, --from and --to are required";
    if (!o->m || !o->n || !from || !to)
        return 2;
    if (!o->has_sub)
        memcpy(o->sub, (int[6]){o->m, o->n, 0, 0, 0, 0}, sizeof o->sub);
    *bad = "--sub is outside the matrix";
    const int *s = o->sub;
    bool inside = (long)s[0] + s[2] <= o->m && (long)s[1] + s[3] <= o->n &&
                  (long)s[0] + s[4] <= o->m && (long)s[1] + s[5] <= o->n;
    return inside ? 0 : 2;
}

// Global index of local index l along one dimension: blocks of b dealt cyclically over np
// processes from process 0, this process being number me (numroc's convention, source 0).
static int64_t global_index(int64_t l, int b, int np, int me)
{
    return (l / b) * (int64_t)np * b + (int64_t)me * b + l % b;
}

// The value of A(i, j), 0-based global coordinates: exact in a double while m * n < 2^53.
static double pattern(int64_t i, int64_t j, int n)
{
    return (double)(i * n + j);
}

// The grid of l on the first P*Q ranks and the local part of an m x n matrix distributed on
// it, every element set to init (or to the pattern when fill). False when memory or descinit
// fails; a rank outside the grid gets ctxt -1 in its descriptor, as pdgemr2d requires.
static bool make_dmat(const opts *o, const layout *l, bool fill, double init, dmat *d)
{
    *d = (dmat){.ctxt = -1, .myrow = -1, .mycol = -1};
    int nprow, npcol, zero = 0, info = 0;
    Cblacs_get(-1, 0, &d->ctxt);
    Cblacs_gridinit(&d->ctxt, "Row", l->p, l->q);
    if (d->ctxt >= 0)
        Cblacs_gridinfo(d->ctxt, &nprow, &npcol, &d->myrow, &d->mycol);
    if (d->ctxt < 0 || d->myrow < 0 || d->myrow >= l->p || d->mycol < 0 || d->mycol >= l->q) {
        d->myrow = d->mycol = -1;
        d->desc[DESC_CTXT] = -1;
        return true;
    }
    d->mloc = numroc_(&o->m, &l->mb, &d->myrow, &zero, &l->p);
    d->nloc = numroc_(&o->n, &l->nb, &d->mycol, &zero, &l->q);
    int lld = d->mloc > 1 ? d->mloc : 1;
    descinit_(d->desc, &o->m, &o->n, &l->mb, &l->nb, &zero, &zero, &d->ctxt, &lld, &info);
    size_t count = (size_t)lld * (size_t)(d->nloc > 1 ? d->nloc : 1);
    d->a = malloc(count * sizeof *d->a);
    if (info != 0 || !d->a)
        return false;
    for (int64_t lj = 0; lj < d->nloc; lj++) {
        int64_t gj = global_index(lj, l->nb, l->q, d->mycol);
        for (int64_t li = 0; li < d->mloc; li++)
            d->a[li + lj * lld] =
                fill ? pattern(global_index(li, l->mb, l->p, d->myrow), gj, o->n) : init;
    }
    return true;
}

static void free_dmat(dmat *d)
{
    free(d->a);
    if (d->ctxt >= 0)
        Cblacs_gridexit(d->ctxt);
}

// Elements of this rank's part of B that differ from what the redistribution must leave there.
static int64_t mismatches(const opts *o, const dmat *b)
{
    const int *s = o->sub;
    int64_t bad = 0, lld = b->desc[8];
    for (int64_t lj = 0; lj < b->nloc && b->a; lj++) {
        int64_t gj = global_index(lj, o->to.nb, o->to.q, b->mycol);
        bool col_in = gj >= s[5] && gj < (int64_t)s[5] + s[1];
        for (int64_t li = 0; li < b->mloc; li++) {
            int64_t gi = global_index(li, o->to.mb, o->to.p, b->myrow);
            bool in = col_in && gi >= s[4] && gi < (int64_t)s[4] + s[0];
            double want = in ? pattern(gi - s[4] + s[2], gj - s[5] + s[3], o->n) : B_INIT;
            bad += b->a[li + lj * lld] != want;
        }
    }
    return bad;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static json_t *layout_json(const layout *l)
{
    return json_pack("{s:i, s:i, s:i, s:i}", "mb", l->mb, "nb", l->nb, "p", l->p, "q", l->q);
}

// The JSON line of rank 0: geometry, ranks, the times (sorted in place), the check.
static bool print_result(const opts *o, int ranks, double *sec, int64_t bad)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0'; // its first clause: name and version
    json_t *all = json_array();
    for (int i = 0; i < o->reps; i++)
        json_array_append_new(all, json_real(sec[i]));
    qsort(sec, (size_t)o->reps, sizeof *sec, cmp_double);
    size_t h = (size_t)o->reps / 2;
    double med = o->reps % 2 ? sec[h] : 0.5 * (sec[h - 1] + sec[h]);
    const int *s = o->sub;
    json_t *out = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:o, s:o, s:[iiiiii], s:b, s:i, s:f, s:f, s:f, s:o, s:I, "
        "s:I, s:b}", "peer", "pdgemr2d", "mpi", lib, "ranks", ranks, "m", o->m, "n", o->n,
        "from", layout_json(&o->from), "to", layout_json(&o->to), "sub", s[0], s[1], s[2], s[3],
        s[4], s[5], "whole", !o->has_sub, "reps", o->reps, "seconds", med, "seconds_min",
        sec[0], "seconds_max", sec[o->reps - 1], "seconds_all", all, "bytes",
        (json_int_t)s[0] * s[1] * (json_int_t)sizeof(double), "mismatches", (json_int_t)bad,
        "verify", bad == 0);
    char *text = out ? json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
    bool ok = text && printf("%s\n", text) > 0 && fflush(stdout) == 0;
    free(text);
    json_decref(out);
    return ok;
}

// The timed repetitions: sec[k] = time of call k between two barriers of every rank.
static void run(const opts *o, int gctx, dmat *a, dmat *b, double *sec)
{
    static double none[1]; // the local part of a rank outside a grid: never read or written
    const int *s = o->sub;
    int ia = s[2] + 1, ja = s[3] + 1, ib = s[4] + 1, jb = s[5] + 1;
    for (int k = 0; k < o->reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgemr2d_(&s[0], &s[1], a->a ? a->a : none, &ia, &ja, a->desc, b->a ? b->a : none, &ib,
                  &jb, b->desc, &gctx);
        MPI_Barrier(MPI_COMM_WORLD);
        sec[k] = MPI_Wtime() - t0;
    }
}

// Everything after the arguments: 0, 1 (check failed) or 3 on every rank.
static int peer(const opts *o, int rank, int ranks)
{
    int me, np, gctx;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &gctx);
    Cblacs_gridinit(&gctx, "Row", 1, np); // the context containing every rank
    dmat a, b;
    double *sec = malloc((size_t)o->reps * sizeof *sec);
    int ok = make_dmat(o, &o->from, true, 0.0, &a) & make_dmat(o, &o->to, false, B_INIT, &b) &&
             sec != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok && rank == 0)
        fprintf(stderr, "pdgemr2d_peer: cannot allocate or describe the %d x %d matrices\n",
                o->m, o->n);
    int64_t bad = 0;
    if (ok) {
        run(o, gctx, &a, &b, sec);
        bad = mismatches(o, &b);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            ok = print_result(o, ranks, sec, bad);
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    free(sec);
    free_dmat(&a);
    free_dmat(&b);
    Cblacs_gridexit(gctx);
    return !ok ? 3 : bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    opts o;
    const char *bad = NULL;
    int rc = parse(argc, argv, &o, &bad);
    if (rc < 0 && rank == 0)
        fputs(USAGE, stdout);
    else if (rc > 0 && rank == 0)
        fprintf(stderr, "pdgemr2d_peer: bad or missing argument: %s\n%s", bad, USAGE);
    int need = o.from.p * o.from.q > o.to.p * o.to.q ? o.from.p * o.from.q : o.to.p * o.to.q;
    if (rc == 0 && ranks < need) {
        if (rank == 0)
            fprintf(stderr, "pdgemr2d_peer: %d ranks, the grids need %d (mpirun -np %d)\n",
                    ranks, need, need);
        rc = 2;
    }
    if (rc == 0) {
        rc = peer(&o, rank, ranks);
        Cblacs_exit(1); // releases BLACS; 1: MPI is ours to finalize
    }
    MPI_Finalize();
    return rc < 0 ? 0 : rc;
}
