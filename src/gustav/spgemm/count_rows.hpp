#pragma once
/// The symbolic phase's counting pass on the hierarchical mapping: the nnz of
/// each row of C, as the number of distinct columns its products reach, in a
/// hash set of keys in team scratch (seed 002's level 1). Nothing but the
/// count is kept: the columns themselves are found again, with their values,
/// by the numeric phase, which writes each row of C whole (nsparse).
///
/// Each counted row also gets its numeric bin, by its nnz and products, and
/// the team tallies the numeric bins' rows and products for the host.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/hash_table.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

/// Team-scratch tallies of numeric bins, flushed with one atomic per bin.
struct NumericTally {
  static constexpr int slots = 2 * max_row_bins + 1;  // rows per bin, products per bin, largest nnz
  KOKKOS_INLINE_FUNCTION static std::size_t bytes() { return slots * sizeof(std::int64_t); }

  template <class Member>
  KOKKOS_INLINE_FUNCTION static std::int64_t* take(const Member& team) {
    return static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(bytes()));
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION static void clear(const Member& team, std::int64_t* t) {
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      for (int i = 0; i < slots; ++i) t[i] = 0;
    });
  }
  KOKKOS_INLINE_FUNCTION static void add(std::int64_t* t, int bin, std::int64_t products, std::int64_t nnz) {
    add_count(&t[bin], 1);
    add_count(&t[max_row_bins + bin], products);
    raise_count(&t[2 * max_row_bins], nnz);
  }
  template <class Member, class Summary>
  KOKKOS_INLINE_FUNCTION static void flush(const Member& team, const std::int64_t* t, const Summary& summary) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, int(slots)), [&](int i) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const std::int64_t v = t[i];
        if (v == 0) return;
        if (i < max_row_bins) add_count(&summary(SummarySlot::numeric_rows + i), v);
        else if (i < 2 * max_row_bins) add_count(&summary(SummarySlot::numeric_products + i - max_row_bins), v);
        else raise_count(&summary(SummarySlot::max_nnz), v);
      });
    });
  }
};

