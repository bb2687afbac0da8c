#pragma once
/// Kept products by slot, the other layout of a plan that keeps its
/// products (SpgemmOptions::keep_product_positions).
///
/// The lists (product_positions.hpp) group each entry's products, so their
/// sums gather A's and B's values one product at a time from wherever they
/// lie: a sector of memory per product read, which on long lists bounds the
/// repeat far below the memory's bandwidth (on an H200 ca-HepPh's A * A and
/// brick's R * (A * P) summed their lists at 0.8 TB/s). Slots keep the walk
/// of the default numeric phase instead (a row of A at a time, each row of
/// B it names read in order, side by side) and drop what makes that walk
/// slow: for every product, in walk order, the plan holds its entry of C as
/// an offset in C's row (16 bits), so the walk adds the product there in
/// scratch with no hash table, no search and no column index read. Two
/// bytes a product instead of eight.
///
/// The order of each sum stays fixed: a worker takes a whole row, its lanes
/// one row of B at a time (distinct columns, so distinct offsets), and the
/// rows of B in A's order, so every entry of C adds its products in the
/// order of A's entries on every call.
///
/// Kept where it applies: B's rows strictly increasing (a row of B with a
/// repeated column would have two lanes add to one offset at once), C's rows
/// short enough for an offset of 16 bits and for a team's scratch, and the
/// counts within 32 bits as for the lists.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

template <class Device>
struct ProductSlots {
  using Offset = std::uint32_t;
  using Slot = std::uint16_t;
  /// Per row i of A: its first product in walk order (row_start(a_rows) is
  /// the product count).
  Kokkos::View<Offset*, Device> row_start;
  /// Per product, in walk order: its entry of C, as an offset in C's row.
  Kokkos::View<Slot*, Device> slot;
  /// Teams' rows: block b takes rows [block_start(b), block_start(b + 1)),
  /// whose entries of C start within [b * stride, (b + 1) * stride); the
  /// rows' entries then lie within `window` entries of the first one's.
  Kokkos::View<Offset*, Device> block_start;
  std::int64_t stride = 0, window = 0;
  /// Vector lanes of a worker (the rows of B are walked by them), and
  /// workers of a team (GPUs; one on CPUs).
  int lanes = 1, workers = 1;

  std::size_t bytes() const {
    return (row_start.span() + block_start.span()) * sizeof(Offset) + slot.span() * sizeof(Slot);
  }
};

}  // namespace gustav::detail
