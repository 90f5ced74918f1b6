// `numatile topo --map` and `--draw` (cli_topo_draw.c).
#ifndef NUMATILE_TOOL_CLI_TOPO_DRAW_H
#define NUMATILE_TOOL_CLI_TOPO_DRAW_H

#include <stdint.h>

#include "numatile.h"

// A tile map as the other commands take it: --map MBxNB@DIST over an M x N matrix of
// elem-byte elements (dist NULL: no map).
typedef struct topo_map {
    const char *dist;
    int64_t mb, nb, m, n, elem;
} topo_map;

// Tiles and bytes the map puts on each of the topology's domains (tiles[], bytes[] of
// nt_topo_ndomains() entries). CLI_OK, or the exit code after a message naming --map.
int topo_map_holds(const nt_topo_t *t, const topo_map *m, int64_t *tiles, int64_t *bytes);

// Whether --draw FILE.png can be written (its directory exists and is writable), checked before
// any work: CLI_OK, or CLI_USAGE after a message naming --draw. topo_draw checks it too.
int topo_draw_check(const char *png);

// Write FILE.dat (one line per domain: the data drawn) and FILE.gp (the gnuplot script) beside
// png (which ends in .png) and run gnuplot on them; tiles/bytes NULL without a map.
int topo_draw(const nt_topo_t *t, const char *png, const topo_map *m, const int64_t *tiles,
              const int64_t *bytes);

#endif
