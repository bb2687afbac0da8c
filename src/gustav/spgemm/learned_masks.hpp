#pragma once
/// What a plan learns from its first numeric call: the entries' masks of
/// its short rows (SpgemmOptions::learn_entry_masks, learn_entry_masks.hpp)
/// and the positions of its hash bins' products
/// (SpgemmOptions::learn_product_positions, bin_positions.hpp), with one
/// fingerprint of the structure they were learned on; held through
/// a pointer that copies of the plan share, as they share the rest of the
/// numeric calls' scratch (plan.hpp): whichever copy makes the first call
/// learns them for all.
///
/// Unlike masks the caller asked for (keep_entry_masks), learned masks and
/// positions leave the numeric phase's contract as it is: where A's or B's structure
/// differs from the one they were learned on, the call sums by the default
/// path instead (which accepts any structure whose products stay inside
/// C's) and the plan drops them for good.
#include <memory>

#include "gustav/spgemm/bin_positions.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/kept_structure_check.hpp"

namespace gustav::detail {

/// A plan learns its masks only where the masked bins' rows (rows of C of
/// up to EntryMasks::max_row entries) hold at least this share of the
/// products: elsewhere the repeats barely change and the first call would
/// pay for nothing (H100, 2026-12-06, first call / reuse ms before ->
/// learning everywhere: ca-HepPh 0.73 / 0.626 -> 0.98 / 0.63, rmat:16:8
/// 2.82 / 2.66 -> 3.50 / 2.70; both learned under 0.4 MiB of masks).
constexpr double learn_masks_products_share_min = 0.5;

template <class Device>
struct LearnedMasks {
  enum class State {
    waiting,  ///< no numeric call yet: the next one learns
    kept,     ///< learned: numeric calls sum from them
    refused   ///< they do not apply, or the structure changed: never again
  };
  State state = State::waiting;
  EntryMasks<Device> masks;          ///< empty where none were learned
  BinPositions<Device> positions;    ///< empty where none were learned
  KeptStructureCheck<Device> check;

  bool kept() const { return state == State::kept; }
  std::size_t bytes() const { return kept() ? masks.bytes() + positions.bytes() + check.bytes() : 0; }
  /// Gives the masks, the positions and the fingerprint's arrays back.
  void refuse() {
    state = State::refused;
    masks = EntryMasks<Device>();
    positions = BinPositions<Device>();
    check = KeptStructureCheck<Device>();
  }
};

template <class Device>
using SharedLearnedMasks = std::shared_ptr<LearnedMasks<Device>>;

}  // namespace gustav::detail
