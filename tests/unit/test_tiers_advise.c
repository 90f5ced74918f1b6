// The advisor on a described machine whose hwloc attributes and SLIT disagree
// (tests/topologies/slit-hmat-disagree.xml: SLIT puts 0-1 and 2-3 near, HMAT gives 0-2 and 1-3
// the bandwidth). Oracle: the same advice computed from profiles whose pair rates the test
// writes itself, on the same machine without its attributes: the advice on the attributed
// machine must equal the one from the HMAT rates, and differ from the one from SLIT's.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"

#define SLIT "tests/topologies/slit-hmat-disagree.xml"

static nt_topo_t *load(const char *xml)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = xml}, &t), NT_OK, "%s",
                 nt_last_error());
    return t;
}

// The fixture without its <memattr> blocks: the same machine, SLIT only.
static nt_topo_t *load_stripped(void)
{
    FILE *in = fopen(SLIT, "r");
    cr_assert_not_null(in);
    char path[] = "/tmp/nt_slit_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "w");
    char line[1024];
    while (fgets(line, sizeof line, in))
        if (!strstr(line, "memattr"))
            fputs(line, out);
    fclose(in);
    fclose(out);
    nt_topo_t *t = load(path);
    remove(path);
    cr_assert_eq(nt_topo_memattr_source(t), NT_ATTR_NONE);
    return t;
}

// local rates 10 GB/s; remote pair (memory i, reader j) rates scaled by rate(i, j) in (0, 1].
static nt_profile_t *profile(double (*rate)(int i, int j))
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(4, &p), NT_OK);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            p->copy_gbs[i * 4 + j] = 10 * (rate ? rate(i, j) : 1);
            p->read_gbs[i * 4 + j] = 5 * (rate ? rate(i, j) : 1);
        }
    p->concurrent_gbs = 40;
    p->migrate_gbs = 1;
    for (int d = 0; d < 4; d++) {
        p->fault_gbs[d] = 10;
        for (int k = 0; k < NT_TK_COUNT; k++)
            p->tile_seconds[k][d] = 1e-6;
    }
    p->task_seconds = 1e-6;
    p->nb = 64;
    p->ib = 32;
    p->nodes = 4;
    strcpy(p->host, "elsewhere");
    strcpy(p->kind, "physical");
    strcpy(p->date, "2026-01-01T00:00:00Z");
    return p;
}

// The fixture's bandwidths written down (MiB/s): local 80000, partner (i ^ 2) 60000, other
// 10000; the copy by j's threads runs at the slower of reading i and writing j.
static double hmat_read(int i, int j) { return i == j ? 1 : i == (j ^ 2) ? 0.75 : 0.125; }
// SLIT's 10/12/30 read as rates 10/d.
static double slit_read(int i, int j) { return i == j ? 1 : i == (j ^ 1) ? 10.0 / 12 : 10.0 / 30; }

static nt_advice_t *advise(const nt_topo_t *t, const nt_profile_t *p, const char *from)
{
    nt_matrix_shape_t sh = {1024, 1024, 64, 64, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create_spec(t, &sh, from, 4, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A),
                 NT_OK, "%s", nt_last_error());
    nt_advice_t *a;
    nt_advise_opts_t o = {.kernel = NT_ADVISE_GEMM};
    cr_assert_eq(nt_advise(p, A, &o, &a), NT_OK, "%s", nt_last_error());
    nt_matrix_destroy(A);
    return a;
}

static bool same_map(const nt_advice_t *a, int ka, const nt_advice_t *b, int kb)
{
    return !memcmp(a->cand[ka].owner, b->cand[kb].owner,
                   (size_t)(a->mt * a->nt) * sizeof(int));
}

static int find(const nt_advice_t *a, const char *name)
{
    for (int k = 0; k < a->count; k++)
        if (!strcmp(a->cand[k].name, name))
            return k;
    return -1;
}

// Every candidate the two advices share (the "distance" labellings differ: SLIT vs HMAT
// costs) is priced the same: the attributed machine prices pairs by HMAT.
static void priced_alike(const nt_advice_t *a, const nt_advice_t *h)
{
    int shared = 0;
    for (int k = 0; k < a->count; k++) {
        int x = find(h, a->cand[k].name);
        if (x < 0 || strstr(a->cand[k].name, "/distance") || !same_map(a, k, h, x))
            continue;
        shared++;
        double ta = a->cand[k].total_seconds, th = h->cand[x].total_seconds;
        cr_assert_float_eq(ta, th, 1e-12 * th, "%s: %g vs %g", a->cand[k].name, ta, th);
    }
    cr_assert_geq(shared, 3);
}

Test(tiers_advise, ranking_follows_hmat_not_slit)
{
    nt_topo_t *t = load(SLIT), *s = load_stripped();
    nt_profile_t *flat = profile(NULL), *hm = profile(hmat_read), *sl = profile(slit_read);
    const char *froms[] = {"random:3", "bc2d:2x2"};
    for (int f = 0; f < 2; f++) {
        nt_advice_t *a = advise(t, flat, froms[f]), *h = advise(s, hm, froms[f]);
        nt_advice_t *l = advise(s, sl, froms[f]);
        priced_alike(a, h);
        // The choice is at least as good, by HMAT's prices, as the best of the HMAT-priced
        // candidates relabelled by SLIT distances.
        cr_assert_leq(a->cand[0].total_seconds, h->cand[0].total_seconds * (1 + 1e-12));
        if (f == 0) {
            // Here HMAT's distance labelling wins, and SLIT's prices choose another map.
            cr_assert(strstr(a->cand[0].name, "/distance"), "%s", a->cand[0].name);
            cr_assert_lt(a->cand[0].total_seconds, h->cand[0].total_seconds);
            cr_assert_not(same_map(a, 0, l, 0), "SLIT chose the same map (%s, %s)",
                          a->cand[0].name, l->cand[0].name);
        }
        nt_advice_destroy(a);
        nt_advice_destroy(h);
        nt_advice_destroy(l);
    }
    nt_profile_destroy(flat);
    nt_profile_destroy(hm);
    nt_profile_destroy(sl);
    nt_topo_destroy(t);
    nt_topo_destroy(s);
}
