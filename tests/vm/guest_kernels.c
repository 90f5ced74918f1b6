// Guest integration tests of the owner-computes kernels (tests/vm/run.sh) on the guest's
// physical NUMA domains: tiled GEMM, tiled QR (factor, form Q, apply Q^T) and the 1D stencil.
//
// Oracles, computed here:
// - GEMM on small integers (exact in double) against a naive triple loop, equality required;
// - QR: ||A - QR||_F / (||A||_F N eps), ||Q^T Q - I||_F / (m eps), ||Q^T A - R||_F /
//   (||R||_F N eps), each below 10, computed densely;
// - stencil: the sequential double-buffered loop with nt_stencil_update, bit for bit;
// - task counts per domain enumerated from the tile maps; a domain with cpus runs exactly the
//   tasks it owns plus those of the memory-only domains nearest to it (kernels.md: such tasks
//   are run by the nearest domain with cpus and do not count as owner-run), so the owner
//   fraction is 1.0 exactly when every owner has cpus and the owned share of cpu domains
//   otherwise; remote tile reads (GEMM) and halo items (stencil) recounted from the maps;
// - placement after each kernel: every page of every tile of every operand on its domain's
//   node, by nt_matrix_check_placement and by a move_pages(2) query made here.
// - the tile kernels in every precision (s, d, c, z) on tiles of typed matrices placed on two
//   different nodes: a GEMM of tiles from two nodes against a naive loop, and the QR of a tile
//   column spanning both (GEQRT, TSQRT; Q formed with TSMQR, UNMQR) with ||A - QR|| and
//   ||Q^H Q - I|| over each type's own eps, as in tests/unit/test_precision.c;
// - the tiled drivers nt_gemm and nt_qr_factor / nt_qr_form_q in every precision on maps over
//   all domains: GEMM against a naive loop, QR residuals, each below 10 in the type's eps.
// Prints one line per check, then "guest: kernels tests=T passed=P failed=F".
#include <float.h>
#include <math.h>

#include "guest_common.h"
// From this file's folder: run.sh compiles the guests with -Iinclude -Icore, not -I. (the top).
#include "../../lib/kernels/tile/nt_kernels.h"

static int ndom;
static bool has_cpu[MAXN];
static int exec_of[MAXN];   // domain whose threads run domain d's tasks
static int cpu_doms[MAXN], ncpu_doms;

// Element (r,c), addressed here from the descriptor's tiles and leading dimensions.
static double *at(const nt_matrix_t *A, int64_t r, int64_t c)
{
    int64_t i = r / A->mb, j = c / A->nb;
    int64_t ld = A->layout == NT_LAYOUT_TILE ? rows_of(A, i) : A->lld[A->owner[i * A->nt + j]];
    return (double *)A->tile[i * A->nt + j] + (c - j * A->nb) * ld + (r - i * A->mb);
}

static void check_placed(const nt_matrix_t *A, const char *what)
{
    nt_placement_report_t rep;
    nt_status st = nt_matrix_check_placement(A, &rep);
    check(st == NT_OK && rep.pages > 0 && rep.on_domain == rep.pages && rep.elsewhere == 0 &&
          rep.absent == 0, "%s: nt_matrix_check_placement: %lld of %lld pages on their "
          "domain's node (elsewhere %lld)", what, st ? -1LL : (long long)rep.on_domain,
          st ? -1LL : (long long)rep.pages, st ? -1LL : (long long)rep.elsewhere);
    oracle_res o = oracle_matrix(A);
    int64_t on = o.sys_ok ? o.on_node : -1;
    check(o.pages > 0 && on == o.pages && o.conflicts == 0, "%s: move_pages finds %lld of %lld "
          "tile pages on their domain's node (%lld shared across nodes)", what, (long long)on,
          (long long)o.pages, (long long)o.conflicts);
}

// --- Maps --------------------------------------------------------------------------------------

// Tile maps over the domains with cpus only: block-cyclic (Cartesian per domain, so the
// SCALAPACK layout accepts it) or hashed.
typedef struct cpu_map {
    int p, q;
    uint64_t seed; // 0: block-cyclic p x q over cpu_doms; otherwise hashed
} cpu_map;

static int cpu_map_fn(int64_t i, int64_t j, void *arg)
{
    const cpu_map *c = arg;
    if (c->seed == 0)
        return cpu_doms[(i % c->p) * c->q + j % c->q];
    return cpu_doms[mix(c->seed ^ mix((uint64_t)(i * 1000 + j))) % (uint64_t)ncpu_doms];
}

// A matrix from a DIST spec (spec != NULL) or from a map over the cpu domains.
static nt_matrix_t *make(const nt_topo_t *t, int64_t m, int64_t n, int64_t mb, int64_t nb,
                         const char *spec, uint64_t cpu_seed, nt_layout layout, const char *what)
{
    nt_matrix_shape_t sh = {m, n, mb, nb, 8};
    nt_matrix_t *A = NULL;
    nt_status st;
    if (spec) {
        int nd = strncmp(spec, "random", 6) == 0 || strncmp(spec, "balanced", 8) == 0 ? ndom : 0;
        st = nt_matrix_create_spec(t, &sh, spec, nd, layout, 0, &A);
    } else {
        cpu_map c = {1, ncpu_doms, cpu_seed};
        // The most square grid over the cpu domains.
        for (int p = 1; p * p <= ncpu_doms; p++)
            if (ncpu_doms % p == 0)
                c.p = p;
        c.q = ncpu_doms / c.p;
        nt_tilemap_t *map = NULL;
        st = nt_tilemap_from_fn((m + mb - 1) / mb, (n + nb - 1) / nb, ndom, cpu_map_fn, &c,
                                &map);
        if (st == NT_OK)
            st = nt_matrix_create(t, &sh, map, layout, 0, &A);
        nt_tilemap_destroy(map);
    }
    check(st == NT_OK, "%s: create %lldx%lld (%lldx%lld tiles, %s, %s): %s", what,
          (long long)m, (long long)n, (long long)mb, (long long)nb,
          spec ? spec : (cpu_seed ? "hashed over the cpu domains" : "bc2d over the cpu domains"),
          layout == NT_LAYOUT_TILE ? "tile" : "scalapack", st ? nt_last_error() : "ok");
    return st == NT_OK ? A : NULL;
}

