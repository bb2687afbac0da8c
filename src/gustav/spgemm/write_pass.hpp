#pragma once
/// The one-shot product's second walk on the thread-per-row mapping (CPUs).
/// The counting pass has fixed every row's nnz and C's row map, so a thread
/// accumulates its row's columns and values and writes both to C itself:
/// gustav::multiply walks the products twice in all (count, write) instead
/// of three times (count, fill, numeric). gustav::symbolic, whose plan must
/// hold C's structure before any value exists, keeps the fill pass.
///
/// The accumulator is dense (symbolic.hpp runs this pass only when that
/// fits): a value per column of B, a bitmap over the columns with two
/// summary levels (leveled_bitmap.hpp), and the list of the bitmap's words
/// the row set. Values start at zero and are cleared as the row goes out.
/// Where B compresses well (symbolic.hpp: write_runs_worthwhile_ratio), each
/// run of a row of B (a word and its mask) marks the bitmap once and B's
/// entries only add values. The row goes out in
/// column order: by a scan of its words where they lie close together, by
/// sorting the list where it is nearly in order, and by descending the
/// summary levels otherwise; no branch in the walk itself depends on
/// whether a column is new, except where most are not or where A streams
/// through B (the pattern then repeats from row to row). Rows of at most 64
/// products that do not stream, over a B whose value per column passes a
/// mebibyte, skip the accumulator: their products are sorted by a network
/// and summed in runs (sorted_row); on hosts, so are rows of 65 to 512
/// products over a B whose value per column passes 512 KiB
/// (wide_sorted_row). Short rows of C that do stream through an
/// uncompressed B are listed in C as their columns come, by a flag per
/// column, and then sorted in place (listed_row).
///
/// Where a value per column of B would not fit (B with millions of
/// columns: 32 MB a thread for lap2d:2000:9), the row is ranked instead: a
/// first walk marks its columns, the read-out writes them with zero values
/// and notes each set word's first position in C's row, and a second walk
/// adds each product straight into C's row at its column's rank. B's rows
/// are read twice, the second time mostly from cache; the accumulator keeps
/// 16 bytes per 32 columns of B and no value per column. On CPUs, where A
/// streams through B, such a row is first summed in a ring (ring_row): a
/// slot per column's low bits, holding the column and its value, in one
/// walk; only rows whose columns span more than the ring are ranked.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/leveled_bitmap.hpp"
#include "gustav/accumulators/ordered_words.hpp"
#include "gustav/accumulators/ring_slot.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/common/spread_sort.hpp"
#include "gustav/compression/compressed_rows.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class Source>
struct WritePass {
  using execution_space = ExecSpace;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Concurrency = Exclusive;  ///< one thread per row: no atomics
  static constexpr Ordinal empty = Ordinal(-1);
  static constexpr int dense_fill_byte = 0;  ///< bitmaps and values start at zero (and are left so)
  static constexpr bool has_long_prepare = false;

  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  typename Types::values a_values;
  typename Types::b_row_map b_row_map;
  typename Types::entries b_entries;
  typename Types::values b_values;
  Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type> c_row_map;
  typename Types::c_entries c_entries;
  typename Types::c_values c_values;
  Kokkos::View<const std::int64_t*, typename Types::device_type> row_products;  ///< products of each row
  Source source;  ///< the compressed B where B compresses well: its runs mark the bitmap
  Kokkos::View<int, typename Types::device_type> errors;
  std::int64_t prefetch_limit = 0;  ///< rows of B are fetched ahead up to this entry of A (0: none)
  double max_load = 0.5;
  std::int64_t bitmap_words = 0;  ///< 32-bit words of the dense bitmap over B's columns
  /// A streams through B (row_bounds.hpp: neighbouring rows of A name
  /// neighbouring rows of B, as stencils and multigrid operators do): every
  /// row tests a product's bit before setting it (see summed_row). The
  /// analysis turns the prefetch off exactly there (prefetch_b_rows).
  KOKKOS_INLINE_FUNCTION bool a_streams_through_b() const { return prefetch_limit == 0; }

