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
#include <type_traits>
#include <vector>

#include "gustav/errors.hpp"

namespace gustav::detail {

/// Colours the `num_rows` rows of the structure (row_map, entries) over
/// `num_cols` columns, on the host and 0-based (KokkosGraph's are 1-based;
/// the schedule that orders the rows by colour is built on the host). A
/// structure without entries needs one colour. KokkosGraph allocates its
/// own temporaries (the transpose of the structure among them), outside
/// Gustav's memory budget.
template <class ExecSpace, class RowMap, class Entries>
std::vector<std::int64_t> colour_rows(const ExecSpace& space, std::int64_t num_rows, std::int64_t num_cols,
                                      const RowMap& row_map, const Entries& entries) {
  using Offset = std::remove_const_t<typename RowMap::value_type>;
  using Ordinal = std::remove_const_t<typename Entries::value_type>;
  using MemorySpace = typename RowMap::device_type::memory_space;
  std::vector<std::int64_t> colour(static_cast<std::size_t>(num_rows), 0);
  if (num_rows == 0 || entries.extent(0) == 0) return colour;

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
  const auto host = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), handle.get_distance2_graph_coloring_handle()->get_vertex_colors());
  handle.destroy_distance2_graph_coloring_handle();
  for (std::int64_t i = 0; i < num_rows; ++i) colour[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(host(i)) - 1;
  return colour;
}

}  // namespace gustav::detail
