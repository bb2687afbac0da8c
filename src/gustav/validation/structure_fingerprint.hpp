#pragma once
/// A 64-bit fingerprint of the structure of A and B (row maps and column
/// indices) for plans that keep product positions: the numeric phase adds
/// each product at the place the symbolic phase recorded for it, without
/// reading any column index, so it must know that neither structure has
/// changed since. One pass over both structures (fused with the O(nnz)
/// input checks where those run) costs far less than checking every
/// product's column against C.
///
/// The fingerprint is a sum of well-mixed terms, one per (array, index,
/// value): any change of one element changes it, and changes that cancel
/// happen with probability about 2^-64.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "gustav/validation/check_operands.hpp"

namespace gustav::detail {

/// SplitMix64's finaliser: every input bit reaches every output bit.
KOKKOS_INLINE_FUNCTION std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The term of element `index` of array `kind` holding `value`.
KOKKOS_INLINE_FUNCTION std::uint64_t structure_term(std::uint64_t kind, std::int64_t index, std::int64_t value) {
  return mix_bits(mix_bits(static_cast<std::uint64_t>(index) * 4 + kind) + static_cast<std::uint64_t>(value));
}

/// Row i and entry i of one operand's structure (those that exist).
template <class RowMap, class Entries>
KOKKOS_INLINE_FUNCTION std::uint64_t structure_terms(const RowMap& row_map, const Entries& entries, std::int64_t rows,
                                                     std::int64_t nnz, std::int64_t i, std::uint64_t kind) {
  std::uint64_t sum = 0;
  if (i <= rows) sum += structure_term(kind, i, static_cast<std::int64_t>(row_map(i)));
  if (i < nnz) sum += structure_term(kind + 1, i, static_cast<std::int64_t>(entries(i)));
  return sum;
}

/// Elements a pass over both structures visits.
template <class AIn, class BIn>
std::int64_t structure_extent(const AIn& A, const BIn& B) {
  return std::max(std::max(A.num_rows + 1, A.nnz()), std::max(B.num_rows + 1, B.nnz()));
}

/// Adds element i of both structures to `sum` and, when `validate`, raises
/// the input checks' bits for it.
template <class Check>
struct FingerprintStructure {
  Check check;
  bool validate = true;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::uint64_t& sum) const {
    sum += structure_terms(check.a_row_map, check.a_entries, check.a_rows, check.a_nnz, i, 0) +
           structure_terms(check.b_row_map, check.b_entries, check.b_rows, check.b_nnz, i, 2);
    if (validate) check(i);
  }
};

template <class AIn, class BIn, class Flag>
auto fingerprint_functor(const AIn& A, const BIn& B, const Flag& errors, bool validate) {
  using Check = CheckOperands<decltype(A.row_map), decltype(A.entries), decltype(B.row_map), decltype(B.entries), Flag>;
  return FingerprintStructure<Check>{Check{A.row_map, A.entries, B.row_map, B.entries, A.num_rows, A.num_cols,
                                           A.nnz(), B.num_rows, B.num_cols, B.nnz(), errors},
                                     validate};
}

/// The fingerprint of A's and B's structure, on the host (waits for it).
template <class ExecSpace, class AIn, class BIn, class Flag>
std::uint64_t structure_fingerprint(const ExecSpace& space, const AIn& A, const BIn& B, const Flag& errors) {
  std::uint64_t sum = 0;
  Kokkos::parallel_reduce("gustav::symbolic::structure_fingerprint",
                          light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                              space, 0, structure_extent(A, B))),
                          fingerprint_functor(A, B, errors, false), sum);
  return sum;
}

/// Raises error_structure_changed in `errors` unless A's and B's structure
/// still has the fingerprint `expected`, and (with `validate`) the input
/// checks' bits, without waiting: `scratch` receives the new fingerprint
/// on the device and a one-thread kernel compares it.
template <class ExecSpace, class AIn, class BIn, class Flag, class Scratch>
void check_structure_fingerprint(const ExecSpace& space, const AIn& A, const BIn& B, std::uint64_t expected,
                                 const Scratch& scratch, const Flag& errors, bool validate) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_reduce("gustav::numeric::structure_fingerprint", light_launch(Range(space, 0, structure_extent(A, B))),
                          fingerprint_functor(A, B, errors, validate), scratch);
  Kokkos::parallel_for(
      "gustav::numeric::compare_fingerprint", light_launch(Range(space, 0, 1)), KOKKOS_LAMBDA(const std::int64_t) {
        if (scratch() != expected) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_structure_changed));
      });
}

}  // namespace gustav::detail
