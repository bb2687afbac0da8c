#pragma once
/// Sorts the rows of A into the tiers of tiers.hpp by their need: one pass
/// counts the rows of every tier, a second scatters row ids into a
/// permutation grouped by tier. Teams aggregate their counts in scratch so
/// that the global counters see one atomic per team and tier, not per row.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "gustav/analysis/tiers.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

constexpr int max_tiers = 24;

/// Upper ends of the tiers' needs, small enough to pass to kernels by value.
struct TierBounds {
  std::int64_t max_need[max_tiers] = {};
  int count = 0;

  /// Index of the tier for `need`; `count` (one past the last) for empty rows.
  KOKKOS_INLINE_FUNCTION int tier_of(std::int64_t need) const {
    if (need <= 0) return count;
    for (int t = 0; t < count; ++t)
      if (need <= max_need[t]) return t;
    return count - 1;
  }
};

inline TierBounds tier_bounds(const std::vector<Tier>& tiers) {
  if (tiers.size() > static_cast<std::size_t>(max_tiers))
    throw internal_error("gustav: too many tiers");
  TierBounds b;
  b.count = static_cast<int>(tiers.size());
  for (std::size_t t = 0; t < tiers.size(); ++t) b.max_need[t] = tiers[t].max_need;
  return b;
}

/// Counts rows per tier (the last counter is the empty rows).
template <class NeedFn>
struct CountRowsPerTier {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  unsigned value_count;
  NeedFn need;
  TierBounds bounds;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t* counts) const {
    counts[bounds.tier_of(need(i))] += 1;
  }
  KOKKOS_INLINE_FUNCTION void init(std::int64_t* counts) const {
    for (unsigned t = 0; t < value_count; ++t) counts[t] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(std::int64_t* dst, const std::int64_t* src) const {
    for (unsigned t = 0; t < value_count; ++t) dst[t] += src[t];
  }
  KOKKOS_INLINE_FUNCTION void join(volatile std::int64_t* dst, const volatile std::int64_t* src) const {
    for (unsigned t = 0; t < value_count; ++t) dst[t] += src[t];
  }
};

/// Tier of every row, one byte each.
template <class NeedFn, class TierIds>
struct TierOfRow {
  NeedFn need;
  TierBounds bounds;
  TierIds tier;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    tier(i) = static_cast<std::uint8_t>(bounds.tier_of(need(i)));
  }
};

/// Writes the rows of one tier into its segment of `perm`, in row order: a
/// plain prefix sum over the rows. One per non-empty tier; there are few.
template <class TierIds, class Perm>
struct ScatterTier {
  TierIds tier;
  Perm perm;
  std::uint8_t which;
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& before, bool final) const {
    if (tier(i) != which) return;
    if (final) perm(offset + before) = static_cast<typename Perm::value_type>(i);
    before += 1;
  }
};

/// Rows grouped by tier: tier t's rows are perm(offsets[t]) .. perm(offsets[t+1]-1).
template <class Device, class Ordinal>
struct Binning {
  Kokkos::View<Ordinal*, Device> perm;
  std::vector<std::int64_t> offsets;  ///< size tiers + 1 (host)
  std::int64_t empty_rows = 0;
  /// No permutation: the one tier takes rows 0 .. offsets[1] - 1 in order
  /// (rows_in_order; launch_tiers).
  bool in_order = false;

  std::int64_t rows_in(int t) const { return offsets[t + 1] - offsets[t]; }
};

/// Every row of A, in order, for a single tier that takes any row (the
/// CPU's dense accumulator): nothing to build, nothing to read per row.
template <class Device, class Ordinal>
Binning<Device, Ordinal> rows_in_order(std::int64_t num_rows) {
  Binning<Device, Ordinal> b;
  b.offsets = {0, num_rows};
  b.in_order = true;
  return b;
}

/// The non-empty rows in order (one tier): each writes its id after the
/// non-empty rows before it.
template <class NeedFn, class Perm>
struct ScatterNonEmpty {
  NeedFn need;
  Perm perm;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& before, bool final) const {
    if (need(i) <= 0) return;
    if (final) perm(before) = static_cast<typename Perm::value_type>(i);
    before += 1;
  }
};

template <class Ordinal, class ExecSpace, class NeedFn>
Binning<Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, Ordinal> bin_rows(
    const ExecSpace& space, std::int64_t num_rows, const NeedFn& need, const std::vector<Tier>& tiers,
    const char* label, TempMemory& temp) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  const TierBounds bounds = tier_bounds(tiers);
  const int T = bounds.count;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  if (T == 1) {
    // One tier (the CPU's dense accumulator): one scan places the non-empty
    // rows, in a permutation sized for every row.
    Binning<Device, Ordinal> b;
    b.perm = temp.allocate<Kokkos::View<Ordinal*, Device>>(space, std::string(label) + "::perm", num_rows, false);
    std::int64_t placed = 0;
    if (num_rows > 0)
      Kokkos::parallel_scan(std::string(label) + "::scatter", Range(space, 0, num_rows),
                            ScatterNonEmpty<NeedFn, decltype(b.perm)>{need, b.perm}, placed);
    b.offsets = {0, placed};
    b.empty_rows = num_rows - placed;
    return b;
  }
  std::vector<std::int64_t> counts(T + 1, 0);
  if (num_rows > 0) {
    // The counts come back through an unmanaged host view: Kokkos 4 takes an
    // array reduction's result only as a view, no longer as a raw pointer.
    Kokkos::parallel_reduce(std::string(label) + "::count",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, num_rows),
                            CountRowsPerTier<NeedFn>{static_cast<unsigned>(T + 1), need, bounds},
                            Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                counts.data(), counts.size()));
  }
  Binning<Device, Ordinal> b;
  b.offsets.assign(T + 1, 0);
  for (int t = 0; t < T; ++t) b.offsets[t + 1] = b.offsets[t] + counts[t];
  b.empty_rows = counts[T];
  const std::int64_t placed = b.offsets[T];
  b.perm = temp.allocate<Kokkos::View<Ordinal*, Device>>(space, std::string(label) + "::perm", placed, false);
  if (placed == 0) return b;

  auto tier = temp.allocate_scratch<Kokkos::View<std::uint8_t*, Device>>(space, std::string(label) + "::tier",
                                                                         num_rows, false);
  Kokkos::parallel_for(std::string(label) + "::tier_of_row", Range(space, 0, num_rows),
                       TierOfRow<NeedFn, decltype(tier)>{need, bounds, tier});
  for (int t = 0; t < T; ++t) {
    if (counts[t] == 0) continue;
    Kokkos::parallel_scan(std::string(label) + "::scatter", Range(space, 0, num_rows),
                          ScatterTier<decltype(tier), decltype(b.perm)>{tier, b.perm, static_cast<std::uint8_t>(t),
                                                                       b.offsets[t]});
  }
  temp.release(tier);
  return b;
}

}  // namespace gustav::detail
