#pragma once
/// Long rows on the hierarchical mapping: rows too long for a table in team
/// scratch, or with so many products that one team would be left working
/// long after the others. Each row of a batch takes a dense window
/// (dense_window.hpp) from a pool and `slices` teams, each taking an equal
/// share of the row's products (counted in walk order, so a single long
/// row of B is shared too); a team per row then reads the window out.
/// Columns beyond the window are left to the next window's pass, so any
/// number of columns works within a bounded pool.
///
///   count      window bits, then the row's nnz (symbolic counting pass)
///   structure  window bits, then the sorted columns (gustav::symbolic)
///   values     window bits and values, then sorted columns and values
///   reuse      positions of the row's columns, values added into C
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/dense_window.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/spgemm/accumulate_rows.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

enum class LongPass { count, structure, values, reuse };

template <LongPass Pass>
constexpr WindowContent window_content() {
  if constexpr (Pass == LongPass::reuse) return WindowContent::positions;
  if constexpr (Pass == LongPass::values) return WindowContent::bitmap_and_values;
  return WindowContent::bitmap;
}

template <LongPass Pass>
constexpr RowOutput row_output() {
  if constexpr (Pass == LongPass::reuse) return RowOutput::reuse;
  if constexpr (Pass == LongPass::values) return RowOutput::values;
  return RowOutput::structure;
}

/// What the three long-row kernels share: the rows, the pool and the window.
template <class ExecSpace, class Types, class Rows, LongPass Pass>
struct LongRowBatch {
  using Scalar = typename Types::scalar_type;
  using Ordinal = typename Types::ordinal_type;
  using Window = DenseWindow<Scalar, window_content<Pass>()>;
  using Device = typename Types::device_type;

  ProductOperands<Types> ops;
  RowWriter<ExecSpace, Types, row_output<Pass>()> out;
  Rows rows;                    ///< the long bin's rows
  Kokkos::View<std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> progress;  ///< per long row
  char* pool = nullptr;
  std::size_t window_bytes = 0;
  std::int64_t first_row = 0;   ///< batch start within rows
  std::int64_t first_col = 0;   ///< window: columns [first_col, first_col + width)
  std::int64_t width = 0;
  bool last_window = false;
  bool first_window = false;

  KOKKOS_INLINE_FUNCTION Window window(std::int64_t r) const {
    Carver c(pool + static_cast<std::size_t>(r) * window_bytes);
    return Window::carve(c, width);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t row(std::int64_t r) const { return static_cast<std::int64_t>(rows(first_row + r)); }
};

/// A team per (row, slice): the slice's share of the row's products goes
/// into the row's window (or, for reuse, straight into C).
template <class ExecSpace, class Types, class Rows, LongPass Pass>
struct LongRowSlices {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, Pass>;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;

  Batch batch;
  ErrorFlag<typename Types::device_type> errors;
  int slices = 1;
  std::int64_t per_slice = 0;  ///< products per slice
  int lanes = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank() / slices;
    const std::int64_t s = team.league_rank() % slices;
    const std::int64_t row = batch.row(r);
    const auto w = batch.window(r);
    const std::int64_t t_begin = s * per_slice, t_end = t_begin + per_slice;
    const std::int64_t threads = static_cast<std::int64_t>(team.team_size()) * lanes;
    const auto& ops = batch.ops;
    std::int64_t a0, a1;
    ops.a_row(row, a0, a1);
    const std::int64_t start = batch.out.start(row), n = batch.out.length(row);
    int bits = 0;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const std::int64_t tid) {
      // Walk A's row; take the products t in [t_begin, t_end) with
      // t = t_begin + tid (mod threads).
      std::int64_t base = 0;
      for (std::int64_t j = a0; j < a1 && base < t_end; ++j) {
        std::int64_t b0, b1;
        if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
        const std::int64_t len = b1 - b0;
        const std::int64_t lo = base > t_begin ? base : t_begin;
        const std::int64_t hi = base + len < t_end ? base + len : t_end;
        if (lo < hi) {
          std::int64_t t = lo + ((tid - (lo - t_begin)) % threads + threads) % threads;
          for (; t < hi; t += threads) product(w, j, b0 + (t - base), start, n, bits);
        }
        base += len;
      }
    });
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }

  template <class Window>
  KOKKOS_INLINE_FUNCTION void product(const Window& w, std::int64_t j, std::int64_t p, std::int64_t start,
                                      std::int64_t n, int& bits) const {
    const auto& ops = batch.ops;
    const Ordinal c = ops.b_entries(p);
    if (!ops.column_ok(c)) {
      bits |= error_bad_b;
      return;
    }
    const std::int64_t x = static_cast<std::int64_t>(c) - batch.first_col;
    if (x < 0 || x >= batch.width) return;  // another window's
    if constexpr (Pass == LongPass::reuse) {
      const std::int64_t q = w.positions[x];
      if (q < 0 || q >= n || batch.out.c_entries(start + q) != c) {
        bits |= error_structure_changed;
        return;
      }
      Concurrent::add(&batch.out.c_values(start + q), Scalar(ops.a_values(j) * ops.b_values(p)));
    } else {
      // Fire-and-forget atomics: nothing waits for the old word.
      Kokkos::atomic_or(&w.words[x >> 5], std::uint32_t(1) << (x & 31));
      if constexpr (Pass == LongPass::values) Concurrent::add(&w.values[x], Scalar(ops.a_values(j) * ops.b_values(p)));
    }
  }
};

