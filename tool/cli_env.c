// Checks of the environment made once before a subcommand runs: OpenMP's binding variables and
// hwloc's description variables (see docs/machine.md).
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_env.h"

static bool listed(const char *cmd, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(cmd, *names))
            return true;
    return false;
}

static bool set(const char *var)
{
    const char *v = getenv(var);
    return v && *v;
}

int cli_env_check(const char *cmd, int argc, char **argv)
{
    static const char *const threads[] = {"topo",  "redist", "gemm",      "qr",
                                          "stencil", "bench", "calibrate", NULL};
    // The commands that always place memory and bind threads on this machine (bench: its
    // scenarios measure this machine; calibrate: it is the measurement).
    static const char *const machine[] = {"redist", "gemm", "qr", "stencil", "bench", "calibrate",
                                          NULL};
    if (!listed(cmd, threads))
        return CLI_OK;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "--list"))
            return CLI_OK;
    bool omp = set("OMP_PLACES") || set("OMP_PROC_BIND");
    bool hw = set("HWLOC_SYNTHETIC") || set("HWLOC_XMLFILE") || set("HWLOC_FSROOT");
    if (!omp && !(hw && listed(cmd, machine)))
        return CLI_OK;
    nt_topo_t *t;
    if (nt_topo_load(NULL, &t) != NT_OK)
        return CLI_OK;
    int rc = CLI_OK;
    const char *note = nt_topo_omp_note(t);
    if (note)
        cli_eprintf("numatile %s: note: %s\n", cmd, note);
    if (listed(cmd, machine) && nt_topo_get_source(t) != NT_TOPO_FROM_THIS_MACHINE) {
        cli_eprintf("numatile %s: the topology is not this machine: hwloc reads %s; %s places "
                    "memory and binds threads, which needs this machine (unset the variable, "
                    "or set HWLOC_THISSYSTEM=1 if it describes this machine; `numatile plan` "
                    "plans for a described one)\n", cmd, nt_topo_source_text(t), cmd);
        rc = CLI_USAGE;
    }
    nt_topo_destroy(t);
    return rc;
}
