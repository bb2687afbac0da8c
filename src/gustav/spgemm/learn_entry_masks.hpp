#pragma once
/// How a plan's first numeric call on the hierarchical mapping (GPUs)
/// learns its masked bins' entries' masks (entry_masks.hpp,
/// learned_masks.hpp) while it sums, so that later calls sum from the masks
/// (sum_entry_masks.hpp) and gustav::symbolic records nothing (recording
/// there made it 1.3 to 2.6 times longer, H100 and H200, 2026-12-05, for
/// plans that may never be reused). Two ways, by the rows of B's length:
///
/// - Short rows of B (a worker of at most `learn_in_table_lanes_min / 2`
///   lanes): LearnEntryMasks below. A worker per row of C, as in the masked
///   sum: the row's columns go to scratch; the lanes copy up to one entry
///   each of the row's entries of A; then, entry by entry, lane t takes the
///   t-th entry of the entry's row of B, finds its column's position in the
///   row of C by a binary search in scratch, adds the product there in a
///   window of the row's values, and sets the position's bit in the entry's
///   words. Rows of C of one word OR the lanes' bits in a reduction across
///   the lanes (an atomic OR into one word from every lane of an entry ran
///   one lane after the other); wider rows keep the atomic OR. B's rows
///   strictly increase (size_entry_masks checks it first), so an entry's
///   lanes add at distinct positions. (Checking the order in this kernel
///   instead raced on a repeated column, whose two lanes added at one
///   position before the call was summed again: compute-sanitizer's
///   racecheck reported it.)
/// - Longer rows of B: the default path's kernels (accumulate_rows.hpp),
///   each product ORing its bit into the zeroed words in global memory as
///   it finds its position in the row's table. Entry by entry, the rows'
///   steps wait on each other; the default path spreads a row's products
///   over the lanes whatever the entries. H100, 2026-12-06, first numeric
///   call ms (default path before; entry by entry; default path recording):
///   band:1000000:5 1.45-1.54; 3.15-3.23; 2.36-2.70, lap2d:2000:9 4.94-4.98;
///   9.91-10.19; 7.36-7.63; but lap3d:120 1.94-2.07; 2.39-2.60; 3.52-3.75
///   and er:1000000:8 2.87; 3.30-3.41; 4.22-4.51, whose few products an
///   entry made the global ORs the cost.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/spgemm/sum_entry_masks.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

/// Masks whose workers take this many lanes or more (rows of B of more
/// than half of it on average: mask_lanes_for) are learned by the default
/// path's kernels.
constexpr int learn_in_table_lanes_min = 16;

template <class ExecSpace, class Types, class CRowMap, class CEntries, class CValues, int Words>
struct LearnEntryMasks {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Masks = EntryMasks<Device>;
  using Word = typename Masks::Word;
  using Scalar = typename Types::scalar_type;
  using Ordinal = typename Types::ordinal_type;
  using Index = std::uint32_t;  // offsets into B: masks are kept only where B has fewer than 2^32 entries

  Kokkos::View<const Word*, Device> start;
  Kokkos::View<Word*, Device> words;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CEntries c_entries;
  CValues c_values;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  ErrorFlag<Device> errors;
  int lanes = 1;
  int window = 32;  ///< the bin's longest row of C

