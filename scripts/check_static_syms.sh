#!/bin/sh
# A static library exports only nt_ names: every global symbol defined in its objects starts
# with nt_ (a user's program linking libnumatile.a must not meet our internal helpers under
# names of its own, such as run_at or merge_runs). OpenMP names each `critical(NAME)` section
# with a global `.gomp_critical_user_NAME`; those are allowed when NAME starts with nt_.
# usage: check_static_syms.sh LIB.a...
set -eu
[ $# -ge 1 ] || { echo "usage: check_static_syms.sh LIB.a..." >&2; exit 2; }
fail=0
for a in "$@"; do
    bad=$(nm -g --defined-only "$a" | awk 'NF == 3 { print $3 }' |
          grep -v -e '^nt_' -e '^\.gomp_critical_user_nt_' | sort -u || true)
    if [ -n "$bad" ]; then
        echo "check_static_syms: $a defines global symbols without the nt_ prefix:"
        echo "$bad" | sed 's/^/  /'
        fail=1
    else
        echo "check_static_syms: $a: $(nm -g --defined-only "$a" | awk 'NF == 3' | sort -u |
             wc -l) global symbols, all nt_"
    fi
done
exit "$fail"
