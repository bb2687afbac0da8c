#pragma once
/// The rows of B that a rank's block of A reaches, gathered into one local
/// CSR matrix (the import of Tpetra's MatrixMatrix): the rank's own rows of
/// B and copies of the others' that its A references. The symbolic phase
/// builds the plan of who sends which rows to whom and moves the rows'
/// structure once; each numeric phase moves only their values along the
/// same plan.
///
/// B_ext's rows are the global rows A's columns name, ascending, so A's
/// column j becomes B_ext's row (rank of j among them); its columns are the
/// distinct global columns of those rows, ascending, numbered likewise
/// (`columns` maps them back). Both numberings keep global order: sorted
/// rows of C stay sorted when mapped back.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gustav/common/allocation.hpp"
#include "gustav/common/search.hpp"
#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/exchange.hpp"
#include "gustav/distributed/index_bitmap.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/errors.hpp"

namespace gustav::distributed::detail {

/// B_ext's columns are renumbered where B has more than this many times as
/// many global columns as B_ext has rows.
inline constexpr std::int64_t column_renumbering_factor = 4;

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
struct RemoteRows {
  using memory_space = typename ExecSpace::memory_space;
  template <class T>
  using view = Kokkos::View<T*, memory_space>;

  // Rows of this rank's block of B that peers need (what it serves).
  view<Ordinal> served_rows;         ///< local row numbers, the peers' requests back to back in rank order
  view<std::int64_t> served_starts;  ///< each served row's start in the packed entries (then their total)
  ExchangePattern entry_pattern;     ///< entries sent to and received from each peer

  // B_ext, the gathered rows.
  view<Ordinal> rows;                 ///< B_ext row -> global row of B, ascending
  std::int64_t own_first = 0;         ///< B_ext rows [own_first, own_end) are this rank's own rows of B
  std::int64_t own_end = 0;
  std::int64_t block_first = 0;       ///< global number of this rank's first row of B
  view<std::int64_t> received_starts; ///< each received row's start in the received entries (then their total)
  view<Offset> row_map;
  view<Ordinal> entries;              ///< local column numbers
  view<Scalar> values;
  view<Ordinal> columns;              ///< local column -> global column, ascending (when renumbered)
  bool columns_renumbered = false;    ///< else B_ext's columns are B's global ones
  std::int64_t global_cols = 0;       ///< B's global columns

