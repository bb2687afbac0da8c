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
/// it names): hist[a * length_buckets + b], counted only for rows of A of
/// at least `min_a` entries and rows of B of at least `min_b` (shorter rows
/// are never heavy). Those are few, so the team's scratch atomics seldom
/// meet on one bucket: counting every entry had every lane of a warp add
/// to the same few buckets (4.7 ms a launch on rmat:16:8's million entries).
template <class ExecSpace, class AInput, class BInput>
struct ProductHistogram {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int slots = length_buckets * length_buckets;
  AInput A;
  BInput B;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> hist;
  std::int64_t rows_per_team = 1;
  std::int64_t min_a = 0, min_b = 0;

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes() { return slots * sizeof(std::int64_t); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    auto* local = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(scratch_bytes()));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, slots), [&](int s) { local[s] = 0; });
    team.team_barrier();
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < A.num_rows ? first + rows_per_team : A.num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t i) {
      const auto begin = A.row_map(i), end = A.row_map(i + 1);
      const std::int64_t length = static_cast<std::int64_t>(end - begin);
      if (length < min_a) return;
      const int ra = length_bucket(length) * length_buckets;
      for (auto j = begin; j < end; ++j) {
        const auto k = A.entries(j);
        const std::int64_t n = static_cast<std::int64_t>(B.row_map(k + 1) - B.row_map(k));
        if (n >= min_b && n > 0) Kokkos::atomic_add(&local[ra + length_bucket(n)], n);
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, slots), [&](int s) {
      if (local[s] != 0) Kokkos::atomic_add(&hist(s), local[s]);
    });
  }
};

/// All products of C = A * B (the flop count / 2).
template <class ExecSpace, class AInput, class BInput>
std::int64_t product_count(const ExecSpace& space, const AInput& A, const BInput& B) {
  std::int64_t total = 0;
  auto a_entries = A.entries;
  auto b_row_map = B.row_map;
  Kokkos::parallel_reduce(
      "gustav::hybrid::product_count", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.nnz()),
      KOKKOS_LAMBDA(std::int64_t j, std::int64_t & sum) {
        const auto k = a_entries(j);
        sum += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
      },
      total);
  return total;
}

/// The products the host's part would take with thresholds tA and tB: over
/// the rows of A with at least tA entries, the entries naming rows of B
/// with at least tB. Only the rows of A that are heavy are read through.
template <class ExecSpace, class AInput, class BInput>
std::int64_t heavy_product_count(const ExecSpace& space, const AInput& A, const BInput& B, std::int64_t t_a,
                                 std::int64_t t_b) {
  std::int64_t total = 0;
  if (t_a <= 0 || t_b <= 0 || A.num_rows == 0) return total;
  auto a_row_map = A.row_map;
  auto a_entries = A.entries;
  auto b_row_map = B.row_map;
  Kokkos::parallel_reduce(
      "gustav::hybrid::heavy_product_count",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
        if (static_cast<std::int64_t>(a_row_map(i + 1) - a_row_map(i)) < t_a) return;
        for (auto j = a_row_map(i); j < a_row_map(i + 1); ++j) {
          const auto k = a_entries(j);
          const auto n = static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
          if (n >= t_b) sum += n;
        }
      },
      total);
  return total;
}

/// The product histogram on the host, slots in the order above.
template <class ExecSpace, class AInput, class BInput>
std::vector<std::int64_t> product_histogram(const ExecSpace& space, const AInput& A, const BInput& B,
                                            std::int64_t min_a, std::int64_t min_b) {
  using Functor = ProductHistogram<ExecSpace, AInput, BInput>;
  auto hist = allocate_view<Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>>(
      space, "gustav::hybrid::product_histogram", Functor::slots, true);
  if (A.num_rows > 0) {
    Functor f{A, B, hist, 1, min_a, min_b};
    const int team = is_host_space<ExecSpace>() ? 1 : 128;
    // About four rows a thread on a GPU; a CPU thread takes a block of rows.
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
  std::int64_t products = 0;  ///< all products of C = A * B (where counted)
};

/// A heavy row has at least this many times the average row's entries, so
/// that matrices without hubs (stencils, uniform random rows) split nothing.
constexpr double heavy_row_over_average = 8.0;

/// The smallest threshold choose_heavy_split considers for rows averaging `avg`.
inline std::int64_t min_heavy_length(double avg) {
  return std::int64_t(1) << (length_bucket(static_cast<std::int64_t>(heavy_row_over_average * avg) + 1) + 1);
}

/// The thresholds that give the host the largest share of the `total`
/// products not above `host_share`, among powers of two from
/// min_heavy_length of the average row of A (of B) on; none (host_products
/// 0) where no pair qualifies. Of equal shares the larger thresholds (fewer
/// heavy rows to merge).
inline HeavySplit choose_heavy_split(const std::vector<std::int64_t>& hist, std::int64_t total, double avg_a_row,
                                     double avg_b_row, double host_share) {
  HeavySplit best;
  if (total == 0) return best;
  const int min_ta = length_bucket(min_heavy_length(avg_a_row));
  const int min_tb = length_bucket(min_heavy_length(avg_b_row));
  const double cap = host_share * static_cast<double>(total);
  for (int ta = min_ta; ta < length_buckets; ++ta)
    for (int tb = min_tb; tb < length_buckets; ++tb) {
      const std::int64_t p = heavy_products(hist, ta, tb);
      if (p == 0 || static_cast<double>(p) > cap || p < best.host_products) continue;
      best.a_row_nnz = std::int64_t(1) << ta;
      best.b_row_nnz = std::int64_t(1) << tb;
      best.host_products = p;
    }
  return best;
}

/// What CoExecution::automatic assumes, measured on an H200 and its 16-core
/// host (docs/performance_log.md, co-execution): the device multiplies R-MAT graphs at about
/// 2e10 products a second, the host their heavy parts (hub rows, few and
/// long) at about 1.1e7 a thread, and a split costs about 3 ms before its
/// parts start (analysis, copies, the device's thread) and the merge after.
constexpr double device_products_per_second = 2e10;
constexpr double host_heavy_products_per_thread_second = 1.1e7;
constexpr double split_fixed_seconds = 3e-3;

/// Whether the host's part would be done within half the time the device
/// would take for the whole product, fixed cost included: then handing it
/// over can shorten the product. With the rates above it never is on the
/// H200 measured (the host's part alone took longer than the whole product
/// on the device at every share tried), so `automatic` keeps to the device.
inline bool split_pays(std::int64_t host_products, std::int64_t products, int host_threads) {
  const double host_seconds =
      static_cast<double>(host_products) / (host_heavy_products_per_thread_second * (host_threads > 0 ? host_threads : 1));
  const double device_seconds = static_cast<double>(products) / device_products_per_second;
  return host_seconds + split_fixed_seconds <= 0.5 * device_seconds;
}

}  // namespace gustav::detail
