// NRRP (Lambert Algorithm 1.9, a 2/sqrt(3)-approximation): recursive splitting that keeps every
// rectangle recursed on at aspect ratio <= 5/2, with Tripartition, Square, Superposition and
// Packing for the cases where the largest speeds dominate. Case names follow the thesis;
// positions are 0-based: speeds s_1 <= .. <= s_m of the thesis are L->s[lo .. hi-1].
#include <math.h>

#include "hetero_int.h"

// One slice of the strip R for the speeds [lo, hi): the part of R between positions a and b
// along its long side.
static void slice(het_list *L, int lo, int hi, het_rect R, double a, double b)
{
    if (het_h(&R) >= het_w(&R))
        R.y0 = a, R.y1 = b;
    else
        R.x0 = a, R.x1 = b;
    nt_het_nrrp(L, lo, hi, R);
}

// Packing (Lemma 1.18): cut the sorted speeds [lo, hi) into consecutive groups whose areas lie
// in [a_lo, a_hi] (the largest speed alone may exceed a_hi) and lay the groups out as slices
// across the long side of the thin strip R (Lemma 1.19 bounds their aspect ratio by 5/2).
// Groups are placed from the far end of the strip, largest speeds first.
static void packing(het_list *L, int lo, int hi, double a_lo, double a_hi, het_rect R)
{
    bool along_y = het_h(&R) >= het_w(&R);
    double start = along_y ? R.y0 : R.x0, end = along_y ? R.y1 : R.x1;
    double len = end - start, T = het_sum(L, lo, hi);
    if (hi - lo >= 3 && L->s[hi - 1] + L->s[hi - 2] > a_hi) {
        // Case 1: the largest alone; the second alone (i) or with the speeds just below (ii).
        int cut = hi - 2;
        if (L->s[hi - 2] < a_lo) {
            cut = nt_het_reach(L, lo, hi - 1, het_sum(L, lo, hi - 1) - a_lo) - 1;
            cut = cut < lo + 1 ? lo + 1 : cut > hi - 2 ? hi - 2 : cut;
        }
        double b1 = start + het_sum(L, lo, cut) / T * len;
        double b2 = b1 + het_sum(L, cut, hi - 1) / T * len;
        slice(L, lo, cut, R, start, b1);
        slice(L, cut, hi - 1, R, b1, b2);
        slice(L, hi - 1, hi, R, b2, end);
        return;
    }
    // Case 2: from the top, each group the fewest speeds reaching a_lo; a remainder below
    // a_lo joins the last group.
    int i = hi;
    while (i > lo) {
        int j = i - 1;
        double acc = L->s[j];
        while (acc < a_lo && j > lo)
            acc += L->s[--j];
        if (het_sum(L, lo, j) < a_lo)
            j = lo;
        double a = j == lo ? start : end - het_sum(L, j, i) / T * len;
        slice(L, j, i, R, a, end);
        end = a;
        i = j;
    }
}

// Case (A): the smallest prefix reaching 2s/(5 rho) leaves something.
static void case_a(het_list *L, int lo, int e, int hi, het_rect R, double s, double rho)
{
    het_rect R1, R2, Z3;
    if (s - het_sum(L, lo, e) >= 2 * s / (5 * rho) || hi - lo < 3) { // (A1)
        nt_het_guillotine(&R, het_sum(L, lo, e) / s, &R1, &R2);
        nt_het_nrrp(L, lo, e, R1);
        nt_het_nrrp(L, e, hi, R2);
        return;
    }
    // (A2): then k = m - 1 (Lemma 1.17); the two largest get simple rectangles.
    nt_het_tripartition(&R, het_sum(L, lo, hi - 2) / s, L->s[hi - 2] / s, &R1, &R2, &Z3);
    nt_het_nrrp(L, lo, hi - 2, R1);
    nt_het_assign(L, hi - 2, &R2, 1, 0);
    nt_het_assign(L, hi - 1, &Z3, 1, 0);
}

