#pragma once
/// The symbolic phase's last step for a plan that keeps product positions
/// (SpgemmOptions::keep_product_positions): number the products of the
/// worker and team rows, then walk them once more to record where each one
/// lands in its (now known) row of C.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/hierarchical_rows.hpp"
#include "gustav/spgemm/product_positions.hpp"

namespace gustav::detail {

/// Fills `schedule.positions` for C's structure in `structure` (its row map
/// and sorted columns). The arrays stay with the plan; their bytes count
/// towards the symbolic phase's temporaries (and its budget).
template <class Types, class ExecSpace, class Schedule>
void record_positions(const ExecSpace& space, Schedule& schedule, const ProductOperands<Types>& ops,
                      const RowWriter<ExecSpace, Types, RowOutput::structure>& structure,
                      const ErrorFlag<typename Types::device_type>& errors, std::int64_t a_rows, TempMemory& temp) {
  using Device = typename Types::device_type;
  using Positions = ProductPositions<Device>;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Positions kept;
  kept.row_start = temp.allocate<decltype(kept.row_start)>(space, "gustav::symbolic::positions::row_start", a_rows + 1,
                                                           true);
  kept.entry_start = temp.allocate<decltype(kept.entry_start)>(space, "gustav::symbolic::positions::entry_start",
                                                               static_cast<std::size_t>(ops.a_nnz), true);

  // Each worker or team row numbers its products entry by entry.
  const auto row_start = kept.row_start;
  const auto entry_start = kept.entry_start;
  const auto perm = schedule.perm;
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) {
    const RowBin& bin = schedule.bins[b];
    if (!takes_part<RowOutput::record>(bin.level)) continue;
    if (bin.max_need > Positions::max_row_nnz)
      throw internal_error("gustav: a row bin holds rows too long for 16-bit product positions");
    if (bin.max_products > static_cast<std::int64_t>(Positions::max_row_products))
      throw internal_error("gustav: a row bin holds rows with too many products for 32-bit product numbers");
    const std::int64_t first = schedule.offsets[b], last = schedule.offsets[b + 1];
    if (first == last) continue;
    Kokkos::parallel_for(
        "gustav::symbolic::positions::number", light_launch(Range(space, first, last)), KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t row = static_cast<std::int64_t>(perm(i));
          std::int64_t a0, a1;
          ops.a_row(row, a0, a1);
          std::int64_t products = 0;
          for (std::int64_t j = a0; j < a1; ++j) {
            entry_start(j) = static_cast<std::uint32_t>(products);
            std::int64_t b0, b1;
            ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1);
            products += b1 - b0;
          }
          row_start(row) = products;
        });
  }
  // Counts to offsets (the last entry gets the total).
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "gustav::symbolic::positions::offsets", light_launch(Range(space, 0, a_rows + 1)),
      KOKKOS_LAMBDA(const std::int64_t r, std::int64_t& sum, const bool final) {
        const std::int64_t count = row_start(r);
        if (final) row_start(r) = sum;
        sum += count;
      },
      total);
  kept.position = temp.allocate<decltype(kept.position)>(space, "gustav::symbolic::positions::position",
                                                         static_cast<std::size_t>(total), false);
  kept.kept = true;

  RowWriter<ExecSpace, Types, RowOutput::record> out{structure.c_row_map, structure.c_entries, {}, kept};
  TempMemory none;  // records run no long rows, so take no pool
  write_rows_hierarchical<RowOutput::record>(space, schedule, ops, out, errors, "gustav::symbolic::positions", none);
  schedule.positions = kept;
}

}  // namespace gustav::detail
