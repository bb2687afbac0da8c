#pragma once
/// The entries' masks of a CPU plan (the thread-per-row mapping), learned by
/// its first numeric call (SpgemmOptions::learn_entry_masks) where every row
/// of C has at most 64 entries: one word per entry of A, whose set bits are
/// the positions in its row of C that its row of B reaches, in order (both
/// rows sorted). Later calls then sum each product at the position of the
/// next set bit (sum_row_masks.hpp): no table, no ring to set up, read out
/// and clear, C's row summed in place.
///
/// Unlike the GPU's masks (entry_masks.hpp) these need no fingerprint of
/// the structure: the sum compares each product's column of B with C's
/// column at the bit's position (both in cache), and each entry's count of
/// bits with its row of B's length, so a product lands only where its
/// column is. Where any of that differs the call sums again by the default
/// path, which keeps its contract, and the plan drops the masks.
///
/// Memory: 4 bytes per entry of A where every row of C has at most 32
/// entries, 8 where up to 64; counted in plan.stats().masks_bytes and
/// within the memory budget.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>

#include "gustav/spgemm/learned_masks.hpp"

namespace gustav::detail {

template <class Device>
struct RowMasks {
  /// Waiting for the first call, kept, or refused for good (as the GPU's).
  using State = typename LearnedMasks<Device>::State;
  /// Rows of C up to this long take masks (one 64-bit word an entry).
  static constexpr std::int64_t max_row = 64;
  /// Rows of C up to this long take 32-bit words.
  static constexpr std::int64_t narrow_row = 32;

  State state = State::waiting;
  Kokkos::View<std::uint32_t*, Device> narrow;  ///< one word per entry of A, where rows fit 32 bits
  Kokkos::View<std::uint64_t*, Device> wide;    ///< else one per entry of A

  bool kept() const { return state == State::kept; }
  std::size_t bytes() const {
    return kept() ? narrow.span() * sizeof(std::uint32_t) + wide.span() * sizeof(std::uint64_t) : 0;
  }
  void refuse() {
    state = State::refused;
    narrow = decltype(narrow)();
    wide = decltype(wide)();
  }
};

/// Shared by the copies of a plan, as the rest of its numeric scratch is:
/// whichever copy makes the first call learns for all.
template <class Device>
using SharedRowMasks = std::shared_ptr<RowMasks<Device>>;

}  // namespace gustav::detail
