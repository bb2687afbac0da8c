#pragma once
/// The numeric phase of a plan that keeps its products
/// (SpgemmOptions::keep_product_positions): every entry of C is the sum of
/// its listed products. One thread per entry takes the short lists: no
/// table, no atomics, no bins; the lists are read in order, A's and B's
/// values gathered (B's rows in runs, so mostly from cache) and C written
/// once. The long lists (hub entries of power-law products) get a warp
/// each, so none keeps one thread busy after the rest are done.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/product_walk.hpp"

namespace gustav::detail {

template <class Types, class ExecSpace, class CValues>
void sum_kept_products(const ExecSpace& space, const ProductPositions<typename Types::device_type>& kept,
                       const ProductOperands<Types>& ops, const CValues& c_values, std::int64_t nnz) {
  using Scalar = typename Types::scalar_type;
  using Positions = ProductPositions<typename Types::device_type>;
  const auto ends = kept.ends;
  const auto a_entry = kept.a_entry;
  const auto b_entry = kept.b_entry;
  const auto a_values = ops.a_values;
  const auto b_values = ops.b_values;
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_products",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t begin = e > 0 ? static_cast<std::int64_t>(ends(e - 1)) : 0;
        const std::int64_t end = ends(e);
        if (end - begin > Positions::long_list) return;  // a warp's (below)
        Scalar sum = Scalar();
        for (std::int64_t t = begin; t < end; ++t) sum += Scalar(a_values(a_entry(t)) * b_values(b_entry(t)));
        c_values(e) = sum;
      });
  const std::int64_t long_count = static_cast<std::int64_t>(kept.long_entries.extent(0));
  if (long_count == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto long_entries = kept.long_entries;
  // A worker (a warp's 32 lanes on GPUs) per long entry, its lanes' sums
  // combined in a fixed order, four workers to a team.
  const int lanes = is_host_space<ExecSpace>() ? 1 : 32;
  const int workers = is_host_space<ExecSpace>() ? 1 : 4;
  Kokkos::parallel_for(
      "gustav::numeric::sum_long_kept_products",
      light_launch(Policy(space, static_cast<int>((long_count + workers - 1) / workers), workers, lanes)),
      KOKKOS_LAMBDA(const Member& team) {
        const std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
        if (w >= long_count) return;
        const std::int64_t e = static_cast<std::int64_t>(long_entries(w));
        const std::int64_t begin = e > 0 ? static_cast<std::int64_t>(ends(e - 1)) : 0;
        const std::int64_t end = ends(e);
        Scalar sum = Scalar();
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, begin, end),
            [&](const std::int64_t t, Scalar& part) { part += Scalar(a_values(a_entry(t)) * b_values(b_entry(t))); },
            sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { c_values(e) = sum; });
      });
}

}  // namespace gustav::detail