  using Scratch = MaskedWorkerScratch<Scalar, Ordinal, Index, Word, Words, true>;
  KOKKOS_INLINE_FUNCTION std::size_t scratch_bytes(int team_size) const {
    return static_cast<std::size_t>(team_size) * Scratch::worker_bytes(lanes, window);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    char* const base = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(team.team_size())));
    Carver carver(base + static_cast<std::size_t>(team.team_rank()) * Scratch::worker_bytes(lanes, window));
    const Scratch s = Scratch::carve(carver, lanes, window);
    int bits = 0;  // this lane's
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t need = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      std::int64_t a0, a1;
      if (!ops.a_row(i, a0, a1)) bits |= error_bad_a;
      const int width = static_cast<int>(mask_words_for(need));
      const std::int64_t m0 = static_cast<std::int64_t>(start(i));
      // The masks were sized from this call's A and C; a row past them or
      // past the bin's window would be a sizing fault: it is skipped.
      if (need > window || width > Words || (a1 - a0) * width > static_cast<std::int64_t>(start(i + 1)) - m0) {
        bits |= error_table_full;
        return;
      }
      const auto column_at = [&](const std::int64_t q) { return s.columns[q]; };
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, need), [&](const std::int64_t p) {
        s.columns[p] = c_entries(c0 + p);
        s.row[p] = Scalar();
      });
      for (std::int64_t first = a0; first < a1; first += lanes) {
        const int m = a1 - first < lanes ? static_cast<int>(a1 - first) : lanes;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int q) {
          std::int64_t b0 = 0, b1 = 0;
          if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + q)), b0, b1)) bits |= error_bad_a;
          s.begin[q] = static_cast<Index>(b0);
          s.count[q] = static_cast<Index>(b1 - b0);
          s.a_value[q] = Scalar(ops.a_values(first + q));
          for (int k = 0; k < Words; ++k) s.mask[q * Words + k] = Word(0);
        });
        for (int q = 0; q < m; ++q) {
          const Scalar a = s.a_value[q];
          const std::int64_t b0 = static_cast<std::int64_t>(s.begin[q]);
          Word* const mask = s.mask + q * Words;
          // Position of product t in the row (adding it there), or -1.
          const auto place = [&](const int t) -> std::int64_t {
            const Ordinal col = ops.b_entries(b0 + t);
            if (!ops.column_ok(col)) {
              bits |= error_bad_b;
              return -1;
            }
            const std::int64_t at = find_sorted(column_at, 0, need, col);
            if (at < 0) {
              bits |= error_structure_changed;
              return -1;
            }
            s.row[at] += a * Scalar(ops.b_values(b0 + t));
            return at;
          };
          const int count = static_cast<int>(s.count[q]);
          if constexpr (Words == 1) {
            Word word = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, count),
                [&](const int t, Word& set) {
                  const std::int64_t at = place(t);
                  if (at >= 0) set |= Word(1) << (at & 31);
                },
                Kokkos::BOr<Word>(word));
            // One lane stores the result every lane holds (the vector
            // loop ends with the lanes synchronised).
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 1), [&](const int) { mask[0] = word; });
          } else {
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, count), [&](const int t) {
              const std::int64_t at = place(t);
              if (at >= 0) Kokkos::atomic_fetch_or(mask + (at >> 5), Word(1) << (at & 31));
            });
          }
        }
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int q) {
          const std::int64_t at = m0 + (first + q - a0) * width;
          for (int k = 0; k < width; ++k) words(at + k) = s.mask[q * Words + k];
        });
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, need),
                           [&](const std::int64_t p) { c_values(c0 + p) = s.row[p]; });
    });
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }
};

/// Sums the rows `rows` of one masked bin into `c_values` and records
/// their masks into `masks` (sized by size_entry_masks).
template <class Types, class ExecSpace, class CRowMap, class CEntries, class CValues>
void learn_entry_masks(const ExecSpace& space, const EntryMasks<typename Types::device_type>& masks, const RowBin& bin,
                       const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CEntries& c_entries,
                       const CValues& c_values, const RowList<Types>& rows, std::int64_t n,
                       const ErrorFlag<typename Types::device_type>& errors, const std::string& name) {
  using Masks = EntryMasks<typename Types::device_type>;
  const std::int64_t most = masked_bin_window(bin, Masks::max_row);
  with_mask_words<Masks::max_words>(most, [&](auto words_constant) {
    using Learn = LearnEntryMasks<ExecSpace, Types, CRowMap, CEntries, CValues, decltype(words_constant)::value>;
    Learn f;
    f.start = masks.start;
    f.words = masks.words;
    f.ops = ops;
    f.c_row_map = c_row_map;
    f.c_entries = c_entries;
    f.c_values = c_values;
    f.rows = rows;
    f.num_rows = n;
    f.errors = errors;
    f.window = static_cast<int>(most);
    f.lanes = is_host_space<ExecSpace>() ? 1 : masks.lanes;
    launch_teams_on<Kokkos::TeamPolicy<ExecSpace>>(
        space, name, f, masked_team_size<ExecSpace>(f), f.lanes,
        [&](int size) { return looping_league(space, (n + size - 1) / size, size * f.lanes); },
        [&](int size) { return f.scratch_bytes(size); });
  });
}

}  // namespace gustav::detail
