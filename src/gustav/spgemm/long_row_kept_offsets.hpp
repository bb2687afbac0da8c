#pragma once
/// The long rows' product offsets a plan keeps for its repeats: where each
/// long row's entries of A lie in the listing, the running product count
/// before each listed entry, and the adding walk's first slice of each row
/// (LongRowOffsets), with the number of listed entries and of slices.
///
/// A repeat on an unchanged structure finds the same offsets, so computing
/// them each time (a reduction read back, three scans, the slice count read
/// back) only put host round trips and small launches before the walk. The
/// first numeric call computes them into this keeping; a repeat launches a
/// check beside the walk instead (LongRowOffsetsCheck), and where A's or
/// B's structure no longer gives the same offsets the long rows are summed
/// again with new ones (hierarchical_rows.hpp): a wrong walk is never the
/// answer, and the stale one reads within A and B (slice_walk.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>

#include "gustav/common/allocation.hpp"
#include "gustav/spgemm/long_row_add.hpp"
#include "gustav/spgemm/long_row_kernels.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class Device>
struct LongRowKeptOffsets {
  Kokkos::View<std::int64_t*, Device> storage;  ///< entry_base, entry_products, slice_base
  std::int64_t count = -1;                       ///< long rows they were computed for (-1: none kept)
  std::int64_t listed = 0;                       ///< the rows' entries of A
  AddSliceCut cut;                               ///< the adding walk's slices
  std::int64_t slice_products = 0;

  bool kept(std::int64_t rows) const { return count == rows && storage.data() != nullptr; }
  std::size_t bytes() const { return view_bytes(storage); }
  void drop() {
    storage = Kokkos::View<std::int64_t*, Device>();
    count = -1;
  }
  static std::int64_t length(std::int64_t rows, std::int64_t listed) { return 2 * (rows + 1) + listed + 1; }
  /// The kept offsets as views into storage.
  LongRowOffsets<Device> offsets() const { return views(count); }
  /// Views into storage for `rows` long rows and `listed` entries (the
  /// first call computes the offsets into them before they are kept).
  LongRowOffsets<Device> views(std::int64_t rows) const {
    LongRowOffsets<Device> o;
    std::int64_t* p = storage.data();
    o.entry_base = LongRowIndex<Device>(p, rows + 1);
    o.entry_products = LongRowIndex<Device>(p + rows + 1, listed + 1);
    o.slice_base = LongRowIndex<Device>(p + rows + 1 + listed + 1, rows + 1);
    o.slice_products = slice_products;
    return o;
  }
};

template <class Device>
using SharedLongRowKeptOffsets = std::shared_ptr<LongRowKeptOffsets<Device>>;

/// Raises error_long_offsets_stale where the kept offsets are not those of
/// A's and B's structure now: index i < count checks long row i's length
/// in A, and count + e checks listed entry e's row of B's length.
template <class Types, class Rows>
struct LongRowOffsetsCheck {
  ProductOperands<Types> ops;
  Rows rows;
  LongRowOffsets<typename Types::device_type> offsets;
  ErrorFlag<typename Types::device_type> errors;
  std::int64_t count = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const auto& o = offsets;
    bool same = true;
    if (i < count) {
      std::int64_t a0, a1;
      same = ops.a_row(static_cast<std::int64_t>(rows(i)), a0, a1) && a1 - a0 == o.entry_base(i + 1) - o.entry_base(i);
    } else {
      const std::int64_t e = i - count;
      std::int64_t b0, b1;
      same = listed_entry_b_row(ops, rows, o.entry_base, count, e, b0, b1) &&
             b1 - b0 == o.entry_products(e + 1) - o.entry_products(e);
    }
    if (!same) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_long_offsets_stale));
  }
};

}  // namespace gustav::detail
