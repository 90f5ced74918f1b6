// Exact optima for at most 3 positive speeds (Lambert §1.2.4).
// m = 2 (DeFlumere et al. 2012): square corner (cost 2 + 2 sqrt(s1)) when s2 >= 3 s1, else
// two strips (cost 3). m = 3 (DeFlumere and Lastovetsky 2014): the optimum is a Square Corner
// (two squares in opposite corners, 2 + 2 sqrt(s1) + 2 sqrt(s2), needs sqrt(s1) + sqrt(s2) <= 1),
// a Square Rectangle (a full-height strip and a square beside it, 3 + 2 sqrt(square)) or a
// Block Rectangle (the two smaller stacked in one column, 3 + s1 + s2); the cheapest feasible
// one is built.
#include <math.h>

#include "hetero_int.h"

static void two(het_list *L)
{
    double s1 = L->s[0];
    het_rect a, rest[2];
    if (L->s[1] >= 3 * s1) {
        nt_het_square(&(het_rect){0, 0, 1, 1}, s1, &a, rest);
        nt_het_assign(L, 0, &a, 1, 0);
        nt_het_assign(L, 1, rest, 2, 1);
    } else {
        a = (het_rect){0, 0, s1, 1};
        rest[0] = (het_rect){s1, 0, 1, 1};
        nt_het_assign(L, 0, &a, 1, 0);
        nt_het_assign(L, 1, rest, 1, 0);
    }
}

// Square Rectangle: speed q as a square at the origin, speed t as a strip on the right.
static void square_rectangle(het_list *L, int q, int t, int big)
{
    double a = sqrt(L->s[q]), x = 1 - L->s[t];
    het_rect sq = {0, 0, a, a}, strip = {x, 0, 1, 1};
    het_rect rest[2] = {{a, 0, x, a}, {0, a, x, 1}};
    nt_het_assign(L, q, &sq, 1, 0);
    nt_het_assign(L, t, &strip, 1, 0);
    nt_het_assign(L, big, rest, 2, 1);
}

static void three(het_list *L)
{
    double s1 = L->s[0], s2 = L->s[1], a = sqrt(s1), b = sqrt(s2);
    double best = 3 + s1 + s2; // Block Rectangle, always feasible
    int shape = 0;
    if (a + b <= 1 && 2 + 2 * a + 2 * b < best)
        best = 2 + 2 * a + 2 * b, shape = 1;
    if (a <= 1 - s2 && 3 + 2 * a < best)
        best = 3 + 2 * a, shape = 2;
    if (b <= 1 - s1 && 3 + 2 * b < best)
        shape = 3;
    if (shape == 0) {
        double w = s1 + s2, y = s1 / w;
        het_rect r1 = {0, 0, w, y}, r2 = {0, y, w, 1}, r3 = {w, 0, 1, 1};
        nt_het_assign(L, 0, &r1, 1, 0);
        nt_het_assign(L, 1, &r2, 1, 0);
        nt_het_assign(L, 2, &r3, 1, 0);
    } else if (shape == 1) {
        het_rect q1 = {0, 0, a, a}, q2 = {1 - b, 1 - b, 1, 1};
        het_rect rest[3] = {{a, 0, 1, a}, {0, a, 1, 1 - b}, {0, 1 - b, 1 - b, 1}};
        nt_het_assign(L, 0, &q1, 1, 0);
        nt_het_assign(L, 1, &q2, 1, 0);
        nt_het_assign(L, 2, rest, 3, 1);
    } else if (shape == 2) {
        square_rectangle(L, 0, 1, 2);
    } else {
        square_rectangle(L, 1, 0, 2);
    }
}

nt_status nt_het_exact(het_list *L)
{
    if (L->m > 3)
        return nt_fail(NT_ENOTSUP, "hetero: exact partitions are known for at most 3 positive "
                                   "speeds, got %d", L->m);
    if (L->m == 1)
        nt_het_assign(L, 0, &(het_rect){0, 0, 1, 1}, 1, 0);
    else if (L->m == 2)
        two(L);
    else
        three(L);
    return NT_OK;
}
