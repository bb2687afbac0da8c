#pragma once
/// The SpMV kernels, y = alpha * A * x + beta * y, each row summed by the
/// lanes of one worker (worker_sum: a shuffle tree to the first lane on
/// CUDA), by a warp, or, for very long rows, by segments over all teams:
///
/// - SpmvRows: one worker per row (row_mapping.hpp picks lanes and rows per
///   worker); rows longer than the mapping's medium_row are listed instead;
/// - SpmvListedRows: the listed rows, a warp of 32 lanes each, or, for
///   those longer than long_row, segments of spmv_segment_entries that any
///   team may sum, so that a worker never waits on a long row while its
///   neighbours are done, and the hub rows of a power-law matrix do not
///   fall to one team each (R-MAT's hubs have neighbouring indices);
/// - SpmvTeamRows: one team per row, when the average row is long;
/// - ScaleVector: y = beta * y for alpha = 0, which reads neither A nor x.
///
/// Every kernel that reads A first checks that row_map starts at 0 and ends
/// at nnz; if not, it reports both end points (workspace.hpp) and computes
/// nothing, so y is left as it was. beta = 0 never reads y, so y may hold
/// anything (NaN, uninitialised memory) on entry, as BLAS callers expect.
/// Every row's sum is taken in an order fixed by the matrix and the
/// mapping, so repeated calls give the same bits.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "gustav/common/concurrency.hpp"
#include "gustav/common/worker_sum.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/spmv/workspace.hpp"

namespace gustav::detail {

/// What every SpMV kernel reads and writes.
template <class Input, class XView, class YView>
struct SpmvOperands {
  using scalar = std::remove_const_t<typename decltype(Input::values)::value_type>;

  decltype(Input::row_map) row_map;
  decltype(Input::entries) entries;
  decltype(Input::values) values;
  XView x;
  YView y;
  scalar alpha;
  scalar beta;
  bool read_y = true;  ///< false when beta = 0
  std::int64_t num_rows = 0;
  std::int64_t nnz = 0;

  /// Whether row_map starts at 0 and ends at nnz (read by every team: two
  /// loads that the cache serves after the first team).
  KOKKOS_INLINE_FUNCTION bool ends_agree() const {
    return static_cast<std::int64_t>(row_map(0)) == 0 && static_cast<std::int64_t>(row_map(num_rows)) == nnz;
  }

  /// Row i's first entry, held to [0, nnz]: the kernels check only
  /// row_map's end points, and a malformed inner entry must not send them
  /// outside the arrays.
  KOKKOS_INLINE_FUNCTION std::int64_t begin(const std::int64_t i) const {
    const auto b = static_cast<std::int64_t>(row_map(i));
    return b < 0 ? 0 : (b > nnz ? nnz : b);
  }
  /// Row i's end, held to [b, nnz] (b: the row's begin).
  KOKKOS_INLINE_FUNCTION std::int64_t end(const std::int64_t i, const std::int64_t b) const {
    const auto e = static_cast<std::int64_t>(row_map(i + 1));
    return e < b ? b : (e > nnz ? nnz : e);
  }

  KOKKOS_INLINE_FUNCTION scalar product(const std::int64_t p) const { return values(p) * x(entries(p)); }

  KOKKOS_INLINE_FUNCTION void store(const std::int64_t i, const scalar& sum) const {
    y(i) = read_y ? static_cast<scalar>(beta * y(i) + alpha * sum) : static_cast<scalar>(alpha * sum);
  }

