#pragma once
/// R = P^T for a row-distributed P: every rank sends each of its entries
/// (i, j, v) as (j, i, v) to the owner of row j in R's distribution, and
/// builds its rows from what arrives. Senders go in rank order and each
/// sends its entries in row order, so a counting sort by row leaves every
/// row of R sorted by column without a sort. On the host (the prolongator
/// is transposed once per hierarchy level; its values are not reused).
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/exchange.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/host_csr.hpp"

namespace gustav::distributed {

/// P^T distributed by `result_rows` (which must cover P's global columns;
/// defaults to even blocks). Collective over P.comm.
template <class ExecSpace, class Matrix>
DistributedMatrix<Matrix> transpose(const ExecSpace& space, const DistributedMatrix<Matrix>& P,
                                    RowBlocks result_rows = RowBlocks()) {
  using S = typename Matrix::non_const_value_type;
  using O = typename Matrix::non_const_ordinal_type;
  using Z = typename Matrix::non_const_size_type;
  const std::string who = "gustav::distributed::transpose";
  MPI_Comm comm = P.comm;
  const int me = detail::comm_rank(comm), size = detail::comm_size(comm);
  detail::check_same_blocks(comm, P.rows, who, "P");
  std::int64_t p_cols[2] = {P.global_cols(), -P.global_cols()}, agreed[2];
  MPI_Allreduce(p_cols, agreed, 2, MPI_INT64_T, MPI_MIN, comm);
  detail::fail_together(comm, agreed[0] != -agreed[1], detail::ErrorKind::invalid_input,
                        who + ": ranks disagree on P's global column count");
  if (result_rows.ranks() == 0) result_rows = RowBlocks::even(P.global_cols(), size);
  detail::check_same_blocks(comm, result_rows, who, "P^T");
  detail::fail_together(comm, result_rows.rows() != P.global_cols(), detail::ErrorKind::invalid_input,
                        who + ": P^T's row distribution covers " + std::to_string(result_rows.rows()) +
                            " rows but P has " + std::to_string(P.global_cols()) + " columns");

  HostCsr<S, O, Z> block;
  std::vector<std::int64_t> to(static_cast<std::size_t>(size), 0);
  std::vector<O> send_rows, send_cols;
  std::vector<S> send_values;
  detail::all_or_none(comm, who.c_str(), [&] {
    if (static_cast<std::int64_t>(P.local.numRows()) != P.rows.count(me))
      throw invalid_input("P's block has " + std::to_string(P.local.numRows()) + " rows where its distribution gives " +
                          std::to_string(P.rows.count(me)));
    block = to_host_csr<S, O, Z>(P.local);
    for (auto j : block.entries)
      if (j < 0 || static_cast<std::int64_t>(j) >= P.global_cols())
        throw invalid_input("P has column index " + std::to_string(j) + " outside [0, " +
                            std::to_string(P.global_cols()) + ")");
    // Entries bucketed by destination, each bucket in row order.
    const std::size_t n = block.entries.size();
    std::vector<int> owner(n);
    for (std::size_t p = 0; p < n; ++p) ++to[owner[p] = result_rows.owner(block.entries[p])];
    std::vector<std::int64_t> at(static_cast<std::size_t>(size), 0);
    for (int r = 1; r < size; ++r) at[r] = at[r - 1] + to[r - 1];
    send_rows.resize(n), send_cols.resize(n), send_values.resize(n);
    for (O i = 0; i < block.num_rows; ++i)
      for (Z p = block.row_map[i]; p < block.row_map[i + 1]; ++p) {
        const std::int64_t k = at[owner[p]]++;
        send_rows[k] = block.entries[p];
        send_cols[k] = static_cast<O>(P.rows.first(me) + i);
        send_values[k] = block.values[p];
      }
  });
  const auto pattern = detail::make_pattern(comm, to, detail::exchange_counts(comm, to), who.c_str(), "entries");
  const auto rows = detail::exchange_host<O>(comm, pattern, send_rows.data(), "gustav::distributed::transpose::rows");
  const auto cols = detail::exchange_host<O>(comm, pattern, send_cols.data(), "gustav::distributed::transpose::cols");
  const auto vals = detail::exchange_host<S>(comm, pattern, send_values.data(), "gustav::distributed::transpose::values");

  DistributedMatrix<Matrix> R;
  R.comm = comm;
  R.rows = result_rows;
  detail::all_or_none(comm, who.c_str(), [&] {
    HostCsr<S, O, Z> local;
    const std::int64_t first = result_rows.first(me);
    local.num_rows = static_cast<O>(result_rows.count(me));
    local.num_cols = static_cast<O>(P.global_rows());
    local.row_map.assign(static_cast<std::size_t>(local.num_rows) + 1, 0);
    const std::size_t n = rows.extent(0);
    for (std::size_t k = 0; k < n; ++k) ++local.row_map[static_cast<std::int64_t>(rows(k)) - first + 1];
    for (O i = 0; i < local.num_rows; ++i) local.row_map[i + 1] += local.row_map[i];
    std::vector<Z> at(local.row_map.begin(), local.row_map.end() - 1);
    local.entries.resize(n), local.values.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const Z p = at[static_cast<std::int64_t>(rows(k)) - first]++;
      local.entries[p] = cols(k);
      local.values[p] = vals(k);
    }
    R.local = to_crs<Matrix>(space, local, "gustav::distributed::transpose::R");
  });
  return R;
}

}  // namespace gustav::distributed
