#pragma once
/// Values and reuse on long rows: a team per slice adds its products'
/// values into C at their columns' positions in C's sorted row. The team
/// first builds a ranked window of the row's columns in scratch
/// (ranked_window.hpp) from C's row, so each product's position costs two
/// scratch loads. A window of known columns kept in global memory instead
/// (marked once per row, read by every slice) cost two scattered loads a
/// product, a marking kernel and a clearing kernel, and a pool.
///
/// Rebuilding reads the row's n columns once per slice, so a row's slices
/// here are at least n products long (add_slice_products): the rebuild
/// never costs more than the walk, except where that leaves the launch
/// too few teams to fill the device (add_long_rows: slices of n / 2 then).
/// Where B has more columns than a window takes, a slice builds and walks
/// window after window.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/accumulators/ranked_window.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/long_row_kernels.hpp"

namespace gustav::detail {

/// Products per slice of the adding walk for a row with n entries of C:
/// at least `base`, and at least n / `divisor`.
KOKKOS_INLINE_FUNCTION std::int64_t add_slice_products(std::int64_t base, std::int64_t n, std::int64_t divisor) {
  const std::int64_t floor = n / divisor;
  return floor > base ? floor : base;
}

/// Where a walk with slices of at least n products has fewer slices than
/// twice the teams the device holds at once, its slices take at least n /
/// add_slice_divisor_few: on an H100, ia-wikiquote's A * A^T (hub rows of
/// up to 20,000 entries of C) repeated in 0.377, 0.366 ms with slices of n,
/// 0.324, 0.320 with n / 2, 0.330, 0.301 with n / 4; the one-shot numeric
/// 0.50 -> 0.38. Where its slices are many already the rebuilds cost more
/// than the teams gain (rmat:16:8 2.83 -> 2.86-2.95 ms with n / 2).
constexpr std::int64_t add_slice_divisor_few = 2;

/// The adding walk's slices of listed row r (LongRowSliceBase).
template <class Writer, class Rows>
struct AddSlices {
  Writer out;
  Rows rows;
  std::int64_t base = long_row_slice_max;
  std::int64_t divisor = 1;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t r) const {
    return add_slice_products(base, out.length(static_cast<std::int64_t>(rows(r))), divisor);
  }
};

/// Reuse: whether the adding walk's own team zeroes listed row r's values
/// (and checks its order) while it builds the window: where the row has one
/// slice and B's columns fit one window. Other rows are zeroed first, by
/// LongRowZeroValues. (The values pass's read-out zeroes its rows.)
template <class Offsets>
KOKKOS_INLINE_FUNCTION bool zeroed_by_add(const Offsets& o, std::int64_t r, bool one_window) {
  return one_window && o.slice_base(r + 1) - o.slice_base(r) == 1;
}

/// The row of C at `start`, read by position.
template <class Entries>
struct RowEntries {
  Entries entries;
  std::int64_t start = 0;
  KOKKOS_INLINE_FUNCTION auto operator()(std::int64_t q) const { return entries(start + q); }
};

/// Reuse: a team per long row not zeroed_by_add zeroes its values and
/// checks that its columns ascend within B's columns (the windows' ranks
/// need both); a row that does not is reported as a changed structure.
template <class ExecSpace, class Types, class Rows>
struct LongRowZeroValues {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, LongPass::reuse>;

  Batch batch;
  ErrorFlag<typename Types::device_type> errors;
  bool one_window = true;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    if (zeroed_by_add(batch.offsets, r, one_window)) return;
    const std::int64_t row = static_cast<std::int64_t>(batch.rows(r));
    const std::int64_t start = batch.out.start(row), n = batch.out.length(row);
    int bits = 0;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) {
      const auto c = batch.out.c_entries(start + q);
      if (!batch.ops.column_ok(c) || (q > 0 && batch.out.c_entries(start + q - 1) >= c))
        bits |= error_structure_changed;
      batch.out.c_values(start + q) = typename Types::scalar_type();
    });
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }
};