  /// The sum of the n entries from b, by every thread and lane of the team
  /// (each gets it). Each thread takes entries k, k + q, k + 2q and k + 3q
  /// (q: a quarter of the range), so that four loads are in flight at once:
  /// one team on one row waits on memory latency (arrow:10000's dense row
  /// took 40 us under Nsight Compute with one load at a time).
  template <class Member>
  KOKKOS_INLINE_FUNCTION scalar team_sum(const Member& team, const std::int64_t b, const std::int64_t n) const {
    const std::int64_t q = (n + 3) / 4;
    scalar sum = scalar();
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, q),
        [&](const std::int64_t k, scalar& partial) {
          partial += product(b + k);
          if (k + q < n) partial += product(b + k + q);
          if (k + 2 * q < n) partial += product(b + k + 2 * q);
          if (k + 3 * q < n) partial += product(b + k + 3 * q);
        },
        sum);
    return sum;
  }

  /// Row i summed by the whole team; one thread stores it.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void team_row(const Member& team, const std::int64_t i) const {
    const std::int64_t b = begin(i);
    const scalar sum = team_sum(team, b, end(i, b) - b);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { store(i, sum); });
    // Kokkos 3.4's CUDA team reduction reuses its shared memory without a
    // closing barrier: a second reduction could overwrite it while slow
    // threads still read this one's result.
    team.team_barrier();
  }

  /// Row i (of begin b and end e) summed by the lanes of the calling worker
  /// from global memory, its first lane storing it (worker_sum.hpp: on an
  /// H200 lap2d:2000:9 took 0.272 ms against 0.317 with Kokkos' vector
  /// reduction, band:1000000:5 0.109 against 0.121). Lanes: the worker's
  /// lanes when known at compile time, else 0; LongRows: the row is known
  /// to be long (worker_sum.hpp).
  template <int Lanes = 0, bool LongRows = false, class Member>
  KOKKOS_INLINE_FUNCTION void worker_row(const Member& team, const std::int64_t i, const std::int64_t b,
                                         const std::int64_t e) const {
    // Zero-based range: every backend starts its lanes at the same place.
    const scalar sum =
        worker_sum<scalar, Lanes, LongRows>(team, e - b, [&](const std::int64_t k) { return product(b + k); });
    on_first_lane<Lanes>(team, [&]() { store(i, sum); });
  }
};

/// Rows listed for teams are cut into segments of this many entries, the
/// segments of all of them shared by the league: one team alone on a hub
/// row (ia-wikiquote's longest has 16,711 entries) kept the kernel running
/// long after every other team was done.
constexpr int spmv_segment_shift = 11;
constexpr std::int64_t spmv_segment_entries = std::int64_t(1) << spmv_segment_shift;

/// The segments of a row of n entries (one at least). A shift, not a
/// division: a 64-bit division is a call on CUDA, and its registers made
/// the row kernel, which lists the rows, spill.
KOKKOS_INLINE_FUNCTION std::int64_t spmv_segments_of(const std::int64_t n) {
  return n > spmv_segment_entries ? (n + spmv_segment_entries - 1) >> spmv_segment_shift : 1;
}

/// Segments a call may need: one per spmv_segment_entries of A's entries,
/// and one more per row that can be listed for a team (its last, partial
/// one).
inline std::int64_t spmv_segments_bound(std::int64_t nnz, std::int64_t team_rows) {
  return nnz / spmv_segment_entries + team_rows;
}

/// The rows left to SpmvListedRows and the end-point report, as kernels see
/// them. The list: two sets of two counters, [0] rows listed for a warp
/// each, [1] rows listed for a team each (low 32 bits) and their segments
/// (high 32 bits), calls using the sets in turn; then room for the warps'
/// rows from the front and for the teams' rows (as many as first_segment
/// holds) from the back. The listed-rows kernel of a call
/// clears the other set, which the call before used, so no kernel has to
/// learn that every team of it is done (a fence and an atomic on one
/// counter in each of its teams, on every call, even with nothing listed:
/// H200, arrow:10000 0.0244 -> 0.0209 ms and delaunay_n16 0.0214 -> 0.0188
/// without them).
/// A row that finds its part full is summed where it is instead: that
/// happens only where a malformed row map makes rows overlap, so that they
/// hold more entries between them than A has.
template <class ExecSpace>
struct SpmvLists {
  Kokkos::View<unsigned long long*, typename ExecSpace::memory_space> list;
  Kokkos::View<std::int64_t*, typename ReportMemory<ExecSpace>::type> report;
  /// Per row listed for a team: its first segment, its segments summed so
  /// far (workspace.hpp).
  Kokkos::View<unsigned long long*, typename ExecSpace::memory_space> first_segment;
  Kokkos::View<unsigned long long*, typename ExecSpace::memory_space> segments_done;
  /// The segments' partial sums.
  Kokkos::View<spmv_partial_slot*, typename ExecSpace::memory_space> partials;
  /// The two counters of this call's set, and of the previous call's, in
  /// `list`.
  unsigned long long* counters = nullptr;
  unsigned long long* previous = nullptr;
  /// Whether listing a row is noted in the report (listing_memory.hpp).
  bool note_listing = false;

