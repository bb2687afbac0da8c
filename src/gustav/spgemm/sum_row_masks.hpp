#pragma once
/// The numeric phase of a CPU plan from its entries' masks (row_masks.hpp):
/// a thread per row of A, in order (rows of C lie in order in memory, and
/// neighbouring rows of A read neighbouring rows of B where A streams
/// through B), C's row summed in place.
///
/// The first call learns: for each entry of the row it walks its row of B
/// and C's row together (both sorted), adds each product at its column's
/// position and sets that position's bit. Later calls add product t of the
/// entry at the position of the entry's next set bit, comparing the two
/// columns as they go (an OR of their differences, tested once per entry)
/// and each entry's bits with its row of B's length. Every entry of C is
/// summed in the order of A's entries, as the default path sums it, so the
/// calls give the same bits whichever path runs.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/allocation.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/hierarchical_count.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/spgemm/row_masks.hpp"

namespace gustav::detail {

KOKKOS_INLINE_FUNCTION int mask_bits_set(std::uint32_t w) { return popcount32(w); }
KOKKOS_INLINE_FUNCTION int mask_bits_set(std::uint64_t w) { return popcount64(w); }
KOKKOS_INLINE_FUNCTION int mask_lowest(std::uint32_t w) { return lowest_bit32(w); }
KOKKOS_INLINE_FUNCTION int mask_lowest(std::uint64_t w) { return lowest_bit64(w); }

/// A row-mask pass's operands. Learn: the first call; else the sum.
template <class Types, class CRowMap, class CEntries, class CValues, class Word, bool Learn>
struct RowMaskPass {
  using Scalar = typename Types::scalar_type;
  using Ordinal = typename Types::ordinal_type;
  static constexpr std::int64_t word_bits = 8 * sizeof(Word);

  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CEntries c_entries;
  CValues c_values;
  Kokkos::View<Word*, typename Types::device_type> masks;
  std::int64_t prefetch_limit = 0;  ///< rows of B fetched ahead up to this entry of A (prefetch.hpp)

  /// Sums row i into C; `bits` gathers why the masks do not serve this
  /// call (a malformed operand, a product outside C, rows of B not strictly
  /// increasing, or a structure unlike the one learned).
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, int& bits) const {
    const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
    const std::int64_t n = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
    Scalar* const acc = c_values.data() + c0;
    const Ordinal* const columns = c_entries.data() + c0;
    for (std::int64_t q = 0; q < n; ++q) acc[q] = Scalar(0);
    std::int64_t a0, a1;
    if (!ops.a_row(i, a0, a1)) {
      bits |= error_bad_a;
      return;
    }
    const auto ahead = checked_rows_ahead(ops.a_entries, prefetch_limit, ops.b_row_map, ops.b_entries, ops.b_values);
    const Ordinal* const b_columns = ops.b_entries.data();
    const auto* const b_values = ops.b_values.data();
    Word* const row_masks = masks.data();
    for (std::int64_t j = a0; j < a1; ++j) {
      ahead.at(j);
      std::int64_t b0, b1;
      const int fault = checked_b_row(ops.b_row_map, static_cast<std::int64_t>(ops.a_entries(j)), ops.b_rows,
                                      ops.b_nnz, b0, b1);
      if (fault) {
        bits |= fault;
        continue;
      }
      const Scalar a = Scalar(ops.a_values(j));
      if constexpr (Learn) {
        // Each column of B past the previous one's position in C's row;
        // one not found there (outside C, or B's row not increasing) ends
        // the learning.
        Word mask = 0;
        std::int64_t q = 0;
        for (std::int64_t p = b0; p < b1; ++p, ++q) {
          const Ordinal col = b_columns[p];
          while (q < n && columns[q] < col) ++q;
          if (q == n || columns[q] != col) {
            bits |= error_structure_changed;
            break;
          }
          mask |= Word(1) << q;
          acc[q] += a * Scalar(b_values[p]);
        }
        row_masks[j] = mask;
      } else {
        Word mask = row_masks[j];
        // Bits past the row's end, or not one per product: not the
        // structure learned.
        if (mask_bits_set(mask) != b1 - b0 || (n < word_bits && (mask >> n) != 0)) {
          bits |= error_structure_differs;
          continue;
        }
        Ordinal differ = 0;
        for (std::int64_t p = b0; mask != 0; ++p, mask &= mask - 1) {
          const int q = mask_lowest(mask);
          differ |= b_columns[p] ^ columns[q];
          acc[q] += a * Scalar(b_values[p]);
        }
        if (differ != 0) bits |= error_structure_differs;
      }
    }
  }
};

/// Rows a thread takes at a time: neighbouring rows share their rows of B
/// and lie side by side in C.
constexpr int row_mask_chunk = 256;

/// Sums `c_values` from the plan's row masks, learning them where this is
/// the plan's first call. False where they do not serve this call (none
/// kept or to learn, no room for them within the budget, or the operands
/// differ from what they need or were learned on); the plan then drops
/// them, and the caller sums by the default path, which names any fault.
template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
bool numeric_by_row_masks(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B,
                          const CValues& c_values, TempMemory& temp) {
  using Device = typename Types::device_type;
  RowMasks<Device>* const masks = plan.schedule_.row_masks.get();
  if (!masks || masks->state == RowMasks<Device>::State::refused) return false;
  const bool learn = masks->state == RowMasks<Device>::State::waiting;
  const auto ops = operands_of<Types>(A, B);
  auto run = [&](auto word, auto& words) {
    using Word = decltype(word);
    if (learn) {
      try {
        words = temp.allocate<Kokkos::View<Word*, Device>>(space, "gustav::numeric::row_masks", A.nnz(), false);
      } catch (const allocation_error&) {
        return false;
      }
    } else {
      temp.add_resident(masks->bytes());
    }
    int bits = 0;
    const auto pass = [&](auto learn_constant) {
      using Pass = RowMaskPass<Types, decltype(plan.c_row_map_), decltype(plan.c_entries_), CValues, Word,
                               decltype(learn_constant)::value>;
      Pass f{ops, plan.c_row_map_, plan.c_entries_, c_values, words, plan.schedule_.prefetch_limit};
      using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>;
      Kokkos::parallel_reduce(learn ? "gustav::numeric::learn_row_masks" : "gustav::numeric::row_masks",
                              Policy(space, 0, plan.a_rows_).set_chunk_size(row_mask_chunk), f,
                              Kokkos::BOr<int>(bits));
    };
    if (learn) {
      pass(std::true_type{});
    } else {
      pass(std::false_type{});
    }
    return bits == 0;
  };
  const bool wide = plan.schedule_.max_row_nnz > RowMasks<Device>::narrow_row;
  const bool served = wide ? run(std::uint64_t{}, masks->wide) : run(std::uint32_t{}, masks->narrow);
  if (!served) {
    masks->refuse();
    plan.stats_.masks_bytes = 0;
    return false;
  }
  masks->state = RowMasks<Device>::State::kept;
  plan.stats_.masks_bytes = masks->bytes();
  plan.stats_.numeric_pool_bytes = 0;
  plan.stats_.numeric_peak_temp_bytes = temp.peak();
  return true;
}

}  // namespace gustav::detail
