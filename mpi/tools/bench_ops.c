// `numatile-mpi bench`'s operation rows (see main.c): ScaLAPACK's pdtrmr2d, pdtran and pztranc
// against nt_ptrmr2d and nt_ptran on the same matrices, alternating in the same run, both
// results compared element by element.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/nt_blacs.h"
#include "tool.h"

enum { OP_TRMR, OP_TRAN, OP_TRANC };
static const char *const OP_NAME[] = {"pdtrmr2d", "pdtran", "pztranc"};

// One row: the operation, A's block size and grid, B's (one context for the transposes).
typedef struct opgeom {
    int op, mba, pa, qa, mbb, pb, qb;
} opgeom;

static const opgeom OPGEOMS[] = {
    {OP_TRMR, 1, 2, 2, 1, 4, 1},     {OP_TRMR, 2, 2, 2, 2, 4, 1},
    {OP_TRMR, 4, 2, 2, 4, 4, 1},     {OP_TRMR, 8, 2, 2, 8, 4, 1},
    {OP_TRMR, 32, 2, 2, 32, 4, 1},   {OP_TRMR, 64, 2, 2, 64, 4, 1},
    {OP_TRMR, 128, 2, 2, 128, 4, 1}, {OP_TRMR, 512, 2, 2, 512, 4, 1},
    {OP_TRAN, 1, 2, 2, 1, 2, 2},     {OP_TRAN, 2, 2, 2, 2, 2, 2},
    {OP_TRAN, 4, 2, 2, 4, 2, 2},     {OP_TRAN, 8, 2, 2, 8, 2, 2},
    {OP_TRAN, 32, 2, 2, 32, 2, 2},   {OP_TRAN, 64, 2, 2, 64, 2, 2},
    {OP_TRAN, 128, 2, 2, 128, 2, 2}, {OP_TRAN, 512, 2, 2, 512, 2, 2},
    {OP_TRAN, 64, 2, 2, 100, 2, 2},  {OP_TRANC, 1, 2, 2, 1, 2, 2},
    {OP_TRANC, 8, 2, 2, 8, 2, 2},    {OP_TRANC, 64, 2, 2, 64, 2, 2},
    {OP_TRANC, 512, 2, 2, 512, 2, 2},
};
enum { NOPGEOMS = sizeof OPGEOMS / sizeof OPGEOMS[0] };

typedef struct opside {
    int desc[9];
    dmat d;
    size_t bytes; // this rank's local array
} opside;

// This rank's part of an n x n matrix on (ctxt, p x q, block mb), every double of it set from
// seed (finite values; complex elements are two doubles).
static bool make_opside(int n, int mb, int p, int q, int ctxt, size_t es, int seed, opside *s)
{
    s->d = (dmat){.m = n, .n = n, .mb = mb, .nb = mb, .p = p, .q = q};
    memset(s->desc, 0, sizeof s->desc);
    s->desc[1] = -1;
    s->bytes = 0;
    if (!dmat_alloc_only(&s->d, es))
        return false;
    if (s->d.prow < 0)
        return true;
    int d[9] = {1, ctxt, n, n, mb, mb, 0, 0, (int)s->d.lld};
    memcpy(s->desc, d, sizeof d);
    s->bytes = (size_t)s->d.lld * (size_t)(s->d.nloc > 1 ? s->d.nloc : 1) * es;
    double *v = (double *)(void *)s->d.a;
    for (size_t k = 0; k < s->bytes / 8; k++)
        v[k] = (double)((k * 7919 + (size_t)seed * 104729 + (size_t)tool_rank * 15485863) %
                        1000003) * 0.5;
    return true;
}

// Times of one row's repetitions and its check.
typedef struct oprun {
    opside a, b1, b2; // b1: ScaLAPACK's target, b2: numatile's, equal before the first call
    int ctxa, ctxb;
    double ts[TOOL_MAX_REPS], tn[TOOL_MAX_REPS];
} oprun;

static void call_scalapack(const opgeom *g, oprun *x, int n, int gctx)
{
    static const double one[2] = {1, 0}, zero[2] = {0, 0};
    static double none[2];
    const int i1 = 1;
    double *a = x->a.d.a ? (double *)(void *)x->a.d.a : none;
    double *b = x->b1.d.a ? (double *)(void *)x->b1.d.a : none;
    if (g->op == OP_TRMR)
        pdtrmr2d_("U", "N", &n, &n, a, &i1, &i1, x->a.desc, b, &i1, &i1, x->b1.desc, &gctx);
    else if (x->a.d.a && g->op == OP_TRAN)
        pdtran_(&n, &n, one, a, &i1, &i1, x->a.desc, zero, b, &i1, &i1, x->b1.desc);
    else if (x->a.d.a)
        pztranc_(&n, &n, one, a, &i1, &i1, x->a.desc, zero, b, &i1, &i1, x->b1.desc);
}

static nt_status call_numatile(const opgeom *g, oprun *x, int n, int gctx)
{
    static const double one[2] = {1, 0}, zero[2] = {0, 0};
    if (g->op == OP_TRMR)
        return nt_ptrmr2d('U', 'N', 8, n, n, x->a.d.a, 1, 1, x->a.desc, x->b2.d.a, 1, 1,
                          x->b2.desc, gctx, NULL);
    if (!x->a.d.a) // outside the context: p?tran is not called there
        return NT_OK;
    return nt_ptran(g->op == OP_TRAN ? 'T' : 'C', g->op == OP_TRAN ? 'd' : 'z', n, n, one,
                    x->a.d.a, 1, 1, x->a.desc, zero, x->b2.d.a, 1, 1, x->b2.desc, NULL);
}

