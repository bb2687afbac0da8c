#pragma once
/// The symbolic phase's last step for a plan that keeps its products
/// (SpgemmOptions::keep_product_positions): once C's sorted structure is
/// known, every product finds its entry of C by a binary search in its row,
/// the products of each entry are counted, the counts become offsets, and a
/// second visit places each product's pair of entry numbers in its entry's
/// list, and the short lists are ordered by their entries of A. The order
/// within a list is fixed here, once, so every numeric call on the plan sums
/// in the same order and gives the same bits.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/options.hpp"
#include "gustav/spgemm/kept_slots.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// One visit of every product: each worker takes `per_worker` consecutive
/// entries of A (one on GPUs, a run on CPUs), its lanes the row of B of
/// each. Counting adds one to the product's entry of C in `ends`; placing
/// takes the next slot of that entry's list (ends then moves from each
/// list's start to its end).
template <class ExecSpace, class Types, bool Place>
struct VisitProducts {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Positions = ProductPositions<Device>;
  using Index = typename Positions::Index;
  ProductOperands<Types> ops;
  Kokkos::View<const typename Types::c_offset_type*, Device> c_row_map;
  typename Types::c_entries c_entries;
  Positions lists;
  ErrorFlag<Device> errors;
  std::int64_t a_rows = 0;
  std::int64_t per_worker = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t worker = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
    const std::int64_t first = worker * per_worker;
    const std::int64_t last = first + per_worker < ops.a_nnz ? first + per_worker : ops.a_nnz;
    if (first >= last) return;
    // The row holding entry `first`; later entries of the run move it on.
    std::int64_t row = last_at_most(ops.a_row_map, first, 0, a_rows - 1);
    bool bad = false, lost = false;
    for (std::int64_t j = first; j < last; ++j) {
      while (row + 1 < a_rows && static_cast<std::int64_t>(ops.a_row_map(row + 1)) <= j) ++row;
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bad = true;
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(row));
      const std::int64_t c1 = static_cast<std::int64_t>(c_row_map(row + 1));
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b0, b1), [&](const std::int64_t p) {
        const auto c = ops.b_entries(p);
        const std::int64_t e = find_sorted(c_entries, c0, c1, c);
        if (e < 0) {
          lost = true;
          return;
        }
        if constexpr (Place) {
          const Index slot = Kokkos::atomic_fetch_add(&lists.ends(e), Index(1));
          lists.a_entry(slot) = static_cast<Index>(j);
          lists.b_entry(slot) = static_cast<Index>(p);
        } else {
          Kokkos::atomic_fetch_add(&lists.ends(e), Index(1));
        }
      });
    }
    if (bad) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_bad_b));
    if (lost) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_structure_changed));
  }
};

template <class ExecSpace, class Types, bool Place>
void visit_products(const ExecSpace& space, const VisitProducts<ExecSpace, Types, Place>& f, const char* name,
                    double avg_b_row) {
  const int lanes = vector_length_for<ExecSpace>(avg_b_row);
  const int team_size = is_host_space<ExecSpace>() ? 1 : 256 / lanes;
  const std::int64_t workers = ceil_div<std::int64_t>(f.ops.a_nnz, f.per_worker);
  const std::int64_t league = ceil_div<std::int64_t>(workers, team_size);
  Kokkos::parallel_for(name, light_launch(Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team_size, lanes)),
                       f);
}

/// Orders every short list (at most Positions::long_list products) by its
/// entries of A, then of B. Neighbouring entries of C are summed by
/// neighbouring threads, step by step through their lists; in this order
/// they read the same rows of A and of B at the same step, where the
/// placing threads' order scattered them. The order is also no longer that
/// in which the placing threads took their slots, so two plans of one
/// structure sum their short lists alike.
template <class ExecSpace, class Positions>
void order_short_lists(const ExecSpace& space, const Positions& lists, std::int64_t nnz) {
  using Index = typename Positions::Index;
  const auto ends = lists.ends;
  const auto a_entry = lists.a_entry;
  const auto b_entry = lists.b_entry;
  Kokkos::parallel_for(
      "gustav::symbolic::positions::order",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t begin = list_begin(ends, e), end = ends(e);
        if (end - begin < 2 || end - begin > Positions::long_list) return;
        // Insertion sort: the lists are short, and mostly in order already
        // on CPUs (a thread places a run of A's entries in order).
        for (std::int64_t t = begin + 1; t < end; ++t) {
          const Index a = a_entry(t), b = b_entry(t);
          std::int64_t u = t;
          for (; u > begin; --u) {
            const Index pa = a_entry(u - 1), pb = b_entry(u - 1);
            if (pa < a || (pa == a && pb <= b)) break;
            a_entry(u) = pa;
            b_entry(u) = pb;
          }
          a_entry(u) = a;
          b_entry(u) = b;
        }
      });
}

