#pragma once
/// Launching the hierarchical kernels: a team policy whose team size is
/// clamped to what the backend allows for the kernel with its scratch, where
/// the scratch (one table per worker) and the league depend on that size.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/common/launch.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// The rows a kernel takes, and the per-row bin of every row of A.
template <class Types>
using RowList = Kokkos::View<const typename Types::ordinal_type*, typename Types::device_type,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class Types>
using RowBinList = Kokkos::View<std::uint8_t*, typename Types::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Teams for a kernel whose workers loop over rows: at most a few rounds of
/// the teams the device holds at once, so per-team set-up (clearing and
/// flushing scratch tallies) is paid per resident team, not per row.
template <class ExecSpace>
std::int64_t looping_league(const ExecSpace& space, std::int64_t teams_needed, int team_threads) {
  const std::int64_t resident = std::max<std::int64_t>(1, space.concurrency() / std::max(1, team_threads));
  return std::min(teams_needed, 4 * resident);
}

/// The loop that goes with looping_league: calls f(w) for the rows w of
/// [0, rows) that this worker takes, every league-wide worker stride.
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void for_each_worker_row(const Member& team, std::int64_t rows, const F& f) {
  const std::int64_t workers = static_cast<std::int64_t>(team.league_size()) * team.team_size();
  for (std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank(); w < rows;
       w += workers)
    f(w);
}

/// Scratch a team of the kept sums may take: what Kokkos lets a team have
/// at level 0 (40 KiB on CUDA with Kokkos 3.4: a block gets 48 KiB without
/// asking for more, and Kokkos keeps the rest for its team reductions; a
/// request of 48 KiB was refused as insufficient shared memory), at most
/// 48 KiB.
template <class ExecSpace>
std::size_t team_scratch_limit() {
  const int kokkos_max = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  return std::min<std::size_t>(48 * 1024, kokkos_max > 0 ? static_cast<std::size_t>(kokkos_max) : 0);
}

/// Runs `f` on a TeamPolicy of `league_for(team_size)` teams of up to
/// `team_size` workers (a power of two) with `lanes` vector lanes and
/// `scratch_for(team_size)` bytes of team scratch. Returns the team size used.
/// `Policy` is a TeamPolicy on ExecSpace, with launch bounds where the
/// kernel is capped.
template <class Policy, class ExecSpace, class Functor, class LeagueFor, class ScratchFor>
int launch_teams_on(const ExecSpace& space, const std::string& name, const Functor& f, int team_size, int lanes,
                    const LeagueFor& league_for, const ScratchFor& scratch_for) {
  if constexpr (is_host_space<ExecSpace>()) lanes = 1;
  int size = std::max(1, team_size);
  for (int attempt = 0; attempt < 8; ++attempt) {
    Policy probe(space, 1, size, lanes);
    probe.set_scratch_size(0, Kokkos::PerTeam(scratch_for(size)));
    const int most = probe.team_size_max(f, Kokkos::ParallelForTag());
    if (size <= most) break;
    // A power of two: Kokkos' CUDA team scan needs one.
    size = 1;
    while (2 * size <= most) size *= 2;
  }
  const std::int64_t league = league_for(size);
  if (league <= 0) return size;
  if (league > std::int64_t(INT32_MAX)) throw overflow_error(name + ": more than 2^31 teams");
  Kokkos::parallel_for(name,
                       light_launch(Policy(space, static_cast<int>(league), size, lanes)
                                        .set_scratch_size(0, Kokkos::PerTeam(scratch_for(size)))),
                       f);
  return size;
}

template <class ExecSpace, class Functor, class LeagueFor, class ScratchFor>
int launch_teams(const ExecSpace& space, const std::string& name, const Functor& f, int team_size, int lanes,
                 const LeagueFor& league_for, const ScratchFor& scratch_for) {
  return launch_teams_on<Kokkos::TeamPolicy<ExecSpace>>(space, name, f, team_size, lanes, league_for, scratch_for);
}

}  // namespace gustav::detail