// The repetitions, ScaLAPACK's call then numatile's, each between barriers.
static nt_status op_reps(const opgeom *g, oprun *x, int n, int reps, int gctx)
{
    nt_status st = NT_OK;
    for (int k = 0; k < reps && !st; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call_scalapack(g, x, n, gctx);
        MPI_Barrier(MPI_COMM_WORLD);
        x->ts[k] = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        st = call_numatile(g, x, n, gctx);
        MPI_Barrier(MPI_COMM_WORLD);
        x->tn[k] = MPI_Wtime() - t0;
    }
    return st;
}

static json_t *op_row(const opgeom *g, int n, int reps, oprun *x, int64_t mismatches)
{
    double sl = tool_median(x->ts, reps), nt = tool_median(x->tn, reps);
    char name[64], to[32] = "";
    if (g->op == OP_TRMR)
        snprintf(to, sizeof to, "->%dx%d", g->pb, g->qb);
    if (g->mbb != g->mba)
        snprintf(name, sizeof name, "%s nb %d->%d, %dx%d%s", OP_NAME[g->op], g->mba, g->mbb,
                 g->pa, g->qa, to);
    else
        snprintf(name, sizeof name, "%s nb %d, %dx%d%s", OP_NAME[g->op], g->mba, g->pa, g->qa,
                 to);
    return json_pack("{s:s, s:s, s:i, s:[iii], s:[iii], s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
                     "s:b}", "op", OP_NAME[g->op], "geometry", name, "n", n, "from", g->mba,
                     g->pa, g->qa, "to", g->mbb, g->pb, g->qb, "scalapack_seconds", sl,
                     "scalapack_min", x->ts[0], "scalapack_max", x->ts[reps - 1],
                     "numatile_seconds", nt, "numatile_min", x->tn[0], "numatile_max",
                     x->tn[reps - 1], "speedup", nt > 0 ? sl / nt : 0.0, "verify",
                     mismatches == 0);
}

static json_t *bench_op(const opgeom *g, int n, int reps, int gctx, bool *fail)
{
    size_t es = g->op == OP_TRANC ? 16 : 8;
    oprun x = {.ctxa = -1, .ctxb = -1};
    Cblacs_get(-1, 0, &x.ctxa);
    Cblacs_gridinit(&x.ctxa, "Row", g->pa, g->qa);
    x.ctxb = x.ctxa;
    if (g->op == OP_TRMR) {
        Cblacs_get(-1, 0, &x.ctxb);
        Cblacs_gridinit(&x.ctxb, "Row", g->pb, g->qb);
    }
    int ok = make_opside(n, g->mba, g->pa, g->qa, x.ctxa, es, 1, &x.a) &
             make_opside(n, g->mbb, g->pb, g->qb, x.ctxb, es, 2, &x.b1) &
             make_opside(n, g->mbb, g->pb, g->qb, x.ctxb, es, 2, &x.b2);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    nt_status st = ok ? op_reps(g, &x, n, reps, gctx) : NT_ENOMEM;
    int64_t bad = ok && !st && x.b1.bytes ? memcmp(x.b1.d.a, x.b2.d.a, x.b1.bytes) != 0 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    free(x.a.d.a), free(x.b1.d.a), free(x.b2.d.a);
    if (x.ctxa >= 0)
        Cblacs_gridexit(x.ctxa);
    if (g->op == OP_TRMR && x.ctxb >= 0)
        Cblacs_gridexit(x.ctxb);
    if (!ok || st) {
        *fail = true;
        if (tool_rank == 0)
            fprintf(stderr, "numatile-mpi bench: %s: %s\n", OP_NAME[g->op],
                    !ok ? "out of memory" : nt_mpi_last_error());
        return NULL;
    }
    *fail = *fail || bad;
    return op_row(g, n, reps, &x, bad);
}

json_t *tool_bench_ops(int n, int reps, int gctx, bool text, bool *fail)
{
    json_t *rows = json_array();
    if (tool_rank == 0 && text)
        printf("\n%-32s %12s %11s %8s  verify\n", "operation, geometry", "ScaLAPACK s",
               "numatile s", "speedup");
    for (int k = 0; k < NOPGEOMS; k++) {
        json_t *row = bench_op(&OPGEOMS[k], n, reps, gctx, fail);
        if (!row)
            break;
        if (tool_rank == 0 && text)
            printf("%-32s %12.4f %11.4f %8.2f  %s\n",
                   json_string_value(json_object_get(row, "geometry")),
                   json_real_value(json_object_get(row, "scalapack_seconds")),
                   json_real_value(json_object_get(row, "numatile_seconds")),
                   json_real_value(json_object_get(row, "speedup")),
                   json_is_true(json_object_get(row, "verify")) ? "ok" : "FAIL");
        if (tool_rank == 0)
            fflush(stdout);
        json_array_append_new(rows, row);
    }
    return rows;
}