  KOKKOS_INLINE_FUNCTION std::int64_t need(std::int64_t row) const {
    return static_cast<std::int64_t>(c_row_map(row + 1) - c_row_map(row));
  }

  /// Level-1 bytes (the write pass has only its dense tier: none).
  KOKKOS_INLINE_FUNCTION static std::size_t region_bytes(int, std::int64_t) { return 0; }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes_for(int) { return 0; }

  /// Whether rows of at most sorted_row_products_max products are sorted
  /// (sorted_row): where B's columns fit a key's 32 bits and A does not
  /// stream through B. Streaming rows keep the dense accumulator: their
  /// products fall on few columns near each other, which the bitmap takes
  /// in cache (two threads of an AMD EPYC, 2026-11-29: lap3d:80's A * P
  /// write pass 22-26 ms dense, 63-79 sorted).
  KOKKOS_INLINE_FUNCTION bool sorts_short_rows() const { return sorts_rows_over(sorted_rows_value_bytes_min); }
  /// Whether rows may be sorted at all where B's value per column must pass
  /// `value_bytes_min`: A does not stream through B and B's columns fit a
  /// key's 32 bits.
  KOKKOS_INLINE_FUNCTION bool sorts_rows_over(std::int64_t value_bytes_min) const {
    const std::int64_t columns = bitmap_words << column_set_shift;
    return !a_streams_through_b() && columns <= (std::int64_t(1) << 32) &&
           columns * static_cast<std::int64_t>(sizeof(Scalar)) > value_bytes_min;
  }
  /// Rows are sorted only where the value per column of B passes this many
  /// bytes: below it the dense accumulator stays in cache and costs less
  /// than the network. Two threads of an Intel Xeon (2 MiB of L2 a core),
  /// 2026-12-02: delaunay_n16 (65,536 columns, 38 products a row)
  /// wrote its rows in 28 ms sorted, 10 in the accumulator (one-shot 34 ->
  /// 16 ms); bcsstk16 12.1 -> 11.0 ms, rmat:16:2:5 68-71 -> 62-65;
  /// er:100000:6 (800 KB of values) level. er:200000:4 (1.6 MB) stays sorted,
  /// as measured on an AMD EPYC with 512 KiB of L2 a core.
  static constexpr std::int64_t sorted_rows_value_bytes_min = std::int64_t(1) << 20;
  /// The largest sorted row: 64 products, a network of 672
  /// compare-exchanges. Two threads of an AMD EPYC (512 KiB of L2 a core),
  /// 2026-11-29, the pass's fenced time in processes run in turn:
  /// er:200000:4 38-60 -> 32-49 ms, er:300000:6 (36 products a row)
  /// 134-143 -> 109-134 at 64 and unchanged at 32. On 16 threads of an
  /// Intel Xeon (2 MiB of L2 a core) the value array's misses are fewer and
  /// both are level (er:200000:4 9.9-10.6 -> 9.0-10.4 ms, er:1000000:8
  /// 214-216 -> 202); 128 was slower there (er:1000000:8 224-257 ms).
  static constexpr std::int64_t sorted_row_products_max = 64;

  /// The shift that takes a sorted row's key to its bucket (spread_sort.hpp:
  /// the highest bits of B's columns).
  int key_bucket_shift = 32;

