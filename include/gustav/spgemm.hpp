#pragma once
/// C = A * B for CSR matrices.
///
///   auto plan = gustav::symbolic(space, A, B);   // structure of C, once
///   auto C    = gustav::numeric(space, plan, A, B); // values, as often as A, B change
///   auto C    = gustav::multiply(space, A, B);    // both
///
/// A and B are `KokkosSparse::CrsMatrix` objects or gustav::CsrRef views over
/// raw row_map / entries / values, in memory that `space` can access, with
/// the same scalar and ordinal types (offsets may differ). Rows may be
/// unsorted and hold duplicate columns (duplicates are summed). Every
/// allocation and kernel runs on `space` and is labelled "gustav::...".
///
/// Errors: gustav::invalid_input (shapes, malformed CSR), gustav::overflow_error
/// (counts beyond the offset type), gustav::allocation_error (memory),
/// gustav::plan_mismatch (numeric with matrices the plan was not built for).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <type_traits>

#include "gustav/csr.hpp"
#include "gustav/options.hpp"
#include "gustav/plan.hpp"
#include "gustav/spgemm/numeric.hpp"
#include "gustav/spgemm/symbolic.hpp"

namespace gustav {
namespace detail {

template <class ExecSpace, class RefA, class RefB>
struct ProductTypes {
  static_assert(std::is_same_v<typename RefA::ordinal_type, typename RefB::ordinal_type>,
                "gustav: A and B must use the same ordinal (column index) type");
  static_assert(std::is_same_v<typename RefA::scalar_type, typename RefB::scalar_type>,
                "gustav: A and B must use the same scalar type");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename RefA::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename RefB::memory_space>::accessible,
                "gustav: A and B must live in memory the execution space can access");
  using types = SpgemmTypes<ExecSpace, typename RefA::scalar_type, typename RefA::ordinal_type,
                            typename RefA::offset_type, typename RefB::offset_type>;
  using plan = SpgemmPlan<ExecSpace, typename types::c_offset_type, typename types::ordinal_type>;
  using a_input = CsrInput<typename types::a_row_map, typename types::entries, typename types::values>;
  using b_input = CsrInput<typename types::b_row_map, typename types::entries, typename types::values>;
};

template <class Input, class Ref>
Input to_input(const Ref& r) {
  Input in;
  in.num_rows = static_cast<std::int64_t>(r.num_rows);
  in.num_cols = static_cast<std::int64_t>(r.num_cols);
  in.row_map = r.row_map;
  in.entries = r.entries;
  in.values = r.values;
  return in;
}

template <class ExecSpace, class RefA, class RefB>
auto symbolic_for(const ExecSpace& space, const RefA& A, const RefB& B, const SpgemmOptions& options,
                  const char* who, bool check_values) {
  using T = ProductTypes<ExecSpace, RefA, RefB>;
  return symbolic_impl<typename T::types>(space, to_input<typename T::a_input>(A), to_input<typename T::b_input>(B),
                                          options, who, check_values);
}

template <class ExecSpace, class Plan, class RefA, class RefB, class CValues>
void numeric_for(const ExecSpace& space, const Plan& plan, const RefA& A, const RefB& B, const CValues& c_values,
                 const char* who, bool indices_checked = false) {
  using T = ProductTypes<ExecSpace, RefA, RefB>;
  static_assert(std::is_same_v<typename T::plan, Plan>, "gustav::numeric: the plan was made for other index types");
  typename T::types::c_values values = c_values;
  numeric_impl<typename T::types>(space, plan, to_input<typename T::a_input>(A), to_input<typename T::b_input>(B),
                                  values, who, indices_checked);
}

/// One-shot product: the plan and C's values. The hierarchical mapping, and
/// the CPU mapping where the write pass's dense accumulator fits, write C's
/// columns and values in one walk after counting; otherwise (and always with
/// the colouring numeric phase) the numeric phase runs after the symbolic one.
template <class ExecSpace, class RefA, class RefB>
auto multiply_for(const ExecSpace& space, const RefA& A, const RefB& B, const SpgemmOptions& options,
                  const char* who) {
  using T = ProductTypes<ExecSpace, RefA, RefB>;
  typename T::types::c_values values;
  auto plan = symbolic_impl<typename T::types>(space, to_input<typename T::a_input>(A),
                                               to_input<typename T::b_input>(B), options, who, true, &values);
  if (values.data() == nullptr && !plan.hybrid_ &&
      (!plan.schedule_.hierarchical.used || plan.schedule_.colours.used)) {
    values = allocate_result_view_in_place<typename T::types::c_values>(space, "gustav::numeric::c_values",
                                                                         plan.nnz());
    numeric_for(space, plan, A, B, values, who, true);
  }
  return std::make_pair(plan, values);
}

/// C as views sharing the plan's structure, with freshly computed values.
template <class ExecSpace, class Plan, class RefA, class RefB>
auto numeric_views(const ExecSpace& space, const Plan& plan, const RefA& A, const RefB& B, const char* who,
                   bool indices_checked = false) {
  using Scalar = typename RefA::scalar_type;
  CsrViews<Scalar, typename Plan::ordinal_type, typename Plan::offset_type, typename ExecSpace::memory_space> C;
  C.num_rows = plan.num_rows();
  C.num_cols = plan.num_cols();
  C.row_map = plan.row_map();
  C.entries = plan.entries();
  C.values = allocate_result_view_in_place<decltype(C.values)>(space, "gustav::numeric::c_values", plan.nnz());
  numeric_for(space, plan, A, B, C.values, who, indices_checked);
  return C;
}

/// C as a new CrsMatrix sharing the plan's structure.
template <class ExecSpace, class Plan, class MatrixA, class MatrixB>
auto numeric_matrix(const ExecSpace& space, const Plan& plan, const MatrixA& A, const MatrixB& B, const char* who,
                    bool indices_checked = false) {
  using Matrix = KokkosSparse::CrsMatrix<std::remove_const_t<typename MatrixA::value_type>,
                                         std::remove_const_t<typename MatrixA::ordinal_type>,
                                         typename MatrixA::device_type, void,
                                         std::remove_const_t<typename MatrixA::size_type>>;
  typename Matrix::values_type values =
      allocate_result_view_in_place<typename Matrix::values_type>(space, "gustav::numeric::c_values", plan.nnz());
  numeric_for(space, plan, make_csr_ref(A), make_csr_ref(B), values, who, indices_checked);
  return Matrix("gustav::C", plan.num_rows(), plan.num_cols(), static_cast<typename Matrix::size_type>(plan.nnz()),
                values, plan.row_map(), plan.entries());
}

}  // namespace detail

