#pragma once
/// The symbolic counting pass on the hierarchical mapping (GPUs):
///   1. inspect A (row_inspection.hpp, hub rows: hub_rows.hpp): checks,
///      products, tiny rows done, symbolic bins counted; -> summary read 1
///   2. group the other rows by bin and count each row's nnz in its bin's
///      kernel (count_rows.hpp, long rows: long_row_passes.hpp), which also
///      puts the row in its numeric bin;
///   3. prefix-sum the counts into C's row map;          -> summary read 2
///   4. group the rows by numeric bin into the plan's schedule.
/// The host reads the device twice, both times one small summary; nothing
/// is allocated per bin, the temporaries come from two arenas.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "gustav/analysis/bin_scatter.hpp"
#include "gustav/analysis/hub_rows.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/analysis/row_inspection.hpp"
#include "gustav/analysis/row_map_scan.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/common/arena.hpp"
#include "gustav/common/concurrent_bins.hpp"
#include "gustav/common/types.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/count_rows.hpp"
#include "gustav/spgemm/hierarchical_rows.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/long_row_passes.hpp"
#include "gustav/spgemm/mapping.hpp"
#include "gustav/spgemm/summary.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

template <class Types, class AIn, class BIn>
ProductOperands<Types> operands_of(const AIn& A, const BIn& B) {
  ProductOperands<Types> ops;
  ops.a_row_map = A.row_map;
  ops.a_entries = A.entries;
  ops.a_values = A.values;
  ops.b_row_map = B.row_map;
  ops.b_entries = B.entries;
  ops.b_values = B.values;
  ops.a_nnz = A.nnz();
  ops.b_rows = B.num_rows;
  ops.b_nnz = B.nnz();
  ops.b_cols = B.num_cols;
  return ops;
}

/// The bins of the hierarchical mapping: by products for counting, by nnz
/// for the rows' output.
template <class Types, class ExecSpace>
std::vector<RowBin> counting_bins(const Mapping& mapping) {
  BinRequest r;
  r.table_bytes = [](int log2) {
    return (std::size_t(1) << log2) * sizeof(typename Types::ordinal_type) + RowCache<Types>::bytes();
  };
  r.scratch_max = mapping.scratch_max - NumericTally::bytes() - 128;
  // A counting row's bound (its products) is usually well above its keys,
  // so its table may be fuller, and a worker of 16 slots per lane leaves
  // more rows per warp to share the per-row work. On an H200 each alone
  // cut the symbolic phase (count and fill) of lap2d:2000:9 (81 products,
  // 25 columns a row) by a tenth and of lap3d:120 by 5-15 %, and left the
  // random and R-MAT products as they were.
  r.worker_load = 0.7;
  r.slots_per_lane = 16;
  r.team_row_extra_bytes = TeamRowCache::bytes();
  r.host = is_host_space<ExecSpace>();
  r.max_vector_length = r.host ? 1 : 32;
  return make_row_bins(r);
}

template <class Types, class ExecSpace>
std::vector<RowBin> output_bins(const Mapping& mapping) {
  BinRequest r;
  r.table_bytes = [](int log2) { return numeric_worker_bytes<Types>(log2); };
  r.scratch_max = mapping.scratch_max - 128;
  r.team_row_extra_bytes = TeamRowCache::bytes();
  r.host = is_host_space<ExecSpace>();
  r.max_vector_length = r.host ? 1 : 32;
  return make_row_bins(r);
}

inline std::vector<BinUse> bin_uses(const std::vector<RowBin>& bins, const SummaryValues& s, int rows_slot) {
  std::vector<BinUse> uses;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    BinUse u;
    u.name = bins[b].name;
    u.max_need = bins[b].max_need;
    u.rows = s[rows_slot + static_cast<int>(b)];
    u.vector_length = bins[b].vector_length;
    u.team_size = bins[b].team_size;
    u.table_slots = bins[b].level == RowLevel::worker || bins[b].level == RowLevel::team ? 1 << bins[b].log2_slots : 0;
    uses.push_back(u);
  }
  return uses;
}

