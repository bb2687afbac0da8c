#!/usr/bin/env bash
# Builds and installs the Kokkos 3.4.1 and Kokkos Kernels 3.4.1 that Gustav is
# developed against, from Debian 12's `trilinos` source package (13.2.0).
#
# Debian's binary Kokkos is built for the Serial backend only, so Gustav makes
# its own, once per flavour:
#   openmp  Kokkos with OpenMP + Serial, g++, Release.
#   cuda    Kokkos with CUDA + OpenMP through nvcc_wrapper, Ampere 8.0 code
#           (JIT-compiled to newer GPUs), CUDA lambdas on, with the small CUDA 13
#           patch in cmake/kokkos-3.4.1-cuda13.patch applied.
# Kokkos Kernels is installed header-only (every ETI option off) with all its
# TPLs off: 3.4.1's cuSPARSE wrappers do not compile against CUDA 13.
#
# Usage: cmake/provision_kokkos.sh FLAVOUR [PREFIX]
#   PREFIX defaults to $GUSTAV_DEPS_DIR/kokkos-3.4.1-FLAVOUR, and
#   GUSTAV_DEPS_DIR to ~/.cache/gustav-deps (outside the repository).
# A prefix that is already complete for the same recipe is left alone, so a
# second call returns at once. Prints the prefix on its last line.
set -euo pipefail

flavour=${1:-}
case "$flavour" in
  openmp|cuda) ;;
  *) echo "usage: $0 openmp|cuda [PREFIX]" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deps_dir=${GUSTAV_DEPS_DIR:-$HOME/.cache/gustav-deps}
prefix=${2:-$deps_dir/kokkos-3.4.1-$flavour}
jobs=${GUSTAV_BUILD_JOBS:-$(nproc)}
patch_file=$here/kokkos-3.4.1-cuda13.patch

# The recipe stamp: a change to this script or the patch rebuilds the prefix.
recipe=$(cat "${BASH_SOURCE[0]}" "$patch_file" | sha256sum | cut -c1-16)
stamp=$prefix/.gustav-provisioned
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ]; then
  echo "provision_kokkos: $flavour prefix is complete"
  echo "$prefix"
  exit 0
fi

# Runs a build step with its output in a log; on failure shows the log's tail.
logged() {
  local log=$1; shift
  if ! "$@" > "$log" 2>&1; then
    echo "provision_kokkos: failed: $*" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# --- build tools -------------------------------------------------------------
need=()
for pkg in cmake make g++ patch xz-utils ca-certificates; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "provision_kokkos: installing ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
if [ "$flavour" = cuda ] && ! command -v nvcc >/dev/null; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "provision_kokkos: the cuda flavour needs nvcc (CUDA toolkit) on PATH" >&2
    exit 1
  fi
fi

# --- source: Debian's trilinos source package ----------------------------------
# A private deb-src list derived from the system's own Debian sources, so no
# host name is written into the repository and the system's apt state is untouched.
src_root=$deps_dir/src
trilinos_dir=$src_root/trilinos-13.2.0
if [ ! -f "$trilinos_dir/.extracted" ]; then
  mkdir -p "$src_root"
  apt_dir=$(mktemp -d)
  trap 'rm -rf "$apt_dir"' EXIT
  mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial"
  # deb822 stanzas: every "Types: deb" becomes "Types: deb-src"; one-line
  # entries likewise. Only Debian's own archives are taken.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -q debian "$f" || continue
    sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$apt_dir/parts/$(basename "$f")"
  done
  touch "$apt_dir/one-line.list"
  if [ -f /etc/apt/sources.list ]; then
    sed -n -e 's/^deb \(.*debian.*\)/deb-src \1/p' /etc/apt/sources.list > "$apt_dir/one-line.list"
  fi
  if [ -z "$(ls "$apt_dir/parts")" ] && [ ! -s "$apt_dir/one-line.list" ]; then
    echo "provision_kokkos: no Debian apt source found to derive a deb-src entry from" >&2
    exit 1
  fi
  apt_opts=(-o Dir::Etc::SourceParts="$apt_dir/parts"
            -o Dir::Etc::SourceList="$apt_dir/one-line.list"
            -o Dir::State::Lists="$apt_dir/lists"
            -o APT::Sandbox::User=root)
  echo "provision_kokkos: fetching the trilinos source package"
  apt-get "${apt_opts[@]}" update -qq
  (cd "$src_root" && apt-get "${apt_opts[@]}" source --download-only -qq trilinos)
  orig=$(ls "$src_root"/trilinos_13.2.0.orig.tar.* | head -n 1)
  rm -rf "$trilinos_dir.tmp" && mkdir -p "$trilinos_dir.tmp"
  # Only Kokkos and Kokkos Kernels are needed from the 166 MB archive.
  tar -xf "$orig" -C "$trilinos_dir.tmp" --strip-components=2 \
      --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  rm -rf "$trilinos_dir" && mv "$trilinos_dir.tmp" "$trilinos_dir"
  rm -f "$src_root"/trilinos_13.2.0*
  touch "$trilinos_dir/.extracted"
fi

# A private patched copy of Kokkos for this flavour keeps the extracted source pristine.
work=$deps_dir/build-$flavour
rm -rf "$work" && mkdir -p "$work"
cp -r "$trilinos_dir/kokkos" "$work/kokkos-src"
patch -s -p1 -d "$work/kokkos-src" < "$patch_file"

# --- Kokkos ------------------------------------------------------------------------
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
        -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF)
