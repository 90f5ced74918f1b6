// `numatile-mpi bench` (see main.c): pdgemr2d, nt_mpi_redist through one MPI_Alltoallv and
// nt_pgemr2d on the same geometries, alternating in the same run, beside a copy floor; with the
// shared window off (the path between nodes, point to point) nt_mpi_redist through datatypes
// and packed; then the operation rows of bench_ops.c.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/nt_blacs.h"
#include "tool.h"
// The floor streams whole lines as the executor does: header-only (static inline), so this
// program links no private libnumatile symbol through it.
#include "lib/matrix/nt_lines.h"

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
    if (!dmat_alloc(&s->d, 8, seed))
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

// One geometry's runs: both sides, the submatrix, the times of every repetition, the checks.
typedef struct geom_run {
    side a, b;
    int s[6];                // rows, cols, source corner, target corner (sub_of)
    int64_t sub[6];          // the same, for dmat_check
    int ia, ja, ib, jb;      // the corners 1-based, as ScaLAPACK takes them
    nt_mpi_grid_t gva, gvb;  // the BLACS grids are row-major over ranks 0.., as dmat_grid says
    double tp[TOOL_MAX_REPS]; // pdgemr2d
    double tv[TOOL_MAX_REPS]; // nt_mpi_redist through one MPI_Alltoallv (opts.alltoallv)
    double tn[TOOL_MAX_REPS]; // nt_pgemr2d
    double tf[TOOL_MAX_REPS]; // the copy floor
    double tw[TOOL_MAX_REPS]; // nt_mpi_redist, window off (point to point, datatypes)
    double tk[TOOL_MAX_REPS]; // nt_mpi_redist, window off, packed (NT_MPI_DATATYPES=0)
    floor_buf fb;
    bool floor_ok;
    int64_t bad_pd, bad_av, bad_nt, bad_w, bad_k, crossed, local; // this rank's
} geom_run;

// Communicators whose numatile context was made with the shared window off (NT_MPI_NO_SHM),
// and with datatypes off too: the point-to-point paths, timed in the same run.
static MPI_Comm off_comm = MPI_COMM_NULL, packed_comm = MPI_COMM_NULL;

// numatile reads NT_MPI_NO_SHM and NT_MPI_DATATYPES once per communicator, on its first call:
// an empty redistribution on a duplicate of MPI_COMM_WORLD makes its context with them set.
static MPI_Comm comm_with(const char *datatypes)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    const char *old = getenv("NT_MPI_NO_SHM"), *oldd = getenv("NT_MPI_DATATYPES");
    char *keep = old ? strdup(old) : NULL, *keepd = oldd ? strdup(oldd) : NULL;
    setenv("NT_MPI_NO_SHM", "1", 1);
    if (datatypes)
        setenv("NT_MPI_DATATYPES", datatypes, 1);
    nt_mpi_grid_t g = {0, 0, 1, 1, 0, 0, 1, 1, NULL};
    nt_mpi_redist(c, 0, 0, 8, NULL, 1, 0, 0, &g, NULL, 1, 0, 0, &g, NULL, NULL);
    if (keep)
        setenv("NT_MPI_NO_SHM", keep, 1);
    else
        unsetenv("NT_MPI_NO_SHM");
    if (keepd)
        setenv("NT_MPI_DATATYPES", keepd, 1);
    else if (datatypes)
        unsetenv("NT_MPI_DATATYPES");
    free(keep);
    free(keepd);
    return c;
}