/// Throws the error a failed check found: the operands' own fault when a
/// kernel saw malformed input (validate_csr names it), else the bits' own.
template <class ExecSpace, class AIn, class BIn>
void raise_phase_errors(const ExecSpace& space, std::int64_t bits, const AIn& A, const BIn& B, const char* who,
                        bool check_values) {
  if (bits & (error_bad_a | error_bad_b)) {
    validate_csr(space, A, who, "A", check_values, true);
    validate_csr(space, B, who, "B", check_values, true);
    throw internal_error(std::string(who) + ": a kernel found malformed input that the checks did not");
  }
  raise_error_bits(static_cast<int>(bits), who);
}

/// Counts C's rows into plan.c_row_map_ (allocated by the caller) and makes
/// the plan's numeric schedule. Returns nnz(C). With `one_shot` (for
/// gustav::multiply, whose plan ends with the call) the numeric rows and the
/// error flag are carved from the analysis arena, which goes to *one_shot
/// for the caller to release once C is written: two allocations and a free
/// fewer per product. Otherwise the plan gets arrays of its own.
template <class Types, class ExecSpace, class AIn, class BIn, class Plan>
std::int64_t count_hierarchical(const ExecSpace& space, const AIn& A, const BIn& B, Plan& plan,
                                const Mapping& mapping, const char* who, bool check_values, TempMemory& temp,
                                TempMemory& numeric_temp, Arena<typename Types::device_type>* one_shot) {
  using Device = typename Types::device_type;
  using Ordinal = typename Types::ordinal_type;
  constexpr bool host = is_host_space<ExecSpace>();
  const std::int64_t rows = A.num_rows;
  auto& stats = plan.stats_;
  auto& schedule = plan.schedule_.hierarchical;
  const auto ops = operands_of<Types>(A, B);
  const std::vector<RowBin> counting = counting_bins<Types, ExecSpace>(mapping);
  std::vector<RowBin> output = output_bins<Types, ExecSpace>(mapping);
  const RowBinBounds counting_bounds = bounds_of(counting), output_bounds = bounds_of(output);

  // 1. Inspect.
  using Inspect = InspectRows<ExecSpace, Types, RowBinList<Types>>;
  const int inspect_lanes = host ? 1 : 8;
  const std::int64_t hubs = Inspect::max_hub_rows(A.nnz(), inspect_lanes);
  auto take_analysis = [&](auto& arena) {
    auto summary = arena.template take<std::int64_t>(SummarySlot::size);
    auto row_bin = arena.template take<std::uint8_t>(rows);
    auto block_sums = arena.template take<std::int64_t>(row_map_scan_blocks(rows));
    // The counting bins' rows, at most all of A's: taken with the rest rather
    // than after the first summary, one allocation (and its free) fewer.
    auto perm = arena.template take<Ordinal>(rows);
    // The hub rows' list, and their products and counted chunks.
    auto hub_rows = arena.template take<std::int64_t>(hubs);
    auto hub_counts = arena.template take<std::int64_t>(2 * hubs);
    // One-shot: the numeric rows and the error flag.
    auto numeric_rows = arena.template take<Ordinal>(one_shot ? rows : 0);
    auto error_flag = arena.template take<std::int64_t>(one_shot ? 1 : 0);
    return std::make_tuple(summary, row_bin, block_sums, perm, hub_rows, hub_counts, numeric_rows, error_flag);
  };
  Arena<Device> measure;
  take_analysis(measure);
  Arena<Device> analysis(space, "gustav::symbolic::analysis", measure.used(), temp);
  const auto [summary_view, row_bin_view, block_sums, perm, hub_rows, hub_counts, numeric_rows, error_flag] =
      take_analysis(analysis);
  const SummaryView<Device> summary = summary_view;
  const RowBinList<Types> row_bin = row_bin_view;
  if (one_shot) schedule.errors = Kokkos::View<std::int64_t, Device>(error_flag.data());
  {
    // The summary, the hubs' counts and the plan's error flag in one light kernel.
    const ErrorFlag<Device> plan_errors(schedule.errors.data());
    const auto counts = hub_counts;
    const std::int64_t n = std::max<std::int64_t>(SummarySlot::size, 2 * hubs);
    Kokkos::parallel_for(
        "gustav::symbolic::clear_summary",
        light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n)),
        KOKKOS_LAMBDA(const std::int64_t i) {
          if (i < SummarySlot::size) summary(i) = 0;
          if (i < 2 * hubs) counts(i) = 0;
          if (i == 0) plan_errors() = 0;
        });
  }
  {
    Inspect f;
    f.ops = ops;
    f.c_row_map = plan.c_row_map_;
    f.row_bin = row_bin;
    f.summary = summary;
    f.symbolic_bins = counting_bounds;
    f.hub_rows = hub_rows;
    f.a_rows = rows;
    f.lanes = inspect_lanes;
    f.check_all_of_b = plan.options_.validate_indices;
    f.b_entries_per_team = 8192;
    const std::int64_t b_teams = f.check_all_of_b ? ceil_div<std::int64_t>(std::max(B.nnz(), B.num_rows), 8192) : 0;
    launch_teams(space, "gustav::symbolic::inspect", f, host ? 1 : 16, f.lanes,
                 [&](int size) {
                   f.rows_per_team = std::int64_t(size) * decltype(f)::rows_per_worker;
                   f.a_teams = ceil_div<std::int64_t>(rows, f.rows_per_team);
                   return f.a_teams + b_teams;
                 },
                 [&](int size) { return decltype(f)::scratch_bytes(size); });
    // The hub rows, over as many teams as the device runs at once.
    using Index = typename InspectHubRows<Inspect>::Index;
    InspectHubRows<Inspect> h{f, Index(hub_counts.data(), hubs), Index(hub_counts.data() + hubs, hubs)};
    launch_teams(space, "gustav::symbolic::inspect_hubs", h, host ? 1 : 16, inspect_lanes,
                 [&](int size) { return concurrent_teams(space, size, inspect_lanes); },
                 [](int size) { return decltype(h)::scratch_bytes(size); });
  }
  const SummaryValues first = read_summary(space, summary);
  raise_phase_errors(space, first[SummarySlot::errors], A, B, who, check_values);
  stats.products = first[SummarySlot::products];
  stats.max_row_products = first[SummarySlot::max_products];
  schedule.products = stats.products;

  // 2. Count the rows of every bin but tiny.
  std::int64_t placed = 0;
  for (std::size_t b = 1; b < counting.size(); ++b) placed += first[SummarySlot::symbolic_rows + static_cast<int>(b)];
  const int count_team = host ? 1 : 256;
  if (placed > 0) {
    ScatterRows<ExecSpace, RowBinList<Types>, decltype(perm), SummaryView<Device>> f{
        row_bin, perm, summary, SummarySlot::symbolic_rows, SummarySlot::symbolic_cursors, 1,
        static_cast<int>(counting.size()), rows, 0};
    launch_teams(space, "gustav::symbolic::group_rows", f, count_team, 1,
                 [&](int size) {
                   f.rows_per_team = std::int64_t(size) * decltype(f)::rows_per_thread;
                   return ceil_div<std::int64_t>(rows, f.rows_per_team);
                 },
                 [&](int size) { return decltype(f)::scratch_bytes(size); });
  }
  const std::int64_t max_row_count = max_count_of<typename Types::c_offset_type>();
  std::size_t pool_bytes = 0;
  std::int64_t first_row = 0;
  std::size_t busy_bins = 0;
  for (std::size_t b = 1; b < counting.size(); ++b) busy_bins += first[SummarySlot::symbolic_rows + static_cast<int>(b)] > 0;
  // The bins side by side (joined after the loop).
  ConcurrentBins<ExecSpace> side_by_side(space, busy_bins);
  for (std::size_t b = 1; b < counting.size(); ++b) {
    const RowBin& bin = counting[b];
    const std::int64_t n = first[SummarySlot::symbolic_rows + static_cast<int>(b)];
    const RowList<Types> bin_rows(perm.data() + first_row, n);
    first_row += n;
    if (n == 0) continue;
    const ExecSpace bin_space = side_by_side.space_for(bin.level == RowLevel::long_row);
    const std::string name = "gustav::symbolic::count::" + bin.name;
    auto run = [&](auto team_per_row) {
      CountRows<ExecSpace, Types, RowList<Types>, RowBinList<Types>, decltype(team_per_row)::value> f;
      f.ops = ops;
      f.rows = bin_rows;
      f.num_rows = n;
      f.c_row_map = plan.c_row_map_;
      f.row_bin = row_bin;
      f.summary = summary;
      f.numeric_bins = output_bounds;
      f.max_row_count = max_row_count;
      f.log2_slots = bin.log2_slots;
      f.lanes = host ? 1 : bin.vector_length;
      launch_teams(bin_space, name, f, bin.team_size, f.lanes,
                   [&](int size) {
                     return decltype(team_per_row)::value
                                ? n
                                : looping_league(space, ceil_div<std::int64_t>(n, size), size * f.lanes);
                   },
                   [&](int size) { return f.scratch_bytes(size); });
    };
    if (bin.level == RowLevel::worker) {
      run(std::false_type{});
    } else if (bin.level == RowLevel::team) {
      run(std::true_type{});
    } else {
      LongRowCountOutputs<Types> outputs{plan.c_row_map_, row_bin, summary, output_bounds, max_row_count};
      RowWriter<ExecSpace, Types, RowOutput::structure> out;
      out.c_row_map = plan.c_row_map_;
      pool_bytes += run_long_rows<LongPass::count>(space, ops, out, bin_rows, n, stats.products, bin,
                                                   errors_of(summary), outputs, name, temp);
    }
  }
  side_by_side.join();

  // 3. Row map.
  scan_row_map(space, plan.c_row_map_, rows, block_sums, summary);
  const SummaryValues second = read_summary(space, summary);
  raise_phase_errors(space, second[SummarySlot::errors], A, B, who, check_values);
  const std::int64_t nnz = second[SummarySlot::nnz];
  if (second[SummarySlot::max_nnz] > std::numeric_limits<int>::max())
    throw overflow_error(std::string(who) + ": a row of C has " + std::to_string(second[SummarySlot::max_nnz]) +
                         " entries; rows of more than 2^31 - 1 entries are not supported");

  // 4. The numeric schedule: lanes by the bins' average products.
  for (std::size_t b = 0; b < output.size(); ++b) {
    RowBin& bin = output[b];
    const std::int64_t n = second[SummarySlot::numeric_rows + static_cast<int>(b)];
    if (bin.level != RowLevel::worker || host || n == 0) continue;
    const double avg = static_cast<double>(second[SummarySlot::numeric_products + static_cast<int>(b)]) / n;
    bin.vector_length = lanes_for_products(avg, bin.log2_slots, 32);
    const std::size_t table = numeric_worker_bytes<Types>(bin.log2_slots);
    bin.team_size = static_cast<int>(std::min<std::size_t>(256 / bin.vector_length, (mapping.scratch_max - 128) / table));
    bin.scratch_bytes = table * static_cast<std::size_t>(bin.team_size);
  }
  schedule.used = true;
  schedule.bins = output;
  schedule.offsets.assign(output.size() + 1, 0);
  schedule.bin_products.assign(output.size(), 0);
  for (std::size_t b = 0; b < output.size(); ++b) {
    schedule.offsets[b + 1] = schedule.offsets[b] + second[SummarySlot::numeric_rows + static_cast<int>(b)];
    schedule.bin_products[b] = second[SummarySlot::numeric_products + static_cast<int>(b)];
  }
  const std::int64_t grouped = schedule.offsets.back();
  if (one_shot) {
    schedule.perm = Kokkos::View<Ordinal*, Device>(numeric_rows.data(), grouped);
    numeric_temp.add_resident(analysis.used());
  } else {
    schedule.perm =
        allocate_view<Kokkos::View<Ordinal*, Device>>(space, "gustav::symbolic::numeric_rows", grouped, false);
    numeric_temp.add_resident(view_bytes(schedule.perm));
  }
  if (grouped > 0) {
    ScatterRows<ExecSpace, RowBinList<Types>, decltype(schedule.perm), SummaryView<Device>> f{
        row_bin, schedule.perm, summary, SummarySlot::numeric_rows, SummarySlot::numeric_cursors, 0,
        static_cast<int>(output.size()), rows, 0};
    launch_teams(space, "gustav::symbolic::group_numeric_rows", f, count_team, 1,
                 [&](int size) {
                   f.rows_per_team = std::int64_t(size) * decltype(f)::rows_per_thread;
                   return ceil_div<std::int64_t>(rows, f.rows_per_team);
                 },
                 [&](int size) { return decltype(f)::scratch_bytes(size); });
  }
  stats.count_bins = bin_uses(counting, first, SummarySlot::symbolic_rows);
  stats.numeric_bins = bin_uses(output, second, SummarySlot::numeric_rows);
  stats.symbolic_pool_bytes = pool_bytes;
  stats.accumulator = "hash";
  space.fence();
  if (one_shot) {
    *one_shot = std::move(analysis);
  } else {
    analysis.release(temp);
  }
  return nnz;
}

}  // namespace gustav::detail
