#pragma once
/// Between whole matrices on the host and distributed ones: a rank's block
/// of rows of a host matrix, its upload as a DistributedMatrix, and the
/// blocks of a distributed matrix gathered back on one rank (to write C, or
/// to check it).
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/exchange.hpp"
#include "gustav/distributed/mpi_types.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/host_csr.hpp"

namespace gustav::distributed {

/// Rows [first, end) of `whole`, all its columns, as a host matrix.
template <class S, class O, class Z>
HostCsr<S, O, Z> rows_of(const HostCsr<S, O, Z>& whole, std::int64_t first, std::int64_t end) {
  if (first < 0 || end < first || end > static_cast<std::int64_t>(whole.num_rows))
    throw invalid_input("gustav::distributed::rows_of: rows [" + std::to_string(first) + ", " + std::to_string(end) +
                        ") are not inside the matrix's " + std::to_string(whole.num_rows));
  HostCsr<S, O, Z> block;
  block.num_rows = static_cast<O>(end - first);
  block.num_cols = whole.num_cols;
  const Z lo = whole.row_map[first], hi = whole.row_map[end];
  block.row_map.resize(static_cast<std::size_t>(end - first) + 1);
  for (std::int64_t i = first; i <= end; ++i) block.row_map[i - first] = whole.row_map[i] - lo;
  block.entries.assign(whole.entries.begin() + lo, whole.entries.begin() + hi);
  block.values.assign(whole.values.begin() + lo, whole.values.begin() + hi);
  return block;
}

/// This rank's block of a matrix every rank holds whole, in `space`'s
/// memory, distributed by `blocks` (its row count must be the matrix's).
template <class Matrix, class ExecSpace, class S, class O, class Z>
DistributedMatrix<Matrix> distribute(const ExecSpace& space, MPI_Comm comm, const HostCsr<S, O, Z>& whole,
                                     const RowBlocks& blocks, const std::string& label = "gustav::distributed::matrix") {
  detail::check_same_blocks(comm, blocks, "gustav::distributed::distribute", label);
  detail::fail_together(comm, blocks.rows() != static_cast<std::int64_t>(whole.num_rows), detail::ErrorKind::invalid_input,
                        "gustav::distributed::distribute: the row distribution covers " + std::to_string(blocks.rows()) +
                            " rows, the matrix has " + std::to_string(whole.num_rows));
  const int me = detail::comm_rank(comm);
  DistributedMatrix<Matrix> M;
  M.comm = comm;
  M.rows = blocks;
  M.local = to_crs<Matrix>(space, rows_of(whole, blocks.first(me), blocks.end(me)), label);
  return M;
}

/// A rank's block in host memory (global column indices).
template <class S, class O, class Z, class Matrix>
HostCsr<S, O, Z> local_block(const DistributedMatrix<Matrix>& M) {
  return to_host_csr<S, O, Z>(M.local);
}

/// The whole matrix on rank `root` (the other ranks get an empty one).
/// Collective.
template <class S, class O, class Z, class Matrix>
HostCsr<S, O, Z> gather_whole(const DistributedMatrix<Matrix>& M, int root = 0) {
  MPI_Comm comm = M.comm;
  const int me = detail::comm_rank(comm), size = detail::comm_size(comm);
  const auto block = local_block<S, O, Z>(M);
  const std::int64_t nnz = block.nnz();
  std::vector<std::int64_t> nnzs(static_cast<std::size_t>(size), 0);
  MPI_Gather(&nnz, 1, MPI_INT64_T, nnzs.data(), 1, MPI_INT64_T, root, comm);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(block.num_rows));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = block.row_map[i + 1] - block.row_map[i];
  // Gathers as exchanges with every rank sending only to root.
  auto gather = [&](const auto* data, std::int64_t count, const std::vector<std::int64_t>& counts) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
    std::vector<std::int64_t> send(static_cast<std::size_t>(size), 0), recv(static_cast<std::size_t>(size), 0);
    send[root] = count;
    if (me == root) recv = counts;
    const auto pattern = detail::make_pattern(comm, send, recv, "gustav::distributed::gather_whole", "entries");
    return detail::exchange_host<T>(comm, pattern, data, "gustav::distributed::gathered");
  };
  std::vector<std::int64_t> row_counts(static_cast<std::size_t>(size), 0);
  for (int r = 0; r < size; ++r) row_counts[r] = M.rows.count(r);
  const auto all_lengths = gather(lengths.data(), static_cast<std::int64_t>(lengths.size()), row_counts);
  const auto all_entries = gather(block.entries.data(), nnz, nnzs);
  const auto all_values = gather(block.values.data(), nnz, nnzs);
  HostCsr<S, O, Z> whole;
  if (me != root) return whole;
  whole.num_rows = static_cast<O>(M.global_rows());
  whole.num_cols = static_cast<O>(M.global_cols());
  whole.row_map.assign(static_cast<std::size_t>(whole.num_rows) + 1, 0);
  for (std::int64_t i = 0; i < M.global_rows(); ++i) whole.row_map[i + 1] = whole.row_map[i] + all_lengths(i);
  whole.entries.assign(all_entries.data(), all_entries.data() + all_entries.extent(0));
  whole.values.assign(all_values.data(), all_values.data() + all_values.extent(0));
  return whole;
}

}  // namespace gustav::distributed
