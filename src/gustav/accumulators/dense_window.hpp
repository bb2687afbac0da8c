#pragma once
/// The long rows' accumulator (seed 002's dense accumulator, spECK's dense
/// rows): for a window of `width` columns of B, a bitmap with a bit per
/// column and, when values are accumulated, a value per column; for reuse,
/// the position in the row of C of each column. It lives in global memory
/// (a pool slice per row of a batch), so the several teams that share a
/// long row can all add into it, and reading the bitmap in order gives the
/// row's columns sorted without a sort.
///
/// The bitmap and values start at zero and are left at zero by whoever reads
/// them out, so a pool slice serves batch after batch without a clear.
/// Positions are never cleared: a lookup is only believed when C's entry at
/// that position is the column looked up (stale or uninitialised positions
/// then fail the check), so a column missing from the row is detected.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

enum class WindowContent { bitmap, bitmap_and_values, positions };

template <class Scalar, WindowContent Content>
struct DenseWindow {
  std::uint32_t* words = nullptr;  ///< bitmap: bit c - first of word (c - first) / 32
  Scalar* values = nullptr;        ///< by column - first
  int* positions = nullptr;        ///< reuse: row position by column - first

  KOKKOS_INLINE_FUNCTION static DenseWindow carve(Carver& c, std::int64_t width) {
    DenseWindow w;
    if constexpr (Content == WindowContent::positions) {
      w.positions = c.take<int>(width);
    } else {
      w.words = c.take<std::uint32_t>((width + 31) / 32);
      if constexpr (Content == WindowContent::bitmap_and_values) w.values = c.take<Scalar>(width);
    }
    return w;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(std::int64_t width) {
    Carver c(nullptr);
    carve(c, width);
    return c.used();
  }
  /// Bytes per column of the window (for choosing the width).
  static double bytes_per_column() {
    if constexpr (Content == WindowContent::positions) return sizeof(int);
    if constexpr (Content == WindowContent::bitmap_and_values) return sizeof(Scalar) + 1.0 / 8;
    return 1.0 / 8;
  }
};

}  // namespace gustav::detail
