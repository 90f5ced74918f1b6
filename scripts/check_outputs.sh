#!/bin/bash
# Before/after check of a change that must not change behaviour: runs two numatile binaries on
# every benchmark scenario (--quick --seed 1) and on the documented examples of every
# subcommand, with --json, and compares the deterministic part of what they print and write
# (volumes, steps, counts, maps, sigma, tiles, segments, bytes). Times, bandwidths, GFLOP/s,
# residuals and what is computed from them are left out: scripts/outputs_canon.py holds that
# list, and --stability shows it is right (run one binary twice, list what changed).
#
#   usage: scripts/check_outputs.sh OLD [NEW]      NEW defaults to build/bin/numatile
#          scripts/check_outputs.sh --stability BIN  BIN twice: every field that changed, and
#                                                     whether the ignore list covers it
#   make check-outputs OLD=path/to/old/numatile
#   NT_CHECK_DIR=DIR   keep the runs (DIR/a, DIR/b) and their canonical forms (DIR/canon-a,
#                      DIR/canon-b) in DIR; default: a temp dir, removed at the end
#   NT_CHECK_ONLY=bench|cmd   run only the scenarios or only the subcommand examples
#   NT_CHECK_DIFF_LINES=N     diff lines shown per differing output (default 40, 0 = all)
# Exit 0 when the outputs agree, 1 with a unified diff of the canonical forms otherwise,
# 2 on bad usage.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CANON="$here/outputs_canon.py"

usage() {
    sed -n '/^#   usage/,/^# 2 on bad usage/s/^# \{0,1\}//p' "$0" >&2
    exit "${1:-2}"
}