if [ "$flavour" = openmp ]; then
  kokkos_opts=(-DCMAKE_CXX_COMPILER="${CXX:-g++}"
               -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON)
  kk_flags=()
  kk_compiler=${CXX:-g++}
else
  # Kokkos records the compiler it was built with and its launcher redirects
  # consumers' compiles to it, so build with the copy that stays installed.
  mkdir -p "$prefix/bin"
  cp "$work/kokkos-src/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"
  # 3.4.1's nvcc_wrapper would otherwise add sm_35, which nvcc 13 rejects.
  kokkos_opts=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper"
               -DCMAKE_CXX_FLAGS="-arch=sm_80"
               -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON
               -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
               -DKokkos_ARCH_AMPERE80=ON)
  kk_flags=(-DCMAKE_CXX_FLAGS="-arch=sm_80")
  kk_compiler=$prefix/bin/nvcc_wrapper
fi
echo "provision_kokkos: building Kokkos ($flavour) with $jobs jobs"
logged "$work/kokkos-configure.log" \
  cmake -S "$work/kokkos-src" -B "$work/kokkos-build" "${common[@]}" "${kokkos_opts[@]}" \
        -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
logged "$work/kokkos-build.log" cmake --build "$work/kokkos-build" -j "$jobs"
logged "$work/kokkos-install.log" cmake --install "$work/kokkos-build"

# --- Kokkos Kernels, header-only ----------------------------------------------------
eti_off=()
for t in DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT ORDINAL_INT ORDINAL_INT64_T \
         OFFSET_INT OFFSET_SIZE_T LAYOUTLEFT LAYOUTRIGHT \
         EXECSPACE_SERIAL EXECSPACE_OPENMP EXECSPACE_CUDA EXECSPACE_THREADS \
         MEMSPACE_HOSTSPACE MEMSPACE_CUDASPACE MEMSPACE_CUDAUVMSPACE MEMSPACE_HBWSPACE; do
  eti_off+=("-DKokkosKernels_INST_$t=OFF")
done
tpl_off=()
for t in BLAS LAPACK MKL CUBLAS CUSPARSE MAGMA SUPERLU CHOLMOD CBLAS LAPACKE ARMPL; do
  tpl_off+=("-DKokkosKernels_ENABLE_TPL_$t=OFF")
done
echo "provision_kokkos: building Kokkos Kernels ($flavour)"
logged "$work/kk-configure.log" \
  cmake -S "$trilinos_dir/kokkos-kernels" -B "$work/kk-build" "${common[@]}" \
        -DCMAKE_CXX_COMPILER="$kk_compiler" "${kk_flags[@]}" -DKokkos_ROOT="$prefix" \
        -DKokkosKernels_NO_DEFAULT_CUDA_TPLS=ON \
        -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
        "${eti_off[@]}" "${tpl_off[@]}"
logged "$work/kk-build.log" cmake --build "$work/kk-build" -j "$jobs"
logged "$work/kk-install.log" cmake --install "$work/kk-build"

rm -rf "$work"
echo "$recipe" > "$stamp"
echo "provision_kokkos: installed $flavour into $prefix"
echo "$prefix"
