#pragma once
/// The SpMV entry point behind gustav::spmv: checks the operands (the O(1)
/// checks of validate_csr plus the lengths of x and y), then launches one of
/// the kernels of spmv_kernels.hpp with the row mapping of row_mapping.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "gustav/errors.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/spmv/spmv_kernels.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// Throws invalid_input unless vector `name` has `expected` entries.
template <class View>
void check_vector_length(const View& v, std::int64_t expected, const char* who, const char* name,
                         const char* dimension) {
  const auto n = static_cast<std::int64_t>(v.extent(0));
  if (n == expected) return;
  std::ostringstream s;
  s << who << ": " << name << " has " << n << " entries but A has " << expected << " " << dimension;
  throw invalid_input(s.str());
}

template <class ExecSpace, class Input, class XView, class YView>
void spmv_impl(const ExecSpace& space, const typename SpmvRows<ExecSpace, Input, XView, YView>::scalar& alpha,
               const Input& A, const XView& x,
               const typename SpmvRows<ExecSpace, Input, XView, YView>::scalar& beta, const YView& y,
               const char* who) {
  using Kernel = SpmvRows<ExecSpace, Input, XView, YView>;
  using Scalar = typename Kernel::scalar;
  static_assert(XView::rank == 1 && YView::rank == 1, "gustav::spmv: x and y must be rank-1 views");
  static_assert(!std::is_const_v<typename YView::value_type>, "gustav::spmv: y must be writable");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename YView::memory_space>::accessible,
                "gustav::spmv: x and y must live in memory the execution space can access");

  validate_csr(space, A, who, "A", true, false);
  check_vector_length(x, A.num_cols, who, "x", "columns");
  check_vector_length(y, A.num_rows, who, "y", "rows");
  if (A.num_rows == 0) return;

  const bool read_y = !(beta == Scalar(0));
  if (alpha == Scalar(0)) {
    Kokkos::parallel_for("gustav::spmv::scale_y",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
                         ScaleVector<YView, Scalar>{y, beta, read_y});
    return;
  }
  Kernel k{A.row_map, A.entries, A.values, x, y, alpha, beta, read_y, A.num_rows, 1};
  RowMapping m = choose_row_mapping<ExecSpace>(A.num_rows, A.nnz());
  k.rows_per_worker = m.rows_per_worker;
  const auto policy = row_policy(space, m, A.num_rows, k);
  Kokkos::parallel_for("gustav::spmv::rows", policy, k);
}

}  // namespace gustav::detail
