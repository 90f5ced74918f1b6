// `numatile topo --interleave MIB [--weights W]`: a weighted interleave placed and checked
// page by page (cli_topo_interleave.c), for cmd_topo.c.
#ifndef NUMATILE_TOOL_CLI_TOPO_INTERLEAVE_H
#define NUMATILE_TOOL_CLI_TOPO_INTERLEAVE_H

#include <jansson.h>
#include <stdbool.h>

#include "numatile.h"

// What was asked and what the pages show, per NUMA node (index = OS node, < 64).
typedef struct topo_interleave {
    int mib;             // --interleave MIB, 0 = none
    const char *weights; // --weights: "bandwidth" (default), "equal" or "w0,w1,..."
    const char *from;    // where the weights came from: "bandwidth", "equal", "given"
    double asked[64];    // share of the pages asked of each node
    int64_t pages, on[64];
    nt_interleave_report_t rep;
    double worst;        // largest |measured / asked - 1| over the nodes asked for pages
} topo_interleave;

// Whether --weights W is well formed for D domains (usage error otherwise: exit 2).
int topo_interleave_check(const char *weights, int D);

// Place --interleave MIB MiB by the weights, count the pages per node, free it. CLI_OK or the
// exit code after a message.
int topo_interleave_run(const nt_topo_t *t, topo_interleave *il);

void topo_interleave_print(const topo_interleave *il);
json_t *topo_interleave_json(const topo_interleave *il);

#endif