  static constexpr int team_count_bits = 32;
  static constexpr unsigned long long team_count_mask = (1ull << team_count_bits) - 1;

  KOKKOS_INLINE_FUNCTION std::int64_t team_capacity() const {
    return static_cast<std::int64_t>(first_segment.extent(0));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t warp_capacity() const {
    return static_cast<std::int64_t>(list.extent(0)) - spmv_list_counters - team_capacity();
  }

  /// Row i goes to a warp, unless the warps' part is full (one lane of one
  /// worker calls this; false: the caller sums the row).
  KOKKOS_INLINE_FUNCTION bool add_for_warp(const std::int64_t i) const {
    const auto k = static_cast<std::int64_t>(Kokkos::atomic_fetch_add(&counters[0], 1ull));
    if (k >= warp_capacity()) return false;
    list(spmv_list_counters + k) = static_cast<unsigned long long>(i);
    return true;
  }
  /// Row i, of n entries, goes to a team, unless the teams' part or the
  /// segments' slots are full (false: the caller sums the row). One atomic
  /// takes its place in the list and its segments' places after those of
  /// the rows before it, so first_segment rises with the list and the
  /// listed-rows kernel finds a segment's row by binary search. (A
  /// compare-and-swap that never lets either count pass its room made the
  /// R-MAT graphs 1.7x slower: hundreds of rows listed at once retry.) A
  /// row whose segments do not all fit keeps its place, marked as summed
  /// elsewhere, so that the places after it stay in order.
  KOKKOS_INLINE_FUNCTION bool add_for_team(const std::int64_t i, const std::int64_t n) const {
    const auto segments = static_cast<unsigned long long>(spmv_segments_of(n));
    const auto before = Kokkos::atomic_fetch_add(&counters[1], (segments << team_count_bits) | 1ull);
    const auto k = static_cast<std::int64_t>(before & team_count_mask);
    if (k >= team_capacity()) return false;
    const auto first = before >> team_count_bits;
    first_segment(k) = first;
    const bool fits = first + segments <= static_cast<unsigned long long>(partials.extent(0));
    list(list.extent(0) - 1 - k) = fits ? static_cast<unsigned long long>(i) : summed_elsewhere;
    return fits;
  }
  /// The team list's mark of a row that its own worker summed.
  static constexpr unsigned long long summed_elsewhere = ~0ull;

  /// Clears the counter set the previous call used (one thread of this
  /// call's listed-rows kernel: the previous call's kernels are done, and
  /// the next call's row kernel, which lists into that set, comes after).
  KOKKOS_INLINE_FUNCTION void clear_previous() const {
    previous[0] = 0;
    previous[1] = 0;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t warp_rows() const {
    const auto listed = static_cast<std::int64_t>(counters[0]);
    return listed < warp_capacity() ? listed : warp_capacity();
  }
  KOKKOS_INLINE_FUNCTION std::int64_t team_rows() const {
    const auto listed = static_cast<std::int64_t>(counters[1] & team_count_mask);
    return listed < team_capacity() ? listed : team_capacity();
  }
  KOKKOS_INLINE_FUNCTION std::int64_t team_segments() const {
    const auto listed = static_cast<std::int64_t>(counters[1] >> team_count_bits);
    const auto room = static_cast<std::int64_t>(partials.extent(0));
    return listed < room ? listed : room;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t warp_row(const std::int64_t k) const {
    return static_cast<std::int64_t>(list(spmv_list_counters + k));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t team_row(const std::int64_t k) const {
    return static_cast<std::int64_t>(list(list.extent(0) - 1 - k));
  }

  /// Notes in the report that a row was listed, on calls that launch the
  /// listed-rows kernel only if one was (note_listing; any number of
  /// threads may, on a host backend through an atomic).
  KOKKOS_INLINE_FUNCTION void note_listed() const {
    if constexpr (is_host_space<ExecSpace>()) {
      Kokkos::atomic_fetch_or(&report(report_listed), std::int64_t(1));
    } else {
      report(report_listed) = 1;
    }
  }

  /// Whether op's row map ends where it must; if not, one thread of the
  /// team reports its end points. Every thread of the team gets the answer.
  template <class Member, class Operands>
  KOKKOS_INLINE_FUNCTION bool check(const Member& team, const Operands& op) const {
    if (op.ends_agree()) return true;
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      report(report_first) = static_cast<std::int64_t>(op.row_map(0));
      report(report_last) = static_cast<std::int64_t>(op.row_map(op.num_rows));
      report(report_bad) = 1;
    });
    return false;
  }
};

/// Row i, of entries [b, e) and longer than a worker takes, listed for a
/// team if longer than long_row, else for a warp; if its part of the list
/// is full (only a malformed row map fills it) the calling lane sums it.
template <class ExecSpace, class Operands>
KOKKOS_INLINE_FUNCTION void list_or_sum_row(const SpmvLists<ExecSpace>& lists, const Operands& op,
                                            const std::int64_t i, const std::int64_t b, const std::int64_t e,
                                            const std::int64_t long_row) {
  if (lists.note_listing) lists.note_listed();
  if (e - b > long_row ? lists.add_for_team(i, e - b) : lists.add_for_warp(i)) return;
  typename Operands::scalar sum{};
  for (std::int64_t p = b; p < e; ++p) sum += op.product(p);
  op.store(i, sum);
}

/// Lanes: the policy's vector length when fixed at compile time (one
/// instance per power of two on GPUs), else 0.
template <class ExecSpace, class Operands, int Lanes = 0>
struct SpmvRows {
  /// At most 32 registers a thread on CUDA (8 teams of 256 threads a
  /// multiprocessor): a worker's row is a chain of dependent loads, and
  /// only more resident warps hide their latency (38 registers, 75 %
  /// occupancy, without the bound).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                    Kokkos::LaunchBounds<row_mapping_threads_per_team, 8>>;
  using Member = typename Policy::member_type;

  Operands op;
  SpmvLists<ExecSpace> lists;
  int rows_per_worker = 1;
  std::int64_t medium_row = 0;  ///< longer rows are listed for a warp each
  std::int64_t long_row = 0;    ///< longer rows are listed for a team each

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!lists.check(team, op)) return;
    for_each_worker_row(team, op.num_rows, rows_per_worker, [&](const std::int64_t i) {
      const std::int64_t b = op.begin(i);
      const std::int64_t e = op.end(i, b);
      if (e - b > medium_row) {
        Kokkos::single(Kokkos::PerThread(team), [&]() { list_or_sum_row(lists, op, i, b, e, long_row); });
        return;
      }
      op.template worker_row<Lanes>(team, i, b, e);
    });
  }
};

