#pragma once
/// The numeric phase's per-row work. The symbolic phase already wrote the
/// row's (sorted) columns, so a row's accumulator is a map column -> position
/// in the row, built from those columns; every product then adds a(i,k) *
/// b(k,j) at its position. No key is ever claimed during the products, no
/// sort is needed afterwards, and a product whose column is not in the
/// planned structure is detected (error_structure_changed) instead of being
/// lost.
///
/// Values accumulate in team scratch (written out once, coalesced) for rows
/// whose accumulators fit it, and straight into C for spilling rows and on
/// CPUs, where the row of C is in cache anyway. The CPU's dense accumulator
/// maps columns to positions directly, or, where B is too wide for that,
/// by rank (ranked_dense_row); where every row of C spans few columns (A
/// streams through B), rows sum in a ring of values indexed by the column's
/// low bits (ring_dense_row); where the positions outgrow a core's L2 and no
/// ring holds the rows, a product finds its position in a small hash table
/// of the row's columns (hashed_dense_row).
///
/// The pass reads A and B defensively (checked_row, index_below): a row map
/// that is broken where it is read, a column of A that is no row of B, or a
/// column of B outside its columns raises error_bad_a or error_bad_b and is
/// skipped, so the numeric phase needs no separate O(nnz) pass over the
/// operands before it (that pass was a fifth of a repeat of lap3d:120's
/// A * P on two threads); the caller names the fault afterwards.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/hash_slot.hpp"
#include "gustav/accumulators/hash_table.hpp"
#include "gustav/accumulators/ring_slot.hpp"
#include "gustav/accumulators/two_level_hashmap.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/prefetch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/dense_rows.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class ConcurrencyT>
struct NumericPass {
  using execution_space = ExecSpace;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Concurrency = ConcurrencyT;
  using Map = TwoLevelHashmap<Ordinal, Concurrency, int>;
  static constexpr Ordinal empty = Ordinal(-1);
  static constexpr int dense_fill_byte = 0xFF;  ///< dense positions start at -1
  static constexpr bool has_long_prepare = true;
  /// CPUs accumulate into C directly; GPUs into scratch (see the file comment).
  static constexpr bool values_in_scratch = !is_host_space<ExecSpace>();

  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  typename Types::values a_values;
  typename Types::b_row_map b_row_map;
  typename Types::entries b_entries;
  typename Types::values b_values;
  Kokkos::View<const typename Types::c_offset_type*, typename Types::device_type> c_row_map;
  Kokkos::View<const Ordinal*, typename Types::device_type> c_entries;
  typename Types::c_values c_values;
  Kokkos::View<int, typename Types::device_type> errors;
  double max_load = 0.5;
  std::int64_t prefetch_limit = 0;  ///< rows of B are fetched ahead up to this entry of A (0: none)
  /// How CPU dense rows sum (dense_rows.hpp).
  DenseRows dense_rows = DenseRows::positions;
  /// DenseRows::ranked: 32-column words over B's columns.
  std::int64_t words = 0;
  /// DenseRows::ring: the ring's ring_mask + 1 values (a power of two at
  /// least as wide as every row of C's span of columns) indexed by a
  /// column's low bits.
  std::int64_t ring_mask = 0;
  /// DenseRows::hashed: log2 of the table's slots, enough for the longest
  /// row of C (hashed_log2_slots).
  int hash_log2_slots = 0;
  /// The operands' extents for the defensive reads.
  std::int64_t a_nnz = 0, b_rows = 0, b_nnz = 0, b_cols = 0;

  /// Entries [b0, b1) of the row of B that entry j of A names, or an empty
  /// range and the error bit where A's column or B's row map is malformed.
  KOKKOS_INLINE_FUNCTION int b_range(std::int64_t j, std::int64_t& b0, std::int64_t& b1) const {
    return checked_b_row(b_row_map, static_cast<std::int64_t>(a_entries(j)), b_rows, b_nnz, b0, b1);
  }
  KOKKOS_INLINE_FUNCTION void raise(int bits) const {
    if (bits) Kokkos::atomic_fetch_or(&errors(), bits);
  }

  KOKKOS_INLINE_FUNCTION std::int64_t need(std::int64_t row) const {
    return static_cast<std::int64_t>(c_row_map(row + 1) - c_row_map(row));
  }