// Tasks per domain with cpus, given the tasks each domain owns; expected owner fraction.
static void expected_run(const int64_t *owned, int64_t *run, double *frac)
{
    int64_t all = 0, own = 0;
    for (int d = 0; d < ndom; d++)
        run[d] = 0;
    for (int d = 0; d < ndom; d++) {
        run[exec_of[d]] += owned[d];
        all += owned[d];
        own += has_cpu[d] ? owned[d] : 0;
    }
    *frac = all ? (double)own / (double)all : 1.0;
}

// Per-domain task counts of a run against the enumeration.
static void check_tasks(const char *what, const nt_kernel_stats_t *s, int64_t tasks,
                        const int64_t *owned)
{
    int64_t run[MAXN];
    double frac;
    expected_run(owned, run, &frac);
    int bad = s->ndomains != ndom;
    for (int d = 0; !bad && d < ndom; d++)
        bad += s->tasks_owned[d] != owned[d] || s->tasks_run[d] != run[d];
    check(s->tasks == tasks && bad == 0, "%s: %lld tasks (expected %lld); owned and run per "
          "domain as enumerated (%d domains differ)", what, (long long)s->tasks,
          (long long)tasks, bad);
    check(s->owner_fraction == frac, "%s: owner fraction %.4f (expected %.4f%s)", what,
          s->owner_fraction, frac, frac == 1.0 ? ": every owner has cpus" : "");
}

// --- GEMM --------------------------------------------------------------------------------------

static void int_fill(nt_matrix_t *A, uint64_t seed, int range)
{
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            *at(A, r, c) = (double)((int64_t)(mix(seed ^ mix((uint64_t)(r * 100003 + c))) %
                                              (uint64_t)(2 * range + 1)) - range);
}

typedef struct gemm_case {
    const char *name;
    int64_t m, n, k, mb, kb, nb;
    const char *aspec, *bspec, *cspec; // NULL: a map over the cpu domains
    uint64_t cseed;                    // for a NULL cspec: 0 = bc2d, else hashed
    nt_layout al, bl, cl;
    double alpha, beta;
} gemm_case;

static void test_gemm(const nt_topo_t *t, const gemm_case *g)
{
    char what[160];
    snprintf(what, sizeof what, "gemm %s %lldx%lldx%lld", g->name, (long long)g->m,
             (long long)g->n, (long long)g->k);
    nt_matrix_t *A = make(t, g->m, g->k, g->mb, g->kb, g->aspec, 3, g->al, what);
    nt_matrix_t *B = make(t, g->k, g->n, g->kb, g->nb, g->bspec, 4, g->bl, what);
    nt_matrix_t *C = make(t, g->m, g->n, g->mb, g->nb, g->cspec, g->cseed, g->cl, what);
    double *want = malloc((size_t)(g->m * g->n) * sizeof *want);
    if (!A || !B || !C || !want)
        goto out;
    int_fill(A, 11, 4);
    int_fill(B, 12, 4);
    int_fill(C, 13, 9);
    for (int64_t c = 0; c < g->n; c++)
        for (int64_t r = 0; r < g->m; r++) {
            double s = 0;
            for (int64_t l = 0; l < g->k; l++)
                s += *at(A, r, l) * *at(B, l, c);
            want[r + c * g->m] = g->alpha * s + g->beta * *at(C, r, c);
        }
    nt_kernel_stats_t s = {0};
    nt_status st = nt_gemm(g->alpha, A, B, g->beta, C, NULL, &s);
    if (check(st == NT_OK, "%s: nt_gemm: %s", what, st ? nt_last_error() : "ok")) {
        int64_t bad = 0;
        for (int64_t c = 0; c < g->n; c++)
            for (int64_t r = 0; r < g->m; r++)
                bad += *at(C, r, c) != want[r + c * g->m];
        check(bad == 0, "%s: C equals the naive integer product exactly (%lld differ)", what,
              (long long)bad);
        int64_t owned[MAXN] = {0}, remote = 0;
        for (int64_t i = 0; i < C->mt; i++)
            for (int64_t j = 0; j < C->nt; j++) {
                int o = C->owner[i * C->nt + j];
                owned[o]++;
                for (int64_t l = 0; l < A->nt; l++)
                    remote += (A->owner[i * A->nt + l] != o) + (B->owner[l * B->nt + j] != o);
            }
        check_tasks(what, &s, C->mt * C->nt, owned);
        check(s.remote_reads == remote, "%s: remote tile reads %lld = recount %lld", what,
              (long long)s.remote_reads, (long long)remote);
        check_placed(C, "gemm C after");
        check_placed(A, "gemm A after");
        check_placed(B, "gemm B after");
    }
    nt_kernel_stats_free(&s);
out:
    free(want);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
}

// --- QR ----------------------------------------------------------------------------------------

