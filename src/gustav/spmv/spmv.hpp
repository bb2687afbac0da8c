#pragma once
/// The SpMV entry point behind gustav::spmv: checks the operands (the O(1)
/// checks of validate_csr plus the lengths of x and y), then launches the
/// kernels of spmv_kernels.hpp with the row mapping of row_mapping.hpp.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "gustav/errors.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/spmv/spmv_kernels.hpp"
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

/// The whole-team kernels: one team per row, or the sweep over rows longer
/// than m.long_row that SpmvRows left alone.
template <class ExecSpace, class Operands>
void launch_team_rows(const ExecSpace& space, const Operands& op, const RowMapping& m) {
  const int lanes = is_host_space<ExecSpace>() ? 1 : 32;
  const auto cap = static_cast<std::int64_t>(std::numeric_limits<int>::max());
  if (m.team_per_row) {
    using Kernel = SpmvTeamRows<ExecSpace, Operands>;
    using Policy = typename Kernel::Policy;
    const Kernel k{op};
    const int team = team_size_for(Policy(space, 1, 1, lanes), k, lanes);
    Kokkos::parallel_for("gustav::spmv::team_rows",
                         Policy(space, static_cast<int>(std::min(op.num_rows, cap)), team, lanes), k);
    return;
  }
  using Kernel = SpmvLongRows<ExecSpace, Operands>;
  using Policy = typename Kernel::Policy;
  const Kernel k{op, m.long_row, 256};
  const auto scratch = Kokkos::PerTeam(Kernel::scratch_bytes(k.block_rows));
  const int team = team_size_for(Policy(space, 1, 1, lanes).set_scratch_size(0, scratch), k, lanes);
  // Enough teams to fill the device, each looking over a strided share of
  // the rows. An odd stride: R-MAT's hubs are the rows with few one bits,
  // and a power-of-two stride would give every multiple of it to team 0.
  std::int64_t teams = std::min<std::int64_t>(ceil_div<std::int64_t>(op.num_rows, k.block_rows),
                                              std::max<std::int64_t>(1, space.concurrency() / (team * lanes)) * 4);
  if (teams % 2 == 0) --teams;
  Kokkos::parallel_for("gustav::spmv::long_rows",
                       Policy(space, static_cast<int>(std::min(teams, cap)), team, lanes).set_scratch_size(0, scratch),
                       k);
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

  validate_csr(space, A, who, "A", true, false);
  check_vector_length(x, A.num_cols, who, "x", "columns");
  check_vector_length(y, A.num_rows, who, "y", "rows");
  if (A.num_rows == 0) return;

  const bool read_y = !(beta == Scalar(0));
  if (alpha == Scalar(0)) {
    Kokkos::parallel_for("gustav::spmv::scale_y",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
                         ScaleVector<YView, Scalar>{y, beta, read_y});
    return;
  }
  const Operands op{A.row_map, A.entries, A.values, x, y, alpha, beta, read_y, A.num_rows};
  RowMapping m = forced ? *forced : choose_row_mapping<ExecSpace>(A.num_rows, A.nnz());
  if (m.team_per_row) {
    launch_team_rows(space, op, m);
    return;
  }
  const SpmvRows<ExecSpace, Operands> rows{op, m.rows_per_worker, m.long_row};
  Kokkos::parallel_for("gustav::spmv::rows", row_policy(space, m, A.num_rows, rows), rows);
  // No row can be longer than nnz: small matrices skip the sweep.
  if (m.long_row < A.nnz()) launch_team_rows(space, op, m);
}

}  // namespace gustav::detail
