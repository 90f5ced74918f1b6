// The --speeds grammar of `numatile partition` and `numatile gemm`: relative speeds
// "s1,s2,...", "topo", "measured" or "measured:FILE" (the GEMM speeds of a machine profile), or
// a platform of Lambert's thesis. One parser, so the two commands read the same words alike.
#ifndef NUMATILE_TOOL_CLI_SPEEDS_H
#define NUMATILE_TOOL_CLI_SPEEDS_H

#include "numatile.h"

enum { SPEEDS_MAX = 4096 };

// Parse --speeds arg of subcommand cmd into s (room for SPEEDS_MAX) and *m. "topo" reads the
// cpus of t's domains and "measured" calibrates t (quick); with t NULL, this machine's default
// topology. Returns CLI_OK, or the exit code after a message naming cmd and --speeds.
int speeds_parse(const char *cmd, const char *arg, const nt_topo_t *t, double *s, int *m);

#endif
