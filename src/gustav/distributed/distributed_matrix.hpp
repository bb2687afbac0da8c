#pragma once
/// A CSR matrix distributed by rows over the ranks of a communicator.
#include <mpi.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>

#include "gustav/common/types.hpp"
#include "gustav/distributed/row_blocks.hpp"

namespace gustav::distributed {

/// Rank r holds rows [rows.first(r), rows.end(r)) of the global matrix as
/// `local`, a `KokkosSparse::CrsMatrix` whose column indices are global:
/// local.numCols() is the global column count, the same on every rank.
/// `Matrix` is a CrsMatrix type; its ordinal type must hold the global
/// column indices. The communicator is not duplicated: it must outlive
/// everything made from the matrix.
template <class Matrix>
struct DistributedMatrix {
  using matrix_type = Matrix;
  MPI_Comm comm = MPI_COMM_WORLD;
  RowBlocks rows;
  Matrix local;

  std::int64_t global_rows() const { return rows.rows(); }
  std::int64_t global_cols() const { return static_cast<std::int64_t>(local.numCols()); }
};

namespace detail {

/// A rank's block as the single-node library's input checks take it.
template <class Matrix>
auto csr_input(const Matrix& m) {
  gustav::detail::CsrInput<decltype(m.graph.row_map), decltype(m.graph.entries), decltype(m.values)> in;
  in.num_rows = static_cast<std::int64_t>(m.numRows());
  in.num_cols = static_cast<std::int64_t>(m.numCols());
  in.row_map = m.graph.row_map;
  in.entries = m.graph.entries;
  in.values = m.values;
  return in;
}

}  // namespace detail
}  // namespace gustav::distributed
