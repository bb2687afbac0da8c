#pragma once
/// The numeric phase of a plan that keeps its products, where the lists are
/// short (ProductPositions::chunked off): one thread per entry takes the
/// short lists: no table, no atomics, no bins; the lists are read in order,
/// A's and B's values gathered (B's rows in runs, so mostly from cache) and
/// C written once. Neighbouring threads take neighbouring entries of a row,
/// whose short lists lie side by side, so a warp's loads of the lists
/// coalesce, and at each step its gathers read neighbouring entries of B.
/// Long lists (hub entries of power-law products) are cut into pieces that
/// groups of lanes sum side by side, so none keeps one thread busy after the
/// rest are done.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/concurrent_bins.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/product_walk.hpp"

namespace gustav::detail {

/// Product t of the lists: A's and B's values at its entries.
template <class Types>
struct KeptProducts {
  using Index = typename ProductPositions<typename Types::device_type>::Index;
  Kokkos::View<Index*, typename Types::device_type> a_entry, b_entry;
  typename Types::values a_values, b_values;
  KOKKOS_INLINE_FUNCTION typename Types::scalar_type operator()(std::int64_t t) const {
    return typename Types::scalar_type(a_values(a_entry(t)) * b_values(b_entry(t)));
  }
};

/// The lists longer than Positions::long_list, cut into pieces: each
/// piece's sum into `partials`, then each list's pieces added in order.
template <class Types, class ExecSpace, class CValues>
void sum_long_kept_lists(const ExecSpace& space, const ProductPositions<typename Types::device_type>& kept,
                         const ProductOperands<Types>& ops, const CValues& c_values) {
  using Scalar = typename Types::scalar_type;
  using Positions = ProductPositions<typename Types::device_type>;
  const auto ends = kept.ends;
  const KeptProducts<Types> product{kept.a_entry, kept.b_entry, ops.a_values, ops.b_values};
  const std::int64_t long_count = static_cast<std::int64_t>(kept.long_entries.extent(0));
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const auto long_entries = kept.long_entries;
  const auto piece_start = kept.piece_start;
  const auto piece_entry = kept.piece_entry;
  Scalar* const partials = reinterpret_cast<Scalar*>(kept.partials.data());
  const std::int64_t pieces = static_cast<std::int64_t>(kept.piece_entry.extent(0));
  // A group of lanes per piece (16 on GPUs), the lanes' sums combined in a
  // fixed order, eight groups to a team.
  const int lanes = is_host_space<ExecSpace>() ? 1 : 16;
  const int groups = is_host_space<ExecSpace>() ? 1 : 8;
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_pieces",
      light_launch(Policy(space, static_cast<int>((pieces + groups - 1) / groups), groups, lanes)),
      KOKKOS_LAMBDA(const Member& team) {
        const std::int64_t q = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
        if (q >= pieces) return;
        const std::int64_t l = static_cast<std::int64_t>(piece_entry(q));
        const std::int64_t e = static_cast<std::int64_t>(long_entries(l));
        const std::int64_t begin =
            list_begin(ends, e) + (q - static_cast<std::int64_t>(piece_start(l))) * Positions::piece_products;
        const std::int64_t list_end = ends(e);
        const std::int64_t end =
            begin + Positions::piece_products < list_end ? begin + Positions::piece_products : list_end;
        Scalar sum = Scalar();
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, begin, end),
            [&](const std::int64_t t, Scalar& part) { part += product(t); },
            sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { partials[q] = sum; });
      });
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_partials", light_launch(Range(space, 0, long_count)),
      KOKKOS_LAMBDA(const std::int64_t l) {
        Scalar sum = Scalar();
        for (std::int64_t q = piece_start(l); q < static_cast<std::int64_t>(piece_start(l + 1)); ++q) sum += partials[q];
        c_values(static_cast<std::int64_t>(long_entries(l))) = sum;
      });
}

/// The long lists go first, to a stream of `side_streams` (the caller joins
/// it), and the short ones beside them on `space`: their entries are
/// disjoint, and the few long lists would otherwise be the launch's tail.
template <class Types, class ExecSpace, class CValues>
void sum_kept_lists(const ExecSpace& space, const ProductPositions<typename Types::device_type>& kept,
                    const ProductOperands<Types>& ops, const CValues& c_values,
                    ConcurrentBins<ExecSpace>& side_streams) {
  if (kept.long_entries.extent(0) > 0)
    sum_long_kept_lists<Types>(side_streams.space_for(false), kept, ops, c_values);
  using Scalar = typename Types::scalar_type;
  using Positions = ProductPositions<typename Types::device_type>;
  const auto ends = kept.ends;
  const KeptProducts<Types> product{kept.a_entry, kept.b_entry, ops.a_values, ops.b_values};
  const std::int64_t nnz = static_cast<std::int64_t>(ends.extent(0));
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_products",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nnz)),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t begin = list_begin(ends, e);
        const std::int64_t end = ends(e);
        if (end - begin > Positions::long_list) return;  // sum_long_kept_lists
        Scalar sum = Scalar();
        for (std::int64_t t = begin; t < end; ++t) sum += product(t);
        c_values(e) = sum;
      });
}

}  // namespace gustav::detail
