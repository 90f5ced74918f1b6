// `numatile bench herrmann-table1` (scn_herrmann_table1.c) end to end with --quick --json:
// remote tile reads of the tiled QR by brute force over its access pattern, redistribution
// volumes from the saved tile maps, optima consistent with each other, and means recomputed
// from the raw rows.
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "scn_test.h"

// Tile map of a file:PATH map (one line per tile row).
static int *read_map(const char *dir, const char *file, int n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int *m = malloc((size_t)n * n * sizeof *m);
    for (int i = 0; i < n * n; i++)
        cr_assert_eq(fscanf(f, "%d", &m[i]), 1, "%s: short map", path);
    fclose(f);
    return m;
}

// Remote reads of the tiled QR by brute force over its accesses (GEQRT(k) on (k,k); UNMQR(k,j)
// on (k,j) reads A_kk, T_kk; TSQRT(i,k) on (i,k) updates R_k of (k,k); TSMQR(i,j,k) on (i,j)
// reads A_ik, T_ik and updates A_kj): every read or update of a tile of another domain.
static int64_t qr_remote_reads(const int *own, int n)
{
    int64_t rr = 0;
    for (int k = 0; k < n; k++) {
        int dkk = own[k * n + k];
        for (int j = k + 1; j < n; j++)
            rr += 2 * (dkk != own[k * n + j]);
        for (int i = k + 1; i < n; i++) {
            int dik = own[i * n + k];
            rr += dkk != dik;
            for (int j = k + 1; j < n; j++) {
                int dij = own[i * n + j];
                rr += 2 * (dik != dij) + (own[k * n + j] != dij);
            }
        }
    }
    return rr;
}

// Volume of moving map ini to bc2d:4x4 relabelled by sigma (component c -> domain sigma[c]).
static int64_t volume(const int *ini, int n, const int *sigma)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            v += ini[i * n + j] != sigma[(i % 4) * 4 + j % 4];
    return v;
}

// The five strategies of a row, in the order of the arrays below.
static const char *const st[5] = {"owner", "canonical", "volume", "steps", "lex"};

// What the raw "instances" rows of one (set, n) say: per strategy the sums of volume and steps
// over the instances and the values of instance 0, the owner's QR remote reads summed.
typedef struct instances {
    double sums[5][2], rr_sum;
    int64_t i0[5][2];
    int seen;
} instances;

// Oracle 1: QR remote reads on bc2d by brute force; returns them.
static int64_t check_bc2d_reads(const json_t *row, const char *set, int n)
{
    int *bc = malloc((size_t)n * n * sizeof *bc);
    for (int i = 0; i < n * n; i++)
        bc[i] = (i / n % 4) * 4 + i % n % 4;
    int64_t rr_bc = qr_remote_reads(bc, n);
    free(bc);
    cr_assert_eq((int64_t)num(json_object_get(row, "qr_remote_reads"), "bc2d"), rr_bc,
                 "%s n=%d", set, n);
    return rr_bc;
}

// The raw instance rows of (set, n) summed into *in; instance 0's owner-computes remote reads
// are rr_own (those of the saved map).
static void sum_instances(const json_t *raw, const char *set, int n, int64_t rr_own,
                          instances *in)
{
    *in = (instances){{{0}}, 0, {{0}}, 0};
    size_t k;
    json_t *x;
    json_array_foreach(raw, k, x) {
        if (strcmp(str(x, "kind"), "instances") || strcmp(str(x, "set"), set) ||
            (int)num(x, "n") != n)
            continue;
        int s = 0;
        while (s < 5 && strcmp(str(x, "strategy"), st[s]))
            s++;
        cr_assert_lt(s, 5);
        int64_t v = (int64_t)num(x, "redist_volume"), p = (int64_t)num(x, "redist_steps");
        in->sums[s][0] += (double)v;
        in->sums[s][1] += (double)p;
        if (s == 0)
            in->rr_sum += num(x, "qr_remote_reads");
        if ((int)num(x, "rep") == 0) {
            in->i0[s][0] = v;
            in->i0[s][1] = p;
            if (s == 0)
                cr_assert_eq((int64_t)num(x, "qr_remote_reads"), rr_own);
        }
        in->seen++;
    }
}

// No labelling tried at random (sigma shuffled in place) moves less than best.
static void check_no_better_labelling(const int *ini, int n, int *sigma, int64_t best)
{
    uint64_t z = 12345;
    for (int t = 0; t < 200; t++) {
        for (int c = 15; c > 0; c--) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            int j = (int)((z >> 33) % (uint64_t)(c + 1)), tmp = sigma[c];
            sigma[c] = sigma[j];
            sigma[j] = tmp;
        }
        cr_assert_leq(best, volume(ini, n, sigma));
    }
}