# Absolute path of an executable, or a usage error naming it.
tool_path() {
    if ! [ -f "$1" ] || ! [ -x "$1" ]; then
        echo "check-outputs: '$1' is not an executable" >&2
        exit 2
    fi
    echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# --- The instance files of the documented examples (docs/guide.md, docs/labs/lab2), and a
# weighted one so sizes are exercised too. Identical bytes for both binaries.
write_inputs() {
    mkdir -p "$1"
    printf '3 6\n0 1\n0 1\n1 2\n1 2\n2 0\n2 1\n' > "$1/inst.txt"
    # 8 domains, 40 items with sizes 1..5: a fixed arithmetic pattern, not a random one.
    {
        echo "# weighted instance for check_outputs.sh"
        echo "8 40"
        i=0
        while [ $i -lt 40 ]; do
            echo "$((i * 7 % 8)) $((i * 3 % 8)) $((i % 5 + 1))"
            i=$((i + 1))
        done
    } > "$1/weighted.txt"
    # A tile map for --from file:PATH (5 x 5 tiles of 200 in a 1000 x 1000 matrix).
    printf '0 1 2 3 0\n1 2 3 0 1\n2 3 0 1 2\n3 0 1 2 3\n0 0 1 1 2\n' > "$1/map.txt"
}

# One subcommand example: NAME, then the arguments after `numatile` (--json included).
# stdout, stderr and the exit status are kept; a failing example is compared like any other.
ex() {
    local name=$1
    shift
    set +e
    ./bin/numatile "$@" > "cmd/$name.json" 2> "cmd/$name.err"
    echo $? > "cmd/$name.rc"
    set -e
}

# The examples of docs/numatile.1 (EXAMPLES and per-subcommand options), each `--help`,
# docs/guide.md and docs/labs/*.md, with --json; sizes as documented unless noted.
run_examples() {
    # topo: guide 1, lab 1, man page EXAMPLES (probe 64 MiB per domain).
    ex topo topo --json
    ex topo-d2 topo --domains 2 --json
    ex topo-d4-probe topo --domains 4 --probe 64 --json
    ex topo-synthetic topo --synthetic "pack:2 numa:2 core:4 pu:1" --json
    # match / schedule: guide 4, lab 2 step 1; the weighted instance for sizes.
    for o in volume steps lex canonical; do
        ex "match-$o" match --instance in/inst.txt --objective "$o" --json
        ex "match-weighted-$o" match --instance in/weighted.txt --objective "$o" --json
        ex "schedule-$o" schedule --instance in/inst.txt --objective "$o" --verify --json
        ex "schedule-weighted-$o" schedule --instance in/weighted.txt --objective "$o" \
            --verify --json
    done
    # plan: guide 2 and 4, lab 2 steps 2-3, man page EXAMPLES and options.
    ex plan-chunk-dump plan --m 1024 --n 1024 --from 128@chunk:4:1 --to 128@bc2d:2x2 --dump --json
    ex plan-chunk-volume-dump plan --m 1024 --n 1024 --from 128@chunk:4:1 --to 128@bc2d:2x2 \
        --match volume --dump --json
    ex plan-segments plan --m 1000 --n 1000 --from 300x200@bc2d:2x2 --to 256@bc1d:4 --dump --json
    ex plan-skewed-volume plan --m 1024 --n 1024 --from 128@skewed:2x2:1 --to 128@bc2d:2x2 \
        --match volume --dump --json
    local src tgt m
    for src in skewed:4x5:1 chunk:20:1; do
        for tgt in bc2d:4x5 bc2d:5x4 bc1d:20; do
            for m in none volume steps lex; do
                ex "plan-lab2-${src%%:*}-${tgt/:/-}-$m" plan --m 8192 --n 8192 \
                    --from "256@$src" --to "256@$tgt" --match "$m" --json
            done
        done
    done
    ex plan-synthetic-distance plan --m 2048 --n 2048 --from 256@random:3 --to 256@bc2d:2x2 \
        --synthetic "pack:2 numa:2 core:4 pu:1" --match distance --json
    ex plan-sub plan --m 1000 --n 1000 --from 100@bc2d:2x2 --to 128@bc1d:4 \
        --sub 500,400,100,200,0,300 --json
    ex plan-scalapack plan --m 1000 --n 1000 --from 100@bc2d:2x2 --to 100@bc2d:2x2:2x3 \
        --from-layout scalapack --to-layout tile --elem 4 --json
    ex plan-file-band plan --m 1000 --n 1000 --from 200@file:in/map.txt --to 200@band:2:2x2 \
        --match lex --dump --json
    ex plan-balanced-steps plan --m 3000 --n 2000 --from 250@balanced:5 --to 250@bc2d:2x3 \
        --match steps --json
    # redist: lab 1 steps 4-5, lab 2 step 4, man page EXAMPLES.
    ex redist-bc2d-bc1d-verify redist --m 4096 --n 4096 --from 256@bc2d:2x2 --to 256@bc1d:4 \
        --domains 4 --verify --json
    ex redist-same redist --m 4096 --n 4096 --from 256@bc2d:2x2 --to 256@bc2d:2x2 --domains 4 --json
    ex redist-same-nokeep redist --m 4096 --n 4096 --from 256@bc2d:2x2 --to 256@bc2d:2x2 \
        --domains 4 --no-keep --json
    ex redist-move redist --m 4096 --n 4096 --from 256@bc2d:2x2 --to 256@bc1d:4 --domains 4 \
        --mode move --json
    ex redist-chunk-volume redist --m 4096 --n 4096 --from 256@chunk:4:1 --to 256@bc2d:2x2 \
        --match volume --domains 4 --verify --json
    ex redist-chunk-lex-steps redist --m 4096 --n 4096 --from 256@chunk:4:1 --to 256@bc2d:2x2 \
        --domains 4 --match lex --schedule steps --verify --json
    ex redist-segments redist --m 1000 --n 1000 --from 300x200@bc2d:2x2 --to 256@bc1d:4 \
        --domains 4 --verify --json
    # gemm: guide 7, lab 3 step 2, docs/kernels.md (--cache).
    ex gemm-owner gemm --n 1024 --nb 128 --dist bc2d:2x2 --domains 4 --verify --json
    ex gemm-omp gemm --n 1024 --nb 128 --dist bc2d:2x2 --domains 4 --sched omp --json
    ex gemm-cache gemm --n 2048 --nb 256 --dist random:1 --domains 4 --cache --verify --json
    ex gemm-from gemm --n 1024 --nb 128 --dist bc2d:2x2 --from chunk:4:1 --match volume \
        --domains 4 --verify --json
    # qr: lab 3 steps 1 and 3, guide 7, man page EXAMPLES.
    ex qr-bc2d qr --m 1024 --n 1024 --nb 128 --dist bc2d:2x2 --domains 4 --verify --json
    ex qr-chunk qr --m 1024 --n 1024 --nb 128 --dist chunk:4:1 --domains 4 --json
    ex qr-from-chunk qr --m 1024 --n 1024 --nb 128 --dist bc2d:2x2 --from chunk:4:1 \
        --match volume --domains 4 --verify --json
    ex qr-lab3-chunk qr --m 1536 --n 1536 --nb 128 --domains 2 --dist chunk:2:1 --json
    ex qr-lab3-from qr --m 1536 --n 1536 --nb 128 --domains 2 --dist bc2d:1x2 \
        --from chunk:2:1 --match volume --json
    # stencil (its --help and man page section; no sizes are documented: small ones).
    ex stencil-block stencil --items 4096 --per-item 16 --iters 10 --domains 4 --verify --json
    ex stencil-balanced stencil --items 4096 --per-item 16 --iters 10 --from balanced:1 \
        --domains 4 --verify --json
    ex stencil-skewed-canonical stencil --items 4096 --per-item 16 --iters 10 \
        --from skewed:0.5:1 --strategy canonical --domains 4 --verify --json
    # partition: guide 8, lab 3 step 4, man page EXAMPLES and options.
    ex partition-nrrp partition --speeds 4,2,1 --n 12 --algo nrrp --dump --json
    ex partition-column partition --speeds 4,2,1 --n 12 --algo column --dump --json
    ex partition-hetero1 partition --speeds hetero-1 --n 64 --algo nrrp --json
    ex partition-rrp-rounded partition --speeds 3,2,2,1 --n 16 --algo rrp --round rounded --json
    ex partition-snrrp partition --speeds homo-5 --n 20 --algo snrrp --json
    ex partition-sfcp partition --speeds 4,2,1 --n 16 --algo sfcp --dump --json
    ex partition-exact partition --speeds 4,2,1 --n 12 --algo exact --dump --json
}

# Every scenario of `numatile bench --list`, quick, seed 1, each in its own directory.
run_scenarios() {
    local s
    ./bin/numatile bench --list | awk '{ print $1 }' > bench/list.txt
    while read -r s; do
        mkdir -p "bench/$s"
        set +e
        # No standard input: mpirun (bench mpi-redist, scalapack) would read the list.
        ./bin/numatile bench "$s" --quick --seed 1 --json --out "bench/$s" \
            > "bench/$s/stdout.json" 2> "bench/$s/stderr.txt" < /dev/null
        echo $? > "bench/$s/rc"
        set -e
    done < bench/list.txt
}

# run BIN DIR: everything above with BIN, in DIR. Both binaries run from a directory of the
# same shape under the same name (bin/numatile), so relative paths and argv[0] agree.
run_all() {
    local bin=$1 dir=$2 t0=$SECONDS
    mkdir -p "$dir/bin" "$dir/cmd" "$dir/bench"
    ln -sf "$bin" "$dir/bin/numatile"
    write_inputs "$dir/in"
    (
        cd "$dir"
        [ "$ONLY" = bench ] || run_examples
        [ "$ONLY" = cmd ] || run_scenarios
    )
    echo "check-outputs: ran $bin in $((SECONDS - t0)) s" >&2
}

[ $# -ge 1 ] || usage
ONLY=${NT_CHECK_ONLY:-}
case "$ONLY" in
    "" | bench | cmd) ;;
    *) echo "check-outputs: NT_CHECK_ONLY=bench|cmd" >&2; exit 2 ;;
