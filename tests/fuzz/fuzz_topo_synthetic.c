// libFuzzer harness: synthetic topology descriptions (nt_topo_load with an hwloc synthetic
// string). Input: one byte choosing the domain count (0..16, 0 = one per node), then the
// description. Descriptions that would build more than 4096 objects are skipped (see
// fuzz_synthetic_bounded: unbounded ones hang hwloc, issue 13), but for plain ones (levels
// only) past NT_TOPO_MAX_PUS: numatile must refuse those before hwloc sees them, so a form its
// sizer misreads shows up as a timeout (bare and hexadecimal arities did). Strings ending in
// ".xml" are skipped (a file path: fuzz_topo_xml). Checks: fuzz_topo_check.c.
#include <stdlib.h>
#include <string.h>

#include "fuzz_topo_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// The PUs of a description of plain levels ("type:arity" or "arity" words, arities read with
// base 0 as hwloc reads them), saturating; 0 when it is not plain.
static uint64_t plain_pus(const char *desc)
{
    uint64_t pus = 1;
    for (const char *s = desc; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        const char *w = s;
        while (*s && *s != ' ')
            s++;
        const char *colon = memchr(w, ':', (size_t)(s - w));
        const char *digits = colon ? colon + 1 : w;
        if (digits >= s || *digits < '0' || *digits > '9')
            return 0;
        char *end;
        uint64_t a = strtoull(digits, &end, 0);
        if (end != s)
            return 0;
        pus = a && pus > UINT64_MAX / a ? UINT64_MAX : pus * a;
    }
    return pus;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    nt_topo_opts_t opts = {.domains = (int)fuzz_range(&in, 0, 16)};
    char *desc = fuzz_rest_string(&in);
    size_t len = strlen(desc);
    opts.synthetic = desc;
    if (len <= 4096 && plain_pus(desc) > NT_TOPO_MAX_PUS) {
        nt_topo_t *t = NULL;
        nt_status st = nt_topo_load(&opts, &t);
        FUZZ_CHECK(st == NT_ERANGE || st == NT_EINVAL, "\"%s\": status %d, not refused", desc,
                   st);
        nt_topo_destroy(t);
        free(desc);
        return 0;
    }
    if (len > 4096 || !fuzz_synthetic_bounded(desc, 4096) ||
        (len >= 4 && !strcmp(desc + len - 4, ".xml"))) {
        free(desc);
        return -1;
    }
    fuzz_topo_load_and_check(&opts);
    free(desc);
    return 0;
}
