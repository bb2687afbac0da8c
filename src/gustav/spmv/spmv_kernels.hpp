#pragma once
/// The SpMV kernels, y = alpha * A * x + beta * y, each row summed by the
/// lanes of one worker (worker_sum: a shuffle tree to the first lane on
/// CUDA) or, for very long rows, by a whole team:
///
/// - SpmvRows: one worker per row (row_mapping.hpp picks lanes and rows per
///   worker); rows longer than the mapping's medium_row are listed instead;
/// - SpmvListedRows: the listed rows, a warp of 32 lanes each, or a team
///   each for those longer than long_row, so that a worker never waits on
///   a long row while its neighbours are done, and the hub rows of a
///   power-law matrix do not fall to one team together (R-MAT's hubs have
///   neighbouring indices);
/// - SpmvTeamRows: one team per row, when the average row is long;
/// - ScaleVector: y = beta * y for alpha = 0, which reads neither A nor x.
///
/// Every kernel that reads A first checks that row_map starts at 0 and ends
/// at nnz; if not, it reports both end points (workspace.hpp) and computes
/// nothing, so y is left as it was. beta = 0 never reads y, so y may hold
/// anything (NaN, uninitialised memory) on entry, as BLAS callers expect.
/// Every row's sum is taken in an order fixed by the matrix and the
/// mapping, so repeated calls give the same bits.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "gustav/common/worker_sum.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/spmv/workspace.hpp"

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
  std::int64_t nnz = 0;

  /// Whether row_map starts at 0 and ends at nnz (read by every team: two
  /// loads that the cache serves after the first team).
  KOKKOS_INLINE_FUNCTION bool ends_agree() const {
    return static_cast<std::int64_t>(row_map(0)) == 0 && static_cast<std::int64_t>(row_map(num_rows)) == nnz;
  }

  /// Row i's first entry, held to [0, nnz]: the kernels check only
  /// row_map's end points, and a malformed inner entry must not send them
  /// outside the arrays.
  KOKKOS_INLINE_FUNCTION std::int64_t begin(const std::int64_t i) const {
    const auto b = static_cast<std::int64_t>(row_map(i));
    return b < 0 ? 0 : (b > nnz ? nnz : b);
  }
  /// Row i's end, held to [b, nnz] (b: the row's begin).
  KOKKOS_INLINE_FUNCTION std::int64_t end(const std::int64_t i, const std::int64_t b) const {
    const auto e = static_cast<std::int64_t>(row_map(i + 1));
    return e < b ? b : (e > nnz ? nnz : e);
  }

  KOKKOS_INLINE_FUNCTION scalar product(const std::int64_t p) const { return values(p) * x(entries(p)); }

  KOKKOS_INLINE_FUNCTION void store(const std::int64_t i, const scalar& sum) const {
    y(i) = read_y ? static_cast<scalar>(beta * y(i) + alpha * sum) : static_cast<scalar>(alpha * sum);
  }

  /// Row i summed by every thread and lane of the team; one thread stores it.
  /// Each thread takes entries k, k + q, k + 2q and k + 3q (q: a quarter of
  /// the row), so that four loads are in flight at once: one team on one
  /// row waits on memory latency (arrow:10000's dense row took 40 us under
  /// Nsight Compute with one load at a time).
  template <class Member>
  KOKKOS_INLINE_FUNCTION void team_row(const Member& team, const std::int64_t i) const {
    const std::int64_t b = begin(i);
    const std::int64_t n = end(i, b) - b;
    const std::int64_t q = (n + 3) / 4;
    scalar sum = scalar();
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, q),
        [&](const std::int64_t k, scalar& partial) {
          partial += product(b + k);
          if (k + q < n) partial += product(b + k + q);
          if (k + 2 * q < n) partial += product(b + k + 2 * q);
          if (k + 3 * q < n) partial += product(b + k + 3 * q);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { store(i, sum); });
    // Kokkos 3.4's CUDA team reduction reuses its shared memory without a
    // closing barrier: a second reduction could overwrite it while slow
    // threads still read this one's result.
    team.team_barrier();
  }

  /// Row i (of begin b and end e) summed by the lanes of the calling worker
  /// from global memory, its first lane storing it (worker_sum.hpp: on an
  /// H200 lap2d:2000:9 took 0.272 ms against 0.317 with Kokkos' vector
  /// reduction, band:1000000:5 0.109 against 0.121). Lanes: the worker's
  /// lanes when known at compile time, else 0; LongRows: the row is known
  /// to be long (worker_sum.hpp).
  template <int Lanes = 0, bool LongRows = false, class Member>
  KOKKOS_INLINE_FUNCTION void worker_row(const Member& team, const std::int64_t i, const std::int64_t b,
                                         const std::int64_t e) const {
    // Zero-based range: every backend starts its lanes at the same place.
    const scalar sum =
        worker_sum<scalar, Lanes, LongRows>(team, e - b, [&](const std::int64_t k) { return product(b + k); });
    on_first_lane<Lanes>(team, [&]() { store(i, sum); });
  }
};

