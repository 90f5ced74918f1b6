#!/bin/sh
# docs/ARCHITECTURE.md keeps up with the tree: every private header (a .h outside include/ and
# tests/) is listed in its table by path, and every folder holding library or tool sources is
# named on the page. A header or a room added without a line there fails here.
# usage: check_architecture.sh [ARCHITECTURE.md]
set -eu
doc=${1:-docs/ARCHITECTURE.md}
[ -r "$doc" ] || { echo "check_architecture: cannot read $doc" >&2; exit 2; }
fail=0
for h in $(git ls-files '*.h' | grep -v -e '^include/' -e '^tests/' -e '^docs/'); do
    if ! grep -q "\`$h\`" "$doc"; then
        echo "check_architecture: private header $h is not in $doc's table"
        fail=1
    fi
done
for d in $(git ls-files '*.c' | grep -v -e '^tests/' -e '^docs/' | xargs -n1 dirname | sort -u); do
    if ! grep -q "\`$d/\`" "$doc"; then
        echo "check_architecture: folder $d/ is not named in $doc"
        fail=1
    fi
done
[ "$fail" -eq 0 ] || exit 1
echo "check_architecture: every private header and source folder is in $doc"
