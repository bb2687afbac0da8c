#pragma once
/// The rows of C on the hierarchical mapping, once their nnz is known, in
/// three kinds of output over one traversal:
///   structure  C's sorted column indices (gustav::symbolic's plan)
///   values     C's sorted column indices and values (gustav::multiply: the
///              numeric phase writes each row whole, as nsparse does, so the
///              products are walked twice in all, not three times)
///   reuse      values into a plan's known structure (gustav::numeric)
///
/// Tiny rows keep their few products in registers. Worker and team rows
/// accumulate in a hash table in team scratch: keys (and values) by column
/// for the first two kinds, sorted in place afterwards (empty slots sort
/// last); for reuse the table maps each column of the row to its position,
/// values add up in a scratch array in the row's order and go out in one
/// coalesced write, and a product whose column the row lacks raises
/// error_structure_changed.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/hash_table.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/spgemm/summary.hpp"
#include "gustav/team/levels.hpp"
#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

enum class RowOutput { structure, values, reuse };

template <class ExecSpace, class Types, RowOutput Output>
struct RowWriter {
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using COffset = typename Types::c_offset_type;
  static constexpr bool with_values = Output != RowOutput::structure;

  Kokkos::View<const COffset*, typename Types::device_type> c_row_map;
  typename Types::c_entries c_entries;  ///< written (structure, values) or read (reuse)
  typename Types::c_values c_values;    ///< written (values, reuse)

  KOKKOS_INLINE_FUNCTION std::int64_t start(std::int64_t row) const { return static_cast<std::int64_t>(c_row_map(row)); }
  KOKKOS_INLINE_FUNCTION std::int64_t length(std::int64_t row) const {
    return static_cast<std::int64_t>(c_row_map(row + 1) - c_row_map(row));
  }
};

/// Scratch layout of one row's table; with a null base it only measures.
template <class Types, RowOutput Output>
struct RowTable {
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  Ordinal* keys = nullptr;
  Scalar* values = nullptr;  ///< by slot (structure: none; reuse: by position in the row)
  int* positions = nullptr;  ///< reuse: the row position of each slot's column

  KOKKOS_INLINE_FUNCTION static RowTable carve(Carver& c, int log2_slots) {
    const std::int64_t slots = std::int64_t(1) << log2_slots;
    RowTable t;
    t.keys = c.take<Ordinal>(slots);
    if constexpr (Output == RowOutput::values) t.values = c.take<Scalar>(slots);
    if constexpr (Output == RowOutput::reuse) {
      t.positions = c.take<int>(slots);
      t.values = c.take<Scalar>(slots);
    }
    return t;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(int log2_slots) {
    Carver c(nullptr);
    carve(c, log2_slots);
    return c.used();
  }
};

template <class ExecSpace, class Types, class Rows, RowOutput Output, RowLevel Level>
struct AccumulateRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Table = HashTable<Ordinal, Concurrent>;
  using Layout = RowTable<Types, Output>;
  using Sync = std::conditional_t<Level == RowLevel::team, TeamLevel, WorkerLevel>;

  ProductOperands<Types> ops;
  RowWriter<ExecSpace, Types, Output> out;
  Rows rows;  ///< this bin's rows
  std::int64_t num_rows = 0;
  ErrorFlag<typename Types::device_type> errors;
  int log2_slots = 0;
  int lanes = 1;  ///< lanes per worker (the policy's vector length)

  std::size_t scratch_bytes(int workers) const {
    if constexpr (Level == RowLevel::tiny) return 0;
    return Layout::bytes(log2_slots) * (Level == RowLevel::team ? 1 : workers) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    int bits = 0;
    if constexpr (Level == RowLevel::tiny) {
      const std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
      if (w < num_rows) Kokkos::single(Kokkos::PerThread(team), [&]() { tiny_row(static_cast<std::int64_t>(rows(w)), bits); });
    } else {
      const std::size_t region = Layout::bytes(log2_slots);
      char* scratch = static_cast<char*>(
          team.team_scratch(0).get_shmem_aligned(region * (Level == RowLevel::team ? 1 : team.team_size()), 16));
      if constexpr (Level == RowLevel::team) {
        Carver c(scratch);
        const Layout t = Layout::carve(c, log2_slots);
        for (std::int64_t r = team.league_rank(); r < num_rows; r += team.league_size())
          table_row(team, static_cast<std::int64_t>(rows(r)), t, bits);
      } else {
        const std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
        Carver c(scratch + region * team.team_rank());
        const Layout t = Layout::carve(c, log2_slots);
        if (w < num_rows) table_row(team, static_cast<std::int64_t>(rows(w)), t, bits);
      }
    }
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }

  // --- tiny rows: one thread, the products in registers --------------------

