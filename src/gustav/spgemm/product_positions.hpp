#pragma once
/// The products of every entry of C, kept by a plan made with
/// SpgemmOptions::keep_product_positions.
///
/// The default numeric phase finds each product's place in C's row through a
/// hash table built from the row's columns, row by row, for every call. A
/// plan that keeps the products turns the numeric phase around: entry e of C
/// is the sum of a(a_entry(t)) * b(b_entry(t)) over its products t, listed
/// together, so one flat pass over the lists computes every entry of C with
/// no table, no atomics, no bins and no per-row set-up, reading the lists
/// and the values in order and writing C once. Long rows, hub rows and tiny
/// rows are all alike to it.
///
/// It costs 8 bytes per product (two 32-bit entry numbers) and 4 per entry of
/// C, so it is kept only where the products, A's and B's entries number
/// fewer than 2^32. A plan may keep slots instead (product_slots.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/spgemm/product_slots.hpp"

namespace gustav::detail {

template <class Device>
struct ProductPositions {
  using Index = std::uint32_t;
  /// The largest count (products, entries of A or of B) the lists can hold.
  static constexpr std::int64_t max_count = 0xffffffffll;

  /// Per entry e of C: one past its last product in the lists (its first
  /// is ends(e - 1), or 0 for e = 0).
  Kokkos::View<Index*, Device> ends;
  /// Per product, grouped by entry of C: the entries of A and B it multiplies.
  Kokkos::View<Index*, Device> a_entry;
  Kokkos::View<Index*, Device> b_entry;
  /// The numeric phase sums the lists one of two ways, chosen when they are
  /// recorded by their mean length (sum_kept_products.hpp says why).
  /// Short lists: a thread per entry. The entries of C with more than
  /// `long_list` products are listed, and their lists cut into pieces of
  /// `piece_products`, each summed by a group of lanes into `partials` (by
  /// piece; bytes, as many as the scalar type needs), each entry then
  /// adding its pieces' sums in order: a hub entry's list is spread over
  /// many lanes, and the sum's order stays fixed.
  bool chunked = false;
  static constexpr std::int64_t mean_list_for_chunks = 8;
  Kokkos::View<Index*, Device> long_entries;
  Kokkos::View<Index*, Device> piece_start;  ///< long entry l's pieces: [piece_start(l), piece_start(l + 1))
  Kokkos::View<Index*, Device> piece_entry;  ///< the long entry (its number l) of each piece
  Kokkos::View<char*, Device> partials;
  static constexpr std::int64_t piece_products = 128;
  /// Long lists (`chunked`): chunks of `chunk_products` consecutive
  /// products, a team each, which multiplies its chunk's products side by
  /// side into scratch, then sums each entry's share of the chunk there. An
  /// entry whose list crosses into later chunks is finished from the
  /// chunks' partial sums afterwards, in chunk order.
  static constexpr std::int64_t chunk_products = 2048;
  /// Per chunk c, the entry that holds product c * chunk_products; last,
  /// the last entry of C (so chunk c's entries are chunk_first(c) to
  /// chunk_first(c + 1)).
  Kokkos::View<Index*, Device> chunk_first;
  /// Per chunk, two partial sums (bytes, as many as the scalar type
  /// needs): the share of the entry that began before the chunk, and of
  /// the one that began in it and goes on past it.
  Kokkos::View<char*, Device> chunk_partials;
  /// Lists of at most this many products are ordered by their entries of A
  /// and B when recorded (longer ones keep the order they were placed in);
  /// where lists are short, longer ones are summed in pieces.
  static constexpr std::int64_t long_list = 32;
  /// The numeric phase reads no column index, so it checks A's and B's
  /// structure against the fingerprint the plan took
  /// (HierarchicalSchedule::check, kept_structure_check.hpp).
  bool kept = false;
  /// Kept by slot instead of in lists (product_slots.hpp): the lists are
  /// then empty. KeptLayout::automatic takes slots where C's entries have
  /// `mean_list_for_slots` products each or more on average. Measured on an
  /// H200 (kept repeats, ms, lists -> slots; mean products an entry):
  /// brick:30's R * (A * P) 1.21 -> 0.94 (43), lap3d:80:27's A * A
  /// 2.13 -> 1.88 (5.9); but brick:30's A * P 0.94 -> 0.99 (24), bcsstk16
  /// 0.15 -> 0.18 (18), lap3d:120's R * (A * P) 0.44 -> 0.54 (9.7) and A * A
  /// 0.57 -> 0.72 (2), er:1000000:8 0.70 -> 1.13 (1): where lists are short
  /// a thread per entry keeps more loads in flight than a worker per row,
  /// whose lanes wait for each row of B in turn.
  bool slotted = false;
  static constexpr std::int64_t mean_list_for_slots = 32;
  ProductSlots<Device> slots;

  /// The lists' bytes (what the symbolic phase's budget counted).
  std::size_t bytes() const {
    return (ends.span() + a_entry.span() + b_entry.span() + long_entries.span() + piece_start.span() +
            piece_entry.span() + chunk_first.span()) *
               sizeof(Index) +
           partials.span() + chunk_partials.span() + slots.bytes();
  }
};

/// Where entry e's products start in the lists, given the lists' ends.
template <class Ends>
KOKKOS_INLINE_FUNCTION std::int64_t list_begin(const Ends& ends, std::int64_t e) {
  return e > 0 ? static_cast<std::int64_t>(ends(e - 1)) : 0;
}

/// The number of products of entry e of C, given the lists' ends.
template <class Ends>
KOKKOS_INLINE_FUNCTION std::int64_t list_length(const Ends& ends, std::int64_t e) {
  return static_cast<std::int64_t>(ends(e)) - list_begin(ends, e);
}

}  // namespace gustav::detail
