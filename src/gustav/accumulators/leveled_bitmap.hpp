#pragma once
/// A bitmap over a row's columns (or column sets) with two summary levels
/// above it: a bit per non-zero word, and a bit per non-zero summary word.
/// The CPU dense accumulators keep one per thread. Reading a row out in
/// ascending order descends the levels: no sort, and the cost follows what
/// the row touched plus the top level (a word per 2^15 words of the bitmap),
/// however few or many columns the row has. Reading also clears, so the next
/// row starts from zero without a pass over the bitmap.
///
/// One thread owns a bitmap: no atomics.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/bits.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

struct LeveledBitmap {
  std::uint32_t* words = nullptr;
  std::uint32_t* summary = nullptr;  ///< bit w of summary: words[w] != 0
  std::uint32_t* top = nullptr;      ///< bit s of top: summary[s] != 0
  std::int64_t top_words = 0;

  KOKKOS_INLINE_FUNCTION static std::int64_t words_above(std::int64_t words) { return (words + 31) >> 5; }

  /// The bitmap of `words` 32-bit words carved from `c` (which must start zeroed).
  KOKKOS_FORCEINLINE_FUNCTION static LeveledBitmap carve(Carver& c, std::int64_t words) {
    LeveledBitmap b;
    b.words = c.take<std::uint32_t>(words);
    b.summary = c.take<std::uint32_t>(words_above(words));
    b.top_words = words_above(words_above(words));
    b.top = c.take<std::uint32_t>(b.top_words);
    return b;
  }

  /// ORs `bits` into word w; returns the word as it was.
  KOKKOS_INLINE_FUNCTION std::uint32_t set(std::int64_t w, std::uint32_t bits) const {
    const std::uint32_t before = words[w];
    if (before == 0) mark_summaries(w);
    words[w] = before | bits;
    return before;
  }

  /// Sets the summary bits of word w (for words set directly in `words`).
  KOKKOS_INLINE_FUNCTION void mark_summaries(std::int64_t w) const {
    summary[w >> 5] |= std::uint32_t(1) << (w & 31);
    top[w >> 10] |= std::uint32_t(1) << ((w >> 5) & 31);
  }

  /// Calls f(w, word) for every non-zero word in ascending w, and clears.
  template <class F>
  KOKKOS_INLINE_FUNCTION void drain(const F& f) const {
    drain(0, (top_words << 10) - 1, f);
  }

  /// drain() for a bitmap whose non-zero words all lie in [lo, hi]: only
  /// the top-level words over that range are read.
  template <class F>
  KOKKOS_INLINE_FUNCTION void drain(std::int64_t lo, std::int64_t hi, const F& f) const {
    for (std::int64_t t = lo >> 10; t <= (hi >> 10); ++t) {
      std::uint32_t m2 = top[t];
      if (!m2) continue;
      top[t] = 0;
      for (; m2; m2 &= m2 - 1) {
        const std::int64_t s = (t << 5) + lowest_bit32(m2);
        std::uint32_t m1 = summary[s];
        summary[s] = 0;
        for (; m1; m1 &= m1 - 1) {
          const std::int64_t w = (s << 5) + lowest_bit32(m1);
          const std::uint32_t word = words[w];
          words[w] = 0;
          f(w, word);
        }
      }
    }
  }
};

}  // namespace gustav::detail
