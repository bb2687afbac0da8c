#pragma once
/// The rows of C on the hierarchical mapping, once their nnz is known, in
/// three kinds of output over one traversal:
///   structure  C's sorted column indices (gustav::symbolic's plan)
///   values     C's sorted column indices and values (gustav::multiply: the
///              numeric phase writes each row whole, as nsparse does, so the
///              products are walked twice in all, not three times)
///   reuse      values into a plan's known structure (gustav::numeric)
///
/// Tiny rows keep their few products in registers. Worker and team rows
/// accumulate in a hash table in team scratch: keys (and values) by column
/// for the first two kinds, with the row's keys also listed as they arrive,
/// and the row goes out in column order from that list (by rank, or
/// sorted); for reuse the table maps each column of the row to its position,
/// values add up in a scratch array in the row's order and go out in one
/// coalesced write, and a product whose column the row lacks raises
/// error_structure_changed.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/hash_table.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/spgemm/summary.hpp"
#include "gustav/team/levels.hpp"
#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

enum class RowOutput { structure, values, reuse };

template <class ExecSpace, class Types, RowOutput Output>
struct RowWriter {
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using COffset = typename Types::c_offset_type;
  static constexpr bool with_values = Output != RowOutput::structure;

  Kokkos::View<const COffset*, typename Types::device_type> c_row_map;
  typename Types::c_entries c_entries;  ///< written (structure, values) or read (reuse)
  typename Types::c_values c_values;    ///< written (values, reuse)

  KOKKOS_INLINE_FUNCTION std::int64_t start(std::int64_t row) const { return static_cast<std::int64_t>(c_row_map(row)); }
  KOKKOS_INLINE_FUNCTION std::int64_t length(std::int64_t row) const {
    return static_cast<std::int64_t>(c_row_map(row + 1) - c_row_map(row));
  }
};

/// Scratch layout of one row's table; with a null base it only measures.
template <class Types, RowOutput Output>
struct RowTable {
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  Ordinal* keys = nullptr;
  Scalar* values = nullptr;  ///< by slot (structure: none; reuse: by position in the row)
  int* positions = nullptr;  ///< reuse: the row position of each slot's column

  KOKKOS_INLINE_FUNCTION static RowTable carve(Carver& c, int log2_slots) {
    const std::int64_t slots = std::int64_t(1) << log2_slots;
    RowTable t;
    t.keys = c.take<Ordinal>(slots);
    if constexpr (Output == RowOutput::values) t.values = c.take<Scalar>(slots);
    if constexpr (Output == RowOutput::reuse) {
      t.positions = c.take<int>(slots);
      t.values = c.take<Scalar>(slots);
    }
    return t;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(int log2_slots) {
    Carver c(nullptr);
    carve(c, log2_slots);
    return c.used();
  }
};

/// The keys a worker's table took, packed in the order they arrived (a
/// counter, then the keys): placing a row by rank then compares the row's
/// n keys with each other instead of scanning every slot of the table.
template <class Ordinal>
struct KeyList {
  int* count = nullptr;
  Ordinal* keys = nullptr;

  KOKKOS_INLINE_FUNCTION static KeyList carve(Carver& c, int log2_slots) {
    KeyList l;
    l.count = c.take<int>(1);
    l.keys = c.take<Ordinal>(std::int64_t(1) << log2_slots);
    return l;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(int log2_slots) {
    Carver c(nullptr);
    carve(c, log2_slots);
    return c.used();
  }
};

template <class ExecSpace, class Types, class Rows, RowOutput Output, RowLevel Level>
struct AccumulateRows {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Table = HashTable<Ordinal, Concurrent>;
  using Layout = RowTable<Types, Output>;
  using Sync = std::conditional_t<Level == RowLevel::team, TeamLevel, WorkerLevel>;
  using Keys = KeyList<Ordinal>;

  ProductOperands<Types> ops;
  RowWriter<ExecSpace, Types, Output> out;
  Rows rows;  ///< this bin's rows
  std::int64_t num_rows = 0;
  ErrorFlag<typename Types::device_type> errors;
  int log2_slots = 0;
  int lanes = 1;  ///< lanes per worker (the policy's vector length)

