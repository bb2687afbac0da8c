#pragma once
/// The numeric phase: values of C = A*B into the structure a plan holds. Can
/// run any number of times with new values in A and B.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <sstream>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"
#include "gustav/plan.hpp"
#include "gustav/spgemm/colour_numeric.hpp"
#include "gustav/spgemm/hierarchical_phases.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/spgemm/mapping.hpp"
#include "gustav/spgemm/numeric_pass.hpp"
#include "gustav/spgemm/sum_row_masks.hpp"
#include "gustav/spgemm/tier_kernel.hpp"
#include "gustav/validation/empty_rows_check.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// Throws plan_mismatch unless A and B have the shapes and nnz the plan was
/// built for.
template <class Plan, class AIn, class BIn>
void check_plan_matches(const Plan& plan, const AIn& A, const BIn& B, const char* who) {
  auto describe = [](std::int64_t r, std::int64_t c, std::int64_t n) {
    std::ostringstream s;
    s << r << " x " << c << " with " << n << " entries";
    return s.str();
  };
  if (A.num_rows != plan.a_rows_ || A.num_cols != plan.a_cols_ || A.nnz() != plan.a_nnz_)
    throw plan_mismatch(std::string(who) + ": A is " + describe(A.num_rows, A.num_cols, A.nnz()) +
                        " but the plan was built for " + describe(plan.a_rows_, plan.a_cols_, plan.a_nnz_));
  if (B.num_rows != plan.b_rows_ || B.num_cols != plan.b_cols_ || B.nnz() != plan.b_nnz_)
    throw plan_mismatch(std::string(who) + ": B is " + describe(B.num_rows, B.num_cols, B.nnz()) +
                        " but the plan was built for " + describe(plan.b_rows_, plan.b_cols_, plan.b_nnz_));
}

template <class Plan, class CValues>
void check_values_extent(const Plan& plan, const CValues& c_values, const char* who) {
  if (static_cast<std::int64_t>(c_values.extent(0)) != static_cast<std::int64_t>(plan.nnz())) {
    std::ostringstream s;
    s << who << ": C's values hold " << c_values.extent(0) << " entries but the plan has nnz(C) = " << plan.nnz();
    throw invalid_input(s.str());
  }
}

/// CPU and GPU together (hybrid/hybrid_product.hpp, included below).
template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
void hybrid_numeric(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B, const CValues& c_values,
                    const char* who, bool indices_checked);

template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
void numeric_impl(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B, const CValues& c_values,
                  const char* who, bool indices_checked) {
  check_plan_matches(plan, A, B, who);
  // Its numeric schedule's absence would read as an empty product.
  if (plan.values_written_once_)
    throw internal_error(std::string(who) + ": the plan of a one-shot product has no numeric schedule");
  if (plan.hybrid_) {
    hybrid_numeric<Types>(space, plan, A, B, c_values, who, indices_checked);
    return;
  }
  if (plan.schedule_.hierarchical.used && !plan.schedule_.colours.used) {
    validate_csr_extents(A, who, "A", true);
    validate_csr_extents(B, who, "B", true);
    check_values_extent(plan, c_values, who);
    numeric_hierarchical<Types>(space, plan, A, B, c_values, who, indices_checked);
    return;
  }
  // A structure that changed after the symbolic phase while keeping its shape
  // and nnz would make the kernels read outside B or C (the colouring
  // phase's too: it indexes its arrays by B's columns). The colouring phase
  // repeats the O(nnz) checks first (unless the plan was made with
  // validate_indices = false, or multiply's symbolic phase has just run them
  // on the same views); the thread-per-row passes check what they read
  // (NumericPass), so only the O(1) checks run before them, and the O(nnz)
  // ones name a fault the passes met. Where no pass runs (no products) or a
  // tier walks long rows unchecked (long_rows.hpp), the checks run first.
  const bool full = plan.options_.validate_indices && !indices_checked;
  const auto& schedule = plan.schedule_;
  const bool passes_run = !schedule.binning.offsets.empty() && schedule.binning.offsets.back() != 0;
  const bool checked_reads = !schedule.colours.used && passes_run &&
                             std::none_of(schedule.tiers.begin(), schedule.tiers.end(),
                                          [](const Tier& t) { return t.long_rows; });
  validate_csr(space, A, who, "A", true, full && !checked_reads);
  validate_csr(space, B, who, "B", true, full && !checked_reads && !same_structure(A, B));
  check_values_extent(plan, c_values, who);
  if (schedule.colours.used) {
    numeric_by_colour<Types>(space, plan, A, B, c_values, who);
    return;
  }

  // Short rows of C on CPUs: from the masks the first call learned
  // (sum_row_masks.hpp), which check what they read; where they do not
  // serve, the default path below sums the call and names any fault.
  if constexpr (is_host_space<ExecSpace>()) {
    TempMemory masks_temp;
    masks_temp.set_budget(plan.options_.memory_budget_bytes);
    masks_temp.add_resident(view_bytes(schedule.binning.perm));
    if (passes_run && numeric_by_row_masks<Types>(space, plan, A, B, c_values, masks_temp)) return;
  }

  const Mapping mapping = choose_mapping(space, plan.options_);
  auto errors = make_error_flag<typename Types::device_type>(space, "gustav::numeric::errors");
  // Rows that had no products get no thread below: products moved into
  // them are caught here (empty_rows_check.hpp).
  check_empty_rows_stay_empty(space, schedule.binning.empty_rows, plan.c_row_map_, A, B, errors);
  TempMemory temp;
  temp.set_budget(plan.options_.memory_budget_bytes);
  temp.add_resident(view_bytes(schedule.binning.perm));
  std::size_t pool_bytes = 0;
  auto run = [&](auto concurrency) {
    NumericPass<ExecSpace, Types, decltype(concurrency)> pass;
    pass.a_row_map = A.row_map;
    pass.a_entries = A.entries;
    pass.a_values = A.values;
    pass.b_row_map = B.row_map;
    pass.b_entries = B.entries;
    pass.b_values = B.values;
    pass.c_row_map = plan.c_row_map_;
    pass.c_entries = plan.c_entries_;
    pass.c_values = c_values;
    pass.errors = errors;
    pass.max_load = schedule.max_load;
    pass.prefetch_limit = schedule.prefetch_limit;
    pass.dense_rows = schedule.dense_rows;
    pass.ring_mask = schedule.dense_rows == DenseRows::ring ? schedule.ring_width - 1 : 0;
    pass.words = ceil_div<std::int64_t>(plan.b_cols_, 32);
    pass.hash_log2_slots = schedule.hash_log2_slots;
    pass.a_nnz = A.nnz();
    pass.b_rows = B.num_rows;
    pass.b_nnz = B.nnz();
    pass.b_cols = B.num_cols;
    PoolSizing pools = schedule.pools;
    pool_bytes = launch_tiers(space, pass, schedule.tiers, schedule.binning, pools, "gustav::numeric", temp);
  };
  // Where no row has products the check above is all that runs.
  if (passes_run && mapping.one_thread_per_row) {
    run(Exclusive{});
  } else if (passes_run) {
    run(Concurrent{});
  }
  int bits = 0;
  space.fence();
  Kokkos::deep_copy(bits, errors);
  raise_phase_errors(space, bits, A, B, who, true);
  plan.stats_.numeric_pool_bytes = pool_bytes;
  plan.stats_.numeric_peak_temp_bytes = temp.peak();
}

}  // namespace gustav::detail

// The hybrid product's definitions, which use symbolic_impl and numeric_impl.
#include "gustav/hybrid/hybrid_product.hpp"
