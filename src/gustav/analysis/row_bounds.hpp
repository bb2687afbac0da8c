#pragma once
/// Analysis (seeds 000, 003): per row of A, the upper bound of its products,
/// sum over k in A(i,:) of nnz(B(k,:)), counted both in entries of B (the
/// flop count) and in entries of the symbolic source (compressed pairs),
/// whose bound, capped by the number of distinct keys, is the row's need.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

struct RowBoundTotals {
  std::int64_t products = 0;
  std::int64_t max_products = 0;
  std::int64_t max_need = 0;
  /// Entries of A that name a row of B just after the one named by the same
  /// entry of the row above (see RowBounds).
  std::int64_t streamed_entries = 0;
  /// With RowBounds::check: rows of A whose row map decreases, and entries
  /// naming no row of B.
  std::int64_t faults = 0;
};

/// Whether the thread-per-row passes should fetch rows of B ahead in
/// software (prefetch.hpp): not where most entries of A stream through B,
/// as stencils and the multigrid products do. The hardware prefetcher
/// follows those streams already, and the extra loads cost up to a fifth of
/// a pass there; on random and power-law rows the software fetch halves
/// the wait.
inline bool prefetch_b_rows(const RowBoundTotals& t, std::int64_t a_nnz) {
  return 2 * t.streamed_entries < a_nnz;
}

template <class ARowMap, class AEntries, class BRowMap, class SourceRowMap, class NeedView>
struct RowBounds {
  using value_type = RowBoundTotals;
  ARowMap a_row_map;
  AEntries a_entries;
  BRowMap b_row_map;
  SourceRowMap source_row_map;
  NeedView need;
  NeedView products_of;  ///< products per row
  std::int64_t key_universe;  ///< distinct keys possible (columns or column sets)
  /// Check A as it is read (its row map decreasing, its columns outside B's
  /// rows), so that A needs no pass of its own for its checks: a faulty
  /// entry is counted and not followed into B.
  bool check = false;
  std::int64_t a_nnz = 0;
  std::int64_t b_rows = 0;

  /// Rows of B whose distance from the one named by the same entry of the
  /// row above is at most this count as streamed.
  static constexpr std::int64_t stream_step_max = 8;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type& t) const {
    std::int64_t products = 0, bound = 0;
    const auto begin = a_row_map(i), end = a_row_map(i + 1);
    // A row as long as the one above, whose entries each name a row of B a
    // few rows on from the one the entry above named: the rows of B are
    // read as streams (stencils, banded and multigrid operators).
    const auto above = i > 0 ? a_row_map(i - 1) : begin;
    const bool aligned = i > 0 && end - begin == begin - above;
    std::int64_t streamed = 0;
    // A row map that steps down or out of [0, nnz(A)] names entries that
    // are not there: the row is a fault and is not read.
    if (check && (static_cast<std::int64_t>(begin) < 0 || end < begin || static_cast<std::int64_t>(end) > a_nnz)) {
      t.faults += 1;
      return;
    }
    for (auto j = begin; j < end; ++j) {
      const auto k = a_entries(j);
      if (check && (static_cast<std::int64_t>(k) < 0 || static_cast<std::int64_t>(k) >= b_rows)) {
        t.faults += 1;
        continue;
      }
      products += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
      bound += static_cast<std::int64_t>(source_row_map(k + 1) - source_row_map(k));
      if (aligned) {
        const std::int64_t step = static_cast<std::int64_t>(k) - static_cast<std::int64_t>(a_entries(j - (begin - above)));
        streamed += step >= 0 && step <= stream_step_max ? 1 : 0;
      }
    }
    t.streamed_entries += streamed;
    const std::int64_t n = bound < key_universe ? bound : key_universe;
    need(i) = n;
    products_of(i) = products;
    t.products += products;
    if (products > t.max_products) t.max_products = products;
    if (n > t.max_need) t.max_need = n;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& t) const { t = value_type(); }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    a.products += b.products;
    a.streamed_entries += b.streamed_entries;
    a.faults += b.faults;
    if (b.max_products > a.max_products) a.max_products = b.max_products;
    if (b.max_need > a.max_need) a.max_need = b.max_need;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a, const volatile value_type& b) const {
    a.products += b.products;
    a.streamed_entries += b.streamed_entries;
    a.faults += b.faults;
    if (b.max_products > a.max_products) a.max_products = b.max_products;
    if (b.max_need > a.max_need) a.max_need = b.max_need;
  }
};

/// The need a row is binned by: its accumulator need, except that a row
/// with more than `long_products` products goes to the last tier (the
/// multi-team long rows) whatever its need, so that a row of few columns but
/// very many products does not keep one worker busy. `long_products` 0 bins
/// by need alone.
template <class NeedFn, class ProductsView>
struct WorkNeed {
  NeedFn need;
  ProductsView products;
  std::int64_t long_products;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    const std::int64_t n = need(i);
    if (long_products == 0 || n == 0) return n;
    return static_cast<std::int64_t>(products(i)) > long_products ? std::int64_t(INT64_MAX) : n;
  }
};

/// Largest value of a per-row view.
template <class ViewType>
struct MaxOfView {
  ViewType v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& m) const {
    const auto x = static_cast<std::int64_t>(v(i));
    if (x > m) m = x;
  }
};

/// Largest row length of a row map.
template <class RowMap>
struct MaxRowLength {
  RowMap row_map;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& m) const {
    const auto x = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
    if (x > m) m = x;
  }
};

}  // namespace gustav::detail