  struct Table {
    Ordinal* keys;
    int* positions;
    Scalar* values;
  };
  KOKKOS_INLINE_FUNCTION static Table layout(Carver& c, int log2_slots, std::int64_t value_slots) {
    const std::int64_t s = std::int64_t(1) << log2_slots;
    Table t;
    t.values = value_slots > 0 ? c.take<Scalar>(value_slots) : nullptr;
    t.keys = c.take<Ordinal>(s);
    t.positions = c.take<int>(s);
    return t;
  }
  /// Level-1 bytes of one row's region; `need_cap` value accumulators on GPUs.
  KOKKOS_INLINE_FUNCTION static std::size_t region_bytes(int log2_slots, std::int64_t need_cap) {
    Carver c(nullptr);
    layout(c, log2_slots, values_in_scratch ? need_cap : 0);
    return c.used();
  }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes_for(int log2_slots) {
    Carver c(nullptr);
    layout(c, log2_slots, 0);
    return c.used();
  }
  /// The ranked dense accumulator (ranked_dense_row): a word of the columns
  /// absent from the row and the row position of the first present one, per
  /// 32 columns of B. One layout for sizing and carving.
  struct Ranked {
    std::uint32_t* absent;
    int* first;
  };
  KOKKOS_INLINE_FUNCTION static Ranked ranked_layout(Carver& c, std::int64_t words) {
    Ranked r;
    r.absent = c.take<std::uint32_t>(words);
    r.first = c.take<int>(words);
    return r;
  }
  /// The ring (ring_dense_row): a word that says whether the slots are set
  /// up, then the slots, each holding the column it has in the current row
  /// beside that column's value, so that a product's test and its add touch
  /// one cache line (with the columns and values in two arrays they touched
  /// two: two threads of an AMD EPYC, 2026-12-05, numeric-only reuse in
  /// processes run in turn, lap3d:100 65.0, 64.0 -> 62.5, 62.6 ms,
  /// lap2d:1000:9 80.2, 79.0 -> 78.3, 77.3, lap3d:120's A * P 68.6, 67.1 ->
  /// 66.2, 65.8). An empty slot s holds ~s, which no column can match
  /// there: ~s falls on slot (ring_mask - s), never s, the width being
  /// even. (One mark for every slot, such as -1, would match a malformed
  /// column equal to it on the slot that column falls on.)
  /// Tried and dropped (two threads of an AMD EPYC, 2026-12-07, numeric-only
  /// reuse ms, alternating processes): slots holding the column's entry of
  /// C instead of its value, products adding into C's row, no read-out and
  /// no clearing (a slot's entry outside the row's range told another
  /// row's): lap3d:60 10.0, 10.2 -> 9.5, 9.4 and lap2d:800:5 level, but
  /// band:300000:5 18.7, 18.9 -> 21.2, 21.0 and lap3d:120's A * P 43.6,
  /// 44.2 -> 46.1, 50.7: each add waits on the slot's entry before its
  /// load of C.
  using RingSlot = detail::RingSlot<Scalar, Ordinal>;
  struct Ring {
    std::uint64_t* ready;
    RingSlot* slots;
  };
  static constexpr std::uint64_t ring_ready = 0x52696e6752656479ull;
  /// A slot's bytes: its value and column, padded (the ready word aside).
  static constexpr std::size_t ring_slot_bytes = sizeof(RingSlot);
  KOKKOS_INLINE_FUNCTION static Ring ring_layout(Carver& c, std::int64_t width) {
    Ring r;
    r.ready = c.take<std::uint64_t>(1);
    r.slots = c.take<RingSlot>(width);
    return r;
  }
  static std::size_t ring_bytes(std::int64_t width) {
    Carver c(nullptr);
    ring_layout(c, width);
    return c.used();
  }
  /// The ring's bytes the pool sets to dense_fill_byte: its ready word
  /// alone, so the first row a thread takes on a new pool sets the slots
  /// up.
  static std::size_t ring_fill_bytes(std::int64_t) {
    Carver c(nullptr);
    c.take<std::uint64_t>(1);
    return c.used();
  }
  KOKKOS_INLINE_FUNCTION static Ordinal ring_empty(std::int64_t slot) { return static_cast<Ordinal>(~slot); }
  /// The hashed rows' table (hashed_dense_row). An empty slot is all ones,
  /// as the pool sets it (dense_fill_byte): its position, -1, says so even
  /// where a malformed column equals its column.
  using HashSlot = detail::HashSlot<Ordinal>;
  /// Rows of C of at most this many entries are scanned, not hashed (on
  /// er:1000000:2's rows of four, hashed, the repeat took 49-51 ms against
  /// 45 scanned, two threads).
  static constexpr std::int64_t hashed_scan_max = 8;
  /// Log2 of the slots a row of n entries takes: at most an eighth full (a
  /// lookup that probes past its home slot is a mispredicted branch; half
  /// full, er:1000000:8's repeat took 465-474 ms against 406-415 on two
  /// threads), and at least 16 slots.
  KOKKOS_INLINE_FUNCTION static int hashed_log2_slots(std::int64_t n) {
    int log2 = 4;
    while ((std::int64_t(1) << log2) < 8 * n) ++log2;
    return log2;
  }
  /// Dense accumulator bytes: the position in the row of every column of B
  /// and, summed, a value per column; ranked, ranked_layout's words; ring,
  /// ring_layout's `ring_width` slots; hashed, the table of a row of
  /// `ring_width` entries (the longest).
  static std::size_t dense_bytes(DenseRows rows, std::int64_t num_cols, std::int64_t ring_width = 0) {
    if (rows == DenseRows::ring) return ring_bytes(ring_width);
    if (rows == DenseRows::hashed) return sizeof(HashSlot) << hashed_log2_slots(ring_width);
    if (num_cols >= dense_columns_max) return dense_never_allowed;
    Carver c(nullptr);
    if (rows == DenseRows::ranked) {
      ranked_layout(c, ceil_div<std::int64_t>(num_cols, 32));
    } else {
      c.take<int>(num_cols);
      if (rows == DenseRows::summed) c.take<Scalar>(num_cols);
    }
    return c.used();
  }
  /// Bytes at the start of a dense accumulator that the pool sets to
  /// dense_fill_byte: summed, the positions alone (the values are zeroed by
  /// each row for its own columns, and read nowhere else); ring, the ready
  /// word (ring_fill_bytes); else all of it.
  static std::size_t dense_fill_bytes(DenseRows rows, std::int64_t num_cols, std::int64_t ring_width = 0) {
    switch (rows) {
      case DenseRows::summed:
        return dense_bytes(DenseRows::positions, num_cols);
      case DenseRows::ring:
        return ring_fill_bytes(ring_width);
      default:
        return ~std::size_t(0);
    }
  }

