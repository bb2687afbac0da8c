#pragma once
/// The operands as the hierarchical kernels see them, and the two ways they
/// walk the products a(i,k) * b(k,j) of a row of A.
///
/// Every read of a row range or a column index is checked, so malformed
/// input (the numeric phase checks its operands while it runs, not before)
/// raises an error bit instead of reading outside an array.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// Whether 0 <= i < n (one unsigned comparison).
template <class I>
KOKKOS_FORCEINLINE_FUNCTION bool index_below(I i, std::int64_t n) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(i)) < static_cast<std::uint64_t>(n);
}

/// Entries [begin, end) of row i of a row map over `nnz` entries, or false
/// (and an empty range) where the row map is broken there: a row outside
/// [0, nnz] or running backwards.
template <class RowMap>
KOKKOS_INLINE_FUNCTION bool checked_row(const RowMap& row_map, std::int64_t i, std::int64_t nnz,
                                        std::int64_t& begin, std::int64_t& end) {
  begin = static_cast<std::int64_t>(row_map(i));
  end = static_cast<std::int64_t>(row_map(i + 1));
  if (begin < 0 || begin > end || end > nnz) {
    begin = end = 0;
    return false;
  }
  return true;
}

/// Entries [begin, end) of row k of B, or 0 where they are sound; else an
/// empty range and error_bad_a (k, a column of A, is no row of B) or
/// error_bad_b (B's row map is broken there).
template <class RowMap>
KOKKOS_INLINE_FUNCTION int checked_b_row(const RowMap& b_row_map, std::int64_t k, std::int64_t b_rows,
                                         std::int64_t b_nnz, std::int64_t& begin, std::int64_t& end) {
  if (!index_below(k, b_rows)) {
    begin = end = 0;
    return error_bad_a;
  }
  return checked_row(b_row_map, k, b_nnz, begin, end) ? 0 : int(error_bad_b);
}

template <class Types>
struct ProductOperands {
  using Ordinal = typename Types::ordinal_type;
  typename Types::a_row_map a_row_map;
  typename Types::entries a_entries;
  typename Types::values a_values;
  typename Types::b_row_map b_row_map;
  typename Types::entries b_entries;
  typename Types::values b_values;
  std::int64_t a_nnz = 0, b_rows = 0, b_nnz = 0, b_cols = 0;

  /// Entries [begin, end) of row i of A, or false (and an empty range).
  KOKKOS_INLINE_FUNCTION bool a_row(std::int64_t i, std::int64_t& begin, std::int64_t& end) const {
    return checked_row(a_row_map, i, a_nnz, begin, end);
  }
  /// Entries [begin, end) of row k of B, or false (and an empty range) when
  /// k is no row of B or its row map is broken there.
  KOKKOS_INLINE_FUNCTION bool b_row(std::int64_t k, std::int64_t& begin, std::int64_t& end) const {
    return checked_b_row(b_row_map, k, b_rows, b_nnz, begin, end) == 0;
  }
  KOKKOS_INLINE_FUNCTION bool column_ok(Ordinal c) const { return index_below(c, b_cols); }
};

/// The products of row entries [a_begin, a_end) in walk order (A's entries
/// in order, each row of B in order), flattened: product t of the row goes
/// to lane t % lanes, so the lanes of a worker stay evenly busy whether B's
/// rows are short or long. Calls f(j, p, t) for this lane's products and
/// returns the row's product count (all lanes get it). Sets `bad` when a
/// column index of A or a row of B is malformed.
template <class Ops, class F>
KOKKOS_INLINE_FUNCTION std::int64_t walk_lane_products(const Ops& ops, std::int64_t a_begin, std::int64_t a_end,
                                                       int lane, int lanes, bool& bad, const F& f) {
  std::int64_t base = 0;
  const std::int64_t lane_mask = lanes - 1;  // lanes is a power of two
  for (std::int64_t j = a_begin; j < a_end; ++j) {
    std::int64_t b0, b1;
    if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bad = true;
    const std::int64_t len = b1 - b0;
    for (std::int64_t t = (lane - base) & lane_mask; t < len; t += lanes) f(j, b0 + t, base + t);
    base += len;
  }
  return base;
}

