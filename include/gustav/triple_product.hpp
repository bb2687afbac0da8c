#pragma once
/// Ac = R * A * P, the Galerkin (coarse-grid) product of multigrid setups,
/// as two SpGEMMs: AP = A * P, then Ac = R * AP.
///
///   auto [plan, Ac] = gustav::triple_product(space, R, A, P);  // structure and values
///   gustav::triple_product_numeric(space, plan, R, A2, P, Ac); // new values, same structure
///   auto [Rt, plan, Ac] = gustav::galerkin_product(space, A, P); // R = P^T
///
/// The plan keeps both symbolic plans (of A * P and of R * AP) and a buffer
/// for AP's values, so the numeric-only path runs the two numeric phases
/// and nothing else of the setup: no row is counted or sorted again, and AP
/// is not allocated again, when A (or R, or P) changes values but not
/// structure. Like gustav::numeric, it repeats the O(nnz) checks of R, A
/// and P unless the plan was made with SpgemmOptions::validate_indices off.
///
/// R, A and P are all `KokkosSparse::CrsMatrix` objects (Ac comes back as a
/// CrsMatrix of R's types) or all gustav::CsrRef views (Ac comes back as
/// gustav::CsrViews), with one scalar and one ordinal type; offset types
/// may differ (AP takes A's, Ac takes R's). Everything lives in memory that
/// `space` can access, every allocation and kernel runs on `space` and is
/// labelled "gustav::...". Rows may be unsorted and hold duplicates;
/// Ac's rows are sorted unless SpgemmOptions::sort_rows is false.
///
/// Errors, each message naming the function and the operand (R, A, P or
/// Ac): gustav::invalid_input for shapes (R.numCols() != A.numRows(),
/// A.numCols() != P.numRows()) and malformed CSR, gustav::plan_mismatch when
/// a numeric call gets matrices of other shapes, nnz or structure than the
/// plan's, gustav::overflow_error and gustav::allocation_error as for
/// gustav::multiply. Messages from inside one of the two products say which
/// one: "(A * P)" or "(R * AP)".
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <type_traits>

#include "gustav/csr.hpp"
#include "gustav/multigrid/operands.hpp"
#include "gustav/multigrid/product_result.hpp"
#include "gustav/multigrid/triple_product_impl.hpp"
#include "gustav/options.hpp"
#include "gustav/plan.hpp"
#include "gustav/transpose.hpp"

namespace gustav {

/// The symbolic result of R * A * P: the plans of A * P and of R * AP, and
/// the buffer AP's values go to. A small value type (reference-counted
/// views): copy it freely. Copies share the AP buffer, so numeric calls
/// with one plan or its copies must not run at the same time on different
/// execution space instances.
template <class ExecSpace, class Scalar, class Ordinal, class ROffset, class AOffset>
class TripleProductPlan {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Kokkos::Device<ExecSpace, memory_space>;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = ROffset;
  using ap_plan_type = SpgemmPlan<ExecSpace, AOffset, Ordinal>;
  using rap_plan_type = SpgemmPlan<ExecSpace, ROffset, Ordinal>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  /// Rows of Ac (= rows of R).
  Ordinal num_rows() const { return rap_.num_rows(); }
  /// Columns of Ac (= columns of P).
  Ordinal num_cols() const { return rap_.num_cols(); }
  /// nnz(Ac).
  ROffset nnz() const { return rap_.nnz(); }
  /// Ac's row map (num_rows + 1 offsets).
  typename rap_plan_type::row_map_type row_map() const { return rap_.row_map(); }
  /// Ac's column indices, sorted per row unless sort_rows was false.
  typename rap_plan_type::entries_type entries() const { return rap_.entries(); }
  /// The plan of AP = A * P (its stats() count that product).
  const ap_plan_type& ap_plan() const { return ap_; }
  /// The plan of Ac = R * AP.
  const rap_plan_type& rap_plan() const { return rap_; }
  /// AP's values from the latest numeric call, in the order of
  /// ap_plan().entries() (undefined before the first).
  values_type ap_values() const { return ap_values_; }

