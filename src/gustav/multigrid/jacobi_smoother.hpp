#pragma once
/// The values of the Jacobi smoother M = I - omega D^-1 A, D = diag(A), in
/// one kernel over A's rows. M has A's structure when every row of A holds
/// its diagonal entry (the identity lands on it), so M needs no row map or
/// column indices of its own: only nnz(A) values, stored in A's order.
///
/// One pass per row, fused: find the row's diagonal, scale the row by
/// -omega / diagonal, add 1 at the diagonal. Neither D, D^-1 A nor the sum
/// with I exists as an array. A row is read twice (diagonal, then scaling);
/// multigrid rows are a few cache lines, so the second read hits the cache.
///
/// Duplicate column indices in a row are allowed, as everywhere in Gustav:
/// the diagonal is the sum of the row's diagonal entries, and the 1 goes to
/// the first of them, so the row of M sums to what it would without
/// duplicates.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "gustav/errors.hpp"

namespace gustav::detail {

/// A faulty row found by the smoother kernel, encoded as 2 * row + kind so
/// that one Min reduction gives the first faulty row.
enum class DiagonalFault : std::int64_t { missing = 0, zero = 1 };

constexpr std::int64_t no_diagonal_fault = std::numeric_limits<std::int64_t>::max();

template <class RowMap, class Entries, class Values, class MValues, class Scalar>
struct JacobiSmootherValues {
  RowMap row_map;
  Entries entries;
  Values a_values;
  MValues m_values;
  Scalar omega;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& first_fault) const {
    const auto begin = row_map(i);
    const auto end = row_map(i + 1);
    Scalar diagonal(0);
    bool present = false;
    for (auto k = begin; k < end; ++k) {
      if (static_cast<std::int64_t>(entries(k)) == i) {
        diagonal += a_values(k);
        present = true;
      }
    }
    if (!present || diagonal == Scalar(0)) {
      // M is not written; the host throws for the first such row.
      const std::int64_t kind = present ? static_cast<std::int64_t>(DiagonalFault::zero)
                                        : static_cast<std::int64_t>(DiagonalFault::missing);
      const std::int64_t fault = 2 * i + kind;
      if (fault < first_fault) first_fault = fault;
      return;
    }
    const Scalar scale = omega / diagonal;
    bool identity_added = false;
    for (auto k = begin; k < end; ++k) {
      Scalar m = -scale * a_values(k);
      if (!identity_added && static_cast<std::int64_t>(entries(k)) == i) {
        m += Scalar(1);
        identity_added = true;
      }
      m_values(k) = m;
    }
  }
};

/// Writes M's values into `m_values` (nnz(A) of them). A is a CsrInput of a
/// square matrix whose structure has been checked. Throws invalid_input
/// naming the first row whose diagonal is missing or sums to zero.
template <class ExecSpace, class AIn, class MValues, class Scalar>
void jacobi_smoother_values(const ExecSpace& space, const AIn& A, const Scalar& omega, const MValues& m_values,
                            const char* who) {
  using Functor = JacobiSmootherValues<decltype(A.row_map), decltype(A.entries), decltype(A.values), MValues, Scalar>;
  std::int64_t first_fault = no_diagonal_fault;
  Kokkos::parallel_reduce("gustav::jacobi_prolongator::smoother_values",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
                          Functor{A.row_map, A.entries, A.values, m_values, omega},
                          Kokkos::Min<std::int64_t>(first_fault));
  if (first_fault == no_diagonal_fault) return;
  const std::int64_t row = first_fault / 2;
  const bool missing = first_fault % 2 == static_cast<std::int64_t>(DiagonalFault::missing);
  std::ostringstream s;
  s << who << ": A has " << (missing ? "no diagonal entry" : "a zero diagonal") << " in row " << row
    << " (the Jacobi smoother divides by the diagonal)";
  throw invalid_input(s.str());
}

}  // namespace gustav::detail
