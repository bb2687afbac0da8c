#pragma once
/// The distinct indices a rank's entries hold, as a bitmap over the global
/// index range with a running count of set bits per 32-bit word: one atomic
/// OR per entry marks them, a scan counts them, and an index's rank among
/// the marked ones is a lookup and a popcount. The ranks keep global order,
/// so rows sorted by global column stay sorted by local column. Costs one
/// bit per global index (plus 8 bytes per 32) on each rank: 16 MB per rank
/// for 10^8 global columns.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::distributed::detail {

template <class MemorySpace>
struct IndexBitmap {
  Kokkos::View<std::uint32_t*, MemorySpace> words;
  /// before(w): marked indices in words 0 .. w-1; before(words) = count.
  Kokkos::View<std::int64_t*, MemorySpace> before;
  std::int64_t count = 0;

  /// Rank of the marked index i among the marked indices.
  KOKKOS_INLINE_FUNCTION std::int64_t rank_of(std::int64_t i) const {
    const std::uint32_t below = words(i >> 5) & ((std::uint32_t(1) << (i & 31)) - 1u);
    return before(i >> 5) + gustav::detail::popcount32(below);
  }
};

/// Marks every index held in `entries` (all in [0, range)) and counts them.
template <class ExecSpace, class Entries>
IndexBitmap<typename ExecSpace::memory_space> mark_indices(const ExecSpace& space, std::int64_t range,
                                                           const Entries& entries, const std::string& label) {
  using Memory = typename ExecSpace::memory_space;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  IndexBitmap<Memory> b;
  const std::int64_t n_words = (range + 31) / 32;
  b.words = gustav::detail::allocate_view<decltype(b.words)>(space, label + "::words", n_words, true);
  b.before = gustav::detail::allocate_view<decltype(b.before)>(space, label + "::before", n_words + 1, false);
  const auto words = b.words;
  Kokkos::parallel_for(
      label + "::mark", Range(space, 0, static_cast<std::int64_t>(entries.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const std::int64_t i = static_cast<std::int64_t>(entries(p));
        Kokkos::atomic_fetch_or(&words(i >> 5), std::uint32_t(1) << (i & 31));
      });
  const auto before = b.before;
  Kokkos::parallel_scan(
      label + "::count", Range(space, 0, n_words + 1),
      KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& sum, const bool final) {
        if (final) before(w) = sum;
        if (w < n_words) sum += gustav::detail::popcount32(words(w));
      });
  b.count = gustav::detail::read_element(space, b.before, static_cast<std::size_t>(n_words));
  return b;
}

/// The marked indices in ascending order.
template <class Index, class ExecSpace>
Kokkos::View<Index*, typename ExecSpace::memory_space> marked_indices(
    const ExecSpace& space, const IndexBitmap<typename ExecSpace::memory_space>& b, const std::string& label) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::View<Index*, typename ExecSpace::memory_space> out =
      gustav::detail::allocate_view<Kokkos::View<Index*, typename ExecSpace::memory_space>>(space, label, b.count,
                                                                                           false);
  const auto words = b.words;
  const auto before = b.before;
  Kokkos::parallel_for(
      label + "::list", Range(space, 0, static_cast<std::int64_t>(words.extent(0))), KOKKOS_LAMBDA(const std::int64_t w) {
        std::uint32_t bits = words(w);
        std::int64_t at = before(w);
        while (bits != 0) {
          out(at++) = static_cast<Index>(w * 32 + gustav::detail::lowest_bit32(bits));
          bits &= bits - 1u;
        }
      });
  return out;
}

/// Replaces every index in `entries` by its rank in `b` (where all are marked).
template <class ExecSpace, class Entries>
void to_ranks(const ExecSpace& space, const IndexBitmap<typename ExecSpace::memory_space>& b, const Entries& entries,
              const std::string& label) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      label, Range(space, 0, static_cast<std::int64_t>(entries.extent(0))), KOKKOS_LAMBDA(const std::int64_t p) {
        using Index = std::remove_reference_t<decltype(entries(p))>;
        entries(p) = static_cast<Index>(b.rank_of(static_cast<std::int64_t>(entries(p))));
      });
}

}  // namespace gustav::distributed::detail
