// The binary heap of nt_task_heap.h.
#include "nt_task_heap.h"

void nt_heap_push(nt_heap_item_t *h, int64_t *n, nt_heap_item_t x)
{
    int64_t i = (*n)++;
    while (i > 0 && nt_heap_before(x, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

nt_heap_item_t nt_heap_pop(nt_heap_item_t *h, int64_t *n)
{
    nt_heap_item_t top = h[0], last = h[--*n];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, best = i;
        nt_heap_item_t bt = last;
        if (l < *n && nt_heap_before(h[l], bt))
            bt = h[best = l];
        if (l + 1 < *n && nt_heap_before(h[l + 1], bt))
            best = l + 1;
        if (best == i)
            break;
        h[i] = h[best];
        i = best;
    }
    if (*n > 0)
        h[i] = last;
    return top;
}
