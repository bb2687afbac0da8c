#pragma once
/// The entries' masks: what a plan keeps on the hierarchical mapping (GPUs)
/// where SpgemmOptions::keep_entry_masks asks, so that its numeric phase
/// finds every product's place in C without a table or a search.
///
/// Entry j = (i, k) of A multiplies row k of B into row i of C. Both rows
/// are sorted and every column of row k of B is in row i of C, so the
/// columns of row k land on a subset of row i's positions, in order: the
/// t-th entry of row k of B goes to the t-th position of that subset. The
/// plan keeps the subset as a bitmask over row i's positions, one 32-bit
/// word per 32 entries of C, for each entry of A. The numeric phase then
/// walks row k of B with a lane an entry: lane t adds a(i,k) * b(k, t) at
/// the position of the t-th set bit, in a window of row i's values in
/// scratch (sum_entry_masks.hpp). No table, no atomics (one row of B's
/// columns are distinct), no column read: the default numeric phase built
/// a hash table from the row's columns and probed it once per product,
/// every call (on an H200 bound by those shared-memory operations, 2.7
/// times cuSPARSE's repeat on lap3d:120). Each entry of C is summed in the
/// order of A's entries, so the bits repeat.
///
/// Memory: 4 bytes per entry of A for rows of C of up to 32 entries, 8 up
/// to 64, 16 up to 128 (wider rows keep the default), and 4 per row of A:
/// proportional to A, not to the products. Kept where B's rows are strictly
/// increasing and the masks take at most half a word per product
/// (max_words_per_product), within the memory budget.
///
/// A changed structure would send products to the wrong positions, so the
/// numeric phase compares the operands' structure with the fingerprint the
/// plan took (kept_structure_check.hpp), as for kept product positions.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

namespace gustav::detail {

template <class Device>
struct EntryMasks {
  using Word = std::uint32_t;
  /// Rows of C longer than this keep the default numeric path.
  static constexpr int max_words = 4;
  static constexpr std::int64_t max_row = 32 * max_words;
  /// The masks are kept only where words <= products * this: a plan's
  /// masks stay below an eighth of what cuSPARSE holds for a repeat (about
  /// 32 bytes a product).
  static constexpr double max_words_per_product = 0.5;
  /// The largest count of words the 32-bit starts address.
  static constexpr std::int64_t max_count = 0xffffffffll;

  /// Per row of A: its first word (row i's masks are words start(i) to
  /// start(i + 1), ceil(nnz of row i of C / 32) per entry of A; none for
  /// rows that keep the default path).
  Kokkos::View<Word*, Device> start;
  Kokkos::View<Word*, Device> words;
  /// Per numeric bin of the schedule: whether its rows are summed from the
  /// masks (host side).
  std::vector<char> bins;
  /// The numeric kernels' lanes a worker (sum_entry_masks.hpp).
  int lanes = 1;
  bool kept = false;

  std::size_t bytes() const { return (start.span() + words.span()) * sizeof(Word); }
  bool masked(std::size_t bin) const { return kept && bin < bins.size() && bins[bin]; }
};

/// Words per entry of A for a row of C of `need` entries.
KOKKOS_INLINE_FUNCTION std::int64_t mask_words_for(std::int64_t need) { return (need + 31) / 32; }

/// The end of a row's entries of A [a0, a1) that the sums read: a changed
/// structure (which the fingerprint reports) may give the row more entries
/// than the `held` words the plan keeps for it at `width` words an entry,
/// and only those with words are read.
KOKKOS_INLINE_FUNCTION std::int64_t masked_entries_end(std::int64_t a0, std::int64_t a1, std::int64_t held,
                                                       std::int64_t width) {
  if ((a1 - a0) * width <= held) return a1;
  return a0 + (width > 0 && held > 0 ? held / width : 0);
}

}  // namespace gustav::detail
