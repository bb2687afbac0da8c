#pragma once
/// Binning by product count (seeds 000 and 003): rows are grouped by how many
/// accumulator slots they can need, and every group ("tier") gets its own
/// thread mapping and level-1 table size, chosen so that its tables fit team
/// scratch. Short rows share a team, a few vector lanes each; long rows get a
/// whole team; rows beyond the largest scratch table also take a level-2
/// table from the memory pool.
///
/// This file only decides the tiers, on the host, from sizes; binning.hpp
/// sorts the rows into them.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gustav/common/bits.hpp"

namespace gustav::detail {

struct Tier {
  std::string name;
  std::int64_t max_need = 0;  ///< rows with need in (previous max_need, max_need]
  bool team_level = false;    ///< a whole team per row (else a worker per row)
  bool spill = false;         ///< rows also take a level-2 table from the pool
  bool dense = false;         ///< CPU dense accumulator from the pool
  bool long_rows = false;     ///< GPU long rows: several teams per row, dense accumulator (long_rows.hpp)
  bool per_row_slots = false; ///< table sized per row up to log2_slots (else fixed)
  int log2_slots = 0;         ///< level-1 slots per row: 2^log2_slots (max when per row)
  int level1_probes = 0;      ///< probes in level 1 before a key goes to level 2
  int vector_length = 1;
  int team_size = 1;
  int rows_per_worker = 1;    ///< consecutive rows each worker takes per team
  std::size_t scratch_bytes = 0;  ///< level-1 region of one row: per worker, or per team at team level
};

/// What one pass needs from its tables.
struct TierRequest {
  /// Level-1 bytes of one row whose table has 2^log2 slots (with whatever
  /// per-row arrays the pass keeps in scratch at that table's capacity).
  std::function<std::size_t(int log2)> row_bytes;
  /// Level-1 bytes of a spilling row (its values, if any, live in C).
  std::function<std::size_t(int log2)> spill_row_bytes;
  double max_load = 0.5;       ///< a row's table has at least need / max_load slots
  int vector_length = 1;       ///< lanes sharing one row of B
  bool spill_bypasses_level1 = false;  ///< long rows use level 2 only
  bool allow_dense = false;    ///< host only: one dense accumulator tier
  bool long_rows = false;      ///< rows past scratch take the multi-team dense path
  std::int64_t max_need = 0;   ///< largest need of any row (sizes level 2)
};

/// Slots a row of need `need` gets in a per-row-sized table (log2).
KOKKOS_INLINE_FUNCTION int log2_slots_for(std::int64_t need, double max_load) {
  const auto want = static_cast<std::int64_t>(static_cast<double>(need) / max_load) + 1;
  return log2_floor(next_pow2(want < 2 ? 2 : want));
}

/// Largest need a table of 2^log2 slots accepts at the given load.
KOKKOS_INLINE_FUNCTION std::int64_t capacity_of(int log2, double max_load) {
  const auto slots = std::int64_t(1) << log2;
  const auto at_load = static_cast<std::int64_t>(static_cast<double>(slots) * max_load);
  return at_load < slots - 1 ? at_load : slots - 1;
}

/// GPU tiers: worker-per-row tiers while at least 4 workers' tables fit the
/// team's scratch, then team-per-row tiers up to the scratch limit, then the
/// spill tier (largest level 1 + level 2 from the pool).
inline std::vector<Tier> device_tiers(const TierRequest& r, std::size_t scratch_max,
                                      int threads_per_team) {
  std::vector<Tier> tiers;
  const int v = std::clamp(r.vector_length, 1, 32);
  const auto& row_bytes = r.row_bytes;
  int log2 = 3;
  for (; row_bytes(log2) <= scratch_max; ++log2) {
    const int by_threads = std::max(1, threads_per_team / v);
    const int by_scratch = static_cast<int>(scratch_max / row_bytes(log2));
    const int workers = std::min(by_threads, by_scratch);
    if (workers < 4) break;
    Tier t;
    t.name = "worker/" + std::to_string(1 << log2);
    t.max_need = capacity_of(log2, r.max_load);
    t.log2_slots = log2;
    t.level1_probes = 1 << log2;
    t.vector_length = v;
    t.team_size = workers;
    t.scratch_bytes = row_bytes(log2);
    tiers.push_back(t);
  }
  int largest = log2 - 1;
  for (; row_bytes(log2) <= scratch_max; ++log2) {
    Tier t;
    t.name = "team/" + std::to_string(1 << log2);
    t.team_level = true;
    t.max_need = capacity_of(log2, r.max_load);
    t.log2_slots = log2;
    t.level1_probes = 1 << log2;
    t.vector_length = v;
    t.team_size = std::max(1, threads_per_team / v);
    t.scratch_bytes = row_bytes(log2);
    tiers.push_back(t);
    largest = log2;
  }
  Tier spill;
  spill.name = r.long_rows ? "long" : "pool";
  spill.long_rows = r.long_rows;
  spill.team_level = true;
  spill.spill = true;
  spill.max_need = std::numeric_limits<std::int64_t>::max();
  // Level 1 keeps the accumulators of the tiers below out of it: a spill row
  // accumulates values straight into C, so only keys live in scratch.
  spill.log2_slots = std::max(3, largest);
  while (r.spill_row_bytes(spill.log2_slots + 1) <= scratch_max) ++spill.log2_slots;
  while (spill.log2_slots > 3 && r.spill_row_bytes(spill.log2_slots) > scratch_max) --spill.log2_slots;
  spill.level1_probes = r.spill_bypasses_level1 ? 0 : 16;
  spill.vector_length = v;
  spill.team_size = std::max(1, 2 * threads_per_team / v);
  spill.scratch_bytes = r.spill_bypasses_level1 || r.long_rows ? 0 : r.spill_row_bytes(spill.log2_slots);
  tiers.push_back(spill);
  return tiers;
}

/// CPU tiers: one thread per row with a cache-sized level 1 sized per row,
/// then the same with a level 2 from the pool; or a single dense tier.
inline std::vector<Tier> host_tiers(const TierRequest& r, std::size_t scratch_max) {
  std::vector<Tier> tiers;
  if (r.allow_dense) {
    Tier d;
    d.name = "dense";
    d.dense = true;
    d.max_need = std::numeric_limits<std::int64_t>::max();
    // Small blocks of rows keep the dynamic schedule able to spread the
    // heavy rows of a power-law matrix (which cluster) over the threads.
    d.rows_per_worker = 8;
    tiers.push_back(d);
    return tiers;
  }
  int log2 = 3;
  while (r.spill_row_bytes(log2 + 1) <= scratch_max) ++log2;
  Tier t;
  t.name = "thread/" + std::to_string(1 << log2);
  t.per_row_slots = true;
  t.max_need = capacity_of(log2, r.max_load);
  t.log2_slots = log2;
  t.level1_probes = 1 << log2;
  t.rows_per_worker = 8;
  t.scratch_bytes = r.spill_row_bytes(log2);
  tiers.push_back(t);
  Tier spill = t;
  spill.name = "thread+pool";
  spill.per_row_slots = false;
  spill.spill = true;
  spill.max_need = std::numeric_limits<std::int64_t>::max();
  spill.level1_probes = r.spill_bypasses_level1 ? 0 : 16;
  spill.rows_per_worker = 1;
  spill.scratch_bytes = r.spill_bypasses_level1 ? 0 : t.scratch_bytes;
  tiers.push_back(spill);
  return tiers;
}

}  // namespace gustav::detail
