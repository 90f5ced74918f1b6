// libFuzzer harness: synthetic topology descriptions (nt_topo_load with an hwloc synthetic
// string). Input: one byte choosing the domain count (0..16, 0 = one per node), then the
// description. Descriptions that would build more than 4096 objects are skipped (see
// fuzz_synthetic_bounded: unbounded ones hang hwloc, issue 13), and so are strings ending in
// ".xml" (a file path: fuzz_topo_xml). Checks: fuzz_topo_check.c.
#include <stdlib.h>
#include <string.h>

#include "fuzz_topo_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    nt_topo_opts_t opts = {.domains = (int)fuzz_range(&in, 0, 16)};
    char *desc = fuzz_rest_string(&in);
    size_t len = strlen(desc);
    if (len > 4096 || !fuzz_synthetic_bounded(desc, 4096) ||
        (len >= 4 && !strcmp(desc + len - 4, ".xml"))) {
        free(desc);
        return -1;
    }
    opts.synthetic = desc;
    fuzz_topo_load_and_check(&opts);
    free(desc);
    return 0;
}