  std::int64_t num_rows() const { return static_cast<std::int64_t>(rows.extent(0)); }
  std::int64_t num_cols() const { return columns_renumbered ? static_cast<std::int64_t>(columns.extent(0)) : global_cols; }
  /// Values this rank sends, and receives, in each numeric phase.
  std::int64_t values_sent() const { return entry_pattern.send_total; }
  std::int64_t values_received() const { return entry_pattern.recv_total; }
};

/// Entries of the served rows of B, packed back to back.
/// Whether a space's kernels run on the host's threads.
template <class ExecSpace>
inline constexpr bool on_host_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

template <class ExecSpace, class BArray>
using PackedOf = Kokkos::View<std::remove_const_t<typename BArray::value_type>*, typename ExecSpace::memory_space>;

// (Explicit return types: nvcc takes no device lambda in a function whose
// return type is deduced.)
template <class ExecSpace, class RR, class BRowMap, class BArray>
PackedOf<ExecSpace, BArray> pack_served(const ExecSpace& space, const RR& rr, const BRowMap& b_row_map,
                                        const BArray& b_array, const std::string& label) {
  using Out = PackedOf<ExecSpace, BArray>;
  const std::int64_t total = rr.entry_pattern.send_total;
  Out out = gustav::detail::allocate_view<Out>(space, label, static_cast<std::size_t>(total), false);
  const std::int64_t n_rows = static_cast<std::int64_t>(rr.served_rows.extent(0));
  const auto rows = rr.served_rows;
  const auto starts = rr.served_starts;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  if constexpr (on_host_v<ExecSpace>) {
    // A row per iteration: contiguous copies (a search per entry took most
    // of a numeric repeat on CPUs).
    Kokkos::parallel_for(
        label, Range(space, 0, n_rows), KOKKOS_LAMBDA(const std::int64_t s) {
          const std::int64_t from = static_cast<std::int64_t>(b_row_map(rows(s)));
          for (std::int64_t p = starts(s); p < starts(s + 1); ++p) out(p) = b_array(from + (p - starts(s)));
        });
  } else {
    // An entry per thread, its row found by binary search: loads coalesce
    // and long rows spread over the device.
    Kokkos::parallel_for(
        label, Range(space, 0, total), KOKKOS_LAMBDA(const std::int64_t p) {
          const std::int64_t s = gustav::detail::last_at_most(starts, p, 0, n_rows - 1);
          out(p) = b_array(static_cast<std::int64_t>(b_row_map(rows(s))) + (p - starts(s)));
        });
  }
  return out;
}

/// Copies entry `offset` of B_ext's row k to out(q): from this rank's
/// block of B or from the received rows.
template <class Rows, class BRowMap, class BArray, class Received, class Starts, class Out>
struct GatheredEntry {
  Rows rows;
  BRowMap b_row_map;
  BArray b_array;
  Received received;
  Starts received_starts;
  Out out;
  std::int64_t own_first, own_end, block_first;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k, const std::int64_t offset, const std::int64_t q) const {
    if (k >= own_first && k < own_end) {
      const std::int64_t local_row = static_cast<std::int64_t>(rows(k)) - block_first;
      out(q) = b_array(static_cast<std::int64_t>(b_row_map(local_row)) + offset);
    } else {
      const std::int64_t r = k < own_first ? k : k - (own_end - own_first);
      out(q) = received(received_starts(r) + offset);
    }
  }
};

/// Fills B_ext's array (`out`, in the order of rr.row_map) from this
/// rank's block of B and the received rows.
template <class ExecSpace, class RR, class BRowMap, class BArray, class Received, class Out>
void fill_gathered(const ExecSpace& space, const RR& rr, const BRowMap& b_row_map, const BArray& b_array,
                   const Received& received, const Out& out, const std::string& label) {
  const std::int64_t total = static_cast<std::int64_t>(out.extent(0));
  const std::int64_t last_row = rr.num_rows() - 1;
  const auto row_map = rr.row_map;
  const auto rows = rr.rows;
  const auto received_starts = rr.received_starts;
  const std::int64_t own_first = rr.own_first, own_end = rr.own_end, block_first = rr.block_first;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  // Views by value: a reference member would point into the host stack.
  const GatheredEntry<std::remove_const_t<decltype(rows)>, BRowMap, BArray, Received,
                      std::remove_const_t<decltype(received_starts)>, Out>
      fill{rows, b_row_map, b_array, received, received_starts, out, own_first, own_end, block_first};
  if constexpr (on_host_v<ExecSpace>) {
    Kokkos::parallel_for(
        label, Range(space, 0, last_row + 1), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t first = static_cast<std::int64_t>(row_map(k));
          for (std::int64_t q = first; q < static_cast<std::int64_t>(row_map(k + 1)); ++q) fill(k, q - first, q);
        });
  } else {
    Kokkos::parallel_for(
        label, Range(space, 0, total), KOKKOS_LAMBDA(const std::int64_t q) {
          const std::int64_t k = gustav::detail::last_at_most(row_map, q, 0, last_row);
          fill(k, q - static_cast<std::int64_t>(row_map(k)), q);
        });
  }
}

/// Moves the values of the planned rows and fills rr.values. Collective.
template <class ExecSpace, class RR, class BRowMap, class BValues>
void gather_values(const ExecSpace& space, MPI_Comm comm, RR& rr, const BRowMap& b_row_map, const BValues& b_values) {
  auto packed = pack_served(space, rr, b_row_map, b_values, "gustav::distributed::pack_values");
  auto received = exchange(space, comm, rr.entry_pattern, packed, "gustav::distributed::received_values");
  fill_gathered(space, rr, b_row_map, b_values, received, rr.values, "gustav::distributed::gather_values");
  space.fence();
}

