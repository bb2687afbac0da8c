#pragma once
/// The row loop shared by every pass (count, fill, numeric): one kernel per
/// tier, mapping the tier's rows onto teams, workers and vector lanes, giving
/// each row its level-1 scratch region and, for spilling or dense tiers, a
/// level-2 chunk from the pool. The pass supplies only what happens to a row.
///
/// At worker level all workers of a team go through the same number of rows
/// (a worker without a row passes row = -1), so the team barriers inside a
/// pass line up.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gustav/analysis/binning.hpp"
#include "gustav/analysis/tiers.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/errors.hpp"
#include "gustav/memory_pool/memory_pool.hpp"
#include "gustav/spgemm/long_rows.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/team/levels.hpp"

namespace gustav::detail {

template <class Pass, class Level, class Rows>
struct TierKernel {
  using execution_space = typename Pass::execution_space;
  using Device = Kokkos::Device<execution_space, typename execution_space::memory_space>;
  using Member = typename Kokkos::TeamPolicy<execution_space>::member_type;

  Pass pass;
  Rows rows;  ///< this tier's rows (a segment of the binning permutation)
  std::int64_t num_rows = 0;
  int log2_slots = 0;
  int level1_probes = 0;
  int rows_per_worker = 1;
  bool spill = false;
  bool dense = false;
  bool per_row_slots = false;
  std::size_t region_bytes = 0;  ///< level-1 bytes per worker (worker level) or team
  MemoryPool<Device> pool;
  /// Host pooled tiers: teams claim `claim_blocks` consecutive blocks at a
  /// time from this counter (see claimed_blocks); unused elsewhere.
  Kokkos::View<std::int64_t, Device> next_block;
  std::int64_t claim_blocks = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int regions = Level::team_wide ? 1 : team.team_size();
    char* scratch = region_bytes == 0
                        ? nullptr
                        : static_cast<char*>(team.team_scratch(0).get_shmem_aligned(region_bytes * regions, 16));
    int chunk_id = -1;
    if (spill || dense) {
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& c) { c = pool.acquire(team.league_rank()); }, chunk_id);
    }
    RowContext ctx;
    ctx.chunk = chunk_id >= 0 ? pool.chunk(chunk_id) : nullptr;
    ctx.level1_probes = level1_probes;
    ctx.spill = spill;
    ctx.dense = dense;

    if constexpr (Level::team_wide) {
      ctx.scratch = scratch;
      for (std::int64_t idx = team.league_rank(); idx < num_rows; idx += team.league_size()) {
        ctx.row = static_cast<std::int64_t>(rows(idx));
        ctx.log2_slots = slots_for(ctx.row);
        pass.template process_row<Level>(team, ctx);
      }
    } else {
      const int worker = team.team_rank();
      const int workers = team.team_size();
      ctx.scratch = scratch ? scratch + region_bytes * worker : nullptr;
      // A block of rows is consecutive in the tier, workers interleaved, so
      // neighbouring workers read neighbouring rows of A. Teams stride over
      // blocks because pooled tiers launch only as many teams as chunks.
      const std::int64_t block_rows = static_cast<std::int64_t>(workers) * rows_per_worker;
      const std::int64_t blocks = (num_rows + block_rows - 1) / block_rows;
      auto run_block = [&](std::int64_t block) {
        for (int round = 0; round < rows_per_worker; ++round) {
          const std::int64_t idx = block * block_rows + static_cast<std::int64_t>(round) * workers + worker;
          ctx.row = idx < num_rows ? static_cast<std::int64_t>(rows(idx)) : -1;
          ctx.log2_slots = ctx.row >= 0 ? slots_for(ctx.row) : log2_slots;
          pass.template process_row<Level>(team, ctx);
        }
      };
      if (claim_blocks > 0) {
        claimed_blocks(team, blocks, run_block);
      } else {
        for (std::int64_t block = team.league_rank(); block < blocks; block += team.league_size()) run_block(block);
      }
    }
    if (chunk_id >= 0) {
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(chunk_id); });
    }
  }

  /// Runs blocks claimed from `next_block`, `claim_blocks` consecutive ones
  /// at a time. On CPUs a pooled tier has one team per thread; striding over
  /// blocks would interleave the threads every few rows (shared cache lines
  /// of C, no streaming through A) and fix each thread's share in advance
  /// (power-law rows cluster). Claiming runs of blocks keeps each thread on
  /// contiguous rows and balances the load.
  template <class RunBlock>
  KOKKOS_INLINE_FUNCTION void claimed_blocks(const Member& team, std::int64_t blocks, RunBlock& run_block) const {
    while (true) {
      std::int64_t first = 0;
      Kokkos::single(
          Kokkos::PerTeam(team), [&](std::int64_t& f) { f = Kokkos::atomic_fetch_add(&next_block(), claim_blocks); },
          first);
      // The broadcast's buffer is reused by the next claim: all must read it first.
      team.team_barrier();
      if (first >= blocks) return;
      const std::int64_t last = first + claim_blocks < blocks ? first + claim_blocks : blocks;
      for (std::int64_t block = first; block < last; ++block) run_block(block);
    }
  }

  KOKKOS_INLINE_FUNCTION int slots_for(std::int64_t row) const {
    if (!per_row_slots) return log2_slots;
    const int want = log2_slots_for(pass.need(row), pass.max_load);
    return want < log2_slots ? want : log2_slots;
  }
};

