#pragma once
/// Groups the rows of A by bin: a permutation in which the rows of bin b
/// follow those of bins < b. One kernel: each team reserves a run of
/// positions in every bin with one atomic per bin and writes its chunk's
/// rows there in row order. Bin offsets are
/// prefix sums of the counts the previous kernel left in the summary, taken
/// by each team itself, so nothing goes through the host.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

template <class ExecSpace, class RowBinView, class PermView, class Summary>
struct ScatterRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;

  RowBinView row_bin;
  PermView perm;            ///< rows of bins [first_bin, bins), grouped
  Summary summary;
  int counts_slot = 0;      ///< summary slot of bin 0's row count
  int cursors_slot = 0;     ///< summary slot of bin 0's cursor (zero before the kernel)
  int first_bin = 0;        ///< bins below are not placed (their rows are done)
  int bins = 0;
  std::int64_t rows = 0;
  std::int64_t rows_per_team = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // Each thread takes a contiguous stretch of the team's chunk; a team
    // scan per bin places the stretches one after another and reserves the
    // team's run in the bin with one atomic (team_scan's global total).
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < rows ? first + rows_per_team : rows;
    const std::int64_t n = last > first ? last - first : 0;
    const std::int64_t per_thread = (n + team.team_size() - 1) / team.team_size();
    const std::int64_t s0 = first + per_thread * team.team_rank();
    const std::int64_t s1 = s0 + per_thread < last ? s0 + per_thread : last;
    std::int64_t bin_offset = 0;
    for (int b = first_bin; b < bins; ++b) {
      // Most products fill two or three bins: an empty bin costs no pass
      // over the team's rows and no scan (the count is the same for all).
      // (More teams, of 4 rows a thread, were slower: 0.26 -> 0.78 ms on a
      // million rows, the teams' atomics on the bins' cursors queueing.)
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