static void rand_fill(nt_matrix_t *A, uint64_t seed)
{
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            *at(A, r, c) = (double)(mix(seed ^ mix((uint64_t)(r * 100003 + c))) >> 11) /
                               (double)(1ull << 53) * 2.0 - 1.0;
}

static double *dense(const nt_matrix_t *A)
{
    double *d = malloc((size_t)(A->m * A->n) * sizeof *d);
    for (int64_t c = 0; d && c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            d[r + c * A->m] = *at(A, r, c);
    return d;
}

// Tasks of the tile QR per owning domain: GEQRT(k,k), UNMQR(k,j), TSQRT(i,k), TSMQR(i,j).
static int64_t qr_owned(const nt_matrix_t *A, int64_t *owned)
{
    int64_t kt = A->mt < A->nt ? A->mt : A->nt, n = 0;
    for (int d = 0; d < ndom; d++)
        owned[d] = 0;
    for (int64_t k = 0; k < kt; k++) {
        owned[A->owner[k * A->nt + k]]++;
        n++;
        for (int64_t j = k + 1; j < A->nt; j++, n++)
            owned[A->owner[k * A->nt + j]]++;
        for (int64_t i = k + 1; i < A->mt; i++) {
            owned[A->owner[i * A->nt + k]]++;
            n++;
            for (int64_t j = k + 1; j < A->nt; j++, n++)
                owned[A->owner[i * A->nt + j]]++;
        }
    }
    return n;
}

typedef struct qr_case {
    const char *name;
    int64_t m, n, nb;
    const char *aspec; // NULL: a map over the cpu domains
    uint64_t aseed;
    nt_layout al;
    const char *qspec;
    uint64_t qseed;
} qr_case;

// The factorisation of m x n A (its dense copy before: a0) against Q (dense: qd) and Q^T B (B a
// copy of A's values): ||A - QR||, ||Q^T Q - I|| and ||Q^T A - R|| below 10 in eps.
static void check_qr_residuals(const char *what, const nt_matrix_t *A, const nt_matrix_t *B,
                               const double *a0, const double *qd)
{
    int64_t m = A->m, n = A->n;
    double res = 0, an = 0, rn = 0, qtr = 0, orth = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = a0[i + j * m];
            an += d * d;
            for (int64_t l = 0; l <= j && l < m; l++)
                d -= qd[i + l * m] * *at(A, l, j);
            res += d * d;
            double r = i <= j ? *at(A, i, j) : 0.0;
            rn += r * r;
            qtr += (*at(B, i, j) - r) * (*at(B, i, j) - r);
        }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            double d = -(double)(i == j);
            for (int64_t l = 0; l < m; l++)
                d += qd[l + i * m] * qd[l + j * m];
            orth += d * d;
        }
    double N = (double)(m > n ? m : n);
    double r1 = sqrt(res) / (sqrt(an) * N * DBL_EPSILON);
    double r2 = sqrt(orth) / ((double)m * DBL_EPSILON);
    double r3 = sqrt(qtr) / (sqrt(rn) * N * DBL_EPSILON);
    check(r1 < 10.0, "%s: ||A - QR|| / (||A|| N eps) = %.3f < 10", what, r1);
    check(r2 < 10.0, "%s: ||Q^T Q - I|| / (m eps) = %.3f < 10", what, r2);
    check(r3 < 10.0, "%s: ||Q^T A - R|| / (||R|| N eps) = %.3f < 10", what, r3);
}

static void test_qr(const nt_topo_t *t, const qr_case *q)
{
    char what[160];
    snprintf(what, sizeof what, "qr %s %lldx%lld nb %lld", q->name, (long long)q->m,
             (long long)q->n, (long long)q->nb);
    int64_t m = q->m, n = q->n;
    nt_matrix_t *A = make(t, m, n, q->nb, q->nb, q->aspec, q->aseed, q->al, what);
    nt_matrix_t *Q = make(t, m, m, q->nb, q->nb, q->qspec, q->qseed, NT_LAYOUT_TILE, what);
    nt_matrix_t *B = make(t, m, n, q->nb, q->nb, q->qspec, q->qseed, NT_LAYOUT_TILE, what);
    double *a0 = NULL, *qd = NULL;
    nt_qr_t *qr = NULL;
    nt_kernel_stats_t s = {0}, sq = {0}, sb = {0};
    if (!A || !Q || !B)
        goto out;
    rand_fill(A, (uint64_t)(m * 1000 + n));
    rand_fill(B, (uint64_t)(m * 1000 + n));
    a0 = dense(A);
    nt_status st = nt_qr_factor(A, NULL, &qr, &s);
    if (!check(st == NT_OK, "%s: nt_qr_factor: %s", what, st ? nt_last_error() : "ok"))
        goto out;
    int64_t owned[MAXN];
    int64_t tasks = qr_owned(A, owned);
    check_tasks(what, &s, tasks, owned);
    st = nt_qr_form_q(qr, Q, NULL, &sq);
    if (!check(st == NT_OK, "%s: nt_qr_form_q: %s", what, st ? nt_last_error() : "ok"))
        goto out;
    // Form Q writes only Q's tiles: owner-run when Q's owners have cpus.
    double qfrac = 1.0;
    int64_t qown = 0, qall = 0;
    for (int64_t x = 0; x < Q->mt * Q->nt; x++)
        qown += has_cpu[Q->owner[x]];
    qall = Q->mt * Q->nt;
    if (qown < qall)
        qfrac = -1; // some tasks run off their owner: only check it is below 1
    check(qfrac == 1.0 ? sq.owner_fraction == 1.0 : sq.owner_fraction < 1.0,
          "%s: form Q owner fraction %.4f (%lld of %lld Q tiles on domains with cpus)", what,
          sq.owner_fraction, (long long)qown, (long long)qall);
    st = nt_qr_apply_q(qr, true, B, NULL, &sb);
    check(st == NT_OK, "%s: nt_qr_apply_q(Q^T): %s", what, st ? nt_last_error() : "ok");
    qd = dense(Q);
    if (!a0 || !qd)
        goto out;
    check_qr_residuals(what, A, B, a0, qd);
    check_placed(A, "qr A after");
    check_placed(Q, "qr Q after");
    check_placed(B, "qr Q^T B after");
out:
    nt_kernel_stats_free(&s);
    nt_kernel_stats_free(&sq);
    nt_kernel_stats_free(&sb);
    nt_qr_destroy(qr);
    free(a0);
    free(qd);
    nt_matrix_destroy(A);
    nt_matrix_destroy(Q);
    nt_matrix_destroy(B);
}

