#pragma once
/// The phases on the hierarchical mapping (GPUs), two walks over the
/// products for a one-shot product:
///   gustav::multiply   count, then columns and values together
///   gustav::symbolic   count, then the columns (the plan holds C's structure)
///   gustav::numeric    values into the plan's structure
/// (and, for a plan that keeps its products, gustav::symbolic ends by listing
/// the products of every entry of C, and gustav::numeric only sums the lists).
/// Host and device meet twice in counting (two small summaries) and once at
/// the end of writing (the error bits).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "gustav/common/allocation.hpp"
#include "gustav/common/arena.hpp"
#include "gustav/common/concurrent_bins.hpp"
#include "gustav/common/types.hpp"
#include "gustav/errors.hpp"
#include "gustav/plan.hpp"
#include "gustav/spgemm/hierarchical_count.hpp"
#include "gustav/spgemm/hierarchical_rows.hpp"
#include "gustav/spgemm/learn_entry_masks.hpp"
#include "gustav/spgemm/learned_masks.hpp"
#include "gustav/spgemm/mapping.hpp"
#include "gustav/spgemm/record_bin_positions.hpp"
#include "gustav/spgemm/record_entry_masks.hpp"
#include "gustav/spgemm/record_positions.hpp"
#include "gustav/spgemm/sum_bin_positions.hpp"
#include "gustav/spgemm/sum_entry_masks.hpp"
#include "gustav/spgemm/sum_kept_products.hpp"
#include "gustav/validation/check_operands.hpp"
#include "gustav/validation/empty_rows_check.hpp"
#include "gustav/validation/structure_fingerprint.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// Symbolic phase, and with `values` the numeric one too (gustav::multiply):
/// the plan gets C's row map and columns; `values` (if given) C's values.
template <class Types, class Plan, class ExecSpace, class AIn, class BIn>
void symbolic_hierarchical(const ExecSpace& space, const AIn& A, const BIn& B, Plan& plan, const Mapping& mapping,
                           const char* who, bool check_values, typename Types::c_values* values) {
  using Device = typename Types::device_type;
  using COffset = typename Types::c_offset_type;
  auto& stats = plan.stats_;
  auto& schedule = plan.schedule_.hierarchical;
  schedule.used = true;
  const bool trivial = A.num_rows == 0 || A.nnz() == 0 || B.nnz() == 0;
  // A plan that outlives the call keeps its own error flag; gustav::multiply
  // carves it from the analysis arena (count_hierarchical). Zeroed by the
  // first kernel that runs (count_hierarchical's summary clearing), not by
  // a kernel of its own.
  if (!values || trivial)
    schedule.errors = Kokkos::View<std::int64_t, Device>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::symbolic::errors"));
  // gustav::multiply: the analysis arena, held until C is written.
  Arena<Device> one_shot;

  TempMemory temp, numeric_temp;
  temp.set_budget(plan.options_.memory_budget_bytes);
  numeric_temp.set_budget(plan.options_.memory_budget_bytes);
  plan.c_row_map_ =
      allocate_result_view<typename Types::c_row_map>(space, "gustav::symbolic::c_row_map", A.num_rows + 1, trivial);
  std::int64_t nnz = 0;
  if (trivial) {
    validate_csr(space, A, who, "A", check_values, plan.options_.validate_indices);
    validate_csr(space, B, who, "B", check_values, plan.options_.validate_indices);
    schedule.offsets.assign(1, 0);
    Kokkos::deep_copy(space, schedule.errors, std::int64_t(0));
  } else {
    nnz = count_hierarchical<Types>(space, A, B, plan, mapping, who, check_values, temp, numeric_temp,
                                    values ? &one_shot : nullptr);
  }
  if (nnz > max_count_of<COffset>()) {
    std::ostringstream s;
    s << who << ": nnz(C) = " << nnz << " does not fit the offset type " << offset_type_name<COffset>()
      << "; use 64-bit offsets (std::int64_t or std::size_t)";
    throw overflow_error(s.str());
  }
  stats.nnz = nnz;
  stats.compressed = false;
  stats.compression_ratio = 1.0;
  plan.c_entries_ = allocate_result_view<typename Types::c_entries>(space, "gustav::symbolic::c_entries", nnz, false);
  const auto ops = operands_of<Types>(A, B);
  const ErrorFlag<Device> errors(schedule.errors.data());
  if (values) {
    *values = allocate_result_view<typename Types::c_values>(space, "gustav::numeric::c_values", nnz, false);
    RowWriter<ExecSpace, Types, RowOutput::values> out{plan.c_row_map_, plan.c_entries_, *values};
    stats.numeric_pool_bytes =
        write_rows_hierarchical<RowOutput::values>(space, schedule, ops, out, errors, "gustav::multiply", numeric_temp);
  } else {
    RowWriter<ExecSpace, Types, RowOutput::structure> out{plan.c_row_map_, plan.c_entries_, {}};
    stats.symbolic_pool_bytes = std::max(
        stats.symbolic_pool_bytes,
        write_rows_hierarchical<RowOutput::structure>(space, schedule, ops, out, errors, "gustav::symbolic::fill", temp));
    stats.fill_bins = stats.numeric_bins;
    if (plan.options_.keep_product_positions) {
      record_positions<Types>(space, schedule.positions, ops, plan.c_row_map_, plan.c_entries_, nnz, stats.products,
                              A.num_rows, errors, plan.options_.kept_layout, temp);
      if (schedule.positions.kept) {
        stats.positions_bytes = schedule.positions.bytes();
        stats.positions_layout = schedule.positions.slotted ? "slots" : "lists";
      }
    }
    if (!schedule.positions.kept && plan.options_.keep_entry_masks) {
      record_entry_masks<Types>(space, schedule.masks, schedule, ops, plan.c_row_map_, plan.c_entries_, A.num_rows,
                                stats.products, errors, temp);
      stats.masks_bytes = schedule.masks.bytes();
    }
    if (schedule.positions.kept || schedule.masks.kept) schedule.check.take(space, A, B, temp);
    // (Where masks were asked for and do not apply, learning would refuse
    // them for the same reason.)
    if (!schedule.positions.kept && !plan.options_.keep_entry_masks &&
        (plan.options_.learn_entry_masks || plan.options_.learn_product_positions))
      schedule.learned = std::make_shared<LearnedMasks<Device>>();
    // This structure's own (a plan's copies share them, as they share it).
    schedule.long_offsets = std::make_shared<LongRowKeptOffsets<Device>>();
  }
  raise_phase_errors(space, read_flag(space, errors), A, B, who, check_values);
  // read_flag fenced: the device is done with the arena, and the plan
  // (which ends with gustav::multiply) keeps nothing that points into it.
  if (values) {
    schedule.errors = Kokkos::View<std::int64_t, Device>();
    schedule.perm = decltype(schedule.perm)();
  }
  one_shot.release(temp);
  stats.symbolic_peak_temp_bytes = temp.peak();
  stats.numeric_peak_temp_bytes = numeric_temp.peak();
}

