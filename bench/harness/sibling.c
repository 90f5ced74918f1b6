// Programs built beside the tool (pdgemr2d_peer, numatile-mpi): the tool never links MPI, so
// the scenarios and `redist --mpi` run these siblings instead (see harness.h).
#include "harness_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool bench_sibling(const char *name, char *path, size_t len)
{
    char dir[4096] = "";
    const char *env = getenv("NUMATILE_PEER_DIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        ssize_t k = readlink("/proc/self/exe", dir, sizeof dir - 1);
        dir[k > 0 ? k : 0] = '\0';
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
    }
    int n = snprintf(path, len, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < len && access(path, X_OK) == 0;
}
