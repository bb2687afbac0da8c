#pragma once
/// Bit tricks shared by the hash tables, the compressed B and the tier sizing.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace gustav::detail {

/// Number of set bits of a 32-bit column-set mask.
KOKKOS_INLINE_FUNCTION int popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#elif defined(__POPCNT__)
  return __builtin_popcount(x);
#else
  // Without the popcnt instruction enabled (-mpopcnt or an -march that has
  // it) the builtin becomes a library call, several times slower than these
  // few inline operations in the symbolic phase's inner loop.
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

/// Index of the lowest set bit of a non-zero mask.
KOKKOS_INLINE_FUNCTION int lowest_bit32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

/// Number of set bits of a 64-bit mask.
KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return popcount32(static_cast<std::uint32_t>(x)) + popcount32(static_cast<std::uint32_t>(x >> 32));
#endif
}

/// Index of the lowest set bit of a non-zero 64-bit mask.
KOKKOS_INLINE_FUNCTION int lowest_bit64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

/// Smallest power of two >= x (x >= 1); 1 for x <= 1.
KOKKOS_INLINE_FUNCTION std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/// floor(log2(x)) for x >= 1.
KOKKOS_INLINE_FUNCTION int log2_floor(std::int64_t x) {
  int l = 0;
  while (x > 1) {
    x >>= 1;
    ++l;
  }
  return l;
}

/// Fibonacci hashing: multiply by 2^32/phi and keep the high bits. Taking high
/// bits matters for stencil matrices, whose column offsets (n, n^2) are
/// multiples of large powers of two and would all collide under `key & mask`.
template <class Key>
KOKKOS_INLINE_FUNCTION std::uint32_t hash_slot(Key key, int log2_slots) {
  const auto k = static_cast<std::uint64_t>(key);
  const auto folded = static_cast<std::uint32_t>(k ^ (k >> 32));
  const std::uint32_t h = folded * 2654435769u;
  return log2_slots == 0 ? 0u : (h >> (32 - log2_slots));
}

}  // namespace gustav::detail