/// The masked bins of a plan's numeric phase (sum_entry_masks.hpp), and
/// the bins whose positions it learned (sum_bin_positions.hpp; none where
/// `positions` is null), for write_rows_hierarchical, with the structure's
/// check beside them.
template <class Types, class ExecSpace, class AIn, class BIn, class CValues>
struct MaskedBins {
  const EntryMasks<typename Types::device_type>& masks;
  const KeptStructureCheck<typename Types::device_type>& check;
  const AIn& A;
  const BIn& B;
  const ProductOperands<Types>& ops;
  Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type> c_row_map;
  const CValues& c_values;
  const BinPositions<typename Types::device_type>* positions = nullptr;

  bool positioned(std::size_t b) const { return positions && positions->has(b); }
  bool takes(std::size_t b) const { return masks.masked(b) || positioned(b); }
  template <class Functor>
  void configure(std::size_t, Functor&) const {}
  bool has_beside() const { return true; }
  void launch_beside(const ExecSpace& side) const { check.launch(side, A, B); }
  void run(const ExecSpace& bin_space, std::size_t b, const RowBin& bin, const RowList<Types>& rows, std::int64_t n,
           const std::string& name) const {
    if (masks.masked(b)) {
      sum_entry_masks<Types>(bin_space, masks, bin, ops, c_row_map, c_values, rows, n, name + "::masks");
    } else {
      sum_bin_positions<Types>(bin_space, positions->bins[b], bin, ops, c_row_map, c_values, rows, n,
                               name + "::positions");
    }
  }
};

/// A plan's first numeric call that learns its masks (learned_masks.hpp,
/// learn_entry_masks.hpp), for write_rows_hierarchical: the masked bins
/// summed entry by entry while recording `masks` (sized), or, `in_table`,
/// by the default path's kernels recording them into zeroed words; beside
/// them, the fingerprint of the structure the masks are learned on.
template <class Types, class ExecSpace, class AIn, class BIn, class CEntries, class CValues>
struct LearningBins {
  const EntryMasks<typename Types::device_type>& masks;
  bool in_table;
  const KeptStructureCheck<typename Types::device_type>& fingerprint;
  const AIn& A;
  const BIn& B;
  const ProductOperands<Types>& ops;
  Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type> c_row_map;
  const CEntries& c_entries;
  const CValues& c_values;
  ErrorFlag<typename Types::device_type> errors;