// --- Stencil -----------------------------------------------------------------------------------

// kind 0: blocks over all domains; 1: hashed over the cpu domains; 2: balanced over all.
static void test_stencil(const nt_topo_t *t, int kind, int64_t n, int64_t iters, int64_t work)
{
    char what[128];
    static const char *kinds[] = {"block over all domains", "hashed over the cpu domains",
                                  "balanced over all domains"};
    snprintf(what, sizeof what, "stencil %lld items, %s, %lld iterations, work %lld",
             (long long)n, kinds[kind], (long long)iters, (long long)work);
    nt_dist1d_t *map = NULL;
    nt_status st = kind == 0 ? nt_dist1d_block(n, ndom, &map)
                 : kind == 2 ? nt_dist1d_balanced(n, ndom, 77, &map)
                             : nt_dist1d_create(n, ndom, &map);
    if (!check(st == NT_OK, "%s: map: %s", what, st ? nt_last_error() : "ok"))
        return;
    if (kind == 1)
        for (int64_t x = 0; x < n; x++)
            map->owner[x] = cpu_doms[mix((uint64_t)x * 7 + 1) % (uint64_t)ncpu_doms];
    double *v = malloc((size_t)n * sizeof *v), *cur = malloc((size_t)n * sizeof *cur);
    double *nxt = malloc((size_t)n * sizeof *nxt);
    if (!v || !cur || !nxt) {
        check(false, "%s: out of memory in the test", what);
        goto out;
    }
    for (int64_t x = 0; x < n; x++)
        v[x] = cur[x] = (double)(mix((uint64_t)x + 99) >> 11) / (double)(1ull << 53);
    for (int64_t it = 0; it < iters; it++) {
        for (int64_t x = 0; x < n; x++)
            nxt[x] = nt_stencil_update(cur[(x + n - 1) % n], cur[x], cur[(x + 1) % n], work);
        double *sw = cur;
        cur = nxt;
        nxt = sw;
    }
    nt_stencil_opts_t o = {.iters = iters, .work = work};
    nt_stencil_stats_t s;
    st = nt_stencil_run(t, map, v, &o, &s);
    if (!check(st == NT_OK, "%s: nt_stencil_run: %s", what, st ? nt_last_error() : "ok"))
        goto out;
    check(memcmp(v, cur, (size_t)n * sizeof *v) == 0, "%s: result equals the sequential loop "
          "bit for bit", what);
    // Halo: per domain, the distinct neighbours of its items held by other domains.
    int64_t halo = 0, own = 0;
    unsigned char *seen = calloc((size_t)n, 1);
    for (int d = 0; seen && d < ndom; d++) {
        memset(seen, 0, (size_t)n);
        for (int64_t x = 0; x < n; x++) {
            if (map->owner[x] != d)
                continue;
            own += has_cpu[d];
            int64_t nb[2] = {(x + n - 1) % n, (x + 1) % n};
            for (int k = 0; k < 2; k++)
                if (map->owner[nb[k]] != d && !seen[nb[k]]) {
                    seen[nb[k]] = 1;
                    halo++;
                }
        }
    }
    free(seen);
    double frac = (double)own / (double)n;
    check(s.updates == n * iters && s.halo_items == halo * iters, "%s: %lld updates, halo "
          "items %lld = recount %lld", what, (long long)s.updates, (long long)s.halo_items,
          (long long)(halo * iters));
    check(s.owner_fraction == frac, "%s: owner fraction %.4f (expected %.4f)", what,
          s.owner_fraction, frac);
out:
    free(v);
    free(cur);
    free(nxt);
    nt_dist1d_destroy(map);
}

// --- Every precision ---------------------------------------------------------------------------

typedef long double _Complex lcx;

static bool is_cplx(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z;
}

static lcx pget(nt_dtype t, const void *p, int64_t i)
{
    switch (t) {
    case NT_DTYPE_S: return ((const float *)p)[i];
    case NT_DTYPE_D: return ((const double *)p)[i];
    case NT_DTYPE_C: return ((const float _Complex *)p)[i];
    default: return ((const double _Complex *)p)[i];
    }
}

static void pput(nt_dtype t, void *p, int64_t i, lcx v)
{
    switch (t) {
    case NT_DTYPE_S: ((float *)p)[i] = (float)__real__ v; break;
    case NT_DTYPE_D: ((double *)p)[i] = (double)__real__ v; break;
    case NT_DTYPE_C: ((float _Complex *)p)[i] = (float _Complex)v; break;
    default: ((double _Complex *)p)[i] = (double _Complex)v;
    }
}

static long double sq(lcx v)
{
    return __real__ v * __real__ v + __imag__ v * __imag__ v;
}