/// Reuse: a team per row records the window's column positions (and, in
/// the first window, zeroes the row's values in C).
template <class ExecSpace, class Types, class Rows>
struct LongRowPositions {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, LongPass::reuse>;

  Batch batch;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t row = batch.row(r);
    const auto w = batch.window(r);
    const std::int64_t start = batch.out.start(row), n = batch.out.length(row);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) {
      const std::int64_t x = static_cast<std::int64_t>(batch.out.c_entries(start + q)) - batch.first_col;
      if (x >= 0 && x < batch.width) w.positions[x] = static_cast<int>(q);
      if (batch.first_window) batch.out.c_values(start + q) = typename Types::scalar_type();
    });
  }
};

/// A team per row reads the window out: the nnz (count), or the columns and
/// values in order (structure, values), clearing what it read.
template <class ExecSpace, class Types, class Rows, class RowBinView, LongPass Pass>
struct LongRowReadOut {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, Pass>;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;

  Batch batch;
  ErrorFlag<typename Types::device_type> errors;
  // Counting pass only: the row's nnz, numeric bin and the bins' tallies.
  typename Types::c_row_map c_row_map;
  RowBinView row_bin;
  SummaryView<typename Types::device_type> summary;
  RowBinBounds numeric_bins;
  std::int64_t max_row_count = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t row = batch.row(r);
    const auto w = batch.window(r);
    const std::int64_t words = (batch.width + 31) / 32;
    if constexpr (Pass == LongPass::count) {
      std::int64_t nnz = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, words),
          [&](const std::int64_t i, std::int64_t& sum) {
            const std::uint32_t v = w.words[i];
            if (v) {
              sum += popcount32(v);
              w.words[i] = 0;
            }
          },
          nnz);
      team.team_barrier();
      if (!batch.last_window) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { batch.progress(batch.first_row + r) += nnz; });
        return;
      }
      const auto& ops = batch.ops;
      std::int64_t a0, a1;
      ops.a_row(row, a0, a1);
      std::int64_t products = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, a0, a1),
          [&](const std::int64_t j, std::int64_t& sum) {
            std::int64_t b0, b1;
            ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1);
            sum += b1 - b0;
          },
          products);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        const std::int64_t total = batch.progress(batch.first_row + r) + nnz;
        if (total > max_row_count) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_row_count_overflow));
        c_row_map(row + 1) = static_cast<typename Types::c_offset_type>(total);
        const std::uint8_t bin = numeric_bins.of(products, total);
        row_bin(row) = bin;
        add_count(&summary(SummarySlot::numeric_rows + bin), 1);
        add_count(&summary(SummarySlot::numeric_products + bin), products);
        raise_count(&summary(SummarySlot::max_nnz), total);
      });
    } else {
      read_out(team, r, row, w, words);
    }
  }

  /// Each worker takes a stretch of the bitmap; a team scan places the
  /// stretches, a vector scan the words within one.
  template <class Window>
  KOKKOS_INLINE_FUNCTION void read_out(const Member& team, std::int64_t r, std::int64_t row, const Window& w,
                                       std::int64_t words) const {
    const std::int64_t workers = team.team_size();
    const std::int64_t stretch = (words + workers - 1) / workers;
    const std::int64_t s0 = stretch * team.team_rank();
    const std::int64_t len = s0 < words ? (s0 + stretch < words ? stretch : words - s0) : 0;
    std::int64_t mine = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, len),
        [&](const std::int64_t i, std::int64_t& sum) { sum += popcount32(w.words[s0 + i]); }, mine);
    const std::int64_t before = team.team_scan(mine);
    team.team_barrier();
    const std::int64_t base = batch.out.start(row) + batch.progress(batch.first_row + r) + before;
    // A zero-based range: Kokkos 3.4's vector scan ignores a range's begin.
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, len),
                          [&](const std::int64_t i, std::int64_t& partial, const bool final) {
                            const std::uint32_t v = w.words[s0 + i];
                            if (final && v) {
                              std::int64_t o = base + partial;
                              for (std::uint32_t bits = v; bits; bits &= bits - 1) {
                                const std::int64_t x = (s0 + i) * 32 + lowest_bit32(bits);
                                batch.out.c_entries(o) = static_cast<Ordinal>(batch.first_col + x);
                                if constexpr (Pass == LongPass::values) {
                                  batch.out.c_values(o) = w.values[x];
                                  w.values[x] = Scalar();
                                }
                                ++o;
                              }
                              w.words[s0 + i] = 0;
                            }
                            partial += popcount32(v);
                          });
    // The last worker's scan end is the window's total.
    team.team_barrier();
    if (team.team_rank() == team.team_size() - 1)
      Kokkos::single(Kokkos::PerThread(team), [&]() { batch.progress(batch.first_row + r) += before + mine; });
  }
};

}  // namespace gustav::detail
