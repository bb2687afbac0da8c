#pragma once
/// The symbolic phase's per-row work, in two passes over the same traversal:
///   count (Fill = false): union of the (compressed) rows of B selected by a
///     row of A in a mask accumulator; nnz = sum of popcounts, plus the number
///     of distinct column sets, which sizes the second pass.
///   fill (Fill = true): the same union, then the column sets are sorted (if
///     asked), their popcounts prefix-summed, and each set's bits expanded into
///     the row's slot of C's entries, in ascending order.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/leveled_bitmap.hpp"
#include "gustav/accumulators/ordered_words.hpp"
#include "gustav/accumulators/two_level_hashmap.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/compression/compressed_rows.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class Source, class NeedView, bool Fill, class ConcurrencyT>
struct SymbolicPass {
  using execution_space = ExecSpace;
  using Ordinal = typename Types::ordinal_type;
  using Concurrency = ConcurrencyT;
  using COffset = typename Types::c_offset_type;
  using Map = TwoLevelHashmap<Ordinal, Concurrency, std::uint32_t>;
  static constexpr Ordinal empty = Ordinal(-1);
  static constexpr int dense_fill_byte = 0;  ///< dense masks and long-row bitmaps start at zero
  static constexpr bool has_long_prepare = false;

  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  Source source;
  NeedView need_of;  ///< count: product bound per row; fill: distinct sets per row
  typename Types::c_row_map c_row_map;  ///< count: nnz written at row + 1; fill: read
  typename Types::c_entries c_entries;  ///< fill only
  Kokkos::View<int*, typename Types::device_type> sets_out;  ///< count only: distinct sets
  Kokkos::View<int, typename Types::device_type> errors;
  double max_load = 0.5;
  bool sort_rows = true;
  std::int64_t max_row_count = 0;   ///< largest nnz a row of C may have in COffset
  std::int64_t bitmap_words = 0;    ///< long rows and dense rows: 32-bit words of a bitmap over B's columns
  std::int64_t prefetch_limit = 0;  ///< rows of B are fetched ahead up to this entry of A (0: none)
  /// A streams through B, where the analysis turns the prefetch off
  /// (prefetch_b_rows): the counting dense rows branch on new columns.
  KOKKOS_INLINE_FUNCTION bool a_streams_through_b() const { return prefetch_limit == 0; }

  KOKKOS_INLINE_FUNCTION std::int64_t need(std::int64_t row) const {
    return static_cast<std::int64_t>(need_of(row));
  }

  /// Level-1 bytes of one row's region (keys, masks, and prefix counts when filling).
  KOKKOS_INLINE_FUNCTION static std::size_t region_bytes(int log2_slots, std::int64_t /*need_cap*/) {
    Carver c(nullptr);
    layout(c, log2_slots);
    return c.used();
  }
  /// Level-2 chunk bytes for a row of the given need.
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes_for(int log2_slots) {
    Carver c(nullptr);
    layout(c, log2_slots);
    return c.used();
  }
  /// Dense accumulator bytes: the fill pass's leveled bitmap over B's
  /// columns (a little over a bit per column); the counting pass's bitmap
  /// and list of touched words (a bit and an index per 32 columns).
  static std::size_t dense_bytes(std::int64_t b_cols) {
    if (b_cols >= dense_columns_max) return dense_never_allowed;
    Carver c(nullptr);
    if constexpr (Fill) {
      LeveledBitmap::carve(c, (b_cols + 31) / 32);
      c.take<Ordinal>((b_cols + 31) / 32 + 1);
    } else {
      c.take<std::uint32_t>((b_cols + 31) / 32);
      c.take<Ordinal>((b_cols + 31) / 32 + 1);
    }
    return c.used();
  }

  /// Level-1 (or level-2) table: keys, their column masks, a work array for
  /// the fill pass's prefix sums, and the counting pass's tallies.
  struct Table {
    std::int64_t* tally;  ///< [0] new columns, [1] new keys (counting pass)
    Ordinal* keys;
    std::uint32_t* masks;
    std::uint32_t* counts;
  };
  KOKKOS_INLINE_FUNCTION static Table layout(Carver& c, int log2_slots) {
    const std::int64_t s = std::int64_t(1) << log2_slots;
    Table t;
    t.tally = c.take<std::int64_t>(2);
    t.keys = c.take<Ordinal>(s);
    t.masks = c.take<std::uint32_t>(s);
    t.counts = Fill ? c.take<std::uint32_t>(s) : nullptr;
    return t;
  }