template <class ExecSpace, class Types, class Rows, class RowBinView, bool TeamPerRow>
struct CountRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Ordinal = typename Types::ordinal_type;
  using Table = HashTable<Ordinal, Concurrent>;

  ProductOperands<Types> ops;
  Rows rows;                 ///< this bin's rows
  std::int64_t num_rows = 0;
  typename Types::c_row_map c_row_map;  ///< nnz of each row, at row + 1
  RowBinView row_bin;        ///< out: numeric bin of each row
  SummaryView<typename Types::device_type> summary;
  RowBinBounds numeric_bins;
  std::int64_t max_row_count = 0;  ///< most entries a row of C may have in the offset type
  int log2_slots = 0;
  int lanes = 1;             ///< lanes per worker (the policy's vector length)

  KOKKOS_INLINE_FUNCTION static std::size_t table_bytes(int log2) { return (std::size_t(1) << log2) * sizeof(Ordinal); }
  std::size_t scratch_bytes(int workers) const {
    return NumericTally::bytes() + (table_bytes(log2_slots) + (TeamPerRow ? TeamRowCache::bytes() : RowCache<Types>::bytes())) *
                                       (TeamPerRow ? 1 : workers) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    std::int64_t* tally = NumericTally::take(team);
    NumericTally::clear(team, tally);
    auto* keys = static_cast<Ordinal*>(
        team.team_scratch(0).get_shmem(table_bytes(log2_slots) * (TeamPerRow ? 1 : team.team_size())));
    team.team_barrier();
    int errors = 0;
    if constexpr (TeamPerRow) {
      count_team_row(team, keys, tally, errors);
    } else {
      auto* caches = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(RowCache<Types>::bytes() * team.team_size(), 8));
      const RowCache<Types> cache = RowCache<Types>::at(caches + RowCache<Types>::bytes() * team.team_rank());
      count_worker_rows(team, keys + (std::int64_t(team.team_rank()) << log2_slots), cache, tally, errors);
    }
    if (errors) Kokkos::atomic_fetch_or(&summary(SummarySlot::errors), std::int64_t(errors));
    team.team_barrier();
    NumericTally::flush(team, tally, summary);
  }

  KOKKOS_INLINE_FUNCTION void finish_row(std::int64_t row, std::int64_t entries, std::int64_t products,
                                         std::int64_t nnz, std::int64_t* tally, int& errors) const {
    if (nnz > max_row_count) errors |= error_row_count_overflow;
    c_row_map(row + 1) = static_cast<typename Types::c_offset_type>(nnz);
    const std::uint8_t bin = numeric_bins.of(products, nnz, entries);
    row_bin(row) = bin;
    NumericTally::add(tally, bin, products, nnz);
  }

  /// Puts column c of a product into the row's set, counting it if it is new.
  KOKKOS_INLINE_FUNCTION void insert_column(const Table& table, Ordinal c, std::int64_t& fresh, int& errors) const {
    if (!ops.column_ok(c)) {
      errors |= error_bad_b;
      return;
    }
    bool is_new = false;
    if (table.insert(c, 1 << log2_slots, is_new) < 0) errors |= error_table_full;
    fresh += is_new ? 1 : 0;
  }

  /// A worker per row (each worker loops over rows): its lanes share the
  /// row's products (flattened) and its table.
  KOKKOS_INLINE_FUNCTION void count_worker_rows(const Member& team, Ordinal* keys, const RowCache<Types>& cache,
                                                std::int64_t* tally, int& errors) const {
    for_each_worker_row(team, num_rows, [&](std::int64_t w) {
      count_worker_row(team, static_cast<std::int64_t>(rows(w)), keys, cache, tally, errors);
    });
  }

  KOKKOS_INLINE_FUNCTION void count_worker_row(const Member& team, std::int64_t row, Ordinal* keys,
                                               const RowCache<Types>& cache, std::int64_t* tally, int& errors) const {
    const Table table{keys, log2_slots};
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 1 << log2_slots), [&](int s) { keys[s] = Table::empty; });
    std::int64_t a0, a1;
    ops.a_row(row, a0, a1);
    // Each lane counts the columns it inserted first; a vector sum adds them.
    std::int64_t fresh = 0;
    bool bad = false;
    const std::int64_t products =
        walk_worker_products(team, ops, cache, a0, a1, lanes, bad, [&](std::int64_t, std::int64_t p, std::int64_t) {
          insert_column(table, ops.b_entries(p), fresh, errors);
        });
    if (bad) errors |= error_bad_a;
    std::int64_t nnz = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes), [&](const int, std::int64_t& sum) { sum += fresh; }, nnz);
    Kokkos::single(Kokkos::PerThread(team), [&]() { finish_row(row, a1 - a0, products, nnz, tally, errors); });
  }

  /// A team per row: its threads share the row's products (flattened).
  KOKKOS_INLINE_FUNCTION void count_team_row(const Member& team, Ordinal* keys, std::int64_t* tally,
                                             int& errors) const {
    const TeamRowCache cache = TeamRowCache::at(
        static_cast<char*>(team.team_scratch(0).get_shmem_aligned(TeamRowCache::bytes(), 16)));
    auto* sums = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(sizeof(std::int64_t)));
    const Table table{keys, log2_slots};
    for (std::int64_t r = team.league_rank(); r < num_rows; r += team.league_size()) {
      const std::int64_t row = static_cast<std::int64_t>(rows(r));
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 1 << log2_slots), [&](int s) { keys[s] = Table::empty; });
      Kokkos::single(Kokkos::PerTeam(team), [&]() { sums[0] = 0; });
      team.team_barrier();
      std::int64_t a0, a1;
      ops.a_row(row, a0, a1);
      std::int64_t fresh = 0;
      bool bad = false;
      const std::int64_t products = walk_team_products(
          team, ops, cache, lanes, a0, a1, bad,
          [&](std::int64_t, std::int64_t p) { insert_column(table, ops.b_entries(p), fresh, errors); });
      if (bad) errors |= error_bad_a;
      if (fresh) add_count(&sums[0], fresh);
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { finish_row(row, a1 - a0, products, sums[0], tally, errors); });
      team.team_barrier();
    }
  }
};

}  // namespace gustav::detail
