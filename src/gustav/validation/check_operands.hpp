#pragma once
/// The O(nnz) input checks as one kernel that raises error bits instead of
/// throwing: the numeric phase launches it ahead of its own kernels (which
/// read defensively) and looks at the bits once at the end, so checking
/// costs no synchronisation. validate_csr names the fault afterwards.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class ARowMap, class AEntries, class BRowMap, class BEntries, class Flag>
struct CheckOperands {
  ARowMap a_row_map;
  AEntries a_entries;
  BRowMap b_row_map;
  BEntries b_entries;
  std::int64_t a_rows = 0, a_cols = 0, a_nnz = 0;
  std::int64_t b_rows = 0, b_cols = 0, b_nnz = 0;
  Flag errors;

  /// Bit `bit` if row i or entry i of the operand is malformed (i = 0 also
  /// checks the row map's ends).
  template <class RowMap, class Entries>
  KOKKOS_INLINE_FUNCTION static int check(const RowMap& row_map, const Entries& entries, std::int64_t rows,
                                          std::int64_t cols, std::int64_t nnz, std::int64_t i, int bit) {
    bool bad = false;
    if (i == 0)
      bad = static_cast<std::int64_t>(row_map(0)) != 0 || static_cast<std::int64_t>(row_map(rows)) != nnz;
    if (i < rows) bad = bad || row_map(i + 1) < row_map(i);
    if (i < nnz) {
      const std::int64_t c = static_cast<std::int64_t>(entries(i));
      bad = bad || c < 0 || c >= cols;
    }
    return bad ? bit : 0;
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const int bits = check(a_row_map, a_entries, a_rows, a_cols, a_nnz, i, error_bad_a) |
                     check(b_row_map, b_entries, b_rows, b_cols, b_nnz, i, error_bad_b);
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }
};

/// Launches the checks of A and B on `space`.
template <class ExecSpace, class AIn, class BIn, class Flag>
void check_operands(const ExecSpace& space, const AIn& A, const BIn& B, const Flag& errors) {
  const std::int64_t n = std::max(std::max(A.num_rows, A.nnz()), std::max(B.num_rows, B.nnz()));
  if (n == 0) return;
  CheckOperands<decltype(A.row_map), decltype(A.entries), decltype(B.row_map), decltype(B.entries), Flag> f{
      A.row_map, A.entries, B.row_map, B.entries, A.num_rows, A.num_cols, A.nnz(), B.num_rows, B.num_cols, B.nnz(),
      errors};
  Kokkos::parallel_for("gustav::numeric::check_operands",
                       light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n)), f);
}

}  // namespace gustav::detail
