#pragma once
/// The triple product Ac = R * A * P as two SpGEMMs, AP = A * P first and
/// then R * AP (see include/gustav/triple_product.hpp for the API).
///
/// Why A * P first: A * P has one row per fine row, each short (a stencil's
/// worth of prolongator rows), which spreads evenly over threads; R * A
/// would have one long row per coarse row (every fine column in reach of an
/// aggregate), few rows for many threads.
///
/// The second symbolic phase needs only AP's structure, which the first
/// symbolic phase has produced, so both symbolic phases run before any
/// value is computed and the numeric-only path is exactly two numeric
/// phases. AP's values live in a buffer the plan keeps.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/csr.hpp"
#include "gustav/multigrid/operands.hpp"
#include "gustav/multigrid/product_result.hpp"
#include "gustav/options.hpp"
#include "gustav/spgemm.hpp"

namespace gustav::detail {

/// AP (the intermediate) as a CsrRef over the plan's arrays.
template <class Plan>
auto intermediate_ref(const Plan& plan) {
  return make_csr_ref(plan.ap_.num_rows(), plan.ap_.num_cols(), plan.ap_.row_map(), plan.ap_.entries(),
                      plan.ap_values_);
}

/// The shape checks of R * A * P, naming the operands.
template <class RefR, class RefA, class RefP>
void check_triple_shapes(const RefR& R, const RefA& A, const RefP& P, const char* who) {
  check_inner_dimension(who, "R", static_cast<std::int64_t>(R.num_cols), "A", static_cast<std::int64_t>(A.num_rows));
  check_inner_dimension(who, "A", static_cast<std::int64_t>(A.num_cols), "P", static_cast<std::int64_t>(P.num_rows));
}

/// Both symbolic phases into `plan`, for operands already checked: the
/// caller has run check_triple_shapes and validate_operand on R, A and P.
template <class ExecSpace, class Plan, class RefR, class RefA, class RefP>
void triple_symbolic_checked(const ExecSpace& space, Plan& plan, const RefR& R, const RefA& A, const RefP& P,
                             const SpgemmOptions& options, const char* who) {
  const SpgemmOptions inner = without_index_checks(options);
  const std::string who_ap = std::string(who) + " (A * P)";
  const std::string who_rap = std::string(who) + " (R * AP)";
  plan.ap_ = symbolic_for(space, A, P, inner, who_ap.c_str(), false);
  plan.ap_values_ = allocate_view<decltype(plan.ap_values_)>(space, "gustav::triple_product::ap_values",
                                                             static_cast<std::size_t>(plan.ap_.nnz()), false);
  plan.rap_ = symbolic_for(space, R, intermediate_ref(plan), inner, who_rap.c_str(), false);
  // The plans record what the caller asked for, not the inner shortcut.
  plan.ap_.options_ = options;
  plan.rap_.options_ = options;
}

/// Checks R, A and P, then runs both symbolic phases into `plan`.
template <class ExecSpace, class Plan, class RefR, class RefA, class RefP>
void triple_symbolic(const ExecSpace& space, Plan& plan, const RefR& R, const RefA& A, const RefP& P,
                     const SpgemmOptions& options, const char* who, bool need_values) {
  check_triple_shapes(R, A, P, who);
  validate_operand(space, R, who, "R", need_values, options.validate_indices);
  validate_operand(space, A, who, "A", need_values, options.validate_indices);
  validate_operand(space, P, who, "P", need_values, options.validate_indices);
  triple_symbolic_checked(space, plan, R, A, P, options, who);
}

/// Both numeric phases: AP's values into the plan's buffer, then Ac's into
/// `ac_values` (nnz(Ac) of them, in the order of plan.entries()). R, A and P
/// get the O(nnz) checks here, under their own names, when the plan asks
/// for them (validate_indices) and the caller has not just run them
/// (`indices_checked`, as the one-shot calls have in their symbolic phase);
/// AP is built by the plan and needs none.
template <class ExecSpace, class Plan, class RefR, class RefA, class RefP, class AcValues>
void triple_numeric(const ExecSpace& space, const Plan& plan, const RefR& R, const RefA& A, const RefP& P,
                    const AcValues& ac_values, const char* who, bool indices_checked) {
  const auto& ap = plan.ap_;
  const auto& rap = plan.rap_;
  check_operand_matches(R, rap.a_rows_, rap.a_cols_, rap.a_nnz_, who, "R");
  check_operand_matches(A, ap.a_rows_, ap.a_cols_, ap.a_nnz_, who, "A");
  check_operand_matches(P, ap.b_rows_, ap.b_cols_, ap.b_nnz_, who, "P");
  check_operand_lengths(R, who, "R");
  check_operand_lengths(A, who, "A");
  check_operand_lengths(P, who, "P");
  check_result_length(rap, ac_values, who, "Ac");
  if (rap.options_.validate_indices && !indices_checked) {
    validate_operand(space, R, who, "R", true, true);
    validate_operand(space, A, who, "A", true, true);
    validate_operand(space, P, who, "P", true, true);
  }
  const std::string who_ap = std::string(who) + " (A * P)";
  const std::string who_rap = std::string(who) + " (R * AP)";
  numeric_for(space, ap, A, P, plan.ap_values_, who_ap.c_str(), true);
  numeric_for(space, rap, R, intermediate_ref(plan), ac_values, who_rap.c_str(), true);
}

}  // namespace gustav::detail
