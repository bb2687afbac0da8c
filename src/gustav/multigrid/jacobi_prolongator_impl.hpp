#pragma once
/// The Jacobi-smoothed prolongator P = (I - omega D^-1 A) * P_tent as one
/// SpGEMM (see include/gustav/jacobi_prolongator.hpp for the API).
///
/// The symbolic phase runs on A's structure, which is M's: M = I - omega
/// D^-1 A differs from A only in values once every diagonal entry is
/// present. The numeric phase first writes M's values (one kernel,
/// jacobi_smoother.hpp) into a buffer the plan keeps, then runs Gustav's
/// numeric phase on M = (A's row map, A's column indices, that buffer)
/// times P_tent.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/csr.hpp"
#include "gustav/multigrid/jacobi_smoother.hpp"
#include "gustav/multigrid/operands.hpp"
#include "gustav/multigrid/product_result.hpp"
#include "gustav/options.hpp"
#include "gustav/spgemm.hpp"
#include "gustav/spmv/operand.hpp"

namespace gustav::detail {

/// Checks A and P_tent, then computes the structure of M * P_tent (= that
/// of A * P_tent) into `plan`.
template <class ExecSpace, class Plan, class RefA, class RefP>
void jacobi_symbolic(const ExecSpace& space, Plan& plan, const RefA& A, const RefP& P_tent,
                     const SpgemmOptions& options, const char* who, bool need_values) {
  check_square(who, "A", static_cast<std::int64_t>(A.num_rows), static_cast<std::int64_t>(A.num_cols));
  check_inner_dimension(who, "A", static_cast<std::int64_t>(A.num_cols), "P_tent",
                        static_cast<std::int64_t>(P_tent.num_rows));
  validate_operand(space, A, who, "A", need_values, options.validate_indices);
  validate_operand(space, P_tent, who, "P_tent", need_values, options.validate_indices);
  const std::string inner_who = std::string(who) + " (M * P_tent)";
  plan.product_ = symbolic_for(space, A, P_tent, without_index_checks(options), inner_who.c_str(), false);
  plan.product_.options_ = options;
  plan.m_values_ = allocate_view<decltype(plan.m_values_)>(space, "gustav::jacobi_prolongator::m_values",
                                                           A.entries.extent(0), false);
}

/// M's values from A's, then P's values into `p_values` (nnz(P) of them, in
/// the order of the plan's entries). A and P_tent get the O(nnz) checks
/// here, under their own names, when the plan asks for them and the caller
/// has not just run them (`indices_checked`); A's O(1) checks run in any
/// case, because the smoother kernel walks A's rows before the SpGEMM's own
/// checks would.
template <class ExecSpace, class Plan, class Scalar, class RefA, class RefP, class PValues>
void jacobi_numeric(const ExecSpace& space, const Plan& plan, const Scalar& omega, const RefA& A,
                    const RefP& P_tent, const PValues& p_values, const char* who, bool indices_checked) {
  const auto& product = plan.product_;
  check_operand_matches(A, product.a_rows_, product.a_cols_, product.a_nnz_, who, "A");
  check_operand_matches(P_tent, product.b_rows_, product.b_cols_, product.b_nnz_, who, "P_tent");
  check_operand_lengths(A, who, "A");
  check_operand_lengths(P_tent, who, "P_tent");
  check_result_length(product, p_values, who, "P");
  const bool full = product.options_.validate_indices && !indices_checked;
  validate_operand(space, A, who, "A", true, full);
  if (full) validate_operand(space, P_tent, who, "P_tent", true, true);
  jacobi_smoother_values(space, operand_input<ExecSpace>(A), omega, plan.m_values_, who);
  const auto M = make_csr_ref(A.num_rows, A.num_cols, A.row_map, A.entries, plan.m_values_);
  const std::string inner_who = std::string(who) + " (M * P_tent)";
  numeric_for(space, product, M, P_tent, p_values, inner_who.c_str(), true);
}

}  // namespace gustav::detail
