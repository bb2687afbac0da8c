#pragma once
/// The values of the split operands (split_operands.hpp), gathered from A and
/// B for each product, and the check that A's and B's structure is the one
/// the split was made from: A's row map and the columns of every entry the
/// split moved, and the heavy rows of B whole. A difference raises
/// gustav::plan_mismatch (a split made for another structure would add
/// products into the wrong rows).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/errors.hpp"
#include "gustav/hybrid/split_operands.hpp"

namespace gustav::detail {

/// Values of A_D and A_H (either may be left empty: not gathered), with A's
/// structure checked against the split. Returns whether it matched.
template <class ExecSpace, class Split, class AInput, class Values>
bool gather_a_parts(const ExecSpace& space, const Split& s, const AInput& A, const Values& device_values,
                    const Values& host_values) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Ordinal = typename std::remove_const_t<typename decltype(A.entries)::value_type>;
  int faults = 0, more = 0;
  {
    auto kept = s.a_row_map;
    auto row_map = A.row_map;
    Kokkos::parallel_reduce(
        "gustav::hybrid::check_a_row_map", Range(space, 0, static_cast<std::int64_t>(kept.extent(0))),
        KOKKOS_LAMBDA(std::int64_t i, int& f) {
          f += static_cast<std::int64_t>(row_map(i)) != static_cast<std::int64_t>(kept(i)) ? 1 : 0;
        },
        faults);
  }
  if (faults > 0) return false;
  const bool with_values = device_values.extent(0) == s.device_a_entries.extent(0);
  {
    auto source = s.device_a_source;
    auto entries = s.device_a_entries;
    auto a_entries = A.entries;
    auto a_values = A.values;
    auto out = device_values;
    Kokkos::parallel_reduce(
        "gustav::hybrid::gather_device_a", Range(space, 0, static_cast<std::int64_t>(entries.extent(0))),
        KOKKOS_LAMBDA(std::int64_t p, int& f) {
          const auto j = source(p);
          f += a_entries(j) != entries(p) ? 1 : 0;
          if (with_values) out(p) = a_values(j);
        },
        more);
  }
  faults += more;
  const bool with_host_values = host_values.extent(0) == s.host_a_entries.extent(0);
  {
    auto source = s.host_a_source;
    auto entries = s.host_a_entries;
    auto b_index = s.heavy_b_index;
    auto a_entries = A.entries;
    auto a_values = A.values;
    auto out = host_values;
    more = 0;
    Kokkos::parallel_reduce(
        "gustav::hybrid::gather_host_a", Range(space, 0, static_cast<std::int64_t>(entries.extent(0))),
        KOKKOS_LAMBDA(std::int64_t p, int& f) {
          const auto j = source(p);
          f += b_index(a_entries(j)) != static_cast<Ordinal>(entries(p)) ? 1 : 0;
          if (with_host_values) out(p) = a_values(j);
        },
        more);
  }
  return faults + more == 0;
}

/// B_H's entries (`fill_entries`, in gustav::symbolic) or their check, and
/// its values where `values` has B_H's length. Returns whether B's heavy
/// rows are as the split found them.
template <class ExecSpace, class Split, class BInput, class Values>
bool gather_b_part(const ExecSpace& space, const Split& s, const BInput& B, bool fill_entries, const Values& values) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const std::int64_t rows = s.heavy_b_rows_count;
  if (rows == 0) return true;
  const bool with_values = values.extent(0) == s.host_b_entries.extent(0);
  auto heavy = s.heavy_b_rows;
  auto map = s.host_b_row_map;
  auto entries = s.host_b_entries;
  auto b_row_map = B.row_map;
  auto b_entries = B.entries;
  auto b_values = B.values;
  auto out = values;
  int faults = 0;
  const int team = is_host_space<ExecSpace>() ? 1 : 128;
  Kokkos::parallel_reduce(
      "gustav::hybrid::gather_b", Policy(space, static_cast<int>(rows), team),
      KOKKOS_LAMBDA(const typename Policy::member_type& t, int& f) {
        const std::int64_t r = t.league_rank();
        const auto k = heavy(r);
        const auto from = b_row_map(k);
        const std::int64_t len = static_cast<std::int64_t>(map(r + 1) - map(r));
        if (static_cast<std::int64_t>(b_row_map(k + 1) - from) != len) {
          Kokkos::single(Kokkos::PerTeam(t), [&]() { f += 1; });
          return;
        }
        const auto to = map(r);
        int bad = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(t, len),
            [&](std::int64_t q, int& g) {
              if (fill_entries) {
                entries(to + q) = b_entries(from + q);
              } else {
                g += entries(to + q) != b_entries(from + q) ? 1 : 0;
              }
              if (with_values) out(to + q) = b_values(from + q);
            },
            bad);
        Kokkos::single(Kokkos::PerTeam(t), [&]() { f += bad; });
      },
      faults);
  return faults == 0;
}

/// Raises the hybrid split's plan_mismatch.
[[noreturn]] inline void split_mismatch(const char* who) {
  throw plan_mismatch(std::string(who) +
                      ": the structure of A or B differs from the one gustav::symbolic split between host and "
                      "device; a plan made with SpgemmOptions::co_execution needs both unchanged");
}

}  // namespace gustav::detail