/// Sizes of the pools a pass needs: level-2 tables for its spill tier, dense
/// accumulators for its dense tier.
struct PoolSizing {
  std::size_t spill_chunk_bytes = 0;
  std::size_t dense_chunk_bytes = 0;
  /// Bytes at the start of each dense chunk that take the pass's fill byte;
  /// the rest is the pass's to set before it reads it.
  std::size_t dense_fill_bytes = ~std::size_t(0);
  std::size_t max_bytes = std::size_t(1) << 29;  ///< cap on the pool (at least one chunk is made)
};

/// Whether a pass has the multi-team long-row path (long_rows.hpp); the
/// one-shot write pass runs on the thread-per-row mapping only, which has no
/// long-row tier.
template <class Pass, class = void>
struct takes_long_rows : std::false_type {};
template <class Pass>
struct takes_long_rows<Pass, std::void_t<decltype(&Pass::long_row_bytes)>> : std::true_type {};

/// Every row of A in order, for a single tier that takes all of them (the
/// CPU's dense accumulator, run without binning): no permutation to build
/// or read.
struct AllRows {
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return i; }
};

/// Launches one tier of `pass` over `n` rows, rows(0..n-1). Returns the bytes
/// its pool took (already released).
template <class ExecSpace, class Pass, class Rows>
std::size_t launch_tier(const ExecSpace& space, const Pass& pass, const Tier& tier, const Rows& rows,
                        std::int64_t n, const PoolSizing& pools, const std::string& name, TempMemory& temp) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  // A memory budget shrinks the pool to what is left of it, keeping at
  // least a chunk and a little room: fewer teams then take the rows in
  // turn, each keeping its chunk (rows processed in chunks).
  const std::size_t headroom = 4096;
  const std::size_t room = temp.room() > headroom ? temp.room() - headroom : 0;
  const std::size_t max_pool = std::min(pools.max_bytes, room);
  constexpr bool all_rows = std::is_same_v<Rows, AllRows>;
  if (tier.long_rows || (all_rows && tier.team_level)) {
    // All rows in order is the CPU dense tier's (worker level); the long-row
    // and team-level kernels are not instantiated for it.
    if constexpr (takes_long_rows<Pass>::value && !all_rows) {
      return launch_long_rows(space, pass, rows, n, max_pool, tier.vector_length, name, temp);
    } else {
      throw internal_error(name + ": long-row or team-level tier where the pass has none");
    }
  }
  std::size_t pool_bytes = 0;
  auto run = [&](auto level) {
    using Level = decltype(level);
    TierKernel<Pass, Level, Rows> k;
    k.pass = pass;
    k.rows = rows;
    k.num_rows = n;
    k.log2_slots = tier.log2_slots;
    k.level1_probes = tier.level1_probes;
    k.rows_per_worker = tier.rows_per_worker;
    k.spill = tier.spill;
    k.dense = tier.dense;
    k.per_row_slots = tier.per_row_slots;
    k.region_bytes = tier.scratch_bytes;
    // Team scratch holds one region per worker (worker level) or one region.
    auto team_scratch = [&](int workers) { return k.region_bytes * (Level::team_wide ? 1 : workers) + 16; };
    int team_size = tier.team_size;
    {
      Policy probe(space, 1, 1, tier.vector_length);
      probe.set_scratch_size(0, Kokkos::PerTeam(team_scratch(team_size)));
      team_size = std::max(1, std::min(team_size, probe.team_size_max(k, Kokkos::ParallelForTag())));
    }
    const std::size_t scratch = team_scratch(team_size);
    std::int64_t league = Level::team_wide ? n : ceil_div<std::int64_t>(n, std::int64_t(team_size) * tier.rows_per_worker);
    MemoryPool<Device> pool;
    if (tier.spill || tier.dense) {
      const std::size_t chunk = tier.dense ? pools.dense_chunk_bytes : pools.spill_chunk_bytes;
      std::int64_t chunks = std::min<std::int64_t>(league, concurrent_teams(space, team_size, tier.vector_length));
      chunks = std::min<std::int64_t>(chunks, static_cast<std::int64_t>(max_pool / std::max<std::size_t>(chunk, 1)));
      chunks = std::max<std::int64_t>(chunks, 1);
      // Teams loop over rows and keep their chunk, so as many teams as chunks.
      league = std::min(league, chunks);
      pool = MemoryPool<Device>(space, name + "::pool", chunk, static_cast<int>(chunks),
                                tier.dense ? Pass::dense_fill_byte : -1, temp,
                                tier.dense ? pools.dense_fill_bytes : ~std::size_t(0));
      pool_bytes += chunk * static_cast<std::size_t>(chunks);
    }
    k.pool = pool;
    if (is_host_space<ExecSpace>() && (tier.spill || tier.dense) && !Level::team_wide) {
      const std::int64_t blocks = ceil_div<std::int64_t>(n, std::int64_t(team_size) * tier.rows_per_worker);
      // About 32 claims per team, each at most 64 blocks: long enough runs
      // for locality, enough claims to even out clustered heavy rows.
      k.claim_blocks = std::clamp<std::int64_t>(blocks / (league * 32), 1, 64);
      k.next_block = Kokkos::View<std::int64_t, Device>(name + "::next_block");
    }
    Kokkos::parallel_for(name,
                         Policy(space, static_cast<int>(league), team_size, tier.vector_length)
                             .set_scratch_size(0, Kokkos::PerTeam(scratch)),
                         k);
    if (tier.spill || tier.dense) {
      space.fence();
      pool.free(temp);
    }
  };
  if constexpr (all_rows) {
    run(WorkerLevel{});
  } else if (tier.team_level) {
    run(TeamLevel{});
  } else {
    run(WorkerLevel{});
  }
  return pool_bytes;
}

