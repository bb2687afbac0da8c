#pragma once
/// One thread's sort of a few keys (a short row's products, write_pass.hpp)
/// by a bitonic network: every compare-exchange is a minimum and a maximum,
/// so no branch depends on the keys. An insertion sort of a random row's
/// 16 columns mispredicts on about every other comparison; the network's
/// 80 compare-exchanges do not.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

KOKKOS_FORCEINLINE_FUNCTION void compare_exchange(std::uint64_t& a, std::uint64_t& b) {
  const std::uint64_t lo = a < b ? a : b;
  const std::uint64_t hi = a < b ? b : a;
  a = lo;
  b = hi;
}

/// Sorts keys[0, N) ascending; N is a power of two. Each merge of two
/// sorted halves first compares mirrored positions, so every later step
/// compares in the same direction.
template <int N>
KOKKOS_INLINE_FUNCTION void bitonic_sort(std::uint64_t* keys) {
  static_assert(N >= 2 && (N & (N - 1)) == 0, "bitonic_sort: N must be a power of two");
  for (int size = 2; size <= N; size <<= 1) {
    for (int base = 0; base < N; base += size)
      for (int o = 0; o < size / 2; ++o) compare_exchange(keys[base + o], keys[base + size - 1 - o]);
    for (int stride = size / 4; stride > 0; stride >>= 1)
      for (int base = 0; base < N; base += 2 * stride)
        for (int o = 0; o < stride; ++o) compare_exchange(keys[base + o], keys[base + o + stride]);
  }
}

/// Sorts keys[0, n) ascending for n <= 64, padding with the largest key up
/// to the next power of two (the padding sorts last). keys must hold 64.
KOKKOS_INLINE_FUNCTION void sort_few_keys(std::uint64_t* keys, int n) {
  int size = 8;
  while (size < n) size <<= 1;
  for (int i = n; i < size; ++i) keys[i] = ~std::uint64_t(0);
  switch (size) {
    case 8: bitonic_sort<8>(keys); break;
    case 16: bitonic_sort<16>(keys); break;
    case 32: bitonic_sort<32>(keys); break;
    default: bitonic_sort<64>(keys); break;
  }
}

}  // namespace gustav::detail
