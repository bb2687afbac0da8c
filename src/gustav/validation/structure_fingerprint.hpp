#pragma once
/// A 64-bit fingerprint of the structure of A and B (row maps and column
/// indices) for plans that keep product positions: the numeric phase adds
/// each product at the place the symbolic phase recorded for it, without
/// reading any column index, so it must know that neither structure has
/// changed since. One pass over both structures costs far less than
/// checking every product's column against C.
///
/// The fingerprint is a sum of well-mixed terms, one per (array, index,
/// value): any change of one element changes it, and changes of several
/// elements cancel with probability about 2^-64.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// SplitMix64's finaliser: a bijection in which every input bit reaches
/// every output bit.
KOKKOS_INLINE_FUNCTION std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The key of element `index` of array `kind` (0 to 3): (4 index + kind)
/// times the golden ratio, modulo 2^64. Linear in the index, so a pass can
/// step from one element's key to the next by adding the key of the step.
KOKKOS_INLINE_FUNCTION std::uint64_t structure_key(std::uint64_t kind, std::int64_t index) {
  return (static_cast<std::uint64_t>(index) * 4 + kind) * 0x9e3779b97f4a7c15ull;
}

/// The term of element `index` of array `kind` holding `value`. For a fixed
/// place the term is a bijection of the value, so changing one element
/// always changes the sum.
KOKKOS_INLINE_FUNCTION std::uint64_t structure_term(std::uint64_t kind, std::int64_t index, std::int64_t value) {
  return mix_bits(structure_key(kind, index) ^ static_cast<std::uint64_t>(value));
}

/// The terms of elements first, first + step, ... (below last) of one
/// array of kind `kind`, equal to the sum of structure_term over them. Each
/// array in a loop of its own, four loads in flight before their hashing,
/// and the element's key advanced by the step's (an add instead of a
/// multiply). One loop over all four arrays with a bounds test for each
/// spent 90 instructions per element and 43 % of its cycles waiting for loads (Nsight Compute on an H200,
/// lap3d:120's R * (A * P), 26 million terms: 63 % of the SMs' issue rate,
/// 19 % of the memory's bandwidth); this way the pass went from 0.105 to
/// 0.082 ms a launch there.
template <class View>
KOKKOS_INLINE_FUNCTION std::uint64_t array_terms(const View& v, std::int64_t first, std::int64_t last,
                                                 std::int64_t step, std::uint64_t kind) {
  std::uint64_t key = structure_key(kind, first);
  const std::uint64_t advance = structure_key(0, step);
  auto value = [&](std::int64_t i) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(v(i))); };
  std::uint64_t sum = 0;
  std::int64_t i = first;
  for (; i + 3 * step < last; i += 4 * step) {
    const std::uint64_t v0 = value(i), v1 = value(i + step), v2 = value(i + 2 * step), v3 = value(i + 3 * step);
    sum += mix_bits(key ^ v0);
    sum += mix_bits((key + advance) ^ v1);
    sum += mix_bits((key + 2 * advance) ^ v2);
    sum += mix_bits((key + 3 * advance) ^ v3);
    key += 4 * advance;
  }
  for (; i < last; i += step, key += advance) sum += mix_bits(key ^ value(i));
  return sum;
}

/// The fingerprint in one launch: each team sums the terms of its share of
/// each of the four arrays of both structures (on GPUs the shares
/// interleave so that a warp's loads coalesce; on CPUs a team of one thread
/// takes one contiguous run of each) and stores its part; the last team to
/// finish adds the parts in team order into `out` and, when checking, sets
/// `errors` to error_structure_differs or clears it. `parts` holds a part per team and,
/// last, the count of teams done, which starts at zero and which the last
/// team sets back to zero. One launch instead of three (parts, a reduction,
/// a comparison) saves a kept-products repeat two launches' host time: most
/// of the numeric time of the small products.
template <class ExecSpace, class AIn, class BIn, class Parts, class Out, class Flag>
struct FingerprintPass {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr bool on_host = is_host_space<ExecSpace>();
  decltype(AIn::row_map) a_row_map;
  decltype(AIn::entries) a_entries;
  decltype(BIn::row_map) b_row_map;
  decltype(BIn::entries) b_entries;
  std::int64_t a_rows = 0, a_nnz = 0, b_rows = 0, b_nnz = 0;
  Parts parts;
  Out out;
  Flag errors;
  std::uint64_t expected = 0;
  bool check = false;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t g = team.league_rank(), teams = team.league_size(), size = team.team_size();
    std::uint64_t part = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, size),
        [&](const std::int64_t t, std::uint64_t& sum) {
          const std::int64_t thread = g * size + t, threads = teams * size;
          // Thread `thread`'s elements of an array of `count`.
          auto terms = [&](const auto& array, std::int64_t count, std::uint64_t kind) {
            if constexpr (on_host) {
              const std::int64_t run = (count + threads - 1) / threads;
              const std::int64_t first = thread * run < count ? thread * run : count;
              return array_terms(array, first, first + run < count ? first + run : count, 1, kind);
            } else {
              return array_terms(array, thread, count, threads, kind);
            }
          };
          sum += terms(a_row_map, a_rows + 1, 0) + terms(a_entries, a_nnz, 1) + terms(b_row_map, b_rows + 1, 2) +
                 terms(b_entries, b_nnz, 3);
        },
        part);
    bool last = false;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](bool& is_last) {
          parts(g) = part;
          // The part is visible before the count says so, and the last team
          // reads the parts only after it has seen the count.
          Kokkos::memory_fence();
          is_last = Kokkos::atomic_fetch_add(done_count(), 1ull) + 1 == static_cast<unsigned long long>(teams);
          if (is_last) Kokkos::memory_fence();
        },
        last);
    if (!last) return;
    // The last team adds the parts side by side (one thread adding them one
    // after another waited for each load in turn: a tenth of a small
    // product's repeat). Volatile loads: the parts come from other teams.
    std::uint64_t total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams),
        [&](const std::int64_t k, std::uint64_t& sum) { sum += *static_cast<volatile std::uint64_t*>(&parts(k)); },
        total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      out() = total;
      if (check) errors() = total != expected ? std::int64_t(error_structure_differs) : std::int64_t(0);
      *done_count() = 0;
    });
  }

  KOKKOS_INLINE_FUNCTION unsigned long long* done_count() const {
    return reinterpret_cast<unsigned long long*>(&parts(static_cast<std::int64_t>(parts.extent(0)) - 1));
  }
};

