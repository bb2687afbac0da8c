#pragma once
/// The symbolic phase's last step for a plan that keeps the entries' masks
/// (entry_masks.hpp): once C's sorted structure is known, every entry of A
/// in the masked bins' rows marks, for each column of its row of B, the
/// position of that column in its row of C (a binary search in the row).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/sum_entry_masks.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

/// Whether a numeric bin's rows are summed from masks: every row of C in
/// it has at most EntryMasks::max_row entries.
inline bool bin_takes_masks(const RowBin& bin, std::int64_t max_row) {
  if (bin.level == RowLevel::tiny) return true;  // at most tiny_products entries
  return bin.level == RowLevel::worker && bin.max_need <= max_row;
}

/// Each worker takes a row, its lanes the row's entries of A: a lane walks
/// its entry's row of B, finds each column's position in the row of C and
/// sets its bit, then stores the entry's words.
template <class ExecSpace, class Types, class CRowMap, class CEntries>
struct RecordEntryMasks {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Masks = EntryMasks<Device>;
  using Word = typename Masks::Word;
  Kokkos::View<const Word*, Device> start;
  Kokkos::View<Word*, Device> words;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CEntries c_entries;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  ErrorFlag<Device> errors;

  using Ordinal = typename Types::ordinal_type;
  /// A worker's copy of its row of C (at most EntryMasks::max_row columns).
  KOKKOS_INLINE_FUNCTION static std::size_t worker_bytes() { return Masks::max_row * sizeof(Ordinal); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Ordinal* const row = static_cast<Ordinal*>(team.team_scratch(0).get_shmem(team.team_size() * worker_bytes())) +
                         static_cast<std::size_t>(team.team_rank()) * Masks::max_row;
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const int need = static_cast<int>(static_cast<std::int64_t>(c_row_map(i + 1)) - c0);
      const std::int64_t width = mask_words_for(need);
      const std::int64_t m0 = static_cast<std::int64_t>(start(i));
      std::int64_t a0, a1;
      bool bad = !ops.a_row(i, a0, a1), lost = false;
      // The row's columns in scratch: each product's search then reads
      // shared memory, not global (on an H100 the searches in C's row in
      // global memory doubled gustav::symbolic's time on er:1000000:8).
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, need), [&](const int q) { row[q] = c_entries(c0 + q); });
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, a0, a1), [&](const std::int64_t j) {
        Word mask[Masks::max_words] = {};
        std::int64_t b0, b1;
        if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bad = true;
        const auto row_at = [row](const std::int64_t q) { return row[q]; };
        std::int64_t lo = 0;  // B's row is increasing: each column lies past the last
        for (std::int64_t p = b0; p < b1; ++p) {
          const std::int64_t q = find_sorted(row_at, lo, need, ops.b_entries(p));
          if (q < 0) {
            lost = true;
            continue;
          }
          mask[q >> 5] |= Word(1) << (q & 31);
          lo = q + 1;
        }
        for (std::int64_t s = 0; s < width; ++s) words(m0 + (j - a0) * width + s) = mask[s];
      });
      if (bad) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_bad_b));
      if (lost) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_structure_changed));
    });
  }
};

