// Plan internals: plan.c shares with the executor (execute.c) what it reads of a plan.
#ifndef NUMATILE_PLAN_INTERNAL_H
#define NUMATILE_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/matrix.h"
#include "numatile/plan.h"

// What the executor reads of a plan.
typedef struct nt_plan_view {
    int ndomains;
    int64_t nseg;
    const nt_segment_t *seg;
    const int *dst_owner;   // relabelled owner of every target tile (mt*nt of the target)
    const int64_t *pair_bytes;
    bool fast_path;
} nt_plan_view_t;

void nt_plan_get_view(const nt_plan_t *plan, nt_plan_view_t *v);

// True when the plan was built for exactly these matrices.
bool nt_plan_matches(const nt_plan_t *plan, const nt_matrix_t *src, const nt_matrix_t *dst);

#endif
