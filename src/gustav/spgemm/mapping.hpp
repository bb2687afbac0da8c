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
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// A dense accumulator beats hashing on CPUs well beyond a core's cache: on
/// a 16-thread Xeon its numeric phase was 2.9x faster than hashing with a
/// 4 MiB array (R-MAT, 2^20 columns) and level with it at 6.6 MiB (7-point
/// stencil, 1.7M columns). Up to this many bytes per thread it is the
/// default.
constexpr std::size_t dense_accumulator_limit = std::size_t(8) << 20;

struct Mapping {
  bool one_thread_per_row = false;  ///< CPU: exclusive accumulators, no atomics
  std::size_t scratch_max = 0;      ///< level-0 scratch per team
  int threads_per_team = 256;
  std::int64_t concurrency = 1;     ///< threads of the execution space
};

template <class ExecSpace>
Mapping choose_mapping(const ExecSpace& space, const SpgemmOptions& options) {
  Mapping m;
  Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  m.scratch_max = static_cast<std::size_t>(probe.scratch_size_max(0)) - 64;
  m.concurrency = std::max<std::int64_t>(1, space.concurrency());
  if constexpr (is_host_space<ExecSpace>()) {
    m.one_thread_per_row = options.cpu_mapping == CpuMapping::automatic;
    // Small teams make the GPU mapping's sharing and barriers real on CPUs.
    m.threads_per_team = static_cast<int>(std::min<std::int64_t>(4, std::max(1, space.concurrency())));
  }
  return m;
}

/// Whether a pass on the thread-per-row mapping whose dense accumulator
/// takes `dense_bytes` per thread gets its one dense tier: when asked for,
/// or when automatic, the accumulator fits dense_accumulator_limit, and a
/// memory budget (if any) could hold one accumulator per thread (with fewer
/// accumulators than threads, fewer threads would work).
inline bool dense_allowed(const Mapping& m, const SpgemmOptions& options, std::size_t dense_bytes) {
  // Refused also where the dense accumulator is asked for: the pool would
  // round such a size to chunks of no bytes.
  if (dense_bytes == dense_never_allowed) return false;
  const std::size_t budget = options.memory_budget_bytes;
  // Divided rather than multiplied: a huge accumulator times the threads
  // would wrap and pass.
  const bool fits_budget = budget == 0 || dense_bytes <= budget / static_cast<std::size_t>(m.concurrency);
  return m.one_thread_per_row &&
         (options.accumulator == Accumulator::dense ||
          (options.accumulator == Accumulator::automatic && dense_bytes <= dense_accumulator_limit && fits_budget));
}

/// Tiers for one pass; `dense_bytes` is the pass's dense accumulator size
/// per thread (see dense_allowed).
inline std::vector<Tier> tiers_for(const Mapping& m, const TierRequest& request, const SpgemmOptions& options,
                                   std::size_t dense_bytes) {
  if (m.one_thread_per_row) {
    TierRequest r = request;
    r.allow_dense = dense_allowed(m, options, dense_bytes);
    return host_tiers(r, m.scratch_max);
  }
  return device_tiers(request, m.scratch_max, m.threads_per_team);
}

inline bool uses_dense(const std::vector<Tier>& tiers) {
  return std::any_of(tiers.begin(), tiers.end(), [](const Tier& t) { return t.dense; });
}

}  // namespace gustav::detail