  /// Tables up to this size read a worker's row out by ranking each key
  /// against the others (no sort, no scan, no barrier); larger ones sort.
  static constexpr int rank_extraction_max_log2 = 7;

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void clear(const Member& team, const Table& t, int log2_slots) const {
    Level::for_each(team, 1 << log2_slots, [&](int s) {
      t.keys[s] = empty;
      t.masks[s] = 0;
    });
    Level::single(team, [&]() {
      t.tally[0] = 0;
      t.tally[1] = 0;
    });
  }

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void process_row(const Member& team, const RowContext& ctx) const {
    if (ctx.dense) {
      dense_row(team, ctx);
      return;
    }
    const std::int64_t row = ctx.row;
    Carver c1(ctx.scratch);
    const Table l1 = layout(c1, ctx.log2_slots);
    Table l2{nullptr, nullptr, nullptr, nullptr};
    int log2_l2 = 0;
    if (ctx.spill && row >= 0) {
      log2_l2 = log2_slots_for(need(row), max_load);
      Carver c2(ctx.chunk);
      l2 = layout(c2, log2_l2);
    }
    const bool has_level1 = ctx.level1_probes > 0;
    if (has_level1) clear<Level>(team, l1, ctx.log2_slots);
    if (l2.keys) clear<Level>(team, l2, log2_l2);
    team.team_barrier();

    Map map;
    map.level1 = {l1.keys, ctx.log2_slots};
    map.level1_payload = l1.masks;
    map.level1_probes = ctx.level1_probes;
    map.level2 = {l2.keys, log2_l2};
    map.level2_payload = l2.masks;
    // Each lane counts the columns and keys it was first to set, so the
    // counting pass never reads its tables back.
    std::int64_t new_columns = 0, new_keys = 0;
    if (row >= 0) {
      Level::for_each_product(team, a_row_map, a_entries, source.row_map, row,
                              [&](const auto /*j*/, const auto p) {
                                bool fresh = false;
                                std::uint32_t* m = map.claim(source.keys(p), fresh);
                                if (m) {
                                  const std::uint32_t mask = source.mask(p);
                                  const std::uint32_t before = Concurrency::fetch_or(m, mask);
                                  new_columns += popcount32(mask & ~before);
                                  new_keys += fresh ? 1 : 0;
                                } else {
                                  Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
                                }
                              },
                              rows_ahead(a_entries, prefetch_limit, source.row_map, source.keys, source.masks));
    }
    if constexpr (Fill) {
      team.team_barrier();
      // Fill tiers are sized on the exact set count, so a spilling row keeps
      // every key in level 2 (level1_probes == 0) and level 1 is unused.
      const Table& t = ctx.spill ? l2 : l1;
      const int log2 = ctx.spill ? log2_l2 : ctx.log2_slots;
      emit_sorted_columns<Level>(team, t, log2, row);
    } else {
      const Table& t = has_level1 ? l1 : l2;
      if (row >= 0) {
        if (new_columns) Concurrency::add(&t.tally[0], new_columns);
        if (new_keys) Concurrency::add(&t.tally[1], new_keys);
      }
      team.team_barrier();
      Level::single(team, [&]() {
        if (row >= 0) record_count(row, t.tally[0], t.tally[1]);
      });
    }
    team.team_barrier();
  }

  KOKKOS_INLINE_FUNCTION void record_count(std::int64_t row, std::int64_t nnz, std::int64_t sets) const {
    if (row < 0) return;
    if (nnz > max_row_count)
      Kokkos::atomic_fetch_or(&errors(), int(error_row_count_overflow));
    c_row_map(row + 1) = static_cast<COffset>(nnz);
    sets_out(row) = static_cast<int>(sets);
  }

  // --- long rows (long_rows.hpp) -----------------------------------------------
  // A row's accumulator is a bitmap over B's columns plus a summary bitmap with
  // one bit per word, set when the word first becomes non-zero, so reading a
  // row out costs what the row holds, not B's column count.

  struct Bitmap {
    std::uint32_t* summary;
    std::uint32_t* words;
  };
  KOKKOS_INLINE_FUNCTION static Bitmap bitmap_layout(Carver& c, std::int64_t words) {
    Bitmap b;
    b.summary = c.take<std::uint32_t>((words + 31) / 32);
    b.words = c.take<std::uint32_t>(words);
    return b;
  }
  /// Bytes of one long row's accumulator (the same for every row).
  KOKKOS_INLINE_FUNCTION std::size_t long_row_bytes(std::int64_t) const {
    Carver c(nullptr);
    bitmap_layout(c, bitmap_words);
    return c.used();
  }
  static std::size_t long_bytes_for_columns(std::int64_t b_cols) {
    Carver c(nullptr);
    bitmap_layout(c, (b_cols + 31) / 32);
    return c.used();
  }
  KOKKOS_INLINE_FUNCTION auto product_row_map() const { return source.row_map; }

