// Closed-form communication sets between CYCLIC(r) distributions (Guo et al.'s intersection of
// strided index sets, extended to block sizes r > 1 and to different process counts).
//
// Process k of CYCLIC(r) over p holds the blocks [k r + m R, k r + m R + r), R = r p. The
// intersection of two such sets is periodic with period L = lcm(R_s, R_t), so it is enough to
// intersect the blocks of one period (or of [0, n) when n < L) and to repeat each run with
// stride L. Guo's per-dimension triple (origin, stride, count) is the special case r = 1.
#include <stdlib.h>

#include "nt_core.h"
#include "numatile/plan.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

typedef struct ival {
    int64_t a, e; // [a, e)
} ival;

// Blocks of process k within [0, w) in submatrix coordinates; returns how many were written.
static int64_t blocks(const nt_cyclic_t *c, int k, int64_t w, ival *out)
{
    int64_t R = c->r * c->p;
    int64_t base = (int64_t)k * c->r - c->off; // block start for m = 0, submatrix coords
    int64_t m = floor_div(-base - c->r, R) + 1; // first block ending after 0
    int64_t n = 0;
    for (;; m++) {
        int64_t a = base + m * R, e = a + c->r;
        if (a >= w)
            break;
        out[n++] = (ival){a < 0 ? 0 : a, e > w ? w : e};
    }
    return n;
}

static int64_t max_blocks(const nt_cyclic_t *c, int64_t w)
{
    return w / (c->r * c->p) + 2;
}

// Merge entries (all with count 1) that form arithmetic progressions of equal-length blocks.
static int64_t merge_singles(nt_run_t *v, int64_t n)
{
    int64_t out = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        if (j < n && v[j].len == v[i].len) {
            int64_t s = v[j].start - v[i].start;
            while (j + 1 < n && v[j + 1].len == v[i].len && v[j + 1].start - v[j].start == s)
                j++;
            v[out++] = (nt_run_t){v[i].start, s, j - i + 1, v[i].len};
            i = j + 1;
        } else {
            v[out++] = v[i];
            v[out - 1].stride = v[i].count == 1 ? 1 : v[i].stride;
            i++;
        }
    }
    return out;
}

// Periodic entries (start, L, count, len), same len, equally spaced by s with m*s = L and
// counts c..c, c-1..c-1 are one progression (start0, s, total, len).
static int64_t merge_periodic(nt_run_t *v, int64_t n, int64_t L)
{
    if (n < 2)
        return n;
    int64_t s = v[1].start - v[0].start;
    if (s <= 0 || n * s != L)
        return n;
    int64_t total = v[0].count;
    bool dropped = false;
    for (int64_t i = 1; i < n; i++) {
        if (v[i].len != v[0].len || v[i].start - v[i - 1].start != s)
            return n;
        if (v[i].count == v[0].count - 1 && !dropped)
            dropped = true;
        else if (v[i].count != (dropped ? v[0].count - 1 : v[0].count))
            return n;
        total += v[i].count;
    }
    v[0] = (nt_run_t){v[0].start, s, total, v[0].len};
    return 1;
}

static nt_status check_intersect(int64_t n, const nt_cyclic_t *s, int ks, const nt_cyclic_t *t,
                                 int kt, const nt_run_t *runs, int64_t cap,
                                 const int64_t *nruns)
{
    if (!s || !t || !nruns || (cap > 0 && !runs))
        return nt_fail(NT_EINVAL, "nt_cyclic_intersect: NULL argument");
    if (n < 0 || cap < 0)
        return nt_fail(NT_EINVAL, "nt_cyclic_intersect: n = %lld and cap = %lld must be >= 0",
                       (long long)n, (long long)cap);
    const nt_cyclic_t *c2[2] = {s, t};
    for (int x = 0; x < 2; x++)
        if (c2[x]->r < 1 || c2[x]->p < 1 || c2[x]->off < 0)
            return nt_fail(NT_EINVAL, "nt_cyclic_intersect: %s distribution needs r >= 1, "
                           "p >= 1, off >= 0", x ? "target" : "source");
    if (ks < 0 || ks >= s->p || kt < 0 || kt >= t->p)
        return nt_fail(NT_EINVAL, "nt_cyclic_intersect: process %d out of range 0..%d",
                       ks < 0 || ks >= s->p ? ks : kt, (ks < 0 || ks >= s->p ? s->p : t->p) - 1);
    return NT_OK;
}

// Append the overlap [a, a + len) of one period to v[nv..], repeated with stride L within
// [0, n) (L = 0: not repeated); adds its elements to *sum and clears *singles once an entry
// counts more than one block or a repetition is truncated. Returns the new nv.
static int64_t add_overlap(nt_run_t *v, int64_t nv, int64_t a, int64_t len, int64_t n,
                           int64_t L, int64_t *sum, bool *singles)
{
    if (L == 0) {
        v[nv++] = (nt_run_t){a, 1, 1, len};
        *sum += len;
        return nv;
    }
    // Whole repetitions a + kL + len <= n, then possibly one truncated.
    int64_t full = n - a - len >= 0 ? (n - a - len) / L + 1 : 0;
    if (full > 0) {
        v[nv++] = (nt_run_t){a, L, full, len};
        *sum += full * len;
        *singles = *singles && full == 1;
    }
    int64_t next = a + full * L;
    if (next < n) {
        v[nv++] = (nt_run_t){next, 1, 1, n - next < len ? n - next : len};
        *sum += v[nv - 1].len;
        *singles = false;
    }
    return nv;
}

