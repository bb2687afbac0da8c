#pragma once
/// The long rows of a bin whose positions a plan learns (bin_positions.hpp):
/// rows with more products than a worker's lanes take in
/// bin_positions_lane_products rounds. A team takes each of them, all its
/// threads sharing the row's products (walk_team_products_indexed, whose
/// product index is the workers' walk order, so both read the same
/// positions), as the tables' team kernel does. The kernels are the
/// workers' with a team's walk (RecordLongBinPositions in
/// record_bin_positions.hpp, SumLongBinPositions in sum_bin_positions.hpp);
/// here is what they share: which rows are long, the team's scratch, the
/// launch.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/bin_positions.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"

namespace gustav::detail {

/// Team scratch of a long row's sum: its window of values, then the row cache.
template <class Types>
KOKKOS_INLINE_FUNCTION std::size_t long_bin_positions_window_bytes(std::int64_t window) {
  return (static_cast<std::size_t>(window) * sizeof(typename Types::scalar_type) + 15) / 16 * 16;
}
template <class Types>
KOKKOS_INLINE_FUNCTION std::size_t long_bin_positions_bytes(std::int64_t window) {
  return long_bin_positions_window_bytes<Types>(window) + TeamRowCache::bytes();
}

/// Whether a team's scratch holds a long row's window of `window` values.
template <class ExecSpace, class Types>
bool long_bin_positions_fit(std::int64_t window) {
  return long_bin_positions_bytes<Types>(window) <= team_scratch_limit<ExecSpace>();
}

/// Calls f(w) for each of a bin's long rows w (listed), a team each; the
/// whole team calls it.
template <class Member, class LongRows, class F>
KOKKOS_INLINE_FUNCTION void for_each_long_row(const Member& team, const LongRows& long_rows, const F& f) {
  const auto listed = static_cast<std::int64_t>(long_rows.extent(0));
  for (std::int64_t k = team.league_rank(); k < listed; k += team.league_size()) f(long_rows(k));
}

/// Lists the rows w of a bin's n (row_start their products' starts) with
/// more than `long_row` products, in order, into `long_rows` (sized).
template <class ExecSpace, class RowStart, class LongRows>
void list_long_rows(const ExecSpace& space, const RowStart& row_start, std::int64_t n, std::int64_t long_row,
                    const LongRows& long_rows, const std::string& name) {
  Kokkos::parallel_scan(
      name, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& listed, const bool last) {
        const bool is_long = row_start(w + 1) - row_start(w) > long_row;
        if (last && is_long) long_rows(listed) = w;
        listed += is_long ? 1 : 0;
      });
}

/// Launches a long rows' kernel `f` over its listed rows.
template <class ExecSpace, class Functor>
void launch_long_bin_rows(const ExecSpace& space, const std::string& name, const Functor& f, std::size_t scratch) {
  const int lanes = f.lanes;
  const auto listed = static_cast<std::int64_t>(f.long_rows.extent(0));
  launch_teams(space, name, f, bin_positions_team_size<ExecSpace>(lanes), lanes,
               [&](int size) { return looping_league(space, listed, size * lanes); },
               [&](int) { return scratch; });
}

}  // namespace gustav::detail
