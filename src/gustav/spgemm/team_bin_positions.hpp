#pragma once
/// The long rows of a bin whose positions a plan learns (bin_positions.hpp):
/// rows with more products than a worker's lanes take in
/// bin_positions_lane_products rounds. A team takes each of them, all its
/// threads sharing the row's products (walk_team_products_indexed, whose
/// product index is the workers' walk order, so both read the same
/// positions), as the tables' team kernel does: the learning finds each
/// product's column in C's row by a binary search, a repeat adds each
/// product at its position in a window of the row's values in team scratch.
/// The workers' kernels skip these rows (sum_bin_positions.hpp,
/// record_bin_positions.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/concurrency.hpp"
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

template <class ExecSpace, class Types, class CEntries, class Position>
struct RecordLongBinPositions {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using COffset = typename Types::c_offset_type;

  ProductOperands<Types> ops;
  Kokkos::View<const COffset*, Device> c_row_map;
  CEntries c_entries;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  Kokkos::View<const std::int64_t*, Device> row_start;
  Kokkos::View<Position*, Device> positions;
  int lanes = 1;
  std::int64_t long_row = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const auto cache =
        TeamRowCache::at(static_cast<char*>(team.team_scratch(0).get_shmem_aligned(TeamRowCache::bytes(), 16)));
    for_each_long_row(team, num_rows, row_start, long_row, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t n = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      const std::int64_t p0 = row_start(w), held = row_start(w + 1) - p0;
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);
      bool bad = false;  // the call being learned from raised no error
      walk_team_products_indexed(team, ops, cache, lanes, a0, a1, bad,
                                 [&](std::int64_t, std::int64_t p, std::int64_t t) {
                                   if (t >= held) return;
                                   const auto column = ops.b_entries(p);
                                   std::int64_t lo = 0, hi = n;
                                   while (lo < hi) {
                                     const std::int64_t mid = (lo + hi) >> 1;
                                     if (c_entries(c0 + mid) < column) {
                                       lo = mid + 1;
                                     } else {
                                       hi = mid;
                                     }
                                   }
                                   positions(p0 + t) = static_cast<Position>(lo);
                                 });
    });
  }
};

template <class ExecSpace, class Types, class Position>
struct SumLongBinPositions {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Scalar = typename Types::scalar_type;
  using Device = typename Types::device_type;
  using COffset = typename Types::c_offset_type;

  ProductOperands<Types> ops;
  Kokkos::View<const COffset*, Device> c_row_map;
  typename Types::c_values c_values;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  Kokkos::View<const std::int64_t*, Device> row_start;
  Kokkos::View<const Position*, Device> positions;
  int lanes = 1;
  std::int64_t window = 0;
  std::int64_t long_row = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    char* base =
        static_cast<char*>(team.team_scratch(0).get_shmem_aligned(long_bin_positions_bytes<Types>(window), 16));
    Scalar* values = reinterpret_cast<Scalar*>(base);
    const auto cache = TeamRowCache::at(base + long_bin_positions_window_bytes<Types>(window));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, window), [&](const std::int64_t q) { values[q] = Scalar(); });
    team.team_barrier();
    for_each_long_row(team, num_rows, row_start, long_row, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t length = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      const std::int64_t n = length < window ? length : window;
      const std::int64_t p0 = row_start(w), held = row_start(w + 1) - p0;
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);
      bool bad = false;  // the fingerprint stands for the checks
      // The walk ends with the team synchronised: every add is in.
      walk_team_products_indexed(team, ops, cache, lanes, a0, a1, bad,
                                 [&](std::int64_t j, std::int64_t p, std::int64_t t) {
                                   if (t >= held) return;
                                   const std::int64_t q = static_cast<std::int64_t>(positions(p0 + t));
                                   if (q < n) Concurrent::add(values + q, Scalar(ops.a_values(j) * ops.b_values(p)));
                                 });
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) {
        c_values(c0 + q) = values[q];
        values[q] = Scalar();
      });
      team.team_barrier();
    });
  }
};

/// Launches a long rows' kernel `f` over `long_rows` of a bin's n rows.
template <class ExecSpace, class Functor>
void launch_long_bin_rows(const ExecSpace& space, const std::string& name, const Functor& f, std::int64_t long_rows,
                          std::size_t scratch) {
  const int lanes = f.lanes;
  launch_teams(space, name, f, bin_positions_team_size<ExecSpace>(lanes), lanes,
               [&](int size) { return looping_league(space, long_rows, size * lanes); },
               [&](int) { return scratch; });
}

/// Learns the positions of the long rows among a bin's n rows (the
/// workers' kernel skips them).
template <class Types, class ExecSpace, class CEntries, class Positions>
void record_long_bin_positions(const ExecSpace& space, const ProductOperands<Types>& ops,
                               const Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type>& c_row_map,
                               const CEntries& c_entries, const RowList<Types>& rows, std::int64_t n,
                               const Kokkos::View<const std::int64_t*, typename Types::device_type>& row_start,
                               std::int64_t long_rows, const Positions& positions, int lanes, const std::string& name) {
  RecordLongBinPositions<ExecSpace, Types, CEntries, typename Positions::value_type> f;
  f.ops = ops;
  f.c_row_map = c_row_map;
  f.c_entries = c_entries;
  f.rows = rows;
  f.num_rows = n;
  f.row_start = row_start;
  f.positions = positions;
  f.lanes = lanes;
  f.long_row = bin_positions_long_row(lanes);
  launch_long_bin_rows(space, name, f, long_rows, TeamRowCache::bytes());
}

/// Sums the long rows among a bin's n rows from their learned positions.
template <class Types, class ExecSpace, class CValues, class Positions>
void sum_long_bin_positions(const ExecSpace& space, const typename BinPositions<typename Types::device_type>::Bin& kept,
                            const RowBin& bin, const ProductOperands<Types>& ops,
                            const Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type>& c_row_map,
                            const CValues& c_values, const RowList<Types>& rows, std::int64_t n,
                            const Positions& positions, const std::string& name) {
  SumLongBinPositions<ExecSpace, Types, typename Positions::value_type> f;
  f.ops = ops;
  f.c_row_map = c_row_map;
  f.c_values = c_values;
  f.rows = rows;
  f.num_rows = n;
  f.row_start = kept.row_start;
  f.positions = positions;
  f.lanes = bin_positions_lanes<ExecSpace>(bin);
  f.window = bin.max_need;
  f.long_row = bin_positions_long_row(f.lanes);
  launch_long_bin_rows(space, name, f, kept.long_rows, long_bin_positions_bytes<Types>(f.window));
}

}  // namespace gustav::detail
