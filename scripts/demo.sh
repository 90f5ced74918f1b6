#!/bin/sh
# The main job on this machine's topology (make demo). Uses virtual domains when the machine
# has a single NUMA node, so every step has several domains to work with.
set -eu
TOOL=${1:-build/bin/numatile}
nodes=$("$TOOL" topo --json | sed -n 's/.*"physical_nodes":\([0-9]*\).*/\1/p')
if [ "${nodes:-1}" -gt 1 ]; then DOMS=""; else DOMS="--domains 4"; fi

echo "== 1. this machine"
"$TOOL" topo
if [ -n "$DOMS" ]; then
    echo
    echo "== 2. one NUMA node here: the demo splits it into 4 virtual domains ($DOMS)"
    echo "   (moves between virtual domains are real copies, but no page changes node)"
    "$TOOL" topo $DOMS
fi
echo
echo "== 3. placement: 64 MiB per domain, written by a thread bound to it, every page checked"
# shellcheck disable=SC2086
"$TOOL" topo $DOMS --probe 64 | sed -n '/placement probe/,$p'
