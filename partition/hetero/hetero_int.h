// Internal helpers of the heterogeneous partitioners (partition/hetero_*.c). Not installed.
#ifndef NUMATILE_HETERO_INT_H
#define NUMATILE_HETERO_INT_H

#include "nt_core.h"
#include "numatile/hetero.h"

typedef nt_hetero_rect_t het_rect;

// The positive speeds, normalised and sorted increasingly, with prefix sums; zones[] is the
// caller's output, indexed by the caller's order.
typedef struct het_list {
    int m;                   // number of positive speeds
    double *s;               // s[0] <= .. <= s[m-1], sum 1
    double *pre;             // pre[k] = s[0] + .. + s[k-1], m + 1 entries
    int *idx;                // sorted position -> caller's index
    nt_hetero_zone_t *zones; // caller's zones
} het_list;

// Normalise and sort speeds; every caller zone starts empty. Frees nothing on failure.
nt_status nt_het_list_init(int m, const double *speeds, nt_hetero_zone_t *zones, het_list *L);
void nt_het_list_free(het_list *L);

static inline double het_sum(const het_list *L, int lo, int hi)
{
    return L->pre[hi] - L->pre[lo];
}

static inline double het_w(const het_rect *r) { return r->x1 - r->x0; }
static inline double het_h(const het_rect *r) { return r->y1 - r->y0; }

// Aspect ratio max(w, h) / min(w, h) >= 1.
static inline double het_rho(const het_rect *r)
{
    double w = het_w(r), h = het_h(r);
    return w >= h ? w / h : h / w;
}

// Smallest e in (lo, hi] with s[lo] + .. + s[e-1] >= target (hi if none).
int nt_het_reach(const het_list *L, int lo, int hi, double target);

// Give the zone of sorted position pos the rectangles r[0..n-1]; rectangles thinner than
// 1e-12 of ref (rounding slivers of L-shapes) are dropped.
void nt_het_assign(het_list *L, int pos, const het_rect *r, int n, double ref);

// Lambert's routines. Guillotine: cut along the longer side, R1 gets fraction a (at x0 or
// y0). Square: a square of area a s(R) at the (x0, y0) corner and the L-shaped rest (2
// rectangles). Tripartition and Superposition: Algorithms 1.7 and 1.8.
void nt_het_guillotine(const het_rect *R, double a, het_rect *R1, het_rect *R2);
void nt_het_square(const het_rect *R, double a, het_rect *sq, het_rect rest[2]);
void nt_het_tripartition(const het_rect *R, double a, double b, het_rect *R1, het_rect *Z2,
                      het_rect *Z3);
void nt_het_superposition(const het_rect *R, double a, double e, het_rect *R1, het_rect *Z2,
                       het_rect Z3[2]);

// Sorted-list partitioners, on positions [lo, hi) inside rectangle R.
void nt_het_rrp(het_list *L, int lo, int hi, het_rect R);
void nt_het_snrrp(het_list *L, int lo, int hi, het_rect R);
void nt_het_nrrp(het_list *L, int lo, int hi, het_rect R);
nt_status nt_het_column(het_list *L);
nt_status nt_het_exact(het_list *L);

#endif