/// A team per slice of the adding walk (slice_base as AddSlices cut it):
/// window by window over B's columns, build the row's ranked window in
/// scratch, then add each of the slice's products within it into C.
/// Window: RankedWindow or WideRankedWindow.
///
/// Where B's columns fit one window and the row's n values fit the scratch
/// the window leaves (`value_slots`), the slice sums its products there
/// first and then adds each non-zero sum into C once (stores it, where the
/// slice is the row's only one). The products of a row of a collaboration
/// graph fall on few entries of C (ca-HepPh: 9 a value), whose atomics in
/// global memory wait on each other. Measured on an H100 (2026-12-07, two
/// alternating processes each, reuse ms): ca-HepPh 0.525, 0.524 -> 0.425,
/// 0.430 (its one-shot 1.44 -> 1.31 ms), rmat:16:8 2.58 -> 2.53, rmat:16:4:3
/// 0.89 -> 0.87; arrow:10000, rmat:18:4 (one window of too many columns),
/// er:100000:16 and ia-wikiquote's A * A^T level. Where products seldom
/// meet (R-MAT), plain stores in place of the atomics were no faster
/// (rmat:18:4 6.49 -> 6.71 ms, racy, timing only): the walk's loads, not the
/// atomics, bound those.
template <class ExecSpace, class Types, class Rows, LongPass Pass, class Window>
struct LongRowAdd {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, Pass>;
  using Scalar = typename Types::scalar_type;
  using Ordinal = typename Types::ordinal_type;

  /// A product: its column, where its values are (entry j of A, p of B)
  /// and, where B's columns fit one window, its value, read with the
  /// column: every product is then added, and loading the values only once
  /// the column had found its place put a second round of global loads
  /// after the first (H100, reuse ms, alternating processes: arrow:10000
  /// 2.03 -> 1.82, rmat:18:8:7 23.9 -> 22.7, rmat:18:4 6.85 -> 6.55;
  /// ca-HepPh, ia-wikiquote level). With several windows most products
  /// are another window's, so their values are read only where added.
  struct Product {
    Ordinal column;
    std::int64_t j, p;
    Scalar value;
  };

  Batch batch;  ///< all the long rows (first_row 0); its pool is not used
  ErrorFlag<typename Types::device_type> errors;
  std::int64_t count = 0;  ///< long rows
  std::int64_t width = 0;  ///< columns of the scratch window, whole groups of Window's
  int lanes = 1;
  std::int64_t divisor = 1;  ///< AddSlices' divisor
  std::int64_t value_slots = 0;  ///< values a team sums in scratch (0: none)