  /// Host plans: rows of more than sorted_row_products_max and at most
  /// this many products (0: none; symbolic.hpp gives host plans
  /// wide_sort_keys_max, 512) are sorted too (wide_sorted_row), where
  /// sorts_long_rows() holds. Two threads of an Intel Xeon (2 MiB of L2 a
  /// core), 2026-12-05, `gustav multiply --reps 5`, one-shot ms without ->
  /// with, processes in turn: er:100000:16 (256 products a row on average,
  /// 800 KB of values) 255.8, 256.3 -> 208.8, 207.6; er:1000000:8 (64
  /// products a row, the rows past 64 in the accumulator before) 1008.5,
  /// 959.4 -> 655.8, 696.0; rmat:18:4 1223, 1259 -> 1260, 1281 and
  /// rmat:20:2 3218 -> 3351 (power-law rows, whose hub columns crowd the
  /// buckets: a shell sort then), rmat:18:8:7 3192 -> 3112. Up to 256
  /// products only: er:100000:16 245 -> 225.
  std::int64_t wide_row_products_max = 0;
  int wide_key_shift = 32;  ///< wide_bucket_shift of B's columns
  /// Rows are sorted wide only where the value per column of B passes this
  /// many bytes (er:100000:16's 800 KB did, the small stencils' do not).
  static constexpr std::int64_t wide_rows_value_bytes_min = std::int64_t(1) << 19;
  KOKKOS_INLINE_FUNCTION bool sorts_long_rows() const {
    return wide_row_products_max > 0 && sorts_rows_over(wide_rows_value_bytes_min);
  }

  /// Rows ranked rather than summed (symbolic.hpp: write_pass_is_ranked):
  /// marked first, written out with each set word's first position in C's
  /// row (`ranks`), and then every product added straight into C's row at
  /// that position plus the word's bits below its column.
  bool ranked = false;

  /// Every row has at most sorted_row_products_max products and
  /// sorts_short_rows() holds, so no row takes the dense accumulator
  /// (symbolic.hpp gives the pass chunks of a few bytes then: uniform random
  /// rows of few products over a million columns had 8 MB a thread cleared
  /// for nothing on every call).
  bool sorted_rows_only = false;

  /// Short rows may be listed (listed_row), and the accumulator has a flag
  /// per column: set only where A streams through B and the pass reads B's
  /// own entries (symbolic.hpp: write_pass_lists), the one place that
  /// decides it.
  bool listing = false;

  /// Ranked rows are first summed in a ring of ring_mask + 1 slots
  /// (ring_row; host plans only, where A streams through B); 0: no ring.
  std::int64_t ring_mask = 0;

  /// The dense accumulator: a bitmap over B's columns, the list of its
  /// words the row has set (one slot spare: the walk writes a slot before it
  /// knows whether to keep it), and either a value per column (and,
  /// listing, a flag per column) or, ranked, a word's first position in C's
  /// row (high half) and its bits (low half).
  struct Dense {
    LeveledBitmap bitmap;
    Ordinal* touched;
    Scalar* values = nullptr;
    std::uint64_t* ranks = nullptr;
    bool* seen = nullptr;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Dense dense_layout(Carver& c, std::int64_t words, bool ranked, bool listing) {
    Dense d;
    d.bitmap = LeveledBitmap::carve(c, words);
    d.touched = c.take<Ordinal>(words + 1);
    if (ranked) {
      d.ranks = c.take<std::uint64_t>(words);
    } else {
      d.values = c.take<Scalar>(words << column_set_shift);
      if (listing) d.seen = c.take<bool>(words << column_set_shift);
    }
    return d;
  }
  /// Dense accumulator bytes: a value per column and, listing, a flag
  /// (ranked: 8 bytes per 32 columns), a little over a bit and a word index
  /// per 32 columns.
  static std::size_t dense_bytes(std::int64_t b_cols, bool ranked, bool listing) {
    if (b_cols >= dense_columns_max) return dense_never_allowed;
    Carver c(nullptr);
    dense_layout(c, ceil_div<std::int64_t>(b_cols, std::int64_t(1) << column_set_shift), ranked, listing);
    return c.used();
  }

