#pragma once
/// The SpMV entry point behind gustav::spmv: checks the operands' shapes
/// on the host (the O(1) checks of validate_csr_extents plus the lengths of
/// x and y), launches the kernels of spmv_kernels.hpp with the row
/// mapping of row_mapping.hpp, and waits for them to learn whether A's row
/// map ended where it must and, for the next call on A, what they listed
/// (listing_memory.hpp).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "gustav/errors.hpp"
#include "gustav/spmv/listing_memory.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/spmv/spmv_kernels.hpp"
#include "gustav/spmv/stream_rows.hpp"
#include "gustav/spmv/workspace.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// Throws invalid_input unless vector `name` has `expected` entries.
template <class View>
void check_vector_length(const View& v, std::int64_t expected, const char* who, const char* name,
                         const char* dimension) {
  const auto n = static_cast<std::int64_t>(v.extent(0));
  if (n == expected) return;
  std::ostringstream s;
  s << who << ": " << name << " has " << n << " entries but A has " << expected << " " << dimension;
  throw invalid_input(s.str());
}

/// Workers per team for a whole-team kernel with `lanes` lanes each: 256
/// threads in all on GPUs (fewer if the kernel cannot have that many), one
/// on CPUs.
template <class Policy, class Kernel>
int team_size_for(const Policy& probe, const Kernel& kernel, int lanes) {
  const int wanted = is_host_space<typename Policy::execution_space>() ? 1 : row_mapping_threads_per_team / lanes;
  return std::max(1, std::min(wanted, probe.team_size_max(kernel, Kokkos::ParallelForTag())));
}

/// Lanes per worker of the whole-team kernels.
template <class ExecSpace>
constexpr int team_kernel_lanes() {
  return is_host_space<ExecSpace>() ? 1 : 32;
}

/// The league of a kernel with `teams` teams, capped at what an int holds
/// (the kernels stride over the rest).
inline int league_of(std::int64_t teams) {
  return static_cast<int>(std::clamp<std::int64_t>(teams, 1, std::numeric_limits<int>::max()));
}

/// SpmvRows with `Lanes` lanes per worker (0: m.vector_length at run time).
template <int Lanes, class ExecSpace, class Operands>
void launch_worker_rows(const ExecSpace& space, const Operands& op, const SpmvLists<ExecSpace>& lists, RowMapping& m) {
  using Kernel = SpmvRows<ExecSpace, Operands, Lanes>;
  const Kernel k{op, lists, m.rows_per_worker, m.medium_row, m.long_row};
  Kokkos::parallel_for("gustav::spmv::rows",
                       row_policy<ExecSpace, Kernel, typename Kernel::Policy>(space, m, op.num_rows, k), k);
}

/// Rows per team of the streaming kernel above a row per thread are
/// lowered until its teams fill the GPU twice: er:1000000:2's blocks of
/// 1,024 rows made 977 teams, fewer than an H200 runs at once, and took
/// 0.059 ms against 0.054 with blocks of 473 rows (rmat:20:2 0.095
/// against 0.083).
constexpr double spmv_stream_waves = 2.0;

/// SpmvStreamRows under mapping m: its rows per team and scratch, fewer
/// rows where the teams would not fill the device twice, and for scalars
/// wider than 8 bytes, so that the scratch stays within
/// spmv_stream_scratch_bytes.
template <class ExecSpace, class Operands>
void launch_stream_rows(const ExecSpace& space, const Operands& op, const SpmvLists<ExecSpace>& lists,
                        const RowMapping& m) {
  using Kernel = SpmvStreamRows<ExecSpace, Operands>;
  using Policy = typename Kernel::Policy;
  constexpr auto scalar_bytes = static_cast<std::int64_t>(sizeof(typename Operands::scalar));
  const std::int64_t threads = is_host_space<ExecSpace>() ? 1 : row_mapping_threads_per_team;
  const auto at_once = static_cast<double>(concurrent_teams(space, static_cast<int>(threads), 1));
  const auto filling = static_cast<std::int64_t>(std::ceil(static_cast<double>(op.num_rows) / (spmv_stream_waves * at_once)));
  std::int64_t rows = std::max<std::int64_t>(1, m.stream_rows);
  rows = std::max(std::min(rows, filling), std::min(rows, threads));
  std::int64_t products = std::max<std::int64_t>(1, m.stream_products * scalar_bytes / 8);
  if (rows < m.stream_rows) products = std::min(products, products * rows / m.stream_rows + spmv_stream_spare_products);
  const std::int64_t room = spmv_stream_scratch_bytes / scalar_bytes;
  if (products > room) {
    rows = std::max<std::int64_t>(1, rows * room / products);
    products = room;
  }
  const Kernel k{op, lists, rows, products, m.medium_row, m.long_row};
  const auto scratch = Kokkos::PerTeam(Kernel::Products::shmem_size(products));
  const int team = team_size_for(Policy(space, 1, 1, 1).set_scratch_size(0, scratch), k, 1);
  Kokkos::parallel_for("gustav::spmv::stream_rows",
                       Policy(space, league_of(ceil_div<std::int64_t>(op.num_rows, rows)), team, 1)
                           .set_scratch_size(0, scratch),
                       k);
}

