#!/bin/sh
# The drop-in's tests (make test-mpi): on 1..6 processes, the conformance driver built with
# libnumatile_scalapack first and against ScaLAPACK alone gives the same digest for every case
# (and each run passes its own oracle); the Fortran program's outputs are the same both ways;
# the relinked Fortran program's calls run in numatile (no fallback announced); the fallback is
# taken and announced for a DTYPE other than 1 and for a failure of the engine
# (NT_MPI_FAIL_RANK), with results still ScaLAPACK's.
# usage: dropin.sh BUILD_DIR CASES "NPS" MPIRUN...   (NPS: e.g. "1 2 3 4 5 6")
set -eu
build=$1 cases=$2 nps=$3
shift 3
t=$build/tests
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "dropin.sh: $*"; exit 1; }
for np in $nps; do
    env "$@" -np "$np" "$t/conform_plain" --expect plain --cases "$cases" --seed "$np" \
        > "$out/plain" || fail "conform_plain on $np processes failed"
    NT_SCALAPACK_VERBOSE=1 env "$@" -x NT_SCALAPACK_VERBOSE -np "$np" "$t/conform_dropin" \
        --expect dropin --cases "$cases" --seed "$np" > "$out/dropin" 2> "$out/err" ||
        { cat "$out/err"; fail "conform_dropin on $np processes failed"; }
    tail -n 1 "$out/plain"
    tail -n 1 "$out/dropin"
    grep '^case' "$out/plain" > "$out/p"
    grep '^case' "$out/dropin" > "$out/d"
    [ "$(wc -l < "$out/p")" -eq "$cases" ] || fail "conform_plain printed no digest per case"
    cmp -s "$out/p" "$out/d" ||
        { diff "$out/p" "$out/d" | head; fail "digests differ on $np processes"; }
    # Cases with DTYPE = 2 go to ScaLAPACK's routine, and say so.
    if ! grep -q ' 0 DTYPE 2' "$out/dropin"; then
        grep -q 'falls back.*DTYPE' "$out/err" || fail "no DTYPE fallback notice on $np"
    fi
done
for np in $nps; do
    env "$@" -np "$np" "$t/fdrop_plain" > "$out/fp" || fail "fdrop_plain on $np processes failed"
    NT_SCALAPACK_VERBOSE=1 env "$@" -x NT_SCALAPACK_VERBOSE -np "$np" "$t/fdrop_dropin" \
        > "$out/fd" 2> "$out/err" || fail "fdrop_dropin on $np processes failed"
    # pdgemr2d_ and pdtran_ ran in numatile's engine: nothing fell back.
    ! grep 'falls back' "$out/err" || fail "fdrop_dropin fell back on $np processes"
    cmp -s "$out/fp" "$out/fd" || { diff "$out/fp" "$out/fd"; fail "fdrop differs on $np"; }
done
echo "dropin.sh: fdrop, plain and relinked, the same on $nps processes: $(tail -n 1 "$out/fd")"
# The engine fails on process 1 (injected): every process falls back together, same results.
NT_MPI_FAIL_RANK=1 NT_SCALAPACK_VERBOSE=1 env "$@" -x NT_MPI_FAIL_RANK -x NT_SCALAPACK_VERBOSE \
    -np 3 "$t/fdrop_dropin" > "$out/fd" 2> "$out/err" || fail "fdrop_dropin with a failure"
env "$@" -np 3 "$t/fdrop_plain" > "$out/fp"
cmp -s "$out/fp" "$out/fd" || fail "fdrop after a fallback differs"
[ "$(grep -c 'Cpdgemr2d falls back.*injected failure' "$out/err")" -eq 3 ] ||
    { cat "$out/err"; fail "not every process announced the fallback of pdgemr2d_"; }
echo "dropin.sh: an engine failure falls back on every process, results unchanged: PASS"
# The benchmark runs (small, untimed here) and its drop-in results equal ScaLAPACK's.
env "$@" -np 4 "$t/bench_dropin" --n 300 --reps 1 --nb 1,7,64 > "$out/bench" ||
    { cat "$out/bench"; fail "bench_dropin failed"; }
tail -n 1 "$out/bench"
# Communicators not kept (NT_MPI_CACHE_MAX=1: every other context's is made and freed per
# call), on processes that see different sequences of contexts: still in step, same digests.
NT_MPI_CACHE_MAX=1 env "$@" -x NT_MPI_CACHE_MAX -np 5 "$t/conform_dropin" --expect dropin \
    --cases "$cases" --seed 5 > "$out/dropin" || fail "conform_dropin, communicators not kept"
env "$@" -np 5 "$t/conform_plain" --expect plain --cases "$cases" --seed 5 > "$out/plain"
grep '^case' "$out/plain" > "$out/p"
grep '^case' "$out/dropin" > "$out/d"
cmp -s "$out/p" "$out/d" || fail "digests differ with communicators not kept"
tail -n 1 "$out/dropin"
