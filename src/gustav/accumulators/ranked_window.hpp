#pragma once
/// A long row's known columns in team scratch, for adding values into C:
/// for a window of `width` columns, a bitmap with a bit per column of the
/// row and, for each 32-column word, the position in the row of C of its
/// lowest column. A column's position is then its word's rank plus the set
/// bits below it in the word: two scratch loads per product, where a table
/// in global memory took two scattered loads (a sector each).
///
/// A team builds it from C's sorted row (the positions [q0, q1) whose
/// columns lie in the window), so nothing is kept between calls and the
/// window needs no pool: a quarter of a byte per column (163,840 columns
/// in 40 KiB).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/common/bits.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

struct RankedWindow {
  std::uint32_t* words = nullptr;  ///< bit (x & 31) of word x / 32 for window column x
  std::uint32_t* ranks = nullptr;  ///< each marked word's lowest column's place among the window's columns

  KOKKOS_INLINE_FUNCTION static RankedWindow carve(Carver& c, std::int64_t width) {
    RankedWindow w;
    const std::int64_t words = (width + 31) / 32;
    w.words = c.take<std::uint32_t>(words);
    w.ranks = c.take<std::uint32_t>(words);
    return w;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(std::int64_t width) {
    Carver c(nullptr);
    carve(c, width);
    return c.used();
  }
  /// The widest window (a multiple of 32 columns) that fits `bytes`.
  static std::int64_t width_for(std::size_t bytes) {
    return static_cast<std::int64_t>(bytes > 64 ? (bytes - 64) / (2 * sizeof(std::uint32_t)) : 0) * 32;
  }

  /// The team marks and ranks the window's columns [first_col, first_col +
  /// width) from positions [q0, q1) of C's row `entries` (ascending;
  /// entries(q) is the column at position q), calling visit(q, column) for
  /// each position as it goes. A column outside the window (a row that does
  /// not ascend) is skipped. Ends with the team's barrier.
  template <class Member, class Entries, class Visit>
  KOKKOS_INLINE_FUNCTION void build(const Member& team, const Entries& entries, std::int64_t q0, std::int64_t q1,
                                    std::int64_t first_col, std::int64_t width, const Visit& visit) const {
    const std::int64_t n_words = (width + 31) / 32;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n_words), [&](const std::int64_t i) { words[i] = 0; });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, q0, q1), [&](const std::int64_t q) {
      const std::int64_t c = static_cast<std::int64_t>(entries(q));
      visit(q, c);
      const std::int64_t x = c - first_col;
      if (x < 0 || x >= width) return;
      Kokkos::atomic_or(&words[x >> 5], std::uint32_t(1) << (x & 31));
      // Windows start at a multiple of 32 columns, so window words are
      // column words and the first of the window's positions starts one.
      if (q == q0 || ((static_cast<std::int64_t>(entries(q - 1)) - first_col) >> 5) != (x >> 5))
        ranks[x >> 5] = static_cast<std::uint32_t>(q - q0);
    });
    team.team_barrier();
  }

  /// The place of window column x among the window's columns (its row
  /// position less q0), or -1 where x is not marked.
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t x) const {
    const std::uint32_t word = words[x >> 5];
    const std::uint32_t bit = std::uint32_t(1) << (x & 31);
    if (!(word & bit)) return -1;
    return static_cast<std::int64_t>(ranks[x >> 5]) + popcount32(word & (bit - 1));
  }
};

}  // namespace gustav::detail
