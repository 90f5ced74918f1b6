// Checks of the environment made once before a subcommand runs: OpenMP's binding variables and
// hwloc's description variables (see docs/machine.md).
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// OMP_STACKSIZE as libgomp reads it: a size with an optional B, K, M or G (K when none);
// false when it is not one (libgomp then ignores it).
static bool parse_stacksize(const char *v, uint64_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v || !isdigit((unsigned char)*v))
        return false;
    while (isspace((unsigned char)*end))
        end++;
    int shift = 10;
    switch (toupper((unsigned char)*end)) {
    case 0: break;
    case 'B': shift = 0; break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: return false;
    }
    if (*end && end[1] && !isspace((unsigned char)end[1]))
        return false;
    *bytes = n > (UINT64_MAX >> shift) ? UINT64_MAX : (uint64_t)n << shift;
    return true;
}

// The first level of OMP_NUM_THREADS ("8" or "8,2"), or fallback when unset or not a number.
static uint64_t env_count(const char *var, uint64_t fallback)
{
    const char *v = getenv(var);
    char *end;
    unsigned long long n = v ? strtoull(v, &end, 10) : 0;
    return v && end != v && n > 0 ? (uint64_t)n : fallback;
}

// The threads' stacks must fit in the memory this process can still take: libgomp otherwise
// stops the run with "Thread creation failed" and exit 1, which reads as a failed --verify.
static int check_stacks(const char *cmd)
{
    const char *var = getenv("OMP_STACKSIZE") ? "OMP_STACKSIZE" : "GOMP_STACKSIZE";
    const char *v = getenv(var);
    uint64_t stack;
    if (!v || !parse_stacksize(v, &stack))
        return CLI_OK;
    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t threads = env_count("OMP_NUM_THREADS", ncpus > 0 ? (uint64_t)ncpus : 1);
    uint64_t limit = env_count("OMP_THREAD_LIMIT", UINT64_MAX);
    threads = threads < limit ? threads : limit;
    nt_mem_limits_t ml;
    if (nt_mem_limits(&ml) != NT_OK || ml.room == UINT64_MAX)
        return CLI_OK;
    double need = (double)stack * (double)threads, gib = (double)(1 << 30);
    if (need <= (double)ml.room)
        return CLI_OK;
    return cli_usage(cmd, "%s=%s: %llu thread stacks of %.3g GiB need %.3g GiB, more than the "
                     "%.3g GiB this process can still take (%s); lower %s or OMP_NUM_THREADS",
                     var, v, (unsigned long long)threads, (double)stack / gib, need / gib,
                     (double)ml.room / gib, nt_mem_limit_name(ml.binding), var);
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
    int rc = check_stacks(cmd);
    if (rc != CLI_OK)
        return rc;
    bool omp = set("OMP_PLACES") || set("OMP_PROC_BIND");
    bool hw = set("HWLOC_SYNTHETIC") || set("HWLOC_XMLFILE") || set("HWLOC_FSROOT");
    if (!omp && !(hw && listed(cmd, machine)))
        return CLI_OK;
    nt_topo_t *t;
    if (nt_topo_load(NULL, &t) != NT_OK)
        return CLI_OK;
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
