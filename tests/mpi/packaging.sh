#!/bin/sh
# The installed packaging as a user meets it: numatile installed into a temporary prefix, then
# an example of each library built twice, with pkg-config (numatile, numatile-mpi,
# numatile-scalapack) and with CMake (find_package(numatile): numatile::numatile,
# numatile::mpi, numatile::scalapack), and run. The relinked Fortran program must reach the
# drop-in: an injected engine failure (NT_MPI_FAIL_RANK) makes it announce its fallback.
# usage: packaging.sh MAKE BUILD_DIR MPIRUN...
set -eu
make=$1 build=$2
shift 2
src=$(pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "packaging.sh: $*"; exit 1; }
$make install PREFIX="$prefix" > "$prefix/install.log" 2>&1 ||
    { tail -n 20 "$prefix/install.log"; fail "make install failed"; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
rpath="-Wl,-rpath,$prefix/lib"
out=$prefix/out
mkdir -p "$out"
# pkg-config
cc -std=c11 -O2 docs/examples/plan_only.c -o "$out/plan_only" \
    $(pkg-config --cflags --libs numatile) "$rpath"
mpicc -std=c11 -O2 tests/mpi/pkg/pkg_mpi.c -o "$out/pkg_mpi" \
    $(pkg-config --cflags --libs numatile-mpi) "$rpath"
mpif90 -O2 tests/mpi/fdrop.f90 -J "$out" -o "$out/fdrop" \
    $(pkg-config --libs numatile-scalapack) "$rpath"
echo "packaging.sh: pkg-config: built plan_only, pkg_mpi, fdrop"
# CMake
cmake -S tests/mpi/pkg -B "$out/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DNT_SRC="$src" \
    -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1 ||
    { cat "$out/cmake.log"; fail "cmake configure failed"; }
cmake --build "$out/cmake" > "$out/build.log" 2>&1 ||
    { cat "$out/build.log"; fail "cmake build failed"; }
echo "packaging.sh: CMake: built plan_only, pkg_mpi, fdrop"
for d in "$out" "$out/cmake"; do
    "$d/plan_only" > /dev/null || fail "$d/plan_only failed"
    env "$@" -np 3 "$d/pkg_mpi" || fail "$d/pkg_mpi failed"
    NT_MPI_FAIL_RANK=0 NT_SCALAPACK_VERBOSE=1 env "$@" -x NT_MPI_FAIL_RANK \
        -x NT_SCALAPACK_VERBOSE -np 2 "$d/fdrop" > "$out/fdrop.out" 2> "$out/fdrop.err" ||
        fail "$d/fdrop failed"
    grep -q 'PASS' "$out/fdrop.out" || fail "$d/fdrop: wrong results"
    grep -q 'Cpdgemr2d falls back' "$out/fdrop.err" ||
        fail "$d/fdrop does not reach libnumatile_scalapack"
done
echo "packaging.sh: the examples of both builds ran; fdrop reached the drop-in: PASS"
