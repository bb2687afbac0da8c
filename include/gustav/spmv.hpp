#pragma once
/// Sparse matrix-vector product y = alpha * A * x + beta * y for CSR A.
///
///   gustav::spmv(space, alpha, A, x, beta, y);
///
/// A is a `KokkosSparse::CrsMatrix` or a gustav::CsrRef over raw row_map /
/// entries / values views; x (A.numCols() entries) and y (A.numRows()
/// entries) are rank-1 Kokkos views. Everything lives in memory that `space`
/// can access; the kernels run on `space`, labelled "gustav::spmv::...", and
/// the call returns when y is computed (it waits for `space`: see Errors).
///
/// Rows may be unsorted and hold duplicate columns (their products are
/// summed). Each row is summed by the vector lanes of one worker, with the
/// lanes per row and rows per worker chosen from the average row length;
/// on GPUs a row longer than 8 rounds of its worker's lanes is listed and
/// summed by a warp of its own, one far longer by a whole team, and every
/// row gets a team when the average row has 1024 entries or more. Every
/// row is summed in an order fixed by the matrix, so repeated calls give
/// the same bits. beta = 0 does not read y (it may hold NaN); alpha = 0
/// reads neither A nor x and only scales y.
///
/// Errors: gustav::invalid_input naming the fault, for x or y of the wrong
/// length and for the O(1) structure checks of A (dimensions, row_map
/// length and number of values, checked on the host; row_map's first and
/// last entries, checked by the kernels, which then leave y as it was).
/// Column indices and row_map's inner entries are not checked: they must
/// lie in [0, A.numCols()) and be non-decreasing (a row_map entry outside
/// [0, nnz] is held to it, so the kernels never leave A's arrays).
/// On GPUs a workspace (the list of long rows: 8 bytes for every 17 or
/// more entries of A, and at most 8 bytes a row) is kept between calls and
/// freed by gustav::release_cached_memory().
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include "gustav/csr.hpp"
#include "gustav/spmv/operand.hpp"
#include "gustav/spmv/spmv.hpp"

namespace gustav {

/// y = alpha * A * x + beta * y for A given as raw CSR views.
template <class ExecSpace, class R, class E, class V, class XView, class YView>
void spmv(const ExecSpace& space, typename CsrRef<R, E, V>::scalar_type alpha, const CsrRef<R, E, V>& A,
          const XView& x, typename CsrRef<R, E, V>::scalar_type beta, const YView& y) {
  detail::spmv_impl(space, alpha, detail::operand_input<ExecSpace>(A), x, beta, y, "gustav::spmv");
}

/// y = alpha * A * x + beta * y for a `KokkosSparse::CrsMatrix` A.
template <class ExecSpace, class Matrix, class XView, class YView>
void spmv(const ExecSpace& space, typename Matrix::value_type alpha, const Matrix& A, const XView& x,
          typename Matrix::value_type beta, const YView& y) {
  static_assert(detail::is_crs_matrix<Matrix>::value, "gustav::spmv: A must be a KokkosSparse::CrsMatrix or a CsrRef");
  spmv(space, alpha, make_csr_ref(A), x, beta, y);
}

}  // namespace gustav
