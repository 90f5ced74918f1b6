#!/bin/sh
# The shared library exports exactly the public API: every dynamic symbol it defines is a
# function declared in the public headers, and every such function is exported (a declared
# function without a definition shows up here, not in a user's link).
# usage: check_abi.sh LIBNUMATILE.SO INCLUDE_DIR
set -eu
so=${1:?usage: check_abi.sh LIBNUMATILE.SO INCLUDE_DIR}
inc=${2:?usage: check_abi.sh LIBNUMATILE.SO INCLUDE_DIR}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$here/public_symbols.sh" "$inc" > "$tmp/declared"
# Field 3 is the name (undefined symbols are left out by --defined-only); drop @VERSION tails.
nm -D --defined-only "$so" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u \
    > "$tmp/exported"
fail=0
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
    echo "check_abi: $so exports symbols that no public header declares:"
    echo "$extra" | sed 's/^/  /'
    fail=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
    echo "check_abi: functions declared in $inc/numatile/*.h but not exported by $so" \
         "(no definition?):"
    echo "$missing" | sed 's/^/  /'
    fail=1
fi
nonprefixed=$(grep -v '^nt_' "$tmp/exported" || true)
if [ -n "$nonprefixed" ]; then
    echo "check_abi: exported symbols without the nt_ prefix:"
    echo "$nonprefixed" | sed 's/^/  /'
    fail=1
fi
[ "$fail" -eq 0 ] || exit 1
echo "check_abi: $(wc -l < "$tmp/exported") symbols exported, all nt_, all declared in $inc"
