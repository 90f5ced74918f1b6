#!/bin/sh
# Every build line the documentation shows works as written against an installed numatile:
# the lines of docs/ and README.md that start with `cc ` or `gcc ` (after a comment marker or a
# shell prompt, continuation lines joined) run in a scratch directory holding docs/examples/*.c,
# with pkg-config pointed at the staged install. Each must produce the program it names with
# -o; a line that links libnumatile.a (`-l:libnumatile.a`) must not need libnumatile.so.
# usage: check_build_lines.sh STAGE_PREFIX   (run from the source tree)
set -eu
stage=$(cd "${1:?usage: check_build_lines.sh STAGE_PREFIX}" && pwd)
src=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp docs/examples/*.c "$tmp/"
# One build line per output line: FILE:LINE<TAB>command.
find docs README.md -type f \( -name '*.md' -o -name '*.c' -o -name '*.h' -o -name '*.1' \) |
    sort | while read -r f; do
    awk -v f="$f" '
        function emit() { if (cmd != "") print f ":" start "\t" cmd; cmd = "" }
        {
            line = $0
            sub(/^[ \t]*((\/\/|#|\*)[ \t]*)?(\$[ \t]+)?/, "", line)
            if (cmd != "") {                 # continuation of the previous line
                cont = sub(/[ \t]*\\$/, "", line)
                cmd = cmd " " line
                if (!cont) emit()
                next
            }
            if (line ~ /^(cc|gcc) /) {
                start = FNR
                cont = sub(/[ \t]*\\$/, "", line)
                cmd = line
                if (!cont) emit()
            }
        }
        END { emit() }' "$f"
done > "$tmp/lines"
n=$(wc -l < "$tmp/lines")
[ "$n" -gt 0 ] || { echo "check_build_lines: no build line found in docs/"; exit 1; }
fail=0
while IFS="$(printf '\t')" read -r where cmd; do
    out=$(printf '%s\n' "$cmd" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
    rm -f "$tmp/$out"
    echo "== $where: $cmd"
    if ! (cd "$tmp" && PKG_CONFIG_PATH="$stage/lib/pkgconfig" sh -ec "$cmd") \
        > "$tmp/log" 2>&1; then
        sed 's/^/   /' "$tmp/log"
        echo "check_build_lines: FAILED: $where"
        fail=1
        continue
    fi
    if [ -z "$out" ] || [ ! -x "$tmp/$out" ]; then
        echo "check_build_lines: $where: no program '-o NAME' produced"
        fail=1
        continue
    fi
    case "$cmd" in *libnumatile.a*)
        if readelf -d "$tmp/$out" | grep -q 'NEEDED.*libnumatile'; then
            echo "check_build_lines: $where: the static build still needs libnumatile.so"
            fail=1
        fi ;;
    esac
done < "$tmp/lines"
[ "$fail" -eq 0 ] || exit 1
echo "check_build_lines: $n documented build lines work against $stage (from $src)"
