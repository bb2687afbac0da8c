#pragma once
/// The numeric phase gives no thread to a row whose planned row of C is
/// empty: it had no products. A structure changed under the plan while
/// keeping its shapes and nnz can move products into such a row (an entry
/// of A moved there from another row, or a row of B it names that gained
/// entries), and the other rows, left with a subset of their products,
/// raise nothing: the product would be lost without a word. This pass looks
/// at those rows only, raising error_structure_changed for a row that now
/// reaches an entry of B, and launches without a fence: the caller reads its
/// bits with the passes' own.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class CRowMap, class ARowMap, class AEntries, class BRowMap, class Flag>
struct EmptyRowsStayEmpty {
  CRowMap c_row_map;
  ARowMap a_row_map;
  AEntries a_entries;
  BRowMap b_row_map;
  std::int64_t a_nnz = 0, b_rows = 0, b_nnz = 0;
  Flag errors;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    if (c_row_map(i + 1) != c_row_map(i)) return;
    std::int64_t a0, a1;
    int bits = checked_row(a_row_map, i, a_nnz, a0, a1) ? 0 : int(error_bad_a);
    for (std::int64_t j = a0; j < a1; ++j) {
      std::int64_t b0, b1;
      const int fault = checked_b_row(b_row_map, static_cast<std::int64_t>(a_entries(j)), b_rows, b_nnz, b0, b1);
      bits |= fault ? fault : (b1 > b0 ? int(error_structure_changed) : 0);
    }
    if (bits) Kokkos::atomic_fetch_or(&errors(), static_cast<typename Flag::value_type>(bits));
  }
};

/// Launches the check of C's empty rows on `space` where the plan has any
/// (`empty_rows`: how many rows the numeric schedule leaves out).
template <class ExecSpace, class CRowMap, class AIn, class BIn, class Flag>
void check_empty_rows_stay_empty(const ExecSpace& space, std::int64_t empty_rows, const CRowMap& c_row_map,
                                 const AIn& A, const BIn& B, const Flag& errors) {
  if (empty_rows <= 0 || A.num_rows == 0) return;
  EmptyRowsStayEmpty<CRowMap, decltype(A.row_map), decltype(A.entries), decltype(B.row_map), Flag> f{
      c_row_map, A.row_map, A.entries, B.row_map, A.nnz(), B.num_rows, B.nnz(), errors};
  Kokkos::parallel_for(
      "gustav::numeric::empty_rows",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows)), f);
}

}  // namespace gustav::detail
