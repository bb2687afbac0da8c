#pragma once
// Runs a generic callable on the execution space a user names.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "arguments.hpp"

namespace gustav::tool {

inline std::vector<std::string> enabled_spaces() {
  std::vector<std::string> s;
#if defined(KOKKOS_ENABLE_CUDA)
  s.push_back("cuda");
  s.push_back("hybrid");  // CUDA with the host's part beside it (SpgemmOptions::co_execution)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  s.push_back("openmp");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  s.push_back("serial");
#endif
  return s;
}

/// Whether the space named runs products split between host and device.
inline bool is_hybrid_space(const std::string& name) { return name == "hybrid"; }

/// The GPU when there is one, else OpenMP, else Serial.
inline std::string default_space() { return enabled_spaces().front(); }

template <class F>
auto with_space(const std::string& name, F&& f) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (name == "cuda" || name == "hybrid") return f(Kokkos::Cuda());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if (name == "openmp") return f(Kokkos::OpenMP());
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  if (name == "serial") return f(Kokkos::Serial());
#endif
  std::string known;
  for (const auto& s : enabled_spaces()) known += (known.empty() ? "" : "|") + s;
  throw UsageError{"--space must be one of " + known + " in this build, got '" + name + "'"};
}

}  // namespace gustav::tool
