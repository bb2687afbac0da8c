#pragma once
/// The positions a plan learns on its first numeric call for the rows that
/// the default path sums in hash tables (worker and team bins of the
/// hierarchical mapping; SpgemmOptions::learn_product_positions): for every
/// product of such a row, in the order the workers walk them (A's entries
/// in order, each row of B in order), the position of its column in the
/// row of C. A repeat then adds each product at its position in a window of
/// the row's values in scratch (sum_bin_positions.hpp): no table to build
/// from C's columns, no column read, no probe.
///
/// Why: on an H100 a repeat of er:100000:16 spent about a third of its
/// hash bins' time rebuilding each row's table from C's columns (loads and
/// an insert per entry) and most of the rest finding each product's slot
/// (Nsight Compute, 2026-12-07); learned positions took the repeat from
/// 1.08 to 0.37 ms (cuSPARSE's repeat 0.42).
///
/// Memory: one byte a product where the bin's rows of C have at most 256
/// entries, two where at most 65,536, plus 8 bytes a row of the bin. Bins
/// are taken in order while the whole stays within a quarter of the bytes
/// of C's own columns and values (so it grows with C, never with the
/// products beyond it) and within the memory budget; the rest keep the
/// tables. Reported in plan.stats().learned_positions_bytes.
///
/// Like learned masks they leave the numeric contract as it is: each
/// repeat compares A's and B's structure with the fingerprint taken on the
/// learning call, and where it differs sums by the default path and drops
/// them (learned_masks.hpp, which holds both).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/launch.hpp"

namespace gustav::detail {

template <class Device>
struct BinPositions {
  /// A bin's positions: row_start(w) .. row_start(w + 1) are the products
  /// of its w-th row (in the schedule's order of the bin's rows); one of
  /// `narrow` (rows of C of up to 256 entries) or `wide` holds them.
  struct Bin {
    Kokkos::View<std::int64_t*, Device> row_start;
    Kokkos::View<std::uint8_t*, Device> narrow;
    Kokkos::View<std::uint16_t*, Device> wide;
    /// The bin's rows (w) with more products than bin_positions_long_row:
    /// a team sums each of them (team_bin_positions.hpp), the workers the
    /// rest.
    Kokkos::View<std::int64_t*, Device> long_rows;
    bool used() const { return row_start.data() != nullptr; }
    std::size_t bytes() const {
      return (row_start.span() + long_rows.span()) * sizeof(std::int64_t) + narrow.span() +
             wide.span() * sizeof(std::uint16_t);
    }
  };
  std::vector<Bin> bins;  ///< per numeric bin of the schedule (host side)

  bool has(std::size_t b) const { return b < bins.size() && bins[b].used(); }
  bool any() const {
    for (const auto& bin : bins)
      if (bin.used()) return true;
    return false;
  }
  std::size_t bytes() const {
    std::size_t sum = 0;
    for (const auto& bin : bins) sum += bin.bytes();
    return sum;
  }
  std::int64_t long_rows() const {
    std::int64_t sum = 0;
    for (const auto& bin : bins) sum += static_cast<std::int64_t>(bin.long_rows.extent(0));
    return sum;
  }
};

/// Rows of C longer than this keep their tables (positions are 16 bits).
constexpr std::int64_t bin_positions_max_row = 65536;
/// Positions take one byte a product up to rows of C of this many entries.
constexpr std::int64_t bin_positions_narrow_row = 256;

/// Lanes a worker of a positions bin takes (host spaces: one).
template <class ExecSpace>
int bin_positions_lanes(const RowBin& bin) {
  if constexpr (is_host_space<ExecSpace>()) return 1;
  if (bin.level == RowLevel::team) return 32;
  return std::min(32, std::max(1, bin.vector_length));
}

/// Workers a team of a positions bin starts with (the launch halves them
/// until their scratch fits): 256 threads on GPUs; one on host spaces,
/// whose teams are a thread each.
template <class ExecSpace>
int bin_positions_team_size(int lanes) {
  if constexpr (is_host_space<ExecSpace>()) return 1;
  return lanes < 256 ? 256 / lanes : 1;
}

/// Products a lane of a positions worker takes in one row at most. A row
/// beyond that many for the worker's lanes takes a whole team instead: one
/// row of 17,420 products in a bin of 1,613 rows averaging 548
/// (ia-wikiquote's A * A^T, team/1024) kept a worker of 32 lanes at it for
/// most of the bin's time, and its repeat took 0.47 ms against the tables'
/// 0.25 (H100, 2026-12-08), whose kernel gives every row of a team bin its
/// team.
constexpr std::int64_t bin_positions_lane_products = 128;
inline std::int64_t bin_positions_long_row(int lanes) { return bin_positions_lane_products * lanes; }

/// Bytes a bin's positions take: `products` positions and a start a row.
inline std::size_t bin_positions_bytes(const RowBin& bin, std::int64_t rows, std::int64_t products) {
  const std::size_t each = bin.max_need <= bin_positions_narrow_row ? 1 : 2;
  return static_cast<std::size_t>(rows + 1) * sizeof(std::int64_t) + static_cast<std::size_t>(products) * each;
}

/// Whether a bin's rows can be summed from positions: hash bins (workers
/// and teams) whose rows of C fit 16-bit positions and, as values, a
/// worker's scratch window of `window_limit` bytes.
template <class Scalar>
bool bin_takes_positions(const RowBin& bin, std::size_t window_limit) {
  if (bin.level != RowLevel::worker && bin.level != RowLevel::team) return false;
  if (bin.max_need <= 0 || bin.max_need > bin_positions_max_row) return false;
  return static_cast<std::size_t>(bin.max_need) * sizeof(Scalar) <= window_limit;
}

/// Which bins of `schedule` a plan learns positions for (per bin, host
/// side): bins that take them and are not `excluded` (summed from masks),
/// in order, while the whole stays within `cap` bytes (a quarter of C's
/// columns and values) and `room` (what the memory budget leaves).
template <class Scalar, class Schedule>
std::vector<char> plan_bin_positions(const Schedule& schedule, const std::vector<char>& excluded, std::size_t cap,
                                     std::size_t room, std::size_t window_limit) {
  std::vector<char> chosen(schedule.bins.size(), 0);
  std::size_t total = 0;
  for (std::size_t b = 0; b < schedule.bins.size() && b < schedule.bin_products.size(); ++b) {
    const std::int64_t rows = schedule.offsets[b + 1] - schedule.offsets[b];
    if (rows == 0 || (b < excluded.size() && excluded[b])) continue;
    if (!bin_takes_positions<Scalar>(schedule.bins[b], window_limit)) continue;
    const std::size_t bytes = bin_positions_bytes(schedule.bins[b], rows, schedule.bin_products[b]);
    if (total + bytes > cap || total + bytes > room) continue;
    total += bytes;
    chosen[b] = 1;
  }
  return chosen;
}

/// The cap on a plan's learned positions: a quarter of the bytes of C's
/// columns and values.
template <class Scalar, class Ordinal>
std::size_t bin_positions_cap(std::int64_t nnz_c) {
  return static_cast<std::size_t>(nnz_c) * (sizeof(Scalar) + sizeof(Ordinal)) / 4;
}

}  // namespace gustav::detail
