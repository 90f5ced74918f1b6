// Runs of local indices for periodic plans (see nt_periodic.h): along each dimension the
// submatrix is cut into pieces (as the planner does) and each piece becomes a run of local
// indices, since global index g of CYCLIC(r) over p processes sits at local index
// (g / (r p)) r + g mod r of its process. Runs of one (source, target) coordinate pair that
// continue each other on both sides are merged, and every list is stored as a pattern of runs
// repeated with the period of the two distributions.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_periodic.h"

void nt_runs_free(runs *R)
{
    free(R->r);
    free(R->first);
    free(R->cnt);
    free(R->total);
    free(R->pat);
}

// The smallest period P (in runs) of a list: run k + P is run k shifted by one fixed (ds, dt).
static plist find_pattern(const prun *r, int64_t n)
{
    for (int64_t P = 1; P <= MAX_PERIOD && P < n; P++) {
        int64_t ds = r[P].sl - r[0].sl, dt = r[P].tl - r[0].tl, k = 0;
        while (k + P < n && r[k + P].len == r[k].len && r[k + P].a == r[k].a &&
               r[k + P].b == r[k].b &&
               r[k + P].sl - r[k].sl == ds && r[k + P].tl - r[k].tl == dt)
            k++;
        if (k + P == n)
            return (plist){P, n / P, n % P, ds, dt, false};
    }
    return (plist){n, 1, 0, 0, 0, false};
}

// find_pattern(), and whether every run is a single element.
static plist list_pattern(const prun *r, int64_t n)
{
    plist L = find_pattern(r, n);
    L.unit = true;
    for (int64_t k = 0; k < n && L.unit; k++)
        L.unit = r[k].len == 1;
    return L;
}

static int64_t local_index(int64_t g, int64_t r, int p)
{
    return g / (r * p) * r + g % r;
}

// Append a piece to list k, merging it with the list's last run when both sides continue it.
static void runs_add(runs *R, int k, int64_t x, int64_t sl, int64_t tl, int64_t len)
{
    prun *last = R->cnt[k] ? &R->r[R->first[k] + R->cnt[k] - 1] : NULL;
    if (last && last->sl + last->len == sl && last->tl + last->len == tl)
        last->len += len;
    else
        R->r[R->first[k] + R->cnt[k]++] =
            (prun){sl, tl, len, R->total[k], x, k / R->nb, k % R->nb};
    R->total[k] += len;
}

// The runs of one dimension (rows when `rows`), from its pieces.
nt_status nt_runs_build(const nt_plan_geo_t *g, const nt_dim_t *d, bool rows, runs *R)
{
    int na = rows ? g->gs.p : g->gs.q, nb = rows ? g->gt.p : g->gt.q;
    int64_t rs = rows ? g->gs.smb * g->smb : g->gs.snb * g->snb;
    int64_t rt = rows ? g->gt.smb * g->tmb : g->gt.snb * g->tnb;
    int64_t os = rows ? g->sub.src_row : g->sub.src_col;
    int64_t ot = rows ? g->sub.dst_row : g->sub.dst_col;
    size_t nk = (size_t)na * (size_t)nb;
    *R = (runs){.na = na, .nb = nb};
    R->r = malloc((size_t)(d->np > 0 ? d->np : 1) * sizeof *R->r);
    R->first = calloc(nk + 1, sizeof *R->first);
    R->cnt = calloc(nk, sizeof *R->cnt);
    R->total = calloc(nk, sizeof *R->total);
    if (!R->r || !R->first || !R->cnt || !R->total)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int64_t x = 0; x < d->np; x++) {
        const nt_piece_t *p = &d->p[x];
        int a = rows ? nt_piece_src_row(g, p) : nt_piece_src_col(g, p);
        int b = rows ? nt_piece_dst_row(g, p) : nt_piece_dst_col(g, p);
        R->first[(size_t)a * (size_t)nb + (size_t)b + 1]++;
    }
    for (size_t k = 0; k < nk; k++)
        R->first[k + 1] += R->first[k];
    for (int64_t x = 0; x < d->np; x++) {
        const nt_piece_t *p = &d->p[x];
        int a = rows ? nt_piece_src_row(g, p) : nt_piece_src_col(g, p);
        int b = rows ? nt_piece_dst_row(g, p) : nt_piece_dst_col(g, p);
        runs_add(R, a * nb + b, p->x, local_index(os + p->x, rs, na),
                 local_index(ot + p->x, rt, nb), p->len);
    }
    R->pat = malloc(nk * sizeof *R->pat);
    if (!R->pat)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (size_t k = 0; k < nk; k++)
        R->pat[k] = list_pattern(&R->r[R->first[k]], R->cnt[k]);
    return NT_OK;
}

static int cmp_tl(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->tl > b->tl) - (a->tl < b->tl);
}

static int cmp_sl(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->sl > b->sl) - (a->sl < b->sl);
}

static int cmp_x(const void *x, const void *y)
{
    const prun *a = x, *b = y;
    return (a->x > b->x) - (a->x < b->x);
}