  // --- implementation -------------------------------------------------------
  // Filled by the symbolic calls, read by the numeric ones; not for callers.
  ap_plan_type ap_;
  rap_plan_type rap_;
  values_type ap_values_;
};

/// What gustav::triple_product returns: `auto [plan, Ac] = ...`.
template <class Plan, class Matrix>
struct TripleProductResult {
  Plan plan;
  Matrix Ac;
};

/// What gustav::galerkin_product returns: `auto [R, plan, Ac] = ...`, R = P^T
/// being the restriction the plan was made with (pass it to
/// triple_product_numeric).
template <class Restriction, class Plan, class Matrix>
struct GalerkinProductResult {
  Restriction R;
  Plan plan;
  Matrix Ac;
};

namespace detail {

template <class ExecSpace, class MatrixR, class MatrixA, class MatrixP>
struct TripleProductTypes {
  using R = operand_ref_t<MatrixR>;
  using A = operand_ref_t<MatrixA>;
  using P = operand_ref_t<MatrixP>;
  static_assert(std::is_same_v<typename R::scalar_type, typename A::scalar_type> &&
                    std::is_same_v<typename A::scalar_type, typename P::scalar_type>,
                "gustav::triple_product: R, A and P must use the same scalar type");
  static_assert(std::is_same_v<typename R::ordinal_type, typename A::ordinal_type> &&
                    std::is_same_v<typename A::ordinal_type, typename P::ordinal_type>,
                "gustav::triple_product: R, A and P must use the same ordinal (column index) type");
  using plan = TripleProductPlan<ExecSpace, typename A::scalar_type, typename A::ordinal_type,
                                 typename R::offset_type, typename A::offset_type>;
  using result = typename ResultOf<ExecSpace, MatrixR>::type;
};

/// Ac from a plan whose symbolic phases have run: new values, the plan's structure.
template <class Result, class ExecSpace, class Plan, class RefR, class RefA, class RefP>
Result triple_product_values(const ExecSpace& space, const Plan& plan, const RefR& R, const RefA& A, const RefP& P,
                             const char* who, bool indices_checked) {
  const auto values = allocate_result_values<Result>(space, plan.rap_, "gustav::triple_product::ac_values");
  triple_numeric(space, plan, R, A, P, values, who, indices_checked);
  return wrap_result<Result>(plan.rap_, values, "gustav::triple_product::Ac");
}

}  // namespace detail

/// Both symbolic phases: the structures of AP and Ac, and the numeric
/// schedules. Values are not read. The O(nnz) checks of R, A and P run when
/// options.validate_indices is set (the default).
template <class ExecSpace, class MatrixR, class MatrixA, class MatrixP>
typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::plan triple_product_symbolic(
    const ExecSpace& space, const MatrixR& R, const MatrixA& A, const MatrixP& P, const SpgemmOptions& options = {}) {
  detail::require_one_kind<MatrixR, MatrixA, MatrixP>();
  typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::plan plan;
  detail::triple_symbolic(space, plan, detail::operand_ref(R), detail::operand_ref(A), detail::operand_ref(P),
                          options, "gustav::triple_product_symbolic", false);
  return plan;
}

/// Both numeric phases, returning a new Ac (a CrsMatrix, or CsrViews for
/// CsrRef operands) whose row map and column indices are the plan's. R, A
/// and P must have the structures the plan was made for (shapes and nnz
/// are checked; a product outside the planned structure raises
/// gustav::plan_mismatch).
template <class ExecSpace, class Scalar, class Ordinal, class ROffset, class AOffset, class MatrixR, class MatrixA,
          class MatrixP>
typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::result triple_product_numeric(
    const ExecSpace& space, const TripleProductPlan<ExecSpace, Scalar, Ordinal, ROffset, AOffset>& plan,
    const MatrixR& R, const MatrixA& A, const MatrixP& P) {
  detail::require_one_kind<MatrixR, MatrixA, MatrixP>();
  using Result = typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::result;
  return detail::triple_product_values<Result>(space, plan, detail::operand_ref(R), detail::operand_ref(A),
                                               detail::operand_ref(P), "gustav::triple_product_numeric", false);
}

/// Both numeric phases into an existing Ac: a CrsMatrix (from an earlier
/// call with this plan, or of its shape and nnz: its row map and column
/// indices are made the plan's, its values overwritten) or a rank-1 view of
/// nnz(Ac) values in the order of plan.entries() (such as the `values` of
/// CsrViews an earlier call returned).
template <class ExecSpace, class Scalar, class Ordinal, class ROffset, class AOffset, class MatrixR, class MatrixA,
          class MatrixP, class Output>
void triple_product_numeric(const ExecSpace& space,
                            const TripleProductPlan<ExecSpace, Scalar, Ordinal, ROffset, AOffset>& plan,
                            const MatrixR& R, const MatrixA& A, const MatrixP& P, const Output& Ac) {
  detail::require_one_kind<MatrixR, MatrixA, MatrixP>();
  const char* who = "gustav::triple_product_numeric";
  if constexpr (detail::is_crs_matrix<Output>::value) {
    detail::adopt_structure(space, plan.rap_, Ac, who, "Ac");
    detail::triple_numeric(space, plan, detail::operand_ref(R), detail::operand_ref(A), detail::operand_ref(P),
                           Ac.values, who, false);
  } else {
    static_assert(Kokkos::is_view<Output>::value && Output::rank == 1,
                  "gustav::triple_product_numeric: Ac must be a CrsMatrix or a rank-1 view of values");
    detail::triple_numeric(space, plan, detail::operand_ref(R), detail::operand_ref(A), detail::operand_ref(P), Ac,
                           who, false);
  }
}

/// Ac = R * A * P in one call: both symbolic phases, then both numeric
/// phases. Returns the plan with Ac, for numeric-only calls later.
template <class ExecSpace, class MatrixR, class MatrixA, class MatrixP>
TripleProductResult<typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::plan,
                    typename detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>::result>
triple_product(const ExecSpace& space, const MatrixR& R, const MatrixA& A, const MatrixP& P,
               const SpgemmOptions& options = {}) {
  detail::require_one_kind<MatrixR, MatrixA, MatrixP>();
  using Types = detail::TripleProductTypes<ExecSpace, MatrixR, MatrixA, MatrixP>;
  const char* who = "gustav::triple_product";
  const auto r = detail::operand_ref(R);
  const auto a = detail::operand_ref(A);
  const auto p = detail::operand_ref(P);
  typename Types::plan plan;
  detail::triple_symbolic(space, plan, r, a, p, options, who, true);
  auto Ac = detail::triple_product_values<typename Types::result>(space, plan, r, a, p, who, true);
  return {plan, Ac};
}

/// Ac = P^T * A * P, the Galerkin product with R = P^T formed by
/// gustav::transpose and then multiplied as in triple_product. A must be
/// square with P.numRows() rows. Returns R with the plan and Ac: a later
/// triple_product_numeric(space, plan, R, A2, P, Ac) recomputes Ac for new
/// values of A; if P's values change, form R = transpose(space, P) again
/// (the transpose has no numeric-only path).
///
/// Why an explicit transpose: forming P^T is a small share of the whole.
/// Measured with 2 OpenMP threads (medians of 5, two runs) on Jacobi-
/// smoothed aggregation prolongators with aggregates of 2^3 and 3^3 nodes:
/// transpose(P) took 6-11% of galerkin_product for lap3d:60 and lap3d:100,
/// 4-7% for brick:30. The alternative for symmetric A, Ac = (AP)^T * P,
/// multiplies as many products but transposes AP, two to three times
/// larger than P: it took 1.15-1.4 times as long.
template <class ExecSpace, class MatrixA, class MatrixP>
auto galerkin_product(const ExecSpace& space, const MatrixA& A, const MatrixP& P, const SpgemmOptions& options = {}) {
  detail::require_one_kind<MatrixA, MatrixP>();
  const char* who = "gustav::galerkin_product";
  const auto a = detail::operand_ref(A);
  const auto p = detail::operand_ref(P);
  detail::check_square(who, "A", static_cast<std::int64_t>(a.num_rows), static_cast<std::int64_t>(a.num_cols));
  detail::check_inner_dimension(who, "A", static_cast<std::int64_t>(a.num_cols), "P",
                                static_cast<std::int64_t>(p.num_rows));
  detail::validate_operand(space, a, who, "A", true, options.validate_indices);
  detail::validate_operand(space, p, who, "P", true, options.validate_indices);
  auto R = transpose(space, P);
  const auto r = [&] {
    if constexpr (detail::is_crs_matrix<MatrixP>::value) {
      return make_csr_ref(R);
    } else {
      return make_csr_ref(R.num_rows, R.num_cols, R.row_map, R.entries, R.values);
    }
  }();
  using Types = detail::TripleProductTypes<ExecSpace, std::conditional_t<detail::is_crs_matrix<MatrixP>::value,
                                                                         decltype(R), decltype(r)>,
                                           MatrixA, MatrixP>;
  typename Types::plan plan;
  detail::triple_symbolic_checked(space, plan, r, a, p, options, who);
  auto Ac = detail::triple_product_values<typename Types::result>(space, plan, r, a, p, who, true);
  return GalerkinProductResult<decltype(R), typename Types::plan, typename Types::result>{R, plan, Ac};
}

}  // namespace gustav