// The sizes of the precision test: tiles of P_NB x P_NB, A of P_M x P_NB, inner blocks P_IB.
enum { P_NB = 40, P_M = 2 * P_NB, P_IB = 8 };

// One precision under test: the type, its eps, the dense copies of A and C and the workspaces
// (A0 P_M x P_NB, C0 P_NB x P_NB, column-major), and the tiles of A and C.
typedef struct prec {
    nt_dtype ty;
    const char *tn;
    long double eps;
    size_t es;
    int da, db;
    void *A0, *C0, *T0, *T1, *W, *Q, *C1, *C2;
    void *a0, *a1, *c;
} prec;

// A (2 tiles: (0,0) on domain da, (1,0) on db) and C (1 tile, on db) typed as ty.
static nt_status prec_create(const nt_topo_t *t, const prec *p, nt_matrix_t **A,
                             nt_matrix_t **C)
{
    const int64_t nb = P_NB, m = P_M;
    nt_tilemap_t *map = NULL, *cmap = NULL;
    nt_matrix_shape_t sa = {m, nb, nb, nb, p->es}, sc = {nb, nb, nb, nb, p->es};
    nt_status st = nt_tilemap_create(2, 1, ndom, &map);
    if (st == NT_OK && (st = nt_tilemap_create(1, 1, ndom, &cmap)) == NT_OK) {
        map->owner[0] = p->da;
        map->owner[1] = p->db;
        cmap->owner[0] = p->db;
    }
    if (st == NT_OK && (st = nt_matrix_create(t, &sa, map, NT_LAYOUT_TILE, 0, A)) == NT_OK &&
        (st = nt_matrix_create(t, &sc, cmap, NT_LAYOUT_TILE, 0, C)) == NT_OK &&
        (st = nt_matrix_set_dtype(*A, p->ty)) == NT_OK)
        st = nt_matrix_set_dtype(*C, p->ty);
    nt_tilemap_destroy(map);
    nt_tilemap_destroy(cmap);
    return st;
}

// Values in [-1, 1], complex ones with an imaginary part of at least 0.1 in magnitude, into A0
// and C0, and from there into the tiles.
static void prec_fill(const prec *p)
{
    const int64_t nb = P_NB, m = P_M;
    nt_dtype ty = p->ty;
    size_t es = p->es;
    for (int64_t x = 0; x < m * nb + nb * nb; x++) {
        uint64_t h = mix(0x5eedULL * (uint64_t)ty + (uint64_t)x);
        lcx v = (long double)(h >> 11) * 0x1.0p-53L * 2 - 1;
        if (is_cplx(ty))
            __imag__ v = (0.1L + 0.9L * (long double)(mix(h) >> 11) * 0x1.0p-53L) *
                         (h & 1 ? 1 : -1);
        if (x < m * nb)
            pput(ty, p->A0, x, v);
        else
            pput(ty, p->C0, x - m * nb, v);
    }
    memcpy(p->a0, p->A0, (size_t)(nb * nb) * es); // column-major m x nb: split into its two tiles
    for (int64_t j = 0; j < nb; j++) {
        memcpy((char *)p->a0 + (size_t)(j * nb) * es, (char *)p->A0 + (size_t)(j * m) * es,
               (size_t)nb * es);
        memcpy((char *)p->a1 + (size_t)(j * nb) * es, (char *)p->A0 + (size_t)(j * m + nb) * es,
               (size_t)nb * es);
    }
    memcpy(p->c, p->C0, (size_t)(nb * nb) * es);
}

// GEMM C = 1.5 A00 A10 - 0.5 C on the tiles, against the naive product over eps_t.
static void prec_check_gemm(const prec *p)
{
    const int64_t nb = P_NB, m = P_M;
    nt_dtype ty = p->ty;
    const void *A0 = p->A0, *C0 = p->C0;
    nt_status st = nt_kern_gemm_typed(ty, 1, false, false, nb, nb, nb, 1.5, p->a0, nb, p->a1, nb,
                                      -0.5, p->c, nb);
    long double err = 0, na = 0, nb2 = 0, nc = 0;
    for (int64_t j = 0; st == NT_OK && j < nb; j++)
        for (int64_t i = 0; i < nb; i++) {
            lcx s = 0;
            for (int64_t l = 0; l < nb; l++)
                s += pget(ty, A0, i + l * m) * pget(ty, A0, nb + l + j * m);
            err += sq(pget(ty, p->c, i + j * nb) - (1.5L * s - 0.5L * pget(ty, C0, i + j * nb)));
            na += sq(pget(ty, A0, i + j * m));
            nb2 += sq(pget(ty, A0, nb + i + j * m));
            nc += sq(pget(ty, C0, i + j * nb));
        }
    long double rg =
        sqrtl(err) / ((1.5L * sqrtl(na) * sqrtl(nb2) + 0.5L * sqrtl(nc)) * nb * p->eps);
    check(st == NT_OK && rg < 10, "precision %s: gemm of tiles on nodes %d and %d into node %d: "
          "||C - C_ref|| / (.. k eps) = %.3Lg (< 10)%s", p->tn, node_of[p->da], node_of[p->db],
          node_of[p->db], rg, st ? nt_last_error() : "");
}

