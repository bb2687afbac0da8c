#pragma once
/// Long rows on GPUs: rows whose accumulator does not fit team scratch, or
/// whose product count would keep one team busy long after the others are
/// done (the hubs of power-law matrices). Such a row is split into units of
/// `team_size` entries of A, one team per unit, so all SMs share it; the
/// units of one row meet in a dense accumulator in global memory taken from
/// the memory pool for that row (a bitmap over B's columns in the symbolic
/// phase, the position in the row of every column of B in the numeric
/// phase). A final kernel, one team per row, reads the accumulator out.
///
/// Rows are processed in batches that fit the pool; a batch's accumulators
/// are left clean (zero bitmap, -1 positions) for the next one.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/memory_pool/memory_pool.hpp"

namespace gustav::detail {

/// Units of one batch: row r of the batch owns units [offsets(r), offsets(r+1)).
/// Scanned over n + 1 items so that offsets(n) receives the total.
template <class Rows, class ARowMap, class Offsets>
struct CountUnits {
  Rows rows;
  ARowMap a_row_map;
  Offsets offsets;
  std::int64_t first;  ///< batch start within rows
  std::int64_t n;      ///< rows in the batch
  int per_unit;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum, bool final) const {
    if (final) offsets(r) = sum;
    if (r == n) return;
    const std::int64_t row = static_cast<std::int64_t>(rows(first + r));
    const std::int64_t len = static_cast<std::int64_t>(a_row_map(row + 1) - a_row_map(row));
    sum += (len + per_unit - 1) / per_unit;
  }
};

/// One team per unit: every product of the unit's entries of A goes to the
/// pass's long_product(), with the row's pool chunk.
template <class Pass, class Rows, class Offsets>
struct LongRowUnits {
  using execution_space = typename Pass::execution_space;
  using Device = Kokkos::Device<execution_space, typename execution_space::memory_space>;
  using Member = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Pass pass;
  Rows rows;
  Offsets offsets;
  std::int64_t first;
  std::int64_t batch;
  MemoryPool<Device> pool;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t unit = team.league_rank();
    // The row owning this unit: last r with offsets(r) <= unit.
    std::int64_t lo = 0, hi = batch - 1;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (offsets(mid) <= unit) lo = mid;
      else hi = mid - 1;
    }
    const std::int64_t row = static_cast<std::int64_t>(rows(first + lo));
    char* chunk = pool.chunk(static_cast<int>(lo));
    const auto a_row_map = pass.a_row_map;
    const std::int64_t begin =
        static_cast<std::int64_t>(a_row_map(row)) + (unit - offsets(lo)) * team.team_size();
    const std::int64_t end_of_row = static_cast<std::int64_t>(a_row_map(row + 1));
    const std::int64_t end = begin + team.team_size() < end_of_row ? begin + team.team_size() : end_of_row;
    const auto b_row_map = pass.product_row_map();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t j) {
      const auto k = pass.a_entries(j);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b_row_map(k), b_row_map(k + 1)),
                           [&](const auto p) { pass.long_product(chunk, row, j, p); });
    });
  }
};

/// One team per row of the batch, for the pass's long_prepare / long_finish.
template <class Pass, class Rows, bool Finish>
struct LongRowEnds {
  using execution_space = typename Pass::execution_space;
  using Device = Kokkos::Device<execution_space, typename execution_space::memory_space>;
  using Member = typename Kokkos::TeamPolicy<execution_space>::member_type;
  Pass pass;
  Rows rows;
  std::int64_t first;
  MemoryPool<Device> pool;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t row = static_cast<std::int64_t>(rows(first + r));
    char* chunk = pool.chunk(static_cast<int>(r));
    if constexpr (Finish) {
      pass.long_finish(team, chunk, row);
    } else {
      pass.long_prepare(team, chunk, row);
    }
  }
};

/// Runs the long-row path for `count` rows; returns the pool bytes used.
template <class ExecSpace, class Pass, class Rows>
std::size_t launch_long_rows(const ExecSpace& space, const Pass& pass, const Rows& rows, std::int64_t count,
                             std::size_t chunk_bytes, std::size_t max_pool_bytes, int vector_length,
                             const std::string& label, TempMemory& temp) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int v = std::max(1, vector_length);
  // A team takes as many entries of A as it has workers, one each.
  const int workers = is_host_space<ExecSpace>() ? 1 : std::max(1, 256 / v);
  const std::int64_t batch =
      chunk_bytes == 0 ? count
                       : std::max<std::int64_t>(1, std::min<std::int64_t>(count, static_cast<std::int64_t>(max_pool_bytes / chunk_bytes)));
  // Passes that need no per-row memory run every row in one batch.
  MemoryPool<Device> pool;
  if (chunk_bytes > 0) pool = MemoryPool<Device>(space, label + "::pool", chunk_bytes, static_cast<int>(batch), Pass::dense_fill_byte, temp);
  auto offsets = temp.allocate<Kokkos::View<std::int64_t*, Device>>(space, label + "::units", batch + 1, false);
  for (std::int64_t first = 0; first < count; first += batch) {
    const std::int64_t n = std::min(batch, count - first);
    const auto batch_offsets = Kokkos::subview(offsets, std::make_pair(std::int64_t(0), n + 1));
    std::int64_t units = 0;
    Kokkos::parallel_scan(label + "::count_units",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n + 1),
                          CountUnits<Rows, decltype(pass.a_row_map), decltype(batch_offsets)>{
                              rows, pass.a_row_map, batch_offsets, first, n, workers},
                          units);
    const int ends_team = is_host_space<ExecSpace>() ? 1 : 256;
    if constexpr (Pass::has_long_prepare) {
      Kokkos::parallel_for(label + "::prepare", Policy(space, static_cast<int>(n), ends_team, 1),
                           LongRowEnds<Pass, Rows, false>{pass, rows, first, pool});
    }
    if (units > 0) {
      Kokkos::parallel_for(label + "::units", Policy(space, static_cast<int>(units), workers, v),
                           LongRowUnits<Pass, Rows, decltype(batch_offsets)>{pass, rows, batch_offsets, first, n, pool});
    }
    Kokkos::parallel_for(label + "::finish", Policy(space, static_cast<int>(n), ends_team, 1),
                         LongRowEnds<Pass, Rows, true>{pass, rows, first, pool});
  }
  space.fence();
  const std::size_t bytes = chunk_bytes * static_cast<std::size_t>(batch);
  pool.free(temp);
  temp.release(offsets);
  return bytes;
}

}  // namespace gustav::detail
