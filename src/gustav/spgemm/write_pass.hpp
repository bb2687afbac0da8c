#pragma once
/// The one-shot product's second walk on the thread-per-row mapping (CPUs).
/// The counting pass has fixed every row's nnz and C's row map, so a thread
/// accumulates its row's columns and values and writes both to C itself:
/// gustav::multiply walks the products twice in all (count, write) instead
/// of three times (count, fill, numeric). gustav::symbolic, whose plan must
/// hold C's structure before any value exists, keeps the fill pass.
///
/// The accumulator is dense (symbolic.hpp runs this pass only when that fits
/// and B did not compress): a value per column of B and a leveled bitmap over
/// the columns (leveled_bitmap.hpp). A column's first product sets its value,
/// later ones add (nothing is zeroed per row); the row goes out in column
/// order by descending the bitmap's levels (no sort), which also clears it.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/leveled_bitmap.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/compression/compressed_rows.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types>
struct WritePass {
  using execution_space = ExecSpace;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Concurrency = Exclusive;  ///< one thread per row: no atomics
  static constexpr Ordinal empty = Ordinal(-1);
  static constexpr int dense_fill_byte = 0;  ///< bitmaps start clear; values are set on first touch
  static constexpr bool has_long_prepare = false;

  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  typename Types::values a_values;
  typename Types::b_row_map b_row_map;
  typename Types::entries b_entries;
  typename Types::values b_values;
  Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type> c_row_map;
  typename Types::c_entries c_entries;
  typename Types::c_values c_values;
  Kokkos::View<int, typename Types::device_type> errors;
  std::int64_t a_nnz = 0;
  double max_load = 0.5;
  std::int64_t bitmap_words = 0;  ///< 32-bit words of the dense bitmap over B's columns

  KOKKOS_INLINE_FUNCTION std::int64_t need(std::int64_t row) const {
    return static_cast<std::int64_t>(c_row_map(row + 1) - c_row_map(row));
  }

  /// Level-1 bytes (the write pass has only its dense tier: none).
  KOKKOS_INLINE_FUNCTION static std::size_t region_bytes(int, std::int64_t) { return 0; }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes_for(int) { return 0; }

  /// The dense accumulator: a value per column and a leveled bitmap over
  /// the columns (leveled_bitmap.hpp).
  struct Dense {
    LeveledBitmap bitmap;
    Scalar* values;
  };
  KOKKOS_INLINE_FUNCTION static Dense dense_layout(Carver& c, std::int64_t words) {
    Dense d;
    d.bitmap = LeveledBitmap::carve(c, words);
    d.values = c.take<Scalar>(words << column_set_shift);
    return d;
  }
  /// Dense accumulator bytes: a value per column, a little over a bit per
  /// column for the bitmap and its summaries.
  static std::size_t dense_bytes(std::int64_t b_cols) {
    Carver c(nullptr);
    dense_layout(c, ceil_div<std::int64_t>(b_cols, std::int64_t(1) << column_set_shift));
    return c.used();
  }

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void process_row(const Member&, const RowContext& ctx) const {
    if (ctx.row < 0) return;
    if (ctx.dense) {
      dense_row(ctx);
    } else {
      // Only the dense tier is ever launched (write_pass_is_dense).
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
    }
  }

  /// Calls f(j, p) for every product of the row, in order, fetching rows of
  /// B ahead (prefetch.hpp).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_product(std::int64_t row, const F& f) const {
    walk_row_products(a_row_map, a_entries, b_row_map, row,
                      rows_ahead(a_entries, a_nnz, b_row_map, b_entries, b_values), f);
  }

  KOKKOS_INLINE_FUNCTION void dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    Carver c(ctx.chunk);
    const Dense d = dense_layout(c, bitmap_words);
    for_each_product(row, [&](const auto j, const auto p) {
      const Ordinal col = b_entries(p);
      const std::uint32_t bit = std::uint32_t(1) << (col & 31);
      const Scalar product = a_values(j) * b_values(p);
      if (d.bitmap.set(static_cast<std::int64_t>(col) >> 5, bit) & bit) {
        d.values[col] += product;
      } else {
        d.values[col] = product;
      }
    });
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    std::int64_t out = start;
    d.bitmap.drain([&](std::int64_t w, std::uint32_t word) {
      for (; word; word &= word - 1) {
        const std::int64_t col = (w << 5) + lowest_bit32(word);
        if (out < end) {
          c_entries(out) = static_cast<Ordinal>(col);
          c_values(out) = d.values[col];
        }
        ++out;
      }
    });
    if (out != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
  }
};

}  // namespace gustav::detail
