#pragma once
/// What a plan made with SpgemmOptions::co_execution keeps: the split of A
/// and B (split_operands.hpp), the two products' plans (the device's on the
/// plan's execution space, the host's on Kokkos' default host space), the
/// host's copies of its operands' structure, and the merge's positions.
#include <Kokkos_Core.hpp>

#include "gustav/hybrid/merge_parts.hpp"
#include "gustav/hybrid/split_operands.hpp"
#include "gustav/plan.hpp"

namespace gustav::detail {

using HybridHostSpace = Kokkos::DefaultHostExecutionSpace;

template <class ExecSpace, class Offset, class Ordinal>
struct HybridParts {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using HostDevice = Kokkos::Device<HybridHostSpace, Kokkos::HostSpace>;
  SplitOperands<Device, Offset, Ordinal> split;
  MergePlan<Device, Offset, Ordinal> merge;
  /// false: no row of A is heavy, and C is the device's product itself.
  bool merged = false;
  SpgemmPlan<ExecSpace, Offset, Ordinal> device_plan;
  SpgemmPlan<HybridHostSpace, Offset, Ordinal> host_plan;
  Kokkos::View<Offset*, HostDevice> host_a_row_map, host_b_row_map;
  Kokkos::View<Ordinal*, HostDevice> host_a_entries, host_b_entries;
};

}  // namespace gustav::detail
