#pragma once
/// The product a multigrid call hands back: a CrsMatrix or CsrViews sharing
/// the row map and column indices of the SpGEMM plan that made it, with
/// values of its own. Sharing is what lets a numeric-only call refill the
/// same matrix at no copy.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "gustav/common/allocation.hpp"
#include "gustav/csr.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// The type of a product whose left factor is `Left` (a CrsMatrix or a
/// CsrRef): a CrsMatrix of Left's scalar, ordinal, device and offset types,
/// or CsrViews in the execution space's memory.
template <class ExecSpace, class Left, class = void>
struct ResultOf {
  using type = CsrViews<typename Left::scalar_type, typename Left::ordinal_type, typename Left::offset_type,
                        typename ExecSpace::memory_space>;
};
template <class ExecSpace, class S, class O, class D, class M, class Z>
struct ResultOf<ExecSpace, KokkosSparse::CrsMatrix<S, O, D, M, Z>> {
  using type = KokkosSparse::CrsMatrix<std::remove_const_t<S>, std::remove_const_t<O>, D, void,
                                       std::remove_const_t<Z>>;
};

template <class View>
struct ValuesOf;
template <class S, class O, class D, class M, class Z>
struct ValuesOf<KokkosSparse::CrsMatrix<S, O, D, M, Z>> {
  using type = typename KokkosSparse::CrsMatrix<S, O, D, M, Z>::values_type::non_const_type;
};
template <class S, class O, class Z, class Mem>
struct ValuesOf<CsrViews<S, O, Z, Mem>> {
  using type = Kokkos::View<S*, Mem>;
};

/// Allocates the values of a product of the plan's structure (not zeroed:
/// the numeric phase writes every one).
template <class Result, class ExecSpace, class Plan>
typename ValuesOf<Result>::type allocate_result_values(const ExecSpace& space, const Plan& plan,
                                                       const std::string& label) {
  return allocate_result_view_in_place<typename ValuesOf<Result>::type>(space, label,
                                                                       static_cast<std::size_t>(plan.nnz()));
}

/// Wraps the plan's structure and `values` as the result type.
template <class Result, class Plan, class Values>
Result wrap_result(const Plan& plan, const Values& values, const std::string& label) {
  if constexpr (is_crs_matrix<Result>::value) {
    return Result(label, plan.num_rows(), plan.num_cols(), static_cast<typename Result::size_type>(plan.nnz()), values,
                  plan.row_map(), plan.entries());
  } else {
    Result r;
    r.num_rows = plan.num_rows();
    r.num_cols = plan.num_cols();
    r.row_map = plan.row_map();
    r.entries = plan.entries();
    r.values = values;
    return r;
  }
}

/// Prepares a caller's CrsMatrix C for a refill: its shape and nnz must be
/// the plan's; its row map and column indices become the plan's (copied
/// only when C does not share them already, as it does when an earlier call
/// with this plan made it).
template <class ExecSpace, class Plan, class S, class O, class D, class M, class Z>
void adopt_structure(const ExecSpace& space, const Plan& plan, const KokkosSparse::CrsMatrix<S, O, D, M, Z>& C,
                     const char* who, const char* name) {
  if (static_cast<std::int64_t>(C.numRows()) != static_cast<std::int64_t>(plan.num_rows()) ||
      static_cast<std::int64_t>(C.numCols()) != static_cast<std::int64_t>(plan.num_cols()) ||
      static_cast<std::int64_t>(C.values.extent(0)) != static_cast<std::int64_t>(plan.nnz())) {
    std::ostringstream s;
    s << who << ": " << name << " is " << C.numRows() << " x " << C.numCols() << " with " << C.values.extent(0)
      << " values but the plan's product is " << plan.num_rows() << " x " << plan.num_cols() << " with "
      << plan.nnz() << " entries";
    throw plan_mismatch(s.str());
  }
  if (C.graph.entries.data() != plan.entries().data()) Kokkos::deep_copy(space, C.graph.entries, plan.entries());
  if (C.graph.row_map.data() != plan.row_map().data()) {
    // CrsMatrix holds a const row map; the caller owns C, so writing it is theirs to allow.
    Kokkos::View<Z*, D> row_map(const_cast<Z*>(C.graph.row_map.data()), C.graph.row_map.extent(0));
    Kokkos::deep_copy(space, row_map, plan.row_map());
  }
}

/// Throws invalid_input unless caller-owned values hold the plan's nnz.
template <class Plan, class Values>
void check_result_length(const Plan& plan, const Values& values, const char* who, const char* name) {
  if (static_cast<std::int64_t>(values.extent(0)) == static_cast<std::int64_t>(plan.nnz())) return;
  std::ostringstream s;
  s << who << ": " << name << "'s values hold " << values.extent(0) << " entries but the plan's product has "
    << plan.nnz();
  throw invalid_input(s.str());
}

}  // namespace gustav::detail
