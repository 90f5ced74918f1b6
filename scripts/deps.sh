#!/bin/sh
# Install the Debian packages numatile needs, only those missing. Idempotent: a no-op (one
# dpkg-query) when everything is present. Runs apt-get directly as root, through sudo otherwise.
set -eu
# libudev-dev: `pkg-config --static --libs numatile` names -ludev (hwloc's Requires.private).
# clang-14, its runtime (sanitizers, libFuzzer), libfuzzer-14-dev and libomp-14-dev (clang's
# OpenMP): `make fuzz`.
# openmpi-bin, libopenmpi-dev, libscalapack-openmpi-dev: the pdgemr2d peer of `bench scalapack`
# and libnumatile_mpi (mpi/, `make test-mpi`) (mpicc, mpirun, ScaLAPACK's redistribution
# routine and BLACS); libnumatile itself never links MPI.
# gfortran, cmake: the drop-in's tests (a Fortran program relinked against
# libnumatile_scalapack; the CMake package config built by an example).
# python3-jsonschema: make check-json validates every --json output against docs/json.schema.json;
# jq: the guide cuts a match instance from plan --dump with it (check-json runs the guide).
# libopenblas-openmp-dev: the BLAS=openblas build and the flat OpenBLAS peer of `bench kernels`
# (numatile links it from its own directory; installing it also makes OpenBLAS Debian's default
# libblas.so.3 alternative for other programs).
PKGS="gcc make pkg-config libnuma-dev libhwloc-dev libblis-openmp-dev libflame-dev \
libopenblas-openmp-dev libcriterion-dev libjansson-dev qemu-system-x86 busybox-static cpio gzip \
gnuplot-nox doxygen valgrind python3 libudev-dev clang-14 libclang-rt-14-dev libfuzzer-14-dev \
libomp-14-dev openmpi-bin libopenmpi-dev libscalapack-openmpi-dev gfortran cmake \
python3-jsonschema jq"
missing=""
for p in $PKGS; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
