#pragma once
/// Recording kept products by slot in the symbolic phase, and summing them
/// in the numeric phase (product_slots.hpp says what they are and when they
/// apply; slot_rows.hpp holds the kernels).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_slots.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/slot_rows.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

/// Fills `out` with the slots of every product, where they apply (B's rows
/// strictly increasing, C's longest row within half a team's window);
/// false, with nothing kept, where they do not. C's structure (row map and
/// sorted columns) is the product's.
template <class Types, class ExecSpace, class CRowMap, class CEntries>
bool record_slots(const ExecSpace& space, ProductSlots<typename Types::device_type>& out,
                  const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CEntries& c_entries,
                  std::int64_t nnz, std::int64_t products, std::int64_t a_rows,
                  const ErrorFlag<typename Types::device_type>& errors, TempMemory& temp) {
  using Device = typename Types::device_type;
  using Slots = ProductSlots<Device>;
  using Offset = typename Slots::Offset;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Sum = SumKeptSlots<ExecSpace, Types, CRowMap, typename Types::c_values>;
  using Record = RecordSlots<ExecSpace, Types, CRowMap, CEntries>;
  if (nnz == 0 || products == 0 || ops.a_nnz == 0) return false;

  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "gustav::symbolic::slots::longest_row", light_launch(Range(space, 0, a_rows)),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) {
        const std::int64_t n = static_cast<std::int64_t>(c_row_map(i + 1)) - static_cast<std::int64_t>(c_row_map(i));
        if (n > m) m = n;
      },
      Kokkos::Max<std::int64_t>(longest));
  if (!b_rows_increasing<Types>(space, ops, "gustav::symbolic::slots::b_order")) return false;

  Slots slots;
  using Scalar = typename Types::scalar_type;
  const std::size_t limit = team_scratch_limit<ExecSpace>();
  slots.lanes = vector_length_for<ExecSpace>(static_cast<double>(products) / static_cast<double>(ops.a_nnz));
  if constexpr (!is_host_space<ExecSpace>()) {
    // 128 threads a team; fewer workers where their caches would leave the
    // window fewer than 1,024 entries (complex scalars with a lane a
    // worker: 128 caches of 384 bytes are more than the whole limit).
    slots.workers = 128 / slots.lanes;
    const std::size_t least_window = 1024 * sizeof(Scalar);
    while (slots.workers > 1 && static_cast<std::size_t>(slots.workers) * Sum::worker_bytes() + least_window > limit)
      slots.workers /= 2;
  }
  const SlotTeamShape<ExecSpace> shape(slots);
  const std::size_t caches = static_cast<std::size_t>(shape.workers) * Sum::worker_bytes();
  if (caches >= limit) return false;
  const std::int64_t max_window = static_cast<std::int64_t>((limit - caches) / sizeof(Scalar));
  // Half the window at least for the blocks' stride, so a block holds
  // several rows and no row spans more than two strides.
  slots.window = std::min(max_window, std::max<std::int64_t>(1024, 2 * longest));
  if (2 * longest > slots.window) return false;
  slots.stride = slots.window - longest;
  const std::int64_t blocks = ceil_div(nnz, slots.stride);

  slots.row_start = temp.allocate<decltype(slots.row_start)>(space, "gustav::symbolic::slots::row_start",
                                                             static_cast<std::size_t>(a_rows) + 1, false);
  const auto row_start = slots.row_start;
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "gustav::symbolic::slots::row_start", light_launch(Range(space, 0, a_rows + 1)),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        if (final) row_start(i) = static_cast<Offset>(sum);
        if (i == a_rows) return;
        std::int64_t a0, a1;
        ops.a_row(i, a0, a1);
        for (std::int64_t j = a0; j < a1; ++j) {
          std::int64_t b0, b1;
          ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1);
          sum += b1 - b0;
        }
      },
      total);
  if (total != products) {
    temp.release(slots.row_start);
    return false;
  }

  slots.block_start = temp.allocate<decltype(slots.block_start)>(space, "gustav::symbolic::slots::block_start",
                                                                 static_cast<std::size_t>(blocks) + 1, false);
  const auto block_start = slots.block_start;
  const std::int64_t stride = slots.stride;
  // Block b starts after the row whose entries of C reach past b * stride
  // (one row for each block but the first, since no row is longer than the
  // stride).
  Kokkos::parallel_for(
      "gustav::symbolic::slots::block_start", light_launch(Range(space, 0, a_rows)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
        const std::int64_t c1 = static_cast<std::int64_t>(c_row_map(i + 1));
        for (std::int64_t b = c0 / stride + 1; b < blocks && b * stride <= c1; ++b)
          block_start(b) = static_cast<Offset>(i + 1);
        if (i == 0) {
          block_start(0) = 0;
          block_start(blocks) = static_cast<Offset>(a_rows);
        }
      });

  slots.slot = temp.allocate<decltype(slots.slot)>(space, "gustav::symbolic::slots::slot",
                                                   static_cast<std::size_t>(products), false);
  const Record record{slots, ops, c_row_map, c_entries, errors};
  Kokkos::parallel_for("gustav::symbolic::slots::record",
                       light_launch(Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(blocks), shape.workers,
                                                                  shape.lanes)
                                        .set_scratch_size(0, Kokkos::PerTeam(shape.workers * Record::worker_bytes()))),
                       record);
  out = slots;
  return true;
}

/// Sums every entry of C from its slots into `c_values`.
template <class Types, class ExecSpace, class CRowMap, class CValues>
void sum_kept_slots(const ExecSpace& space, const ProductSlots<typename Types::device_type>& slots,
                    const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CValues& c_values) {
  using Sum = SumKeptSlots<ExecSpace, Types, CRowMap, CValues>;
  const SlotTeamShape<ExecSpace> shape(slots);
  const std::int64_t blocks = static_cast<std::int64_t>(slots.block_start.extent(0)) - 1;
  if (blocks <= 0) return;
  const Sum sum{slots, ops, c_row_map, c_values};
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_slots",
      light_launch(Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(blocks), shape.workers, shape.lanes)
                       .set_scratch_size(0, Kokkos::PerTeam(Sum::scratch_bytes(slots.window, shape.workers)))),
      sum);
}

}  // namespace gustav::detail
