#pragma once
/// Which rows are heavy (seed 001, HH-CPU): a row of A with at least tA
/// entries, a row of B with at least tB. The host computes A_H * B_H (the
/// entries of heavy rows of A that name heavy rows of B); the device the
/// rest. Thresholds are powers of two chosen from one histogram of the
/// products by the lengths of the two rows that make them, unless the
/// caller gives them.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"

namespace gustav::detail {

/// Row lengths fall in buckets by their highest set bit: bucket b holds
/// lengths in [2^b, 2^(b+1)), bucket 0 also the empty rows.
constexpr int length_buckets = 32;

KOKKOS_INLINE_FUNCTION int length_bucket(std::int64_t length) {
  int b = 0;
  while (b + 1 < length_buckets && (std::int64_t(1) << (b + 1)) <= length) ++b;
  return b;
}

/// Products of C = A * B by (bucket of the row of A, bucket of the row of B
/// it names): hist[a * length_buckets + b]. A team sums its rows in scratch
/// and adds its non-zero buckets to the result once.
template <class ExecSpace, class AInput, class BInput>
struct ProductHistogram {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int slots = length_buckets * length_buckets;
  AInput A;
  BInput B;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> hist;
  std::int64_t rows_per_team = 1;

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes() { return slots * sizeof(std::int64_t); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    auto* local = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(scratch_bytes()));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, slots), [&](int s) { local[s] = 0; });
    team.team_barrier();
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < A.num_rows ? first + rows_per_team : A.num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t i) {
      const auto begin = A.row_map(i), end = A.row_map(i + 1);
      const int ra = length_bucket(static_cast<std::int64_t>(end - begin)) * length_buckets;
      for (auto j = begin; j < end; ++j) {
        const auto k = A.entries(j);
        const std::int64_t n = static_cast<std::int64_t>(B.row_map(k + 1) - B.row_map(k));
        if (n > 0) Kokkos::atomic_add(&local[ra + length_bucket(n)], n);
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, slots), [&](int s) {
      if (local[s] != 0) Kokkos::atomic_add(&hist(s), local[s]);
    });
  }
};

/// The product histogram on the host, slots in the order above.
template <class ExecSpace, class AInput, class BInput>
std::vector<std::int64_t> product_histogram(const ExecSpace& space, const AInput& A, const BInput& B) {
  using Functor = ProductHistogram<ExecSpace, AInput, BInput>;
  auto hist = allocate_view<Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>>(
      space, "gustav::hybrid::product_histogram", Functor::slots, true);
  if (A.num_rows > 0) {
    Functor f{A, B, hist, 1};
    const int team = is_host_space<ExecSpace>() ? 1 : 128;
    // About four rows a thread where the GPU holds enough; a CPU thread
    // takes a block of rows.
    f.rows_per_team = is_host_space<ExecSpace>() ? std::int64_t(4096) : std::int64_t(4 * team);
    const std::int64_t league = ceil_div<std::int64_t>(A.num_rows, f.rows_per_team);
    Kokkos::parallel_for("gustav::hybrid::product_histogram",
                         Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team)
                             .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes())),
                         f);
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
  return std::vector<std::int64_t>(host.data(), host.data() + Functor::slots);
}

/// Products that rows of A of at least 2^ta entries make with rows of B of
/// at least 2^tb entries.
inline std::int64_t heavy_products(const std::vector<std::int64_t>& hist, int ta, int tb) {
  std::int64_t sum = 0;
  for (int a = ta; a < length_buckets; ++a)
    for (int b = tb; b < length_buckets; ++b) sum += hist[static_cast<std::size_t>(a) * length_buckets + b];
  return sum;
}

/// Thresholds and the host's share of the products they give.
struct HeavySplit {
  std::int64_t a_row_nnz = 0;  ///< tA: rows of A with at least this many entries are heavy (0: none)
  std::int64_t b_row_nnz = 0;  ///< tB: likewise for rows of B
  std::int64_t host_products = 0;
};

/// A heavy row has at least this many times the average row's entries, so
/// that matrices without hubs (stencils, uniform random rows) split nothing.
constexpr double heavy_row_over_average = 8.0;

/// The thresholds that give the host the largest share of the products not
/// above `host_share`, among powers of two at least heavy_row_over_average
/// times the average row of A (of B); none (host_products 0) where no pair
/// qualifies.
inline HeavySplit choose_heavy_split(const std::vector<std::int64_t>& hist, double avg_a_row, double avg_b_row,
                                     double host_share) {
  std::int64_t total = 0;
  for (auto h : hist) total += h;
  HeavySplit best;
  if (total == 0) return best;
  const int min_ta = length_bucket(static_cast<std::int64_t>(heavy_row_over_average * avg_a_row) + 1);
  const int min_tb = length_bucket(static_cast<std::int64_t>(heavy_row_over_average * avg_b_row) + 1);
  const double cap = host_share * static_cast<double>(total);
  for (int ta = min_ta + 1; ta < length_buckets; ++ta)
    for (int tb = min_tb + 1; tb < length_buckets; ++tb) {
      const std::int64_t p = heavy_products(hist, ta, tb);
      // Of equal shares the larger thresholds: fewer heavy rows to merge.
      if (p == 0 || static_cast<double>(p) > cap || p < best.host_products) continue;
      best.a_row_nnz = std::int64_t(1) << ta;
      best.b_row_nnz = std::int64_t(1) << tb;
      best.host_products = p;
    }
  return best;
}

}  // namespace gustav::detail
