#pragma once
/// The long rows' accumulator (seed 002's dense accumulator, spECK's dense
/// rows): for a window of `width` columns of B, a bitmap with a bit per
/// column. It lives in global memory (a pool slice per row of a batch), so
/// the several teams that share a long row can all mark it, and reading the
/// bitmap in order gives the row's columns sorted without a sort.
///
/// Where values are accumulated (values, reuse) the window is also ranked:
/// once the bitmap holds exactly the row's columns, each 32-column word
/// keeps the position in the row of C of its lowest column, so a column's
/// position is that rank plus the set bits below it in its word, and values
/// are added straight into C. A quarter of a byte per column instead of a
/// value per column keeps many long rows in the pool at once (a window of
/// 2^20 columns takes 256 KB per row, not 8.5 MB).
///
/// The bitmap starts at zero and is left at zero by whoever reads or clears
/// it, so a pool slice serves batch after batch without a full clear. Ranks
/// need no clear: only the words whose bits are set are read.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/common/bits.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

enum class WindowContent { bitmap, ranked };

template <class Rank, WindowContent Content>
struct DenseWindow {
  std::uint32_t* words = nullptr;  ///< bit (x & 31) of word x / 32 for window column x
  Rank* ranks = nullptr;           ///< ranked: row position of each word's lowest column

  KOKKOS_INLINE_FUNCTION static DenseWindow carve(Carver& c, std::int64_t width) {
    DenseWindow w;
    const std::int64_t words = (width + 31) / 32;
    w.words = c.take<std::uint32_t>(words);
    if constexpr (Content == WindowContent::ranked) w.ranks = c.take<Rank>(words);
    return w;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(std::int64_t width) {
    Carver c(nullptr);
    carve(c, width);
    return c.used();
  }
  /// Bytes per column of the window (for choosing the width).
  static double bytes_per_column() {
    if constexpr (Content == WindowContent::ranked) return (sizeof(std::uint32_t) + sizeof(Rank)) / 32.0;
    return sizeof(std::uint32_t) / 32.0;
  }

  /// Marks window column x (fire-and-forget: nothing waits for the old word).
  KOKKOS_INLINE_FUNCTION void mark(std::int64_t x) const {
    Kokkos::atomic_or(&words[x >> 5], std::uint32_t(1) << (x & 31));
  }
  /// Ranked: the row position of window column x, or -1 where x is unmarked.
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t x) const {
    const std::uint32_t word = words[x >> 5];
    const std::uint32_t bit = std::uint32_t(1) << (x & 31);
    if (!(word & bit)) return -1;
    return static_cast<std::int64_t>(ranks[x >> 5]) + popcount32(word & (bit - 1));
  }
};

}  // namespace gustav::detail