/// True where every row of B is strictly increasing (and well formed): the
/// t-th entry of such a row has the t-th lowest column.
template <class Types, class ExecSpace>
bool b_rows_increasing(const ExecSpace& space, const ProductOperands<Types>& ops, const char* label) {
  std::int64_t unordered = 0;
  Kokkos::parallel_reduce(
      label, light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, ops.b_rows)),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& count) {
        std::int64_t b0, b1;
        if (!ops.b_row(k, b0, b1)) count += 1;
        for (std::int64_t p = b0 + 1; p < b1; ++p)
          if (ops.b_entries(p) <= ops.b_entries(p - 1)) {
            count += 1;
            break;
          }
      },
      unordered);
  return unordered == 0;
}

/// A worker's scratch copy of up to `capacity` entries of a row of A: for
/// each entry, where its row of B starts and how long it is. The lanes load
/// the entries at once, so a row costs one round of dependent global loads
/// (A's column, then B's row map) per `capacity` entries instead of one per
/// entry, which on GPUs is most of a short row's time. `Index` holds an
/// offset into B: 32 bits wherever B's offsets fit them, since the cache is
/// up to half of a small-table worker's scratch, and scratch per worker is
/// what bounds the warps an SM keeps (on an H200, lap3d:120's A * P ran its
/// 32-slot rows at 39 % occupancy with 64-bit caches).
template <class Index>
struct RowCacheOf {
  static constexpr int capacity = 32;
  Index* begin = nullptr;
  Index* length = nullptr;

  KOKKOS_INLINE_FUNCTION static std::size_t bytes() { return 2 * capacity * sizeof(Index); }
  /// The cache at `base` (aligned for Index), bytes() long.
  KOKKOS_INLINE_FUNCTION static RowCacheOf at(char* base) {
    RowCacheOf c;
    c.begin = reinterpret_cast<Index*>(base);
    c.length = reinterpret_cast<Index*>(base) + capacity;
    return c;
  }
};

/// The RowCache of a product's types: 32-bit entries where every offset of
/// B (and so every row length) fits them, else 64-bit.
template <class Types>
using RowCache = RowCacheOf<std::conditional_t<
    std::numeric_limits<std::remove_const_t<typename Types::b_row_map::value_type>>::max() <=
        std::numeric_limits<std::int32_t>::max(),
    std::int32_t, std::int64_t>>;

/// walk_lane_products for a worker with a RowCache: product t of the row on
/// lane t % lanes, each lane's in order, f(j, p, t) called by each lane for
/// its own. Must be called by all lanes of the worker (not inside a vector
/// loop); returns the row's product count on every lane.
template <class Member, class Ops, class Cache, class F>
KOKKOS_INLINE_FUNCTION std::int64_t walk_worker_products(const Member& team, const Ops& ops, const Cache& cache,
                                                         std::int64_t a_begin, std::int64_t a_end, int lanes,
                                                         bool& bad, const F& f) {
  std::int64_t base = 0;
  const std::int64_t lane_mask = lanes - 1;  // lanes is a power of two
  using Index = std::remove_pointer_t<decltype(cache.begin)>;
  for (std::int64_t first = a_begin; first < a_end; first += Cache::capacity) {
    const int m = a_end - first < Cache::capacity ? static_cast<int>(a_end - first) : Cache::capacity;
    // Vector loops end with the lanes synchronised, so the cache is whole
    // before the walk reads it, and read before the next chunk refills it.
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int i) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + i)), b0, b1)) bad = true;
      cache.begin[i] = static_cast<Index>(b0);
      cache.length[i] = static_cast<Index>(b1 - b0);
    });
    // Each lane merges its product indices t = lane, lane + lanes, ...
    // (mod lanes, continuing from earlier chunks) with the entries' lengths,
    // so every lane has a product in every round however short B's rows are.
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
      int i = 0;
      std::int64_t entry_start = 0;
      for (std::int64_t t = (lane - base) & lane_mask;; t += lanes) {
        while (i < m && entry_start + cache.length[i] <= t) entry_start += cache.length[i++];
        if (i == m) break;
        f(first + i, static_cast<std::int64_t>(cache.begin[i]) + (t - entry_start), base + t);
      }
      // Every lane ends with the chunk's product count; each keeps its own
      // copy of `base`, so none reads the cache after the loop's closing sync.
      base += entry_start;
    });
  }
  return base;
}

