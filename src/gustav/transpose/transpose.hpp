#pragma once
/// The transpose B = A^T behind gustav::transpose, in four steps:
///
/// 1. count the entries of every column of A, checking A's structure on the
///    way (count_and_place.hpp); a prefix sum makes B's row map;
/// 2. place every entry of A in a free slot of its row of B through atomic
///    cursors, remembering its position and row in A (count_and_place.hpp);
/// 3. put every row of B in A's order, which makes the result independent of
///    the order of step 2: on CPUs by sorting each row (order_rows_host.hpp),
///    on GPUs by ranking pieces of rows in scratch (order_pieces.hpp) and
///    merging the pieces of long rows (merge_long_rows.hpp);
/// 4. step 3 writes B's column indices (A's rows) and values as it goes.
///
/// B's rows come out sorted by column, and duplicate entries of A keep their
/// order of appearance: bit for bit the same B on every run and backend.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/compression/compressed_rows.hpp"  // counts_to_offsets
#include "gustav/errors.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/transpose/count_and_place.hpp"
#include "gustav/transpose/merge_long_rows.hpp"
#include "gustav/transpose/order_pieces.hpp"
#include "gustav/transpose/order_rows_host.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// How step 3 orders the rows of B. `automatic` sorts rows on CPUs and uses
/// pieces and merges on GPUs; tests force either anywhere.
enum class TransposeOrdering { automatic, sort_each_row, pieces_and_merges };

struct TransposeTuning {
  TransposeOrdering ordering = TransposeOrdering::automatic;
  /// Longest piece ranked in scratch. Ranking costs a piece's length per
  /// entry, merging a binary search per entry and level: 256 balances them.
  std::int64_t piece = 256;
};

/// Step 3 on GPUs (or when forced): pieces, then merge levels for rows
/// longer than a piece.
template <class ExecSpace, class RowMapB, class Source, class SourceRow, class EntriesB, class ValuesB,
          class ValuesA>
void order_by_pieces(const ExecSpace& space, const RowMapB& row_map, const Source& source,
                     const SourceRow& source_row, const EntriesB& entries, const ValuesB& values,
                     const ValuesA& a_values, std::int64_t num_rows, std::int64_t nnz, std::int64_t piece) {
  using Device = Kokkos::Device<ExecSpace, typename Source::memory_space>;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Pieces = OrderPieces<ExecSpace, RowMapB, Source, SourceRow, EntriesB, ValuesB, ValuesA>;
  using TeamPolicy = typename Pieces::Policy;

  // Windows of four pieces: about 1,000 slots, at most 20 KiB of scratch.
  Pieces pieces{row_map, source, source_row, entries, values, a_values, num_rows, nnz, piece, 4 * piece};
  const auto scratch = Kokkos::PerTeam(Pieces::scratch_bytes(pieces.piece, pieces.window));
  int team_size = is_host_space<ExecSpace>() ? 1 : 256;
  team_size = std::min(team_size, TeamPolicy(space, 1, 1).set_scratch_size(0, scratch).team_size_max(
                                      pieces, Kokkos::ParallelForTag()));
  const std::int64_t windows = ceil_div<std::int64_t>(nnz, pieces.window);
  const auto league = static_cast<int>(std::min<std::int64_t>(windows, std::int64_t(1) << 30));
  Kokkos::parallel_for("gustav::transpose::order_pieces",
                       TeamPolicy(space, league, team_size).set_scratch_size(0, scratch), pieces);

  using LongRows = Kokkos::View<std::int64_t*, Device>;
  std::int64_t count = 0;
  Kokkos::parallel_reduce("gustav::transpose::count_long_rows", Range(space, 0, num_rows),
                          CountLongRows<RowMapB>{row_map, piece}, count);
  if (count == 0) return;
  auto long_rows = allocate_view<LongRows>(space, "gustav::transpose::long_rows", count, false);
  Kokkos::parallel_scan("gustav::transpose::list_long_rows", Range(space, 0, num_rows),
                        ListLongRows<RowMapB, LongRows>{row_map, long_rows, piece});
  auto packed_offsets = allocate_view<LongRows>(space, "gustav::transpose::packed_offsets", count + 1, false);
  std::int64_t packed = 0;
  Kokkos::parallel_scan("gustav::transpose::pack_long_rows", Range(space, 0, count + 1),
                        PackLongRows<RowMapB, LongRows, LongRows>{row_map, long_rows, packed_offsets, count},
                        packed);
  std::int64_t longest = 0;
  Kokkos::parallel_reduce("gustav::transpose::longest_row", Range(space, 0, count),
                          LongestRow<LongRows>{packed_offsets}, Kokkos::Max<std::int64_t>(longest));

  // One level completes rows of up to 2 pieces; only longer rows need the
  // packed buffer to alternate with.
  const bool alternate = longest > 2 * piece;
  MergeLevel<RowMapB, LongRows, LongRows, Source, SourceRow, EntriesB, ValuesB, ValuesA> merge{
      row_map,
      long_rows,
      packed_offsets,
      source,
      source_row,
      allocate_view<Source>(space, "gustav::transpose::packed_source", alternate ? packed : 0, false),
      allocate_view<SourceRow>(space, "gustav::transpose::packed_row", alternate ? packed : 0, false),
      entries,
      values,
      a_values,
      count};
  for (std::int64_t run = piece; run < longest; run *= 2) {
    merge.run = run;
    Kokkos::parallel_for("gustav::transpose::merge_level", Range(space, 0, packed), merge);
    merge.from_packed = !merge.from_packed;
  }
}

