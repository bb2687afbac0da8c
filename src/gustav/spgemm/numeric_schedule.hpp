#pragma once
/// What the symbolic phase leaves for the numeric phase: the rows of A
/// binned by the nnz of their row of C, with each bin's mapping, and the
/// pool sizes. Computed once, reused by every numeric call.
///
/// `tiers`, `binning` and `pools` serve the CPU's thread-per-row mapping;
/// `hierarchical` the team / worker / lane mapping (GPUs); `colours` the
/// colouring numeric phase on either.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/colouring/colour_schedule.hpp"
#include "gustav/spgemm/dense_rows.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/kept_structure_check.hpp"
#include "gustav/spgemm/learned_masks.hpp"
#include "gustav/spgemm/long_row_kept_offsets.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/row_masks.hpp"
#include "gustav/spgemm/tier_kernel.hpp"

namespace gustav::detail {

/// The hierarchical mapping's numeric bins.
template <class Device, class Ordinal>
struct HierarchicalSchedule {
  bool used = false;
  std::vector<RowBin> bins;              ///< by nnz of the row of C (tiny: by products)
  std::vector<std::int64_t> offsets;     ///< bin b's rows are perm(offsets[b]) .. perm(offsets[b+1] - 1)
  Kokkos::View<Ordinal*, Device> perm;   ///< rows with products, grouped by bin
  std::int64_t products = 0;             ///< all rows' products (the long rows' slices)
  std::vector<std::int64_t> bin_products;  ///< products of each bin's rows
  /// The numeric phase's error bits, made once so that a numeric call
  /// allocates nothing (calls on one plan must not overlap).
  Kokkos::View<std::int64_t, Device> errors;
  /// The products of every entry of C, listed for a flat numeric sum
  /// (SpgemmOptions::keep_product_positions; else not kept).
  ProductPositions<Device> positions;
  /// The entries' masks of the rows of short rows of C
  /// (SpgemmOptions::keep_entry_masks, where no positions are kept).
  EntryMasks<Device> masks;
  /// The fingerprint of A's and B's structure that a plan keeping either
  /// takes, and each numeric call compares.
  KeptStructureCheck<Device> check;
  /// The masks the first numeric call learns where neither of the above
  /// is kept (SpgemmOptions::learn_entry_masks; null where not asked).
  SharedLearnedMasks<Device> learned;
  /// The long rows' offsets, kept by the first numeric call for the
  /// repeats (long_row_kept_offsets.hpp; empty until then, and where the
  /// schedule has no long rows).
  SharedLongRowKeptOffsets<Device> long_offsets = std::make_shared<LongRowKeptOffsets<Device>>();
};

template <class Device, class Ordinal>
struct NumericSchedule {
  HierarchicalSchedule<Device, Ordinal> hierarchical;
  /// The colouring numeric phase's (Accumulator::mcr / mcw): when used, it
  /// replaces the schedules of both mappings.
  ColourSchedule<Device, Ordinal> colours;
  std::vector<Tier> tiers;
  Binning<Device, Ordinal> binning;
  PoolSizing pools;
  double max_load = 0.5;
  /// Thread-per-row passes fetch rows of B ahead up to this entry of A:
  /// nnz(A), or 0 where A streams through B (prefetch_b_rows).
  std::int64_t prefetch_limit = 0;
  /// How the thread-per-row dense rows sum (numeric_pass.hpp), and, for
  /// DenseRows::ring, the ring's width in values (0 otherwise).
  DenseRows dense_rows = DenseRows::positions;
  std::int64_t ring_width = 0;
  /// DenseRows::hashed: log2 of the table's slots (0 otherwise).
  int hash_log2_slots = 0;
  /// The longest row of C.
  std::int64_t max_row_nnz = 0;
  /// The thread-per-row mapping's entries' masks, learned by the first
  /// numeric call (row_masks.hpp; null where they cannot apply).
  SharedRowMasks<Device> row_masks;
};

}  // namespace gustav::detail
