// The in-place executor (exec_inplace.c), which nt_plan_execute() (execute.c) hands every
// execution with opts->inplace, and its test-only copy-fault hook (test_inplace.c).
#ifndef NUMATILE_INPLACE_INTERNAL_H
#define NUMATILE_INPLACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/plan.h"

// nt_plan_execute() with opts->inplace (opts not NULL); same contract.
nt_status nt_exec_inplace(nt_plan_t *plan, nt_matrix_t *src, nt_matrix_t *dst,
                          const nt_exec_opts_t *opts, nt_exec_stats_t *stats);

// Copy-fault injection for tests: after k more segment copies, the next one fails once (its
// bytes are not copied) and the hook disarms itself. k < 0 disarms (the default).
void nt_inplace_test_copy_fault_after(int64_t k);
// True when the armed fault fired since the last nt_inplace_test_copy_fault_after().
bool nt_inplace_test_copy_fault_fired(void);

#endif
