#pragma once
/// A long row's known columns in team scratch, for adding values into C:
/// for a window of `width` columns, a bitmap with a bit per column of the
/// row and, for each group of 32-column words, the position in the row of
/// C of the group's lowest column. A column's position is then its group's
/// rank plus the set bits below it in the group: a few scratch loads per
/// product, where a table in global memory took two scattered loads (a
/// sector each).
///
/// Two layouts: a rank per word (a quarter of a byte per column, 163,840
/// columns in the 40 KiB of scratch a team gets), and a rank per eight
/// words loaded as two 16-byte halves (9/64 of a byte per column: 2^18
/// columns in 36 KiB). The second is for B too wide for the first, whose
/// products a slice would otherwise walk once per window. Measured on an
/// H100 (2026-12-06, alternating processes, reuse ms): rmat:18:4 8.13 ->
/// 6.73, rmat:18:8:7 25.9 -> 23.6, rmat:20:2 (2^20 columns: four windows
/// for seven) 27.1 -> 24.9; but where a rank per word already covers B,
/// the wider lookup was slower: rmat:16:8 2.68 -> 2.96, arrow:10000 2.03
/// -> 2.33.
///
/// A team builds it from C's sorted row (the positions [q0, q1) whose
/// columns lie in the window), so nothing is kept between calls and the
/// window needs no pool.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/common/bits.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// GroupShift: log2 of a group's columns, 5 (a rank per word) or 8.
template <int GroupShift>
struct RankedWindowOf {
  static_assert(GroupShift == 5 || GroupShift == 8, "a rank per word or per eight words");
  static constexpr int group_shift = GroupShift;
  static constexpr int group_words = 1 << (GroupShift - 5);

  std::uint32_t* words = nullptr;  ///< bit (x & 31) of word x / 32 for window column x
  std::uint32_t* ranks = nullptr;  ///< each marked group's lowest column's place among the window's columns

  struct alignas(16) Half {
    std::uint32_t w[4];
  };

  KOKKOS_INLINE_FUNCTION static std::int64_t groups(std::int64_t width) {
    return (width + (std::int64_t(1) << group_shift) - 1) >> group_shift;
  }
  KOKKOS_INLINE_FUNCTION static RankedWindowOf carve(Carver& c, std::int64_t width) {
    RankedWindowOf w;
    w.words = c.take<std::uint32_t>(groups(width) * group_words);
    w.ranks = c.take<std::uint32_t>(groups(width));
    return w;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(std::int64_t width) {
    Carver c(nullptr);
    carve(c, width);
    return c.used();
  }
  /// The widest window (a whole number of groups) that fits `bytes`.
  static std::int64_t width_for(std::size_t bytes) {
    const std::size_t per_group = (group_words + 1) * sizeof(std::uint32_t);
    return static_cast<std::int64_t>(bytes > 64 ? (bytes - 64) / per_group : 0) << group_shift;
  }

  /// The team marks and ranks the window's columns [first_col, first_col +
  /// width) from positions [q0, q1) of C's row `entries` (ascending;
  /// entries(q) is the column at position q), calling visit(q, column) for
  /// each position as it goes. A column outside the window (a row that does
  /// not ascend) is skipped. Ends with the team's barrier. `width` and
  /// first_col are whole groups.
  template <class Member, class Entries, class Visit>
  KOKKOS_INLINE_FUNCTION void build(const Member& team, const Entries& entries, std::int64_t q0, std::int64_t q1,
                                    std::int64_t first_col, std::int64_t width, const Visit& visit) const {
    const std::int64_t n_words = groups(width) * group_words;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n_words), [&](const std::int64_t i) { words[i] = 0; });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, q0, q1), [&](const std::int64_t q) {
      const std::int64_t c = static_cast<std::int64_t>(entries(q));
      visit(q, c);
      const std::int64_t x = c - first_col;
      if (x < 0 || x >= width) return;
      Kokkos::atomic_or(&words[x >> 5], std::uint32_t(1) << (x & 31));
      // Windows start at a whole group, so window groups are column groups
      // and the first of the window's positions starts one.
      if (q == q0 || ((static_cast<std::int64_t>(entries(q - 1)) - first_col) >> group_shift) != (x >> group_shift))
        ranks[x >> group_shift] = static_cast<std::uint32_t>(q - q0);
    });
    team.team_barrier();
  }

  /// The place of window column x among the window's columns (its row
  /// position less q0), or -1 where x is not marked.
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t x) const {
    const std::uint32_t bit = std::uint32_t(1) << (x & 31);
    if constexpr (group_words == 1) {
      const std::uint32_t word = words[x >> 5];
      if (!(word & bit)) return -1;
      return static_cast<std::int64_t>(ranks[x >> 5]) + popcount32(word & (bit - 1));
    } else {
      const std::int64_t g = x >> group_shift;
      const Half lo = reinterpret_cast<const Half*>(words)[2 * g];
      const Half hi = reinterpret_cast<const Half*>(words)[2 * g + 1];
      const int k = static_cast<int>((x >> 5) & (group_words - 1));
      std::uint32_t word = 0;
      int below = 0;
      // Static indices keep the halves in registers.
#pragma unroll
      for (int i = 0; i < group_words; ++i) {
        const std::uint32_t w = i < 4 ? lo.w[i] : hi.w[i - 4];
        if (i < k) below += popcount32(w);
        if (i == k) word = w;
      }
      if (!(word & bit)) return -1;
      return static_cast<std::int64_t>(ranks[g]) + below + popcount32(word & (bit - 1));
    }
  }
};

/// A rank per word: the layout where B fits one window of it.
using RankedWindow = RankedWindowOf<5>;
/// A rank per 256 columns: the layout for B too wide for that.
using WideRankedWindow = RankedWindowOf<8>;

}  // namespace gustav::detail