  /// The ring of ring_row, after the dense accumulator in the same chunk: a
  /// bit per slot (set: the slot holds a column of the current row), the
  /// list of the bit words the row set (one spare, as `touched`), and the
  /// slots (ring_slot.hpp). `zeroed_end`, where given, gets the chunk's
  /// bytes before the slots: those must start at zero, while a row writes a
  /// slot before it reads it.
  using RingSlot = detail::RingSlot<Scalar, Ordinal>;
  struct Ring {
    std::uint32_t* words;
    std::int64_t* touched;
    RingSlot* slots;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Ring ring_layout(Carver& c, std::int64_t width,
                                                      std::size_t* zeroed_end = nullptr) {
    Ring r;
    r.words = c.take<std::uint32_t>(width >> column_set_shift);
    r.touched = c.take<std::int64_t>((width >> column_set_shift) + 1);
    if (zeroed_end) *zeroed_end = c.used();
    r.slots = c.take<RingSlot>(width);
    return r;
  }
  /// Chunk bytes with a ring of `width` slots after the dense accumulator;
  /// `fill_bytes` gets those that must start at zero (see ring_layout).
  static std::size_t ring_chunk_bytes(std::int64_t b_cols, bool ranked, bool listing, std::int64_t width,
                                      std::size_t& fill_bytes) {
    fill_bytes = 0;
    if (b_cols >= dense_columns_max) return dense_never_allowed;
    Carver c(nullptr);
    dense_layout(c, ceil_div<std::int64_t>(b_cols, std::int64_t(1) << column_set_shift), ranked, listing);
    ring_layout(c, width, &fill_bytes);
    return c.used();
  }

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void process_row(const Member&, const RowContext& ctx) const {
    if (ctx.row < 0) return;
    if (ctx.dense) {
      dense_row(ctx);
    } else {
      // Only the dense tier is ever launched (write_pass_is_dense).
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
    }
  }

  /// Calls f(j, p) for every product of the row, in order, fetching rows of
  /// B ahead (prefetch.hpp).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_product(std::int64_t row, const F& f) const {
    walk_row_products(a_row_map, a_entries, b_row_map, row,
                      rows_ahead(a_entries, prefetch_limit, b_row_map, b_entries, b_values), f);
  }

  KOKKOS_INLINE_FUNCTION void dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    // Every row comes here, empty ones too (no binning): they have no products.
    if (start == end) return;
    if (sorts_short_rows() && row_products(row) <= sorted_row_products_max) {
      sorted_row(row, start, end);
      return;
    }
    if constexpr (is_host_space<ExecSpace>()) {
      // The plan's test first: the rows that stream (stencils) read no
      // product count here.
      if (sorts_long_rows()) {
        const std::int64_t products = row_products(row);
        if (products > sorted_row_products_max && products <= wide_row_products_max) {
          wide_sorted_row(row, start, end);
          return;
        }
      }
    }
    if (sorted_rows_only) {
      // A row the analysis did not count this long (a structure changed
      // under the call): the chunk holds no accumulator.
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      return;
    }
    Carver c(ctx.chunk);
    const Dense d = dense_layout(c, bitmap_words, ranked, listing);
    if (ranked) {
      // Host plans alone take the ring (symbolic.hpp): device kernels do
      // not carry it.
      if constexpr (is_host_space<ExecSpace>()) {
        if (ring_mask > 0 && ring_row(ring_layout(c, ring_mask + 1), row, start, end)) return;
      }
      ranked_row(d, row, start, end);
    } else {
      summed_row(d, row, start, end);
    }
  }

  /// A row of few products: each product's column and place in the row
  /// become one key (column high, place low), the keys are sorted (by
  /// buckets of their columns' high bits, or by a network where the row's
  /// columns crowd together: spread_sort.hpp) and runs of one column summed
  /// in place order, the order in which the dense accumulator would add
  /// them. No word of the accumulator is touched: on random rows each
  /// product's value and bit were a miss in an array over all of B's
  /// columns, and the read-out missed again to take the value and clear it.
  KOKKOS_INLINE_FUNCTION void sorted_row(std::int64_t row, std::int64_t start, std::int64_t end) const {
    sort_and_sum_row<sorted_row_products_max>(row, start, end, [&](std::uint64_t* keys, std::uint64_t* spare, int n) {
      return sort_spread_keys(keys, spare, n, key_bucket_shift);
    });
  }

  /// sorted_row for rows of up to wide_sort_keys_max products, by
  /// sort_wide_keys (host only: its arrays take 12 KiB of the thread's
  /// stack for doubles). No word of the dense accumulator is touched, and
  /// where every row is sorted the pass sets none aside (sorted_rows_only).
  KOKKOS_INLINE_FUNCTION void wide_sorted_row(std::int64_t row, std::int64_t start, std::int64_t end) const {
    sort_and_sum_row<wide_sort_keys_max>(row, start, end, [&](std::uint64_t* keys, std::uint64_t* spare, int n) {
      return sort_wide_keys(keys, spare, n, wide_key_shift);
    });
  }