  bool masked(std::size_t b) const { return b < masks.bins.size() && masks.bins[b]; }
  bool takes(std::size_t b) const { return !in_table && masked(b); }
  template <class Functor>
  void configure(std::size_t b, Functor& f) const {
    if (in_table && masked(b)) {
      f.mask_start = masks.start;
      f.mask_words = masks.words;
    }
  }
  bool has_beside() const { return true; }
  void launch_beside(const ExecSpace& side) const { fingerprint.launch_take(side, A, B); }
  void run(const ExecSpace& bin_space, std::size_t, const RowBin& bin, const RowList<Types>& rows, std::int64_t n,
           const std::string& name) const {
    learn_entry_masks<Types>(bin_space, masks, bin, ops, c_row_map, c_entries, c_values, rows, n, errors,
                             name + "::learn_masks");
  }
};

/// Whether the masked bins' rows hold learn_masks_products_share_min of
/// the products at least.
template <class Schedule>
bool masks_worth_learning(const Schedule& schedule) {
  std::int64_t masked = 0, all = 0;
  for (std::size_t b = 0; b < schedule.bins.size() && b < schedule.bin_products.size(); ++b) {
    all += schedule.bin_products[b];
    if (bin_takes_masks(schedule.bins[b], EntryMasks<Kokkos::HostSpace>::max_row)) masked += schedule.bin_products[b];
  }
  return all > 0 && static_cast<double>(masked) >= learn_masks_products_share_min * static_cast<double>(all);
}