  /// Where a plan's first numeric call learns its entries' masks
  /// (learned_masks.hpp) in this bin: each row's first word, and the words,
  /// zeroed, into which every product ORs the bit of its position in its
  /// row of C (reuse only; empty elsewhere).
  using MaskWord = std::uint32_t;
  Kokkos::View<const MaskWord*, typename Types::device_type> mask_start;
  Kokkos::View<MaskWord*, typename Types::device_type> mask_words;
  KOKKOS_INLINE_FUNCTION bool records_masks() const { return mask_words.data() != nullptr; }
  /// Row `row`'s first word and words per entry of A, or a width of 0
  /// where its masks would not hold all its entries of A (a row the masks
  /// were not sized for: no bit is set).
  KOKKOS_INLINE_FUNCTION void mask_row(std::int64_t row, std::int64_t entries, std::int64_t n, std::int64_t& first,
                                       int& width) const {
    first = static_cast<std::int64_t>(mask_start(row));
    const std::int64_t words = mask_words_for(n);
    width = words <= EntryMasks<typename Types::device_type>::max_words && entries * words <= static_cast<std::int64_t>(mask_start(row + 1)) - first
                ? static_cast<int>(words) : 0;
  }

  /// Rows that write their columns list their keys as they arrive: the
  /// row then goes out from the list (place_row), never from the table.
  static constexpr bool lists_keys = Output != RowOutput::reuse;

  /// Scratch of one worker's (or the team's) table, its key list, and the
  /// row cache.
  KOKKOS_INLINE_FUNCTION std::size_t region_bytes() const {
    return Layout::bytes(log2_slots) + (lists_keys ? Keys::bytes(log2_slots) : 0) +
           (Level == RowLevel::worker ? RowCache<Types>::bytes() : TeamRowCache::bytes());
  }
  std::size_t scratch_bytes(int workers) const {
    if constexpr (Level == RowLevel::tiny) return 0;
    return region_bytes() * (Level == RowLevel::team ? 1 : workers) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    int bits = 0;
    if constexpr (Level == RowLevel::tiny) {
      const std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
      if (w < num_rows) Kokkos::single(Kokkos::PerThread(team), [&]() { tiny_row(static_cast<std::int64_t>(rows(w)), bits); });
    } else {
      const std::size_t region = region_bytes();
      char* scratch = static_cast<char*>(
          team.team_scratch(0).get_shmem_aligned(region * (Level == RowLevel::team ? 1 : team.team_size()), 16));
      if constexpr (Level == RowLevel::team) {
        Carver c(scratch);
        const Layout t = Layout::carve(c, log2_slots);
        clear_values(team, t);
        const Keys keys = lists_keys ? Keys::carve(c, log2_slots) : Keys{};
        const TeamRowCache cache = TeamRowCache::at(c.take<char>(static_cast<std::int64_t>(TeamRowCache::bytes())));
        for (std::int64_t r = team.league_rank(); r < num_rows; r += team.league_size())
          table_row(team, static_cast<std::int64_t>(rows(r)), t, keys, cache, bits);
      } else {
        // Each worker loops over rows; its key list and cache follow its table.
        char* mine = scratch + region * team.team_rank();
        Carver c(mine);
        const Layout t = Layout::carve(c, log2_slots);
        clear_values(team, t);
        const Keys keys = lists_keys ? Keys::carve(c, log2_slots) : Keys{};
        const RowCache<Types> cache = RowCache<Types>::at(mine + c.used());  // 16-byte aligned
        for_each_worker_row(team, num_rows, [&](std::int64_t w) {
          table_row(team, static_cast<std::int64_t>(rows(w)), t, keys, cache, bits);
        });
      }
    }
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
  }

  /// Values by position (reuse) are cleared once here and then by each row
  /// as it writes them out, so a row starts on a clean array without a
  /// clearing round and a step between lanes of its own.
  KOKKOS_INLINE_FUNCTION void clear_values(const Member& team, const Layout& t) const {
    if constexpr (Output == RowOutput::reuse) {
      for_each(team, 1 << log2_slots, [&](int s) { t.values[s] = Scalar(); });
      Sync::sync(team);
    }
  }

