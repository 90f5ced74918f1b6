#!/bin/sh
# No function over 80 lines in the non-test C sources: lists every longer one (FILE:LINE name,
# length) and fails if there is any. A function is what the code style makes of it: a
# signature starting at column 0, its opening `{` alone at column 0, its closing `}` at column
# 0; the length counts the lines from the signature's first line to that `}` (comments and
# blank lines inside included). Declarations and initialisers at file scope are not functions.
# usage: check_style.sh [MAX [DIR|FILE ...]]
#        (default: 80 over core numa partition lib mpi tool bench docs/examples; tests/ aside)
set -eu
max=${1:-80}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- core numa partition lib mpi tool bench docs/examples
files=$(find "$@" -name '*.c' -type f | sort)
[ -n "$files" ] || { echo "check_style: no C file under $*"; exit 2; }
# shellcheck disable=SC2086 # the paths hold no blanks
awk -v max="$max" '
    FNR == 1 { in_fn = 0; sig = 0 }
    # A signature: column 0, a name, not a declaration ending in ";" nor an initialiser.
    !in_fn && /^[A-Za-z_]/ && !/;[ \t]*(\/\/.*)?$/ && !/=[ \t]*\{?[ \t]*$/ {
        if (!sig) { sig = FNR; name = $0; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name) }
    }
    !in_fn && /^[^A-Za-z_{ \t]/ { sig = 0 }
    !in_fn && /^[ \t]*$/ { sig = 0 }
    !in_fn && /^\{/ && sig { in_fn = 1; start = sig; next }
    in_fn && /^\}/ {
        n = FNR - start + 1
        if (n > max) { printf "%s:%d %s: %d lines\n", FILENAME, start, name, n; bad++ }
        in_fn = 0; sig = 0
    }
    END {
        if (bad) { printf "check_style: %d function(s) over %d lines\n", bad, max; exit 1 }
    }' $files