/// Numeric phase into a plan's structure.
template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
void numeric_hierarchical(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B,
                          const CValues& c_values, const char* who, bool indices_checked) {
  using Device = typename Types::device_type;
  const auto& schedule = plan.schedule_.hierarchical;
  // Rows without products get no thread: products moved into them are
  // caught by a check of their own (empty_rows_check.hpp).
  const std::int64_t grouped = schedule.offsets.empty() ? 0 : schedule.offsets.back();
  if (grouped == 0) {
    // No row has products (so C has no entries): only the checks remain.
    const bool full = plan.options_.validate_indices && !indices_checked;
    validate_csr(space, A, who, "A", true, full);
    validate_csr(space, B, who, "B", true, full);
    const ErrorFlag<Device> errors(schedule.errors.data());
    Kokkos::deep_copy(space, schedule.errors, std::int64_t(0));
    check_empty_rows_stay_empty(space, plan.a_rows_, plan.c_row_map_, A, B, errors);
    raise_phase_errors(space, read_flag(space, errors), A, B, who, true);
    return;
  }
  TempMemory temp;
  temp.set_budget(plan.options_.memory_budget_bytes);
  temp.add_resident(view_bytes(schedule.perm));
  temp.add_resident(schedule.positions.bytes() + schedule.masks.bytes() + schedule.check.bytes() +
                    (schedule.learned ? schedule.learned->bytes() : 0) + schedule.long_offsets->bytes());
  const ErrorFlag<Device> errors(schedule.errors.data());
  // Malformed input is caught here (unless validate_indices is off, or
  // multiply has just checked the same views), and for a plan that keeps
  // product positions or masks any change of structure, malformed or not:
  // their sums read entries within nnz(A) and nnz(B) and within the rows
  // of B (all checked against the plan), so they stay in bounds meanwhile.
  // Otherwise the kernels read defensively and catch a changed structure
  // as products that fall outside C's.
  const bool validate = plan.options_.validate_indices && !indices_checked;
  const auto ops = operands_of<Types>(A, B);
  std::int64_t bits = 0;  // the error flag and a kept repeat's verdict
  if (schedule.positions.kept) {
    // The fingerprint alone suffices: a plan that keeps products checked
    // A's and B's indices when it was made (if validate_indices was on),
    // the dimensions are compared on the host, and an unchanged structure
    // (row maps and columns) is therefore as valid as it was. The checks
    // beside it added to a pass already bound by its hashing: on an H100,
    // lap3d:120's R * (A * P) repeats in 0.77 ms without them, 0.81-0.83
    // with (the pass alone took 0.16 ms a call).
    // On a stream of its own beside the sums, which read only entries
    // within nnz of A and B whatever the structure is: the host reads the
    // flag after both.
    ConcurrentBins<ExecSpace> side_streams(space, 2);
    schedule.check.launch(side_streams.space_for(false), A, B);
    sum_kept_products<Types>(space, schedule.positions, ops, plan.c_row_map_, c_values, side_streams);
    side_streams.join();
    plan.stats_.numeric_pool_bytes = 0;
    bits = schedule.check.read(space);
  } else {
    // The masks' sums raise no error bits (the fingerprint stands for
    // their checks): where every bin is masked the flag is neither cleared
    // nor read, which spares a small repeat a launch and a copy back
    // (with the masks' register cap, H200: delaunay_n16 0.084 -> 0.069 ms,
    // er:200000:4 0.11 -> 0.095; bcsstk16, whose long rows keep the flag,
    // level).
    // Masks the caller asked for, or masks the plan learned.
    LearnedMasks<Device>* const learned = schedule.learned.get();
    const bool asked = schedule.masks.kept;
    const bool learned_kept = !asked && learned && learned->kept();
    const EntryMasks<Device>& masks = asked ? schedule.masks : learned_kept ? learned->masks : schedule.masks;
    const KeptStructureCheck<Device>& check = asked ? schedule.check : learned_kept ? learned->check : schedule.check;
    const BinPositions<Device>* positions = learned_kept ? &learned->positions : nullptr;
    // The bins summed from masks or learned positions (none where neither).
    const MaskedBins<Types, ExecSpace, AIn, BIn, CValues> masked{
        masks, check, A, B, ops, plan.c_row_map_, c_values, positions};
    bool all_masked = asked || learned_kept;
    for (std::size_t b = 0; b < schedule.bins.size(); ++b)
      if (schedule.offsets[b + 1] > schedule.offsets[b] && !masked.takes(b)) all_masked = false;
    if (!all_masked) Kokkos::deep_copy(space, schedule.errors, std::int64_t(0));
    RowWriter<ExecSpace, Types, RowOutput::reuse> out{plan.c_row_map_, plan.c_entries_, c_values};
    bool summed = false;
    if (asked || learned_kept) {
      // As for kept positions, the fingerprint stands for the checks; the
      // bins without masks read defensively as below.
      plan.stats_.numeric_pool_bytes = write_rows_hierarchical<RowOutput::reuse>(space, schedule, ops, out, errors,
                                                                                 "gustav::numeric", temp, masked);
      bits = (all_masked ? 0 : sum_stale_long_rows(space, schedule, ops, out, errors, read_flag(space, errors),
                                                    "gustav::numeric", temp)) |
             check.read(space);
      summed = true;
      if (learned_kept) {  // a copy made before they were learned
        plan.stats_.masks_bytes = masks.bytes();
        plan.stats_.learned_positions_bytes = learned->positions.bytes();
        plan.stats_.learned_positions_team_rows = learned->positions.long_rows();
      }
      if ((bits & error_structure_differs) && learned_kept) {
        // Learned masks and positions keep the default contract: this call
        // sums again by the default path below, and the plan drops them.
        learned->refuse();
        plan.stats_.masks_bytes = 0;
        plan.stats_.learned_positions_bytes = 0;
        plan.stats_.learned_positions_team_rows = 0;
        bits = 0;
        summed = false;
        Kokkos::deep_copy(space, schedule.errors, std::int64_t(0));
      } else if (bits & error_structure_differs) {
        // A changed structure may be a malformed one: named as the default
        // path names it (the full checks cost a pass only on this error).
        validate_csr(space, A, who, "A", true, plan.options_.validate_indices);
        validate_csr(space, B, who, "B", true, plan.options_.validate_indices);
      }
    }
    if (!summed) {
      if (validate) check_operands(space, A, B, errors);
      check_empty_rows_stay_empty(space, plan.a_rows_ - grouped, plan.c_row_map_, A, B, errors);
      // The first call of a plan that learns sizes the masks (a wait for
      // their total) and records them as the default path sums, chooses
      // the bins whose positions it learns once the sums are done, and
      // takes the structure's fingerprint for both.
      const bool waiting = learned && learned->state == LearnedMasks<Device>::State::waiting;
      EntryMasks<Device> learning;
      KeptStructureCheck<Device> fingerprint;
      bool in_table = false;
      if (waiting && plan.options_.learn_entry_masks && masks_worth_learning(schedule)) {
        // Rows of B long enough that the default path learns them
        // (learn_entry_masks.hpp), whose kernels OR into zeroed words; the
        // entry-by-entry kernel writes whole words.
        // (Host spaces, whose workers have one lane, choose alike, so that
        // both ways run wherever the hierarchical mapping does.)
        in_table = mask_lanes_for(static_cast<double>(plan.stats_.products) /
                                  static_cast<double>(std::max<std::int64_t>(A.nnz(), 1))) >= learn_in_table_lanes_min;
        learning = size_entry_masks<Types>(space, schedule, ops, plan.c_row_map_, plan.a_rows_, plan.stats_.products,
                                           temp, "gustav::numeric", true, in_table);
      }
      std::vector<char> positioned;
      if (waiting && plan.options_.learn_product_positions) {
        // A worker's window and row cache (rounded up to 16 bytes) fit a team.
        const std::size_t worker_extra = RowCache<Types>::bytes() + 16;
        const std::size_t scratch = team_scratch_limit<ExecSpace>();
        const std::size_t window_limit = scratch > worker_extra ? scratch - worker_extra : 0;
        positioned = plan_bin_positions<typename Types::scalar_type>(
            schedule, learning.words.data() ? learning.bins : std::vector<char>{},
            bin_positions_cap<typename Types::scalar_type, typename Types::ordinal_type>(plan.stats_.nnz), temp.room(),
            window_limit);
      }
      // (A plan with no bin chosen learns no positions.)
      bool positions_wanted = std::find(positioned.begin(), positioned.end(), 1) != positioned.end();
      if (learning.words.data() || positions_wanted) {
        try {
          fingerprint.prepare(space, temp, "gustav::numeric::kept::fingerprint_parts");
        } catch (const allocation_error&) {
          learning = EntryMasks<Device>();  // its few bytes did not fit the budget
          positions_wanted = false;
        }
      }
      if (!positions_wanted) positioned.clear();
      // Only what has the fingerprint's arrays takes it.
      const bool learns = learning.words.data() || positions_wanted;
      if (waiting && !learns) learned->refuse();
      if (learning.words.data()) {
        const LearningBins<Types, ExecSpace, AIn, BIn, decltype(plan.c_entries_), CValues> learn{
            learning, in_table, fingerprint, A, B, ops, plan.c_row_map_, plan.c_entries_, c_values, errors};
        plan.stats_.numeric_pool_bytes = write_rows_hierarchical<RowOutput::reuse>(space, schedule, ops, out, errors,
                                                                                   "gustav::numeric", temp, learn);
      } else {
        if (learns) fingerprint.launch_take(space, A, B);
        plan.stats_.numeric_pool_bytes =
            write_rows_hierarchical<RowOutput::reuse>(space, schedule, ops, out, errors, "gustav::numeric", temp);
      }
      bits = sum_stale_long_rows(space, schedule, ops, out, errors, read_flag(space, errors), "gustav::numeric", temp);
      if (learns && bits == 0) {
        fingerprint.finish_take();
        if (learning.words.data()) {
          learned->masks = learning;
          learned->masks.kept = true;
          plan.stats_.masks_bytes = learned->masks.bytes();
        }
        learned->positions.bins.assign(schedule.bins.size(), {});
        for (std::size_t b = 0; b < positioned.size(); ++b) {
          if (!positioned[b]) continue;
          const std::int64_t first = schedule.offsets[b], n = schedule.offsets[b + 1] - first;
          record_bin_positions<Types>(space, learned->positions.bins[b], schedule.bins[b], ops, plan.c_row_map_,
                                      plan.c_entries_, RowList<Types>(schedule.perm.data() + first, n), n,
                                      schedule.bin_products[b], temp,
                                      "gustav::numeric::" + schedule.bins[b].name + "::learn_positions");
        }
        plan.stats_.learned_positions_bytes = learned->positions.bytes();
        plan.stats_.learned_positions_team_rows = learned->positions.long_rows();
        learned->check = fingerprint;
        learned->state = LearnedMasks<Device>::State::kept;
        if (!learning.words.data() && !learned->positions.any()) learned->refuse();
      } else if (learns) {
        learned->refuse();
      }
    }
  }
  // Offsets kept from a call that raised errors would be a malformed
  // structure's; the next call computes them again.
  if (bits) schedule.long_offsets->drop();
  plan.stats_.long_row_offsets_bytes = schedule.long_offsets->bytes();
  raise_phase_errors(space, bits, A, B, who, true);
  plan.stats_.numeric_peak_temp_bytes = temp.peak();
}

}  // namespace gustav::detail
