#pragma once
/// Learning a bin's positions (bin_positions.hpp) after a plan's first
/// numeric call has summed it by the default path: each row's product
/// count, their running sum as the rows' starts, then a worker a row whose
/// lanes walk the products in the order the repeats walk them
/// (walk_worker_products, so product t of the row is the t-th position
/// kept for it) and find each one's column in the row of C by a binary
/// search (C's rows are sorted; the call that just ran found every product
/// inside its row). Rows too long for a worker are learned by a team each
/// (team_bin_positions.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/spgemm/bin_positions.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/sum_bin_positions.hpp"
#include "gustav/spgemm/team_bin_positions.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class CEntries, class Position>
struct RecordBinPositions {
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
  std::int64_t long_row = 0;  ///< rows with more products are a team's (team_bin_positions.hpp)

  std::size_t scratch_bytes(int team_size) const {
    return RowCache<Types>::bytes() * static_cast<std::size_t>(team_size);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    char* base = static_cast<char*>(
        team.team_scratch(0).get_shmem_aligned(RowCache<Types>::bytes() * team.team_size(), 16));
    const auto cache = RowCache<Types>::at(base + RowCache<Types>::bytes() * team.team_rank());
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t p0 = row_start(w), held = row_start(w + 1) - p0;
      if (held > long_row) return;
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t n = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);
      bool bad = false;  // the call being learned from raised no error
      walk_worker_products(team, ops, cache, a0, a1, lanes, bad, [&](std::int64_t, std::int64_t p, std::int64_t t) {
        if (t < held) record(p0 + t, p, c0, n);
      });
    });
  }

  /// Keeps where product p's column lies in the row of C of n entries at c0.
  KOKKOS_INLINE_FUNCTION void record(std::int64_t at, std::int64_t p, std::int64_t c0, std::int64_t n) const {
    positions(at) = static_cast<Position>(first_at_least(c_entries, c0, c0 + n, ops.b_entries(p)) - c0);
  }
};

/// The long rows' learning: a team a row (team_bin_positions.hpp).
template <class ExecSpace, class Types, class CEntries, class Position>
struct RecordLongBinPositions : RecordBinPositions<ExecSpace, Types, CEntries, Position> {
  using Base = RecordBinPositions<ExecSpace, Types, CEntries, Position>;
  using typename Base::Member;
  Kokkos::View<const std::int64_t*, typename Base::Device> long_rows;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const auto cache =
        TeamRowCache::at(static_cast<char*>(team.team_scratch(0).get_shmem_aligned(TeamRowCache::bytes(), 16)));
    for_each_long_row(team, long_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(this->rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(this->c_row_map(i));
      const std::int64_t n = static_cast<std::int64_t>(this->c_row_map(i + 1)) - c0;
      const std::int64_t p0 = this->row_start(w), held = this->row_start(w + 1) - p0;
      std::int64_t a0, a1;
      this->ops.a_row(i, a0, a1);
      bool bad = false;  // the call being learned from raised no error
      walk_team_products_indexed(team, this->ops, cache, this->lanes, a0, a1, bad,
                                 [&](std::int64_t, std::int64_t p, std::int64_t t) {
                                   if (t < held) this->record(p0 + t, p, c0, n);
                                 });
    });
  }
};

/// Learns bin `bin`'s positions for its n rows into `kept`, whose views it
/// allocates from `temp` (they outlive it: the plan keeps them). Returns
/// false, keeping nothing, where the bin's products are not `products` as
/// planned or the memory budget refuses them.
template <class Types, class ExecSpace, class CEntries>
bool record_bin_positions(const ExecSpace& space, typename BinPositions<typename Types::device_type>::Bin& kept,
                          const RowBin& bin, const ProductOperands<Types>& ops,
                          const Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type>& c_row_map,
                          const CEntries& c_entries, const RowList<Types>& rows, std::int64_t n,
                          std::int64_t products, TempMemory& temp, const std::string& name) {
  using Device = typename Types::device_type;
  using Starts = Kokkos::View<std::int64_t*, Device>;
  Starts row_start;
  try {
    row_start = temp.allocate<Starts>(space, name + "::row_start", static_cast<std::size_t>(n + 1), false);
  } catch (const allocation_error&) {
    return false;
  }
  Kokkos::parallel_scan(
      name + "::row_start", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& sum, const bool last) {
        std::int64_t a0, a1;
        ops.a_row(static_cast<std::int64_t>(rows(w)), a0, a1);
        std::int64_t count = 0;
        for (std::int64_t j = a0; j < a1; ++j) {
          std::int64_t b0, b1;
          ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1);
          count += b1 - b0;
        }
        if (last) row_start(w) = sum;
        sum += count;
        if (last && w == n - 1) row_start(n) = sum;
      });
  std::int64_t total = 0;
  Kokkos::deep_copy(space, total, Kokkos::subview(row_start, n));
  space.fence();
  if (total != products) return false;
  // Rows too long for a worker go to a team each; their values must then
  // fit a team's scratch.
  const int lanes = bin_positions_lanes<ExecSpace>(bin);
  const std::int64_t long_row = bin_positions_long_row(lanes);
  std::int64_t long_rows = 0;
  Kokkos::parallel_reduce(
      name + "::long_rows", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& count) {
        count += row_start(w + 1) - row_start(w) > long_row ? 1 : 0;
      },
      long_rows);
  Starts long_list;
  if (long_rows > 0) {
    if (!long_bin_positions_fit<ExecSpace, Types>(bin.max_need)) return false;
    try {
      long_list = temp.allocate<Starts>(space, name + "::long_rows", static_cast<std::size_t>(long_rows), false);
    } catch (const allocation_error&) {
      return false;
    }
    list_long_rows(space, row_start, n, long_row, long_list, name + "::list_long_rows");
  }
  auto record = [&](auto positions) {
    using Position = typename decltype(positions)::value_type;
    RecordBinPositions<ExecSpace, Types, CEntries, Position> f;
    f.ops = ops;
    f.c_row_map = c_row_map;
    f.c_entries = c_entries;
    f.rows = rows;
    f.num_rows = n;
    f.row_start = row_start;
    f.positions = positions;
    f.lanes = lanes;
    f.long_row = long_row;
    launch_teams(space, name, f, bin_positions_team_size<ExecSpace>(lanes), lanes,
                 [&](int size) { return looping_league(space, (n + size - 1) / size, size * lanes); },
                 [&](int size) { return f.scratch_bytes(size); });
    if (long_rows > 0) {
      RecordLongBinPositions<ExecSpace, Types, CEntries, Position> g;
      static_cast<decltype(f)&>(g) = f;
      g.long_rows = long_list;
      launch_long_bin_rows(space, name + "::long", g, TeamRowCache::bytes());
    }
  };
  try {
    if (bin.max_need <= bin_positions_narrow_row) {
      kept.narrow = temp.allocate<Kokkos::View<std::uint8_t*, Device>>(space, name + "::positions",
                                                                       static_cast<std::size_t>(products), false);
      record(kept.narrow);
    } else {
      kept.wide = temp.allocate<Kokkos::View<std::uint16_t*, Device>>(space, name + "::positions",
                                                                      static_cast<std::size_t>(products), false);
      record(kept.wide);
    }
  } catch (const allocation_error&) {
    kept = {};
    return false;
  }
  kept.row_start = row_start;
  kept.long_rows = long_list;
  return true;
}

}  // namespace gustav::detail
