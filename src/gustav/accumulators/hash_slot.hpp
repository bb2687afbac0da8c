#pragma once
/// A slot of the CPU numeric phase's per-thread hash table of a row's
/// columns (numeric_pass.hpp: hashed_dense_row): a column of the current row
/// of C beside its position there, so that a product's probe and the
/// position it reads share one cache line.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

template <class Ordinal>
struct HashSlot {
  Ordinal column;
  int position;
};

/// A column's home slot in a table of 2^log2_slots slots (log2_slots from
/// 1 to 63): the high bits of a multiplicative hash, so that columns close
/// together (a stencil's) and columns far apart (a random graph's) spread
/// alike.
KOKKOS_INLINE_FUNCTION std::uint64_t hash_slot_of(std::int64_t column, int log2_slots) {
  return (static_cast<std::uint64_t>(column) * 0x9E3779B97F4A7C15ull) >> (64 - log2_slots);
}

}  // namespace gustav::detail