// ||A - QR|| over ||A|| and ||Q^H Q - I|| (squared sums into *e2, *an and *o2) of Q (m x m)
// and R (the upper triangle of tile a0) against A0.
static void prec_residuals(const prec *p, long double *e2, long double *an, long double *o2)
{
    const int64_t nb = P_NB, m = P_M;
    nt_dtype ty = p->ty;
    for (int64_t j = 0; j < nb; j++)
        for (int64_t i = 0; i < m; i++) {
            lcx s = 0;
            for (int64_t l = 0; l <= j; l++)
                s += pget(ty, p->Q, i + l * m) * pget(ty, p->a0, l + j * nb);
            *e2 += sq(pget(ty, p->A0, i + j * m) - s);
            *an += sq(pget(ty, p->A0, i + j * m));
        }
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) {
            lcx s = i == j ? -1.0L : 0.0L;
            for (int64_t l = 0; l < m; l++)
                s += __builtin_conjl(pget(ty, p->Q, l + i * m)) * pget(ty, p->Q, l + j * m);
            *o2 += sq(s);
        }
}

// The QR of A's tile column [A00; A10] (R in A00's upper triangle), Q formed explicitly; its
// residuals over eps_t.
static void prec_check_qr(const prec *p)
{
    const int64_t nb = P_NB, m = P_M, ib = P_IB;
    nt_dtype ty = p->ty;
    nt_status st = nt_kern_geqrt_typed(ty, nb, nb, ib, p->a0, nb, p->T0, ib, p->W, ib * nb);
    if (st == NT_OK)
        st = nt_kern_tsqrt_typed(ty, nb, nb, ib, p->a0, nb, p->a1, nb, p->T1, ib, p->W, ib * nb);
    // Q = Q0 Q1 applied to I = [C1; C2]: first Q1 (TSMQR on both halves), then Q0 on C1.
    nt_kern_set_identity(ty, nb, m, 0, p->C1, nb);
    nt_kern_set_identity(ty, nb, m, -nb, p->C2, nb);
    if (st == NT_OK)
        st = nt_kern_tsmqr_typed(ty, false, nb, m, nb, ib, p->a1, nb, p->T1, ib, p->C1, nb,
                                 p->C2, nb, p->W, ib * m);
    if (st == NT_OK)
        st = nt_kern_unmqr_typed(ty, false, nb, m, nb, ib, p->a0, nb, p->T0, ib, p->C1, nb, p->W,
                                 ib * m);
    long double e2 = 0, o2 = 0, an = 0;
    for (int64_t j = 0; st == NT_OK && j < m; j++)
        for (int64_t i = 0; i < m; i++)
            pput(ty, p->Q, i + j * m,
                 i < nb ? pget(ty, p->C1, i + j * nb) : pget(ty, p->C2, i - nb + j * nb));
    if (st == NT_OK)
        prec_residuals(p, &e2, &an, &o2);
    long double r1 = sqrtl(e2) / (sqrtl(an) * m * p->eps), r2 = sqrtl(o2) / (m * p->eps);
    check(st == NT_OK && r1 < 30 && r2 < 30, "precision %s: QR of a tile column on nodes %d, %d:"
          " ||A - QR|| / (||A|| m eps) = %.3Lg, ||Q^H Q - I|| / (m eps) = %.3Lg (< 30)%s", p->tn,
          node_of[p->da], node_of[p->db], r1, r2, st ? nt_last_error() : "");
}

// One precision: A (2nb x nb, tile (0,0) on domain da, (1,0) on domain db) and C (nb x nb, on
// db). GEMM C = 1.5 A00 A10 - 0.5 C, then the QR of A's tile column; residuals over eps_t.
static void test_precision(const nt_topo_t *t, nt_dtype ty, int da, int db)
{
    const int64_t nb = P_NB, m = P_M, ib = P_IB;
    prec p = {.ty = ty,
              .tn = nt_dtype_name(ty),
              .eps = ty == NT_DTYPE_S || ty == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON,
              .es = nt_dtype_size(ty),
              .da = da,
              .db = db};
    nt_matrix_t *A = NULL, *C = NULL;
    nt_status st = prec_create(t, &p, &A, &C);
    size_t es = p.es;
    p.A0 = calloc((size_t)(m * nb), es);
    p.C0 = calloc((size_t)(nb * nb), es);
    p.T0 = calloc((size_t)(ib * nb), es);
    p.T1 = calloc((size_t)(ib * nb), es);
    p.W = calloc((size_t)(ib * m), es);
    p.Q = calloc((size_t)(m * m), es);
    p.C1 = calloc((size_t)(nb * m), es);
    p.C2 = calloc((size_t)(nb * m), es);
    if (check(st == NT_OK && p.A0 && p.C0 && p.T0 && p.T1 && p.W && p.Q && p.C1 && p.C2,
              "precision %s: typed matrices on domains %d, %d: %s", p.tn, da, db,
              st ? nt_last_error() : "ok")) {
        p.a0 = nt_matrix_tile(A, 0, 0);
        p.a1 = nt_matrix_tile(A, 1, 0);
        p.c = nt_matrix_tile(C, 0, 0);
        prec_fill(&p);
        prec_check_gemm(&p);
        prec_check_qr(&p);
        char what[48];
        snprintf(what, sizeof what, "precision %s: A after", p.tn);
        check_placed(A, what);
        snprintf(what, sizeof what, "precision %s: C after", p.tn);
        check_placed(C, what);
    }
    nt_matrix_destroy(A);
    nt_matrix_destroy(C);
    free(p.A0);
    free(p.C0);
    free(p.T0);
    free(p.T1);
    free(p.W);
    free(p.Q);
    free(p.C1);
    free(p.C2);
}

