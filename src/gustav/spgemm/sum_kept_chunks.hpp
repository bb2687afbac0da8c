#pragma once
/// The numeric phase of a plan that keeps its products, where the lists are
/// long (ProductPositions::chunked): the lists are taken in fixed chunks of
/// products, a team each. The team reads its chunk's entry numbers side by
/// side, gathers A's and B's values and multiplies them into scratch, all
/// lanes busy whatever the lists' lengths; then it sums each entry's share
/// of the chunk there, a lane per share, a worker's lanes together for a
/// long one. Entries that cross a chunk's end are finished from the chunks'
/// partial sums in chunk order, so every sum's order is the structure's
/// alone and repeated calls give the same bits.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/product_positions.hpp"
#include "gustav/spgemm/product_walk.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class CValues>
struct SumKeptChunks {
  /// Eight workers of 32 lanes on GPUs (one thread a chunk on CPUs), at
  /// most 32 registers a thread so that eight teams fill an SM: on an H200
  /// the kernel took 38 and ran six, waiting on its gathers (Nsight Compute
  /// on lap3d:120's R * (A * P): 75 % occupancy, L1 at 74 % of its
  /// throughput, the memory at 35 %). Capped alone it spilled (8 bytes of
  /// stack) and gained 0-10 %; uncapped, the batched loads below (more
  /// registers) were 2-12 % slower; both together gained 4-15 %.
  /// Where scratch does not leave room for eight teams (complex scalars:
  /// 32 KiB a team), the kernel runs uncapped.
  static constexpr int workers = 8, lanes_per_worker = 32;
  using CappedPolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<workers * lanes_per_worker, 8>>;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Scalar = typename Types::scalar_type;
  using Positions = ProductPositions<typename Types::device_type>;
  static constexpr std::int64_t chunk = Positions::chunk_products;
  /// Shares of a chunk longer than this are summed by a worker's lanes
  /// together; at most chunk / lane_share of them fit in one chunk.
  static constexpr std::int64_t lane_share = 64;
  static constexpr std::int64_t max_long_shares = chunk / lane_share;

  Positions kept;
  ProductOperands<Types> ops;
  CValues c_values;
  Scalar* partials = nullptr;  ///< two per chunk: [2c] began before chunk c, [2c + 1] began in it and goes on
  std::int64_t products = 0;
  int lanes = 1;  ///< a team's threads times their vector lanes
  /// Products a lane loads the positions of before their values (2: 2-10 %
  /// slower than 4 on the products measured; more does not fit 32 registers).
  static constexpr int batch = 4;