/// The listed rows: first the segments of those for a team each, teams
/// striding over them, then the rows for a warp each, the workers of every
/// team striding over them. The next call's listed-rows kernel clears the
/// counts; a row's segment count is back at zero once its last segment is
/// summed, and every segment of a listed row is summed: a row is listed
/// for a team only if all its segments fit the slots.
template <class ExecSpace, class Operands, int Lanes = 0>
struct SpmvListedRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using scalar = typename Operands::scalar;
  static_assert(sizeof(scalar) <= sizeof(spmv_partial_slot) && alignof(scalar) <= alignof(spmv_partial_slot),
                "gustav::spmv: a partial sum must fit its slot");

  Operands op;
  SpmvLists<ExecSpace> lists;

  /// Segment g of the teams' rows, summed by the calling team. A row of one
  /// segment is stored at once; otherwise the segment's sum goes to its
  /// slot, and the team that sums the row's last segment adds the row's
  /// slots in segment order (the same bits on every call, whichever team
  /// came last) and stores the row.
  KOKKOS_INLINE_FUNCTION void team_segment(const Member& team, const std::int64_t g, const std::int64_t rows) const {
    // The listed row of segment g: the last whose first segment is at most g.
    std::int64_t k = 0, hi = rows - 1;
    while (k < hi) {
      const std::int64_t mid = k + (hi - k + 1) / 2;
      if (static_cast<std::int64_t>(lists.first_segment(mid)) <= g) k = mid;
      else hi = mid - 1;
    }
    if (static_cast<unsigned long long>(lists.team_row(k)) == SpmvLists<ExecSpace>::summed_elsewhere) return;
    const std::int64_t i = lists.team_row(k);
    const std::int64_t b = op.begin(i);
    const std::int64_t n = op.end(i, b) - b;
    const std::int64_t segments = spmv_segments_of(n);
    const auto first_slot = static_cast<std::int64_t>(lists.first_segment(k));
    const std::int64_t s = g - first_slot;
    // Segment g may lie past the row found (places a row summed elsewhere
    // reserved, after overlapping rows) or before it: then it is no one's.
    if (s < 0 || s >= segments) return;
    const std::int64_t from = s * spmv_segment_entries;
    const scalar sum = op.team_sum(team, b + from, from + spmv_segment_entries < n ? spmv_segment_entries : n - from);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (segments == 1) {
        op.store(i, sum);
        return;
      }
      scalar* slots = reinterpret_cast<scalar*>(lists.partials.data()) + first_slot;
      slots[s] = sum;
      Kokkos::memory_fence();
      if (Kokkos::atomic_fetch_add(&lists.segments_done(k), 1ull) + 1 == static_cast<unsigned long long>(segments)) {
        Kokkos::memory_fence();
        scalar total = scalar();
        for (std::int64_t t = 0; t < segments; ++t) total += load_shared_level(slots + t);
        op.store(i, total);
        lists.segments_done(k) = 0;
      }
    });
    // See team_row: the next reduction must not overwrite this one's.
    team.team_barrier();
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t for_warps = lists.warp_rows();
    const std::int64_t for_teams = lists.team_rows();
    const std::int64_t segments = lists.team_segments();
    if (team.league_rank() == 0)
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        lists.clear_previous();
        lists.report(report_warp_rows) = for_warps;
        lists.report(report_team_rows) = for_teams;
        lists.report(report_segments) = segments;
      });
    for (std::int64_t g = team.league_rank(); g < segments; g += team.league_size()) team_segment(team, g, for_teams);
    const std::int64_t workers = static_cast<std::int64_t>(team.league_size()) * team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int w) {
      for (std::int64_t k = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + w; k < for_warps;
           k += workers) {
        const std::int64_t i = lists.warp_row(k);
        const std::int64_t b = op.begin(i);
        op.template worker_row<Lanes, true>(team, i, b, op.end(i, b));
      }
    });
  }
};

template <class ExecSpace, class Operands>
struct SpmvTeamRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Operands op;
  SpmvLists<ExecSpace> lists;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!lists.check(team, op)) return;
    for (std::int64_t i = team.league_rank(); i < op.num_rows; i += team.league_size()) op.team_row(team, i);
  }
};

/// y = beta * y, or y = 0 without reading y when beta = 0.
template <class YView, class Scalar>
struct ScaleVector {
  YView y;
  Scalar beta;
  bool read_y = true;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    y(i) = read_y ? static_cast<Scalar>(beta * y(i)) : Scalar();
  }
};

}  // namespace gustav::detail