  /// The row's products as keys (column high, place low) and values in
  /// arrays of Capacity, ordered by `sort(keys, spare, n)` (which returns
  /// where the sorted keys are), and runs of one column summed in place
  /// order into C's row.
  template <int Capacity, class Sort>
  KOKKOS_INLINE_FUNCTION void sort_and_sum_row(std::int64_t row, std::int64_t start, std::int64_t end,
                                               const Sort& sort) const {
    std::uint64_t keys[Capacity];
    Scalar products[Capacity];
    int n = 0;
    for_each_product(row, [&](const auto j, const auto p) {
      // The bound holds by the row's product count; the test keeps a
      // disagreement from writing past the arrays.
      if (n < Capacity) {
        keys[n] = (static_cast<std::uint64_t>(b_entries(p)) << 32) | static_cast<std::uint32_t>(n);
        products[n] = a_values(j) * b_values(p);
      }
      ++n;
    });
    if (n > Capacity) {
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      return;
    }
    std::uint64_t spare[Capacity];
    const std::uint64_t* sorted = sort(keys, spare, n);
    std::int64_t out = start - 1;
    std::uint64_t last = ~std::uint64_t(0);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t column = sorted[i] >> 32;
      const Scalar v = products[sorted[i] & 0xFFFFFFFFu];
      if (column != last) {
        last = column;
        if (++out < end) {
          c_entries(out) = static_cast<Ordinal>(column);
          c_values(out) = v;
        }
      } else if (out < end) {
        c_values(out) += v;
      }
    }
    if (out + 1 != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
  }

