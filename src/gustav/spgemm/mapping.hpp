#pragma once
/// Which thread mapping and accumulators a multiplication uses on a given
/// execution space, and the tiers each pass gets from that.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <vector>

#include "gustav/analysis/tiers.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/options.hpp"

namespace gustav::detail {

/// A dense accumulator is cheaper than hashing while it stays in a core's
/// cache: up to this many bytes per thread.
constexpr std::size_t dense_accumulator_limit = std::size_t(1) << 20;

struct Mapping {
  bool one_thread_per_row = false;  ///< CPU: exclusive accumulators, no atomics
  std::size_t scratch_max = 0;      ///< level-0 scratch per team
  int threads_per_team = 256;
};

template <class ExecSpace>
Mapping choose_mapping(const ExecSpace& space, const SpgemmOptions& options) {
  Mapping m;
  Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  m.scratch_max = static_cast<std::size_t>(probe.scratch_size_max(0)) - 64;
  if constexpr (is_host_space<ExecSpace>()) {
    m.one_thread_per_row = options.cpu_mapping == CpuMapping::automatic;
    // Small teams make the GPU mapping's sharing and barriers real on CPUs.
    m.threads_per_team = static_cast<int>(std::min<std::int64_t>(4, std::max(1, space.concurrency())));
  }
  return m;
}

/// Tiers for one pass. `dense_bytes` is the pass's dense accumulator size per
/// thread; the dense tier is taken on CPUs when asked for, or when automatic
/// and the accumulator fits dense_accumulator_limit.
inline std::vector<Tier> tiers_for(const Mapping& m, const TierRequest& request, const SpgemmOptions& options,
                                   std::size_t dense_bytes) {
  if (m.one_thread_per_row) {
    TierRequest r = request;
    r.allow_dense = options.accumulator == Accumulator::dense ||
                    (options.accumulator == Accumulator::automatic && dense_bytes <= dense_accumulator_limit);
    return host_tiers(r, m.scratch_max);
  }
  return device_tiers(request, m.scratch_max, m.threads_per_team);
}

inline bool uses_dense(const std::vector<Tier>& tiers) {
  return std::any_of(tiers.begin(), tiers.end(), [](const Tier& t) { return t.dense; });
}

}  // namespace gustav::detail