/// The rows left to SpmvListedRows and the end-point report, as kernels see
/// them. The list: [0] rows listed for a warp each, [1] rows listed for a
/// team each, [2] teams of SpmvListedRows done; then the warps' rows from
/// the front and the teams' rows from the back (every listed row is longer
/// than the warps' threshold, so both fit in room for that many).
template <class ExecSpace>
struct SpmvLists {
  Kokkos::View<unsigned long long*, typename ExecSpace::memory_space> list;
  Kokkos::View<std::int64_t*, typename ReportMemory<ExecSpace>::type> report;

  /// Row i goes to a warp (one lane of one worker calls this).
  KOKKOS_INLINE_FUNCTION void add_for_warp(const std::int64_t i) const {
    list(spmv_list_counters + Kokkos::atomic_fetch_add(&list(0), 1ull)) = static_cast<unsigned long long>(i);
  }
  /// Row i goes to a team.
  KOKKOS_INLINE_FUNCTION void add_for_team(const std::int64_t i) const {
    list(list.extent(0) - 1 - Kokkos::atomic_fetch_add(&list(1), 1ull)) = static_cast<unsigned long long>(i);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t warp_row(const std::int64_t k) const {
    return static_cast<std::int64_t>(list(spmv_list_counters + k));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t team_row(const std::int64_t k) const {
    return static_cast<std::int64_t>(list(list.extent(0) - 1 - k));
  }

  /// Whether op's row map ends where it must; if not, one thread of the
  /// team reports its end points. Every thread of the team gets the answer.
  template <class Member, class Operands>
  KOKKOS_INLINE_FUNCTION bool check(const Member& team, const Operands& op) const {
    if (op.ends_agree()) return true;
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      report(report_first) = static_cast<std::int64_t>(op.row_map(0));
      report(report_last) = static_cast<std::int64_t>(op.row_map(op.num_rows));
      report(report_bad) = 1;
    });
    return false;
  }
};

/// Lanes: the policy's vector length when fixed at compile time (one
/// instance per power of two on GPUs), else 0.
template <class ExecSpace, class Operands, int Lanes = 0>
struct SpmvRows {
  /// At most 32 registers a thread on CUDA (8 teams of 256 threads a
  /// multiprocessor): a worker's row is a chain of dependent loads, and
  /// only more resident warps hide their latency (38 registers, 75 %
  /// occupancy, without the bound).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                    Kokkos::LaunchBounds<row_mapping_threads_per_team, 8>>;
  using Member = typename Policy::member_type;

  Operands op;
  SpmvLists<ExecSpace> lists;
  int rows_per_worker = 1;
  std::int64_t medium_row = 0;  ///< longer rows are listed for a warp each
  std::int64_t long_row = 0;    ///< longer rows are listed for a team each

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!lists.check(team, op)) return;
    for_each_worker_row(team, op.num_rows, rows_per_worker, [&](const std::int64_t i) {
      const std::int64_t b = op.begin(i);
      const std::int64_t e = op.end(i, b);
      if (e - b > medium_row) {
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          if (e - b > long_row) lists.add_for_team(i);
          else lists.add_for_warp(i);
        });
        return;
      }
      op.template worker_row<Lanes>(team, i, b, e);
    });
  }
};

/// The listed rows: first those for a team each, teams striding over them,
/// then those for a warp each, the workers of every team striding over
/// them. The last team to finish clears the list's counters for the next
/// call.
template <class ExecSpace, class Operands, int Lanes = 0>
struct SpmvListedRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  Operands op;
  SpmvLists<ExecSpace> lists;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const auto for_warps = static_cast<std::int64_t>(lists.list(0));
    const auto for_teams = static_cast<std::int64_t>(lists.list(1));
    for (std::int64_t k = team.league_rank(); k < for_teams; k += team.league_size()) op.team_row(team, lists.team_row(k));
    const std::int64_t workers = static_cast<std::int64_t>(team.league_size()) * team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int w) {
      for (std::int64_t k = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + w; k < for_warps;
           k += workers) {
        const std::int64_t i = lists.warp_row(k);
        const std::int64_t b = op.begin(i);
        op.template worker_row<Lanes, true>(team, i, b, op.end(i, b));
      }
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      // Every team has read the counts before it counts itself done.
      const auto done = Kokkos::atomic_fetch_add(&lists.list(2), 1ull);
      if (done == static_cast<unsigned long long>(team.league_size() - 1)) {
        lists.list(0) = 0;
        lists.list(1) = 0;
        lists.list(2) = 0;
      }
    });
  }
};

template <class ExecSpace, class Operands>
struct SpmvTeamRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Operands op;
  SpmvLists<ExecSpace> lists;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!lists.check(team, op)) return;
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
