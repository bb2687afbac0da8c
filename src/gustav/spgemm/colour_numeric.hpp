#pragma once
/// The colouring numeric phase (SpgemmOptions::accumulator = mcr or mcw;
/// seed 002's KKMCR and KKMCW). The plan's colour schedule
/// (colouring/colour_schedule.hpp) lists C's rows in groups of colours; a
/// launch per group, a worker per row. A row marks, in its colour's dense
/// array, each of its columns with its position in C, adds every product
/// at the position its column holds, and unmarks its columns. Rows of one
/// colour share no column, so they share the array without conflict: the
/// arrays take cols(C) positions per colour of a group, not per thread, and
/// so give GPUs a dense accumulator for every row.
///
/// A product whose column holds no position inside the row (unmarked, or
/// marked by another row of the colour) lies outside the planned structure:
/// it raises error_structure_changed rather than being added elsewhere.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/colouring/colour_schedule.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/team/levels.hpp"
#include "gustav/validation/empty_rows_check.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class Group>
struct ColourNumericRows {
  using Offset = typename Types::c_offset_type;
  using Scalar = typename Types::scalar_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  /// One CPU thread owns a row; a GPU worker's lanes share each row of B,
  /// whose duplicate columns may meet.
  using Concurrency = std::conditional_t<is_host_space<ExecSpace>(), Exclusive, Concurrent>;

  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  typename Types::values a_values;
  typename Types::b_row_map b_row_map;
  typename Types::entries b_entries;
  typename Types::values b_values;
  Kokkos::View<const Offset*, typename Types::device_type> c_row_map;
  Kokkos::View<const typename Types::ordinal_type*, typename Types::device_type> c_entries;
  typename Types::c_values c_values;
  Group group;
  Kokkos::View<int, typename Types::device_type> errors;
  std::int64_t prefetch_limit = 0;  ///< rows of B fetched ahead up to this entry of A (CPUs; 0: none)

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    group.for_each_row(team, [&](std::int64_t row, Offset* marks) {
      const Offset start = c_row_map(row), end = c_row_map(row + 1);
      const auto n = static_cast<std::int64_t>(end - start);
      WorkerLevel::for_each(team, n, [&](std::int64_t q) {
        marks[static_cast<std::int64_t>(c_entries(start + q))] = static_cast<Offset>(start + q);
        c_values(start + q) = Scalar(0);
      });
      WorkerLevel::for_each_product(
          team, a_row_map, a_entries, b_row_map, row,
          [&](const auto j, const auto p) {
            const Offset at = marks[static_cast<std::int64_t>(b_entries(p))];
            if (at >= start && at < end) {
              Concurrency::add(&c_values(at), Scalar(a_values(j) * b_values(p)));
            } else {
              Kokkos::atomic_fetch_or(&errors(), int(error_structure_changed));
            }
          },
          rows_ahead(a_entries, prefetch_limit, b_row_map, b_entries, b_values));
      WorkerLevel::for_each(team, n, [&](std::int64_t q) {
        marks[static_cast<std::int64_t>(c_entries(start + q))] = unmarked_position<Offset>();
      });
    });
  }
};

/// Values of C into c_values under the plan's colour schedule.
template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
void numeric_by_colour(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B, const CValues& c_values,
                       const char* who) {
  using Offset = typename Types::c_offset_type;
  using Device = typename Types::device_type;
  const auto& s = plan.schedule_.colours;
  if (plan.nnz() == 0) {
    // No row to colour; a product that appeared since would be lost.
    auto errors = make_error_flag<Device>(space, "gustav::numeric::errors");
    check_empty_rows_stay_empty(space, plan.a_rows_, plan.c_row_map_, A, B, errors);
    raise_kernel_errors(space, errors, who);
    return;
  }
  TempMemory temp;
  temp.set_budget(plan.options_.memory_budget_bytes);
  temp.add_resident(view_bytes(s.order) + view_bytes(s.slots));
  auto positions = temp.allocate<Kokkos::View<Offset*, Device>>(
      space, "gustav::numeric::colour_arrays",
      static_cast<std::size_t>(s.colours_per_group) * static_cast<std::size_t>(plan.b_cols_), false);
  Kokkos::deep_copy(space, positions, unmarked_position<Offset>());
  auto errors = make_error_flag<Device>(space, "gustav::numeric::errors");
  using Group = ColourGroup<decltype(s.order), decltype(s.slots), decltype(positions)>;
  using Kernel = ColourNumericRows<ExecSpace, Types, Group>;
  Kernel k;
  k.a_row_map = A.row_map;
  k.a_entries = A.entries;
  k.a_values = A.values;
  k.b_row_map = B.row_map;
  k.b_entries = B.entries;
  k.b_values = B.values;
  k.c_row_map = plan.c_row_map_;
  k.c_entries = plan.c_entries_;
  k.c_values = c_values;
  k.group = Group{s.order, s.slots, positions, plan.b_cols_, 0, 0, s.mapping.rows_per_worker};
  k.errors = errors;
  k.prefetch_limit = is_host_space<ExecSpace>() ? plan.schedule_.prefetch_limit : 0;
  for (std::size_t g = 0; g + 1 < s.group_offsets.size(); ++g) {
    k.group.begin = s.group_offsets[g];
    k.group.rows = s.group_offsets[g + 1] - s.group_offsets[g];
    if (k.group.rows == 0) continue;
    RowMapping m = s.mapping;
    Kokkos::parallel_for("gustav::numeric::colour_group",
                         row_policy<ExecSpace, Kernel, typename Kernel::Policy>(space, m, k.group.rows, k), k);
  }
  raise_kernel_errors(space, errors, who);
  temp.release(positions);
  plan.stats_.numeric_pool_bytes = 0;
  plan.stats_.numeric_peak_temp_bytes = temp.peak();
}

}  // namespace gustav::detail
