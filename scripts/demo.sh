#!/bin/sh
# The main job on this machine's topology (make demo): topology, placement, then the papers'
# experiment in small: a badly placed tiled matrix (SkewedSet, ChunkSet) is redistributed to 2D
# block-cyclic under each labelling, and QR runs owner-computes before and after.
# Uses 4 virtual domains when the machine has a single NUMA node.
set -eu
TOOL=${1:-build/bin/numatile}
OUT=${NT_DEMO_OUT:-build/demo}
N=${NT_DEMO_N:-2048}   # matrix order
NB=${NT_DEMO_NB:-128}  # tile order
mkdir -p "$OUT"

# First occurrence of a field in a one-line JSON object (numbers and booleans only).
jget() { awk -v k="\"$1\":" '{ i = index($0, k); if (i) { v = substr($0, i + length(k));
         sub(/[,}].*/, "", v); print v } }'; }

nodes=$("$TOOL" topo --json | jget physical_nodes)
if [ "${nodes:-1}" -ge 4 ]; then
    D=$nodes; DOMS="--domains $D"; GRID=2x$((D / 2))
    [ $((D % 2)) -eq 0 ] || { GRID=1x$D; }
else
    D=4; DOMS="--domains 4"; GRID=2x2
fi

echo "== 1. this machine"
"$TOOL" topo
[ "${nodes:-1}" -ge 4 ] || echo "   -> one NUMA node with fewer than 4: the demo uses $D virtual domains" \
    "(moves between them are real copies, but no page changes node)"
echo
echo "== 2. placement: 64 MiB per domain, written by a thread bound to it, every page checked"
# shellcheck disable=SC2086
"$TOOL" topo $DOMS --probe 64 | sed -n '/placement probe/,$p'

summary="$OUT/summary.txt"
: > "$summary"
for src in "skewed:$GRID:7" "chunk:$D:7"; do
    echo
    echo "== 3. $N x $N doubles in ${NB}x$NB tiles on $src, target bc2d:$GRID"
    printf '   %-10s %12s %8s %10s %14s %10s\n' labelling "volume tiles" steps "copy GB/s" "bound GB/s" verified
    for m in none volume steps lex; do
        # shellcheck disable=SC2086
        j=$("$TOOL" redist --m "$N" --n "$N" --from "${NB}x$NB@$src" --to "${NB}x$NB@bc2d:$GRID" \
            $DOMS --match "$m" --verify --json)
        printf '   %-10s %12s %8s %10.2f %14.2f %10s\n' "$m" "$(echo "$j" | jget volume_tiles)" \
            "$(echo "$j" | jget steps)" "$(echo "$j" | jget bandwidth_gbs)" \
            "$(echo "$j" | jget bound_gbs)" "$(echo "$j" | jget verify)"
    done
    echo "== 4. QR owner-computes: on $src as it is, and after each redistribution"
    printf '   %-10s %10s %10s %12s %10s %8s\n' placement "QR s" "redist s" "remote reads" "total s" residual
    # shellcheck disable=SC2086
    j=$("$TOOL" qr --m "$N" --n "$N" --nb "$NB" --dist "$src" $DOMS --verify --json)
    own=$(echo "$j" | jget seconds)
    printf '   %-10s %10.3f %10s %12s %10.3f %8s\n' owner "$own" - "$(echo "$j" | jget remote_reads)" \
        "$own" "$(echo "$j" | jget verify)"
    echo "$src owner $own" >> "$summary"
    for m in none volume steps lex; do
        # shellcheck disable=SC2086
        j=$("$TOOL" qr --m "$N" --n "$N" --nb "$NB" --dist "bc2d:$GRID" --from "$src" --match "$m" \
            $DOMS --verify --json)
        tot=$(echo "$j" | jget total_seconds)
        r=$(echo "$j" | sed -n 's/.*"redist":{[^}]*"seconds":\([^,}]*\).*/\1/p')
        printf '   %-10s %10.3f %10.4f %12s %10.3f %8s\n' "$m" "$(echo "$j" | jget seconds)" "$r" \
            "$(echo "$j" | jget remote_reads)" "$tot" "$(echo "$j" | jget verify)"
        echo "$src $m $tot" >> "$summary"
    done
done

echo
echo "== 5. summary (Herrmann 2016 Table 1 in small): total time = redistribution + QR"
awk '{ if ($2 == "owner") own[$1] = $3; else printf "   %-16s %-7s total %.3f s, %+.0f%% vs owner-computes (%.3f s)\n", $1, $2, $3, 100 * (own[$1] - $3) / own[$1], own[$1] }' "$summary"
echo "   (on virtual domains of one node the placement changes no page's node: the gains here"
echo "    come from the task graph's balance; on a multi-node machine remote reads cost more)"
if "$TOOL" bench --list | grep -q '^herrmann-table1'; then
    echo
    echo "== 6. the full comparison with the paper: numatile bench herrmann-table1 --quick"
    "$TOOL" bench herrmann-table1 --quick $DOMS --out "$OUT/herrmann-table1" | tail -n 25
    echo "   CSV, JSON and PNG: $OUT/herrmann-table1/"
fi
echo
echo "demo done; the summary is in $summary"