esac
command -v python3 > /dev/null || { echo "check-outputs: needs python3 (make deps)" >&2; exit 2; }

case "$1" in -h | --help) usage 0 ;; esac
if [ "$1" = --stability ]; then
    [ $# -eq 2 ] || usage
    mode=stability
    A=$(tool_path "$2")
    B=$A
else
    [ $# -le 2 ] || usage
    mode=compare
    A=$(tool_path "$1")
    B=$(tool_path "${2:-$here/../build/bin/numatile}")
fi

if [ -n "${NT_CHECK_DIR:-}" ]; then
    WORK=$NT_CHECK_DIR
    rm -rf "$WORK/a" "$WORK/b" "$WORK/canon-a" "$WORK/canon-b"
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/nt-check.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi

start=$SECONDS
run_all "$A" "$WORK/a"
run_all "$B" "$WORK/b"
set +e
if [ "$mode" = compare ]; then
    python3 "$CANON" compare "$WORK/a" "$WORK/b"
else
    python3 "$CANON" changed "$WORK/a" "$WORK/b"
fi
rc=$?
if [ -n "${NT_CHECK_DIR:-}" ]; then
    python3 "$CANON" canon "$WORK/a" "$WORK/canon-a"
    python3 "$CANON" canon "$WORK/b" "$WORK/canon-b"
fi
set -e
echo "check-outputs: $((SECONDS - start)) s in all" >&2
exit $rc