// One nt_mpi_redist on comm between barriers: its time, B checked after the first repetition
// and set back to its initial values.
static nt_status timed_redist(geom_run *x, MPI_Comm comm, int k, double *t, int64_t *bad)
{
    const int *s = x->s;
    side *a = &x->a, *b = &x->b;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    nt_status st = nt_mpi_redist(comm, s[0], s[1], 8, a->d.a, a->d.lld, s[2], s[3], &x->gva,
                                 b->d.a, b->d.lld, s[4], s[5], &x->gvb, NULL, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    t[k] = MPI_Wtime() - t0;
    if (k == 0 && b->d.a && !st) {
        *bad = dmat_check(&b->d, 8, 1, x->sub);
        dmat_fill(&b->d, 8, 2);
    }
    return st;
}

// Repetition k of the three copies (and the floor) between barriers. pdgemr2d's and the
// Alltoallv's results are checked after their first run, B set back to its initial values
// after each so that the next check sees the copy.
static nt_status geom_rep(geom_run *x, int k, int gctx)
{
    static double none[1];
    side *a = &x->a, *b = &x->b;
    const int *s = x->s;
    double *ba = a->d.a ? (double *)a->d.a : none, *bb = b->d.a ? (double *)b->d.a : none;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgemr2d_(&s[0], &s[1], ba, &x->ia, &x->ja, a->desc, bb, &x->ib, &x->jb, b->desc, &gctx);
    MPI_Barrier(MPI_COMM_WORLD);
    x->tp[k] = MPI_Wtime() - t0;
    if (k == 0 && b->d.a)
        x->bad_pd = dmat_check(&b->d, 8, 1, x->sub);
    if (k == 0 && b->d.a)
        dmat_fill(&b->d, 8, 2);
    nt_mpi_opts_t vopt = {.alltoallv = 1};
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    nt_status st = nt_mpi_redist(MPI_COMM_WORLD, s[0], s[1], 8, a->d.a, a->d.lld, s[2], s[3],
                                 &x->gva, b->d.a, b->d.lld, s[4], s[5], &x->gvb, &vopt, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    x->tv[k] = MPI_Wtime() - t0;
    if (k == 0 && b->d.a && !st)
        x->bad_av = dmat_check(&b->d, 8, 1, x->sub);
    if (st)
        return st;
    if (k == 0 && b->d.a)
        dmat_fill(&b->d, 8, 2);
    st = timed_redist(x, off_comm, k, x->tw, &x->bad_w);
    if (!st)
        st = timed_redist(x, packed_comm, k, x->tk, &x->bad_k);
    if (st)
        return st;
    nt_mpi_stats_t ms;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    st = nt_pgemr2d(8, s[0], s[1], ba, x->ia, x->ja, a->desc, bb, x->ib, x->jb, b->desc, gctx,
                    &ms);
    MPI_Barrier(MPI_COMM_WORLD);
    x->tn[k] = MPI_Wtime() - t0;
    x->crossed = ms.bytes_sent;
    x->local = ms.bytes_local;
    if (k == 0)
        x->floor_ok = floor_alloc(&ms, &x->fb);
    if (x->floor_ok)
        x->tf[k] = floor_time(&x->fb);
    return st;
}

// A window-off variant's fields NAME_seconds (median of t, which it sorts), _min, _max,
// _speedup over pdgemr2d's median pd and _verify; returns the median.
static double window_off(json_t *row, const char *name, double *t, int reps, double pd,
                         bool ok)
{
    double med = tool_median(t, reps);
    char key[32];
    static const char *const field[] = {"seconds", "min", "max", "speedup"};
    double val[] = {med, t[0], t[reps - 1], med > 0 ? pd / med : 0.0};
    for (int f = 0; f < 4; f++) {
        snprintf(key, sizeof key, "%s_%s", name, field[f]);
        json_object_set_new(row, key, json_real(val[f]));
    }
    snprintf(key, sizeof key, "%s_verify", name);
    json_object_set_new(row, key, json_boolean(ok));
    return med;
}

// The row of geometry g: sums are the mismatches of pdgemr2d, nt_pgemr2d, the bytes crossing
// ranks and staying, the mismatches of the Alltoallv and of the two window-off variants, over
// every rank.
static json_t *geom_row(const geom *g, int n, int reps, geom_run *x, const int64_t *sums)
{
    const int *s = x->s;
    double pd = tool_median(x->tp, reps), nt = tool_median(x->tn, reps);
    double av = tool_median(x->tv, reps);
    json_t *row = json_pack("{s:s, s:i, s:[iiiiii], s:[iii], s:[iii], s:I, s:I, s:I, s:f, s:f, "
                            "s:f, s:f, s:f, s:f, s:f, s:b, s:b}", "geometry", g->name, "n", n,
                            "sub", s[0], s[1], s[2], s[3], s[4], s[5], "from", g->mba, g->pa,
                            g->qa, "to", g->mbb, g->pb, g->qb, "bytes",
                            (json_int_t)s[0] * s[1] * 8, "bytes_crossing", (json_int_t)sums[2],
                            "bytes_local", (json_int_t)sums[3], "pdgemr2d_seconds", pd,
                            "pdgemr2d_min", x->tp[0], "pdgemr2d_max", x->tp[reps - 1],
                            "numatile_seconds", nt, "numatile_min", x->tn[0], "numatile_max",
                            x->tn[reps - 1], "speedup", nt > 0 ? pd / nt : 0.0,
                            "pdgemr2d_verify", sums[0] == 0, "numatile_verify", sums[1] == 0);
    json_object_set_new(row, "alltoallv_seconds", json_real(av));
    json_object_set_new(row, "alltoallv_min", json_real(x->tv[0]));
    json_object_set_new(row, "alltoallv_max", json_real(x->tv[reps - 1]));
    json_object_set_new(row, "alltoallv_verify", json_boolean(sums[4] == 0));
    double p2p = window_off(row, "p2p", x->tw, reps, pd, sums[5] == 0);
    double packed = window_off(row, "packed", x->tk, reps, pd, sums[6] == 0);
    if (x->floor_ok) {
        double fl = tool_median(x->tf, reps);
        json_object_set_new(row, "floor_seconds", json_real(fl));
        json_object_set_new(row, "floor_min", json_real(x->tf[0]));
        json_object_set_new(row, "floor_max", json_real(x->tf[reps - 1]));
        json_object_set_new(row, "floor_ratio", json_real(nt > 0 ? fl / nt : 0.0));
        json_object_set_new(row, "speedup_ceiling", json_real(fl > 0 ? pd / fl : 0.0));
        json_object_set_new(row, "p2p_floor_ratio", json_real(p2p > 0 ? fl / p2p : 0.0));
        json_object_set_new(row, "packed_floor_ratio",
                            json_real(packed > 0 ? fl / packed : 0.0));
    }
    return row;
}

static json_t *bench_geom(const geom *g, int n, int reps, int gctx, bool *fail)
{
    geom_run x = {0};
    int ok = make_side(n, g->mba, g->pa, g->qa, 1, &x.a) &
             make_side(n, g->mbb, g->pb, g->qb, 2, &x.b);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    x.gva = dmat_grid(&x.a.d);
    x.gvb = dmat_grid(&x.b.d);
    sub_of(g, n, x.s);
    for (int k = 0; k < 6; k++)
        x.sub[k] = x.s[k];
    x.ia = x.s[2] + 1, x.ja = x.s[3] + 1, x.ib = x.s[4] + 1, x.jb = x.s[5] + 1;
    nt_status st = NT_OK;
    for (int k = 0; ok && k < reps && !st; k++)
        st = geom_rep(&x, k, gctx);
    free(x.fb.src);
    free(x.fb.dst);
    // numatile's result is checked after its last run (pdgemr2d's after its first).
    if (ok && !st && x.b.d.a)
        x.bad_nt = dmat_check(&x.b.d, 8, 1, x.sub);
    int64_t sums[7] = {x.bad_pd, x.bad_nt, x.crossed, x.local, x.bad_av, x.bad_w, x.bad_k};
    MPI_Allreduce(MPI_IN_PLACE, sums, 7, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    free_side(&x.a);
    free_side(&x.b);
    if (!ok || st) {
        *fail = true;
        if (tool_rank == 0)
            fprintf(stderr, "numatile-mpi bench: %s: %s\n", g->name,
                    !ok ? "out of memory" : nt_mpi_last_error());
        return NULL;
    }
    if (sums[0] || sums[1] || sums[4] || sums[5] || sums[6])
        *fail = true;
    return geom_row(g, n, reps, &x, sums);
}

// One geometry's line of the text table.
static void print_row(const char *name, json_t *row)
{
    printf("%-26s %12.1f %11.4f %11.4f %8.2f %11.4f %8.4f %7.4f %8.2f %9.2f %8.4f  "
           "%s/%s/%s/%s/%s\n", name,
           json_integer_value(json_object_get(row, "bytes_crossing")) / 1e6,
           json_real_value(json_object_get(row, "pdgemr2d_seconds")),
           json_real_value(json_object_get(row, "numatile_seconds")),
           json_real_value(json_object_get(row, "speedup")),
           json_real_value(json_object_get(row, "alltoallv_seconds")),
           json_real_value(json_object_get(row, "floor_seconds")),
           json_real_value(json_object_get(row, "p2p_seconds")),
           json_real_value(json_object_get(row, "p2p_speedup")),
           json_real_value(json_object_get(row, "p2p_floor_ratio")),
           json_real_value(json_object_get(row, "packed_seconds")),
           json_is_true(json_object_get(row, "pdgemr2d_verify")) ? "ok" : "FAIL",
           json_is_true(json_object_get(row, "numatile_verify")) ? "ok" : "FAIL",
           json_is_true(json_object_get(row, "alltoallv_verify")) ? "ok" : "FAIL",
           json_is_true(json_object_get(row, "p2p_verify")) ? "ok" : "FAIL",
           json_is_true(json_object_get(row, "packed_verify")) ? "ok" : "FAIL");
}

int tool_bench(int argc, char **argv)
{
    long n = 4096, reps = 5;
    bool json = false, quick = false, copies = true, ops = true;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--ops-only"))
            copies = false;
        else if (!strcmp(argv[i], "--no-ops"))
            ops = false;
        else if (!strcmp(argv[i], "--n") &&
                 tool_number(i + 1 < argc ? argv[i + 1] : NULL, 1, 46340, &n))
            i++;
        else if (!strcmp(argv[i], "--reps") &&
                 tool_number(i + 1 < argc ? argv[i + 1] : NULL, 1, TOOL_MAX_REPS, &reps))
            i++;
        else
            return tool_usage("bench: bad argument '%s' (--n N, --reps K, --quick, --json, "
                              "--ops-only, --no-ops)",
                              argv[i]);
    }
    if (quick)
        reps = reps < 3 ? reps : 3;
    if (tool_nranks < 4)
        return tool_usage("%s", "bench: needs 4 ranks (mpirun -np 4)");
    dmat_double_values = true;
    int gctx;
    Cblacs_get(-1, 0, &gctx);
    Cblacs_gridinit(&gctx, "Row", 1, tool_nranks);
    bool fail = false;
    json_t *rows = json_array();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    if (copies) {
        off_comm = comm_with(NULL);
        packed_comm = comm_with("0");
    }
    if (tool_rank == 0 && !json)
        printf("bench mpi-redist: %d ranks, N = %ld doubles, %ld repetitions (median, slowest "
               "rank), %s; window off: p2p (datatypes), packed\n%-26s %12s %11s %11s %8s %11s "
               "%8s %7s %8s %9s %8s  verify\n", tool_nranks, n, reps, lib, "geometry",
               "crossing MB", "pdgemr2d s", "numatile s", "speedup", "alltoallv s", "floor s",
               "p2p s", "pd/p2p", "fl/p2p", "packed s");
    for (int k = 0; copies && k < NGEOMS; k++) {
        json_t *row = bench_geom(&GEOMS[k], (int)n, (int)reps, gctx, &fail);
        if (!row)
            break;
        if (tool_rank == 0 && !json)
            print_row(GEOMS[k].name, row);
        if (tool_rank == 0)
            fflush(stdout);
        json_array_append_new(rows, row);
    }
    json_t *op_rows = ops && !fail ? tool_bench_ops((int)n, (int)reps, gctx, !json, &fail)
                                   : json_array();
    int rc = 0;
    if (tool_rank == 0 && json)
        rc = tool_print_json(json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:o, s:b}", "scenario",
                                       "mpi-redist", "mpi", lib, "ranks", tool_nranks, "n",
                                       (int)n, "reps", (int)reps, "rows", rows, "op_rows",
                                       op_rows, "verify", !fail));
    else
        json_decref(rows), json_decref(op_rows);
    Cblacs_gridexit(gctx);
    if (off_comm != MPI_COMM_NULL)
        MPI_Comm_free(&off_comm);
    if (packed_comm != MPI_COMM_NULL)
        MPI_Comm_free(&packed_comm);
    return rc ? rc : fail ? 1 : 0;
}
