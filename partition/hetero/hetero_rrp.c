// RRP (Nagamochi-Abe 2007; Lambert Algorithm 1.3): recursive guillotine cuts. The smallest
// prefix of the sorted speeds reaching a third of the area goes to one side; if it takes
// everything, the largest speed is cut off alone.
#include "hetero_int.h"

void nt_het_rrp(het_list *L, int lo, int hi, het_rect R)
{
    if (hi - lo == 1) {
        nt_het_assign(L, lo, &R, 1, 0);
        return;
    }
    double s = het_sum(L, lo, hi);
    int e = nt_het_reach(L, lo, hi, s / 3);
    if (e == hi)
        e = hi - 1;
    het_rect R1, R2;
    nt_het_guillotine(&R, het_sum(L, lo, e) / s, &R1, &R2);
    nt_het_rrp(L, lo, e, R1);
    nt_het_rrp(L, e, hi, R2);
}