/// A team's scratch copy of up to `capacity` entries of a row of A: where
/// each entry's row of B starts, and how many products come before it in
/// the chunk, so that the team's threads can share the chunk's products
/// evenly however long or short B's rows are.
struct TeamRowCache {
  static constexpr int capacity = 256;
  std::int64_t* begin = nullptr;
  std::int64_t* before = nullptr;  ///< capacity + 1 prefix sums

  KOKKOS_INLINE_FUNCTION static std::size_t bytes() {
    return ((2 * capacity + 1) * sizeof(std::int64_t) + 15) / 16 * 16;
  }
  /// The cache at `base` (8-byte aligned), bytes() long.
  KOKKOS_INLINE_FUNCTION static TeamRowCache at(char* base) {
    TeamRowCache c;
    c.begin = reinterpret_cast<std::int64_t*>(base);
    c.before = c.begin + capacity;
    return c;
  }
};

/// The products of row entries [a_begin, a_end) spread over a whole team,
/// flattened: chunk by chunk of A's entries, thread r of the team's
/// `threads` (workers and lanes together) takes products r, r + threads, ...
/// of the chunk, so neighbouring threads read neighbouring entries of B.
/// Walking A's entries by worker and B's rows by lane instead left most
/// lanes idle where B's rows are short (A * A^T of a user x page graph: 2.5
/// entries per row of B, 32 lanes). A thread finds each product's entry from
/// the one before: a step when B's rows are long, a galloping search when
/// they are short (a binary search for every product cost a third more on
/// ca-HepPh's team rows). Calls f(j, p, t), t the product's index in the
/// row's walk order (A's entries in order, each row of B in order: the t of
/// walk_worker_products); returns the row's product count on every thread.
/// Must be called by the whole team (it synchronises it).
template <class Member, class Ops, class F>
KOKKOS_INLINE_FUNCTION std::int64_t walk_team_products_indexed(const Member& team, const Ops& ops,
                                                               const TeamRowCache& cache, int lanes,
                                                               std::int64_t a_begin, std::int64_t a_end, bool& bad,
                                                               const F& f) {
  const int threads = team.team_size() * lanes;
  std::int64_t total = 0;
  for (std::int64_t first = a_begin; first < a_end; first += TeamRowCache::capacity) {
    const int m = a_end - first < TeamRowCache::capacity ? static_cast<int>(a_end - first) : TeamRowCache::capacity;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, m), [&](const int i) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + i)), b0, b1)) bad = true;
      cache.begin[i] = b0;
      cache.before[i + 1] = b1 - b0;
    });
    team.team_barrier();
    // One worker turns the lengths into prefix sums in place (each element
    // is read for its sum before it is written).
    if (team.team_rank() == 0) {
      Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, m), [&](const int i, std::int64_t& sum, const bool final) {
        sum += cache.before[i + 1];
        if (final) cache.before[i + 1] = sum;
      });
      Kokkos::single(Kokkos::PerThread(team), [&]() { cache.before[0] = 0; });
    }
    team.team_barrier();
    const std::int64_t n = cache.before[m];
    const std::int64_t* before = cache.before;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const int r) {
      int i = 0;  // the entry of the thread's last product
      for (std::int64_t t = r; t < n; t += threads) {
        if (before[i + 1] <= t) {
          // The last entry whose products start at or before t (empty
          // entries start where the next one does, so they are skipped).
          int lo = i + 1, step = 1;
          while (lo + step < m && before[lo + step] <= t) {
            lo += step;
            step <<= 1;
          }
          int hi = lo + step < m ? lo + step - 1 : m - 1;
          while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (before[mid] <= t) {
              lo = mid;
            } else {
              hi = mid - 1;
            }
          }
          i = lo;
        }
        f(first + i, cache.begin[i] + (t - before[i]), total + t);
      }
    });
    total += n;
    // Every thread is done with the chunk before the next one overwrites it.
    team.team_barrier();
  }
  return total;
}

/// walk_team_products_indexed calling f(j, p).
template <class Member, class Ops, class F>
KOKKOS_INLINE_FUNCTION std::int64_t walk_team_products(const Member& team, const Ops& ops, const TeamRowCache& cache,
                                                       int lanes, std::int64_t a_begin, std::int64_t a_end, bool& bad,
                                                       const F& f) {
  return walk_team_products_indexed(team, ops, cache, lanes, a_begin, a_end, bad,
                                    [&](const std::int64_t j, const std::int64_t p, std::int64_t) { f(j, p); });
}

}  // namespace gustav::detail
