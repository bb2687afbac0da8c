#pragma once
/// The numeric phase of a plan that keeps its products
/// (SpgemmOptions::keep_product_positions). A plan that keeps them by slot
/// walks them row by row (kept_slots.hpp). Otherwise every entry of C is
/// the sum of its listed products, summed one of two ways, chosen when the
/// lists were recorded by their mean length.
///
/// Short lists (stencil squares, uniform random rows, power-law graphs; all
/// but the longest lists at most a few products): a thread per entry
/// (sum_kept_lists.hpp). A warp's 32 entries' lists lie side by side, so
/// its loads of them coalesce, and at each step its gathers read
/// neighbouring entries of B.
///
/// Long lists (multigrid triple products, dense blocks: eight products an
/// entry or more on average): chunks of products, a team each
/// (sum_kept_chunks.hpp). A thread per entry there reads a list of its own,
/// a cache line no other lane of its warp shares at each step, and waits for
/// the longest list of its warp: on an H200 that kernel was bound by its L1
/// traffic at a third of the memory's bandwidth on lap3d:120's R * (A * P)
/// (a repeat 0.64 ms; in chunks 0.54). On short lists the chunks were
/// slower (lap3d:120's A * A 0.59 -> 0.75 ms): they add a pass through
/// scratch, and gather one entry's products from different rows of B side
/// by side.
#include <cstdint>

#include "gustav/common/concurrent_bins.hpp"
#include "gustav/spgemm/kept_slots.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/sum_kept_chunks.hpp"
#include "gustav/spgemm/sum_kept_lists.hpp"

namespace gustav::detail {

/// `side_streams`: where kernels that need not wait for the ones on `space`
/// may go (the caller joins them).
template <class Types, class ExecSpace, class CRowMap, class CValues>
void sum_kept_products(const ExecSpace& space, const ProductPositions<typename Types::device_type>& kept,
                       const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CValues& c_values,
                       ConcurrentBins<ExecSpace>& side_streams) {
  if (kept.slotted) {
    sum_kept_slots<Types>(space, kept.slots, ops, c_row_map, c_values);
  } else if (kept.chunked) {
    sum_kept_chunks<Types>(space, kept, ops, c_values);
  } else {
    sum_kept_lists<Types>(space, kept, ops, c_values, side_streams);
  }
}

}  // namespace gustav::detail
