#pragma once
/// The repeats of a bin whose positions the plan learned
/// (bin_positions.hpp): a worker a row, its lanes the row's products in
/// walk order (product t on lane t % lanes, walk_worker_products), each
/// added at its learned position in a window of the row's values in
/// scratch, which then goes out in one coalesced write and is cleared for
/// the worker's next row. Products of one row of B have distinct columns,
/// but different rows of B meet in the same entries, so the adds are
/// atomic in scratch, as the tables' are.
///
/// The sums read A's and B's values at entries within their checked rows
/// and take at most the products the plan holds for each row, each at a
/// position below the row's length: a structure changed since the
/// positions were learned stays within every array while the fingerprint
/// beside the bins reports it, and the call then sums again by the default
/// path.
///
/// Lanes: a worker bin keeps its vector length; a team bin's rows take a
/// worker of 32 lanes each (H100, er:100000:16's repeat with every lane
/// count from outside: 32 lanes 0.37 ms, 16 lanes 0.52, 8 lanes 0.85).
/// Rows of more products than bin_positions_long_row(lanes) are skipped
/// here and summed by a team each (team_bin_positions.hpp).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/common/concurrency.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/bin_positions.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/team_bin_positions.hpp"

namespace gustav::detail {

/// Scratch of one worker of a positions bin: its window of values and its
/// row cache.
template <class Types>
KOKKOS_INLINE_FUNCTION std::size_t bin_positions_worker_bytes(std::int64_t window) {
  using Scalar = typename Types::scalar_type;
  return (static_cast<std::size_t>(window) * sizeof(Scalar) + RowCache<Types>::bytes() + 15) / 16 * 16;
}

template <class ExecSpace, class Types, class Position>
struct SumBinPositions {
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
  std::int64_t long_row = 0;  ///< rows with more products are a team's (team_bin_positions.hpp)

  std::size_t scratch_bytes(int team_size) const {
    return bin_positions_worker_bytes<Types>(window) * static_cast<std::size_t>(team_size);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::size_t worker_bytes = bin_positions_worker_bytes<Types>(window);
    char* base = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(worker_bytes * team.team_size(), 16));
    char* mine = base + worker_bytes * team.team_rank();
    Scalar* values = reinterpret_cast<Scalar*>(mine);
    const auto cache = RowCache<Types>::at(mine + window * sizeof(Scalar));
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, window), [&](const std::int64_t q) { values[q] = Scalar(); });
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t p0 = row_start(w), held = row_start(w + 1) - p0;
      if (held > long_row) return;
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t length = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      const std::int64_t n = length < window ? length : window;
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);
      bool bad = false;  // the fingerprint stands for the checks
      walk_worker_products(team, ops, cache, a0, a1, lanes, bad, [&](std::int64_t j, std::int64_t p, std::int64_t t) {
        if (t < held) add(values, p0 + t, j, p, n);
      });
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](const std::int64_t q) {
        c_values(c0 + q) = values[q];
        values[q] = Scalar();
      });
    });
  }

  /// Adds product (j, p) at its learned position `at` in the window of a row
  /// of C holding n of its values.
  KOKKOS_INLINE_FUNCTION void add(Scalar* values, std::int64_t at, std::int64_t j, std::int64_t p,
                                  std::int64_t n) const {
    const std::int64_t q = static_cast<std::int64_t>(positions(at));
    if (q < n) Concurrent::add(values + q, Scalar(ops.a_values(j) * ops.b_values(p)));
  }
};

/// The long rows' sums: a team a row, the row's window of values in the
/// team's scratch beside its row cache (team_bin_positions.hpp).
template <class ExecSpace, class Types, class Position>
struct SumLongBinPositions : SumBinPositions<ExecSpace, Types, Position> {
  using Base = SumBinPositions<ExecSpace, Types, Position>;
  using typename Base::Member;
  using typename Base::Scalar;
  Kokkos::View<const std::int64_t*, typename Base::Device> long_rows;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t window = this->window;
    char* base =
        static_cast<char*>(team.team_scratch(0).get_shmem_aligned(long_bin_positions_bytes<Types>(window), 16));
    Scalar* values = reinterpret_cast<Scalar*>(base);
    const auto cache = TeamRowCache::at(base + long_bin_positions_window_bytes<Types>(window));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, window), [&](const std::int64_t q) { values[q] = Scalar(); });
    team.team_barrier();
    for_each_long_row(team, long_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(this->rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(this->c_row_map(i));
      const std::int64_t length = static_cast<std::int64_t>(this->c_row_map(i + 1)) - c0;
      const std::int64_t n = length < window ? length : window;
      const std::int64_t p0 = this->row_start(w), held = this->row_start(w + 1) - p0;
      std::int64_t a0, a1;
      this->ops.a_row(i, a0, a1);
      bool bad = false;  // the fingerprint stands for the checks
      // The walk ends with the team synchronised: every add is in.
      walk_team_products_indexed(team, this->ops, cache, this->lanes, a0, a1, bad,
                                 [&](std::int64_t j, std::int64_t p, std::int64_t t) {
                                   if (t < held) this->add(values, p0 + t, j, p, n);
                                 });
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) {
        this->c_values(c0 + q) = values[q];
        values[q] = Scalar();
      });
      team.team_barrier();
    });
  }
};

/// Sums bin `bin`'s n rows from their learned positions into c_values.
template <class Types, class ExecSpace, class CValues>
void sum_bin_positions(const ExecSpace& space, const typename BinPositions<typename Types::device_type>::Bin& kept,
                       const RowBin& bin, const ProductOperands<Types>& ops,
                       const Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type>& c_row_map,
                       const CValues& c_values, const RowList<Types>& rows, std::int64_t n, const std::string& name) {
  auto launch = [&](auto positions) {
    using Position = typename decltype(positions)::value_type;
    SumBinPositions<ExecSpace, Types, Position> f;
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
    const int lanes = f.lanes;
    int team_size = bin_positions_team_size<ExecSpace>(lanes);
    while (team_size > 1 && f.scratch_bytes(team_size) > team_scratch_limit<ExecSpace>()) team_size /= 2;
    launch_teams(space, name, f, team_size, lanes,
                 [&](int size) { return looping_league(space, (n + size - 1) / size, size * lanes); },
                 [&](int size) { return f.scratch_bytes(size); });
    if (kept.long_rows.extent(0) > 0) {
      SumLongBinPositions<ExecSpace, Types, Position> g;
      static_cast<decltype(f)&>(g) = f;
      g.long_rows = kept.long_rows;
      launch_long_bin_rows(space, name + "::long", g, long_bin_positions_bytes<Types>(f.window));
    }
  };
  if (kept.narrow.data()) {
    launch(Kokkos::View<const std::uint8_t*, typename Types::device_type>(kept.narrow));
  } else {
    launch(Kokkos::View<const std::uint16_t*, typename Types::device_type>(kept.wide));
  }
}

}  // namespace gustav::detail
