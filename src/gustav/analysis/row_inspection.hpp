#pragma once
/// The first kernel of the hierarchical symbolic phase, one pass over A:
///   - checks every row of A and every row of B that A references (and, on
///     request, every entry of B), raising error bits instead of reading
///     outside an array; the host names the fault afterwards;
///   - counts each row's products (seeds 000, 003: the work of a row);
///   - finishes the rows of at most tiny_products products on the spot (the
///     nnz of such a row is its number of distinct columns);
///   - puts every other row in its symbolic bin, counting the bins' rows in
///     team scratch so that the global counters see one atomic per team;
///   - lists the hub rows of A (hundreds of entries or more) for
///     hub_rows.hpp, whose kernel shares each one over many teams.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class RowBinView>
struct InspectRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Ordinal = typename Types::ordinal_type;
  using Device = typename Types::device_type;

  ProductOperands<Types> ops;
  typename Types::c_row_map c_row_map;  ///< nnz of tiny and empty rows, at row + 1
  RowBinView row_bin;                   ///< symbolic bin of each row (tiny rows: 0, also their numeric bin)
  SummaryView<Device> summary;
  RowBinBounds symbolic_bins;
  /// Out: the hub rows (their number goes to SummarySlot::hubs).
  Kokkos::View<std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hub_rows;
  std::int64_t a_rows = 0;
  std::int64_t a_teams = 0;          ///< teams [0, a_teams) take rows of A, the rest entries of B
  std::int64_t rows_per_team = 0;
  std::int64_t b_entries_per_team = 0;
  int lanes = 1;
  bool check_all_of_b = false;       ///< also check B's rows and entries that A does not reach

  /// Team scratch: the team's bin counters, then each worker's tiny buffer,
  /// then each worker's list of its longer rows.
  static constexpr int counters = max_row_bins + 3;  // symbolic rows per bin, tiny products, products, max
  /// Rows a worker takes: one per lane on GPUs. A worker shares each of
  /// its rows of more than lane_entries entries among its lanes one row
  /// after another, and where such rows gather (ia-wikiquote's first users,
  /// 14 of a worker's 16 rows) that worker held the launch: 0.075 ms over
  /// 21,607 rows with 16 rows a worker.
  static constexpr int rows_per_worker = 8;
  static std::size_t scratch_bytes(int workers) {
    const std::size_t lists = static_cast<std::size_t>(workers) * (1 + rows_per_worker);
    // 64 bytes for the alignment of the three pieces (a host team aligns each).
    return (counters * sizeof(std::int64_t) + static_cast<std::size_t>(workers) * tiny_products * sizeof(Ordinal) +
            lists * sizeof(int) + 64 + 15) / 16 * 16;
  }

  /// Rows of at most this many entries are a lane's alone (on GPUs; a CPU
  /// worker has one lane and takes every row but hubs): a worker's lanes
  /// sharing every row kept most of them idle on rows of a few entries, and
  /// its reductions cost more than the row (a million rows of 2 entries:
  /// 0.33 ms, 225 warp instructions a row).
  static constexpr int lane_entries = 16;

  /// A row of A with more entries than this many per lane is a hub row,
  /// left to hub_rows.hpp: a worker alone took 0.8 ms over a user x page
  /// graph's users with 16,000 pages, and a team for each of its own hub
  /// rows 0.38 ms, where one team held most of them.
  static constexpr int hub_entries_per_lane = 32;

  /// The most hub rows A can have: each has more than hub_entries entries.
  static std::int64_t max_hub_rows(std::int64_t a_nnz, int lanes) {
    return a_nnz / (std::int64_t(hub_entries_per_lane) * lanes + 1) + 1;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (static_cast<std::int64_t>(team.league_rank()) >= a_teams) {
      check_b(team, team.league_rank() - a_teams);
      return;
    }
    auto* count = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(counters * sizeof(std::int64_t)));
    auto* buffers = static_cast<Ordinal*>(
        team.team_scratch(0).get_shmem(static_cast<std::size_t>(team.team_size()) * tiny_products * sizeof(Ordinal)));
    Ordinal* buffer = buffers + team.team_rank() * tiny_products;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, int(counters)), [&](int c) {
      Kokkos::single(Kokkos::PerThread(team), [&]() { count[c] = 0; });
    });
    if (team.league_rank() == 0) check_row_map_ends(team);
    team.team_barrier();

    auto* longer = static_cast<int*>(team.team_scratch(0).get_shmem(
                       static_cast<std::size_t>(team.team_size()) * (1 + rows_per_worker) * sizeof(int))) +
                   team.team_rank() * (1 + rows_per_worker);
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < a_rows ? first + rows_per_team : a_rows;
    const std::int64_t hub_entries = std::int64_t(hub_entries_per_lane) * lanes;
    const std::int64_t own_entries = lanes == 1 ? hub_entries : lane_entries;
    int errors = 0;
    Kokkos::single(Kokkos::PerThread(team), [&]() { longer[0] = 0; });
    // A lane per row: lane l of worker w takes rows w * rows_per_worker + l,
    // + lanes, ... of the team's, so neighbouring lanes read neighbouring
    // rows; longer rows go to the worker's list, hub rows to the global one.
    const std::int64_t mine = first + std::int64_t(team.team_rank()) * rows_per_worker;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
      std::int64_t products_sum = 0, tiny_sum = 0, most = 0;
      for (std::int64_t row = mine + lane; row < mine + rows_per_worker && row < last; row += lanes) {
        std::int64_t a0, a1;
        if (!ops.a_row(row, a0, a1)) errors |= error_bad_a;
        if (a1 - a0 > hub_entries) {
          hub_rows(fetch_add_count(&summary(SummarySlot::hubs), 1)) = row;
          continue;
        }
        if (a1 - a0 > own_entries) {
          longer[1 + Kokkos::atomic_fetch_add(&longer[0], 1)] = static_cast<int>(row - first);
          continue;
        }
        const std::int64_t products = lane_products(a0, a1, 0, 1, errors);
        const bool tiny = products > 0 && products <= tiny_products;
        const std::int64_t nnz = tiny ? distinct_columns(a0, a1, errors) : 0;
        const std::uint8_t bin = classify_row(row, a1 - a0, products, nnz);
        if (bin != no_bin) add_count(&count[bin], 1);
        products_sum += products;
        tiny_sum += tiny ? products : 0;
        most = products > most ? products : most;
      }
      if (tiny_sum) add_count(&count[max_row_bins], tiny_sum);
      if (products_sum) add_count(&count[max_row_bins + 1], products_sum);
      if (most) raise_count(&count[max_row_bins + 2], most);
    });
    // The worker's longer rows: its lanes share each one.
    for (int i = 0; i < longer[0]; ++i) {
      const std::int64_t row = first + longer[1 + i];
      std::int64_t a0, a1;
      ops.a_row(row, a0, a1);
      std::int64_t products = 0;
      int row_errors = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](const int lane, std::int64_t& sum) { sum += lane_products(a0, a1, lane, lanes, row_errors); }, products);
      errors |= row_errors;
      finish_row(team, row, a0, a1, products, buffer, count);
    }
    if (errors) Kokkos::atomic_fetch_or(&summary(SummarySlot::errors), std::int64_t(errors));
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, int(counters)), [&](int c) {
      Kokkos::single(Kokkos::PerThread(team), [&]() { flush_count(c, count[c]); });
    });
  }

  /// Adds tally c of a team's counters (value v) to the summary.
  KOKKOS_INLINE_FUNCTION void flush_count(int c, std::int64_t v) const {
    if (v == 0) return;
    if (c < max_row_bins) {
      add_count(&summary(SummarySlot::symbolic_rows + c), v);
      // Tiny rows are done here and are the numeric phase's tiny bin too.
      if (c == 0) add_count(&summary(SummarySlot::numeric_rows), v);
    } else if (c == max_row_bins) {
      add_count(&summary(SummarySlot::numeric_products), v);
    } else if (c == max_row_bins + 1) {
      add_count(&summary(SummarySlot::products), v);
    } else {
      raise_count(&summary(SummarySlot::max_products), v);
    }
  }

  /// What the inspection does with a row whose products are counted, on one
  /// worker: a tiny row's nnz (the number of distinct columns), the row's
  /// symbolic bin, and the team's tallies.
  KOKKOS_INLINE_FUNCTION void finish_row(const Member& team, std::int64_t row, std::int64_t a0, std::int64_t a1,
                                         std::int64_t products, Ordinal* buffer, std::int64_t* count) const {
    std::int64_t nnz = 0;
    const bool tiny = products <= tiny_products;
    if (products > 0 && tiny) {
      // Each lane parks its products' columns; a column counts where it
      // first appears.
      bool bad = false;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
        walk_lane_products(ops, a0, a1, lane, lanes, bad,
                           [&](std::int64_t, std::int64_t p, std::int64_t t) { buffer[t] = ops.b_entries(p); });
      });
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, products),
          [&](const std::int64_t t, std::int64_t& distinct) {
            const Ordinal c = buffer[t];
            bool first_seen = true;
            for (std::int64_t u = 0; u < t; ++u) first_seen = first_seen && buffer[u] != c;
            distinct += first_seen ? 1 : 0;
          },
          nnz);
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      const std::uint8_t bin = classify_row(row, a1 - a0, products, nnz);
      if (bin != no_bin) add_count(&count[bin], 1);
      if (products > 0 && tiny) add_count(&count[max_row_bins], products);
      add_count(&count[max_row_bins + 1], products);
      raise_count(&count[max_row_bins + 2], products);
    });
  }

  /// Puts the row in its symbolic bin and returns the bin; a tiny or empty
  /// row, which is done here, also gets its nnz.
  KOKKOS_INLINE_FUNCTION std::uint8_t classify_row(std::int64_t row, std::int64_t entries, std::int64_t products,
                                                   std::int64_t nnz) const {
    const std::int64_t need = products < ops.b_cols ? products : ops.b_cols;
    const std::uint8_t bin = symbolic_bins.of(products, need, entries);
    row_bin(row) = bin;
    if (products <= tiny_products) c_row_map(row + 1) = static_cast<typename Types::c_offset_type>(nnz);
    return bin;
  }

  /// The distinct columns of a tiny row, by one thread: the columns stay in
  /// registers (every index a constant of an unrolled loop).
  KOKKOS_INLINE_FUNCTION std::int64_t distinct_columns(std::int64_t a0, std::int64_t a1, int& bits) const {
    Ordinal cols[tiny_products];
#pragma unroll
    for (int s = 0; s < tiny_products; ++s) cols[s] = Ordinal(0);
    int m = 0;
    for (std::int64_t j = a0; j < a1; ++j) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
      for (std::int64_t p = b0; p < b1 && m <= tiny_products; ++p) {
        const Ordinal c = ops.b_entries(p);
        bool seen = false;
#pragma unroll
        for (int s = 0; s < tiny_products; ++s) seen = seen || (s < m && cols[s] == c);
        if (seen) continue;
#pragma unroll
        for (int s = 0; s < tiny_products; ++s)
          if (s == m) cols[s] = c;
        ++m;
      }
    }
    return m;
  }

  /// One thread's share of a row's product count: entries lane, lane +
  /// lanes, ... of the row (a worker's lanes, or a team's threads). Where the row is long, `unroll` entries at a time with
  /// every load issued before any is used, so a hub row of A (thousands of
  /// entries on one worker) waits for one round of loads per
  /// `unroll * lanes` entries, not per `lanes`; short rows (most) take the
  /// plain loop, which issues no loads for entries they do not have.
  KOKKOS_INLINE_FUNCTION std::int64_t lane_products(std::int64_t a0, std::int64_t a1, int lane, int stride,
                                                    int& bits) const {
    constexpr int unroll = 8;
    std::int64_t sum = 0;
    auto add = [&](std::int64_t k, std::int64_t b0, std::int64_t b1) {
      if (k < 0 || k >= ops.b_rows || b0 < 0 || b0 > b1 || b1 > ops.b_nnz) {
        bits |= error_bad_a;
      } else {
        sum += b1 - b0;
      }
    };
    std::int64_t q = a0 + lane;
    for (; q + std::int64_t(unroll - 1) * stride < a1; q += std::int64_t(unroll) * stride) {
      std::int64_t k[unroll], b0[unroll], b1[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) k[u] = static_cast<std::int64_t>(ops.a_entries(q + std::int64_t(u) * stride));
      // A column of A outside B's rows reads row 0 and is flagged by add().
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const std::int64_t r = k[u] >= 0 && k[u] < ops.b_rows ? k[u] : 0;
        b0[u] = static_cast<std::int64_t>(ops.b_row_map(r));
        b1[u] = static_cast<std::int64_t>(ops.b_row_map(r + 1));
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) add(k[u], b0[u], b1[u]);
    }
    for (; q < a1; q += stride) {
      std::int64_t b0, b1;
      if (ops.b_row(static_cast<std::int64_t>(ops.a_entries(q)), b0, b1)) {
        sum += b1 - b0;
      } else {
        bits |= error_bad_a;
      }
    }
    return sum;
  }

  /// Row maps must start at 0 and end at nnz.
  KOKKOS_INLINE_FUNCTION void check_row_map_ends(const Member& team) const {
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      int bits = 0;
      if (static_cast<std::int64_t>(ops.a_row_map(0)) != 0 || static_cast<std::int64_t>(ops.a_row_map(a_rows)) != ops.a_nnz)
        bits |= error_bad_a;
      if (static_cast<std::int64_t>(ops.b_row_map(0)) != 0 ||
          static_cast<std::int64_t>(ops.b_row_map(ops.b_rows)) != ops.b_nnz)
        bits |= error_bad_b;
      if (bits) Kokkos::atomic_fetch_or(&summary(SummarySlot::errors), std::int64_t(bits));
    });
  }

  /// Every row of B (monotone row map) and every entry (column in range) of
  /// one slice of B.
  KOKKOS_INLINE_FUNCTION void check_b(const Member& team, std::int64_t slice) const {
    if (!check_all_of_b) return;
    const std::int64_t e0 = slice * b_entries_per_team;
    const std::int64_t e1 = e0 + b_entries_per_team < ops.b_nnz ? e0 + b_entries_per_team : ops.b_nnz;
    const std::int64_t r1 = e0 + b_entries_per_team < ops.b_rows ? e0 + b_entries_per_team : ops.b_rows;
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, e0, e1 > r1 ? e1 : r1),
        [&](const std::int64_t e, std::int64_t& b) {
          if (e < e1 && !ops.column_ok(ops.b_entries(e))) b += 1;
          if (e < r1 && ops.b_row_map(e + 1) < ops.b_row_map(e)) b += 1;
        },
        bad);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (bad) Kokkos::atomic_fetch_or(&summary(SummarySlot::errors), std::int64_t(error_bad_b));
    });
  }
};

}  // namespace gustav::detail
