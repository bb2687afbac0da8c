#pragma once
/// The long rows' accumulator in the structure passes (seed 002's dense
/// accumulator, spECK's dense rows): for a window of `width` columns of B,
/// a bitmap with a bit per column. It lives in global memory (a pool slice
/// per row of a batch), so the several teams that share a long row can all
/// mark it, and reading the bitmap in order gives the row's columns sorted
/// without a sort. An eighth of a byte per column keeps many long rows in
/// the pool at once (a window of 2^20 columns takes 128 KiB per row).
///
/// The bitmap starts at zero and is left at zero by whoever reads it, so a
/// pool slice serves batch after batch without a full clear.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

struct DenseWindow {
  std::uint32_t* words = nullptr;  ///< bit (x & 31) of word x / 32 for window column x

  KOKKOS_INLINE_FUNCTION static DenseWindow carve(Carver& c, std::int64_t width) {
    DenseWindow w;
    w.words = c.take<std::uint32_t>((width + 31) / 32);
    return w;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(std::int64_t width) {
    Carver c(nullptr);
    carve(c, width);
    return c.used();
  }
  /// Bytes per column of the window (for choosing the width).
  static double bytes_per_column() { return sizeof(std::uint32_t) / 32.0; }

  /// Marks window column x (fire-and-forget: nothing waits for the old word).
  KOKKOS_INLINE_FUNCTION void mark(std::int64_t x) const {
    Kokkos::atomic_or(&words[x >> 5], std::uint32_t(1) << (x & 31));
  }
};

}  // namespace gustav::detail
