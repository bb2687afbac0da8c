#pragma once
/// Groups the rows of A by bin: a permutation in which the rows of bin b
/// follow those of bins < b. One kernel over chunks of rows; within a bin,
/// each chunk's rows keep their order (so neighbouring workers of a bin
/// kernel take neighbouring rows of A and C), while the chunks themselves
/// are placed in the order their atomics land. Bin offsets are prefix sums
/// of the counts the previous kernel left in the summary, taken by each
/// team itself, so nothing goes through the host.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

template <class ExecSpace, class RowBinView, class PermView, class Summary>
struct ScatterRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  /// Rows per thread: a team takes team_size * rows_per_thread rows.
  static constexpr int rows_per_thread = 16;

  RowBinView row_bin;
  PermView perm;            ///< rows of bins [first_bin, bins), grouped
  Summary summary;
  int counts_slot = 0;      ///< summary slot of bin 0's row count
  int cursors_slot = 0;     ///< summary slot of bin 0's cursor (zero before the kernel)
  int first_bin = 0;        ///< bins below are not placed (their rows are done)
  int bins = 0;
  std::int64_t rows = 0;
  std::int64_t rows_per_team = 0;  ///< team_size * rows_per_thread

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
#if defined(__CUDA_ARCH__)
    // A whole number of warps (vector length 1: a warp is 32 consecutive
    // team ranks) places its rows with ballots; anything else, the scans.
    if (team.team_size() % 32 == 0 && rows_per_team == std::int64_t(team.team_size()) * rows_per_thread) {
      place_by_warp(team);
      return;
    }
#endif
    place_by_thread(team);
  }

#if defined(__CUDA_ARCH__)
  /// Each warp takes 32 * rows_per_thread consecutive rows and keeps their
  /// bins in registers; per bin it counts its rows with ballots, one thread
  /// per bin turns the warps' counts into offsets and reserves the team's
  /// run with one atomic, and each warp writes its rows in order. The
  /// team-scan version below spent four fifths of its time waiting at the
  /// barriers of its scans (0.47 ms on four million rows in one bin); a
  /// reservation per warp, with Kokkos' signed 64-bit atomic (a
  /// compare-and-swap loop), tripled lap2d:2000:9's symbolic time.
  __device__ void place_by_warp(const Member& team) const {
    constexpr unsigned all_lanes = 0xffffffffu;
    const int lane = team.team_rank() & 31;
    const int warp = team.team_rank() >> 5;
    const int warps = team.team_size() >> 5;
    std::int64_t* at = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(scratch_bytes(team.team_size())));
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team +
                               static_cast<std::int64_t>(warp) * 32 * rows_per_thread;
    std::uint8_t bin_of[rows_per_thread];
#pragma unroll
    for (int k = 0; k < rows_per_thread; ++k) {
      const std::int64_t r = first + 32 * k + lane;
      bin_of[k] = r < rows ? row_bin(r) : no_bin;
    }
    for (int b = first_bin; b < bins; ++b) {
      if (summary(counts_slot + b) == 0) continue;
      int mine = 0;
#pragma unroll
      for (int k = 0; k < rows_per_thread; ++k) mine += __popc(__ballot_sync(all_lanes, bin_of[k] == b));
      if (lane == 0) at[warp * max_row_bins + b] = mine;
    }
    team.team_barrier();
    const int b = first_bin + team.team_rank();
    if (b < bins && summary(counts_slot + b) > 0) {
      std::int64_t bin_offset = 0;  // rows of the bins before b
      for (int e = first_bin; e < b; ++e) bin_offset += summary(counts_slot + e);
      std::int64_t team_rows = 0;
      for (int w = 0; w < warps; ++w) team_rows += at[w * max_row_bins + b];
      std::int64_t next = bin_offset;
      if (team_rows > 0) next += fetch_add_count(&summary(cursors_slot + b), team_rows);
      for (int w = 0; w < warps; ++w) {
        const std::int64_t n = at[w * max_row_bins + b];
        at[w * max_row_bins + b] = next;
        next += n;
      }
    }
    team.team_barrier();
    const unsigned lower_lanes = (1u << lane) - 1u;
    for (int b = first_bin; b < bins; ++b) {
      if (summary(counts_slot + b) == 0) continue;
      std::int64_t next = at[warp * max_row_bins + b];
#pragma unroll
      for (int k = 0; k < rows_per_thread; ++k) {
        const bool in = bin_of[k] == b;
        const unsigned mask = __ballot_sync(all_lanes, in);
        if (in)
          perm(next + __popc(mask & lower_lanes)) = static_cast<typename PermView::value_type>(first + 32 * k + lane);
        next += __popc(mask);
      }
    }
  }
#endif

  /// Team scratch of place_by_warp: a count, then an offset, per warp and bin.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int team_size) {
    return static_cast<std::size_t>((team_size + 31) / 32) * max_row_bins * sizeof(std::int64_t);
  }

  /// Each thread takes a contiguous stretch of the team's chunk; a team
  /// scan per bin places the stretches one after another and reserves the
  /// team's run in the bin with one atomic (team_scan's global total).
  KOKKOS_INLINE_FUNCTION void place_by_thread(const Member& team) const {
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < rows ? first + rows_per_team : rows;
    const std::int64_t n = last > first ? last - first : 0;
    const std::int64_t per_thread = (n + team.team_size() - 1) / team.team_size();
    const std::int64_t s0 = first + per_thread * team.team_rank();
    const std::int64_t s1 = s0 + per_thread < last ? s0 + per_thread : last;
    std::int64_t bin_offset = 0;
    for (int b = first_bin; b < bins; ++b) {
      // An empty bin costs no pass over the team's rows and no scan (the
      // count is the same for all).
      if (summary(counts_slot + b) == 0) continue;
      std::int64_t mine = 0;
      for (std::int64_t r = s0; r < s1; ++r) mine += row_bin(r) == b ? 1 : 0;
      const std::int64_t before = team.team_scan(mine, &summary(cursors_slot + b));
      // team_scan's buffer is reused by the next bin's scan.
      team.team_barrier();
      std::int64_t at = bin_offset + before;
      for (std::int64_t r = s0; r < s1; ++r)
        if (row_bin(r) == b) perm(at++) = static_cast<typename PermView::value_type>(r);
      bin_offset += summary(counts_slot + b);
    }
  }
};

}  // namespace gustav::detail