  /// Sums the row's values over B's columns while marking them, then writes
  /// columns and values out in order.
  KOKKOS_INLINE_FUNCTION void summed_row(const Dense& d, std::int64_t row, std::int64_t start,
                                         std::int64_t end) const {
    std::int64_t set_words = 0;
    if (lists_row(end - start)) {
      listed_row(d, row, start, end);
      return;
    }
    if (source.compressed) {
      // Each run of a row of B marks its word once, and B's own entries
      // only add values: products of neighbouring columns would otherwise
      // set the same word one after the other, each waiting for the last.
      const auto runs_ahead = rows_ahead(a_entries, prefetch_limit, source.row_map, source.keys, source.masks);
      const auto ahead = rows_ahead(a_entries, prefetch_limit, b_row_map, b_entries, b_values);
      for (auto j = a_row_map(row); j < a_row_map(row + 1); ++j) {
        runs_ahead.at(static_cast<std::int64_t>(j));
        ahead.at(static_cast<std::int64_t>(j));
        const auto k = a_entries(j);
        set_words = mark_runs(d, k, set_words);
        const Scalar a = a_values(j);
        for (auto p = b_row_map(k); p < b_row_map(k + 1); ++p) d.values[b_entries(p)] += a * b_values(p);
      }
    } else if (a_streams_through_b()) {
      // Whether a column is new follows the same pattern from one row to
      // the next where A streams through B: testing the bit first skips the
      // bitmap's store, whose store-to-load chain would otherwise tie every
      // product to the previous one of the same word, and the branch
      // predicts well. Two threads of an AMD EPYC, 2026-11-29, the pass's
      // fenced time in processes run in turn: lap3d:80's A * P (2.8
      // products an entry of C) 27-31 -> 23.5 ms, lap3d:60 19.2-19.9 ->
      // 18.1-18.2; on random and power-law rows it mispredicts (rmat:14:8
      // 30-31 -> 47-50 ms, rmat:16:2:5 38-40 -> 53-57). Elsewhere it
      // mispredicts even where most products add to a column already set:
      // the same machine, 2026-12-07, one-shot ms in alternating processes,
      // rows of at least 4 products an entry testing first -> not:
      // ca-HepPh (9.4 products an entry) 39.6, 41.6, 40.0 -> 37.9, 37.3,
      // 36.9; rmat:14:8, rmat:16:2:5, bcsstk16, delaunay_n16, rmat:12:16,
      // arrow:4000 and ia-wikiquote's A * A^T level.
      for_each_product(row, [&](const auto j, const auto p) {
        const Ordinal col = b_entries(p);
        set_words = mark_new_bits(d.bitmap.words, d.touched, static_cast<Ordinal>(col >> column_set_shift),
                                  std::uint32_t(1) << (col & ((1 << column_set_shift) - 1)), set_words);
        d.values[col] += a_values(j) * b_values(p);
      });
    } else {
      // Most products start a column: no branch depends on that (it would
      // mispredict on about every other product). A value is added to zero
      // as well as to a partial sum, and a word's index goes into the list
      // either way and is kept by advancing the list's end.
      for_each_product(row, [&](const auto j, const auto p) {
        const Ordinal col = b_entries(p);
        set_words = mark_column(d, col, set_words);
        d.values[col] += a_values(j) * b_values(p);
      });
    }
    std::int64_t out = start;
    if (a_streams_through_b()) {
      // A word's bit count repeats from row to row where A streams through
      // B, so a loop per bit predicts well, and the values go out with their
      // columns. Two threads of an AMD EPYC, 2026-12-06, one-shot ms in
      // alternating processes, word at a time -> per bit here: lap3d:60
      // 33.1, 33.2, 35.9 -> 29.5, 30.8, 32.7; lap3d:40:27, lap2d:600:9 and
      // brick:16's A * P level.
      read_out(d, set_words, [&](std::int64_t w, std::uint32_t word) {
        d.bitmap.words[w] = 0;
        for (; word; word &= word - 1) {
          const std::int64_t col = (w << column_set_shift) + lowest_bit32(word);
          if (out < end) {
            c_entries(out) = static_cast<Ordinal>(col);
            c_values(out) = d.values[col];
          }
          d.values[col] = Scalar(0);
          ++out;
        }
      });
      if (out != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      return;
    }
    // Elsewhere each set word's columns and values go out four at a time
    // without a branch on how many bits it has (write_word_entries), and
    // the word's values are cleared as they go, so a row whose count
    // disagrees with this walk leaves the accumulator clean too. Two
    // threads of an AMD EPYC, 2026-12-07, one-shot ms, values in a second
    // loop over the row -> beside their columns: rmat:14:8 43.0-44.2 ->
    // 41.9-42.2, delaunay_n16 10.7-11.0 -> 10.4-10.7; rmat:16:2:5,
    // ca-HepPh, er:300000:6 and bcsstk16 level.
    read_out<true>(d, set_words, [&](std::int64_t w, std::uint32_t word) {
      d.bitmap.words[w] = 0;
      out = write_word_entries(c_entries.data(), c_values.data(), d.values, static_cast<Ordinal>(w << column_set_shift),
                               word, out, end);
    });
    if (out != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
  }

  /// Rows of A streaming through an uncompressed B whose row of C has at
  /// most this many entries are listed (listed_row) rather than marked in
  /// the bitmap. Two threads of an Intel Xeon, 2026-12-02, `gustav
  /// multiply --kernel-times` in processes run in turn: lap3d:60's A * P
  /// (9.6 entries a row of C) write pass 12.2-12.6 -> 9.0-10.2 ms, one-shot
  /// 21.0-22.5 -> 18.4-19.3; lap3d:60 (25 a row, none listed at 16),
  /// band:200000:5, lap2d:600:9 and brick:16's A * P within their spread.
  /// Listing every row up to 32 entries (lap3d:60's rows among them) was
  /// level with 16 on those products; 16 keeps the sort an insertion sort.
  static constexpr std::int64_t listed_row_entries_max = 16;
  KOKKOS_INLINE_FUNCTION bool lists_row(std::int64_t entries) const {
    return listing && entries <= listed_row_entries_max;
  }

  /// A short row of a streaming A, summed as Kokkos Kernels' dense
  /// accumulator does: a flag per column says whether the column is new,
  /// a new one goes straight into C's row in the order it comes, and its
  /// value is summed over B's columns. The row is then put in column order
  /// by an insertion sort (its columns come nearly in order, A's and B's
  /// rows being sorted) and its values read out and cleared in that order.
  /// Against the bitmap of summed_row it stores no word shared by
  /// neighbouring columns (each bit's store waiting on the one before) and
  /// needs no list of set words to put in order. The flags are `bool`, not
  /// a character type, so that their stores are not taken to alias the
  /// pass's own pointers (which the loop would otherwise reload each time).
  KOKKOS_INLINE_FUNCTION void listed_row(const Dense& d, std::int64_t row, std::int64_t start,
                                         std::int64_t end) const {
    std::int64_t out = start;
    for_each_product(row, [&](const auto j, const auto p) {
      const Ordinal col = b_entries(p);
      if (!d.seen[col]) {
        d.seen[col] = true;
        if (out < end) c_entries(out) = col;
        ++out;
      }
      d.values[col] += a_values(j) * b_values(p);
    });
    if (out != end) {
      // The count disagrees (a structure changed under the call): the
      // columns past the row's end were not listed, so every product's
      // column is cleared here, leaving the accumulator clean for the
      // thread's next row and the next call.
      for_each_product(row, [&](const auto, const auto p) {
        d.seen[b_entries(p)] = false;
        d.values[b_entries(p)] = Scalar(0);
      });
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      return;
    }
    insertion_sort_pairs(c_entries.data() + start, static_cast<int*>(nullptr), end - start);
    for (std::int64_t q = start; q < end; ++q) {
      const Ordinal col = c_entries(q);
      c_values(q) = d.values[col];
      d.values[col] = Scalar(0);
      d.seen[col] = false;
    }
  }

  /// Sums the row in the ring in one walk and writes it out in column
  /// order; returns false, the ring left clean, where the row's columns span
  /// more than the ring less a word (ranked_row then takes it). A product's
  /// column takes slot column & ring_mask. Within a span that short no two
  /// columns share a slot, and the slots from the lowest column's on, taken
  /// round the ring, hold the columns in ascending order, so the row goes out
  /// by its set words sorted by their distance round the ring from the
  /// lowest column's word. A new slot is told by its bit, as summed_row's
  /// streaming rows tell a new column (the pattern repeats from row to row).
  KOKKOS_INLINE_FUNCTION bool ring_row(const Ring& r, std::int64_t row, std::int64_t start, std::int64_t end) const {
    constexpr std::int64_t word_bits = std::int64_t(1) << column_set_shift;
    const std::int64_t mask = ring_mask;
    std::int64_t set_words = 0;
    std::int64_t lo = INT64_MAX, hi = -1;  // the row's columns, once it has any
    bool clash = false;
    for_each_product(row, [&](const auto j, const auto p) {
      const std::int64_t col = static_cast<std::int64_t>(b_entries(p));
      const std::int64_t slot = col & mask;
      const std::int64_t w = slot >> column_set_shift;
      const std::uint32_t bit = std::uint32_t(1) << (slot & (word_bits - 1));
      const std::uint32_t before = r.words[w];
      const Scalar v = a_values(j) * b_values(p);
      RingSlot& at = r.slots[slot];
      if (before & bit) {
        if (at.column == static_cast<Ordinal>(col)) {
          at.sum += v;
        } else {
          clash = true;  // two columns a multiple of the ring apart
        }
      } else {
        r.words[w] = before | bit;
        if (before == 0) r.touched[set_words++] = w;
        at.column = static_cast<Ordinal>(col);
        at.sum = v;
        lo = col < lo ? col : lo;
        hi = col > hi ? col : hi;
      }
    });
    if (clash || hi - lo > mask - word_bits) {
      for (std::int64_t t = 0; t < set_words; ++t) r.words[r.touched[t]] = 0;
      return false;
    }
    const std::int64_t words = (mask + 1) >> column_set_shift;
    const std::int64_t w0 = (lo & mask) >> column_set_shift;
    for (std::int64_t t = 0; t < set_words; ++t) r.touched[t] = (r.touched[t] - w0) & (words - 1);
    sequential_sort_pairs(r.touched, static_cast<int*>(nullptr), set_words);
    std::int64_t out = start;
    for (std::int64_t t = 0; t < set_words; ++t) {
      const std::int64_t w = (r.touched[t] + w0) & (words - 1);
      std::uint32_t word = r.words[w];
      r.words[w] = 0;
      for (; word; word &= word - 1) {
        const RingSlot& at = r.slots[(w << column_set_shift) + lowest_bit32(word)];
        if (out < end) {
          c_entries(out) = at.column;
          c_values(out) = at.sum;
        }
        ++out;
      }
    }
    if (out != end) Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
    return true;
  }

  /// Marks the row's columns, writes them out in order with zero values,
  /// and then adds each product into C's row at its column's rank.
  KOKKOS_INLINE_FUNCTION void ranked_row(const Dense& d, std::int64_t row, std::int64_t start,
                                         std::int64_t end) const {
    std::int64_t set_words = 0;
    if (source.compressed) {
      const auto runs_ahead = rows_ahead(a_entries, prefetch_limit, source.row_map, source.keys, source.masks);
      for (auto j = a_row_map(row); j < a_row_map(row + 1); ++j) {
        runs_ahead.at(static_cast<std::int64_t>(j));
        set_words = mark_runs(d, a_entries(j), set_words);
      }
    } else {
      for_each_product(row, [&](const auto, const auto p) { set_words = mark_column(d, b_entries(p), set_words); });
    }
    std::int64_t out = start;
    // Columns as summed_row writes them (an empty word between set ones
    // gets a rank no product asks for), then the row's values zeroed.
    read_out<true>(d, set_words, [&](std::int64_t w, std::uint32_t word) {
      d.bitmap.words[w] = 0;
      d.ranks[w] = (static_cast<std::uint64_t>(out - start) << 32) | word;
      out = write_word_columns(c_entries.data(), static_cast<Ordinal>(w << column_set_shift), word, out, end);
    });
    if (out != end) {
      // A rank past the row's end would add outside it.
      Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      return;
    }
    for (std::int64_t i = start; i < end; ++i) c_values(i) = Scalar(0);
    for_each_product(row, [&](const auto j, const auto p) {
      const Ordinal col = b_entries(p);
      const std::uint64_t rank = d.ranks[col >> column_set_shift];
      const std::uint32_t below = (std::uint32_t(1) << (col & ((1 << column_set_shift) - 1))) - 1;
      const std::int64_t at = start + static_cast<std::int64_t>(rank >> 32) +
                              popcount32(static_cast<std::uint32_t>(rank) & below);
      c_values(at) += a_values(j) * b_values(p);
    });
  }

  /// Marks the runs of B's row k; returns the list's new length.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t mark_runs(const Dense& d, Ordinal k, std::int64_t set_words) const {
    for (auto q = source.row_map(k); q < source.row_map(k + 1); ++q)
      set_words = mark_word(d.bitmap.words, d.touched, static_cast<Ordinal>(source.keys(q)), source.masks(q), set_words);
    return set_words;
  }

  /// Marks one column without a branch on whether it is new; returns the
  /// list's new length.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t mark_column(const Dense& d, Ordinal col, std::int64_t set_words) const {
    return mark_word(d.bitmap.words, d.touched, static_cast<Ordinal>(col >> column_set_shift),
                     std::uint32_t(1) << (col & ((1 << column_set_shift) - 1)), set_words);
  }

  /// Calls emit(w, word) for the row's set words in ascending order
  /// (ordered_words.hpp).
  template <bool EmptyWords = false, class Emit>
  KOKKOS_INLINE_FUNCTION void read_out(const Dense& d, std::int64_t set_words, const Emit& emit) const {
    emit_set_words_in_order<EmptyWords>(d.bitmap, d.touched, set_words, bitmap_words, emit);
  }
};

}  // namespace gustav::detail