  KOKKOS_INLINE_FUNCTION void long_product(char* accumulator, std::int64_t, std::int64_t, std::int64_t p) const {
    Carver c(accumulator);
    const Bitmap b = bitmap_layout(c, bitmap_words);
    const Ordinal key = source.keys(p);
    const std::int64_t w = source.compressed ? static_cast<std::int64_t>(key) : static_cast<std::int64_t>(key >> 5);
    const std::uint32_t bits = source.compressed ? source.mask(p) : std::uint32_t(1) << (key & 31);
    // Two atomics whose results are not used (fire-and-forget on GPUs):
    // testing the word's old value first would wait for each round trip.
    Kokkos::atomic_or(&b.words[w], bits);
    Kokkos::atomic_or(&b.summary[w >> 5], std::uint32_t(1) << (w & 31));
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void long_finish(const Member& team, char* accumulator, std::int64_t row) const {
    Carver c(accumulator);
    const Bitmap b = bitmap_layout(c, bitmap_words);
    const std::int64_t summaries = (bitmap_words + 31) / 32;
    if constexpr (Fill) {
      // Rounds of team_size consecutive summary words; a team scan of the
      // columns under each places them after the previous ones', so the row
      // comes out sorted. Words are cleared as they are read.
      std::int64_t base = static_cast<std::int64_t>(c_row_map(row));
      for (std::int64_t s0 = 0; s0 < summaries; s0 += team.team_size()) {
        const std::int64_t s = s0 + team.team_rank();
        const std::uint32_t present = s < summaries ? b.summary[s] : 0u;
        std::int64_t count = 0;
        for (std::uint32_t m = present; m; m &= m - 1) count += popcount32(b.words[s * 32 + lowest_bit32(m)]);
        std::int64_t out = base + team.team_scan(count);
        // Team collectives share one scratch buffer and end without a
        // barrier: every thread must have read the scan before the broadcast
        // writes, and the broadcast before the next round's scan writes.
        team.team_barrier();
        for (std::uint32_t m = present; m; m &= m - 1) {
          const std::int64_t w = s * 32 + lowest_bit32(m);
          for (std::uint32_t bits = b.words[w]; bits; bits &= bits - 1)
            c_entries(out++) = static_cast<Ordinal>(w * 32 + lowest_bit32(bits));
          b.words[w] = 0;
        }
        if (s < summaries) b.summary[s] = 0;
        // The round's total reaches every thread through the last one's end.
        team.team_broadcast(out, team.team_size() - 1);
        team.team_barrier();
        base = out;
      }
    } else {
      std::int64_t nnz = 0, nonzero_words = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, summaries),
          [&](std::int64_t s, std::int64_t& acc) {
            for (std::uint32_t m = b.summary[s]; m; m &= m - 1) acc += popcount32(b.words[s * 32 + lowest_bit32(m)]);
          },
          nnz);
      // The first result is read from the buffer the second reduction writes.
      team.team_barrier();
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, summaries),
          [&](std::int64_t s, std::int64_t& acc) { acc += popcount32(b.summary[s]); }, nonzero_words);
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, summaries), [&](std::int64_t s) {
        for (std::uint32_t m = b.summary[s]; m; m &= m - 1) b.words[s * 32 + lowest_bit32(m)] = 0;
        b.summary[s] = 0;
      });
      // The fill pass is sized by distinct keys: sets when B is compressed,
      // columns otherwise.
      Kokkos::single(Kokkos::PerTeam(team),
                     [&]() { record_count(row, nnz, source.compressed ? nonzero_words : nnz); });
    }
  }

  /// Writes the columns of set `key` (bits of `mask`) in ascending order.
  KOKKOS_INLINE_FUNCTION void expand(Ordinal key, std::uint32_t mask, std::int64_t out) const {
    const Ordinal base = static_cast<Ordinal>(key << source.key_shift);
    while (mask) {
      c_entries(out++) = base + static_cast<Ordinal>(lowest_bit32(mask));
      mask &= mask - 1;
    }
  }

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void emit_sorted_columns(const Member& team, const Table& t, int log2,
                                                  std::int64_t row) const {
    const int n = 1 << log2;
    const std::int64_t start = row >= 0 ? static_cast<std::int64_t>(c_row_map(row)) : 0;
    if constexpr (Concurrency::exclusive) {
      if (row < 0) return;
      int used = 0;
      for (int s = 0; s < n; ++s)
        if (t.keys[s] != empty) {
          t.keys[used] = t.keys[s];
          t.masks[used] = t.masks[s];
          ++used;
        }
      if (sort_rows) sequential_sort_pairs(t.keys, t.masks, used);
      std::int64_t out = start;
      for (int s = 0; s < used; ++s) {
        expand(t.keys[s], t.masks[s], out);
        out += popcount32(t.masks[s]);
      }
    } else if (!Level::team_wide && log2 <= rank_extraction_max_log2) {
      // A column set's first column goes after every column of the smaller
      // sets: rank each key against the table, then expand it in place.
      Level::for_each(team, n, [&](int s) {
        const Ordinal key = t.keys[s];
        if (key == empty) return;
        std::int64_t before = 0;
        for (int u = 0; u < n; ++u) {
          const Ordinal other = t.keys[u];
          if (other != empty && other < key) before += popcount32(t.masks[u]);
        }
        expand(key, t.masks[s], start + before);
      });
    } else {
      if (sort_rows) bitonic_sort_pairs<Level>(team, t.keys, t.masks, n);
      Level::for_each(team, n, [&](int s) { t.counts[s] = t.keys[s] != empty ? popcount32(t.masks[s]) : 0; });
      team.team_barrier();
      exclusive_scan_pow2<Level>(team, t.counts, n);
      Level::for_each(team, n, [&](int s) {
        if (t.keys[s] != empty) expand(t.keys[s], t.masks[s], start + t.counts[s]);
      });
    }
  }

  /// CPU dense accumulator (KKSPEED): a bitmap over B's columns, one 32-bit
  /// word per column set (compressed keys are exactly those words). The
  /// counting pass keeps the list of words the row touched, to clear them;
  /// the fill pass keeps a leveled bitmap (leveled_bitmap.hpp) and reads the
  /// row out in column order by descending its levels, with no sort.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void dense_row(const Member&, const RowContext& ctx) const {
    if (ctx.row < 0) return;
    const std::int64_t row = ctx.row;
    auto for_each_key = [&](const auto& f) {
      walk_row_products(a_row_map, a_entries, source.row_map, row,
                        rows_ahead(a_entries, prefetch_limit, source.row_map, source.keys, source.masks),
                        [&](const auto, const auto p) {
                          const Ordinal key = source.keys(p);
                          const Ordinal w = source.compressed ? key : static_cast<Ordinal>(key >> column_set_shift);
                          f(w, source.compressed ? source.mask(p)
                                                 : std::uint32_t(1) << (key & ((1 << column_set_shift) - 1)));
                        });
    };
    Carver c(ctx.chunk);
    if constexpr (Fill) {
      const LeveledBitmap bitmap = LeveledBitmap::carve(c, bitmap_words);
      Ordinal* touched = c.take<Ordinal>(bitmap_words + 1);
      std::int64_t set_words = 0;
      if (a_streams_through_b()) {
        for_each_key([&](Ordinal w, std::uint32_t bits) { set_words = mark_new_bits(bitmap.words, touched, w, bits, set_words); });
      } else {
        for_each_key([&](Ordinal w, std::uint32_t bits) { set_words = mark_word(bitmap.words, touched, w, bits, set_words); });
      }
      // The write pass's read-out (ordered_words.hpp), columns only.
      std::int64_t out = static_cast<std::int64_t>(c_row_map(row));
      const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
      emit_set_words_in_order<true>(bitmap, touched, set_words, bitmap_words, [&](std::int64_t w, std::uint32_t bits) {
        bitmap.words[w] = 0;
        out = write_word_columns(c_entries.data(), static_cast<Ordinal>(w << column_set_shift), bits, out, end);
      });
      if (out != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
    } else {
      std::uint32_t* words = c.take<std::uint32_t>(bitmap_words);
      Ordinal* touched = c.take<Ordinal>(bitmap_words + 1);
      std::int64_t used = 0, nnz = 0;
      // Test first only where A streams through B (mark_new_bits, mark_word).
      if (a_streams_through_b()) {
        for_each_key([&](Ordinal w, std::uint32_t bits) { used = mark_new_bits(words, touched, w, bits, used); });
      } else {
        for_each_key([&](Ordinal w, std::uint32_t bits) { used = mark_word(words, touched, w, bits, used); });
      }
      // The row's columns are counted once per set word as it is cleared,
      // not per key: a row of many keys per column (ca-HepPh: 2,165 keys,
      // 273 columns a row) counted each of them again. Two threads of an AMD
      // EPYC, 2026-12-07, one-shot ms in alternating processes: ca-HepPh
      // 38.5, 38.1 -> 36.4, 36.6; lap3d:40:27 45.6, 44.0 -> 42.4, 42.2;
      // rmat:16:2:5 and brick:30's A * P level.
      for (std::int64_t t = 0; t < used; ++t) {
        nnz += popcount32(words[touched[t]]);
        words[touched[t]] = 0;
      }
      // The fill pass is sized by distinct keys: sets when B is compressed,
      // columns otherwise.
      record_count(row, nnz, source.compressed ? used : nnz);
    }
  }
};

}  // namespace gustav::detail
