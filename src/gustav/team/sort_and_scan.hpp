#pragma once
/// Sorting and prefix sums over a power-of-two array in team scratch or global
/// memory, one level's sync (levels.hpp) between steps: team barriers at team
/// level, the lanes' own synchronisation at worker level, so workers sort
/// independently. Nothing relies on warp-synchronous execution.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace gustav::detail {

/// Keys compare as unsigned so that the empty marker (-1) sorts last.
template <class Key>
KOKKOS_INLINE_FUNCTION bool key_greater(Key a, Key b) {
  using U = std::make_unsigned_t<Key>;
  return static_cast<U>(a) > static_cast<U>(b);
}

/// Swaps entries lo and hi of keys and, unless it is null, payload.
template <class Key, class Payload>
KOKKOS_INLINE_FUNCTION void swap_pair(Key* keys, Payload* payload, int lo, int hi) {
  const Key k = keys[lo];
  keys[lo] = keys[hi];
  keys[hi] = k;
  if (payload) {
    const Payload v = payload[lo];
    payload[lo] = payload[hi];
    payload[hi] = v;
  }
}

/// Ascending bitonic sort of keys[0, n) carrying payload[0, n) (null: keys
/// only); n is a power of two. Every comparator puts the smaller key at the lower index (the
/// "flip" form of the network), which keeps the loop free of direction flags.
template <class Level, class Member, class Key, class Payload>
KOKKOS_INLINE_FUNCTION void bitonic_sort_pairs(const Member& team, Key* keys, Payload* payload,
                                               int n) {
  const int half = n / 2;
  for (int block = 2; block <= n; block <<= 1) {
    const int half_block = block / 2;
    Level::for_each(team, half, [&](int t) {
      const int base = (t / half_block) * block;
      const int offset = t % half_block;
      const int lo = base + offset;
      const int hi = base + block - 1 - offset;
      if (key_greater(keys[lo], keys[hi])) swap_pair(keys, payload, lo, hi);
    });
    Level::sync(team);
    for (int stride = half_block / 2; stride >= 1; stride >>= 1) {
      Level::for_each(team, half, [&](int t) {
        const int lo = (t / stride) * 2 * stride + t % stride;
        const int hi = lo + stride;
        if (key_greater(keys[lo], keys[hi])) swap_pair(keys, payload, lo, hi);
      });
      Level::sync(team);
    }
  }
}

/// In-place exclusive prefix sum of a[0, n), n a power of two (Blelloch's
/// up-sweep / down-sweep: 2 log2(n) barrier-separated steps).
template <class Level, class Member, class T>
KOKKOS_INLINE_FUNCTION void exclusive_scan_pow2(const Member& team, T* a, int n) {
  for (int d = 1; d < n; d <<= 1) {
    Level::for_each(team, n / (2 * d), [&](int t) {
      const int i = (2 * t + 2) * d - 1;
      a[i] += a[i - d];
    });
    Level::sync(team);
  }
  Level::single(team, [&]() { a[n - 1] = 0; });
  Level::sync(team);
  for (int d = n / 2; d >= 1; d >>= 1) {
    Level::for_each(team, n / (2 * d), [&](int t) {
      const int i = (2 * t + 2) * d - 1;
      const T left = a[i - d];
      a[i - d] = a[i];
      a[i] += left;
    });
    Level::sync(team);
  }
}

/// Insertion sort of keys[0, n) with payload (nullptr: keys only), for one
/// CPU thread: for short ranges, and for nearly sorted ones, where it costs
/// little more than a pass.
template <class Key, class Payload>
KOKKOS_INLINE_FUNCTION void insertion_sort_pairs(Key* keys, Payload* payload, std::int64_t n) {
  for (std::int64_t i = 1; i < n; ++i) {
    const Key k = keys[i];
    const Payload v = payload ? payload[i] : Payload();
    std::int64_t j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      if (payload) payload[j + 1] = payload[j];
      --j;
    }
    keys[j + 1] = k;
    if (payload) payload[j + 1] = v;
  }
}

/// Sequential sort of keys[0, n) with payload (nullptr: keys only), for one
/// CPU thread: insertion sort for short ranges inside an explicit-stack
/// quicksort (no recursion, so it is legal in any Kokkos kernel).
template <class Key, class Payload>
KOKKOS_INLINE_FUNCTION void sequential_sort_pairs(Key* keys, Payload* payload, std::int64_t n) {
  std::int64_t stack[128];
  int top = 0;
  std::int64_t lo = 0, hi = n - 1;
  while (true) {
    if (hi - lo < 16) {
      insertion_sort_pairs(keys + lo, payload ? payload + lo : payload, hi - lo + 1);
      if (top == 0) return;
      hi = stack[--top];
      lo = stack[--top];
      continue;
    }
    // Median of three as pivot, Hoare partition.
    const std::int64_t mid = lo + (hi - lo) / 2;
    Key a = keys[lo], b = keys[mid], c = keys[hi];
    const Key pivot = (a < b) ? ((b < c) ? b : ((a < c) ? c : a)) : ((a < c) ? a : ((b < c) ? c : b));
    std::int64_t i = lo - 1, j = hi + 1;
    while (true) {
      do ++i; while (keys[i] < pivot);
      do --j; while (keys[j] > pivot);
      if (i >= j) break;
      const Key tk = keys[i];
      keys[i] = keys[j];
      keys[j] = tk;
      if (payload) {
        const Payload tv = payload[i];
        payload[i] = payload[j];
        payload[j] = tv;
      }
    }
    // Continue with the smaller side, push the larger: stack depth <= log2(n).
    if (j - lo < hi - j) {
      stack[top++] = j + 1;
      stack[top++] = hi;
      hi = j;
    } else {
      stack[top++] = lo;
      stack[top++] = j;
      lo = j + 1;
    }
  }
}

}  // namespace gustav::detail