  /// Team scratch: the chunk's products, then the count and list of long
  /// shares. Kokkos rounds every get_shmem up to its scratch alignment, so
  /// each piece is counted rounded: the bare sum (16,516 bytes for doubles)
  /// left the second piece (132 bytes, taken as 136) 4 bytes short, and
  /// get_shmem returned a null pointer for it, which every team wrote
  /// through: an illegal address with device code built at -O0, undefined
  /// behaviour that happened to pass the tests when optimized.
  static std::size_t scratch_piece(std::size_t bytes) {
    constexpr std::size_t align = Kokkos::ScratchMemorySpace<ExecSpace>::ALIGN;
    return (bytes + align - 1) / align * align;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t value_bytes() { return chunk * sizeof(Scalar); }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t shares_bytes() { return (max_long_shares + 1) * sizeof(int); }
  static std::size_t scratch_bytes() { return scratch_piece(value_bytes()) + scratch_piece(shares_bytes()); }

  /// The team's pieces of scratch, as scratch_bytes() counts them.
  struct Scratch {
    Scalar* value;    ///< the chunk's products
    int* long_count;  ///< then the long shares' count and list
  };
  KOKKOS_INLINE_FUNCTION static Scratch take_scratch(const Member& team) {
    Scratch s;
    s.value = static_cast<Scalar*>(team.team_scratch(0).get_shmem(value_bytes()));
    s.long_count = static_cast<int*>(team.team_scratch(0).get_shmem(shares_bytes()));
    return s;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t c = team.league_rank();
    const std::int64_t c0 = c * chunk;
    const std::int64_t c1 = c0 + chunk < products ? c0 + chunk : products;
    const Scratch scratch = take_scratch(team);
    Scalar* const value = scratch.value;
    int* const long_count = scratch.long_count;
    int* const long_shares = long_count + 1;
    Kokkos::single(Kokkos::PerTeam(team), [&]() { *long_count = 0; });
    const auto a_entry = kept.a_entry;
    const auto b_entry = kept.b_entry;
    const auto a_values = ops.a_values;
    const auto b_values = ops.b_values;
    // Each lane takes every `lanes`-th product, the positions of `batch` of
    // them loaded before any of their values, so that many loads are in
    // flight at once (the compiler keeps a product's loads behind the
    // previous product's store to scratch, which might alias them).
    const std::int64_t n = c1 - c0;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, lanes), [&](const int q) {
      for (std::int64_t s0 = q; s0 < n; s0 += batch * lanes) {
        typename Positions::Index ia[batch], ib[batch];
        for (int u = 0; u < batch; ++u) {
          const std::int64_t s = s0 + u * lanes;
          ia[u] = s < n ? a_entry(c0 + s) : 0;
          ib[u] = s < n ? b_entry(c0 + s) : 0;
        }
        Scalar va[batch], vb[batch];
        for (int u = 0; u < batch; ++u) {
          const bool in = s0 + u * lanes < n;
          va[u] = in ? Scalar(a_values(ia[u])) : Scalar();
          vb[u] = in ? Scalar(b_values(ib[u])) : Scalar();
        }
        for (int u = 0; u < batch; ++u)
          if (s0 + u * lanes < n) value[s0 + u * lanes] = va[u] * vb[u];
      }
    });
    team.team_barrier();
    const std::int64_t first = static_cast<std::int64_t>(kept.chunk_first(c));
    const std::int64_t last = static_cast<std::int64_t>(kept.chunk_first(c + 1));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, first, last + 1), [&](const std::int64_t e) {
      const Share share = share_of(e, c0, c1);
      if (share.hi <= share.lo) return;  // the next chunk's first entry, starting at this one's end
      if (share.hi - share.lo > lane_share) {
        long_shares[Kokkos::atomic_fetch_add(long_count, 1)] = static_cast<int>(e - first);
        return;
      }
      Scalar sum = Scalar();
      for (std::int64_t t = share.lo; t < share.hi; ++t) sum += value[t - c0];
      store(c, c0, c1, e, share, sum);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, *long_count), [&](const int l) {
      const std::int64_t e = first + long_shares[l];
      const Share share = share_of(e, c0, c1);
      Scalar sum = Scalar();
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, share.lo, share.hi),
          [&](const std::int64_t t, Scalar& part) { part += value[t - c0]; },
          sum);
      Kokkos::single(Kokkos::PerThread(team), [&]() { store(c, c0, c1, e, share, sum); });
    });
  }

  /// Entry e's list [begin, end) and its share [lo, hi) of the chunk's
  /// products [c0, c1) (empty where the list lies outside).
  struct Share {
    std::int64_t begin, end, lo, hi;
  };
  KOKKOS_INLINE_FUNCTION Share share_of(std::int64_t e, std::int64_t c0, std::int64_t c1) const {
    const std::int64_t begin = list_begin(kept.ends, e), end = kept.ends(e);
    return Share{begin, end, begin > c0 ? begin : c0, end < c1 ? end : c1};
  }

  /// Entry e's share of chunk c: its whole sum, or a partial one.
  KOKKOS_INLINE_FUNCTION void store(std::int64_t c, std::int64_t c0, std::int64_t c1, std::int64_t e,
                                    const Share& share, const Scalar& sum) const {
    if (share.begin >= c0 && share.end <= c1) {
      c_values(e) = sum;
    } else {
      partials[2 * c + (share.begin < c0 ? 0 : 1)] = sum;
    }
  }
};

template <class Types, class ExecSpace, class CValues>
void sum_kept_chunks(const ExecSpace& space, const ProductPositions<typename Types::device_type>& kept,
                     const ProductOperands<Types>& ops, const CValues& c_values) {
  using Scalar = typename Types::scalar_type;
  using Positions = ProductPositions<typename Types::device_type>;
  using Sum = SumKeptChunks<ExecSpace, Types, CValues>;
  const std::int64_t products = static_cast<std::int64_t>(kept.a_entry.extent(0));
  if (products == 0) return;
  const std::int64_t chunks = ceil_div<std::int64_t>(products, Positions::chunk_products);
  const bool host = is_host_space<ExecSpace>();
  const int workers = host ? 1 : Sum::workers, lanes = host ? 1 : Sum::lanes_per_worker;
  const Sum pass{kept, ops, c_values, reinterpret_cast<Scalar*>(kept.chunk_partials.data()), products, workers * lanes};
  auto shaped = [&](auto policy) {
    return light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(Sum::scratch_bytes())));
  };
  const auto capped = shaped(typename Sum::CappedPolicy(space, static_cast<int>(chunks), workers, lanes));
  if (host || capped.team_size_max(pass, Kokkos::ParallelForTag()) >= workers) {
    Kokkos::parallel_for("gustav::numeric::sum_kept_chunks", capped, pass);
  } else {
    Kokkos::parallel_for("gustav::numeric::sum_kept_chunks",
                         shaped(Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(chunks), workers, lanes)), pass);
  }
  // The entries that began in chunk c and go on past it: their share there,
  // then the first shares of the chunks they cover, in order.
  const auto ends = kept.ends;
  const auto chunk_first = kept.chunk_first;
  Scalar* const partials = pass.partials;
  Kokkos::parallel_for(
      "gustav::numeric::sum_kept_crossings",
      light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, chunks - 1)),
      KOKKOS_LAMBDA(const std::int64_t c) {
        const std::int64_t e = static_cast<std::int64_t>(chunk_first(c + 1));
        const std::int64_t begin = list_begin(ends, e), end = ends(e);
        if (begin < c * Positions::chunk_products || begin >= (c + 1) * Positions::chunk_products) return;
        Scalar total = partials[2 * c + 1];
        for (std::int64_t d = c + 1; d * Positions::chunk_products < end; ++d) total += partials[2 * d];
        c_values(e) = total;
      });
}

}  // namespace gustav::detail
