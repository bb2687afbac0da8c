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
};

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

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, value_type& t) const {
    std::int64_t products = 0, bound = 0;
    for (auto j = a_row_map(i); j < a_row_map(i + 1); ++j) {
      const auto k = a_entries(j);
      products += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
      bound += static_cast<std::int64_t>(source_row_map(k + 1) - source_row_map(k));
    }
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
    if (b.max_products > a.max_products) a.max_products = b.max_products;
    if (b.max_need > a.max_need) a.max_need = b.max_need;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a, const volatile value_type& b) const {
    a.products += b.products;
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