// Case (B2-a2''): the three largest are simple zones, the rest shares a square.
static void case_b2a2pp(het_list *L, int lo, int hi, het_rect R, double s, double rho)
{
    double sp = het_sum(L, lo, hi - 1), sppp = het_sum(L, lo, hi - 3);
    double t = 1 - sqrt(fmax(0, 1 - rho * sp / s));
    double ref = het_w(&R) + het_h(&R);
    het_rect R1, Rt, Zm, Z2, Z3[2];
    if (sppp / s <= t * t / rho) {
        // Guillotine, then the strip: s_{m-2} alone, and s_{m-1} around the square of the rest.
        het_rect Rt2;
        nt_het_guillotine(&R, sp / s, &Rt, &Zm);
        nt_het_guillotine(&Rt, L->s[hi - 3] / sp, &Z2, &Rt2);
        nt_het_square(&Rt2, sppp / (sppp + L->s[hi - 2]), &R1, Z3);
        nt_het_nrrp(L, lo, hi - 3, R1);
        nt_het_assign(L, hi - 3, &Z2, 1, 0);
        nt_het_assign(L, hi - 2, Z3, 2, ref);
        nt_het_assign(L, hi - 1, &Zm, 1, 0);
    } else {
        het_rect Z4[2], Za, Zb;
        nt_het_superposition(&R, sp / s, sppp / s, &R1, &Rt, Z4);
        nt_het_guillotine(&Rt, L->s[hi - 3] / (sp - sppp), &Za, &Zb);
        nt_het_nrrp(L, lo, hi - 3, R1);
        nt_het_assign(L, hi - 3, &Za, 1, 0);
        nt_het_assign(L, hi - 2, &Zb, 1, 0);
        nt_het_assign(L, hi - 1, Z4, 2, ref);
    }
}

// Case (B2-b): the two largest are simple zones, the rest shares a square.
static void case_b2b(het_list *L, int lo, int hi, het_rect R, double s, double rho)
{
    double sp = het_sum(L, lo, hi - 1), spp = het_sum(L, lo, hi - 2);
    double t = 1 - sqrt(fmax(0, 1 - rho * sp / s));
    double ref = het_w(&R) + het_h(&R);
    het_rect R1, Rt, Z2[2], Z3[2];
    if (spp / s <= t * t / rho) {
        nt_het_guillotine(&R, sp / s, &Rt, &Z3[0]);
        nt_het_square(&Rt, spp / sp, &R1, Z2);
        nt_het_nrrp(L, lo, hi - 2, R1);
        nt_het_assign(L, hi - 2, Z2, 2, ref);
        nt_het_assign(L, hi - 1, Z3, 1, 0);
    } else {
        nt_het_superposition(&R, sp / s, spp / s, &R1, &Rt, Z3);
        nt_het_nrrp(L, lo, hi - 2, R1);
        nt_het_assign(L, hi - 2, &Rt, 1, 0);
        nt_het_assign(L, hi - 1, Z3, 2, ref);
    }
}

void nt_het_nrrp(het_list *L, int lo, int hi, het_rect R)
{
    int m = hi - lo;
    if (m <= 0)
        return;
    if (m == 1) {
        nt_het_assign(L, lo, &R, 1, 0);
        return;
    }
    double s = het_sum(L, lo, hi), rho = het_rho(&R);
    int e = nt_het_reach(L, lo, hi, 2 * s / (5 * rho));
    if (e < hi) {
        case_a(L, lo, e, hi, R, s, rho);
        return;
    }
    double sp = het_sum(L, lo, hi - 1); // s' = s - s_m
    het_rect R1, Z2[2];
    if (sp / s <= 1 - 3 * (rho + 1) * (rho + 1) / (16 * rho)) { // (B1)
        nt_het_square(&R, sp / s, &R1, Z2);
        nt_het_nrrp(L, lo, hi - 1, R1);
        nt_het_assign(L, hi - 1, Z2, 2, het_w(&R) + het_h(&R));
        return;
    }
    if (m == 2) { // (B2-c)
        nt_het_guillotine(&R, sp / s, &R1, &Z2[0]);
        nt_het_assign(L, lo, &R1, 1, 0);
        nt_het_assign(L, lo + 1, &Z2[0], 1, 0);
        return;
    }
    double spp = het_sum(L, lo, hi - 2);
    double a_lo = 2 * rho * sp * sp / (5 * s), a_hi = 5 * rho * sp * sp / (2 * s);
    if (spp < a_lo) {
        case_b2b(L, lo, hi, R, s, rho);
        return;
    }
    het_rect Rt, Zm, Z3;
    if (spp <= a_hi || m == 3) { // (B2-a1); m = 3 cannot reach (B2-a2) (s''' > 0 there)
        nt_het_guillotine(&R, sp / s, &Rt, &Zm);
        nt_het_guillotine(&Rt, spp / sp, &R1, &Z3);
        nt_het_nrrp(L, lo, hi - 2, R1);
        nt_het_assign(L, hi - 2, &Z3, 1, 0);
        nt_het_assign(L, hi - 1, &Zm, 1, 0);
        return;
    }
    if (het_sum(L, lo, hi - 3) >= a_lo) { // (B2-a2')
        nt_het_guillotine(&R, sp / s, &Rt, &Zm);
        packing(L, lo, hi - 1, a_lo, a_hi, Rt);
        nt_het_assign(L, hi - 1, &Zm, 1, 0);
        return;
    }
    case_b2a2pp(L, lo, hi, R, s, rho);
}
