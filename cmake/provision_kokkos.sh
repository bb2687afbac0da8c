#!/usr/bin/env bash
# Builds and installs the Kokkos and Kokkos Kernels that Gustav is developed
# against, once per version and flavour:
#
#   GUSTAV_KOKKOS=3.4 (default)  Kokkos 3.4.1 and Kokkos Kernels 3.4.1, from
#                                Debian 12's `trilinos` source package (13.2.0).
#   GUSTAV_KOKKOS=4.6            Kokkos 4.6.01 and Kokkos Kernels 4.6.02, from
#                                the release tarballs in $GUSTAV_KOKKOS_SOURCES
#                                (default: ../shared/deps beside the repository),
#                                checked against the SHA256SUMS there.
#
# Debian's binary Kokkos is built for the Serial backend only, so Gustav makes
# its own, once per flavour:
#   openmp  Kokkos with OpenMP + Serial, g++, Release.
#   cuda    Kokkos with CUDA + OpenMP through nvcc_wrapper, Ampere 8.0 code
#           (JIT-compiled to newer GPUs), CUDA lambdas on, with the small CUDA 13
#           patch cmake/kokkos-VERSION-cuda13.patch applied.
# Kokkos Kernels is installed with every ETI option off (header-only where the
# version allows) and all its TPLs off: 3.4.1's cuSPARSE wrappers do not
# compile against CUDA 13, and Gustav calls Kokkos Kernels' own kernels only.
#
# Usage: cmake/provision_kokkos.sh FLAVOUR [PREFIX]
#   PREFIX defaults to $GUSTAV_DEPS_DIR/kokkos-VERSION-FLAVOUR (VERSION 3.4.1 or
#   4.6.01), and GUSTAV_DEPS_DIR to ~/.cache/gustav-deps (outside the repository).
# A prefix that is already complete for the same recipe is left alone, so a
# second call returns at once. Prints the prefix on its last line.
set -euo pipefail

flavour=${1:-}
case "$flavour" in
  openmp|cuda) ;;
  *) echo "usage: $0 openmp|cuda [PREFIX]" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "${GUSTAV_KOKKOS:-3.4}" in
  3.4|3.4.1) version=3.4.1 ;;
  4.6|4.6.01) version=4.6.01 ;;
  *) echo "provision_kokkos: GUSTAV_KOKKOS must be 3.4 or 4.6, not '$GUSTAV_KOKKOS'" >&2; exit 2 ;;
esac
deps_dir=${GUSTAV_DEPS_DIR:-$HOME/.cache/gustav-deps}
prefix=${2:-$deps_dir/kokkos-$version-$flavour}
jobs=${GUSTAV_BUILD_JOBS:-$(nproc)}
patch_file=$here/kokkos-$version-cuda13.patch
[ -f "$patch_file" ] || patch_file=/dev/null

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
# Tools already on PATH are used as they are (a CMake from pip, say); only
# missing ones come from Debian's packages.
need=()
for tool in cmake:cmake make:make g++:g++ patch:patch xz:xz-utils; do
  command -v "${tool%%:*}" > /dev/null || need+=("${tool#*:}")
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

# Kokkos 3.4.1 writes into its KokkosConfig.cmake a copy of the CUDA::cudart
# and CUDA::cuda_driver targets that the FindCUDAToolkit of the CMake building
# it made. With CMake 4 that copy is broken: both CUDA include folders joined
# into one path, a link to CUDA::cudart_static_deps (not copied), and no
# library for CUDA::cuda_driver. The consumer's own FindCUDAToolkit (CMake
# 3.17 on) makes them right, as Kokkos 4 does, whichever CMake built the prefix.
fix_cuda_targets() {
  local config=$1
  awk '
    /^IF\(NOT TARGET CUDA::(cudart|cuda_driver)\)$/ {
      skip = 1
      if (!done) {
        print "# CUDA::cudart and CUDA::cuda_driver from the consumer'"'"'s FindCUDAToolkit"
        print "# (replaced by cmake/provision_kokkos.sh of Gustav)."
        print "IF(NOT TARGET CUDA::cudart OR NOT TARGET CUDA::cuda_driver)"
        print "  find_dependency(CUDAToolkit)"
        print "ENDIF()"
        done = 1
      }
      next
    }
    skip && /^ENDIF\(\)$/ { skip = 0; next }
    !skip { print }
    END { if (!done) exit 1 }
  ' "$config" > "$config.new" ||
    { echo "provision_kokkos: no CUDA targets found in $config" >&2; exit 1; }
  mv "$config.new" "$config"
}

