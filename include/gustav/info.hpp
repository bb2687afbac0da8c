#pragma once
/// What this build of Gustav runs on: versions, enabled backends, devices.
#include <string>
#include <vector>

namespace gustav {

struct BuildInfo {
  std::string gustav_version;
  std::string kokkos_version;      ///< e.g. "3.4.1"
  std::vector<std::string> backends;  ///< enabled Kokkos execution spaces
  std::string device;              ///< GPU name and memory, or "none"
  int host_threads = 1;            ///< concurrency of the default host space
};

/// Describes the build and, when Kokkos is initialized, the devices.
BuildInfo build_info();

/// build_info() as human-readable lines.
std::string describe(const BuildInfo& info);

}  // namespace gustav
