#pragma once
/// Binning by row size for the hierarchical mapping (seeds 000 and 003): every
/// row of A goes to a bin by how many products it has and how many keys its
/// accumulator can hold, and every bin has its own thread mapping and table
/// size, so that short and long rows both run well.
///
///   tiny     at most `tiny_products` products: one thread per row, the
///            products in registers, no table at all
///   worker   a worker (a few lanes of a warp, or a whole warp) per row, its
///            hash table in team scratch
///   team     a team (CUDA block) per row, its hash table in team scratch
///   long     several teams per row, a dense accumulator over B's columns in
///            global memory taken from a pool (long_rows.hpp)
///
/// The symbolic counting pass bins by the product count (an upper bound on a
/// row's keys); the numeric phase (and the structure fill) by the exact nnz
/// of the row of C. This file decides the bins on the host from sizes; the
/// kernels classify rows with RowBinBounds.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gustav/errors.hpp"

namespace gustav::detail {

/// Rows with at most this many products take the tiny path.
constexpr std::int64_t tiny_products = 8;

/// The most bins a phase has (tiny, worker and team bins, long).
constexpr int max_row_bins = 14;

enum class RowLevel : std::uint8_t { tiny, worker, team, long_row };

struct RowBin {
  std::string name;
  RowLevel level = RowLevel::worker;
  std::int64_t max_need = 0;      ///< rows whose need is in (previous bin's, max_need]
  std::int64_t max_products = 0;  ///< ... and who have at most this many products
  std::int64_t max_entries = 0;   ///< ... and at most this many entries of A
  int log2_slots = 0;             ///< hash table slots per row (worker and team bins)
  int vector_length = 1;          ///< lanes per worker
  int team_size = 1;              ///< workers per team
  std::size_t scratch_bytes = 0;  ///< team scratch per team
};

/// Marks rows that take no bin in row_bin arrays.
constexpr std::uint8_t no_bin = 0xFF;

/// The bins' bounds, passed to kernels by value.
struct RowBinBounds {
  std::int64_t max_need[max_row_bins] = {};
  std::int64_t max_products[max_row_bins] = {};
  std::int64_t max_entries[max_row_bins] = {};
  int count = 0;

  /// Bin of a row with `products` products from `entries` entries of A and
  /// accumulator need `need`: no_bin for a row without products, else the
  /// first bin that takes all three.
  KOKKOS_INLINE_FUNCTION std::uint8_t of(std::int64_t products, std::int64_t need, std::int64_t entries) const {
    if (products <= 0) return no_bin;
    for (int b = 0; b < count; ++b)
      if (need <= max_need[b] && products <= max_products[b] && entries <= max_entries[b])
        return static_cast<std::uint8_t>(b);
    return static_cast<std::uint8_t>(count - 1);
  }
};

inline RowBinBounds bounds_of(const std::vector<RowBin>& bins) {
  if (bins.size() > static_cast<std::size_t>(max_row_bins)) throw internal_error("gustav: too many row bins");
  RowBinBounds b;
  b.count = static_cast<int>(bins.size());
  for (std::size_t i = 0; i < bins.size(); ++i) {
    b.max_need[i] = bins[i].max_need;
    b.max_products[i] = bins[i].max_products;
    b.max_entries[i] = bins[i].max_entries;
  }
  return b;
}

/// What a phase needs to size its bins.
struct BinRequest {
  /// Team scratch bytes of one row's table of 2^log2 slots.
  std::function<std::size_t(int log2)> table_bytes;
  /// Largest share of a table's slots that its keys may fill.
  double worker_load = 0.5;
  /// Table slots per lane of a worker bin (fewer lanes share a row).
  int slots_per_lane = 8;
  double team_load = 0.75;
  std::size_t scratch_max = 0;  ///< team scratch available per team
  /// Team scratch a team row needs besides its table (its share of the
  /// products' bookkeeping).
  std::size_t team_row_extra_bytes = 0;
  int threads_per_team = 256;   ///< on GPUs; hosts run one thread per team
  int max_vector_length = 32;   ///< 1 on hosts
  bool host = false;
};

/// Keys a table of 2^log2 slots accepts at `load`.
inline std::int64_t table_capacity(int log2, double load) {
  const auto slots = std::int64_t(1) << log2;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(slots - 1, static_cast<std::int64_t>(slots * load)));
}

/// A worker table of at most this many slots per lane writes its row by
/// rank (each lane ranks its keys among the row's); larger ones are sorted,
/// which costs several times more.
constexpr int rank_slots_per_lane = 8;

