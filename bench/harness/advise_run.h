// Measure a candidate of the advisor the way `numatile gemm`/`qr --from` run it: operands
// placed on the current map, redistributed to the candidate's map (copy mode, FREE or STEPS
// schedule), then the owner-computes kernel. Shared by `numatile advise --run` and
// `numatile bench advise`.
#ifndef NUMATILE_BENCH_ADVISE_RUN_H
#define NUMATILE_BENCH_ADVISE_RUN_H

#include "numatile/advise.h"
#include "numatile/dist.h"
#include "numatile/matrix.h"

typedef struct adv_measured {
    double redist_seconds; // every operand: allocation (first touch) + copies
    double kernel_seconds; // the kernel's task graph
    int64_t bytes_copied;  // every operand
} adv_measured;

// Run: operands of shape sh (elements doubles) on map `from`, moved to `target` (mt*nt owners,
// NULL = stay), then kernel k with threads per domain. Values from seed.
nt_status adv_run(const nt_topo_t *t, const nt_matrix_shape_t *sh, const nt_tilemap_t *from,
                  const int *target, nt_advise_kernel k, nt_exec_schedule sched, int threads,
                  uint64_t seed, adv_measured *out);

#endif