  /// Writes a row's values by position to C and leaves the array clean.
  KOKKOS_INLINE_FUNCTION void write_values(const Member& team, const Layout& t, std::int64_t start,
                                           std::int64_t n) const {
    for_each(team, n, [&](std::int64_t q) {
      out.c_values(start + q) = t.values[q];
      t.values[q] = Scalar();
    });
  }

  // --- tiny rows: one thread, the products in registers --------------------
  //
  // Every index into the row's arrays is a constant of an unrolled loop, so
  // they stay in registers: with indices computed at run time they went to
  // local memory, and the tiny kernels moved five times the bytes of their
  // operands (er:1000000:2, 1M tiny rows: 0.35 ms a pass).

  KOKKOS_INLINE_FUNCTION void tiny_row(std::int64_t row, int& bits) const {
    Ordinal cols[tiny_products];
    Scalar vals[tiny_products];
#pragma unroll
    for (int s = 0; s < tiny_products; ++s) {
      cols[s] = Ordinal(0);
      vals[s] = Scalar();
    }
    int m = 0;
    std::int64_t a0, a1;
    if (!ops.a_row(row, a0, a1)) bits |= error_bad_a;
    for (std::int64_t j = a0; j < a1; ++j) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
      for (std::int64_t p = b0; p < b1; ++p) {
        const Ordinal c = ops.b_entries(p);
        if (!ops.column_ok(c)) {
          bits |= error_bad_b;
          continue;
        }
        Scalar v{};
        if constexpr (Output != RowOutput::structure) v = ops.a_values(j) * ops.b_values(p);
        bool found = false;
#pragma unroll
        for (int s = 0; s < tiny_products; ++s) {
          if (s < m && cols[s] == c) {
            vals[s] += v;
            found = true;
          }
        }
        if (found) continue;
        if (m == tiny_products) {  // more products than the bin allows: the structure changed
          bits |= error_structure_changed;
          continue;
        }
#pragma unroll
        for (int s = 0; s < tiny_products; ++s) {
          if (s == m) {
            cols[s] = c;
            vals[s] = v;
          }
        }
        ++m;
      }
    }
    const std::int64_t start = out.start(row), n = out.length(row);
    if constexpr (Output == RowOutput::reuse) {
      int found = 0;
      for (std::int64_t q = 0; q < n; ++q) {
        const Ordinal c = out.c_entries(start + q);
        Scalar v{};
#pragma unroll
        for (int s = 0; s < tiny_products; ++s) {
          if (s < m && cols[s] == c) {
            v = vals[s];
            ++found;
          }
        }
        out.c_values(start + q) = v;
      }
      if (found != m) bits |= error_structure_changed;
      if (records_masks() && found == m) tiny_masks(row, a0, a1, start, n);
    } else {
      if (m != n) {
        bits |= error_table_full;
        return;
      }
      // Each column goes to its rank among the row's columns (all distinct).
#pragma unroll
      for (int s = 0; s < tiny_products; ++s) {
        if (s < m) {
          int rank = 0;
#pragma unroll
          for (int u = 0; u < tiny_products; ++u) rank += u < m && cols[u] < cols[s] ? 1 : 0;
          out.c_entries(start + rank) = cols[s];
          if constexpr (Output == RowOutput::values) out.c_values(start + rank) = vals[s];
        }
      }
    }
  }

