// The in-place strategy's (exec_inplace.c) test-only copy-fault hook (test_inplace.c). The
// strategy itself is a line of the executor table (nt_strategy.h).
#ifndef NUMATILE_INPLACE_INTERNAL_H
#define NUMATILE_INPLACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

// Copy-fault injection for tests: after k more segment copies, the next one fails once (its
// bytes are not copied) and the hook disarms itself. k < 0 disarms (the default).
void nt_inplace_test_copy_fault_after(int64_t k);
// True when the armed fault fired since the last nt_inplace_test_copy_fault_after().
bool nt_inplace_test_copy_fault_fired(void);

#endif
