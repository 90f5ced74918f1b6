#!/bin/sh
# Run the libFuzzer harnesses built by `make fuzz` / `make fuzz-replay`: each replays its seed
# corpus (tests/fuzz/corpus/NAME) and the inputs it found before (DIR/corpus/NAME, where new
# ones go, so the committed corpus only changes by hand), then fuzzes for SECONDS. A crash,
# leak, sanitizer report, timeout or failed check leaves its input in DIR/artifacts/ and makes
# this script fail once every harness has run.
# usage: fuzz.sh DIR SECONDS NAME...
set -u
dir=${1:?usage: fuzz.sh DIR SECONDS NAME...}
# Absolute paths: fuzz_cli works in a scratch directory of its own.
src=$(pwd)
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
secs=${2:?usage: fuzz.sh DIR SECONDS NAME...}
shift 2
mkdir -p "$dir/artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Leaks of hwloc and of clang's OpenMP runtime are theirs (see the file).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0}"
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-8}"
count=$#
failed=""
for name in "$@"; do
    bin="$dir/fuzz_$name"
    work="$dir/corpus/$name"
    mkdir -p "$work"
    set -- -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-"
    # FUZZ_SEED fixes libFuzzer's random choices (make fuzz-replay: the same inputs every run).
    [ -n "${FUZZ_SEED:-}" ] && set -- "$@" -seed="$FUZZ_SEED"
    [ -f "tests/fuzz/$name.dict" ] && set -- "$@" -dict="$src/tests/fuzz/$name.dict"
    # The tool prints on every run: keep libFuzzer's and the sanitizers' reports only.
    [ "$name" = cli ] && set -- "$@" -close_fd_mask=3
    echo "== fuzz_$name: ${secs}s"
    if ! "$bin" "$@" "$work" "$src/tests/fuzz/corpus/$name" > "$dir/$name.log" 2>&1; then
        tail -n 60 "$dir/$name.log"
        failed="$failed $name"
    else
        grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ *DONE)' \
            "$dir/$name.log" | tr '\n' ' '
        echo
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed (inputs in $dir/artifacts/, logs in $dir/NAME.log)"
    exit 1
fi
echo "fuzz: $count harnesses ran ${secs}s each without a finding"