/// Lanes for a numeric worker whose rows have about `products` products and
/// a table of 2^log2_slots slots: about 8 products per lane, but never so
/// few lanes that the row would have to be sorted. Fewer lanes per row
/// amortise a row's fixed work (clearing its table, filling its cache,
/// placing its keys) over more rows per warp: on an H200, 8 products per
/// lane instead of 4 took the numeric kernels of lap3d:120 from 2.90 to
/// 2.11 ms and of lap2d:2000:9 from 6.56 to 5.03 ms, while going below the
/// rank limit (lanes * 8 < slots) made er:1000000:8's twice as slow.
inline int lanes_for_products(double products, int log2_slots, int max_lanes) {
  int v = 2;
  while (v < max_lanes && 8.0 * v < products) v *= 2;
  while (v < max_lanes && v * rank_slots_per_lane < (1 << log2_slots)) v *= 2;
  return std::min(v, max_lanes);
}

/// The bins of one phase: tiny, worker bins of doubling tables while at
/// least 4 workers' tables fit a team, team bins up to the largest table
/// that fits, then the long bin. `products_per_slot` bounds how much work a
/// row may bring to a table before it moves up a level.
inline std::vector<RowBin> make_row_bins(const BinRequest& r) {
  std::vector<RowBin> bins;
  RowBin tiny;
  tiny.name = "tiny";
  tiny.level = RowLevel::tiny;
  tiny.max_need = std::numeric_limits<std::int64_t>::max();
  tiny.max_products = tiny_products;
  tiny.max_entries = std::numeric_limits<std::int64_t>::max();
  tiny.team_size = r.host ? 1 : 128;
  bins.push_back(tiny);

  // A worker (at most a warp) takes rows of up to 64 products per slot; a
  // team up to 256 per slot; beyond that a row is split over several teams.
  // A row walks A's entries a chunk at a time (32 for a worker, 256 for a
  // team; dependent loads, and for a team its barriers), so a row of many
  // entries goes to the several teams of the long rows however few
  // products it has: a user x page graph's most active user (16,711 pages
  // of few editors, 301 entries of C) kept one team at work for 0.3 ms.
  const std::int64_t worker_work = 64, team_work = 256;
  const std::int64_t worker_entries = r.host ? std::numeric_limits<std::int64_t>::max() : 2048;
  const std::int64_t team_entries = r.host ? std::numeric_limits<std::int64_t>::max() : 4096;
  int log2 = 5;
  for (; r.table_bytes(log2) <= r.scratch_max; ++log2) {
    const std::int64_t cap = table_capacity(log2, r.worker_load);
    const int lanes = r.host ? 1 : std::min(r.max_vector_length, std::max(2, (1 << log2) / r.slots_per_lane));
    const int by_threads = r.host ? 1 : std::max(1, r.threads_per_team / lanes);
    const int by_scratch = static_cast<int>(r.scratch_max / r.table_bytes(log2));
    const int workers = std::min(by_threads, by_scratch);
    if (!r.host && workers < 4) break;
    if (r.host && log2 > 9) break;
    RowBin b;
    b.name = "worker/" + std::to_string(1 << log2);
    b.level = RowLevel::worker;
    b.max_need = cap;
    b.max_products = worker_work << log2;
    b.max_entries = worker_entries;
    b.log2_slots = log2;
    b.vector_length = lanes;
    b.team_size = workers;
    b.scratch_bytes = r.table_bytes(log2) * static_cast<std::size_t>(workers);
    bins.push_back(b);
  }
  // CPUs' scratch is large; their tables stop at 2^14 slots, beyond which
  // a row's table would no longer fit a core's cache anyway.
  const int largest = r.host ? 14 : 30;
  for (; r.table_bytes(log2) + r.team_row_extra_bytes <= r.scratch_max && log2 <= largest; ++log2) {
    RowBin b;
    b.name = "team/" + std::to_string(1 << log2);
    b.level = RowLevel::team;
    b.max_need = table_capacity(log2, r.team_load);
    b.max_products = team_work << log2;
    b.max_entries = team_entries;
    b.log2_slots = log2;
    b.vector_length = r.host ? 1 : std::min(r.max_vector_length, 32);
    b.team_size = r.host ? 1 : std::max(1, r.threads_per_team / b.vector_length);
    b.scratch_bytes = r.table_bytes(log2) + r.team_row_extra_bytes;
    bins.push_back(b);
  }
  RowBin long_rows;
  long_rows.name = "long";
  long_rows.level = RowLevel::long_row;
  long_rows.max_need = std::numeric_limits<std::int64_t>::max();
  long_rows.max_products = std::numeric_limits<std::int64_t>::max();
  long_rows.max_entries = std::numeric_limits<std::int64_t>::max();
  long_rows.vector_length = r.host ? 1 : std::min(r.max_vector_length, 32);
  long_rows.team_size = r.host ? 1 : std::max(1, r.threads_per_team / long_rows.vector_length);
  bins.push_back(long_rows);
  return bins;
}

}  // namespace gustav::detail
