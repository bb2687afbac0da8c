#pragma once
/// Where every product of a row lands in C's row, kept by a plan made with
/// SpgemmOptions::keep_product_positions on the hierarchical mapping.
///
/// The default numeric phase finds a product's place in C's row through a
/// hash table built from the row's columns for every row of every call; a
/// plan that keeps the positions lets the numeric phase skip the tables and
/// add each product straight at its place. It costs 2 bytes per product of
/// the worker and team rows, 4 per entry of A and 8 per row.
///
/// Products are numbered within their row in walk order (A's entries in
/// order, each row of B in order), so product t of a worker's walk and
/// product p of entry j (entry_start(j) + p - start of B's row) of a team's
/// walk are the same number. Tiny rows (registers, no table) and long rows
/// (their own path) keep no positions.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

template <class Device>
struct ProductPositions {
  using Position = std::uint16_t;
  /// Rows of C longer than this are never in a worker or team bin (their
  /// tables stop well below it), so a position always fits.
  static constexpr std::int64_t max_row_nnz = 65535;
  /// Worker and team bins bound their rows' products far below this, so a
  /// product's number within its row always fits in entry_start's type.
  static constexpr std::uint32_t max_row_products = 0xffffffffu;

  /// First product of each row in `position` (rows + 1; rows without
  /// positions have none).
  Kokkos::View<std::int64_t*, Device> row_start;
  /// Per entry of A: the number of its first product within its row.
  Kokkos::View<std::uint32_t*, Device> entry_start;
  /// Per product: its position in C's row.
  Kokkos::View<Position*, Device> position;
  /// The replay reads no column index, so the numeric phase checks A's and
  /// B's structure against this fingerprint of it (structure_fingerprint.hpp)
  /// into `fingerprint_now`.
  std::uint64_t fingerprint = 0;
  Kokkos::View<std::uint64_t, Device> fingerprint_now;
  bool kept = false;

  std::size_t bytes() const {
    return row_start.span() * sizeof(std::int64_t) + entry_start.span() * sizeof(std::uint32_t) +
           position.span() * sizeof(Position) + fingerprint_now.span() * sizeof(std::uint64_t);
  }
};

}  // namespace gustav::detail