# --- sources -----------------------------------------------------------------------
src_root=$deps_dir/src

# 3.4.1: Debian's trilinos source package. A private deb-src list derived from
# the system's own Debian sources, so no host name is written into the
# repository and the system's apt state is untouched.
fetch_trilinos() {
  trilinos_dir=$src_root/trilinos-13.2.0
  if [ ! -f "$trilinos_dir/.extracted" ]; then
    if ! dpkg-query -W -f='${Status}' ca-certificates 2>/dev/null | grep -q "ok installed"; then
      as_root apt-get update -qq
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates
    fi
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
  kokkos_src=$trilinos_dir/kokkos
  kk_src=$trilinos_dir/kokkos-kernels
}

# 4.6: the release tarballs, never copied into the repository; extracted once
# into the cache after their checksums match.
fetch_tarballs() {
  local sources=${GUSTAV_KOKKOS_SOURCES:-$(dirname "$here")/../shared/deps}
  local k=kokkos-4.6.01 kk=kokkos-kernels-4.6.02
  if [ ! -f "$sources/$k.tar.xz" ] || [ ! -f "$sources/$kk.tar.xz" ] || [ ! -f "$sources/SHA256SUMS" ]; then
    echo "provision_kokkos: Kokkos 4.6 needs $k.tar.xz, $kk.tar.xz and SHA256SUMS in" >&2
    echo "  $sources" >&2
    echo "  (set GUSTAV_KOKKOS_SOURCES to the folder that holds them)" >&2
    exit 1
  fi
  if [ ! -f "$src_root/$k/.extracted" ] || [ ! -f "$src_root/$kk/.extracted" ]; then
    echo "provision_kokkos: checking and extracting the Kokkos 4.6 tarballs"
    [ "$(grep -cE " ($k|$kk)\.tar\.xz\$" "$sources/SHA256SUMS")" = 2 ] ||
      { echo "provision_kokkos: $sources/SHA256SUMS lists no checksum for $k or $kk" >&2; exit 1; }
    if ! (cd "$sources" && grep -E " ($k|$kk)\.tar\.xz\$" SHA256SUMS | sha256sum -c --strict --quiet -); then
      echo "provision_kokkos: checksum mismatch for the tarballs in $sources" >&2
      exit 1
    fi
    mkdir -p "$src_root"
    local t
    for t in "$k" "$kk"; do
      rm -rf "$src_root/$t.tmp" && mkdir -p "$src_root/$t.tmp"
      tar -xf "$sources/$t.tar.xz" -C "$src_root/$t.tmp" --strip-components=1
      rm -rf "${src_root:?}/$t" && mv "$src_root/$t.tmp" "$src_root/$t"
      touch "$src_root/$t/.extracted"
    done
  fi
  kokkos_src=$src_root/$k
  kk_src=$src_root/$kk
}

if [ "$version" = 3.4.1 ]; then fetch_trilinos; else fetch_tarballs; fi

# A private patched copy of Kokkos for this prefix keeps the extracted source
# pristine; the work folder is named after the prefix, so provisioning two
# prefixes at once does not mix their builds.
work=$deps_dir/build-$(basename "$prefix")
rm -rf "$work" && mkdir -p "$work"
cp -r "$kokkos_src" "$work/kokkos-src"
if [ "$flavour" = cuda ] && [ "$patch_file" != /dev/null ]; then
  patch -s -p1 -d "$work/kokkos-src" < "$patch_file"