/// Symbolic phase: computes the structure of C = A * B (row map and column
/// indices, sorted per row unless options.sort_rows is false) and everything
/// the numeric phase needs. Values of A and B are not read.
template <class ExecSpace, class RA, class EA, class VA, class RB, class EB, class VB>
typename detail::ProductTypes<ExecSpace, CsrRef<RA, EA, VA>, CsrRef<RB, EB, VB>>::plan symbolic(
    const ExecSpace& space, const CsrRef<RA, EA, VA>& A, const CsrRef<RB, EB, VB>& B,
    const SpgemmOptions& options = {}) {
  return detail::symbolic_for(space, A, B, options, "gustav::symbolic", false);
}

template <class ExecSpace, class SA, class OA, class DA, class MA, class ZA, class SB, class OB, class DB, class MB,
          class ZB>
auto symbolic(const ExecSpace& space, const KokkosSparse::CrsMatrix<SA, OA, DA, MA, ZA>& A,
              const KokkosSparse::CrsMatrix<SB, OB, DB, MB, ZB>& B, const SpgemmOptions& options = {}) {
  return symbolic(space, make_csr_ref(A), make_csr_ref(B), options);
}

/// Numeric phase into caller-owned values: c_values gets nnz(C) values in the
/// order of plan.entries(). A and B must have the structure the plan was made
/// for (checked: shapes and nnz always; any product outside the planned
/// structure raises gustav::plan_mismatch, and then c_values holds no
/// meaningful values).
template <class ExecSpace, class Offset, class Ordinal, class RA, class EA, class VA, class RB, class EB, class VB,
          class CValues>
void numeric(const ExecSpace& space, const SpgemmPlan<ExecSpace, Offset, Ordinal>& plan, const CsrRef<RA, EA, VA>& A,
             const CsrRef<RB, EB, VB>& B, const CValues& c_values) {
  detail::numeric_for(space, plan, A, B, c_values, "gustav::numeric");
}

/// Numeric phase returning C as views (row map and entries shared with the plan).
template <class ExecSpace, class Offset, class Ordinal, class RA, class EA, class VA, class RB, class EB, class VB>
auto numeric(const ExecSpace& space, const SpgemmPlan<ExecSpace, Offset, Ordinal>& plan, const CsrRef<RA, EA, VA>& A,
             const CsrRef<RB, EB, VB>& B) {
  return detail::numeric_views(space, plan, A, B, "gustav::numeric");
}

/// Numeric phase returning a new CrsMatrix (row map and entries shared with the plan).
template <class ExecSpace, class Offset, class Ordinal, class SA, class OA, class DA, class MA, class ZA, class SB,
          class OB, class DB, class MB, class ZB>
KokkosSparse::CrsMatrix<SA, OA, DA, void, ZA> numeric(const ExecSpace& space,
                                                      const SpgemmPlan<ExecSpace, Offset, Ordinal>& plan,
                                                      const KokkosSparse::CrsMatrix<SA, OA, DA, MA, ZA>& A,
                                                      const KokkosSparse::CrsMatrix<SB, OB, DB, MB, ZB>& B) {
  return detail::numeric_matrix(space, plan, A, B, "gustav::numeric");
}