  KOKKOS_INLINE_FUNCTION void tiny_row(std::int64_t row, int& bits) const {
    Ordinal cols[tiny_products];
    Scalar vals[tiny_products];
    int m = 0;
    std::int64_t a0, a1;
    if (!ops.a_row(row, a0, a1)) bits |= error_bad_a;
    for (std::int64_t j = a0; j < a1; ++j) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
      for (std::int64_t p = b0; p < b1; ++p) {
        const Ordinal c = ops.b_entries(p);
        if (!ops.column_ok(c)) {
          bits |= error_bad_b;
          continue;
        }
        Scalar v{};
        if constexpr (Output != RowOutput::structure) v = ops.a_values(j) * ops.b_values(p);
        int s = 0;
        while (s < m && cols[s] != c) ++s;
        if (s == m) {
          if (m == tiny_products) {  // more products than the bin allows: the structure changed
            bits |= error_structure_changed;
            continue;
          }
          cols[m] = c;
          vals[m] = v;
          ++m;
        } else {
          vals[s] += v;
        }
      }
    }
    const std::int64_t start = out.start(row), n = out.length(row);
    if constexpr (Output == RowOutput::reuse) {
      int found = 0;
      for (std::int64_t q = 0; q < n; ++q) {
        const Ordinal c = out.c_entries(start + q);
        Scalar v{};
        for (int s = 0; s < m; ++s)
          if (cols[s] == c) {
            v = vals[s];
            ++found;
          }
        out.c_values(start + q) = v;
      }
      if (found != m) bits |= error_structure_changed;
    } else {
      // Insertion sort of at most tiny_products entries.
      for (int s = 1; s < m; ++s) {
        const Ordinal c = cols[s];
        const Scalar v = vals[s];
        int t = s - 1;
        while (t >= 0 && cols[t] > c) {
          cols[t + 1] = cols[t];
          vals[t + 1] = vals[t];
          --t;
        }
        cols[t + 1] = c;
        vals[t + 1] = v;
      }
      if (m != n) {
        bits |= error_table_full;
        return;
      }
      for (int s = 0; s < m; ++s) {
        out.c_entries(start + s) = cols[s];
        if constexpr (Output == RowOutput::values) out.c_values(start + s) = vals[s];
      }
    }
  }

  // --- worker and team rows: a hash table in team scratch ------------------

  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each(const Member& team, std::int64_t n, const F& f) const {
    if constexpr (Level == RowLevel::team) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), f);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), f);
    }
  }

  /// Calls f(j, p) for every product of the row, spread over the worker's
  /// lanes (flattened) or the team.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_product(const Member& team, std::int64_t a0, std::int64_t a1, int& bits,
                                               const F& f) const {
    bool bad = false;
    if constexpr (Level == RowLevel::team) {
      walk_team_products(team, ops, a0, a1, bad, f);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
        walk_lane_products(ops, a0, a1, lane, lanes, bad,
                           [&](std::int64_t j, std::int64_t p, std::int64_t) { f(j, p); });
      });
    }
    if (bad) bits |= error_bad_a;
  }

  KOKKOS_INLINE_FUNCTION void table_row(const Member& team, std::int64_t row, const Layout& t, int& bits) const {
    const int slots = 1 << log2_slots;
    const Table table{t.keys, log2_slots};
    const std::int64_t start = out.start(row), n = out.length(row);
    std::int64_t a0, a1;
    if (!ops.a_row(row, a0, a1)) bits |= error_bad_a;

    if constexpr (Output == RowOutput::reuse) {
      for_each(team, slots, [&](int s) { t.keys[s] = Table::empty; });
      for_each(team, n, [&](std::int64_t q) { t.values[q] = Scalar(); });
      Sync::sync(team);
      for_each(team, n, [&](std::int64_t q) {
        bool is_new = false;
        const int s = table.insert(out.c_entries(start + q), slots, is_new);
        if (s < 0) {
          bits |= error_table_full;
        } else {
          t.positions[s] = static_cast<int>(q);
        }
      });
      Sync::sync(team);
      for_each_product(team, a0, a1, bits, [&](std::int64_t j, std::int64_t p) {
        const Ordinal c = ops.b_entries(p);
        const int s = ops.column_ok(c) ? table.find(c, slots) : -1;
        if (s < 0) {
          bits |= ops.column_ok(c) ? error_structure_changed : error_bad_b;
          return;
        }
        Concurrent::add(t.values + t.positions[s], Scalar(ops.a_values(j) * ops.b_values(p)));
      });
      Sync::sync(team);
      for_each(team, n, [&](std::int64_t q) { out.c_values(start + q) = t.values[q]; });
    } else {
      for_each(team, slots, [&](int s) {
        t.keys[s] = Table::empty;
        if constexpr (Output == RowOutput::values) t.values[s] = Scalar();
      });
      Sync::sync(team);
      for_each_product(team, a0, a1, bits, [&](std::int64_t j, std::int64_t p) {
        const Ordinal c = ops.b_entries(p);
        if (!ops.column_ok(c)) {
          bits |= error_bad_b;
          return;
        }
        bool is_new = false;
        const int s = table.insert(c, slots, is_new);
        if (s < 0) {
          bits |= error_table_full;
          return;
        }
        if constexpr (Output == RowOutput::values) Concurrent::add(t.values + s, Scalar(ops.a_values(j) * ops.b_values(p)));
      });
      Sync::sync(team);
      // Empty slots (key -1) sort last: the row's n columns come first.
      if constexpr (Output == RowOutput::values) {
        bitonic_sort_pairs<Sync>(team, t.keys, t.values, slots);
      } else {
        bitonic_sort_pairs<Sync>(team, t.keys, static_cast<int*>(nullptr), slots);
      }
      for_each(team, n, [&](std::int64_t q) {
        out.c_entries(start + q) = t.keys[q];
        if constexpr (Output == RowOutput::values) out.c_values(start + q) = t.values[q];
      });
      // The table must hold exactly the row's n columns.
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        if ((n > 0 && t.keys[n - 1] == Table::empty) || (n < slots && t.keys[n] != Table::empty))
          bits |= error_table_full;
      });
    }
    Sync::sync(team);
  }
};

}  // namespace gustav::detail
