#pragma once
/// Colours the rows of C so that two rows of one colour share no column
/// (seed 002's distance-2 colouring on the structure of C): a one-sided
/// colouring of C's bipartite graph (rows on one side, columns on the
/// other), computed by Kokkos Kernels' KokkosGraph rather than by Gustav.
/// Rows of one colour can then accumulate into one dense array without
/// conflicts (colour_schedule.hpp, spgemm/colour_numeric.hpp).
#include <Kokkos_Core.hpp>
#include <KokkosGraph_Distance2Color.hpp>
#include <KokkosKernels_Handle.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// Colours of the rows of a structure: `colour(i)` in [0, count).
template <class Device>
struct RowColours {
  Kokkos::View<std::int64_t*, Device> colour;
  std::int64_t count = 0;
};

/// Copies KokkosGraph's colours (1-based) into Gustav's (0-based, 64-bit).
template <class In, class Out>
struct ZeroBasedColours {
  In in;
  Out out;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { out(i) = static_cast<std::int64_t>(in(i)) - 1; }
};

/// Colours the `num_rows` rows of the structure (row_map, entries) over
/// `num_cols` columns. A structure without entries needs one colour.
/// KokkosGraph allocates its own temporaries (the transpose of the
/// structure among them), outside Gustav's memory budget.
template <class ExecSpace, class RowMap, class Entries>
RowColours<typename RowMap::device_type> colour_rows(const ExecSpace& space, std::int64_t num_rows,
                                                     std::int64_t num_cols, const RowMap& row_map,
                                                     const Entries& entries) {
  using Device = typename RowMap::device_type;
  using Offset = std::remove_const_t<typename RowMap::value_type>;
  using Ordinal = std::remove_const_t<typename Entries::value_type>;
  using MemorySpace = typename Device::memory_space;
  RowColours<Device> result;
  result.colour = allocate_view<Kokkos::View<std::int64_t*, Device>>(space, "gustav::colouring::colours",
                                                                     static_cast<std::size_t>(num_rows), true);
  if (num_rows == 0) return result;
  result.count = 1;
  if (entries.extent(0) == 0) return result;

  // KokkosGraph runs on the default instance of ExecSpace: what `space` has
  // queued must be done first.
  space.fence();
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, double, ExecSpace, MemorySpace,
                                                                  MemorySpace>;
  Handle handle;
  handle.create_distance2_graph_coloring_handle();
  try {
    KokkosGraph::Experimental::bipartite_color_rows(&handle, static_cast<Ordinal>(num_rows),
                                                    static_cast<Ordinal>(num_cols), row_map, entries);
  } catch (const std::exception& e) {
    handle.destroy_distance2_graph_coloring_handle();
    throw allocation_error(std::string("gustav::colouring: KokkosGraph's distance-2 colouring failed: ") + e.what());
  }
  auto* colouring = handle.get_distance2_graph_coloring_handle();
  const auto colours = colouring->get_vertex_colors();
  result.count = static_cast<std::int64_t>(colouring->get_num_colors());
  Kokkos::parallel_for("gustav::colouring::zero_based",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, num_rows),
                       ZeroBasedColours<decltype(colours), decltype(result.colour)>{colours, result.colour});
  space.fence();
  handle.destroy_distance2_graph_coloring_handle();
  return result;
}

}  // namespace gustav::detail