/// The kernel that sums every row but the listed ones, under mapping m.
template <class ExecSpace, class Operands>
void launch_rows(const ExecSpace& space, const Operands& op, const SpmvLists<ExecSpace>& lists, RowMapping& m) {
  if (m.stream_rows > 0) {
    launch_stream_rows(space, op, lists, m);
  } else if (m.team_per_row) {
    using Kernel = SpmvTeamRows<ExecSpace, Operands>;
    using Policy = typename Kernel::Policy;
    const int lanes = team_kernel_lanes<ExecSpace>();
    const Kernel k{op, lists};
    const int team = team_size_for(Policy(space, 1, 1, lanes), k, lanes);
    Kokkos::parallel_for("gustav::spmv::team_rows", Policy(space, league_of(op.num_rows), team, lanes), k);
  } else if constexpr (is_host_space<ExecSpace>()) {
    launch_worker_rows<0>(space, op, lists, m);
  } else {
    // The lanes as a constant of the kernel: with Kokkos' runtime vector
    // length, rows of one lane ran slower than with the stride and the
    // reduction fixed at compile time.
    switch (m.vector_length) {
      case 1: launch_worker_rows<1>(space, op, lists, m); break;
      case 2: launch_worker_rows<2>(space, op, lists, m); break;
      case 4: launch_worker_rows<4>(space, op, lists, m); break;
      case 8: launch_worker_rows<8>(space, op, lists, m); break;
      case 16: launch_worker_rows<16>(space, op, lists, m); break;
      case 32: launch_worker_rows<32>(space, op, lists, m); break;
      default: launch_worker_rows<0>(space, op, lists, m); break;
    }
  }
}

/// Without a count from an earlier call on the matrix, the listed-rows
/// kernel runs a quarter of the teams that fit the device at once: the
/// list is mostly short or empty, and every team of the kernel costs a
/// little even then.
constexpr std::int64_t listed_rows_teams_divisor = 4;

/// The rows the first kernel listed, a warp each, and the segments of those
/// listed for teams; `capacity` bounds how many items there can be, and
/// `last`, where known, is what the last call on this matrix listed: teams
/// enough for a segment each, or for a row per worker, up to as many as the
/// device holds at once (more rows than last time are strided over).
template <class ExecSpace, class Operands>
void launch_listed_rows(const ExecSpace& space, const Operands& op, const SpmvLists<ExecSpace>& lists,
                        std::int64_t capacity, const std::optional<SpmvListedCounts>& last) {
  // A warp per listed row on GPUs, one lane on CPUs: the kernel's lane
  // count and the launch's are this one constant.
  constexpr int lanes = team_kernel_lanes<ExecSpace>();
  using Kernel = SpmvListedRows<ExecSpace, Operands, lanes>;
  using Policy = typename Kernel::Policy;
  const Kernel k{op, lists};
  const int team = team_size_for(Policy(space, 1, 1, lanes), k, lanes);
  const std::int64_t at_once = concurrent_teams(space, team, lanes);
  // The list's length is known only on the device.
  std::int64_t teams = std::max<std::int64_t>(1, at_once / listed_rows_teams_divisor);
  if (last) {
    const std::int64_t needed = std::max(last->segments, ceil_div<std::int64_t>(last->warp_rows, team));
    teams = std::clamp<std::int64_t>(needed, 1, at_once);
  }
  Kokkos::parallel_for("gustav::spmv::listed_rows", Policy(space, league_of(std::min(capacity, teams)), team, lanes), k);
}

/// At most how many of A's rows can be longer than `length`.
inline std::int64_t most_rows_longer(std::int64_t num_rows, std::int64_t nnz, std::int64_t length) {
  return length >= nnz ? 0 : std::min(num_rows, nnz / (length + 1));
}

