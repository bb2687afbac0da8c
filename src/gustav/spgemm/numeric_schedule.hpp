#pragma once
/// What the symbolic phase leaves for the numeric phase: the rows of A
/// binned by the nnz of their row of C, with each bin's mapping, and the
/// pool sizes. Computed once, reused by every numeric call.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "gustav/analysis/tiers.hpp"
#include "gustav/spgemm/tier_kernel.hpp"

namespace gustav::detail {

template <class Device, class Ordinal>
struct NumericSchedule {
  std::vector<Tier> tiers;
  Binning<Device, Ordinal> binning;
  PoolSizing pools;
  double max_load = 0.5;
};

}  // namespace gustav::detail
