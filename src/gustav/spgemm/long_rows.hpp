#pragma once
/// Long rows on GPUs: rows whose accumulator does not fit team scratch, or
/// whose product count would keep one team busy long after the others are
/// done (the hubs of power-law matrices). Such a row is split into units of
/// `team_size` entries of A, one team per unit, so all SMs share it; the
/// units of one row meet in an accumulator in global memory that the row
/// takes from the pool. A kernel with one team per row prepares the
/// accumulator (numeric phase) and another reads it out.
///
/// Each pass says how many bytes a row's accumulator takes
/// (long_row_bytes); rows are processed in batches whose accumulators fit
/// the pool together, and a pass leaves the memory it used clean for the
/// next batch.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// Byte offset of every row's accumulator (offsets(r), r in [0, count]).
template <class Pass, class Rows, class Offsets>
struct LongRowBytes {
  Pass pass;
  Rows rows;
  Offsets offsets;
  std::int64_t count;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum, bool final) const {
    if (final) offsets(r) = sum;
    if (r < count) sum += static_cast<std::int64_t>(pass.long_row_bytes(static_cast<std::int64_t>(rows(r))));
  }
};

/// Units of one batch: row r of the batch owns units [units(r), units(r+1)).
template <class Rows, class ARowMap, class Units>
struct CountUnits {
  Rows rows;
  ARowMap a_row_map;
  Units units;
  std::int64_t first;  ///< batch start within rows
  std::int64_t n;      ///< rows in the batch
  int per_unit;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum, bool final) const {
    if (final) units(r) = sum;
    if (r == n) return;
    const std::int64_t row = static_cast<std::int64_t>(rows(first + r));
    const std::int64_t len = static_cast<std::int64_t>(a_row_map(row + 1) - a_row_map(row));
    sum += (len + per_unit - 1) / per_unit;
  }
};

/// Where one batch's accumulators are: row r of the batch at
/// base + offsets(first + r) - offsets(first).
template <class Offsets>
struct BatchMemory {
  char* base = nullptr;
  Offsets offsets;
  std::int64_t first = 0;
  KOKKOS_INLINE_FUNCTION char* of(std::int64_t r) const {
    return base + (offsets(first + r) - offsets(first));
  }
};

/// One team per unit: every product of the unit's entries of A goes to the
/// pass's long_product() with the row's accumulator.
template <class Pass, class Rows, class Units, class Offsets>
struct LongRowUnits {
  using execution_space = typename Pass::execution_space;
  using Member = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Pass pass;
  Rows rows;
  Units units;
  BatchMemory<Offsets> memory;
  std::int64_t n;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t unit = team.league_rank();
    // The row owning this unit.
    const std::int64_t r = last_at_most(units, unit, 0, n - 1);
    const std::int64_t row = static_cast<std::int64_t>(rows(memory.first + r));
    char* accumulator = memory.of(r);
    const std::int64_t begin = static_cast<std::int64_t>(pass.a_row_map(row)) + (unit - units(r)) * team.team_size();
    const std::int64_t row_end = static_cast<std::int64_t>(pass.a_row_map(row + 1));
    const std::int64_t end = begin + team.team_size() < row_end ? begin + team.team_size() : row_end;
    const auto b_row_map = pass.product_row_map();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t j) {
      const auto k = pass.a_entries(j);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_row_map(k), b_row_map(k + 1)),
                           [&](const auto p) { pass.long_product(accumulator, row, j, p); });
    });
  }
};

/// One team per row of the batch, for long_prepare (Finish = false) or
/// long_finish.
template <class Pass, class Rows, class Offsets, bool Finish>
struct LongRowEnds {
  using execution_space = typename Pass::execution_space;
  using Member = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Pass pass;
  Rows rows;
  BatchMemory<Offsets> memory;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t row = static_cast<std::int64_t>(rows(memory.first + r));
    if constexpr (Finish) {
      pass.long_finish(team, memory.of(r), row);
    } else {
      pass.long_prepare(team, memory.of(r), row);
    }
  }
};