/// Teams of the fingerprint pass and their size: as many threads as the GPU
/// keeps resident, to keep its memory busy (measured on an H200 over 12
/// million elements: 0.04 ms for the parts alone, against 0.17 ms for one
/// Kokkos reduction with the hashing inside and 0.24 ms for team reductions
/// with atomics; with 512 teams, half of what an H200 holds, lap3d:120's
/// R * (A * P) took 0.12 ms over 17 million), one team of one thread per CPU
/// thread.
template <class ExecSpace>
int fingerprint_team_size() {
  return is_host_space<ExecSpace>() ? 1 : 256;
}
template <class ExecSpace>
std::int64_t fingerprint_teams(const ExecSpace& space) {
  if constexpr (is_host_space<ExecSpace>()) {
    return static_cast<std::int64_t>(space.concurrency());
  } else {
    return std::max<std::int64_t>(1, space.concurrency() / fingerprint_team_size<ExecSpace>());
  }
}

/// The length of the `parts` array the fingerprint needs (zeroed once when
/// allocated): a part per team and the count of teams done.
template <class ExecSpace>
std::int64_t fingerprint_parts_length(const ExecSpace& space) {
  return fingerprint_teams(space) + 1;
}

/// Launches the fingerprint of A's and B's structure into `out` (a device
/// scalar), comparing it with `expected` into `errors` when `check`.
template <class ExecSpace, class AIn, class BIn, class Parts, class Out, class Flag>
void launch_fingerprint(const ExecSpace& space, const AIn& A, const BIn& B, const Parts& parts, const Out& out,
                        const Flag& errors, std::uint64_t expected, bool check, const std::string& name) {
  FingerprintPass<ExecSpace, AIn, BIn, Parts, Out, Flag> f;
  f.a_row_map = A.row_map;
  f.a_entries = A.entries;
  f.b_row_map = B.row_map;
  f.b_entries = B.entries;
  f.a_rows = A.num_rows;
  f.a_nnz = A.nnz();
  f.b_rows = B.num_rows;
  f.b_nnz = B.nnz();
  f.parts = parts;
  f.out = out;
  f.errors = errors;
  f.expected = expected;
  f.check = check;
  const std::int64_t teams = static_cast<std::int64_t>(parts.extent(0)) - 1;
  Kokkos::parallel_for(
      name, light_launch(Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(teams), fingerprint_team_size<ExecSpace>())),
      f);
}

/// The fingerprint of A's and B's structure, on the host (waits for it).
/// `parts`: fingerprint_parts_length long, zeroed when allocated.
template <class ExecSpace, class AIn, class BIn, class Parts, class Out, class Flag>
std::uint64_t structure_fingerprint(const ExecSpace& space, const AIn& A, const BIn& B, const Parts& parts,
                                    const Out& out, const Flag& errors) {
  launch_fingerprint(space, A, B, parts, out, errors, 0, false, "gustav::symbolic::structure_fingerprint");
  std::uint64_t sum = 0;
  Kokkos::deep_copy(sum, out);
  return sum;
}

/// Sets `errors` to error_structure_differs, or clears it, as A's and B's
/// structure has changed since its fingerprint `expected` or not, without
/// waiting: the flag's only writer in a kept-products numeric phase, so it
/// needs no clearing before. (No input checks beside it: the plan checked
/// the structure it fingerprinted.)
template <class ExecSpace, class AIn, class BIn, class Flag, class Parts, class Out>
void check_structure_fingerprint(const ExecSpace& space, const AIn& A, const BIn& B, std::uint64_t expected,
                                 const Parts& parts, const Out& out, const Flag& errors) {
  launch_fingerprint(space, A, B, parts, out, errors, expected, true, "gustav::numeric::structure_fingerprint");
}

}  // namespace gustav::detail
