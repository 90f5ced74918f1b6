#!/bin/sh
# The installed headers as a user meets them: each compiles on its own (and twice over, for its
# include guard) with the warnings the project uses, and the umbrella header is reachable as
# both <numatile.h> and <numatile/numatile.h>, in either order.
# usage: check_headers.sh STAGE_PREFIX [CC]
set -eu
stage=$(cd "${1:?usage: check_headers.sh STAGE_PREFIX [CC]}" && pwd)
cc=${2:-cc}
flags="-std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Werror"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for h in "$stage"/include/numatile.h "$stage"/include/numatile/*.h \
         "$stage"/include/numatile_mpi.h; do
    [ -e "$h" ] || continue
    name=${h#"$stage"/include/}
    printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$name" "$name" \
        > "$tmp/one.c"
    # The MPI library's header (and its old name) needs <mpi.h>: MPI's compiler wrapper.
    hcc=$cc
    case $name in
    numatile/mpi.h | numatile_mpi.h)
        hcc=${MPICC:-mpicc}
        command -v "$hcc" > /dev/null 2>&1 || { echo "check_headers: <$name> skipped (no $hcc)"; continue; } ;;
    esac
    if ! $hcc $flags -I"$stage/include" -fsyntax-only "$tmp/one.c"; then
        echo "check_headers: <$name> does not compile on its own"
        exit 1
    fi
    n=$((n + 1))
done
for order in "numatile/numatile.h numatile.h" "numatile.h numatile/numatile.h"; do
    set -- $order
    printf '#include <%s>\n#include <%s>\n#include <stdio.h>\n' "$1" "$2" > "$tmp/both.c"
    printf 'int main(void) { puts(nt_version()); return 0; }\n' >> "$tmp/both.c"
    PKG_CONFIG_PATH="$stage/lib/pkgconfig" $cc $flags "$tmp/both.c" -o "$tmp/both" \
        $(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --cflags --libs numatile)
    LD_LIBRARY_PATH="$stage/lib" "$tmp/both" > /dev/null
done
echo "check_headers: $n installed headers compile alone; <numatile/numatile.h> = <numatile.h>"