/// Runs the long-row path for `count` rows; returns the pool bytes used.
template <class ExecSpace, class Pass, class Rows>
std::size_t launch_long_rows(const ExecSpace& space, const Pass& pass, const Rows& rows, std::int64_t count,
                             std::size_t max_pool_bytes, int vector_length, const std::string& label,
                             TempMemory& temp) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const int v = std::max(1, vector_length);
  // A team takes as many entries of A as it has workers, one each.
  const int workers = is_host_space<ExecSpace>() ? 1 : std::max(1, 256 / v);
  const int ends_team = is_host_space<ExecSpace>() ? 1 : 256;

  auto offsets = temp.allocate<Kokkos::View<std::int64_t*, Device>>(space, label + "::offsets", count + 1, false);
  Kokkos::parallel_scan(label + "::row_bytes", light_launch(Range(space, 0, count + 1)),
                        LongRowBytes<Pass, Rows, decltype(offsets)>{pass, rows, offsets, count});
  auto host_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  auto units = temp.allocate<Kokkos::View<std::int64_t*, Device>>(space, label + "::units", count + 1, false);
  // Within a memory budget the pool takes what is left of it.
  max_pool_bytes = std::min(max_pool_bytes, temp.room());
  // Batches: as many consecutive rows as fit the pool (at least one).
  std::vector<std::int64_t> starts{0};
  std::int64_t largest = 0;
  for (std::int64_t r = 1; r <= count; ++r) {
    const std::int64_t begin = starts.back();
    if (r < count && host_offsets(r + 1) - host_offsets(begin) > static_cast<std::int64_t>(max_pool_bytes)) {
      largest = std::max(largest, host_offsets(r) - host_offsets(begin));
      starts.push_back(r);
    }
  }
  largest = std::max(largest, host_offsets(count) - host_offsets(starts.back()));
  starts.push_back(count);

  // Accumulators start clean: zero (bitmaps) or cleared by long_prepare.
  auto pool = temp.allocate<Kokkos::View<std::uint64_t*, Device>>(space, label + "::pool", (largest + 7) / 8, true);
  for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
    const std::int64_t first = starts[b];
    const std::int64_t n = starts[b + 1] - first;
    BatchMemory<decltype(offsets)> memory{reinterpret_cast<char*>(pool.data()), offsets, first};
    std::int64_t unit_count = 0;
    Kokkos::parallel_scan(label + "::count_units", light_launch(Range(space, 0, n + 1)),
                          CountUnits<Rows, decltype(pass.a_row_map), decltype(units)>{rows, pass.a_row_map, units,
                                                                                        first, n, workers},
                          unit_count);
    if constexpr (Pass::has_long_prepare) {
      Kokkos::parallel_for(label + "::prepare", light_launch(Policy(space, static_cast<int>(n), ends_team, 1)),
                           LongRowEnds<Pass, Rows, decltype(offsets), false>{pass, rows, memory});
    }
    if (unit_count > static_cast<std::int64_t>(INT32_MAX))
      throw overflow_error(label + ": a batch of long rows has more than 2^31 units");
    if (unit_count > 0) {
      Kokkos::parallel_for(label + "::units", light_launch(Policy(space, static_cast<int>(unit_count), workers, v)),
                           LongRowUnits<Pass, Rows, decltype(units), decltype(offsets)>{pass, rows, units, memory, n});
    }
    Kokkos::parallel_for(label + "::finish", light_launch(Policy(space, static_cast<int>(n), ends_team, 1)),
                         LongRowEnds<Pass, Rows, decltype(offsets), true>{pass, rows, memory});
  }
  space.fence();
  const std::size_t bytes = view_bytes(pool);
  temp.release(pool);
  temp.release(units);
  temp.release(offsets);
  return bytes;
}

}  // namespace gustav::detail
