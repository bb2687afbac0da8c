#pragma once
/// Puts every row of B in A's order on CPUs: one thread per row sorts the
/// row's slots by their position in A (sequential_sort_pairs; rows placed
/// by one thread are usually sorted already, and are only checked), then
/// writes the row's column indices (A's rows) and values.
///
/// Sorting by position in A sorts by A's row and keeps duplicate entries in
/// the order in which they appear in A, whatever order the slots were
/// claimed in: the result is the same on every run and backend.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

template <class RowMapB, class Source, class SourceRow, class EntriesB, class ValuesB, class ValuesA>
struct SortEachRow {
  RowMapB row_map;  ///< B's row map
  Source source;
  SourceRow source_row;
  EntriesB entries;
  ValuesB values;
  ValuesA a_values;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    const auto begin = static_cast<std::int64_t>(row_map(j));
    const auto end = static_cast<std::int64_t>(row_map(j + 1));
    bool sorted = true;
    for (std::int64_t q = begin + 1; q < end && sorted; ++q) sorted = source(q - 1) < source(q);
    if (!sorted) sequential_sort_pairs(source.data() + begin, source_row.data() + begin, end - begin);
    for (std::int64_t q = begin; q < end; ++q) {
      entries(q) = source_row(q);
      values(q) = a_values(source(q));
    }
  }
};

}  // namespace gustav::detail