// Walk two ascending block lists together and record every overlap (see add_overlap()).
static int64_t intersect_blocks(const ival *bs, int64_t ns, const ival *bt, int64_t ntb,
                                int64_t n, int64_t L, nt_run_t *v, int64_t *sum, bool *singles)
{
    int64_t nv = 0;
    for (int64_t i = 0, j = 0; i < ns && j < ntb;) {
        int64_t a = bs[i].a > bt[j].a ? bs[i].a : bt[j].a;
        int64_t e = bs[i].e < bt[j].e ? bs[i].e : bt[j].e;
        if (a < e)
            nv = add_overlap(v, nv, a, e - a, n, L, sum, singles);
        if (bs[i].e <= bt[j].e)
            i++;
        else
            j++;
    }
    return nv;
}

nt_status nt_cyclic_intersect(int64_t n, const nt_cyclic_t *s, int ks, const nt_cyclic_t *t,
                              int kt, nt_run_t *runs, int64_t cap, int64_t *nruns,
                              int64_t *total)
{
    nt_status st = check_intersect(n, s, ks, t, kt, runs, cap, nruns);
    if (st)
        return st;
    int64_t Rs, Rt, L;
    if (!nt_mul_i64(s->r, s->p, &Rs) || !nt_mul_i64(t->r, t->p, &Rt))
        return nt_fail(NT_ERANGE, "nt_cyclic_intersect: r x p overflows");
    // A period longer than the submatrix (or one that overflows) is never repeated.
    int64_t w = n;
    if (nt_mul_i64(Rs / nt_gcd64(Rs, Rt), Rt, &L) && L < n)
        w = L;
    else
        L = 0;
    if (n == 0) {
        *nruns = 0;
        if (total)
            *total = 0;
        return NT_OK;
    }
    int64_t ns = max_blocks(s, w), ntb = max_blocks(t, w);
    ival *bs = malloc((size_t)ns * sizeof *bs), *bt = malloc((size_t)ntb * sizeof *bt);
    nt_run_t *v = malloc((size_t)(ns + ntb) * 2 * sizeof *v);
    if (!bs || !bt || !v) {
        free(bs);
        free(bt);
        free(v);
        return nt_fail(NT_ENOMEM, "nt_cyclic_intersect: out of memory");
    }
    ns = blocks(s, ks, w, bs);
    ntb = blocks(t, kt, w, bt);
    int64_t sum = 0;
    bool singles = true;
    int64_t nv = intersect_blocks(bs, ns, bt, ntb, n, L, v, &sum, &singles);
    free(bs);
    free(bt);
    if (singles)
        nv = merge_singles(v, nv);
    else if (L > 0)
        nv = merge_periodic(v, nv, L);
    for (int64_t i = 0; i < nv && i < cap; i++)
        runs[i] = v[i];
    free(v);
    *nruns = nv;
    if (total)
        *total = sum;
    return NT_OK;
}

nt_status nt_plan_commset(const nt_matrix_t *src, const nt_matrix_t *dst, const nt_sub_t *sub,
                          int src_dom, int dst_dom, nt_run_t *rows, int64_t rows_cap,
                          int64_t *nrows, nt_run_t *cols, int64_t cols_cap, int64_t *ncols)
{
    if (!src || !dst || !nrows || !ncols)
        return nt_fail(NT_EINVAL, "nt_plan_commset: NULL argument");
    if (src->grid.p == 0 || dst->grid.p == 0)
        return nt_fail(NT_ENOTSUP, "nt_plan_commset: the %s map is not block-cyclic",
                       src->grid.p == 0 ? "source" : "target");
    if (src_dom < 0 || src_dom >= src->ndomains || dst_dom < 0 || dst_dom >= dst->ndomains)
        return nt_fail(NT_EINVAL, "nt_plan_commset: domain pair (%d,%d) out of range "
                       "0..%d x 0..%d", src_dom, dst_dom, src->ndomains - 1, dst->ndomains - 1);
    nt_sub_t s;
    if (sub) {
        s = *sub;
    } else {
        if (src->m != dst->m || src->n != dst->n)
            return nt_fail(NT_EINVAL, "nt_plan_commset: sizes differ and no submatrix given");
        s = (nt_sub_t){src->m, src->n, 0, 0, 0, 0};
    }
    if (s.rows < 0 || s.cols < 0 || s.src_row < 0 || s.src_col < 0 || s.dst_row < 0 ||
        s.dst_col < 0 || s.src_row > src->m - s.rows || s.src_col > src->n - s.cols ||
        s.dst_row > dst->m - s.rows || s.dst_col > dst->n - s.cols)
        return nt_fail(NT_EINVAL, "nt_plan_commset: submatrix out of bounds");
    const nt_bcgrid_t *gs = &src->grid, *gt = &dst->grid;
    if (src_dom >= gs->p * gs->q || dst_dom >= gt->p * gt->q) {
        *nrows = *ncols = 0;
        return NT_OK;
    }
    nt_cyclic_t rs = {gs->smb * src->mb, gs->p, s.src_row}, rt = {gt->smb * dst->mb, gt->p,
                                                                   s.dst_row};
    nt_cyclic_t cs = {gs->snb * src->nb, gs->q, s.src_col}, ct = {gt->snb * dst->nb, gt->q,
                                                                   s.dst_col};
    int64_t nr, nc;
    nt_status st = nt_cyclic_intersect(s.rows, &rs, src_dom / gs->q, &rt, dst_dom / gt->q, rows,
                                       rows_cap, &nr, NULL);
    if (st == NT_OK)
        st = nt_cyclic_intersect(s.cols, &cs, src_dom % gs->q, &ct, dst_dom % gt->q, cols,
                                 cols_cap, &nc, NULL);
    if (st)
        return st;
    *nrows = nr;
    *ncols = nc;
    return NT_OK;
}
