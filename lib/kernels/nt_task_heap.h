// The ready queue of the task runtime (lib/kernels/taskgraph.c) and of its model
// (lib/advisor/model.c): one binary heap and one order, so that the model picks tasks exactly as
// the runtime does. Internal; not installed.
#ifndef NUMATILE_TASK_HEAP_H
#define NUMATILE_TASK_HEAP_H

#include <stdbool.h>
#include <stdint.h>

// A task id and its key: the runtime's priority, or the model's event time negated.
typedef struct nt_heap_item {
    double key;
    int64_t id;
} nt_heap_item_t;

// The one priority rule: the higher key first, then the lower id (the earlier submitted).
static inline bool nt_heap_before(nt_heap_item_t a, nt_heap_item_t b)
{
    return a.key != b.key ? a.key > b.key : a.id < b.id;
}

// Add x to the heap h of *n items (h has room for one more).
void nt_heap_push(nt_heap_item_t *h, int64_t *n, nt_heap_item_t x);

// Remove and return the first item of the heap h of *n > 0 items.
nt_heap_item_t nt_heap_pop(nt_heap_item_t *h, int64_t *n);

#endif
