#!/bin/sh
# Draw a heterogeneous partition's tile map as a PNG with gnuplot, from the tool's own output:
#   sh docs/plot_map.sh [SPEEDS] [N] [ALGO]      (defaults: 4,2,1 24 nrrp)
# Writes $OUT/partition-ALGO.png (OUT defaults to build/docs). TOOL overrides the tool's path.
set -eu
TOOL=${TOOL:-build/bin/numatile}
OUT=${OUT:-build/docs}
SPEEDS=${1:-4,2,1}
N=${2:-24}
ALGO=${3:-nrrp}
command -v gnuplot >/dev/null 2>&1 || { echo "plot_map.sh: gnuplot not found" >&2; exit 1; }
mkdir -p "$OUT"
dat="$OUT/partition-$ALGO.dat"
# The text dump: summary lines, then the map, one indented line per tile row. A row is one
# token of one character per tile (0-9, a-z, A-Z) when every domain id is below 62, else N
# whitespace-separated numbers. Only the indented lines are map rows, and the indentation is
# not a cell: fields are split on whitespace. gnuplot's matrix format wants numbers separated
# by spaces. A dump of another shape is refused rather than drawn wrong.
"$TOOL" partition --speeds "$SPEEDS" --n "$N" --algo "$ALGO" --dump > "$dat.txt"
awk -v n="$N" 'BEGIN { d = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" }
    /^[ \t]/ {
        rows++
        if (NF == 1 && length($1) == n) {          # one character per tile
            for (i = 1; i <= n; i++) {
                v = index(d, substr($1, i, 1)) - 1
                if (v < 0) {
                    print "plot_map.sh: not a domain: " $1 > "/dev/stderr"
                    bad = 1
                    exit 1
                }
                printf "%d%s", v, i < n ? " " : "\n"
            }
        } else if (NF == n) {                      # numbers
            for (i = 1; i <= n; i++)
                printf "%d%s", $i, i < n ? " " : "\n"
        } else {
            printf "plot_map.sh: map row %d has %d fields, expected %d\n", rows, NF, n \
                > "/dev/stderr"
            bad = 1
            exit 1
        }
    }
    END { if (bad) exit 1
          if (rows != n) { printf "plot_map.sh: %d map rows, expected %d\n", rows, n \
                                  > "/dev/stderr"; exit 1 } }' "$dat.txt" > "$dat"
rm -f "$dat.txt"
m=$(awk '{ for (i = 1; i <= NF; i++) if ($i + 0 > m) m = $i + 0 } END { print m + 1 }' "$dat")
# One colour per domain (a colour-blind-safe set, repeated beyond eight domains): domain d is
# drawn at d + 0.5 on a palette that is constant on [d, d + 1].
pal=$(awk -v m="$m" 'BEGIN {
    split("#4477aa #ee6677 #228833 #ccbb44 #66ccee #aa3377 #bbbbbb #000000", c, " ")
    for (i = 0; i < m; i++)
        printf "%s%d \"%s\", %d \"%s\"", i ? ", " : "", i, c[i % 8 + 1], i + 1, c[i % 8 + 1] }')
gnuplot <<GP
set terminal png size 520,520
set output "$OUT/partition-$ALGO.png"
set title "$ALGO, speeds $SPEEDS, $N x $N tiles (colour = domain)"
set size square
set xrange [-0.5:$N - 0.5]
set yrange [$N - 0.5:-0.5]
set xlabel "tile column"
set ylabel "tile row"
set cbrange [0:$m]
set cbtics ("0" 0.5)
do for [d = 1:$m - 1] { set cbtics add (sprintf("%d", d) d + 0.5) }
set cblabel "domain"
set palette defined ($pal)
plot "$dat" matrix using 1:2:(\$3 + 0.5) with image notitle
GP
echo "$OUT/partition-$ALGO.png"