/// The masks' arrays for the schedule's masked bins (bins of rows of C of
/// up to EntryMasks::max_row entries): each row's first word in `start`
/// and room for every word in `words`, the words not yet written and the
/// masks not yet kept (`zero_words`: the words start at zero, for callers
/// that OR the bits in). Returns masks with no words where they do not
/// apply (with `check_b_order`, B's rows not strictly increasing, for
/// callers that do not check it themselves; more than
/// max_words_per_product words; B's entries or the words beyond 32-bit
/// counts; or no room within the budget); what it allocated is then
/// released. Reads the words' total back (a wait).
///
/// One scan gives every row its words: a row of C of at most the masked
/// bins' widest `need` entries takes ceil(need / 32) a entry of A. The
/// bins split the rows by `need` (the tiny bin's rows have fewer entries
/// than any worker bin's), so that covers every masked row; the rows it
/// covers beyond them (rows of the long bin whose products collapse into
/// few entries) reserve words the sums never read. One launch, against a
/// zeroed start, a launch per bin for the widths and the scan.
template <class Types, class ExecSpace, class Schedule, class CRowMap>
EntryMasks<typename Types::device_type> size_entry_masks(const ExecSpace& space, const Schedule& schedule,
                                                         const ProductOperands<Types>& ops, const CRowMap& c_row_map,
                                                         std::int64_t a_rows, std::int64_t products,
                                                         TempMemory& temp, const char* label, bool check_b_order,
                                                         bool zero_words) {
  using Masks = EntryMasks<typename Types::device_type>;
  using Word = typename Masks::Word;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const std::string prefix = std::string(label) + "::masks::";
  Masks masks;
  masks.bins.assign(schedule.bins.size(), 0);
  std::int64_t masked_rows = 0, widest = 0;
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) {
    const std::int64_t n = schedule.offsets[b + 1] - schedule.offsets[b];
    const RowBin& bin = schedule.bins[b];
    if (n > 0 && bin_takes_masks(bin, Masks::max_row)) {
      masks.bins[b] = 1;
      masked_rows += n;
      widest = std::max(widest, bin.level == RowLevel::tiny ? tiny_products : bin.max_need);
    }
  }
  // The numeric phase copies offsets into B in 32 bits.
  if (masked_rows == 0 || products == 0 || ops.b_nnz >= Masks::max_count) return Masks{};
  if (check_b_order && !b_rows_increasing<Types>(space, ops, (prefix + "b_order").c_str())) return Masks{};
  const std::size_t start_bytes = static_cast<std::size_t>(a_rows + 1) * sizeof(Word);
  if (start_bytes > temp.room()) return Masks{};
  masks.start =
      temp.allocate<decltype(masks.start)>(space, prefix + "start", static_cast<std::size_t>(a_rows) + 1, false);
  const auto start = masks.start;
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      (prefix + "start").c_str(), light_launch(Range(space, 0, a_rows + 1)),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        std::int64_t width = 0;
        if (i < a_rows) {
          const std::int64_t need =
              static_cast<std::int64_t>(c_row_map(i + 1)) - static_cast<std::int64_t>(c_row_map(i));
          std::int64_t a0, a1;
          if (need <= widest && ops.a_row(i, a0, a1)) width = (a1 - a0) * mask_words_for(need);
        }
        // Saturated: a total past 32 bits is refused below.
        if (final) start(i) = static_cast<Word>(sum < Masks::max_count ? sum : Masks::max_count);
        sum += width;
      },
      total);
  const bool fits = total > 0 && total < Masks::max_count &&
                    static_cast<double>(total) <= Masks::max_words_per_product * static_cast<double>(products) &&
                    static_cast<std::size_t>(total) * sizeof(Word) <= temp.room();
  if (!fits) {
    temp.release(masks.start);
    return Masks{};
  }
  masks.words =
      temp.allocate<decltype(masks.words)>(space, prefix + "words", static_cast<std::size_t>(total), zero_words);
  masks.lanes = mask_lanes_for(static_cast<double>(products) / static_cast<double>(ops.a_nnz));
  return masks;
}

/// Fills `out` with the masks of the rows of the schedule's masked bins
/// (size_entry_masks), or leaves it not kept where they do not apply. C's
/// structure (row map and sorted columns) is the product's. What is kept
/// stays with the plan; its bytes count towards the symbolic phase's
/// temporaries.
template <class Types, class ExecSpace, class Schedule, class CRowMap, class CEntries>
void record_entry_masks(const ExecSpace& space, EntryMasks<typename Types::device_type>& out, const Schedule& schedule,
                        const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CEntries& c_entries,
                        std::int64_t a_rows, std::int64_t products,
                        const ErrorFlag<typename Types::device_type>& errors, TempMemory& temp) {
  auto masks =
      size_entry_masks<Types>(space, schedule, ops, c_row_map, a_rows, products, temp, "gustav::symbolic", true, false);
  if (!masks.words.data()) return;
  using Record = RecordEntryMasks<ExecSpace, Types, CRowMap, CEntries>;
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) {
    if (!masks.bins[b]) continue;
    const std::int64_t first = schedule.offsets[b], n = schedule.offsets[b + 1] - first;
    Record record{masks.start, masks.words, ops, c_row_map, c_entries,
                  RowList<Types>(schedule.perm.data() + first, n), n, errors};
    const int lanes = is_host_space<ExecSpace>() ? 1 : 8;
    launch_teams(space, "gustav::symbolic::masks::record", record, is_host_space<ExecSpace>() ? 1 : 256 / lanes, lanes,
                 [&](int size) { return looping_league(space, (n + size - 1) / size, size * lanes); },
                 [](int size) { return static_cast<std::size_t>(size) * Record::worker_bytes(); });
  }
  masks.kept = true;
  out = masks;
}

}  // namespace gustav::detail
