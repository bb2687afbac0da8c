#pragma once
/// Two ways of touching an accumulator: `Concurrent` when several vector lanes
/// or workers share a table (GPU teams), `Exclusive` when one CPU thread owns
/// it. The accumulators are written once against this interface, so the CPU
/// path pays for no atomic instruction it does not need.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gustav::detail {

template <class T>
struct is_kokkos_complex : std::false_type {};
template <class R>
struct is_kokkos_complex<Kokkos::complex<R>> : std::true_type {};

struct Concurrent {
  static constexpr bool exclusive = false;

  template <class T>
  KOKKOS_INLINE_FUNCTION static T load(const T* p) {
    // A slot may be claimed by another lane at any time: never cache it.
    return *reinterpret_cast<const volatile T*>(p);
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static T compare_exchange(T* p, T expected, T desired) {
    return Kokkos::atomic_compare_exchange(p, expected, desired);
  }
  KOKKOS_INLINE_FUNCTION static void bit_or(std::uint32_t* p, std::uint32_t v) {
    Kokkos::atomic_fetch_or(p, v);
  }
  /// ORs v into *p and returns the bits *p held before.
  KOKKOS_INLINE_FUNCTION static std::uint32_t fetch_or(std::uint32_t* p, std::uint32_t v) {
    return Kokkos::atomic_fetch_or(p, v);
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void add(T* p, const T& v) {
    if constexpr (is_kokkos_complex<T>::value) {
      // Component-wise addition needs no 16-byte atomic (and no lock array).
      using R = typename T::value_type;
      Kokkos::atomic_add(reinterpret_cast<R*>(p), v.real());
      Kokkos::atomic_add(reinterpret_cast<R*>(p) + 1, v.imag());
    } else {
      Kokkos::atomic_add(p, v);
    }
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void min(T* p, T v) {
    Kokkos::atomic_fetch_min(p, v);
  }
};

struct Exclusive {
  static constexpr bool exclusive = true;

  template <class T>
  KOKKOS_INLINE_FUNCTION static T load(const T* p) {
    return *p;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static T compare_exchange(T* p, T expected, T desired) {
    const T old = *p;
    if (old == expected) *p = desired;
    return old;
  }
  KOKKOS_INLINE_FUNCTION static void bit_or(std::uint32_t* p, std::uint32_t v) { *p |= v; }
  KOKKOS_INLINE_FUNCTION static std::uint32_t fetch_or(std::uint32_t* p, std::uint32_t v) {
    const std::uint32_t old = *p;
    *p |= v;
    return old;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void add(T* p, const T& v) {
    *p += v;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void min(T* p, T v) {
    if (v < *p) *p = v;
  }
};

/// Counters (non-negative std::int64_t) updated with the hardware's 64-bit
/// integer atomics. Kokkos 3.4 maps CUDA's native atomicAdd and atomicMax
/// only to unsigned long long; on a signed 64-bit word they become
/// compare-and-swap loops, which serialise a team's warps on one scratch word.
/// Two's complement makes the unsigned add exact for any int64 increment.
KOKKOS_INLINE_FUNCTION void add_count(std::int64_t* p, std::int64_t v) {
  static_assert(sizeof(unsigned long long) == sizeof(std::int64_t), "64-bit counters");
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
/// add_count that returns the count before the addition.
KOKKOS_INLINE_FUNCTION std::int64_t fetch_add_count(std::int64_t* p, std::int64_t v) {
  return static_cast<std::int64_t>(
      Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
}
/// *p = max(*p, v) for non-negative *p and v (where unsigned order is signed order).
KOKKOS_INLINE_FUNCTION void raise_count(std::int64_t* p, std::int64_t v) {
  Kokkos::atomic_fetch_max(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

/// *p read from the level every multiprocessor shares (L2 on CUDA), for a
/// value another team wrote during this kernel and published with a fence:
/// a plain load could be served by this multiprocessor's L1 from a line it
/// read before. On hosts the caches are coherent and it is a plain load.
template <class T>
KOKKOS_INLINE_FUNCTION T load_shared_level(const T* p) {
#if defined(__CUDA_ARCH__)
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "a word, two or four");
  T v;
  if constexpr (sizeof(T) == 4) {
    const unsigned int w = __ldcg(reinterpret_cast<const unsigned int*>(p));
    memcpy(&v, &w, sizeof(T));
  } else if constexpr (sizeof(T) == 8) {
    const unsigned long long w = __ldcg(reinterpret_cast<const unsigned long long*>(p));
    memcpy(&v, &w, sizeof(T));
  } else {
    const uint4 w = __ldcg(reinterpret_cast<const uint4*>(p));
    memcpy(&v, &w, sizeof(T));
  }
  return v;
#else
  return *p;
#endif
}

}  // namespace gustav::detail
