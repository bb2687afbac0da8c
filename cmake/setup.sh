#!/usr/bin/env bash
# One-command setup on a fresh Debian 12 machine, then one job:
#
#   cmake/setup.sh run     multiply the matrix shipped with Gustav and print
#                          rows, nnz, products, nnz(C), time and GFLOP/s
#   cmake/setup.sh test    run the whole test suite (ctest)
#   cmake/setup.sh build   only set up and build
#
# Setting up means: Debian packages (compilers, CMake, GoogleTest, zlib, OpenMPI),
# Gustav's own Kokkos and Kokkos Kernels 3.4.1 with OpenMP
# (cmake/provision_kokkos.sh, cached under ~/.cache/gustav-deps), and a
# Release build of Gustav in build/. Every step is skipped when already done.
#
# Environment: GUSTAV_FLAVOUR=cuda builds the CUDA flavour in build-cuda/
# instead (CUDA toolkit required); GUSTAV_KOKKOS=4.6 builds against Kokkos
# 4.6.01 and Kokkos Kernels 4.6.02 instead (from the release tarballs in
# ../shared/deps or $GUSTAV_KOKKOS_SOURCES), in build-k46/ (build-cuda-k46/);
# GUSTAV_BUILD_DIR overrides the build
# folder; GUSTAV_BUILD_JOBS the parallelism; GUSTAV_BUILD_TARGETS limits the
# build to some targets; GUSTAV_CMAKE_ARGS adds options to the first configure
# (e.g. -DGustav_TEST_EVERY_CONFIG=OFF).
set -euo pipefail

job=${1:-run}
case "$job" in
  run|test|build) ;;
  *) echo "usage: $0 run|test|build" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
flavour=${GUSTAV_FLAVOUR:-openmp}
jobs=${GUSTAV_BUILD_JOBS:-$(nproc)}
case "${GUSTAV_KOKKOS:-3.4}" in
  3.4|3.4.1) suffix= ;;
  4.6|4.6.01) suffix=-k46 ;;
  *) echo "setup: GUSTAV_KOKKOS must be 3.4 or 4.6, not '$GUSTAV_KOKKOS'" >&2; exit 2 ;;
esac
if [ "$flavour" = cuda ]; then
  build=${GUSTAV_BUILD_DIR:-$root/build-cuda$suffix}
else
  build=${GUSTAV_BUILD_DIR:-$root/build$suffix}
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The build tools (and ca-certificates for the source download) are
# provision_kokkos.sh's to install where missing; here only the libraries
# Gustav's own build needs.
need=()
# OpenMPI for the distributed layer (Gustav::distributed, gustav-mpi and
# their tests on 1 to 4 ranks).
for pkg in libgtest-dev zlib1g-dev libopenmpi-dev openmpi-bin; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi

# Kokkos is provisioned once per machine (minutes); its progress lines are
# shown, its full output stays in the build folder, and its last line names
# the prefix.
mkdir -p "$build"
"$root/cmake/provision_kokkos.sh" "$flavour" | tee "$build/provision.log" |
  { grep --line-buffered '^provision_kokkos: ' | grep -v 'prefix is complete$' || true; }
kokkos=$(tail -n 1 "$build/provision.log")

config=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" -DKokkosKernels_ROOT="$kokkos")
if [ "$flavour" = cuda ]; then
  config+=(-DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper")
fi
if [ -n "${GUSTAV_CMAKE_ARGS:-}" ]; then
  # shellcheck disable=SC2206
  config+=(${GUSTAV_CMAKE_ARGS})
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "setup: configuring Gustav in $build"
  # Kokkos' package config warns about CMake deprecations; the full output
  # stays in the build folder.
  cmake "${config[@]}" > "$build/configure.log" 2>&1 || { tail -n 60 "$build/configure.log"; rm -f "$build/CMakeCache.txt"; exit 1; }
fi
echo "setup: building Gustav ($flavour, $jobs jobs)"
targets=()
if [ -n "${GUSTAV_BUILD_TARGETS:-}" ]; then
  # shellcheck disable=SC2206
  targets=(--target ${GUSTAV_BUILD_TARGETS})
fi
cmake --build "$build" -j "$jobs" "${targets[@]}" > "$build/build.log" 2>&1 || { tail -n 60 "$build/build.log"; exit 1; }

# Tests and runs default to every core without binding threads to cores.
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
case "$job" in
  run)
    "$build/src/tool/gustav" multiply "$root/src/tool/data/bcsstk13.mtx"
    ;;
  test)
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
  build) ;;
esac
