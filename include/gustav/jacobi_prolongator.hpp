#pragma once
/// The Jacobi-smoothed prolongator of smoothed-aggregation multigrid,
/// P = (I - omega D^-1 A) * P_tent, D the diagonal of A, in one SpGEMM.
///
///   auto [plan, P] = gustav::jacobi_prolongator(space, omega, A, P_tent);
///   gustav::jacobi_prolongator_numeric(space, plan, omega, A2, P_tent, P); // A's values changed
///
/// Every row of A must hold its diagonal entry, with a nonzero value. Then
/// M = I - omega D^-1 A has exactly A's structure, and P's structure is
/// that of A * P_tent, which contains P_tent's.
///
/// What is fused and what is not:
/// - fused: M's values come from one kernel over A's rows (label
///   "gustav::jacobi_prolongator::smoother_values") that finds each row's
///   diagonal, scales the row and adds the identity. D, D^-1 A and the sum
///   I - omega D^-1 A are never formed; M needs no row map or column
///   indices of its own (it uses A's), only nnz(A) values.
/// - not fused: those values are written to a buffer (kept in the plan) and
///   then read by Gustav's ordinary SpGEMM numeric phase on M * P_tent; the
///   SpGEMM kernels do not compute M on the fly. The smoother kernel
///   reduces the first faulty row (missing or zero diagonal) to the host,
///   which waits for it before the product starts. The symbolic phase is
///   Gustav's ordinary one, run on A's structure (so it never waits for M).
///
/// A and P_tent are both `KokkosSparse::CrsMatrix` objects (P comes back as
/// a CrsMatrix of A's types) or both gustav::CsrRef views (P comes back as
/// gustav::CsrViews), with one scalar and one ordinal type, in memory that
/// `space` can access. Rows may be unsorted and hold duplicates (a row's
/// diagonal is the sum of its diagonal entries). P's rows are sorted unless
/// SpgemmOptions::sort_rows is false. Every allocation and kernel runs on
/// `space` and is labelled "gustav::...".
///
/// Errors: gustav::invalid_input naming the function for a non-square A,
/// A.numCols() != P_tent.numRows(), malformed CSR, and for a row of A whose
/// diagonal entry is missing or sums to zero (the message names the first
/// such row; this check is part of every numeric call);
/// gustav::plan_mismatch when a numeric call gets matrices the plan was not
/// made for; gustav::overflow_error and gustav::allocation_error as for
/// gustav::multiply.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <type_traits>

#include "gustav/csr.hpp"
#include "gustav/multigrid/jacobi_prolongator_impl.hpp"
#include "gustav/multigrid/operands.hpp"
#include "gustav/multigrid/product_result.hpp"
#include "gustav/options.hpp"
#include "gustav/plan.hpp"

namespace gustav {

/// The symbolic result of (I - omega D^-1 A) * P_tent: the SpGEMM plan of
/// A * P_tent and the buffer M's values go to. A small value type: copy it
/// freely. Copies share the buffer, so numeric calls with one plan or its
/// copies must not run at the same time on different execution space
/// instances.
template <class ExecSpace, class Scalar, class Ordinal, class Offset>
class JacobiProlongatorPlan {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Kokkos::Device<ExecSpace, memory_space>;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using product_plan_type = SpgemmPlan<ExecSpace, Offset, Ordinal>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  /// Rows of P (= rows of A).
  Ordinal num_rows() const { return product_.num_rows(); }
  /// Columns of P (= columns of P_tent).
  Ordinal num_cols() const { return product_.num_cols(); }
  /// nnz(P).
  Offset nnz() const { return product_.nnz(); }
  /// P's row map (num_rows + 1 offsets).
  typename product_plan_type::row_map_type row_map() const { return product_.row_map(); }
  /// P's column indices, sorted per row unless sort_rows was false.
  typename product_plan_type::entries_type entries() const { return product_.entries(); }
  /// The SpGEMM plan of M * P_tent (its stats() count that product).
  const product_plan_type& product_plan() const { return product_; }

