#pragma once
/// How a kernel that walks the rows of a CSR matrix one row per worker
/// spreads them over teams, workers and vector lanes, chosen from the
/// average row length: short rows get few lanes and several rows per worker,
/// long rows a full warp of 32 lanes. SpMV and the transpose's counting and
/// placing passes walk rows this way. On GPUs SpMV (choose_spmv_mapping)
/// picks its own lanes and rows per worker, hands rows several rounds
/// longer than their worker's lanes to a warp each (medium_row) and rows
/// far longer than the average to a team each (long_row), and gives every
/// row a team when the average row is itself that long (team_per_row).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gustav/common/launch.hpp"

namespace gustav::detail {

struct RowMapping {
  int vector_length = 1;    ///< lanes sharing one row
  int team_size = 1;        ///< workers per team
  int rows_per_worker = 1;  ///< rows each worker takes, one per round
  bool team_per_row = false;  ///< SpMV: every row summed by a whole team
  /// SpMV with a worker per row: rows longer than this are summed by a whole
  /// team instead (the largest value: none are).
  std::int64_t long_row = std::numeric_limits<std::int64_t>::max();
  /// SpMV: rows longer than this (and at most long_row) are summed by a
  /// warp of 32 lanes each instead of their worker (the largest value:
  /// none are).
  std::int64_t medium_row = std::numeric_limits<std::int64_t>::max();
  /// SpMV: rows per team of the streaming kernel (stream_rows.hpp), whose
  /// teams compute their block's products into scratch first; 0: not used.
  std::int64_t stream_rows = 0;
  /// SpMV: products a streaming team's scratch holds (for a scalar of 8
  /// bytes; wider ones get fewer rows per team).
  std::int64_t stream_products = 0;
};

/// GPU teams are one block of this many threads, whatever the lanes per row.
constexpr int row_mapping_threads_per_team = 256;
/// On GPUs a worker takes rows until its lanes have about this many entries
/// each: enough to amortise the row's reduction and index arithmetic, few
/// enough to keep every multiprocessor busy.
constexpr double row_mapping_entries_per_lane = 4.0;
constexpr int row_mapping_max_rows_per_worker = 8;
/// On CPUs a team is one thread and its rows are one chunk of the dynamic
/// schedule: about this many entries, so that taking a chunk costs little
/// next to working through it.
constexpr double row_mapping_entries_per_chunk = 1024.0;
constexpr int row_mapping_max_rows_per_chunk = 1024;
/// On GPUs a row of this many entries keeps a warp busy for 32 rounds or
/// more: rows this long on average get a team each.
constexpr double row_mapping_team_row = 1024.0;
/// On GPUs SpMV gives a row to a team of its own when it is more than 16
/// times the average row (and past spmv_long_row_min below): a few such
/// rows (the hubs of a power-law matrix) would otherwise hold up a warp.
constexpr double row_mapping_long_row_over_average = 16.0;

/// The mapping for a matrix of `num_rows` rows and `nnz` entries on ExecSpace.
template <class ExecSpace>
RowMapping choose_row_mapping(std::int64_t num_rows, std::int64_t nnz) {
  const double avg = num_rows > 0 ? static_cast<double>(nnz) / static_cast<double>(num_rows) : 0.0;
  const double at_least_one = std::max(avg, 1.0);
  RowMapping m;
  if constexpr (is_host_space<ExecSpace>()) {
    const double rows = row_mapping_entries_per_chunk / at_least_one;
    m.rows_per_worker = static_cast<int>(std::clamp(rows, 1.0, double(row_mapping_max_rows_per_chunk)));
  } else {
    m.vector_length = vector_length_for<ExecSpace>(avg);
    m.team_size = row_mapping_threads_per_team / m.vector_length;
    const double rows = row_mapping_entries_per_lane * m.vector_length / at_least_one;
    m.rows_per_worker = static_cast<int>(std::clamp(rows, 1.0, double(row_mapping_max_rows_per_worker)));
    m.team_per_row = avg >= row_mapping_team_row;
  }
  return m;
}

/// SpMV on GPUs, measured on an H200 (lap3d:120, lap2d:2000:9, band,
/// er:1000000:8, R-MAT, ca-HepPh, ia-wikiquote, delaunay_n16, bcsstk16):
/// short rows run fastest with about four entries per lane (lap2d:2000:9
/// took 0.27 ms on 2 lanes, 0.39 on 4), rows of 16 entries or more with
/// about two (bcsstk16: 0.020 ms on 32 lanes, 0.022 on 8). A worker takes
/// rows until its lanes have about 6 entries each (lap3d:120: 0.106 ms
/// with 2 rows a worker, 0.135 with 1; power-law rows run best with one,
/// ca-HepPh 0.028 ms against 0.031 with 3). A row longer than 8 rounds of
/// its worker's lanes goes to a warp of its own, one longer than 32 rounds
/// of a warp to a team, so that no worker waits on a long row while its
/// neighbours are done (rmat:20:2 took 0.19 ms with rows of up to 128
/// entries on 2 lanes, 0.11 with rows past 16 on warps).
constexpr double spmv_short_row = 16.0;
constexpr double spmv_entries_per_short_lane = 4.0;
constexpr double spmv_entries_per_long_lane = 2.0;
constexpr double spmv_entries_per_lane_and_worker = 6.0;
constexpr double spmv_medium_row_rounds = 8.0;
constexpr double spmv_medium_row_min = 16.0;
constexpr double spmv_long_row_min = 32.0 * 32.0;

/// SpMV on GPUs streams matrices of at least 50,000 rows shorter than 32
/// entries on average (stream_rows.hpp): a team of 256 threads takes a row
/// per thread, or more where rows are shorter than 8 entries, else about 8
/// entries per thread; its scratch holds 1.25 times the entries it expects
/// and 64 more; rows longer than 3 times the average (16 at least) are
/// listed. H200, against SpmvRows: lap3d:120 0.105 -> 0.094 ms, lap2d:2000:9
/// 0.253 -> 0.203, band:1000000:5 0.101 -> 0.080, lap3d:80:27 0.115 ->
/// 0.090, er:1000000:8 0.146 -> 0.123. Smaller matrices ran slower
/// streamed (ia-wikiquote-user-edits, 21,607 rows: 0.028 -> 0.031; ca-HepPh
/// 0.024 -> 0.027): their blocks leave too few teams.
constexpr std::int64_t spmv_stream_min_matrix_rows = 50000;
constexpr double spmv_stream_average = 32.0;
constexpr double spmv_stream_entries_per_thread = 8.0;
constexpr double spmv_stream_room = 1.25;
constexpr std::int64_t spmv_stream_spare_products = 64;
constexpr double spmv_stream_medium_over_average = 3.0;

/// The SpMV mapping for a matrix of `num_rows` rows and `nnz` entries on
/// ExecSpace: choose_row_mapping's, with the lanes, rows per worker and
/// row tiers of SpMV on GPUs.
template <class ExecSpace>
RowMapping choose_spmv_mapping(std::int64_t num_rows, std::int64_t nnz) {
  RowMapping m = choose_row_mapping<ExecSpace>(num_rows, nnz);
  if constexpr (!is_host_space<ExecSpace>()) {
    const double avg = num_rows > 0 ? static_cast<double>(nnz) / static_cast<double>(num_rows) : 0.0;
    const double per_lane = avg < spmv_short_row ? spmv_entries_per_short_lane : spmv_entries_per_long_lane;
    int lanes = 1;
    while (lanes < 32 && per_lane * (2 * lanes) <= avg + 2.0) lanes *= 2;
    m.vector_length = lanes;
    m.team_size = row_mapping_threads_per_team / lanes;
    const double rows = std::round(spmv_entries_per_lane_and_worker * lanes / std::max(avg, 1.0));
    m.rows_per_worker = static_cast<int>(std::clamp(rows, 1.0, double(row_mapping_max_rows_per_worker)));
    m.long_row = static_cast<std::int64_t>(std::max(spmv_long_row_min, row_mapping_long_row_over_average * avg));
    m.medium_row = lanes < 32 ? static_cast<std::int64_t>(std::max(spmv_medium_row_rounds * lanes, spmv_medium_row_min))
                              : m.long_row;
    if (num_rows >= spmv_stream_min_matrix_rows && avg < spmv_stream_average) {
      m.vector_length = 1;
      m.team_size = row_mapping_threads_per_team;
      m.rows_per_worker = 1;
      // Threads without a row idle while the others sum theirs: at least a
      // row per thread, more where rows are short.
      const double ept = spmv_stream_entries_per_thread;
      const double per_thread = avg <= ept ? std::max(1.0, std::round(ept / std::max(avg, 1.0))) : ept / avg;
      m.stream_rows = static_cast<std::int64_t>(std::round(row_mapping_threads_per_team * per_thread));
      const auto expected = static_cast<std::int64_t>(std::ceil(spmv_stream_room * m.stream_rows * avg));
      m.stream_products = (expected + spmv_stream_spare_products + 31) / 32 * 32;
      m.medium_row = static_cast<std::int64_t>(std::max(spmv_medium_row_min, spmv_stream_medium_over_average * avg));
    }
  }
  return m;
}

/// Calls f(row) for every row the calling worker owns. A team's rows come in
/// rounds of team_size consecutive rows, worker w taking the w-th of each
/// round, so that neighbouring workers read neighbouring rows; teams stride
/// over blocks of rounds when the league is capped.
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void for_each_worker_row(const Member& team, std::int64_t num_rows, int rows_per_worker,
                                                const F& f) {
  const std::int64_t workers = team.team_size();
  const std::int64_t block_rows = workers * rows_per_worker;
  for (std::int64_t block = team.league_rank(); block * block_rows < num_rows; block += team.league_size()) {
    for (int round = 0; round < rows_per_worker; ++round) {
      const std::int64_t row = block * block_rows + round * workers + team.team_rank();
      if (row >= num_rows) break;
      f(row);
    }
  }
}

/// The team policy (of type Policy) for `functor` under mapping `m`
/// (whose team size is lowered to what the functor allows).
template <class ExecSpace, class Functor, class Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>>
Policy row_policy(const ExecSpace& space, RowMapping& m, std::int64_t num_rows, const Functor& functor) {
  const int allowed = Policy(space, 1, 1, m.vector_length).team_size_max(functor, Kokkos::ParallelForTag());
  m.team_size = std::max(1, std::min(m.team_size, allowed));
  const std::int64_t block_rows = std::int64_t(m.team_size) * m.rows_per_worker;
  const std::int64_t blocks = std::max<std::int64_t>(1, ceil_div<std::int64_t>(num_rows, block_rows));
  const auto league = static_cast<int>(std::min<std::int64_t>(blocks, std::numeric_limits<int>::max()));
  return Policy(space, league, m.team_size, m.vector_length);
}

}  // namespace gustav::detail
