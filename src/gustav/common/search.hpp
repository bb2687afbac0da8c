#pragma once
/// Which segment holds a position, given the segments' starting offsets
/// (a row map, or any running count): the search the kernels that split
/// rows into pieces, units or slices all need.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

/// The largest j in [lo, hi] with offsets(j) <= x (binary search; offsets
/// ascending, so of several empty segments starting at the same offset the
/// last, the one that holds x, is found). Needs offsets(lo) <= x.
template <class Offsets>
KOKKOS_INLINE_FUNCTION std::int64_t last_at_most(const Offsets& offsets, std::int64_t x, std::int64_t lo,
                                                 std::int64_t hi) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (static_cast<std::int64_t>(offsets(mid)) <= x) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// The first position in the ascending entries [lo, hi) holding at least
/// `value` (hi where none does).
template <class Entries, class T>
KOKKOS_INLINE_FUNCTION std::int64_t first_at_least(const Entries& entries, std::int64_t lo, std::int64_t hi, T value) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (entries(mid) < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The position of `value` in the ascending entries [lo, hi) (a sorted row
/// of C), or -1 where the row does not hold it.
template <class Entries, class T>
KOKKOS_INLINE_FUNCTION std::int64_t find_sorted(const Entries& entries, std::int64_t lo, std::int64_t hi, T value) {
  const std::int64_t at = first_at_least(entries, lo, hi, value);
  return at < hi && entries(at) == value ? at : -1;
}

}  // namespace gustav::detail