// The tiled drivers in one precision on the physical domains: nt_gemm (ragged 90 x 70 x 50,
// 24 x 24 tiles, A and B on a random map over all domains, C bc2d) against a naive loop, and
// nt_qr_factor + nt_qr_form_q (100 x 60, random map) with ||A - QR|| / (||A|| m eps_t) and
// ||Q^H Q - I|| / (m eps_t) below 10, every operand's pages on its domain's node afterwards.
static nt_matrix_t *make_typed(const nt_topo_t *t, nt_dtype ty, int64_t m, int64_t n,
                               const char *spec, uint64_t seed, const char *what)
{
    nt_matrix_shape_t sh = {m, n, 24, 24, nt_dtype_size(ty)};
    nt_matrix_t *A = NULL;
    nt_status st = nt_matrix_create_spec(t, &sh, spec, ndom, NT_LAYOUT_TILE, 0, &A);
    if (st == NT_OK && (st = nt_matrix_set_dtype(A, ty)) != NT_OK) {
        nt_matrix_destroy(A);
        A = NULL;
    }
    if (!check(st == NT_OK, "drivers %s: create %s on %s: %s", nt_dtype_name(ty), what, spec,
               st ? nt_last_error() : "ok"))
        return NULL;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            uint64_t h = mix(seed * 0x9e3779b97f4a7c15ULL + (uint64_t)(i * 1000 + j));
            lcx v = (long double)(h >> 11) * 0x1.0p-53L * 2 - 1;
            if (is_cplx(ty))
                __imag__ v = (0.1L + 0.9L * (long double)(mix(h) >> 11) * 0x1.0p-53L) *
                             (h & 1 ? 1 : -1);
            pput(ty, nt_matrix_elem(A, i, j), 0, v);
        }
    return A;
}

static lcx eget(nt_dtype ty, const nt_matrix_t *A, int64_t i, int64_t j)
{
    return pget(ty, nt_matrix_elem(A, i, j), 0);
}

static void test_precision_drivers(const nt_topo_t *t, nt_dtype ty, const char *bc)
{
    const char *tn = nt_dtype_name(ty);
    const long double eps = ty == NT_DTYPE_S || ty == NT_DTYPE_C ? FLT_EPSILON : DBL_EPSILON;
    const int64_t m = 90, n = 70, k = 50, qm = 100, qn = 60;
    nt_matrix_t *A = make_typed(t, ty, m, k, "random:31", 1, "A");
    nt_matrix_t *B = make_typed(t, ty, k, n, "random:32", 2, "B");
    nt_matrix_t *C = make_typed(t, ty, m, n, bc, 3, "C");
    nt_matrix_t *F = make_typed(t, ty, qm, qn, "random:33", 4, "QR's A");
    nt_matrix_t *A0 = make_typed(t, ty, qm, qn, bc, 4, "QR's A copy");
    nt_matrix_t *Q = make_typed(t, ty, qm, qm, bc, 5, "Q");
    nt_qr_t *qr = NULL;
    if (!A || !B || !C || !F || !A0 || !Q)
        goto out;
    nt_kernel_stats_t s = {0};
    nt_status st = nt_gemm(1.5, A, B, 0.0, C, NULL, &s);
    long double err = 0, na = 0, nb2 = 0;
    for (int64_t j = 0; st == NT_OK && j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            lcx r = 0;
            for (int64_t l = 0; l < k; l++)
                r += eget(ty, A, i, l) * eget(ty, B, l, j);
            err += sq(eget(ty, C, i, j) - 1.5L * r);
        }
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < m; i++)
            na += sq(eget(ty, A, i, j));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < k; i++)
            nb2 += sq(eget(ty, B, i, j));
    long double rg = sqrtl(err) / (1.5L * sqrtl(na) * sqrtl(nb2) * k * eps);
    check(st == NT_OK && rg < 10 && s.tasks == 4 * 3, "drivers %s: nt_gemm %lldx%lldx%lld on %d "
          "nodes: ||C - C_ref|| / (||A|| ||B|| k eps) = %.3Lg (< 10), %lld tasks%s", tn,
          (long long)m, (long long)n, (long long)k, ndom, rg, (long long)s.tasks,
          st ? nt_last_error() : "");
    nt_kernel_stats_free(&s);
    st = nt_qr_factor(F, NULL, &qr, NULL);
    if (st == NT_OK)
        st = nt_qr_form_q(qr, Q, NULL, NULL);
    long double e2 = 0, o2 = 0, an = 0;
    for (int64_t j = 0; st == NT_OK && j < qn; j++)
        for (int64_t i = 0; i < qm; i++) {
            lcx r = eget(ty, A0, i, j);
            an += sq(r);
            for (int64_t l = 0; l <= j; l++)
                r -= eget(ty, Q, i, l) * eget(ty, F, l, j);
            e2 += sq(r);
        }
    for (int64_t j = 0; st == NT_OK && j < qm; j++)
        for (int64_t i = 0; i < qm; i++) {
            lcx r = i == j ? -1.0L : 0.0L;
            for (int64_t l = 0; l < qm; l++)
                r += __builtin_conjl(eget(ty, Q, l, i)) * eget(ty, Q, l, j);
            o2 += sq(r);
        }
    long double r1 = sqrtl(e2) / (sqrtl(an) * qm * eps), r2 = sqrtl(o2) / (qm * eps);
    check(st == NT_OK && r1 < 10 && r2 < 10, "drivers %s: nt_qr_factor + form_q %lldx%lld on "
          "%d nodes: ||A - QR|| / (||A|| m eps) = %.3Lg, ||Q^H Q - I|| / (m eps) = %.3Lg "
          "(< 10)%s", tn, (long long)qm, (long long)qn, ndom, r1, r2, st ? nt_last_error() : "");
    const nt_matrix_t *ops[] = {A, B, C, F, Q};
    const char *names[] = {"A", "B", "C", "QR's A", "Q"};
    for (int x = 0; x < 5; x++) {
        char what[48];
        snprintf(what, sizeof what, "drivers %s: %s after", tn, names[x]);
        check_placed(ops[x], what);
    }