/// y = alpha * A * x + beta * y. `forced` replaces the chosen row mapping
/// (tests use it to run every kernel on every backend).
template <class ExecSpace, class Input, class XView, class YView>
void spmv_impl(const ExecSpace& space,
               const typename SpmvOperands<Input, XView, YView>::scalar& alpha, const Input& A, const XView& x,
               const typename SpmvOperands<Input, XView, YView>::scalar& beta, const YView& y, const char* who,
               const RowMapping* forced = nullptr) {
  using Operands = SpmvOperands<Input, XView, YView>;
  using Scalar = typename Operands::scalar;
  static_assert(XView::rank == 1 && YView::rank == 1, "gustav::spmv: x and y must be rank-1 views");
  static_assert(!std::is_const_v<typename YView::value_type>, "gustav::spmv: y must be writable");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename YView::memory_space>::accessible,
                "gustav::spmv: x and y must live in memory the execution space can access");

  validate_csr_extents(A, who, "A", true);
  check_vector_length(x, A.num_cols, who, "x", "columns");
  check_vector_length(y, A.num_rows, who, "y", "rows");
  if (A.num_rows == 0) return;

  const bool read_y = !(beta == Scalar(0));
  if (alpha == Scalar(0)) {
    validate_csr(space, A, who, "A", true, false);
    Kokkos::parallel_for("gustav::spmv::scale_y",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
                         ScaleVector<YView, Scalar>{y, beta, read_y});
    return;
  }
  const Operands op{A.row_map, A.entries, A.values, x, y, alpha, beta, read_y, A.num_rows, A.nnz()};
  RowMapping m = forced ? *forced : choose_spmv_mapping<ExecSpace>(A.num_rows, A.nnz());
  const std::int64_t listable =
      m.team_per_row ? 0 : most_rows_longer(A.num_rows, A.nnz(), std::min(m.medium_row, m.long_row));
  const std::int64_t team_listable = listable > 0 ? most_rows_longer(A.num_rows, A.nnz(), m.long_row) : 0;
  const std::int64_t segments = team_listable > 0 ? spmv_segments_bound(A.nnz(), team_listable) : 0;
  if (listable == 0) {
    // No row of a well-formed A can be listed, and no listed-rows kernel
    // runs: a malformed row map's long rows are summed where they are.
    m.medium_row = std::numeric_limits<std::int64_t>::max();
    m.long_row = std::numeric_limits<std::int64_t>::max();
  }

  // Where the last call on this matrix listed nothing, the listed-rows
  // kernel is launched only if the row kernel notes that it listed a row
  // after all (A changed since): after the wait, as a second step, so that
  // every row is summed as a listing call sums it, in the same bits.
  const SpmvListingKey key{A.row_map.data(), A.entries.data(), A.num_rows, A.nnz(), m.medium_row, m.long_row};
  auto& memory = SpmvListingMemory<ExecSpace>::instance();
  const std::optional<SpmvListedCounts> listed_before = listable > 0 ? memory.find(key) : std::nullopt;
  const bool expects_listed = listable > 0 && !(listed_before && listed_before->none());
  const bool defers_listed = listable > 0 && !expects_listed;
  const std::int64_t listed_capacity = listable + segments;

  auto& pool = SpmvWorkspacePool<ExecSpace>::instance();
  SpmvWorkspace<ExecSpace> w = pool.take(space, listable, team_listable, segments);
  // The kernels write the report only when A's row map is wrong, when a
  // call that expects no listed row lists one, and (the listed-rows
  // kernel) what was listed.
  w.report(report_bad) = 0;
  w.report(report_listed) = 0;
  const SpmvLists<ExecSpace> lists{w.list,
                                   w.report,
                                   w.first_segment,
                                   w.segments_done,
                                   w.partials,
                                   w.counter_set(w.parity),
                                   w.counter_set(1 - w.parity),
                                   defers_listed};
  launch_rows(space, op, lists, m);
  if (expects_listed) launch_listed_rows(space, op, lists, listed_capacity, listed_before);
  // The row map's end points are checked by the kernels that read it, and
  // the call waits once for their verdict: reading the two entries before
  // the launch cost two copies and two waits, as much as a small matrix's
  // whole product.
  space.fence();
  const bool bad = w.report(report_bad) != 0;
  const bool listed_after_all = defers_listed && !bad && w.report(report_listed) != 0;
  if (listed_after_all) {
    launch_listed_rows(space, op, lists, listed_capacity, std::nullopt);
    space.fence();
  }
  const bool lists_rows = expects_listed || listed_after_all;
  const std::int64_t first = w.report(report_first);
  const std::int64_t last = w.report(report_last);
  // A call that ran the listed-rows kernel leaves its counter set for the
  // next such call to clear.
  if (lists_rows) w.parity ^= 1;
  if (!bad && lists_rows) {
    memory.remember(key, SpmvListedCounts{w.report(report_warp_rows), w.report(report_team_rows),
                                          w.report(report_segments)});
  }
  pool.give(std::move(w));
  if (!bad) return;
  std::ostringstream s;
  if (first != 0)
    s << who << ": A has a row_map starting at " << first << ", not 0";
  else
    s << who << ": A has a row_map ending at " << last << " but " << A.nnz() << " entries";
  throw invalid_input(s.str());
}

}  // namespace gustav::detail
