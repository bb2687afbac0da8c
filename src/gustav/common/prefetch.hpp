#pragma once
/// Software prefetch for the thread-per-row (CPU) passes. A row of A names
/// rows of B scattered over memory, and a thread that walks them in order
/// waits for each one (its row-map entry, then its columns) in turn: on
/// random and power-law matrices that wait, not the accumulator, is most of
/// a pass. Asking for the rows of B a few entries of A ahead, in two stages
/// (the row-map entry first, then the row it points to), overlaps the waits.
/// On GPUs, which hide latency with other warps, it compiles to nothing.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace gustav::detail {

/// Hints the cache to fetch the line holding p (host code only).
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const void* p) {
#if defined(__CUDA_ARCH__)
  (void)p;
#elif defined(__x86_64__) && defined(__GNUC__)
  // Volatile assembly: g++ drops __builtin_prefetch in these kernels at -O2.
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#elif defined(__GNUC__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/// Prefetches the rows of B named by A's entries ahead of entry j. Holds raw
/// pointers: it is made once per row, and copying views there (reference
/// counts checked on every copy) cost more than the fetches saved on short
/// rows.
template <class AOrdinal, class BOffset, class BEntry, class BValue>
struct RowsAhead {
  static constexpr std::int64_t distance = 8;  ///< entries of A between the row's fetch and its use
  const AOrdinal* a_entries;
  const BOffset* b_row_map;
  const BEntry* b_entries;
  const BValue* b_values;  ///< null for passes that read no values
  std::int64_t prefetch_limit = 0;  ///< nnz(A), or 0 to fetch nothing ahead

  KOKKOS_FORCEINLINE_FUNCTION void at(std::int64_t j) const {
    if (j + 2 * distance < prefetch_limit) prefetch(b_row_map + a_entries[j + 2 * distance]);
    if (j + distance < prefetch_limit) fetch_row(a_entries[j + distance]);
  }

  /// Fetches the first and the last line of row k's columns and values: a
  /// short row that starts anywhere in a line ends in the next one more
  /// often than not (eight values of 8 bytes do unless they start a line),
  /// and the hardware prefetcher does not follow one line on.
  KOKKOS_FORCEINLINE_FUNCTION void fetch_row(std::int64_t k) const {
    const auto begin = b_row_map[k];
    const auto end = b_row_map[k + 1];
    const auto last = end > begin ? end - 1 : begin;
    prefetch(b_entries + begin);
    prefetch(b_entries + last);
    if (b_values) {
      prefetch(b_values + begin);
      prefetch(b_values + last);
    }
  }
};

/// RowsAhead over A's first `prefetch_limit` entries (nnz(A): entries past it are never
/// read; 0 where the hardware prefetcher does better, row_bounds.hpp).
template <class AEntries, class BRowMap, class BEntries, class BValues>
KOKKOS_FORCEINLINE_FUNCTION auto rows_ahead(const AEntries& a, std::int64_t prefetch_limit, const BRowMap& r,
                                            const BEntries& e, const BValues& v) {
  using AOrdinal = std::remove_const_t<typename AEntries::value_type>;
  using BOffset = std::remove_const_t<typename BRowMap::value_type>;
  using BEntry = std::remove_const_t<typename BEntries::value_type>;
  using BValue = std::remove_const_t<typename BValues::value_type>;
  return RowsAhead<AOrdinal, BOffset, BEntry, BValue>{a.data(), r.data(), e.data(), v.data(), prefetch_limit};
}

/// RowsAhead for passes that read unchecked operands defensively (the
/// numeric phase, numeric_pass.hpp): a row's start is loaded only for a
/// column of A within [0, b_rows), since a malformed column is met here
/// first (a prefetch never faults, a load can). A type of its own: the same
/// test in RowsAhead slowed the one-shot write pass by a tenth (lap3d:40:27,
/// two threads), where the operands were checked before.
template <class AOrdinal, class BOffset, class BEntry, class BValue>
struct CheckedRowsAhead {
  RowsAhead<AOrdinal, BOffset, BEntry, BValue> rows;
  std::int64_t b_rows = 0;

  KOKKOS_FORCEINLINE_FUNCTION void at(std::int64_t j) const {
    constexpr std::int64_t distance = RowsAhead<AOrdinal, BOffset, BEntry, BValue>::distance;
    if (j + 2 * distance < rows.prefetch_limit) prefetch(rows.b_row_map + rows.a_entries[j + 2 * distance]);
    if (j + distance < rows.prefetch_limit) {
      const auto k = rows.a_entries[j + distance];
      if (static_cast<std::uint64_t>(static_cast<std::int64_t>(k)) < static_cast<std::uint64_t>(b_rows))
        rows.fetch_row(static_cast<std::int64_t>(k));
    }
  }
};

template <class AEntries, class BRowMap, class BEntries, class BValues>
KOKKOS_FORCEINLINE_FUNCTION auto checked_rows_ahead(const AEntries& a, std::int64_t prefetch_limit, const BRowMap& r,
                                                    const BEntries& e, const BValues& v) {
  const auto rows = rows_ahead(a, prefetch_limit, r, e, v);
  return CheckedRowsAhead<std::remove_const_t<typename AEntries::value_type>,
                          std::remove_const_t<typename BRowMap::value_type>,
                          std::remove_const_t<typename BEntries::value_type>,
                          std::remove_const_t<typename BValues::value_type>>{
      rows, static_cast<std::int64_t>(r.extent(0)) - 1};
}

/// One thread's walk over the products of row `row` of A (the CPU passes'
/// dense rows): f(j, p) for each entry j of the row and each entry p of the
/// row of B it names, in order, with `ahead` fetching rows of B in advance.
template <class ARowMap, class AEntries, class BRowMap, class Ahead, class F>
KOKKOS_FORCEINLINE_FUNCTION void walk_row_products(const ARowMap& a_row_map, const AEntries& a_entries,
                                              const BRowMap& b_row_map, std::int64_t row, const Ahead& ahead,
                                              const F& f) {
  for (auto j = a_row_map(row); j < a_row_map(row + 1); ++j) {
    ahead.at(static_cast<std::int64_t>(j));
    const auto k = a_entries(j);
    for (auto p = b_row_map(k); p < b_row_map(k + 1); ++p) f(j, p);
  }
}

}  // namespace gustav::detail
