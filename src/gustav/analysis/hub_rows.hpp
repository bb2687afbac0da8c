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
#include <cstdint>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
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

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // Written by the inspection's kernel, the launch before this one.
    const std::int64_t hubs = inspect.summary(SummarySlot::hubs);
    const std::int64_t teams = team.league_size();
    const int threads = team.team_size() * inspect.lanes;
    // The hubs' chunks, concatenated in list order: chunk g goes to team
    // g % teams; `base` is the first chunk of hub h.
    std::int64_t base = 0;
    for (std::int64_t h = 0; h < hubs; ++h) {
      const std::int64_t row = inspect.hub_rows(h);
      std::int64_t a0, a1;
      inspect.ops.a_row(row, a0, a1);  // a malformed row map was flagged by the inspection
      const std::int64_t chunks = (a1 - a0 + chunk_entries - 1) / chunk_entries;
      for (std::int64_t g = base + ((team.league_rank() - base) % teams + teams) % teams; g < base + chunks;
           g += teams) {
        const std::int64_t e0 = a0 + (g - base) * chunk_entries;
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
      base += chunks;
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