  template <class Level, class Member>
  KOKKOS_INLINE_FUNCTION void process_row(const Member& team, const RowContext& ctx) const {
    if (ctx.dense) {
      dense_row(ctx);
      return;
    }
    const std::int64_t row = ctx.row;
    const std::int64_t n = row >= 0 ? need(row) : 0;
    const std::int64_t start = row >= 0 ? static_cast<std::int64_t>(c_row_map(row)) : 0;
    const bool scratch_values = values_in_scratch && !ctx.spill;
    Carver c1(ctx.scratch);
    // A worker tier's rows all carve the same layout: size the value array
    // by the tier's capacity, not the row, so workers agree on offsets.
    const Table l1 = layout(c1, ctx.log2_slots, scratch_values ? capacity_of(ctx.log2_slots, max_load) : 0);
    Table l2{nullptr, nullptr, nullptr};
    int log2_l2 = 0;
    if (ctx.spill && row >= 0) {
      log2_l2 = log2_slots_for(n, max_load);
      Carver c2(ctx.chunk);
      l2 = layout(c2, log2_l2, 0);
    }
    Scalar* acc = scratch_values ? l1.values : c_values.data() + start;

    if (ctx.level1_probes > 0) Level::for_each(team, 1 << ctx.log2_slots, [&](int s) { l1.keys[s] = empty; });
    if (l2.keys) Level::for_each(team, 1 << log2_l2, [&](int s) { l2.keys[s] = empty; });
    Level::for_each(team, n, [&](std::int64_t q) { acc[q] = Scalar(0); });
    team.team_barrier();

    Map map;
    map.level1 = {l1.keys, ctx.log2_slots};
    map.level1_payload = l1.positions;
    map.level1_probes = ctx.level1_probes;
    map.level2 = {l2.keys, log2_l2};
    map.level2_payload = l2.positions;
    Level::for_each(team, n, [&](std::int64_t q) {
      bool fresh = false;
      int* slot = map.claim(c_entries(start + q), fresh);
      if (slot) {
        *slot = static_cast<int>(q);
      } else {
        Kokkos::atomic_fetch_or(&errors(), int(error_table_full));
      }
    });
    team.team_barrier();

    if (row >= 0) {
      std::int64_t a0, a1;
      if (!checked_row(a_row_map, row, a_nnz, a0, a1)) raise(error_bad_a);
      Level::for_each_range_product(
          team, a0, a1, [&](const std::int64_t j, std::int64_t& b0, std::int64_t& b1) { raise(b_range(j, b0, b1)); },
          [&](const std::int64_t j, const std::int64_t p) {
            const Ordinal col = b_entries(p);
            // A column outside B's would find an empty slot (its key is -1).
            const int* q = index_below(col, b_cols) ? map.find(col) : nullptr;
            if (q) {
              Concurrency::add(acc + *q, Scalar(a_values(j) * b_values(p)));
            } else {
              raise(index_below(col, b_cols) ? error_structure_changed : error_bad_b);
            }
          },
          checked_rows_ahead(a_entries, prefetch_limit, b_row_map, b_entries, b_values));
    }
    team.team_barrier();
    if (scratch_values) {
      Level::for_each(team, n, [&](std::int64_t q) { c_values(start + q) = acc[q]; });
      team.team_barrier();
    }
  }

