/// Describes the build: Gustav and Kokkos versions, enabled backends, and the
/// GPU when one is present.
#include "gustav/info.hpp"

#include <Kokkos_Core.hpp>
#include <sstream>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#ifndef GUSTAV_VERSION_STRING
#define GUSTAV_VERSION_STRING "unknown"
#endif

namespace gustav {

namespace {

std::string kokkos_version() {
  std::ostringstream s;
  s << KOKKOS_VERSION / 10000 << "." << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100;
  return s.str();
}

std::string device_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!Kokkos::is_initialized()) return "CUDA (Kokkos not initialized)";
  cudaDeviceProp prop;
  const int id = Kokkos::Cuda().cuda_device();
  if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) return "CUDA device (properties unavailable)";
  std::ostringstream s;
  s << prop.name << ", " << prop.multiProcessorCount << " SMs, " << (prop.totalGlobalMem >> 20)
    << " MiB, compute capability " << prop.major << "." << prop.minor;
  return s.str();
#else
  return "none";
#endif
}

}  // namespace

BuildInfo build_info() {
  BuildInfo info;
  info.gustav_version = GUSTAV_VERSION_STRING;
  info.kokkos_version = kokkos_version();
#if defined(KOKKOS_ENABLE_SERIAL)
  info.backends.push_back("serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  info.backends.push_back("openmp");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  info.backends.push_back("cuda");
#endif
  info.device = device_name();
  info.host_threads = Kokkos::is_initialized() ? Kokkos::DefaultHostExecutionSpace().concurrency() : 1;
  return info;
}

std::string describe(const BuildInfo& info) {
  std::ostringstream s;
  s << "Gustav " << info.gustav_version << "\n";
  s << "Kokkos " << info.kokkos_version << "\n";
  s << "backends:";
  for (const auto& b : info.backends) s << " " << b;
  s << "\n";
  s << "host threads: " << info.host_threads << "\n";
  s << "device: " << info.device << "\n";
  return s.str();
}

}  // namespace gustav
