#pragma once
/// A slot of the CPU's rings (numeric_pass.hpp: ring_dense_row;
/// write_pass.hpp: ring_row): a column of the current row beside its value,
/// so that a product's test of the column and its add touch one cache line.

namespace gustav::detail {

template <class Scalar, class Ordinal>
struct RingSlot {
  Scalar sum;
  Ordinal column;
};

}  // namespace gustav::detail