/// Lists the entries of C whose product lists are longer than
/// Positions::long_list (none on most matrices; the hubs of power-law ones
/// and the many-product entries of multigrid products) and cuts their lists
/// into pieces, with room for a partial sum of `scalar_bytes` per piece.
template <class ExecSpace, class Positions>
void list_long_entries(const ExecSpace& space, Positions& lists, std::int64_t nnz, std::size_t scalar_bytes,
                       TempMemory& temp) {
  using Index = typename Positions::Index;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const auto ends = lists.ends;
  std::int64_t count = 0;
  Kokkos::parallel_reduce(
      "gustav::symbolic::positions::count_long", light_launch(Range(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& sum) { sum += list_length(ends, e) > Positions::long_list ? 1 : 0; },
      count);
  if (count == 0) return;
  lists.long_entries = temp.allocate<decltype(lists.long_entries)>(space, "gustav::symbolic::positions::long_entries",
                                                                   static_cast<std::size_t>(count), false);
  lists.piece_start = temp.allocate<decltype(lists.piece_start)>(space, "gustav::symbolic::positions::piece_start",
                                                                 static_cast<std::size_t>(count) + 1, false);
  const auto long_entries = lists.long_entries;
  const auto piece_start = lists.piece_start;
  Kokkos::parallel_scan(
      "gustav::symbolic::positions::list_long", light_launch(Range(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& sum, const bool final) {
        if (list_length(ends, e) <= Positions::long_list) return;
        if (final) long_entries(sum) = static_cast<Index>(e);
        sum += 1;
      });
  // Pieces per long entry, to offsets (the last gets the total).
  std::int64_t pieces = 0;
  Kokkos::parallel_scan(
      "gustav::symbolic::positions::pieces", light_launch(Range(space, 0, count + 1)),
      KOKKOS_LAMBDA(const std::int64_t l, std::int64_t& sum, const bool final) {
        if (final) piece_start(l) = static_cast<Index>(sum);
        if (l < count) {
          const std::int64_t length = list_length(ends, static_cast<std::int64_t>(long_entries(l)));
          sum += (length + Positions::piece_products - 1) / Positions::piece_products;
        }
      },
      pieces);
  lists.piece_entry = temp.allocate<decltype(lists.piece_entry)>(space, "gustav::symbolic::positions::piece_entry",
                                                                 static_cast<std::size_t>(pieces), false);
  lists.partials = temp.allocate<decltype(lists.partials)>(space, "gustav::symbolic::positions::partials",
                                                           static_cast<std::size_t>(pieces) * scalar_bytes, false);
  const auto piece_entry = lists.piece_entry;
  Kokkos::parallel_for(
      "gustav::symbolic::positions::piece_entry", light_launch(Range(space, 0, count)),
      KOKKOS_LAMBDA(const std::int64_t l) {
        for (Index q = piece_start(l); q < piece_start(l + 1); ++q) piece_entry(q) = static_cast<Index>(l);
      });
}

/// Finds the entry that holds the first product of every chunk of the
/// lists (ProductPositions::chunk_first) and makes room for the chunks'
/// partial sums, of `scalar_bytes` each. False where some entry of C has no
/// product at all (the chunks would not reach it; the structure of a
/// product has none such, so the plan then keeps nothing).
template <class ExecSpace, class Positions>
bool list_chunks(const ExecSpace& space, Positions& lists, std::int64_t nnz, std::int64_t products,
                 std::size_t scalar_bytes, TempMemory& temp) {
  using Index = typename Positions::Index;
  const std::int64_t size = Positions::chunk_products;
  const std::int64_t chunks = ceil_div<std::int64_t>(products, size);
  lists.chunk_first = temp.allocate<decltype(lists.chunk_first)>(space, "gustav::symbolic::positions::chunk_first",
                                                                 static_cast<std::size_t>(chunks) + 1, false);
  lists.chunk_partials = temp.allocate<decltype(lists.chunk_partials)>(
      space, "gustav::symbolic::positions::chunk_partials", static_cast<std::size_t>(2 * chunks) * scalar_bytes, false);
  const auto ends = lists.ends;
  const auto chunk_first = lists.chunk_first;
  std::int64_t empty = 0;
  Kokkos::parallel_reduce(
      "gustav::symbolic::positions::chunk_first",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& count) {
        const std::int64_t begin = list_begin(ends, e), end = ends(e);
        if (begin == end) count += 1;
        for (std::int64_t c = (begin + size - 1) / size; c * size < end; ++c) chunk_first(c) = static_cast<Index>(e);
        if (e == nnz - 1) chunk_first(chunks) = static_cast<Index>(e);
      },
      empty);
  return empty == 0;
}

/// Fills `kept` for C's structure (its row map and sorted columns) when the
/// counts fit the lists' 32-bit numbers (else leaves it not kept): by slot
/// where `layout` asks for them and they apply (kept_slots.hpp), else in
/// lists. What is kept stays with the plan; its bytes count towards the
/// symbolic phase's temporaries and its budget.
template <class Types, class ExecSpace, class CRowMap, class CEntries>
void record_positions(const ExecSpace& space, ProductPositions<typename Types::device_type>& kept,
                      const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CEntries& c_entries,
                      std::int64_t nnz, std::int64_t products, std::int64_t a_rows,
                      const ErrorFlag<typename Types::device_type>& errors, KeptLayout layout, TempMemory& temp) {
  using Positions = ProductPositions<typename Types::device_type>;
  using Index = typename Positions::Index;
  if (products > Positions::max_count || ops.a_nnz > Positions::max_count || ops.b_nnz > Positions::max_count ||
      nnz > Positions::max_count || nnz == 0)
    return;
  Positions lists;
  const bool try_slots = layout == KeptLayout::slots ||
                         (layout == KeptLayout::automatic && products >= Positions::mean_list_for_slots * nnz);
  if (try_slots &&
      record_slots<Types>(space, lists.slots, ops, c_row_map, c_entries, nnz, products, a_rows, errors, temp)) {
    lists.slotted = true;
    lists.kept = true;
    kept = lists;
    return;
  }
  lists.ends = temp.allocate<decltype(lists.ends)>(space, "gustav::symbolic::positions::ends",
                                                   static_cast<std::size_t>(nnz), true);
  lists.a_entry = temp.allocate<decltype(lists.a_entry)>(space, "gustav::symbolic::positions::a_entry",
                                                         static_cast<std::size_t>(products), false);
  lists.b_entry = temp.allocate<decltype(lists.b_entry)>(space, "gustav::symbolic::positions::b_entry",
                                                         static_cast<std::size_t>(products), false);

  const double avg_b_row = ops.b_rows > 0 ? static_cast<double>(ops.b_nnz) / static_cast<double>(ops.b_rows) : 1.0;
  const std::int64_t per_worker = is_host_space<ExecSpace>() ? 256 : 1;
  VisitProducts<ExecSpace, Types, false> count{ops, c_row_map, c_entries, lists, errors, a_rows, per_worker};
  visit_products(space, count, "gustav::symbolic::positions::count", avg_b_row);

  // Counts to each list's start.
  const auto ends = lists.ends;
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "gustav::symbolic::positions::starts",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& sum, const bool final) {
        const Index count = ends(e);
        if (final) ends(e) = static_cast<Index>(sum);
        sum += count;
      },
      total);
  // A product that found no entry of C (a sizing fault, or input that the
  // error bits will report) leaves lists short: keep nothing then.
  if (total != products) return;

  VisitProducts<ExecSpace, Types, true> place{ops, c_row_map, c_entries, lists, errors, a_rows, per_worker};
  visit_products(space, place, "gustav::symbolic::positions::place", avg_b_row);
  order_short_lists(space, lists, nnz);
  lists.chunked = products >= Positions::mean_list_for_chunks * nnz;
  if (lists.chunked) {
    if (!list_chunks(space, lists, nnz, products, sizeof(typename Types::scalar_type), temp)) return;
  } else {
    list_long_entries(space, lists, nnz, sizeof(typename Types::scalar_type), temp);
  }
  lists.kept = true;
  kept = lists;
}

}  // namespace gustav::detail