fi

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
  # nvcc_wrapper would otherwise add its default architecture (3.4.1: sm_35,
  # which nvcc 13 rejects).
  kokkos_opts=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper"
               -DCMAKE_CXX_FLAGS="-arch=sm_80"
               -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON
               -DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_AMPERE80=ON)
  # 4.x always compiles CUDA lambdas; 3.4.1 needs the option.
  [ "$version" = 3.4.1 ] && kokkos_opts+=(-DKokkos_ENABLE_CUDA_LAMBDA=ON)
  kk_flags=(-DCMAKE_CXX_FLAGS="-arch=sm_80")
  kk_compiler=$prefix/bin/nvcc_wrapper
fi
echo "provision_kokkos: building Kokkos $version ($flavour) with $jobs jobs"
logged "$work/kokkos-configure.log" \
  cmake -S "$work/kokkos-src" -B "$work/kokkos-build" "${common[@]}" "${kokkos_opts[@]}" \
        -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
logged "$work/kokkos-build.log" cmake --build "$work/kokkos-build" -j "$jobs"
logged "$work/kokkos-install.log" cmake --install "$work/kokkos-build"
if [ "$flavour" = cuda ] && [ "$version" = 3.4.1 ]; then
  fix_cuda_targets "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake"
fi

# --- Kokkos Kernels, header-only ----------------------------------------------------
# Every explicit instantiation off: Gustav's benchmarks instantiate the few
# SpGEMM kernels they call, so the library compiles only Kokkos Kernels'
# non-template sources (a few files in 3.4.1; 4.6 adds its handles' and
# utilities' sources).
eti_off=()
for t in DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT ORDINAL_INT ORDINAL_INT64_T \
         OFFSET_INT OFFSET_SIZE_T LAYOUTLEFT LAYOUTRIGHT \
         EXECSPACE_SERIAL EXECSPACE_OPENMP EXECSPACE_CUDA EXECSPACE_THREADS \
         MEMSPACE_HOSTSPACE MEMSPACE_CUDASPACE MEMSPACE_CUDAUVMSPACE; do
  eti_off+=("-DKokkosKernels_INST_$t=OFF")
done
tpls=(BLAS LAPACK MKL CUBLAS CUSPARSE MAGMA SUPERLU CHOLMOD CBLAS LAPACKE ARMPL)
if [ "$version" = 3.4.1 ]; then
  eti_off+=(-DKokkosKernels_INST_MEMSPACE_HBWSPACE=OFF)
else
  eti_off+=(-DKokkosKernels_INST_HALF=OFF -DKokkosKernels_INST_BHALF=OFF)
  tpls+=(CUSOLVER METIS)
fi
tpl_off=()
for t in "${tpls[@]}"; do
  tpl_off+=("-DKokkosKernels_ENABLE_TPL_$t=OFF")
done
echo "provision_kokkos: building Kokkos Kernels ($flavour)"
logged "$work/kk-configure.log" \
  cmake -S "$kk_src" -B "$work/kk-build" "${common[@]}" \
        -DCMAKE_CXX_COMPILER="$kk_compiler" "${kk_flags[@]}" -DKokkos_ROOT="$prefix" \
        -DKokkosKernels_NO_DEFAULT_CUDA_TPLS=ON \
        -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
        -DKokkosKernels_ENABLE_PERFTESTS=OFF -DKokkosKernels_ENABLE_BENCHMARK=OFF \
        "${eti_off[@]}" "${tpl_off[@]}"
logged "$work/kk-build.log" cmake --build "$work/kk-build" -j "$jobs"
logged "$work/kk-install.log" cmake --install "$work/kk-build"

rm -rf "$work"
echo "$recipe" > "$stamp"
echo "provision_kokkos: installed Kokkos $version ($flavour) into $prefix"
echo "$prefix"