// The lists of R merged: by target (one list per target coordinate b, every source's runs in
// target order: a target column is written top to bottom in one pass), by source (one list
// per source coordinate a, in source order: a source column is read top to bottom), or all in
// one list in global order (every column on both sides in one pass). Positions u are
// recounted in the merged order.
nt_status nt_merge_runs(const runs *R, merge_by by, runs *M)
{
    size_t na = (size_t)R->na, nb = (size_t)R->nb;
    size_t ng = by == BY_SOURCE ? na : by == BY_TARGET ? nb : 1;
    int64_t all = R->first[na * nb];
    *M = (runs){.na = (int)(by == BY_SOURCE ? na : 1), .nb = (int)(by == BY_TARGET ? nb : 1)};
    M->r = malloc((size_t)(all > 0 ? all : 1) * sizeof *M->r);
    M->first = calloc(ng + 1, sizeof *M->first);
    M->cnt = calloc(ng, sizeof *M->cnt);
    M->total = calloc(ng, sizeof *M->total);
    M->pat = malloc(ng * sizeof *M->pat);
    if (!M->r || !M->first || !M->cnt || !M->total || !M->pat)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    int64_t at = 0;
    for (size_t g = 0; g < ng; g++) {
        M->first[g] = at;
        for (size_t k = 0; k < na * nb; k++) {
            bool in = by == BY_NONE || (by == BY_SOURCE ? k / nb == g : k % nb == g);
            if (!in)
                continue;
            memcpy(&M->r[at], &R->r[R->first[k]], (size_t)R->cnt[k] * sizeof *M->r);
            at += R->cnt[k];
        }
        M->cnt[g] = at - M->first[g];
        prun *v = &M->r[M->first[g]];
        qsort(v, (size_t)M->cnt[g], sizeof *v,
              by == BY_SOURCE ? cmp_sl : by == BY_TARGET ? cmp_tl : cmp_x);
        for (int64_t x = 0; x < M->cnt[g]; x++) {
            v[x].u = M->total[g];
            M->total[g] += v[x].len;
        }
        M->pat[g] = list_pattern(v, M->cnt[g]);
    }
    M->first[ng] = at;
    return NT_OK;
}

// First run of list k whose columns reach past u (binary search on the prefix u).
int64_t nt_run_at(const runs *R, size_t k, int64_t u)
{
    int64_t lo = R->first[k], hi = R->first[k] + R->cnt[k] - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (R->r[mid].u <= u)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}


void nt_psrc_free(psrc *ps)
{
    free(ps->c);
    free(ps->n);
    free(ps->ua);
    free(ps->ul);
    *ps = (psrc){0};
}

// Empty tables for P targets of dt elements a period (c[b] = -1, n[b] = 0, ua and ul unset);
// NT_ENOMEM with nothing held.
static nt_status psrc_alloc(psrc *ps, int P, int64_t dt, int64_t ds)
{
    size_t cells = (size_t)P * (size_t)dt;
    *ps = (psrc){.ds = ds, .dt = dt};
    ps->c = malloc((size_t)P * sizeof *ps->c);
    ps->n = malloc((size_t)P * sizeof *ps->n);
    ps->ua = malloc(cells * sizeof *ps->ua);
    ps->ul = malloc(cells * sizeof *ps->ul);
    if (!ps->c || !ps->n || !ps->ua || !ps->ul) {
        nt_psrc_free(ps);
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    }
    for (int b = 0; b < P; b++)
        ps->c[b] = -1, ps->n[b] = 0;
    return NT_OK;
}

nt_status nt_psrc_periodic(const prun *r, int64_t n, int S, int P, int64_t dt, int64_t ds,
                        int quantum, psrc *ps, bool *fits)
{
    *fits = false;
    nt_status st = psrc_alloc(ps, P, dt, ds);
    if (st != NT_OK)
        return st;
    bool ok = true;
    for (int64_t k = 0; k < n && ok; k++) {
        int a = r[k].a, b = r[k].b;
        ok = a >= 0 && a < S && b >= 0 && b < P && r[k].len > 0 &&
             (quantum == 0 || (quantum == 1 ? r[k].len == 1
                                            : r[k].len % quantum == 0 && r[k].tl % quantum == 0));
        if (ok && ps->c[b] < 0)
            ps->c[b] = r[k].tl;
        ok = ok && r[k].tl == ps->c[b] + ps->n[b];
        for (int64_t i = 0; ok && i < r[k].len; i++) {
            int64_t rel = ps->n[b]++, sl = r[k].sl + i;
            size_t p = (size_t)b * (size_t)dt + (size_t)(rel % dt);
            if (rel < dt)
                ps->ua[p] = a, ps->ul[p] = sl;
            else
                ok = ps->ua[p] == a && ps->ul[p] + rel / dt * ds == sl;
        }
    }
    for (int b = 0; b < P && ok; b++)
        ok = ps->n[b] == 0 || ps->n[b] >= dt;
    if (!ok)
        nt_psrc_free(ps);
    *fits = ok;
    return NT_OK;
}

void nt_psrc_elements(const psrc *ps, int b, uint64_t *d, const uint64_t *const *src, int64_t rel0,
                   int64_t rel1)
{
    if (rel0 >= rel1)
        return;
    int64_t k = rel0 / ps->dt, p0 = (int64_t)b * ps->dt, p = p0 + rel0 % ps->dt;
    for (int64_t rel = rel0; rel < rel1; rel++) {
        d[rel] = src[ps->ua[p]][ps->ul[p] + k * ps->ds];
        if (++p == p0 + ps->dt) {
            p = p0;
            k++;
        }
    }
}
