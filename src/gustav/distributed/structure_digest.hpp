#pragma once
/// A 64-bit digest of a CSR block's structure (row map and column indices),
/// the same sum of mixed terms as the numeric phase's structure fingerprint:
/// a numeric-only repeat checks with it that a rank's blocks still have the
/// structure the plan moved and renumbered.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/validation/structure_fingerprint.hpp"

namespace gustav::distributed::detail {

template <class ExecSpace, class RowMap, class Entries>
std::uint64_t structure_digest(const ExecSpace& space, const RowMap& row_map, const Entries& entries) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  std::uint64_t rows = 0, cols = 0;
  Kokkos::parallel_reduce(
      "gustav::distributed::digest_row_map", Range(space, 0, static_cast<std::int64_t>(row_map.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& sum) {
        sum += gustav::detail::structure_term(0, i, static_cast<std::int64_t>(row_map(i)));
      },
      rows);
  Kokkos::parallel_reduce(
      "gustav::distributed::digest_entries", Range(space, 0, static_cast<std::int64_t>(entries.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t p, std::uint64_t& sum) {
        sum += gustav::detail::structure_term(1, p, static_cast<std::int64_t>(entries(p)));
      },
      cols);
  return rows + cols;
}

}  // namespace gustav::distributed::detail