/// Transposes A into newly allocated row_map (A.num_cols + 1 entries),
/// entries and values (nnz each). Throws invalid_input for a malformed A.
template <class ExecSpace, class Input, class RowMapB, class EntriesB, class ValuesB>
void transpose_impl(const ExecSpace& space, const Input& A, RowMapB& row_map, EntriesB& entries,
                    ValuesB& values, const char* who, const TransposeTuning& tuning = {}) {
  using Device = Kokkos::Device<ExecSpace, typename RowMapB::memory_space>;
  using Offset = typename RowMapB::value_type;
  using Ordinal = typename EntriesB::value_type;
  validate_csr(space, A, who, "A", true, false);
  const std::int64_t rows_b = A.num_cols;
  const std::int64_t nnz = A.nnz();
  row_map = allocate_view<RowMapB>(space, "gustav::transpose::row_map", rows_b + 1, true);
  entries = allocate_view<EntriesB>(space, "gustav::transpose::entries", nnz, false);
  values = allocate_view<ValuesB>(space, "gustav::transpose::values", nnz, false);
  if (A.num_rows == 0) return;

  // Step 1, with the structure checks that keep step 2 in bounds.
  using Flag = Kokkos::View<int*, Device>;
  auto bad = allocate_view<Flag>(space, "gustav::transpose::bad_structure", 1, true);
  RowMapping mapping = choose_row_mapping<ExecSpace>(A.num_rows, nnz);
  CountColumns<ExecSpace, Input, RowMapB, Flag> count{A.row_map, A.entries,  row_map, bad,
                                                      A.num_rows, A.num_cols, nnz,     mapping.rows_per_worker};
  Kokkos::parallel_for("gustav::transpose::count", row_policy(space, mapping, A.num_rows, count), count);
  if (read_element(space, bad, 0) != 0) {
    // The full checker names the first fault.
    validate_csr(space, A, who, "A", true, true);
    throw internal_error(std::string(who) + ": the structure check failed but validation found no fault");
  }
  if (nnz == 0) return;
  counts_to_offsets(space, row_map, "gustav::transpose::row_map_scan");

  // Step 2.
  using Source = Kokkos::View<Offset*, Device>;
  using SourceRow = Kokkos::View<Ordinal*, Device>;
  auto source = allocate_view<Source>(space, "gustav::transpose::source", nnz, false);
  auto source_row = allocate_view<SourceRow>(space, "gustav::transpose::source_row", nnz, false);
  {
    auto cursor = allocate_view<Source>(space, "gustav::transpose::cursor", rows_b, false);
    Kokkos::deep_copy(space, cursor, Kokkos::subview(row_map, std::make_pair(std::int64_t(0), rows_b)));
    PlaceEntries<ExecSpace, Input, Source, Source, SourceRow> place{
        A.row_map, A.entries, cursor, source, source_row, A.num_rows, mapping.rows_per_worker};
    Kokkos::parallel_for("gustav::transpose::place", row_policy(space, mapping, A.num_rows, place), place);
  }

  // Steps 3 and 4.
  const bool sort_rows = tuning.ordering == TransposeOrdering::sort_each_row ||
                         (tuning.ordering == TransposeOrdering::automatic && is_host_space<ExecSpace>());
  if (sort_rows) {
    Kokkos::parallel_for(
        "gustav::transpose::sort_rows",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>(
            space, 0, rows_b),
        SortEachRow<RowMapB, Source, SourceRow, EntriesB, ValuesB, decltype(A.values)>{
            row_map, source, source_row, entries, values, A.values});
  } else {
    order_by_pieces(space, row_map, source, source_row, entries, values, A.values, rows_b, nnz,
                    std::max<std::int64_t>(1, tuning.piece));
  }
}

}  // namespace gustav::detail