/// runs(r): the first of the ascending `rows` at or past block r's start.
template <class Rows, class Starts, class Runs>
struct FirstRowOfBlocks {
  Rows rows;
  Starts starts;
  Runs runs;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    runs(r) = gustav::detail::first_at_least(rows, 0, n, starts(r));
  }
};

/// Exclusive running sums of `lengths` into a new array one longer.
template <class ExecSpace, class Lengths>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> running_starts(const ExecSpace& space,
                                                                              const Lengths& lengths,
                                                                              const std::string& label) {
  using Out = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;
  const std::int64_t n = static_cast<std::int64_t>(lengths.extent(0));
  Out starts = gustav::detail::allocate_view<Out>(space, label, static_cast<std::size_t>(n + 1), false);
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        if (final) starts(i) = sum;
        if (i < n) sum += static_cast<std::int64_t>(lengths(i));
      });
  return starts;
}

/// Builds B_ext's structure for the columns in `a_entries` (global, all in
/// [0, B's global rows)) and returns with it `a_entries` renumbered to
/// B_ext's rows. `b_row_map` / `b_entries`: this rank's block of B, global
/// columns in [0, b_num_cols). Collective; every step that can fail on one
/// rank alone (allocations, an offset overflow) ends all ranks together.
template <class Scalar, class Offset, class ExecSpace, class AEntries>
using RemoteRowsFor = RemoteRows<ExecSpace, std::remove_const_t<typename AEntries::value_type>, Offset, Scalar>;

template <class Scalar, class Offset, class ExecSpace, class AEntries, class BRowMap, class BEntries>
std::pair<RemoteRowsFor<Scalar, Offset, ExecSpace, AEntries>,
          Kokkos::View<std::remove_const_t<typename AEntries::value_type>*, typename ExecSpace::memory_space>>
