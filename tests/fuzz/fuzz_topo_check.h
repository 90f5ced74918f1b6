// The checks fuzz_topo_synthetic and fuzz_topo_xml run on every topology that loads.
#ifndef NUMATILE_FUZZ_TOPO_CHECK_H
#define NUMATILE_FUZZ_TOPO_CHECK_H

#include "fuzz_util.h"

// Load with opts; on success check the topology (domains, cpus, distances, cpu lookup, binding
// refused), on failure check that out is untouched and a message is set.
void fuzz_topo_load_and_check(const nt_topo_opts_t *opts);

#endif