  // --- implementation -------------------------------------------------------
  // Filled by the symbolic calls, read by the numeric ones; not for callers.
  product_plan_type product_;
  values_type m_values_;  ///< M's values, in the order of A's entries
};

/// What gustav::jacobi_prolongator returns: `auto [plan, P] = ...`.
template <class Plan, class Matrix>
struct JacobiProlongatorResult {
  Plan plan;
  Matrix P;
};

namespace detail {

template <class ExecSpace, class MatrixA, class MatrixP>
struct JacobiProlongatorTypes {
  using A = operand_ref_t<MatrixA>;
  using P = operand_ref_t<MatrixP>;
  static_assert(std::is_same_v<typename A::scalar_type, typename P::scalar_type>,
                "gustav::jacobi_prolongator: A and P_tent must use the same scalar type");
  static_assert(std::is_same_v<typename A::ordinal_type, typename P::ordinal_type>,
                "gustav::jacobi_prolongator: A and P_tent must use the same ordinal (column index) type");
  using scalar = typename A::scalar_type;
  using plan = JacobiProlongatorPlan<ExecSpace, scalar, typename A::ordinal_type, typename A::offset_type>;
  using result = typename ResultOf<ExecSpace, MatrixA>::type;
};

template <class Result, class ExecSpace, class Plan, class Scalar, class RefA, class RefP>
Result jacobi_prolongator_values(const ExecSpace& space, const Plan& plan, const Scalar& omega, const RefA& A,
                                 const RefP& P_tent, const char* who, bool indices_checked) {
  const auto values = allocate_result_values<Result>(space, plan.product_, "gustav::jacobi_prolongator::p_values");
  jacobi_numeric(space, plan, omega, A, P_tent, values, who, indices_checked);
  return wrap_result<Result>(plan.product_, values, "gustav::jacobi_prolongator::P");
}

}  // namespace detail

/// Symbolic phase: P's structure (that of A * P_tent) and the numeric
/// schedule. Values are not read, so a missing diagonal is reported by the
/// numeric call. The O(nnz) checks of A and P_tent run when
/// options.validate_indices is set (the default).
template <class ExecSpace, class MatrixA, class MatrixP>
typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::plan jacobi_prolongator_symbolic(
    const ExecSpace& space, const MatrixA& A, const MatrixP& P_tent, const SpgemmOptions& options = {}) {
  detail::require_one_kind<MatrixA, MatrixP>();
  typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::plan plan;
  detail::jacobi_symbolic(space, plan, detail::operand_ref(A), detail::operand_ref(P_tent), options,
                          "gustav::jacobi_prolongator_symbolic", false);
  return plan;
}

/// Numeric phase, returning a new P (row map and column indices shared with
/// the plan): M's values from A's current values and omega, then M * P_tent.
/// A and P_tent must have the structures the plan was made for (shapes and
/// nnz are checked, and the O(nnz) checks of A and P_tent run again unless
/// the plan was made with SpgemmOptions::validate_indices off).
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class MatrixA, class MatrixP>
typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::result jacobi_prolongator_numeric(
    const ExecSpace& space, const JacobiProlongatorPlan<ExecSpace, Scalar, Ordinal, Offset>& plan,
    const typename JacobiProlongatorPlan<ExecSpace, Scalar, Ordinal, Offset>::scalar_type& omega, const MatrixA& A,
    const MatrixP& P_tent) {
  detail::require_one_kind<MatrixA, MatrixP>();
  using Result = typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::result;
  return detail::jacobi_prolongator_values<Result>(space, plan, omega, detail::operand_ref(A),
                                                   detail::operand_ref(P_tent), "gustav::jacobi_prolongator_numeric",
                                                   false);
}

/// Numeric phase into an existing P: a CrsMatrix (from an earlier call with
/// this plan, or of its shape and nnz: its row map and column indices are
/// made the plan's, its values overwritten) or a rank-1 view of nnz(P)
/// values in the order of plan.entries().
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class MatrixA, class MatrixP, class Output>
void jacobi_prolongator_numeric(
    const ExecSpace& space, const JacobiProlongatorPlan<ExecSpace, Scalar, Ordinal, Offset>& plan,
    const typename JacobiProlongatorPlan<ExecSpace, Scalar, Ordinal, Offset>::scalar_type& omega, const MatrixA& A,
    const MatrixP& P_tent, const Output& P) {
  detail::require_one_kind<MatrixA, MatrixP>();
  const char* who = "gustav::jacobi_prolongator_numeric";
  if constexpr (detail::is_crs_matrix<Output>::value) {
    detail::adopt_structure(space, plan.product_, P, who, "P");
    detail::jacobi_numeric(space, plan, omega, detail::operand_ref(A), detail::operand_ref(P_tent), P.values, who,
                           false);
  } else {
    static_assert(Kokkos::is_view<Output>::value && Output::rank == 1,
                  "gustav::jacobi_prolongator_numeric: P must be a CrsMatrix or a rank-1 view of values");
    detail::jacobi_numeric(space, plan, omega, detail::operand_ref(A), detail::operand_ref(P_tent), P, who, false);
  }
}

/// P = (I - omega D^-1 A) * P_tent in one call (symbolic, then numeric).
/// Returns the plan with P, for numeric-only calls when A's values change.
/// omega is usually 2/3, or 4/3 divided by an estimate of the largest
/// eigenvalue of D^-1 A.
template <class ExecSpace, class MatrixA, class MatrixP>
JacobiProlongatorResult<typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::plan,
                        typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::result>
jacobi_prolongator(const ExecSpace& space,
                   const typename detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>::scalar& omega,
                   const MatrixA& A, const MatrixP& P_tent, const SpgemmOptions& options = {}) {
  detail::require_one_kind<MatrixA, MatrixP>();
  using Types = detail::JacobiProlongatorTypes<ExecSpace, MatrixA, MatrixP>;
  const char* who = "gustav::jacobi_prolongator";
  const auto a = detail::operand_ref(A);
  const auto p = detail::operand_ref(P_tent);
  typename Types::plan plan;
  detail::jacobi_symbolic(space, plan, a, p, options, who, true);
  auto P = detail::jacobi_prolongator_values<typename Types::result>(space, plan, omega, a, p, who, true);
  return {plan, P};
}

}  // namespace gustav