  // --- long rows (long_rows.hpp) ---------------------------------------------
  // A long row needs no accumulator memory: C's rows are sorted by the
  // symbolic phase (the long-row read-out and every sorted tier produce
  // them in order), so a product finds its position by binary search in the
  // row's columns, whose upper levels stay in cache, and adds its value
  // straight into C. (A global hash table per row was measured slower: each
  // probe is a cache miss, and building it costs a pass over the row.)

  KOKKOS_INLINE_FUNCTION std::size_t long_row_bytes(std::int64_t) const { return 0; }
  KOKKOS_INLINE_FUNCTION auto product_row_map() const { return b_row_map; }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void long_prepare(const Member& team, char*, std::int64_t row) const {
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, need(row)),
                         [&](std::int64_t q) { c_values(start + q) = Scalar(0); });
  }

  /// Position of `col` in the sorted row [start, end) of C, or -1.
  KOKKOS_INLINE_FUNCTION std::int64_t search_row(std::int64_t start, std::int64_t end, Ordinal col) const {
    return find_sorted(c_entries, start, end, col);
  }

  KOKKOS_INLINE_FUNCTION void long_product(char*, std::int64_t row, std::int64_t j, std::int64_t p) const {
    const std::int64_t q = search_row(static_cast<std::int64_t>(c_row_map(row)),
                                      static_cast<std::int64_t>(c_row_map(row + 1)), b_entries(p));
    if (q >= 0) {
      // Several teams share the row: always atomic.
      Concurrent::add(&c_values(q), Scalar(a_values(j) * b_values(p)));
    } else {
      Kokkos::atomic_fetch_or(&errors(), int(error_structure_changed));
    }
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void long_finish(const Member&, char*, std::int64_t) const {}

  /// Hands every product of `row` to `add(column, value)`, which returns
  /// error bits (a column outside the planned structure). A's value is
  /// loaded once per entry and B's arrays through local pointers: through
  /// the views, the compiler reloaded both at every product (the store into
  /// C's row might have changed them).
  /// Without CheckColumns B's columns reach `add` unchecked: for callers
  /// whose accumulator takes any column safely and tells a bad one apart
  /// only when it is not found (ring_dense_row).
  template <bool CheckColumns = true, class Add>
  KOKKOS_INLINE_FUNCTION void for_each_row_product(std::int64_t row, const Add& add) const {
    std::int64_t a0, a1;
    if (!checked_row(a_row_map, row, a_nnz, a0, a1)) {
      raise(error_bad_a);
      return;
    }
    const auto ahead = checked_rows_ahead(a_entries, prefetch_limit, b_row_map, b_entries, b_values);
    const auto* const columns = b_entries.data();
    const auto* const values = b_values.data();
    int bits = 0;
    for (std::int64_t j = a0; j < a1; ++j) {
      ahead.at(j);
      std::int64_t b0, b1;
      bits |= b_range(j, b0, b1);
      const Scalar a = a_values(j);
      for (std::int64_t p = b0; p < b1; ++p) {
        const Ordinal col = columns[p];
        if constexpr (CheckColumns) {
          if (!index_below(col, b_cols)) {
            bits |= error_bad_b;
            continue;
          }
        }
        bits |= add(col, a * values[p]);
      }
    }
    raise(bits);
  }

  /// Adds every product of `row` into `acc` (C's row) at the position
  /// `locate(column)` gives, or, where that is negative (a column outside
  /// the planned structure), reports the change.
  template <class Locate>
  KOKKOS_INLINE_FUNCTION void add_row_products(std::int64_t row, Scalar* acc, const Locate& locate) const {
    for_each_row_product(row, [&](const Ordinal col, const Scalar& v) {
      const int q = locate(col);
      if (q < 0) return int(error_structure_changed);
      acc[q] += v;
      return 0;
    });
  }

  /// CPU dense accumulator: position of each column of B in the current row
  /// (-1 elsewhere, restored after the row), values straight into C.
  KOKKOS_INLINE_FUNCTION void dense_row(const RowContext& ctx) const {
    if (ctx.row < 0) return;
    // Only host plans take the ring (symbolic.hpp): device kernels do not
    // carry it.
    if constexpr (is_host_space<ExecSpace>()) {
      if (dense_rows == DenseRows::ring) {
        ring_dense_row(ctx);
        return;
      }
    }
    if (dense_rows == DenseRows::ranked) {
      ranked_dense_row(ctx);
      return;
    }
    if (dense_rows == DenseRows::hashed) {
      hashed_dense_row(ctx);
      return;
    }
    if (dense_rows == DenseRows::summed) {
      summed_dense_row(ctx);
      return;
    }
    const std::int64_t row = ctx.row;
    int* position = reinterpret_cast<int*>(ctx.chunk);
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    for (std::int64_t q = start; q < end; ++q) {
      position[c_entries(q)] = static_cast<int>(q - start);
      c_values(q) = Scalar(0);
    }
    add_row_products(row, c_values.data() + start, [&](const Ordinal col) { return position[col]; });
    for (std::int64_t q = start; q < end; ++q) position[c_entries(q)] = -1;
  }

  /// The same, summed in a value per column of B: a product adds to its
  /// column's value, and its column's position is read only to learn
  /// whether the column is in the row, so the add no longer waits for that
  /// load (each product's add waited on its column's position, then on C's
  /// value: the pass's time went to that store on lap3d:60's A * P). The
  /// row's columns are zeroed first and copied to C after; a product
  /// outside the row (a changed structure) raises the error and adds
  /// nothing.
  KOKKOS_INLINE_FUNCTION void summed_dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    Carver c(ctx.chunk);
    int* position = c.take<int>(b_cols);
    Scalar* sums = c.take<Scalar>(b_cols);
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    for (std::int64_t q = start; q < end; ++q) {
      const Ordinal col = c_entries(q);
      position[col] = static_cast<int>(q - start);
      sums[col] = Scalar(0);
    }
    for_each_row_product(row, [&](const Ordinal col, const Scalar& v) {
      // The test is predicted (a changed structure is the rare case), so
      // the add does not wait on the position; values outside the row are
      // never set by the pool, and never read.
      if (position[col] < 0) return int(error_structure_changed);
      sums[col] += v;
      return 0;
    });
    for (std::int64_t q = start; q < end; ++q) {
      const Ordinal col = c_entries(q);
      c_values(q) = sums[col];
      position[col] = -1;
    }
  }

  /// The same in a ring: a column's value lives in slot column & ring_mask,
  /// so the slots a thread touches stay the same few cache lines as its rows
  /// move through B's columns. A value per column of B (summed_dense_row)
  /// or a position per column brings the lines of each new stretch of
  /// columns in from memory and leaves them for the next thread's rows.
  /// The row's columns lie within ring_mask + 1 of its first (C's rows are
  /// sorted), so no two share a slot; a product whose slot does not hold
  /// its column is a changed structure: it raises the error and adds
  /// nothing, its test predicted as summed_dense_row's is.
  KOKKOS_INLINE_FUNCTION void ring_dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    Carver c(ctx.chunk);
    const Ring ring = ring_layout(c, ring_mask + 1);
    if (*ring.ready != ring_ready) {
      for (std::int64_t slot = 0; slot <= ring_mask; ++slot) ring.slots[slot].column = ring_empty(slot);
      *ring.ready = ring_ready;
    }
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    for (std::int64_t q = start; q < end; ++q) {
      const Ordinal col = c_entries(q);
      const std::int64_t slot = static_cast<std::int64_t>(col) & ring_mask;
      ring.slots[slot].column = col;
      ring.slots[slot].sum = Scalar(0);
    }
    // Any column, even a malformed one, falls on a slot of the ring, so the
    // columns are checked only where their slot does not hold them.
    for_each_row_product<false>(row, [&](const Ordinal col, const Scalar& v) {
      const std::int64_t slot = static_cast<std::int64_t>(col) & ring_mask;
      RingSlot& at = ring.slots[slot];
      if (at.column != col) return int(index_below(col, b_cols) ? error_structure_changed : error_bad_b);
      at.sum += v;
      return 0;
    });
    for (std::int64_t q = start; q < end; ++q) {
      const std::int64_t slot = static_cast<std::int64_t>(c_entries(q)) & ring_mask;
      c_values(q) = ring.slots[slot].sum;
      ring.slots[slot].column = ring_empty(slot);
    }
  }

  /// The same in a hash table of the row's columns and positions, sized by
  /// the row (hashed_log2_slots): where a position per column of B
  /// outgrows a core's L2 and the rows' columns are scattered, each product
  /// missed that cache for its position, and on 16 threads the misses of
  /// all the cores' positions became the pass's bound. The table's slots
  /// are cleared after the row, all of them: at most eight stores an entry
  /// of the row, in order.
  KOKKOS_INLINE_FUNCTION void hashed_dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    Carver c(ctx.chunk);
    HashSlot* const slots = c.take<HashSlot>(std::int64_t(1) << hash_log2_slots);
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    const int log2 = hashed_log2_slots(end - start);
    if (log2 > hash_log2_slots) {
      // The table is sized by the plan's longest row, so this guards only
      // the chunk's bounds: nothing is added.
      raise(error_structure_changed);
      return;
    }
    if (end - start <= hashed_scan_max) {
      // A row this short is scanned whole for each product's column:
      // no table to fill or clear, and no branch on the scan.
      const Ordinal* const row_columns = c_entries.data() + start;
      const int n = static_cast<int>(end - start);
      for (int q = 0; q < n; ++q) c_values(start + q) = Scalar(0);
      add_row_products(row, c_values.data() + start, [&](const Ordinal col) {
        int at = -1;
        for (int q = 0; q < n; ++q) at = row_columns[q] == col ? q : at;
        return at;
      });
      return;
    }
    const std::uint64_t mask = (std::uint64_t(1) << log2) - 1;
    for (std::int64_t q = start; q < end; ++q) {
      const Ordinal col = c_entries(q);
      std::uint64_t s = hash_slot_of(static_cast<std::int64_t>(col), log2);
      while (slots[s].position >= 0) s = (s + 1) & mask;
      slots[s].column = col;
      slots[s].position = static_cast<int>(q - start);
      c_values(q) = Scalar(0);
    }
    add_row_products(row, c_values.data() + start, [&](const Ordinal col) {
      std::uint64_t s = hash_slot_of(static_cast<std::int64_t>(col), log2);
      while (slots[s].column != col) {
        if (slots[s].position < 0) return -1;
        s = (s + 1) & mask;
      }
      return slots[s].position;
    });
    for (std::uint64_t s = 0; s <= mask; ++s) {
      slots[s].column = static_cast<Ordinal>(~Ordinal(0));
      slots[s].position = -1;
    }
  }

  /// The same where a position per column of B would not fit: the row's
  /// sorted columns mark their bits in a word per 32 columns and each word
  /// notes the position of its first column, so a product's position is that
  /// plus the popcount of the word's bits below its column. The words hold
  /// the columns absent from the row (the pool starts them at all ones,
  /// dense_fill_byte, as the positions above start at -1).
  KOKKOS_INLINE_FUNCTION void ranked_dense_row(const RowContext& ctx) const {
    const std::int64_t row = ctx.row;
    Carver c(ctx.chunk);
    const Ranked acc = ranked_layout(c, words);
    const std::int64_t start = static_cast<std::int64_t>(c_row_map(row));
    const std::int64_t end = static_cast<std::int64_t>(c_row_map(row + 1));
    std::int64_t last_word = -1;
    for (std::int64_t q = start; q < end; ++q) {
      const std::int64_t col = static_cast<std::int64_t>(c_entries(q));
      const std::int64_t w = col >> 5;
      if (w != last_word) acc.first[w] = static_cast<int>(q - start);
      last_word = w;
      acc.absent[w] &= ~(std::uint32_t(1) << (col & 31));
      c_values(q) = Scalar(0);
    }
    add_row_products(row, c_values.data() + start, [&](const Ordinal col) {
      const std::uint32_t bit = std::uint32_t(1) << (col & 31);
      const std::uint32_t out = acc.absent[col >> 5];
      return (out & bit) ? -1 : acc.first[col >> 5] + popcount32(~out & (bit - 1));
    });
    for (std::int64_t q = start; q < end; ++q) acc.absent[c_entries(q) >> 5] = ~std::uint32_t(0);
  }
};

}  // namespace gustav::detail
