// The machine and the libraries a run was made with, as every JSON document of the tool
// reports them (the envelope, docs/json.md): host, cpus, cpu model, the topology the command
// ran on, and the versions of the libraries loaded at run time.
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

const char *bench_compiler(void)
{
    return COMPILER;
}

json_t *bench_machine(const nt_topo_t *t)
{
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    json_t *m = json_pack("{s:s, s:i, s:o}", "hostname", host, "cpus",
                          (int)sysconf(_SC_NPROCESSORS_ONLN), "cpu_model", cpu_model());
    nt_topo_t *own = NULL;
    if (!t && nt_topo_load(NULL, &own) == NT_OK)
        t = own;
    if (t) {
        json_object_update_new(
            m, json_pack("{s:s, s:i, s:i, s:b}", "topology",
                         nt_topo_kind_name(nt_topo_get_kind(t)), "domains", nt_topo_ndomains(t),
                         "physical_nodes", nt_topo_nphysical(t), "oversubscribed",
                         nt_topo_oversubscribed(t)));
    } else {
        json_object_set_new(m, "topology_error", json_string(nt_last_error()));
    }
    nt_topo_destroy(own);
    return m;
}

// hwloc's release ("2.9.0") is what the loaded library writes into the root object of every
// topology it builds; hwloc_get_api_version() only gives the API level ("2.8.0" for 2.9.x).
// A one-PU synthetic topology costs well under a millisecond.
static json_t *hwloc_release(void)
{
    hwloc_topology_t t;
    json_t *v = NULL;
    if (hwloc_topology_init(&t) != 0)
        return json_string("unknown");
    if (hwloc_topology_set_synthetic(t, "pu:1") == 0 && hwloc_topology_load(t) == 0) {
        const char *s = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");
        if (s)
            v = json_string(s);
    }
    hwloc_topology_destroy(t);
    return v ? v : json_string("unknown");
}

json_t *bench_libraries(void)
{
    unsigned hv = hwloc_get_api_version();
    char api[32];
    snprintf(api, sizeof api, "%u.%u.%u", hv >> 16, (hv >> 8) & 0xff, hv & 0xff);
    // libnuma has no version call: its version is left out rather than guessed.
    // "blas": the library and kernel family the tile kernels run on (make BLAS=...), read from
    // the library at run time (bli_info_get_version_str for BLIS).
    return json_pack("{s:s, s:o, s:s, s:s, s:s}", "numatile", nt_version(), "hwloc",
                     hwloc_release(), "hwloc_api", api, "jansson", jansson_version_str(),
                     "blas", nt_blas_name());
}
