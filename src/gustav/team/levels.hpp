#pragma once
/// The two granularities at which a row is processed (seed 002's hierarchy):
/// `WorkerLevel` gives a row to one worker (a warp or part of one on CUDA, a
/// thread on CPUs) and spreads its work over that worker's vector lanes;
/// `TeamLevel` gives a row to a whole team (CUDA block) and spreads its work
/// over every thread and lane. Code written against these two types runs
/// unchanged at either level.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

/// No prefetching (the default of for_each_product).
struct NoRowsAhead {
  KOKKOS_INLINE_FUNCTION void at(std::int64_t) const {}
};

struct WorkerLevel {
  static constexpr bool team_wide = false;

  /// Orders a step's scratch writes before the next step's reads. Kokkos'
  /// ThreadVectorRange loops and single() end with a synchronisation of the
  /// worker's lanes (a __syncwarp over them on CUDA; one thread on CPUs), so
  /// a worker needs nothing more, and workers never wait for each other.
  template <class Member>
  KOKKOS_INLINE_FUNCTION static void sync(const Member&) {}

  template <class Member, class I, class F>
  KOKKOS_INLINE_FUNCTION static void for_each(const Member& m, I n, const F& f) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, n), f);
  }
  template <class Member, class I, class F, class T>
  KOKKOS_INLINE_FUNCTION static void sum(const Member& m, I n, const F& f, T& result) {
    Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(m, n), f, result);
  }
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION static void single(const Member& m, const F& f) {
    Kokkos::single(Kokkos::PerThread(m), f);
  }

  /// Calls f(j, p) for every product a(i, k) * b(k, p) of row i: the worker
  /// walks A's entries in order and its vector lanes share each row of B.
  /// `ahead.at(j)` is called at each entry (prefetch.hpp's RowsAhead on CPUs).
  template <class Member, class ARowMap, class AEntries, class BRowMap, class F, class Ahead = NoRowsAhead>
  KOKKOS_INLINE_FUNCTION static void for_each_product(const Member& m, const ARowMap& a_row_map,
                                                      const AEntries& a_entries,
                                                      const BRowMap& b_row_map, std::int64_t i,
                                                      const F& f, const Ahead& ahead = {}) {
    const auto a_end = a_row_map(i + 1);
    for (auto j = a_row_map(i); j < a_end; ++j) {
      ahead.at(static_cast<std::int64_t>(j));
      const auto k = a_entries(j);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, b_row_map(k), b_row_map(k + 1)),
                           [&](const auto p) { f(j, p); });
    }
  }

  /// As for_each_product over A's entries [a_begin, a_end), the row of B of
  /// entry j being [b0, b1) from b_range(j, b0, b1), which checks what it
  /// reads (an empty range where A or B is malformed).
  template <class Member, class BRange, class F, class Ahead = NoRowsAhead>
  KOKKOS_INLINE_FUNCTION static void for_each_range_product(const Member& m, std::int64_t a_begin,
                                                            std::int64_t a_end, const BRange& b_range, const F& f,
                                                            const Ahead& ahead = {}) {
    for (std::int64_t j = a_begin; j < a_end; ++j) {
      ahead.at(j);
      std::int64_t b0 = 0, b1 = 0;
      b_range(j, b0, b1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, b0, b1), [&](const std::int64_t p) { f(j, p); });
    }
  }
};

struct TeamLevel {
  static constexpr bool team_wide = true;

  template <class Member>
  KOKKOS_INLINE_FUNCTION static void sync(const Member& m) {
    m.team_barrier();
  }

  template <class Member, class I, class F>
  KOKKOS_INLINE_FUNCTION static void for_each(const Member& m, I n, const F& f) {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), f);
  }
  template <class Member, class I, class F, class T>
  KOKKOS_INLINE_FUNCTION static void sum(const Member& m, I n, const F& f, T& result) {
    Kokkos::parallel_reduce(Kokkos::TeamVectorRange(m, n), f, result);
  }
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION static void single(const Member& m, const F& f) {
    Kokkos::single(Kokkos::PerTeam(m), f);
  }

  /// As WorkerLevel, with the team's workers taking different entries of A.
  template <class Member, class ARowMap, class AEntries, class BRowMap, class F, class Ahead = NoRowsAhead>
  KOKKOS_INLINE_FUNCTION static void for_each_product(const Member& m, const ARowMap& a_row_map,
                                                      const AEntries& a_entries,
                                                      const BRowMap& b_row_map, std::int64_t i,
                                                      const F& f, const Ahead& ahead = {}) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, a_row_map(i), a_row_map(i + 1)),
                         [&](const auto j) {
                           ahead.at(static_cast<std::int64_t>(j));
                           const auto k = a_entries(j);
                           Kokkos::parallel_for(
                               Kokkos::ThreadVectorRange(m, b_row_map(k), b_row_map(k + 1)),
                               [&](const auto p) { f(j, p); });
                         });
  }

  /// As WorkerLevel's, with the team's workers taking different entries of A.
  template <class Member, class BRange, class F, class Ahead = NoRowsAhead>
  KOKKOS_INLINE_FUNCTION static void for_each_range_product(const Member& m, std::int64_t a_begin,
                                                            std::int64_t a_end, const BRange& b_range, const F& f,
                                                            const Ahead& ahead = {}) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, a_begin, a_end), [&](const std::int64_t j) {
      ahead.at(j);
      std::int64_t b0 = 0, b1 = 0;
      b_range(j, b0, b1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, b0, b1), [&](const std::int64_t p) { f(j, p); });
    });
  }
};

}  // namespace gustav::detail