  KOKKOS_INLINE_FUNCTION static std::size_t carve_bytes(std::int64_t width, std::int64_t value_slots) {
    Carver c(nullptr);
    Window::carve(c, width);
    c.take<Scalar>(value_slots);
    return c.used();
  }
  static std::size_t scratch_bytes(std::int64_t width, std::int64_t value_slots) {
    return carve_bytes(width, value_slots) + 16;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const auto& o = batch.offsets;
    const auto& ops = batch.ops;
    const std::int64_t g = team.league_rank();
    const std::int64_t listed = last_at_most(o.slice_base, g, 0, count - 1);
    const std::int64_t row = static_cast<std::int64_t>(batch.rows(listed));
    const std::int64_t start = batch.out.start(row), n = batch.out.length(row);
    const std::int64_t size = add_slice_products(o.slice_products, n, divisor);
    const std::int64_t threads = static_cast<std::int64_t>(team.team_size()) * lanes;
    const SliceShare s = share_slice(batch, listed, (g - o.slice_base(listed)) * size, size, threads);
    Carver carver(
        static_cast<char*>(team.team_scratch(0).get_shmem_aligned(carve_bytes(width, value_slots), 16)));
    const Window win = Window::carve(carver, width);
    Scalar* sums = carver.take<Scalar>(value_slots);
    const RowEntries<decltype(batch.out.c_entries)> entries{batch.out.c_entries, start};
    const std::int64_t cols = ops.b_cols > 0 ? ops.b_cols : 1;
    const bool one_window = cols <= width;
    const bool zero_here = Pass == LongPass::reuse && zeroed_by_add(o, listed, one_window);
    const bool gather = one_window && n <= value_slots;
    const bool sole = o.slice_base(listed + 1) - o.slice_base(listed) == 1;
    if (gather)
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) { sums[q] = Scalar(); });
    int bits = 0;
    for (std::int64_t first_col = 0; first_col < cols; first_col += width) {
      // The row's positions in this window (windows tile the row: each
      // bound is found the same way by both windows sharing it).
      const std::int64_t q0 = one_window ? 0 : first_at_least(entries, 0, n, first_col);
      const std::int64_t q1 = one_window ? n : first_at_least(entries, 0, n, first_col + width);
      win.build(team, entries, q0, q1, first_col, width, [&](std::int64_t q, std::int64_t c) {
        if (!zero_here) return;
        if (!ops.column_ok(c) || (q > 0 && static_cast<std::int64_t>(entries(q - 1)) >= c))
          bits |= error_structure_changed;
        if (!gather) batch.out.c_values(start + q) = Scalar();
      });
      const std::int64_t known = q1 - q0;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const std::int64_t tid) {
        for_thread_products(
            batch, s, tid, bits,
            [&](std::int64_t j, std::int64_t p) {
              return Product{ops.b_entries(p), j, p,
                             one_window ? Scalar(ops.a_values(j) * ops.b_values(p)) : Scalar()};
            },
            [&](const Product& product) {
              if (!ops.column_ok(product.column)) {
                bits |= error_bad_b;
                return;
              }
              const std::int64_t x = static_cast<std::int64_t>(product.column) - first_col;
              if (x < 0 || x >= width) return;  // another window's
              const std::int64_t q = win.position(x);
              if (q < 0 || q >= known) {
                bits |= error_structure_changed;
                return;
              }
              if (gather) {
                Concurrent::add(&sums[q], product.value);
              } else {
                Concurrent::add(&batch.out.c_values(start + q0 + q),
                                one_window ? product.value
                                           : Scalar(ops.a_values(product.j) * ops.b_values(product.p)));
              }
            });
      });
      // The window is read before the next one overwrites it.
      if (first_col + width < cols) team.team_barrier();
    }
    if (gather) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t q) {
        const Scalar v = sums[q];
        if (sole) {
          batch.out.c_values(start + q) = v;
        } else if (v != Scalar()) {
          Concurrent::add(&batch.out.c_values(start + q), v);
        }
      });
    }
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }
};

/// The adding walk on GPUs runs at most add_team_threads threads a team
/// and at least add_teams_per_sm teams a multiprocessor: 64 registers a
/// thread, where it took 70-78 and three teams of 256 held an SM. It then
/// waits on its loads with a third more warps (ptxas: no spills in the
/// repeat's walk, 16 bytes in one of the one-shot's windows). Measured
/// on an H100 (2026-12-07, `gustav multiply --reps 5`, one binary, four
/// processes each, reuse ms, unbounded -> bounded): rmat:18:4 6.44-6.49 ->
/// 6.13-6.19, rmat:16:8 2.73-2.76 -> 2.56-2.57, arrow:10000 2.04-2.06 ->
/// 1.99-2.01; ca-HepPh and ia-wikiquote's A * A^T level (0.52-0.55 and
/// 0.23-0.31 either way). One-shot rmat:18:4 19.3-19.6 -> 18.3-19.6 ms.
/// Five or six teams (51 or 40 registers) spilled and were slower.
constexpr int add_team_threads = 256;
constexpr int add_teams_per_sm = 4;

/// Values a team of `Add` can sum in the scratch its window of `width`
/// columns leaves of `scratch` bytes (less 16 for the values' alignment).
template <class Add>
std::int64_t sum_slots_beside(std::size_t scratch, std::int64_t width) {
  const std::size_t used = Add::scratch_bytes(width, 0) + 16;
  return scratch > used ? static_cast<std::int64_t>((scratch - used) / sizeof(typename Add::Scalar)) : 0;
}

