// SNRRP (Lambert Algorithm 1.6): RRP with the threshold s / (3 rho) and, when the largest speed
// dominates, Square: the others share a square in a corner and the largest takes the L-shaped
// rest. Every rectangle recursed on keeps aspect ratio <= 3 (Theorem 1.8), whence the
// sqrt(3/2) guarantee.
#include "hetero_int.h"

void nt_het_snrrp(het_list *L, int lo, int hi, het_rect R)
{
    if (hi - lo == 1) {
        nt_het_assign(L, lo, &R, 1, 0);
        return;
    }
    double s = het_sum(L, lo, hi);
    int e = nt_het_reach(L, lo, hi, s / (3 * het_rho(&R)));
    if (e < hi) {
        het_rect R1, R2;
        nt_het_guillotine(&R, het_sum(L, lo, e) / s, &R1, &R2);
        nt_het_snrrp(L, lo, e, R1);
        nt_het_snrrp(L, e, hi, R2);
        return;
    }
    het_rect sq, rest[2];
    nt_het_square(&R, het_sum(L, lo, hi - 1) / s, &sq, rest);
    nt_het_snrrp(L, lo, hi - 1, sq);
    nt_het_assign(L, hi - 1, rest, 2, het_w(&R) + het_h(&R));
}