build_remote_rows(const ExecSpace& space, MPI_Comm comm, const AEntries& a_entries, const RowBlocks& b_blocks,
                  const BRowMap& b_row_map, const BEntries& b_entries, std::int64_t b_num_cols, const char* who) {
  using Ordinal = std::remove_const_t<typename AEntries::value_type>;
  using RR = RemoteRowsFor<Scalar, Offset, ExecSpace, AEntries>;
  using Memory = typename ExecSpace::memory_space;
  const int me = comm_rank(comm), size = comm_size(comm);
  RR rr;
  rr.block_first = b_blocks.first(me);
  Kokkos::View<Ordinal*, Memory> a_renumbered;
  IndexBitmap<Memory> a_columns;
  Kokkos::View<Ordinal*, Kokkos::HostSpace> needed;  // rr.rows on the host, outside this rank's own run

  // 1. The rows A reaches, and the requests for those other ranks own: the
  // rows each peer's block holds are one run of rr.rows, found on the
  // device (only the runs of other peers are copied to the host).
  std::vector<std::int64_t> request_counts(static_cast<std::size_t>(size), 0), request_first(size + 1, 0);
  all_or_none(comm, who, [&] {
    a_columns = mark_indices(space, b_blocks.rows(), a_entries, "gustav::distributed::a_columns");
    rr.rows = marked_indices<Ordinal>(space, a_columns, "gustav::distributed::b_ext_rows");
    Kokkos::View<std::int64_t*, Kokkos::HostSpace> block_starts("gustav::distributed::block_starts", size + 1);
    for (int r = 0; r <= size; ++r) block_starts(r) = b_blocks.starts()[r];
    const auto starts = Kokkos::create_mirror_view_and_copy(Memory(), block_starts);
    Kokkos::View<std::int64_t*, Memory> runs = gustav::detail::allocate_view<Kokkos::View<std::int64_t*, Memory>>(
        space, "gustav::distributed::request_runs", static_cast<std::size_t>(size + 1), false);
    const auto rows = rr.rows;
    const std::int64_t n = static_cast<std::int64_t>(rows.extent(0));
    Kokkos::parallel_for(
        "gustav::distributed::request_runs", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, size + 1),
        FirstRowOfBlocks<decltype(rows), decltype(starts), decltype(runs)>{rows, starts, runs, n});
    space.fence();
    const auto runs_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), runs);
    for (int r = 0; r <= size; ++r) request_first[r] = runs_host(r);
    for (int r = 0; r < size; ++r) request_counts[r] = r == me ? 0 : request_first[r + 1] - request_first[r];
    rr.own_first = request_first[me], rr.own_end = request_first[me + 1];
    needed = host_copy_except(rr.rows, static_cast<std::size_t>(rr.own_first), static_cast<std::size_t>(rr.own_end));
  });
  const auto request_pattern =
      make_pattern(comm, request_counts, exchange_counts(comm, request_counts), who, "row requests");
  // The requests to each peer are the contiguous runs of `needed` its block
  // holds: send straight from `needed` at each run's start.
  ExchangePattern from_needed = request_pattern;
  for (int r = 0; r < size; ++r) from_needed.send_displs[r] = static_cast<int>(request_first[r]);
  const auto requested = exchange_host<Ordinal>(comm, from_needed, needed.data(), "gustav::distributed::requests");

  // 2. Serve the requests: the requested rows' lengths back to their askers.
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> served_lengths;
  std::vector<std::int64_t> entries_to(static_cast<std::size_t>(size), 0);
  all_or_none(comm, who, [&] {
    Kokkos::View<Ordinal*, Kokkos::HostSpace> local(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::distributed::served_rows"),
                                                    requested.extent(0));
    for (std::size_t i = 0; i < requested.extent(0); ++i) {
      const std::int64_t row = static_cast<std::int64_t>(requested(i)) - rr.block_first;
      if (row < 0 || row >= b_blocks.count(me))
        throw internal_error("a peer asked for row " + std::to_string(requested(i)) + " of B, which this rank does not own");
      local(i) = static_cast<Ordinal>(row);
    }
    rr.served_rows = Kokkos::create_mirror_view_and_copy(Memory(), local);
    const auto rows = rr.served_rows;
    Kokkos::View<std::int64_t*, Memory> lengths = gustav::detail::allocate_view<Kokkos::View<std::int64_t*, Memory>>(
        space, "gustav::distributed::served_lengths", rows.extent(0), false);
    Kokkos::parallel_for(
        "gustav::distributed::served_lengths",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, static_cast<std::int64_t>(rows.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) {
          lengths(i) = static_cast<std::int64_t>(b_row_map(rows(i) + 1)) - static_cast<std::int64_t>(b_row_map(rows(i)));
        });
    rr.served_starts = running_starts(space, lengths, "gustav::distributed::served_starts");
    space.fence();
    served_lengths = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lengths);
    std::int64_t i = 0;
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < request_pattern.recv_counts[r]; ++k) entries_to[r] += served_lengths(i++);
  });
  const auto reply_pattern = reversed(request_pattern);
  const auto received_lengths =
      exchange_host<std::int64_t>(comm, reply_pattern, served_lengths.data(), "gustav::distributed::received_lengths");
  std::vector<std::int64_t> entries_from(static_cast<std::size_t>(size), 0);
  {
    std::int64_t i = 0;
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < reply_pattern.recv_counts[r]; ++k) entries_from[r] += received_lengths(i++);
  }
  rr.entry_pattern = make_pattern(comm, entries_to, entries_from, who, "entries of B");

  // 3. The rows' columns, then B_ext's structure.
  auto packed = pack_served(space, rr, b_row_map, b_entries, "gustav::distributed::pack_entries");
  auto received = exchange(space, comm, rr.entry_pattern, packed, "gustav::distributed::received_entries");
  all_or_none(comm, who, [&] {
    const std::int64_t n_ext = rr.num_rows();
    auto received_lengths_here = Kokkos::create_mirror_view_and_copy(Memory(), received_lengths);
    rr.received_starts = running_starts(space, received_lengths_here, "gustav::distributed::received_starts");
    Kokkos::View<std::int64_t*, Memory> ext_lengths = gustav::detail::allocate_view<Kokkos::View<std::int64_t*, Memory>>(
        space, "gustav::distributed::b_ext_lengths", static_cast<std::size_t>(n_ext), false);
    const auto rows = rr.rows;
    const std::int64_t own_first = rr.own_first, own_end = rr.own_end, block_first = rr.block_first;
    Kokkos::parallel_for(
        "gustav::distributed::b_ext_lengths",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n_ext),
        KOKKOS_LAMBDA(const std::int64_t k) {
          if (k >= own_first && k < own_end) {
            const std::int64_t row = static_cast<std::int64_t>(rows(k)) - block_first;
            ext_lengths(k) = static_cast<std::int64_t>(b_row_map(row + 1)) - static_cast<std::int64_t>(b_row_map(row));
          } else {
            ext_lengths(k) = received_lengths_here(k < own_first ? k : k - (own_end - own_first));
          }
        });
    const auto starts = running_starts(space, ext_lengths, "gustav::distributed::b_ext_starts");
    const std::int64_t nnz = gustav::detail::read_element(space, starts, static_cast<std::size_t>(n_ext));
    if (nnz > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
      throw overflow_error("the gathered rows of B hold " + std::to_string(nnz) +
                           " entries, more than B's offset type holds; use 64-bit offsets");
    rr.row_map = gustav::detail::allocate_view<typename RR::template view<Offset>>(
        space, "gustav::distributed::b_ext_row_map", static_cast<std::size_t>(n_ext + 1), false);
    const auto row_map = rr.row_map;
    Kokkos::parallel_for(
        "gustav::distributed::b_ext_row_map",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n_ext + 1),
        KOKKOS_LAMBDA(const std::int64_t k) { row_map(k) = static_cast<Offset>(starts(k)); });
    rr.entries = gustav::detail::allocate_view<typename RR::template view<Ordinal>>(
        space, "gustav::distributed::b_ext_entries", static_cast<std::size_t>(nnz), false);
    rr.values = gustav::detail::allocate_view<typename RR::template view<Scalar>>(
        space, "gustav::distributed::b_ext_values", static_cast<std::size_t>(nnz), false);
    fill_gathered(space, rr, b_row_map, b_entries, received, rr.entries, "gustav::distributed::gather_entries");

    // 4. Local numbers: B_ext's columns, and A's columns as B_ext's rows.
    // Columns are renumbered only where B's global columns are many more
    // than B_ext's rows (several ranks' worth): the local product's
    // accumulators are sized by its columns, and renumbering costs three
    // passes over B_ext and C (on one CPU rank of lap3d:60's A * A, its
    // import took 31 ms against the local numeric phase's 21).
    rr.columns_renumbered = b_num_cols > column_renumbering_factor * n_ext;
    rr.global_cols = b_num_cols;
    if (rr.columns_renumbered) {
      const auto b_columns = mark_indices(space, b_num_cols, rr.entries, "gustav::distributed::b_ext_columns");
      rr.columns = marked_indices<Ordinal>(space, b_columns, "gustav::distributed::column_map");
      to_ranks(space, b_columns, rr.entries, "gustav::distributed::local_columns");
    }
    a_renumbered = gustav::detail::allocate_view<Kokkos::View<Ordinal*, Memory>>(
        space, "gustav::distributed::a_local_entries", a_entries.extent(0), false);
    Kokkos::deep_copy(space, a_renumbered, a_entries);
    // Where A reaches every row of B, B_ext's rows are B's: no renumbering.
    if (n_ext != b_blocks.rows()) to_ranks(space, a_columns, a_renumbered, "gustav::distributed::a_local_columns");
    space.fence();
  });
  return std::make_pair(rr, a_renumbered);
}

}  // namespace gustav::distributed::detail