/// How the adding walk cut its rows: its slices and AddSlices' divisor.
struct AddSliceCut {
  std::int64_t slices = -1;  ///< -1: not cut yet
  std::int64_t divisor = 1;
};

/// Runs the adding walk over all `count` long rows, after their columns are
/// in C (values) or as C's known structure (reuse). `base` holds the rows,
/// their product offsets and C; its slice_base is computed here unless
/// `known` says how it was cut already (offsets a plan kept:
/// long_row_kept_offsets.hpp). Returns the cut.
template <LongPass Pass, class ExecSpace, class Types, class Rows>
AddSliceCut add_long_rows(const ExecSpace& space, const LongRowBatch<ExecSpace, Types, Rows, Pass>& base,
                          std::int64_t count, const RowBin& bin, int lanes,
                          const ErrorFlag<typename Types::device_type>& errors, const std::string& label,
                          AddSliceCut known = {}) {
  using Device = typename Types::device_type;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Slices = AddSlices<decltype(base.out), Rows>;
  if (count == 0) return {0, 1};
  AddSliceCut cut = known;
  const auto cut_with = [&](std::int64_t divisor) {
    Kokkos::parallel_scan(label + "::add_slice_base", light_launch(Range(space, 0, count + 1)),
                          LongRowSliceBase<Device, Slices>{
                              base.offsets, count, Slices{base.out, base.rows, base.offsets.slice_products, divisor}});
    // Read through the caller's stream, as the marking walks' slices are
    // (long_row_passes.hpp): the launch's size is the last offset.
    const Kokkos::View<std::int64_t, Kokkos::HostSpace> last(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::add_slices_host"));
    Kokkos::deep_copy(space, last, Kokkos::subview(base.offsets.slice_base, count));
    space.fence();
    cut = AddSliceCut{last(), divisor};
  };
  if (cut.slices < 0) {
    cut_with(1);
    if (cut.slices < 2 * concurrent_teams(space, bin.team_size, lanes)) cut_with(add_slice_divisor_few);
  }
  const std::int64_t slices = cut.slices;
  const std::int64_t cols = base.ops.b_cols > 0 ? base.ops.b_cols : 1;
  // A rank per word where B fits one such window, else the wider layout.
  const std::size_t scratch = team_scratch_limit<ExecSpace>() - 16;
  const auto width_of = [&](auto window) {
    using W = decltype(window);
    return std::min<std::int64_t>(W::groups(cols) << W::group_shift, W::width_for(scratch));
  };
  const bool wide = width_of(RankedWindow{}) < cols;
  const std::int64_t width = wide ? width_of(WideRankedWindow{}) : width_of(RankedWindow{});
  if (width <= 0) throw internal_error(label + ": team scratch holds no window of the long rows' known columns");
  if constexpr (Pass == LongPass::reuse) {
    LongRowZeroValues<ExecSpace, Types, Rows> zero{base, errors, cols <= width};
    launch_teams(space, label + "::zero", zero, bin.team_size, lanes, [&](int) { return count; },
                 [](int) { return std::size_t(0); });
  }
  const auto add_with = [&](auto window) {
    using Add = LongRowAdd<ExecSpace, Types, Rows, Pass, decltype(window)>;
    Add add{base, errors, count, width, lanes, cut.divisor};
    if (cols <= width) add.value_slots = sum_slots_beside<Add>(scratch, width);
    const auto league = [&](int) { return slices; };
    const auto scratch_of = [&](int) { return Add::scratch_bytes(width, add.value_slots); };
    if constexpr (!is_host_space<ExecSpace>()) {
      using Bounded = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<add_team_threads, add_teams_per_sm>>;
      launch_teams_on<Bounded>(space, label + "::add", add, bin.team_size, lanes, league, scratch_of);
    } else {
      launch_teams(space, label + "::add", add, bin.team_size, lanes, league, scratch_of);
    }
  };
  if (wide) {
    add_with(WideRankedWindow{});
  } else {
    add_with(RankedWindow{});
  }
  return cut;
}

}  // namespace gustav::detail
