#pragma once
/// R = P^T for a row-distributed P. Each rank transposes its block on its
/// execution space (gustav::transpose: one row per global column of P, its
/// columns the block's rows, sorted); the rows of that transpose which
/// another rank owns in R's distribution form one contiguous slice, sent
/// whole (row lengths, then column indices made global, then values). A
/// rank's row of R is its peers' pieces of that row in rank order, which
/// keeps its columns sorted with no sort. One rank sends nothing.
///
/// Measured with gustav-mpi on an H200 (lap3d:180's smoothed prolongator,
/// 5.8 million rows, one rank): a host transpose that bucketed every entry
/// by owner took 1.71 s, this one 8.6 ms. On two H200s it took 262 ms while
/// the own slice went through the host too, 35-42 ms now.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gustav/common/allocation.hpp"
#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/exchange.hpp"
#include "gustav/distributed/remote_rows.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/transpose.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::distributed {
namespace detail {

/// Rows [first, end) of R: this rank's own slice of its transpose T (rows
/// [first, end) of T, never staged through the host) and the other peers'
/// slices, received back to back in rank order: `lengths` holds each other
/// peer's `end - first` row lengths, `entries` / `values` their rows.
template <class Matrix, class ExecSpace, class TMatrix, class Lengths, class Entries, class Values>
Matrix assemble_transposed_rows(const ExecSpace& space, std::int64_t first, std::int64_t rows, std::int64_t cols,
                                int peers, int me, const TMatrix& T, const Lengths& lengths, const Entries& entries,
                                const Values& values) {
  using Memory = typename ExecSpace::memory_space;
  using Offset = typename Matrix::non_const_size_type;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  // Where each (peer, row) piece starts in the received entries: the
  // running sum of the lengths as they arrived.
  const auto piece_starts = running_starts(space, lengths, "gustav::distributed::transpose::piece_starts");
  const auto t_row_map = T.graph.row_map;
  const auto t_entries = T.graph.entries;
  const auto t_values = T.values;
  Kokkos::View<std::int64_t*, Memory> row_lengths = gustav::detail::allocate_view<Kokkos::View<std::int64_t*, Memory>>(
      space, "gustav::distributed::transpose::row_lengths", static_cast<std::size_t>(rows), false);
  Kokkos::parallel_for(
      "gustav::distributed::transpose::row_lengths", Range(space, 0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
        std::int64_t n = static_cast<std::int64_t>(t_row_map(first + i + 1) - t_row_map(first + i));
        for (int p = 0; p < peers - 1; ++p) n += lengths(p * rows + i);
        row_lengths(i) = n;
      });
  const auto starts = running_starts(space, row_lengths, "gustav::distributed::transpose::starts");
  const std::int64_t nnz = gustav::detail::read_element(space, starts, static_cast<std::size_t>(rows));
  typename Matrix::row_map_type::non_const_type row_map(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::distributed::transpose::row_map"), rows + 1);
  typename Matrix::index_type::non_const_type out_entries(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::distributed::transpose::entries"), nnz);
  typename Matrix::values_type::non_const_type out_values(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::distributed::transpose::values"), nnz);
  Kokkos::parallel_for(
      "gustav::distributed::transpose::assemble", Range(space, 0, rows + 1), KOKKOS_LAMBDA(const std::int64_t i) {
        row_map(i) = static_cast<Offset>(starts(i));
        if (i == rows) return;
        std::int64_t at = starts(i);
        for (int p = 0; p < peers; ++p) {
          if (p == me) {
            for (auto k = t_row_map(first + i); k < t_row_map(first + i + 1); ++k, ++at) {
              out_entries(at) = t_entries(k);
              out_values(at) = t_values(k);
            }
          } else {
            const std::int64_t slot = (p < me ? p : p - 1) * rows + i;
            const std::int64_t from = piece_starts(slot), n = lengths(slot);
            for (std::int64_t k = 0; k < n; ++k, ++at) {
              out_entries(at) = entries(from + k);
              out_values(at) = values(from + k);
            }
          }
        }
      });
  space.fence();
  return Matrix("gustav::distributed::transpose::R", static_cast<typename Matrix::ordinal_type>(rows),
                static_cast<typename Matrix::ordinal_type>(cols), static_cast<Offset>(nnz), out_values, row_map,
                out_entries);
}

}  // namespace detail

/// P^T distributed by `result_rows` (which must cover P's global columns;
/// defaults to even blocks). Collective over P.comm.
template <class ExecSpace, class Matrix>
DistributedMatrix<Matrix> transpose(const ExecSpace& space, const DistributedMatrix<Matrix>& P,
                                    RowBlocks result_rows = RowBlocks()) {
  using S = typename Matrix::non_const_value_type;
  using O = typename Matrix::non_const_ordinal_type;
  using Memory = typename ExecSpace::memory_space;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
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

  // This rank's block transposed: a row per global column of P, the block's
  // rows as columns, made global.
  Matrix T;
  detail::all_or_none(comm, who.c_str(), [&] {
    if (static_cast<std::int64_t>(P.local.numRows()) != P.rows.count(me))
      throw invalid_input("P's block has " + std::to_string(P.local.numRows()) + " rows where its distribution gives " +
                          std::to_string(P.rows.count(me)));
    gustav::detail::validate_csr(space, detail::csr_input(P.local), who.c_str(), "P", true, true);
    T = gustav::transpose(space, P.local);
    const auto entries = T.graph.entries;
    const O first = static_cast<O>(P.rows.first(me));
    Kokkos::parallel_for(
        "gustav::distributed::transpose::global_columns",
        Range(space, 0, static_cast<std::int64_t>(entries.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t p) { entries(p) += first; });
    space.fence();
  });
  if (size == 1) {
    DistributedMatrix<Matrix> R;
    R.comm = comm;
    R.rows = result_rows;
    R.local = Matrix("gustav::distributed::transpose::R", T.numRows(), static_cast<O>(P.global_rows()), T.nnz(),
                     T.values, T.graph.row_map, T.graph.entries);
    return R;
  }

  // Peer r gets rows [first(r), end(r)) of T: contiguous row lengths,
  // entries and values, sent straight from host copies of T's arrays. This
  // rank's own slice stays on the device.
  const auto t_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), T.graph.row_map);
  std::vector<std::int64_t> rows_to(size, 0), entries_to(size, 0), rows_from(size, result_rows.count(me));
  for (int r = 0; r < size; ++r) {
    if (r == me) continue;
    rows_to[r] = result_rows.count(r);
    entries_to[r] = static_cast<std::int64_t>(t_row_map(result_rows.end(r)) - t_row_map(result_rows.first(r)));
  }
  rows_from[me] = 0;
  detail::fail_together(comm, t_row_map(P.global_cols()) > std::numeric_limits<int>::max(),
                        detail::ErrorKind::overflow,
                        who + ": a rank's block of P holds more than 2^31 - 1 entries (MPI's int offsets); use more ranks");
  const auto row_pattern = detail::make_pattern(comm, rows_to, rows_from, who.c_str(), "row lengths");
  auto entry_pattern =
      detail::make_pattern(comm, entries_to, detail::exchange_counts(comm, entries_to), who.c_str(), "entries");
  auto lengths_pattern = row_pattern;
  for (int r = 0; r < size; ++r) {
    // Send straight from T's arrays: each peer's slice where it lies.
    lengths_pattern.send_displs[r] = static_cast<int>(result_rows.first(r));
    entry_pattern.send_displs[r] = static_cast<int>(t_row_map(result_rows.first(r)));
  }
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(P.global_cols()));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>(t_row_map(i + 1) - t_row_map(i));
  const auto received_lengths = detail::exchange_host<std::int64_t>(comm, lengths_pattern, lengths.data(),
                                                                    "gustav::distributed::transpose::lengths");
  // Host copies of T's entries and values outside this rank's own slice.
  const std::size_t own_first = static_cast<std::size_t>(t_row_map(result_rows.first(me)));
  const std::size_t own_end = static_cast<std::size_t>(t_row_map(result_rows.end(me)));
  const auto t_entries = detail::host_copy_except(T.graph.entries, own_first, own_end);
  const auto t_values = detail::host_copy_except(T.values, own_first, own_end);
  const auto received_entries =
      detail::exchange_host<O>(comm, entry_pattern, t_entries.data(), "gustav::distributed::transpose::entries");
  const auto received_values =
      detail::exchange_host<S>(comm, entry_pattern, t_values.data(), "gustav::distributed::transpose::values");

  DistributedMatrix<Matrix> R;
  R.comm = comm;
  R.rows = result_rows;
  detail::all_or_none(comm, who.c_str(), [&] {
    R.local = detail::assemble_transposed_rows<Matrix>(
        space, result_rows.first(me), result_rows.count(me), P.global_rows(), size, me, T,
        Kokkos::create_mirror_view_and_copy(Memory(), received_lengths),
        Kokkos::create_mirror_view_and_copy(Memory(), received_entries),
        Kokkos::create_mirror_view_and_copy(Memory(), received_values));
  });
  return R;
}

}  // namespace gustav::distributed
