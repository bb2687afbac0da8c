#pragma once
/// Transpose of a CSR matrix, B = A^T.
///
///   auto B = gustav::transpose(space, A);
///
/// A is a `KokkosSparse::CrsMatrix` (B comes back as one of the same scalar,
/// ordinal, device and offset types) or a gustav::CsrRef over raw row_map /
/// entries / values views (B comes back as gustav::CsrViews in the execution
/// space's memory), in memory that `space` can access. A's rows may be
/// unsorted and hold duplicate columns.
///
/// B's rows are sorted by column; duplicate entries of A are kept (not
/// summed), in their order of appearance in A. The result is deterministic:
/// the same bits on every run and every backend. Every allocation and kernel
/// runs on `space` and is labelled "gustav::transpose::..."; the call returns
/// once B's structure is known, with the last kernels possibly still running
/// on `space`.
///
/// Errors: gustav::invalid_input naming the fault when A is malformed (the
/// O(1) checks of its dimensions, row_map and values always run; row bounds
/// and column indices are checked while counting, at no extra pass, and a
/// fault there is reported as the full checker words it).
/// gustav::allocation_error when memory runs out.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include "gustav/csr.hpp"
#include "gustav/spmv/operand.hpp"
#include "gustav/transpose/transpose.hpp"

namespace gustav {

/// A^T as a new CrsMatrix of A's type (rows sorted, duplicates kept in A's order).
template <class ExecSpace, class S, class O, class D, class M, class Z>
KokkosSparse::CrsMatrix<S, O, D, void, Z> transpose(const ExecSpace& space,
                                                    const KokkosSparse::CrsMatrix<S, O, D, M, Z>& A) {
  using Matrix = KokkosSparse::CrsMatrix<S, O, D, void, Z>;
  typename Matrix::row_map_type::non_const_type row_map;
  typename Matrix::index_type::non_const_type entries;
  typename Matrix::values_type::non_const_type values;
  const auto ref = make_csr_ref(A);
  detail::transpose_impl(space, detail::operand_input<ExecSpace>(ref), row_map, entries, values, "gustav::transpose");
  return Matrix("gustav::transpose::B", A.numCols(), A.numRows(), static_cast<Z>(entries.extent(0)), values, row_map,
                entries);
}

/// The same for raw views (gustav::CsrRef), returning gustav::CsrViews.
template <class ExecSpace, class R, class E, class V>
auto transpose(const ExecSpace& space, const CsrRef<R, E, V>& A) {
  using Ref = CsrRef<R, E, V>;
  CsrViews<typename Ref::scalar_type, typename Ref::ordinal_type, typename Ref::offset_type,
           typename ExecSpace::memory_space>
      B;
  B.num_rows = A.num_cols;
  B.num_cols = A.num_rows;
  detail::transpose_impl(space, detail::operand_input<ExecSpace>(A), B.row_map, B.entries, B.values,
                         "gustav::transpose");
  return B;
}

}  // namespace gustav
