#pragma once
/// Puts the rows of B in A's order on GPUs, first step: every row of B is cut
/// into pieces of at most `piece` slots (a row no longer than that is one
/// piece) and every piece is ordered by rank: an entry's place in its piece
/// is the number of entries of the piece that come before it in A (smaller
/// position in A; positions are unique, so ranks are a permutation). No
/// sort, no atomics, the same result whatever order the slots were claimed in.
///
/// Team t takes the pieces that start in slots [t * window, (t + 1) * window):
/// a contiguous range of fewer than window + piece slots that no other team
/// touches. Windows of several pieces spread the cost of finding a window's
/// ends (two binary searches over B's row map) over more entries. It loads their sources into scratch, and each thread ranks a few
/// entries against their piece. Rows of one piece are finished here (column
/// indices and values written); the pieces of longer rows are written back
/// sorted, in place, for merge_long_rows.hpp to merge.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/search.hpp"

namespace gustav::detail {

template <class ExecSpace, class RowMapB, class Source, class SourceRow, class EntriesB, class ValuesB,
          class ValuesA>
struct OrderPieces {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Key = typename Source::value_type;
  using Row = typename SourceRow::value_type;

  RowMapB row_map;  ///< B's row map
  Source source;
  SourceRow source_row;
  EntriesB entries;
  ValuesB values;
  ValuesA a_values;
  std::int64_t num_rows = 0;  ///< of B
  std::int64_t nnz = 0;
  std::int64_t piece = 256;
  std::int64_t window = 1024;

  /// Scratch bytes of one team: keys and rows of up to window + piece slots.
  static std::size_t scratch_bytes(std::int64_t piece, std::int64_t window) {
    return static_cast<std::size_t>(window + piece) * (sizeof(Key) + sizeof(Row)) + 32;
  }

  /// The first slot at or after x that starts a piece (nnz if none).
  KOKKOS_INLINE_FUNCTION std::int64_t piece_start_from(std::int64_t x) const {
    if (x >= nnz) return nnz;
    const std::int64_t j = last_at_most(row_map, x, 0, num_rows - 1);
    const auto begin = static_cast<std::int64_t>(row_map(j));
    const auto end = static_cast<std::int64_t>(row_map(j + 1));
    if (x == begin) return x;
    if (end - begin <= piece) return end;
    const std::int64_t next = begin + (x - begin + piece - 1) / piece * piece;
    return next < end ? next : end;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Key* keys = static_cast<Key*>(team.team_scratch(0).get_shmem_aligned((window + piece) * sizeof(Key), 16));
    Row* rows = static_cast<Row*>(team.team_scratch(0).get_shmem_aligned((window + piece) * sizeof(Row), 16));
    const std::int64_t windows = (nnz + window - 1) / window;
    for (std::int64_t w = team.league_rank(); w < windows; w += team.league_size()) {
      const std::int64_t first = piece_start_from(w * window);
      const std::int64_t last = piece_start_from((w + 1) * window);
      const std::int64_t n = last - first;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const std::int64_t q) {
        keys[q] = source(first + q);
        rows[q] = source_row(first + q);
      });
      team.team_barrier();
      const std::int64_t first_row = n > 0 ? last_at_most(row_map, first, 0, num_rows - 1) : 0;
      const std::int64_t last_row = n > 0 ? last_at_most(row_map, last - 1, first_row, num_rows - 1) : 0;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const std::int64_t q) {
        const std::int64_t slot = first + q;
        const std::int64_t j = last_at_most(row_map, slot, first_row, last_row);
        const auto begin = static_cast<std::int64_t>(row_map(j));
        const auto end = static_cast<std::int64_t>(row_map(j + 1));
        const bool whole_row = end - begin <= piece;
        const std::int64_t piece_begin = whole_row ? begin : begin + (slot - begin) / piece * piece;
        const std::int64_t piece_end = whole_row || piece_begin + piece > end ? end : piece_begin + piece;
        const Key key = keys[q];
        std::int64_t rank = 0;
        for (std::int64_t r = piece_begin - first; r < piece_end - first; ++r) rank += keys[r] < key ? 1 : 0;
        const std::int64_t to = piece_begin + rank;
        if (whole_row) {
          entries(to) = rows[q];
          values(to) = a_values(key);
        } else {
          source(to) = key;
          source_row(to) = rows[q];
        }
      });
      // The next window reuses the scratch.
      team.team_barrier();
    }
  }
};

}  // namespace gustav::detail
