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

/// Calls f(w) for each row w of [0, rows) with more than `long_row`
/// products, a team each; the whole team calls it.
template <class Member, class RowStart, class F>
KOKKOS_INLINE_FUNCTION void for_each_long_row(const Member& team, std::int64_t rows, const RowStart& row_start,
                                              std::int64_t long_row, const F& f) {
  for (std::int64_t w = team.league_rank(); w < rows; w += team.league_size()) {
    if (row_start(w + 1) - row_start(w) > long_row) f(w);
  }
}

/// Launches a long rows' kernel `f` over `long_rows` of a bin's n rows.
template <class ExecSpace, class Functor>
void launch_long_bin_rows(const ExecSpace& space, const std::string& name, const Functor& f, std::int64_t long_rows,
                          std::size_t scratch) {
  const int lanes = f.lanes;
  launch_teams(space, name, f, bin_positions_team_size<ExecSpace>(lanes), lanes,
               [&](int size) { return looping_league(space, long_rows, size * lanes); },
               [&](int) { return scratch; });
}

}  // namespace gustav::detail
