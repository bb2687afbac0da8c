#pragma once
/// The hub rows of A (rows of hundreds of entries or more: a user x page
/// graph's most active users, an R-MAT graph's first rows), whose products
/// the inspection (row_inspection.hpp) leaves to this kernel. Their entries
/// are cut into chunks that the whole league shares, so hub rows gathered in
/// a few teams' ranges no longer keep those teams at work long after the
/// rest are done (one team held 119,528 of ia-wikiquote's hub entries and
/// took 0.38 ms over them, most of the inspection). The team that counts a
/// row's last chunk classifies the row as the inspection does.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/search.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

template <class Inspect>
struct InspectHubRows {
  using execution_space = typename Inspect::execution_space;
  using Member = typename Inspect::Member;
  using Index = Kokkos::View<std::int64_t*, typename Inspect::Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Entries of a hub row one team counts at a time.
  static constexpr std::int64_t chunk_entries = 2048;

  Inspect inspect;        ///< the inspection: operands, outputs and the hub list
  Index hub_products;     ///< per hub: products counted so far (zero before)
  Index hub_chunks_done;  ///< per hub: chunks counted so far (zero before)

  /// Hubs whose extents a team reads at once into its scratch.
  static constexpr int tile_hubs = 256;

  /// Team scratch: a tile's rows, extents and chunk offsets.
  static std::size_t scratch_bytes(int /*team_size*/) {
    return (static_cast<std::size_t>(4 * tile_hubs + 1) * sizeof(std::int64_t) + 64 + 15) / 16 * 16;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // Written by the inspection's kernel, the launch before this one.
    const std::int64_t hubs = inspect.summary(SummarySlot::hubs);
    const std::int64_t teams = team.league_size();
    const int threads = team.team_size() * inspect.lanes;
    // A tile of hubs at a time, their rows and extents read by all threads
    // at once: one thread walking the list read two dependent values per
    // hub before it knew its chunks (71 hubs of ia-wikiquote: most of the
    // kernel's 0.1 ms).
    auto* tile_row = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(tile_hubs * sizeof(std::int64_t)));
    auto* tile_a0 = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(tile_hubs * sizeof(std::int64_t)));
    auto* tile_a1 = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(tile_hubs * sizeof(std::int64_t)));
    // tile_first[i]: the tile's chunks before hub i (tile_first[n]: all).
    auto* tile_first =
        static_cast<std::int64_t*>(team.team_scratch(0).get_shmem((tile_hubs + 1) * sizeof(std::int64_t)));
    // The hubs' chunks, concatenated in list order: chunk g goes to team
    // g % teams; `base` is the first chunk of the tile.
    std::int64_t base = 0;
    for (std::int64_t h0 = 0; h0 < hubs; h0 += tile_hubs) {
      const int n = static_cast<int>(hubs - h0 < tile_hubs ? hubs - h0 : tile_hubs);
      team.team_barrier();  // the last tile's readers are done with it
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const int i) {
        const std::int64_t row = inspect.hub_rows(h0 + i);
        std::int64_t a0, a1;
        inspect.ops.a_row(row, a0, a1);  // a malformed row map was flagged by the inspection
        tile_row[i] = row;
        tile_a0[i] = a0;
        tile_a1[i] = a1;
        tile_first[i + 1] = (a1 - a0 + chunk_entries - 1) / chunk_entries;
      });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        tile_first[0] = 0;
        for (int i = 0; i < n; ++i) tile_first[i + 1] += tile_first[i];
      });
      team.team_barrier();
      const std::int64_t tile_chunks = tile_first[n];
      for (std::int64_t g = base + ((team.league_rank() - base) % teams + teams) % teams; g < base + tile_chunks;
           g += teams) {
        // The hub of chunk g: the last i with tile_first[i] <= g - base.
        const std::int64_t local = g - base;
        const int lo = static_cast<int>(
            last_at_most([tile_first](const std::int64_t i) { return tile_first[i]; }, local, 0, n - 1));
        const std::int64_t h = h0 + lo;
        const std::int64_t row = tile_row[lo], a0 = tile_a0[lo], a1 = tile_a1[lo];
        const std::int64_t chunks = tile_first[lo + 1] - tile_first[lo];
        const std::int64_t e0 = a0 + (local - tile_first[lo]) * chunk_entries;
        const std::int64_t e1 = e0 + chunk_entries < a1 ? e0 + chunk_entries : a1;
        std::int64_t products = 0;
        int errors = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, threads),
            [&](const int t, std::int64_t& sum) { sum += inspect.lane_products(e0, e1, t, threads, errors); },
            products);
        if (errors) Kokkos::atomic_fetch_or(&inspect.summary(SummarySlot::errors), std::int64_t(errors));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          add_count(&hub_products(h), products);
          Kokkos::memory_fence();
          if (fetch_add_count(&hub_chunks_done(h), 1) + 1 == chunks) {
            Kokkos::memory_fence();
            finish(row, a0, a1, fetch_add_count(&hub_products(h), 0));
          }
        });
      }
      base += tile_chunks;
    }
  }

  /// The inspection's work for a counted row, by one thread: its bin, and
  /// for a tiny row its nnz, with the tallies added to the summary.
  KOKKOS_INLINE_FUNCTION void finish(std::int64_t row, std::int64_t a0, std::int64_t a1, std::int64_t products) const {
    int errors = 0;
    const bool tiny = products > 0 && products <= tiny_products;
    const std::int64_t nnz = tiny ? inspect.distinct_columns(a0, a1, errors) : 0;
    if (errors) Kokkos::atomic_fetch_or(&inspect.summary(SummarySlot::errors), std::int64_t(errors));
    const std::uint8_t bin = inspect.classify_row(row, a1 - a0, products, nnz);
    if (bin != no_bin) inspect.flush_count(bin, 1);
    if (tiny) inspect.flush_count(max_row_bins, products);
    inspect.flush_count(max_row_bins + 1, products);
    inspect.flush_count(max_row_bins + 2, products);
  }
};

}  // namespace gustav::detail