/// Numeric phase refilling an existing CrsMatrix C (from an earlier numeric
/// call with this plan, or of the plan's structure): its values are
/// overwritten; its row map and entries are made the plan's.
template <class ExecSpace, class Offset, class Ordinal, class SA, class OA, class DA, class MA, class ZA, class SB,
          class OB, class DB, class MB, class ZB, class SC, class OC, class DC, class MC, class ZC>
void numeric(const ExecSpace& space, const SpgemmPlan<ExecSpace, Offset, Ordinal>& plan,
             const KokkosSparse::CrsMatrix<SA, OA, DA, MA, ZA>& A, const KokkosSparse::CrsMatrix<SB, OB, DB, MB, ZB>& B,
             KokkosSparse::CrsMatrix<SC, OC, DC, MC, ZC>& C) {
  if (static_cast<std::int64_t>(C.values.extent(0)) != static_cast<std::int64_t>(plan.nnz()) ||
      C.numRows() != plan.num_rows() || C.numCols() != plan.num_cols())
    throw plan_mismatch("gustav::numeric: C does not have the plan's shape and nnz");
  if (C.graph.entries.data() != plan.entries().data()) Kokkos::deep_copy(space, C.graph.entries, plan.entries());
  if (C.graph.row_map.data() != plan.row_map().data()) {
    auto row_map = Kokkos::View<ZC*, DC>(const_cast<ZC*>(C.graph.row_map.data()), C.graph.row_map.extent(0));
    Kokkos::deep_copy(space, row_map, plan.row_map());
  }
  numeric(space, plan, make_csr_ref(A), make_csr_ref(B), C.values);
}

/// C = A * B in one call (symbolic, then numeric; or, where that is faster,
/// a count and then one walk that writes C's columns and values together);
/// `stats` gets what the product did (its paths, bins and peak temporary
/// memory).
template <class ExecSpace, class SA, class OA, class DA, class MA, class ZA, class SB, class OB, class DB, class MB,
          class ZB>
KokkosSparse::CrsMatrix<SA, OA, DA, void, ZA> multiply(const ExecSpace& space,
                                                       const KokkosSparse::CrsMatrix<SA, OA, DA, MA, ZA>& A,
                                                       const KokkosSparse::CrsMatrix<SB, OB, DB, MB, ZB>& B,
                                                       const SpgemmOptions& options, SpgemmStats& stats) {
  using Matrix = KokkosSparse::CrsMatrix<SA, OA, DA, void, ZA>;
  auto product = detail::multiply_for(space, make_csr_ref(A), make_csr_ref(B), options, "gustav::multiply");
  const auto& plan = product.first;
  stats = plan.stats();
  typename Matrix::values_type values = product.second;
  return Matrix("gustav::C", plan.num_rows(), plan.num_cols(), static_cast<typename Matrix::size_type>(plan.nnz()),
                values, plan.row_map(), plan.entries());
}

/// C = A * B in one call.
template <class ExecSpace, class SA, class OA, class DA, class MA, class ZA, class SB, class OB, class DB, class MB,
          class ZB>
KokkosSparse::CrsMatrix<SA, OA, DA, void, ZA> multiply(const ExecSpace& space,
                                                       const KokkosSparse::CrsMatrix<SA, OA, DA, MA, ZA>& A,
                                                       const KokkosSparse::CrsMatrix<SB, OB, DB, MB, ZB>& B,
                                                       const SpgemmOptions& options = {}) {
  SpgemmStats stats;
  return multiply(space, A, B, options, stats);
}

/// C = A * B in one call, raw views in and out; `stats` as above.
template <class ExecSpace, class RA, class EA, class VA, class RB, class EB, class VB>
auto multiply(const ExecSpace& space, const CsrRef<RA, EA, VA>& A, const CsrRef<RB, EB, VB>& B,
              const SpgemmOptions& options, SpgemmStats& stats) {
  auto product = detail::multiply_for(space, A, B, options, "gustav::multiply");
  const auto& plan = product.first;
  stats = plan.stats();
  using Scalar = typename CsrRef<RA, EA, VA>::scalar_type;
  using Plan = std::decay_t<decltype(plan)>;
  CsrViews<Scalar, typename Plan::ordinal_type, typename Plan::offset_type, typename ExecSpace::memory_space> C;
  C.num_rows = plan.num_rows();
  C.num_cols = plan.num_cols();
  C.row_map = plan.row_map();
  C.entries = plan.entries();
  C.values = product.second;
  return C;
}

/// C = A * B in one call, raw views in and out.
template <class ExecSpace, class RA, class EA, class VA, class RB, class EB, class VB>
auto multiply(const ExecSpace& space, const CsrRef<RA, EA, VA>& A, const CsrRef<RB, EB, VB>& B,
              const SpgemmOptions& options = {}) {
  SpgemmStats stats;
  return multiply(space, A, B, options, stats);
}

}  // namespace gustav