  /// A tiny row's masks: each product's position found in its row of C
  /// (at most tiny_products entries: one word), its bit set by the row's
  /// one thread.
  KOKKOS_INLINE_FUNCTION void tiny_masks(std::int64_t row, std::int64_t a0, std::int64_t a1, std::int64_t start,
                                         std::int64_t n) const {
    static_assert(tiny_products <= 32, "a tiny row's masks are one word");
    std::int64_t first;
    int width;
    mask_row(row, a1 - a0, n, first, width);
    if (width != 1) return;
    for (std::int64_t j = a0; j < a1; ++j) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) continue;
      MaskWord word = 0;
      for (std::int64_t p = b0; p < b1; ++p) {
        const Ordinal c = ops.b_entries(p);
        for (std::int64_t q = 0; q < n && q < 32; ++q)
          if (out.c_entries(start + q) == c) word |= MaskWord(1) << q;
      }
      mask_words(first + (j - a0)) = word;
    }
  }

  // --- worker and team rows: a hash table in team scratch ------------------

  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each(const Member& team, std::int64_t n, const F& f) const {
    if constexpr (Level == RowLevel::team) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), f);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), f);
    }
  }

  /// Calls f(j, p) for every product of the row, spread over the worker's
  /// lanes (flattened) or the team.
  template <class Cache, class F>
  KOKKOS_INLINE_FUNCTION void for_each_product(const Member& team, std::int64_t a0, std::int64_t a1,
                                               const Cache& cache, int& bits, const F& f) const {
    bool bad = false;
    if constexpr (Level == RowLevel::team) {
      walk_team_products(team, ops, cache, lanes, a0, a1, bad, f);
    } else {
      walk_worker_products(team, ops, cache, a0, a1, lanes, bad,
                           [&](std::int64_t j, std::int64_t p, std::int64_t) { f(j, p); });
    }
    if (bad) bits |= error_bad_a;
  }

  /// `cache` is the worker's RowCache, or the team's TeamRowCache.
  template <class Cache>
  KOKKOS_INLINE_FUNCTION void table_row(const Member& team, std::int64_t row, const Layout& t, const Keys& keys,
                                        const Cache& cache, int& bits) const {
    const int slots = 1 << log2_slots;
    const Table table{t.keys, log2_slots};
    const std::int64_t start = out.start(row), n = out.length(row);
    std::int64_t a0, a1;
    if (!ops.a_row(row, a0, a1)) bits |= error_bad_a;

    if constexpr (Output == RowOutput::reuse) {
      for_each(team, slots, [&](int s) { t.keys[s] = Table::empty; });
      Sync::sync(team);
      for_each(team, n, [&](std::int64_t q) {
        bool is_new = false;
        const int s = table.insert(out.c_entries(start + q), slots, is_new);
        if (s < 0) {
          bits |= error_table_full;
        } else {
          t.positions[s] = static_cast<int>(q);
        }
      });
      Sync::sync(team);
      // A first numeric call learning the masks sets each product's bit
      // (in global memory: an entry's bits come from several lanes).
      std::int64_t mask_first = 0;
      int mask_width = 0;
      if (records_masks()) mask_row(row, a1 - a0, n, mask_first, mask_width);
      for_each_product(team, a0, a1, cache, bits, [&](std::int64_t j, std::int64_t p) {
        const Ordinal c = ops.b_entries(p);
        const int s = ops.column_ok(c) ? table.find(c, slots) : -1;
        if (s < 0) {
          bits |= ops.column_ok(c) ? error_structure_changed : error_bad_b;
          return;
        }
        const int q = t.positions[s];
        Concurrent::add(t.values + q, Scalar(ops.a_values(j) * ops.b_values(p)));
        if (mask_width > 0)
          Kokkos::atomic_fetch_or(&mask_words(mask_first + (j - a0) * mask_width + (q >> 5)), MaskWord(1) << (q & 31));
      });
      Sync::sync(team);
      write_values(team, t, start, n);
    } else {
      for_each(team, slots, [&](int s) {
        t.keys[s] = Table::empty;
        if constexpr (Output == RowOutput::values) t.values[s] = Scalar();
        if (s == 0 && keys.count) *keys.count = 0;
      });
      Sync::sync(team);
      for_each_product(team, a0, a1, cache, bits, [&](std::int64_t j, std::int64_t p) {
        const Ordinal c = ops.b_entries(p);
        if (!ops.column_ok(c)) {
          bits |= error_bad_b;
          return;
        }
        bool is_new = false;
        const int s = table.insert(c, slots, is_new);
        if (s < 0) {
          bits |= error_table_full;
          return;
        }
        if (is_new && keys.count) keys.keys[Kokkos::atomic_fetch_add(keys.count, 1)] = c;
        if constexpr (Output == RowOutput::values) Concurrent::add(t.values + s, Scalar(ops.a_values(j) * ops.b_values(p)));
      });
      Sync::sync(team);
      place_row(team, t, keys, start, n, bits);
    }
    Sync::sync(team);
  }

  /// A worker places its row by rank while each lane holds at most this
  /// many of the row's keys, a team while each thread holds at most
  /// team_rank_keys; larger rows sort their key list first.
  static constexpr int worker_rank_keys = rank_slots_per_lane;
  static constexpr int team_rank_keys = 2;

  /// Writes the row's columns (and values) in column order from its key
  /// list: by rank where each thread holds few keys (no step between the
  /// threads, no barrier), else by sorting the list (a power of two at least
  /// the row's n keys, not the whole table with its empty slots).
  KOKKOS_INLINE_FUNCTION void place_row(const Member& team, const Layout& t, const Keys& keys, std::int64_t start,
                                        std::int64_t n, int& bits) const {
    const int m = *keys.count;
    // The table must hold exactly the row's n columns.
    if (m != n) {
      bits |= error_table_full;
      return;
    }
    const int threads = Level == RowLevel::team ? team.team_size() * lanes : lanes;
    const int per_thread = (m + threads - 1) / threads;
    const int rank_limit = Level == RowLevel::team ? team_rank_keys : worker_rank_keys;
    if (per_thread <= rank_limit) {
      place_by_rank(team, t, keys, m, threads, per_thread, start);
    } else {
      place_sorted(team, t, keys, m, start);
    }
  }

  /// Each key goes straight to its place in C's row: the number of smaller
  /// keys in the row. Thread r holds keys r, r + threads, ... in registers
  /// and reads the list once, as broadcasts (m * m / threads comparisons,
  /// against slots * slots / threads when every slot of the table was read).
  KOKKOS_INLINE_FUNCTION void place_by_rank(const Member& team, const Layout& t, const Keys& keys, int m,
                                            int threads, int per_thread, std::int64_t start) const {
    for_each(team, threads, [&](const int r) {
      if (per_thread <= 1) {
        rank_keys<1>(t, keys, m, r, threads, start);
      } else if (per_thread <= 2) {
        rank_keys<2>(t, keys, m, r, threads, start);
      } else if (per_thread <= 4) {
        rank_keys<4>(t, keys, m, r, threads, start);
      } else {
        rank_keys<worker_rank_keys>(t, keys, m, r, threads, start);
      }
    });
  }

  /// One thread's part of place_by_rank: its at most K keys.
  template <int K>
  KOKKOS_INLINE_FUNCTION void rank_keys(const Layout& t, const Keys& keys, int m, int first, int stride,
                                        std::int64_t start) const {
    Ordinal mine[K];
    int below[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = first + k * stride;
      mine[k] = i < m ? keys.keys[i] : Ordinal(0);
      below[k] = 0;
    }
    for (int u = 0; u < m; ++u) {
      const Ordinal other = keys.keys[u];
#pragma unroll
      for (int k = 0; k < K; ++k) below[k] += other < mine[k] ? 1 : 0;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (first + k * stride >= m) continue;
      write_entry(t, start + below[k], mine[k]);
    }
  }

  /// The list padded with empty keys (which sort last) to a power of two,
  /// sorted, and written out; values are found by key in the table.
  KOKKOS_INLINE_FUNCTION void place_sorted(const Member& team, const Layout& t, const Keys& keys, int m,
                                           std::int64_t start) const {
    const int padded = static_cast<int>(next_pow2(m));
    for_each(team, padded - m, [&](const int i) { keys.keys[m + i] = Table::empty; });
    Sync::sync(team);
    bitonic_sort_pairs<Sync>(team, keys.keys, static_cast<int*>(nullptr), padded);
    for_each(team, m, [&](const int q) { write_entry(t, start + q, keys.keys[q]); });
  }

  /// C's entry at `at`: column `key`, and its value from the table.
  KOKKOS_INLINE_FUNCTION void write_entry(const Layout& t, std::int64_t at, Ordinal key) const {
    out.c_entries(at) = key;
    if constexpr (Output == RowOutput::values) {
      const Table table{t.keys, log2_slots};
      out.c_values(at) = t.values[table.find(key, 1 << log2_slots)];
    }
  }
};

}  // namespace gustav::detail
