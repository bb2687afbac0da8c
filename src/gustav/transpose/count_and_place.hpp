#pragma once
/// The first two passes of the transpose B = A^T, both walking the rows of A
/// with the SpMV row mapping:
///
/// - counting: the entries of every column of A (the length of every row of
///   B), by atomic increments. The same walk checks each row's bounds and
///   column indices, so that a malformed A stops here instead of making the
///   next pass write out of bounds; the checks cost a comparison per entry.
/// - placing: every entry of A claims the next free slot of its row of B
///   through an atomic cursor and records where it came from (its position
///   and row in A). Slots are claimed in whatever order the threads run;
///   order_rows_host.hpp and order_pieces.hpp restore A's order afterwards.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/spmv/row_mapping.hpp"

namespace gustav::detail {

template <class ExecSpace, class Input, class Counts, class Flag>
struct CountColumns {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  decltype(Input::row_map) row_map;
  decltype(Input::entries) entries;
  Counts counts;  ///< counts(j + 1) += entries in column j
  Flag bad;       ///< set to 1 on a row outside [0, nnz] or a column outside [0, num_cols)
  std::int64_t num_rows = 0;
  std::int64_t num_cols = 0;
  std::int64_t nnz = 0;
  int rows_per_worker = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for_each_worker_row(team, num_rows, rows_per_worker, [&](const std::int64_t i) {
      const auto begin = static_cast<std::int64_t>(row_map(i));
      const auto end = static_cast<std::int64_t>(row_map(i + 1));
      // With row_map(0) = 0 and row_map(num_rows) = nnz (checked on the
      // host), rows that all satisfy begin <= end <= nnz form a monotone row map.
      if (begin < 0 || end < begin || end > nnz) {
        Kokkos::single(Kokkos::PerThread(team), [&]() { bad(0) = 1; });
        return;
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, end - begin), [&](const std::int64_t k) {
        const auto j = static_cast<std::int64_t>(entries(begin + k));
        if (j < 0 || j >= num_cols) {
          bad(0) = 1;
        } else {
          Kokkos::atomic_add(&counts(j + 1), typename Counts::value_type(1));
        }
      });
    });
  }
};

template <class ExecSpace, class Input, class Cursor, class Source, class SourceRow>
struct PlaceEntries {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  decltype(Input::row_map) row_map;
  decltype(Input::entries) entries;
  Cursor cursor;         ///< next free slot of every row of B (starts at B's row map)
  Source source;         ///< per slot of B: the entry's position in A
  SourceRow source_row;  ///< per slot of B: the entry's row in A
  std::int64_t num_rows = 0;
  int rows_per_worker = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for_each_worker_row(team, num_rows, rows_per_worker, [&](const std::int64_t i) {
      const auto begin = row_map(i);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, row_map(i + 1) - begin), [&](const auto k) {
        const auto p = begin + k;
        const auto slot = Kokkos::atomic_fetch_add(&cursor(entries(p)), typename Cursor::value_type(1));
        source(slot) = static_cast<typename Source::value_type>(p);
        source_row(slot) = static_cast<typename SourceRow::value_type>(i);
      });
    });
  }
};

}  // namespace gustav::detail
