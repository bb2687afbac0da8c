#pragma once
/// Puts the rows of B in A's order on GPUs, second step: rows longer than one
/// piece leave order_pieces.hpp as sorted runs of `piece` slots, which are
/// merged pairwise, level after level (runs of piece, 2 piece, 4 piece, ...),
/// until each row is one run. Every entry is placed independently: its slot
/// in the merged pair is its index in its own run plus the number of entries
/// of the sibling run that come before it in A (a binary search). So every
/// level is one flat kernel over all entries of long rows, and a row of a
/// million entries keeps the whole GPU busy instead of one team.
///
/// Levels alternate between the slots of B (`source`, `source_row`) and a
/// packed buffer that holds only the long rows; the level that completes a
/// row writes its column indices and values into B.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/search.hpp"

namespace gustav::detail {

/// Counts the rows of B longer than `piece`.
template <class RowMapB>
struct CountLongRows {
  RowMapB row_map;
  std::int64_t piece = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j, std::int64_t& count) const {
    count += static_cast<std::int64_t>(row_map(j + 1) - row_map(j)) > piece ? 1 : 0;
  }
};

/// Lists the rows of B longer than `piece`: long_rows(h) = j for the h-th.
template <class RowMapB, class LongRows>
struct ListLongRows {
  RowMapB row_map;
  LongRows long_rows;
  std::int64_t piece = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j, std::int64_t& before, const bool final) const {
    const bool is_long = static_cast<std::int64_t>(row_map(j + 1) - row_map(j)) > piece;
    if (final && is_long) long_rows(before) = static_cast<typename LongRows::value_type>(j);
    before += is_long ? 1 : 0;
  }
};

/// packed_offsets(h) = entries of the long rows before the h-th (h <= count).
template <class RowMapB, class LongRows, class Offsets>
struct PackLongRows {
  RowMapB row_map;
  LongRows long_rows;
  Offsets packed_offsets;
  std::int64_t count = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t h, std::int64_t& before, const bool final) const {
    const std::int64_t length =
        h < count ? static_cast<std::int64_t>(row_map(long_rows(h) + 1) - row_map(long_rows(h))) : 0;
    if (final) packed_offsets(h) = before;
    before += length;
  }
};

/// The length of the longest long row.
template <class Offsets>
struct LongestRow {
  Offsets packed_offsets;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t h, std::int64_t& longest) const {
    const std::int64_t length = packed_offsets(h + 1) - packed_offsets(h);
    if (length > longest) longest = length;
  }
};

template <class RowMapB, class LongRows, class Offsets, class Source, class SourceRow, class EntriesB,
          class ValuesB, class ValuesA>
struct MergeLevel {
  using Key = typename Source::value_type;

  RowMapB row_map;
  LongRows long_rows;
  Offsets packed_offsets;   ///< count + 1 entries
  Source source;            ///< B's slots
  SourceRow source_row;
  Source packed_source;     ///< long rows only, at packed_offsets
  SourceRow packed_row;
  EntriesB entries;
  ValuesB values;
  ValuesA a_values;
  std::int64_t count = 0;   ///< long rows
  std::int64_t run = 0;     ///< sorted run length coming into this level
  bool from_packed = false;

  /// Entries of keys[begin, end) that come before `key` (they are sorted).
  KOKKOS_INLINE_FUNCTION static std::int64_t before(const Key* keys, std::int64_t begin, std::int64_t end,
                                                    const Key key) {
    std::int64_t lo = begin, hi = end;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - begin;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t g) const {
    const std::int64_t h = last_at_most(packed_offsets, g, 0, count - 1);  // the long row holding packed entry g
    const std::int64_t packed_begin = packed_offsets(h);
    const std::int64_t length = packed_offsets(h + 1) - packed_begin;
    if (run >= length) return;  // the row was finished at an earlier level
    const std::int64_t i = g - packed_begin;
    const auto slot_begin = static_cast<std::int64_t>(row_map(long_rows(h)));
    const std::int64_t in_begin = from_packed ? packed_begin : slot_begin;
    const Key* keys = from_packed ? packed_source.data() : source.data();
    const Key key = keys[in_begin + i];
    const auto row = from_packed ? packed_row(in_begin + i) : source_row(in_begin + i);

    const std::int64_t mine = i / run;
    const std::int64_t sibling = mine ^ 1;
    const std::int64_t sibling_begin = sibling * run < length ? sibling * run : length;
    const std::int64_t sibling_end = sibling_begin + run < length ? sibling_begin + run : length;
    const std::int64_t pair_begin = (mine < sibling ? mine : sibling) * run;
    const std::int64_t to =
        pair_begin + (i - mine * run) + before(keys, in_begin + sibling_begin, in_begin + sibling_end, key);
    if (2 * run >= length) {
      entries(slot_begin + to) = row;
      values(slot_begin + to) = a_values(key);
    } else if (from_packed) {
      source(slot_begin + to) = key;
      source_row(slot_begin + to) = row;
    } else {
      packed_source(packed_begin + to) = key;
      packed_row(packed_begin + to) = row;
    }
  }
};

}  // namespace gustav::detail
