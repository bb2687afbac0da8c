#pragma once
/// The SpMV kernels, y = alpha * A * x + beta * y, each row summed by the
/// lanes of one worker through Kokkos' vector-level reduction (warp shuffles
/// on CUDA) or, for very long rows, by a whole team:
///
/// - SpmvRows: one worker per row (row_mapping.hpp picks lanes and rows per
///   worker); rows longer than the mapping's long_row are left alone;
/// - SpmvLongRows: each team looks over every league_size-th row for those
///   left alone and sums them one after the other with every thread of the
///   team, so that a hub row of a power-law matrix does not hold up a single
///   warp, and hubs with neighbouring indices (R-MAT puts them together)
///   land on different teams;
/// - SpmvTeamRows: one team per row, when the average row is long;
/// - ScaleVector: y = beta * y for alpha = 0, which reads neither A nor x.
///
/// beta = 0 never reads y, so y may hold anything (NaN, uninitialised
/// memory) on entry, as BLAS callers expect. Every row's sum is taken in a
/// fixed order for a given mapping, so repeated calls give the same bits.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "gustav/spmv/row_mapping.hpp"

namespace gustav::detail {

/// What every SpMV kernel reads and writes.
template <class Input, class XView, class YView>
struct SpmvOperands {
  using scalar = std::remove_const_t<typename decltype(Input::values)::value_type>;

  decltype(Input::row_map) row_map;
  decltype(Input::entries) entries;
  decltype(Input::values) values;
  XView x;
  YView y;
  scalar alpha;
  scalar beta;
  bool read_y = true;  ///< false when beta = 0
  std::int64_t num_rows = 0;

  KOKKOS_INLINE_FUNCTION std::int64_t length(const std::int64_t i) const {
    return static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
  }

  /// Adds entry k of row i's products (k counts from the row's start).
  KOKKOS_INLINE_FUNCTION void add_product(const std::int64_t i, const std::int64_t k, scalar& sum) const {
    const auto p = row_map(i) + k;
    sum += values(p) * x(entries(p));
  }

  KOKKOS_INLINE_FUNCTION void store(const std::int64_t i, const scalar& sum) const {
    y(i) = read_y ? static_cast<scalar>(beta * y(i) + alpha * sum) : static_cast<scalar>(alpha * sum);
  }

  /// Row i summed by every thread and lane of the team; one thread stores it.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void team_row(const Member& team, const std::int64_t i) const {
    scalar sum = scalar();
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, length(i)),
        [&](const std::int64_t k, scalar& partial) { add_product(i, k, partial); }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { store(i, sum); });
    // Kokkos 3.4's CUDA team reduction reuses its shared memory without a
    // closing barrier: a second reduction could overwrite it while slow
    // threads still read this one's result.
    team.team_barrier();
  }
};

template <class ExecSpace, class Operands>
struct SpmvRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using scalar = typename Operands::scalar;

  Operands op;
  int rows_per_worker = 1;
  std::int64_t long_row = 0;  ///< longer rows are SpmvLongRows' work

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for_each_worker_row(team, op.num_rows, rows_per_worker, [&](const std::int64_t i) {
      const std::int64_t n = op.length(i);
      if (n > long_row) return;
      scalar sum = scalar();
      // Zero-based range: every backend starts its lanes at the same place.
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, n), [&](const std::int64_t k, scalar& partial) { op.add_product(i, k, partial); },
          sum);
      // The reduction leaves the sum on every lane; one lane stores it.
      Kokkos::single(Kokkos::PerThread(team), [&]() { op.store(i, sum); });
    });
  }
};

template <class ExecSpace, class Operands>
struct SpmvLongRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  Operands op;
  std::int64_t long_row = 0;
  int block_rows = 256;  ///< rows a team looks over at a time

  /// Team scratch: a block's long rows and their count.
  static std::size_t scratch_bytes(int block_rows) { return (static_cast<std::size_t>(block_rows) + 1) * sizeof(int) + 32; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    int* count = static_cast<int*>(team.team_scratch(0).get_shmem_aligned(sizeof(int), 16));
    int* found_rows = static_cast<int*>(team.team_scratch(0).get_shmem_aligned(block_rows * sizeof(int), 16));
    // This team's rows: league_rank, league_rank + stride, ... (the k-th is row_of(k)).
    const std::int64_t stride = team.league_size();
    const std::int64_t mine = (op.num_rows - team.league_rank() + stride - 1) / stride;
    auto row_of = [&](const std::int64_t k) { return team.league_rank() + k * stride; };
    for (std::int64_t first = 0; first < mine; first += block_rows) {
      const std::int64_t n = mine - first < block_rows ? mine - first : block_rows;
      Kokkos::single(Kokkos::PerTeam(team), [&]() { *count = 0; });
      team.team_barrier();
      // The list's order varies from run to run; each row's sum does not.
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t r) {
        if (op.length(row_of(first + r)) > long_row) found_rows[Kokkos::atomic_fetch_add(count, 1)] = static_cast<int>(r);
      });
      team.team_barrier();
      const int found = *count;
      for (int k = 0; k < found; ++k) op.team_row(team, row_of(first + found_rows[k]));
      // The next block reuses the scratch.
      team.team_barrier();
    }
  }
};

template <class ExecSpace, class Operands>
struct SpmvTeamRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Operands op;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for (std::int64_t i = team.league_rank(); i < op.num_rows; i += team.league_size()) op.team_row(team, i);
  }
};

/// y = beta * y, or y = 0 without reading y when beta = 0.
template <class YView, class Scalar>
struct ScaleVector {
  YView y;
  Scalar beta;
  bool read_y = true;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    y(i) = read_y ? static_cast<Scalar>(beta * y(i)) : Scalar();
  }
};

}  // namespace gustav::detail