/// Launches every non-empty tier of `binning` for `pass`. Returns the bytes
/// the pools took (already released).
template <class ExecSpace, class Pass, class Binning>
std::size_t launch_tiers(const ExecSpace& space, const Pass& pass, const std::vector<Tier>& tiers,
                         const Binning& binning, const PoolSizing& pools, const std::string& label,
                         TempMemory& temp) {
  if (binning.in_order) {
    if (tiers.size() != 1) throw internal_error(label + ": rows in order for more than one tier");
    // Only the host's dense tier takes rows in order: devices never build
    // the kernel for it.
    if constexpr (is_host_space<ExecSpace>()) {
      const std::int64_t n = binning.rows_in(0);
      return n == 0 ? 0 : launch_tier(space, pass, tiers[0], AllRows{}, n, pools, label + "::" + tiers[0].name, temp);
    } else {
      throw internal_error(label + ": rows in order on a device");
    }
  }
  std::size_t pool_bytes = 0;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const std::int64_t n = binning.rows_in(static_cast<int>(t));
    if (n == 0) continue;
    const auto rows = Kokkos::subview(binning.perm, std::make_pair(binning.offsets[t], binning.offsets[t + 1]));
    pool_bytes += launch_tier(space, pass, tiers[t], rows, n, pools, label + "::" + tiers[t].name, temp);
  }
  return pool_bytes;
}

}  // namespace gustav::detail
