// Description of the machine a run was made on, recorded in every NAME.json: host, cpus, cpu
// model, the numatile topology summary, library versions and compiler.
#include "harness.h"

#include <hwloc.h>
#include <string.h>
#include <unistd.h>

#include "numatile.h"

static json_t *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    json_t *model = json_null();
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *s = strchr(line, ':') + 1;
            s += strspn(s, " \t");
            s[strcspn(s, "\n")] = 0;
            model = json_string(s);
            break;
        }
    }
    if (f)
        fclose(f);
    return model;
}

#if defined(__clang__)
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif

json_t *bench_machine(void)
{
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    json_t *topo;
    nt_topo_t *t;
    nt_status st = nt_topo_load(NULL, &t);
    if (st == NT_OK) {
        topo = json_pack("{s:s, s:i, s:i, s:b}", "kind", nt_topo_kind_name(nt_topo_get_kind(t)),
                         "ndomains", nt_topo_ndomains(t), "physical_nodes", nt_topo_nphysical(t),
                         "oversubscribed", nt_topo_oversubscribed(t));
        nt_topo_destroy(t);
    } else {
        topo = json_pack("{s:s}", "error", nt_last_error());
    }
    unsigned hv = hwloc_get_api_version();
    char hwloc[32];
    snprintf(hwloc, sizeof hwloc, "%u.%u.%u", hv >> 16, (hv >> 8) & 0xff, hv & 0xff);
    // "blas": the library and kernel family the tile kernels ran on (make BLAS=...).
    return json_pack("{s:s, s:i, s:o, s:o, s:{s:s, s:s, s:s, s:s}, s:s}", "hostname", host,
                     "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN), "cpu_model", cpu_model(),
                     "topology", topo, "versions", "numatile", nt_version(), "hwloc", hwloc,
                     "jansson", jansson_version_str(), "blas", nt_blas_name(), "compiler",
                     COMPILER);
}
