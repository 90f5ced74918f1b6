// Brute-force oracles of the unit tests: the permutations of a small array.
#ifndef NUMATILE_TEST_PERM_UTIL_H
#define NUMATILE_TEST_PERM_UTIL_H

#include <stdbool.h>

// Next permutation of a[0..n-1] in lexicographic order (repeated values allowed); false after
// the last. Start from the sorted array to visit every permutation once.
static inline bool next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int x = i + 1, y = n - 1; x < y; x++, y--) {
        t = a[x];
        a[x] = a[y];
        a[y] = t;
    }
    return true;
}

#endif
