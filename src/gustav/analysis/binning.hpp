#pragma once
/// Sorts the rows of A into the tiers of tiers.hpp by their need: one pass
/// counts the rows of every tier, a second scatters row ids into a
/// permutation grouped by tier. Teams aggregate their counts in scratch so
/// that the global counters see one atomic per team and tier, not per row.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "gustav/analysis/tiers.hpp"
#include "gustav/common/bits.hpp"
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

/// Writes each non-empty row's id into its tier's segment of `perm`. Each
/// thread owns a few consecutive rows; for every tier present in the team, a
/// team scan gives each thread its offset and reserves the team's range with
/// one atomic, so no counter is contended by more than one add per team.
template <class Member, class NeedFn, class Perm, class Cursor>
struct ScatterRowsToTiers {
  static constexpr int rows_per_thread = 4;
  NeedFn need;
  TierBounds bounds;
  Perm perm;
  Cursor cursor;  ///< per tier: next free position (starts at the tier's offset)
  std::int64_t num_rows;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first =
        (static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank()) * rows_per_thread;
    int tier[rows_per_thread];
    unsigned present = 0;
    for (int r = 0; r < rows_per_thread; ++r) {
      tier[r] = first + r < num_rows ? bounds.tier_of(need(first + r)) : bounds.count;
      if (tier[r] < bounds.count) present |= 1u << tier[r];
    }
    team.team_reduce(Kokkos::BOr<unsigned, typename Member::execution_space::memory_space>(present));
    while (present) {
      const int t = lowest_bit32(present);
      present &= present - 1;
      std::int64_t mine = 0;
      for (int r = 0; r < rows_per_thread; ++r) mine += tier[r] == t ? 1 : 0;
      std::int64_t at = team.team_scan(mine, &cursor(t));
      for (int r = 0; r < rows_per_thread; ++r)
        if (tier[r] == t) perm(at++) = static_cast<typename Perm::value_type>(first + r);
    }
  }
};

/// Rows grouped by tier: tier t's rows are perm(offsets[t]) .. perm(offsets[t+1]-1).
template <class Device, class Ordinal>
struct Binning {
  Kokkos::View<Ordinal*, Device> perm;
  std::vector<std::int64_t> offsets;  ///< size tiers + 1 (host)
  std::int64_t empty_rows = 0;

  std::int64_t rows_in(int t) const { return offsets[t + 1] - offsets[t]; }
};

template <class Ordinal, class ExecSpace, class NeedFn>
Binning<Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, Ordinal> bin_rows(
    const ExecSpace& space, std::int64_t num_rows, const NeedFn& need, const std::vector<Tier>& tiers,
    const char* label, TempMemory& temp) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  const TierBounds bounds = tier_bounds(tiers);
  const int T = bounds.count;
  std::vector<std::int64_t> counts(T + 1, 0);
  if (num_rows > 0) {
    Kokkos::parallel_reduce(std::string(label) + "::count",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, num_rows),
                            CountRowsPerTier<NeedFn>{static_cast<unsigned>(T + 1), need, bounds},
                            counts.data());
  }
  Binning<Device, Ordinal> b;
  b.offsets.assign(T + 1, 0);
  for (int t = 0; t < T; ++t) b.offsets[t + 1] = b.offsets[t] + counts[t];
  b.empty_rows = counts[T];
  const std::int64_t placed = b.offsets[T];
  b.perm = temp.allocate<Kokkos::View<Ordinal*, Device>>(space, std::string(label) + "::perm", placed, false);
  if (placed == 0) return b;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  auto cursor = allocate_view<Kokkos::View<std::int64_t*, Device>>(space, std::string(label) + "::cursor", T, false);
  auto cursor_host = Kokkos::create_mirror_view(cursor);
  for (int t = 0; t < T; ++t) cursor_host(t) = b.offsets[t];
  Kokkos::deep_copy(space, cursor, cursor_host);
  using Scatter = ScatterRowsToTiers<Member, NeedFn, decltype(b.perm), decltype(cursor)>;
  const int team_size = std::is_same_v<typename ExecSpace::memory_space, Kokkos::HostSpace> ? 1 : 256;
  const std::int64_t rows_per_team = std::int64_t(team_size) * Scatter::rows_per_thread;
  const int league = static_cast<int>((num_rows + rows_per_team - 1) / rows_per_team);
  Kokkos::parallel_for(std::string(label) + "::scatter", Policy(space, league, team_size, 1),
                       Scatter{need, bounds, b.perm, cursor, num_rows});
  return b;
}

}  // namespace gustav::detail
