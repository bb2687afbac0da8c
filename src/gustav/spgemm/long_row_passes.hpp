#pragma once
/// Runs one pass of the long-row path (long_row_kernels.hpp) over the long
/// bin's rows: lists where each row's products lie (its slices); where the
/// pass marks (all but reuse), chooses the window width and the batch from
/// the pool that a memory budget leaves, then, window by window and batch
/// by batch, runs the marking walk and the read-out. Values and reuse then
/// walk again adding into C (long_row_add.hpp), which needs no pool.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "gustav/common/allocation.hpp"
#include "gustav/common/arena.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/long_row_add.hpp"
#include "gustav/spgemm/long_row_kept_offsets.hpp"
#include "gustav/spgemm/long_row_kernels.hpp"

namespace gustav::detail {

/// Without a budget the long-row pool takes at most this much.
constexpr std::size_t long_row_pool_max = std::size_t(256) << 20;

/// Windows of at most this many words (65,536 columns, 8 KiB) are marked
/// in team scratch first (LongRowSlices::scratch_words).
constexpr std::int64_t long_row_scratch_words = 2048;

/// The counting pass's extra outputs: each long row's nnz and numeric bin.
template <class Types>
struct LongRowCountOutputs {
  typename Types::c_row_map c_row_map;
  RowBinList<Types> row_bin;
  SummaryView<typename Types::device_type> summary;
  RowBinBounds numeric_bins;
  std::int64_t max_row_count = 0;
};

/// Returns the pool bytes taken (already released). `products`: at least
/// the rows' products (all of the product's will do), for the slices' size.
/// `kept` (reuse only; may be null): the plan's keeping of the offsets,
/// used where it holds them (with a check beside the walk) and filled
/// where it does not.
template <LongPass Pass, class Types, class ExecSpace>
std::size_t run_long_rows(const ExecSpace& space, const ProductOperands<Types>& ops,
                          const RowWriter<ExecSpace, Types, row_output<Pass>()>& out, const RowList<Types>& rows,
                          std::int64_t count, std::int64_t products, const RowBin& bin,
                          const ErrorFlag<typename Types::device_type>& errors,
                          const LongRowCountOutputs<Types>& count_out, const std::string& label, TempMemory& temp,
                          LongRowKeptOffsets<typename Types::device_type>* kept = nullptr) {
  using Device = typename Types::device_type;
  using Batch = LongRowBatch<ExecSpace, Types, RowList<Types>, Pass>;
  using Window = typename Batch::Window;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  if (count == 0) return 0;
  const std::int64_t cols = std::max<std::int64_t>(ops.b_cols, 1);
  // Lanes per worker: one on hosts, as launch_teams gives host teams, so
  // the kernels that stride by their lanes agree with their policy.
  const int lanes = is_host_space<ExecSpace>() ? 1 : bin.vector_length;
  if constexpr (Pass == LongPass::reuse) {
    if (kept && kept->kept(count)) {
      // A repeat: no reduction, scans or reads back before the walk.
      Batch base;
      base.ops = ops;
      base.out = out;
      base.rows = rows;
      base.offsets = kept->offsets();
      Kokkos::parallel_for(label + "::kept_offsets_check", light_launch(Range(space, 0, count + kept->listed)),
                           LongRowOffsetsCheck<Types, RowList<Types>>{ops, rows, base.offsets, errors, count});
      add_long_rows<Pass>(space, base, count, bin, lanes, errors, label, kept->cut);
      return 0;
    }
  }

  // The rows' entries of A, listed for the slices' offsets.
  std::int64_t listed = 0;
  Kokkos::parallel_reduce(
      label + "::listed_entries", light_launch(Range(space, 0, count)),
      KOKKOS_LAMBDA(const std::int64_t r, std::int64_t& sum) {
        std::int64_t a0, a1;
        ops.a_row(static_cast<std::int64_t>(rows(r)), a0, a1);
        sum += a1 - a0;
      },
      listed);

  // The pool: what the budget leaves (after the progress and offset
  // arrays), at most long_row_pool_max. A window spans all of B's columns
  // unless that would leave room for fewer than 8 rows at once. Reuse
  // marks nothing and takes no pool.
  constexpr bool marks = Pass != LongPass::reuse;
  const std::size_t index_bytes = static_cast<std::size_t>(4 * count + listed + 3) * sizeof(std::int64_t) + 256;
  const std::size_t headroom = 4096 + index_bytes;
  const std::size_t room = temp.room() > headroom ? temp.room() - headroom : 0;
  const std::size_t cap = std::min(long_row_pool_max, room);
  const std::int64_t together = std::min<std::int64_t>(count, 8);
  std::int64_t width = cols;
  if (Window::bytes(width) * static_cast<std::size_t>(together) > cap) {
    width = static_cast<std::int64_t>(static_cast<double>(cap) / static_cast<double>(together) /
                                      Window::bytes_per_column()) / 64 * 32;
    width = std::max<std::int64_t>(32, std::min(width, cols));
  }
  const std::size_t window_bytes = Window::bytes(width);
  const std::int64_t batch = std::clamp<std::int64_t>(static_cast<std::int64_t>(cap / window_bytes), 1, count);
  const std::int64_t windows = marks ? (cols + width - 1) / width : 0;
  const std::int64_t window_words = (width + 31) / 32;

  // A reuse that keeps its offsets computes them into the keeping (and
  // where the budget leaves no room for it, keeps none).
  bool keeping = false;
  if constexpr (Pass == LongPass::reuse) {
    if (kept) {
      kept->drop();
      try {
        kept->storage = temp.allocate<Kokkos::View<std::int64_t*, Device>>(
            space, "gustav::numeric::long_row_offsets", LongRowKeptOffsets<Device>::length(count, listed), false);
        kept->listed = listed;
        keeping = true;
      } catch (const allocation_error&) {
        // Over the budget: this call computes them in its arena, as before.
      }
    }
  }
  auto take_all = [&](auto& a) {
    LongRowOffsets<Device> o;
    auto progress = a.template take<std::int64_t>(marks ? count : 0);
    if (keeping) {
      o = kept->views(count);
    } else {
      o.entry_base = a.template take<std::int64_t>(count + 1);
      o.entry_products = a.template take<std::int64_t>(listed + 1);
      o.slice_base = a.template take<std::int64_t>(count + 1);
    }
    o.slice_products = long_row_slice_products(space, products, bin.team_size, lanes);
    auto pool = a.template take<std::uint64_t>(marks ? static_cast<std::int64_t>(window_bytes / 8) * batch : 0);
    return std::make_tuple(progress, o, pool);
  };
  Arena<Device> measure;
  take_all(measure);
  // (A reuse that keeps its offsets takes nothing more.)
  Arena<Device> arena;
  if (measure.used() > 0) arena = Arena<Device>(space, label + "::pool", measure.used(), temp);
  auto [progress, offsets, pool] = take_all(arena);
  if (marks) {
    Kokkos::deep_copy(space, progress, std::int64_t(0));
    // Bitmaps start at zero and are left so (see dense_window.hpp).
    Kokkos::deep_copy(space, pool, std::uint64_t(0));
  }

  // Where each row's products lie, and its slices.
  Kokkos::parallel_scan(label + "::entry_base", light_launch(Range(space, 0, count + 1)),
                        LongRowEntryBase<Types, RowList<Types>>{ops, rows, offsets.entry_base, errors, count});
  Kokkos::parallel_scan(label + "::entry_products", light_launch(Range(space, 0, listed + 1)),
                        LongRowEntryProducts<Types, RowList<Types>>{ops, rows, offsets, errors, count, listed});

  Batch base;
  base.ops = ops;
  base.out = out;
  base.rows = rows;
  base.progress = progress;
  base.offsets = offsets;
  base.pool = reinterpret_cast<char*>(pool.data());
  base.window_bytes = window_bytes;
  base.width = width;
  if constexpr (marks) {
    Kokkos::parallel_scan(label + "::slice_base", light_launch(Range(space, 0, count + 1)),
                          LongRowSliceBase<Device>{offsets, count, UniformSlices{offsets.slice_products}});
    // Read through the caller's stream: a plain deep_copy fences the whole
    // device, so these rows would wait for every bin running beside them on
    // the side streams (concurrent_bins.hpp) before their first slice.
    const Kokkos::View<std::int64_t*, Kokkos::HostSpace> slice_base(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::slice_base_host"), count + 1);
    Kokkos::deep_copy(space, slice_base, offsets.slice_base);
    space.fence();
    for (std::int64_t w = 0; w < windows; ++w) {
      for (std::int64_t first = 0; first < count; first += batch) {
        const std::int64_t n = std::min(batch, count - first);
        Batch b = base;
        b.first_row = first;
        b.first_col = w * width;
        b.last_window = w + 1 == windows;
        using Slices = LongRowSlices<ExecSpace, Types, RowList<Types>, Pass>;
        Slices slices;
        slices.batch = b;
        slices.errors = errors;
        slices.batch_rows = n;
        slices.first_slice = slice_base(first);
        slices.lanes = lanes;
        if (window_words <= long_row_scratch_words) slices.scratch_words = window_words;
        const std::int64_t batch_slices = slice_base(first + n) - slice_base(first);
        launch_teams(space, label + "::units", slices, bin.team_size, lanes, [&](int) { return batch_slices; },
                     [&](int) { return Slices::scratch_bytes(slices.scratch_words); });
        LongRowReadOut<ExecSpace, Types, RowList<Types>, RowBinList<Types>, Pass> finish;
        finish.batch = b;
        finish.errors = errors;
        finish.c_row_map = count_out.c_row_map;
        finish.row_bin = count_out.row_bin;
        finish.summary = count_out.summary;
        finish.numeric_bins = count_out.numeric_bins;
        finish.max_row_count = count_out.max_row_count;
        finish.lanes = lanes;
        launch_teams(space, label + "::finish", finish, bin.team_size, lanes, [&](int) { return n; },
                     [&](int workers) { return finish.scratch_bytes(workers); });
      }
    }
  }
  if constexpr (Pass == LongPass::reuse || Pass == LongPass::values) {
    const AddSliceCut cut = add_long_rows<Pass>(space, base, count, bin, lanes, errors, label);
    if (keeping) {
      kept->count = count;
      kept->cut = cut;
      kept->slice_products = offsets.slice_products;
    }
  }
  const std::size_t bytes = measure.used();
  if (measure.used() > 0) {
    space.fence();
    arena.release(temp);
  }
  return bytes;
}

}  // namespace gustav::detail