out:
    nt_qr_destroy(qr);
    nt_matrix_destroy(A);
    nt_matrix_destroy(B);
    nt_matrix_destroy(C);
    nt_matrix_destroy(F);
    nt_matrix_destroy(A0);
    nt_matrix_destroy(Q);
}

// The topology is this guest's: physical, one domain per node of the shape, domain d on node
// d, some with cpus (node_of, has_cpu, cpu_doms filled); false after a failed check.
static bool topo_sane(const nt_topo_t *t, int nodes)
{
    bool sane = check(nt_topo_get_kind(t) == NT_TOPO_PHYSICAL && ndom == nodes && ndom >= 2 &&
                      ndom <= MAXN, "topo: physical, %d domains (shape: %d nodes)", ndom, nodes);
    for (int d = 0; sane && d < ndom; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        node_of[d] = info.node;
        has_cpu[d] = info.ncpus > 0;
        if (has_cpu[d])
            cpu_doms[ncpu_doms++] = d;
        sane = check(info.node == d, "topo: domain %d is node %d, %d cpus", d, info.node,
                     info.ncpus);
    }
    return sane && check(ncpu_doms > 0, "topo: %d domains with cpus", ncpu_doms);
}

// A memory-only domain's tasks go to the nearest domain with cpus (kernels.md): exec_of[].
static void route_memory_only(const nt_topo_t *t)
{
    const uint32_t *dist = nt_topo_distances(t);
    for (int d = 0; d < ndom; d++) {
        exec_of[d] = d;
        if (has_cpu[d])
            continue;
        exec_of[d] = cpu_doms[0];
        for (int k = 1; k < ncpu_doms; k++)
            if (dist[d * ndom + cpu_doms[k]] < dist[d * ndom + exec_of[d]])
                exec_of[d] = cpu_doms[k];
        printf("     domain %d has no cpus: its tasks run on domain %d\n", d, exec_of[d]);
    }
}

int main(void)
{
    double t_start = now();
    int nodes = guest_start("guest_kernels");
    nt_topo_t *t = NULL;
    nt_status st = nt_topo_load(NULL, &t);
    if (!check(st == NT_OK, "topo: load this machine: %s", st ? nt_last_error() : "ok"))
        return guest_summary("kernels");
    ndom = nt_topo_ndomains(t);
    if (!topo_sane(t, nodes)) {
        nt_topo_destroy(t);
        return guest_summary("kernels");
    }
    route_memory_only(t);
    int P = 1;
    for (int p = 1; p * p <= ndom; p++)
        if (ndom % p == 0)
            P = p;
    char bc[32], bcT[32], sk[32], ch[32], bd[32];
    snprintf(bc, sizeof bc, "bc2d:%dx%d", P, ndom / P);
    snprintf(bcT, sizeof bcT, "bc2d:%dx%d:1x2", ndom / P, P);
    snprintf(sk, sizeof sk, "skewed:%dx%d:3", P, ndom / P);
    snprintf(ch, sizeof ch, "chunk:%d:5", ndom);
    snprintf(bd, sizeof bd, "band:2:%dx%d", P, ndom / P);
    const nt_layout TL = NT_LAYOUT_TILE, SL = NT_LAYOUT_SCALAPACK;

    // Partial tiles everywhere: 130 = 4 x 32 + 2, 90 = 3 x 24 + 18, 110 = 2 x 40 + 30.
    const gemm_case gc[] = {
        {"C random", 130, 110, 90, 32, 24, 40, bc, "balanced:9", "random:8", 0, TL, TL, TL,
         2.0, -1.0},
        {"C bc2d on cpu domains (scalapack)", 130, 110, 90, 32, 24, 40, ch, bcT, NULL, 0, TL,
         SL, SL, -1.0, 3.0},
        {"C hashed on cpu domains", 96, 120, 70, 24, 32, 40, "random:2", bd, NULL, 17, TL, TL,
         TL, 1.0, 0.0},
        {"C skewed", 100, 100, 64, 32, 32, 32, sk, bc, sk, 0, TL, SL, TL, 3.0, 2.0},
    };
    for (size_t k = 0; k < sizeof gc / sizeof *gc; k++)
        test_gemm(t, &gc[k]);

    const qr_case qc[] = {
        {"A random", 128, 96, 32, "random:4", 0, TL, NULL, 0},
        {"A bc2d on cpu domains (scalapack)", 140, 100, 32, NULL, 0, SL, "balanced:3", 0},
        {"A hashed on cpu domains", 100, 100, 24, NULL, 23, TL, NULL, 29},
        {"A chunk, tall", 160, 60, 32, ch, 0, TL, bc, 0},
    };
    for (size_t k = 0; k < sizeof qc / sizeof *qc; k++)
        test_qr(t, &qc[k]);

    for (nt_dtype ty = NT_DTYPE_S; ty <= NT_DTYPE_Z; ty++)
        test_precision(t, ty, 0, ndom - 1);
    for (nt_dtype ty = NT_DTYPE_S; ty <= NT_DTYPE_Z; ty++)
        test_precision_drivers(t, ty, bc);

    test_stencil(t, 0, 2000, 25, 1);
    test_stencil(t, 1, 1500, 20, 0);
    test_stencil(t, 2, 997, 15, 3);
    nt_topo_destroy(t);

    guest_print_verified("guest_kernels", ndom);
    printf("guest_kernels: %.1f s\n", now() - t_start);
    return guest_summary("kernels");
}