// Optima are consistent: volume-optimal has the least volume, steps-optimal the fewest steps,
// lex the steps of steps-optimal and the least volume among those; one-port: steps >= volume /
// 16.
static void check_optima(int64_t i0[5][2])
{
    cr_assert_leq(i0[2][0], i0[1][0]);
    cr_assert_leq(i0[2][0], i0[4][0]);
    cr_assert_leq(i0[4][0], i0[3][0]);
    cr_assert_leq(i0[3][1], i0[1][1]);
    cr_assert_leq(i0[3][1], i0[2][1]);
    cr_assert_eq(i0[4][1], i0[3][1]);
    for (int s = 1; s < 5; s++)
        cr_assert_geq(16 * i0[s][1], i0[s][0]);
}

// The row's means recomputed from the raw rows; its improvements over owner from its totals
// (totals are redistribution + QR).
static void check_means(const json_t *row, const instances *in, int inst)
{
    json_t *vol = json_object_get(row, "redist_volume"),
           *stp = json_object_get(row, "redist_steps");
    for (int s = 0; s < 5; s++) {
        cr_assert(close_rel(num(vol, st[s]), in->sums[s][0] / inst, TOL), "%s volume", st[s]);
        cr_assert(close_rel(num(stp, st[s]), in->sums[s][1] / inst, TOL), "%s steps", st[s]);
    }
    cr_assert(close_rel(num(json_object_get(row, "qr_remote_reads"), "owner"),
                        in->rr_sum / inst, TOL));
    json_t *tot = json_object_get(row, "total_seconds"),
           *imp = json_object_get(row, "improvement_pct");
    for (int s = 1; s < 5; s++) {
        double want = 100 * (num(tot, "owner") - num(tot, st[s])) / num(tot, "owner");
        cr_assert_lt(fabs(num(imp, st[s]) - want), 1e-5, "%s: %g vs %g", st[s],
                     num(imp, st[s]), want);
    }
}

// The timed runs of (set, n) used instance 0 and the plan reached the matching's optimum.
static void check_timed(const json_t *raw, const char *set, int n, int64_t i0[5][2],
                        int64_t rr_own, int64_t rr_bc)
{
    size_t k;
    json_t *x;
    json_array_foreach(raw, k, x) {
        if (strcmp(str(x, "kind"), "timed") || strcmp(str(x, "set"), set) ||
            (int)num(x, "n") != n)
            continue;
        const char *sn = str(x, "strategy");
        int64_t v = (int64_t)num(x, "redist_volume");
        if (!strcmp(sn, "owner"))
            cr_assert_eq(v, 0);
        else if (!strcmp(sn, "canonical"))
            cr_assert_eq(v, i0[1][0]);
        else if (!strcmp(sn, "volume"))
            cr_assert_eq(v, i0[2][0]);
        else if (!strcmp(sn, "lex"))
            cr_assert_eq(v, i0[4][0]);
        cr_assert_eq((int64_t)num(x, "qr_remote_reads"), !strcmp(sn, "owner") ? rr_own : rr_bc);
    }
}

// One row of the summary (one set and size) against the oracles and the raw rows.
static void check_row(const json_t *row, const json_t *raw, const char *dir)
{
    const char *set = str(row, "set");
    int n = (int)num(row, "n"), inst = (int)num(row, "instances");
    cr_assert_eq(num(json_object_get(row, "redist_volume"), "owner"), 0);
    cr_assert_eq(num(json_object_get(row, "redist_steps"), "owner"), 0);
    cr_assert(json_is_object(json_object_get(row, "paper")), "n = 16, 34 are in Table 1");
    int64_t rr_bc = check_bc2d_reads(row, set, n);
    // Oracle 2: the saved instance-0 map gives the canonical volume and the owner-computes
    // remote reads; no labelling tried at random beats the volume-optimal one.
    char file[64];
    snprintf(file, sizeof file, "%s-n%d-instance0.map", set, n);
    int *ini = read_map(dir, file, n);
    int sigma[16];
    for (int c = 0; c < 16; c++)
        sigma[c] = c;
    int64_t can = volume(ini, n, sigma), rr_own = qr_remote_reads(ini, n);
    instances in;
    sum_instances(raw, set, n, rr_own, &in);
    cr_assert_eq(in.seen, 5 * inst);
    cr_assert_eq(in.i0[1][0], can, "%s n=%d canonical volume %lld, map says %lld", set, n,
                 (long long)in.i0[1][0], (long long)can);
    check_no_better_labelling(ini, n, sigma, in.i0[2][0]);
    free(ini);
    check_optima(in.i0);
    check_means(row, &in, inst);
    check_timed(raw, set, n, in.i0, rr_own, rr_bc);
}

Test(scn_herrmann_table1, quick)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *dir = scn_temp_dir();
    json_t *doc, *sum = scn_run_doc("herrmann-table1", dir, &doc);
    json_t *raw = json_object_get(doc, "raw"), *rows = json_object_get(sum, "rows");
    cr_assert_eq(num(sum, "domains"), 16);
    cr_assert_str_eq(str(sum, "target"), "bc2d:4x4");
    cr_assert_eq(json_array_size(rows), 4);
    size_t r;
    json_t *row;
    json_array_foreach(rows, r, row)
        check_row(row, raw, dir);
    json_decref(sum);
    json_decref(doc);
    scn_rm_tree(dir);
}
